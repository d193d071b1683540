//! The round's last step: the new blocks' Transfer logs of the merchant's tokens (all of them)
//! and of USDC (to its holders, and into and out of its pools), applied to the ledger
//! (`ops::settle::observe`), and its pools' own events (other traders' swaps, liquidity added
//! or removed: `ops::market::follow`), with the scan's cursor and a checkpoint in the same
//! transaction, so each log counts once and a reorganization under it is seen.

use super::port::{Chain, Ledger, Signer, Step};
use super::Round;
use crate::ops::settle::observe::observe;

/// Blocks of logs read per round (providers cap ranges).
pub const SCAN_SPAN: u64 = 1_000;

impl<C: Chain, S: Signer, L: Ledger> Round<'_, C, S, L> {
    pub(super) async fn scan(&self) -> Step {
        let confirmations = self.config.confirmations;
        let head = self
            .chain
            .block_number()
            .await?
            .saturating_sub(confirmations);
        let relayer = self.ledger.read(|s| s.relayer())?;
        let Some(scanned) = relayer.scanned_block else {
            // The first scan starts at the head: nothing before the merchant is its.
            self.ledger.commit(move |s| {
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
        // The hash at `to` is read before the logs, with the newest checked checkpoint's
        // (`follow`). A reorganization after this read leaves `to` with the old chain's hash,
        // which the next round's `follow` finds changed. One since this round's `follow` (that
        // checkpoint no longer the chain's) stops the scan here: the next `follow` rewinds.
        let last = relayer.checkpoints.iter().rev().find(|c| !c.unchecked);
        let numbers: Vec<u64> = last.map(|c| c.block).into_iter().chain([to]).collect();
        let mut hashes = self.chain.block_hashes(&numbers).await?;
        let checkpoint = hashes.pop().flatten();
        if let (Some(c), Some(now)) = (last, hashes.first()) {
            if now.as_deref() != Some(c.hash.as_str()) {
                return Ok(());
            }
        }
        let mut found = self.chain.logs(from, to).await?;
        found.transfers.sort_by_key(|t| (t.block, t.log_index));
        found.transfers.dedup_by_key(|t| (t.block, t.log_index));
        let ctx = self.ctx.clone();
        let (chain_head, finality) = (head.saturating_add(confirmations), ctx.chain.finality());
        self.ledger.commit(move |s| {
            for o in &found.transfers {
                observe(s, &ctx, o)?;
            }
            crate::ops::market::follow(s, &found.pool_events)?;
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
