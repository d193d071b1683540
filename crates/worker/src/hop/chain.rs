//! What a merchant's object tells the edge for the operator's chain routes: the ledger's side
//! of settlement (`ChainView`) and of each completed step (`StepsView`); the edge asks the
//! chain and compares.

use serde::{Deserialize, Serialize};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::{LockId, PresaleId, TokenAddress};
use tokenpad_core::model::intent::Intent;
use tokenpad_core::model::settlement::{ChainTx, Relayer};
use tokenpad_core::ops::settle::reconcile::{Expected, PoolState};
use tokenpad_core::ops::stuck::Issue;

/// A merchant's settlement as its ledger sees it: the edge adds what the chain says.
#[derive(Debug, Serialize, Deserialize)]
pub struct ChainView {
    pub relayer_address: Address,
    pub relayer: Relayer,
    pub open_movements: u64,
    pub open_txs: Vec<ChainTx>,
    pub failed: Vec<Intent>,
    pub expected: Vec<Expected>,
    pub pools: Vec<PoolState>,
    /// Movements parked for an operator, oldest first.
    #[serde(default)]
    pub parked: Vec<Intent>,
    /// What holds settlement up (`ops::stuck`), and what only waits.
    #[serde(default)]
    pub stuck: Vec<Issue>,
    #[serde(default)]
    pub waiting: Vec<Issue>,
    /// `CHAIN_STUCK_AFTER_MS` (None on the embedded chain).
    #[serde(default)]
    pub stuck_after_ms: Option<u64>,
}

/// What the ledger says each completed step left on chain (reconciliation's `steps`): only
/// what no open movement is still changing.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct StepsView {
    pub locks: Vec<LedgerLock>,
    pub pools: Vec<OpenPool>,
    pub launches: Vec<LaunchRaise>,
}

/// A presale buyer's lock in the lock contract, as the ledger has it.
#[derive(Debug, Serialize, Deserialize)]
pub struct LedgerLock {
    pub lock: LockId,
    /// Its key in the lock contract (`locker::key(treasury, id)`).
    pub key: [u8; 32],
    pub token: TokenAddress,
    pub beneficiary: Address,
    /// Still locked in the ledger: the amount and unlock time (UNIX seconds) it booked. None:
    /// the ledger released it (its release confirmed), so the chain must have too.
    pub locked: Option<(Units, u64)>,
}

/// A pool the ledger has open (its opening mined).
#[derive(Debug, Serialize, Deserialize)]
pub struct OpenPool {
    pub token: TokenAddress,
    pub symbol: String,
    pub pool: Address,
    /// The position the market contract keeps (`lpInfo.nftId`).
    pub position_id: u64,
}

/// A launched presale: its raise went into its pool with the opening.
#[derive(Debug, Serialize, Deserialize)]
pub struct LaunchRaise {
    pub presale: PresaleId,
    pub token: TokenAddress,
    pub pool: Address,
    /// The raise, in USDC base units.
    pub raise: u128,
    /// The pool opening's transaction (`completionState.transactions.swapTx`).
    pub swap_tx: String,
}
