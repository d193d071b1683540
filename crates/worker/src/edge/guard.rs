//! The bad-key guard: a budget per client address for requests whose key does not check.
//!
//! A key names its merchant, and the merchant id is part of the public key, so anyone can
//! send `sk_<victim id>_<anything>` to a merchant's object. The object charges the merchant's
//! rate budget only once the key checked; this guard keeps such strangers from costing the
//! object anything else. Every answer `invalid_api_key` spends one request of the client
//! address's bucket (BAD_KEY_LIMIT_PER_SECOND, default 5, bursts of BAD_KEY_LIMIT_BURST,
//! default four times the rate; 0 turns it off); while the bucket is empty, that address's keyed requests
//! are refused at the edge, before any object is asked: 429 `rate_limited` with
//! Retry-After. A key this isolate has seen pass is exempt, so a stranger sharing an address
//! (a NAT) with a merchant's real client does not lock it out; a key the object then refuses
//! (revoked, or past a roll's grace period) loses that at its first refusal. The exemption
//! only spares a budget: every request's key is checked by the merchant's object.
//!
//! A key not known to be good reserves one request of the budget while it is checked, and
//! gets it back unless it was bad: at most the burst plus the rate of bad keys per second
//! reach the objects from one address, however many requests it has in flight. While one
//! request's key is being checked, the others that bring the same key wait for its answer
//! (at most [`CHECK_WAIT_MS`]) instead of each reserving: a client that opens with more
//! requests at once than the burst (a backend's batch, a page's reads, just after a deploy
//! started a new isolate) is not refused for a key that is good.
//!
//! State is per isolate, in memory and bounded (at most `MAX_ADDRESSES` buckets and
//! `MAX_GOOD_KEYS` key hashes; see `ratelimit::Buckets`): Workers run many isolates, so the
//! budget an address really has is this one times the isolates it reaches. That bounds the
//! work a flood costs without a shared store on the request path; a global limit in front
//! of the Worker (Cloudflare's rate-limiting rules) is the operator's tool against floods
//! from many addresses.

use crate::config;

use super::incoming::Incoming;
use super::inflight::{self, InFlight};
use crate::key_hashes;
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ratelimit::{Buckets, Limit};
use tokenpad_core::Result;
use worker::Env;

const MAX_ADDRESSES: usize = 4_096;
const MAX_GOOD_KEYS: usize = 1_024;
/// How long requests wait for the answer to their key's first check in this isolate (ms);
/// past it they reserve from the budget as any other.
const CHECK_WAIT_MS: Millis = 2_000;

struct Guard {
    failures: Buckets,
    good: HashSet<String>,
    good_order: VecDeque<String>,
    /// The keys (by hash) a request is being checked with.
    checking: InFlight,
}

/// What `admit` did for a request, for `observe` to undo or keep.
pub struct Admitted {
    /// It took one request from the address's budget.
    took: bool,
    /// Its key's check is the one other requests with the key wait for (`checking`).
    claimed: Option<String>,
}

thread_local! {
    static GUARD: RefCell<Option<Guard>> = const { RefCell::new(None) };
}

fn limit(env: &Env) -> Limit {
    let num = |name: &str| config::string(env, name).and_then(|v| v.trim().parse::<u64>().ok());
    let per_second = num("BAD_KEY_LIMIT_PER_SECOND").unwrap_or(5);
    Limit {
        per_second,
        burst: num("BAD_KEY_LIMIT_BURST").unwrap_or(per_second.saturating_mul(4)),
    }
}

fn with<T>(env: &Env, f: impl FnOnce(&mut Guard) -> T) -> T {
    let limit = limit(env);
    GUARD.with(|g| {
        let mut g = g.borrow_mut();
        let guard = match &mut *g {
            Some(guard) if guard.failures.limit() == limit => guard,
            slot => slot.insert(Guard {
                failures: Buckets::new(limit, MAX_ADDRESSES),
                good: HashSet::new(),
                good_order: VecDeque::new(),
                checking: InFlight::new(CHECK_WAIT_MS),
            }),
        };
        f(guard)
    })
}

fn now() -> u64 {
    crate::clock::now_ms()
}

/// The client's address: CF-Connecting-IP (set by Cloudflare, which overwrites what a client
/// sends; locally, wrangler sets it unless the request has one). IPv6 addresses count per
/// /64 (one subscriber's prefix). Without one, every such request shares one budget.
pub fn client(req: &Incoming) -> String {
    tokenpad_core::ratelimit::client_address(req.header("cf-connecting-ip").as_deref())
}

/// Admits a keyed request from `client`, or refuses it when the address's bad-key budget is
/// spent. A key not known to be good takes one request from the budget up front (so many
/// requests in flight at once cannot all slip through on one remaining token); the answer
/// then gives it back unless the key turned out bad (`observe`). A request whose key another
/// request is being checked with waits for that answer first: a good key then takes nothing.
pub async fn admit(env: &Env, client: &str, key: &str) -> Result<Admitted> {
    let hash = key_hashes::of(key, |_| false);
    let mut waited = false;
    loop {
        let admitted = with(env, |g| {
            if g.good.contains(&hash) || g.failures.limit().per_second == 0 {
                return Ok(Some(Admitted {
                    took: false,
                    claimed: None,
                }));
            }
            let claimed = g.checking.claim(&hash, now());
            if !claimed && !waited {
                return Ok(None);
            }
            match g.failures.take(client, now()) {
                Ok(()) => Ok(Some(Admitted {
                    took: true,
                    claimed: claimed.then(|| hash.clone()),
                })),
                Err(mut refusal) => {
                    if claimed {
                        g.checking.release(&hash);
                    }
                    refusal.message = "Too many requests with an invalid API key from your address: retry after the given time".into();
                    Err(refusal)
                }
            }
        })?;
        if let Some(admitted) = admitted {
            return Ok(admitted);
        }
        // Once: a key that turned out bad, or a check that took too long, reserves as any.
        inflight::wait_until(CHECK_WAIT_MS, || {
            with(env, |g| {
                g.good.contains(&hash) || !g.checking.busy(&hash, now())
            })
        })
        .await;
        waited = true;
    }
}

/// Learns from an answer: an `invalid_api_key` keeps the request `admit` took (and a key
/// once good is good no more: it was revoked or expired); any other answer gives it back, and
/// one from the merchant's object (`checked`) marks the key good.
pub fn observe(
    env: &Env,
    client: &str,
    key: &str,
    admitted: Admitted,
    invalid_key: bool,
    checked: bool,
) {
    with(env, |g| {
        if let Some(hash) = &admitted.claimed {
            g.checking.release(hash);
        }
        if admitted.took && !invalid_key {
            g.failures.refund(client, now());
        }
        if invalid_key {
            let hash = key_hashes::of(key, |_| false);
            if g.good.remove(&hash) {
                g.good_order.retain(|h| *h != hash);
            }
        }
        if checked {
            let hash = key_hashes::of(key, |_| true);
            if g.good.insert(hash.clone()) {
                g.good_order.push_back(hash);
                if g.good_order.len() > MAX_GOOD_KEYS {
                    if let Some(old) = g.good_order.pop_front() {
                        g.good.remove(&old);
                    }
                }
            }
        }
    });
}
