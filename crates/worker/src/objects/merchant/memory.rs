//! What the object keeps in memory between requests: the service clock's offset, the
//! merchant record, when the next scheduled item is due and whether there are webhooks, each
//! a copy of committed state, so a request reads none of them from SQLite. The ledger's rows
//! (tokens, holders, balances, a holder's lists) are kept the same way, by the stores
//! themselves: `adapters/cache/mod.rs`.

use super::{Clock, MerchantObject, CLOCK_KEY};
use crate::adapters::sql::SqlStore;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::events::EventStore;
use tokenpad_core::store::Store;
use tokenpad_core::Result;

impl MerchantObject {
    pub(super) fn offset(&self) -> Result<Millis> {
        if let Some(offset) = self.offset_ms.get() {
            return Ok(offset);
        }
        let offset = self
            .store()?
            .meta::<Clock>(CLOCK_KEY)?
            .unwrap_or_default()
            .offset_ms;
        self.offset_ms.set(Some(offset));
        Ok(offset)
    }

    /// Stores the clock's offset, then keeps it in memory.
    pub(super) fn set_offset(&self, offset_ms: Millis) -> Result<()> {
        self.offset_ms.set(None);
        self.store()?.put_meta(CLOCK_KEY, &Clock { offset_ms })?;
        self.offset_ms.set(Some(offset_ms));
        Ok(())
    }

    /// The service clock: real time plus the time-travel offset (0 unless a local run moved it).
    pub(super) fn now(&self) -> Result<Millis> {
        Ok(crate::clock::now_ms() + self.offset()?)
    }

    /// The merchant record as committed: the copy in memory, or read (outside transactions).
    pub(super) fn hot_merchant(&self, store: &SqlStore) -> Result<Option<Merchant>> {
        if self.watch.merchant.replace(false) {
            self.merchant.replace(None);
        }
        if let Some(m) = self.merchant.borrow().as_ref() {
            return Ok(Some(m.clone()));
        }
        let read = store.merchant()?;
        self.merchant.replace(read.clone());
        Ok(read)
    }

    /// When the earliest scheduled item is due (None: nothing is scheduled), as committed:
    /// the copy in memory, or read (outside transactions) when a write of the schedule, or
    /// none yet, left it unknown.
    pub(super) fn hot_due(&self) -> Result<Option<Millis>> {
        if self.watch.schedule.replace(false) {
            self.due_at.set(None);
        }
        if let Some(at) = self.due_at.get() {
            return Ok(at);
        }
        let at = self.store()?.next_due()?;
        // A write of the schedule during the read (none can happen: the read is synchronous)
        // would leave the flag up, and the next call reads again.
        self.due_at.set(Some(at));
        Ok(at)
    }

    /// Whether the merchant has webhooks, as committed: the copy in memory, or read (outside
    /// transactions) when a write of a webhook, or none yet, left it unknown.
    pub(super) fn hot_has_webhooks(&self, store: &SqlStore) -> Result<bool> {
        if self.watch.webhooks.replace(false) {
            self.has_webhooks.set(None);
        }
        if let Some(any) = self.has_webhooks.get() {
            return Ok(any);
        }
        let any = !store.webhooks()?.is_empty();
        self.has_webhooks.set(Some(any));
        Ok(any)
    }
}
