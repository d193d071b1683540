//! What the chain says of pools, brought into the ledger (an EVM chain only):
//!
//! - [`pool_opened`]: the opening was mined; the pool's position has its NFT id, and the pool
//!   trades from now on;
//! - [`pool_failed`]: the opening reverted; what the ledger put in the pool goes back, and the
//!   token has no pool;
//! - [`swapped`]: a holder's swap was mined; the ledger tops up what it booked to the mined
//!   amounts (always from the pool to the holder: the bound booked is the worst the chain may
//!   do; what the pool no longer has in the ledger is owed, `ops::undo`), its history records
//!   show them, and the pool takes the chain's state;
//! - [`swap_failed`]: a swap reverted; both legs are undone, visibly;
//! - [`follow`]: another trader's swap, or liquidity added or removed, moves the pool's state
//!   (and so the price the API reports). Balances follow such trades from their `Transfer`
//!   logs (`ops::settle::observe`).
//!
//! After each, the pool's state is the chain's with the ledger's own swaps not yet mined
//! applied on top (`Pool::rebase`).

use crate::error::{Error, Result};
use crate::model::amount::Units;
use crate::model::chain::{ChainPoint, PoolEvent};
use crate::model::ids::TokenAddress;
use crate::model::intent::{Action, Intent, OwedSince, Reserve, Side, Undo};
use crate::model::pool::v3::{self, State};
use crate::model::pool::Pool;
use crate::model::token::Token;
use crate::ops::{token, undo, Ctx};
use crate::store::Store;
use alloy_primitives::U256;

/// How far into the outbox the pending swaps of a pool are looked for.
const LOOKAHEAD: u32 = 5_000;

/// The ledger's own swaps in `p`'s pool not yet mined (but `except`), in order.
fn pending(store: &dyn Store, p: &Pool, except: u64) -> Result<Vec<(bool, bool, u128)>> {
    Ok(store
        .open_intents(LOOKAHEAD)?
        .into_iter()
        .filter(|i| i.token == p.token && i.id != except)
        .filter_map(|i| match i.action {
            Action::Swap {
                buy,
                exact_in,
                amount,
                ..
            } => Some((buy, exact_in, amount.raw())),
            _ => None,
        })
        .collect())
}

/// Writes the pool back with its state rebased, and the token's price with it.
fn save(store: &mut dyn Store, mut t: Token, mut p: Pool, except: u64) -> Result<()> {
    let pending = pending(store, &p, except)?;
    p.rebase(&pending);
    t.price = p.price().or(t.price);
    store.put_pool(&p)?;
    store.put_token(&t)
}

fn missing(what: &str, i: &Intent) -> Error {
    Error::internal(format!(
        "intent {} was mined without its {what} event from the pool",
        i.id
    ))
}

/// (token, USDC) of a pair given as (token0, token1).
fn oriented<T>(p: &Pool, a0: T, a1: T) -> (T, T) {
    if p.token_is_0 {
        (a0, a1)
    } else {
        (a1, a0)
    }
}

/// The opening of `i.token`'s pool was mined (see the module).
pub fn pool_opened(store: &mut dyn Store, i: &Intent, events: &[PoolEvent]) -> Result<()> {
    let Some(mut p) = store.pool(&i.token)? else {
        return Ok(());
    };
    let Some((position_id, minted, amount0, amount1, at)) = events.iter().find_map(|e| match e {
        PoolEvent::Opened {
            pool,
            position_id,
            liquidity,
            amount0,
            amount1,
            at,
        } if *pool == p.address => Some((*position_id, *liquidity, *amount0, *amount1, *at)),
        _ => None,
    }) else {
        return Err(missing("PoolOpened", i));
    };
    let (tokens, usdc) = oriented(&p, amount0, amount1);
    let again = i.reorged > 0;
    if !again && (tokens != p.token_reserve.raw() || usdc != p.usdc_reserve.raw()) {
        // The market computes what the position takes as the ledger did; a difference is a
        // bug somewhere, and the chain's figures are the truth.
        return Err(Error::internal(format!(
            "pool of {} opened with {tokens} tokens and {usdc} USDC, the ledger booked {} and {}",
            p.token,
            p.token_reserve.raw(),
            p.usdc_reserve.raw()
        )));
    }
    p.position.id = Some(position_id);
    // Mined again after a reorganization, the pool's state is the chain's as followed (or
    // read: `resync`) since, not the opening's; unless nothing of the pool was followed since
    // the reorganization dropped the opening (`settle::reorg`): then it is as the opening
    // leaves it, not as the ledger had it (what it followed of the dropped blocks is gone).
    if !again {
        let state = moved(&p, events, minted).unwrap_or_else(|| p.state());
        p.observe_state(&state, at);
    } else if p.chain.is_none() {
        let state = match moved(&p, events, minted) {
            Some(s) => s,
            None => opened(&p, i, minted)?,
        };
        p.observe_state(&state, at);
    }
    let t = token::find(store, &p.token)?;
    save(store, t, p, i.id)
}

/// The pool's state after an opening that first moved the price of a pool someone else had
/// created (the market's `Swap` of nothing in the receipt: the price is the launch's, the
/// tick the chain's, which is one below the launch's tick when the price came down onto it),
/// with the position just minted (`minted` liquidity) in range or not by that tick. None: the
/// opening created the pool, at the state the ledger computed.
fn moved(p: &Pool, events: &[PoolEvent], minted: u128) -> Option<State> {
    let mut s = events.iter().find_map(|e| match e {
        PoolEvent::Swap {
            pool,
            sqrt_price_x96,
            liquidity,
            tick,
            ..
        } if *pool == p.address => Some(State {
            sqrt_price: *sqrt_price_x96,
            tick: *tick,
            liquidity: *liquidity,
        }),
        _ => None,
    })?;
    let ours = &p.position;
    if ours.tick_lower <= s.tick && s.tick < ours.tick_upper {
        s.liquidity = s.liquidity.saturating_add(minted);
    }
    Some(s)
}

/// The state the opening `i` leaves a pool it created: the launch's price, and the position's
/// liquidity (`minted`) when that price is in its range.
fn opened(p: &Pool, i: &Intent, minted: u128) -> Result<State> {
    let Action::OpenPool { sqrt_price_x96, .. } = &i.action else {
        return Err(Error::internal(format!(
            "intent {} is not an opening",
            i.id
        )));
    };
    let bad = |what: String| Error::internal(format!("opening {}: {what}", i.id));
    let sqrt_price: U256 = sqrt_price_x96
        .parse()
        .map_err(|_| bad(format!("price {sqrt_price_x96} is not a number")))?;
    let tick = v3::tick_at(sqrt_price).map_err(|e| bad(e.0))?;
    let ours = &p.position;
    let in_range = ours.tick_lower <= tick && tick < ours.tick_upper;
    Ok(State {
        sqrt_price,
        tick,
        liquidity: if in_range { minted } else { 0 },
    })
}

/// The opening of `i.token`'s pool reverted (see the module).
pub fn pool_failed(store: &mut dyn Store, ctx: &Ctx, i: &Intent) -> Result<()> {
    let Some(p) = store.pool(&i.token)? else {
        return Ok(());
    };
    let mut t = token::find(store, &p.token)?;
    t.pooled = t.pooled.minus(p.token_reserve)?;
    t.liquidity_supply = t.liquidity_supply.plus(p.token_reserve)?;
    store.put_token(&t)?;
    if !p.usdc_reserve.is_zero() {
        let mut usdc = token::find(store, &ctx.chain.usdc())?;
        let back: Units = p.usdc_reserve.cast();
        usdc.pooled = usdc.pooled.minus(back)?;
        usdc.merchant_supply = usdc.merchant_supply.plus(back)?;
        store.put_token(&usdc)?;
    }
    store.remove_pool(&p.token)
}

/// The swap's figures from its intent.
struct Swap {
    holder: crate::model::address::Address,
    buy: bool,
    booked_tokens: Units,
    booked_usdc: Units,
}

fn swap_of(i: &Intent) -> Result<Swap> {
    match &i.action {
        Action::Swap {
            holder,
            buy,
            booked_tokens,
            booked_usdc,
            ..
        } => Ok(Swap {
            holder: *holder,
            buy: *buy,
            booked_tokens: *booked_tokens,
            booked_usdc: *booked_usdc,
        }),
        _ => Err(Error::internal(format!("intent {} is not a swap", i.id))),
    }
}

/// Moves `n` of `t` (the pool's token or USDC) from the pool to `holder`, the top-up of the
/// swap `i`. What the holder owes the pool is paid by it first, and nothing moves for that
/// part: a reorganization dropped this swap once mined, and could not take all of its top-up
/// back (the holder had spent some: `settle::reorg`); mined again, the top-up brings it
/// again. What the pool no longer has in the ledger (an outside swap mined first took it,
/// and the pool owes it: `ops::undo`) is owed to the holder too; the undo of the ledger's
/// next refused swap in the pool pays it.
fn pay_out(
    store: &mut dyn Store,
    ctx: &Ctx,
    t: &mut Token,
    p: &mut Pool,
    i: &Intent,
    holder: &crate::model::address::Address,
    n: Units,
) -> Result<()> {
    let pool = Side::Reserve(Reserve::Pooled(p.token));
    let row = Side::Row(*holder);
    let n = n.minus(undo::cancel(store, t, &row, &pool, n, ctx.now)?)?;
    let have = if t.address == p.token {
        p.token_reserve
    } else {
        p.usdc_reserve.cast()
    };
    let owed = n.checked_sub(have.min(t.pooled)).unwrap_or(Units::ZERO);
    undo::owe(t, pool, row, owed, OwedSince::TopUp(i.id), Vec::new());
    let n = n.minus(owed)?;
    if n.is_zero() {
        return Ok(());
    }
    if t.address == p.token {
        p.token_reserve = p.token_reserve.minus(n)?;
    } else {
        p.usdc_reserve = p.usdc_reserve.minus(n.cast())?;
    }
    t.pooled = t.pooled.minus(n)?;
    t.held = t.held.plus(n)?;
    let mut b = store.balance(&t.address, holder)?;
    b.active = b.active.plus(n)?;
    store.put_balance(&t.address, holder, &b)
}

/// Sets a history record's amount to what was mined.
fn record_amount(store: &mut dyn Store, seq: Option<&u64>, amount: Units) -> Result<()> {
    let Some(seq) = seq else {
        return Ok(());
    };
    if let Some(mut r) = store.history_at(*seq)? {
        r.amount = amount;
        store.put_history_at(*seq, &r)?;
    }
    Ok(())
}

fn abs(x: i128) -> Result<Units> {
    Ok(Units::new(x.unsigned_abs()))
}

/// A holder's swap `i` was mined (see the module). Returns its top-up: the tokens and the
/// USDC the holder got beyond what was booked.
pub fn swapped(
    store: &mut dyn Store,
    ctx: &Ctx,
    i: &Intent,
    events: &[PoolEvent],
) -> Result<(Units, Units)> {
    let s = swap_of(i)?;
    let Some(mut p) = store.pool(&i.token)? else {
        return Err(Error::internal(format!("no pool for swap {}", i.id)));
    };
    let Some((amount0, amount1, state, at)) = events.iter().find_map(|e| match e {
        PoolEvent::Swap {
            pool,
            amount0,
            amount1,
            sqrt_price_x96,
            liquidity,
            tick,
            at,
            ..
        } if *pool == p.address => Some((
            *amount0,
            *amount1,
            State {
                sqrt_price: *sqrt_price_x96,
                tick: *tick,
                liquidity: *liquidity,
            },
            *at,
        )),
        _ => None,
    }) else {
        return Err(missing("Swap", i));
    };
    let (tokens, usdc) = oriented(&p, amount0, amount1);
    let (tokens, usdc) = (abs(tokens)?, abs(usdc)?);
    // What the chain did beyond what was booked, from the pool to the holder: more out than
    // the fewest accepted, or less in than the most accepted.
    let (more_tokens, more_usdc) = if s.buy {
        (
            tokens.checked_sub(s.booked_tokens),
            s.booked_usdc.checked_sub(usdc),
        )
    } else {
        (
            s.booked_tokens.checked_sub(tokens),
            usdc.checked_sub(s.booked_usdc),
        )
    };
    let (Some(more_tokens), Some(more_usdc)) = (more_tokens, more_usdc) else {
        return Err(Error::internal(format!(
            "swap {} was mined beyond its bound: {} tokens and {} USDC, booked {} and {}",
            i.id,
            tokens.raw(),
            usdc.raw(),
            s.booked_tokens.raw(),
            s.booked_usdc.raw()
        )));
    };
    let mut t = token::find(store, &i.token)?;
    let mut u = token::find(store, &ctx.chain.usdc())?;
    pay_out(store, ctx, &mut t, &mut p, i, &s.holder, more_tokens)?;
    pay_out(store, ctx, &mut u, &mut p, i, &s.holder, more_usdc)?;
    if p.token_reserve != t.pooled {
        return Err(Error::internal(format!(
            "pool reserve of {} no longer matches its pooled tokens",
            t.address
        )));
    }
    store.put_token(&u)?;
    record_amount(store, i.records.first(), tokens)?;
    record_amount(store, i.records.get(1), usdc)?;
    p.observe_state(&state, at);
    save(store, t, p, i.id)?;
    Ok((more_tokens, more_usdc))
}

/// `token`'s pool as read from the chain at `at` (its `slot0` and `liquidity()`, after a
/// reorganization: what the ledger followed from the dropped blocks is no longer the
/// chain's). Taken whatever the record followed before; the ledger's own swaps not yet
/// mined go on top again.
pub fn resync(
    store: &mut dyn Store,
    token: &TokenAddress,
    state: &State,
    at: ChainPoint,
) -> Result<()> {
    let Some(mut p) = store.pool(token)? else {
        return Ok(());
    };
    if p.chain.is_none() {
        // Not open on chain yet: its opening's receipt sets it.
        return Ok(());
    }
    p.chain = None;
    p.observe_state(state, at);
    let t = token::find(store, token)?;
    save(store, t, p, 0)
}

/// A holder's swap `i` reverted (see the module).
pub fn swap_failed(store: &mut dyn Store, ctx: &Ctx, i: &Intent) -> Result<()> {
    let s = swap_of(i)?;
    let pool = Side::Reserve(Reserve::Pooled(i.token));
    let row = Side::Row(s.holder);
    // A buy moved tokens pool -> holder and USDC holder -> pool; a sell the other way.
    let (token_leg, usdc_leg) = if s.buy {
        (Undo::of(pool.clone(), row.clone()), Undo::of(row, pool))
    } else {
        (Undo::of(row.clone(), pool.clone()), Undo::of(pool, row))
    };
    undo::undo_leg(store, ctx, i, &i.token, &token_leg, s.booked_tokens, 0)?;
    undo::undo_leg(
        store,
        ctx,
        i,
        &ctx.chain.usdc(),
        &usdc_leg,
        s.booked_usdc,
        1,
    )?;
    let Some(p) = store.pool(&i.token)? else {
        return Ok(());
    };
    let t = token::find(store, &i.token)?;
    save(store, t, p, i.id)
}

/// Pool events in chain order (see the module); those of transactions tokenpad sent itself
/// are already in the ledger, and skipped.
pub fn follow(store: &mut dyn Store, events: &[PoolEvent]) -> Result<()> {
    for e in events {
        let own = match e {
            PoolEvent::Swap { tx, .. } | PoolEvent::Liquidity { tx, .. } => store.is_own_tx(tx)?,
            PoolEvent::Opened { .. } => true,
        };
        if own {
            continue;
        }
        let Some((t, mut p)) = pool_at(store, e)? else {
            continue;
        };
        let moved = match e {
            PoolEvent::Swap {
                sqrt_price_x96,
                liquidity,
                tick,
                at,
                ..
            } => p.observe_state(
                &State {
                    sqrt_price: *sqrt_price_x96,
                    tick: *tick,
                    liquidity: *liquidity,
                },
                *at,
            ),
            PoolEvent::Liquidity {
                tick_lower,
                tick_upper,
                amount,
                at,
                ..
            } => {
                p.observe_liquidity(*tick_lower, *tick_upper, *amount, *at)
                    .map_err(|e| Error::internal(format!("pool {}: {}", p.address, e.0)))?;
                true
            }
            PoolEvent::Opened { .. } => false,
        };
        if moved {
            save(store, t, p, 0)?;
        }
    }
    Ok(())
}

/// The merchant's token whose pool `e` is about, and that pool.
fn pool_at(store: &dyn Store, e: &PoolEvent) -> Result<Option<(Token, Pool)>> {
    let address = e.pool();
    for t in store.tokens()? {
        if let Some(p) = store.pool(&t.address)? {
            if p.address == address {
                return Ok(Some((t, p)));
            }
        }
    }
    Ok(None)
}
