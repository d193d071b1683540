//! Balances and locks: what an address holds of a token.

use super::address::Address;
use super::amount::Units;
use super::ids::{LockId, TokenAddress};
use super::time::Millis;
use serde::{Deserialize, Serialize};

/// An address's balance of one token: `active` can move, `locked` waits for its unlock date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    pub active: Units,
    pub locked: Units,
}

impl Balance {
    pub fn total(&self) -> Option<Units> {
        self.active.checked_add(self.locked)
    }
}

/// Tokens of one owner that unlock at one time (presale allocations).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    pub id: LockId,
    pub token: TokenAddress,
    pub owner: Address,
    pub amount: Units,
    pub unlock_at: Millis,
    /// On an EVM chain with tokenpad's lock contract: the tokens are held by the contract
    /// until they are released to the owner at unlock. Otherwise (the embedded chain, locks
    /// made before the contract) they sit in the owner's wallet and the ledger keeps them
    /// locked.
    #[serde(default)]
    pub vault: bool,
}
