//! The round's first step: is what the ledger took from the chain still the chain's?
//!
//! - **Reorganizations.** The relayer keeps checkpoints (`model::settlement::Checkpoint`): the
//!   block each deposit scan ended at and, while `CHAIN_FINALITY` > 0, every block a receipt
//!   of its own came from. Each round compares with the chain, in one read (none for the
//!   head's block), the newest checkpoint an earlier round checked, and every one taken since
//!   (usually one to three blocks): a checkpoint taken after this step read the chain may
//!   come from a chain that reorganized under the round, and the newest alone would then hide
//!   the older checkpoints of the dropped blocks. When a hash changed (or the block is gone:
//!   a node that came back without its last blocks), the newest checked checkpoint still the
//!   chain's below every changed one is the fork, and the ledger undoes what it took from the
//!   blocks after it (`ops::settle::reorg::rewind`:
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
use crate::model::settlement::{ChainTx, Checkpoint};
use crate::ops::settle::{self, reorg};
use std::cmp::Ordering;

/// A filler's gas: a plain transfer of nothing.
pub const FILLER_GAS: u64 = 21_000;

impl<C: Chain, S: Signer, L: Ledger> Round<'_, C, S, L> {
    /// See the module.
    pub(super) async fn follow(&self, head: &Head) -> Step {
        if self.reorganized(head).await? {
            self.fill_gaps(None).await?;
        }
        // After a rewind, until read: a round that stopped before reading them left it here.
        if self.ledger.read(|s| Ok(s.relayer()?.resync_pools))? {
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
        let compared = to_compare(&checkpoints);
        if compared.is_empty() {
            return Ok(false);
        }
        let now = self.hashes_at(&compared, head).await?;
        if compared.iter().zip(&now).all(|(c, h)| same(c, h)) {
            if compared.iter().any(|c| c.unchecked) {
                self.ledger.commit(move |s| {
                    let mut r = s.relayer()?;
                    for c in &mut r.checkpoints {
                        if compared.contains(c) {
                            c.unchecked = false;
                        }
                    }
                    s.put_relayer(&r)
                })?;
            }
            return Ok(false);
        }
        let now = self.hashes_at(&checkpoints, head).await?;
        let fork = fork(&checkpoints, &now);
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

    /// The chain's hashes of the checkpoints' blocks now, in one read (none for the head's,
    /// and a block past the head has none: a node that came back without its last blocks).
    async fn hashes_at(
        &self,
        checkpoints: &[Checkpoint],
        head: &Head,
    ) -> Step<Vec<Option<String>>> {
        let below: Vec<u64> = checkpoints
            .iter()
            .map(|c| c.block)
            .filter(|b| *b < head.number)
            .collect();
        let mut read = if below.is_empty() {
            Vec::new()
        } else {
            self.chain.block_hashes(&below).await?
        }
        .into_iter();
        Ok(checkpoints
            .iter()
            .map(|c| match c.block.cmp(&head.number) {
                Ordering::Less => read.next().flatten(),
                Ordering::Equal => head.hash.clone(),
                Ordering::Greater => None,
            })
            .collect())
    }

    /// Takes again every nonce below the relayer's next that the chain has not used: the
    /// transaction that had it goes out again (the same bytes), or, where it must not run
    /// again (its revert was acted on, or it was abandoned), a transaction that does nothing
    /// fills it. Without this, a nonce a reorganization freed would hold every later
    /// transaction of the relayer back for good. `count`: the chain's count of the relayer's
    /// transactions, when the caller just read it.
    pub(super) async fn fill_gaps(&self, count: Option<u64>) -> Step {
        let Some(next) = self.ledger.read(|s| s.relayer())?.next_nonce else {
            return Ok(());
        };
        let count = match count {
            Some(count) => count,
            None => self.chain.nonce(false).await?,
        };
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

    /// Each pool's state as the chain has it at the head (`ops::market::resync`), and the
    /// head's block as a checkpoint.
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
        let addresses: Vec<_> = pools.iter().map(|(_, a)| *a).collect();
        let states = if addresses.is_empty() {
            Vec::new()
        } else {
            self.chain.pool_states(&addresses, head.number).await?
        };
        let states: Vec<_> = pools.iter().map(|(t, _)| *t).zip(states).collect();
        let at = ChainPoint {
            block: head.number,
            log_index: u64::MAX,
        };
        let (hash, finality) = (head.hash.clone(), self.ctx.chain.finality());
        self.ledger
            .commit(move |s| {
                for (token, state) in &states {
                    crate::ops::market::resync(s, token, state, at)?;
                }
                let mut r = s.relayer()?;
                r.resync_pools = false;
                // The states are the head's block's: a reorganization that replaces it
                // after they were read (its receipts' events then older than the states,
                // and not followed) is seen by the next round, which reads them again.
                if let Some(hash) = hash {
                    r.checkpoint(at.block, hash, at.block, finality);
                }
                s.put_relayer(&r)
            })
            .map_err(|e| Error::internal(format!("pool resync: {}", e.message)).into())
    }
}

/// What a round compares with the chain: the newest checked checkpoint (it holds, and so do
/// the blocks below it, or it does not) and every unchecked one, which may come from a chain
/// that reorganized under the round that took it (a receipt read after `follow`, a scan's
/// logs): compared alone, the newest of those would hide the older checkpoints of the blocks
/// the reorganization dropped.
fn to_compare(checkpoints: &[Checkpoint]) -> Vec<Checkpoint> {
    let newest_checked = checkpoints.iter().rposition(|c| !c.unchecked);
    checkpoints
        .iter()
        .enumerate()
        .filter(|(i, c)| c.unchecked || Some(*i) == newest_checked)
        .map(|(_, c)| c.clone())
        .collect()
}

fn same(c: &Checkpoint, now: &Option<String>) -> bool {
    now.as_deref() == Some(c.hash.as_str())
}

/// The fork, from the checkpoints and the chain's hashes of their blocks now: the newest
/// checked checkpoint still the chain's below every one that is not. An unchecked one is no
/// fork even when it holds: it may be the new chain's, above blocks the ledger took from the
/// old one. With none, the block before the oldest checkpoint.
pub(super) fn fork(checkpoints: &[Checkpoint], now: &[Option<String>]) -> u64 {
    let pairs = || checkpoints.iter().zip(now);
    let lowest_gone = pairs()
        .filter(|(c, h)| !same(c, h))
        .map(|(c, _)| c.block)
        .min()
        .unwrap_or(u64::MAX);
    pairs()
        .filter(|(c, h)| !c.unchecked && c.block < lowest_gone && same(c, h))
        .map(|(c, _)| c.block)
        .max()
        .unwrap_or_else(|| checkpoints.first().map_or(0, |c| c.block.saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::{fork, to_compare};
    use crate::model::settlement::Checkpoint;

    /// A checkpoint at `block` with hash `hash`, checked or not.
    fn cp(block: u64, hash: &str, unchecked: bool) -> Checkpoint {
        Checkpoint {
            block,
            hash: hash.into(),
            unchecked,
        }
    }

    fn blocks(c: &[Checkpoint]) -> Vec<u64> {
        c.iter().map(|c| c.block).collect()
    }

    #[test]
    fn a_round_compares_the_newest_checked_checkpoint_and_every_unchecked_one() {
        let cases: [(&[Checkpoint], &[u64]); 5] = [
            (&[], &[]),
            (&[cp(1, "a", false), cp(2, "b", false)], &[2]),
            (&[cp(1, "a", false), cp(2, "b", true)], &[1, 2]),
            // A receipt's block below the newest checked one is compared too.
            (
                &[cp(1, "a", false), cp(3, "x", true), cp(5, "c", false)],
                &[3, 5],
            ),
            // None checked yet (a new relayer's first round): every one.
            (&[cp(7, "a", true), cp(9, "b", true)], &[7, 9]),
        ];
        for (checkpoints, compared) in cases {
            assert_eq!(
                blocks(&to_compare(checkpoints)),
                compared,
                "{checkpoints:?}"
            );
        }
    }

    /// Checkpoints, the chain's hashes of their blocks now, the fork.
    type Case<'a> = (&'a [Checkpoint], &'a [Option<&'a str>], u64);

    #[test]
    fn the_fork_is_the_newest_checked_checkpoint_below_every_changed_one() {
        let cases: [Case; 5] = [
            // The newest changed: the one before holds.
            (
                &[cp(4, "a", false), cp(6, "b", false)],
                &[Some("a"), Some("B")],
                4,
            ),
            // An unchecked checkpoint that holds is no fork: the new chain's, above blocks
            // taken from the old one (a receipt read after the chain reorganized).
            (
                &[cp(4, "a", false), cp(5, "x", true), cp(6, "b", false)],
                &[Some("a"), Some("x"), Some("B")],
                4,
            ),
            // Two hashes of one block: the ledger took from two chains there.
            (
                &[cp(4, "a", false), cp(6, "b", false), cp(6, "c", true)],
                &[Some("a"), Some("c"), Some("c")],
                4,
            ),
            // A block gone (a node that lost its last blocks).
            (
                &[cp(4, "a", false), cp(6, "b", false)],
                &[Some("a"), None],
                4,
            ),
            // Nothing holds: the block before the oldest.
            (
                &[cp(4, "a", false), cp(6, "b", false)],
                &[Some("A"), Some("B")],
                3,
            ),
        ];
        for (checkpoints, now, expected) in cases {
            let now: Vec<Option<String>> = now.iter().map(|h| h.map(String::from)).collect();
            assert_eq!(fork(checkpoints, &now), expected, "{checkpoints:?} {now:?}");
        }
    }
}
