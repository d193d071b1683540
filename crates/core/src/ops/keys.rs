//! The merchant's API keys: made, listed, rolled, revoked, and checked on every request.
//!
//! - Any working key of the merchant is accepted (`check`): not revoked, and before the end of
//!   its grace period if it was rolled. A key is stored as its SHA-256 hash only; its whole
//!   text is in the one answer that made it (`create`, `roll`), never again.
//! - `POST /keys` makes a secret key; `roll` replaces a key of either kind with a new one of
//!   the same kind, the old one working for the grace period asked (0 to 24 hours,
//!   [`DEFAULT_GRACE_HOURS`] when none is given); `revoke` stops one at once.
//! - A merchant keeps at least one live key of each kind (working, with no end set): a revoke
//!   that would leave none is 409 `last_live_key` (roll it with `graceHours: 0` to replace it
//!   at once). At most [`MAX_WORKING_KEYS`] of each kind work at a time (422
//!   `key_limit_reached`). A key that stopped working is listed for [`KEEP_ENDED_MS`], then
//!   forgotten by the next key write.
//! - A key's last use is written at most once a [`TOUCH_EVERY_MS`] (`check` says when),
//!   never by every request.

use super::Ctx;
use crate::auth::{hashes_equal, key_hash, key_id, last4, new_key, parse_key};
use crate::error::{Error, ErrorCode, Result};
use crate::model::ids::MerchantId;
use crate::model::input::{Checked, Int, Text};
use crate::model::key::{ApiKey, KeyKind, KeyStatus};
use crate::model::time::Millis;
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// The name of the keys a merchant is created with (and of those it had before key records).
pub const DEFAULT_NAME: &str = "Default";
/// A roll's grace period when the request names none.
pub const DEFAULT_GRACE_HOURS: u64 = 24;
/// The longest grace period a roll may give.
pub const MAX_GRACE_HOURS: u64 = 24;
/// Working keys of one kind at most.
pub const MAX_WORKING_KEYS: usize = 10;
/// How long a key that stopped working is still listed.
pub const KEEP_ENDED_MS: Millis = 30 * 24 * 3600 * 1000;
/// A key's `lastUsedAt` moves at most this often.
pub const TOUCH_EVERY_MS: Millis = 60 * 1000;

const HOUR_MS: Millis = 3600 * 1000;

/// `POST /keys`: a new secret key's name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateKey"))]
#[serde(rename_all = "camelCase")]
pub struct CreateKeyRequest {
    /// What the key is for (`"Orders service"`): one line of at most 64 characters shown as
    /// written.
    pub name: Text<64>,
}

impl Checked for CreateKeyRequest {}

/// `POST /keys/:keyId/roll`: how long the old key keeps working.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "RollKey"))]
#[serde(rename_all = "camelCase")]
pub struct RollKeyRequest {
    /// Hours the old key keeps working, 0 (it stops at once) to 24. Default 24.
    #[serde(default)]
    pub grace_hours: Option<Int<0, MAX_GRACE_HOURS>>,
}

impl Checked for RollKeyRequest {}

impl RollKeyRequest {
    pub fn grace_hours(&self) -> u64 {
        self.grace_hours.map_or(DEFAULT_GRACE_HOURS, Int::get)
    }
}

/// A key just made: its record, and its whole text (shown in this answer only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    pub record: ApiKey,
    pub key: String,
}

/// A record for `key` (its hash, last four characters and derived id), made at `now`.
pub fn record(kind: KeyKind, name: &str, key: &str, now: Millis) -> ApiKey {
    let hash = key_hash(key);
    ApiKey {
        id: key_id(&hash),
        kind,
        name: name.to_string(),
        hash,
        last4: Some(last4(key)),
        created_at: now,
        last_used_at: None,
        expires_at: None,
        revoked_at: None,
        public_key: (kind == KeyKind::Public).then(|| key.to_string()),
    }
}

/// The record of a key known only by its hash (a merchant's keys from before key records):
/// named [`DEFAULT_NAME`], its last four characters unknown until its first use.
pub fn migrated(kind: KeyKind, hash: &str, created_at: Millis) -> ApiKey {
    ApiKey {
        id: key_id(hash),
        kind,
        name: DEFAULT_NAME.to_string(),
        hash: hash.to_string(),
        last4: None,
        created_at,
        last_used_at: None,
        expires_at: None,
        revoked_at: None,
        public_key: None,
    }
}

/// Who a key is: its kind and its record's id, when it is a working key of `merchant` among
/// `keys`; and the record to write back when its last use (or its last four characters, unknown for a key
/// from before key records) should move. A key that is malformed, of another merchant,
/// unknown, revoked or expired: 401 `invalid_api_key`, the same answer for each.
pub fn check(
    keys: &[ApiKey],
    merchant: &MerchantId,
    key: &str,
    now: Millis,
) -> Result<(KeyKind, String, Option<ApiKey>)> {
    check_with(keys, merchant, key, now, key_hash)
}

/// [`check`], the key's hash given by `hash` (`auth::key_hash` or a memo of it:
/// `serve::Object::key_hash`), asked only of a well-formed key of `merchant`.
pub fn check_with(
    keys: &[ApiKey],
    merchant: &MerchantId,
    key: &str,
    now: Millis,
    hash: impl FnOnce(&str) -> String,
) -> Result<(KeyKind, String, Option<ApiKey>)> {
    let invalid = || Error::new(ErrorCode::InvalidApiKey, "Invalid API key");
    let (kind, id) = parse_key(key).ok_or_else(invalid)?;
    if &id != merchant {
        return Err(invalid());
    }
    let hash = hash(key);
    let found = keys
        .iter()
        .find(|k| k.kind == kind && hashes_equal(&k.hash, &hash))
        .filter(|k| k.works_at(now))
        .ok_or_else(invalid)?;
    let stale = found
        .last_used_at
        .is_none_or(|at| now.saturating_sub(at) >= TOUCH_EVERY_MS);
    // A public key from before its record kept it is learnt at its first use, as its last
    // four characters are.
    let unlearnt = kind == KeyKind::Public && found.public_key.is_none();
    let touch = (stale || found.last4.is_none() || unlearnt).then(|| {
        let mut k = found.clone();
        k.last_used_at = Some(now);
        k.last4 = Some(last4(key));
        if kind == KeyKind::Public {
            k.public_key = Some(key.to_string());
        }
        k
    });
    Ok((kind, found.id.clone(), touch))
}

/// Every key listed: the working ones and those that stopped in the last
/// [`KEEP_ENDED_MS`], oldest first (of keys made at once, as a merchant's first two, the
/// secret key first).
pub fn list(store: &dyn Store, now: Millis) -> Result<Vec<ApiKey>> {
    let mut keys: Vec<ApiKey> = store
        .api_keys()?
        .into_iter()
        .filter(|k| !forgotten(k, now))
        .collect();
    keys.sort_by(|a, b| {
        let order = |k: &ApiKey| (k.created_at, k.kind == KeyKind::Public);
        order(a).cmp(&order(b)).then_with(|| a.id.cmp(&b.id))
    });
    Ok(keys)
}

fn forgotten(k: &ApiKey, now: Millis) -> bool {
    k.ended_at(now)
        .is_some_and(|at| now.saturating_sub(at) > KEEP_ENDED_MS)
}

fn find(store: &dyn Store, id: &str, now: Millis) -> Result<ApiKey> {
    list(store, now)?
        .into_iter()
        .find(|k| k.id == id)
        .ok_or_else(|| Error::new(ErrorCode::KeyNotFound, "No such key").with("id", id))
}

/// Refuses a new key of `kind` when [`MAX_WORKING_KEYS`] of that kind already work.
fn room_for(keys: &[ApiKey], kind: KeyKind, now: Millis) -> Result<()> {
    let working = keys
        .iter()
        .filter(|k| k.kind == kind && k.works_at(now))
        .count();
    if working >= MAX_WORKING_KEYS {
        return Err(Error::new(
            ErrorCode::KeyLimitReached,
            format!(
                "At most {MAX_WORKING_KEYS} {} keys work at a time: revoke one first",
                kind.as_str()
            ),
        ));
    }
    Ok(())
}

/// Forgets the records among `keys` that stopped working more than [`KEEP_ENDED_MS`] ago.
fn prune(store: &mut dyn Store, keys: &[ApiKey], now: Millis) -> Result<()> {
    for k in keys {
        if forgotten(k, now) {
            store.remove_api_key(&k.id)?;
        }
    }
    Ok(())
}

/// Makes a key of `kind` named `name` from 32 random bytes.
pub fn create(
    store: &mut dyn Store,
    ctx: &Ctx,
    kind: KeyKind,
    name: &str,
    random: &[u8; 32],
) -> Result<Made> {
    let keys = store.api_keys()?;
    room_for(&keys, kind, ctx.now)?;
    let key = new_key(kind, &ctx.merchant.id, random);
    let record = record(kind, name, &key, ctx.now);
    if keys.iter().any(|k| k.id == record.id) {
        return Err(Error::internal("a new key's id is taken"));
    }
    prune(store, &keys, ctx.now)?;
    store.put_api_key(&record)?;
    Ok(Made { record, key })
}

/// Replaces key `id` with a new key of its kind and name; the old one works for
/// `grace_hours` more (never longer than an end it already had). Returns the old record as
/// it now is, and the new key.
pub fn roll(
    store: &mut dyn Store,
    ctx: &Ctx,
    id: &str,
    grace_hours: u64,
    random: &[u8; 32],
) -> Result<(ApiKey, Made)> {
    let mut old = find(store, id, ctx.now)?;
    if !old.works_at(ctx.now) {
        return Err(ended(&old));
    }
    let grace = grace_hours.min(MAX_GRACE_HOURS).saturating_mul(HOUR_MS);
    let end = ctx.now.saturating_add(grace);
    old.expires_at = Some(old.expires_at.map_or(end, |at| at.min(end)));
    // The old key counts no more when its end is now: a roll with no grace replaces it.
    let mut keys = store.api_keys()?;
    keys.retain(|k| k.id != old.id);
    keys.push(old.clone());
    room_for(&keys, old.kind, ctx.now)?;
    store.put_api_key(&old)?;
    let made = create(store, ctx, old.kind, &old.name, random)?;
    Ok((old, made))
}

/// Stops key `id` at once. Revoking a key that already stopped changes nothing. A revoke
/// that would leave no live key of its kind is 409 `last_live_key`.
pub fn revoke(store: &mut dyn Store, ctx: &Ctx, id: &str) -> Result<ApiKey> {
    let mut key = find(store, id, ctx.now)?;
    if !key.works_at(ctx.now) {
        return Ok(key);
    }
    let keys = store.api_keys()?;
    let others_live = keys
        .iter()
        .any(|k| k.id != key.id && k.kind == key.kind && k.status(ctx.now) == KeyStatus::Live);
    if key.status(ctx.now) == KeyStatus::Live && !others_live {
        return Err(Error::new(
            ErrorCode::LastLiveKey,
            format!(
                "This is the merchant's last live {} key: roll it (graceHours 0 replaces it at once) instead of revoking it",
                key.kind.as_str()
            ),
        )
        .with("id", key.id.as_str()));
    }
    key.revoked_at = Some(ctx.now);
    prune(store, &keys, ctx.now)?;
    store.put_api_key(&key)?;
    Ok(key)
}

fn ended(k: &ApiKey) -> Error {
    Error::new(
        ErrorCode::KeyRevoked,
        "This key was revoked or its grace period is over: it cannot be rolled",
    )
    .with("id", k.id.as_str())
}
