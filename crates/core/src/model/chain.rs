//! Which chain a merchant's ledger settles on, and the embedded chain's state and clock.
//!
//! - The embedded chain (the default): every movement gets a transaction hash at once,
//!   transactions land in 2-second blocks, and contracts deploy at the Ethereum CREATE
//!   address of the merchant's wallet and nonce.
//! - An EVM chain (`CHAIN=evm`): movements are recorded in the ledger at once and queued as
//!   intents (`model::intent`) that the worker's settler signs, sends and watches; a token's
//!   address is its CREATE2 address from the tokenpad factory, known before it is deployed.

use super::address::Address;
use super::time::Millis;
use serde::{Deserialize, Serialize};

/// The chain the ledger settles on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChainMode {
    #[default]
    Embedded,
    Evm(EvmChain),
}

/// An EVM chain's facts the core needs (the RPC URL is the worker's, and a secret).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvmChain {
    pub chain_id: u64,
    /// The tokenpad factory that deploys tokens (CREATE2).
    pub factory: Address,
    /// keccak256 of `TokenpadToken`'s creation code (the same for every token).
    pub token_code_hash: [u8; 32],
}

impl ChainMode {
    pub fn is_evm(&self) -> bool {
        matches!(self, ChainMode::Evm(_))
    }

    /// `embedded` or `evm`.
    pub fn kind(&self) -> &'static str {
        match self {
            ChainMode::Embedded => "embedded",
            ChainMode::Evm(_) => "evm",
        }
    }
}

/// keccak256 of `TokenpadToken`'s creation code (`contracts/build/TokenpadToken.json`'s
/// bytecode): part of every token's CREATE2 address. A test rebuilds it from the artifact.
pub const TOKEN_CODE_HASH: &str =
    "0x7fe97daaf91c535d54ec81e37fac4d79229347ba1828ae110468b3ca41ff62fc";

pub const BLOCK_MS: Millis = 2_000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainState {
    /// The merchant wallet's next CREATE nonce.
    pub deploy_nonce: u64,
    /// The last movement number handed out; the next is one past it. Part of every embedded
    /// hash and of every movement id, so no two are equal. The worker stores it reserved
    /// ahead in blocks (`adapters/sql_rows.rs`): after a restart numbering resumes past the
    /// block, with a gap, never a repeat.
    pub tx_count: u64,
    /// Fault injection (local runs and tests only): this many of the next fallible
    /// submissions fail, so retries and backoff can be exercised end to end.
    #[serde(default)]
    pub fail_next: u32,
    /// Liquidity positions opened so far: the next position's id.
    #[serde(default)]
    pub positions: u64,
    /// Fault injection (an EVM chain; local runs and tests): the settler's next this many
    /// transactions are stored, signed, and not sent, as if the object stopped in between.
    #[serde(default)]
    pub halt_after_signing: u32,
}

/// The block a transaction submitted at `at` is mined in.
pub fn block_number(at: Millis) -> u64 {
    at / BLOCK_MS
}

/// When a transaction submitted at `at` is mined: the start of the next block.
pub fn mined_at(submitted: Millis) -> Millis {
    (submitted / BLOCK_MS + 1) * BLOCK_MS
}
