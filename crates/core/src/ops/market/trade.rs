//! Buying and selling in a token's pool, and their quotes.
//!
//! A trade is quoted on the pool's state (the chain's, with the ledger's own swaps not yet
//! mined applied) and checked against the holder's bounds. On the embedded chain it is made
//! as quoted. On an EVM chain the chain decides the final amounts, so the ledger books the
//! worst the holder accepts (the bound the market contract enforces on chain: the fewest out,
//! or the most in) and `follow::swapped` tops it up to what was mined. The ledger therefore
//! never has to take back what it gave.

use super::open::{decimal, open_pool_of, trade_error, usdc_json};
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::{Units, Usdc};
use crate::model::arith::{mul_div, mul_div_up};
use crate::model::decimal::Whole;
use crate::model::event::{EventType, Subject, TradeSubject};
use crate::model::history::TxType;
use crate::model::holder::Holder;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::input::Int;
use crate::model::intent::Action;
use crate::model::pool::{Booked, Pool, Trade, TradeFacts};
use crate::model::token::Token;
use crate::ops::chain::{self, Stamp};
use crate::ops::ledger::{debit_check, Movement};
use crate::ops::{holder, token, Ctx};
use crate::store::Store;

use super::request::{BuyRequest, SellRequest};

/// The bound a swap gets on chain when the holder gave none: 1 % of the quote.
pub const DEFAULT_SLIPPAGE_BPS: u128 = 100;
const BPS: u128 = 10_000;

/// A trade made: its transaction, the pool before it, the trade as quoted, and what the
/// ledger booked.
#[derive(Clone, Debug)]
pub struct TradeReceipt {
    pub stamp: Stamp,
    pub side: TxType,
    pub token: Token,
    pub before: Pool,
    pub trade: Trade,
    pub booked: Booked,
}

/// A buy at the pool's current state, without making it.
pub fn quote_buy(
    store: &dyn Store,
    address: &TokenAddress,
    usdc: Option<Usdc>,
    tokens: Option<Units>,
) -> Result<(Token, Pool, Trade)> {
    let (t, p) = open_pool_of(store, address)?;
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
    let (t, p) = open_pool_of(store, address)?;
    let trade = p.sell(tokens).map_err(trade_error)?;
    Ok((t, p, trade))
}

fn slippage(message: &str) -> Error {
    Error::new(ErrorCode::SlippageExceeded, message.to_string())
}

/// The USD value (USDC base units) of `tokens` at the pool's price before the trade.
fn at_spot(t: &Token, before: &Pool, tokens: Units) -> Option<u128> {
    Some(tokens.value_at(t.decimals, before.price()?).raw())
}

/// Refuses a trade whose average price is worse than the pool's price before it by more
/// than `bps` (a buy pays at most price x (1 + bps), a sell receives at least x (1 - bps)).
fn within(bps: Option<u64>, buy: bool, t: &Token, before: &Pool, trade: &Trade) -> Result<()> {
    let (Some(bps), Some(spot)) = (bps, at_spot(t, before, trade.tokens)) else {
        return Ok(());
    };
    // USDC amounts stay far below 2^128 / 10^4, so these products cannot overflow.
    let paid = trade.usdc.raw().saturating_mul(BPS);
    let ok = if buy {
        paid <= spot.saturating_mul(BPS + u128::from(bps))
    } else {
        paid >= spot.saturating_mul(BPS.saturating_sub(u128::from(bps)))
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

/// The least of `quote` the default tolerance accepts (`up`: the most).
fn tolerance(quote: u128, up: bool) -> Option<u128> {
    if up {
        mul_div_up(quote, BPS + DEFAULT_SLIPPAGE_BPS, BPS)
    } else {
        mul_div(quote, BPS - DEFAULT_SLIPPAGE_BPS, BPS)
    }
}

/// The fewest tokens `usdc` may buy under `slippageBps`: the least `n` whose value at the
/// pool's price passes [`within`].
fn fewest_tokens(t: &Token, before: &Pool, usdc: Usdc, bps: u64) -> Option<u128> {
    let price = before.price()?.raw();
    let value = mul_div_up(usdc.raw(), BPS, BPS + u128::from(bps))?;
    let scale = crate::model::arith::pow10(u32::from(t.decimals) + 12)?;
    mul_div_up(value, scale, price)
}

/// The bounds a holder gave a trade (base units of what they bound).
#[derive(Clone, Copy, Debug, Default)]
struct Bounds {
    min_out: Option<u128>,
    max_in: Option<u128>,
    bps: Option<u64>,
}

/// The bound on the side the chain decides: the fewest out (exact input) or the most in
/// (exact output), the strictest of the holder's bounds; the default tolerance around the
/// quote when the holder gave none.
fn bound(
    t: &Token,
    before: &Pool,
    trade: &Trade,
    buy: bool,
    exact_in: bool,
    b: Bounds,
) -> Result<u128> {
    let Bounds {
        min_out,
        max_in,
        bps,
    } = b;
    let too_large = || Error::new(ErrorCode::InvalidAmount, "The amount is too large");
    let from_bps = match (bps, buy, exact_in) {
        (None, ..) => None,
        (Some(b), true, true) => fewest_tokens(t, before, trade.usdc, b),
        (Some(b), true, false) => {
            at_spot(t, before, trade.tokens).and_then(|v| mul_div(v, BPS + u128::from(b), BPS))
        }
        (Some(b), false, _) => at_spot(t, before, trade.tokens)
            .and_then(|v| mul_div_up(v, BPS.saturating_sub(u128::from(b)), BPS)),
    };
    if buy && !exact_in {
        let given = [max_in, from_bps].into_iter().flatten().min();
        return match given {
            Some(b) => Ok(b),
            None => tolerance(trade.usdc.raw(), true).ok_or_else(too_large),
        };
    }
    let quoted_out = if buy {
        trade.tokens.raw()
    } else {
        trade.usdc.raw()
    };
    match [min_out, from_bps].into_iter().flatten().max() {
        Some(b) => Ok(b),
        None => tolerance(quoted_out, false).ok_or_else(too_large),
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
    let min_out = req.min_amount_out.as_ref().map(|m| m.amount().raw());
    if min_out.is_some_and(|m| trade.tokens.raw() < m) {
        return Err(
            slippage("The tokens received would be fewer than minAmountOut")
                .with("tokenAmount", decimal(&t, trade.tokens)),
        );
    }
    let max_in = req.max_amount_in.as_ref().map(|m| m.amount().raw());
    if max_in.is_some_and(|m| trade.usdc.raw() > m) {
        return Err(slippage("The USDC paid would be more than maxAmountIn")
            .with("usdcAmount", usdc_json(trade.usdc)));
    }
    let bps = req.slippage_bps.map(Int::get);
    within(bps, true, &t, &before, &trade)?;
    let exact_in = req.usdc_amount.is_some();
    let bounds = Bounds {
        min_out,
        max_in,
        bps,
    };
    let mut limit = bound(&t, &before, &trade, true, exact_in, bounds)?;
    if !exact_in {
        // The most it may pay is also what it has, as long as that pays the quote.
        let usdc = token::find(store, &ctx.chain.usdc())?;
        let have = store.balance(&usdc.address, &h.address)?.active.raw();
        limit = limit.min(have).max(trade.usdc.raw());
    }
    settle(store, ctx, &h, t, before, trade, true, exact_in, limit)
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
    let (t, _) = open_pool_of(store, &req.token_address)?;
    debit_check(store, &t, &h, tokens)?;
    let (t, before, trade) = quote_sell(store, &req.token_address, tokens)?;
    let min_out = req.min_amount_out.as_ref().map(|m| m.amount().raw());
    if min_out.is_some_and(|m| trade.usdc.raw() < m) {
        return Err(
            slippage("The USDC received would be less than minAmountOut")
                .with("usdcAmount", usdc_json(trade.usdc)),
        );
    }
    let bps = req.slippage_bps.map(Int::get);
    within(bps, false, &t, &before, &trade)?;
    let bounds = Bounds {
        min_out,
        max_in: None,
        bps,
    };
    let limit = bound(&t, &before, &trade, false, true, bounds)?;
    settle(store, ctx, &h, t, before, trade, false, true, limit)
}

/// Books a trade: moves what the ledger books between the holder and the pool, checks
/// everything, records both legs in the holder's history under one transaction, and (on an
/// EVM chain) queues the swap.
#[allow(clippy::too_many_arguments)]
fn settle(
    store: &mut dyn Store,
    ctx: &Ctx,
    h: &Holder,
    mut t: Token,
    before: Pool,
    trade: Trade,
    buy: bool,
    exact_in: bool,
    limit: u128,
) -> Result<TradeReceipt> {
    let booked = if !ctx.chain.is_evm() {
        Booked {
            tokens: trade.tokens,
            usdc: trade.usdc,
        }
    } else if buy && exact_in {
        Booked {
            tokens: Units::new(limit),
            usdc: trade.usdc,
        }
    } else {
        Booked {
            tokens: trade.tokens,
            usdc: Usdc::new(limit),
        }
    };
    let side = if buy { TxType::Buy } else { TxType::Sell };
    let mut usdc = token::find(store, &ctx.chain.usdc())?;
    let usdc_units: Units = booked.usdc.cast();
    // What the holder pays must be there (active: locked tokens cannot be sold).
    let (mut tok_bal, mut usdc_bal) = if buy {
        (
            store.balance(&t.address, &h.address)?,
            debit_check(store, &usdc, h, usdc_units)?,
        )
    } else {
        (
            debit_check(store, &t, h, booked.tokens)?,
            store.balance(&usdc.address, &h.address)?,
        )
    };
    let mut after = trade.after.clone();
    if buy {
        usdc_bal.active = usdc_bal.active.minus(usdc_units)?;
        usdc.held = usdc.held.minus(usdc_units)?;
        usdc.pooled = usdc.pooled.plus(usdc_units)?;
        tok_bal.active = tok_bal.active.plus(booked.tokens)?;
        t.pooled = t.pooled.minus(booked.tokens)?;
        t.held = t.held.plus(booked.tokens)?;
        after.token_reserve = before.token_reserve.minus(booked.tokens)?;
        after.usdc_reserve = before.usdc_reserve.plus(booked.usdc)?;
    } else {
        tok_bal.active = tok_bal.active.minus(booked.tokens)?;
        t.held = t.held.minus(booked.tokens)?;
        t.pooled = t.pooled.plus(booked.tokens)?;
        usdc_bal.active = usdc_bal.active.plus(usdc_units)?;
        usdc.pooled = usdc.pooled.minus(usdc_units)?;
        usdc.held = usdc.held.plus(usdc_units)?;
        after.token_reserve = before.token_reserve.plus(booked.tokens)?;
        after.usdc_reserve = before.usdc_reserve.minus(booked.usdc)?;
    }
    // On the embedded chain the ledger's pool is the pool: it must hold what its curve
    // promises. On an EVM chain the pool contract keeps that, and reconciliation checks the
    // reserves against it.
    if after.token_reserve != t.pooled || (!ctx.chain.is_evm() && !after.solvent()) {
        return Err(Error::internal(format!(
            "pool invariant broken for {}",
            t.address
        )));
    }
    t.price = after.price().or(t.price);
    let label = if buy { "buy" } else { "sell" };
    let stamp = chain::stamp(
        store,
        ctx,
        label,
        &[
            &t.address.address().0,
            &h.address.0,
            &booked.tokens.raw().to_be_bytes(),
            &booked.usdc.raw().to_be_bytes(),
        ],
        ctx.now,
    )?;
    store.put_balance(&t.address, &h.address, &tok_bal)?;
    store.put_balance(&usdc.address, &h.address, &usdc_bal)?;
    store.put_token(&t)?;
    store.put_token(&usdc)?;
    store.put_pool(&after)?;
    let (tok_from, tok_to) = if buy {
        (after.address, h.address)
    } else {
        (h.address, after.address)
    };
    let legs = [
        Movement {
            stamp: &stamp,
            token: &t,
            amount: booked.tokens,
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
    let mut records = Vec::with_capacity(2);
    for (i, mv) in legs.iter().enumerate() {
        records.push(crate::ops::history::append(
            store,
            &mv.record(ctx.now, i, side, &h.user_id),
        )?);
    }
    let token_leg = records.first().copied().unwrap_or_default();
    let exact = match (buy, exact_in) {
        (true, true) => trade.usdc.cast(),
        _ => trade.tokens,
    };
    let action = Action::Swap {
        holder: h.address,
        buy,
        exact_in,
        amount: exact,
        limit: Units::new(limit),
        booked_tokens: booked.tokens,
        booked_usdc: usdc_units,
    };
    chain::intend(
        store,
        ctx,
        chain::want(ctx, t.address, action).with_records(records),
    )?;
    let subject = Subject::Trade(Box::new(TradeSubject {
        user_id: h.user_id.clone(),
        buy,
        token: t.address,
        facts: TradeFacts::of(&before, &trade),
        booked: Some(booked),
        record: token_leg,
    }));
    crate::ops::event::emit(store, ctx.now, EventType::TradeExecuted, subject)?;
    Ok(TradeReceipt {
        stamp,
        side,
        token: t,
        before,
        trade,
        booked,
    })
}
