//! `GET /live`: the live push channel, a WebSocket. The edge only checks what needs no state
//! (an upgrade, a key naming a merchant, no secret key in the URL) and hands the upgrade
//! request itself to the merchant's object, which checks the key, accepts the socket with the
//! hibernation API and pushes public changes to it (`objects/live.rs`).
//!
//! `GET /live?publicKey=pk_...&presale=<presaleId>&holder=<userId>` (each repeatable, at most
//! eight topics). Browsers cannot set headers on a WebSocket, so the public key travels in the
//! query, as on every public read; a server may send `x-api-key` instead.

use super::incoming::Incoming;
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
    if url.query_pairs().any(|(_, v)| v.starts_with("sk_")) {
        return Err(Error::new(
            ErrorCode::SecretKeyInUrl,
            "Secret keys must be sent in the x-api-key header, never in the URL",
        ));
    }
    let key = url
        .query_pairs()
        .find(|(k, _)| k == "publicKey")
        .map(|(_, v)| v.into_owned())
        .or_else(|| req.header("x-api-key"))
        .ok_or_else(|| Error::new(ErrorCode::PublicKeyNotFound, "Public key not found"))?;
    let (_, merchant) =
        parse_key(&key).ok_or_else(|| Error::new(ErrorCode::InvalidApiKey, "Invalid API key"))?;
    trace.merchant(&merchant);
    crate::hop::merchant_upgrade(env, &merchant, req.into_worker()).await
}
