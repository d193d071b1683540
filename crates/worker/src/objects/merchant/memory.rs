//! What the object keeps in memory between requests ([`Kept`]): the service clock's offset,
//! the merchant record, its API keys and when the next scheduled item is due, each a copy of committed
//! state, so a request reads none of them from SQLite; and answers already rendered (rows of
//! the pages readers poll, `render.rs`; a presale's reads, `presale_texts.rs`). The ledger's
//! rows (tokens, holders, balances, a holder's lists) are kept the same way, by the stores
//! themselves: `adapters/cache/mod.rs`. Whether there are webhooks is kept by `webhooks.rs`.

use super::{presale_texts, render, MerchantObject};
use crate::adapters::sql::SqlStore;
use crate::objects::clock::ServiceClock;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use tokenpad_core::model::key::ApiKey;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::store::Store;
use tokenpad_core::Result;

/// Copies of committed state and of answers, each forgotten when a write makes it stale.
#[derive(Default)]
pub(super) struct Kept {
    /// The service clock's offset as stored, read once: it is written only by `init` and
    /// `advance`, outside any transaction, and this copy is set after each write succeeded,
    /// so it never holds a value SQLite does not. The live hub shares it (`objects/clock.rs`).
    pub(super) clock: ServiceClock,
    /// The merchant record, for API calls, read once from SQLite outside any transaction
    /// (so it is always committed state). Any write of the record through this object's
    /// stores, committed or rolled back, raises `watch.merchant`, and the next API call
    /// reads the record again: a failed transaction can never leave its change here.
    merchant: RefCell<Option<Merchant>>,
    /// The merchant's API key records, kept as the merchant record is: read outside any
    /// transaction, forgotten when any store of this object writes a key (`watch.keys`), so
    /// a key revoked or rolled is refused by the very next request, and a key checks without
    /// a query.
    keys: RefCell<Option<Vec<ApiKey>>>,
    /// When the earliest scheduled item is due (`Some(None)`: nothing is scheduled; `None`:
    /// not known), read outside transactions like the merchant record and forgotten the same
    /// way, when any store of this object writes the schedule (`watch.schedule`): a request
    /// with nothing due runs no query to find that out.
    due_at: Cell<Option<Option<Millis>>>,
    /// The rows of the pages readers poll (history records, token holder rows) kept as the
    /// JSON they were written as.
    pub(super) rendered: Rc<RefCell<render::Rendered>>,
    /// A presale's reads kept as the text they answered, until a presale is written.
    pub(super) presale_texts: Rc<RefCell<presale_texts::PresaleTexts>>,
}

impl MerchantObject {
    pub(super) fn offset(&self) -> Result<Millis> {
        self.kept.clock.offset(&self.store()?)
    }

    /// Stores the clock's offset, then keeps it in memory.
    pub(super) fn set_offset(&self, offset_ms: Millis) -> Result<()> {
        self.kept.clock.set_offset(&self.store()?, offset_ms)
    }

    /// The service clock: real time plus the time-travel offset (0 unless a local run moved it).
    pub(super) fn now(&self) -> Result<Millis> {
        self.kept.clock.now(&self.store()?)
    }

    /// The merchant record as committed: the copy in memory, or read (outside transactions).
    pub(super) fn hot_merchant(&self, store: &SqlStore) -> Result<Option<Merchant>> {
        if self.watch.merchant.replace(false) {
            self.kept.merchant.replace(None);
        }
        if let Some(m) = self.kept.merchant.borrow().as_ref() {
            return Ok(Some(m.clone()));
        }
        let read = store.merchant()?;
        self.kept.merchant.replace(read.clone());
        Ok(read)
    }

    /// The merchant's API keys as committed: the copy in memory, or read (outside
    /// transactions) when a write of a key, or none yet, left it unknown.
    pub(super) fn hot_keys(&self, store: &SqlStore) -> Result<Vec<ApiKey>> {
        if self.watch.keys.replace(false) {
            self.kept.keys.replace(None);
        }
        if let Some(keys) = self.kept.keys.borrow().as_ref() {
            return Ok(keys.clone());
        }
        let read = store.api_keys()?;
        self.kept.keys.replace(Some(read.clone()));
        Ok(read)
    }

    /// When the earliest scheduled item is due (None: nothing is scheduled), as committed:
    /// the copy in memory, or read (outside transactions) when a write of the schedule, or
    /// none yet, left it unknown.
    pub(super) fn hot_due(&self) -> Result<Option<Millis>> {
        if self.watch.schedule.replace(false) {
            self.kept.due_at.set(None);
        }
        if let Some(at) = self.kept.due_at.get() {
            return Ok(at);
        }
        let at = self.store()?.next_due()?;
        // A write of the schedule during the read (none can happen: the read is synchronous)
        // would leave the flag up, and the next call reads again.
        self.kept.due_at.set(Some(at));
        Ok(at)
    }
}
