//! Markets on the wire: the answer of opening a pool, a trade's receipt and a quote (the pool
//! itself is `pool.rs`).

use super::endpoint::{
    Access::Secret,
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::pool::{price, LpInfo, Pool};
use super::settlement::Settlement;
use super::token::{Token, DEFAULT_HOLDERS};
use crate::error::Result;
use crate::model::amount::{Price, Units, Usdc};
use crate::model::arith::mul_div;
use crate::model::decimal::Decimal;
use crate::model::history::TxType;
use crate::model::ids::TokenAddress;
use crate::model::ids::UserId;
use crate::model::pool::{Booked, TradeFacts};
use crate::model::token::Token as TokenRecord;
use crate::ops::market::TradeReceipt;
use crate::ops::market::{
    self, BuyQuoteQuery, BuyRequest, LiquidityRequest, SellQuoteQuery, SellRequest,
};
use crate::ops::{holder, Ctx};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const CREATE_LIQUIDITY: Route = Route::new("createLiquidity");
pub const BUY: Route = Route::new("buy");
pub const SELL: Route = Route::new("sell");
pub const BUY_QUOTE: Route = Route::new("buyQuote");
pub const SELL_QUOTE: Route = Route::new("sellQuote");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/token/:tokenAddress/liquidity", CREATE_LIQUIDITY, Secret, Writes),
    ("POST", "/holder/:userId/buy", BUY, Secret, Writes),
    ("POST", "/holder/:userId/sell", SELL, Secret, Writes),
    ("GET", "/holder/:userId/buy/quote", BUY_QUOTE, Secret, Reads),
    ("GET", "/holder/:userId/sell/quote", SELL_QUOTE, Secret, Reads),
];

/// `POST /token/:tokenAddress/liquidity` -> 201.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LiquidityCreated {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    /// `success`: the pool is open (Metal's job status); `pending` on an EVM chain until the
    /// transaction that opens it is mined (the pool's `status` says the same).
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["success", "pending"])))]
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
    /// The trade as quoted when it was made (on an EVM chain, what the pool's state then
    /// says the swap will do).
    #[serde(flatten)]
    pub figures: TradeFigures,
    /// What the ledger moved when the trade was made, and the holder's history shows until
    /// it is mined: the trade's own amounts on the embedded chain; on an EVM chain the worst
    /// the holder accepted (the fewest tokens or USDC out, the most USDC in: the bound the
    /// swap is sent with), topped up to the mined amounts once the swap is mined.
    pub booked: BookedAmounts,
}

/// Amounts a trade moved in the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BookedAmounts {
    pub token_amount: Decimal,
    pub usdc_amount: Decimal,
}

impl BookedAmounts {
    pub fn of(token: &TokenRecord, b: &Booked) -> BookedAmounts {
        BookedAmounts {
            token_amount: Decimal::from_units(b.tokens.raw(), token.decimals),
            usdc_amount: Decimal::of(b.usdc),
        }
    }
}

impl TradeFigures {
    pub fn of(side: Side, token: &TokenRecord, trade: &TradeFacts) -> TradeFigures {
        let decimals = token.decimals;
        let avg = Price::of(trade.usdc, trade.tokens, decimals);
        let spot = trade.price_before;
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
            pool_price_after: price(trade.price_after),
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
            figures: TradeFigures::of(side, &r.token, &TradeFacts::of(&r.before, &r.trade)),
            booked: BookedAmounts::of(&r.token, &r.booked),
        }
    }
}

/// A trade, a quote or a pool's opening, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarketOp {
    CreateLiquidity(TokenAddress, LiquidityRequest),
    Buy(UserId, BuyRequest),
    Sell(UserId, SellRequest),
    BuyQuote(UserId, BuyQuoteQuery),
    SellQuote(UserId, SellQuoteQuery),
}

/// Every answer of a [`MarketOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MarketAnswer {
    Liquidity(Box<LiquidityCreated>),
    Trade(Box<TradeResult>),
    Quote(Box<TradeFigures>),
}

impl MarketOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            MarketOp::CreateLiquidity(..) => CREATE_LIQUIDITY,
            MarketOp::Buy(..) => BUY,
            MarketOp::Sell(..) => SELL,
            MarketOp::BuyQuote(..) => BUY_QUOTE,
            MarketOp::SellQuote(..) => SELL_QUOTE,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<MarketOp>> {
    Ok(Some(match route {
        CREATE_LIQUIDITY => MarketOp::CreateLiquidity(parts.token(0)?, parts.body()?),
        BUY => MarketOp::Buy(parts.user(0)?, parts.body()?),
        SELL => MarketOp::Sell(parts.user(0)?, parts.body()?),
        BUY_QUOTE => MarketOp::BuyQuote(parts.user(0)?, parts.query_as()?),
        SELL_QUOTE => MarketOp::SellQuote(parts.user(0)?, parts.query_as()?),
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(store: &mut dyn Store, ctx: &Ctx, op: MarketOp) -> Result<(u16, MarketAnswer)> {
    Ok(match op {
        MarketOp::CreateLiquidity(address, req) => {
            let (t, pool) = market::open_liquidity(store, ctx, &address, &req)?;
            let created = LiquidityCreated {
                success: true,
                status: if pool.position.id.is_some() {
                    "success"
                } else {
                    "pending"
                }
                .into(),
                token_address: t.address,
                lp_info: LpInfo::of(&pool),
                pool: Pool::of(&pool, &t),
                data: Token::read(store, &t, DEFAULT_HOLDERS)?,
            };
            (201, MarketAnswer::Liquidity(Box::new(created)))
        }
        MarketOp::Buy(user_id, req) => {
            let r = market::buy(store, ctx, &user_id, &req)?;
            (200, MarketAnswer::Trade(Box::new(TradeResult::of(&r))))
        }
        MarketOp::Sell(user_id, req) => {
            let r = market::sell(store, ctx, &user_id, &req)?;
            (200, MarketAnswer::Trade(Box::new(TradeResult::of(&r))))
        }
        MarketOp::BuyQuote(user_id, q) => {
            holder::find(store, &user_id)?;
            let (t, before, trade) = market::quote_buy(
                store,
                &q.token_address,
                q.usdc_amount.as_ref().map(|u| u.amount()),
                q.token_amount.as_ref().map(|n| n.amount().cast()),
            )?;
            let figures = TradeFigures::of(Side::Buy, &t, &TradeFacts::of(&before, &trade));
            (200, MarketAnswer::Quote(Box::new(figures)))
        }
        MarketOp::SellQuote(user_id, q) => {
            holder::find(store, &user_id)?;
            let (t, before, trade) =
                market::quote_sell(store, &q.token_address, q.token_amount.amount().cast())?;
            let figures = TradeFigures::of(Side::Sell, &t, &TradeFacts::of(&before, &trade));
            (200, MarketAnswer::Quote(Box::new(figures)))
        }
    })
}
