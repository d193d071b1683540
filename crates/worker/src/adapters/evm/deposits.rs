//! The logs the round's scan follows (`port::Chain::logs`): Transfer logs of the merchant's
//! tokens (all of them) and of USDC (to its holders, and into and out of its pools), and its
//! pools' own events (other traders' swaps, liquidity added or removed), in one batch of
//! filtered `eth_getLogs`. The core applies them (`ops::settle::round`).

use super::rpc::Fail;
use super::settler::{evm, Port};
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::token::TokenKind;
use tokenpad_core::ops::settle::observe::Observed;
use tokenpad_core::ops::settle::round::port::{Scanned, Step};
use tokenpad_core::store::Store;
use tokenpad_evm::logs;
use tokenpad_evm::rpc::{self as r, LogFilter};

/// Holders per USDC log filter (providers cap topic lists).
const HOLDERS_PER_FILTER: usize = 100;

impl Port<'_> {
    pub(super) async fn read_logs(&self, from: u64, to: u64) -> Step<Scanned> {
        let store = self.settler.store();
        let tokens: Vec<[u8; 20]> = store
            .tokens()?
            .iter()
            .filter(|t| t.kind == TokenKind::Merchant)
            .map(|t| t.address.address().0)
            .collect();
        let holders = store.holder_addresses()?;
        let mut pools: Vec<[u8; 20]> = Vec::new();
        for t in store.tokens()? {
            if let Some(p) = store.pool(&t.address)? {
                pools.push(p.address.0);
            }
        }
        let usdc = self.settler.evm.usdc.0;
        let rpc = &self.rpc;
        let mut requests = Vec::new();
        if !tokens.is_empty() {
            requests.push(r::eth_get_logs(
                rpc.id(),
                &LogFilter {
                    from_block: from,
                    to_block: to,
                    addresses: tokens,
                    topics: vec![vec![logs::TRANSFER_TOPIC]],
                },
            ));
        }
        for chunk in holders.chunks(HOLDERS_PER_FILTER) {
            let topics = chunk.iter().map(|a| word(&a.0)).collect();
            requests.push(r::eth_get_logs(
                rpc.id(),
                &LogFilter {
                    from_block: from,
                    to_block: to,
                    addresses: vec![usdc],
                    topics: vec![vec![logs::TRANSFER_TOPIC], vec![], topics],
                },
            ));
        }
        if !pools.is_empty() {
            let words: Vec<[u8; 32]> = pools.iter().map(word).collect();
            let usdc = vec![usdc];
            let transfer = vec![logs::TRANSFER_TOPIC];
            // USDC into and out of the pools, and the pools' own events.
            for topics in [
                vec![transfer.clone(), words.clone()],
                vec![transfer, vec![], words],
            ] {
                requests.push(r::eth_get_logs(
                    rpc.id(),
                    &LogFilter {
                        from_block: from,
                        to_block: to,
                        addresses: usdc.clone(),
                        topics,
                    },
                ));
            }
            requests.push(r::eth_get_logs(
                rpc.id(),
                &LogFilter {
                    from_block: from,
                    to_block: to,
                    addresses: pools,
                    topics: vec![vec![logs::SWAP_TOPIC, logs::MINT_TOPIC, logs::BURN_TOPIC]],
                },
            ));
        }
        let mut seen = Vec::new();
        let mut pool_logs = Vec::new();
        for answer in self.batch(requests).await? {
            let answer = answer.map_err(|e| self.fail(Fail::Node(e)))?;
            for log in r::parse_logs(&answer).map_err(evm)? {
                if let Some(t) = logs::decode_transfer(&log) {
                    seen.push(t);
                } else {
                    pool_logs.push(log);
                }
            }
        }
        pool_logs.sort_by_key(|l| (l.block_number, l.log_index));
        let transfers = seen
            .into_iter()
            .map(|t| Observed {
                token: TokenAddress(Address(t.token)),
                from: Address(t.from),
                to: Address(t.to),
                amount: Units::new(t.value),
                hash: hex0x(&t.transaction_hash),
                block: t.block_number,
                log_index: t.log_index,
            })
            .collect();
        Ok(Scanned {
            transfers,
            pool_events: super::pools::pool_events(&pool_logs, None),
        })
    }
}

/// An address as a 32-byte topic.
fn word(a: &[u8; 20]) -> [u8; 32] {
    let mut t = [0u8; 32];
    if let Some(tail) = t.get_mut(12..) {
        tail.copy_from_slice(a);
    }
    t
}
