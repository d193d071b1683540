//! One kind of row the object's cache keeps (`cache/mod.rs`): the committed values, and the writes
//! of the transaction under way, held apart until it ends.

use super::pages::insert_capped;
use std::collections::HashMap;
use std::hash::Hash;

/// One kind of row: the committed values, and the writes of the transaction under way.
pub(super) struct Table<K, V> {
    committed: HashMap<K, V>,
    pending: HashMap<K, V>,
    cap: usize,
}

impl<K: Eq + Hash + Clone, V: Clone> Table<K, V> {
    pub(super) fn new(cap: usize) -> Self {
        Table {
            committed: HashMap::new(),
            pending: HashMap::new(),
            cap,
        }
    }

    pub(super) fn get(&self, key: &K) -> Option<V> {
        self.pending
            .get(key)
            .or_else(|| self.committed.get(key))
            .cloned()
    }

    /// A row as SQLite returned it: committed, unless this transaction wrote it.
    pub(super) fn keep(&mut self, key: K, value: V) {
        if !self.pending.contains_key(&key) {
            insert_capped(&mut self.committed, self.cap, key, value);
        }
    }

    pub(super) fn write(&mut self, key: K, value: V, open: bool) {
        if open {
            self.pending.insert(key, value);
        } else {
            self.committed.remove(&key);
        }
    }
}

/// What a transaction's end does to a table, whatever its rows.
pub(super) trait Pending {
    fn commit(&mut self);
    fn roll_back(&mut self);
}

impl<K: Eq + Hash + Clone, V: Clone> Pending for Table<K, V> {
    fn commit(&mut self) {
        for (key, value) in std::mem::take(&mut self.pending) {
            insert_capped(&mut self.committed, self.cap, key, value);
        }
    }

    fn roll_back(&mut self) {
        for key in std::mem::take(&mut self.pending).into_keys() {
            self.committed.remove(&key);
        }
    }
}
