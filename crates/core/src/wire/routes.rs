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
    /// Whether the operation changes state (so it takes an idempotency key).
    pub fn mutates(self) -> bool {
        matches!(
            self,
            Route::CreateToken
                | Route::PatchToken
                | Route::PutHolder
                | Route::Distribute
                | Route::Spend
                | Route::Transfer
                | Route::Withdraw
                | Route::CreateMemecoin
                | Route::CreateAirdrop
                | Route::CreatePresale
                | Route::BuyPresale
                | Route::ResolvePresale
                | Route::CreateLiquidity
                | Route::Reward
                | Route::Buy
                | Route::Sell
                | Route::CreateWebhook
                | Route::UpdateWebhook
                | Route::DeleteWebhook
                | Route::TestWebhook
                | Route::ReplayDelivery
                | Route::CreateSession
                | Route::RevokeSessions
                | Route::PatchSettings
        )
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

type Row = (&'static str, &'static str, Route, Access);

use Access::{Admin, Holder, Open, Public, Secret};

/// Method, path pattern (`:name` is a parameter), route, access.
#[rustfmt::skip]
pub const TABLE: &[Row] = &[
    ("GET", "/", Route::Index, Open),
    ("GET", "/health", Route::Health, Open),
    ("GET", "/openapi.json", Route::OpenApi, Open),
    ("POST", "/admin/merchants", Route::AdminCreateMerchant, Admin),
    ("POST", "/admin/time/advance", Route::AdminTimeAdvance, Admin),
    ("POST", "/admin/faucet", Route::AdminFaucet, Admin),
    ("GET", "/admin/time", Route::AdminTime, Admin),
    ("POST", "/admin/chain/faults", Route::AdminChainFaults, Admin),
    ("POST", "/admin/faults", Route::AdminFaults, Admin),
    ("GET", "/admin/merchants/:merchantId/chain", Route::AdminChain, Admin),
    ("GET", "/admin/merchants/:merchantId/reconcile", Route::AdminReconcile, Admin),
    ("GET", "/merchant/parked-work", Route::ParkedWork, Secret),
    ("GET", "/merchant/events", Route::Events, Secret),
    ("GET", "/merchant/events/:eventId", Route::Event, Secret),
    ("POST", "/merchant/webhooks", Route::CreateWebhook, Secret),
    ("GET", "/merchant/webhooks", Route::ListWebhooks, Secret),
    ("GET", "/merchant/webhooks/:webhookId", Route::GetWebhook, Secret),
    ("PATCH", "/merchant/webhooks/:webhookId", Route::UpdateWebhook, Secret),
    ("DELETE", "/merchant/webhooks/:webhookId", Route::DeleteWebhook, Secret),
    ("POST", "/merchant/webhooks/:webhookId/test", Route::TestWebhook, Secret),
    ("GET", "/merchant/webhooks/:webhookId/deliveries", Route::Deliveries, Secret),
    ("POST", "/merchant/webhooks/:webhookId/deliveries/:deliveryId/replay", Route::ReplayDelivery, Secret),
    ("POST", "/merchant/presale", Route::CreatePresale, Secret),
    ("GET", "/merchant/presales", Route::ListPresales, Secret),
    ("POST", "/merchant/presale/resolve", Route::ResolvePresale, Secret),
    ("POST", "/resolve-presale", Route::ResolvePresale, Secret),
    ("GET", "/merchant/presale/:presaleId", Route::MerchantPresale, Secret),
    ("GET", "/token/presales/:presaleId", Route::PublicPresale, Public),
    ("POST", "/holder/:userId/buy-presale", Route::BuyPresale, Holder),
    ("POST", "/merchant/create-token", Route::CreateToken, Secret),
    ("GET", "/merchant/create-token/status/:jobId", Route::Job, Secret),
    ("GET", "/jobs/:jobId", Route::Job, Secret),
    ("PATCH", "/merchant/token/:tokenAddress", Route::PatchToken, Secret),
    ("GET", "/merchant/all-tokens", Route::AllTokens, Secret),
    ("GET", "/token/:tokenAddress", Route::Token, Public),
    ("POST", "/token/:tokenAddress/distribute", Route::Distribute, Secret),
    ("POST", "/token/:tokenAddress/reward", Route::Reward, Secret),
    ("POST", "/token/:tokenAddress/liquidity", Route::CreateLiquidity, Secret),
    ("PUT", "/holder/:userId", Route::PutHolder, Secret),
    ("GET", "/holder/:userId", Route::GetHolder, Public),
    ("GET", "/holder/:holder/token/:tokenAddress", Route::HolderToken, Public),
    ("POST", "/holder/:userId/spend", Route::Spend, Holder),
    ("POST", "/holder/:userId/transfer", Route::Transfer, Holder),
    ("POST", "/holder/:userId/withdraw", Route::Withdraw, Secret),
    ("GET", "/holder/:userId/transactions", Route::History, Holder),
    ("POST", "/holder/:userId/buy", Route::Buy, Secret),
    ("POST", "/holder/:userId/sell", Route::Sell, Secret),
    ("GET", "/holder/:userId/buy/quote", Route::BuyQuote, Secret),
    ("GET", "/holder/:userId/sell/quote", Route::SellQuote, Secret),
    ("POST", "/template/memecoin", Route::CreateMemecoin, Secret),
    ("POST", "/template/airdrop", Route::CreateAirdrop, Secret),
    ("GET", "/template/memecoin/status/:id", Route::MemecoinStatus, Secret),
    ("GET", "/memecoin/status", Route::MemecoinStatus, Secret),
    ("POST", "/memecoin/status", Route::MemecoinStatus, Secret),
    ("GET", "/template/airdrop/status/:id", Route::AirdropStatus, Secret),
    ("GET", "/airdrop/status", Route::AirdropStatus, Secret),
    ("POST", "/airdrop/status", Route::AirdropStatus, Secret),
    ("GET", "/deployments/:id", Route::DeploymentPage, Open),
    ("GET", "/live", Route::Live, Public),
    ("POST", "/holder/:userId/session", Route::CreateSession, Secret),
    ("DELETE", "/holder/:userId/sessions", Route::RevokeSessions, Secret),
    ("GET", "/session", Route::CurrentSession, Holder),
    ("GET", "/merchant/settings", Route::Settings, Secret),
    ("PATCH", "/merchant/settings", Route::PatchSettings, Secret),
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
    for (m, pattern, route, access) in TABLE {
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
    for (m, pattern, _, _) in TABLE {
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
    TABLE.iter().any(|(_, pattern, _, access)| {
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
