//! Which operation a caller may run ([`authorize`], whose [`Permitted`] is what
//! [`super::apply`] takes, so an operation is authorized once and never applied unchecked)
//! and what it moves against a session's limits ([`charge`], inside the operation's
//! transaction). What a public reader sees of a merchant in private mode is `apply::redact`.

use super::holder::{HolderOp, HolderRef};
use super::ledger::LedgerOp;
use super::op::Op;
use super::presale::PresaleOp;
use super::session::SessionOp;
use super::token::TokenOp;
use crate::error::{Error, ErrorCode, Result};
use crate::model::account::{forbidden_role, Role};
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

/// An operation its caller may run. Only [`authorize`] makes one and only [`super::apply`]
/// takes one: a request is authorized exactly once (before any idempotent replay, so a
/// credential never replays what it may not do), and nothing applies an unchecked operation.
#[derive(Debug)]
pub struct Permitted {
    caller: Caller,
    op: Op,
}

impl Permitted {
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    pub fn op(&self) -> &Op {
        &self.op
    }

    pub(super) fn into_parts(self) -> (Caller, Op) {
        (self.caller, self.op)
    }
}

/// Whether `caller` may run `op` for `merchant`: a secret key runs everything; a public key
/// reads (holders only outside private mode); a session token reads and moves for its own
/// holder within its scopes, and reads what is public. Limits are [`charge`]d later.
pub fn authorize(
    store: &dyn Store,
    caller: Caller,
    merchant: &Merchant,
    op: Op,
) -> Result<Permitted> {
    check(store, &caller, merchant, &op)?;
    Ok(Permitted { caller, op })
}

/// What a dashboard member may run (the `dt_...` credential, checked by the merchant's object
/// against its members): `owner` and `developer` run what a secret key runs; a `viewer` only
/// reads (a write: 403 `forbidden_role`).
pub fn authorize_member(
    store: &dyn Store,
    role: Role,
    merchant: &Merchant,
    op: Op,
) -> Result<Permitted> {
    if !role.writes() && op.writes() {
        return Err(forbidden_role(
            role,
            "change the merchant's state (reads only)",
        ));
    }
    authorize(store, Caller::Secret, merchant, op)
}

fn check(store: &dyn Store, caller: &Caller, merchant: &Merchant, op: &Op) -> Result<()> {
    let session = match caller {
        Caller::Secret => return Ok(()),
        Caller::Public => {
            return match op {
                Op::Holder(HolderOp::GetHolder(_) | HolderOp::HolderToken(..))
                    if merchant.private_mode =>
                {
                    Err(session_required())
                }
                Op::Session(SessionOp::CurrentSession) => Err(Error::new(
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
        Op::Holder(HolderOp::GetHolder(u)) | Op::Ledger(LedgerOp::History(u, _)) => {
            own(u, Scope::Read)
        }
        Op::Holder(HolderOp::HolderToken(HolderRef::User(u), _)) => own(u, Scope::Read),
        Op::Holder(HolderOp::HolderToken(HolderRef::Address(a), _)) => {
            let h = holder::find(store, &session.user_id)?;
            if h.address != *a {
                return Err(Error::new(
                    ErrorCode::SessionHolderMismatch,
                    "This session token is for another holder",
                ));
            }
            access::permit(session, &session.user_id, Some(Scope::Read))
        }
        Op::Presale(PresaleOp::BuyPresale(u, _)) => own(u, Scope::BuyPresale),
        Op::Ledger(LedgerOp::Transfer(u, _)) => own(u, Scope::Transfer),
        Op::Ledger(LedgerOp::Spend(u, _)) => own(u, Scope::Spend),
        Op::Session(SessionOp::CurrentSession)
        | Op::Token(TokenOp::Token(..))
        | Op::Presale(PresaleOp::PublicPresale(_)) => Ok(()),
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
        Op::Ledger(LedgerOp::Spend(_, r)) => {
            let t = token::find(store, &r.token_address)?;
            (t.address, Units::new(r.amount.units("amount", t.decimals)?))
        }
        Op::Ledger(LedgerOp::Transfer(_, r)) => {
            let t = token::find(store, &r.token_address)?;
            (t.address, Units::new(r.amount.units("amount", t.decimals)?))
        }
        Op::Presale(PresaleOp::BuyPresale(_, r)) => {
            (*usdc, Units::new(r.usdc_amount.amount().raw()))
        }
        _ => return Ok(()),
    };
    access::charge(store, &session.id, &address, units)
}
