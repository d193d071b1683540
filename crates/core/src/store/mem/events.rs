//! The event log, webhooks and deliveries of `MemStore`. Same contract as the SQLite adapter.

use super::maps::retain;
use super::MemStore;
use crate::error::Result;
use crate::model::event::{EventRecord, EventType};
use crate::model::ids::WebhookId;
use crate::model::time::Millis;
use crate::model::webhook::{Delivery, Webhook};
use crate::store::events::EventStore;

impl EventStore for MemStore {
    fn append_event(&mut self, event: &EventRecord) -> Result<u64> {
        self.log.last_seq += 1;
        let seq = self.log.last_seq;
        let mut e = event.clone();
        e.seq = seq;
        self.log.events.insert(seq, e);
        Ok(seq)
    }

    fn event(&self, seq: u64) -> Result<Option<EventRecord>> {
        Ok(self.log.events.get(&seq).cloned())
    }

    fn events_after(
        &self,
        after: u64,
        kinds: Option<&[EventType]>,
        limit: u32,
    ) -> Result<Vec<EventRecord>> {
        Ok(self
            .log
            .events
            .range(after.saturating_add(1)..)
            .map(|(_, e)| e)
            .filter(|e| kinds.is_none_or(|k| k.contains(&e.kind)))
            .take(limit as usize)
            .cloned()
            .collect())
    }

    fn unsealed_events(&self) -> Result<Vec<EventRecord>> {
        Ok(self
            .log
            .events
            .values()
            .filter(|e| e.data.is_none())
            .cloned()
            .collect())
    }

    fn seal_event(&mut self, seq: u64, data: &str) -> Result<()> {
        if let Some(e) = self.log.events.get_mut(&seq) {
            e.data = Some(data.to_string());
        }
        Ok(())
    }

    fn last_event_seq(&self) -> Result<u64> {
        Ok(self.log.last_seq)
    }

    fn prune_events(&mut self, before: Millis) -> Result<()> {
        retain(&mut self.log.events, |_, e| e.at >= before);
        self.log
            .retain_deliveries(|d| d.finished_at.is_none_or(|f| f >= before));
        Ok(())
    }

    fn webhook(&self, id: &WebhookId) -> Result<Option<Webhook>> {
        Ok(self.log.webhooks.iter().find(|w| &w.id == id).cloned())
    }

    fn webhooks(&self) -> Result<Vec<Webhook>> {
        Ok(self.log.webhooks.clone())
    }

    fn put_webhook(&mut self, webhook: &Webhook) -> Result<()> {
        match self.log.webhooks.iter_mut().find(|w| w.id == webhook.id) {
            Some(w) => *w = webhook.clone(),
            None => self.log.webhooks.push(webhook.clone()),
        }
        Ok(())
    }

    fn delete_webhook(&mut self, id: &WebhookId) -> Result<()> {
        self.log.webhooks.retain(|w| &w.id != id);
        self.log.retain_deliveries(|d| &d.webhook != id);
        Ok(())
    }

    fn insert_delivery(&mut self, delivery: &Delivery) -> Result<u64> {
        self.log.last_delivery += 1;
        let seq = self.log.last_delivery;
        let mut d = delivery.clone();
        d.seq = seq;
        self.log.put_delivery(d);
        Ok(seq)
    }

    fn put_delivery(&mut self, delivery: &Delivery) -> Result<()> {
        if self.log.deliveries().contains_key(&delivery.seq) {
            self.log.put_delivery(delivery.clone());
        }
        Ok(())
    }

    fn delivery(&self, seq: u64) -> Result<Option<Delivery>> {
        Ok(self.log.deliveries().get(&seq).cloned())
    }

    fn deliveries_of(
        &self,
        webhook: &WebhookId,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<Delivery>> {
        Ok(self
            .log
            .deliveries()
            .values()
            .rev()
            .filter(|d| &d.webhook == webhook && before.is_none_or(|b| d.seq < b))
            .take(limit as usize)
            .cloned()
            .collect())
    }

    fn ready_deliveries(&self, now: Millis, limit: u32) -> Result<Vec<Delivery>> {
        let mut ready: Vec<&Delivery> = self
            .log
            .pending()
            .filter(|d| d.next_at.is_some_and(|at| at <= now))
            .collect();
        ready.sort_by_key(|d| (d.next_at, d.seq));
        Ok(ready.into_iter().take(limit as usize).cloned().collect())
    }

    fn next_delivery_at(&self) -> Result<Option<Millis>> {
        Ok(self.log.pending().filter_map(|d| d.next_at).min())
    }

    fn first_open_delivery(&self, webhook: &WebhookId, resource: &str) -> Result<Option<Delivery>> {
        Ok(self.log.first_open(webhook, resource).cloned())
    }
}
