//! Which chain a merchant's ledger settles on, and the embedded chain's state and clock.
//!
//! - The embedded chain (the default): every movement gets a transaction hash at once,
//!   transactions land in 2-second blocks, and contracts deploy at the Ethereum CREATE
//!   address of the merchant's wallet and nonce.
//! - An EVM chain (`CHAIN=evm`): movements are recorded in the ledger at once and queued as
//!   intents (`model::intent`) that the worker's settler signs, sends and watches; a token's
//!   address is its CREATE2 address from the tokenpad factory, known before it is deployed.

use super::address::Address;
use super::ids::TokenAddress;
use super::time::Millis;
use super::token::{Network, USDC_ADDRESS};
use alloy_primitives::U256;
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
    /// The network `chain_id` is (what tokens and deployments say they are on).
    pub network: Network,
    /// The tokenpad factory that deploys tokens (CREATE2).
    pub factory: Address,
    /// keccak256 of `TokenpadToken`'s creation code (the same for every token).
    pub token_code_hash: [u8; 32],
    /// The chain's USDC contract: the address USDC balances are reported under.
    pub usdc: Address,
    /// Uniswap v3 and tokenpad's market on this chain; None: pools cannot open here.
    pub markets: Option<Markets>,
    /// tokenpad's lock contract, which holds presale allocations until they unlock; None:
    /// allocations go to the buyers' wallets and only the ledger locks them.
    #[serde(default)]
    pub locker: Option<Address>,
    /// How deep a block is final (`CHAIN_FINALITY`): until then the settler checks that the
    /// blocks holding its receipts are still the chain's, follows a reorganization that
    /// drops one, and waits before acting on a revert. 0: receipts are final at once.
    #[serde(default)]
    pub finality: u64,
}

/// Where a chain's pools live.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Markets {
    /// Uniswap v3's factory: a pool's address is its CREATE2 address.
    pub uniswap_factory: Address,
    /// tokenpad's market contract (opens pools, keeps their positions, swaps for holders).
    pub market: Address,
}

/// keccak256 of Uniswap v3's pool creation code (`POOL_INIT_CODE_HASH`): the same on every
/// chain, part of every pool's address.
pub const UNISWAP_V3_POOL_INIT_CODE_HASH: [u8; 32] = [
    0xe3, 0x4f, 0x19, 0x9b, 0x19, 0xb2, 0xb4, 0xf4, 0x7f, 0x68, 0x44, 0x26, 0x19, 0xd5, 0x55, 0x52,
    0x7d, 0x24, 0x4f, 0x78, 0xa3, 0x29, 0x7e, 0xa8, 0x93, 0x25, 0xf8, 0x43, 0xf8, 0x7b, 0x8b, 0x54,
];

impl ChainMode {
    pub fn is_evm(&self) -> bool {
        matches!(self, ChainMode::Evm(_))
    }

    /// The address USDC is kept and reported under: the chain's USDC contract on an EVM
    /// chain, Base's on the embedded chain.
    pub fn usdc(&self) -> TokenAddress {
        match self {
            ChainMode::Embedded => USDC_ADDRESS,
            ChainMode::Evm(e) => TokenAddress(e.usdc),
        }
    }

    /// The chain's token for a ledger's token (`token::on_chain`).
    pub fn on_chain(&self, token: TokenAddress) -> TokenAddress {
        super::token::on_chain(self.usdc(), token)
    }

    /// How deep a block is final (0 on the embedded chain, which never reorganizes).
    pub fn finality(&self) -> u64 {
        match self {
            ChainMode::Embedded => 0,
            ChainMode::Evm(e) => e.finality,
        }
    }

    /// tokenpad's lock contract, on an EVM chain that has one.
    pub fn locker(&self) -> Option<Address> {
        match self {
            ChainMode::Embedded => None,
            ChainMode::Evm(e) => e.locker,
        }
    }

    /// The network new tokens are on: the chain's own on an EVM chain; on the embedded chain
    /// the one asked for (Base by default).
    pub fn network(&self, asked: Option<Network>) -> Network {
        match self {
            ChainMode::Embedded => asked.unwrap_or(Network::Base),
            ChainMode::Evm(e) => e.network,
        }
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
    "0x6788d5f46694750af2f4298993a6689feece4a5c23bb724e8efbad150a34c533";

pub const BLOCK_MS: Millis = 2_000;

/// What a pool, or tokenpad's market contract, reported on chain (decoded from its logs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolEvent {
    /// A swap: the pool's deltas (positive: paid into the pool) and its state after it.
    Swap {
        pool: Address,
        amount0: i128,
        amount1: i128,
        sqrt_price_x96: U256,
        liquidity: u128,
        tick: i32,
        at: ChainPoint,
        tx: String,
    },
    /// Liquidity added (`Mint`) or removed (`Burn`: negative) in `[tick_lower, tick_upper]`.
    Liquidity {
        pool: Address,
        tick_lower: i32,
        tick_upper: i32,
        amount: i128,
        at: ChainPoint,
        tx: String,
    },
    /// tokenpad's market opened a pool: the position it minted and what it took.
    Opened {
        pool: Address,
        position_id: u64,
        liquidity: u128,
        amount0: u128,
        amount1: u128,
        at: ChainPoint,
    },
}

impl PoolEvent {
    pub fn pool(&self) -> Address {
        match self {
            PoolEvent::Swap { pool, .. }
            | PoolEvent::Liquidity { pool, .. }
            | PoolEvent::Opened { pool, .. } => *pool,
        }
    }
}

/// Where on an EVM chain something happened: a block and a log's index in it. Ordered as the
/// chain orders events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ChainPoint {
    pub block: u64,
    pub log_index: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainState {
    /// The merchant wallet's next CREATE nonce.
    pub deploy_nonce: u64,
    /// The last movement number handed out; the next is one past it. Part of every embedded
    /// hash and of every movement id, so no two are equal. The worker stores it reserved
    /// ahead in blocks (`adapters/sql/rows.rs`): after a restart numbering resumes past the
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
