//! `GET /live`: the live push channel, a WebSocket. The edge only checks what needs no state
//! (an upgrade, a key naming a merchant, no secret key in the URL, the topics) and hands the
//! upgrade request itself to the relay for the merchant and those topics
//! (`hop::live::relay_name`), which has the merchant's object check the credential, accepts
//! the socket with the hibernation API and sends it the topics' changes (`objects/live/relay.rs`,
//! `objects/live/mod.rs`).
//!
//! `GET /live?publicKey=pk_...&presale=<presaleId>&holder=<userId>` (each repeatable, at most
//! eight topics). Browsers cannot set headers on a WebSocket, so the public key travels in the
//! query, as on every public read; a server may send `x-api-key` instead. A holder's session
//! token travels as the subprotocols `tokenpad-session, <token>` (or, from a server,
//! `Authorization: Bearer <token>`): never in the URL (`hop::Credential::of_upgrade`).

use super::incoming::Incoming;
use crate::hop::{live, Credential};
use tokenpad_core::auth::parse_key;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Response};

pub async fn serve(
    req: Incoming,
    env: &Env,
    url: &super::target::Target,
    trace: &mut super::trace::Trace,
) -> Result<Response> {
    let upgrade = req.header("upgrade").unwrap_or_default();
    if !upgrade.eq_ignore_ascii_case("websocket") {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "GET /live is a WebSocket: connect with Upgrade: websocket",
        ));
    }
    if url
        .query_pairs()
        .any(|(_, v)| tokenpad_core::auth::starts_like_secret_key(&v))
    {
        return Err(Error::new(
            ErrorCode::SecretKeyInUrl,
            "Secret keys must be sent in the x-api-key header, never in the URL",
        ));
    }
    let merchant = match Credential::of_upgrade(url.query_pairs(), |h| req.header(h))? {
        Credential::Key(key) => {
            parse_key(&key)
                .ok_or_else(|| Error::new(ErrorCode::InvalidApiKey, "Invalid API key"))?
                .1
        }
        Credential::Session(token) => super::session_merchant(&token)?,
    };
    trace.merchant(&merchant);
    let topics = live::topics(url.query_pairs())?;
    let relay = live::relay_name(&merchant, &topics);
    crate::hop::relay_upgrade(env, &relay, &merchant, req.into_worker()).await
}
