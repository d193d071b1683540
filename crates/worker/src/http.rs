//! The one place errors become HTTP. Every response body is JSON built here; every status
//! comes from `ErrorCode::status`. Internal errors are logged with their detail and answered
//! with a generic message, so no internals (and no secrets) reach a client.

use serde_json::Value;
use tokenpad_core::{Error, ErrorCode};
use worker::{Headers, Response};

pub const CORS_ALLOW_HEADERS: &str = "content-type, x-api-key, idempotency-key, x-idempotency-key";

/// A JSON response. Falls back to a bare 500 only if the runtime cannot build a response.
pub fn json(status: u16, body: &Value) -> worker::Result<Response> {
    let headers = Headers::new();
    headers.set("content-type", "application/json; charset=utf-8")?;
    headers.set("cache-control", "no-store")?;
    Ok(Response::from_bytes(body.to_string().into_bytes())?
        .with_status(status)
        .with_headers(headers))
}

pub fn error(err: &Error) -> worker::Result<Response> {
    if err.code == ErrorCode::Internal {
        worker::console_error!("internal error: {}", err.message);
    }
    let resp = json(err.status(), &err.to_body())?;
    if err.code == ErrorCode::RateLimited {
        let seconds = err
            .details
            .as_ref()
            .and_then(|d| d.get("retryAfterSeconds"))
            .and_then(Value::as_u64)
            .unwrap_or(1);
        resp.headers().set("retry-after", &seconds.to_string())?;
    }
    Ok(resp)
}

/// Adds the CORS headers public-key routes answer with.
pub fn with_cors(resp: Response) -> worker::Result<Response> {
    let headers = resp.headers().clone();
    headers.set("access-control-allow-origin", "*")?;
    headers.set("access-control-allow-methods", "GET, OPTIONS")?;
    headers.set("access-control-allow-headers", CORS_ALLOW_HEADERS)?;
    headers.set("access-control-max-age", "86400")?;
    Ok(resp.with_headers(headers))
}
