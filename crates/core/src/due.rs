//! Due work: everything time-based goes on the merchant's schedule under a key whose prefix
//! names its owner (`job:`, and later `presale:`, `unlock:`, `deploy:`). `run_due` hands
//! each due key to its owner. The worker calls it before every request and from the
//! Durable Object alarm, so the result is the same whether a request or the alarm comes first.

use crate::error::Result;
use crate::job;
use crate::merchant::Ctx;
use crate::store::Store;

/// Runs every item due at `ctx.now`, earliest first. Returns how many ran. An item is
/// unscheduled after it runs; an owner that needs another run schedules itself again.
pub fn run_due(store: &mut dyn Store, ctx: &Ctx) -> Result<usize> {
    let due = store.due(ctx.now)?;
    for (key, _) in &due {
        store.unschedule(key)?;
        // Each owner ignores keys that are not its own; a key no owner claims is dropped.
        job::run_scheduled(store, ctx, key)?;
    }
    Ok(due.len())
}
