//! Idempotency keys: a write sent with an `Idempotency-Key` takes effect at most once, and a
//! retry with the same key replays its first answer (same status and body) for 24 hours.
//!
//! **A key belongs to the caller that sent it**: the merchant's secret key has its keys, and
//! each holder its own (every session token of that holder shares them, so a browser that got
//! a fresh token can still retry). The same key from two callers names two records: neither
//! can take the other's key, replay the other's answer, or learn from a 409 that the other
//! used it. Only a retry by the same caller of another request under its key is a 409
//! `idempotency_key_reused`.
//!
//! A record is stored under `<scope>\n<key>` (a key and a userId never hold a newline, so
//! scopes cannot run into each other). Records from before keys were scoped are stored under
//! the bare key: for the day they live, a retry that finds none under its scope replays such
//! a record when it is the same request (so a write in flight across the upgrade still
//! happens once), and ignores it otherwise (it may be another caller's: nothing is refused
//! or revealed).

use super::session::access::Caller;
use crate::error::{Error, ErrorCode, Result};
use crate::model::time::Millis;
use crate::store::idempotency::Kept;
use crate::store::Store;

/// Records are kept this long.
pub const TTL: Millis = 24 * 3600 * 1000;

/// Records older than a day are forgotten at most this often (a replay never sees one: it
/// looks at the last day's only), not by every write.
pub const PRUNE_EVERY: Millis = 3600 * 1000;

/// A request's key and what it asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keyed<'a> {
    pub key: &'a str,
    /// Method, path and canonical body, hashed: what makes two requests "the same".
    pub fingerprint: &'a str,
}

/// Whose keys a caller's are: the secret key's, or a holder's. A public key writes nothing.
pub fn scope(caller: &Caller) -> Option<String> {
    match caller {
        Caller::Secret => Some("secret".into()),
        Caller::Session(s) => Some(format!("holder:{}", s.user_id)),
        Caller::Public => None,
    }
}

fn stored_key(caller: &Caller, key: &str) -> Result<String> {
    let scope = scope(caller)
        .ok_or_else(|| Error::internal("an idempotency key from a caller that cannot write"))?;
    Ok(format!("{scope}\n{key}"))
}

/// The first answer under this caller's key, if there is one from the last 24 hours; the
/// same key with a different request of the same caller is a 409 `idempotency_key_reused`.
pub fn replay(
    store: &dyn Store,
    caller: &Caller,
    request: &Keyed<'_>,
    now: Millis,
) -> Result<Option<(u16, String)>> {
    let since = now.saturating_sub(TTL);
    let scoped = stored_key(caller, request.key)?;
    // One lookup for both the caller's record and a record from before keys were scoped.
    let found = store.kept_answers(&[&scoped, request.key], since)?;
    let under = |k: &str| found.iter().find(|(key, _)| key == k).map(|(_, kept)| kept);
    if let Some(kept) = under(&scoped) {
        if kept.fingerprint != request.fingerprint {
            return Err(Error::new(
                ErrorCode::IdempotencyKeyReused,
                "This Idempotency-Key was used with a different request",
            ));
        }
        return Ok(Some((kept.status, kept.body.clone())));
    }
    // A record from before keys were scoped: the same request's only.
    Ok(under(request.key)
        .filter(|kept| kept.fingerprint == request.fingerprint)
        .map(|kept| (kept.status, kept.body.clone())))
}

/// Keeps `status` and `body` as the answer to this caller's key (in the operation's own
/// transaction, so the record commits with the effect it records).
pub fn record(
    store: &mut dyn Store,
    caller: &Caller,
    request: &Keyed<'_>,
    status: u16,
    body: &str,
    now: Millis,
) -> Result<()> {
    let kept = Kept {
        fingerprint: request.fingerprint.to_string(),
        status,
        body: body.to_string(),
        created_at: now,
    };
    store.keep_answer(&stored_key(caller, request.key)?, &kept)
}

/// Forgets the records older than a day.
pub fn prune(store: &mut dyn Store, now: Millis) -> Result<()> {
    store.forget_answers_before(now.saturating_sub(TTL))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::ids::UserId;
    use crate::model::session::{Scope, Session, SessionId};
    use crate::store::idempotency::IdempotencyStore;
    use crate::store::mem::MemStore;

    fn holder(user: &str, session: &str) -> Caller {
        Caller::Session(Session {
            id: SessionId(session.into()),
            user_id: UserId::new_unchecked(user),
            scopes: vec![Scope::Read, Scope::Spend],
            limits: Vec::new(),
            created_at: 0,
            expires_at: 1_000_000,
            revoked_at: None,
        })
    }

    fn req<'a>(key: &'a str, fingerprint: &'a str) -> Keyed<'a> {
        Keyed { key, fingerprint }
    }

    #[test]
    fn a_key_belongs_to_the_caller_that_sent_it() {
        let mut store = MemStore::default();
        let now = 10_000;
        let (alice, alice_again, bob) = (
            holder("alice", "s1"),
            holder("alice", "s2"),
            holder("bob", "s3"),
        );
        // A holder takes the key the backend uses next.
        record(
            &mut store,
            &alice,
            &req("order-1001", "alice-spend"),
            200,
            "A",
            now,
        )
        .unwrap();
        // The backend's request under it runs (nothing found), and is kept apart.
        let backend = req("order-1001", "backend-spend");
        assert_eq!(
            replay(&store, &Caller::Secret, &backend, now).unwrap(),
            None
        );
        record(&mut store, &Caller::Secret, &backend, 200, "B", now).unwrap();
        // Each retry replays its own caller's answer; another holder's key is its own.
        assert_eq!(
            replay(&store, &Caller::Secret, &backend, now).unwrap(),
            Some((200, "B".into()))
        );
        let own = req("order-1001", "alice-spend");
        assert_eq!(
            replay(&store, &alice, &own, now).unwrap(),
            Some((200, "A".into()))
        );
        // A new token of the same holder is the same caller.
        assert_eq!(
            replay(&store, &alice_again, &own, now).unwrap(),
            Some((200, "A".into()))
        );
        assert_eq!(replay(&store, &bob, &own, now).unwrap(), None);
        // Another request of the same caller under its key: 409; of another caller: free.
        let other = req("order-1001", "something-else");
        assert_eq!(
            replay(&store, &alice, &other, now).unwrap_err().code,
            ErrorCode::IdempotencyKeyReused
        );
        assert_eq!(replay(&store, &bob, &other, now).unwrap(), None);
        // A public key writes nothing, so it has no keys.
        assert!(record(&mut store, &Caller::Public, &own, 200, "P", now).is_err());
    }

    #[test]
    fn records_last_a_day_and_legacy_ones_replay_only_the_same_request() {
        let mut store = MemStore::default();
        let kept = Kept {
            fingerprint: "f".into(),
            status: 201,
            body: "old".into(),
            created_at: 0,
        };
        // Stored under the bare key, as before keys were scoped.
        store.keep_answer("k", &kept).unwrap();
        let same = req("k", "f");
        assert_eq!(
            replay(&store, &Caller::Secret, &same, 5).unwrap(),
            Some((201, "old".into()))
        );
        assert_eq!(
            replay(&store, &Caller::Secret, &req("k", "g"), 5).unwrap(),
            None
        );
        assert_eq!(
            replay(&store, &Caller::Secret, &same, TTL + 1).unwrap(),
            None
        );
        record(&mut store, &Caller::Secret, &req("n", "f"), 200, "x", TTL).unwrap();
        prune(&mut store, TTL + 1).unwrap();
        assert_eq!(store.kept_answers.len(), 1, "the old record is gone");
    }
}
