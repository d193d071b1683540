//! A reorganization of the chain deeper than the confirmations the settler waits for: the
//! blocks after `fork` are no longer the chain's. The settler notices it at its next scan (a
//! checkpoint's hash changed: `model::settlement::Checkpoint`) and calls [`rewind`], which
//! undoes, in one transaction, what the ledger took from those blocks, so the scans and
//! receipts that follow take the new chain's blocks as they come (they may hold the same
//! transfers again: those are done again, once).
//!
//! - Transfer logs from outside (deposits, other addresses' moves, pools' reserves), newest
//!   first: exactly what the journal says each did is undone, as far as it is still there
//!   (what goes back to a side that owes pays its debts first); a holder's deposit gets a
//!   `reversal` record. What is no longer there (the ledger booked it onward: a holder
//!   spent the deposit, a pool's USDC went to a sell not mined yet) is owed by
//!   where it arrived (`ops::undo`), and paid by the refusal of what was booked onward (the
//!   chain never had it) or by what arrives there from elsewhere. What a log's arrival paid
//!   of its receiver's debts, where the receiver no longer has it, is owed again
//!   ([`unpay`]). What a pool could not pay of such a log, and owed since (`ops::undo`), is
//!   forgiven, and what an undo already paid of it comes back to the pool. The claims a
//!   log's sender sent with it are owed to the sender again (`claims`).
//! - A swap of ours removed with its block gives back its top-up: what the pool paid of it,
//!   as far as the holder still has it; what the pool still owed of it is forgiven.
//! - tokenpad's own transactions mined in those blocks, of every kind, are [`dropped`]: they
//!   go out again, the same signed bytes (the relayer's nonce makes them happen at most
//!   once), and what their receipts did is undone until they are mined again (see there).
//! - Pools take the new chain's next event as newer than any they followed from the old one
//!   (the settler also reads each pool's state from the new chain: `ops::market::resync`,
//!   until it has: `Relayer::resync_pools`).

use super::intents::{intent, mark_records};
use super::observe::shift_pool;
use crate::error::Result;
use crate::model::amount::Units;
use crate::model::chain::ChainPoint;
use crate::model::event::{EventType, Subject};
use crate::model::history::{ChainStatus, TxRecord, TxType};
use crate::model::intent::{Action, Intent, IntentStatus, OwedSince, Reserve, Side};
use crate::model::settlement::{ChainTx, Holding, Observation, TxState};
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
    /// Own transactions sent again (those that must not run again leave their nonce to the
    /// settler to fill: see [`Dropped::Fill`]).
    pub transactions: usize,
}

/// What [`dropped`] did with a transaction whose block is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// Not mined (still watched), or no such transaction: nothing to do.
    Nothing,
    /// It goes out again, the same signed bytes.
    Resent,
    /// Its revert was acted on already (its movements undone, or sent again elsewhere), or
    /// its nonce went to another transaction: the same bytes must not run. The nonce is
    /// free on the new chain and must be taken, or every later transaction waits: the
    /// settler fills it with a transaction that does nothing.
    Fill,
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

/// Gives `n` back to a holding: what it owes is paid first, as from anything that arrives
/// there (`ops::undo`). Before, a pool given back the USDC of a removed outside sale kept it
/// all while it owed, since the same rewind, what it could not return of a removed outside
/// buy (booked onward to a holder's sell); the buy mined again then paid that debt, and the
/// pool ended above the chain's by what the debt had left (hostile seed 983 of the simulator
/// with `--whales`).
fn give(store: &mut dyn Store, ctx: &Ctx, t: &mut Token, h: &Holding, n: Units) -> Result<()> {
    let n = match h {
        Holding::Outside => n,
        _ => undo::pay_debts(store, t, &h.side(), n, ctx.now)?.0,
    };
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
    let payee = if t.kind == TokenKind::Usdc {
        Side::Reserve(Reserve::Minted)
    } else {
        o.to.side()
    };
    let pool = Side::Reserve(Reserve::Pooled(*pool_token));
    let regained = undo::give_back(store, t, &payee, &pool, paid)?;
    Ok(match payee {
        Side::Row(_) => regained,
        Side::Locked(..) | Side::Reserve(_) => Units::ZERO,
    })
}

/// Up to `short` of what the log `o` paid of its receiver's debts when it arrived
/// (`ops::undo::pay_debts`) comes back to the receiver and is owed again, newest payment
/// first, as far as each payee still has it: the debt grows back by as much and its records
/// shrink. Returns what came back. The rewind calls it for what the receiver no longer has
/// of the log (it paid it on): what it still has goes back as it is, and the debts it paid
/// stay paid, as whatever refilled it would have paid them. Before, the receiver owed the
/// shortfall anew while the debt it had paid stayed paid: when the older log that made the
/// debt was removed too, its rewind gave the payee's payment back to the receiver as well,
/// which kept that much twice (hostile seed 392 of the simulator with `--whales`: a pool 74
/// base units of USDC above the chain's, and owing them).
fn unpay(store: &mut dyn Store, t: &mut Token, o: &Observation, short: Units) -> Result<Units> {
    let mut back = Units::ZERO;
    for p in o.paid.iter().rev() {
        let want = p.amount.min(short.minus(back)?);
        let n = undo::give_back(store, t, &p.to, &p.by, want)?;
        if !n.is_zero() {
            undo::owe_again(store, t, p, n)?;
            back = back.plus(n)?;
        }
    }
    Ok(back)
}

/// Undoes one journaled Transfer log (see the module).
fn undo(store: &mut dyn Store, ctx: &Ctx, o: &Observation) -> Result<()> {
    let mut t = token::find(store, &o.token)?;
    // What is still where it arrived, back to where it came from (with what it paid on, as
    // far as that comes back); what was new supply (USDC the ledger did not know of) is no
    // longer.
    let mut back = take(store, &mut t, &o.to, o.given)?;
    let unpaid = unpay(store, &mut t, o, o.given.minus(back)?)?;
    back = back.plus(take(store, &mut t, &o.to, unpaid)?)?;
    let returned = back.min(o.taken);
    give(store, ctx, &mut t, &o.from, returned)?;
    t.total_supply = t.total_supply.minus(back.minus(returned)?)?;
    let regained = forgive(store, &mut t, o)?;
    super::claims::restore(store, &mut t, o)?;
    let record = reversal(store, ctx, &t, o, back.plus(regained)?)?;
    owe_short(&mut t, o, o.given.minus(back)?, returned, record)?;
    store.put_token(&t)
}

/// What the log `o` brought and a rewind could not take back (the ledger booked it onward: a
/// pool's USDC to a sell not mined yet, a holder's deposit to its transfer) is owed by where
/// it arrived: to where it came from, and what was new supply, out of the supply. The chain
/// refuses what was booked onward (it never had it), and that refusal's undo, or what
/// arrives there from elsewhere, pays it (`ops::undo`). `record`: the holder's `reversal`,
/// which grows as the debt is paid. Nothing short, nothing owed.
fn owe_short(
    t: &mut Token,
    o: &Observation,
    short: Units,
    returned: Units,
    record: Option<u64>,
) -> Result<()> {
    let since = OwedSince::Rewound {
        block: o.block,
        log_index: o.log_index,
    };
    let to_sender = o.taken.minus(returned)?.min(short);
    let by = o.to.side();
    let records: Vec<u64> = record.into_iter().collect();
    undo::owe(
        t,
        by.clone(),
        o.from.side(),
        to_sender,
        since,
        records.clone(),
    );
    let fresh = short.minus(to_sender)?;
    undo::owe(t, by, Side::Reserve(Reserve::Minted), fresh, since, records);
    Ok(())
}

/// A holder's `reversal` of the deposit the log `o` was, for `amount`; its sequence number.
fn reversal(
    store: &mut dyn Store,
    ctx: &Ctx,
    t: &Token,
    o: &Observation,
    amount: Units,
) -> Result<Option<u64>> {
    let (Some(seq), Holding::Row(owner)) = (o.record, &o.to) else {
        return Ok(None);
    };
    let Some(deposit) = store.history_at(seq)? else {
        return Ok(None);
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
            amount,
            from: *owner,
            to: deposit.from,
            at: ctx.now,
            reason: None,
        },
    )
    .map(Some)
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
    for tx in store.recent_chain_txs(RECENT_TXS)? {
        if tx.block.is_none_or(|b| b <= fork) {
            continue;
        }
        if dropped(store, ctx, tx.nonce)? == Dropped::Resent {
            done.transactions += 1;
        }
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
    r.resync_pools = true;
    store.put_relayer(&r)?;
    Ok(done)
}

/// The block that held transaction `nonce` is no longer the chain's (a reorganization, or a
/// node that came back without its last blocks). What it did is undone until it is mined
/// again, and it goes out again, the same signed bytes:
///
/// - a success: its movements go back to `submitted` (their records say so, with a
///   `transaction.reorganized` event each), a swap's top-up is taken back (as far as the
///   holder still has it; the rest is owed: `ops::undo`), a pool's opening is pending again
///   (trades wait for it). What waited on it (a job, a presale's step) stays done: the same
///   bytes do the same on the new chain, and its receipt only updates the hash and block.
/// - a revert not acted on yet: it is simply watched again.
/// - a revert acted on, a final success whose unshown movements went again (`receipt`), or a
///   nonce another transaction took: [`Dropped::Fill`].
pub fn dropped(store: &mut dyn Store, ctx: &Ctx, nonce: u64) -> Result<Dropped> {
    let Some(mut tx) = store.chain_tx(nonce)? else {
        return Ok(Dropped::Nothing);
    };
    match tx.state {
        TxState::Signed | TxState::Sent => return Ok(Dropped::Nothing),
        TxState::Abandoned => return Ok(Dropped::Fill),
        TxState::Reverted if tx.finalized && !tx.is_filler() => return Ok(Dropped::Fill),
        TxState::Mined if tx.finalized && !tx.unshown.is_empty() => {
            // What it did not show went again elsewhere: the same bytes must not run (they
            // would carry it out too); what it showed goes again as well.
            for id in &tx.intents {
                let mut i = intent(store, *id)?;
                if i.status == IntentStatus::Confirmed && i.block == tx.block {
                    unconfirm(store, ctx, &mut i, &tx)?;
                    super::intents::requeue(store, &mut i, false)?;
                }
            }
            return Ok(Dropped::Fill);
        }
        TxState::Mined | TxState::Reverted => {}
    }
    if tx.state == TxState::Mined {
        for id in &tx.intents {
            let mut i = intent(store, *id)?;
            if i.status == IntentStatus::Confirmed && i.block == tx.block {
                unconfirm(store, ctx, &mut i, &tx)?;
            }
        }
    }
    tx.state = TxState::Signed;
    tx.mined_hash = None;
    tx.block = None;
    tx.block_hash = None;
    tx.gas_used = None;
    tx.finalized = false;
    tx.unshown = Vec::new();
    tx.behind = None;
    tx.error = None;
    tx.sent_at = None;
    store.put_chain_tx(&tx)?;
    Ok(Dropped::Resent)
}

/// A confirmed movement whose block is gone: `submitted` again (see [`dropped`]).
fn unconfirm(store: &mut dyn Store, ctx: &Ctx, i: &mut Intent, tx: &ChainTx) -> Result<()> {
    match &i.action {
        Action::Swap {
            holder,
            booked_tokens,
            booked_usdc,
            ..
        } => {
            if let Some((tokens, usdc)) = i.topped_up.take() {
                let row = Side::Row(*holder);
                let pool = Side::Reserve(Reserve::Pooled(i.token));
                for (asset, n) in [(i.token, tokens), (ctx.chain.usdc(), usdc)] {
                    let mut t = token::find(store, &asset)?;
                    // What the pool had not paid of the top-up (an outside swap mined first
                    // had taken it: `market::follow`) it no longer owes; the holder got only
                    // the rest, and only that comes back.
                    let unpaid = undo::forgive_top_up(&mut t, &pool, i.id);
                    let n = n.checked_sub(unpaid).unwrap_or(Units::ZERO);
                    // The pool's debts first: the rewind may have undone, before this, a log
                    // whose tokens the top-up had paid out of the pool.
                    let back = undo::take_back(store, &mut t, &row, &pool, n, ctx.now)?;
                    let since = OwedSince::TopUp(i.id);
                    undo::owe(
                        &mut t,
                        row.clone(),
                        pool.clone(),
                        n.minus(back)?,
                        since,
                        vec![],
                    );
                    store.put_token(&t)?;
                }
            }
            // The records show what was booked again, until the swap is mined again.
            for (seq, amount) in i.records.iter().zip([*booked_tokens, *booked_usdc]) {
                if let Some(mut r) = store.history_at(*seq)? {
                    r.amount = amount;
                    store.put_history_at(*seq, &r)?;
                }
            }
        }
        Action::OpenPool { .. } => {
            if let Some(mut p) = store.pool(&i.token)? {
                // Not open on the new chain until it is mined again: its receipt sets the
                // pool's state then (`market::pool_opened`), and nothing reads it from the
                // chain meanwhile (`market::resync`), where it may have no code.
                p.position.id = None;
                p.chain = None;
                store.put_pool(&p)?;
            }
        }
        Action::Deploy { .. }
        | Action::Transfer { .. }
        | Action::Mint { .. }
        | Action::Lock { .. }
        | Action::Release { .. } => {}
    }
    let hash = tx.latest().map(|v| v.hash.clone());
    i.status = IntentStatus::Submitted;
    i.hash = hash.clone();
    i.block = None;
    i.reorged = i.reorged.saturating_add(1);
    mark_records(store, i, ChainStatus::Submitted, hash.as_deref(), None)?;
    for seq in &i.records {
        if store.history_at(*seq)?.is_some() {
            let subject = Subject::Transaction { seq: *seq };
            crate::ops::event::emit(store, ctx.now, EventType::TransactionReorganized, subject)?;
        }
    }
    store.put_intent(i)
}
