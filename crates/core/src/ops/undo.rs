//! Undoing, in the ledger, a movement the chain refused.
//!
//! An intent says how (`model::intent::Undo`): take the amount back from the side that
//! received it and return it to the side that gave it. Conservation holds throughout: each
//! step moves the same amount out of one side and into another.
//!
//! What the receiving side no longer has cannot be taken back at once: a holder already passed
//! on tokens a refused buy was to bring, a pool already paid out USDC a refused sell had booked
//! (to another trader, whose swap was mined first). The ledger takes what is there and the rest
//! is owed (`model::intent::Owed`, in the token's record): the side holds that much more than
//! it should, and owes it to the side the undo gives to. The shortfall was made by a movement
//! built on the refused one, and the chain refuses that one too (what it moved was never there
//! on chain); its undo gives back to the side that owes, and pays the debt instead, so the
//! refusals net out and the ledger ends where the chain is:
//!
//! - what the side an undo gives to owes the side it takes from cancels first (nothing moves);
//! - what it takes goes to the debts of the side it gives to, oldest first (and on, to the
//!   debts of the side paid), the rest to that side;
//! - what it cannot take is owed.
//!
//! A debt grows the history records that show the movement owed as it is paid, or writes them
//! at its first payment when its undo could take nothing back, so a holder's `reversal` shows
//! all it undid in the end and its history adds up to its balance. What arrives at a side that
//! owes from a Transfer log the settler follows (a deposit, another trader's swap) pays its
//! debts first ([`pay_debts`]): the movement built on the refused one may be mined after all,
//! with what the side got on chain from elsewhere meanwhile. A debt that nothing pays stays,
//! and shows as a difference in reconciliation. A reorganization owes too: what it cannot
//! take back of a removed log (`ops::settle::reorg`).

use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::history::{ChainStatus, TxRecord, TxType};
use crate::model::ids::TokenAddress;
use crate::model::intent::{Action, Intent, Owed, OwedSince, Reserve, Side, Undo};
use crate::model::time::Millis;
use crate::model::token::Token;
use crate::ops::{token, Ctx};
use crate::store::{DueKey, Store};

/// How deep paying a debt may pay the payee's own debts in turn.
const MAX_DEPTH: usize = 16;

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
            // That pool's own reserve: USDC's `pooled` counts every pool's.
            Reserve::Pooled(pool_token) => match store.pool(pool_token)? {
                Some(p) if &t.address == pool_token => p.token_reserve.min(t.pooled),
                Some(p) => p.usdc_reserve.cast().min(t.pooled),
                None => t.pooled,
            },
            Reserve::Minted => want,
        },
    };
    Ok(have.min(want))
}

/// Moves `n` out of (`into` false) or into (`into` true) one side.
fn shift(store: &mut dyn Store, t: &mut Token, side: &Side, n: Units, into: bool) -> Result<()> {
    if n.is_zero() {
        return Ok(());
    }
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

/// Adds `n` to the amount of each of `records` (`grow`), or takes it off (down to zero).
fn resize_records(store: &mut dyn Store, records: &[u64], n: Units, grow: bool) -> Result<()> {
    for seq in records {
        if let Some(mut r) = store.history_at(*seq)? {
            r.amount = if grow {
                r.amount.plus(n)?
            } else {
                r.amount.checked_sub(n).unwrap_or(Units::ZERO)
            };
            store.put_history_at(*seq, &r)?;
        }
    }
    Ok(())
}

/// Writes a `reversal` record of `amount` of `t` from `from` to `to` for the failed intent
/// `i`, in the history of each of the two that is a holder (`ids`: their records' ids);
/// returns their sequence numbers.
#[allow(clippy::too_many_arguments)]
fn reversals(
    store: &mut dyn Store,
    t: &Token,
    i: &Intent,
    ids: [String; 2],
    from: Address,
    to: Address,
    amount: Units,
    now: Millis,
) -> Result<Vec<u64>> {
    let mut seqs = Vec::new();
    for (id, address) in ids.into_iter().zip([from, to]) {
        if let Some(h) = store.holder_by_address(&address)? {
            seqs.push(crate::ops::history::append(
                store,
                &TxRecord {
                    id,
                    hash: i.hash.clone(),
                    chain_status: ChainStatus::Failed,
                    block: i.block,
                    kind: TxType::Reversal,
                    user_id: h.user_id,
                    token: t.address,
                    symbol: t.symbol.clone(),
                    decimals: t.decimals,
                    amount,
                    from,
                    to,
                    at: now,
                    reason: i.error.clone(),
                },
            )?);
        }
    }
    Ok(seqs)
}

/// Pays up to `n` of the debt at `k`; returns what it paid, to whom. The debt's records grow
/// by as much; an undo's debt without records yet (its undo could take nothing back) gets its
/// reversal records now.
fn pay(
    store: &mut dyn Store,
    t: &mut Token,
    k: usize,
    n: Units,
    now: Millis,
) -> Result<Option<Owed>> {
    let Some(debt) = t.owed.get(k).cloned() else {
        return Ok(None);
    };
    let paid = debt.amount.min(n);
    let mut records = debt.records.clone();
    match (records.is_empty(), debt.since) {
        (false, _) => resize_records(store, &records, paid, true)?,
        (true, OwedSince::Intent(id)) => {
            if let Some(i) = store.intent(id)? {
                let ids = [0, 1].map(|side| format!("reversal{id}-owed-{}-{side}", t.address));
                let (from, to) = (owner(t, &debt.by), owner(t, &debt.to));
                records = reversals(store, t, &i, ids, from, to, paid, now)?;
            }
        }
        (true, OwedSince::Log { .. } | OwedSince::Rewound { .. } | OwedSince::TopUp(_)) => {}
    }
    let left = debt.amount.minus(paid)?;
    if left.is_zero() {
        t.owed.remove(k);
    } else if let Some(d) = t.owed.get_mut(k) {
        (d.amount, d.records) = (left, records.clone());
    }
    Ok(Some(Owed {
        amount: paid,
        records,
        ..debt
    }))
}

/// Undoes `n` of the payment `p` (a debt as [`pay`] returned it, `amount` what it paid): the
/// debt grows back by `n` where it stood, first among its debtor's, and its records shrink by
/// as much. A reorganization that removes what paid it calls it (`settle::reorg`).
pub fn owe_again(store: &mut dyn Store, t: &mut Token, p: &Owed, n: Units) -> Result<()> {
    resize_records(store, &p.records, n, false)?;
    let same = |d: &&mut Owed| d.by == p.by && d.to == p.to && d.since == p.since;
    match t.owed.iter_mut().find(same) {
        Some(d) => d.amount = d.amount.plus(n)?,
        None => t.owed.insert(
            0,
            Owed {
                amount: n,
                ..p.clone()
            },
        ),
    }
    Ok(())
}

/// What `by` owes `to` cancels against up to `n` given back from `to` to `by`; returns how
/// much did (nothing moves). A swap mined again after a reorganization pays its top-up this
/// way first (`ops::market::follow`): what its holder owes the pool since the reorganization
/// could not take all of that top-up back is what the new top-up brings again.
pub fn cancel(
    store: &mut dyn Store,
    t: &mut Token,
    by: &Side,
    to: &Side,
    n: Units,
    now: Millis,
) -> Result<Units> {
    let mut done = Units::ZERO;
    while done < n {
        let Some(k) = t.owed.iter().position(|d| &d.by == by && &d.to == to) else {
            break;
        };
        let Some(paid) = pay(store, t, k, n.minus(done)?, now)? else {
            break;
        };
        done = done.plus(paid.amount)?;
    }
    Ok(done)
}

/// Gives `n` to `side`: its debts first, oldest first (each payee's own debts in turn), the
/// rest to the side itself.
fn credit(
    store: &mut dyn Store,
    t: &mut Token,
    side: &Side,
    n: Units,
    now: Millis,
    depth: usize,
) -> Result<()> {
    let (left, _) = pay_debts_at(store, t, side, n, now, depth)?;
    shift(store, t, side, left, true)
}

fn pay_debts_at(
    store: &mut dyn Store,
    t: &mut Token,
    side: &Side,
    n: Units,
    now: Millis,
    depth: usize,
) -> Result<(Units, Vec<Owed>)> {
    let (mut left, mut done) = (n, Vec::new());
    while !left.is_zero() && depth < MAX_DEPTH {
        let Some(k) = t.owed.iter().position(|d| &d.by == side) else {
            break;
        };
        let Some(paid) = pay(store, t, k, left, now)? else {
            break;
        };
        credit(store, t, &paid.to, paid.amount, now, depth + 1)?;
        left = left.minus(paid.amount)?;
        done.push(paid);
    }
    Ok((left, done))
}

/// Out of `n` arriving at `side` from outside the ledger's own movements (a Transfer log the
/// settler follows), pays `side`'s debts first, oldest first; returns the rest, for the
/// caller to give to `side`, and what it paid of which debt (journaled with the log: a
/// reorganization that removes the log owes them again, `settle::reorg`). A side owes when
/// the ledger booked onward what it no longer has (see the module): what arrives on chain is
/// what the movement built on it spends there.
pub fn pay_debts(
    store: &mut dyn Store,
    t: &mut Token,
    side: &Side,
    n: Units,
    now: Millis,
) -> Result<(Units, Vec<Owed>)> {
    pay_debts_at(store, t, side, n, now, 0)
}

/// Records that `by` owes `amount` to `to` (see the module).
pub fn owe(t: &mut Token, by: Side, to: Side, amount: Units, since: OwedSince, records: Vec<u64>) {
    if amount.is_zero() {
        return;
    }
    t.owed.push(Owed {
        by,
        to,
        amount,
        since,
        records,
    });
}

/// Forgets the debt owed since the Transfer log at (`block`, `log_index`) (a reorganization
/// removed the log); returns what was still owed of it.
pub fn forgive(t: &mut Token, block: u64, log_index: u64) -> Units {
    let since = OwedSince::Log { block, log_index };
    forget(t, |d| d.since == since)
}

/// Forgets what `by` still owes of the top-up of swap `id` (a reorganization removed the
/// swap, and its top-up with it); returns how much that was. What `by` paid of it already
/// is where it was paid to, and the caller takes it back from there.
pub fn forgive_top_up(t: &mut Token, by: &Side, id: u64) -> Units {
    forget(t, |d| d.since == OwedSince::TopUp(id) && &d.by == by)
}

/// Removes the debts `which` picks; returns what they still owed.
fn forget(t: &mut Token, which: impl Fn(&Owed) -> bool) -> Units {
    let mut left = Units::ZERO;
    t.owed.retain(|d| {
        let gone = which(d);
        if gone {
            left = left.saturating_add(d.amount);
        }
        !gone
    });
    left
}

/// Moves up to `n` from `from` to `to` as far as `from` has it, no debts involved (a
/// reorganization takes back what a debt's payment gave); returns how much.
pub fn give_back(
    store: &mut dyn Store,
    t: &mut Token,
    from: &Side,
    to: &Side,
    n: Units,
) -> Result<Units> {
    let n = available(store, t, from, n)?;
    shift(store, t, from, n, false)?;
    shift(store, t, to, n, true)?;
    Ok(n)
}

/// Moves up to `n` from `from` back to `to` as far as `from` has it, where an earlier movement
/// took it from `to`: `to`'s debts first (see the module), the rest to `to`; returns how much
/// it moved. A reorganization takes back a swap's top-up this way (`ops::settle::reorg`):
/// the pool may owe, since the same rewind could not take back a log's tokens the top-up had
/// paid out, and what comes back is what that debt is short of.
pub fn take_back(
    store: &mut dyn Store,
    t: &mut Token,
    from: &Side,
    to: &Side,
    n: Units,
    now: Millis,
) -> Result<Units> {
    let n = available(store, t, from, n)?;
    shift(store, t, from, n, false)?;
    credit(store, t, to, n, now, 0)?;
    Ok(n)
}

/// Whether undoing `i` would move nothing, only cancel a debt: its source owes its recipient
/// all it moved, since the chain refused the movement that was to bring it there (a
/// presale's refund, booked before the chain refused the purchase it returns). Such a
/// movement of the treasury's reverts for want of what never came; refused, it nets with
/// that refusal and the holder ends where the chain has them (`settle::receipt`), where an
/// operator funding it would pay the holder twice.
pub fn nets(store: &dyn Store, i: &Intent) -> Result<bool> {
    let Some(u) = &i.undo else {
        return Ok(false);
    };
    let want = amount(i);
    if want.is_zero() {
        return Ok(false);
    }
    let t = token::find(store, &i.token)?;
    let owed = t
        .owed
        .iter()
        .filter(|d| d.by == u.credit && d.to == u.debit)
        .try_fold(Units::ZERO, |sum, d| sum.plus(d.amount))?;
    Ok(owed >= want)
}

/// Undoes the failed intent `i` in the ledger, recording a `reversal` for each holder it
/// touches. Returns how much it could undo.
pub fn undo(store: &mut dyn Store, ctx: &Ctx, i: &Intent) -> Result<Units> {
    let Some(u) = &i.undo else {
        return Ok(Units::ZERO);
    };
    undo_leg(store, ctx, i, &i.token, u, amount(i), 0)
}

/// Undoes one leg of the failed intent `i`: `want` of `token`, as `u` says, netting what the
/// sides owe (see the module). A movement of two legs (a swap) numbers them (`leg` 0 and 1),
/// so their reversal records differ. Returns how much of it is undone (the rest is owed).
pub fn undo_leg(
    store: &mut dyn Store,
    ctx: &Ctx,
    i: &Intent,
    token: &TokenAddress,
    u: &Undo,
    want: Units,
    leg: usize,
) -> Result<Units> {
    if want.is_zero() {
        return Ok(want);
    }
    let mut t = token::find(store, token)?;
    let cancelled = cancel(store, &mut t, &u.credit, &u.debit, want, ctx.now)?;
    // What a cancelled debt leaves with the side the undo takes from is that side's own now,
    // as if it had just arrived (`credit`): its own debts are paid from it first (a holder
    // refunded a purchase the chain refused, who owes the pool what a refused sell booked).
    let kept = available(store, &t, &u.debit, cancelled)?;
    let (unpaid, _) = pay_debts_at(store, &mut t, &u.debit, kept, ctx.now, 0)?;
    shift(store, &mut t, &u.debit, kept.minus(unpaid)?, false)?;
    let rest = want.minus(cancelled)?;
    let taken = available(store, &t, &u.debit, rest)?;
    shift(store, &mut t, &u.debit, taken, false)?;
    credit(store, &mut t, &u.credit, taken, ctx.now, 0)?;
    let short = rest.minus(taken)?;
    let undone = want.minus(short)?;
    let (from, to) = (owner(&t, &u.debit), owner(&t, &u.credit));
    // Nothing undone yet: the records come with the first payment of the debt (`pay`).
    let records = if undone.is_zero() {
        Vec::new()
    } else {
        let ids = [0, 1].map(|side| format!("reversal{}-{}", i.id, leg * 2 + side));
        reversals(store, &t, i, ids, from, to, undone, ctx.now)?
    };
    let since = OwedSince::Intent(i.id);
    owe(
        &mut t,
        u.debit.clone(),
        u.credit.clone(),
        short,
        since,
        records,
    );
    store.put_token(&t)?;
    Ok(undone)
}
