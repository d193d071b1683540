//! The route table: which path and method is which operation, and what key it needs. Each
//! resource family declares its own rows (`token::ROUTES`, `ledger::ROUTES`, ...); the table
//! is their union, matched in any order (no two rows of one method match the same path, which
//! a test checks). Matching is pure, so the table is the single source for the edge, the
//! OpenAPI document, the server client and the tests.

use super::{
    account, admin, deployment, holder, hooks, keys, ledger, market, merchant, presale, session,
    token,
};
use crate::error::{Error, ErrorCode, Result};

pub use super::endpoint::{Access, Effect, Route, Row};
pub use super::parts::percent_decode;

impl Route {
    /// Whether the operation changes state, as its rows declare. A merchant
    /// route that writes takes an idempotency key, runs in a transaction and seals the events
    /// it wrote; the edge's own routes (admin, open) take no key either way. A route with no
    /// row (none today) counts as a write, the safe side.
    pub fn writes(self) -> bool {
        rows()
            .find(|row| row.2 == self)
            .is_none_or(|row| row.4 == Effect::Writes)
    }
}

/// A request's route, with its path parameters as sent (percent-encoded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    pub route: Route,
    pub access: Access,
    pub params: Vec<String>,
    /// The route's pattern (`/holder/:userId/spend`): what a log line names, never the path.
    pub pattern: &'static str,
}

use Access::{Open, Public};
use Effect::Reads;

/// The edge's own routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below and the edge's dispatch name them.
pub const INDEX: Route = Route::new("getIndex");
pub const HEALTH: Route = Route::new("getHealth");
pub const OPEN_API: Route = Route::new("getOpenApi");
pub const LIVE: Route = Route::new("live");

/// The routes the edge serves itself, open to anyone: the index, the health check, the
/// OpenAPI document and the live push channel (a WebSocket, served by the edge and the
/// merchant's object).
#[rustfmt::skip]
pub const EDGE: &[Row] = &[
    ("GET", "/", INDEX, Open, Reads),
    ("GET", "/health", HEALTH, Open, Reads),
    ("GET", "/openapi.json", OPEN_API, Open, Reads),
    ("GET", "/live", LIVE, Public, Reads),
];

/// Every family's rows.
pub const TABLE: &[&[Row]] = &[
    EDGE,
    admin::ROUTES,
    token::ROUTES,
    holder::ROUTES,
    ledger::ROUTES,
    presale::ROUTES,
    market::ROUTES,
    deployment::ROUTES,
    session::ROUTES,
    merchant::ROUTES,
    keys::ROUTES,
    hooks::ROUTES,
    account::ROUTES,
];

/// Every row of the table.
pub fn rows() -> impl Iterator<Item = &'static Row> {
    TABLE.iter().flat_map(|rows| rows.iter())
}

/// The route named `operation_id` (as [`Route::operation_id`] gives it): how a merchant's
/// object reads the route of a request the edge matched (`hop::ApiRequest`).
pub fn by_operation_id(operation_id: &str) -> Option<Route> {
    rows()
        .map(|(_, _, route, _, _)| *route)
        .find(|route| route.operation_id() == operation_id)
}

fn segments(path: &str) -> Vec<&str> {
    path.trim_end_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect()
}

/// The path's parameters when it matches `pattern`. Walks the pattern's segments as it goes
/// (no list of them per pattern tried: every request tries the table's patterns in turn).
fn matches(pattern: &str, path: &[&str]) -> Option<Vec<String>> {
    let mut pat = pattern.split('/').filter(|s| !s.is_empty());
    let mut params = Vec::new();
    for s in path {
        let p = pat.next()?;
        if p.starts_with(':') {
            params.push((*s).to_string());
        } else if p != *s {
            return None;
        }
    }
    pat.next().is_none().then_some(params)
}

/// Finds the route. Unknown path: 404 `not_found`; known path, other method: 405.
/// `OPTIONS` is answered by the edge before this.
pub fn route(method: &str, path: &str) -> Result<Matched> {
    let segs = segments(path);
    let mut path_known = false;
    for (m, pattern, route, access, _) in rows() {
        if let Some(params) = matches(pattern, &segs) {
            if *m == method || (method == "HEAD" && *m == "GET") {
                return Ok(Matched {
                    route: *route,
                    access: *access,
                    params,
                    pattern,
                });
            }
            path_known = true;
        }
    }
    if path_known {
        Err(Error::new(
            ErrorCode::MethodNotAllowed,
            // The path is not echoed: it is the caller's text (it could carry a secret the
            // edge did not recognise as one), and the caller knows it.
            format!("{method} is not allowed on this path"),
        ))
    } else {
        Err(Error::new(
            ErrorCode::NotFound,
            "No route matches this path",
        ))
    }
}

/// The methods `path` answers, for a 405's `Allow` header: its routes' methods, HEAD with GET,
/// and OPTIONS where the path answers CORS preflights. Empty for an unknown path.
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    let segs = segments(path);
    let mut methods: Vec<&'static str> = Vec::new();
    for (m, pattern, _, _, _) in rows() {
        if matches(pattern, &segs).is_some() {
            methods.push(m);
            if *m == "GET" {
                methods.push("HEAD");
            }
        }
    }
    if !methods.is_empty() && is_public_path(path) {
        methods.push("OPTIONS");
    }
    const ORDER: [&str; 7] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    methods.sort_by_key(|m| ORDER.iter().position(|o| o == m));
    methods.dedup();
    methods
}

/// Whether any route at this path is called from browsers (public-key reads, session-token
/// routes), and so answers CORS and its preflights.
pub fn is_public_path(path: &str) -> bool {
    let segs = segments(path);
    rows().any(|(_, pattern, _, access, _)| {
        matches!(access, Access::Public | Access::Open | Access::Holder)
            && matches(pattern, &segs).is_some()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn no_two_rows_of_one_method_match_the_same_path() {
        let all: Vec<&Row> = rows().collect();
        for (i, a) in all.iter().enumerate() {
            for b in all.iter().skip(i + 1) {
                let (sa, sb) = (segments(a.1), segments(b.1));
                let overlap = a.0 == b.0
                    && sa.len() == sb.len()
                    && sa
                        .iter()
                        .zip(&sb)
                        .all(|(x, y)| x == y || x.starts_with(':') || y.starts_with(':'));
                assert!(!overlap, "{} {} and {} {} overlap", a.0, a.1, b.0, b.1);
            }
        }
        assert_eq!(all.len(), 87);
    }

    #[test]
    fn each_row_names_its_own_operation() {
        // A route is its operationId: one row each, as openapi.json's operations are unique.
        let mut seen = std::collections::BTreeSet::new();
        for (m, pattern, route, _, effect) in rows() {
            assert!(
                seen.insert(route.operation_id()),
                "{m} {pattern}: {} names another row too",
                route.operation_id()
            );
            assert_eq!(*effect == Effect::Writes, route.writes(), "{m} {pattern}");
            // The object finds each route again by its name (`by_operation_id`).
            assert_eq!(by_operation_id(route.operation_id()), Some(*route));
        }
        assert_eq!(by_operation_id("noSuchOperation"), None);
        // Writing by HTTP's meaning: every POST, PUT, PATCH and DELETE writes, but for the
        // deployment status reads the interface also answers on POST.
        for (m, pattern, route, _, _) in rows() {
            let status = matches!(
                *route,
                deployment::MEMECOIN_STATUS_POST | deployment::AIRDROP_STATUS_POST
            );
            if !status {
                assert_eq!(route.writes(), *m != "GET", "{m} {pattern}");
            }
        }
    }

    #[test]
    fn routes_match_methods_and_params() {
        let m = route("GET", "/holder/alice%20b/token/0xabc").unwrap();
        assert_eq!(m.route, holder::HOLDER_TOKEN);
        assert_eq!(m.params, vec!["alice%20b", "0xabc"]);
        assert_eq!(
            route("DELETE", "/holder/x").unwrap_err().code,
            ErrorCode::MethodNotAllowed
        );
        assert_eq!(route("GET", "/nope").unwrap_err().code, ErrorCode::NotFound);
        // A path one segment short of a pattern, or one longer, is not that pattern.
        for path in [
            "/holder/a/token",
            "/holder/a/token/0xabc/more",
            "/holder/a/b/c/d/e",
        ] {
            assert_eq!(
                route("GET", path).unwrap_err().code,
                ErrorCode::NotFound,
                "{path}"
            );
        }
        assert_eq!(
            route("GET", "//holder//a/").unwrap().route,
            holder::GET_HOLDER
        );
        assert_eq!(route("HEAD", "/health").unwrap().route, HEALTH);
        // What a 405's Allow header lists.
        assert_eq!(
            allowed_methods("/holder/x"),
            ["GET", "HEAD", "PUT", "OPTIONS"]
        );
        assert_eq!(allowed_methods("/merchant/all-tokens"), ["GET", "HEAD"]);
        assert_eq!(
            allowed_methods("/merchant/webhooks/wh_1"),
            ["GET", "HEAD", "PATCH", "DELETE"]
        );
        assert!(allowed_methods("/nope").is_empty());
        assert!(is_public_path("/token/0xabc"));
        assert!(!is_public_path("/merchant/all-tokens"));
        assert!(is_public_path("/holder/alice/buy-presale"));
        assert!(!is_public_path("/holder/alice/session"));
        assert_eq!(
            route("DELETE", "/holder/a/sessions").unwrap().route,
            session::REVOKE_SESSIONS
        );
    }

    #[test]
    fn percent_decoding_is_strict() {
        assert_eq!(percent_decode("a%20b").as_deref(), Some("a b"));
        assert_eq!(percent_decode("%E3%83%A6").as_deref(), Some("ユ"));
        assert_eq!(percent_decode("%00").as_deref(), Some("\u{0}"));
        assert_eq!(percent_decode("%ff%fe"), None);
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("abc%2"), None);
    }
}
