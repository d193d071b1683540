//! The operator's view of settlement: `GET /admin/merchants/:merchantId/chain` (the relayer,
//! transactions in flight, failed and parked movements, whether settlement is stuck and what
//! to do), `POST /admin/merchants/:merchantId/chain/retry` (parked movements sent again),
//! `GET /admin/chain` (every merchant whose settlement is stuck) and
//! `GET /admin/merchants/:merchantId/reconcile` (the ledger against `balanceOf` on chain, for
//! every holder and token, and what each completed step left on chain).

use super::admin::{HealthNode, HealthRelayers};
use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::ids::{MerchantId, TokenAddress, UserId};
use crate::model::time::Timestamp;
use crate::ops::stuck::Issue;
use serde::{Deserialize, Serialize};

/// `GET /admin/merchants/:merchantId/chain`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainReport {
    pub merchant_id: MerchantId,
    /// `embedded` or `evm`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["embedded", "evm"])))]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// The merchant's relayer wallet (an EVM chain): it signs and pays for every transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relayer: Option<RelayerReport>,
    /// Movements recorded in the ledger and not settled on chain yet.
    pub open_movements: u64,
    /// Transactions signed and not mined yet, lowest nonce first.
    pub transactions: Vec<ChainTxReport>,
    /// The latest movements the chain refused (undone in the ledger), newest first.
    pub failed: Vec<FailedMovement>,
    /// Movements held for an operator (a revert of ours, gas that never sufficed), oldest
    /// first: still open, never sent until `POST /admin/merchants/:merchantId/chain/retry`.
    #[serde(default)]
    pub parked: Vec<ParkedMovement>,
    /// What holds settlement up: parked movements at once, and past `stuckAfterMs` a
    /// transaction not mined, the relayer's trouble (out of gas, the node failing), movements
    /// queued; each with what an operator can do. Empty when settlement is not stuck.
    #[serde(default)]
    pub stuck: Vec<Issue>,
    /// What waits, and needs nothing done (releases the chain's clock has not reached).
    #[serde(default)]
    pub waiting: Vec<Issue>,
    /// `CHAIN_STUCK_AFTER_MS` (an EVM chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stuck_after_ms: Option<u64>,
    /// The relayer's nonce on chain is below its next one and no transaction of ours is open
    /// for it (the settler fills such a gap itself; this says it is there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce_gap: Option<NonceGap>,
}

/// A movement held for an operator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ParkedMovement {
    pub id: u64,
    pub token_address: TokenAddress,
    /// What it does on chain.
    #[cfg_attr(
        feature = "codegen",
        schemars(extend("enum" = ["deploy", "transfer", "mint", "open_pool", "swap", "lock", "release"]))
    )]
    pub movement: String,
    /// Why: the chain's revert reason, or how often it ran out of gas.
    pub why: String,
    /// When it was parked (absent for one parked before that was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    /// How many transactions carried it.
    pub attempts: u32,
}

/// A gap in the relayer's nonces: the chain waits for `chainNonce`, which nothing open uses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NonceGap {
    /// The relayer's transaction count on chain (its next nonce there).
    pub chain_nonce: u64,
    /// The nonce the settler signs with next.
    pub next_nonce: u64,
    pub action: String,
}

/// `POST /admin/merchants/:merchantId/chain/retry`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainRetried {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    pub merchant_id: MerchantId,
    /// How many parked movements went back to the queue (0: none was parked).
    pub retried: u64,
}

/// `GET /admin/chain`: the chain's node as `/health` has it, and every merchant whose
/// settler's latest report says its settlement is stuck.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainOverview {
    /// `embedded` or `evm`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["embedded", "evm"])))]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<HealthNode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relayers: Option<HealthRelayers>,
    /// `CHAIN_STUCK_AFTER_MS` (an EVM chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stuck_after_ms: Option<u64>,
    /// Each merchant stuck, as its settler last reported (a report older than five minutes
    /// is listed too: its settler stopped reporting).
    pub stuck: Vec<StuckMerchant>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StuckMerchant {
    pub merchant_id: MerchantId,
    /// When its settler's round that reported it ran (wall-clock time).
    pub checked_at: Timestamp,
    pub issues: Vec<Issue>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RelayerReport {
    pub address: Address,
    /// Its ETH balance in wei (a decimal string); absent when the node could not be asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^[0-9]+$")))]
    pub balance_wei: Option<String>,
    /// The nonce its next transaction uses (absent before its first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_nonce: Option<u64>,
    /// The last block scanned for deposits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scanned_block: Option<u64>,
    /// Why settlement is stopped (out of gas: the address to fund; the RPC failing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainTxReport {
    pub nonce: u64,
    /// `signed` (stored, not sent yet) or `sent`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["signed", "sent"])))]
    pub state: String,
    /// Every version's hash (a replacement adds one), oldest first.
    pub hashes: Vec<String>,
    /// How many ledger movements it carries.
    pub movements: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FailedMovement {
    pub id: u64,
    pub token_address: TokenAddress,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `GET /admin/merchants/:merchantId/reconcile`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReconcileReport {
    pub merchant_id: MerchantId,
    /// The EVM chain compared with; absent on the embedded chain, which is the ledger itself
    /// (nothing to compare: `checked` is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// The block the balances were read at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_number: Option<u64>,
    /// Movements not settled yet: while there are any, ledger and chain differ by them.
    pub open_movements: u64,
    /// Balances compared: every holder's of every token it has, and the treasury's of each
    /// of the merchant's tokens.
    pub checked: u64,
    /// Where the ledger and the chain disagree; empty when they agree. Pools are owners too:
    /// each pool contract's balance of its token and of USDC against the pool's reserves.
    pub differences: Vec<Difference>,
    /// Each pool's state (`slot0`'s price and tick, `liquidity()`) against what the ledger
    /// last followed from the pool's events.
    #[serde(default)]
    pub pools: Vec<PoolCheck>,
    /// What each completed step left on chain, checked: every lock the ledger keeps in the
    /// lock contract (`locks(key)`: token, amount, beneficiary, unlock time, not released;
    /// and one the ledger released, released), every open pool (code, an initialized price,
    /// the position the market keeps for the merchant's wallet), and every launched presale's
    /// raise (its pool opening moved it into the pool).
    #[serde(default)]
    pub steps_checked: u64,
    /// Where a step's outcome on chain is not what the ledger says; empty when all agree.
    #[serde(default)]
    pub steps: Vec<StepMismatch>,
}

/// A completed step whose outcome on chain differs from the ledger's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StepMismatch {
    /// `lock`, `pool` or `raise`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["lock", "pool", "raise"])))]
    pub kind: String,
    /// Which: the lock (its ledger id and key on chain), the pool, the presale.
    pub what: String,
    pub token_address: TokenAddress,
    /// What the ledger says.
    pub ledger: String,
    /// What the chain says.
    pub chain: String,
}

/// One pool's state, in the ledger and on chain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolCheck {
    pub token_address: TokenAddress,
    pub symbol: String,
    pub pool: Address,
    /// What the ledger followed; null until the pool's opening is mined.
    pub ledger: Option<PoolStateReport>,
    pub chain: PoolStateReport,
    /// Whether the two agree.
    pub matches: bool,
}

/// A Uniswap v3 pool's state: `slot0`'s price and tick, and the active liquidity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PoolStateReport {
    /// Digits.
    pub sqrt_price_x96: String,
    pub tick: i32,
    /// Digits.
    pub liquidity: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Difference {
    pub token_address: TokenAddress,
    pub symbol: String,
    pub owner: Address,
    /// The holder; absent for the treasury (the merchant's relayer wallet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<UserId>,
    /// What the ledger says (active + locked), in whole tokens.
    pub ledger: Decimal,
    /// What `balanceOf` says.
    pub chain: Decimal,
}
