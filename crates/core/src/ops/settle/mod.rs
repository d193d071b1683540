//! Settlement on an EVM chain: what the worker's settler reports back to the ledger.
//!
//! The settler (the worker's `adapters/evm`) drains the outbox: it asks [`plan`] which
//! intents go out next, signs a transaction for each batch, and reports every step here, in
//! the same SQLite transaction as its own record of the transaction:
//!
//! - [`signed`]: a transaction was signed and stored (before it is broadcast); its intents are
//!   `submitted` and their history records show its hash. [`replaced`]: a same-nonce
//!   replacement with a higher fee; the records show the new hash.
//! - [`mined`]: a receipt. Success confirms every intent (records `confirmed`, with the block)
//!   and runs what waited on it (a job or deployment finishes, a presale notes its token's
//!   hash). A reverted batch goes back to the queue one intent per transaction, so one bad
//!   movement cannot hold up the others; a reverted single movement fails, and the ledger
//!   undoes it (`undo`), visibly.
//! - [`abandoned`]: the nonce was used by something else; the intents go back to the queue.
//!
//! Deposits from outside are [`observe`]d from Transfer logs; [`reconcile`] lists what the
//! chain should say of every holder.

pub mod observe;
pub mod plan;
pub mod reconcile;
pub mod reorg;

use super::{deployment, event, job, market, undo, Ctx};
use crate::error::{Error, Result};
use crate::model::chain::PoolEvent;
use crate::model::event::{EventType, Subject};
use crate::model::history::ChainStatus;
use crate::model::intent::{Action, Intent, IntentStatus, Then};
use crate::model::settlement::{ChainTx, TxState};
use crate::store::Store;

/// How many times a token deployment is sent before it counts as failed. A deployment is
/// idempotent (the address is fixed by its salt), so trying again is safe.
pub const DEPLOY_ATTEMPTS: u32 = 5;

/// How many times a movement is sent, at most, while it reverts behind an older movement of
/// its token that is still open (see `mined`), before it counts as failed.
pub const ATTEMPTS_BEHIND: u32 = 5;

/// A receipt, as the settler read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mined {
    /// The version of the transaction that was mined.
    pub hash: String,
    pub block: u64,
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
}

fn intent(store: &dyn Store, id: u64) -> Result<Intent> {
    store
        .intent(id)?
        .ok_or_else(|| Error::internal(format!("chain intent {id} is missing")))
}

/// Sets the chain status of an intent's history records.
fn mark_records(
    store: &mut dyn Store,
    i: &Intent,
    status: ChainStatus,
    hash: Option<&str>,
    block: Option<u64>,
) -> Result<()> {
    for seq in &i.records {
        if let Some(mut r) = store.history_at(*seq)? {
            r.chain_status = status;
            r.hash = hash.map(str::to_string);
            r.block = block;
            store.put_history_at(*seq, &r)?;
        }
    }
    Ok(())
}

/// `transaction.confirmed` or `transaction.failed` for each history record of an intent.
fn announce(store: &mut dyn Store, ctx: &Ctx, i: &Intent, kind: EventType) -> Result<()> {
    for seq in &i.records {
        if store.history_at(*seq)?.is_some() {
            event::emit(store, ctx.now, kind, Subject::Transaction { seq: *seq })?;
        }
    }
    Ok(())
}

/// A transaction for `tx.intents` was signed and stored; it goes out next. Its nonce is
/// spent: the relayer's next one follows it.
pub fn signed(store: &mut dyn Store, tx: &ChainTx) -> Result<()> {
    let hash = tx
        .latest()
        .map(|v| v.hash.clone())
        .ok_or_else(|| Error::internal("a signed transaction without a version"))?;
    for id in &tx.intents {
        let mut i = intent(store, *id)?;
        i.status = IntentStatus::Submitted;
        i.hash = Some(hash.clone());
        i.attempts = i.attempts.saturating_add(1);
        mark_records(store, &i, ChainStatus::Submitted, Some(&hash), None)?;
        show_hash(store, &i, &hash, tx.created_at)?;
        store.put_intent(&i)?;
    }
    let mut relayer = store.relayer()?;
    relayer.next_nonce = Some(tx.nonce.saturating_add(1));
    store.put_relayer(&relayer)?;
    store.put_chain_tx(tx)
}

/// A new version of `tx` (a fee replacement) was signed and stored.
pub fn replaced(store: &mut dyn Store, tx: &ChainTx) -> Result<()> {
    let hash = tx
        .latest()
        .map(|v| v.hash.clone())
        .ok_or_else(|| Error::internal("a replaced transaction without a version"))?;
    for id in &tx.intents {
        let mut i = intent(store, *id)?;
        i.hash = Some(hash.clone());
        mark_records(store, &i, ChainStatus::Submitted, Some(&hash), None)?;
        show_hash(store, &i, &hash, tx.created_at)?;
        store.put_intent(&i)?;
    }
    store.put_chain_tx(tx)
}

/// A job's or deployment's token deployment is on its way: its status shows the transaction
/// hash from now on (the version sent last; the mined one replaces it).
fn show_hash(
    store: &mut dyn Store,
    i: &Intent,
    hash: &str,
    at: crate::model::time::Millis,
) -> Result<()> {
    match &i.then {
        Some(Then::FinishJob(id)) => {
            if let Some(mut j) = store.job(id)? {
                j.tx_hash = Some(hash.to_string());
                store.put_job(&j)?;
            }
        }
        Some(Then::FinishDeployment(id)) => {
            if let Some(mut d) = store.deployment(id)? {
                d.tx_hash = Some(hash.to_string());
                d.submitted_at = d.submitted_at.or(Some(at));
                store.put_deployment(&d)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Back to the queue, as if never sent.
fn requeue(store: &mut dyn Store, i: &mut Intent, solo: bool) -> Result<()> {
    i.status = IntentStatus::Queued;
    i.hash = None;
    i.solo = i.solo || solo;
    mark_records(store, i, ChainStatus::Pending, None, None)?;
    store.put_intent(i)
}

/// The receipt of transaction `nonce` came.
pub fn mined(store: &mut dyn Store, ctx: &Ctx, nonce: u64, m: &Mined) -> Result<()> {
    let Some(mut tx) = store.chain_tx(nonce)? else {
        return Err(Error::internal(format!(
            "no chain transaction at nonce {nonce}"
        )));
    };
    if !tx.is_open() {
        return Ok(());
    }
    tx.mined_hash = Some(m.hash.clone());
    tx.block = Some(m.block);
    tx.gas_used = Some(m.gas_used);
    tx.state = if m.success {
        TxState::Mined
    } else {
        TxState::Reverted
    };
    tx.error = m.reason.clone();
    store.put_chain_tx(&tx)?;
    let batch = tx.intents.len() > 1;
    for id in &tx.intents {
        let mut i = intent(store, *id)?;
        let unreleased = match &i.action {
            Action::Release { lock, .. } => !m.released.contains(lock),
            _ => false,
        };
        if m.success && unreleased {
            // The contract skipped it: not due yet by the chain's clock (a lag behind the
            // service's). It goes out again.
            requeue(store, &mut i, false)?;
        } else if m.success {
            confirm(store, ctx, &mut i, m)?;
        } else if batch {
            requeue(store, &mut i, true)?;
        } else if matches!(i.action, Action::Deploy { .. }) && i.attempts < DEPLOY_ATTEMPTS {
            i.error = m.reason.clone();
            requeue(store, &mut i, true)?;
        } else if i.attempts < ATTEMPTS_BEHIND && behind_open(store, &i)? {
            // An older movement of its token is still open: its batch reverted and it goes
            // out again. This one may have needed what that one brings (a holder spending a
            // reward the reverted batch carried): not refused for good, it goes again after.
            i.error = m.reason.clone();
            requeue(store, &mut i, true)?;
        } else {
            fail(store, ctx, &mut i, m)?;
        }
    }
    Ok(())
}

/// Whether an older movement of `i`'s token is still open (queued or sent).
fn behind_open(store: &dyn Store, i: &Intent) -> Result<bool> {
    Ok(store
        .open_intents(OPEN_LOOKAHEAD)?
        .iter()
        .take_while(|o| o.id < i.id)
        .any(|o| o.token == i.token))
}

/// How far into the outbox `behind_open` looks (the planner's lookahead).
const OPEN_LOOKAHEAD: u32 = 5_000;

fn confirm(store: &mut dyn Store, ctx: &Ctx, i: &mut Intent, m: &Mined) -> Result<()> {
    // The chain's amounts first: the records then show what was mined.
    match &i.action {
        Action::OpenPool { .. } => market::pool_opened(store, i, &m.events)?,
        Action::Swap { .. } => market::swapped(store, ctx, i, &m.events)?,
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
    match &i.then {
        None => Ok(()),
        Some(Then::FinishJob(id)) => {
            if let Some(mut j) = store.job(id)? {
                j.tx_hash = Some(m.hash.clone());
                j.mined_at = ctx.now;
                store.put_job(&j)?;
            }
            job::finish(store, ctx, id)
        }
        Some(Then::FinishDeployment(id)) => {
            if let Some(mut d) = store.deployment(id)? {
                d.tx_hash = Some(m.hash.clone());
                d.submitted_at = d.submitted_at.or(Some(i.created_at));
                d.mined_at = Some(ctx.now);
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
            Ok(())
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
fn fail(store: &mut dyn Store, ctx: &Ctx, i: &mut Intent, m: &Mined) -> Result<()> {
    i.status = IntentStatus::Failed;
    i.hash = Some(m.hash.clone());
    i.block = Some(m.block);
    i.error = Some(
        m.reason
            .clone()
            .unwrap_or_else(|| "the transaction reverted".into()),
    );
    mark_records(store, i, ChainStatus::Failed, Some(&m.hash), Some(m.block))?;
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
        Some(Then::PresaleToken(_) | Then::PresalePool(_) | Then::PresaleLocks(_)) | None => {}
    }
    Ok(())
}

/// Transaction `nonce` can never be mined (another transaction used the nonce, and none of
/// its versions has a receipt): its intents go back to the queue.
pub fn abandoned(store: &mut dyn Store, nonce: u64, why: &str) -> Result<()> {
    let Some(mut tx) = store.chain_tx(nonce)? else {
        return Ok(());
    };
    if !tx.is_open() {
        return Ok(());
    }
    tx.state = TxState::Abandoned;
    tx.error = Some(why.to_string());
    store.put_chain_tx(&tx)?;
    for id in &tx.intents {
        let mut i = intent(store, *id)?;
        requeue(store, &mut i, false)?;
    }
    Ok(())
}
