//! Request ids and the request log. Every answer carries `x-request-id` (the request's own
//! when it sent a sane one: 1 to 128 letters, digits and `-_.:`; else a fresh `req_...`),
//! and every request writes one JSON log line: its id, method, route pattern (never the
//! path, which may carry a userId), the merchant its key names, the status, the error code
//! and how long it took. Never a key, a URL, a body or a secret.

use crate::adapters::wallet::random;
use crate::http::{self, header, ERROR_CODE_HEADER};
use tokenpad_core::auth::parse_key;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::wire::routes;
use worker::{Env, Request, Response};

pub const REQUEST_ID: &str = "x-request-id";

/// The request's own id, when it is a sane one.
fn incoming(req: &Request) -> Option<String> {
    header(req, REQUEST_ID).filter(|id| {
        id.len() <= 128
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
    })
}

fn fresh() -> String {
    match random::<12>() {
        Ok(bytes) => format!("req_{}", hex::encode(bytes)),
        Err(_) => format!("req_{}", worker::Date::now().as_millis()),
    }
}

/// The route's pattern and the merchant its key (or admin path) names, for the log.
fn describe(req: &Request, method: &str) -> (Option<&'static str>, Option<String>) {
    let Ok(url) = req.url() else {
        return (None, None);
    };
    let matched = routes::route(method, url.path()).ok();
    let key = header(req, "x-api-key")
        .or_else(|| {
            header(req, "authorization").and_then(|v| {
                let (scheme, key) = v.split_once(' ')?;
                scheme
                    .eq_ignore_ascii_case("bearer")
                    .then(|| key.trim().to_string())
            })
        })
        .or_else(|| {
            url.query_pairs()
                .find(|(k, _)| k == "publicKey")
                .map(|(_, v)| v.into_owned())
        });
    let merchant = key
        .as_deref()
        .and_then(parse_key)
        .map(|(_, id)| id.as_str().to_string())
        .or_else(|| {
            // Admin routes about one merchant name it in their path.
            let m = matched.as_ref()?;
            let p = m.pattern.split('/').position(|s| s == ":merchantId")?;
            let seg = url.path().split('/').nth(p)?.to_string();
            MerchantId::is_valid(&seg).then_some(seg)
        });
    (matched.map(|m| m.pattern), merchant)
}

/// Serves a request (`super::handle`), with its request id and its log line.
pub async fn serve(req: Request, env: &Env) -> worker::Result<Response> {
    let started = worker::Date::now().as_millis();
    let method = req.method().to_string().to_uppercase();
    let id = incoming(&req).unwrap_or_else(fresh);
    let (route, merchant) = describe(&req, &method);
    let resp = match super::handle(req, env).await {
        Ok(resp) => resp,
        Err(e) => http::error(&e)?,
    };
    let status = resp.status_code();
    let code = resp.headers().get(ERROR_CODE_HEADER).ok().flatten();
    let replayed = resp.headers().has("idempotent-replayed").unwrap_or(false);
    // A WebSocket upgrade goes back as it came (its socket is part of the answer).
    let resp = if status == 101 {
        resp
    } else {
        let headers = resp.headers().clone();
        headers.set(REQUEST_ID, &id)?;
        headers.delete(ERROR_CODE_HEADER)?;
        resp.with_headers(headers)
    };
    let line = serde_json::json!({
        "type": "request",
        "requestId": id,
        "method": method,
        "route": route,
        "merchantId": merchant,
        "status": status,
        "code": code,
        "replayed": replayed,
        "durationMs": worker::Date::now().as_millis().saturating_sub(started),
    });
    if status >= 500 {
        worker::console_error!("{line}");
    } else {
        worker::console_log!("{line}");
    }
    Ok(resp)
}
