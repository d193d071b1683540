//! Undoing, in the ledger, a movement the chain refused.
//!
//! An intent says how (`model::intent::Undo`): take the amount back from the side that
//! received it and return it to the side that gave it. What the receiving side no longer has
//! (a holder who already spent tokens that never arrived on chain) cannot be taken back: the
//! ledger takes what is there, returns the same, and the reversal record says how much. The
//! rest shows as a difference in reconciliation. Conservation holds either way: both sides
//! move by the same amount.

use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::history::{ChainStatus, TxRecord, TxType};
use crate::model::ids::TokenAddress;
use crate::model::intent::{Action, Intent, Reserve, Side, Undo};
use crate::model::token::Token;
use crate::ops::{token, Ctx};
use crate::store::{DueKey, Store};

/// The amount a movement moved.
fn amount(i: &Intent) -> Units {
    match &i.action {
        Action::Transfer { amount, .. }
        | Action::Mint { amount, .. }
        | Action::Lock { amount, .. }
        | Action::Release { amount, .. } => *amount,
        Action::Deploy { .. } | Action::OpenPool { .. } | Action::Swap { .. } => Units::ZERO,
    }
}

/// How much of `want` the side still has.
fn available(store: &dyn Store, t: &Token, side: &Side, want: Units) -> Result<Units> {
    let have = match side {
        Side::Row(a) => store.balance(&t.address, a)?.active,
        Side::Locked(a, lock) => {
            let in_lock = store.lock(lock)?.map_or(Units::ZERO, |l| l.amount);
            in_lock.min(store.balance(&t.address, a)?.locked)
        }
        Side::Reserve(r) => match r {
            Reserve::App => t.remaining_app_supply,
            Reserve::Merchant => t.merchant_supply,
            Reserve::Liquidity => t.liquidity_supply,
            Reserve::Escrow => t.escrow,
            Reserve::Pooled(_) => t.pooled,
            Reserve::Minted => want,
        },
    };
    Ok(have.min(want))
}

/// Moves `n` out of (`sign` false) or into (`sign` true) one side.
fn shift(store: &mut dyn Store, t: &mut Token, side: &Side, n: Units, into: bool) -> Result<()> {
    let step = |x: Units| if into { x.plus(n) } else { x.minus(n) };
    match side {
        Side::Row(a) => {
            let mut b = store.balance(&t.address, a)?;
            b.active = step(b.active)?;
            t.held = step(t.held)?;
            store.put_balance(&t.address, a, &b)?;
        }
        Side::Locked(a, lock_id) => {
            let mut b = store.balance(&t.address, a)?;
            b.locked = step(b.locked)?;
            t.held = step(t.held)?;
            store.put_balance(&t.address, a, &b)?;
            if let Some(mut lock) = store.lock(lock_id)? {
                lock.amount = step(lock.amount)?;
                if lock.amount.is_zero() {
                    store.remove_lock(lock_id)?;
                    store.unschedule(&DueKey::Unlock(lock_id.clone()))?;
                } else {
                    store.put_lock(&lock)?;
                }
            }
        }
        Side::Reserve(r) => match r {
            Reserve::App => t.remaining_app_supply = step(t.remaining_app_supply)?,
            Reserve::Merchant => t.merchant_supply = step(t.merchant_supply)?,
            Reserve::Liquidity => t.liquidity_supply = step(t.liquidity_supply)?,
            Reserve::Escrow => t.escrow = step(t.escrow)?,
            // Outside the supply: what goes into it leaves the ledger, what comes out is new.
            Reserve::Minted => {
                t.total_supply = if into {
                    t.total_supply.minus(n)?
                } else {
                    t.total_supply.plus(n)?
                }
            }
            Reserve::Pooled(pool_token) => {
                t.pooled = step(t.pooled)?;
                if let Some(mut pool) = store.pool(pool_token)? {
                    if &t.address == pool_token {
                        pool.token_reserve = step(pool.token_reserve)?;
                    } else {
                        let usdc = pool.usdc_reserve.cast::<crate::model::amount::unit::Base>();
                        pool.usdc_reserve = step(usdc)?.cast();
                    }
                    store.put_pool(&pool)?;
                }
            }
        },
    }
    Ok(())
}

fn owner(t: &Token, side: &Side) -> Address {
    match side {
        Side::Row(a) | Side::Locked(a, _) => *a,
        Side::Reserve(_) => t.address.address(),
    }
}

/// Undoes the failed intent `i` in the ledger, recording a `reversal` for each holder it
/// touches. Returns how much it could undo.
pub fn undo(store: &mut dyn Store, ctx: &Ctx, i: &Intent) -> Result<Units> {
    let Some(u) = &i.undo else {
        return Ok(Units::ZERO);
    };
    undo_leg(store, ctx, i, &i.token, u, amount(i), 0)
}

/// Undoes one leg of the failed intent `i`: `want` of `token`, as `u` says. A movement of two
/// legs (a swap) numbers them (`leg` 0 and 1), so their reversal records differ.
pub fn undo_leg(
    store: &mut dyn Store,
    ctx: &Ctx,
    i: &Intent,
    token: &TokenAddress,
    u: &Undo,
    want: Units,
    leg: usize,
) -> Result<Units> {
    let mut t = token::find(store, token)?;
    let n = available(store, &t, &u.debit, want)?;
    if n.is_zero() {
        return Ok(n);
    }
    shift(store, &mut t, &u.debit, n, false)?;
    shift(store, &mut t, &u.credit, n, true)?;
    store.put_token(&t)?;
    let (from, to) = (owner(&t, &u.debit), owner(&t, &u.credit));
    for (side, address) in [(0usize, from), (1, to)] {
        if let Some(h) = store.holder_by_address(&address)? {
            crate::ops::history::append(
                store,
                &TxRecord {
                    id: format!("reversal{}-{}", i.id, leg * 2 + side),
                    hash: i.hash.clone(),
                    chain_status: ChainStatus::Failed,
                    block: i.block,
                    kind: TxType::Reversal,
                    user_id: h.user_id,
                    token: t.address,
                    symbol: t.symbol.clone(),
                    decimals: t.decimals,
                    amount: n,
                    from,
                    to,
                    at: ctx.now,
                },
            )?;
        }
    }
    Ok(n)
}
