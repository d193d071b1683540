//! The debts a history made (`Token::owed`), for `--stats`: each distinct debt (its token,
//! who owes, to whom, since what) counted once, by kind, so a sweep shows how often pools
//! owed an outside trader and how often such a claim was carried on (`ops::settle::claims`).
//! Counting only: `check::no_debt_left` is the invariant.

use std::collections::{BTreeMap, BTreeSet};
use tokenpad_core::model::intent::{OwedSince, Reserve, Side};
use tokenpad_core::store::mem::MemStore;

/// The debts seen so far in one history.
#[derive(Default)]
pub struct Seen {
    debts: BTreeSet<(String, String)>,
}

impl Seen {
    /// Notes every debt the ledger holds now.
    pub fn note(&mut self, store: &MemStore) {
        for t in &store.tokens {
            for d in &t.owed {
                let id = format!("{:?} {:?} {:?} {:?}", t.address, d.by, d.to, d.since);
                let kind = format!(
                    "debt: {} owes {} ({})",
                    side(store, &d.by),
                    side(store, &d.to),
                    since(d.since)
                );
                self.debts.insert((id, kind));
            }
        }
    }

    /// How many debts of each kind were seen.
    pub fn counts(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for (_, kind) in &self.debts {
            *counts.entry(kind.clone()).or_default() += 1;
        }
        counts
    }
}

fn side(store: &MemStore, s: &Side) -> &'static str {
    match s {
        Side::Row(a) if store.holders.iter().any(|h| h.address == *a) => "a holder",
        Side::Row(_) => "an outside address",
        Side::Locked(..) => "a lock",
        Side::Reserve(Reserve::Pooled(_)) => "a pool",
        Side::Reserve(Reserve::Minted) => "the mint",
        Side::Reserve(_) => "a reserve",
    }
}

fn since(s: OwedSince) -> &'static str {
    match s {
        OwedSince::Intent(_) => "an undo",
        OwedSince::TopUp(_) => "a top-up",
        OwedSince::Log { .. } => "a Transfer log",
        OwedSince::Rewound { .. } => "a rewound log",
    }
}
