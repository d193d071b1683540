//! A holder's newest history page (`GET /holder/:userId/transactions` without a cursor), the
//! read a wallet polls, answered with the JSON text the last identical read wrote. Served
//! from the kept page alone (`adapters/cache/pages.rs`), a page of 50 records still cloned
//! each record, converted it to its wire form, looked it up by its whole form in the
//! rendered-row memo (`render.rs`) and wrote the page around the kept texts: 40 % of the
//! ledger's samples in a profile of the benchmark's history route, for the same bytes as the
//! read before.
//!
//! Nothing kept can be stale: the text lives with the page it was written from, and a history
//! record of the holder appended or rewritten, committed or rolled back, forgets both. What
//! the answer shows besides the records is in the key: the limit asked for, and why settlement
//! is stopped (a page with records still open says so, `TxPage::waiting`). Who may read the
//! page was decided before (`scope::authorize`), and the page looks the same to every caller
//! allowed to.

use crate::adapters::cache::TextKey;
use crate::adapters::sql::SqlStore;
use tokenpad_core::model::ids::{TokenAddress, UserId};
use tokenpad_core::ops::Ctx;
use tokenpad_core::wire::ledger::LedgerOp;
use tokenpad_core::wire::{settlement, Op};

/// Which holder's page, filtered to which token, read how.
pub struct Key {
    user_id: UserId,
    token: Option<TokenAddress>,
    text: TextKey,
}

impl Key {
    /// The key of `op` when it reads a holder's newest page; `None` for every other operation
    /// (a page after a cursor among them: it is read from SQLite each time).
    pub fn of(store: &SqlStore, ctx: &Ctx, op: &Op) -> Option<Key> {
        let Op::Ledger(LedgerOp::History(user_id, q)) = op else {
            return None;
        };
        if q.before.is_some() {
            return None;
        }
        let note = settlement::stopped(store, ctx).ok()?;
        Some(Key {
            user_id: user_id.clone(),
            token: q.token,
            text: TextKey {
                limit: q.limit,
                note,
            },
        })
    }

    /// The text kept for this read, while its page is kept.
    pub fn get(&self, store: &SqlStore) -> Option<String> {
        store.history_text(&self.user_id, self.token.as_ref(), &self.text)
    }

    /// Keeps what this read answered (with 200) with the page it was written from.
    pub fn keep(self, store: &SqlStore, text: &str) {
        store.keep_history_text(&self.user_id, self.token.as_ref(), self.text, text);
    }
}
