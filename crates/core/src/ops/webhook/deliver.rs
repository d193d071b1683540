//! Deliveries: which events go to which endpoint, in what order, and what happens after an
//! attempt. The shell sends (from the merchant object's alarm, never inside a request); this
//! module decides.
//!
//! - [`fan_out`]: each endpoint has a cursor in the event log; every event after it that the
//!   endpoint subscribes to becomes a delivery, in log order, and the cursor moves (one
//!   transaction). A disabled endpoint's cursor moves too: it misses what happens while it is
//!   disabled.
//! - Order per resource: of one resource's open deliveries to one endpoint only the oldest
//!   is `pending`; the others `wait` and follow it one at a time ([`enqueue`], [`record`]).
//! - At least once: a delivery is done only when an attempt got a 2xx answer. Network
//!   errors, timeouts and other answers are retried with exponential backoff
//!   ([`retry_wait`]: 30 s, 1 min, 2 min, ... at most 6 h apart) until [`RETRY_FOR`] (three
//!   days) after the delivery was made; then it is given up (`failed`), and the next
//!   delivery of its resource goes.

use crate::error::{Error, Result};
use crate::model::event::EventRecord;
use crate::model::ids::WebhookId;
use crate::model::time::{Millis, DAY, SECOND};
use crate::model::webhook::{Attempt, Delivery, DeliveryState, KEPT_ATTEMPTS};
use crate::store::Store;

/// Failing deliveries are retried this long.
pub const RETRY_FOR: Millis = 3 * DAY;
/// The first retry's wait; each next one doubles it, up to [`MAX_WAIT`].
pub const FIRST_WAIT: Millis = 30 * SECOND;
pub const MAX_WAIT: Millis = 6 * 3600 * SECOND;
/// Events one fan-out pass considers per endpoint (the rest in the next pass).
pub const FAN_OUT_BATCH: u32 = 500;

/// The wait after the `failures`th failed attempt in a row: 30 s, 1 min, 2 min, ... 6 h.
pub fn retry_wait(failures: u32) -> Millis {
    let doublings = failures.saturating_sub(1).min(20);
    FIRST_WAIT.saturating_mul(1 << doublings).min(MAX_WAIT)
}

/// A new delivery of `event` to `webhook`: pending now, or waiting behind an open delivery
/// of the same resource.
pub fn enqueue(
    store: &mut dyn Store,
    webhook: &WebhookId,
    event: &EventRecord,
    now: Millis,
    replay_of: Option<u64>,
) -> Result<Delivery> {
    let behind = store
        .first_open_delivery(webhook, &event.resource)?
        .is_some();
    let mut d = Delivery {
        seq: 0,
        webhook: webhook.clone(),
        event: event.seq,
        kind: event.kind,
        resource: event.resource.clone(),
        state: if behind {
            DeliveryState::Waiting
        } else {
            DeliveryState::Pending
        },
        attempts: Vec::new(),
        attempt_count: 0,
        next_at: (!behind).then_some(now),
        created_at: now,
        deadline: now.saturating_add(RETRY_FOR),
        replay_of,
        finished_at: None,
    };
    d.seq = store.insert_delivery(&d)?;
    Ok(d)
}

/// Whether some endpoint has events to consider (its cursor is behind the log).
pub fn fan_out_pending(store: &dyn Store) -> Result<bool> {
    let hooks = store.webhooks()?;
    if hooks.is_empty() {
        return Ok(false);
    }
    let last = store.last_event_seq()?;
    Ok(hooks.iter().any(|w| w.cursor < last))
}

/// Makes the deliveries of the events after each endpoint's cursor (at most
/// [`FAN_OUT_BATCH`] events per endpoint); returns how many it made. Run it in one
/// transaction: the deliveries and the cursors move together.
pub fn fan_out(store: &mut dyn Store, now: Millis) -> Result<usize> {
    let last = store.last_event_seq()?;
    let mut made = 0;
    for mut w in store.webhooks()? {
        if w.cursor >= last {
            continue;
        }
        let events = store.events_after(w.cursor, None, FAN_OUT_BATCH)?;
        // A full batch stops at its last event; otherwise every event up to the log's end
        // was considered.
        let cursor = if events.len() == FAN_OUT_BATCH as usize {
            events.last().map_or(last, |e| e.seq)
        } else {
            last
        };
        for e in &events {
            if w.enabled && w.wants(e.kind) {
                enqueue(store, &w.id, e, now, None)?;
                made += 1;
            }
        }
        w.cursor = cursor;
        store.put_webhook(&w)?;
    }
    Ok(made)
}

/// What became of a delivery after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Delivered.
    Succeeded,
    /// Tried again at this time.
    RetryAt(Millis),
    /// Given up (its deadline passed).
    GaveUp,
    /// Not pending any more (its endpoint was deleted, or it was finished meanwhile):
    /// the attempt is not recorded.
    Gone,
}

/// Records an attempt of pending delivery `seq` made at `now`, and what follows: done, a
/// retry after [`retry_wait`], or given up; when it is finished, the next delivery of its
/// resource becomes pending.
pub fn record(store: &mut dyn Store, seq: u64, attempt: Attempt, now: Millis) -> Result<Outcome> {
    let Some(mut d) = store.delivery(seq)? else {
        return Ok(Outcome::Gone);
    };
    if d.state != DeliveryState::Pending {
        return Ok(Outcome::Gone);
    }
    let ok = attempt.succeeded();
    d.attempts.push(attempt);
    if d.attempts.len() > KEPT_ATTEMPTS {
        let extra = d.attempts.len() - KEPT_ATTEMPTS;
        d.attempts.drain(..extra);
    }
    d.attempt_count = d.attempt_count.saturating_add(1);
    let failures = consecutive_failures(&d);
    let retry_at = now.saturating_add(retry_wait(failures));
    let outcome = if ok {
        Outcome::Succeeded
    } else if retry_at > d.deadline {
        Outcome::GaveUp
    } else {
        Outcome::RetryAt(retry_at)
    };
    match outcome {
        Outcome::RetryAt(at) => d.next_at = Some(at),
        _ => {
            d.state = if ok {
                DeliveryState::Succeeded
            } else {
                DeliveryState::Failed
            };
            d.next_at = None;
            d.finished_at = Some(now);
        }
    }
    store.put_delivery(&d)?;
    if d.finished_at.is_some() {
        promote(store, &d.webhook, &d.resource, now)?;
    }
    Ok(outcome)
}

fn consecutive_failures(d: &Delivery) -> u32 {
    let kept = d
        .attempts
        .iter()
        .rev()
        .take_while(|a| !a.succeeded())
        .count();
    if kept == d.attempts.len() {
        // Every kept attempt failed: so did those no longer kept.
        d.attempt_count
    } else {
        u32::try_from(kept).unwrap_or(u32::MAX)
    }
}

/// The next open delivery of `resource` to `webhook`, if it waits, goes now.
fn promote(store: &mut dyn Store, webhook: &WebhookId, resource: &str, now: Millis) -> Result<()> {
    if let Some(mut next) = store.first_open_delivery(webhook, resource)? {
        if next.state == DeliveryState::Waiting {
            next.state = DeliveryState::Pending;
            next.next_at = Some(now);
            store.put_delivery(&next)?;
        }
    }
    Ok(())
}

/// The event a delivery carries, its payload rendered (see `wire::event`).
pub fn event_of(store: &dyn Store, d: &Delivery) -> Result<EventRecord> {
    store
        .event(d.event)?
        .ok_or_else(|| Error::internal(format!("event {} of delivery {} is gone", d.event, d.seq)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_from_30_seconds_to_6_hours() {
        let waits: Vec<Millis> = (1..=12).map(retry_wait).collect();
        let mins = |m: u64| m * 60 * SECOND;
        assert_eq!(
            waits,
            vec![
                30 * SECOND,
                mins(1),
                mins(2),
                mins(4),
                mins(8),
                mins(16),
                mins(32),
                mins(64),
                mins(128),
                mins(256),
                MAX_WAIT,
                MAX_WAIT
            ]
        );
        assert_eq!(retry_wait(u32::MAX), MAX_WAIT);
    }
}
