//! The settler's bookkeeping of intents, shared by its steps (`receipt`, `reorg`, the
//! transaction records of `mod.rs`): finding one, showing its status in its history records,
//! announcing it, sending it back to the queue, parking it.

use crate::error::{Error, Result};
use crate::model::event::{EventType, Subject};
use crate::model::history::ChainStatus;
use crate::model::intent::{Intent, IntentStatus};
use crate::model::time::Millis;
use crate::ops::{event, Ctx};
use crate::store::Store;

pub(super) fn intent(store: &dyn Store, id: u64) -> Result<Intent> {
    store
        .intent(id)?
        .ok_or_else(|| Error::internal(format!("chain intent {id} is missing")))
}

/// Sets the chain status of an intent's history records.
pub(super) fn mark_records(
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
pub(super) fn announce(
    store: &mut dyn Store,
    ctx: &Ctx,
    i: &Intent,
    kind: EventType,
) -> Result<()> {
    for seq in &i.records {
        if store.history_at(*seq)?.is_some() {
            event::emit(store, ctx.now, kind, Subject::Transaction { seq: *seq })?;
        }
    }
    Ok(())
}

/// Back to the queue, as if never sent.
pub(super) fn requeue(store: &mut dyn Store, i: &mut Intent, solo: bool) -> Result<()> {
    i.status = IntentStatus::Queued;
    i.hash = None;
    i.block = None;
    i.solo = i.solo || solo;
    mark_records(store, i, ChainStatus::Pending, None, None)?;
    store.put_intent(i)
}

/// Held for an operator (see `Intent::parked`): queued, never sent until it is retried. The
/// ledger keeps the movement; reconciliation shows it missing on chain meanwhile. `at`: when,
/// for the operator's chain view.
pub(super) fn park(store: &mut dyn Store, i: &mut Intent, why: String, at: Millis) -> Result<()> {
    i.error = Some(why.clone());
    i.parked = Some(why);
    i.parked_at = Some(at);
    requeue(store, i, false)
}
