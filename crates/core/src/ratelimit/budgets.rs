//! A merchant's request budgets, kept by its Durable Object (the one place all of its
//! requests pass) and charged once a request's credential checked. Fair by construction:
//!
//! - **the secret key** (the merchant's backend) has a budget of its own, which nothing else
//!   spends: a page full of public reads, or a holder's session, never makes the backend's
//!   requests fail;
//! - **public-key and session-token requests** are charged to their client's address (an
//!   IPv4 address, an IPv6 /64: [`super::client_address`]), each address its own budget, so
//!   one client flooding the public reads slows only itself;
//! - **a session token's requests** are charged to their session too, so a holder with a
//!   token cannot use more than a session's share from any number of addresses.
//!
//! Each refusal is a 429 `rate_limited` with `details.retryAfterSeconds` (the Retry-After
//! header) and `details.budget` (`secret`, `client` or `session`): which budget was spent.
//! A refused request takes nothing from any budget. Memory is bounded: at most
//! [`MAX_CLIENTS`] addresses and [`MAX_SESSIONS`] sessions (full buckets are forgotten first).

use super::{Bucket, Buckets, Limit};
use crate::error::{Error, ErrorCode, Result};
use crate::model::time::Millis;

/// Client addresses kept per merchant, at most.
pub const MAX_CLIENTS: usize = 4_096;
/// Sessions kept per merchant, at most.
pub const MAX_SESSIONS: usize = 4_096;

/// The three limits (each `Limit::off()` to turn it off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The secret key's, per merchant (`RATE_LIMIT_PER_SECOND`, `RATE_LIMIT_BURST`).
    pub secret: Limit,
    /// Public-key and session requests', per client address (`PUBLIC_RATE_LIMIT_*`).
    pub client: Limit,
    /// A session token's, per session (`SESSION_RATE_LIMIT_*`).
    pub session: Limit,
}

impl Limits {
    /// The defaults: the secret key 200 a second (bursts of 400); each client address 50 a
    /// second (bursts of 100); each session 10 a second (bursts of 30).
    pub const DEFAULT: Limits = Limits {
        secret: Limit {
            per_second: 200,
            burst: 400,
        },
        client: Limit {
            per_second: 50,
            burst: 100,
        },
        session: Limit {
            per_second: 10,
            burst: 30,
        },
    };
}

/// Who a request is, as the budgets see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who<'a> {
    Secret,
    /// A public-key request from `client` (its address, as `client_address` names it).
    Public {
        client: &'a str,
    },
    /// A session token's request: its session id, from `client`.
    Session {
        client: &'a str,
        session: &'a str,
    },
}

#[derive(Clone, Debug)]
pub struct Budgets {
    limits: Limits,
    secret: Bucket,
    clients: Buckets,
    sessions: Buckets,
}

fn refused(budget: &str, wait: u64) -> Error {
    let message = match budget {
        "secret" => "Too many requests with this merchant's secret key: slow down and retry after the given time",
        "client" => "Too many requests from your address: slow down and retry after the given time",
        _ => "Too many requests with this session token: slow down and retry after the given time",
    };
    Error::new(ErrorCode::RateLimited, message)
        .with("retryAfterSeconds", wait.max(1))
        .with("budget", budget)
}

impl Budgets {
    pub fn new(limits: Limits) -> Budgets {
        Budgets {
            limits,
            secret: Bucket::default(),
            clients: Buckets::new(limits.client, MAX_CLIENTS),
            sessions: Buckets::new(limits.session, MAX_SESSIONS),
        }
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Charges one request of `who` at `now`, or refuses it (changing nothing) with 429
    /// `rate_limited`, naming the budget that is spent.
    pub fn charge(&mut self, who: Who<'_>, now: Millis) -> Result<()> {
        match who {
            Who::Secret => self
                .secret
                .take(self.limits.secret, now)
                .map_err(|e| refused("secret", wait_of(&e))),
            Who::Public { client } => self.take_client(client, now),
            Who::Session { client, session } => {
                // Both must have room before either is charged: a refusal takes nothing.
                self.clients
                    .peek(client, now)
                    .map_err(|e| refused("client", wait_of(&e)))?;
                self.sessions
                    .peek(session, now)
                    .map_err(|e| refused("session", wait_of(&e)))?;
                self.take_client(client, now)?;
                self.sessions
                    .take(session, now)
                    .map_err(|e| refused("session", wait_of(&e)))
            }
        }
    }

    fn take_client(&mut self, client: &str, now: Millis) -> Result<()> {
        self.clients
            .take(client, now)
            .map_err(|e| refused("client", wait_of(&e)))
    }
}

/// The wait a bucket's refusal names.
fn wait_of(e: &Error) -> u64 {
    e.details
        .as_ref()
        .and_then(|d| d.get("retryAfterSeconds"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        secret: Limit {
            per_second: 1,
            burst: 5,
        },
        client: Limit {
            per_second: 1,
            burst: 3,
        },
        session: Limit {
            per_second: 1,
            burst: 2,
        },
    };

    fn budget_of(e: &Error) -> String {
        e.details.as_ref().unwrap()["budget"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn public_and_session_traffic_never_spends_the_secret_keys_budget() {
        let mut b = Budgets::new(LIMITS);
        let t = 1_000_000;
        // A flood of public reads from one address, and a session's requests from another.
        let mut refused = 0;
        for _ in 0..100 {
            if b.charge(Who::Public { client: "1.2.3.4" }, t).is_err() {
                refused += 1;
            }
            let _ = b.charge(
                Who::Session {
                    client: "5.6.7.8",
                    session: "s1",
                },
                t,
            );
        }
        assert_eq!(refused, 97, "the address's burst of 3 passed");
        // The backend's whole burst is still there.
        for _ in 0..5 {
            b.charge(Who::Secret, t).unwrap();
        }
        let e = b.charge(Who::Secret, t).unwrap_err();
        assert_eq!(
            (e.code, budget_of(&e)),
            (ErrorCode::RateLimited, "secret".into())
        );
        assert_eq!(e.details.as_ref().unwrap()["retryAfterSeconds"], 1);
    }

    #[test]
    fn each_client_and_each_session_has_its_own_budget() {
        let mut b = Budgets::new(LIMITS);
        let t = 0;
        for _ in 0..3 {
            b.charge(Who::Public { client: "a" }, t).unwrap();
        }
        let e = b.charge(Who::Public { client: "a" }, t).unwrap_err();
        assert_eq!(budget_of(&e), "client");
        b.charge(Who::Public { client: "b" }, t).unwrap();
        // A session's budget is smaller than its address's: it is refused first, and the
        // refusal takes nothing from the address.
        let s = |session| Who::Session {
            client: "c",
            session,
        };
        b.charge(s("s1"), t).unwrap();
        b.charge(s("s1"), t).unwrap();
        let e = b.charge(s("s1"), t).unwrap_err();
        assert_eq!(budget_of(&e), "session");
        // Another session from the same address has the address's last request.
        b.charge(s("s2"), t).unwrap();
        let e = b.charge(s("s2"), t).unwrap_err();
        assert_eq!(budget_of(&e), "client");
        assert_eq!(
            b.charge(Who::Public { client: "c" }, t).unwrap_err().code,
            ErrorCode::RateLimited
        );
        // Time refills each at its rate.
        b.charge(s("s1"), t + 1_000).unwrap();
        b.charge(Who::Public { client: "a" }, t + 1_000).unwrap();
    }

    #[test]
    fn off_is_off_and_clients_are_bounded() {
        let off = Limits {
            secret: Limit::off(),
            client: Limit::off(),
            session: Limit::off(),
        };
        let mut b = Budgets::new(off);
        for i in 0..10_000 {
            let name = format!("c{i}");
            b.charge(Who::Secret, 0).unwrap();
            b.charge(Who::Public { client: &name }, 0).unwrap();
            b.charge(
                Who::Session {
                    client: &name,
                    session: &name,
                },
                0,
            )
            .unwrap();
        }
        let mut b = Budgets::new(LIMITS);
        for i in 0..(MAX_CLIENTS + 100) {
            let _ = b.charge(
                Who::Public {
                    client: &format!("c{i}"),
                },
                0,
            );
        }
        assert!(b.clients.len() <= MAX_CLIENTS);
    }

    #[test]
    fn client_addresses_count_ipv6_per_64() {
        use super::super::client_address;
        assert_eq!(client_address(Some("203.0.113.9")), "203.0.113.9");
        assert_eq!(
            client_address(Some(" 2001:db8:1:2:3:4:5:6 ")),
            "2001:db8:1:2::/64"
        );
        assert_eq!(
            client_address(Some("2001:db8:1:2:ffff::1")),
            client_address(Some("2001:db8:1:2::9"))
        );
        assert_eq!(client_address(Some("::ffff:198.51.100.7")), "198.51.100.7");
        assert_eq!(client_address(Some("not an address")), "unknown");
        assert_eq!(client_address(None), "unknown");
    }
}
