//! The ends of a presale's money: refunds to every buyer (also when its launch's market could
//! not open), and locks that open.

use super::lookup::{emit, key, save, usdc};
use crate::error::Result;
use crate::model::event::{EventType, Subject};
use crate::model::history::TxType;
use crate::model::ids::{LockId, PresaleId};
use crate::model::intent::{Account, Action, Intent, Reserve, Side};
use crate::model::presale::{Phase, Presale};
use crate::model::time::Millis;
use crate::model::time::SECOND;
use crate::ops::ledger::Movement;
use crate::ops::{chain, token, Ctx};
use crate::store::Store;

/// Every buyer gets their USDC back in full; the presale ends.
pub fn refund(store: &mut dyn Store, ctx: &Ctx, mut p: Presale, at: Millis) -> Result<()> {
    let mut usdc = usdc(store, ctx)?;
    let participants = store.participants(&p.id)?;
    let stamp = if participants.is_empty() {
        None
    } else {
        Some(chain::stamp(
            store,
            ctx,
            "presale_refund",
            &[p.id.as_str().as_bytes()],
            at,
        )?)
    };
    for (i, part) in participants.iter().enumerate() {
        let paid = part.usdc.cast();
        if paid.is_zero() {
            // Every purchase of theirs the chain refused (`buy::refused`): nothing came.
            continue;
        }
        let mut bal = store.balance(&usdc.address, &part.address)?;
        bal.active = bal.active.plus(paid)?;
        usdc.escrow = usdc.escrow.minus(paid)?;
        usdc.held = usdc.held.plus(paid)?;
        store.put_balance(&usdc.address, &part.address, &bal)?;
        if let Some(stamp) = &stamp {
            let mv = Movement {
                stamp,
                token: &usdc,
                amount: paid,
                from: super::lookup::counterparty(ctx, &p),
                to: part.address,
            };
            let seq = crate::ops::history::append(
                store,
                &mv.record(at, i, TxType::PresaleRefund, &part.user_id),
            )?;
            let action = chain::transfer(Account::Treasury, Account::Wallet(part.address), paid);
            let intent = chain::want(ctx, usdc.address, action)
                .with_records(vec![seq])
                .moved(Side::Reserve(Reserve::Escrow), Side::Row(part.address));
            chain::intend(store, ctx, intent)?;
        }
    }
    store.put_token(&usdc)?;
    p.phase = Phase::Refunded;
    store.unschedule(&key(&p))?;
    save(store, &mut p, at)?;
    emit(store, at, EventType::PresaleRefunded, &p, None, None)
}

/// The chain refused the opening of presale `id`'s pool (`opening`: outside liquidity sits
/// in the pool in the way of the presale's price, and no market can open at it): the
/// launch fails openly. The raise, which the failed opening left with the merchant, goes
/// back to escrow and every buyer is refunded in full; the presale says why
/// (`completionState.lastError`) and ends refunded (`presale.refunded`). The token exists
/// on chain, its whole supply in the treasury; no buyer holds any. A launch that already
/// gave its buyers their locks is past this (it never does: it waits for its market).
pub fn market_failed(
    store: &mut dyn Store,
    ctx: &Ctx,
    id: &PresaleId,
    opening: &Intent,
) -> Result<()> {
    let Some(mut p) = store.presale(id)? else {
        return Ok(());
    };
    if p.phase != Phase::Launching || p.distributed {
        return Ok(());
    }
    let mut usdc = usdc(store, ctx)?;
    let back = p.purchased.cast().min(usdc.merchant_supply);
    usdc.merchant_supply = usdc.merchant_supply.minus(back)?;
    usdc.escrow = usdc.escrow.plus(back)?;
    store.put_token(&usdc)?;
    let why = opening
        .error
        .clone()
        .unwrap_or_else(|| "the transaction reverted".into());
    p.completion.last_error = Some(format!(
        "the token's market could not open at the presale's price ({why}): every buyer is refunded"
    ));
    refund(store, ctx, p, ctx.now)
}

/// A lock's unlock date has come: its tokens become active.
pub fn unlock(store: &mut dyn Store, ctx: &Ctx, lock_id: &LockId, at: Millis) -> Result<()> {
    let Some(lock) = store.lock(lock_id)? else {
        return Ok(());
    };
    let token = token::find(store, &lock.token)?;
    let mut bal = store.balance(&lock.token, &lock.owner)?;
    bal.locked = bal.locked.minus(lock.amount)?;
    bal.active = bal.active.plus(lock.amount)?;
    // Tokens in the lock contract are released to the holder on chain (a movement of its
    // own); otherwise they already sit in the holder's wallet and an unlock moves nothing.
    let released = lock.vault && ctx.chain.is_evm();
    let parts: [&[u8]; 1] = [lock_id.as_str().as_bytes()];
    let stamp = if released {
        chain::stamp(store, ctx, "unlock", &parts, at)?
    } else {
        chain::ledger_only(store, ctx, "unlock", &parts, at)?
    };
    store.put_balance(&lock.token, &lock.owner, &bal)?;
    store.remove_lock(lock_id)?;
    let holder = store.holder_by_address(&lock.owner)?;
    let mut records = Vec::new();
    if let Some(h) = &holder {
        let mv = Movement {
            stamp: &stamp,
            token: &token,
            amount: lock.amount,
            from: ctx
                .chain
                .locker()
                .filter(|_| released)
                .unwrap_or(lock.owner),
            to: lock.owner,
        };
        records.push(crate::ops::history::append(
            store,
            &mv.record(at, 0, TxType::Unlock, &h.user_id),
        )?);
    }
    if released {
        let action = Action::Release {
            beneficiary: lock.owner,
            amount: lock.amount,
            lock: lock.id.clone(),
            unlock_at: lock.unlock_at / SECOND,
        };
        chain::intend(
            store,
            ctx,
            chain::want(ctx, lock.token, action).with_records(records),
        )?;
    }
    let subject = Subject::Lock {
        lock,
        user_id: holder.map(|h| h.user_id),
    };
    crate::ops::event::emit(store, at, EventType::LockUnlocked, subject).map(drop)
}
