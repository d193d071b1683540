//! The embedded chain's state and clock: every movement gets a transaction hash, transactions
//! land in 2-second blocks, and contracts deploy at the Ethereum CREATE address of the
//! merchant's wallet and nonce.

use super::time::Millis;
use serde::{Deserialize, Serialize};

pub const BLOCK_MS: Millis = 2_000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainState {
    /// The merchant wallet's next CREATE nonce.
    pub deploy_nonce: u64,
    /// Transactions submitted so far; part of every hash, so no two hashes are equal.
    pub tx_count: u64,
    /// Fault injection (local runs and tests only): this many of the next fallible
    /// submissions fail, so retries and backoff can be exercised end to end.
    #[serde(default)]
    pub fail_next: u32,
    /// Liquidity positions opened so far: the next position's id.
    #[serde(default)]
    pub positions: u64,
}

/// The block a transaction submitted at `at` is mined in.
pub fn block_number(at: Millis) -> u64 {
    at / BLOCK_MS
}

/// When a transaction submitted at `at` is mined: the start of the next block.
pub fn mined_at(submitted: Millis) -> Millis {
    (submitted / BLOCK_MS + 1) * BLOCK_MS
}
