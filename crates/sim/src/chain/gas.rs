//! The gas a relayer's transaction needs on the simulated chain, and the limit it is held to:
//! a transaction given less than it needs runs out of gas (its receipt fails, all its gas
//! used), as on a real chain. The settler's estimate (`eth_estimateGas`) answers this figure.
//! A flat schedule: a transaction's base cost, and a cost per movement by its kind.

use tokenpad_core::model::intent::Action;

/// What every transaction costs.
pub const BASE: u64 = 21_000;

/// The reason of a receipt that ran out of gas.
pub const OUT_OF_GAS: &str = "out of gas";

/// The gas a transaction carrying `actions` needs.
pub fn need<'a>(actions: impl IntoIterator<Item = &'a Action>) -> u64 {
    actions.into_iter().fold(BASE, |total, a| {
        total.saturating_add(match a {
            Action::Transfer { .. } => 40_000,
            Action::Release { .. } => 60_000,
            _ => 150_000,
        })
    })
}
