//! Holder sessions in the merchant object's SQLite (`SessionStore`): one JSON document per
//! session beside its holder and expiry, so revoking a holder's sessions and forgetting the
//! expired ones are index scans.

use super::db::{int, parse, text, SqlStore};
use serde::Deserialize;
use tokenpad_core::model::ids::UserId;
use tokenpad_core::model::session::{Session, SessionId};
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::session::SessionStore;
use tokenpad_core::Result;

pub(crate) const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user_id, expires_at)",
    "CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at)",
];

#[derive(Deserialize)]
struct Row {
    data: String,
}

impl SessionStore for SqlStore {
    fn session(&self, id: &SessionId) -> Result<Option<Session>> {
        let rows: Vec<Row> = self.rows(
            "SELECT data FROM sessions WHERE id = ?",
            vec![id.as_str().into()],
        )?;
        rows.first().map(|r| parse(&r.data)).transpose()
    }

    fn put_session(&mut self, session: &Session) -> Result<()> {
        self.exec(
            "INSERT OR REPLACE INTO sessions (id, user_id, expires_at, created_at, data) VALUES (?, ?, ?, ?, ?)",
            vec![
                session.id.as_str().into(),
                session.user_id.as_str().into(),
                int(session.expires_at),
                int(session.created_at),
                text(session)?.into(),
            ],
        )?;
        Ok(())
    }

    fn live_sessions_of(&self, user_id: &UserId, now: Millis) -> Result<Vec<Session>> {
        let rows: Vec<Row> = self.rows(
            "SELECT data FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY created_at, id",
            vec![user_id.as_str().into(), int(now)],
        )?;
        rows.iter().map(|r| parse(&r.data)).collect()
    }

    fn forget_sessions_expired(&mut self, now: Millis) -> Result<u64> {
        let cursor = self.exec("DELETE FROM sessions WHERE expires_at <= ?", vec![int(now)])?;
        Ok(u64::try_from(cursor.rows_written()).unwrap_or(0))
    }
}
