//! The stateless edge: every request enters here. It routes, applies the auth rules that
//! need no state (which key kind a route takes, secrets never in URLs), enforces body limits,
//! and hands the request to the merchant's Durable Object, which checks the key itself.
//! Admin operations (merchant creation, time travel, the faucet) are orchestrated here.

use crate::config;
use crate::envelope::Envelope;
use crate::http;
use crate::routes::{self, Access, Matched, Op};
use crate::wallet::random;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use tokenpad_core::auth::{hashes_equal, key_hash, new_keys, parse_key, KeyKind};
use tokenpad_core::input;
use tokenpad_core::time::iso8601;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Method, Request, RequestInit, Response};

/// Bodies larger than this are refused with 413 before they are read.
pub const MAX_BODY: usize = 64 * 1024;
const OPENAPI: &str = include_str!("../../../openapi.json");

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
    let body = read_body(req, method).await?;

    match matched.access {
        Access::Open if matched.op == Op::DeploymentPage => {
            return crate::overview::serve(env, url, &matched.params).await
        }
        Access::Open => return open(matched.op),
        Access::Admin => {
            check_admin(req, env)?;
            return admin(env, matched.op, body.as_deref()).await;
        }
        Access::Secret | Access::Public => {}
    }

    let header_key = header(req, "x-api-key");
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
    let Some((_, merchant_id)) = parse_key(&key) else {
        return Err(Error::new(ErrorCode::InvalidApiKey, "Invalid API key"));
    };

    let idempotency_key = if matched.op.mutates() {
        idempotency_key(req)?
    } else {
        None
    };
    let envelope = Envelope {
        op: matched.op.name().to_string(),
        params: matched.params.clone(),
        query,
        body,
        key: Some(key),
        method: method.to_string(),
        path: path.to_string(),
        idempotency_key,
        internal: None,
        base_url: Some(crate::overview::base_url(env, url)),
    };
    let resp = call_merchant(env, &merchant_id, &envelope).await?;
    if matches!(matched.op, Op::CreateMemecoin | Op::CreateAirdrop) {
        // The overview page finds a deployment's merchant by its id in the registry.
        return crate::overview::record_owner(env, &merchant_id, resp).await;
    }
    Ok(resp)
}

fn secret_required() -> Error {
    Error::new(
        ErrorCode::SecretKeyRequired,
        "This operation needs the secret key in the x-api-key header; a public key only reads",
    )
}

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers()
        .get(name)
        .ok()
        .flatten()
        .filter(|v| !v.is_empty())
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
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::new(
            ErrorCode::InvalidJson,
            "The request body is not valid UTF-8",
        )
    })?;
    // Malformed JSON is refused here, for every route, even one that ignores its body.
    crate::envelope::parse_json(Some(&text))?;
    Ok(Some(text))
}

fn open(op: Op) -> Result<Response> {
    match op {
        Op::Health => http::json(200, &json!({ "ok": true })).map_err(internal),
        Op::OpenApi => {
            let doc: Value = serde_json::from_str(OPENAPI)
                .map_err(|e| Error::internal(format!("openapi.json: {e}")))?;
            http::json(200, &doc).map_err(internal)
        }
        _ => http::json(
            200,
            &json!({
                "name": "tokenpad",
                "description": "Token distribution and presale service",
                "openapi": "/openapi.json",
            }),
        )
        .map_err(internal),
    }
}

fn check_admin(req: &Request, env: &Env) -> Result<()> {
    let invalid = || Error::new(ErrorCode::InvalidAdminKey, "Missing or invalid x-admin-key");
    // With no ADMIN_API_KEY configured, admin routes are closed.
    let expected = config::string(env, "ADMIN_API_KEY")
        .filter(|k| !k.is_empty())
        .ok_or_else(invalid)?;
    let given = header(req, "x-admin-key").ok_or_else(invalid)?;
    if hashes_equal(&key_hash(&given), &key_hash(&expected)) {
        Ok(())
    } else {
        Err(invalid())
    }
}

async fn admin(env: &Env, op: Op, body: Option<&str>) -> Result<Response> {
    let args = input::object(&crate::envelope::parse_json(body)?)?;
    match op {
        Op::AdminCreateMerchant => create_merchant(env, &args).await,
        Op::AdminTimeAdvance => {
            if !config::flag(env, "ALLOW_TIME_TRAVEL") {
                return Err(not_found());
            }
            time_advance(env, &args).await
        }
        Op::AdminTime => service_time(env).await,
        Op::AdminChainFaults => {
            if !config::flag(env, "ALLOW_TIME_TRAVEL") {
                return Err(not_found());
            }
            chain_faults(env, &args).await
        }
        _ => {
            if !config::flag(env, "ENABLE_FAUCET") {
                return Err(not_found());
            }
            faucet(env, &args).await
        }
    }
}

/// `{ merchantId, count }`: the merchant's next `count` fallible chain submissions fail
/// (local runs and tests), to exercise retries and backoff.
async fn chain_faults(env: &Env, args: &input::Object) -> Result<Response> {
    let id = input::req_str(args, "merchantId")?;
    input::req_int(args, "count", 0, 100)?;
    let (status, body) = internal_call(env, &id, "chain_faults", Value::Object(args.clone()))
        .await?
        .ok_or_else(no_merchant)?;
    http::json(status, &body).map_err(internal)
}

fn no_merchant() -> Error {
    Error::new(ErrorCode::MerchantNotFound, "No such merchant")
}

/// Runs an internal operation (authorised here at the edge) in merchant `id`'s object.
/// A malformed id is a 404 `merchant_not_found`; `None` means no merchant lives at that id.
async fn internal_call(env: &Env, id: &str, op: &str, args: Value) -> Result<Option<(u16, Value)>> {
    if !tokenpad_core::auth::is_merchant_id(id) {
        return Err(no_merchant());
    }
    let call = Envelope {
        op: op.into(),
        internal: Some(args),
        ..Envelope::default()
    };
    let (status, body) = merchant_json(env, id, &call).await?;
    // An object with no merchant answers every keyed call with invalid_api_key.
    if body.get("code").and_then(Value::as_str) == Some("invalid_api_key") {
        return Ok(None);
    }
    Ok(Some((status, body)))
}

/// The merchant ids a registry answer lists.
fn merchant_ids(reg: &Value) -> Vec<String> {
    reg.get("merchants")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn not_found() -> Error {
    Error::new(ErrorCode::NotFound, "No such route")
}

async fn create_merchant(env: &Env, args: &input::Object) -> Result<Response> {
    let name = input::req_str(args, "name")?;
    if name.chars().count() > 100 {
        return Err(Error::field("name", "name must be at most 100 characters"));
    }
    let (id, secret_key, public_key) = new_keys(&random::<80>()?);
    let reg = call_registry(env, "register", json!({ "id": id, "name": name })).await?;
    let init = json!({
        "id": id,
        "name": name,
        // A merchant created after time travel starts on the service clock, not real time.
        "offsetMs": reg.get("offsetMs").and_then(Value::as_u64).unwrap_or(0),
        "secretKeyHash": key_hash(&secret_key),
        "publicKeyHash": key_hash(&public_key),
    });
    let (status, mut merchant) = internal_call(env, &id, "init", init)
        .await?
        .ok_or_else(|| Error::internal("merchant init found no merchant"))?;
    if status != 201 {
        return Err(Error::internal(format!("merchant init answered {status}")));
    }
    merchant["secretKey"] = Value::String(secret_key);
    merchant["publicKey"] = Value::String(public_key);
    http::json(201, &merchant).map_err(internal)
}

/// The service clock: real time plus the time-travel offset (0 unless a local run moved it).
async fn service_time(env: &Env) -> Result<Response> {
    let reg = call_registry(env, "list", json!({})).await?;
    clock_json(reg.get("offsetMs").and_then(Value::as_u64).unwrap_or(0))
}

fn clock_json(offset: u64) -> Result<Response> {
    let now = worker::Date::now().as_millis() + offset;
    http::json(
        200,
        &json!({ "offsetSeconds": offset / 1000, "now": iso8601(now), "nowUnix": now / 1000 }),
    )
    .map_err(internal)
}

async fn time_advance(env: &Env, args: &input::Object) -> Result<Response> {
    let seconds = input::req_int(args, "seconds", 1, 365 * 86_400)?;
    let reg = call_registry(env, "advance", json!({ "seconds": seconds })).await?;
    let offset = reg.get("offsetMs").and_then(Value::as_u64).unwrap_or(0);
    for id in merchant_ids(&reg) {
        internal_call(env, &id, "advance", json!({ "offsetMs": offset })).await?;
    }
    clock_json(offset)
}

async fn faucet(env: &Env, args: &input::Object) -> Result<Response> {
    // Validate before looking for the holder, so bad input is a 400 whichever merchant.
    crate::handlers::faucet_args(args)?;
    let targets = match input::opt_str(args, "merchantId")? {
        Some(id) => vec![id],
        None => merchant_ids(&call_registry(env, "list", json!({})).await?),
    };
    for id in targets {
        let Some((status, body)) =
            internal_call(env, &id, "faucet", Value::Object(args.clone())).await?
        else {
            continue; // no merchant lives at that id
        };
        if body.get("code").and_then(Value::as_str) == Some("holder_not_found") {
            continue;
        }
        return http::json(status, &body).map_err(internal);
    }
    Err(Error::new(
        ErrorCode::HolderNotFound,
        "No holder has that address",
    ))
}

fn do_request(body: &str) -> Result<Request> {
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_body(Some(wasm_bindgen::JsValue::from_str(body)));
    Request::new_with_init("https://tokenpad.internal/", &init).map_err(internal)
}

async fn call_merchant(env: &Env, merchant_id: &str, envelope: &Envelope) -> Result<Response> {
    let body = serde_json::to_string(envelope).map_err(|e| Error::internal(e.to_string()))?;
    let stub = env
        .durable_object("MERCHANT")
        .and_then(|ns| ns.id_from_name(merchant_id)?.get_stub())
        .map_err(internal)?;
    stub.fetch_with_request(do_request(&body)?)
        .await
        .map_err(internal)
}

pub(crate) async fn merchant_json(
    env: &Env,
    merchant_id: &str,
    envelope: &Envelope,
) -> Result<(u16, Value)> {
    let mut resp = call_merchant(env, merchant_id, envelope).await?;
    let status = resp.status_code();
    let text = resp.text().await.map_err(internal)?;
    let body = serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string()))?;
    Ok((status, body))
}

pub(crate) async fn call_registry(env: &Env, op: &str, args: Value) -> Result<Value> {
    let body = json!({ "op": op, "args": args }).to_string();
    let stub = env
        .durable_object("REGISTRY")
        .and_then(|ns| ns.id_from_name("registry")?.get_stub())
        .map_err(internal)?;
    let mut resp = stub
        .fetch_with_request(do_request(&body)?)
        .await
        .map_err(internal)?;
    let text = resp.text().await.map_err(internal)?;
    let value: Value = serde_json::from_str(&text).map_err(|e| Error::internal(e.to_string()))?;
    if resp.status_code() != 200 {
        return Err(Error::internal(format!("registry {op}: {text}")));
    }
    Ok(value)
}
