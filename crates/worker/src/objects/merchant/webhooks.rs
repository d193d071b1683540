//! Webhook deliveries from the merchant's object, from its alarm only: never inside a
//! request, so a slow or failing receiver never slows the API.
//!
//! An alarm run (`deliver_webhooks`): fan-out (new events become deliveries, one
//! transaction), then rounds: every pending delivery that is due (at most one per resource
//! and endpoint, which is what keeps a resource's events in order) is sent at once, each
//! with a timeout (`WEBHOOK_TIMEOUT_MS`, default 10 s), and each attempt is recorded in a
//! transaction of its own, with what follows it (`ops::webhook::deliver::record`). Rounds go
//! on while deliveries are due, for at most `ROUND_BUDGET_MS`; what is left sets the next
//! alarm. An object stopped mid-send has recorded nothing: the delivery is sent again (at
//! least once; receivers deduplicate on the event id).
//!
//! Also here: the base URL events render links with (a deployment's page) when no request
//! is at hand, the alarm's wake for deliveries, and the pruning of old events.

use super::MerchantObject;
use crate::adapters::sql::SqlStore;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::WalletMaker;
use crate::adapters::webhook::{send, Outgoing};
use crate::http;
use std::cell::{Cell, RefCell};
use tokenpad_core::crypto::webhook_signature;
use tokenpad_core::model::event::{event_id, public_id, EventRecord};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::{Millis, SECOND};
use tokenpad_core::model::webhook::{Attempt, Delivery, Webhook};
use tokenpad_core::ops::event::RETENTION;
use tokenpad_core::ops::webhook::{check_url, deliver};
use tokenpad_core::store::EventStore;
use tokenpad_core::wire::event::{seal, Event};
use tokenpad_core::wire::hooks::secret_text;
use tokenpad_core::{Error, Result};

const BASE_URL_KEY: &str = "base_url";
/// Deliveries sent at once in one round.
const ROUND_SIZE: u32 = 32;
/// An alarm stops starting rounds after this long (real time); the rest go next alarm.
const ROUND_BUDGET_MS: u64 = 20_000;
/// Fan-out passes per alarm (each up to `deliver::FAN_OUT_BATCH` events per endpoint).
const FAN_OUT_PASSES: usize = 8;
/// Old events are looked for at most this often.
const PRUNE_EVERY: Millis = 3600 * SECOND;
pub(super) const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// What this instance keeps for deliveries.
#[derive(Default)]
pub(super) struct Hooks {
    /// Deliveries are being sent (the alarm's; never two runs at once).
    delivering: Cell<bool>,
    /// The latest API request's base URL, for events rendered in the alarm.
    base_url: RefCell<Option<String>>,
    /// When old events were last pruned (service time).
    pruned_at: Cell<Millis>,
    /// Whether the merchant has webhooks (None: not known), a copy of committed state
    /// forgotten when any store of this object writes a webhook (`watch.webhooks`): with
    /// none, finding the next delivery takes no query.
    any: Cell<Option<bool>>,
}

/// One delivery, ready to go.
struct Prepared {
    delivery: Delivery,
    url: String,
    body: String,
    signature: String,
    event_id: String,
    event_type: &'static str,
    delivery_id: String,
}

impl MerchantObject {
    /// Remembers the base URL of the latest API request (its links, when an event is
    /// rendered without a request: in the alarm).
    pub(super) fn note_base_url(&self, url: &str) {
        if self.hooks.base_url.borrow().as_deref() == Some(url) {
            return;
        }
        match self.store().and_then(|s| s.put_meta(BASE_URL_KEY, &url)) {
            Ok(()) => *self.hooks.base_url.borrow_mut() = Some(url.to_string()),
            Err(e) => worker::console_error!("base URL not kept: {e}"),
        }
    }

    /// PUBLIC_BASE_URL, else the latest request's base URL.
    pub(super) fn base_url(&self) -> String {
        if let Some(url) = crate::config::string(&self.env, "PUBLIC_BASE_URL")
            .map(|s| s.trim().trim_end_matches('/').to_string())
            .filter(|s| !s.is_empty())
        {
            return url;
        }
        if let Some(url) = self.hooks.base_url.borrow().clone() {
            return url;
        }
        let kept = self
            .store()
            .and_then(|s| s.meta::<String>(BASE_URL_KEY))
            .ok()
            .flatten()
            .unwrap_or_default();
        *self.hooks.base_url.borrow_mut() = Some(kept.clone());
        kept
    }

    /// Whether the merchant has webhooks, as committed: the copy in memory, or read (outside
    /// transactions) when a write of a webhook, or none yet, left it unknown.
    fn has_webhooks(&self, store: &SqlStore) -> Result<bool> {
        if self.watch.webhooks.replace(false) {
            self.hooks.any.set(None);
        }
        if let Some(any) = self.hooks.any.get() {
            return Ok(any);
        }
        let any = !store.webhooks()?.is_empty();
        self.hooks.any.set(Some(any));
        Ok(any)
    }

    /// When deliveries need the alarm: at once (now) while events wait for fan-out, else
    /// when the earliest pending delivery is due.
    pub(super) fn webhook_wake(&self, store: &SqlStore, now: Millis) -> Result<Option<Millis>> {
        // Deliveries are only ever pending for a webhook that exists.
        if !self.has_webhooks(store)? {
            return Ok(None);
        }
        if deliver::fan_out_pending(store)? {
            return Ok(Some(now));
        }
        store.next_delivery_at()
    }

    /// The alarm's deliveries. Failures are logged; they never fail the alarm.
    pub(super) async fn deliver_webhooks(&self, merchant: &MerchantId) {
        if self.hooks.delivering.replace(true) {
            return;
        }
        if let Err(e) = self.try_deliver_webhooks(merchant).await {
            worker::console_error!("webhook deliveries stopped (the next alarm goes on): {e}");
        }
        self.hooks.delivering.set(false);
        self.schedule.moved();
    }

    async fn try_deliver_webhooks(&self, merchant: &MerchantId) -> Result<()> {
        let base = self.base_url();
        for _ in 0..FAN_OUT_PASSES {
            if !deliver::fan_out_pending(&self.store()?)? {
                break;
            }
            let now = self.now()?;
            let mut store = self.store()?;
            let base = base.clone();
            transaction(&self.state.storage(), &self.watch, move || {
                // An event a path forgot to seal is rendered now, before it is sent.
                seal(&mut store, &base)?;
                deliver::fan_out(&mut store, now)
            })?;
        }
        self.prune()?;
        let started = crate::clock::now_ms();
        let timeout = self.webhook_timeout_ms();
        loop {
            let now = self.now()?;
            let ready = self.store()?.ready_deliveries(now, ROUND_SIZE)?;
            if ready.is_empty() {
                break;
            }
            let mut sends = Vec::new();
            let mut done: Vec<(u64, Attempt)> = Vec::new();
            for d in ready {
                match self.prepare(merchant, d, &base) {
                    Ok(p) => sends.push(p),
                    Err((seq, why)) => done.push((
                        seq,
                        Attempt {
                            at: now,
                            duration_ms: 0,
                            status: None,
                            error: Some(why),
                            body: None,
                        },
                    )),
                }
            }
            let attempts = futures_util::future::join_all(sends.iter().map(|p| {
                let out = Outgoing {
                    url: &p.url,
                    body: &p.body,
                    signature: p.signature.clone(),
                    event_id: &p.event_id,
                    event_type: p.event_type,
                    delivery_id: &p.delivery_id,
                };
                async move { send(&out, now, timeout).await }
            }))
            .await;
            done.extend(sends.iter().map(|p| p.delivery.seq).zip(attempts));
            let after = self.now()?;
            for (seq, attempt) in done {
                let mut store = self.store()?;
                let outcome = transaction(&self.state.storage(), &self.watch, move || {
                    deliver::record(&mut store, seq, attempt, after)
                })?;
                if let deliver::Outcome::GaveUp = outcome {
                    let id = public_id("dlv", merchant, seq);
                    worker::console_log!(
                        "{}",
                        serde_json::json!({ "message": "webhook delivery given up", "merchantId": merchant, "deliveryId": id })
                    );
                }
            }
            if crate::clock::now_ms().saturating_sub(started) > ROUND_BUDGET_MS {
                break;
            }
        }
        Ok(())
    }

    /// Everything one delivery needs, or (its seq, why it cannot be sent): the endpoint's
    /// URL is no longer allowed, its secret does not open. Those are recorded as failed
    /// attempts, retried like any other.
    fn prepare(
        &self,
        merchant: &MerchantId,
        d: Delivery,
        base: &str,
    ) -> std::result::Result<Prepared, (u64, String)> {
        let seq = d.seq;
        let fail = |why: &str| (seq, why.to_string());
        let store = self.store().map_err(|_| fail("storage"))?;
        let w: Webhook = store
            .webhook(&d.webhook)
            .ok()
            .flatten()
            .ok_or_else(|| fail("the webhook is gone"))?;
        let url = check_url(
            &w.url,
            crate::config::flag(&self.env, "ALLOW_PRIVATE_WEBHOOK_URLS"),
        )
        .map_err(|e| fail(&format!("url refused: {}", e.code.as_str())))?;
        let secret = WalletMaker::from_env(&self.env)
            .open_sealed(w.id.as_str().as_bytes(), &w.sealed_secret)
            .map_err(|_| fail("the signing secret cannot be opened"))?;
        let record: EventRecord =
            deliver::event_of(&store, &d).map_err(|_| fail("the event is no longer kept"))?;
        let body = Event::read(&store, merchant, &record, base)
            .and_then(|e| http::encode(&e).map_err(|e| Error::internal(e.to_string())))
            .map_err(|_| fail("the event could not be rendered"))?;
        let t = crate::clock::now_ms() / 1000;
        Ok(Prepared {
            signature: webhook_signature(&secret_text(&secret), t, &body),
            url,
            body,
            event_id: event_id(merchant, d.event),
            event_type: d.kind.as_str(),
            delivery_id: public_id("dlv", merchant, seq),
            delivery: d,
        })
    }

    /// WEBHOOK_TIMEOUT_MS (default 10 s): how long a receiver has to answer.
    fn webhook_timeout_ms(&self) -> u64 {
        crate::config::string(&self.env, "WEBHOOK_TIMEOUT_MS")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|v| *v > 0)
            .unwrap_or(DEFAULT_TIMEOUT_MS)
    }

    /// Forgets events and finished deliveries older than `RETENTION` (30 days), at most once
    /// an hour.
    fn prune(&self) -> Result<()> {
        let now = self.now()?;
        if now.saturating_sub(self.hooks.pruned_at.get()) < PRUNE_EVERY {
            return Ok(());
        }
        let mut store: SqlStore = self.store()?;
        transaction(&self.state.storage(), &self.watch, move || {
            store.prune_events(now.saturating_sub(RETENTION))
        })?;
        self.hooks.pruned_at.set(now);
        Ok(())
    }
}
