//! Operations: one file per resource, each operation checks everything, then applies.
//!
//! An operation takes its typed request (decoded by `crate::wire`), reads and writes records
//! through the storage port, and returns records or a small result. It never formats an
//! answer: `crate::wire` turns results into the responses clients see.

pub mod accounts;
pub mod chain;
pub mod deployment;
pub mod due;
pub mod event;
pub mod history;
pub mod holder;
pub mod idempotency;
pub mod job;
pub mod keys;
pub mod launch;
pub mod ledger;
pub mod market;
pub mod merchant;
pub mod presale;
pub mod session;
pub mod settings;
pub mod settle;
pub mod stuck;
pub mod token;
pub mod undo;
pub mod webhook;

use crate::model::chain::ChainMode;
use crate::model::merchant::Merchant;
use crate::model::time::Millis;

/// What every operation is given: the time, who it runs for, and the chain it settles on.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub now: Millis,
    pub merchant: Merchant,
    pub chain: ChainMode,
}

impl Ctx {
    /// The same merchant at another moment (scheduled work runs at its due time).
    pub fn at(&self, now: Millis) -> Ctx {
        Ctx {
            now,
            merchant: self.merchant.clone(),
            chain: self.chain.clone(),
        }
    }
}
