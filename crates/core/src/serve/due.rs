//! Running due work, item by item, each in its own transaction (`ops::due`): an item that
//! fails rolls back only itself; its failure is then recorded in a transaction of its own
//! (retried after a backoff, parked after `ops::due::MAX_ATTEMPTS`). Nothing here fails the
//! caller: a request still answers, an alarm still ends and sets the next one.

use super::ports::{Object, Txn};
use crate::error::Result;
use crate::model::merchant::Merchant;
use crate::model::time::Millis;
use crate::ops::due::{self, MAX_ITEMS_PER_RUN};
use crate::wire::event::seal;

/// Runs what is due at `now` (at most `MAX_ITEMS_PER_RUN` items); returns how many ran.
pub fn run<O: Object>(object: &O, now: Millis, merchant: &Merchant) -> usize {
    // Nothing due (known without a query, most of the time): nothing to run.
    if !object.maybe_due(now) {
        return 0;
    }
    let mut ran = 0;
    while ran < MAX_ITEMS_PER_RUN {
        match next(object, now, merchant) {
            Ok(true) => ran += 1,
            Ok(false) => break,
            Err(e) => {
                // Storage itself failed (not an item): stop; the next run tries again.
                object.due_stopped(&e);
                break;
            }
        }
    }
    ran
}

/// Runs the first due item, if there is one.
fn next<O: Object>(object: &O, now: Millis, merchant: &Merchant) -> Result<bool> {
    let Some((stored, at)) = object.run(false, move |t| t.store().first_due(now))? else {
        return Ok(false);
    };
    let ctx = object.ctx(now, merchant.clone())?;
    let base = object.base_url();
    let key = stored.clone();
    let ran = object.run(true, move |t| {
        let store = t.store();
        due::run_item(store, &ctx, &key, at)?;
        // The item's events, rendered as it leaves things (`wire::event::seal`).
        seal(store, &base)
    });
    if let Err(e) = ran {
        let (key, error) = (stored.clone(), e.clone());
        let retry = object.run(true, move |t| {
            due::record_failure(t.store(), &key, &error, now)
        })?;
        object.due_failed(&stored, &e, retry);
    }
    Ok(true)
}
