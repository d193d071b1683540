//! The settler's third step: the new blocks' Transfer logs of the merchant's tokens (all of
//! them) and of USDC (to its holders, and into and out of its pools), applied to the ledger
//! (`ops::settle::observe`), and its pools' own events (other traders' swaps, liquidity added
//! or removed: `ops::market::follow`), with the scan's cursor in the same transaction, so each
//! log counts once.

use super::rpc::{Fail, Rpc};
use super::settler::{Settler, Step};
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::token::TokenKind;
use tokenpad_core::ops::settle::observe::{observe, Observed};
use tokenpad_core::store::Store;
use tokenpad_evm::logs;
use tokenpad_evm::rpc::{self as r, LogFilter};

/// Blocks of logs read per request (providers cap ranges).
const SCAN_SPAN: u64 = 1_000;
/// Holders per USDC log filter (providers cap topic lists).
const HOLDERS_PER_FILTER: usize = 100;

impl Settler<'_> {
    pub(super) async fn scan_deposits(&self, rpc: &Rpc<'_>) -> Step {
        let head = r::u64_result(&rpc.call(r::eth_block_number(rpc.id())).await?)?
            .saturating_sub(self.evm.confirmations);
        let store = self.store();
        let Some(scanned) = store.relayer()?.scanned_block else {
            // The first scan starts at the head: nothing before the merchant is its.
            self.commit(move |s| {
                let mut r = s.relayer()?;
                r.scanned_block = Some(head);
                s.put_relayer(&r)
            })?;
            return Ok(());
        };
        let from = scanned.saturating_add(1);
        if from > head {
            return Ok(());
        }
        let to = head.min(from.saturating_add(SCAN_SPAN - 1));
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
                    addresses: vec![self.evm.usdc.0],
                    topics: vec![vec![logs::TRANSFER_TOPIC], vec![], topics],
                },
            ));
        }
        if !pools.is_empty() {
            let words: Vec<[u8; 32]> = pools.iter().map(word).collect();
            let usdc = vec![self.evm.usdc.0];
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
        for answer in rpc.batch(requests).await? {
            for log in r::parse_logs(&answer.map_err(Fail::Node)?)? {
                if let Some(t) = logs::decode_transfer(&log) {
                    seen.push(t);
                } else {
                    pool_logs.push(log);
                }
            }
        }
        pool_logs.sort_by_key(|l| (l.block_number, l.log_index));
        let events = super::pools::pool_events(&pool_logs, None);
        seen.sort_by_key(|t| (t.block_number, t.log_index));
        seen.dedup_by_key(|t| (t.block_number, t.log_index));
        let observed: Vec<Observed> = seen
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
        let checkpoint = self.block_hash(rpc, to).await?;
        let ctx = self.ctx.clone();
        let (chain_head, finality) = (
            head.saturating_add(self.evm.confirmations),
            ctx.chain.finality(),
        );
        self.commit(move |s| {
            for o in &observed {
                observe(s, &ctx, o)?;
            }
            tokenpad_core::ops::market::follow(s, &events)?;
            let mut r = s.relayer()?;
            r.scanned_block = Some(to);
            if let Some(hash) = checkpoint {
                r.checkpoint(to, hash, chain_head, finality);
            }
            // The journal of followed logs is kept as far back as a reorganization is followed.
            let oldest = r.checkpoints.first().map_or(0, |c| c.block);
            s.forget_observations(u64::MAX, oldest)?;
            s.put_relayer(&r)
        })?;
        Ok(())
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
