//! Holder sessions on the wire: the answers of `POST /holder/:userId/session`, `DELETE
//! /holder/:userId/sessions`, `GET /session` and the merchant settings. Which operation a
//! session may run and what it moves against its limits is `scope`.

use super::endpoint::{
    Access::{Holder, Secret},
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::shell::Shell;
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::Units;
use crate::model::decimal::Decimal;
use crate::model::ids::uuid_v4;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::session::SessionId;
use crate::model::session::{Limit, Scope, Session};
use crate::model::time::Timestamp;
use crate::ops::session::access::Caller;
use crate::ops::session::{self, CreateSessionRequest};
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const CREATE_SESSION: Route = Route::new("createSession");
pub const REVOKE_SESSIONS: Route = Route::new("revokeSessions");
pub const CURRENT_SESSION: Route = Route::new("getSession");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/holder/:userId/session", CREATE_SESSION, Secret, Writes),
    ("DELETE", "/holder/:userId/sessions", REVOKE_SESSIONS, Secret, Writes),
    ("GET", "/session", CURRENT_SESSION, Holder, Reads),
];

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

/// An operation on a holder's sessions, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionOp {
    CreateSession(UserId, CreateSessionRequest),
    RevokeSessions(UserId),
    CurrentSession,
}

/// Every answer of a [`SessionOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SessionAnswer {
    Created(Box<SessionCreated>),
    Revoked(SessionsRevoked),
    Session(Box<SessionInfo>),
}

impl SessionOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            SessionOp::CreateSession(..) => CREATE_SESSION,
            SessionOp::RevokeSessions(_) => REVOKE_SESSIONS,
            SessionOp::CurrentSession => CURRENT_SESSION,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<SessionOp>> {
    Ok(Some(match route {
        CREATE_SESSION => SessionOp::CreateSession(parts.user(0)?, parts.body()?),
        REVOKE_SESSIONS => SessionOp::RevokeSessions(parts.user(0)?),
        CURRENT_SESSION => SessionOp::CurrentSession,
        _ => return Ok(None),
    }))
}

/// Applies `op` as `caller`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    caller: &Caller,
    op: SessionOp,
    shell: &mut dyn Shell,
) -> Result<(u16, SessionAnswer)> {
    Ok(match op {
        SessionOp::CreateSession(user_id, req) => {
            let id = SessionId(uuid_v4(shell.random16()?));
            let key = shell.session_key()?;
            let issued = session::create(store, ctx, &user_id, &req, id, &key)?;
            let created = SessionCreated {
                token: issued.token,
                session: SessionInfo::of(&issued.session),
            };
            (201, SessionAnswer::Created(Box::new(created)))
        }
        SessionOp::RevokeSessions(user_id) => {
            let revoked = session::revoke(store, ctx, &user_id)?;
            let answer = SessionsRevoked {
                success: true,
                revoked,
            };
            (200, SessionAnswer::Revoked(answer))
        }
        SessionOp::CurrentSession => match caller {
            Caller::Session(s) => {
                // Read again: `spent` as committed now.
                let s = store.session(&s.id)?.unwrap_or_else(|| s.clone());
                (200, SessionAnswer::Session(Box::new(SessionInfo::of(&s))))
            }
            _ => {
                return Err(Error::new(
                    ErrorCode::SessionTokenRequired,
                    "GET /session needs a session token (Authorization: Bearer <token>)",
                ))
            }
        },
    })
}
