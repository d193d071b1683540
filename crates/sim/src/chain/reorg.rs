//! Blocks, their hashes, and reorganizations: [`SimChain::reorg`] drops the newest blocks,
//! as a reorganization (`anvil_reorg`) or a node that came back without its last blocks
//! does. Every block starts from a snapshot of the chain as the previous one left it (the
//! contracts: balances, code, authorizations used, pools, locks; the relayer's nonce; the
//! simulator's own books of what ran), so dropping blocks restores the snapshot of the
//! first one dropped: their transfers, swaps, pool openings, locks and deployments are
//! undone, their receipts and logs vanish. Their transactions of the relayer's (and the
//! outside transactions that used its nonce) go back to the node's pool, as geth does, or
//! are lost (a node that lost its blocks); others' trades and sends are lost.
//!
//! A block's hash is a function of its number and the fork it was made on (a counter each
//! reorganization moves on), so a block made again at the same height has another hash: a
//! settler keeping checkpoints sees the reorganization.

use super::{Contracts, LogKind, SentTx, SimChain};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use tokenpad_core::crypto::{hex0x, keccak256};
use tokenpad_core::model::address::Address;

/// How many blocks a reorganization can drop, at most (the snapshots kept).
pub const MAX_DEPTH: u64 = 8;

/// The chain as a block started. (The simulator's books of what a fault sent back,
/// `reverted_open`, are not restored: a reorganization sends back what it drops.)
#[derive(Clone, Debug)]
struct Snapshot {
    block: u64,
    state: Contracts,
    nonce: u64,
    executed: BTreeMap<u64, u32>,
    natural_reverts: usize,
}

/// The newest blocks' snapshots and transactions, and the forks.
#[derive(Clone, Debug, Default)]
pub struct Blocks {
    snapshots: VecDeque<Snapshot>,
    /// The relayer's transactions (and those that took its nonce) by the block that mined
    /// them (the newest blocks only).
    mined: BTreeMap<u64, Vec<SentTx>>,
    /// From which block each fork on counts (its counter is its place): the blocks from
    /// there on were made on it.
    forks: Vec<u64>,
    /// Reorganizations so far.
    pub reorgs: u64,
    /// The movements reorganizations undid, by kind (`Deploy`, `Swap`, ...).
    pub undone: BTreeMap<String, u64>,
}

impl Blocks {
    pub(super) fn mined(&mut self, block: u64, tx: SentTx) {
        self.mined.entry(block).or_default().push(tx);
    }
}

impl SimChain {
    /// The first block's snapshot.
    pub(super) fn started(mut self) -> SimChain {
        self.snapshot();
        self
    }

    fn snapshot(&mut self) {
        let s = Snapshot {
            block: self.block,
            state: self.state.clone(),
            nonce: self.nonce,
            executed: self.executed.clone(),
            natural_reverts: self.natural_reverts.len(),
        };
        let b = &mut self.blocks;
        b.snapshots.push_back(s);
        while b.snapshots.len() as u64 > MAX_DEPTH + 1 {
            b.snapshots.pop_front();
        }
        let oldest = b.snapshots.front().map_or(0, |s| s.block);
        b.mined.retain(|n, _| *n >= oldest);
    }

    /// Ends the current block: the next one starts.
    pub(super) fn seal(&mut self) {
        self.block += 1;
        self.snapshot();
    }

    /// The newest block.
    pub fn head(&self) -> u64 {
        self.block.saturating_sub(1)
    }

    /// Block `number`'s hash; None when there is no such block (yet, or any more).
    pub fn block_hash(&self, number: u64) -> Option<String> {
        if number == 0 || number > self.head() {
            return None;
        }
        let fork = self.blocks.forks.iter().filter(|f| **f <= number).count() as u64;
        let mut seed = b"sim block".to_vec();
        seed.extend_from_slice(&number.to_be_bytes());
        seed.extend_from_slice(&fork.to_be_bytes());
        Some(hex0x(&keccak256(&seed)))
    }

    /// Drops the newest `depth` blocks (at most [`MAX_DEPTH`]): what they
    /// did is undone; the relayer's transactions in them go back to the pool when `requeue`
    /// (as geth does), or are lost (a node that came back without them). Returns how many
    /// blocks were dropped.
    pub fn reorg(&mut self, depth: u64, requeue: bool) -> u64 {
        let oldest = self
            .blocks
            .snapshots
            .front()
            .map_or(self.block, |s| s.block);
        let fork = self
            .head()
            .saturating_sub(depth.min(MAX_DEPTH))
            .max(oldest.saturating_sub(1));
        if fork >= self.head() {
            return 0;
        }
        let dropped = self.head() - fork;
        let b = &mut self.blocks;
        while b.snapshots.back().is_some_and(|s| s.block > fork + 1) {
            b.snapshots.pop_back();
        }
        let Some(s) = b.snapshots.back().cloned() else {
            return 0;
        };
        let gone: Vec<SentTx> = b
            .mined
            .split_off(&(fork + 1))
            .into_values()
            .flatten()
            .collect();
        b.forks.push(fork + 1);
        b.reorgs += 1;
        self.state = s.state;
        self.nonce = s.nonce;
        self.executed = s.executed;
        self.natural_reverts.truncate(s.natural_reverts);
        self.receipts.retain(|_, r| r.block <= fork);
        // Others' transfers in the dropped blocks are gone for good (only the relayer's go
        // back to the pool).
        let ours: BTreeSet<&str> = gone.iter().map(|t| t.hash.as_str()).collect();
        let away: Vec<(Address, Address)> = self
            .logs
            .iter()
            .filter(|l| l.block > fork && !ours.contains(l.tx.as_str()))
            .filter_map(|l| match &l.kind {
                LogKind::Transfer { token, to, .. } => Some((*token, *to)),
                LogKind::Pool(_) => None,
            })
            .collect();
        self.reorged_away.extend(away);
        self.logs.retain(|l| l.block <= fork);
        self.block = fork + 1;
        for tx in gone.into_iter().rev() {
            // Sent back, as by a fault: carried out again later (by the same bytes, or sent
            // again by the settler, maybe after newer movements that need what they bring).
            for (id, token, action) in &tx.intents {
                let kind = format!("{action:?}");
                let kind = kind
                    .split([' ', '{'])
                    .next()
                    .unwrap_or_default()
                    .to_string();
                *self.blocks.undone.entry(kind).or_default() += 1;
                if !self.executed.contains_key(id) {
                    self.send_back(*id, *token, action);
                }
            }
            if requeue {
                self.mempool.entry(tx.nonce).or_default().insert(0, tx);
            }
        }
        dropped
    }

    /// A copy to run transactions on and throw away (an estimate): the contracts and the
    /// relayer's nonce, without the chain's history.
    pub(super) fn scratch(&self) -> SimChain {
        SimChain {
            now: self.now,
            block: self.block,
            state: self.state.clone(),
            nonce: self.nonce,
            outside_txs: self.outside_txs,
            gas_percent: self.gas_percent,
            ..SimChain::bare(self.relayer, self.usdc, self.locker, self.uniswap_factory)
        }
    }
}
