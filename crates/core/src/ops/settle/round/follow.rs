//! The round's first step: is what the ledger took from the chain still the chain's?
//!
//! - **Reorganizations.** The relayer keeps checkpoints (`model::settlement::Checkpoint`): the
//!   block each deposit scan ended at and, while `CHAIN_FINALITY` > 0, every block a receipt
//!   of its own came from. Each round compares the newest with the chain (one block read, or
//!   none when it is the head); when its hash changed (or the block is gone: a node that came
//!   back without its last blocks), the newest checkpoint still the chain's is the fork, and
//!   the ledger undoes what it took from the blocks after it (`ops::settle::reorg::rewind`:
//!   followed transfers undone, its own transactions of every kind sent again). Then every
//!   nonce the new chain lacks below the relayer's next is taken again: the same bytes, or a
//!   transaction that does nothing where the old one must not run again (`fill_gaps`), so no
//!   later transaction waits behind a gap; and each pool's state is read from the new chain.
//! - **Finality.** A receipt `CHAIN_FINALITY` blocks deep is final: no longer followed, and a
//!   revert is acted on only now (`ops::settle::finalize`).

use super::port::{Chain, Head, Ledger, Level, Signer, Step, Unsigned};
use super::{bump, Round, FEE_BUMP_PERCENT};
use crate::error::Error;
use crate::model::chain::ChainPoint;
use crate::model::settlement::ChainTx;
use crate::ops::settle::{self, reorg};

/// A filler's gas: a plain transfer of nothing.
pub const FILLER_GAS: u64 = 21_000;

impl<C: Chain, S: Signer, L: Ledger> Round<'_, C, S, L> {
    /// See the module.
    pub(super) async fn follow(&self, head: &Head) -> Step {
        if self.reorganized(head).await? {
            self.fill_gaps().await?;
            self.resync_pools(head).await?;
        }
        let finality = self.ctx.chain.finality();
        for t in self.ledger.read(|s| s.unfinal_chain_txs())? {
            let deep = t
                .block
                .is_some_and(|b| head.number.saturating_sub(b) >= finality);
            if deep {
                let (ctx, nonce) = (self.ctx.clone(), t.nonce);
                self.ledger
                    .commit(move |s| settle::finalize(s, &ctx, nonce))?;
            }
        }
        Ok(())
    }

    /// Whether the chain reorganized past a checkpoint; if it did, what the ledger took from
    /// the blocks after the fork is undone (see the module).
    async fn reorganized(&self, head: &Head) -> Step<bool> {
        let checkpoints = self.ledger.read(|s| s.relayer())?.checkpoints;
        let Some(last) = checkpoints.last() else {
            return Ok(false);
        };
        let now = if last.block == head.number {
            head.hash.clone()
        } else if last.block > head.number {
            None
        } else {
            self.chain.block_hash(last.block).await?
        };
        if now.as_deref() == Some(last.hash.as_str()) {
            return Ok(false);
        }
        let numbers: Vec<u64> = checkpoints.iter().map(|c| c.block).collect();
        let hashes = self.chain.block_hashes(&numbers).await?;
        let mut fork = checkpoints.first().map_or(0, |c| c.block.saturating_sub(1));
        for (c, hash) in checkpoints.iter().zip(hashes) {
            if hash.as_deref() == Some(c.hash.as_str()) {
                fork = c.block;
            } else {
                break;
            }
        }
        let ctx = self.ctx.clone();
        let done = self.ledger.commit(move |s| reorg::rewind(s, &ctx, fork))?;
        self.chain.log(
            Level::Warn,
            &format!(
                "merchant {}: the chain reorganized past block {fork}: {} followed transfers undone, {} transactions sent again",
                self.ctx.merchant.id, done.observations, done.transactions
            ),
        );
        Ok(true)
    }

    /// Takes again every nonce below the relayer's next that the chain has not used: the
    /// transaction that had it goes out again (the same bytes), or, where it must not run
    /// again (its revert was acted on, or it was abandoned), a transaction that does nothing
    /// fills it. Without this, a nonce a reorganization freed would hold every later
    /// transaction of the relayer back for good.
    pub(super) async fn fill_gaps(&self) -> Step {
        let Some(next) = self.ledger.read(|s| s.relayer())?.next_nonce else {
            return Ok(());
        };
        let count = self.chain.nonce(false).await?;
        for nonce in count..next {
            let stored = self.ledger.read(|s| s.chain_tx(nonce))?;
            let fill = match &stored {
                None => true,
                Some(t) if t.is_open() => false,
                Some(_) => {
                    let ctx = self.ctx.clone();
                    let d = self
                        .ledger
                        .commit(move |s| reorg::dropped(s, &ctx, nonce))?;
                    d == reorg::Dropped::Fill
                }
            };
            if fill {
                self.fill(nonce, stored).await?;
            }
        }
        Ok(())
    }

    /// Fills `nonce` with a transfer of nothing to the relayer itself, priced above every
    /// version the nonce had (so a node that still holds one takes the filler instead). The
    /// record keeps those versions: a receipt of one is still seen.
    async fn fill(&self, nonce: u64, old: Option<ChainTx>) -> Step {
        let (mut tip, mut cap) = self.fees().await?;
        let mut versions = old.map(|t| t.versions).unwrap_or_default();
        for v in &versions {
            tip = tip.max(bump(v.max_priority_fee_per_gas, FEE_BUMP_PERCENT));
            cap = cap.max(bump(v.max_fee_per_gas, FEE_BUMP_PERCENT));
        }
        let relayer = self.ctx.merchant.address;
        let unsigned = Unsigned {
            nonce,
            to: relayer,
            data: "0x".into(),
            gas_limit: FILLER_GAS,
            tip,
            cap: cap.max(tip),
        };
        let filler = self.sign(&unsigned)?;
        let mut record = ChainTx::signed(
            nonce,
            Vec::new(),
            relayer,
            "0x".into(),
            FILLER_GAS,
            filler,
            self.ctx.now,
        );
        versions.append(&mut record.versions);
        record.versions = versions;
        record.error = Some("fills a nonce a reorganization freed".into());
        let stored = record.clone();
        self.ledger.commit(move |s| s.put_chain_tx(&stored))?;
        self.chain.log(
            Level::Warn,
            &format!(
                "merchant {}: nonce {nonce} filled with a transaction that does nothing",
                self.ctx.merchant.id
            ),
        );
        self.broadcast(&record).await
    }

    /// Each pool's state as the chain has it at the head (`ops::market::resync`).
    async fn resync_pools(&self, head: &Head) -> Step {
        let pools = self.ledger.read(|s| {
            let mut pools = Vec::new();
            for t in s.tokens()? {
                if let Some(p) = s.pool(&t.address)?.filter(|p| p.chain.is_some()) {
                    pools.push((t.address, p.address));
                }
            }
            Ok(pools)
        })?;
        if pools.is_empty() {
            return Ok(());
        }
        let addresses: Vec<_> = pools.iter().map(|(_, a)| *a).collect();
        let states = self.chain.pool_states(&addresses, head.number).await?;
        let states: Vec<_> = pools.iter().map(|(t, _)| *t).zip(states).collect();
        let at = ChainPoint {
            block: head.number,
            log_index: u64::MAX,
        };
        self.ledger
            .commit(move |s| {
                for (token, state) in &states {
                    crate::ops::market::resync(s, token, state, at)?;
                }
                Ok(())
            })
            .map_err(|e| Error::internal(format!("pool resync: {}", e.message)).into())
    }
}
