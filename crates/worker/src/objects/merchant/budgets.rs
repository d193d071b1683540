//! The merchant's request budgets (`tokenpad_core::ratelimit::budgets`): the secret key's own,
//! one per client address for public-key and session requests, one per session. In memory,
//! because the object is the one place all of a merchant's requests pass (a restart forgives,
//! which is fine). Only requests whose credential checked are charged: strangers with forged
//! keys cannot spend a merchant's budget (the edge limits them per address, `edge/guard`).

use super::MerchantObject;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::ratelimit::budgets::{Limits, Who};
use tokenpad_core::ratelimit::Limit;
use tokenpad_core::Result;
use worker::Env;

/// The limits from the configuration, each `<NAME>_PER_SECOND` (0 turns it off) and
/// `<NAME>_BURST` (default twice the rate, three times for a session's): the secret key's
/// `RATE_LIMIT_*` (default 200), each client address's `PUBLIC_RATE_LIMIT_*` (default 50),
/// each session's `SESSION_RATE_LIMIT_*` (default 10).
pub(super) fn limits(env: &Env) -> Limits {
    let num =
        |name: &str| crate::config::string(env, name).and_then(|v| v.trim().parse::<u64>().ok());
    let limit = |prefix: &str, default: Limit| {
        let per_second = num(&format!("{prefix}_PER_SECOND")).unwrap_or(default.per_second);
        let ratio = default.burst / default.per_second.max(1);
        Limit {
            per_second,
            burst: num(&format!("{prefix}_BURST")).unwrap_or(per_second.saturating_mul(ratio)),
        }
    };
    let d = Limits::DEFAULT;
    Limits {
        secret: limit("RATE_LIMIT", d.secret),
        client: limit("PUBLIC_RATE_LIMIT", d.client),
        session: limit("SESSION_RATE_LIMIT", d.session),
    }
}

impl MerchantObject {
    /// Charges one request of `caller`, from the client address `client`, to its budget.
    pub(super) fn charge(&self, caller: &Caller, client: &str) -> Result<()> {
        let who = match caller {
            Caller::Secret => Who::Secret,
            Caller::Public => Who::Public { client },
            Caller::Session(s) => Who::Session {
                client,
                session: &s.id.0,
            },
        };
        self.callers
            .budgets
            .borrow_mut()
            .charge(who, crate::clock::now_ms())
    }
}
