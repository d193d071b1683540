//! Public-key reads answered at the edge. The merchant's object marks the answer of a
//! public-key read out of private mode as cacheable (`Answer::cacheable`: `Cache-Control:
//! public, max-age=1, stale-while-revalidate=5` and an `ETag`); every other answer says
//! `no-store` and is never kept. A cacheable answer is kept [`MAX_AGE_MS`], in this isolate's
//! memory and in the Workers Cache API (`caches.default`, per location), under the key it was
//! read with and its URL. While kept it is answered from there, without reaching the object
//! (nor its rate budget); a request that finds it gone while another request of this isolate
//! is already asking the object waits for that answer (at most [`WAIT_MS`]). So a polling
//! storm reaches the object about once per key per period, per isolate at most. Nothing
//! older than [`MAX_AGE_MS`] is ever answered from here: after a write, the next period
//! answers it.
//!
//! A request that says `Cache-Control: no-cache` (or `max-age=0`, or `Pragma: no-cache`) is
//! never answered from what is kept: it asks the object, as any standard cache does with it,
//! and its answer is kept for the next. A client that must see a chain's settlement at once
//! (the object's alarm changes the ledger where no edge hears of it) sends it. Such requests
//! spend the caller's rate budget like every request that reaches the object. A conditional
//! request (`If-None-Match`) is answered from what is kept all the same: `fetch()` adds
//! `Cache-Control: no-cache` to every request a script gives an `If-None-Match` (the Fetch
//! standard's HTTP-network-or-cache fetch), so honouring it there would send every ETag poll
//! to the object.
//!
//! `If-None-Match` naming the answer's `ETag` gets 304 with no body, kept or not.
//! `X-Service-Time` on a kept answer is the service clock now (its answer's, plus its age),
//! with `Age` in seconds.

use super::incoming::Incoming;
use super::inflight::{self, InFlight};
use super::trace::Trace;
use crate::http::{self, Returned, PUBLIC_MAX_AGE_S, SERVICE_TIME};
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;
use tokenpad_core::model::time::Millis;
use tokenpad_core::{Error, Result};
use wasm_bindgen::{JsCast, JsValue};
use worker::js_sys::{self, JsString};
use worker::wasm_bindgen_futures::JsFuture;
use worker::{web_sys, Response};

/// How long an answer is kept (ms).
pub const MAX_AGE_MS: Millis = PUBLIC_MAX_AGE_S * 1000;
/// How long a request waits for another request's answer to the same read.
const WAIT_MS: Millis = 500;
/// How long the location's cache may take to say what it keeps, or to take an answer (ms).
const LOOKUP_MS: u64 = 30;
/// The header a kept answer's real time travels in, in the Cache API.
const STORED_AT: &str = "x-tokenpad-stored-at";
/// Says whether the edge answered a public read from what it keeps (`hit`) or the merchant's
/// object did (`miss`).
const CACHE_HEADER: &str = "x-tokenpad-cache";
/// The statements an answer ran, where the object counts them (`objects/merchant/rpc.rs`).
const STATEMENTS: &str = "x-sql-statements";
/// Kept answers at most in one isolate's memory (then the oldest go).
const MAX_KEPT: usize = 2048;

/// A kept answer.
#[derive(Clone)]
struct Kept {
    etag: String,
    cache_control: String,
    /// The service clock when the object answered (UNIX ms).
    service_time: Millis,
    /// Real time when the object was asked.
    stored_at: Millis,
    /// Whether the object counts its SQL statements (`x-sql-statements`, local runs and
    /// tests): a kept answer ran none.
    counted: bool,
    body: JsString,
}

struct Memo {
    kept: HashMap<String, Kept>,
    /// The reads a request of this isolate is asking the object for.
    asking: InFlight,
    /// When a write of each merchant last went through this isolate, and one of the operator
    /// (any merchant): nothing asked before it is answered here any more, so a client sees
    /// its own write at once when it comes back through the same isolate.
    written: HashMap<String, Millis>,
    written_any: Millis,
}

impl Default for Memo {
    fn default() -> Self {
        Self {
            kept: HashMap::new(),
            asking: InFlight::new(WAIT_MS),
            written: HashMap::new(),
            written_any: 0,
        }
    }
}

impl Memo {
    /// Whether `k`, kept for `merchant`, was asked after that merchant's last write here.
    fn after_writes(&self, merchant: &str, k: &Kept) -> bool {
        let written = self.written.get(merchant).copied().unwrap_or(0);
        k.stored_at > written.max(self.written_any)
    }
}

/// A write of `merchant` went through this isolate (its answer came back).
pub fn written(merchant: &str) {
    let now = now();
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.written.len() >= MAX_KEPT {
            m.written.clear();
            m.written_any = now;
        }
        m.written.insert(merchant.to_string(), now);
    });
}

/// An operator's write went through this isolate (the clock, the faucet): any merchant's.
pub fn written_any() {
    let now = now();
    MEMO.with(|m| m.borrow_mut().written_any = now);
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::default();
}

/// The cache key of a public-key read: its path and query as sent, and the key (which may
/// have come in `x-api-key` rather than the URL). Not a URL anyone can ask for.
pub fn key(public_key: &str, path: &str, query: &str) -> String {
    let key = form_urlencoded::byte_serialize(public_key.as_bytes()).collect::<String>();
    format!("https://public-read.tokenpad.internal/{key}{path}?{query}")
}

/// A public-key read the edge may answer from what it keeps: merchant `merchant`'s, under
/// cache key `key` ([`key`]).
pub struct Read<'a> {
    pub merchant: &'a str,
    pub key: &'a str,
    /// The key came in a header, not the URL: the answer is `private` and varies by the key's
    /// headers (`http::keyed_by_header`).
    pub by_header: bool,
}

fn now() -> Millis {
    crate::clock::now_ms()
}

fn fresh(k: &Kept, now: Millis) -> bool {
    now.saturating_sub(k.stored_at) < MAX_AGE_MS
}

fn kept(merchant: &str, key: &str, now: Millis) -> Option<Kept> {
    MEMO.with(|m| {
        let m = m.borrow();
        let k = m.kept.get(key)?;
        (fresh(k, now) && m.after_writes(merchant, k)).then(|| k.clone())
    })
}

fn keep(key: &str, k: Kept) {
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.kept.len() >= MAX_KEPT {
            let now = now();
            m.kept.retain(|_, k| fresh(k, now));
            if m.kept.len() >= MAX_KEPT {
                m.kept.clear();
            }
        }
        m.kept.insert(key.to_string(), k);
    });
}

/// Whether this request asks the object (no other request of the isolate is asking it).
fn claim(key: &str, now: Millis) -> bool {
    MEMO.with(|m| m.borrow_mut().asking.claim(key, now))
}

fn release(key: &str) {
    MEMO.with(|m| m.borrow_mut().asking.release(key));
}

/// Serves a public-key read: kept, or `ask` (the call to the merchant's object).
pub async fn serve(
    req: &Incoming,
    read: Read<'_>,
    ask: impl Future<Output = Result<Returned>>,
    trace: &mut Trace,
) -> Result<Response> {
    let (answer, hit) = answer(req, read, ask).await;
    trace.cache(hit);
    answer
}

/// The answer, and whether it was kept (the object not asked).
async fn answer(
    req: &Incoming,
    read: Read<'_>,
    ask: impl Future<Output = Result<Returned>>,
) -> (Result<Response>, bool) {
    let Read {
        merchant,
        key,
        by_header,
    } = read;
    let if_none_match = req.header("if-none-match");
    let inm = if_none_match.as_deref();
    let start = now();
    let revalidate = inm.is_none() && wants_fresh(req);
    if let Some(k) = kept(merchant, key, start).filter(|_| !revalidate) {
        return (respond(&k, inm, now(), None, by_header), true);
    }
    if revalidate {
        // Straight to the object: not another request's answer, nor the location's cache.
        claim(key, start);
    } else if !claim(key, start) {
        // Another request is asking: its answer, when it comes in time.
        let mut found = None;
        inflight::wait_until(WAIT_MS, || {
            found = kept(merchant, key, now());
            found.is_some()
        })
        .await;
        if let Some(k) = found {
            return (respond(&k, inm, now(), None, by_header), true);
        }
    }
    // The location's cache, when it answers in time: a slow lookup is not worth more than
    // asking the object.
    let cached = if revalidate {
        None
    } else {
        let lookup = Box::pin(from_cache(key, now()));
        let late = worker::Delay::from(Duration::from_millis(LOOKUP_MS));
        match futures_util::future::select(lookup, late).await {
            futures_util::future::Either::Left((found, _)) => found,
            futures_util::future::Either::Right(_) => None,
        }
    }
    .filter(|k| MEMO.with(|m| m.borrow().after_writes(merchant, k)));
    if let Some(k) = cached {
        keep(key, k.clone());
        release(key);
        return (respond(&k, inm, now(), None, by_header), true);
    }
    // Kept from when it was asked: a write that ends while it is asked counts as after it.
    let asked_at = now();
    let answered = ask.await;
    release(key);
    let returned = match answered {
        Ok(r) => r,
        Err(e) => return (Err(e), false),
    };
    let Some(k) = of(&returned, asked_at) else {
        let returned = if by_header {
            returned.keyed_by_header()
        } else {
            returned
        };
        return (returned.into_response().map_err(internal), false);
    };
    keep(key, k.clone());
    // Not waited for longer than a lookup: the put goes on without this answer.
    let put = Box::pin(to_cache(key, &k));
    let late = worker::Delay::from(Duration::from_millis(LOOKUP_MS));
    futures_util::future::select(put, late).await;
    (
        respond(
            &k,
            inm,
            now(),
            Some(returned.header(STATEMENTS).unwrap_or("")),
            by_header,
        ),
        false,
    )
}

/// Whether the request asks not to be answered from a cache without asking the origin
/// (RFC 9111 section 5.2.1: `no-cache`, `max-age=0`; and HTTP/1.0's `Pragma: no-cache`).
fn wants_fresh(req: &Incoming) -> bool {
    let says = |name: &str, what: &[&str]| {
        req.header(name).is_some_and(|v| {
            v.split(',')
                .map(|d| d.trim().to_ascii_lowercase())
                .any(|d| what.contains(&d.as_str()))
        })
    };
    says("cache-control", &["no-cache", "max-age=0"]) || says("pragma", &["no-cache"])
}

/// A cacheable answer as kept (`None`: not one).
fn of(r: &Returned, now: Millis) -> Option<Kept> {
    let cache_control = r.header("cache-control")?;
    if r.status() != 200 || !cache_control.starts_with("public") {
        return None;
    }
    Some(Kept {
        etag: r.header("etag")?.to_string(),
        cache_control: cache_control.to_string(),
        service_time: r
            .header(SERVICE_TIME)
            .and_then(|t| t.parse().ok())
            .unwrap_or(0),
        stored_at: now,
        counted: r.header(STATEMENTS).is_some(),
        body: r.body().clone(),
    })
}

/// The client's answer: 304 when its `If-None-Match` names the kept answer, else the answer.
/// `ran`: the statements the object ran for it (None: kept, it ran none). `by_header`: the
/// key came in a header (`http::keyed_by_header`).
fn respond(
    k: &Kept,
    if_none_match: Option<&str>,
    now: Millis,
    ran: Option<&str>,
    by_header: bool,
) -> Result<Response> {
    let age = now.saturating_sub(k.stored_at);
    let mut headers = vec![
        ("etag".to_string(), k.etag.clone()),
        ("cache-control".to_string(), k.cache_control.clone()),
        ("age".to_string(), (age / 1000).to_string()),
        (
            CACHE_HEADER.to_string(),
            if ran.is_none() { "hit" } else { "miss" }.to_string(),
        ),
    ];
    if k.counted {
        let ran = ran.filter(|r| !r.is_empty()).unwrap_or("0");
        headers.push((STATEMENTS.to_string(), ran.to_string()));
    }
    if k.service_time > 0 {
        headers.push((
            SERVICE_TIME.to_string(),
            k.service_time.saturating_add(age).to_string(),
        ));
    }
    if by_header {
        http::keyed_by_header(&mut headers);
    }
    if if_none_match.is_some_and(|inm| http::none_match(inm, &k.etag)) {
        return Returned::new(304, headers, JsString::from(""))
            .into_response()
            .map_err(internal);
    }
    headers.push((
        "content-type".to_string(),
        "application/json; charset=utf-8".to_string(),
    ));
    Returned::new(200, headers, k.body.clone())
        .into_response()
        .map_err(internal)
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// The location's cache (`caches.default`), if the runtime has one.
fn cache() -> Option<web_sys::Cache> {
    let caches = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("caches")).ok()?;
    let default = js_sys::Reflect::get(&caches, &JsValue::from_str("default")).ok()?;
    default.dyn_into::<web_sys::Cache>().ok()
}

/// The answer the location's cache keeps for `key`, when fresh. Best effort: a cache that
/// fails counts as empty.
async fn from_cache(key: &str, now: Millis) -> Option<Kept> {
    let found = JsFuture::from(cache()?.match_with_str(key)).await.ok()?;
    let resp = found.dyn_into::<web_sys::Response>().ok()?;
    let headers = resp.headers();
    let get = |name: &str| http::header_in(&headers, name);
    let stored_at: Millis = get(STORED_AT)?.parse().ok()?;
    let etag = get("etag")?;
    let cache_control = get("x-tokenpad-cache-control")?;
    let service_time = get(SERVICE_TIME).and_then(|t| t.parse().ok()).unwrap_or(0);
    if now.saturating_sub(stored_at) >= MAX_AGE_MS {
        return None;
    }
    let body = JsFuture::from(resp.text().ok()?).await.ok()?;
    Some(Kept {
        etag,
        cache_control,
        service_time,
        stored_at,
        counted: get(STATEMENTS).is_some(),
        body: body.dyn_into::<JsString>().ok()?,
    })
}

/// Puts an answer in the location's cache, for [`MAX_AGE_MS`]. Best effort.
async fn to_cache(key: &str, k: &Kept) {
    let Some(cache) = cache() else { return };
    let headers = vec![
        ("etag".to_string(), k.etag.clone()),
        (
            "cache-control".to_string(),
            format!("public, max-age={PUBLIC_MAX_AGE_S}"),
        ),
        (
            "x-tokenpad-cache-control".to_string(),
            k.cache_control.clone(),
        ),
        (STORED_AT.to_string(), k.stored_at.to_string()),
        (STATEMENTS.to_string(), "0".to_string()),
        (SERVICE_TIME.to_string(), k.service_time.to_string()),
    ];
    let headers = headers
        .into_iter()
        .filter(|(name, _)| name != STATEMENTS || k.counted)
        .collect();
    let Ok(resp) = Returned::new(200, headers, k.body.clone()).into_response() else {
        return;
    };
    let resp: web_sys::Response = resp.into();
    if let Err(e) = JsFuture::from(cache.put_with_str(key, &resp)).await {
        worker::console_error!("public read cache: {e:?}");
    }
}
