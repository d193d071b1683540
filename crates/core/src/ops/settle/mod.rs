//! Settlement on an EVM chain: what the worker's settler reports back to the ledger.
//!
//! The settler (the worker's `adapters/evm`) drains the outbox: it asks [`plan`] which
//! intents go out next, signs a transaction for each batch, and reports every step here, in
//! the same SQLite transaction as its own record of the transaction:
//!
//! - [`signed`]: a transaction was signed and stored (before it is broadcast); its intents are
//!   `submitted` and their history records show its hash. [`replaced`]: a same-nonce
//!   replacement with a higher fee; the records show the new hash.
//! - [`mined`]: a receipt, and [`finalize`]: the receipt is as deep as the chain's finality
//!   (`receipt`): a success is applied at once (what it does not show it moved, with its
//!   `Transfer` logs, only once it is final: `shown`), a revert only once it is final, and then it
//!   is ours to repair (out of gas: sent again with more gas), the chain's refusal (undone,
//!   visibly), or parked for an operator ([`retry_parked`] sends parked movements again).
//! - [`abandoned`]: the nonce was used by something else; the intents go back to the queue.
//! - [`reorg::dropped`]: a reorganization dropped the block of a receipt; the same transaction
//!   goes out again, and what its receipt did is undone until it comes back.
//!
//! Deposits from outside are [`observe`]d from Transfer logs; [`reconcile`] lists what the
//! chain should say of every holder.

mod claims;
pub mod hold;
mod intents;
mod needs;
pub mod observe;
pub mod plan;
mod receipt;
pub mod reconcile;
pub mod reorg;
pub mod round;
mod shown;

pub use needs::needs;
pub use receipt::{
    finalize, mined, Mined, ATTEMPTS_BEHIND, DEPLOY_ATTEMPTS, MAX_OUT_OF_GAS, MAX_UNSHOWN,
};
pub use shown::Transferred;

use intents::{intent, mark_records, requeue};

use crate::error::{Error, Result};
use crate::model::history::ChainStatus;
use crate::model::intent::{Intent, IntentStatus, Then};
use crate::model::settlement::{ChainTx, TxState};
use crate::store::Store;

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

/// Every parked movement goes out again (`POST /admin/merchants/:id/chain/retry`, after the
/// operator repaired what parked them: a relayer funded, a contract fixed), with its counts of
/// out-of-gas reverts and of receipts that did not show it back at 0. Returns how many.
pub fn retry_parked(store: &mut dyn Store) -> Result<u64> {
    let mut n = 0u64;
    for mut i in store.open_intents(u32::MAX)? {
        if i.parked.is_none() {
            continue;
        }
        i.parked = None;
        i.parked_at = None;
        i.out_of_gas = 0;
        i.unshown = 0;
        store.put_intent(&i)?;
        n = n.saturating_add(1);
    }
    Ok(n)
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
