//! The settler's first step each round, as the worker's (`adapters/evm/follow.rs`): is what
//! the ledger took from the chain still the chain's? The newest scan checkpoint's hash is
//! compared with the chain's; when it changed (or the block is gone), the newest checkpoint
//! still the chain's is the fork, and the ledger undoes what it took from the blocks after it
//! (`ops::settle::reorg::rewind`). Then every nonce the chain lacks below the relayer's next
//! is taken again (the same bytes, or a transaction that does nothing where the old one must
//! not run again: `reorg::dropped`'s `Fill`), and each pool's state is read from the chain
//! (`ops::market::resync`). Last, receipts `CHAIN_FINALITY` deep are final.
//!
//! A hook of the simulator's settler (`settler.rs`), kept apart so the core's round can take
//! it over: the scan adds a checkpoint for the block it ended at (`checkpoint`), and so does
//! each receipt (`watched`). A filler is stored signed; the round's watch broadcasts it.

use crate::chain::{gas, SimChain};
use crate::node::{Node, BASE_URL};
use tokenpad_core::crypto::{hex0x, keccak256};
use tokenpad_core::model::chain::ChainPoint;
use tokenpad_core::model::settlement::{ChainTx, Relayer, TxVersion};
use tokenpad_core::ops::settle::reorg::{self, Dropped};
use tokenpad_core::ops::settle::{self, Mined};
use tokenpad_core::store::Store;
use tokenpad_core::Result;

/// Notes the block a scan ended at, and its hash, as a checkpoint.
pub fn checkpoint(r: &mut Relayer, chain: &SimChain, finality: u64) {
    let head = chain.head();
    if let Some(hash) = chain.block_hash(head) {
        r.checkpoint(head, hash, head, finality);
    }
}

/// Notes the block a receipt came from as a checkpoint, so a reorganization that drops it
/// is seen even when no scan ended past it (the core does so only while `CHAIN_FINALITY` > 0;
/// the simulator's finality is 0).
pub fn watched(s: &mut dyn Store, m: &Mined, finality: u64) -> Result<()> {
    let Some(hash) = m.block_hash.clone() else {
        return Ok(());
    };
    let mut r = s.relayer()?;
    r.checkpoint(m.block, hash, m.head, finality);
    s.put_relayer(&r)
}

/// The ledger's report of what it followed, in a transaction, its events rendered with it.
fn commit<T>(node: &mut Node, f: impl FnOnce(&mut dyn Store) -> Result<T>) -> Result<T> {
    node.txn(|s, _| {
        let out = f(s)?;
        tokenpad_core::wire::event::seal(s, BASE_URL)?;
        Ok(out)
    })
}

/// See the module.
pub fn follow(node: &mut Node, chain: &SimChain) -> Result<()> {
    let checkpoints = node.store.relayer.checkpoints.clone();
    let Some(last) = checkpoints.last() else {
        return Ok(());
    };
    let still = |c: &tokenpad_core::model::settlement::Checkpoint| {
        chain.block_hash(c.block).as_deref() == Some(c.hash.as_str())
    };
    if still(last) {
        return finalize(node, chain);
    }
    let fork = checkpoints
        .iter()
        .take_while(|c| still(c))
        .last()
        .map_or_else(
            || checkpoints.first().map_or(0, |c| c.block.saturating_sub(1)),
            |c| c.block,
        );
    let ctx = node.ctx();
    commit(node, move |s| reorg::rewind(s, &ctx, fork).map(|_| ()))?;
    fill_gaps(node, chain)?;
    resync_pools(node, chain)?;
    finalize(node, chain)
}

/// A receipt `CHAIN_FINALITY` blocks deep is final: no longer followed, and a revert is acted
/// on only now (`ops::settle::finalize`).
fn finalize(node: &mut Node, chain: &SimChain) -> Result<()> {
    let ctx = node.ctx();
    let finality = ctx.chain.finality();
    for t in node.store.unfinal_chain_txs()? {
        if t.block
            .is_some_and(|b| chain.head().saturating_sub(b) >= finality)
        {
            let (ctx, nonce) = (ctx.clone(), t.nonce);
            commit(node, move |s| settle::finalize(s, &ctx, nonce))?;
        }
    }
    Ok(())
}

fn fill_gaps(node: &mut Node, chain: &SimChain) -> Result<()> {
    let Some(next) = node.store.relayer.next_nonce else {
        return Ok(());
    };
    for nonce in chain.nonce..next {
        let stored = node.store.chain_tx(nonce)?;
        let fill = match &stored {
            None => true,
            Some(t) if t.is_open() => false,
            Some(_) => {
                let ctx = node.ctx();
                commit(node, move |s| reorg::dropped(s, &ctx, nonce))? == Dropped::Fill
            }
        };
        if fill {
            let filler = filler(node, chain, nonce, stored);
            commit(node, move |s| s.put_chain_tx(&filler))?;
        }
    }
    Ok(())
}

/// A transaction that only takes `nonce` (a transfer of nothing to the relayer), priced above
/// every version the nonce had; it keeps them, so a receipt of one is still seen.
fn filler(node: &Node, chain: &SimChain, nonce: u64, old: Option<ChainTx>) -> ChainTx {
    let mut versions = old.map(|t| t.versions).unwrap_or_default();
    let (mut cap, mut tip) = (2, 1);
    for v in &versions {
        cap = cap.max(v.max_fee_per_gas.saturating_mul(5) / 4 + 1);
        tip = tip.max(v.max_priority_fee_per_gas.saturating_mul(5) / 4 + 1);
    }
    let mut seed = b"sim filler".to_vec();
    seed.extend_from_slice(&nonce.to_be_bytes());
    seed.extend_from_slice(&(versions.len() as u64).to_be_bytes());
    let new = TxVersion {
        hash: hex0x(&keccak256(&seed)),
        raw: "0x02".into(),
        max_fee_per_gas: cap,
        max_priority_fee_per_gas: tip,
        signed_at: node.now,
    };
    let mut record = ChainTx::signed(
        nonce,
        Vec::new(),
        chain.relayer,
        "0x".into(),
        gas::TX_BASE,
        new,
        node.now,
    );
    versions.append(&mut record.versions);
    record.versions = versions;
    record.error = Some("fills a nonce a reorganization freed".into());
    record
}

fn resync_pools(node: &mut Node, chain: &SimChain) -> Result<()> {
    let at = ChainPoint {
        block: chain.head(),
        log_index: u64::MAX,
    };
    let states: Vec<_> = node
        .store
        .pools
        .iter()
        .filter(|(_, p)| p.chain.is_some())
        .filter_map(|(t, _)| {
            let on_chain = chain.state.pools.get(&t.address())?;
            Some((*t, on_chain.state))
        })
        .collect();
    commit(node, move |s| {
        for (token, state) in &states {
            tokenpad_core::ops::market::resync(s, token, state, at)?;
        }
        Ok(())
    })
}
