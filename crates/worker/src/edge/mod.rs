//! The stateless edge: every request enters here. It refuses a secret key in the URL before
//! anything looks at it, routes, applies the auth rules that need no state (which key kind a
//! route takes), limits strangers with bad keys per client address (`guard`), enforces body
//! limits, decodes the request once into a typed operation, and hands it to the merchant's
//! Durable Object, which checks the key itself. Admin routes are orchestrated in `admin`,
//! the keyless deployment page in `overview`.

mod account;
mod admin;
mod cached;
mod chain;
mod guard;
mod health;
pub mod incoming;
mod inflight;
mod live;
mod local_node;
mod overview;
mod page;
mod steps;
mod target;
pub mod trace;

use crate::hop::{self, ApiCall, ApiRequest, Credential, Idempotency, MerchantCall};
use crate::http;
use incoming::Incoming;
use std::collections::BTreeMap;
use target::Target;
use tokenpad_core::auth::{contains_secret_key, parse_key, starts_like_secret_key, KeyKind};
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::ops::accounts::dashboard;
use tokenpad_core::session_token;
use tokenpad_core::wire::admin::Index;
use tokenpad_core::wire::decode::parse_json;
use tokenpad_core::wire::routes::{self, percent_decode, Access, Matched};
use tokenpad_core::wire::{deployment, session};
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Env, Response};

/// Bodies larger than this are refused with 413 before they are read.
pub const MAX_BODY: usize = 64 * 1024;

/// Serves `req`, whose method (upper case) is `method`.
pub async fn handle(
    req: Incoming,
    method: &str,
    env: &Env,
    trace: &mut trace::Trace,
) -> Result<Response> {
    let url = Target::of(&req);
    let path = url.path().to_string();

    // A secret key in a URL ends up in logs and browser history: refuse it before anything
    // else reads the URL (routing included: a 404 names the path). Never echoed.
    if secret_key_in(&url) {
        let resp = http::error(&Error::new(
            ErrorCode::SecretKeyInUrl,
            "Secret keys must be sent in the x-api-key header, never in the URL",
        ))
        .map_err(internal)?;
        return if routes::is_public_path(&path) {
            http::with_cors(resp).map_err(internal)
        } else {
            Ok(resp)
        };
    }

    if method == "OPTIONS" {
        return if routes::is_public_path(&path) {
            let resp = Response::empty().map_err(internal)?.with_status(204);
            http::with_preflight(resp).map_err(internal)
        } else {
            // An unknown path is a 404 whatever the method; a known secret route, a 405.
            match routes::route("GET", &path) {
                Err(e) if e.code == ErrorCode::NotFound => Err(e),
                _ => not_allowed(
                    &Error::new(
                        ErrorCode::MethodNotAllowed,
                        "OPTIONS is answered only on public-key routes",
                    ),
                    &path,
                ),
            }
        };
    }

    let matched = match routes::route(method, &path) {
        Err(e) if e.code == ErrorCode::MethodNotAllowed => return not_allowed(&e, &path),
        other => other?,
    };
    trace.routed(&matched);
    if matched.route == routes::LIVE {
        return live::serve(req, env, &url, trace).await;
    }
    let public = matches!(
        matched.access,
        Access::Public | Access::Open | Access::Holder
    );
    let result = serve(&req, env, method, &path, &url, &matched, trace).await;
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

/// A 405 with `Allow`: the methods the path has (RFC 9110 requires it), with CORS where the
/// path answers browsers.
fn not_allowed(e: &Error, path: &str) -> Result<Response> {
    let allow = routes::allowed_methods(path).join(", ");
    let resp = http::error(e).map_err(internal)?;
    let resp = http::edit_headers(resp, |h| h.set("allow", &allow)).map_err(internal)?;
    if routes::is_public_path(path) {
        http::with_cors(resp).map_err(internal)
    } else {
        Ok(resp)
    }
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// Whether a well-formed secret key is anywhere in the URL's path or query, as sent or
/// percent-decoded, in any case, or a query value starts with `sk_` (in any case).
fn secret_key_in(url: &Target) -> bool {
    let path = url.path();
    let query = url.query();
    secret_in(path)
        || percent_decode(path).is_some_and(|p| secret_in(&p))
        || secret_in(query)
        || url
            .query_pairs()
            .any(|(k, v)| starts_like_secret(&v) || secret_in(&k) || secret_in(&v))
}

/// A secret key or a dashboard credential (`dt_<merchant id>_...`) anywhere in `text`.
fn secret_in(text: &str) -> bool {
    contains_secret_key(text) || dashboard::contained_in(text)
}

/// A query value that starts like a secret key (`sk_`, even truncated) or a dashboard
/// credential (`dt_` and a merchant id: a userId searched for as `dt_bob` is not one).
fn starts_like_secret(value: &str) -> bool {
    let bytes = value.as_bytes();
    starts_like_secret_key(value)
        || (bytes
            .get(..3)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"dt_"))
            && bytes
                .get(3..35)
                .is_some_and(|id| id.iter().all(u8::is_ascii_hexdigit)))
}

async fn serve(
    req: &Incoming,
    env: &Env,
    method: &str,
    path: &str,
    url: &Target,
    matched: &Matched,
    trace: &mut trace::Trace,
) -> Result<Response> {
    // With a name repeated, the first value counts.
    let mut query: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in url.query_pairs() {
        query.entry(k.into_owned()).or_insert(v.into_owned());
    }
    // The body is parsed here, once, for every route (malformed JSON is refused even on a
    // route that ignores its body).
    let body = parse_json(read_body(req, method).await?.as_deref())?;

    match matched.access {
        Access::Open => return open(env, url, matched).await,
        Access::Account => return account::serve(req, env, method, url, matched, &body).await,
        Access::Admin => {
            admin::check_key(req, env)?;
            if matched.route == tokenpad_core::wire::account::ADMIN_MAILBOX {
                return account::admin_mailbox(env, url).await;
            }
            let answered = admin::serve(env, matched, &body).await;
            if method != "GET" {
                // The clock or a deposit: any merchant's public reads may have changed.
                cached::written_any();
            }
            return answered;
        }
        Access::Secret | Access::Public | Access::Holder => {}
    }

    let credential = credential(req, &query, matched.access)?;
    // A key that does not check costs its sender's address, never the merchant (`guard`).
    let client = guard::client(req);
    let pass = guard::admit(env, &client, credential.text()).await?;
    let request = Keyed {
        method,
        path,
        url,
        matched,
        query: &query,
        body: &body,
    };
    let result = keyed(req, env, &request, credential.clone(), &client, trace).await;
    let (invalid_key, checked) = match &result {
        Ok(resp) => {
            let status = resp.status_code();
            (status == 401, status != 401 && status < 500)
        }
        Err(e) => (e.code == ErrorCode::InvalidApiKey, false),
    };
    guard::observe(env, &client, credential.text(), pass, invalid_key, checked);
    result
}

/// A keyed request's parts, once read.
struct Keyed<'a> {
    method: &'a str,
    path: &'a str,
    url: &'a Target,
    matched: &'a Matched,
    query: &'a BTreeMap<String, String>,
    body: &'a serde_json::Value,
}

/// A merchant request: its key's kind checked, and sent to the merchant's object to decode and apply.
async fn keyed(
    req: &Incoming,
    env: &Env,
    r: &Keyed<'_>,
    credential: Credential,
    client: &str,
    trace: &mut trace::Trace,
) -> Result<Response> {
    // A public-key read: the edge may answer it from what it keeps (`cached`).
    let mut cache_key = None;
    // A public key that came in a header, not the URL (`credential`: the URL's wins).
    let mut by_header = false;
    let merchant = match &credential {
        Credential::Key(key) => {
            let invalid = || Error::new(ErrorCode::InvalidApiKey, "Invalid API key");
            // The dashboard's credential (`dt_...`) goes where a secret key goes; the
            // merchant's object checks it (`objects/merchant/members.rs`).
            let (kind, merchant) = parse_key(key)
                .or_else(|| dashboard::merchant_of(key).map(|m| (KeyKind::Secret, m)))
                .ok_or_else(invalid)?;
            trace.merchant(&merchant);
            if r.matched.route == session::CURRENT_SESSION {
                return Err(Error::new(
                    ErrorCode::SessionTokenRequired,
                    "GET /session needs a session token (Authorization: Bearer <token>)",
                ));
            }
            if r.matched.access != Access::Public && kind == KeyKind::Public {
                return Err(secret_required());
            }
            by_header = kind == KeyKind::Public && !r.query.contains_key("publicKey");
            if kind == KeyKind::Public && r.method == "GET" {
                cache_key = Some(cached::key(key, r.path, r.url.query()));
            }
            merchant
        }
        Credential::Session(token) => {
            if r.matched.access == Access::Secret {
                return Err(Error::new(
                    ErrorCode::SecretKeyRequired,
                    "This operation needs the merchant's secret key; a session token acts only for its holder, within its scopes",
                ));
            }
            let merchant = session_merchant(token)?;
            trace.merchant(&merchant);
            merchant
        }
    };
    let (method, path) = (r.method, r.path);
    // The body as canonical JSON (key order and whitespace do not matter): what the object
    // decodes, and what makes two requests "the same" with the method and path.
    let body = r.body.to_string();
    let idempotency = if r.matched.route.writes() {
        idempotency_key(req)?.map(|key| Idempotency {
            key,
            fingerprint: sha256_hex(format!("{method} {path}\n{body}").as_bytes()),
        })
    } else {
        None
    };
    let call = MerchantCall::Api(Box::new(ApiCall {
        credential,
        request: ApiRequest {
            route: r.matched.route.operation_id().to_string(),
            params: r.matched.params.clone(),
            query: r.query.clone(),
            body,
        },
        idempotency,
        base_url: overview::base_url(env, r.url),
        client: client.to_string(),
    }));
    if let Some(key) = cache_key {
        let read = cached::Read {
            merchant: merchant.as_str(),
            key: &key,
            by_header,
        };
        return cached::serve(req, read, hop::merchant(env, &merchant, &call), trace).await;
    }
    let answered = hop::merchant(env, &merchant, &call).await;
    if method != "GET" {
        // What this isolate keeps of the merchant's public reads is older than this write.
        cached::written(merchant.as_str());
    }
    let answered = answered?;
    // A HEAD with a public key: its answer is cacheable as its GET's.
    let answered = if by_header {
        answered.keyed_by_header()
    } else {
        answered
    };
    answered.into_response().map_err(internal)
}

/// The merchant a session token names: the request is routed to it, and that merchant's
/// object verifies the token (a token naming no merchant, or one it did not sign, is refused
/// here or there).
pub(super) fn session_merchant(token: &str) -> Result<MerchantId> {
    session_token::audience(token)
        .and_then(|m| MerchantId::parse(&m).ok())
        .ok_or_else(|| Error::new(ErrorCode::InvalidSessionToken, "Invalid session token"))
}

/// The credential of a keyed request. `Authorization: Bearer <v>` is a session token when
/// `v` has a JWT's shape, else an alias of `x-api-key` (some Metal clients send their secret
/// key that way): a Bearer value that is an API key stays an API key. x-api-key wins over a
/// Bearer value; a session token wins over a `publicKey` query (a browser sending both reads
/// its holder with the token).
fn credential(
    req: &Incoming,
    query: &BTreeMap<String, String>,
    access: Access,
) -> Result<Credential> {
    let x_api_key = req.header("x-api-key");
    let (session, bearer_key) = match Credential::of_authorization(req.header("authorization")) {
        Some(Credential::Session(token)) => (Some(token), None),
        Some(Credential::Key(key)) => (None, Some(key)),
        None => (None, None),
    };
    if let (None, Some(token)) = (&x_api_key, session) {
        return Ok(Credential::Session(token));
    }
    let header_key = x_api_key.or(bearer_key);
    let key = match access {
        Access::Secret | Access::Holder => header_key.ok_or_else(|| {
            if query.contains_key("publicKey") {
                secret_required()
            } else if access == Access::Holder {
                Error::new(
                    ErrorCode::MissingApiKey,
                    "Send your secret key in the x-api-key header, or the holder's session token as Authorization: Bearer <token>",
                )
            } else {
                Error::new(
                    ErrorCode::MissingApiKey,
                    "Send your secret key in the x-api-key header",
                )
            }
        })?,
        _ => query
            .get("publicKey")
            .cloned()
            .or(header_key)
            .ok_or_else(|| Error::new(ErrorCode::PublicKeyNotFound, "Public key not found"))?,
    };
    Ok(Credential::Key(key))
}

fn secret_required() -> Error {
    Error::new(
        ErrorCode::SecretKeyRequired,
        "This operation needs the secret key in the x-api-key header; a public key only reads",
    )
}

/// The request's idempotency key: `Idempotency-Key` or `x-idempotency-key` (the same value
/// when both are sent), 1 to 255 printable characters. Sent empty, too long, or two different
/// ones: 400 `invalid_idempotency_key`.
fn idempotency_key(req: &Incoming) -> Result<Option<String>> {
    let sent = |name: &str| req.header_sent(name);
    let invalid = |why: &str| {
        Error::new(
            ErrorCode::InvalidIdempotencyKey,
            format!("Idempotency-Key must be 1 to 255 printable characters{why}"),
        )
    };
    let key = match (sent("idempotency-key"), sent("x-idempotency-key")) {
        (None, None) => return Ok(None),
        (Some(a), Some(b)) if a != b => {
            return Err(invalid(
                ", and Idempotency-Key and x-idempotency-key must not differ",
            ))
        }
        (Some(key), _) | (None, Some(key)) => key,
    };
    if key.is_empty() || key.chars().count() > 255 || key.chars().any(char::is_control) {
        return Err(invalid(""));
    }
    Ok(Some(key))
}

/// The body of a POST, PUT or PATCH as text: at most 64 KiB, JSON when present.
async fn read_body(req: &Incoming, method: &str) -> Result<Option<String>> {
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
    // Refused before a byte is read, whatever the size declared: 2^32 and more too (read as
    // 32 bits, wasm's usize, it once fell through to reading the body and a 500).
    if req
        .declared_length()
        .is_some_and(|len| len > MAX_BODY as u64)
    {
        return Err(too_large());
    }
    let bytes = req.bytes().await.map_err(internal)?;
    if bytes.len() > MAX_BODY {
        return Err(too_large());
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    req.json_media()?;
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Error::new(
            ErrorCode::InvalidJson,
            "The request body is not valid UTF-8",
        )
    })
}

/// The OpenAPI document, as the build put it among the static assets (`www/openapi.json`,
/// written by `scripts/build-worker.sh`), read through the assets binding: it is static text,
/// and kept out of the Worker it no longer counts against the Worker's size (it was 50 KiB of
/// its gzip upload). A deployment without its `[assets]` table has no document to serve.
async fn openapi(env: &Env) -> Result<String> {
    let missing = |why: &str| {
        Error::new(
            ErrorCode::NotFound,
            format!("This deployment serves no openapi.json ({why}); the document is openapi.json in tokenpad's repository"),
        )
    };
    let Ok(assets) = env.assets("ASSETS") else {
        return Err(missing("it runs without its [assets] table"));
    };
    let mut resp = assets
        .fetch("https://assets.invalid/openapi.json", None)
        .await
        .map_err(internal)?;
    if resp.status_code() != 200 {
        return Err(missing(
            "its assets have no openapi.json: build with scripts/build-worker.sh",
        ));
    }
    resp.text().await.map_err(internal)
}

/// The routes with no key: the index, health, the OpenAPI document, a deployment's page.
async fn open(env: &Env, url: &Target, matched: &Matched) -> Result<Response> {
    let resp = match matched.route {
        deployment::DEPLOYMENT_PAGE => return overview::serve(env, url, &matched.params).await,
        routes::HEALTH => {
            let h = health::health(env).await;
            http::json(if h.ok { 200 } else { 503 }, &h)
        }
        routes::OPEN_API => http::json_text(200, openapi(env).await?),
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
