//! The chain half of the storage adapter: the outbox of chain intents, the settler's signed
//! transactions, and the relayer's state (`Store` methods of `store.rs` call these).
//! A holder's history pages, and rewriting a record in place (its chain status as it
//! settles), are here too.

use super::db::{addr, int, text, tok, SqlStore};
use crate::adapters::cache::{Cache, Numbered};
use serde::Deserialize;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::history::TxRecord;
use tokenpad_core::model::ids::{TokenAddress, UserId};
use tokenpad_core::model::intent::{Intent, IntentStatus};
use tokenpad_core::model::settlement::{ChainTx, Observation, Relayer};
use tokenpad_core::{Error, Result};
use worker::SqlStorageValue;

pub(crate) const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS intents (id INTEGER PRIMARY KEY AUTOINCREMENT, status TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS intents_by_status ON intents (status, id)",
    // `open`: 1 while not mined (signed or sent), 2 while mined with its receipt not final
    // (`ChainTx::is_unfinal`), 0 once done with.
    "CREATE TABLE IF NOT EXISTS chain_txs (nonce INTEGER PRIMARY KEY, open INTEGER NOT NULL, data TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS chain_txs_open ON chain_txs (open, nonce)",
    "CREATE TABLE IF NOT EXISTS chain_tx_hashes (hash TEXT PRIMARY KEY, nonce INTEGER NOT NULL)",
    // Transfer logs from outside that the ledger followed, kept while a reorganization could
    // still remove them (ops::settle::reorg).
    "CREATE TABLE IF NOT EXISTS observations (block INTEGER NOT NULL, log_index INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (block, log_index))",
    // Each holder's next EIP-3009 nonce (`Store::take_auth_nonce`); a holder with no row has
    // signed none with a counted nonce yet.
    "CREATE TABLE IF NOT EXISTS auth_nonces (address TEXT PRIMARY KEY, next INTEGER NOT NULL)",
];

const RELAYER_KEY: &str = "relayer";

fn status(s: IntentStatus) -> &'static str {
    match s {
        IntentStatus::Queued => "queued",
        IntentStatus::Submitted => "submitted",
        IntentStatus::Confirmed => "confirmed",
        IntentStatus::Failed => "failed",
    }
}

#[derive(Deserialize)]
struct SeqRow {
    seq: i64,
}

fn seq_of(rows: Vec<SeqRow>) -> Result<u64> {
    rows.first()
        .and_then(|r| u64::try_from(r.seq).ok())
        .ok_or_else(|| Error::internal("insert returned no sequence number"))
}

impl SqlStore {
    /// Inserts a record: its sequence number. Numbered here, past the last one the history
    /// gave (the object's cache knows it once an insert told it, committed or this
    /// transaction's), as the table's AUTOINCREMENT would number it; else SQLite numbers it
    /// and says which. Reading that answer back (`RETURNING`, then a row object in wasm)
    /// cost about a third of the insert. Every insert goes through here and rows are never
    /// deleted, so the next number is free; a rollback forgets it (`cache/mod.rs`).
    pub(crate) fn insert_history(&self, record: &TxRecord) -> Result<u64> {
        let data = text(record)?;
        let user = record.user_id.as_str();
        let token = tok(&record.token);
        let seq = match self.look(|c| c.next_seq(Numbered::History)) {
            Some(seq) => {
                self.exec(
                    "INSERT INTO history (seq, user_id, token, data) VALUES (?, ?, ?, ?)",
                    vec![int(seq), user.into(), token.into(), data.into()],
                )?;
                seq
            }
            None => seq_of(self.rows::<SeqRow>(
                "INSERT INTO history (user_id, token, data) VALUES (?, ?, ?) RETURNING seq",
                vec![user.into(), token.into(), data.into()],
            )?)?,
        };
        self.tell(|c| c.write_seq(Numbered::History, seq))?;
        Ok(seq)
    }

    /// One holder's records, newest first (`Store::history`).
    pub(crate) fn history_page(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<(u64, TxRecord)>> {
        // Each record as `[seq, record]`, the page as one JSON text.
        let mut query = String::from(
            "SELECT seq, '[' || seq || ',' || data || ']' AS item FROM history WHERE user_id = ?",
        );
        let mut args: Vec<SqlStorageValue> = vec![user_id.as_str().into()];
        if let Some(t) = token {
            query.push_str(" AND token = ?");
            args.push(tok(t).into());
        }
        if let Some(b) = before {
            query.push_str(" AND seq < ?");
            args.push(int(b));
        }
        query.push_str(" ORDER BY seq DESC LIMIT ?");
        args.push(int(u64::from(limit)));
        self.json_rows(&query, "seq DESC", args)
    }

    pub(crate) fn history_record(&self, seq: u64) -> Result<Option<TxRecord>> {
        self.doc("SELECT data FROM history WHERE seq = ?", vec![int(seq)])
    }

    pub(crate) fn rewrite_history(&self, seq: u64, record: &TxRecord) -> Result<()> {
        self.exec(
            "UPDATE history SET data = ? WHERE seq = ?",
            vec![text(record)?.into(), int(seq)],
        )?;
        Ok(())
    }

    /// `authorizer`'s next nonce, taken: one statement that inserts 1 (0 taken) or adds 1.
    pub(crate) fn take_auth_nonce_row(&self, authorizer: &Address) -> Result<u64> {
        seq_of(self.rows::<SeqRow>(
            "INSERT INTO auth_nonces (address, next) VALUES (?, 1) \
             ON CONFLICT(address) DO UPDATE SET next = next + 1 RETURNING next - 1 AS seq",
            vec![addr(authorizer).into()],
        )?)
    }

    /// Queues a chain intent: its id, which its document carries too. Numbered here, past
    /// the last id the table gave, as `insert_history` numbers records (intents are never
    /// deleted either): one statement. When the cache does not know the last id, SQLite
    /// numbers the row and the document is written again with its id.
    pub(crate) fn insert_intent(&self, intent: &Intent) -> Result<u64> {
        let mut stored = intent.clone();
        match self.look(|c| c.next_seq(Numbered::Intents)) {
            Some(id) => {
                stored.id = id;
                self.exec(
                    "INSERT INTO intents (id, status, data) VALUES (?, ?, ?)",
                    vec![int(id), status(stored.status).into(), text(&stored)?.into()],
                )?;
            }
            None => {
                let rows = self.rows::<SeqRow>(
                    "INSERT INTO intents (status, data) VALUES (?, ?) RETURNING id AS seq",
                    vec![status(intent.status).into(), text(intent)?.into()],
                )?;
                stored.id = seq_of(rows)?;
                self.update_intent(&stored)?;
            }
        }
        self.tell(|c| c.write_seq(Numbered::Intents, stored.id))?;
        Ok(stored.id)
    }

    pub(crate) fn intent_by_id(&self, id: u64) -> Result<Option<Intent>> {
        self.doc("SELECT data FROM intents WHERE id = ?", vec![int(id)])
    }

    pub(crate) fn update_intent(&self, intent: &Intent) -> Result<()> {
        self.exec(
            "UPDATE intents SET status = ?, data = ? WHERE id = ?",
            vec![
                status(intent.status).into(),
                text(intent)?.into(),
                int(intent.id),
            ],
        )?;
        Ok(())
    }

    pub(crate) fn intents_in(
        &self,
        statuses: &[IntentStatus],
        newest: bool,
        limit: u32,
    ) -> Result<Vec<Intent>> {
        let marks = vec!["?"; statuses.len()].join(", ");
        let order = if newest { "DESC" } else { "ASC" };
        let mut args: Vec<worker::SqlStorageValue> =
            statuses.iter().map(|s| status(*s).into()).collect();
        args.push(int(u64::from(limit)));
        self.docs(
            &format!(
                "SELECT data FROM intents WHERE status IN ({marks}) ORDER BY id {order} LIMIT ?"
            ),
            args,
        )
    }

    pub(crate) fn chain_tx_at(&self, nonce: u64) -> Result<Option<ChainTx>> {
        self.doc(
            "SELECT data FROM chain_txs WHERE nonce = ?",
            vec![int(nonce)],
        )
    }

    pub(crate) fn save_chain_tx(&self, tx: &ChainTx) -> Result<()> {
        let class: u64 = if tx.is_open() {
            1
        } else if tx.is_unfinal() {
            2
        } else {
            0
        };
        self.exec(
            "INSERT INTO chain_txs (nonce, open, data) VALUES (?, ?, ?) ON CONFLICT(nonce) DO UPDATE SET open = excluded.open, data = excluded.data",
            vec![int(tx.nonce), int(class), text(tx)?.into()],
        )?;
        for v in &tx.versions {
            self.exec(
                "INSERT INTO chain_tx_hashes (hash, nonce) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING",
                vec![v.hash.to_lowercase().into(), int(tx.nonce)],
            )?;
        }
        Ok(())
    }

    pub(crate) fn open_txs(&self) -> Result<Vec<ChainTx>> {
        self.docs(
            "SELECT data FROM chain_txs WHERE open = 1 ORDER BY nonce",
            vec![],
        )
    }

    pub(crate) fn unfinal_txs(&self) -> Result<Vec<ChainTx>> {
        self.docs(
            "SELECT data FROM chain_txs WHERE open = 2 ORDER BY nonce",
            vec![],
        )
    }

    pub(crate) fn recent_txs(&self, limit: u32) -> Result<Vec<ChainTx>> {
        self.docs(
            "SELECT data FROM chain_txs ORDER BY nonce DESC LIMIT ?",
            vec![int(u64::from(limit))],
        )
    }

    pub(crate) fn save_observation(&self, o: &Observation) -> Result<()> {
        self.exec(
            "INSERT INTO observations (block, log_index, data) VALUES (?, ?, ?) ON CONFLICT(block, log_index) DO UPDATE SET data = excluded.data",
            vec![int(o.block), int(o.log_index), text(o)?.into()],
        )?;
        Ok(())
    }

    pub(crate) fn observations_since(&self, block: u64) -> Result<Vec<Observation>> {
        self.docs(
            "SELECT data FROM observations WHERE block > ? ORDER BY block, log_index",
            vec![int(block)],
        )
    }

    pub(crate) fn drop_observations(&self, after: u64, before: u64) -> Result<()> {
        self.exec(
            "DELETE FROM observations WHERE block > ? OR block < ?",
            vec![int(after), int(before)],
        )?;
        Ok(())
    }

    pub(crate) fn own_tx(&self, hash: &str) -> Result<bool> {
        let rows: Vec<serde_json::Value> = self.rows(
            "SELECT nonce FROM chain_tx_hashes WHERE hash = ?",
            vec![hash.to_lowercase().into()],
        )?;
        Ok(!rows.is_empty())
    }

    /// Every holder's address (the deposit scan's filter).
    pub(crate) fn holder_addresses(&self) -> Result<Vec<Address>> {
        #[derive(Deserialize)]
        struct Row {
            address: String,
        }
        self.rows::<Row>("SELECT address FROM holders ORDER BY address", vec![])?
            .iter()
            .map(|r| {
                Address::parse(&r.address).ok_or_else(|| Error::internal("bad address in storage"))
            })
            .collect()
    }

    /// The relayer's state, from the object's cache when it holds it: on an EVM chain every
    /// history, token and deployment read asks it (`wire::settlement::stopped`), a kept
    /// history page's among them, which otherwise runs no statement.
    pub(crate) fn relayer_state(&self) -> Result<Relayer> {
        if let Some(relayer) = self.look(Cache::relayer) {
            return Ok(relayer);
        }
        let relayer = self.meta::<Relayer>(RELAYER_KEY)?.unwrap_or_default();
        self.tell(|c| c.keep_relayer(&relayer))?;
        Ok(relayer)
    }

    /// Writes the relayer's state. The settler writes it every round (its balance, read each
    /// time), outside any transaction: SQLite has it at once, so the cache keeps it too rather
    /// than forget it, or each round would cost the reads after it a statement. (A storage
    /// commit that fails resets the object, its cache with it: the runtime's output gate.)
    pub(crate) fn save_relayer(&self, relayer: &Relayer) -> Result<()> {
        self.tell(|c| c.write_relayer(relayer))?;
        self.put_meta(RELAYER_KEY, relayer)?;
        // Inside a transaction this keeps nothing: its write is held until it ends.
        self.tell(|c| c.keep_relayer(relayer))
    }
}
