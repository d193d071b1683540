//! A token's pool on the wire (the `pool` of a Token and of a market answer; Metal's `lpInfo`).

use crate::model::address::Address;
use crate::model::amount::Price;
use crate::model::decimal::Decimal;
use crate::model::pool::Pool as PoolRecord;
use crate::model::token::Token as TokenRecord;
use serde::{Deserialize, Serialize};

/// A token's liquidity pool against USDC: a Uniswap v3 pool of the 0.3 % tier (on an EVM
/// chain the pool contract itself, which anyone can trade).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pool {
    /// The pool contract.
    pub address: Address,
    /// `open`; on an EVM chain `pending` until the transaction that opens it is mined (no
    /// trades until then).
    pub status: PoolStatus,
    /// Tokens in the pool.
    pub token_reserve: Decimal,
    /// USDC in the pool: buyers paid it in (and a presale's raise), so it is the most the
    /// pool can ever pay out.
    pub usdc_reserve: Decimal,
    /// The price support of a pool opened from the token's reserve alone: the USDC its
    /// position counts below the opening price, which nobody paid in and no seller can be
    /// paid. Zero for a pool over the whole price range (a presale's).
    pub virtual_usdc_reserve: Decimal,
    /// USD per token: the pool's price.
    pub price: Decimal,
    /// Percent of what comes into a trade that stays in the pool.
    pub fee: Decimal,
    /// Uniswap v3's `slot0.sqrtPriceX96`, as digits.
    pub sqrt_price_x96: String,
    /// Uniswap v3's `slot0.tick`.
    pub tick: i32,
    /// The pool's active liquidity, as digits.
    pub liquidity: String,
    /// The liquidity position (Metal's `lpInfo`).
    pub lp_info: LpInfo,
}

/// Whether a pool trades yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum PoolStatus {
    Pending,
    Open,
}

/// Metal's liquidity position: its id and the pool's address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LpInfo {
    /// The position NFT's id (Uniswap's NonfungiblePositionManager on an EVM chain, where
    /// tokenpad's market contract holds it: the liquidity is locked). Null until the
    /// transaction that mints it is mined.
    pub nft_id: Option<String>,
    pub liquidity_pool_address: Address,
}

impl LpInfo {
    pub fn of(p: &PoolRecord) -> LpInfo {
        LpInfo {
            nft_id: p.position.id.map(|id| id.to_string()),
            liquidity_pool_address: p.address,
        }
    }
}

/// A price as a decimal, zero when there is none (an empty pool).
pub(super) fn price(p: Option<Price>) -> Decimal {
    p.map_or_else(Decimal::zero, Decimal::of)
}

impl Pool {
    pub fn of(p: &PoolRecord, token: &TokenRecord) -> Pool {
        Pool {
            address: p.address,
            status: if p.position.id.is_some() {
                PoolStatus::Open
            } else {
                PoolStatus::Pending
            },
            token_reserve: Decimal::from_units(p.token_reserve.raw(), token.decimals),
            usdc_reserve: Decimal::of(p.usdc_reserve),
            virtual_usdc_reserve: Decimal::of(p.virtual_usdc()),
            price: price(p.price()),
            // Hundredths of a basis point: 3000 is 0.3 %.
            fee: Decimal::from_units(u128::from(p.fee), 4),
            sqrt_price_x96: p.sqrt_price_x96.to_string(),
            tick: p.tick,
            liquidity: p.liquidity.to_string(),
            lp_info: LpInfo::of(p),
        }
    }
}
