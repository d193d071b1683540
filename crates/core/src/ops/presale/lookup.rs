//! Finding a presale, its schedule key, and the USDC ledger its money moves in.

use crate::error::{Error, ErrorCode, Result};
use crate::model::event::{EventType, PurchaseFacts, Subject};
use crate::model::ids::PresaleId;
use crate::model::presale::Presale;
use crate::model::time::Millis;
use crate::model::token::Token;
use crate::ops::Ctx;
use crate::store::{DueKey, Store};

/// This merchant's presale `id`, or 404 `presale_not_found`.
pub fn find(store: &dyn Store, id: &PresaleId) -> Result<Presale> {
    store.presale(id)?.ok_or_else(|| {
        Error::new(
            ErrorCode::PresaleNotFound,
            format!("No presale with id {id}"),
        )
    })
}

pub(super) fn key(p: &Presale) -> DueKey {
    DueKey::Presale(p.id.clone())
}

/// Who holds a presale's money, as its buyers' records name it: on an EVM chain the
/// merchant's wallet (the treasury: buyers pay into it, refunds and allocations leave it);
/// on the embedded chain the presale's own signer, whose balance the ledger keeps.
pub(super) fn counterparty(ctx: &Ctx, p: &Presale) -> crate::model::address::Address {
    if ctx.chain.is_evm() {
        ctx.merchant.address
    } else {
        p.signer
    }
}

/// Wakes presale `id`'s schedule at `at` (a launch waiting on the chain goes on).
pub fn wake(store: &mut dyn Store, id: &PresaleId, at: Millis) -> Result<()> {
    store.schedule(&DueKey::Presale(id.clone()), at)
}

pub(super) fn usdc(store: &dyn Store, ctx: &Ctx) -> Result<Token> {
    crate::ops::token::find(store, &ctx.chain.usdc())
}

/// Stores a presale that changed at `at` (its `updatedAt`).
pub(super) fn save(store: &mut dyn Store, p: &mut Presale, at: Millis) -> Result<()> {
    p.updated_at = at;
    put(store, p, at)
}

/// Stores a presale as of `at`, announcing a change of its status (`presale.status_changed`,
/// after the write, so the event shows the presale as it is now).
pub(super) fn put(store: &mut dyn Store, p: &mut Presale, at: Millis) -> Result<()> {
    let now = p.status(at).as_str();
    let before = p.announced_status.replace(now.to_string());
    store.put_presale(p)?;
    match before {
        Some(previous) if previous != now => emit(
            store,
            at,
            EventType::PresaleStatusChanged,
            p,
            Some(previous),
            None,
        ),
        _ => Ok(()),
    }
}

/// Writes a presale event.
pub(super) fn emit(
    store: &mut dyn Store,
    at: Millis,
    kind: EventType,
    p: &Presale,
    previous_status: Option<String>,
    purchase: Option<PurchaseFacts>,
) -> Result<()> {
    let subject = Subject::Presale {
        id: p.id.clone(),
        previous_status,
        purchase,
    };
    crate::ops::event::emit(store, at, kind, subject).map(drop)
}
