//! What the object keeps in memory between requests: the service clock's offset and the
//! merchant record, each a copy of committed state, so a request reads neither from SQLite.

use super::{Clock, MerchantObject, CLOCK_KEY};
use crate::adapters::sql::SqlStore;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
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
        Ok(worker::Date::now().as_millis() + self.offset()?)
    }

    /// The merchant record as committed: the copy in memory, or read (outside transactions).
    pub(super) fn hot_merchant(&self, store: &SqlStore) -> Result<Option<Merchant>> {
        if self.merchant_written.replace(false) {
            self.merchant.replace(None);
        }
        if let Some(m) = self.merchant.borrow().as_ref() {
            return Ok(Some(m.clone()));
        }
        let read = store.merchant()?;
        self.merchant.replace(read.clone());
        Ok(read)
    }
}
