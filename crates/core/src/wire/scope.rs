//! Which operation a caller may run ([`authorize`]) and what it moves against a session's
//! limits ([`charge`], inside the operation's transaction). What a public reader sees of a
//! merchant in private mode is `apply::redact`.

use super::op::{HolderRef, Op};
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::Units;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::merchant::Merchant;
use crate::model::session::Scope;
use crate::ops::session::access::{self, Caller};
use crate::ops::{holder, token};
use crate::store::Store;

fn session_required() -> Error {
    Error::new(
        ErrorCode::SessionTokenRequired,
        "This merchant is in private mode: reading a holder needs a session token for that holder (Authorization: Bearer <token>)",
    )
}

fn not_for_sessions() -> Error {
    Error::new(
        ErrorCode::SecretKeyRequired,
        "This operation needs the merchant's secret key; a session token acts only for its holder, within its scopes",
    )
}

/// Whether `caller` may run `op` for `merchant`: a secret key runs everything; a public key
/// reads (holders only outside private mode); a session token reads and moves for its own
/// holder within its scopes, and reads what is public. Limits are [`charge`]d later.
pub fn authorize(store: &dyn Store, caller: &Caller, merchant: &Merchant, op: &Op) -> Result<()> {
    let session = match caller {
        Caller::Secret => return Ok(()),
        Caller::Public => {
            return match op {
                Op::GetHolder(_) | Op::HolderToken(..) if merchant.private_mode => {
                    Err(session_required())
                }
                Op::CurrentSession => Err(Error::new(
                    ErrorCode::SessionTokenRequired,
                    "GET /session needs a session token (Authorization: Bearer <token>)",
                )),
                _ => Ok(()),
            }
        }
        Caller::Session(s) => s,
    };
    let own = |user: &UserId, scope: Scope| access::permit(session, user, Some(scope));
    match op {
        Op::GetHolder(u) | Op::History(u, _) => own(u, Scope::Read),
        Op::HolderToken(HolderRef::User(u), _) => own(u, Scope::Read),
        Op::HolderToken(HolderRef::Address(a), _) => {
            let h = holder::find(store, &session.user_id)?;
            if h.address != *a {
                return Err(Error::new(
                    ErrorCode::SessionHolderMismatch,
                    "This session token is for another holder",
                ));
            }
            access::permit(session, &session.user_id, Some(Scope::Read))
        }
        Op::BuyPresale(u, _) => own(u, Scope::BuyPresale),
        Op::Transfer(u, _) => own(u, Scope::Transfer),
        Op::Spend(u, _) => own(u, Scope::Spend),
        Op::CurrentSession | Op::Token(..) | Op::PublicPresale(_) => Ok(()),
        _ => Err(not_for_sessions()),
    }
}

/// Counts what `op` moves against the limits of `caller`'s session, before the operation. The
/// count is rolled back with an operation that then fails only because the caller runs both
/// in one storage transaction (the worker's `transactionSync`): the core has no rollback of
/// its own (`MemStore` keeps what was written), so that half is tested over HTTP
/// (tests/http/sessions.test.mjs), not here.
/// `usdc` is where the merchant keeps USDC (`ChainMode::usdc`).
pub fn charge(store: &mut dyn Store, usdc: &TokenAddress, caller: &Caller, op: &Op) -> Result<()> {
    let Caller::Session(session) = caller else {
        return Ok(());
    };
    let (address, units) = match op {
        Op::Spend(_, r) => {
            let t = token::find(store, &r.token_address)?;
            (t.address, Units::new(r.amount.units("amount", t.decimals)?))
        }
        Op::Transfer(_, r) => {
            let t = token::find(store, &r.token_address)?;
            (t.address, Units::new(r.amount.units("amount", t.decimals)?))
        }
        Op::BuyPresale(_, r) => (*usdc, Units::new(r.usdc_amount.amount().raw())),
        _ => return Ok(()),
    };
    access::charge(store, &session.id, &address, units)
}
