//! Idempotency records in the merchant object's SQLite (`IdempotencyStore`): one row per
//! stored key (the caller's scope and its key, `ops::idempotency`), indexed by age so the
//! day-old ones go in one range delete.

use super::db::{int, SqlStore};
use serde::Deserialize;
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::idempotency::{IdempotencyStore, Kept};
use tokenpad_core::Result;
use worker::SqlStorageValue;

#[derive(Deserialize)]
struct Row {
    key: String,
    fingerprint: String,
    status: i64,
    body: String,
    created_at: i64,
}

impl IdempotencyStore for SqlStore {
    fn kept_answers(&self, keys: &[&str], since: Millis) -> Result<Vec<(String, Kept)>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; keys.len()].join(", ");
        let mut args: Vec<SqlStorageValue> = keys.iter().map(|k| (*k).into()).collect();
        args.push(int(since));
        let rows: Vec<Row> = self.rows(
            &format!(
                "SELECT key, fingerprint, status, body, created_at FROM idempotency WHERE key IN ({marks}) AND created_at >= ?"
            ),
            args,
        )?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let kept = Kept {
                    fingerprint: r.fingerprint,
                    status: u16::try_from(r.status).unwrap_or(200),
                    body: r.body,
                    created_at: u64::try_from(r.created_at).unwrap_or(0),
                };
                (r.key, kept)
            })
            .collect())
    }

    fn keep_answer(&mut self, key: &str, kept: &Kept) -> Result<()> {
        self.exec(
            "INSERT OR REPLACE INTO idempotency (key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?)",
            vec![
                key.into(),
                kept.fingerprint.as_str().into(),
                SqlStorageValue::Integer(i64::from(kept.status)),
                kept.body.as_str().into(),
                int(kept.created_at),
            ],
        )?;
        Ok(())
    }

    fn forget_answers_before(&mut self, before: Millis) -> Result<()> {
        self.exec(
            "DELETE FROM idempotency WHERE created_at < ?",
            vec![int(before)],
        )?;
        Ok(())
    }
}
