//! The event log, webhooks and deliveries `MemStore` keeps (its `EventStore` is in `events.rs`).

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
    /// The open deliveries' numbers (waiting or pending), and the same by endpoint and
    /// resource: indexes of `deliveries`, as the SQLite adapter's on their state, so finding
    /// the open ones does not read every delivery ever made (a long simulated history has
    /// thousands).
    open: OrdSet<u64>,
    open_by_resource: OrdSet<(WebhookId, String, u64)>,
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
        self.unindex(delivery.seq);
        if delivery.state.is_open() {
            self.open.insert(delivery.seq);
            self.open_by_resource.insert(resource_key(&delivery));
        }
        self.deliveries.insert(delivery.seq, delivery);
    }

    /// Takes delivery `seq`, as it is now, out of the indexes.
    fn unindex(&mut self, seq: u64) {
        if let Some(old) = self.deliveries.get(&seq) {
            let key = resource_key(old);
            self.open_by_resource.remove(&key);
            self.open.remove(&seq);
        }
    }

    /// Keeps the deliveries `keep` says yes to.
    pub(super) fn retain_deliveries(&mut self, keep: impl Fn(&Delivery) -> bool) {
        let gone: Vec<u64> = self
            .deliveries
            .values()
            .filter(|d| !keep(d))
            .map(|d| d.seq)
            .collect();
        for seq in gone {
            self.unindex(seq);
            self.deliveries.remove(&seq);
        }
    }

    /// The open deliveries, oldest first.
    pub(super) fn open(&self) -> impl Iterator<Item = &Delivery> {
        self.open.iter().filter_map(|seq| self.deliveries.get(seq))
    }

    /// The oldest open delivery of `resource` to `webhook`.
    pub(super) fn first_open(&self, webhook: &WebhookId, resource: &str) -> Option<&Delivery> {
        let from = (webhook.clone(), resource.to_string(), 0);
        let (w, r, seq) = self.open_by_resource.range(from..).next()?;
        (w == webhook && r == resource)
            .then(|| self.deliveries.get(seq))
            .flatten()
    }

    pub(super) fn pending(&self) -> impl Iterator<Item = &Delivery> {
        self.open()
            .filter(|d| d.state == DeliveryState::Pending && self.enabled(&d.webhook))
    }
}

fn resource_key(d: &Delivery) -> (WebhookId, String, u64) {
    (d.webhook.clone(), d.resource.clone(), d.seq)
}
