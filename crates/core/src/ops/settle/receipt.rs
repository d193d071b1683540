//! A receipt of the relayer's, and what the ledger does with it.
//!
//! - **Success** is applied at once: every intent is confirmed (records `confirmed`, with the
//!   block), a swap's mined amounts top up what was booked, and what waited on it runs (a job
//!   finishes, a presale notes its hash and goes on). A reorganization that drops the block
//!   while the receipt is not final undoes exactly that (`reorg::dropped`) until the same
//!   transaction is mined again. A movement the receipt does not show (no `Transfer` log of
//!   it: a call to a token without code succeeds and moves nothing; `shown`) is not
//!   confirmed: it stays `submitted`, and once the receipt is final it goes again, as a
//!   revert of ours does (parked after [`MAX_UNSHOWN`] such receipts; never refused).
//! - **A revert** is acted on only once its receipt is final (`CHAIN_FINALITY` blocks deep):
//!   before, a reorganization could drop it and the same bytes succeed, and what was done
//!   about the revert (a movement undone, or sent again in another transaction) would then
//!   happen twice. Its intents stay `submitted` meanwhile. Then:
//!   - **out of gas** (it used at least 63/64 of its limit: the EVM leaves a call that runs out
//!     at most 1/64 of what it had) is ours: its movements go again, with twice the gas each
//!     time, and after [`MAX_OUT_OF_GAS`] such reverts they are parked. Never undone.
//!   - a **batch** goes back to the queue one movement per transaction, so one bad movement
//!     cannot hold up the others;
//!   - a **deployment** goes again, up to `DEPLOY_ATTEMPTS`;
//!   - a movement the chain may **refuse** for a reason outside us (`Action::refusable`) is
//!     refused: it fails, visibly, with the chain's reason, and the ledger undoes it (one
//!     that reverted behind an older open movement of a token it needs (its own; USDC too for a
//!     swap or a pool's opening: [`needs`](super::needs::needs())) goes again first: it may have
//!     needed what that one brings. Judged when the receipt is first read, as of its block:
//!     by the time it is final, that older movement may have landed);
//!   - anything else (the treasury's own: rewards, refunds, locks, releases) is **parked** with
//!     the chain's reason, for an operator: a revert of ours never takes value from a holder.
//!     Unless refusing it takes nothing from anyone (`undo::nets`): a refund of a purchase
//!     the chain refused after the refund was booked is refused too, and the two net.

use super::intents::{announce, intent, mark_records, park, requeue};
use super::needs::{behind, behind_open};
use super::shown::{unshown, Transferred};
use crate::error::{Error, Result};
use crate::model::chain::PoolEvent;
use crate::model::event::{EventType, Subject};
use crate::model::history::ChainStatus;
use crate::model::intent::{Action, Intent, IntentStatus, Then};
use crate::model::settlement::{ChainTx, TxState};
use crate::ops::{deployment, event, job, market, presale, undo, Ctx};
use crate::store::Store;

/// How many times a token deployment is sent before it counts as failed. A deployment is
/// idempotent (the address is fixed by its salt), so trying again is safe.
pub const DEPLOY_ATTEMPTS: u32 = 5;

/// How many times a movement is sent, at most, while it reverts behind an older movement of
/// its token that is still open (see [`mined`]), before it counts as failed.
pub const ATTEMPTS_BEHIND: u32 = 5;

/// A receipt, as the settler read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mined {
    /// The version of the transaction that was mined.
    pub hash: String,
    pub block: u64,
    /// The hash of the block it was mined in (None where the node did not say: then the
    /// receipt is taken as final).
    pub block_hash: Option<String>,
    /// The chain's newest block when the receipt was read: how deep the receipt already is.
    pub head: u64,
    pub success: bool,
    pub gas_used: u64,
    /// Why it reverted, when the settler could tell.
    pub reason: Option<String>,
    /// What the pools in it reported (decoded from its logs): a swap's amounts and the
    /// pool's state after it, an opening's position.
    pub events: Vec<PoolEvent>,
    /// The locks the lock contract released in it (the settler matched its `Released`
    /// events to the transaction's releases).
    pub released: Vec<crate::model::ids::LockId>,
    /// Its ERC-20 `Transfer` logs, of every token: what it moved (`shown`).
    pub transfers: Vec<Transferred>,
}

/// Successful receipts that did not show a movement before it is parked (see the module).
pub const MAX_UNSHOWN: u32 = 3;

/// Out-of-gas reverts of one movement before it is parked (its gas doubled each time).
pub const MAX_OUT_OF_GAS: u32 = 3;

/// The receipt of transaction `nonce` came (see the module).
pub fn mined(store: &mut dyn Store, ctx: &Ctx, nonce: u64, m: &Mined) -> Result<()> {
    let Some(mut tx) = store.chain_tx(nonce)? else {
        return Err(Error::internal(format!(
            "no chain transaction at nonce {nonce}"
        )));
    };
    if !tx.is_open() {
        return Ok(());
    }
    let finality = ctx.chain.finality();
    tx.mined_hash = Some(m.hash.clone());
    tx.block = Some(m.block);
    tx.block_hash = m.block_hash.clone();
    tx.gas_used = Some(m.gas_used);
    tx.state = if m.success {
        TxState::Mined
    } else {
        TxState::Reverted
    };
    tx.error = m.reason.clone();
    tx.finalized = m.block_hash.is_none() || m.head.saturating_sub(m.block) >= finality;
    tx.unshown = if m.success {
        unshown(store, ctx, &tx, &m.transfers)?
    } else {
        Vec::new()
    };
    // As of the revert's block: an older movement still open now was not carried out before
    // it (a later transaction of the relayer's carries it, if any: its receipt is read after
    // this one's).
    tx.behind = if m.success {
        None
    } else {
        Some(behind(store, ctx.chain.usdc(), &tx)?)
    };
    store.put_chain_tx(&tx)?;
    if let (false, Some(hash)) = (tx.finalized, &m.block_hash) {
        // The block is watched from now on: a reorganization that drops it is seen.
        let mut r = store.relayer()?;
        r.checkpoint(m.block, hash.clone(), m.head, finality);
        store.put_relayer(&r)?;
    }
    if m.success {
        for id in &tx.intents {
            let mut i = intent(store, *id)?;
            if matches!(i.status, IntentStatus::Confirmed | IntentStatus::Failed) {
                // Settled already (a receipt of a transaction whose intents went elsewhere).
                continue;
            }
            let unreleased = match &i.action {
                Action::Release { lock, .. } => !m.released.contains(lock),
                _ => false,
            };
            if unreleased {
                // The contract skipped it: not due yet by the chain's clock. It goes again.
                requeue(store, &mut i, false)?;
            } else if !tx.unshown.contains(id) {
                confirm(store, ctx, &mut i, m)?;
            }
        }
        if tx.finalized {
            act_on_unshown(store, ctx, &tx)?;
        }
        Ok(())
    } else if tx.finalized {
        act_on_revert(store, ctx, &tx)
    } else {
        Ok(())
    }
}

/// Transaction `nonce`'s receipt is final now (its block is `CHAIN_FINALITY` deep): it is
/// no longer followed, and a revert is acted on (see the module).
pub fn finalize(store: &mut dyn Store, ctx: &Ctx, nonce: u64) -> Result<()> {
    let Some(mut tx) = store.chain_tx(nonce)? else {
        return Ok(());
    };
    if !tx.is_unfinal() {
        return Ok(());
    }
    tx.finalized = true;
    store.put_chain_tx(&tx)?;
    match tx.state {
        TxState::Reverted => act_on_revert(store, ctx, &tx),
        TxState::Mined => act_on_unshown(store, ctx, &tx),
        TxState::Signed | TxState::Sent | TxState::Abandoned => Ok(()),
    }
}

/// Whether `i` is still `submitted` in `tx` (a version of `tx` carries it): not settled, nor
/// sent again elsewhere.
fn carried_by(i: &Intent, tx: &ChainTx) -> bool {
    i.status == IntentStatus::Submitted
        && i.hash
            .as_ref()
            .is_some_and(|h| tx.versions.iter().any(|v| v.hash.eq_ignore_ascii_case(h)))
}

/// A final success of `tx` that did not show some of its movements: they did not happen, and
/// go again (see the module).
fn act_on_unshown(store: &mut dyn Store, ctx: &Ctx, tx: &ChainTx) -> Result<()> {
    for id in &tx.unshown {
        let mut i = intent(store, *id)?;
        if !carried_by(&i, tx) {
            continue;
        }
        i.unshown = i.unshown.saturating_add(1);
        let why = format!(
            "its transaction succeeded without moving it (no Transfer log of it; a token without code?) {} time(s)",
            i.unshown
        );
        if i.unshown > MAX_UNSHOWN {
            park(store, &mut i, why, ctx.now)?;
        } else {
            i.error = Some(format!("{why}: sent again"));
            requeue(store, &mut i, false)?;
        }
    }
    Ok(())
}

/// Whether `tx` ran out of gas: it used at least 63/64 of its limit.
fn ran_out_of_gas(tx: &ChainTx) -> bool {
    tx.gas_used
        .is_some_and(|used| u128::from(used) * 64 >= u128::from(tx.gas_limit) * 63)
}

/// A final revert of `tx` (see the module).
fn act_on_revert(store: &mut dyn Store, ctx: &Ctx, tx: &ChainTx) -> Result<()> {
    let out_of_gas = ran_out_of_gas(tx);
    let limit = tx.gas_limit;
    let reason = tx.error.clone();
    let batch = tx.intents.len() > 1;
    for id in &tx.intents {
        let mut i = intent(store, *id)?;
        if !carried_by(&i, tx) {
            continue;
        }
        if out_of_gas {
            i.out_of_gas = i.out_of_gas.saturating_add(1);
            let why = format!(
                "ran out of gas {} time(s), the last with a limit of {limit}",
                i.out_of_gas
            );
            if i.out_of_gas > MAX_OUT_OF_GAS {
                park(store, &mut i, why, ctx.now)?;
            } else {
                i.error = Some(format!("{why}: sent again with more gas"));
                requeue(store, &mut i, false)?;
            }
        } else if batch
            || (matches!(i.action, Action::Deploy { .. }) && i.attempts < DEPLOY_ATTEMPTS)
        {
            i.error = reason.clone();
            requeue(store, &mut i, true)?;
        } else if !i.action.refusable() && !undo::nets(store, &i)? {
            let why = reason
                .clone()
                .unwrap_or_else(|| "the transaction reverted".into());
            park(store, &mut i, format!("reverted on chain: {why}"), ctx.now)?;
        } else if i.attempts < ATTEMPTS_BEHIND
            && match &tx.behind {
                Some(ids) => ids.contains(&i.id),
                None => behind_open(store, ctx.chain.usdc(), &i)?,
            }
        {
            // An older movement of a token it needs is still open: its batch reverted and it goes
            // out again. This one may have needed what that one brings (a holder spending a
            // reward the reverted batch carried): not refused for good, it goes again after.
            i.error = reason.clone();
            requeue(store, &mut i, true)?;
        } else {
            fail(store, ctx, &mut i, tx)?;
        }
    }
    Ok(())
}

fn confirm(store: &mut dyn Store, ctx: &Ctx, i: &mut Intent, m: &Mined) -> Result<()> {
    // The chain's amounts first: the records then show what was mined.
    match &i.action {
        Action::OpenPool { .. } => market::pool_opened(store, i, &m.events)?,
        Action::Swap { .. } => i.topped_up = Some(market::swapped(store, ctx, i, &m.events)?),
        Action::Deploy { .. }
        | Action::Transfer { .. }
        | Action::Mint { .. }
        | Action::Lock { .. }
        | Action::Release { .. } => {}
    }
    i.status = IntentStatus::Confirmed;
    i.hash = Some(m.hash.clone());
    i.block = Some(m.block);
    i.error = None;
    mark_records(
        store,
        i,
        ChainStatus::Confirmed,
        Some(&m.hash),
        Some(m.block),
    )?;
    announce(store, ctx, i, EventType::TransactionConfirmed)?;
    store.put_intent(i)?;
    // What waited on it: each is done once (a receipt that comes again after a
    // reorganization only updates the hash and block).
    match &i.then {
        None | Some(Then::PresalePurchase(_)) => Ok(()),
        Some(Then::FinishJob(id)) => {
            if let Some(mut j) = store.job(id)? {
                j.tx_hash = Some(m.hash.clone());
                j.block = Some(m.block);
                if j.status == crate::model::job::JobStatus::Pending {
                    j.mined_at = ctx.now;
                }
                store.put_job(&j)?;
            }
            job::finish(store, ctx, id)
        }
        Some(Then::FinishDeployment(id)) => {
            if let Some(mut d) = store.deployment(id)? {
                d.tx_hash = Some(m.hash.clone());
                d.block = Some(m.block);
                d.submitted_at = d.submitted_at.or(Some(i.created_at));
                d.mined_at = d.mined_at.or(Some(ctx.now));
                store.put_deployment(&d)?;
            }
            deployment::finish(store, ctx, id)
        }
        Some(Then::PresaleToken(id)) => {
            if let Some(mut p) = store.presale(id)? {
                if let Some(d) = p.token_deployment.as_mut() {
                    d.hash = Some(m.hash.clone());
                }
                p.completion
                    .transactions
                    .insert("tokenCreationTx".into(), m.hash.clone());
                store.put_presale(&p)?;
            }
            Ok(())
        }
        Some(Then::PresalePool(id)) => {
            if let Some(mut p) = store.presale(id)? {
                p.completion
                    .transactions
                    .insert("swapTx".into(), m.hash.clone());
                store.put_presale(&p)?;
            }
            // The launch waited for its market: it goes on now.
            presale::wake(store, id, ctx.now)
        }
        Some(Then::DeploymentReady(id)) => deployment::ready(store, ctx, id),
        Some(Then::PresaleLocks(id)) => {
            if let Some(mut p) = store.presale(id)? {
                let t = &mut p.completion.transactions;
                t.entry("withdrawTx".into())
                    .or_insert_with(|| m.hash.clone());
                t.insert("distributionTx".into(), m.hash.clone());
                p.distribute_tx = Some(m.hash.clone());
                store.put_presale(&p)?;
            }
            Ok(())
        }
    }
}

/// The chain refused the movement for good: it fails, visibly, and the ledger undoes it.
fn fail(store: &mut dyn Store, ctx: &Ctx, i: &mut Intent, tx: &ChainTx) -> Result<()> {
    let hash = tx.mined_hash.clone().or_else(|| i.hash.clone());
    i.status = IntentStatus::Failed;
    i.hash = hash.clone();
    i.block = tx.block;
    i.error = Some(
        tx.error
            .clone()
            .unwrap_or_else(|| "the transaction reverted".into()),
    );
    mark_records(store, i, ChainStatus::Failed, hash.as_deref(), tx.block)?;
    for seq in &i.records {
        if let Some(mut r) = store.history_at(*seq)? {
            r.reason = i.error.clone();
            store.put_history_at(*seq, &r)?;
        }
    }
    announce(store, ctx, i, EventType::TransactionFailed)?;
    store.put_intent(i)?;
    undo::undo(store, ctx, i)?;
    match &i.action {
        Action::OpenPool { .. } => market::pool_failed(store, ctx, i)?,
        Action::Swap { .. } => market::swap_failed(store, ctx, i)?,
        Action::Deploy { .. }
        | Action::Transfer { .. }
        | Action::Mint { .. }
        | Action::Lock { .. }
        | Action::Release { .. } => {}
    }
    match &i.then {
        Some(Then::FinishJob(id)) => {
            if let Some(mut j) = store.job(id)? {
                j.status = crate::model::job::JobStatus::Failed;
                j.error = i.error.clone();
                store.put_job(&j)?;
            }
        }
        Some(Then::FinishDeployment(id) | Then::DeploymentReady(id)) => {
            if let Some(mut d) = store.deployment(id)? {
                d.status = crate::model::deployment::DeploymentStatus::Failed;
                d.error = i.error.clone();
                store.put_deployment(&d)?;
                let subject = Subject::Deployment { id: d.id.clone() };
                event::emit(store, ctx.now, EventType::DeploymentFailed, subject)?;
            }
        }
        Some(Then::PresalePool(id)) => presale::market_failed(store, ctx, id, i)?,
        Some(Then::PresalePurchase(id)) => presale::refused(store, ctx, id, i)?,
        Some(Then::PresaleToken(_) | Then::PresaleLocks(_)) | None => {}
    }
    Ok(())
}
