//! The merchant's API keys on the wire (`ops::keys`): listed without their secrets, made and
//! rolled with the whole key in that one answer (`apiKey`), revoked at once. Secret key only.
//! An idempotent retry of a write that made a key never shows it again: its record keeps a
//! 409 `key_already_shown` instead of the answer ([`kept_instead`]).

use super::endpoint::{
    Access::Secret,
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::shell::Shell;
use crate::error::{Error, ErrorCode, Result};
use crate::model::key::{ApiKey, KeyKind, KeyStatus};
use crate::model::time::{Millis, Timestamp};
use crate::ops::keys::{self, CreateKeyRequest, Made, RollKeyRequest};
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`).
pub const LIST_KEYS: Route = Route::new("listKeys");
pub const CREATE_KEY: Route = Route::new("createKey");
pub const ROLL_KEY: Route = Route::new("rollKey");
pub const REVOKE_KEY: Route = Route::new("revokeKey");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("GET", "/keys", LIST_KEYS, Secret, Reads),
    ("POST", "/keys", CREATE_KEY, Secret, Writes),
    ("POST", "/keys/:keyId/roll", ROLL_KEY, Secret, Writes),
    ("POST", "/keys/:keyId/revoke", REVOKE_KEY, Secret, Writes),
];

/// An operation on the merchant's keys, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyOp {
    List,
    Create(CreateKeyRequest),
    Roll(String, RollKeyRequest),
    Revoke(String),
}

/// Every answer of a [`KeyOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum KeyAnswer {
    List(KeyList),
    Created(KeyCreated),
    Rolled(KeyRolled),
    Revoked(KeyInfo),
}

impl KeyOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            KeyOp::List => LIST_KEYS,
            KeyOp::Create(_) => CREATE_KEY,
            KeyOp::Roll(..) => ROLL_KEY,
            KeyOp::Revoke(_) => REVOKE_KEY,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<KeyOp>> {
    Ok(Some(match route {
        LIST_KEYS => KeyOp::List,
        CREATE_KEY => KeyOp::Create(parts.body()?),
        ROLL_KEY => KeyOp::Roll(parts.id(0, "keyId")?, parts.body()?),
        REVOKE_KEY => KeyOp::Revoke(parts.id(0, "keyId")?),
        _ => return Ok(None),
    }))
}

/// 32 fresh random bytes for a new key.
fn random32(shell: &mut dyn Shell) -> Result<[u8; 32]> {
    let mut out = [0u8; 32];
    let (a, b) = out.split_at_mut(16);
    a.copy_from_slice(&shell.random16()?);
    b.copy_from_slice(&shell.random16()?);
    Ok(out)
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    op: KeyOp,
    shell: &mut dyn Shell,
) -> Result<(u16, KeyAnswer)> {
    let now = ctx.now;
    Ok(match op {
        KeyOp::List => {
            let data = keys::list(store, now)?
                .iter()
                .map(|k| KeyInfo::of(k, now))
                .collect();
            (
                200,
                KeyAnswer::List(KeyList {
                    has_more: false,
                    data,
                }),
            )
        }
        KeyOp::Create(req) => {
            let random = random32(shell)?;
            let made = keys::create(store, ctx, KeyKind::Secret, req.name.as_str(), &random)?;
            (201, KeyAnswer::Created(KeyCreated::of(&made, now)))
        }
        KeyOp::Roll(id, req) => {
            let random = random32(shell)?;
            let (old, made) = keys::roll(store, ctx, &id, req.grace_hours(), &random)?;
            let created = KeyCreated::of(&made, now);
            (
                201,
                KeyAnswer::Rolled(KeyRolled {
                    key: created.key,
                    api_key: created.api_key,
                    rolled: KeyInfo::of(&old, now),
                }),
            )
        }
        KeyOp::Revoke(id) => (
            200,
            KeyAnswer::Revoked(KeyInfo::of(&keys::revoke(store, ctx, &id)?, now)),
        ),
    })
}

/// What an idempotency record keeps instead of `answer`, when the answer shows a key: the
/// key is shown once, so a retry under the same Idempotency-Key is refused (and nothing is
/// made again) rather than replayed, and no key is ever stored.
pub fn kept_instead(answer: &KeyAnswer) -> Option<Error> {
    let id = match answer {
        KeyAnswer::Created(c) => &c.key.id,
        KeyAnswer::Rolled(r) => &r.key.id,
        KeyAnswer::List(_) | KeyAnswer::Revoked(_) => return None,
    };
    Some(
        Error::new(
            ErrorCode::KeyAlreadyShown,
            "The key this Idempotency-Key made was shown in its first answer and is never shown again: if that answer was lost, revoke the key and make another",
        )
        .with("id", id.as_str()),
    )
}

/// One key as listed: never the key itself nor its hash.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ApiKey"))]
#[serde(rename_all = "camelCase")]
pub struct KeyInfo {
    /// `key_` and 32 hex digits.
    pub id: String,
    /// `secret` (`sk_...`) or `public` (`pk_...`).
    pub kind: KeyKind,
    pub name: String,
    /// The key's last four characters; null for a key made before keys were listed, until
    /// its first use.
    pub last4: Option<String>,
    pub created_at: Timestamp,
    /// Its last use, to the minute (null: never used since it was made or listed).
    pub last_used_at: Option<Timestamp>,
    /// When it stops (stopped) working, after a roll's grace period.
    pub expires_at: Option<Timestamp>,
    pub revoked_at: Option<Timestamp>,
    /// `live` (works, no end set), `expiring` (works until `expiresAt`), `revoked` (revoked,
    /// or past `expiresAt`: never works again).
    pub status: KeyStatus,
    /// The whole key, for a public key (public keys are safe to show: they sit in browser
    /// pages); null for a secret key, which is shown only once, and for a public key made
    /// before keys were listed, until its first use.
    pub public_key: Option<String>,
}

impl KeyInfo {
    pub fn of(k: &ApiKey, now: Millis) -> KeyInfo {
        KeyInfo {
            id: k.id.clone(),
            kind: k.kind,
            name: k.name.clone(),
            last4: k.last4.clone(),
            created_at: Timestamp::at(k.created_at),
            last_used_at: k.last_used_at.map(Timestamp::at),
            expires_at: k.expires_at.map(Timestamp::at),
            revoked_at: k.revoked_at.map(Timestamp::at),
            status: k.status(now),
            public_key: k.public_key.clone(),
        }
    }
}

/// `GET /keys`: every key, oldest first (one that stopped working is listed for 30 days).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ApiKeyList"))]
pub struct KeyList {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = false)))]
    pub has_more: bool,
    pub data: Vec<KeyInfo>,
}

/// `POST /keys` -> 201: the new key's record, and the key itself, shown this once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ApiKeyCreated"))]
#[serde(rename_all = "camelCase")]
pub struct KeyCreated {
    pub key: KeyInfo,
    /// The whole key, to send as `x-api-key`: keep it; it is never shown again.
    pub api_key: String,
}

impl KeyCreated {
    fn of(made: &Made, now: Millis) -> KeyCreated {
        KeyCreated {
            key: KeyInfo::of(&made.record, now),
            api_key: made.key.clone(),
        }
    }
}

/// `POST /keys/:keyId/roll` -> 201: the new key (shown this once) and the old one as it now
/// is (`expiring` until `expiresAt`, or `revoked` after a roll with no grace).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ApiKeyRolled"))]
#[serde(rename_all = "camelCase")]
pub struct KeyRolled {
    pub key: KeyInfo,
    /// The whole new key, to send as `x-api-key`: keep it; it is never shown again.
    pub api_key: String,
    /// The key rolled.
    pub rolled: KeyInfo,
}
