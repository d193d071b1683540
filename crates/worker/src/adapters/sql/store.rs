//! The storage adapter: `tokenpad_core::store::Store` on the Durable Object's SQLite.
//!
//! Amounts are u128, wider than SQLite's integers, so they are stored as decimal TEXT; the
//! `total_key` column holds the balance zero-padded to 39 digits, so ordering that text
//! orders the numbers (the token's holder list is an index scan). Addresses are stored as
//! lowercase hex for exact matching. Entities are JSON documents beside their index columns.

use super::db::{
    amount, amount_key, int, json_items, parse, text, tok, BalanceRow, SqlStore, MERCHANT_KEY,
};
use serde::Deserialize;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::balance::{Balance, Lock};
use tokenpad_core::model::chain::ChainState;
use tokenpad_core::model::deployment::Deployment;
use tokenpad_core::model::history::TxRecord;
use tokenpad_core::model::holder::Holder;
use tokenpad_core::model::ids::{DeploymentId, JobId, LockId, PresaleId, TokenAddress, UserId};
use tokenpad_core::model::intent::{Intent, IntentStatus};
use tokenpad_core::model::job::Job;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::pool::Pool;
use tokenpad_core::model::presale::{Participant, Presale};
use tokenpad_core::model::schedule::DueFailure;
use tokenpad_core::model::settlement::{ChainTx, Observation, Relayer};
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::token::{HolderRow, Token};
use tokenpad_core::store::Store;
use tokenpad_core::{Error, Result};
use worker::SqlStorageValue;

fn to_address(s: &str) -> Result<Address> {
    Address::parse(s).ok_or_else(|| Error::internal("bad address in storage"))
}

impl Store for SqlStore {
    fn merchant(&self) -> Result<Option<Merchant>> {
        self.meta(MERCHANT_KEY)
    }

    fn put_merchant(&mut self, merchant: &Merchant) -> Result<()> {
        // Before the write: a copy in memory is stale even if this write fails half-way.
        self.merchant_writes();
        self.put_meta(MERCHANT_KEY, merchant)
    }

    fn chain_state(&self) -> Result<ChainState> {
        self.chain_state_row()
    }

    fn put_chain_state(&mut self, state: &ChainState) -> Result<()> {
        self.put_chain_state_row(state)
    }

    fn token(&self, address: &TokenAddress) -> Result<Option<Token>> {
        self.token_row(address)
    }

    fn put_token(&mut self, token: &Token) -> Result<()> {
        self.put_token_row(token)
    }

    fn tokens(&self) -> Result<Vec<Token>> {
        self.docs("SELECT data FROM tokens ORDER BY seq", vec![])
    }

    fn holder_by_user(&self, user_id: &UserId) -> Result<Option<Holder>> {
        self.holder_row(user_id)
    }

    fn holder_by_address(&self, address: &Address) -> Result<Option<Holder>> {
        self.holder_row_at(address)
    }

    fn insert_holder(&mut self, holder: &Holder) -> Result<()> {
        self.insert_holder_row(holder)
    }

    fn balance(&self, token: &TokenAddress, owner: &Address) -> Result<Balance> {
        self.balance_row(token, owner)
    }

    fn put_balance(
        &mut self,
        token: &TokenAddress,
        owner: &Address,
        balance: &Balance,
    ) -> Result<()> {
        self.put_balance_row(token, owner, balance)
    }

    fn holdings(&self, owner: &Address) -> Result<Vec<(Token, Balance)>> {
        self.holdings_rows(owner)
    }

    fn top_holders(&self, token: &TokenAddress, limit: u32) -> Result<(Vec<HolderRow>, u64)> {
        if let Some(page) = self.look(|c| c.pages()?.top_holders(token, limit)) {
            return Ok(page);
        }
        let (n, rows) = if limit <= TEXT_PAGE_MAX {
            self.holders_page(token, limit)?
        } else {
            self.every_holder(token)?
        };
        let holders = rows
            .iter()
            .map(|r| {
                let active = amount(&r.active)?;
                let locked = amount(&r.locked)?;
                Ok(HolderRow {
                    owner: to_address(&r.owner)?,
                    balance: active.saturating_add(locked),
                    user_id: r.user_id.clone().map(UserId::new_unchecked),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let n = u64::try_from(n).unwrap_or(0);
        self.tell(|c| {
            if let Some(pages) = c.keep_pages() {
                pages.keep_top_holders(token, limit, &holders, n);
            }
        })?;
        Ok((holders, n))
    }

    fn locks_of(&self, owner: &Address) -> Result<Vec<Lock>> {
        self.locks_rows(owner)
    }

    fn lock(&self, id: &LockId) -> Result<Option<Lock>> {
        self.doc(
            "SELECT data FROM locks WHERE id = ?",
            vec![id.as_str().into()],
        )
    }

    fn put_lock(&mut self, lock: &Lock) -> Result<()> {
        self.put_lock_row(lock)
    }

    fn remove_lock(&mut self, id: &LockId) -> Result<()> {
        self.remove_lock_row(id)
    }

    fn presale(&self, id: &PresaleId) -> Result<Option<Presale>> {
        self.presale_row(id)
    }

    fn put_presale(&mut self, presale: &Presale) -> Result<()> {
        self.put_presale_row(presale)
    }

    fn presales(&self) -> Result<Vec<Presale>> {
        self.docs("SELECT data FROM presales ORDER BY seq DESC", vec![])
    }

    fn participants(&self, presale: &PresaleId) -> Result<Vec<Participant>> {
        // Kept whole by the object (`cache/participants.rs`), up to a bound.
        if let Some(list) = self.look(|c| c.participants().all(presale)) {
            return Ok(list);
        }
        let list: Vec<Participant> = self.docs(
            "SELECT data FROM participants WHERE presale_id = ? ORDER BY seq",
            vec![presale.as_str().into()],
        )?;
        self.tell(|c| c.keep_participants().keep_all(presale, &list))?;
        Ok(list)
    }

    fn first_participants(&self, presale: &PresaleId, limit: u32) -> Result<Vec<Participant>> {
        if let Some(list) = self.look(|c| c.participants().first(presale, limit)) {
            return Ok(list);
        }
        let list: Vec<Participant> = self.docs(
            "SELECT data FROM participants WHERE presale_id = ? ORDER BY seq LIMIT ?",
            vec![presale.as_str().into(), int(u64::from(limit))],
        )?;
        self.tell(|c| c.keep_participants().keep_first(presale, limit, &list))?;
        Ok(list)
    }

    fn participant(&self, presale: &PresaleId, user_id: &UserId) -> Result<Option<Participant>> {
        if let Some(row) = self.look(|c| c.participants().participant(presale, user_id)) {
            return Ok(row);
        }
        let row: Option<Participant> = self.doc(
            "SELECT data FROM participants WHERE presale_id = ? AND user_id = ?",
            vec![presale.as_str().into(), user_id.as_str().into()],
        )?;
        self.tell(|c| {
            c.keep_participants()
                .keep_participant(presale, user_id, row.as_ref());
        })?;
        Ok(row)
    }

    fn put_participant(&mut self, presale: &PresaleId, participant: &Participant) -> Result<()> {
        self.put_participant_row(presale, participant)
    }

    fn positions(&self, user_id: &UserId) -> Result<Vec<(Presale, Participant)>> {
        self.positions_rows(user_id)
    }

    fn append_history(&mut self, record: &TxRecord) -> Result<u64> {
        let seq = self.insert_history(record)?;
        self.tell(|c| c.write_history(seq, record))?;
        Ok(seq)
    }

    fn history_at(&self, seq: u64) -> Result<Option<TxRecord>> {
        if let Some(record) = self.look(|c| c.history_at(seq)) {
            return Ok(Some(record));
        }
        self.history_record(seq)
    }

    fn put_history_at(&mut self, seq: u64, record: &TxRecord) -> Result<()> {
        self.tell(|c| c.write_history(seq, record))?;
        self.rewrite_history(seq, record)
    }

    fn take_auth_nonce(&mut self, authorizer: &Address) -> Result<u64> {
        self.take_auth_nonce_row(authorizer)
    }

    fn enqueue_intent(&mut self, intent: &Intent) -> Result<u64> {
        self.insert_intent(intent)
    }

    fn intent(&self, id: u64) -> Result<Option<Intent>> {
        self.intent_by_id(id)
    }

    fn put_intent(&mut self, intent: &Intent) -> Result<()> {
        self.update_intent(intent)
    }

    fn open_intents(&self, limit: u32) -> Result<Vec<Intent>> {
        self.intents_in(
            &[IntentStatus::Queued, IntentStatus::Submitted],
            false,
            limit,
        )
    }

    fn failed_intents(&self, limit: u32) -> Result<Vec<Intent>> {
        self.intents_in(&[IntentStatus::Failed], true, limit)
    }

    fn chain_tx(&self, nonce: u64) -> Result<Option<ChainTx>> {
        self.chain_tx_at(nonce)
    }

    fn put_chain_tx(&mut self, tx: &ChainTx) -> Result<()> {
        self.save_chain_tx(tx)
    }

    fn open_chain_txs(&self) -> Result<Vec<ChainTx>> {
        self.open_txs()
    }

    fn unfinal_chain_txs(&self) -> Result<Vec<ChainTx>> {
        self.unfinal_txs()
    }

    fn is_own_tx(&self, hash: &str) -> Result<bool> {
        self.own_tx(hash)
    }

    fn recent_chain_txs(&self, limit: u32) -> Result<Vec<ChainTx>> {
        self.recent_txs(limit)
    }
    fn put_observation(&mut self, o: &Observation) -> Result<()> {
        self.save_observation(o)
    }
    fn observations_after(&self, block: u64) -> Result<Vec<Observation>> {
        self.observations_since(block)
    }
    fn forget_observations(&mut self, after: u64, before: u64) -> Result<()> {
        self.drop_observations(after, before)
    }
    fn relayer(&self) -> Result<Relayer> {
        self.relayer_state()
    }

    fn put_relayer(&mut self, relayer: &Relayer) -> Result<()> {
        self.save_relayer(relayer)
    }

    fn history(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<(u64, TxRecord)>> {
        // The newest records (no cursor) are the page readers poll.
        if before.is_some() {
            return self.history_page(user_id, token, before, limit);
        }
        if let Some(page) = self.look(|c| c.pages()?.history(user_id, token, limit)) {
            return Ok(page);
        }
        let page = self.history_page(user_id, token, None, limit)?;
        self.tell(|c| {
            if let Some(pages) = c.keep_pages() {
                pages.keep_history(user_id, token, limit, &page);
            }
        })?;
        Ok(page)
    }

    fn pool(&self, token: &TokenAddress) -> Result<Option<Pool>> {
        self.pool_row(token)
    }

    fn put_pool(&mut self, pool: &Pool) -> Result<()> {
        self.put_pool_row(pool)
    }

    fn remove_pool(&mut self, token: &TokenAddress) -> Result<()> {
        self.remove_pool_row(token)
    }

    fn job(&self, id: &JobId) -> Result<Option<Job>> {
        self.doc(
            "SELECT data FROM jobs WHERE id = ?",
            vec![id.as_str().into()],
        )
    }

    fn put_job(&mut self, job: &Job) -> Result<()> {
        self.exec(
            "INSERT INTO jobs (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![job.id.as_str().into(), text(job)?.into()],
        )?;
        Ok(())
    }

    fn deployment(&self, id: &DeploymentId) -> Result<Option<Deployment>> {
        self.doc(
            "SELECT data FROM deployments WHERE id = ?",
            vec![id.as_str().into()],
        )
    }

    fn put_deployment(&mut self, deployment: &Deployment) -> Result<()> {
        self.exec(
            "INSERT INTO deployments (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![deployment.id.as_str().into(), text(deployment)?.into()],
        )?;
        Ok(())
    }

    fn schedule_raw(&mut self, stored: &str, at: Millis) -> Result<()> {
        self.schedule_writes();
        self.exec(
            "INSERT INTO schedule (key, at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET at = excluded.at",
            vec![stored.into(), int(at)],
        )?;
        Ok(())
    }

    fn unschedule_raw(&mut self, stored: &str) -> Result<()> {
        self.schedule_writes();
        self.exec("DELETE FROM schedule WHERE key = ?", vec![stored.into()])?;
        Ok(())
    }

    fn due(&self, now: Millis) -> Result<Vec<(String, Millis)>> {
        self.due_rows(now, None)
    }

    fn first_due(&self, now: Millis) -> Result<Option<(String, Millis)>> {
        Ok(self.due_rows(now, Some(1))?.into_iter().next())
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

    fn due_failure(&self, stored: &str) -> Result<Option<DueFailure>> {
        self.doc(
            "SELECT data FROM due_failures WHERE key = ?",
            vec![stored.into()],
        )
    }

    fn put_due_failure(&mut self, failure: &DueFailure) -> Result<()> {
        self.exec(
            "INSERT INTO due_failures (key, parked_at, data) VALUES (?, ?, ?) \
             ON CONFLICT(key) DO UPDATE SET parked_at = excluded.parked_at, data = excluded.data",
            vec![
                failure.key.as_str().into(),
                failure.parked_at.map_or(SqlStorageValue::Null, int),
                text(failure)?.into(),
            ],
        )?;
        Ok(())
    }

    fn clear_due_failure(&mut self, stored: &str) -> Result<()> {
        self.exec(
            "DELETE FROM due_failures WHERE key = ?",
            vec![stored.into()],
        )?;
        Ok(())
    }

    fn parked(&self) -> Result<Vec<DueFailure>> {
        self.docs(
            "SELECT data FROM due_failures WHERE parked_at IS NOT NULL ORDER BY parked_at DESC, key",
            vec![],
        )
    }
}

impl SqlStore {
    /// Schedule entries due at `now`, earliest first, at most `limit`.
    fn due_rows(&self, now: Millis, limit: Option<u64>) -> Result<Vec<(String, Millis)>> {
        #[derive(Deserialize)]
        struct Row {
            key: String,
            at: i64,
        }
        Ok(self
            .rows::<Row>(
                "SELECT key, at FROM schedule WHERE at <= ? ORDER BY at, rowid LIMIT ?",
                vec![int(now), int(limit.unwrap_or(u64::MAX))],
            )?
            .into_iter()
            .map(|r| (r.key, u64::try_from(r.at).unwrap_or(0)))
            .collect())
    }
}

/// A token's holders (the token, then the zero balance's key, bound), largest first: one
/// order for a page and for the whole list.
const HOLDERS: &str = "FROM balances b LEFT JOIN holders h ON h.address = b.owner \
     WHERE b.token = ? AND b.total_key != ? ORDER BY b.total_key DESC, b.owner";

/// The largest page of holders read as one JSON text: twice the most a reader may ask for
/// (1,000), some 300 KB at most, well under the 2 MB a string may hold in a Durable Object's
/// SQLite. Reconciliation asks for every holder and reads them row by row.
const TEXT_PAGE_MAX: u32 = 2_000;

impl SqlStore {
    /// A page of a token's holders, and their count, in one statement, the page as one JSON
    /// text.
    fn holders_page(&self, token: &TokenAddress, limit: u32) -> Result<(i64, Vec<BalanceRow>)> {
        #[derive(Deserialize)]
        struct Page {
            n: Option<i64>,
            items: String,
        }
        let items = json_items(
            &format!(
                "SELECT json_array(b.owner, b.active, b.locked, h.user_id) AS item, \
                 b.total_key AS k, b.owner AS o {HOLDERS} LIMIT ?"
            ),
            "k DESC, o",
        );
        let page: Vec<Page> = self.rows(
            &format!("SELECT (SELECT n FROM holder_counts WHERE token = ?) AS n, {items} AS items"),
            vec![
                tok(token).into(),
                tok(token).into(),
                amount_key(Units::ZERO).into(),
                int(u64::from(limit)),
            ],
        )?;
        match page.first() {
            Some(p) => Ok((p.n.unwrap_or(0), parse(&p.items)?)),
            None => Ok((0, Vec::new())),
        }
    }

    /// Every holder of a token (reconciliation asks), row by row: as one text, a large
    /// token's list would pass the 2 MB a string may hold in a Durable Object's SQLite.
    fn every_holder(&self, token: &TokenAddress) -> Result<(i64, Vec<BalanceRow>)> {
        let rows: Vec<BalanceRow> = self.rows(
            &format!("SELECT b.owner, b.active, b.locked, h.user_id {HOLDERS}"),
            vec![tok(token).into(), amount_key(Units::ZERO).into()],
        )?;
        Ok((i64::try_from(rows.len()).unwrap_or(i64::MAX), rows))
    }
}
