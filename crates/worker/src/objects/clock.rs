//! The service clock of a merchant's object, which its live hub shares: real time plus the
//! time-travel offset the object keeps in storage (0 unless a local run moved the clock).
//! One copy of the offset in memory for both, read from storage once and set only after a
//! write of it succeeded. (The hub once kept a copy of its own, learned from the object's
//! writes and 0 until one: an instance that pushed before any write, as one that just
//! started does to the sockets following it, pushed on real time.)

use crate::adapters::sql::SqlStore;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::rc::Rc;
use tokenpad_core::model::time::Millis;
use tokenpad_core::Result;

const CLOCK_KEY: &str = "clock";

/// The offset as stored.
#[derive(Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    offset_ms: Millis,
}

/// The offset, as stored (`CLOCK_KEY`), once read; cheap to clone (one shared copy).
#[derive(Clone, Default)]
pub struct ServiceClock(Rc<Cell<Option<Millis>>>);

impl ServiceClock {
    /// The offset from real time: the copy in memory, or read from `store`.
    pub fn offset(&self, store: &SqlStore) -> Result<Millis> {
        if let Some(offset) = self.0.get() {
            return Ok(offset);
        }
        let offset = store
            .meta::<Stored>(CLOCK_KEY)?
            .unwrap_or_default()
            .offset_ms;
        self.0.set(Some(offset));
        Ok(offset)
    }

    /// Stores the offset, then keeps it in memory.
    pub fn set_offset(&self, store: &SqlStore, offset_ms: Millis) -> Result<()> {
        self.0.set(None);
        store.put_meta(CLOCK_KEY, &Stored { offset_ms })?;
        self.0.set(Some(offset_ms));
        Ok(())
    }

    /// The service clock now.
    pub fn now(&self, store: &SqlStore) -> Result<Millis> {
        Ok(crate::clock::now_ms().saturating_add(self.offset(store)?))
    }
}
