//! Due work: everything time-based is on the merchant's schedule under a [`DueKey`] that
//! names its owner. `run_due` hands each due key to its owner. The worker calls it before
//! every request and from the Durable Object alarm, so the result is the same whether a
//! request or the alarm comes first.

use super::{deployment, job, presale, Ctx};
use crate::error::Result;
use crate::store::{DueKey, Store};

/// At most this many items run in one call; the rest wait for the next request or alarm.
/// It bounds the work (and the transaction) one request can be asked to do.
pub const MAX_ITEMS_PER_RUN: usize = 1_000;

/// Runs every item due at `ctx.now`, earliest first, each at its own due time, until none
/// is due: an item may schedule a follow-up that is itself already due (a presale launch
/// after a jump of the clock runs all its steps). Returns how many ran. An item is
/// unscheduled before it runs; an owner that needs another run schedules itself again.
pub fn run_due(store: &mut dyn Store, ctx: &Ctx) -> Result<usize> {
    let mut ran = 0;
    while ran < MAX_ITEMS_PER_RUN {
        let Some((stored, at)) = store.due(ctx.now)?.into_iter().next() else {
            break;
        };
        match DueKey::decode(&stored) {
            Some(key) => {
                store.unschedule(&key)?;
                run_one(store, ctx, &key, at)?;
            }
            // A key no owner claims is dropped.
            None => store.unschedule_raw(&stored)?,
        }
        ran += 1;
    }
    Ok(ran)
}

/// Runs one due item at its due time `at`.
pub fn run_one(store: &mut dyn Store, ctx: &Ctx, key: &DueKey, at: u64) -> Result<()> {
    match key {
        DueKey::Job(id) => job::finish(store, ctx, id),
        DueKey::Deployment(id) => deployment::finish(store, ctx, id),
        DueKey::Presale(id) => match store.presale(id)? {
            Some(p) => presale::run(store, ctx, p, at),
            None => Ok(()),
        },
        DueKey::Unlock(id) => presale::unlock(store, ctx, id, at),
    }
}
