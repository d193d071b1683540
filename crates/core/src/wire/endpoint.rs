//! What an endpoint is declared with: its [`Route`], who may call it ([`Access`]), whether it
//! writes ([`Effect`]), and the [`Row`] that puts them on a method and a path (with the
//! operation's name in the OpenAPI document). Each resource
//! family declares its rows in its own module (`token::ROUTES`, `ledger::ROUTES`, ...), next to
//! its operation and its answers; `routes` gathers them into the table the edge matches.

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

/// What a route does. Merchant routes decode into a typed `op::Op`; the others are served by
/// the edge itself.
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

/// What a route's operation does to the merchant's state, declared once on its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// It writes nothing (not even a session's charge, which only moving operations take).
    Reads,
    /// It changes state.
    Writes,
}

/// Method, path pattern (`:name` is a parameter), route, access, whether it writes, and its
/// `operationId` in `openapi.json` (which `codegen` checks).
pub type Row = (
    &'static str,
    &'static str,
    Route,
    Access,
    Effect,
    &'static str,
);
