//! The stateless edge: every request enters here. It routes, applies the auth rules that
//! need no state (which key kind a route takes, secrets never in URLs), enforces body limits,
//! decodes the request once into a typed operation, and hands it to the merchant's Durable
//! Object, which checks the key itself. Admin routes are orchestrated in `admin`, the
//! keyless deployment page in `overview`.

mod admin;
mod live;
mod overview;
mod page;

use crate::hop::{self, ApiCall, Idempotency, MerchantCall};
use crate::http::{self, header};
use std::collections::BTreeMap;
use tokenpad_core::auth::{parse_key, KeyKind};
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::wire::admin::{Health, HealthChain, Index};
use tokenpad_core::wire::decode::parse_json;
use tokenpad_core::wire::routes::{self, Access, Matched, Route};
use tokenpad_core::wire::{Op, Parts};
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Request, Response};

/// Bodies larger than this are refused with 413 before they are read.
pub const MAX_BODY: usize = 64 * 1024;
const OPENAPI: &str = include_str!("../../../../openapi.json");

pub async fn handle(mut req: Request, env: &Env) -> Result<Response> {
    let method = req.method().to_string().to_uppercase();
    let url = req.url().map_err(|e| Error::internal(e.to_string()))?;
    let path = url.path().to_string();

    if method == "OPTIONS" {
        return if routes::is_public_path(&path) {
            let resp = Response::empty().map_err(internal)?.with_status(204);
            http::with_cors(resp).map_err(internal)
        } else {
            // An unknown path is a 404 whatever the method; a known secret route, a 405.
            match routes::route("GET", &path) {
                Err(e) if e.code == ErrorCode::NotFound => Err(e),
                _ => Err(Error::new(
                    ErrorCode::MethodNotAllowed,
                    "OPTIONS is answered only on public-key routes",
                )),
            }
        };
    }

    let matched = routes::route(&method, &path)?;
    if matched.route == Route::Live {
        return live::serve(req, env, &url).await;
    }
    let public = matches!(matched.access, Access::Public | Access::Open);
    let result = serve(&mut req, env, &method, &path, &url, &matched).await;
    let resp = match result {
        Ok(r) => r,
        Err(e) => http::error(&e).map_err(internal)?,
    };
    if public {
        http::with_cors(resp).map_err(internal)
    } else {
        Ok(resp)
    }
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

async fn serve(
    req: &mut Request,
    env: &Env,
    method: &str,
    path: &str,
    url: &worker::Url,
    matched: &Matched,
) -> Result<Response> {
    // A secret key in a URL ends up in logs and browser history: refuse it outright. Every
    // pair is checked, repeated names included, before they are collapsed into a map.
    if url.query_pairs().any(|(_, v)| v.starts_with("sk_")) {
        return Err(Error::new(
            ErrorCode::SecretKeyInUrl,
            "Secret keys must be sent in the x-api-key header, never in the URL",
        ));
    }
    // With a name repeated, the first value counts.
    let mut query: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in url.query_pairs().into_owned() {
        query.entry(k).or_insert(v);
    }
    // The body is parsed here, once, for every route (malformed JSON is refused even on a
    // route that ignores its body).
    let body = parse_json(read_body(req, method).await?.as_deref())?;

    match matched.access {
        Access::Open => return open(env, url, matched).await,
        Access::Admin => {
            admin::check_key(req, env)?;
            return admin::serve(env, matched.route, &body).await;
        }
        Access::Secret | Access::Public => {}
    }

    // `Authorization: Bearer <key>` is an alias of `x-api-key` (some Metal clients send it);
    // x-api-key wins when both are there.
    let header_key = header(req, "x-api-key").or_else(|| {
        header(req, "authorization").and_then(|v| {
            let (scheme, key) = v.split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| key.trim().to_string())
                .filter(|k| !k.is_empty())
        })
    });
    let key = match matched.access {
        Access::Secret => {
            let key = header_key.ok_or_else(|| {
                if query.contains_key("publicKey") {
                    secret_required()
                } else {
                    Error::new(
                        ErrorCode::MissingApiKey,
                        "Send your secret key in the x-api-key header",
                    )
                }
            })?;
            match parse_key(&key) {
                Some((KeyKind::Secret, _)) => key,
                Some((KeyKind::Public, _)) => return Err(secret_required()),
                None => return Err(Error::new(ErrorCode::InvalidApiKey, "Invalid API key")),
            }
        }
        _ => query
            .get("publicKey")
            .cloned()
            .or(header_key)
            .ok_or_else(|| Error::new(ErrorCode::PublicKeyNotFound, "Public key not found"))?,
    };
    let Some((_, merchant)) = parse_key(&key) else {
        return Err(Error::new(ErrorCode::InvalidApiKey, "Invalid API key"));
    };

    let idempotency = if matched.route.mutates() {
        idempotency_key(req)?.map(|key| Idempotency {
            key,
            // What makes two requests "the same": method, path and body (as canonical JSON,
            // so key order and whitespace do not matter).
            fingerprint: sha256_hex(format!("{method} {path}\n{body}").as_bytes()),
        })
    } else {
        None
    };
    let parts = Parts {
        params: &matched.params,
        query: &query,
        body: &body,
    };
    let op = match Op::decode(matched.route, &parts) {
        Ok(Some(op)) => Ok(op),
        Ok(None) => Err(Error::internal("a merchant route without an operation")),
        Err(e) => Err(e),
    };
    let call = MerchantCall::Api(Box::new(ApiCall {
        key,
        op,
        idempotency,
        base_url: overview::base_url(env, url),
    }));
    let resp = hop::merchant(env, &merchant, &call).await?;
    if matches!(matched.route, Route::CreateMemecoin | Route::CreateAirdrop) {
        // The overview page finds a deployment's merchant by its id in the registry.
        return overview::record_owner(env, &merchant, resp).await;
    }
    Ok(resp)
}

fn secret_required() -> Error {
    Error::new(
        ErrorCode::SecretKeyRequired,
        "This operation needs the secret key in the x-api-key header; a public key only reads",
    )
}

fn idempotency_key(req: &Request) -> Result<Option<String>> {
    let Some(key) = header(req, "idempotency-key").or_else(|| header(req, "x-idempotency-key"))
    else {
        return Ok(None);
    };
    if key.chars().count() > 255 || key.chars().any(char::is_control) {
        return Err(Error::new(
            ErrorCode::InvalidIdempotencyKey,
            "Idempotency-Key must be 1 to 255 printable characters",
        ));
    }
    Ok(Some(key))
}

/// The body of a POST, PUT or PATCH as text: at most 64 KiB, JSON when present.
async fn read_body(req: &mut Request, method: &str) -> Result<Option<String>> {
    if !matches!(method, "POST" | "PUT" | "PATCH") {
        return Ok(None);
    }
    let too_large = || {
        Error::new(
            ErrorCode::PayloadTooLarge,
            "The request body is larger than 64 KiB",
        )
        .with("limit", MAX_BODY)
    };
    if let Some(len) = header(req, "content-length").and_then(|l| l.parse::<usize>().ok()) {
        if len > MAX_BODY {
            return Err(too_large());
        }
    }
    let bytes = req.bytes().await.map_err(internal)?;
    if bytes.len() > MAX_BODY {
        return Err(too_large());
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let content_type = header(req, "content-type")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let media = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    if media != "application/json" && !media.ends_with("+json") {
        return Err(Error::new(
            ErrorCode::UnsupportedMediaType,
            "Send the body as JSON with Content-Type: application/json",
        ));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Error::new(
            ErrorCode::InvalidJson,
            "The request body is not valid UTF-8",
        )
    })
}

/// The service's health: its chain, or why its configuration is unusable.
fn health(env: &Env) -> Health {
    match crate::adapters::evm::config::read(env) {
        Ok(c) => {
            let mode = c.mode();
            Health {
                ok: true,
                chain: HealthChain {
                    kind: mode.kind().into(),
                    chain_id: c.evm().map(|e| e.chain.chain_id),
                },
                error: None,
            }
        }
        Err(e) => Health {
            ok: false,
            chain: HealthChain {
                kind: "evm".into(),
                chain_id: None,
            },
            error: Some(e.message.clone()),
        },
    }
}

/// The routes with no key: the index, health, the OpenAPI document, a deployment's page.
async fn open(env: &Env, url: &worker::Url, matched: &Matched) -> Result<Response> {
    let resp = match matched.route {
        Route::DeploymentPage => return overview::serve(env, url, &matched.params).await,
        Route::Health => {
            let h = health(env);
            http::json(if h.ok { 200 } else { 503 }, &h)
        }
        Route::OpenApi => http::json_text(200, OPENAPI.to_string()),
        _ => http::json(
            200,
            &Index {
                name: "tokenpad".into(),
                description: "Token distribution and presale service".into(),
                openapi: "/openapi.json".into(),
            },
        ),
    };
    resp.map_err(internal)
}
