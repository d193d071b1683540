//! Due work: everything time-based is on the merchant's schedule under a [`DueKey`] that
//! names its owner. The worker runs what is due before every request and from the Durable
//! Object alarm, so the result is the same whether a request or the alarm comes first.
//!
//! Item by item: [`run_item`] runs one item and is meant to be its own transaction, so one
//! item that fails rolls back only itself. Its failure is then recorded
//! ([`record_failure`]): the item is retried after a backoff, and at its [`MAX_ATTEMPTS`]th
//! failure in a row it is parked (off the schedule, its error kept for the merchant to see),
//! so a poisoned item never blocks requests, the alarm, or the items behind it.

use super::{deployment, job, presale, Ctx};
use crate::error::{Error, Result};
use crate::model::schedule::DueFailure;
use crate::model::time::{Millis, SECOND};
use crate::store::{DueKey, Store};

/// At most this many items run in one call; the rest wait for the next request or alarm.
/// It bounds the work one request can be asked to do.
pub const MAX_ITEMS_PER_RUN: usize = 1_000;

/// An item failing this many times in a row is parked.
pub const MAX_ATTEMPTS: u32 = 5;

/// The wait before retrying an item that failed `attempts` times: 1 s, 2 s, 4 s, ... (at
/// most a minute).
pub fn backoff(attempts: u32) -> Millis {
    (SECOND << attempts.saturating_sub(1).min(6)).min(60 * SECOND)
}

/// What became of a failed item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// Rescheduled for this time.
    At(Millis),
    /// Taken off the schedule for good.
    Parked,
}

/// Runs one due item (`stored`, due at `at`): takes it off the schedule and hands it to its
/// owner, which schedules itself again if it needs another run; a key no owner claims is
/// dropped. A success forgets the item's earlier failures. Run it in its own transaction:
/// when it fails, nothing of it may stay, and the shell records the failure instead.
pub fn run_item(store: &mut dyn Store, ctx: &Ctx, stored: &str, at: Millis) -> Result<()> {
    store.unschedule_raw(stored)?;
    if let Some(key) = DueKey::decode(stored) {
        run_one(store, ctx, &key, at)?;
    }
    if store.due_failure(stored)?.is_some() {
        store.clear_due_failure(stored)?;
    }
    Ok(())
}

/// Records that running `stored` failed with `error` at `now`: it is rescheduled after a
/// backoff or, at its [`MAX_ATTEMPTS`]th failure in a row, parked.
pub fn record_failure(
    store: &mut dyn Store,
    stored: &str,
    error: &Error,
    now: Millis,
) -> Result<Retry> {
    let mut f = store.due_failure(stored)?.unwrap_or(DueFailure {
        key: stored.to_string(),
        attempts: 0,
        code: error.code,
        message: String::new(),
        first_failed_at: now,
        last_failed_at: now,
        parked_at: None,
    });
    f.attempts = f.attempts.saturating_add(1);
    f.code = error.code;
    f.message = error.message.clone();
    f.last_failed_at = now;
    let retry = if f.attempts >= MAX_ATTEMPTS {
        store.unschedule_raw(stored)?;
        f.parked_at = Some(now);
        Retry::Parked
    } else {
        let at = now.saturating_add(backoff(f.attempts));
        store.schedule_raw(stored, at)?;
        Retry::At(at)
    };
    store.put_due_failure(&f)?;
    Ok(retry)
}

/// Runs every item due at `ctx.now`, earliest first, each at its own due time, until none
/// is due (an item may schedule a follow-up that is itself already due: a presale launch
/// after a jump of the clock runs all its steps), at most [`MAX_ITEMS_PER_RUN`]. A failing
/// item is recorded and the run goes on. Returns how many items ran. The worker does the
/// same with one transaction per item; this form is for stores without transactions.
pub fn run_due(store: &mut dyn Store, ctx: &Ctx) -> Result<usize> {
    let mut ran = 0;
    while ran < MAX_ITEMS_PER_RUN {
        let Some((stored, at)) = store.first_due(ctx.now)? else {
            break;
        };
        if let Err(e) = run_item(store, ctx, &stored, at) {
            record_failure(store, &stored, &e, ctx.now)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_a_minute() {
        let waits: Vec<Millis> = (1..=9).map(backoff).collect();
        assert_eq!(
            waits,
            [1, 2, 4, 8, 16, 32, 60, 60, 60]
                .map(|s| s * SECOND)
                .to_vec()
        );
        assert_eq!(backoff(0), SECOND);
        assert_eq!(backoff(u32::MAX), 60 * SECOND);
    }
}
