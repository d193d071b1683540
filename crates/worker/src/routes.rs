//! The route table: which path and method is which operation, and what key it needs.
//! Matching is pure, so the table is the single source for the edge and the tests.

use tokenpad_core::{Error, ErrorCode};

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No key (health, the OpenAPI document, the demo frontend).
    Open,
    /// `x-admin-key` matching ADMIN_API_KEY.
    Admin,
    /// A merchant secret key in `x-api-key`.
    Secret,
    /// A public key (`publicKey` query or `x-api-key: pk_...`), or a secret key in the header.
    Public,
}

/// Operations the merchant Durable Object runs, by name (they cross the edge/object hop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Index,
    Health,
    OpenApi,
    AdminCreateMerchant,
    AdminTimeAdvance,
    AdminFaucet,
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
    DeploymentPage,
    CreatePresale,
    ListPresales,
    MerchantPresale,
    PublicPresale,
    BuyPresale,
    ResolvePresale,
    AdminChainFaults,
    AdminTime,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Index => "index",
            Op::Health => "health",
            Op::OpenApi => "openapi",
            Op::AdminCreateMerchant => "admin_create_merchant",
            Op::AdminTimeAdvance => "admin_time_advance",
            Op::AdminFaucet => "faucet",
            Op::CreateToken => "create_token",
            Op::Job => "job",
            Op::PatchToken => "patch_token",
            Op::Token => "token",
            Op::AllTokens => "all_tokens",
            Op::PutHolder => "put_holder",
            Op::GetHolder => "get_holder",
            Op::HolderToken => "holder_token",
            Op::Distribute => "distribute",
            Op::Spend => "spend",
            Op::Transfer => "transfer",
            Op::Withdraw => "withdraw",
            Op::History => "history",
            Op::CreateMemecoin => "create_memecoin",
            Op::CreateAirdrop => "create_airdrop",
            Op::MemecoinStatus => "memecoin_status",
            Op::AirdropStatus => "airdrop_status",
            Op::DeploymentPage => "deployment_page",
            Op::CreatePresale => "create_presale",
            Op::ListPresales => "list_presales",
            Op::MerchantPresale => "merchant_presale",
            Op::PublicPresale => "public_presale",
            Op::BuyPresale => "buy_presale",
            Op::ResolvePresale => "resolve_presale",
            Op::AdminChainFaults => "chain_faults",
            Op::AdminTime => "admin_time",
        }
    }

    /// Whether the operation changes state (so it takes an idempotency key).
    pub fn mutates(self) -> bool {
        matches!(
            self,
            Op::CreateToken
                | Op::PatchToken
                | Op::PutHolder
                | Op::Distribute
                | Op::Spend
                | Op::Transfer
                | Op::Withdraw
                | Op::CreateMemecoin
                | Op::CreateAirdrop
                | Op::CreatePresale
                | Op::BuyPresale
                | Op::ResolvePresale
        )
    }
}

pub struct Matched {
    pub op: Op,
    pub access: Access,
    /// Path parameters in order, percent-decoded.
    pub params: Vec<String>,
}

type Row = (&'static str, &'static str, Op, Access);

/// Method, path pattern (`:name` is a parameter), operation, access.
const TABLE: &[Row] = &[
    ("GET", "/", Op::Index, Access::Open),
    ("GET", "/health", Op::Health, Access::Open),
    ("GET", "/openapi.json", Op::OpenApi, Access::Open),
    (
        "POST",
        "/admin/merchants",
        Op::AdminCreateMerchant,
        Access::Admin,
    ),
    (
        "POST",
        "/admin/time/advance",
        Op::AdminTimeAdvance,
        Access::Admin,
    ),
    ("POST", "/admin/faucet", Op::AdminFaucet, Access::Admin),
    ("GET", "/admin/time", Op::AdminTime, Access::Admin),
    (
        "POST",
        "/admin/chain/faults",
        Op::AdminChainFaults,
        Access::Admin,
    ),
    (
        "POST",
        "/merchant/presale",
        Op::CreatePresale,
        Access::Secret,
    ),
    (
        "GET",
        "/merchant/presales",
        Op::ListPresales,
        Access::Secret,
    ),
    (
        "POST",
        "/merchant/presale/resolve",
        Op::ResolvePresale,
        Access::Secret,
    ),
    (
        "POST",
        "/resolve-presale",
        Op::ResolvePresale,
        Access::Secret,
    ),
    (
        "GET",
        "/merchant/presale/:presaleId",
        Op::MerchantPresale,
        Access::Secret,
    ),
    (
        "GET",
        "/token/presales/:presaleId",
        Op::PublicPresale,
        Access::Public,
    ),
    (
        "POST",
        "/holder/:userId/buy-presale",
        Op::BuyPresale,
        Access::Secret,
    ),
    (
        "POST",
        "/merchant/create-token",
        Op::CreateToken,
        Access::Secret,
    ),
    (
        "GET",
        "/merchant/create-token/status/:jobId",
        Op::Job,
        Access::Secret,
    ),
    ("GET", "/jobs/:jobId", Op::Job, Access::Secret),
    (
        "PATCH",
        "/merchant/token/:tokenAddress",
        Op::PatchToken,
        Access::Secret,
    ),
    ("GET", "/merchant/all-tokens", Op::AllTokens, Access::Secret),
    ("GET", "/token/:tokenAddress", Op::Token, Access::Public),
    (
        "POST",
        "/token/:tokenAddress/distribute",
        Op::Distribute,
        Access::Secret,
    ),
    ("PUT", "/holder/:userId", Op::PutHolder, Access::Secret),
    ("GET", "/holder/:userId", Op::GetHolder, Access::Public),
    (
        "GET",
        "/holder/:holder/token/:tokenAddress",
        Op::HolderToken,
        Access::Public,
    ),
    ("POST", "/holder/:userId/spend", Op::Spend, Access::Secret),
    (
        "POST",
        "/holder/:userId/transfer",
        Op::Transfer,
        Access::Secret,
    ),
    (
        "POST",
        "/holder/:userId/withdraw",
        Op::Withdraw,
        Access::Secret,
    ),
    (
        "GET",
        "/holder/:userId/transactions",
        Op::History,
        Access::Secret,
    ),
    (
        "POST",
        "/template/memecoin",
        Op::CreateMemecoin,
        Access::Secret,
    ),
    (
        "POST",
        "/template/airdrop",
        Op::CreateAirdrop,
        Access::Secret,
    ),
    (
        "GET",
        "/template/memecoin/status/:id",
        Op::MemecoinStatus,
        Access::Secret,
    ),
    (
        "GET",
        "/memecoin/status",
        Op::MemecoinStatus,
        Access::Secret,
    ),
    (
        "POST",
        "/memecoin/status",
        Op::MemecoinStatus,
        Access::Secret,
    ),
    (
        "GET",
        "/template/airdrop/status/:id",
        Op::AirdropStatus,
        Access::Secret,
    ),
    ("GET", "/airdrop/status", Op::AirdropStatus, Access::Secret),
    ("POST", "/airdrop/status", Op::AirdropStatus, Access::Secret),
    ("GET", "/deployments/:id", Op::DeploymentPage, Access::Open),
];

fn segments(path: &str) -> Vec<&str> {
    path.trim_end_matches('/')
        .split('/')
        .filter(|s| !s.is_empty())
        .collect()
}

fn matches(pattern: &str, path: &[&str]) -> Option<Vec<String>> {
    let pat = segments(pattern);
    if pat.len() != path.len() {
        return None;
    }
    let mut params = Vec::new();
    for (p, s) in pat.iter().zip(path) {
        if p.starts_with(':') {
            params.push(percent_decode(s).unwrap_or_else(|| (*s).to_string()));
        } else if p != s {
            return None;
        }
    }
    Some(params)
}

/// Finds the route. Unknown path: 404 `not_found`; known path, other method: 405.
/// `OPTIONS` is answered by the edge before this.
pub fn route(method: &str, path: &str) -> Result<Matched, Error> {
    let segs = segments(path);
    let mut path_known = false;
    for (m, pattern, op, access) in TABLE {
        if let Some(params) = matches(pattern, &segs) {
            if *m == method || (method == "HEAD" && *m == "GET") {
                return Ok(Matched {
                    op: *op,
                    access: *access,
                    params,
                });
            }
            path_known = true;
        }
    }
    if path_known {
        Err(Error::new(
            ErrorCode::MethodNotAllowed,
            format!("{method} is not allowed on {path}"),
        ))
    } else {
        Err(Error::new(
            ErrorCode::NotFound,
            format!("No route for {path}"),
        ))
    }
}

/// Whether any route at this path answers public-key reads (and so CORS preflights).
pub fn is_public_path(path: &str) -> bool {
    let segs = segments(path);
    TABLE.iter().any(|(_, pattern, _, access)| {
        matches!(access, Access::Public | Access::Open) && matches(pattern, &segs).is_some()
    })
}

/// Decodes %XX escapes (UTF-8). None for a malformed escape or invalid UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'%') => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            Some(b) => {
                out.push(*b);
                i += 1;
            }
            None => break,
        }
    }
    String::from_utf8(out).ok()
}
