//! Markets on the wire: a token's pool, the answer of opening one, a trade's receipt and a
//! quote.

use super::settlement::Settlement;
use crate::model::address::Address;
use crate::model::amount::{Price, Units, Usdc};
use crate::model::arith::mul_div;
use crate::model::decimal::Decimal;
use crate::model::history::TxType;
use crate::model::ids::TokenAddress;
use crate::model::pool::{Pool as PoolRecord, Trade};
use crate::model::token::Token as TokenRecord;
use crate::ops::market::TradeReceipt;
use serde::{Deserialize, Serialize};

/// A token's liquidity pool against USDC (constant product, Uniswap's 0.3 % fee).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Pool {
    pub address: Address,
    /// Tokens in the pool.
    pub token_reserve: Decimal,
    /// USDC buyers paid in: the most the pool can pay out.
    pub usdc_reserve: Decimal,
    /// The price support of a pool opened from the token's reserve alone: part of the
    /// constant product, never paid out.
    pub virtual_usdc_reserve: Decimal,
    /// USD per token.
    pub price: Decimal,
    /// Percent of what comes into a trade that stays in the pool.
    pub fee: Decimal,
    /// The liquidity position (Metal's `lpInfo`).
    pub lp_info: LpInfo,
}

/// Metal's liquidity position: its id and the pool's address.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LpInfo {
    pub nft_id: String,
    pub liquidity_pool_address: Address,
}

impl LpInfo {
    pub fn of(p: &PoolRecord) -> LpInfo {
        LpInfo {
            nft_id: p.nft_id.to_string(),
            liquidity_pool_address: p.address,
        }
    }
}

fn price(p: Option<Price>) -> Decimal {
    p.map_or_else(Decimal::zero, Decimal::of)
}

impl Pool {
    pub fn of(p: &PoolRecord, token: &TokenRecord) -> Pool {
        Pool {
            address: p.address,
            token_reserve: Decimal::from_units(p.token_reserve.raw(), token.decimals),
            usdc_reserve: Decimal::of(p.usdc_reserve),
            virtual_usdc_reserve: Decimal::of(p.virtual_usdc),
            price: price(p.price()),
            fee: Decimal::from_units(u128::from(p.fee_bps), 2),
            lp_info: LpInfo::of(p),
        }
    }
}

/// `POST /token/:tokenAddress/liquidity` -> 201.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LiquidityCreated {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    /// `success`: the pool is open (Metal's job status).
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "success")))]
    pub status: String,
    pub token_address: TokenAddress,
    pub lp_info: LpInfo,
    pub pool: Pool,
    /// The token, with its pool.
    pub data: super::token::Token,
}

/// Buy or sell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Buy,
    Sell,
}

/// The figures of a trade, made or quoted (`GET /holder/:userId/buy/quote`, `/sell/quote`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Quote"))]
#[serde(rename_all = "camelCase")]
pub struct TradeFigures {
    pub side: Side,
    pub token_address: TokenAddress,
    /// Tokens bought or sold.
    pub token_amount: Decimal,
    /// USDC paid (a buy) or received (a sell).
    pub usdc_amount: Decimal,
    /// The average price of the trade, USD per token, fee included.
    pub price: Decimal,
    /// The pool's fee, in what came in: USDC for a buy, tokens for a sell.
    pub fee: Decimal,
    /// How far the average price is from the pool's price before the trade, in percent.
    pub price_impact: Decimal,
    /// The pool's price before the trade.
    pub pool_price: Decimal,
    /// The pool's price after it.
    pub pool_price_after: Decimal,
}

/// `POST /holder/:userId/buy`, `/sell`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    #[serde(flatten)]
    pub settlement: Settlement,
    #[serde(flatten)]
    pub figures: TradeFigures,
}

impl TradeFigures {
    pub fn of(side: Side, token: &TokenRecord, before: &PoolRecord, trade: &Trade) -> TradeFigures {
        let decimals = token.decimals;
        let avg = Price::of(trade.usdc, trade.tokens, decimals);
        let spot = before.price();
        // |avg - spot| / spot x 100, in micro-percent.
        let impact = match (avg, spot) {
            (Some(a), Some(s)) if !s.is_zero() => {
                let diff = a.raw().abs_diff(s.raw());
                mul_div(diff, 100_000_000, s.raw()).unwrap_or(0)
            }
            _ => 0,
        };
        let fee = match side {
            Side::Buy => Decimal::of(Usdc::new(trade.fee)),
            Side::Sell => Decimal::from_units(Units::new(trade.fee).raw(), decimals),
        };
        TradeFigures {
            side,
            token_address: token.address,
            token_amount: Decimal::from_units(trade.tokens.raw(), decimals),
            usdc_amount: Decimal::of(trade.usdc),
            price: price(avg),
            fee,
            price_impact: Decimal::from_units(impact, 6),
            pool_price: price(spot),
            pool_price_after: price(trade.after.price()),
        }
    }
}

impl TradeResult {
    pub fn of(r: &TradeReceipt) -> TradeResult {
        let side = if r.side == TxType::Buy {
            Side::Buy
        } else {
            Side::Sell
        };
        TradeResult {
            success: true,
            settlement: Settlement::of(&r.stamp),
            figures: TradeFigures::of(side, &r.token, &r.before, &r.trade),
        }
    }
}
