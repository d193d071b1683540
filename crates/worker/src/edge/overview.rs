//! The deployment overview page, `GET /deployments/:id`: the `serviceBuildUrl` of a memecoin
//! or airdrop deployment. It needs no key, so anyone with the link can open it; it shows
//! nothing a holder could not read on chain (no userIds).
//!
//! The id alone does not say which merchant owns it, so the merchant's object records
//! `id -> merchant` in the registry object after a create commits (a follow-up, retried until
//! it lands: `objects::merchant::outbox`), and the page looks it up there before asking the
//! merchant's object for the page data (`page.rs` renders it).

use super::page::{error_page, not_found_page, page};
use crate::config;
use crate::hop::{self, MerchantCall, RegistryCall};
use tokenpad_core::model::ids::{is_uuid, DeploymentId};
use tokenpad_core::wire::deployment::DeploymentOverview;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Headers, Response};

/// No scripts, no remote anything: inline styles only.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// The service's public base URL: PUBLIC_BASE_URL when set, else the request's
/// `scheme://host[:port]`. No trailing slash.
pub fn base_url(env: &Env, url: &super::target::Target) -> String {
    config::string(env, "PUBLIC_BASE_URL")
        .map(|s| s.trim().trim_end_matches('/').to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| url.origin().to_string())
}

/// `GET /deployments/:id`: 200 with the page, 404 with a not-found page, 503 (Retry-After)
/// or 500 with an error page. Always HTML, errors included (openapi.json documents them).
pub async fn serve(env: &Env, url: &super::target::Target, params: &[String]) -> Result<Response> {
    let id = params
        .first()
        .map(|s| s.to_ascii_lowercase())
        .unwrap_or_default();
    match lookup(env, url, &id).await {
        Ok(Some(model)) => html(200, &page(&model)),
        Ok(None) => html(404, &not_found_page()),
        // The registry or the merchant's object could not answer just now: come back.
        Err(e) if e.code == ErrorCode::Unavailable => {
            let resp = html(503, &error_page())?;
            resp.headers().set("retry-after", "1").map_err(internal)?;
            Ok(resp)
        }
        Err(e) => {
            worker::console_error!("overview page {id}: {}", e.message);
            html(500, &error_page())
        }
    }
}

/// The page data from the owning merchant's object, or None when no such deployment exists.
async fn lookup(
    env: &Env,
    url: &super::target::Target,
    id: &str,
) -> Result<Option<DeploymentOverview>> {
    if !is_uuid(id) {
        return Ok(None);
    }
    let id = DeploymentId::new_unchecked(id);
    let found = hop::registry(env, &RegistryCall::FindDeployment { id: id.clone() }).await?;
    let Some(merchant) = found.deployment_owner else {
        return Ok(None);
    };
    let call = MerchantCall::DeploymentPage {
        id,
        base_url: base_url(env, url),
    };
    match hop::merchant_typed::<DeploymentOverview>(env, &merchant, &call).await {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.code == ErrorCode::DeploymentNotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn html(status: u16, body: &str) -> Result<Response> {
    let headers = Headers::new();
    for (name, value) in [
        ("content-type", "text/html; charset=utf-8"),
        ("cache-control", "no-store"),
        ("content-security-policy", CSP),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
    ] {
        headers.set(name, value).map_err(internal)?;
    }
    Ok(Response::from_bytes(body.as_bytes().to_vec())
        .map_err(internal)?
        .with_status(status)
        .with_headers(headers))
}
