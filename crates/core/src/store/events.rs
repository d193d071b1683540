//! The storage port of the event log, the webhook endpoints and their deliveries. Every
//! `Store` is one (`Store: EventStore`), so an operation writes its events through the same
//! store, in the same transaction, as its change.

use crate::error::Result;
use crate::model::event::{EventRecord, EventType};
use crate::model::ids::WebhookId;
use crate::model::time::Millis;
use crate::model::webhook::{Delivery, Webhook};

pub trait EventStore {
    /// Appends an event; returns its sequence number (increasing, never reused).
    fn append_event(&mut self, event: &EventRecord) -> Result<u64>;
    fn event(&self, seq: u64) -> Result<Option<EventRecord>>;
    /// Events after `after`, oldest first, only of `kinds` when given, at most `limit`.
    fn events_after(
        &self,
        after: u64,
        kinds: Option<&[EventType]>,
        limit: u32,
    ) -> Result<Vec<EventRecord>>;
    /// Events whose payload is not rendered yet, oldest first.
    fn unsealed_events(&self) -> Result<Vec<EventRecord>>;
    /// Fixes an event's payload (JSON text).
    fn seal_event(&mut self, seq: u64, data: &str) -> Result<()>;
    /// The latest event's sequence number (0 before the first).
    fn last_event_seq(&self) -> Result<u64>;
    /// Forgets events from before `before`, and finished deliveries that finished before it.
    fn prune_events(&mut self, before: Millis) -> Result<()>;

    fn webhook(&self, id: &WebhookId) -> Result<Option<Webhook>>;
    /// Every endpoint, in creation order.
    fn webhooks(&self) -> Result<Vec<Webhook>>;
    fn put_webhook(&mut self, webhook: &Webhook) -> Result<()>;
    /// Removes an endpoint and every delivery of it.
    fn delete_webhook(&mut self, id: &WebhookId) -> Result<()>;

    /// Stores a new delivery; returns its sequence number.
    fn insert_delivery(&mut self, delivery: &Delivery) -> Result<u64>;
    fn put_delivery(&mut self, delivery: &Delivery) -> Result<()>;
    fn delivery(&self, seq: u64) -> Result<Option<Delivery>>;
    /// One endpoint's deliveries, newest first, strictly older than `before`, at most `limit`.
    fn deliveries_of(
        &self,
        webhook: &WebhookId,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<Delivery>>;
    /// Pending deliveries of enabled endpoints due at `now`, earliest first, at most `limit`.
    fn ready_deliveries(&self, now: Millis, limit: u32) -> Result<Vec<Delivery>>;
    /// When the earliest pending delivery of an enabled endpoint is due.
    fn next_delivery_at(&self) -> Result<Option<Millis>>;
    /// The oldest open (pending or waiting) delivery of `resource` to `webhook`.
    fn first_open_delivery(&self, webhook: &WebhookId, resource: &str) -> Result<Option<Delivery>>;
}
