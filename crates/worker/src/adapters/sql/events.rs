//! The event log, webhook endpoints and deliveries on the merchant object's SQLite
//! (`tokenpad_core::store::EventStore`).
//!
//! Events and deliveries are numbered by AUTOINCREMENT, so a number is never reused, also
//! after old rows are pruned. Only the oldest open delivery of a resource is `pending`;
//! the partial indexes keep the sender's two questions (what is due, what is open for a
//! resource) index scans.

use super::db::{int, parse, text, SqlStore};
use serde::Deserialize;
use tokenpad_core::model::event::{EventRecord, EventType};
use tokenpad_core::model::ids::WebhookId;
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::webhook::{Delivery, Webhook};
use tokenpad_core::store::EventStore;
use tokenpad_core::{Error, Result};
use worker::SqlStorageValue;

pub(crate) const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, at INTEGER NOT NULL, resource TEXT NOT NULL, subject TEXT NOT NULL, data TEXT)",
    "CREATE INDEX IF NOT EXISTS events_by_kind ON events (kind, seq)",
    "CREATE INDEX IF NOT EXISTS events_by_time ON events (at)",
    "CREATE INDEX IF NOT EXISTS events_unsealed ON events (seq) WHERE data IS NULL",
    "CREATE TABLE IF NOT EXISTS webhooks (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, webhook TEXT NOT NULL, resource TEXT NOT NULL, state TEXT NOT NULL, next_at INTEGER, finished_at INTEGER, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS deliveries_by_webhook ON deliveries (webhook, seq)",
    "CREATE INDEX IF NOT EXISTS deliveries_open ON deliveries (webhook, resource, seq) WHERE state IN ('pending', 'waiting')",
    "CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_at) WHERE state = 'pending'",
    "CREATE INDEX IF NOT EXISTS deliveries_finished ON deliveries (finished_at) WHERE finished_at IS NOT NULL",
];

#[derive(Deserialize)]
struct EventRow {
    seq: i64,
    kind: String,
    at: i64,
    resource: String,
    subject: String,
    data: Option<String>,
}

impl EventRow {
    fn record(&self) -> Result<EventRecord> {
        Ok(EventRecord {
            seq: u64::try_from(self.seq).unwrap_or(0),
            kind: EventType::parse(&self.kind)
                .ok_or_else(|| Error::internal(format!("unknown event type {}", self.kind)))?,
            at: u64::try_from(self.at).unwrap_or(0),
            resource: self.resource.clone(),
            subject: parse(&self.subject)?,
            data: self.data.clone(),
        })
    }
}

const EVENT_COLUMNS: &str = "SELECT seq, kind, at, resource, subject, data FROM events";

#[derive(Deserialize)]
struct DeliveryRow {
    seq: i64,
    data: String,
}

#[derive(Deserialize)]
struct Num {
    n: Option<i64>,
}

fn seq(rows: Vec<Num>) -> Result<u64> {
    rows.first()
        .and_then(|r| r.n)
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| Error::internal("insert returned no sequence number"))
}

impl SqlStore {
    fn events_where(&self, clause: &str, args: Vec<SqlStorageValue>) -> Result<Vec<EventRecord>> {
        self.insert_held_events()?;
        self.rows::<EventRow>(&format!("{EVENT_COLUMNS} {clause}"), args)?
            .iter()
            .map(EventRow::record)
            .collect()
    }

    fn deliveries_where(&self, query: &str, args: Vec<SqlStorageValue>) -> Result<Vec<Delivery>> {
        self.rows::<DeliveryRow>(query, args)?
            .iter()
            .map(|r| {
                let mut d: Delivery = parse(&r.data)?;
                d.seq = u64::try_from(r.seq).unwrap_or(0);
                Ok(d)
            })
            .collect()
    }
}

/// The pending deliveries of enabled endpoints (the sender's view).
const PENDING: &str = "FROM deliveries d JOIN webhooks w ON w.id = d.webhook \
     WHERE d.state = 'pending' AND json_extract(w.data, '$.enabled') = 1";

impl SqlStore {
    /// Inserts an event with its number (one the object's cache held back, `cache/events.rs`).
    fn insert_event_at(&self, e: &EventRecord, data: Option<&str>) -> Result<()> {
        self.exec(
            "INSERT INTO events (seq, kind, at, resource, subject, data) VALUES (?, ?, ?, ?, ?, ?)",
            vec![
                int(e.seq),
                e.kind.as_str().into(),
                int(e.at),
                e.resource.as_str().into(),
                text(&e.subject)?.into(),
                data.map_or(SqlStorageValue::Null, Into::into),
            ],
        )?;
        Ok(())
    }

    /// Inserts, unrendered, every event the cache holds back: before the log is read or
    /// written otherwise, and as a transaction ends (`txn.rs`).
    pub(crate) fn insert_held_events(&self) -> Result<()> {
        let mut held = Vec::new();
        self.tell(|c| held = c.take_held_events())?;
        for e in &held {
            self.insert_event_at(e, None)?;
        }
        Ok(())
    }
}

impl EventStore for SqlStore {
    fn append_event(&mut self, e: &EventRecord) -> Result<u64> {
        if e.data.is_none() {
            let mut held = None;
            self.tell(|c| held = c.hold_event(e))?;
            if let Some(n) = held {
                return Ok(n);
            }
        }
        // In order: the log numbers this one after every event held back.
        self.insert_held_events()?;
        let n = seq(self.rows(
            "INSERT INTO events (kind, at, resource, subject, data) VALUES (?, ?, ?, ?, ?) RETURNING seq AS n",
            vec![
                e.kind.as_str().into(),
                int(e.at),
                e.resource.as_str().into(),
                text(&e.subject)?.into(),
                e.data.clone().map_or(SqlStorageValue::Null, Into::into),
            ],
        )?)?;
        // The object's cache (`cache/mod.rs`) knows which events are left to render.
        let mut stored = e.clone();
        stored.seq = n;
        self.tell(|c| c.append_event(&stored))?;
        Ok(n)
    }

    fn event(&self, seq: u64) -> Result<Option<EventRecord>> {
        Ok(self
            .events_where("WHERE seq = ?", vec![int(seq)])?
            .into_iter()
            .next())
    }

    fn events_after(
        &self,
        after: u64,
        kinds: Option<&[EventType]>,
        limit: u32,
    ) -> Result<Vec<EventRecord>> {
        let mut clause = String::from("WHERE seq > ?");
        let mut args = vec![int(after)];
        if let Some(kinds) = kinds {
            let marks = vec!["?"; kinds.len()].join(", ");
            clause.push_str(&format!(" AND kind IN ({marks})"));
            args.extend(kinds.iter().map(|k| SqlStorageValue::from(k.as_str())));
        }
        clause.push_str(" ORDER BY seq LIMIT ?");
        args.push(int(u64::from(limit)));
        self.events_where(&clause, args)
    }

    fn unsealed_events(&self) -> Result<Vec<EventRecord>> {
        if let Some(events) = self.look(|c| c.unsealed_events()) {
            return Ok(events);
        }
        let events = self.events_where("WHERE data IS NULL ORDER BY seq", vec![])?;
        self.tell(|c| c.keep_unsealed_events(&events))?;
        Ok(events)
    }

    fn seal_event(&mut self, seq: u64, data: &str) -> Result<()> {
        let mut held = None;
        self.tell(|c| {
            held = c.take_held_event(seq);
            c.seal_event(seq);
        })?;
        if let Some(e) = held {
            return self.insert_event_at(&e, Some(data));
        }
        self.exec(
            "UPDATE events SET data = ? WHERE seq = ?",
            vec![data.into(), int(seq)],
        )?;
        Ok(())
    }

    fn last_event_seq(&self) -> Result<u64> {
        self.insert_held_events()?;
        let rows: Vec<Num> = self.rows("SELECT MAX(seq) AS n FROM events", vec![])?;
        Ok(rows
            .first()
            .and_then(|r| r.n)
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0))
    }

    fn prune_events(&mut self, before: Millis) -> Result<()> {
        self.exec("DELETE FROM events WHERE at < ?", vec![int(before)])?;
        self.exec(
            "DELETE FROM deliveries WHERE finished_at IS NOT NULL AND finished_at < ?",
            vec![int(before)],
        )?;
        Ok(())
    }

    fn webhook(&self, id: &WebhookId) -> Result<Option<Webhook>> {
        self.doc(
            "SELECT data FROM webhooks WHERE id = ?",
            vec![id.as_str().into()],
        )
    }

    fn webhooks(&self) -> Result<Vec<Webhook>> {
        self.docs("SELECT data FROM webhooks ORDER BY seq", vec![])
    }

    fn put_webhook(&mut self, w: &Webhook) -> Result<()> {
        self.webhooks_write();
        self.exec(
            "INSERT INTO webhooks (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![w.id.as_str().into(), text(w)?.into()],
        )?;
        Ok(())
    }

    fn delete_webhook(&mut self, id: &WebhookId) -> Result<()> {
        self.webhooks_write();
        self.exec(
            "DELETE FROM deliveries WHERE webhook = ?",
            vec![id.as_str().into()],
        )?;
        self.exec(
            "DELETE FROM webhooks WHERE id = ?",
            vec![id.as_str().into()],
        )?;
        Ok(())
    }

    fn insert_delivery(&mut self, d: &Delivery) -> Result<u64> {
        seq(self.rows(
            "INSERT INTO deliveries (webhook, resource, state, next_at, finished_at, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq AS n",
            vec![
                d.webhook.as_str().into(),
                d.resource.as_str().into(),
                d.state.as_str().into(),
                d.next_at.map_or(SqlStorageValue::Null, int),
                d.finished_at.map_or(SqlStorageValue::Null, int),
                text(d)?.into(),
            ],
        )?)
    }

    fn put_delivery(&mut self, d: &Delivery) -> Result<()> {
        self.exec(
            "UPDATE deliveries SET state = ?, next_at = ?, finished_at = ?, data = ? WHERE seq = ?",
            vec![
                d.state.as_str().into(),
                d.next_at.map_or(SqlStorageValue::Null, int),
                d.finished_at.map_or(SqlStorageValue::Null, int),
                text(d)?.into(),
                int(d.seq),
            ],
        )?;
        Ok(())
    }

    fn delivery(&self, seq: u64) -> Result<Option<Delivery>> {
        Ok(self
            .deliveries_where(
                "SELECT seq, data FROM deliveries WHERE seq = ?",
                vec![int(seq)],
            )?
            .into_iter()
            .next())
    }

    fn deliveries_of(
        &self,
        webhook: &WebhookId,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<Delivery>> {
        self.deliveries_where(
            "SELECT seq, data FROM deliveries WHERE webhook = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
            vec![
                webhook.as_str().into(),
                // The largest integer a JS number holds exactly (SQLite values cross into JS).
                int(before.unwrap_or((1 << 53) - 1)),
                int(u64::from(limit)),
            ],
        )
    }

    fn ready_deliveries(&self, now: Millis, limit: u32) -> Result<Vec<Delivery>> {
        self.deliveries_where(
            &format!(
                "SELECT d.seq AS seq, d.data AS data {PENDING} AND d.next_at <= ? ORDER BY d.next_at, d.seq LIMIT ?"
            ),
            vec![int(now), int(u64::from(limit))],
        )
    }

    fn next_delivery_at(&self) -> Result<Option<Millis>> {
        let rows: Vec<Num> = self.rows(&format!("SELECT MIN(d.next_at) AS n {PENDING}"), vec![])?;
        Ok(rows
            .first()
            .and_then(|r| r.n)
            .map(|n| u64::try_from(n).unwrap_or(0)))
    }

    fn first_open_delivery(&self, webhook: &WebhookId, resource: &str) -> Result<Option<Delivery>> {
        Ok(self
            .deliveries_where(
                "SELECT seq, data FROM deliveries WHERE webhook = ? AND resource = ? AND state IN ('pending', 'waiting') ORDER BY seq LIMIT 1",
                vec![webhook.as_str().into(), resource.into()],
            )?
            .into_iter()
            .next())
    }
}
