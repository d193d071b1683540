//! The storage adapter: `tokenpad_core::store::Store` on the Durable Object's SQLite.
//!
//! Amounts are u128, wider than SQLite's integers, so they are stored as decimal TEXT; the
//! `total_key` column holds the balance zero-padded to 39 digits, so ordering that text
//! orders the numbers (the token's holder list is an index scan). Addresses are stored as
//! lowercase hex for exact matching. Entities are JSON documents beside their index columns.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokenpad_core::address::Address;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::deployment::Deployment;
use tokenpad_core::history::TxRecord;
use tokenpad_core::holder::Holder;
use tokenpad_core::job::Job;
use tokenpad_core::presale::{Participant, Presale};
use tokenpad_core::store::{Balance, Lock, Store};
use tokenpad_core::time::Millis;
use tokenpad_core::token::{HolderRow, Token};
use tokenpad_core::{Error, Result};
use worker::{SqlStorage, SqlStorageValue};

const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS tokens (seq INTEGER PRIMARY KEY AUTOINCREMENT, address TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS holders (user_id TEXT PRIMARY KEY, address TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS balances (token TEXT NOT NULL, owner TEXT NOT NULL, active TEXT NOT NULL, locked TEXT NOT NULL, total_key TEXT NOT NULL, PRIMARY KEY (token, owner))",
    "CREATE INDEX IF NOT EXISTS balances_by_total ON balances (token, total_key DESC)",
    "CREATE INDEX IF NOT EXISTS balances_by_owner ON balances (owner)",
    "CREATE TABLE IF NOT EXISTS locks (id TEXT PRIMARY KEY, token TEXT NOT NULL, owner TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS locks_by_owner ON locks (owner)",
    "CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, token TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS history_by_user ON history (user_id, seq)",
    "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS deployments (id TEXT PRIMARY KEY, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS presales (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS participants (seq INTEGER PRIMARY KEY AUTOINCREMENT, presale_id TEXT NOT NULL, user_id TEXT NOT NULL, data TEXT NOT NULL, UNIQUE (presale_id, user_id))",
    "CREATE INDEX IF NOT EXISTS participants_by_user ON participants (user_id, seq)",
    "CREATE TABLE IF NOT EXISTS schedule (key TEXT PRIMARY KEY, at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS schedule_by_time ON schedule (at)",
    "CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at)",
];

pub struct SqlStore {
    sql: SqlStorage,
}

fn db(e: worker::Error) -> Error {
    Error::internal(format!("storage: {e}"))
}

fn addr(a: &Address) -> String {
    hex0x(&a.0)
}

fn text<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(format!("encode: {e}")))
}

fn parse<T: DeserializeOwned>(s: &str) -> Result<T> {
    serde_json::from_str(s).map_err(|e| Error::internal(format!("decode: {e}")))
}

fn int(v: u64) -> SqlStorageValue {
    SqlStorageValue::Integer(i64::try_from(v).unwrap_or(i64::MAX))
}

fn amount_key(v: u128) -> String {
    format!("{v:039}")
}

fn amount(s: &str) -> Result<u128> {
    s.parse()
        .map_err(|_| Error::internal("bad amount in storage"))
}

#[derive(Deserialize)]
struct DataRow {
    data: String,
}

#[derive(Deserialize)]
struct BalanceRow {
    token: String,
    owner: String,
    active: String,
    locked: String,
    user_id: Option<String>,
}

impl SqlStore {
    pub fn new(sql: SqlStorage) -> SqlStore {
        SqlStore { sql }
    }

    pub fn migrate(&self) -> Result<()> {
        for stmt in SCHEMA {
            self.exec(stmt, vec![])?;
        }
        Ok(())
    }

    pub fn exec(&self, query: &str, args: Vec<SqlStorageValue>) -> Result<worker::SqlCursor> {
        self.sql.exec(query, args).map_err(db)
    }

    pub fn rows<T: DeserializeOwned>(
        &self,
        query: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Vec<T>> {
        self.exec(query, args)?.to_array::<T>().map_err(db)
    }

    fn docs<T: DeserializeOwned>(&self, query: &str, args: Vec<SqlStorageValue>) -> Result<Vec<T>> {
        self.rows::<DataRow>(query, args)?
            .iter()
            .map(|r| parse(&r.data))
            .collect()
    }

    fn doc<T: DeserializeOwned>(
        &self,
        query: &str,
        args: Vec<SqlStorageValue>,
    ) -> Result<Option<T>> {
        Ok(self.docs(query, args)?.into_iter().next())
    }
}

fn to_address(s: &str) -> Result<Address> {
    Address::parse(s).ok_or_else(|| Error::internal("bad address in storage"))
}

impl Store for SqlStore {
    fn meta(&self, key: &str) -> Result<Option<Value>> {
        #[derive(Deserialize)]
        struct Row {
            value: String,
        }
        let rows: Vec<Row> = self.rows("SELECT value FROM meta WHERE key = ?", vec![key.into()])?;
        rows.first().map(|r| parse(&r.value)).transpose()
    }

    fn put_meta(&mut self, key: &str, value: &Value) -> Result<()> {
        self.exec(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            vec![key.into(), text(value)?.into()],
        )?;
        Ok(())
    }

    fn token(&self, address: &Address) -> Result<Option<Token>> {
        self.doc(
            "SELECT data FROM tokens WHERE address = ?",
            vec![addr(address).into()],
        )
    }

    fn put_token(&mut self, token: &Token) -> Result<()> {
        self.exec(
            "INSERT INTO tokens (address, data) VALUES (?, ?) ON CONFLICT(address) DO UPDATE SET data = excluded.data",
            vec![addr(&token.address).into(), text(token)?.into()],
        )?;
        Ok(())
    }

    fn tokens(&self) -> Result<Vec<Token>> {
        self.docs("SELECT data FROM tokens ORDER BY seq", vec![])
    }

    fn holder_by_user(&self, user_id: &str) -> Result<Option<Holder>> {
        self.doc(
            "SELECT data FROM holders WHERE user_id = ?",
            vec![user_id.into()],
        )
    }

    fn holder_by_address(&self, address: &Address) -> Result<Option<Holder>> {
        self.doc(
            "SELECT data FROM holders WHERE address = ?",
            vec![addr(address).into()],
        )
    }

    fn insert_holder(&mut self, holder: &Holder) -> Result<()> {
        self.exec(
            "INSERT INTO holders (user_id, address, data) VALUES (?, ?, ?)",
            vec![
                holder.user_id.as_str().into(),
                addr(&holder.address).into(),
                text(holder)?.into(),
            ],
        )?;
        Ok(())
    }

    fn balance(&self, token: &Address, owner: &Address) -> Result<Balance> {
        let rows: Vec<BalanceRow> = self.rows(
            "SELECT token, owner, active, locked, NULL AS user_id FROM balances WHERE token = ? AND owner = ?",
            vec![addr(token).into(), addr(owner).into()],
        )?;
        match rows.first() {
            None => Ok(Balance::default()),
            Some(r) => Ok(Balance {
                active: amount(&r.active)?,
                locked: amount(&r.locked)?,
            }),
        }
    }

    fn put_balance(&mut self, token: &Address, owner: &Address, balance: &Balance) -> Result<()> {
        let total = balance
            .total()
            .ok_or_else(|| Error::internal("balance total overflow"))?;
        self.exec(
            "INSERT INTO balances (token, owner, active, locked, total_key) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT(token, owner) DO UPDATE SET active = excluded.active, locked = excluded.locked, total_key = excluded.total_key",
            vec![
                addr(token).into(),
                addr(owner).into(),
                balance.active.to_string().into(),
                balance.locked.to_string().into(),
                amount_key(total).into(),
            ],
        )?;
        Ok(())
    }

    fn balances_of(&self, owner: &Address) -> Result<Vec<(Address, Balance)>> {
        let rows: Vec<BalanceRow> = self.rows(
            "SELECT b.token, b.owner, b.active, b.locked, NULL AS user_id FROM balances b JOIN tokens t ON t.address = b.token \
             WHERE b.owner = ? AND b.total_key != ? ORDER BY t.seq",
            vec![addr(owner).into(), amount_key(0).into()],
        )?;
        rows.iter()
            .map(|r| {
                Ok((
                    to_address(&r.token)?,
                    Balance {
                        active: amount(&r.active)?,
                        locked: amount(&r.locked)?,
                    },
                ))
            })
            .collect()
    }

    fn top_holders(&self, token: &Address, limit: u32) -> Result<(Vec<HolderRow>, u64)> {
        let rows: Vec<BalanceRow> = self.rows(
            "SELECT b.token, b.owner, b.active, b.locked, h.user_id FROM balances b LEFT JOIN holders h ON h.address = b.owner \
             WHERE b.token = ? AND b.total_key != ? ORDER BY b.total_key DESC, b.owner LIMIT ?",
            vec![addr(token).into(), amount_key(0).into(), int(u64::from(limit))],
        )?;
        #[derive(Deserialize)]
        struct Count {
            n: i64,
        }
        let count: Vec<Count> = self.rows(
            "SELECT COUNT(*) AS n FROM balances WHERE token = ? AND total_key != ?",
            vec![addr(token).into(), amount_key(0).into()],
        )?;
        let holders = rows
            .iter()
            .map(|r| {
                let active = amount(&r.active)?;
                let locked = amount(&r.locked)?;
                Ok(HolderRow {
                    owner: to_address(&r.owner)?,
                    balance: active.saturating_add(locked),
                    user_id: r.user_id.clone(),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let n = count.first().map(|c| c.n).unwrap_or(0);
        Ok((holders, u64::try_from(n).unwrap_or(0)))
    }

    fn locks_of(&self, owner: &Address) -> Result<Vec<Lock>> {
        self.docs(
            "SELECT data FROM locks WHERE owner = ? ORDER BY id",
            vec![addr(owner).into()],
        )
    }

    fn lock(&self, id: &str) -> Result<Option<Lock>> {
        self.doc("SELECT data FROM locks WHERE id = ?", vec![id.into()])
    }

    fn put_lock(&mut self, lock: &Lock) -> Result<()> {
        self.exec(
            "INSERT INTO locks (id, token, owner, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![
                lock.id.as_str().into(),
                addr(&lock.token).into(),
                addr(&lock.owner).into(),
                text(lock)?.into(),
            ],
        )?;
        Ok(())
    }

    fn remove_lock(&mut self, id: &str) -> Result<()> {
        self.exec("DELETE FROM locks WHERE id = ?", vec![id.into()])?;
        Ok(())
    }

    fn presale(&self, id: &str) -> Result<Option<Presale>> {
        self.doc("SELECT data FROM presales WHERE id = ?", vec![id.into()])
    }

    fn put_presale(&mut self, presale: &Presale) -> Result<()> {
        self.exec(
            "INSERT INTO presales (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![presale.id.as_str().into(), text(presale)?.into()],
        )?;
        Ok(())
    }

    fn presales(&self) -> Result<Vec<Presale>> {
        self.docs("SELECT data FROM presales ORDER BY seq DESC", vec![])
    }

    fn participants(&self, presale_id: &str) -> Result<Vec<Participant>> {
        self.docs(
            "SELECT data FROM participants WHERE presale_id = ? ORDER BY seq",
            vec![presale_id.into()],
        )
    }

    fn participant(&self, presale_id: &str, user_id: &str) -> Result<Option<Participant>> {
        self.doc(
            "SELECT data FROM participants WHERE presale_id = ? AND user_id = ?",
            vec![presale_id.into(), user_id.into()],
        )
    }

    fn put_participant(&mut self, presale_id: &str, participant: &Participant) -> Result<()> {
        self.exec(
            "INSERT INTO participants (presale_id, user_id, data) VALUES (?, ?, ?) \
             ON CONFLICT(presale_id, user_id) DO UPDATE SET data = excluded.data",
            vec![
                presale_id.into(),
                participant.user_id.as_str().into(),
                text(participant)?.into(),
            ],
        )?;
        Ok(())
    }

    fn participations(&self, user_id: &str) -> Result<Vec<String>> {
        #[derive(Deserialize)]
        struct Row {
            presale_id: String,
        }
        Ok(self
            .rows::<Row>(
                "SELECT presale_id FROM participants WHERE user_id = ? ORDER BY seq",
                vec![user_id.into()],
            )?
            .into_iter()
            .map(|r| r.presale_id)
            .collect())
    }

    fn append_history(&mut self, record: &TxRecord) -> Result<()> {
        self.exec(
            "INSERT INTO history (user_id, token, data) VALUES (?, ?, ?)",
            vec![
                record.user_id.as_str().into(),
                addr(&record.token).into(),
                text(record)?.into(),
            ],
        )?;
        Ok(())
    }

    fn history(
        &self,
        user_id: &str,
        token: Option<&Address>,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<(u64, TxRecord)>> {
        #[derive(Deserialize)]
        struct Row {
            seq: i64,
            data: String,
        }
        let mut query = String::from("SELECT seq, data FROM history WHERE user_id = ?");
        let mut args: Vec<SqlStorageValue> = vec![user_id.into()];
        if let Some(t) = token {
            query.push_str(" AND token = ?");
            args.push(addr(t).into());
        }
        if let Some(b) = before {
            query.push_str(" AND seq < ?");
            args.push(int(b));
        }
        query.push_str(" ORDER BY seq DESC LIMIT ?");
        args.push(int(u64::from(limit)));
        self.rows::<Row>(&query, args)?
            .iter()
            .map(|r| Ok((u64::try_from(r.seq).unwrap_or(0), parse(&r.data)?)))
            .collect()
    }

    fn job(&self, id: &str) -> Result<Option<Job>> {
        self.doc("SELECT data FROM jobs WHERE id = ?", vec![id.into()])
    }

    fn put_job(&mut self, job: &Job) -> Result<()> {
        self.exec(
            "INSERT INTO jobs (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![job.id.as_str().into(), text(job)?.into()],
        )?;
        Ok(())
    }

    fn deployment(&self, id: &str) -> Result<Option<Deployment>> {
        self.doc("SELECT data FROM deployments WHERE id = ?", vec![id.into()])
    }

    fn put_deployment(&mut self, deployment: &Deployment) -> Result<()> {
        self.exec(
            "INSERT INTO deployments (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![deployment.id.as_str().into(), text(deployment)?.into()],
        )?;
        Ok(())
    }

    fn schedule(&mut self, key: &str, at: Millis) -> Result<()> {
        self.exec(
            "INSERT INTO schedule (key, at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET at = excluded.at",
            vec![key.into(), int(at)],
        )?;
        Ok(())
    }

    fn unschedule(&mut self, key: &str) -> Result<()> {
        self.exec("DELETE FROM schedule WHERE key = ?", vec![key.into()])?;
        Ok(())
    }

    fn due(&self, now: Millis) -> Result<Vec<(String, Millis)>> {
        #[derive(Deserialize)]
        struct Row {
            key: String,
            at: i64,
        }
        Ok(self
            .rows::<Row>(
                "SELECT key, at FROM schedule WHERE at <= ? ORDER BY at, rowid",
                vec![int(now)],
            )?
            .into_iter()
            .map(|r| (r.key, u64::try_from(r.at).unwrap_or(0)))
            .collect())
    }

    fn next_due(&self) -> Result<Option<Millis>> {
        #[derive(Deserialize)]
        struct Row {
            at: Option<i64>,
        }
        let rows: Vec<Row> = self.rows("SELECT MIN(at) AS at FROM schedule", vec![])?;
        Ok(rows
            .first()
            .and_then(|r| r.at)
            .map(|a| u64::try_from(a).unwrap_or(0)))
    }
}
