//! The follow-ups' table: which follow-up an answer calls for, and why it is written in the
//! operation's transaction, is the core's (`tokenpad_core::serve::Followup`); here they are
//! stored, listed when due, and marked delivered or failed (retried with a backoff by the
//! alarm). Deliveries are idempotent (the registry's write is an INSERT OR IGNORE), so a
//! delivery that landed but whose answer was lost can be repeated.

use crate::adapters::sql::{int, SqlStore};
use crate::hop::RegistryCall;
use serde::Deserialize;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::due::backoff;
use tokenpad_core::ops::Ctx;
use tokenpad_core::serve;
use tokenpad_core::wire::Reply;
use tokenpad_core::{Error, Result};

/// A follow-up waiting for delivery.
#[derive(Deserialize)]
pub struct Followup {
    pub key: String,
    call: String,
    pub attempts: i64,
}

impl Followup {
    pub fn call(&self) -> Result<RegistryCall> {
        serde_json::from_str(&self.call).map_err(|e| Error::internal(format!("followup: {e}")))
    }
}

/// Queues the follow-up an operation's answer calls for (`serve::Followup`), inside its
/// transaction; true when there was one.
pub fn queue(store: &SqlStore, ctx: &Ctx, reply: &Reply) -> Result<bool> {
    let Some(followup) = serve::Followup::of(ctx, reply) else {
        return Ok(false);
    };
    let call = match &followup {
        serve::Followup::RegisterDeployment { id, merchant } => RegistryCall::RegisterDeployment {
            id: id.clone(),
            merchant: merchant.clone(),
        },
    };
    let text =
        serde_json::to_string(&call).map_err(|e| Error::internal(format!("followup: {e}")))?;
    store.exec(
        "INSERT OR IGNORE INTO followups (key, call, attempts, next_at) VALUES (?, ?, 0, ?)",
        vec![followup.key().into(), text.into(), int(ctx.now)],
    )?;
    Ok(true)
}

/// Follow-ups due at `now`, oldest first, at most `limit`.
pub fn due(store: &SqlStore, now: Millis, limit: u64) -> Result<Vec<Followup>> {
    store.rows(
        "SELECT key, call, attempts FROM followups WHERE next_at <= ? ORDER BY next_at, key LIMIT ?",
        vec![int(now), int(limit)],
    )
}

/// Whether any follow-up is waiting at all.
pub fn any(store: &SqlStore) -> Result<bool> {
    #[derive(Deserialize)]
    struct Count {
        n: i64,
    }
    let rows: Vec<Count> = store.rows("SELECT COUNT(*) AS n FROM followups", vec![])?;
    Ok(rows.first().is_some_and(|c| c.n > 0))
}

pub fn delivered(store: &SqlStore, key: &str) -> Result<()> {
    store.exec("DELETE FROM followups WHERE key = ?", vec![key.into()])?;
    Ok(())
}

/// A delivery failed at `now`: try again after a backoff (1 s, 2 s, ... at most a minute).
pub fn failed(store: &SqlStore, f: &Followup, now: Millis) -> Result<()> {
    let attempts = u32::try_from(f.attempts.saturating_add(1)).unwrap_or(u32::MAX);
    store.exec(
        "UPDATE followups SET attempts = ?, next_at = ? WHERE key = ?",
        vec![
            int(u64::from(attempts)),
            int(now.saturating_add(backoff(attempts))),
            f.key.as_str().into(),
        ],
    )?;
    Ok(())
}

/// When the earliest follow-up is due.
pub fn next_at(store: &SqlStore) -> Result<Option<Millis>> {
    #[derive(Deserialize)]
    struct Row {
        at: Option<i64>,
    }
    let rows: Vec<Row> = store.rows("SELECT MIN(next_at) AS at FROM followups", vec![])?;
    Ok(rows
        .first()
        .and_then(|r| r.at)
        .map(|a| u64::try_from(a).unwrap_or(0)))
}
