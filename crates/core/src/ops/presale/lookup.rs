//! Finding a presale, its schedule key, and the USDC ledger its money moves in.

use crate::error::{Error, ErrorCode, Result};
use crate::model::ids::PresaleId;
use crate::model::presale::Presale;
use crate::model::token::{Token, USDC_ADDRESS};
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

pub(super) fn usdc(store: &dyn Store) -> Result<Token> {
    crate::ops::token::find(store, &USDC_ADDRESS)
}

/// Stores a presale that changed at `at` (its `updatedAt`).
pub(super) fn save(
    store: &mut dyn Store,
    p: &mut Presale,
    at: crate::model::time::Millis,
) -> Result<()> {
    p.updated_at = at;
    store.put_presale(p)
}
