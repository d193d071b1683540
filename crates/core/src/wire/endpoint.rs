//! What an endpoint is declared with: its [`Route`] (the operation's name in the OpenAPI
//! document), who may call it ([`Access`]), whether it writes ([`Effect`]), and the [`Row`]
//! that puts them on a method and a path. Each resource
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
    /// The account API (`/account/...`): browser-only and same-origin, no API key; a login
    /// cookie where the route needs one (`wire::account::needs_login`), an Origin check on
    /// every POST, no CORS.
    Account,
}

/// Which route a request matched: named by its operation's `operationId` in openapi.json,
/// unique across the table (a test checks). Each family declares its routes as constants
/// beside its rows (`ledger::SPEND`), and its decoding, its operations' `route()` and the edge
/// match them as patterns, so adding a route touches its family's file alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Route(&'static str);

impl Route {
    pub const fn new(operation_id: &'static str) -> Route {
        Route(operation_id)
    }

    /// Its `operationId` in openapi.json.
    pub fn operation_id(self) -> &'static str {
        self.0
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

/// Method, path pattern (`:name` is a parameter), route (its `operationId` in `openapi.json`,
/// which `codegen` checks), access, and whether it writes.
pub type Row = (&'static str, &'static str, Route, Access, Effect);
