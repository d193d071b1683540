//! What follows a commit: the alarm, and the follow-ups of `outbox`. Neither may turn a
//! committed answer into an error, so neither is the request's failure: both are idempotent
//! and retried until they land.
//!
//! - The alarm is derived state: it must point at the earliest pending work (a scheduled
//!   item or a follow-up). Setting it again to the same time is harmless, so when a write
//!   of it fails the object marks it stale and sets it again at the next chance: right
//!   away once, then before answering any later request, and at the end of every alarm. A
//!   new instance starts stale, so a write lost to a reset is made again too. The object
//!   remembers the time it last set (`Schedule::at`), so after a commit it compares the next
//!   work with that, not with a second reading of the schedule taken before the operation.
//! - Follow-ups are delivered after the commit, before the answer (so a client that got its
//!   201 finds the deployment's page); one that fails waits for the alarm's retry.

use super::{outbox, MerchantObject};
use crate::hop;
use std::cell::Cell;
use tokenpad_core::model::time::Millis;
use tokenpad_core::{Error, Result};

/// Follow-ups delivered in one pass at most; the rest wait for the alarm.
const MAX_FOLLOWUPS_PER_PASS: u64 = 20;

/// The object's schedule as this instance knows it: where the alarm points and whether that
/// can be trusted, and whether follow-ups may be waiting.
pub(super) struct Schedule {
    /// The alarm may not point at the earliest pending work: a write of it failed, work
    /// moved, or this instance is new. Set it again at the next chance.
    stale: Cell<bool>,
    /// Where this instance last pointed the alarm (service time; None: no alarm). Trusted
    /// only while the alarm is not stale.
    at: Cell<Option<Millis>>,
    /// Follow-ups may be waiting; true until a pass finds none.
    followups: Cell<bool>,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            stale: Cell::new(true),
            at: Cell::new(None),
            followups: Cell::new(true),
        }
    }
}

impl Schedule {
    /// The alarm may no longer point at the earliest work: set it again at the next chance.
    pub(super) fn moved(&self) {
        self.stale.set(true);
    }

    pub(super) fn is_stale(&self) -> bool {
        self.stale.get()
    }

    /// A committed transaction queued follow-ups.
    pub(super) fn followups_queued(&self) {
        self.followups.set(true);
    }

    pub(super) fn followups_pending(&self) -> bool {
        self.followups.get()
    }
}

impl MerchantObject {
    /// When the object next has work: its earliest scheduled item, follow-up, settlement
    /// round (an EVM chain) or webhook delivery.
    pub(super) fn next_wake(&self) -> Result<Option<Millis>> {
        let store = self.store()?;
        let now = self.now()?;
        // Follow-ups are looked for only while some may be waiting (`followups_pending`).
        let followup = if self.schedule.followups.get() {
            outbox::next_at(&store)?
        } else {
            None
        };
        let wakes = [
            self.hot_due()?,
            followup,
            self.settle_at(now)?,
            self.webhook_wake(&store, now)?,
        ];
        Ok(wakes.into_iter().flatten().min())
    }

    /// Points the object's one alarm at its next work (in real time), or clears it.
    pub(super) async fn sync_alarm(&self) -> Result<()> {
        let next = self.next_wake();
        if next.is_err() {
            self.schedule.moved();
        }
        self.set_alarm_to(next?).await
    }

    /// Points the alarm at `next` (service time), or clears it; remembers it when written.
    async fn set_alarm_to(&self, next: Option<Millis>) -> Result<()> {
        if self.faults.alarm_write_fails() {
            self.schedule.moved();
            return Err(Error::internal("injected alarm write fault"));
        }
        let storage = self.state.storage();
        let written = match next {
            Some(at) => {
                // A time long past is "at once" (the runtime refuses times <= 0).
                let real = at.saturating_sub(self.offset()?).max(1);
                let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(real as f64));
                storage.set_alarm(worker::ScheduledTime::new(date)).await
            }
            None => storage.delete_alarm().await,
        };
        match written {
            Ok(()) => {
                self.schedule.at.set(next);
                self.schedule.stale.set(false);
                Ok(())
            }
            Err(e) => {
                self.schedule.moved();
                Err(Error::internal(format!("alarm write: {e}")))
            }
        }
    }

    /// After a commit: the follow-ups, then the alarm when the next work is not where the
    /// alarm points (or the alarm is stale). Failures are logged and retried later, never
    /// returned.
    pub(super) async fn after_commit(&self, now: Millis) {
        self.deliver_followups(now).await;
        let next = self.next_wake();
        if matches!(next, Ok(wake) if wake == self.schedule.at.get()) && !self.schedule.is_stale() {
            return;
        }
        for _ in 0..2 {
            let written = match next {
                Ok(wake) => self.set_alarm_to(wake).await,
                Err(_) => self.sync_alarm().await,
            };
            match written {
                Ok(()) => return,
                Err(e) => worker::console_error!("alarm not set (retried later): {e}"),
            }
        }
    }

    /// Delivers the follow-ups due at `now`. A failed delivery is rescheduled with a backoff
    /// and the alarm is moved to it.
    pub(super) async fn deliver_followups(&self, now: Millis) {
        if !self.schedule.followups.get() {
            return;
        }
        if let Err(e) = self.try_deliver(now).await {
            worker::console_error!("follow-ups not delivered (retried later): {e}");
        }
    }

    async fn try_deliver(&self, now: Millis) -> Result<()> {
        let store = self.store()?;
        let mut failed = false;
        for f in outbox::due(&store, now, MAX_FOLLOWUPS_PER_PASS)? {
            let sent = match f.call() {
                Ok(call) => hop::registry(&self.env, &call).await.map(drop),
                Err(e) => Err(e),
            };
            match sent {
                Ok(()) => outbox::delivered(&store, &f.key)?,
                Err(e) => {
                    worker::console_error!("follow-up {} failed: {}", f.key, e.message);
                    outbox::failed(&store, &f, now)?;
                    failed = true;
                }
            }
        }
        self.schedule.followups.set(outbox::any(&store)?);
        if failed {
            self.schedule.moved();
        }
        Ok(())
    }
}
