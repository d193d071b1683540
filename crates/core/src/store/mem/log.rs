//! The event log, webhooks and deliveries `MemStore` keeps (its `EventStore` is in `events.rs`).

use crate::model::event::EventRecord;
use crate::model::ids::WebhookId;
use crate::model::webhook::{Delivery, DeliveryState, Webhook};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct Log {
    pub events: BTreeMap<u64, EventRecord>,
    /// The last sequence number given (never reused, also after pruning).
    pub last_seq: u64,
    /// In creation order.
    pub webhooks: Vec<Webhook>,
    pub deliveries: BTreeMap<u64, Delivery>,
    pub last_delivery: u64,
}

impl Log {
    pub(super) fn enabled(&self, id: &WebhookId) -> bool {
        self.webhooks.iter().any(|w| &w.id == id && w.enabled)
    }

    pub(super) fn pending(&self) -> impl Iterator<Item = &Delivery> {
        self.deliveries
            .values()
            .filter(|d| d.state == DeliveryState::Pending && self.enabled(&d.webhook))
    }
}
