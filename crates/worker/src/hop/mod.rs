//! The hop between the edge and the Durable Objects: typed calls, sent as one JSON text (by
//! RPC to a merchant's object, as a `fetch` body to the registry). The edge matches a
//! merchant request's route and parses its body; the object decodes the typed [`Op`] from
//! them ([`ApiRequest`]) and matches on it. A merchant's object answers with an [`Answer`]:
//! the client's HTTP response as data. The live channel's calls (the edge, the relays and
//! the merchant's object) are in [`live`].

pub mod account;
mod chain;
pub mod live;

pub use chain::{ChainView, LaunchRaise, LedgerLock, OpenPool, StepsView};

use crate::http::{self, Answer, Returned};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Usdc;
use tokenpad_core::model::ids::{DeploymentId, MerchantId};
use tokenpad_core::model::time::Millis;
use tokenpad_core::wire::admin::FaultKind;
use tokenpad_core::wire::decode::parse_json;
use tokenpad_core::wire::health::ChainReport;
use tokenpad_core::wire::op::Parts;
use tokenpad_core::wire::{routes, Op};
use tokenpad_core::{Error, ErrorCode, Result};
use wasm_bindgen::JsCast;
use worker::js_sys::JsString;
use worker::{wasm_bindgen_futures, Env, Method, Request, RequestInit, Response};

/// A merchant API request, as its object receives it.
#[derive(Debug, Serialize, Deserialize)]
pub struct ApiCall {
    /// What the request carried; the object checks it (a key against its stored hash, a
    /// session token against its signing key and the session it names).
    pub credential: Credential,
    /// The request as the edge matched and parsed it; the object decodes its operation
    /// ([`ApiRequest::op`]).
    pub request: ApiRequest,
    /// For operations that change state: the request's Idempotency-Key and fingerprint.
    pub idempotency: Option<Idempotency>,
    /// The service's public base URL, for links in answers.
    pub base_url: String,
    /// The client's address, as budgets count it (`ratelimit::client_address`).
    pub client: String,
}

/// A merchant request as the edge matched it: its route, path parameters, query, and body as
/// canonical JSON text (the text its idempotency fingerprint hashes). It travels as these
/// strings, not as the typed [`Op`], so that one decoder per request type is compiled into
/// the Worker (`Op::decode`, over the parsed body), not a second one for the hop: the typed
/// operation's own serde code had been 12 % of the Worker's code.
#[derive(Debug, Serialize, Deserialize)]
pub struct ApiRequest {
    /// The route's `operationId` (`routes::by_operation_id`).
    pub route: String,
    pub params: Vec<String>,
    pub query: BTreeMap<String, String>,
    /// `null` when the request had no body.
    pub body: String,
}

impl ApiRequest {
    /// The operation the request asks for, or why it cannot be decoded: the object answers
    /// that error only after the credential is checked, like any other refusal.
    pub fn op(&self) -> Result<Op> {
        let route = routes::by_operation_id(&self.route)
            .ok_or_else(|| Error::internal("a merchant call names no known route"))?;
        let body = parse_json(Some(&self.body))?;
        let parts = Parts {
            params: &self.params,
            query: &self.query,
            body: &body,
        };
        Op::decode_routed(route, &parts)
    }

    /// Whether the request's route changes state (`Route::writes`), known before its operation
    /// is decoded; a route it does not name counts as a write, the safe side.
    pub fn writes(&self) -> bool {
        routes::by_operation_id(&self.route).is_none_or(|r| r.writes())
    }
}

pub use tokenpad_core::serve::credential::{session_protocol, Credential, SESSION_PROTOCOL};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Idempotency {
    pub key: String,
    /// What makes two requests "the same": method, path and canonical body, hashed.
    pub fingerprint: String,
}

/// Everything a merchant's object is asked. Operator calls are authorised at the edge.
///
/// The variants with a payload of their own type read it in a function of its own
/// ([`apart`]): inlined, every variant's reader made one 25 KB function that V8 compiled whole
/// at a Worker's first call, whichever variant came.
#[derive(Debug, Serialize, Deserialize)]
pub enum MerchantCall {
    #[serde(deserialize_with = "apart")]
    Api(Box<ApiCall>),
    /// Creates the merchant in its new object.
    #[serde(deserialize_with = "apart")]
    Init(InitArgs),
    /// The service clock moved (local time travel): run what became due.
    Advance { offset_ms: Millis },
    /// Test USDC for one of the merchant's holders.
    Faucet { address: Address, usdc: Usdc },
    /// The next `count` fallible chain submissions fail (local runs and tests).
    ChainFaults { count: u32 },
    /// The data of a deployment's public overview page.
    DeploymentPage { id: DeploymentId, base_url: String },
    /// Test-only fault injection (local runs and tests).
    Fault { kind: FaultKind, count: u32 },
    /// What the ledger says of settlement, for the operator's chain routes (`ChainView`).
    ChainView,
    /// What the ledger says each completed step left on chain, for reconciliation
    /// (`StepsView`).
    StepsView,
    /// Every parked movement goes back to the queue (`ChainRetried`).
    ChainRetry,
    /// A relay asks to admit a client's socket on `GET /live` (`live::WatchCall`), answered
    /// with `live::Admitted` or the refusal.
    #[serde(deserialize_with = "apart")]
    Watch(live::WatchCall),
    /// The dashboard's calls for a logged-in account (`objects::merchant::members`).
    #[serde(deserialize_with = "apart")]
    Members(account::MembersCall),
}

/// `T` read by a function that is never inlined into its caller (see [`MerchantCall`]).
#[inline(never)]
fn apart<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    T::deserialize(d)
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InitArgs {
    pub id: MerchantId,
    pub name: String,
    /// The merchant's first keys (made by the edge, which shows them once): their hashes and
    /// last four characters (absent from an edge of the release before key records).
    pub secret_key_hash: String,
    pub public_key_hash: String,
    #[serde(default)]
    pub secret_key_last4: Option<String>,
    #[serde(default)]
    pub public_key_last4: Option<String>,
    /// The public key itself (public: kept so the dashboard can show it).
    #[serde(default)]
    pub public_key: Option<String>,
    /// The service clock's offset when the merchant is created (after time travel).
    pub offset_ms: Millis,
    /// The account that created it (`POST /account/merchants`): its first owner.
    #[serde(default)]
    pub owner: Option<String>,
}

/// What the registry object is asked.
#[derive(Debug, Serialize, Deserialize)]
pub enum RegistryCall {
    Register {
        id: MerchantId,
        name: String,
    },
    Advance {
        seconds: u64,
    },
    RegisterDeployment {
        id: DeploymentId,
        merchant: MerchantId,
    },
    FindDeployment {
        id: DeploymentId,
    },
    List,
    /// A merchant's settler's latest round, for `/health` (an EVM chain).
    ChainReport {
        merchant: MerchantId,
        report: ChainReport,
    },
    /// Every merchant's latest chain report.
    ChainHealth,
    /// Every merchant's latest chain report, by merchant (`GET /admin/chain`).
    ChainReports,
    /// Test-only: the next `count` RegisterDeployment calls fail.
    Faults {
        count: u32,
    },
}

/// The registry's answer: the clock offset, and what the call asked for.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct RegistryState {
    pub offset_ms: Millis,
    #[serde(default)]
    pub merchants: Vec<MerchantId>,
    #[serde(default)]
    pub deployment_owner: Option<MerchantId>,
    #[serde(default)]
    pub chain_reports: Vec<ChainReport>,
    #[serde(default)]
    pub merchant_reports: Vec<(MerchantId, ChainReport)>,
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// A call to an object that did not come back with an answer: the object was reset or
/// overloaded, or its answer was lost. Whether the operation ran is unknown, so the client
/// is told to retry (503 `unavailable` with Retry-After), which its Idempotency-Key makes
/// safe: a retry replays the first answer if there was one, or runs the operation once.
pub fn unavailable(e: worker::Error) -> Error {
    worker::console_error!("object call failed: {e}");
    Error::new(
        ErrorCode::Unavailable,
        "The service could not complete this request just now; retry it after the Retry-After delay with the same Idempotency-Key",
    )
    .with("retryAfterSeconds", 1)
}

fn request(body: &str) -> Result<Request> {
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_body(Some(wasm_bindgen::JsValue::from_str(body)));
    Request::new_with_init("https://tokenpad.internal/", &init).map_err(internal)
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A merchant object's stub, as its RPC methods (`objects/merchant/rpc.rs`).
    type MerchantRpc;
    #[wasm_bindgen(method, js_name = answerFramed)]
    fn answer_framed(this: &MerchantRpc, call: &str) -> js_sys::Promise;
}

/// Sends a call to merchant `id`'s object, by RPC on its stub; its answer is the client's
/// HTTP response, its body as the call returned it (see [`Returned`]). A call that brings no
/// answer back is `unavailable`.
pub async fn merchant(env: &Env, id: &MerchantId, call: &MerchantCall) -> Result<Returned> {
    let answer = call_merchant(env, id, call).await?;
    Returned::unframe(&answer).ok_or_else(|| not_an_answer(answer.length() as usize))
}

/// The framed text ([`Answer::framed`]) merchant `id`'s object answers `call` with.
async fn call_merchant(env: &Env, id: &MerchantId, call: &MerchantCall) -> Result<JsString> {
    let body = serde_json::to_string(call).map_err(|e| Error::internal(e.to_string()))?;
    let stub = env
        .durable_object("MERCHANT")
        .and_then(|ns| ns.id_from_name(id.as_str())?.get_stub())
        .map_err(internal)?;
    let rpc = stub.into_rpc::<MerchantRpc>();
    let answer = wasm_bindgen_futures::JsFuture::from(rpc.answer_framed(&body))
        .await
        .map_err(|e| unavailable(worker::Error::from(e)))?;
    answer.dyn_into::<JsString>().map_err(|_| not_an_answer(0))
}

/// Its text is not logged: an answer may carry a secret (a webhook's, a session token).
fn not_an_answer(len: usize) -> Error {
    unavailable(worker::Error::RustError(format!(
        "not an answer ({len} long)"
    )))
}

/// Hands a client's WebSocket upgrade request (`GET /live`) to the relay named `relay`
/// (`live::relay_name`), which accepts the socket itself, once merchant `merchant`'s object
/// admitted it. The relay and the merchant travel in headers set here (a client's own values
/// of them are replaced).
pub async fn relay_upgrade(
    env: &Env,
    relay: &str,
    merchant: &MerchantId,
    req: Request,
) -> Result<Response> {
    // A request's own headers cannot change: a copy of them, with ours.
    let headers = req.headers().clone();
    headers.set(live::RELAY_HEADER, relay).map_err(internal)?;
    headers
        .set(live::MERCHANT_HEADER, merchant.as_str())
        .map_err(internal)?;
    let mut init = RequestInit::new();
    init.with_headers(headers);
    let url = req.url().map_err(internal)?;
    let req = Request::new_with_init(url.as_str(), &init).map_err(internal)?;
    relay_stub(env, relay)?
        .fetch_with_request(req)
        .await
        .map_err(unavailable)
}

fn relay_stub(env: &Env, relay: &str) -> Result<worker::Stub> {
    env.durable_object("RELAY")
        .and_then(|ns| ns.id_from_name(relay)?.get_stub())
        .map_err(internal)
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// A relay's stub, as its RPC method (`objects/live/relay.rs`).
    type RelayRpc;
    #[wasm_bindgen(method)]
    fn publish(this: &RelayRpc, call: &str) -> js_sys::Promise;
}

/// Sends a relay what changed (`live::RelayCall`); its answer says which topics it still has
/// sockets for. A relay that does not answer is an error (the object sends again at the next
/// change).
pub async fn relay_publish(
    env: &Env,
    relay: &str,
    call: &live::RelayCall,
) -> Result<live::RelayHeld> {
    let body = serde_json::to_string(call).map_err(|e| Error::internal(e.to_string()))?;
    let rpc = relay_stub(env, relay)?.into_rpc::<RelayRpc>();
    let answer = wasm_bindgen_futures::JsFuture::from(rpc.publish(&body))
        .await
        .map_err(|e| Error::internal(format!("relay: {}", worker::Error::from(e))))?;
    let text = answer
        .as_string()
        .ok_or_else(|| Error::internal("relay: not an answer"))?;
    serde_json::from_str(&text).map_err(|e| Error::internal(format!("relay answer: {e}")))
}

/// Sends a call to merchant `id`'s object and reads its answer as `T` (an error answer is
/// returned as the error it carries).
pub async fn merchant_typed<T: DeserializeOwned>(
    env: &Env,
    id: &MerchantId,
    call: &MerchantCall,
) -> Result<T> {
    let text = String::from(call_merchant(env, id, call).await?);
    let answer = Answer::unframe(&text).ok_or_else(|| not_an_answer(text.len()))?;
    if !(200..300).contains(&answer.status) {
        return Err(http::error_from_body(&answer.body));
    }
    serde_json::from_str(&answer.body).map_err(|e| Error::internal(format!("merchant answer: {e}")))
}

/// Sends a call to the one registry object.
pub async fn registry(env: &Env, call: &RegistryCall) -> Result<RegistryState> {
    let body = serde_json::to_string(call).map_err(|e| Error::internal(e.to_string()))?;
    let stub = env
        .durable_object("REGISTRY")
        .and_then(|ns| ns.id_from_name("registry")?.get_stub())
        .map_err(internal)?;
    fetch_json(&stub, &body, "registry").await
}

/// Sends a call's JSON `body` to an object's `stub` as a `fetch` (the registry's and the
/// accounts' hop); the answer as `T`, or the error its body names when it is not a 200 (those
/// objects answer 200 or an error). `what` names the object when the answer does not read.
pub async fn fetch_json<T: DeserializeOwned>(
    stub: &worker::Stub,
    body: &str,
    what: &str,
) -> Result<T> {
    let mut resp = stub
        .fetch_with_request(request(body)?)
        .await
        .map_err(unavailable)?;
    let text = resp.text().await.map_err(unavailable)?;
    if resp.status_code() != 200 {
        return Err(http::error_from_body(&text));
    }
    serde_json::from_str(&text).map_err(|e| Error::internal(format!("{what} answer: {e}")))
}

/// Reads a call from a request body (the objects' side of the hop).
pub async fn read<T: DeserializeOwned>(mut req: Request) -> Result<T> {
    parse(&req.text().await.map_err(internal)?)
}

/// A call's JSON text (a `fetch` body, or an RPC argument) as `T`.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::internal(format!("bad call: {e}")))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{session_protocol, Credential};
    use std::borrow::Cow;

    fn of(public_key: Option<&str>, headers: &[(&str, &str)]) -> Option<Credential> {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let query = public_key.map(|k| (Cow::Borrowed("publicKey"), Cow::Borrowed(k)));
        Credential::of_upgrade(query, |name| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
        .ok()
    }

    #[test]
    fn the_session_protocol_carries_the_token_after_it() {
        assert_eq!(
            session_protocol("tokenpad-session, eyJa.b.c"),
            Some("eyJa.b.c")
        );
        assert_eq!(
            session_protocol("chat,tokenpad-session,eyJa.b.c"),
            Some("eyJa.b.c")
        );
        assert_eq!(session_protocol("tokenpad-session"), None);
        assert_eq!(session_protocol("eyJa.b.c, tokenpad-session"), None);
        assert_eq!(session_protocol("chat, eyJa.b.c"), None);
    }

    #[test]
    fn an_upgrade_names_its_credential_as_a_request_does() {
        let key = |c: Option<Credential>| match c {
            Some(Credential::Key(k)) => format!("key {k}"),
            Some(Credential::Session(t)) => format!("session {t}"),
            None => "none".into(),
        };
        let proto = ("sec-websocket-protocol", "tokenpad-session, eyJt");
        assert_eq!(key(of(Some("pk_a"), &[])), "key pk_a");
        assert_eq!(key(of(Some("pk_a"), &[proto])), "session eyJt");
        assert_eq!(key(of(None, &[("x-api-key", "sk_b"), proto])), "key sk_b");
        assert_eq!(
            key(of(None, &[("authorization", "Bearer eyJu")])),
            "session eyJu"
        );
        assert_eq!(
            key(of(None, &[("authorization", "bearer sk_b_1")])),
            "key sk_b_1"
        );
        assert_eq!(key(of(None, &[("authorization", "Basic eyJu")])), "none");
        assert_eq!(key(of(None, &[])), "none");
    }
}
