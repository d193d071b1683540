//! Holder sessions on the wire: the answers of `POST /holder/:userId/session`, `DELETE
//! /holder/:userId/sessions`, `GET /session` and the merchant settings, and the rules that
//! say which operation a caller may run ([`authorize`]), what it moves against a session's
//! limits ([`charge`], inside the operation's transaction). What a public reader sees of a
//! merchant in private mode is `apply::redact`.

use super::op::{HolderRef, Op};
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::Units;
use crate::model::decimal::Decimal;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::merchant::Merchant;
use crate::model::session::{Limit, Scope, Session};
use crate::model::time::Timestamp;
use crate::ops::session::access::{self, Caller};
use crate::ops::{holder, token};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// One limit of a session, with what it moved so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionLimit {
    pub token_address: TokenAddress,
    pub symbol: String,
    /// Whole tokens one operation may move at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_operation: Option<Decimal>,
    /// Whole tokens the session may move at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_session: Option<Decimal>,
    /// Whole tokens the session moved so far.
    pub spent: Decimal,
    /// What `maxPerSession` still allows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<Decimal>,
}

impl SessionLimit {
    fn of(l: &Limit) -> SessionLimit {
        let d = |u: Units| Decimal::from_units(u.raw(), l.decimals);
        SessionLimit {
            token_address: l.token,
            symbol: l.symbol.clone(),
            max_per_operation: l.per_operation.map(d),
            max_per_session: l.per_session.map(d),
            spent: d(l.spent),
            remaining: l
                .per_session
                .map(|m| d(m.checked_sub(l.spent).unwrap_or(Units::ZERO))),
        }
    }
}

/// A session as `GET /session` shows it to its token's holder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    /// The holder the session acts for.
    pub user_id: UserId,
    pub scopes: Vec<Scope>,
    /// Empty: the scopes alone bound what the session moves.
    pub limits: Vec<SessionLimit>,
    /// ISO 8601.
    pub expires_at: Timestamp,
    /// UNIX seconds (the token's `exp`).
    pub expires_at_unix: u64,
}

impl SessionInfo {
    pub fn of(s: &Session) -> SessionInfo {
        SessionInfo {
            user_id: s.user_id.clone(),
            scopes: s.scopes.clone(),
            limits: s.limits.iter().map(SessionLimit::of).collect(),
            expires_at: Timestamp::at(s.expires_at),
            expires_at_unix: s.expires_at / 1000,
        }
    }
}

/// `POST /holder/:userId/session` (201).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionCreated {
    /// The session token, for the holder's browser: `Authorization: Bearer <token>`, or the
    /// npm client's `sessionToken` option. It is not a secret of the merchant, but whoever
    /// holds it acts for the holder within its scopes until it expires or is revoked.
    pub token: String,
    #[serde(flatten)]
    pub session: SessionInfo,
}

/// `DELETE /holder/:userId/sessions`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionsRevoked {
    pub success: bool,
    /// How many live sessions were revoked.
    pub revoked: u64,
}

/// `GET /merchant/settings`, `PATCH /merchant/settings`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MerchantSettings {
    /// Private mode: holder reads need a session token (the public key alone reads no
    /// wallet), and public reads show holders' addresses, never their userIds.
    pub private_mode: bool,
}

impl MerchantSettings {
    pub fn of(m: &Merchant) -> MerchantSettings {
        MerchantSettings {
            private_mode: m.private_mode,
        }
    }
}

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
