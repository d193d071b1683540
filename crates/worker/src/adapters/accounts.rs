//! The core's account storage port (`store::accounts::AccountStore`) on an account object's
//! SQLite (`objects::account`): one row for the account, the links and login sessions by hash,
//! the failed logins, the mail outbox. Every write of a call runs in one transaction
//! (`txn::run`, the caller's). The tables are made here ([`SCHEMA`]).

use serde::Deserialize;
use tokenpad_core::model::account::{
    AccountRecord, Attempts, LinkKind, LinkRecord, LoginSession, Mail,
};
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::accounts::AccountStore;
use tokenpad_core::{Error, Result};
use worker::{SqlStorage, SqlStorageValue};

/// The account object's tables (the merchants and the local mailbox are the object's own).
pub const SCHEMA: [&str; 7] = [
    "CREATE TABLE IF NOT EXISTS account (id INTEGER PRIMARY KEY CHECK (id = 1), email TEXT NOT NULL, password_hash TEXT NOT NULL, verified_at INTEGER, created_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS links (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER, data TEXT NOT NULL DEFAULT 'null')",
    "CREATE TABLE IF NOT EXISTS sessions (hash TEXT PRIMARY KEY, id TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL, revoked_at INTEGER)",
    "CREATE TABLE IF NOT EXISTS merchants (merchant_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, added_at INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS throttle (id INTEGER PRIMARY KEY CHECK (id = 1), failures INTEGER NOT NULL, window_start INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT NOT NULL, subject TEXT NOT NULL, text TEXT NOT NULL, links TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_at INTEGER NOT NULL DEFAULT 0)",
    "CREATE TABLE IF NOT EXISTS mailbox (id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT NOT NULL, subject TEXT NOT NULL, text TEXT NOT NULL, links TEXT NOT NULL, sent_at INTEGER NOT NULL)",
];

pub fn db(e: worker::Error) -> Error {
    Error::internal(format!("account storage: {e}"))
}

pub fn int(v: Millis) -> SqlStorageValue {
    i64::try_from(v).unwrap_or(i64::MAX).into()
}

pub fn millis(v: i64) -> Millis {
    u64::try_from(v).unwrap_or(0)
}

fn opt(v: Option<Millis>) -> SqlStorageValue {
    v.map_or(SqlStorageValue::Null, int)
}

/// An account object's SQLite, as the core's port.
pub struct SqlAccount {
    sql: SqlStorage,
}

impl SqlAccount {
    pub fn new(sql: SqlStorage) -> SqlAccount {
        SqlAccount { sql }
    }

    fn rows<T: for<'de> Deserialize<'de>>(
        &self,
        query: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Vec<T>> {
        self.sql
            .exec(query, args)
            .and_then(|c| c.to_array())
            .map_err(db)
    }

    fn exec(&self, query: &str, args: Vec<SqlStorageValue>) -> Result<()> {
        self.sql.exec(query, args).map(|_| ()).map_err(db)
    }
}

#[derive(Deserialize)]
struct AccountRow {
    email: String,
    password_hash: String,
    verified_at: Option<i64>,
    created_at: i64,
}

#[derive(Deserialize)]
struct LinkRow {
    hash: String,
    kind: String,
    expires_at: i64,
    used_at: Option<i64>,
    data: String,
}

#[derive(Deserialize)]
struct SessionRow {
    hash: String,
    id: String,
    created_at: i64,
    last_seen: i64,
    revoked_at: Option<i64>,
}

#[derive(Deserialize)]
struct ThrottleRow {
    failures: i64,
    window_start: i64,
}

impl AccountStore for SqlAccount {
    fn account(&self) -> Result<Option<AccountRecord>> {
        let rows: Vec<AccountRow> = self.rows(
            "SELECT email, password_hash, verified_at, created_at FROM account WHERE id = 1",
            Vec::new(),
        )?;
        Ok(rows.into_iter().next().map(|r| AccountRecord {
            email: r.email,
            password_hash: r.password_hash,
            verified_at: r.verified_at.map(millis),
            created_at: millis(r.created_at),
        }))
    }

    fn put_account(&mut self, a: &AccountRecord) -> Result<()> {
        self.exec(
            "INSERT INTO account (id, email, password_hash, verified_at, created_at) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET email = excluded.email, password_hash = excluded.password_hash, verified_at = excluded.verified_at, created_at = excluded.created_at",
            vec![
                a.email.clone().into(),
                a.password_hash.clone().into(),
                opt(a.verified_at),
                int(a.created_at),
            ],
        )
    }

    fn link(&self, hash: &str) -> Result<Option<LinkRecord>> {
        let rows: Vec<LinkRow> = self.rows(
            "SELECT hash, kind, expires_at, used_at, data FROM links WHERE hash = ?",
            vec![hash.into()],
        )?;
        Ok(rows.into_iter().next().and_then(|r| {
            Some(LinkRecord {
                kind: LinkKind::parse(&r.kind)?,
                hash: r.hash,
                expires_at: millis(r.expires_at),
                used_at: r.used_at.map(millis),
                data: serde_json::from_str(&r.data).unwrap_or_default(),
            })
        }))
    }

    fn put_link(&mut self, l: &LinkRecord) -> Result<()> {
        self.exec(
            "INSERT INTO links (hash, kind, expires_at, used_at, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT(hash) DO UPDATE SET used_at = excluded.used_at, expires_at = excluded.expires_at, data = excluded.data",
            vec![
                l.hash.clone().into(),
                l.kind.as_str().into(),
                int(l.expires_at),
                opt(l.used_at),
                l.data.to_string().into(),
            ],
        )
    }

    fn login_session(&self, hash: &str) -> Result<Option<LoginSession>> {
        let rows: Vec<SessionRow> = self.rows(
            "SELECT hash, id, created_at, last_seen, revoked_at FROM sessions WHERE hash = ?",
            vec![hash.into()],
        )?;
        Ok(rows.into_iter().next().map(|r| LoginSession {
            hash: r.hash,
            id: r.id,
            created_at: millis(r.created_at),
            last_seen: millis(r.last_seen),
            revoked_at: r.revoked_at.map(millis),
        }))
    }

    fn put_login_session(&mut self, s: &LoginSession) -> Result<()> {
        self.exec(
            "INSERT INTO sessions (hash, id, created_at, last_seen, revoked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(hash) DO UPDATE SET last_seen = excluded.last_seen, revoked_at = excluded.revoked_at",
            vec![
                s.hash.clone().into(),
                s.id.clone().into(),
                int(s.created_at),
                int(s.last_seen),
                opt(s.revoked_at),
            ],
        )
    }

    fn end_login_sessions(&mut self, now: Millis) -> Result<()> {
        self.exec(
            "UPDATE sessions SET revoked_at = ? WHERE revoked_at IS NULL",
            vec![int(now)],
        )
    }

    fn attempts(&self) -> Result<Attempts> {
        let rows: Vec<ThrottleRow> = self.rows(
            "SELECT failures, window_start FROM throttle WHERE id = 1",
            Vec::new(),
        )?;
        Ok(rows.first().map_or(Attempts::default(), |r| Attempts {
            failures: u32::try_from(r.failures).unwrap_or(u32::MAX),
            window_start: millis(r.window_start),
        }))
    }

    fn put_attempts(&mut self, a: Attempts) -> Result<()> {
        self.exec(
            "INSERT INTO throttle (id, failures, window_start) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET failures = excluded.failures, window_start = excluded.window_start",
            vec![i64::from(a.failures).into(), int(a.window_start)],
        )
    }

    fn queue_mail(&mut self, m: &Mail) -> Result<()> {
        let links = serde_json::to_string(&m.links).map_err(|e| Error::internal(e.to_string()))?;
        self.exec(
            "INSERT INTO outbox (to_addr, subject, text, links) VALUES (?, ?, ?, ?)",
            vec![
                m.to.clone().into(),
                m.subject.clone().into(),
                m.text.clone().into(),
                links.into(),
            ],
        )
    }
}
