//! The round's chain port over JSON-RPC (`ops::settle::round::port::Chain`): each read of
//! the round one call, or one batch where the round asks for several things at once.
//! Receipts are read in `receipts.rs`, logs in `deposits.rs`.

use super::rpc::Fail;
use super::settler::{evm, Port};
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::pool::v3::State;
use tokenpad_core::model::settlement::{ChainTx, WRONG_FACTORY};
use tokenpad_core::ops::settle::round::port::{
    Chain, Head, Level, Payload, Scanned, Sent, Step, Stop,
};
use tokenpad_core::ops::settle::Mined;
use tokenpad_core::Error;
use tokenpad_evm::rpc::{self as r, BlockTag, CallRequest, SendError};
use tokenpad_evm::{market, reads};

impl Port<'_> {
    /// A block answer as the round's head.
    fn head_of(block: &serde_json::Value) -> Step<Head> {
        let b = r::parse_block(block)
            .map_err(evm)?
            .ok_or_else(|| Stop::Node(unreachable_("the node has no latest block")))?;
        Ok(Head {
            number: b.number,
            hash: b.hash.map(|h| hex0x(&h)),
            timestamp: b.timestamp,
            base_fee: b.base_fee_per_gas.unwrap_or(0),
            gas_limit: b.gas_limit,
        })
    }

    fn relayer(&self) -> [u8; 20] {
        self.settler.relayer_address()
    }
}

fn unreachable_(why: &str) -> tokenpad_core::ops::settle::round::port::Fail {
    tokenpad_core::ops::settle::round::port::Fail::Unreachable(
        Fail::Transport(why.into()).to_string(),
    )
}

impl Chain for Port<'_> {
    async fn head_and_balance(&self) -> Step<(Head, Option<u128>)> {
        let rpc = &self.rpc;
        let mut answers = self
            .batch(vec![
                r::eth_get_block_by_number(rpc.id(), BlockTag::Latest),
                r::eth_get_balance(rpc.id(), self.relayer(), BlockTag::Latest),
            ])
            .await?
            .into_iter();
        let block = answers
            .next()
            .ok_or_else(|| Stop::Node(unreachable_("a batch answer is missing")))?
            .map_err(|e| self.fail(Fail::Node(e)))?;
        let balance = answers
            .next()
            .and_then(|b| b.ok())
            .and_then(|b| r::u128_result(&b).ok());
        Ok((Self::head_of(&block)?, balance))
    }

    async fn head(&self) -> Step<Head> {
        let block = self
            .call(r::eth_get_block_by_number(self.rpc.id(), BlockTag::Latest))
            .await?;
        Self::head_of(&block)
    }

    async fn balance(&self) -> Step<u128> {
        let id = self.rpc.id();
        let answer = self
            .call(r::eth_get_balance(id, self.relayer(), BlockTag::Latest))
            .await?;
        r::u128_result(&answer).map_err(evm)
    }

    async fn nonce(&self, pending: bool) -> Step<u64> {
        let tag = if pending {
            BlockTag::Pending
        } else {
            BlockTag::Latest
        };
        let id = self.rpc.id();
        let count = self
            .call(r::eth_get_transaction_count(id, self.relayer(), tag))
            .await?;
        r::u64_result(&count).map_err(evm)
    }

    async fn tip(&self) -> Option<u128> {
        let answer = self
            .rpc
            .call(r::eth_max_priority_fee_per_gas(self.rpc.id()))
            .await;
        answer.ok().and_then(|v| r::u128_result(&v).ok())
    }

    async fn block_hashes(&self, numbers: &[u64]) -> Step<Vec<Option<String>>> {
        let requests = numbers
            .iter()
            .map(|n| r::eth_get_block_by_number(self.rpc.id(), BlockTag::Number(*n)))
            .collect();
        Ok(self
            .batch(requests)
            .await?
            .into_iter()
            .map(|answer| {
                answer
                    .ok()
                    .and_then(|v| r::parse_block(&v).ok().flatten())
                    .and_then(|b| b.hash)
                    .map(|h| hex0x(&h))
            })
            .collect())
    }

    async fn receipts(&self, open: &[ChainTx], head: &Head) -> Step<Vec<Option<Mined>>> {
        self.read_receipts(open, head).await
    }

    async fn known(&self, hash: &str) -> Step<bool> {
        let hash = r::parse_hex_fixed::<32>(hash).map_err(evm)?;
        let id = self.rpc.id();
        let answer = self.call(r::eth_get_transaction_by_hash(id, hash)).await?;
        Ok(r::parse_transaction(&answer).map_err(evm)?.is_some())
    }

    async fn send(&self, t: &ChainTx) -> Step<Sent> {
        let latest = t
            .latest()
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        let raw = r::parse_hex_data(&latest.raw).map_err(evm)?;
        let id = self.rpc.id();
        match self.rpc.call(r::eth_send_raw_transaction(id, &raw)).await {
            Ok(_) => Ok(Sent::Accepted),
            Err(Fail::Node(e)) => Ok(match SendError::classify(&e) {
                SendError::AlreadyKnown => Sent::AlreadyKnown,
                SendError::NonceTooLow => Sent::NonceTooLow,
                SendError::InsufficientFunds => Sent::InsufficientFunds,
                SendError::Underpriced => Sent::Underpriced(e.message),
                SendError::Other(message) => Sent::Other(message),
            }),
            Err(transport) => Err(self.fail(transport)),
        }
    }

    async fn estimates(&self, payloads: &[Payload]) -> Step<Vec<Option<u64>>> {
        let from = self.relayer();
        let requests = payloads
            .iter()
            .map(|p| {
                let call = CallRequest {
                    from: Some(from),
                    to: p.to.0,
                    data: p.data.clone(),
                };
                r::eth_estimate_gas(self.rpc.id(), &call)
            })
            .collect();
        let mut out = Vec::with_capacity(payloads.len());
        for answer in self.batch(requests).await? {
            out.push(match answer {
                Ok(v) => {
                    Some(r::u64_result(&v).map_err(|e| self.fail(Fail::Transport(e.to_string())))?)
                }
                // It would revert now: the chain decides with its receipt.
                Err(_) => None,
            });
        }
        Ok(out)
    }

    async fn has_code(&self, tokens: &[TokenAddress]) -> Step<Vec<bool>> {
        let requests = tokens
            .iter()
            .map(|t| r::eth_get_code(self.rpc.id(), t.address().0, BlockTag::Latest))
            .collect();
        let mut out = Vec::with_capacity(tokens.len());
        for answer in self.batch(requests).await? {
            let answer = answer.map_err(|e| self.fail(Fail::Node(e)))?;
            out.push(!r::data_result(&answer).map_err(evm)?.is_empty());
        }
        Ok(out)
    }

    /// Whether `CHAIN_FACTORY` deploys this Worker's token code (`TOKEN_CODE_HASH`): every
    /// token address the ledger answered follows from that code, so a deployment through
    /// another factory build would put the token where no movement looks for it. Held, and
    /// said, until `CHAIN_FACTORY` names the factory of this release
    /// (scripts/deploy-contracts.mjs).
    async fn wrong_factory(&self) -> Step<Option<String>> {
        let chain = &self.settler.evm.chain;
        let call = CallRequest {
            from: None,
            to: chain.factory.0,
            data: reads::factory_code_hash(),
        };
        let id = self.rpc.id();
        // A contract that is no factory at all answers with an error, or nothing of the shape.
        let deploys = match self
            .rpc
            .call(r::eth_call(id, &call, BlockTag::Latest))
            .await
        {
            Ok(answer) => r::data_result(&answer)
                .ok()
                .and_then(|d| reads::decode_factory_code_hash(&d).ok())
                .is_some_and(|h| h == chain.token_code_hash),
            Err(Fail::Node(_)) => false,
            Err(transport) => return Err(self.fail(transport)),
        };
        Ok((!deploys).then(|| {
            format!(
                "CHAIN_FACTORY {} {WRONG_FACTORY} (its TOKEN_CREATION_CODE_HASH is not {}): token deployments wait; deploy this release's factory (scripts/deploy-contracts.mjs) and set CHAIN_FACTORY to it",
                chain.factory,
                hex0x(&chain.token_code_hash)
            )
        }))
    }

    async fn pool_states(&self, pools: &[Address], at: u64) -> Step<Vec<State>> {
        let mut requests = Vec::new();
        for pool in pools {
            for data in [market::slot0(), market::liquidity()] {
                let call = CallRequest {
                    from: None,
                    to: pool.0,
                    data,
                };
                requests.push(r::eth_call(self.rpc.id(), &call, BlockTag::Number(at)));
            }
        }
        let answers = self.batch(requests).await?;
        let mut states = Vec::new();
        for pair in answers.chunks(2) {
            let read = |k: usize| -> Step<Vec<u8>> {
                let v = pair
                    .get(k)
                    .cloned()
                    .ok_or_else(|| Stop::Node(unreachable_("a pool read went unanswered")))?
                    .map_err(|e| self.fail(Fail::Node(e)))?;
                r::data_result(&v).map_err(evm)
            };
            let (sqrt_price, tick) = market::decode_slot0(&read(0)?).map_err(evm)?;
            let liquidity = market::decode_liquidity(&read(1)?).map_err(evm)?;
            states.push(State {
                sqrt_price,
                tick,
                liquidity,
            });
        }
        Ok(states)
    }

    async fn block_number(&self) -> Step<u64> {
        let answer = self.call(r::eth_block_number(self.rpc.id())).await?;
        r::u64_result(&answer).map_err(evm)
    }

    async fn logs(&self, from: u64, to: u64) -> Step<Scanned> {
        self.read_logs(from, to).await
    }

    fn log(&self, level: Level, line: &str) {
        match level {
            Level::Warn => worker::console_warn!("{line}"),
            Level::Error => worker::console_error!("{line}"),
        }
    }
}
