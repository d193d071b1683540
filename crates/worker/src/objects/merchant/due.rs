//! Running due work, item by item, each in its own transaction (`tokenpad_core::ops::due`).
//! An item that fails rolls back only itself; its failure is then recorded in a transaction
//! of its own (retried after a backoff, parked after `MAX_ATTEMPTS`). Nothing here fails
//! the caller: a request still answers, the alarm still ends and sets the next one.

use super::MerchantObject;
use crate::adapters::txn::transaction;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::due::{self, Retry, MAX_ITEMS_PER_RUN};
use tokenpad_core::store::Store;
use tokenpad_core::wire::event::seal;
use tokenpad_core::Result;

impl MerchantObject {
    /// Runs what is due at `now` (at most `MAX_ITEMS_PER_RUN` items); returns how many ran.
    pub(super) fn run_due(&self, now: Millis, merchant: &Merchant) -> usize {
        // Nothing due (known without a query, most of the time): nothing to run.
        if matches!(self.hot_due(), Ok(at) if at.is_none_or(|at| at > now)) {
            return 0;
        }
        let mut ran = 0;
        while ran < MAX_ITEMS_PER_RUN {
            match self.run_next(now, merchant) {
                Ok(true) => ran += 1,
                Ok(false) => break,
                Err(e) => {
                    // Storage itself failed (not an item): stop; the alarm tries again.
                    worker::console_error!("due work stopped: {e}");
                    self.schedule.moved();
                    break;
                }
            }
        }
        if ran > 0 {
            // Launches, unlocks and refunds change what holders and presales show.
            self.live.changed();
        }
        ran
    }

    /// Runs the first due item, if there is one.
    fn run_next(&self, now: Millis, merchant: &Merchant) -> Result<bool> {
        let Some((stored, at)) = self.store()?.first_due(now)? else {
            return Ok(false);
        };
        let ctx = self.ctx(now, merchant.clone())?;
        let mut store = self.store()?;
        let key = stored.clone();
        let base = self.base_url();
        let ran = transaction(&self.state.storage(), &self.watch, move || {
            due::run_item(&mut store, &ctx, &key, at)?;
            // The item's events, rendered as it leaves things (`wire::event::seal`).
            seal(&mut store, &base)
        });
        if let Err(e) = ran {
            let mut store = self.store()?;
            let key = stored.clone();
            let error = e.clone();
            let retry = transaction(&self.state.storage(), &self.watch, move || {
                due::record_failure(&mut store, &key, &error, now)
            })?;
            match retry {
                Retry::At(_) => {
                    worker::console_error!("due item {stored} failed, retried later: {e}");
                }
                Retry::Parked => {
                    worker::console_error!("due item {stored} parked after repeated failures: {e}");
                }
            }
            // The item moved (or left the schedule): the alarm must follow.
            self.schedule.moved();
        }
        Ok(true)
    }
}
