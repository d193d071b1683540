//! Markets: a token's liquidity pool against USDC, and holders buying and selling from it.
//!
//! - `open`: a pool from the token's liquidity reserve (`POST /token/:tokenAddress/liquidity`,
//!   a memecoin's launch, a presale's launch with its raised USDC);
//! - `buy`, `sell` and their quotes (`POST /holder/:userId/buy`, `/sell`, `GET .../quote`).
//!
//! Every trade moves USDC and tokens between the holder's balances and the pool's reserves
//! (the tokens' and USDC's `pooled`), keeps the token's price at the pool's, and checks
//! conservation and that the pool's `k` did not decrease. The math is `model::pool`.

mod request;

pub use request::{BuyQuoteQuery, BuyRequest, LiquidityRequest, SellQuoteQuery, SellRequest};

use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::{Price, Units, Usdc};
use crate::model::decimal::{Decimal, Whole};
use crate::model::event::{EventType, Subject};
use crate::model::history::TxType;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::input::Int;
use crate::model::intent::{Account, Reserve, Side};
use crate::model::pool::{Pool, Trade, TradeError, FEE_BPS};
use crate::model::time::Millis;
use crate::model::token::{Token, TokenKind, USDC_ADDRESS};
use crate::ops::chain::{self, Stamp};
use crate::ops::ledger::{debit_check, Movement};
use crate::ops::{holder, token, Ctx};
use crate::store::Store;

/// A trade made: its transaction, and the pool before and after it.
#[derive(Clone, Debug)]
pub struct TradeReceipt {
    pub stamp: Stamp,
    pub side: TxType,
    pub token: Token,
    pub before: Pool,
    pub trade: Trade,
}

fn trade_error(e: TradeError) -> Error {
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

/// Opens `token`'s pool with `tokens` from its liquidity reserve and `usdc` already in
/// USDC's `pooled` (a presale's raise; zero otherwise) at `price`. The USDC the price needs
/// beyond `usdc` is the pool's virtual reserve. Writes the pool; the caller writes the token.
pub fn open(
    store: &mut dyn Store,
    token: &mut Token,
    tokens: Units,
    usdc: Usdc,
    price: Price,
    at: Millis,
) -> Result<Pool> {
    if store.pool(&token.address)?.is_some() {
        return Err(Error::new(
            ErrorCode::PoolExists,
            format!("{} already has a liquidity pool", token.symbol),
        ));
    }
    if tokens.is_zero() || price.is_zero() {
        return Err(Error::new(
            ErrorCode::InvalidAmount,
            "A pool needs tokens and a price greater than zero",
        ));
    }
    if tokens > token.liquidity_supply {
        return Err(Error::new(
            ErrorCode::InsufficientLiquidity,
            "The token's liquidity reserve is smaller than the amount",
        )
        .with("field", "amount")
        .with("liquiditySupply", decimal(token, token.liquidity_supply)));
    }
    let value: Usdc = tokens.value_at(token.decimals, price).cast();
    let (nft_id, address) = chain::open_position(store, &token.address)?;
    let pool = Pool {
        token: token.address,
        address,
        token_reserve: tokens,
        usdc_reserve: usdc,
        virtual_usdc: value.checked_sub(usdc).unwrap_or(Usdc::ZERO),
        fee_bps: FEE_BPS,
        nft_id,
        created_at: at,
    };
    token.liquidity_supply = token.liquidity_supply.minus(tokens)?;
    token.pooled = token.pooled.plus(tokens)?;
    token.price = pool.price().or(Some(price));
    token.check_conservation()?;
    store.put_pool(&pool)?;
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
    let pool = open(store, &mut t, tokens, Usdc::ZERO, price, ctx.now)?;
    store.put_token(&t)?;
    let subject = Subject::Liquidity { token: t.address };
    super::event::emit(store, ctx.now, EventType::LiquidityCreated, subject)?;
    Ok((t, pool))
}

/// A buy at the pool's current state, without making it.
pub fn quote_buy(
    store: &dyn Store,
    address: &TokenAddress,
    usdc: Option<Usdc>,
    tokens: Option<Units>,
) -> Result<(Token, Pool, Trade)> {
    let (t, p) = pool_of(store, address)?;
    let trade = match (usdc, tokens) {
        (Some(u), _) => p.buy_with(u),
        (None, Some(n)) => p.buy_exact(n),
        (None, None) => return Err(Error::internal("a buy without an amount")),
    }
    .map_err(trade_error)?;
    Ok((t, p, trade))
}

/// A sell at the pool's current state, without making it.
pub fn quote_sell(
    store: &dyn Store,
    address: &TokenAddress,
    tokens: Units,
) -> Result<(Token, Pool, Trade)> {
    let (t, p) = pool_of(store, address)?;
    let trade = p.sell(tokens).map_err(trade_error)?;
    Ok((t, p, trade))
}

fn decimal(t: &Token, u: Units) -> serde_json::Value {
    serde_json::to_value(Decimal::from_units(u.raw(), t.decimals)).unwrap_or_default()
}

fn usdc_json(u: Usdc) -> serde_json::Value {
    serde_json::to_value(Decimal::of(u)).unwrap_or_default()
}

fn slippage(message: &str) -> Error {
    Error::new(ErrorCode::SlippageExceeded, message.to_string())
}

/// Refuses a trade whose average price is worse than the pool's price before it by more
/// than `bps` (a buy pays at most price x (1 + bps), a sell receives at least x (1 - bps)).
fn within(bps: Option<u64>, buy: bool, t: &Token, before: &Pool, trade: &Trade) -> Result<()> {
    let (Some(bps), Some(price)) = (bps, before.price()) else {
        return Ok(());
    };
    // USDC amounts stay far below 2^128 / 10^4, so these products cannot overflow.
    let at_spot = trade.tokens.value_at(t.decimals, price).raw();
    let paid = trade.usdc.raw().saturating_mul(10_000);
    let ok = if buy {
        paid <= at_spot.saturating_mul(10_000 + u128::from(bps))
    } else {
        paid >= at_spot.saturating_mul(10_000u128.saturating_sub(u128::from(bps)))
    };
    if ok {
        Ok(())
    } else {
        Err(slippage("The price moved more than slippageBps allows")
            .with("slippageBps", bps)
            .with("tokenAmount", decimal(t, trade.tokens))
            .with("usdcAmount", usdc_json(trade.usdc)))
    }
}

/// A holder buys from the token's pool with USDC.
pub fn buy(
    store: &mut dyn Store,
    ctx: &Ctx,
    user: &UserId,
    req: &BuyRequest,
) -> Result<TradeReceipt> {
    let h = holder::find(store, user)?;
    let (t, before, trade) = quote_buy(
        store,
        &req.token_address,
        req.usdc_amount.as_ref().map(Whole::amount),
        req.token_amount.as_ref().map(|n| n.amount().cast()),
    )?;
    if let Some(min) = &req.min_amount_out {
        if trade.tokens < min.amount().cast() {
            return Err(
                slippage("The tokens received would be fewer than minAmountOut")
                    .with("tokenAmount", decimal(&t, trade.tokens)),
            );
        }
    }
    if let Some(max) = &req.max_amount_in {
        if trade.usdc > max.amount() {
            return Err(slippage("The USDC paid would be more than maxAmountIn")
                .with("usdcAmount", usdc_json(trade.usdc)));
        }
    }
    within(req.slippage_bps.map(Int::get), true, &t, &before, &trade)?;
    settle(store, ctx, &h, TxType::Buy, t, before, trade)
}

/// A holder sells active tokens to the token's pool for USDC.
pub fn sell(
    store: &mut dyn Store,
    ctx: &Ctx,
    user: &UserId,
    req: &SellRequest,
) -> Result<TradeReceipt> {
    let h = holder::find(store, user)?;
    let tokens: Units = req.token_amount.amount().cast();
    // The holder must have them (active) before the pool is asked what they are worth.
    let (t, _) = pool_of(store, &req.token_address)?;
    debit_check(store, &t, &h, tokens)?;
    let (t, before, trade) = quote_sell(store, &req.token_address, tokens)?;
    if let Some(min) = &req.min_amount_out {
        if trade.usdc < min.amount() {
            return Err(
                slippage("The USDC received would be less than minAmountOut")
                    .with("usdcAmount", usdc_json(trade.usdc)),
            );
        }
    }
    within(req.slippage_bps.map(Int::get), false, &t, &before, &trade)?;
    settle(store, ctx, &h, TxType::Sell, t, before, trade)
}

/// Moves a trade's tokens and USDC between the holder and the pool, checks everything, and
/// records both legs in the holder's history under one transaction.
fn settle(
    store: &mut dyn Store,
    ctx: &Ctx,
    h: &crate::model::holder::Holder,
    side: TxType,
    mut t: Token,
    before: Pool,
    trade: Trade,
) -> Result<TradeReceipt> {
    let mut usdc = token::find(store, &USDC_ADDRESS)?;
    let usdc_units: Units = trade.usdc.cast();
    let buy = side == TxType::Buy;
    // What the holder pays must be there (active: locked tokens cannot be sold).
    let (mut tok_bal, mut usdc_bal) = if buy {
        (
            store.balance(&t.address, &h.address)?,
            debit_check(store, &usdc, h, usdc_units)?,
        )
    } else {
        (
            debit_check(store, &t, h, trade.tokens)?,
            store.balance(&usdc.address, &h.address)?,
        )
    };
    if buy {
        usdc_bal.active = usdc_bal.active.minus(usdc_units)?;
        usdc.held = usdc.held.minus(usdc_units)?;
        usdc.pooled = usdc.pooled.plus(usdc_units)?;
        tok_bal.active = tok_bal.active.plus(trade.tokens)?;
        t.pooled = t.pooled.minus(trade.tokens)?;
        t.held = t.held.plus(trade.tokens)?;
    } else {
        tok_bal.active = tok_bal.active.minus(trade.tokens)?;
        t.held = t.held.minus(trade.tokens)?;
        t.pooled = t.pooled.plus(trade.tokens)?;
        usdc_bal.active = usdc_bal.active.plus(usdc_units)?;
        usdc.pooled = usdc.pooled.minus(usdc_units)?;
        usdc.held = usdc.held.plus(usdc_units)?;
    }
    let after = &trade.after;
    if after.k() < before.k() || after.token_reserve != t.pooled {
        return Err(Error::internal(format!(
            "pool invariant broken for {}",
            t.address
        )));
    }
    t.price = after.price().or(t.price);
    t.check_conservation()?;
    usdc.check_conservation()?;
    let label = if buy { "buy" } else { "sell" };
    let stamp = chain::stamp(
        store,
        ctx,
        label,
        &[
            &t.address.address().0,
            &h.address.0,
            &trade.tokens.raw().to_be_bytes(),
            &trade.usdc.raw().to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&t.address, &h.address, &tok_bal)?;
    store.put_balance(&usdc.address, &h.address, &usdc_bal)?;
    store.put_token(&t)?;
    store.put_token(&usdc)?;
    store.put_pool(after)?;
    let (tok_from, tok_to) = if buy {
        (after.address, h.address)
    } else {
        (h.address, after.address)
    };
    let legs = [
        Movement {
            stamp: &stamp,
            token: &t,
            amount: trade.tokens,
            from: tok_from,
            to: tok_to,
        },
        Movement {
            stamp: &stamp,
            token: &usdc,
            amount: usdc_units,
            from: tok_to,
            to: tok_from,
        },
    ];
    // On chain the pool's reserves are the treasury's: a trade is two transfers.
    let holder_side = Account::Wallet(h.address);
    let mut token_leg = 0;
    for (side_index, mv) in legs.iter().enumerate() {
        let seq =
            crate::ops::history::append(store, &mv.record(ctx.now, side_index, side, &h.user_id))?;
        if side_index == 0 {
            token_leg = seq;
        }
        let pool_side = Side::Reserve(Reserve::Pooled(t.address));
        let holder_row = Side::Row(h.address);
        let (from, to, undo) = if (side_index == 0) == buy {
            (Account::Treasury, holder_side, (pool_side, holder_row))
        } else {
            (holder_side, Account::Treasury, (holder_row, pool_side))
        };
        let intent = chain::want(ctx, mv.token.address, chain::transfer(from, to, mv.amount))
            .with_records(vec![seq])
            .moved(undo.0, undo.1);
        chain::intend(store, ctx, intent)?;
    }
    let subject = Subject::Trade {
        user_id: h.user_id.clone(),
        buy,
        before: Box::new(before.clone()),
        trade: Box::new(trade.clone()),
        record: token_leg,
    };
    super::event::emit(store, ctx.now, EventType::TradeExecuted, subject)?;
    Ok(TradeReceipt {
        stamp,
        side,
        token: t,
        before,
        trade,
    })
}
