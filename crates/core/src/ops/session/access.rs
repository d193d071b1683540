//! Who a request is, and what a session may do. [`verify`] turns a session token into its
//! session (401s: `invalid_session_token`, `session_expired`, `session_revoked`); [`permit`]
//! checks an operation's holder and scope against it (403s: `session_holder_mismatch`,
//! `insufficient_scope`); [`charge`] counts a movement against the session's limits (403
//! `session_limit_exceeded`) inside the operation's own transaction, so concurrent requests
//! that together exceed a limit never move more than it: the count and the movement commit
//! together, or neither does. Which operation needs what is decided on the wire
//! (`crate::wire::session`).

use super::seconds;
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::Units;
use crate::model::decimal::Decimal;
use crate::model::ids::{MerchantId, TokenAddress, UserId};
use crate::model::session::{Scope, Session, SessionId};
use crate::model::time::Millis;
use crate::session_token::{self, Refusal, SigningKey};
use crate::store::Store;

/// Who sent a request, once its credential checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The merchant's secret key: everything.
    Secret,
    /// The merchant's public key: public reads.
    Public,
    /// A session token: its holder, within its scopes and limits.
    Session(Session),
}

impl Caller {
    pub fn is_secret(&self) -> bool {
        matches!(self, Caller::Secret)
    }
}

fn invalid(message: &str) -> Error {
    Error::new(ErrorCode::InvalidSessionToken, message)
}

/// The session a token names, if the token is ours (signed with this merchant's key, for this
/// merchant), not expired on the service clock, and its session neither revoked nor gone.
pub fn verify(
    store: &dyn Store,
    key: &SigningKey,
    merchant: &MerchantId,
    token: &str,
    now: Millis,
) -> Result<Session> {
    let v = session_token::verify(key, token, seconds(now)).map_err(|r| match r {
        Refusal::Invalid => invalid("Invalid session token"),
        Refusal::Expired => Error::new(
            ErrorCode::SessionExpired,
            "This session token has expired: ask the merchant's server for a new one",
        ),
    })?;
    if v.claims.aud != merchant.as_str() {
        return Err(invalid("This session token was issued by another merchant"));
    }
    let session = store
        .session(&SessionId(v.claims.jti))?
        .filter(|s| s.user_id.as_str() == v.claims.sub)
        .ok_or_else(|| invalid("Invalid session token"))?;
    if session.revoked_at.is_some() {
        return Err(Error::new(
            ErrorCode::SessionRevoked,
            "This session was revoked: ask the merchant's server for a new one",
        ));
    }
    if now >= session.expires_at {
        return Err(Error::new(
            ErrorCode::SessionExpired,
            "This session token has expired: ask the merchant's server for a new one",
        ));
    }
    Ok(session)
}

/// Whether the session may act on `holder` with `scope` (`None`: only the holder is checked).
/// The holder is checked first: a token never learns what it could do to another holder.
pub fn permit(session: &Session, holder: &UserId, scope: Option<Scope>) -> Result<()> {
    if &session.user_id != holder {
        return Err(Error::new(
            ErrorCode::SessionHolderMismatch,
            "This session token is for another holder",
        ));
    }
    match scope {
        Some(s) if !session.allows(s) => Err(Error::new(
            ErrorCode::InsufficientScope,
            format!("This session token does not have the {s} scope"),
        )
        .with("scope", s.as_str())
        .with(
            "scopes",
            session
                .scopes
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>(),
        )),
        _ => Ok(()),
    }
}

fn amount(units: Units, decimals: u8) -> serde_json::Value {
    serde_json::to_value(Decimal::from_units(units.raw(), decimals)).unwrap_or_default()
}

/// Counts `units` of `token` against session `id`'s limits, or refuses. Call it inside the
/// transaction of the movement: the session is read again there, so the count is exactly what
/// committed before. A session without limits is not limited (nothing is written).
pub fn charge(
    store: &mut dyn Store,
    id: &SessionId,
    token: &TokenAddress,
    units: Units,
) -> Result<()> {
    let mut session = store
        .session(id)?
        .ok_or_else(|| invalid("Invalid session token"))?;
    if session.limits.is_empty() {
        return Ok(());
    }
    let exceeded = |message: String, limit: &str| {
        Error::new(ErrorCode::SessionLimitExceeded, message)
            .with("tokenAddress", token.to_checksum())
            .with("limit", limit)
    };
    let Some(limit) = session.limits.iter_mut().find(|l| &l.token == token) else {
        return Err(exceeded(
            "This session may not move this token (it has no limit for it)".into(),
            "token",
        ));
    };
    let d = limit.decimals;
    if let Some(max) = limit.per_operation {
        if units > max {
            return Err(exceeded(
                format!(
                    "This session may move at most {} of this token in one operation",
                    Decimal::from_units(max.raw(), d)
                ),
                "maxPerOperation",
            )
            .with("max", amount(max, d)));
        }
    }
    let spent = limit.spent.plus(units)?;
    if let Some(max) = limit.per_session {
        if spent > max {
            let remaining = max.checked_sub(limit.spent).unwrap_or(Units::ZERO);
            return Err(exceeded(
                format!(
                    "This session may move at most {} of this token in all; {} remain",
                    Decimal::from_units(max.raw(), d),
                    Decimal::from_units(remaining.raw(), d)
                ),
                "maxPerSession",
            )
            .with("max", amount(max, d))
            .with("spent", amount(limit.spent, d))
            .with("remaining", amount(remaining, d)));
        }
    }
    limit.spent = spent;
    store.put_session(&session)
}

/// Whether session `id` may still receive pushes at `now` (the live channel asks before each).
pub fn still_live(store: &dyn Store, id: &SessionId, now: Millis) -> bool {
    store
        .session(id)
        .ok()
        .flatten()
        .is_some_and(|s| s.live_at(now))
}
