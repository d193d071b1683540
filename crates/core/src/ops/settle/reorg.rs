//! A reorganization of the chain deeper than the confirmations the settler waits for: the
//! blocks after `fork` are no longer the chain's. The settler notices it at its next scan (a
//! checkpoint's hash changed: `model::settlement::Checkpoint`) and calls [`rewind`], which
//! undoes, in one transaction, what the ledger took from those blocks, so the scans and
//! receipts that follow take the new chain's blocks as they come (they may hold the same
//! transfers again: those are done again, once).
//!
//! - Transfer logs from outside (deposits, other addresses' moves, pools' reserves), newest
//!   first: exactly what the journal says each did is undone, as far as it is still there (a
//!   holder who spent a deposit keeps what it spent; the rest shows in reconciliation, as an
//!   undone movement's does); a holder's deposit gets a `reversal` record. What a pool could
//!   not pay of such a log, and owed since (`ops::undo`), is forgiven, and what an undo already
//!   paid of it comes back to the pool.
//! - tokenpad's own transactions mined in those blocks go back to `submitted` and are watched
//!   again (the settler sends the same signed bytes again if the node lost them). Their
//!   history records say so. Only plain movements are: a swap's, a pool opening's or a
//!   deployment's consequences (a top-up, a token launched) are not undone, and such a
//!   transaction stays confirmed (docs/chain.md, "What it does not do yet").
//! - Pools take the new chain's next event as newer than any they followed from the old one.

use super::observe::shift_pool;
use super::{intent, mark_records};
use crate::error::Result;
use crate::model::amount::Units;
use crate::model::chain::ChainPoint;
use crate::model::history::{ChainStatus, TxRecord, TxType};
use crate::model::intent::{Action, IntentStatus, Reserve, Side};
use crate::model::settlement::{Holding, Observation, TxState};
use crate::model::token::{Token, TokenKind};
use crate::ops::{token, undo, Ctx};
use crate::store::Store;

/// How many of the last chain transactions a rewind looks at.
const RECENT_TXS: u32 = 512;

/// What a rewind undid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rewound {
    /// Transfer logs undone.
    pub observations: usize,
    /// Own transactions watched again.
    pub transactions: usize,
}

/// Takes up to `n` out of a holding; returns how much it took.
fn take(store: &mut dyn Store, t: &mut Token, h: &Holding, n: Units) -> Result<Units> {
    Ok(match h {
        Holding::MerchantSupply => {
            let k = t.merchant_supply.min(n);
            t.merchant_supply = t.merchant_supply.minus(k)?;
            k
        }
        Holding::Row(a) => {
            let mut b = store.balance(&t.address, a)?;
            let k = b.active.min(n);
            b.active = b.active.minus(k)?;
            t.held = t.held.minus(k)?;
            store.put_balance(&t.address, a, &b)?;
            k
        }
        Holding::Pool(pool_token) => shift_pool(store, t, pool_token, n, false)?,
        Holding::Outside => {
            t.total_supply = t.total_supply.plus(n)?;
            n
        }
    })
}

fn give(store: &mut dyn Store, t: &mut Token, h: &Holding, n: Units) -> Result<()> {
    match h {
        Holding::MerchantSupply => t.merchant_supply = t.merchant_supply.plus(n)?,
        Holding::Row(a) => {
            let mut b = store.balance(&t.address, a)?;
            b.active = b.active.plus(n)?;
            t.held = t.held.plus(n)?;
            store.put_balance(&t.address, a, &b)?;
        }
        Holding::Pool(pool_token) => {
            shift_pool(store, t, pool_token, n, true)?;
        }
        Holding::Outside => t.total_supply = t.total_supply.minus(n)?,
    }
    Ok(())
}

/// Forgives what the pool the log `o` came from owed since it (`ops::undo`), and takes back
/// to the pool what an undo already paid of that debt (from the receiver, or out of the
/// supply), as far as it is still there. Returns what a receiving row gave back.
fn forgive(store: &mut dyn Store, t: &mut Token, o: &Observation) -> Result<Units> {
    let Holding::Pool(pool_token) = &o.from else {
        return Ok(Units::ZERO);
    };
    let left = undo::forgive(t, o.block, o.log_index);
    let paid = o.owed.minus(left.min(o.owed))?;
    let payee = match (&o.to, t.kind) {
        (_, TokenKind::Usdc) | (Holding::Outside, _) => Side::Reserve(Reserve::Minted),
        (Holding::MerchantSupply, _) => Side::Reserve(Reserve::Merchant),
        (Holding::Pool(p), _) => Side::Reserve(Reserve::Pooled(*p)),
        (Holding::Row(a), _) => Side::Row(*a),
    };
    let pool = Side::Reserve(Reserve::Pooled(*pool_token));
    let regained = undo::give_back(store, t, &payee, &pool, paid)?;
    Ok(match payee {
        Side::Row(_) => regained,
        Side::Locked(..) | Side::Reserve(_) => Units::ZERO,
    })
}

/// Undoes one journaled Transfer log (see the module).
fn undo(store: &mut dyn Store, ctx: &Ctx, o: &Observation) -> Result<()> {
    let mut t = token::find(store, &o.token)?;
    // What is still where it arrived, back to where it came from; what was new supply (USDC
    // the ledger did not know of) is no longer.
    let back = take(store, &mut t, &o.to, o.given)?;
    let returned = back.min(o.taken);
    give(store, &mut t, &o.from, returned)?;
    t.total_supply = t.total_supply.minus(back.minus(returned)?)?;
    let regained = forgive(store, &mut t, o)?;
    store.put_token(&t)?;
    let (Some(seq), Holding::Row(owner)) = (o.record, &o.to) else {
        return Ok(());
    };
    let Some(deposit) = store.history_at(seq)? else {
        return Ok(());
    };
    crate::ops::history::append(
        store,
        &TxRecord {
            id: format!("reorg-{}-{}-{}", o.tx, o.block, o.log_index),
            hash: Some(o.tx.clone()),
            chain_status: ChainStatus::Failed,
            block: Some(o.block),
            kind: TxType::Reversal,
            user_id: deposit.user_id,
            token: t.address,
            symbol: t.symbol.clone(),
            decimals: t.decimals,
            amount: back.plus(regained)?,
            from: *owner,
            to: deposit.from,
            at: ctx.now,
        },
    )?;
    Ok(())
}

/// The blocks after `fork` are gone: undo what the ledger took from them (see the module).
pub fn rewind(store: &mut dyn Store, ctx: &Ctx, fork: u64) -> Result<Rewound> {
    let mut done = Rewound::default();
    let mut gone = store.observations_after(fork)?;
    gone.reverse();
    for o in &gone {
        undo(store, ctx, o)?;
        done.observations += 1;
    }
    store.forget_observations(fork, 0)?;
    for mut tx in store.recent_chain_txs(RECENT_TXS)? {
        if tx.block.is_none_or(|b| b <= fork) {
            continue;
        }
        let intents = tx
            .intents
            .iter()
            .map(|id| intent(store, *id))
            .collect::<Result<Vec<_>>>()?;
        let plain = intents.iter().all(|i| {
            matches!(
                i.action,
                Action::Transfer { .. }
                    | Action::Mint { .. }
                    | Action::Lock { .. }
                    | Action::Release { .. }
            ) && i.then.is_none()
        });
        if !plain || tx.state != TxState::Mined {
            continue;
        }
        let hash = tx
            .mined_hash
            .take()
            .or_else(|| tx.latest().map(|v| v.hash.clone()));
        tx.state = TxState::Sent;
        tx.block = None;
        tx.gas_used = None;
        tx.sent_at = Some(ctx.now);
        store.put_chain_tx(&tx)?;
        for mut i in intents {
            i.status = IntentStatus::Submitted;
            i.block = None;
            mark_records(store, &i, ChainStatus::Submitted, hash.as_deref(), None)?;
            store.put_intent(&i)?;
        }
        done.transactions += 1;
    }
    for t in store.tokens()? {
        if let Some(mut p) = store.pool(&t.address)? {
            if let Some(c) = p.chain.as_mut().filter(|c| c.at.block > fork) {
                c.at = ChainPoint {
                    block: fork,
                    log_index: u64::MAX,
                };
                store.put_pool(&p)?;
            }
        }
    }
    let mut r = store.relayer()?;
    r.scanned_block = Some(r.scanned_block.map_or(fork, |s| s.min(fork)));
    r.checkpoints.retain(|c| c.block <= fork);
    store.put_relayer(&r)?;
    Ok(done)
}
