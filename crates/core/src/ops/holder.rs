//! Holders: get-or-create a user's custodial wallet, and find one.

use super::Ctx;
use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::event::{EventType, Subject};
use crate::model::holder::{Holder, NewWallet};
use crate::model::ids::UserId;
use crate::store::Store;

/// Get-or-create. `new_wallet` is called only when the holder does not exist yet, so a
/// retry, or a second request for the same userId, never makes a second wallet. Returns the
/// holder and whether it was created.
pub fn get_or_create(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &UserId,
    new_wallet: &mut dyn FnMut() -> Result<NewWallet>,
) -> Result<(Holder, bool)> {
    if let Some(h) = store.holder_by_user(user_id)? {
        return Ok((h, false));
    }
    let wallet = new_wallet()?;
    if store.holder_by_address(&wallet.address)?.is_some() {
        return Err(Error::internal("wallet address collision"));
    }
    let holder = Holder {
        user_id: user_id.clone(),
        address: wallet.address,
        sealed_key: wallet.sealed_key,
        created_at: ctx.now,
    };
    store.insert_holder(&holder)?;
    super::event::emit(
        store,
        ctx.now,
        EventType::HolderCreated,
        Subject::Holder {
            user_id: holder.user_id.clone(),
        },
    )?;
    Ok((holder, true))
}

/// The holder with this userId, or 404 `holder_not_found`.
pub fn find(store: &dyn Store, user_id: &UserId) -> Result<Holder> {
    store
        .holder_by_user(user_id)?
        .ok_or_else(|| not_found(user_id))
}

/// The holder at this address, or 404 `holder_not_found`.
pub fn at_address(store: &dyn Store, address: &Address) -> Result<Holder> {
    store.holder_by_address(address)?.ok_or_else(|| {
        Error::new(
            ErrorCode::HolderNotFound,
            format!("{} is not a holder of this merchant", address.to_checksum()),
        )
    })
}

pub fn not_found(user_id: &UserId) -> Error {
    Error::new(
        ErrorCode::HolderNotFound,
        format!("No holder with id {user_id}"),
    )
}
