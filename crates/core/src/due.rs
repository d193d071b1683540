//! Due work: everything time-based goes on the merchant's schedule under a key whose prefix
//! names its owner (`job:`, `presale:`, `unlock:`, `deploy:`). `run_due` hands each due key
//! to its owner. The worker calls it before every request and from the Durable Object
//! alarm, so the result is the same whether a request or the alarm comes first.

use crate::deployment;
use crate::error::Result;
use crate::job;
use crate::merchant::Ctx;
use crate::presale;
use crate::store::Store;

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
        let Some((key, at)) = store.due(ctx.now)?.into_iter().next() else {
            break;
        };
        store.unschedule(&key)?;
        // Each owner ignores keys that are not its own; a key no owner claims is dropped.
        let _ = job::run_scheduled(store, ctx, &key)?
            || deployment::run_scheduled(store, ctx, &key)?
            || presale::run_scheduled(store, ctx, &key, at)?;
        ran += 1;
    }
    Ok(ran)
}
