//! Holder sessions: `POST /holder/:userId/session` makes one (a record, and the signed token
//! that names it), `DELETE /holder/:userId/sessions` revokes every live one of a holder.
//! What a session may then do is `access`: who the token is, whether the operation is one its
//! scopes allow for its holder, and the limits, charged in the operation's own transaction.

pub mod access;

use super::{holder, token, Ctx};
use crate::error::{Error, ErrorCode, Result};
use crate::model::amount::Units;
use crate::model::decimal::AmountInput;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::input::{Checked, Int};
use crate::model::session::{Limit, Scope, Session, SessionId};
use crate::model::time::{Millis, SECOND};
use crate::session_token::{self, SigningKey, TokenClaims};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// A session lives 15 minutes unless `ttlSeconds` says otherwise.
pub const DEFAULT_TTL_SECONDS: u64 = 900;
/// At least a minute, at most a day.
pub const MIN_TTL_SECONDS: u64 = 60;
pub const MAX_TTL_SECONDS: u64 = 86_400;
/// Limits one session may carry.
pub const MAX_LIMITS: usize = 20;

/// `POST /holder/:userId/session`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateSession"))]
#[serde(rename_all = "camelCase")]
pub struct CreateSessionRequest {
    /// Seconds the token lives: 60 to 86400 (24 hours); default 900 (15 minutes).
    #[cfg_attr(feature = "codegen", schemars(extend("default" = 900)))]
    pub ttl_seconds: Option<Int<MIN_TTL_SECONDS, MAX_TTL_SECONDS>>,
    /// What the token may do; default `["read"]`. Repeats are ignored.
    #[cfg_attr(feature = "codegen", schemars(extend("default" = ["read"], "minItems" = 1)))]
    pub scopes: Option<Vec<Scope>>,
    /// At most 20, one per token. None: the scopes alone bound what the session moves (and
    /// the holder's balance). With limits, only the tokens listed may move (USDC for
    /// `buy-presale`, by its address), each within its limits.
    #[cfg_attr(feature = "codegen", schemars(extend("maxItems" = 20)))]
    pub limits: Option<Vec<SessionLimitRequest>>,
}

/// How much of one token a session may move: per operation, over the session, or both.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "SessionLimitRequest"))]
#[cfg_attr(
    feature = "codegen",
    schemars(extend("anyOf" = [{ "required": ["maxPerOperation"] }, { "required": ["maxPerSession"] }]))
)]
#[serde(rename_all = "camelCase")]
pub struct SessionLimitRequest {
    /// The token (USDC's address for presale purchases).
    pub token_address: TokenAddress,
    /// Whole tokens one operation may move at most.
    pub max_per_operation: Option<AmountInput>,
    /// Whole tokens the session may move at most, over all its operations.
    pub max_per_session: Option<AmountInput>,
}

impl Checked for CreateSessionRequest {
    fn check(&self) -> Result<()> {
        if self.scopes.as_ref().is_some_and(Vec::is_empty) {
            return Err(
                Error::new(ErrorCode::InvalidRequest, "must not be empty").at_field("scopes")
            );
        }
        let limits = self.limits.as_deref().unwrap_or_default();
        if limits.len() > MAX_LIMITS {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                format!("must have at most {MAX_LIMITS} items"),
            )
            .at_field("limits"));
        }
        for (i, l) in limits.iter().enumerate() {
            let at = |why: &str| {
                Error::new(ErrorCode::InvalidRequest, format!("limits[{i}] {why}"))
                    .with("field", "limits")
                    .with("index", i)
            };
            if l.max_per_operation.is_none() && l.max_per_session.is_none() {
                return Err(at("needs maxPerOperation, maxPerSession or both"));
            }
            if limits
                .iter()
                .take(i)
                .any(|o| o.token_address == l.token_address)
            {
                return Err(at("repeats a tokenAddress: give one limit per token"));
            }
        }
        Ok(())
    }
}

impl CreateSessionRequest {
    /// The scopes asked for, in canonical order, without repeats.
    pub fn scopes(&self) -> Vec<Scope> {
        let mut scopes = self.scopes.clone().unwrap_or_else(|| vec![Scope::Read]);
        scopes.sort();
        scopes.dedup();
        scopes
    }
}

/// A session made: its record and its token.
#[derive(Clone, Debug)]
pub struct Issued {
    pub session: Session,
    pub token: String,
}

/// UNIX seconds of a service-clock instant.
pub fn seconds(at: Millis) -> i64 {
    i64::try_from(at / SECOND).unwrap_or(i64::MAX)
}

/// Makes a session `id` for `user_id`'s holder and signs its token with `key`. The token
/// expires on a whole second (JWT times are seconds), `ttlSeconds` from now rounded down.
pub fn create(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &UserId,
    req: &CreateSessionRequest,
    id: SessionId,
    key: &SigningKey,
) -> Result<Issued> {
    let holder = holder::find(store, user_id)?;
    let mut limits = Vec::new();
    for (i, l) in req.limits.iter().flatten().enumerate() {
        let t = token::find(store, &l.token_address)?;
        let field = |name: &str| format!("limits[{i}].{name}");
        let units = |a: &Option<AmountInput>, name: &str| {
            a.as_ref()
                .map(|a| a.units(&field(name), t.decimals).map(Units::new))
                .transpose()
        };
        let per_operation = units(&l.max_per_operation, "maxPerOperation")?;
        let per_session = units(&l.max_per_session, "maxPerSession")?;
        if let (Some(op), Some(all)) = (per_operation, per_session) {
            if op > all {
                return Err(Error::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "{} must not be larger than maxPerSession",
                        field("maxPerOperation")
                    ),
                )
                .with("field", "limits")
                .with("index", i));
            }
        }
        limits.push(Limit {
            token: t.address,
            symbol: t.symbol.clone(),
            decimals: t.decimals,
            per_operation,
            per_session,
            spent: Units::ZERO,
        });
    }
    let ttl = req.ttl_seconds.map_or(DEFAULT_TTL_SECONDS, |t| t.get());
    let issued_at = seconds(ctx.now);
    let expires_at = issued_at.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX));
    let session = Session {
        id,
        user_id: holder.user_id,
        scopes: req.scopes(),
        limits,
        created_at: ctx.now,
        expires_at: u64::try_from(expires_at)
            .unwrap_or(u64::MAX)
            .saturating_mul(SECOND),
        revoked_at: None,
    };
    let claims = TokenClaims {
        iss: session_token::ISSUER.into(),
        aud: ctx.merchant.id.as_str().into(),
        sub: session.user_id.as_str().into(),
        jti: session.id.as_str().into(),
        scope: Scope::join(&session.scopes),
    };
    let token = session_token::sign(key, &claims, issued_at, expires_at)
        .ok_or_else(|| Error::internal("session token: signing failed"))?;
    store.forget_sessions_expired(ctx.now)?;
    store.put_session(&session)?;
    Ok(Issued { session, token })
}

/// Revokes every live session of `user_id`'s holder: their tokens are refused from now on
/// (401 `session_revoked`). Returns how many there were.
pub fn revoke(store: &mut dyn Store, ctx: &Ctx, user_id: &UserId) -> Result<u64> {
    let holder = holder::find(store, user_id)?;
    let mut n = 0u64;
    for mut s in store.live_sessions_of(&holder.user_id, ctx.now)? {
        if s.revoked_at.is_none() {
            s.revoked_at = Some(ctx.now);
            store.put_session(&s)?;
            n = n.saturating_add(1);
        }
    }
    Ok(n)
}
