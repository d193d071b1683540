//! The event log, webhooks and deliveries `MemStore` keeps (its `EventStore` is in `events.rs`).

use super::maps::retain;
use crate::model::event::EventRecord;
use crate::model::ids::WebhookId;
use crate::model::webhook::{Delivery, DeliveryState, Webhook};
use imbl::{OrdMap, OrdSet};
use std::fmt;

#[derive(Clone, Default, PartialEq)]
pub struct Log {
    pub events: OrdMap<u64, EventRecord>,
    /// The last sequence number given (never reused, also after pruning).
    pub last_seq: u64,
    /// In creation order.
    pub webhooks: Vec<Webhook>,
    /// Written through [`Log::put_delivery`] and [`Log::retain_deliveries`] alone, which keep
    /// `open` with them.
    deliveries: OrdMap<u64, Delivery>,
    pub last_delivery: u64,
    /// The open deliveries (waiting or pending), by endpoint, resource and number: an index of
    /// `deliveries`, as the SQLite adapter's on their state, so finding the open ones does not
    /// read every delivery ever made (a long simulated history has thousands).
    open: OrdSet<(WebhookId, String, u64)>,
}

/// As derived, without the index: what the log holds, not how it is looked up (the
/// simulator's digests print the store).
impl fmt::Debug for Log {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Log")
            .field("events", &self.events)
            .field("last_seq", &self.last_seq)
            .field("webhooks", &self.webhooks)
            .field("deliveries", &self.deliveries)
            .field("last_delivery", &self.last_delivery)
            .finish()
    }
}

impl Log {
    pub(super) fn enabled(&self, id: &WebhookId) -> bool {
        self.webhooks.iter().any(|w| &w.id == id && w.enabled)
    }

    pub fn deliveries(&self) -> &OrdMap<u64, Delivery> {
        &self.deliveries
    }

    /// Writes `delivery` under its number (`seq`), new or over the one there.
    pub(super) fn put_delivery(&mut self, delivery: Delivery) {
        if let Some(old) = self.deliveries.get(&delivery.seq) {
            self.open.remove(&open_key(old));
        }
        if delivery.state.is_open() {
            self.open.insert(open_key(&delivery));
        }
        self.deliveries.insert(delivery.seq, delivery);
    }

    /// Keeps the deliveries `keep` says yes to.
    pub(super) fn retain_deliveries(&mut self, keep: impl Fn(&Delivery) -> bool) {
        for gone in retain(&mut self.deliveries, |_, d| keep(d)) {
            self.open.remove(&open_key(&gone));
        }
    }

    /// The oldest open delivery of `resource` to `webhook`.
    pub(super) fn first_open(&self, webhook: &WebhookId, resource: &str) -> Option<&Delivery> {
        let from = (webhook.clone(), resource.to_string(), 0);
        let (w, r, seq) = self.open.range(from..).next()?;
        (w == webhook && r == resource)
            .then(|| self.deliveries.get(seq))
            .flatten()
    }

    /// The pending deliveries of enabled webhooks, in no particular order (callers sort).
    pub(super) fn pending(&self) -> impl Iterator<Item = &Delivery> {
        self.open
            .iter()
            .filter_map(|(_, _, seq)| self.deliveries.get(seq))
            .filter(|d| d.state == DeliveryState::Pending && self.enabled(&d.webhook))
    }
}

fn open_key(d: &Delivery) -> (WebhookId, String, u64) {
    (d.webhook.clone(), d.resource.clone(), d.seq)
}
