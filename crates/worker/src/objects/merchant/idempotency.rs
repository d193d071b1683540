//! Idempotency records: a mutating request's answer kept under its key for 24 hours, so a
//! retry replays it (same status and body, `Idempotent-Replayed: true`) and changes nothing.

use crate::adapters::sql::SqlStore;
use crate::hop::Idempotency;
use crate::http::Answer;
use serde::Deserialize;
use tokenpad_core::model::time::Millis;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::SqlStorageValue;

/// Idempotency records are kept this long.
const TTL: Millis = 24 * 3600 * 1000;

#[derive(Deserialize)]
struct Row {
    fingerprint: String,
    status: i64,
    body: String,
}

fn millis(v: Millis) -> SqlStorageValue {
    SqlStorageValue::Integer(i64::try_from(v).unwrap_or(0))
}

/// The first answer under this key, if there is one from the last 24 hours; the same key
/// with a different request is a 409 `idempotency_key_reused`.
pub fn replay(store: &SqlStore, idem: &Idempotency, now: Millis) -> Result<Option<Answer>> {
    let rows: Vec<Row> = store.rows(
        "SELECT fingerprint, status, body FROM idempotency WHERE key = ? AND created_at >= ?",
        vec![idem.key.as_str().into(), millis(now.saturating_sub(TTL))],
    )?;
    let Some(row) = rows.into_iter().next() else {
        return Ok(None);
    };
    if row.fingerprint != idem.fingerprint {
        return Err(Error::new(
            ErrorCode::IdempotencyKeyReused,
            "This Idempotency-Key was used with a different request",
        ));
    }
    let status = u16::try_from(row.status).unwrap_or(200);
    Ok(Some(
        Answer::json_text(status, row.body).with_header("idempotent-replayed", "true"),
    ))
}

/// Records older than a day are forgotten at most this often (a replay never sees one: it
/// looks at the last day's only), not by every write.
pub const PRUNE_EVERY: Millis = 3600 * 1000;

/// Forgets records older than a day.
pub fn prune(store: &SqlStore, now: Millis) -> Result<()> {
    store.exec(
        "DELETE FROM idempotency WHERE created_at < ?",
        vec![millis(now.saturating_sub(TTL))],
    )?;
    Ok(())
}

/// Stores an answer under its key.
pub fn record(
    store: &SqlStore,
    idem: &Idempotency,
    status: u16,
    body: &str,
    now: Millis,
) -> Result<()> {
    store.exec(
        "INSERT OR REPLACE INTO idempotency (key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?)",
        vec![
            idem.key.as_str().into(),
            idem.fingerprint.as_str().into(),
            SqlStorageValue::Integer(i64::from(status)),
            body.into(),
            millis(now),
        ],
    )?;
    Ok(())
}
