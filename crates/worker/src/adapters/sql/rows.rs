//! The rows the merchant object keeps in memory (`cache/mod.rs`), on SQLite: tokens, holders,
//! balances, the embedded chain's state, presales, pools, and a holder's lists (holdings,
//! locks, presale positions). Each read looks in the object's cache first and keeps what
//! SQLite returned; each write tells the cache before it runs, so a write that fails half-way
//! never leaves a stale copy. `store.rs` implements the storage port with these.

use super::db::{addr, amount, amount_key, parse, text, tok, BalanceRow, SqlStore, CHAIN_KEY};
use crate::adapters::cache::{Cache, TextKey};
use serde::Deserialize;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::balance::{Balance, Lock};
use tokenpad_core::model::books::Books;
use tokenpad_core::model::chain::ChainState;
use tokenpad_core::model::holder::Holder;
use tokenpad_core::model::ids::{LockId, PresaleId, TokenAddress, UserId};
use tokenpad_core::model::pool::Pool;
use tokenpad_core::model::presale::{Participant, Presale};
use tokenpad_core::model::token::Token;
use tokenpad_core::{Error, Result};
use worker::SqlStorageValue;

/// Transaction counts reserved at once (`put_chain_state_row`).
const TX_COUNT_BLOCK: u64 = 64;

impl SqlStore {
    /// Reads from the object's cache (None: this store has none, or it has not the row).
    pub(super) fn look<T>(&self, f: impl FnOnce(&Cache) -> Option<T>) -> Option<T> {
        let watch = self.watch.as_ref()?;
        let cache = watch.cache.try_borrow().ok()?;
        f(&cache)
    }

    /// The answer text kept with a holder's newest page for `key` (`cache/pages.rs`), while
    /// that page is kept; never inside a transaction.
    pub(crate) fn history_text(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        key: &TextKey,
    ) -> Option<String> {
        self.look(|c| c.pages()?.history_text(user_id, token, key))
    }

    /// Keeps the answer text just written from a holder's newest page with that page, when
    /// one is kept (outside a transaction).
    pub(crate) fn keep_history_text(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        key: TextKey,
        text: &str,
    ) {
        // A busy cache keeps nothing: the next read writes the page again.
        let _ = self.tell(|c| {
            if let Some(pages) = c.keep_pages() {
                pages.keep_history_text(user_id, token, key, text);
            }
        });
    }

    /// Tells the object's cache what was read or is about to be written. A cache that
    /// cannot be told (never, as the object is single-threaded) fails the statement, so a
    /// write never goes by unseen.
    pub(super) fn tell(&self, f: impl FnOnce(&mut Cache)) -> Result<()> {
        let Some(watch) = &self.watch else {
            return Ok(());
        };
        let mut cache = watch
            .cache
            .try_borrow_mut()
            .map_err(|_| Error::internal("the row cache is busy"))?;
        f(&mut cache);
        Ok(())
    }

    /// Tells the transaction's books what a write moves (`model::books`: checked as the
    /// transaction commits). A store without a watch keeps no books.
    fn book(&self, f: impl FnOnce(&mut Books) -> Result<()>) -> Result<()> {
        let Some(watch) = &self.watch else {
            return Ok(());
        };
        let mut books = watch
            .books
            .try_borrow_mut()
            .map_err(|_| Error::internal("the books are busy"))?;
        f(&mut books)
    }

    pub(crate) fn chain_state_row(&self) -> Result<ChainState> {
        Ok(self.chain_row()?.0)
    }

    /// The chain state, and the transaction count SQLite holds.
    fn chain_row(&self) -> Result<(ChainState, u64)> {
        if let Some(row) = self.look(Cache::chain_state) {
            return Ok(row);
        }
        // Read back from SQLite, the count is where the last reserved block ends: numbers up
        // to it may have been handed out, so the next one is past it.
        let state: ChainState = self.meta(CHAIN_KEY)?.unwrap_or_default();
        let stored = state.tx_count;
        self.tell(|c| c.keep_chain_state(&state, stored))?;
        Ok((state, stored))
    }

    /// Writes the chain state. Every movement takes the next transaction count, which would
    /// be a statement per movement for one number: with the object's cache, counts are
    /// reserved in blocks of [`TX_COUNT_BLOCK`] instead, and a write that only moves the count
    /// within the block is kept in the cache alone (committed or rolled back with the
    /// transaction, like every cached row). SQLite then holds the block's end; after a restart
    /// counting resumes past it, so a number is never handed out twice (there may be gaps,
    /// and nothing reads the count but the next movement). Every other field is written
    /// through at once: the deploy nonce must stay exact.
    pub(crate) fn put_chain_state_row(&self, state: &ChainState) -> Result<()> {
        let (before, stored) = self.chain_row()?;
        // Without the object's cache nothing remembers a block: the count is written exactly.
        let cached = self.watch.is_some();
        let only_the_count = ChainState {
            tx_count: before.tx_count,
            ..state.clone()
        } == before;
        if cached && only_the_count && state.tx_count <= stored {
            return self.tell(|c| c.write_chain_state(state, stored));
        }
        let stored = if cached {
            state.tx_count.saturating_add(TX_COUNT_BLOCK)
        } else {
            state.tx_count
        };
        self.tell(|c| c.write_chain_state(state, stored))?;
        let written = ChainState {
            tx_count: stored,
            ..state.clone()
        };
        self.put_meta(CHAIN_KEY, &written)
    }

    pub(crate) fn token_row(&self, address: &TokenAddress) -> Result<Option<Token>> {
        if let Some(token) = self.look(|c| c.token(address)) {
            return Ok(Some(token));
        }
        let token: Option<Token> = self.doc(
            "SELECT data FROM tokens WHERE address = ?",
            vec![tok(address).into()],
        )?;
        if let Some(t) = &token {
            self.tell(|c| c.keep_token(t))?;
        }
        Ok(token)
    }

    pub(crate) fn put_token_row(&self, token: &Token) -> Result<()> {
        // The record it replaces (the cache has it: every write reads its token first).
        let before = self.token_row(&token.address)?;
        self.book(|b| {
            b.token_written(before.as_ref(), token);
            Ok(())
        })?;
        self.tell(|c| c.write_token(token))?;
        self.exec(
            "INSERT INTO tokens (address, data) VALUES (?, ?) ON CONFLICT(address) DO UPDATE SET data = excluded.data",
            vec![tok(&token.address).into(), text(token)?.into()],
        )?;
        Ok(())
    }

    fn kept_holder(&self, holder: Option<Holder>) -> Result<Option<Holder>> {
        if let Some(h) = &holder {
            self.tell(|c| c.keep_holder(h))?;
        }
        Ok(holder)
    }

    pub(crate) fn holder_row(&self, user_id: &UserId) -> Result<Option<Holder>> {
        if let Some(holder) = self.look(|c| c.holder(user_id)) {
            return Ok(Some(holder));
        }
        self.kept_holder(self.doc(
            "SELECT data FROM holders WHERE user_id = ?",
            vec![user_id.as_str().into()],
        )?)
    }

    pub(crate) fn holder_row_at(&self, address: &Address) -> Result<Option<Holder>> {
        if let Some(holder) = self.look(|c| c.holder_at(address)) {
            return Ok(holder);
        }
        let holder = self.doc(
            "SELECT data FROM holders WHERE address = ?",
            vec![addr(address).into()],
        )?;
        if holder.is_none() {
            self.tell(|c| c.keep_no_holder_at(address))?;
        }
        self.kept_holder(holder)
    }

    pub(crate) fn insert_holder_row(&self, holder: &Holder) -> Result<()> {
        self.tell(|c| c.write_holder(holder))?;
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

    pub(crate) fn balance_row(&self, token: &TokenAddress, owner: &Address) -> Result<Balance> {
        if let Some(balance) = self.look(|c| c.balance(token, owner)) {
            return Ok(balance);
        }
        let rows: Vec<BalanceRow> = self.rows(
            "SELECT owner, active, locked, NULL AS user_id FROM balances WHERE token = ? AND owner = ?",
            vec![tok(token).into(), addr(owner).into()],
        )?;
        let balance = match rows.first() {
            None => Balance::default(),
            Some(r) => Balance {
                active: amount(&r.active)?,
                locked: amount(&r.locked)?,
            },
        };
        self.tell(|c| c.keep_balance(token, owner, balance))?;
        Ok(balance)
    }

    pub(crate) fn put_balance_row(
        &self,
        token: &TokenAddress,
        owner: &Address,
        balance: &Balance,
    ) -> Result<()> {
        let total = balance
            .total()
            .ok_or_else(|| Error::internal("balance total overflow"))?;
        // The row as it was (the cache has it: every write reads its balance first).
        let before = self.balance_row(token, owner)?;
        self.book(|b| b.balance_written(token, &before, balance))?;
        self.tell(|c| c.write_balance(token, owner, *balance))?;
        self.exec(
            "INSERT INTO balances (token, owner, active, locked, total_key) VALUES (?, ?, ?, ?, ?) \
             ON CONFLICT(token, owner) DO UPDATE SET active = excluded.active, locked = excluded.locked, total_key = excluded.total_key",
            vec![
                tok(token).into(),
                addr(owner).into(),
                balance.active.raw().to_string().into(),
                balance.locked.raw().to_string().into(),
                amount_key(total).into(),
            ],
        )?;
        // The token's holder count moves only when the owner starts or stops holding it. Kept
        // here rather than by a trigger: SQLite ran the trigger's program on every balance
        // write, about as costly as the write itself (`db.rs`, HOLDER_COUNTS).
        let held = |b: &Balance| b.active != Units::ZERO || b.locked != Units::ZERO;
        if held(&before) != held(balance) {
            self.exec(
                "INSERT INTO holder_counts (token, n) VALUES (?, ?) \
                 ON CONFLICT(token) DO UPDATE SET n = n + excluded.n",
                vec![
                    tok(token).into(),
                    SqlStorageValue::Integer(if held(balance) { 1 } else { -1 }),
                ],
            )?;
        }
        Ok(())
    }

    pub(crate) fn holdings_rows(&self, owner: &Address) -> Result<Vec<(Token, Balance)>> {
        if let Some(holdings) = self.look(|c| c.holdings(owner)) {
            return Ok(holdings);
        }
        #[derive(Deserialize)]
        struct Row {
            data: String,
            active: String,
            locked: String,
        }
        let rows: Vec<Row> = self.rows(
            "SELECT t.data, b.active, b.locked FROM balances b JOIN tokens t ON t.address = b.token \
             WHERE b.owner = ? AND b.total_key != ? ORDER BY t.seq",
            vec![addr(owner).into(), amount_key(Units::ZERO).into()],
        )?;
        let holdings = rows
            .iter()
            .map(|r| {
                Ok((
                    parse(&r.data)?,
                    Balance {
                        active: amount(&r.active)?,
                        locked: amount(&r.locked)?,
                    },
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        self.tell(|c| c.keep_holdings(owner, &holdings))?;
        Ok(holdings)
    }

    pub(crate) fn locks_rows(&self, owner: &Address) -> Result<Vec<Lock>> {
        if let Some(locks) = self.look(|c| c.locks(owner)) {
            return Ok(locks);
        }
        let locks: Vec<Lock> = self.docs(
            "SELECT data FROM locks WHERE owner = ? ORDER BY id",
            vec![addr(owner).into()],
        )?;
        self.tell(|c| c.keep_locks(owner, &locks))?;
        Ok(locks)
    }

    pub(crate) fn put_lock_row(&self, lock: &Lock) -> Result<()> {
        self.tell(|c| c.write_lock(&lock.owner))?;
        self.exec(
            "INSERT INTO locks (id, token, owner, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![
                lock.id.as_str().into(),
                tok(&lock.token).into(),
                addr(&lock.owner).into(),
                text(lock)?.into(),
            ],
        )?;
        Ok(())
    }

    pub(crate) fn remove_lock_row(&self, id: &LockId) -> Result<()> {
        self.tell(Cache::remove_lock)?;
        self.exec("DELETE FROM locks WHERE id = ?", vec![id.as_str().into()])?;
        Ok(())
    }

    pub(crate) fn presale_row(&self, id: &PresaleId) -> Result<Option<Presale>> {
        if let Some(presale) = self.look(|c| c.presale(id)) {
            return Ok(Some(presale));
        }
        let presale: Option<Presale> = self.doc(
            "SELECT data FROM presales WHERE id = ?",
            vec![id.as_str().into()],
        )?;
        if let Some(p) = &presale {
            self.tell(|c| c.keep_presale(p))?;
        }
        Ok(presale)
    }

    pub(crate) fn put_presale_row(&self, presale: &Presale) -> Result<()> {
        self.presales_write();
        self.tell(|c| c.write_presale(presale))?;
        self.exec(
            "INSERT INTO presales (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data",
            vec![presale.id.as_str().into(), text(presale)?.into()],
        )?;
        Ok(())
    }

    pub(crate) fn pool_row(&self, token: &TokenAddress) -> Result<Option<Pool>> {
        if let Some(pool) = self.look(|c| c.pool(token)) {
            return Ok(pool);
        }
        let pool: Option<Pool> = self.doc(
            "SELECT data FROM pools WHERE token = ?",
            vec![tok(token).into()],
        )?;
        self.tell(|c| c.keep_pool(token, pool.as_ref()))?;
        Ok(pool)
    }

    pub(crate) fn remove_pool_row(&self, token: &TokenAddress) -> Result<()> {
        self.tell(|c| c.forget_pool(token))?;
        self.exec("DELETE FROM pools WHERE token = ?", vec![tok(token).into()])?;
        Ok(())
    }

    pub(crate) fn put_pool_row(&self, pool: &Pool) -> Result<()> {
        self.tell(|c| c.write_pool(pool))?;
        self.exec(
            "INSERT INTO pools (token, data) VALUES (?, ?) ON CONFLICT(token) DO UPDATE SET data = excluded.data",
            vec![tok(&pool.token).into(), text(pool)?.into()],
        )?;
        Ok(())
    }

    pub(crate) fn put_participant_row(
        &self,
        presale: &PresaleId,
        participant: &Participant,
    ) -> Result<()> {
        self.presales_write();
        self.tell(|c| c.write_participant(presale, participant))?;
        self.exec(
            "INSERT INTO participants (presale_id, user_id, data) VALUES (?, ?, ?) \
             ON CONFLICT(presale_id, user_id) DO UPDATE SET data = excluded.data",
            vec![
                presale.as_str().into(),
                participant.user_id.as_str().into(),
                text(participant)?.into(),
            ],
        )?;
        Ok(())
    }

    pub(crate) fn positions_rows(&self, user_id: &UserId) -> Result<Vec<(Presale, Participant)>> {
        if let Some(positions) = self.look(|c| c.positions(user_id)) {
            return Ok(positions);
        }
        #[derive(Deserialize)]
        struct Row {
            presale: String,
            participant: String,
        }
        let positions = self
            .rows::<Row>(
                "SELECT s.data AS presale, p.data AS participant FROM participants p \
                 JOIN presales s ON s.id = p.presale_id WHERE p.user_id = ? ORDER BY p.seq",
                vec![user_id.as_str().into()],
            )?
            .iter()
            .map(|r| Ok((parse(&r.presale)?, parse(&r.participant)?)))
            .collect::<Result<Vec<_>>>()?;
        self.tell(|c| c.keep_positions(user_id, &positions))?;
        Ok(positions)
    }
}
