//! Opening a token's pool: from its liquidity reserve (`POST /token/:tokenAddress/liquidity`,
//! a memecoin's launch), or a presale's launch with its raised USDC; and the pool lookups the
//! other market operations share.

use super::request::LiquidityRequest;
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::{Price, Units, Usdc};
use crate::model::decimal::Decimal;
use crate::model::event::{EventType, Subject};
use crate::model::ids::TokenAddress;
use crate::model::intent::{Action, Then};
use crate::model::pool::{Pool, TradeError};
use crate::model::time::Millis;
use crate::model::token::{Token, TokenKind};
use crate::ops::chain;
use crate::ops::{token, Ctx};
use crate::store::Store;

pub(super) fn trade_error(e: TradeError) -> Error {
    match e {
        TradeError::TooSmall => Error::new(
            ErrorCode::InvalidAmount,
            "The amount is too small to trade: it would receive nothing",
        ),
        TradeError::TooLarge => Error::new(ErrorCode::InvalidAmount, "The amount is too large"),
        TradeError::Drains => Error::new(
            ErrorCode::InsufficientLiquidity,
            "The pool cannot pay that much: trade a smaller amount",
        ),
    }
}

/// The merchant's own token at `address` and its pool (409 `no_liquidity` without one).
pub fn pool_of(store: &dyn Store, address: &TokenAddress) -> Result<(Token, Pool)> {
    let t = token::find(store, address)?;
    match store.pool(&t.address)? {
        Some(p) if t.kind == TokenKind::Merchant => Ok((t, p)),
        _ => Err(Error::new(
            ErrorCode::NoLiquidity,
            format!("{} has no liquidity pool yet", t.symbol),
        )),
    }
}

/// The token's pool, open on chain: trades and quotes need it (409 `pool_pending` while the
/// transaction that opens it is on its way).
pub fn open_pool_of(store: &dyn Store, address: &TokenAddress) -> Result<(Token, Pool)> {
    let (t, p) = pool_of(store, address)?;
    if p.position.id.is_none() {
        return Err(Error::new(
            ErrorCode::PoolPending,
            format!(
                "{}'s pool is being opened on chain: trade once its transaction is mined",
                t.symbol
            ),
        )
        .with("poolAddress", p.address.to_checksum()));
    }
    Ok((t, p))
}

/// What a pool opens with.
#[derive(Clone, Debug)]
pub struct Opening {
    /// Tokens from the liquidity reserve.
    pub tokens: Units,
    /// USDC already in USDC's `pooled` for this pool (a presale's raise); zero otherwise.
    pub usdc: Usdc,
    /// The price asked for when the pool opens from tokens alone.
    pub price: Price,
    /// What the ledger does once the pool is open on chain.
    pub then: Option<Then>,
}

/// Opens `token`'s pool (see `model::pool::Pool::open`). Writes the pool; the caller writes
/// the token. What the position does not take stays: tokens in the liquidity reserve, USDC
/// with the merchant. On an EVM chain the opening is an intent for the market contract.
pub fn open(
    store: &mut dyn Store,
    ctx: &Ctx,
    token: &mut Token,
    o: Opening,
    at: Millis,
) -> Result<Pool> {
    if store.pool(&token.address)?.is_some() {
        return Err(Error::new(
            ErrorCode::PoolExists,
            format!("{} already has a liquidity pool", token.symbol),
        ));
    }
    if o.tokens.is_zero() || (o.usdc.is_zero() && o.price.is_zero()) {
        return Err(Error::new(
            ErrorCode::InvalidAmount,
            "A pool needs tokens and a price greater than zero",
        ));
    }
    if o.tokens > token.liquidity_supply {
        return Err(Error::new(
            ErrorCode::InsufficientLiquidity,
            "The token's liquidity reserve is smaller than the amount",
        )
        .with("field", "amount")
        .with("liquiditySupply", decimal(token, token.liquidity_supply)));
    }
    let (address, position_id) = chain::pool_address(store, ctx, &token.address)?;
    let usdc_address = ctx.chain.usdc();
    let opened = Pool::open(
        token.address,
        usdc_address.address(),
        address,
        o.tokens,
        o.usdc,
        o.price,
        position_id,
        at,
    )
    .map_err(trade_error)?;
    let pool = opened.pool;
    token.liquidity_supply = token.liquidity_supply.minus(opened.tokens)?;
    token.pooled = token.pooled.plus(opened.tokens)?;
    token.price = pool.price().or(Some(o.price));
    let unused_usdc: Units = o.usdc.minus(opened.usdc)?.cast();
    if !unused_usdc.is_zero() {
        // A presale's raise the position could not use (a few units of rounding): the merchant's.
        let mut usdc = token::find(store, &usdc_address)?;
        usdc.pooled = usdc.pooled.minus(unused_usdc)?;
        usdc.merchant_supply = usdc.merchant_supply.plus(unused_usdc)?;
        store.put_token(&usdc)?;
    }
    store.put_pool(&pool)?;
    let action = Action::OpenPool {
        tokens: o.tokens,
        usdc: o.usdc.cast(),
        sqrt_price_x96: pool.sqrt_price_x96.to_string(),
        tick_lower: pool.position.tick_lower,
        tick_upper: pool.position.tick_upper,
    };
    let mut intent = chain::want(ctx, token.address, action);
    if let Some(then) = o.then {
        intent = intent.with_then(then);
    }
    chain::intend(store, ctx, intent)?;
    Ok(pool)
}

/// `POST /token/:tokenAddress/liquidity`: the merchant opens its token's pool.
pub fn open_liquidity(
    store: &mut dyn Store,
    ctx: &Ctx,
    address: &TokenAddress,
    req: &LiquidityRequest,
) -> Result<(Token, Pool)> {
    let mut t = token::find(store, address)?;
    if t.kind != TokenKind::Merchant || !t.can_lp {
        return Err(Error::new(
            ErrorCode::LiquidityDisabled,
            "This token cannot have a liquidity pool (canLP is off)",
        ));
    }
    let price = match (&req.initial_starting_price, t.price) {
        (Some(p), _) => p.amount(),
        (None, Some(p)) => p,
        (None, None) => token::starting_price(&t).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidRequest,
                "is required: the token has no price yet",
            )
            .at_field("initialStartingPrice")
        })?,
    };
    let tokens = req
        .amount
        .as_ref()
        .map_or(t.liquidity_supply, |a| a.amount().cast());
    let opening = Opening {
        tokens,
        usdc: Usdc::ZERO,
        price,
        then: None,
    };
    let pool = open(store, ctx, &mut t, opening, ctx.now)?;
    store.put_token(&t)?;
    let subject = Subject::Liquidity { token: t.address };
    crate::ops::event::emit(store, ctx.now, EventType::LiquidityCreated, subject)?;
    Ok((t, pool))
}

pub(super) fn decimal(t: &Token, u: Units) -> serde_json::Value {
    serde_json::to_value(Decimal::from_units(u.raw(), t.decimals)).unwrap_or_default()
}

pub(super) fn usdc_json(u: Usdc) -> serde_json::Value {
    serde_json::to_value(Decimal::of(u)).unwrap_or_default()
}
