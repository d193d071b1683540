//! What the object keeps of its callers between requests ([`Callers`]): their budgets
//! (`budgets.rs`) and when idempotency records were last pruned. Who a caller is, and what
//! it may do, is decided once per request by the core's pipeline (`tokenpad_core::serve::admit`,
//! then `wire::scope::authorize`), over this object's ports (`ports.rs`).

use std::cell::{Cell, RefCell};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ratelimit::budgets::Budgets;

/// What the object keeps of its callers between requests.
pub(super) struct Callers {
    /// The requests they may still make (`budgets.rs`).
    pub(super) budgets: RefCell<Budgets>,
    /// When idempotency records older than a day were last forgotten (service time).
    pub(super) idempotency_pruned_at: Cell<Millis>,
}

impl Callers {
    pub(super) fn new(budgets: Budgets) -> Callers {
        Callers {
            budgets: RefCell::new(budgets),
            idempotency_pruned_at: Cell::new(0),
        }
    }
}
