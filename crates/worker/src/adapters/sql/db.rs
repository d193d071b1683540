//! The merchant object's SQLite: its schema, and the small helpers the `Store` adapter
//! (`store.rs`) is written with.
//!
//! Amounts are u128, wider than SQLite's integers, so they are stored as decimal TEXT; the
//! `total_key` column holds the balance zero-padded to 39 digits, so ordering that text
//! orders the numbers (the token's holder list is an index scan). Addresses are stored as
//! lowercase hex for exact matching. Entities are JSON documents beside their index columns.

use crate::adapters::cache::Cache;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::books::Books;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::{Error, Result};
use worker::{SqlStorage, SqlStorageValue};

pub(super) const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tokens (seq INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS holders (user_id TEXT PRIMARY KEY, address TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS balances (token TEXT NOT NULL, owner TEXT NOT NULL, active TEXT NOT NULL, locked TEXT NOT NULL, total_key TEXT NOT NULL, PRIMARY KEY (token, owner))",
    // The holder list's exact order (total descending, then owner), so a page reads its rows
    // off the index and stops, even when thousands of holders hold the same amount.
    "DROP INDEX IF EXISTS balances_by_total",
    "CREATE INDEX IF NOT EXISTS balances_by_total_owner ON balances (token, total_key DESC, owner)",
    "CREATE INDEX IF NOT EXISTS balances_by_owner ON balances (owner)",
    "CREATE TABLE IF NOT EXISTS locks (id TEXT PRIMARY KEY, token TEXT NOT NULL, owner TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS locks_by_owner ON locks (owner)",
    "CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, token TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS history_by_user ON history (user_id, seq)",
    "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS pools (token TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS deployments (id TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS presales (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS participants (seq INTEGER PRIMARY KEY AUTOINCREMENT, presale_id TEXT NOT NULL, user_id TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (presale_id, user_id))",
    "CREATE INDEX IF NOT EXISTS participants_by_user ON participants (user_id, seq)",
    "CREATE TABLE IF NOT EXISTS schedule (key TEXT PRIMARY KEY, at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS schedule_by_time ON schedule (at)",
    "CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at)",
    "CREATE TABLE IF NOT EXISTS due_failures (key TEXT PRIMARY KEY, parked_at INTEGER, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS followups (key TEXT PRIMARY KEY, call TEXT NOT NULL, attempts INTEGER NOT NULL, next_at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS followups_by_time ON followups (next_at)",
];

/// The number of holders of each token (rows of `balances` with a total above zero), so a
/// token read counts its holders with one lookup instead of a scan. Created and filled from
/// `balances` in one statement (atomic), once; from then on the balance write keeps it, in the
/// same transaction (`rows.rs`, `put_balance_row`: a row only when a balance starts or
/// stops being held). Releases before kept it by triggers, dropped here: SQLite ran the update
/// trigger on every balance write (its WHEN clause false nearly always), which in workerd cost
/// as much as the write itself (`bench/sqlite.mjs`: 37 µs to 41 µs a balance write with it,
/// 18 µs to 19 µs without). A release that still creates them would keep the count right on
/// its own; this one drops them again as it starts.
pub(super) const HOLDER_COUNTS: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS holder_counts AS SELECT token, COUNT(*) AS n FROM balances \
     WHERE total_key != '000000000000000000000000000000000000000' GROUP BY token",
    "CREATE UNIQUE INDEX IF NOT EXISTS holder_counts_by_token ON holder_counts (token)",
    "DROP TRIGGER IF EXISTS holder_counts_insert",
    "DROP TRIGGER IF EXISTS holder_counts_update",
    "DROP TRIGGER IF EXISTS holder_counts_delete",
];

pub struct SqlStore {
    sql: SqlStorage,
    pub(super) watch: Option<Watch>,
}

/// What an object keeps in memory beside SQLite, shared by every store it makes: flags raised
/// when a store writes what the object keeps a copy of (committed or not), so whoever keeps
/// the copy reads it again (`MerchantObject`); the rows it keeps as committed (`cache/mod.rs`);
/// and counts of the statements its stores ran and of the reads answered from kept texts.
#[derive(Clone, Default)]
pub struct Watch {
    /// The merchant record.
    pub merchant: Rc<Cell<bool>>,
    /// The merchant's API keys.
    pub keys: Rc<Cell<bool>>,
    /// The schedule of due work.
    pub schedule: Rc<Cell<bool>>,
    /// The webhooks (made, changed, deleted; a fan-out moving their cursors).
    pub webhooks: Rc<Cell<bool>>,
    /// Presales and their participants (the reads kept as text,
    /// `objects/merchant/presale_texts.rs`).
    pub presales: Rc<Cell<bool>>,
    /// Tokens, holders, balances, the chain's state and a holder's lists, as committed.
    pub cache: Rc<RefCell<Cache>>,
    /// SQL statements run so far (the object reports them per request in local runs).
    pub statements: Rc<Cell<u64>>,
    /// Reads answered with the text they were last answered with (a presale's reads, a
    /// holder's newest history page), so far (reported per request like `statements`).
    pub recalled: Rc<Cell<u64>>,
    /// What the transaction under way moved in each token's books, checked as it commits
    /// (`txn.rs`; `tokenpad_core::model::books`).
    pub books: Rc<RefCell<Books>>,
}

pub(crate) fn db(e: worker::Error) -> Error {
    Error::internal(format!("storage: {e}"))
}

pub(crate) fn addr(a: &Address) -> String {
    hex0x(&a.0)
}

pub(crate) fn text<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(format!("encode: {e}")))
}

pub(crate) fn parse<T: DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::internal(format!("decode: {e}")))
}

pub(crate) fn int(v: u64) -> SqlStorageValue {
    SqlStorageValue::Integer(i64::try_from(v).unwrap_or(i64::MAX))
}

pub(crate) fn amount_key(v: Units) -> String {
    format!("{:039}", v.raw())
}

pub(crate) fn amount(s: &str) -> Result<Units> {
    s.parse()
        .map(Units::new)
        .map_err(|_| Error::internal("bad amount in storage"))
}

pub(crate) fn tok(t: &TokenAddress) -> String {
    addr(&t.address())
}

/// A scalar SQL expression: the rows of `query` as the text of one JSON array, which SQLite
/// assembles. `query` selects a column `item`, each row's JSON (`json_array(...)` of its
/// columns, or a document stored as JSON text, as it is), and the columns `order` sorts by.
/// One string then crosses into wasm, where reading rows as objects costs an object per row
/// and a crossing per field: for a page of 100 holders, the cursor building those objects
/// was 15 % of the token read's CPU.
pub(crate) fn json_items(query: &str, order: &str) -> String {
    format!("(SELECT '[' || ifnull(group_concat(item, ',' ORDER BY {order}), '') || ']' FROM ({query}))")
}

pub(crate) const MERCHANT_KEY: &str = "merchant";
pub(crate) const CHAIN_KEY: &str = "chain";

#[derive(Deserialize)]
pub(crate) struct DataRow {
    data: String,
}

#[derive(Deserialize)]
pub(crate) struct BalanceRow {
    pub owner: String,
    pub active: String,
    pub locked: String,
    pub user_id: Option<String>,
}

impl SqlStore {
    pub fn new(sql: SqlStorage) -> SqlStore {
        SqlStore { sql, watch: None }
    }

    /// The same store, raising `watch`'s flags whenever it writes what they watch.
    pub fn watching(mut self, watch: Watch) -> SqlStore {
        self.watch = Some(watch);
        self
    }

    pub(crate) fn merchant_writes(&self) {
        if let Some(w) = &self.watch {
            w.merchant.set(true);
        }
    }

    pub(crate) fn keys_write(&self) {
        if let Some(w) = &self.watch {
            w.keys.set(true);
        }
    }

    pub(crate) fn schedule_writes(&self) {
        if let Some(w) = &self.watch {
            w.schedule.set(true);
        }
    }

    pub(crate) fn webhooks_write(&self) {
        if let Some(w) = &self.watch {
            w.webhooks.set(true);
        }
    }

    pub(crate) fn presales_write(&self) {
        if let Some(w) = &self.watch {
            w.presales.set(true);
        }
    }

    pub fn exec(&self, query: &str, args: Vec<SqlStorageValue>) -> Result<worker::SqlCursor> {
        if let Some(w) = &self.watch {
            w.statements.set(w.statements.get().saturating_add(1));
        }
        self.sql.exec(query, args).map_err(db)
    }

    pub fn rows<T: DeserializeOwned>(
        &self,
        query: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Vec<T>> {
        self.exec(query, args)?.to_array::<T>().map_err(db)
    }

    /// The rows of `query` (see [`json_items`]) as `T`s, read in one string.
    pub(crate) fn json_rows<T: DeserializeOwned>(
        &self,
        query: &str,
        order: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Vec<T>> {
        #[derive(Deserialize)]
        struct Items {
            items: String,
        }
        let query = format!("SELECT {} AS items", json_items(query, order));
        let rows: Vec<Items> = self.rows(&query, args)?;
        rows.first().map_or(Ok(Vec::new()), |r| parse(&r.items))
    }

    pub(crate) fn docs<T: DeserializeOwned>(
        &self,
        query: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Vec<T>> {
        self.rows::<DataRow>(query, args)?
            .iter()
            .map(|r| parse(&r.data))
            .collect()
    }

    pub(crate) fn doc<T: DeserializeOwned>(
        &self,
        query: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Option<T>> {
        Ok(self.docs(query, args)?.into_iter().next())
    }

    /// A small named document (the merchant, the chain state, the object's clock).
    pub fn meta<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        #[derive(Deserialize)]
        struct Row {
            value: String,
        }
        let rows: Vec<Row> = self.rows("SELECT value FROM meta WHERE key = ?", vec![key.into()])?;
        rows.first().map(|r| parse(&r.value)).transpose()
    }

    pub fn put_meta<T: Serialize>(&self, key: &str, value: &T) -> Result<()> {
        self.exec(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            vec![key.into(), text(value)?.into()],
        )?;
        Ok(())
    }
}
