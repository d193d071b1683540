//! The settler's second step: sending what is queued. `ops::settle::plan` says which
//! batches go (releases wait for the chain's clock); each is built (`build.rs`), given the gas
//! the chain says it needs (`gas.rs`), signed with the relayer's next nonce, stored with its
//! intents marked submitted (one SQLite transaction: a crash after it sends the same bytes),
//! then broadcast. A token without code on chain holds its transfers back; a relayer without
//! the ETH the round may cost stops it, naming the address to fund.

use super::build::Built;
use super::rpc::{Fail, Rpc};
use super::settler::{Head, Settler, Step, Stop, BATCHES_PER_ROUND};
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::settlement::{ChainTx, NO_CODE, OUT_OF_GAS, WRONG_FACTORY};
use tokenpad_core::ops::settle;
use tokenpad_core::ops::settle::plan::{plan, Batch, Call, Limits};
use tokenpad_core::store::Store;
use tokenpad_core::{Error, Result};
use tokenpad_evm::rpc::{self as r, BlockTag};
use tokenpad_evm::{reads, tx};

impl Settler<'_> {
    pub(super) async fn send(&self, rpc: &Rpc<'_>, head: &Head) -> Step {
        let store = self.store();
        let limits = Limits {
            per_batch: self.evm.batch,
            batches: BATCHES_PER_ROUND,
        };
        let batchable = |t: &TokenAddress| !self.is_usdc(t);
        let planned = plan(&store, limits, batchable, Some(head.timestamp))?;
        let (planned, wrong_factory) = self.right_factory(rpc, planned).await?;
        let (batches, held) = self.deployed_only(rpc, planned).await?;
        let held = wrong_factory.or(held);
        if batches.is_empty() {
            return held.map_or(Ok(()), |why| Err(Stop::Held(why)));
        }
        let builder = self.builder(&store);
        let mut built = batches
            .iter()
            .map(|b| builder.build(b))
            .collect::<Result<Vec<Built>>>()?;
        let limits = self
            .gas_limits(rpc, &batches, &built, head.gas_limit)
            .await?;
        for (b, limit) in built.iter_mut().zip(limits) {
            b.gas_limit = limit;
        }
        let relayer = self.relayer_address();
        let mut nonce = match store.relayer()?.next_nonce {
            Some(n) => n,
            None => r::u64_result(
                &rpc.call(r::eth_get_transaction_count(
                    rpc.id(),
                    relayer,
                    BlockTag::Pending,
                ))
                .await?,
            )?,
        };
        let (tip, cap) = self.fees_at(rpc, head.base_fee).await?;
        let balance = r::u128_result(
            &rpc.call(r::eth_get_balance(rpc.id(), relayer, BlockTag::Latest))
                .await?,
        )?;
        let mut budget = balance;
        for (b, payload) in batches.iter().zip(built) {
            let cost = u128::from(payload.gas_limit).saturating_mul(cap);
            if cost > budget {
                return Err(Stop::Held(self.out_of_gas(Some((balance, cost)))));
            }
            budget -= cost;
            let unsigned = tx::Eip1559 {
                chain_id: self.evm.chain.chain_id,
                nonce,
                max_priority_fee_per_gas: tip,
                max_fee_per_gas: cap,
                gas_limit: payload.gas_limit,
                to: Some(payload.to),
                value: 0,
                data: payload.data.clone(),
            };
            let record = ChainTx::signed(
                nonce,
                b.intents.iter().map(|i| i.id).collect(),
                Address(payload.to),
                hex0x(&payload.data),
                payload.gas_limit,
                self.sign(&unsigned)?,
                self.ctx.now,
            );
            let stored = record.clone();
            // Stored before it is sent: a crash after this line sends these same bytes.
            let halt = self.commit(move |s| {
                settle::signed(s, &stored)?;
                let mut state = s.chain_state()?;
                let halt = state.halt_after_signing > 0;
                if halt {
                    state.halt_after_signing -= 1;
                    s.put_chain_state(&state)?;
                }
                Ok(halt)
            })?;
            if halt {
                return Err(Stop::Ledger(Error::internal(
                    "settlement halted between signing and sending (injected fault)",
                )));
            }
            self.broadcast(rpc, &record).await?;
            nonce = nonce.saturating_add(1);
        }
        held.map_or(Ok(()), |why| Err(Stop::Held(why)))
    }

    /// The batches whose token has code on chain (a call to an address without code
    /// "succeeds" and moves nothing): a token whose deployment failed or is not mined holds its
    /// movements back, and says so.
    async fn deployed_only(
        &self,
        rpc: &Rpc<'_>,
        planned: Vec<Batch>,
    ) -> Step<(Vec<Batch>, Option<String>)> {
        let mut tokens: Vec<TokenAddress> = planned
            .iter()
            .filter(|b| b.call == Call::Transfers && !self.is_usdc(&b.token))
            .map(|b| b.token)
            .collect();
        tokens.sort();
        tokens.dedup();
        if tokens.is_empty() {
            return Ok((planned, None));
        }
        let requests = tokens
            .iter()
            .map(|t| r::eth_get_code(rpc.id(), t.address().0, BlockTag::Latest))
            .collect();
        let mut missing = Vec::new();
        for (t, answer) in tokens.iter().zip(rpc.batch(requests).await?) {
            let code = r::data_result(&answer.map_err(Fail::Node)?)?;
            if code.is_empty() {
                missing.push(*t);
            }
        }
        if missing.is_empty() {
            return Ok((planned, None));
        }
        let why = format!(
            "token {} {NO_CODE} (its deployment failed or is not mined): its movements wait",
            missing
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let kept = planned
            .into_iter()
            .filter(|b| b.call != Call::Transfers || !missing.contains(&b.token))
            .collect();
        Ok((kept, Some(why)))
    }

    /// The batches, less the token deployments when `CHAIN_FACTORY` deploys another token code
    /// than this Worker's (`TOKEN_CODE_HASH`): every token address the ledger answered follows
    /// from that code, so a deployment through another factory build would put the token
    /// where no movement looks for it. Held, and said, until `CHAIN_FACTORY` names the factory
    /// of this release (scripts/deploy-contracts.mjs). One read per round with deployments.
    async fn right_factory(
        &self,
        rpc: &Rpc<'_>,
        planned: Vec<Batch>,
    ) -> Step<(Vec<Batch>, Option<String>)> {
        if !planned.iter().any(|b| b.call == Call::Deploy) {
            return Ok((planned, None));
        }
        let factory = self.evm.chain.factory;
        let call = r::CallRequest {
            from: None,
            to: factory.0,
            data: reads::factory_code_hash(),
        };
        // A contract that is no factory at all answers with an error, or nothing of the shape.
        let deploys = match rpc
            .call(r::eth_call(rpc.id(), &call, BlockTag::Latest))
            .await
        {
            Ok(answer) => r::data_result(&answer)
                .ok()
                .and_then(|d| reads::decode_factory_code_hash(&d).ok())
                .is_some_and(|h| h == self.evm.chain.token_code_hash),
            Err(Fail::Node(_)) => false,
            Err(transport) => return Err(transport.into()),
        };
        if deploys {
            return Ok((planned, None));
        }
        let why = format!(
            "CHAIN_FACTORY {factory} {WRONG_FACTORY} (its TOKEN_CREATION_CODE_HASH is not {}): token deployments wait; deploy this release's factory (scripts/deploy-contracts.mjs) and set CHAIN_FACTORY to it",
            hex0x(&self.evm.chain.token_code_hash)
        );
        let kept = planned
            .into_iter()
            .filter(|b| b.call != Call::Deploy)
            .collect();
        Ok((kept, Some(why)))
    }

    /// Why settlement waits on the relayer's ETH; `figures` is (its balance, what the next
    /// transaction may cost) in wei when known.
    pub(super) fn out_of_gas(&self, figures: Option<(u128, u128)>) -> String {
        let relayer = self.ctx.merchant.address.to_checksum();
        let had = match figures {
            Some((balance, need)) => {
                format!("it has {balance} wei and the next transaction may cost up to {need} wei")
            }
            None => "the node refused a transaction for want of it".into(),
        };
        format!(
            "the relayer {relayer} {OUT_OF_GAS}: {had}. Send ETH to {relayer} on chain {}; settlement resumes by itself.",
            self.evm.chain.chain_id
        )
    }
}
