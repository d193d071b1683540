//! The round's send: what is queued. `ops::settle::plan` says which batches go (releases wait
//! for the chain's clock); each is built (`Signer::build`), given the gas the chain says it
//! needs (`gas`), signed with the relayer's next nonce, stored with its intents marked
//! submitted (one transaction: a crash after it sends the same bytes), then broadcast. A token
//! without code on chain holds its transfers back; a relayer without the ETH the round may
//! cost stops it, naming the address to fund. A nonce the node says is used already went to
//! another transaction: that one is abandoned at once, and the round sends nothing more.

use super::gas;
use super::port::{Chain, Head, Ledger, Payload, Plant, Sent, Signer, Step, Stop, Unsigned};
use super::{Round, BATCHES_PER_ROUND};
use crate::crypto::hex0x;
use crate::error::Result;
use crate::model::ids::TokenAddress;
use crate::model::intent::IntentStatus;
use crate::model::settlement::{ChainTx, NO_CODE};
use crate::ops::settle;
use crate::ops::settle::plan::{plan, Batch, Call, Limits};

impl<C: Chain, S: Signer, L: Ledger> Round<'_, C, S, L> {
    pub(super) async fn send(&self, head: &Head) -> Step {
        let limits = Limits {
            per_batch: self.config.per_batch.max(1),
            batches: BATCHES_PER_ROUND,
        };
        let batchable = |t: &TokenAddress| self.signer.batchable(t);
        let usdc = self.ctx.chain.usdc();
        let planned = self
            .ledger
            .read(|s| plan(s, limits, batchable, Some(head.timestamp), usdc))?;
        let (planned, wrong_factory) = self.right_factory(planned).await?;
        let (batches, held) = self.deployed_only(planned).await?;
        let held = wrong_factory.or(held);
        if batches.is_empty() {
            return held.map_or(Ok(()), |why| Err(Stop::Held(why)));
        }
        let mut built = batches
            .iter()
            .map(|b| self.signer.build(b))
            .collect::<Result<Vec<Payload>>>()?;
        let limits = self.gas_limits(&batches, &built, head.gas_limit).await?;
        for (b, limit) in built.iter_mut().zip(limits) {
            b.floor = limit;
        }
        let mut nonce = match self.ledger.read(|s| s.relayer())?.next_nonce {
            Some(n) => n,
            None => self.chain.nonce(true).await?,
        };
        let (tip, cap) = self.fees_at(head.base_fee).await;
        let balance = self.chain.balance().await?;
        let mut budget = balance;
        let forget = self.chain.planted() == Some(Plant::ForgetsToMarkSent);
        for (b, payload) in batches.iter().zip(built) {
            let gas_limit = payload.floor;
            let cost = u128::from(gas_limit).saturating_mul(cap);
            if cost > budget {
                return Err(Stop::Held(self.out_of_gas(Some((balance, cost)))));
            }
            budget -= cost;
            let unsigned = Unsigned {
                nonce,
                to: payload.to,
                data: hex0x(&payload.data),
                gas_limit,
                tip,
                cap,
            };
            let record = ChainTx::signed(
                nonce,
                b.intents.iter().map(|i| i.id).collect(),
                payload.to,
                unsigned.data.clone(),
                gas_limit,
                self.sign(&unsigned)?,
                self.ctx.now,
            );
            let stored = record.clone();
            // Stored before it is sent: a crash after this line sends these same bytes.
            let halt = self.ledger.commit(move |s| {
                settle::signed(s, &stored)?;
                if forget {
                    for id in &stored.intents {
                        if let Some(mut i) = s.intent(*id)? {
                            i.status = IntentStatus::Queued;
                            s.put_intent(&i)?;
                        }
                    }
                }
                let mut state = s.chain_state()?;
                let halt = state.halt_after_signing > 0;
                if halt {
                    state.halt_after_signing -= 1;
                    s.put_chain_state(&state)?;
                }
                Ok(halt)
            })?;
            if halt {
                return Err(Stop::Halted(
                    "settlement halted between signing and sending (injected fault)".into(),
                ));
            }
            let answer = self.chain.send(&record).await?;
            if answer == Sent::NonceTooLow {
                // No version of it went out before: another transaction took its nonce (the
                // relayer's key used elsewhere). Abandoned now (left to `watch`, only after
                // `replace_after_ms`, while what went out behind it reverted for want of what
                // it brings, again each round). What this round planned after it may need
                // what it brings: the next round plans again, it first.
                let count = self.chain.nonce(false).await?;
                self.abandon(nonce, count)?;
                break;
            }
            self.answered(&record, answer).await?;
            nonce = nonce.saturating_add(1);
        }
        held.map_or(Ok(()), |why| Err(Stop::Held(why)))
    }

    /// Each payload's gas limit (see `gas`), in the order given, under a block's gas limit of
    /// `block_gas_limit`.
    async fn gas_limits(
        &self,
        batches: &[Batch],
        built: &[Payload],
        block_gas_limit: Option<u64>,
    ) -> Step<Vec<u64>> {
        let cap = gas::cap(block_gas_limit);
        let estimates = self.chain.estimates(built).await?;
        let low = self.chain.planted() == Some(Plant::GasLimitTooLow);
        Ok(batches
            .iter()
            .zip(built)
            .zip(estimates)
            .map(|((b, payload), estimate)| {
                let out_of_gas = b.intents.iter().map(|i| i.out_of_gas).max().unwrap_or(0);
                let limit = gas::limit(estimate, payload.floor, out_of_gas, cap);
                if low {
                    estimate.unwrap_or(payload.floor).saturating_sub(1)
                } else {
                    limit
                }
            })
            .collect())
    }

    /// The batches whose token has code on chain (a call to an address without code
    /// "succeeds" and moves nothing): a token whose deployment failed or is not mined holds its
    /// movements back, and says so.
    async fn deployed_only(&self, planned: Vec<Batch>) -> Step<(Vec<Batch>, Option<String>)> {
        let mut tokens: Vec<TokenAddress> = planned
            .iter()
            .filter(|b| b.call == Call::Transfers && self.signer.batchable(&b.token))
            .map(|b| b.token)
            .collect();
        tokens.sort();
        tokens.dedup();
        if tokens.is_empty() {
            return Ok((planned, None));
        }
        let code = self.chain.has_code(&tokens).await?;
        let missing: Vec<TokenAddress> = tokens
            .iter()
            .zip(code)
            .filter(|(_, has)| !has)
            .map(|(t, _)| *t)
            .collect();
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

    /// The batches, less the token deployments when the chain's factory deploys another token
    /// code than this release's (`Chain::wrong_factory` says why): every token address the
    /// ledger answered follows from that code. One read per round with deployments.
    async fn right_factory(&self, planned: Vec<Batch>) -> Step<(Vec<Batch>, Option<String>)> {
        if !planned.iter().any(|b| b.call == Call::Deploy) {
            return Ok((planned, None));
        }
        let Some(why) = self.chain.wrong_factory().await? else {
            return Ok((planned, None));
        };
        let kept = planned
            .into_iter()
            .filter(|b| b.call != Call::Deploy)
            .collect();
        Ok((kept, Some(why)))
    }
}
