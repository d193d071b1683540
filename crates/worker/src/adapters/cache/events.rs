//! The event log's part of the object's cache (`cache/mod.rs`): which events are left to render,
//! and the events a transaction appended that SQLite has not been given yet.
//!
//! A write appends its events unrendered and renders them as its transaction ends
//! (`wire::event::seal`), so a payload shows its resource as the change left it. An event
//! appended inside a transaction is held here instead of inserted, numbered as the log's
//! AUTOINCREMENT would number it, and inserted once, rendered, when it is sealed: one
//! statement where an insert and then an update were two. The number comes from the last one
//! the log gave, known from an insert's `RETURNING` (the first event after the object starts,
//! or after a rollback, is inserted as before and tells it); the log's sequence then moves
//! with each explicit number inserted. A held event is inserted unrendered as soon as anything
//! reads the log, and when its transaction ends unsealed (`txn.rs`), so it is never lost and
//! every read sees it. A transaction rolled back forgets what it held and the number.

use tokenpad_core::model::event::EventRecord;

#[derive(Default)]
pub struct EventLog {
    /// Events the transaction under way appended or found unrendered, and has not rendered.
    unsealed: Vec<EventRecord>,
    /// `unsealed` is every unrendered event there is (inside a transaction).
    unsealed_exact: bool,
    /// SQLite holds no unrendered event (committed state; false: not known).
    none_unsealed: bool,
    /// Of `unsealed`, the numbers of those not inserted yet.
    held: Vec<u64>,
    /// The last number the log gave, when known (committed, or this transaction's).
    last_seq: Option<u64>,
}

impl EventLog {
    /// The outermost transaction begins.
    pub fn begin(&mut self) {
        self.unsealed_exact = self.none_unsealed;
    }

    /// The outermost transaction ended; `keep`: committed, and nothing ran nested in it.
    pub fn end(&mut self, keep: bool, nested: bool) {
        let unsealed = std::mem::take(&mut self.unsealed);
        let exact = std::mem::take(&mut self.unsealed_exact);
        self.held.clear();
        if keep {
            self.none_unsealed = exact && unsealed.is_empty();
        } else {
            self.last_seq = None;
            if nested {
                // A rolled-back transaction leaves the events as they were, unless it ran
                // inside another (whose events are not known here).
                self.none_unsealed = false;
            }
        }
    }

    /// An event inserted (with its number); `open`: inside a transaction.
    pub fn append(&mut self, event: &EventRecord, open: bool) {
        self.last_seq = Some(event.seq);
        if event.data.is_some() {
            return;
        }
        if open {
            self.unsealed.push(event.clone());
        } else {
            self.none_unsealed = false;
        }
    }

    /// Holds an unrendered event appended inside a transaction, numbered next: its number,
    /// or `None` when the next number is not known (then it is inserted).
    pub fn hold(&mut self, event: &EventRecord) -> Option<u64> {
        let seq = self.last_seq?.checked_add(1)?;
        self.last_seq = Some(seq);
        let mut held = event.clone();
        held.seq = seq;
        self.unsealed.push(held);
        self.held.push(seq);
        Some(seq)
    }

    /// A held event, no longer held (its insert is the caller's).
    pub fn take_held(&mut self, seq: u64) -> Option<EventRecord> {
        let at = self.held.iter().position(|s| *s == seq)?;
        self.held.remove(at);
        self.unsealed.iter().find(|e| e.seq == seq).cloned()
    }

    /// Every held event, oldest first, no longer held (their inserts are the caller's).
    pub fn take_all_held(&mut self) -> Vec<EventRecord> {
        let held = std::mem::take(&mut self.held);
        self.unsealed
            .iter()
            .filter(|e| held.contains(&e.seq))
            .cloned()
            .collect()
    }

    /// Every unrendered event, oldest first, when that is known without SQLite.
    pub fn unsealed(&self, open: bool) -> Option<Vec<EventRecord>> {
        if open {
            return self.unsealed_exact.then(|| self.unsealed.clone());
        }
        self.none_unsealed.then(Vec::new)
    }

    /// What SQLite answered for the unrendered events (nothing was held: a read of the log
    /// inserts what was).
    pub fn keep_unsealed(&mut self, events: &[EventRecord], open: bool) {
        if open {
            self.unsealed = events.to_vec();
            self.unsealed_exact = true;
        } else {
            self.none_unsealed = events.is_empty();
        }
    }

    /// An event rendered.
    pub fn seal(&mut self, seq: u64) {
        self.unsealed.retain(|e| e.seq != seq);
    }
}
