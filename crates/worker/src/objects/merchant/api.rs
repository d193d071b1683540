//! The two calls that arrive with a client's credential: an API request ([`MerchantObject::api`])
//! and a live socket a relay asks to admit ([`MerchantObject::admit_socket`]). What a request
//! goes through (admit, authorize, due work, replay, apply with its record and follow-ups in
//! one transaction, record a refusal) is the core's pipeline (`tokenpad_core::serve`), run
//! over this object's ports (`ports.rs`); here is only what the object does around it: the
//! answer's headers, the alarm, follow-ups and live push after a commit.

use super::ports::Serving;
use super::{live, MerchantObject};
use crate::adapters::sql::SqlStore;
use crate::hop::live::WatchCall;
use crate::hop::ApiCall;
use crate::http::Answer;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::serve::{self, Call};
use tokenpad_core::Result;

impl MerchantObject {
    /// An API request. A write that arrives while writes are arriving together waits to go
    /// through with them, in one commit (`gate.rs`); local runs name how many went through
    /// together in `x-write-group`.
    pub(super) async fn api(&self, call: ApiCall) -> Result<Answer> {
        if !call.request.writes() {
            return self.serve_api(call).await;
        }
        let group = self.gate.pass().await;
        let served = self.serve_api(call).await;
        if !self.faults.count_statements {
            return served;
        }
        let answer = served.unwrap_or_else(|e| Answer::error(&e));
        Ok(answer.with_header("x-write-group", group.to_string()))
    }

    async fn serve_api(&self, call: ApiCall) -> Result<Answer> {
        let now = self.now()?;
        let serving = Serving::new(self, call.base_url);
        let call = Call {
            credential: call.credential,
            op: call.request.op(),
            idempotency: call.idempotency.map(|i| (i.key, i.fingerprint)),
            client: call.client,
            now,
        };
        let served = serve::serve(&serving, call, |admitted, permitted| {
            // Links rendered outside a request (webhooks, events) use the latest checked
            // call's base URL.
            self.note_base_url(&serving.base_url);
            // A public-key read, out of private mode: the edge may keep its answer a moment.
            let cacheable = !permitted.op().writes()
                && matches!(permitted.caller(), Caller::Public)
                && !admitted.merchant.private_mode;
            (live::Heard::of(permitted.op()), cacheable)
        });
        if served.due > 0 {
            // Launches, unlocks and refunds change what holders and presales show.
            self.live.changed();
            // A read changes nothing: only the due work it ran moved the schedule, and the
            // alarm is set again after the answer.
            if !served.writes {
                self.schedule.moved();
            }
        }
        let (status, body) = served.answer?;
        if served.replayed {
            return Ok(Answer::json_text(status, body).with_header("idempotent-replayed", "true"));
        }
        let Some((heard, cacheable)) = served.seen else {
            return Ok(Answer::json_text(status, body));
        };
        if served.queued {
            self.schedule.followups_queued();
        }
        // Committed: from here on nothing may turn this answer into an error. Movements are
        // queued by a write, or by the due work run before any call; a read queues none, and
        // on a real chain would read when settlement is due for nothing.
        if served.writes || served.due > 0 {
            self.settle_soon(now);
        }
        if served.writes || self.schedule.is_stale() || self.schedule.followups_pending() {
            self.after_commit(now).await;
        }
        let store = self.store()?;
        self.live.committed(
            heard,
            || matches!(self.hot_merchant(&store), Ok(Some(m)) if m.private_mode),
            |id| self.key_end(&store, id),
            now,
        );
        let answer = Answer::json_text(status, body).stamped(now);
        Ok(if cacheable && status == 200 {
            answer.cacheable()
        } else {
            answer
        })
    }

    /// A relay asks to admit a client's socket (`objects/live`): the credential checked and
    /// its opener's budget charged once, as a request's (`serve::admit`); the hub answers who
    /// opened it with each topic's current message, or the refusal.
    #[inline(never)]
    pub(super) fn admit_socket(&self, call: WatchCall) -> Result<Answer> {
        let store = self.store()?;
        let now = self.now()?;
        let serving = Serving::new(self, self.base_url());
        let admitted = serve::admit(&serving, &call.credential, &call.client, now)?;
        let (merchant, caller, key) = (admitted.merchant, admitted.caller, admitted.key);
        // The key's end, when it is in a roll's grace period: its socket closes then.
        let key = key.map(|id| {
            let end = self.key_end(&store, &id);
            (id, end)
        });
        let admitted = self
            .live
            .admit(&store, &caller, key, &merchant, call, now)?;
        Answer::json(200, &admitted)
    }

    /// When the merchant's key `id` stops (or stopped) working, if an end is set
    /// (`ApiKey::end`); None too when its records cannot be read.
    fn key_end(&self, store: &SqlStore, id: &str) -> Option<Millis> {
        let keys = self.hot_keys(store).ok()?;
        keys.iter().find(|k| k.id == id)?.end()
    }
}
