//! A request's credential, as the edge and the merchant's object read it alike: from its
//! headers (`x-api-key`, `Authorization: Bearer`), or from a WebSocket upgrade.

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A request's credential: an API key (`sk_...`, `pk_...`, the dashboard's `dt_...`) or a
/// holder's session token.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Credential {
    Key(String),
    Session(String),
}

impl Credential {
    pub fn text(&self) -> &str {
        match self {
            Credential::Key(t) | Credential::Session(t) => t,
        }
    }

    /// The credential of a WebSocket upgrade (`GET /live`), read alike by the edge (to route
    /// it) and by the merchant's object (to check it). A key in `x-api-key` (a server) wins;
    /// then a holder's session token, offered by a browser as the WebSocket subprotocols
    /// `tokenpad-session, <token>` (browsers cannot set headers on a WebSocket, and a token
    /// in the URL would land in logs) or by a server as `Authorization: Bearer <token>`; then
    /// the `publicKey` query (`query`: the URL's query pairs).
    pub fn of_upgrade<'q>(
        query: impl IntoIterator<Item = (Cow<'q, str>, Cow<'q, str>)>,
        header: impl Fn(&str) -> Option<String>,
    ) -> Result<Credential> {
        if let Some(key) = header("x-api-key") {
            return Ok(Credential::Key(key));
        }
        let offered = header("sec-websocket-protocol");
        if let Some(token) = offered.as_deref().and_then(session_protocol) {
            return Ok(Credential::Session(token.to_string()));
        }
        if let Some(bearer) = Credential::of_authorization(header("authorization")) {
            return Ok(bearer);
        }
        query
            .into_iter()
            .find(|(k, _)| k == "publicKey")
            .map(|(_, v)| Credential::Key(v.into_owned()))
            .ok_or_else(|| Error::new(ErrorCode::PublicKeyNotFound, "Public key not found"))
    }

    /// What an `Authorization: Bearer <v>` header carries: a session token when `v` has a
    /// JWT's shape, else an API key (some Metal clients send their secret key that way).
    /// None for no header, another scheme, or an empty value.
    pub fn of_authorization(header: Option<String>) -> Option<Credential> {
        let header = header?;
        let (scheme, value) = header.split_once(' ')?;
        let value = value.trim();
        if !scheme.eq_ignore_ascii_case("bearer") || value.is_empty() {
            return None;
        }
        // `eyJ`: base64url of `{"`, how every JWT starts (a malformed one is an invalid
        // session token, not an invalid API key).
        Some(
            if crate::auth::parse_key(value).is_none() && value.starts_with("eyJ") {
                Credential::Session(value.to_string())
            } else {
                Credential::Key(value.to_string())
            },
        )
    }
}

/// The WebSocket subprotocol a browser offers, followed by its holder's session token, to
/// open `GET /live` with the token; the service answers with this one protocol selected.
pub const SESSION_PROTOCOL: &str = "tokenpad-session";

/// The session token a `Sec-WebSocket-Protocol` value offers: the entry after
/// [`SESSION_PROTOCOL`] (`tokenpad-session, eyJ...`), if there is one.
pub fn session_protocol(offered: &str) -> Option<&str> {
    let mut entries = offered.split(',').map(str::trim);
    entries.find(|p| *p == SESSION_PROTOCOL)?;
    entries.next().filter(|t| !t.is_empty())
}
