//! The two calls that arrive with a client's credential: an API request ([`MerchantObject::api`])
//! and a live socket a relay asks to admit ([`MerchantObject::admit_socket`]). Each checks the
//! credential and charges its budget once (`caller.rs`); a request's operation is then
//! authorized once (`wire::scope::authorize`, whose `Permitted` is what `wire::apply` takes).

use super::{idempotency, live, outbox, presale_texts, MerchantObject};
use crate::adapters::sql::SqlStore;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::{WalletMaker, WorkerShell};
use crate::hop::live::WatchCall;
use crate::hop::{ApiCall, Idempotency};
use crate::http::{self, Answer};
use std::rc::Rc;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::ops::Ctx;
use tokenpad_core::wire::scope::{self, Permitted};
use tokenpad_core::{Error, ErrorCode, Result};

/// What a committed operation left to do after its transaction: its status and body, and
/// whether it queued follow-ups.
type Done = (u16, String, bool);

/// Whether a refusal from applying an operation is kept under its Idempotency-Key and
/// replayed: every 4xx the operation itself answered (it started executing), never a 429
/// and never a 5xx (a retry may then succeed).
fn recorded(e: &Error) -> bool {
    (400..500).contains(&e.status()) && e.code != ErrorCode::RateLimited
}

impl MerchantObject {
    pub(super) async fn api(&self, call: ApiCall) -> Result<Answer> {
        let store = self.store()?;
        let admitted = self.admit(&store, &call.credential, &call.client)?;
        let merchant = admitted.merchant;
        // A request that did not decode is refused only now, after its credential checked.
        let op = call.op?;
        // Who may run it, before any replay: a credential never replays what it may not do.
        let permitted = match admitted.role {
            Some(role) => scope::authorize_member(&store, role, &merchant, op)?,
            None => scope::authorize(&store, admitted.caller, &merchant, op)?,
        };
        // Its route declares whether it writes (`Op::writes`). Every write may move the
        // schedule, the webhook writes included (a ping, a replay queue deliveries).
        let writes = permitted.op().writes();
        // A public-key read, out of private mode: the edge may keep its answer a moment.
        let cacheable =
            !writes && matches!(permitted.caller(), Caller::Public) && !merchant.private_mode;
        let heard = live::Heard::of(permitted.op());
        self.note_base_url(&call.base_url);
        let now = self.now()?;
        // The alarm is touched only when the earliest pending work is not where it points
        // (most operations, a spend or a read, leave the schedule alone), or when it may be
        // wrong. A read changes nothing: only due work it ran can have moved the schedule,
        // and then the alarm is set again after the answer.
        if self.run_due(now, &merchant) > 0 && !writes {
            self.schedule.moved();
        }
        // The edge passes an idempotency key only for operations that change state.
        if let Some(idem) = &call.idempotency {
            if let Some(answer) = idempotency::replay(&store, permitted.caller(), idem, now)? {
                return Ok(answer);
            }
        }
        let ctx = self.ctx(now, merchant)?;
        let shell = WorkerShell {
            wallets: WalletMaker::from_env(&self.env),
            base_url: call.base_url,
            allow_private_urls: crate::config::flag(&self.env, "ALLOW_PRIVATE_WEBHOOK_URLS"),
            env: self.env.clone(),
            merchant: ctx.merchant.id.clone(),
        };
        // Kept only for a refusal recorded under an idempotency key (`record_refusal`).
        let keyed_caller = call
            .idempotency
            .as_ref()
            .map(|_| permitted.caller().clone());
        let prune = call.idempotency.is_some()
            && now.saturating_sub(self.callers.idempotency_pruned_at.get())
                >= idempotency::PRUNE_EVERY;
        match self.run(
            ctx,
            permitted,
            writes,
            shell,
            call.idempotency.clone(),
            prune,
        ) {
            Ok((status, body, queued)) => {
                if prune {
                    self.callers.idempotency_pruned_at.set(now);
                }
                if queued {
                    self.schedule.followups_queued();
                }
                // Committed: from here on nothing may turn this answer into an error.
                self.settle_soon(now);
                if writes || self.schedule.is_stale() || self.schedule.followups_pending() {
                    self.after_commit(now).await;
                }
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
            Err(e) if recorded(&e) => {
                if let (Some(idem), Some(caller)) = (call.idempotency, keyed_caller) {
                    self.record_refusal(&caller, idem, &e, now);
                }
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// Applies the permitted operation: in one transaction with its idempotency record and
    /// its follow-ups when it writes; a read writes nothing and opens none. A presale's read
    /// answered before, with no presale written since, is the same text.
    fn run(
        &self,
        ctx: Ctx,
        permitted: Permitted,
        writes: bool,
        mut shell: WorkerShell,
        idem: Option<Idempotency>,
        prune: bool,
    ) -> Result<Done> {
        let mut store = self.store()?;
        let rendered = Rc::clone(&self.kept.rendered);
        let presale_texts = Rc::clone(&self.kept.presale_texts);
        let watch = self.watch.clone();
        let work = move || {
            let kept = presale_texts::Key::of(&store, &ctx, permitted.caller(), permitted.op());
            if let (Some(key), Ok(mut texts)) = (&kept, presale_texts.try_borrow_mut()) {
                if let Some(text) = texts.get(&watch, key) {
                    return Ok((200, text, false));
                }
            }
            // The caller its answer is recorded under, when it has an idempotency key.
            let keyed = idem.as_ref().map(|i| (i, permitted.caller().clone()));
            let reply = tokenpad_core::wire::apply(&mut store, &ctx, permitted, &mut shell)?;
            let body = match rendered.try_borrow_mut() {
                Ok(mut memo) => memo.encode(&reply.body),
                Err(_) => http::encode(&reply.body),
            }
            .map_err(|e| Error::internal(format!("encode: {e}")))?;
            if let (Some(key), 200, Ok(mut texts)) =
                (kept, reply.status, presale_texts.try_borrow_mut())
            {
                texts.keep(&watch, key, &body);
            }
            if let Some((idem, caller)) = keyed {
                if prune {
                    idempotency::prune(&mut store, ctx.now)?;
                }
                // An answer that shows a key is kept as a refusal: a key is shown once.
                let refusal = tokenpad_core::wire::kept_instead(&reply)
                    .map(|e| http::encode(&e.to_body()).map(|text| (e.status(), text)))
                    .transpose()
                    .map_err(|err| Error::internal(format!("encode: {err}")))?;
                let (status, kept) = match &refusal {
                    Some((status, text)) => (*status, text.as_str()),
                    None => (reply.status, body.as_str()),
                };
                idempotency::record(&mut store, &caller, idem, status, kept, ctx.now)?;
            }
            let queued = outbox::queue(&store, &ctx, &reply)?;
            Ok((reply.status, body, queued))
        };
        if writes {
            transaction(&self.state.storage(), &self.watch, work)
        } else {
            work()
        }
    }

    /// The operation ran and refused: that refusal is its answer under this key (it changed
    /// nothing: its transaction rolled back). A failure to keep it is logged; the refusal is
    /// still the answer.
    fn record_refusal(&self, caller: &Caller, idem: Idempotency, e: &Error, now: Millis) {
        let kept = (|| {
            let body = http::encode(&e.to_body())
                .map_err(|err| Error::internal(format!("encode: {err}")))?;
            let mut store = self.store()?;
            let status = e.status();
            let caller = caller.clone();
            transaction(&self.state.storage(), &self.watch, move || {
                idempotency::record(&mut store, &caller, &idem, status, &body, now)
            })
        })();
        if let Err(err) = kept {
            worker::console_error!("idempotency record of a refusal: {err}");
        }
    }

    /// A relay asks to admit a client's socket (`objects/live`): the credential checked and
    /// its opener's budget charged once, as a request's; the hub answers who opened it with
    /// each topic's current message, or the refusal.
    pub(super) fn admit_socket(&self, call: WatchCall) -> Result<Answer> {
        let store = self.store()?;
        let admitted = self.admit(&store, &call.credential, &call.client)?;
        let (merchant, caller, key) = (admitted.merchant, admitted.caller, admitted.key);
        let now = self.now()?;
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
