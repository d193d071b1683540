//! The route table: which path and method is which operation, and what key it needs.
//! Matching is pure, so the table is the single source for the edge, the OpenAPI check and
//! the tests.

use crate::error::{Error, ErrorCode, Result};

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No key (health, the OpenAPI document, the index, the deployment overview page).
    Open,
    /// `x-admin-key` matching ADMIN_API_KEY.
    Admin,
    /// A merchant secret key in `x-api-key`.
    Secret,
    /// A public key (`publicKey` query or `x-api-key: pk_...`), or a secret key in the header.
    /// A session token is accepted too (holder reads only for its own holder).
    Public,
    /// A secret key, or a session token of the holder with the scope the operation needs
    /// (`crate::wire::session`). Answers CORS, like public routes, since browsers call it.
    Holder,
}

/// What a route does. Merchant routes decode into a typed [`super::op::Op`]; the others are
/// served by the edge itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Index,
    Health,
    OpenApi,
    DeploymentPage,
    AdminCreateMerchant,
    AdminTimeAdvance,
    AdminTime,
    AdminFaucet,
    AdminChainFaults,
    AdminChain,
    AdminReconcile,
    AdminFaults,
    CreateToken,
    Job,
    PatchToken,
    Token,
    AllTokens,
    PutHolder,
    GetHolder,
    HolderToken,
    Distribute,
    Spend,
    Transfer,
    Withdraw,
    History,
    CreateMemecoin,
    CreateAirdrop,
    MemecoinStatus,
    AirdropStatus,
    CreatePresale,
    ListPresales,
    MerchantPresale,
    PublicPresale,
    BuyPresale,
    ResolvePresale,
    CreateLiquidity,
    Reward,
    Buy,
    Sell,
    BuyQuote,
    SellQuote,
    /// The live push channel (a WebSocket, served by the edge and the merchant's object).
    Live,
    ParkedWork,
    Events,
    Event,
    CreateWebhook,
    ListWebhooks,
    GetWebhook,
    UpdateWebhook,
    DeleteWebhook,
    TestWebhook,
    Deliveries,
    ReplayDelivery,
    CreateSession,
    RevokeSessions,
    CurrentSession,
    Settings,
    PatchSettings,
}

impl Route {
    /// Whether the operation changes state, as its rows in [`TABLE`] declare. A merchant
    /// route that writes takes an idempotency key, runs in a transaction and seals the events
    /// it wrote; the edge's own routes (admin, open) take no key either way. A route with no
    /// row (none today) counts as a write, the safe side.
    pub fn writes(self) -> bool {
        TABLE
            .iter()
            .find(|row| row.2 == self)
            .is_none_or(|row| row.4 == Effect::Writes)
    }
}

/// What a route's operation does to the merchant's state, declared once on its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// It writes nothing (not even a session's charge, which only moving operations take).
    Reads,
    /// It changes state.
    Writes,
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

type Row = (&'static str, &'static str, Route, Access, Effect);

use Access::{Admin, Holder, Open, Public, Secret};
use Effect::{Reads, Writes};

/// Method, path pattern (`:name` is a parameter), route, access, and whether it writes.
#[rustfmt::skip]
pub const TABLE: &[Row] = &[
    ("GET", "/", Route::Index, Open, Reads),
    ("GET", "/health", Route::Health, Open, Reads),
    ("GET", "/openapi.json", Route::OpenApi, Open, Reads),
    ("POST", "/admin/merchants", Route::AdminCreateMerchant, Admin, Writes),
    ("POST", "/admin/time/advance", Route::AdminTimeAdvance, Admin, Writes),
    ("POST", "/admin/faucet", Route::AdminFaucet, Admin, Writes),
    ("GET", "/admin/time", Route::AdminTime, Admin, Reads),
    ("POST", "/admin/chain/faults", Route::AdminChainFaults, Admin, Writes),
    ("POST", "/admin/faults", Route::AdminFaults, Admin, Writes),
    ("GET", "/admin/merchants/:merchantId/chain", Route::AdminChain, Admin, Reads),
    ("GET", "/admin/merchants/:merchantId/reconcile", Route::AdminReconcile, Admin, Reads),
    ("GET", "/merchant/parked-work", Route::ParkedWork, Secret, Reads),
    ("GET", "/merchant/events", Route::Events, Secret, Reads),
    ("GET", "/merchant/events/:eventId", Route::Event, Secret, Reads),
    ("POST", "/merchant/webhooks", Route::CreateWebhook, Secret, Writes),
    ("GET", "/merchant/webhooks", Route::ListWebhooks, Secret, Reads),
    ("GET", "/merchant/webhooks/:webhookId", Route::GetWebhook, Secret, Reads),
    ("PATCH", "/merchant/webhooks/:webhookId", Route::UpdateWebhook, Secret, Writes),
    ("DELETE", "/merchant/webhooks/:webhookId", Route::DeleteWebhook, Secret, Writes),
    ("POST", "/merchant/webhooks/:webhookId/test", Route::TestWebhook, Secret, Writes),
    ("GET", "/merchant/webhooks/:webhookId/deliveries", Route::Deliveries, Secret, Reads),
    ("POST", "/merchant/webhooks/:webhookId/deliveries/:deliveryId/replay", Route::ReplayDelivery, Secret, Writes),
    ("POST", "/merchant/presale", Route::CreatePresale, Secret, Writes),
    ("GET", "/merchant/presales", Route::ListPresales, Secret, Reads),
    ("POST", "/merchant/presale/resolve", Route::ResolvePresale, Secret, Writes),
    ("POST", "/resolve-presale", Route::ResolvePresale, Secret, Writes),
    ("GET", "/merchant/presale/:presaleId", Route::MerchantPresale, Secret, Reads),
    ("GET", "/token/presales/:presaleId", Route::PublicPresale, Public, Reads),
    ("POST", "/holder/:userId/buy-presale", Route::BuyPresale, Holder, Writes),
    ("POST", "/merchant/create-token", Route::CreateToken, Secret, Writes),
    ("GET", "/merchant/create-token/status/:jobId", Route::Job, Secret, Reads),
    ("GET", "/jobs/:jobId", Route::Job, Secret, Reads),
    ("PATCH", "/merchant/token/:tokenAddress", Route::PatchToken, Secret, Writes),
    ("GET", "/merchant/all-tokens", Route::AllTokens, Secret, Reads),
    ("GET", "/token/:tokenAddress", Route::Token, Public, Reads),
    ("POST", "/token/:tokenAddress/distribute", Route::Distribute, Secret, Writes),
    ("POST", "/token/:tokenAddress/reward", Route::Reward, Secret, Writes),
    ("POST", "/token/:tokenAddress/liquidity", Route::CreateLiquidity, Secret, Writes),
    ("PUT", "/holder/:userId", Route::PutHolder, Secret, Writes),
    ("GET", "/holder/:userId", Route::GetHolder, Public, Reads),
    ("GET", "/holder/:holder/token/:tokenAddress", Route::HolderToken, Public, Reads),
    ("POST", "/holder/:userId/spend", Route::Spend, Holder, Writes),
    ("POST", "/holder/:userId/transfer", Route::Transfer, Holder, Writes),
    ("POST", "/holder/:userId/withdraw", Route::Withdraw, Secret, Writes),
    ("GET", "/holder/:userId/transactions", Route::History, Holder, Reads),
    ("POST", "/holder/:userId/buy", Route::Buy, Secret, Writes),
    ("POST", "/holder/:userId/sell", Route::Sell, Secret, Writes),
    ("GET", "/holder/:userId/buy/quote", Route::BuyQuote, Secret, Reads),
    ("GET", "/holder/:userId/sell/quote", Route::SellQuote, Secret, Reads),
    ("POST", "/template/memecoin", Route::CreateMemecoin, Secret, Writes),
    ("POST", "/template/airdrop", Route::CreateAirdrop, Secret, Writes),
    ("GET", "/template/memecoin/status/:id", Route::MemecoinStatus, Secret, Reads),
    ("GET", "/memecoin/status", Route::MemecoinStatus, Secret, Reads),
    ("POST", "/memecoin/status", Route::MemecoinStatus, Secret, Reads),
    ("GET", "/template/airdrop/status/:id", Route::AirdropStatus, Secret, Reads),
    ("GET", "/airdrop/status", Route::AirdropStatus, Secret, Reads),
    ("POST", "/airdrop/status", Route::AirdropStatus, Secret, Reads),
    ("GET", "/deployments/:id", Route::DeploymentPage, Open, Reads),
    ("GET", "/live", Route::Live, Public, Reads),
    ("POST", "/holder/:userId/session", Route::CreateSession, Secret, Writes),
    ("DELETE", "/holder/:userId/sessions", Route::RevokeSessions, Secret, Writes),
    ("GET", "/session", Route::CurrentSession, Holder, Reads),
    ("GET", "/merchant/settings", Route::Settings, Secret, Reads),
    ("PATCH", "/merchant/settings", Route::PatchSettings, Secret, Writes),
];

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
    for (m, pattern, route, access, _) in TABLE {
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
    for (m, pattern, _, _, _) in TABLE {
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
    TABLE.iter().any(|(_, pattern, _, access, _)| {
        matches!(access, Access::Public | Access::Open | Access::Holder)
            && matches(pattern, &segs).is_some()
    })
}

/// Decodes a path segment's %XX escapes strictly: a malformed escape or bytes that are not
/// UTF-8 are refused (None), never passed on as the undecoded text.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
        }
    }
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(|c| c.into_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_of_a_route_agree_on_what_it_does() {
        for (m, pattern, route, _, effect) in TABLE {
            assert_eq!(
                *effect == Effect::Writes,
                route.writes(),
                "{m} {pattern}: its route's rows disagree on whether it writes"
            );
        }
        // Writing by HTTP's meaning: every POST, PUT, PATCH and DELETE writes, but for the
        // deployment status reads the interface also answers on POST.
        for (m, pattern, route, _, _) in TABLE {
            let status = matches!(route, Route::MemecoinStatus | Route::AirdropStatus);
            if !status {
                assert_eq!(route.writes(), *m != "GET", "{m} {pattern}");
            }
        }
    }

    #[test]
    fn routes_match_methods_and_params() {
        let m = route("GET", "/holder/alice%20b/token/0xabc").unwrap();
        assert_eq!(m.route, Route::HolderToken);
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
            Route::GetHolder
        );
        assert_eq!(route("HEAD", "/health").unwrap().route, Route::Health);
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
            Route::RevokeSessions
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
