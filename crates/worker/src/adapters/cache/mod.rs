//! The rows a merchant object keeps in memory between requests, only ever as SQLite committed
//! them: tokens, holders, balances and the embedded chain's state (the rows every ledger write
//! reads and writes), the relayer's state (which every history, token and deployment read on
//! an EVM chain asks, to say whether settlement is stopped), presales, their participants (a buyer's position and the first ones a
//! presale's events list) and liquidity pools, the last number the history and the chain
//! intents gave (so the object numbers the rows it inserts, as it numbers its events), and a
//! holder's lists (its holdings, locks and presale positions: what a holder read returns). A
//! read that finds its rows here runs no SQL statement.
//!
//! How it stays a copy of committed state, never of a write that may still roll back:
//! - Every write of these rows goes through the store (`sql/rows.rs`), and every transaction
//!   through `txn::transaction`, which tells the cache where it begins and ends.
//! - Inside a transaction a row write is held apart (`pending`) and read back from there; it
//!   joins the committed rows only when the transaction committed, and is forgotten (with the
//!   committed row it replaced) when it rolled back. A write outside any transaction commits
//!   at once in SQLite; the cache forgets the row, and the next read takes it from SQLite
//!   (but the relayer's state, which the settler writes every round outside a transaction,
//!   is kept as written once SQLite took it: `sql/chain.rs`).
//! - A row read from SQLite is kept unless the transaction under way wrote it: then SQLite
//!   holds the committed value, since every write of it would be in `pending`.
//! - The lists are kept only from reads outside transactions, forgotten when a write may have
//!   changed them, and not read inside transactions (where SQLite answers).
//!
//! A transaction's own writes that it reads back as it seals its events (`wire::event::seal`)
//! are kept for its length only: the history records it wrote, and the events it appended
//! unrendered. Whether SQLite holds any unrendered event is known once a transaction has
//! rendered them all and committed; a write's seal then reads nothing back.
//!
//! Memory is bounded: a table that would grow past its cap is emptied first and fills again
//! from the rows requests read. The object is single-threaded, so a request never sees
//! another one's transaction half-way.

mod events;
mod pages;
mod participants;
mod table;

use self::events::EventLog;
pub use self::pages::TextKey;
use self::pages::{insert_capped, Pages};
use self::participants::Participants;
use self::table::{Pending, Table};
use std::collections::HashMap;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::balance::{Balance, Lock};
use tokenpad_core::model::chain::ChainState;
use tokenpad_core::model::event::EventRecord;
use tokenpad_core::model::history::TxRecord;
use tokenpad_core::model::holder::Holder;
use tokenpad_core::model::ids::{PresaleId, TokenAddress, UserId};
use tokenpad_core::model::pool::Pool;
use tokenpad_core::model::presale::{Participant, Presale};
use tokenpad_core::model::settlement::Relayer;
use tokenpad_core::model::token::Token;

/// Rows of one kind a table keeps: a holder or a balance is a few hundred bytes at most, a
/// list a few kilobytes, so all of them together stay within tens of megabytes of the
/// object's 128 MB even when every table is full.
const MAX_HOLDERS: usize = 10_000;
const MAX_BALANCES: usize = 50_000;
const MAX_TOKENS: usize = 1_000;
const MAX_PRESALES: usize = 1_000;
const MAX_LISTS: usize = 10_000;

/// What one object keeps (see the module's doc).
pub struct Cache {
    tokens: Table<TokenAddress, Token>,
    holders: Table<UserId, Holder>,
    /// Whose wallet an address is; `None`: no holder's (the merchant's own, or an outside
    /// address a transfer names), so such a lookup runs no statement either.
    user_at: Table<Address, Option<UserId>>,
    balances: Table<(TokenAddress, Address), Balance>,
    /// The embedded chain's state, with the transaction count SQLite holds (`sql/rows.rs`:
    /// counts are reserved in blocks, so SQLite's may run ahead of the state's).
    chain: Table<(), (ChainState, u64)>,
    /// The relayer's state (`sql/chain.rs`).
    relayer: Table<(), Relayer>,
    presales: Table<PresaleId, Presale>,
    /// A token's pool; `None`: it has none.
    pools: Table<TokenAddress, Option<Pool>>,
    /// A holder's tokens with a balance above zero, in the order the tokens were created.
    holdings: HashMap<Address, Vec<TokenAddress>>,
    locks: HashMap<Address, Vec<Lock>>,
    positions: HashMap<UserId, Vec<(Presale, Participant)>>,
    /// A presale's buyers, and its first participants (`participants.rs`).
    participants: Participants,
    /// A token's holder page and a holder's newest records (`pages.rs`).
    pages: Pages,
    /// History records the transaction under way wrote, by sequence number.
    history: HashMap<u64, TxRecord>,
    /// The last number each numbered table gave (`sql/chain.rs` numbers the next rows).
    seqs: Table<Numbered, u64>,
    /// The events left to render, and those held back from SQLite (`events.rs`).
    events: EventLog,
    /// Transactions open (more than one only if one ran inside another).
    open: u32,
    /// A transaction ran inside another: its writes cannot be told apart, so at the end the
    /// cache forgets them all, as if the outer one rolled back.
    nested: bool,
}

/// The tables whose rows the object numbers itself, past the last number it saw given (as
/// their AUTOINCREMENT would number them): it then need not read the number back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Numbered {
    /// A holder's history records (`history.seq`).
    History,
    /// The chain intents (`intents.id`).
    Intents,
}

impl Default for Cache {
    fn default() -> Self {
        Cache {
            tokens: Table::new(MAX_TOKENS),
            holders: Table::new(MAX_HOLDERS),
            user_at: Table::new(MAX_HOLDERS),
            balances: Table::new(MAX_BALANCES),
            chain: Table::new(1),
            relayer: Table::new(1),
            presales: Table::new(MAX_PRESALES),
            pools: Table::new(MAX_TOKENS),
            holdings: HashMap::new(),
            locks: HashMap::new(),
            positions: HashMap::new(),
            participants: Participants::default(),
            pages: Pages::default(),
            history: HashMap::new(),
            seqs: Table::new(2),
            events: EventLog::default(),
            open: 0,
            nested: false,
        }
    }
}

impl Cache {
    /// A transaction begins.
    pub fn begin(&mut self) {
        if self.open > 0 {
            self.nested = true;
        } else {
            self.events.begin();
        }
        self.open += 1;
    }

    /// A transaction ended: `committed` when SQLite committed it.
    pub fn end(&mut self, committed: bool) {
        self.open = self.open.saturating_sub(1);
        if self.open > 0 {
            return;
        }
        self.history.clear();
        let nested = std::mem::take(&mut self.nested);
        let keep = committed && !nested;
        self.events.end(keep, nested);
        for table in self.tables() {
            if keep {
                table.commit();
            } else {
                table.roll_back();
            }
        }
    }

    /// Every table of rows, the one list `end` settles.
    fn tables(&mut self) -> [&mut dyn Pending; 10] {
        [
            &mut self.tokens,
            &mut self.holders,
            &mut self.user_at,
            &mut self.balances,
            &mut self.chain,
            &mut self.relayer,
            &mut self.presales,
            &mut self.pools,
            &mut self.seqs,
            &mut self.participants,
        ]
    }

    fn open(&self) -> bool {
        self.open > 0
    }

    pub fn token(&self, address: &TokenAddress) -> Option<Token> {
        self.tokens.get(address)
    }

    pub fn keep_token(&mut self, token: &Token) {
        self.tokens.keep(token.address, token.clone());
    }

    pub fn write_token(&mut self, token: &Token) {
        let open = self.open();
        self.tokens.write(token.address, token.clone(), open);
    }

    pub fn holder(&self, user_id: &UserId) -> Option<Holder> {
        self.holders.get(user_id)
    }

    /// The holder at an address: `Some(None)` when it is known that there is none.
    pub fn holder_at(&self, address: &Address) -> Option<Option<Holder>> {
        match self.user_at.get(address)? {
            Some(user_id) => self.holder(&user_id).map(Some),
            None => Some(None),
        }
    }

    pub fn keep_holder(&mut self, holder: &Holder) {
        self.holders.keep(holder.user_id.clone(), holder.clone());
        self.user_at
            .keep(holder.address, Some(holder.user_id.clone()));
    }

    /// SQLite has no holder at this address.
    pub fn keep_no_holder_at(&mut self, address: &Address) {
        self.user_at.keep(*address, None);
    }

    pub fn write_holder(&mut self, holder: &Holder) {
        let open = self.open();
        self.pages.forget_holder_pages();
        self.holders
            .write(holder.user_id.clone(), holder.clone(), open);
        self.user_at
            .write(holder.address, Some(holder.user_id.clone()), open);
    }

    pub fn balance(&self, token: &TokenAddress, owner: &Address) -> Option<Balance> {
        self.balances.get(&(*token, *owner))
    }

    pub fn keep_balance(&mut self, token: &TokenAddress, owner: &Address, balance: Balance) {
        self.balances.keep((*token, *owner), balance);
    }

    /// A balance written: the owner's holdings list stays only if the token's place in it
    /// (listed while above zero) is the same before and after.
    pub fn write_balance(&mut self, token: &TokenAddress, owner: &Address, balance: Balance) {
        let open = self.open();
        self.pages.forget_token(token);
        if let Some(list) = self.holdings.get(owner) {
            let held = balance.total().is_none_or(|t| t != Units::ZERO);
            if list.contains(token) != held {
                self.holdings.remove(owner);
            }
        }
        self.balances.write((*token, *owner), balance, open);
    }

    /// The chain state, and the transaction count SQLite holds.
    pub fn chain_state(&self) -> Option<(ChainState, u64)> {
        self.chain.get(&())
    }

    pub fn keep_chain_state(&mut self, state: &ChainState, stored_count: u64) {
        self.chain.keep((), (state.clone(), stored_count));
    }

    pub fn write_chain_state(&mut self, state: &ChainState, stored_count: u64) {
        let open = self.open();
        self.chain.write((), (state.clone(), stored_count), open);
    }

    pub fn relayer(&self) -> Option<Relayer> {
        self.relayer.get(&())
    }

    pub fn keep_relayer(&mut self, relayer: &Relayer) {
        self.relayer.keep((), relayer.clone());
    }

    pub fn write_relayer(&mut self, relayer: &Relayer) {
        let open = self.open();
        self.relayer.write((), relayer.clone(), open);
    }

    /// A holder's holdings, when the list and each of its rows are here (never inside a
    /// transaction).
    pub fn holdings(&self, owner: &Address) -> Option<Vec<(Token, Balance)>> {
        if self.open() {
            return None;
        }
        self.holdings
            .get(owner)?
            .iter()
            .map(|t| Some((self.tokens.get(t)?, self.balances.get(&(*t, *owner))?)))
            .collect()
    }

    pub fn keep_holdings(&mut self, owner: &Address, holdings: &[(Token, Balance)]) {
        if self.open() {
            return;
        }
        for (token, balance) in holdings {
            self.keep_token(token);
            self.keep_balance(&token.address, owner, *balance);
        }
        let list = holdings.iter().map(|(t, _)| t.address).collect();
        insert_capped(&mut self.holdings, MAX_LISTS, *owner, list);
    }

    pub fn locks(&self, owner: &Address) -> Option<Vec<Lock>> {
        (!self.open()).then(|| self.locks.get(owner).cloned())?
    }

    pub fn keep_locks(&mut self, owner: &Address, locks: &[Lock]) {
        if !self.open() {
            insert_capped(&mut self.locks, MAX_LISTS, *owner, locks.to_vec());
        }
    }

    pub fn write_lock(&mut self, owner: &Address) {
        self.locks.remove(owner);
    }

    /// A lock removed by its id: whose it was is not known here.
    pub fn remove_lock(&mut self) {
        self.locks.clear();
    }

    pub fn positions(&self, user_id: &UserId) -> Option<Vec<(Presale, Participant)>> {
        (!self.open()).then(|| self.positions.get(user_id).cloned())?
    }

    pub fn keep_positions(&mut self, user_id: &UserId, positions: &[(Presale, Participant)]) {
        if !self.open() {
            insert_capped(
                &mut self.positions,
                MAX_LISTS,
                user_id.clone(),
                positions.to_vec(),
            );
        }
    }

    /// A participant written: its row, the presale's first participants, its positions.
    pub fn write_participant(&mut self, presale: &PresaleId, participant: &Participant) {
        let open = self.open();
        self.positions.remove(&participant.user_id);
        self.participants.write(presale, participant, open);
    }

    pub fn participants(&self) -> &Participants {
        &self.participants
    }

    pub fn keep_participants(&mut self) -> &mut Participants {
        &mut self.participants
    }

    pub fn presale(&self, id: &PresaleId) -> Option<Presale> {
        self.presales.get(id)
    }

    pub fn keep_presale(&mut self, presale: &Presale) {
        self.presales.keep(presale.id.clone(), presale.clone());
    }

    /// A presale written; it is also part of every position in it.
    pub fn write_presale(&mut self, presale: &Presale) {
        let open = self.open();
        self.presales
            .write(presale.id.clone(), presale.clone(), open);
        self.positions.clear();
    }

    /// A token's pool: `Some(None)` when it is known that there is none.
    pub fn pool(&self, token: &TokenAddress) -> Option<Option<Pool>> {
        self.pools.get(token)
    }

    pub fn keep_pool(&mut self, token: &TokenAddress, pool: Option<&Pool>) {
        self.pools.keep(*token, pool.cloned());
    }

    pub fn write_pool(&mut self, pool: &Pool) {
        let open = self.open();
        self.pools.write(pool.token, Some(pool.clone()), open);
    }

    /// The token's pool is gone: it is known to have none.
    pub fn forget_pool(&mut self, token: &TokenAddress) {
        let open = self.open();
        self.pools.write(*token, None, open);
    }

    /// A history record written (inside a transaction: kept for its length).
    pub fn write_history(&mut self, seq: u64, record: &TxRecord) {
        self.pages.forget_history(&record.user_id);
        if self.open() {
            self.history.insert(seq, record.clone());
        }
    }

    /// The last number `table` gave, when known.
    fn last_seq(&self, table: Numbered) -> Option<u64> {
        self.seqs.get(&table)
    }

    /// The number `table`'s next row takes, when the last one given is known.
    pub fn next_seq(&self, table: Numbered) -> Option<u64> {
        self.last_seq(table)?.checked_add(1)
    }

    /// A row of `table` inserted with this number.
    pub fn write_seq(&mut self, table: Numbered, seq: u64) {
        let open = self.open();
        self.seqs.write(table, seq, open);
    }

    /// The kept pages (never inside a transaction).
    pub fn pages(&self) -> Option<&Pages> {
        (!self.open()).then_some(&self.pages)
    }

    /// The kept pages, to keep one read from SQLite (never inside a transaction).
    pub fn keep_pages(&mut self) -> Option<&mut Pages> {
        (!self.open()).then_some(&mut self.pages)
    }

    /// A history record the transaction under way wrote.
    pub fn history_at(&self, seq: u64) -> Option<TxRecord> {
        self.history.get(&seq).cloned()
    }

    /// An event inserted (with its sequence number).
    pub fn append_event(&mut self, event: &EventRecord) {
        let open = self.open();
        self.events.append(event, open);
    }

    /// An unrendered event appended inside a transaction, held back from SQLite and numbered
    /// (`events.rs`): its number, or `None` when it is to be inserted now.
    pub fn hold_event(&mut self, event: &EventRecord) -> Option<u64> {
        if !self.open() {
            return None;
        }
        self.events.hold(event)
    }

    /// A held event, to insert now (rendered or not).
    pub fn take_held_event(&mut self, seq: u64) -> Option<EventRecord> {
        self.events.take_held(seq)
    }

    /// Every held event, to insert now, unrendered.
    pub fn take_held_events(&mut self) -> Vec<EventRecord> {
        self.events.take_all_held()
    }

    /// Every unrendered event, oldest first, when that is known without SQLite.
    pub fn unsealed_events(&self) -> Option<Vec<EventRecord>> {
        self.events.unsealed(self.open())
    }

    /// What SQLite answered for the unrendered events.
    pub fn keep_unsealed_events(&mut self, events: &[EventRecord]) {
        let open = self.open();
        self.events.keep_unsealed(events, open);
    }

    /// An event rendered.
    pub fn seal_event(&mut self, seq: u64) {
        self.events.seal(seq);
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests;
