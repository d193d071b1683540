//! The operator's view of settlement: `GET /admin/merchants/:merchantId/chain` (the relayer,
//! transactions in flight, failed movements) and `GET /admin/merchants/:merchantId/reconcile`
//! (the ledger against `balanceOf` on chain, for every holder and token).

use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::ids::{MerchantId, TokenAddress, UserId};
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
