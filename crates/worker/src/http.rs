//! The one place errors become HTTP. Every response body is JSON built here; every status
//! comes from `ErrorCode::status`. Internal errors are logged with their detail and answered
//! with a generic message, so no internals (and no secrets) reach a client.
//!
//! An answer is built as data ([`Answer`]) and becomes a `Response` once, where it is sent:
//! every header set on a `Response` is a call into JavaScript, and a merchant's object never
//! sends one (its answer crosses to the edge as JSON text).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use tokenpad_core::{Error, ErrorCode};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use worker::js_sys::{self as js_sys, JsString};
use worker::{Headers, Request, Response};

/// What a browser may send besides the basics: the credentials, the idempotency key, and
/// `Cache-Control` (a public read asking past the edge's copy, `edge/cached.rs`).
pub const CORS_ALLOW_HEADERS: &str =
    "content-type, x-api-key, authorization, idempotency-key, x-idempotency-key, cache-control";
/// What a browser may read of an answer besides the basics: when to retry (429), the request
/// id to quote in a report, the service clock (so countdowns agree with the service), and a
/// cacheable public read's tag (to send as `If-None-Match`) and whether the edge answered it.
pub const CORS_EXPOSE_HEADERS: &str =
    "retry-after, x-request-id, x-service-time, idempotent-replayed, etag, x-tokenpad-cache";

/// An HTTP answer as data: its status, headers and text body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    /// A JSON answer from text already serialized.
    pub fn json_text(status: u16, body: String) -> Answer {
        Answer {
            status,
            headers: vec![
                (
                    "content-type".into(),
                    "application/json; charset=utf-8".into(),
                ),
                ("cache-control".into(), "no-store".into()),
            ],
            body,
        }
    }

    /// A JSON answer of any serializable body.
    pub fn json<T: Serialize + ?Sized>(status: u16, body: &T) -> tokenpad_core::Result<Answer> {
        let text = encode(body).map_err(|e| Error::internal(format!("encode: {e}")))?;
        Ok(Answer::json_text(status, text))
    }

    /// An error's answer: its status, its body, its code for the edge's log line, and when to
    /// come back where that is known.
    pub fn error(err: &Error) -> Answer {
        if err.code == ErrorCode::Internal {
            worker::console_error!("internal error: {}", err.message);
        }
        // A JSON value's text (its keys sorted).
        let mut answer = Answer::json_text(err.status(), err.to_body().to_string())
            .with_header(ERROR_CODE_HEADER, err.code.as_str());
        // They say when to come back: a full bucket, an object that could not answer, a
        // login throttle's window.
        if matches!(
            err.code,
            ErrorCode::RateLimited | ErrorCode::Unavailable | ErrorCode::TooManyAttempts
        ) {
            let seconds = err
                .details
                .as_ref()
                .and_then(|d| d.get("retryAfterSeconds"))
                .and_then(Value::as_u64)
                .unwrap_or(1);
            answer = answer.with_header("retry-after", seconds.to_string());
        }
        answer
    }

    /// The answer of a public-key read, which the edge and browsers may keep for
    /// [`PUBLIC_MAX_AGE_S`] (`edge/cached.rs`): `Cache-Control` says so, and `ETag` names its
    /// body (a digest of it).
    pub fn cacheable(mut self) -> Answer {
        self.headers.retain(|(name, _)| name != "cache-control");
        let etag = etag_of(&self.body);
        self.headers
            .push(("cache-control".into(), PUBLIC_CACHE_CONTROL.into()));
        self.headers.push(("etag".into(), etag));
        self
    }

    /// The answer with the service clock at which it was made ([`SERVICE_TIME`]): live push
    /// and the edge's cache order states by it.
    pub fn stamped(self, now: tokenpad_core::model::time::Millis) -> Answer {
        self.with_header(SERVICE_TIME, now.to_string())
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Answer {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    /// The answer as it crosses from a merchant's object to the edge (`answerFramed`): its
    /// status and headers as one line of JSON, a newline, then the body as it is. As one JSON
    /// document the body was escaped into a string and read back out of one, every quote of
    /// it twice: a tenth of a 50-record history page's CPU. Compact JSON has no raw newline,
    /// so the first one ends the head.
    pub fn framed(&self) -> Result<String, serde_json::Error> {
        let head = serde_json::to_string(&Head {
            status: self.status,
            headers: Cow::Borrowed(&self.headers),
        })?;
        Ok(format!("{head}\n{}", self.body))
    }

    /// An answer read back from [`Answer::framed`] text: `None` when it is not one.
    pub fn unframe(text: &str) -> Option<Answer> {
        let (head, body) = text.split_once('\n')?;
        let head = Head::read(head)?;
        Some(Answer {
            status: head.status,
            headers: head.headers.into_owned(),
            body: body.to_string(),
        })
    }

    /// The response to send (its headers still mutable, for the edge's own).
    pub fn into_response(self) -> worker::Result<Response> {
        let body = JsValue::from_str(&self.body);
        response(self.status, &self.headers, body)
    }
}

/// The header that carries the service clock (UNIX ms) on every answer of an operation.
pub const SERVICE_TIME: &str = "x-service-time";

/// How long a public-key read may be kept, at the edge and by browsers (seconds): a polling
/// storm reaches the merchant's object about once per key per period, and no answer older
/// than this is ever served by the edge.
pub const PUBLIC_MAX_AGE_S: u64 = 1;
/// A public-key read's `Cache-Control`: fresh for [`PUBLIC_MAX_AGE_S`], and a browser or proxy
/// may show it a few seconds more while it asks again. Private mode and session reads answer
/// `no-store`, as every other answer does.
pub const PUBLIC_CACHE_CONTROL: &str = "public, max-age=1, stale-while-revalidate=5";

/// What a public-key read whose key came in a header varies by ([`keyed_by_header`]).
pub const VARY_KEY_HEADERS: &str = "x-api-key, authorization";

/// The headers of a public-key read whose key came in a header (`x-api-key`, `Authorization:
/// Bearer`) rather than the URL's `publicKey`: its URL does not say whose answer it is, so
/// no shared cache may keep it. Its `Cache-Control` says `private` where it said `public`
/// (the browser's own cache still keeps it its second), and `Vary` names the key's headers
/// (so a browser holding two merchants' keys never answers one with the other's). Why both:
/// `Vary` alone is not enough, as shared caches that ignore it exist (Cloudflare's keeps
/// one copy per URL whatever `Vary` says). A read keyed by its URL stays `public`: the URL
/// names the key, so a cache keeps one answer per key anyway.
pub fn keyed_by_header(headers: &mut Vec<(String, String)>) {
    for (name, value) in headers.iter_mut() {
        if name == "cache-control" {
            if let Some(rest) = value.strip_prefix("public") {
                *value = format!("private{rest}");
            }
        }
    }
    headers.retain(|(name, _)| name != "vary");
    headers.push(("vary".into(), VARY_KEY_HEADERS.into()));
}

/// A body's entity tag: a strong validator, the first 128 bits of its SHA-256 in hex.
pub fn etag_of(body: &str) -> String {
    let hex = tokenpad_core::crypto::sha256_hex(body.as_bytes());
    format!("\"{}\"", hex.get(..32).unwrap_or(&hex))
}

/// Whether an `If-None-Match` value matches entity tag `etag` (`*`, or one of its list; a
/// weak `W/` prefix compares equal, as RFC 9110's weak comparison does).
pub fn none_match(if_none_match: &str, etag: &str) -> bool {
    let bare = |t: &str| t.trim().trim_start_matches("W/").to_string();
    if_none_match
        .split(',')
        .any(|t| t.trim() == "*" || bare(t) == bare(etag))
}

/// A `Response` of `status` with `headers` and `body` (a JavaScript string), built in one
/// call into JavaScript: the headers cross as one JSON text (`[[name, value], ...]`) and are
/// set there in turn (a name given twice keeps its last value), where setting them from
/// here crossed two strings and made a call for each. Measured on the front's isolate
/// (`bench/profile.mjs --isolate front`), the headers set from here and the `Response` built
/// from them were 18 % of a spend's samples.
/// A status that may carry no body (none the object answers today) gets none.
fn response(status: u16, headers: &[(String, String)], body: JsValue) -> worker::Result<Response> {
    let headers =
        serde_json::to_string(headers).map_err(|e| worker::Error::RustError(e.to_string()))?;
    let body = if matches!(status, 204 | 205 | 304) {
        JsValue::NULL
    } else {
        body
    };
    Ok(Response::from(respond(status, &headers, &body)?))
}

#[wasm_bindgen(inline_js = "
export function respond(status, pairs, body) {
  const headers = new Headers();
  set_all(headers, JSON.parse(pairs));
  return new Response(body, { status, headers });
}
export function set_all(headers, pairs) {
  for (const [name, value] of pairs) headers.set(name, value);
}
")]
extern "C" {
    #[wasm_bindgen(catch)]
    fn respond(
        status: u16,
        pairs: &str,
        body: &JsValue,
    ) -> Result<worker::web_sys::Response, JsValue>;
    #[wasm_bindgen(catch)]
    fn set_all(headers: &worker::web_sys::Headers, pairs: &js_sys::Array) -> Result<(), JsValue>;
}

/// An answer's head as [`Answer::framed`] writes it (borrowed) and `unframe` reads it (owned).
#[derive(Serialize, Deserialize)]
struct Head<'a> {
    status: u16,
    headers: Cow<'a, [(String, String)]>,
}

impl Head<'static> {
    fn read(text: &str) -> Option<Head<'static>> {
        serde_json::from_str(text).ok()
    }
}

/// A merchant object's answer as the edge receives it for a client (`hop::merchant`): its
/// head read into wasm, its body left the JavaScript string the call returned, and the
/// client's response built from that string. Read into wasm and written out again, a 50-record
/// history page's body (about 20 KB) was copied twice and transcoded from UTF-16 to UTF-8 on
/// the way in: 7 % of the page's CPU in a profile. The response still carries a
/// Content-Length (the runtime knows a string body's length; `tests/http/url_and_body`).
pub struct Returned {
    status: u16,
    headers: Vec<(String, String)>,
    body: JsString,
}

impl Returned {
    /// The answer in framed text ([`Answer::framed`]); `None` when it is not one. JavaScript
    /// indexes a string by UTF-16 unit, and both the search and the slices below do.
    pub fn unframe(text: &JsString) -> Option<Returned> {
        let end = u32::try_from(text.index_of("\n", 0)).ok()?;
        let head = Head::read(&String::from(text.slice(0, end)))?;
        Some(Returned {
            status: head.status,
            headers: head.headers.into_owned(),
            body: text.slice(end + 1, text.length()),
        })
    }

    /// An answer the edge builds itself (`edge/cached.rs`: one kept a moment).
    pub fn new(status: u16, headers: Vec<(String, String)>, body: JsString) -> Returned {
        Returned {
            status,
            headers,
            body,
        }
    }

    pub fn status(&self) -> u16 {
        self.status
    }

    /// A header's value (names are lower case in an answer).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn body(&self) -> &JsString {
        &self.body
    }

    /// The answer to a public-key read whose key came in a header ([`keyed_by_header`]).
    pub fn keyed_by_header(mut self) -> Returned {
        keyed_by_header(&mut self.headers);
        self
    }

    /// The response to send (its headers still mutable, for the edge's own), its body the
    /// JavaScript string as it came (web-sys's constructors take a Rust `&str`, which would
    /// be copied out of wasm).
    pub fn into_response(self) -> worker::Result<Response> {
        response(self.status, &self.headers, self.body.into())
    }
}

/// A JSON response from text already serialized.
pub fn json_text(status: u16, body: String) -> worker::Result<Response> {
    Answer::json_text(status, body).into_response()
}

/// A body as the JSON text the service answers with: each object's fields in the order its
/// wire type declares them (a map's keys sorted), so the same answer is always the same
/// bytes. Until this release every body went through a `serde_json::Value` to sort its keys:
/// building that tree was a tenth of a 100-holder token read's CPU and a fifth of a
/// 50-record history page's. A flattened field must not repeat its parent's name (the value
/// tree kept the last; this writes both): the HTTP suite checks every answer for a repeated
/// key.
pub fn encode<T: Serialize + ?Sized>(body: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(body)
}

/// A JSON response of any serializable body.
pub fn json<T: Serialize + ?Sized>(status: u16, body: &T) -> worker::Result<Response> {
    Answer::json(status, body)
        .map_err(|e| worker::Error::RustError(e.message))?
        .into_response()
}

/// The error code of an error answer, for the edge's log line (`edge::trace` reads it and
/// takes it off the answer).
pub const ERROR_CODE_HEADER: &str = "tokenpad-error-code";

pub fn error(err: &Error) -> worker::Result<Response> {
    Answer::error(err).into_response()
}

/// The error an error body describes (an object's answer read back at the edge).
pub fn error_from_body(text: &str) -> Error {
    let v: Value = serde_json::from_str(text).unwrap_or_default();
    let code = v
        .get("code")
        .and_then(Value::as_str)
        .and_then(ErrorCode::parse)
        .unwrap_or(ErrorCode::Internal);
    let message = v
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("internal error")
        .to_string();
    let mut e = Error::new(code, message);
    e.details = v.get("details").and_then(Value::as_object).cloned();
    e
}

/// Adds the CORS headers a public-key route's answer carries: any origin may read it, and
/// these of its headers ([`CORS_EXPOSE_HEADERS`]). Set in one call into JavaScript, from
/// pairs made once per isolate (five header sets each crossing two strings were 3 % of a
/// public route's front in a profile). The headers only a preflight's answer is read for are
/// [`with_preflight`]'s: on every other answer they were three more headers per request to
/// build, send and, locally, pass through wrangler's proxy.
pub fn with_cors(resp: Response) -> worker::Result<Response> {
    thread_local! {
        static CORS: js_sys::Array = pairs(&[
            ("access-control-allow-origin", "*"),
            ("access-control-expose-headers", CORS_EXPOSE_HEADERS),
        ]);
    }
    CORS.with(|cors| set_pairs(resp, cors))
}

/// Adds the CORS headers of the 204 a public-key route answers a preflight (`OPTIONS`) with:
/// any origin, the methods and request headers a browser may use, and how long it may keep
/// this answer (a day).
pub fn with_preflight(resp: Response) -> worker::Result<Response> {
    thread_local! {
        static PREFLIGHT: js_sys::Array = pairs(&[
            ("access-control-allow-origin", "*"),
            // POST: the holder routes a session token acts on (buy-presale, transfer, spend).
            ("access-control-allow-methods", "GET, POST, OPTIONS"),
            ("access-control-allow-headers", CORS_ALLOW_HEADERS),
            ("access-control-max-age", "86400"),
        ]);
    }
    PREFLIGHT.with(|preflight| set_pairs(resp, preflight))
}

/// Header pairs as `set_all` takes them: an array of `[name, value]` arrays.
fn pairs(list: &[(&str, &str)]) -> js_sys::Array {
    list.iter()
        .map(|(name, value)| js_sys::Array::of2(&(*name).into(), &(*value).into()))
        .collect()
}

/// Sets every pair of `pairs` on `resp`'s headers, in one call into JavaScript.
fn set_pairs(resp: Response, pairs: &js_sys::Array) -> worker::Result<Response> {
    edit_headers(resp, |headers| {
        set_all(&headers.0, pairs).map_err(worker::Error::from)
    })
}

/// Applies `change` to `resp`'s headers: in place when they may change (every response the
/// service builds), else to a copy (a response that came back from a `fetch`, such as an
/// object's refusal of a WebSocket upgrade, has immutable headers).
pub fn edit_headers(
    resp: Response,
    change: impl Fn(&Headers) -> worker::Result<()>,
) -> worker::Result<Response> {
    if change(resp.headers()).is_ok() {
        return Ok(resp);
    }
    let headers = resp.headers().clone();
    change(&headers)?;
    Ok(resp.with_headers(headers))
}

/// A request header's value; an empty one counts as absent.
pub fn header(req: &Request, name: &str) -> Option<String> {
    header_in(&req.headers().0, name)
}

/// A header's value in `headers`; an empty one counts as absent.
pub fn header_in(headers: &worker::web_sys::Headers, name: &str) -> Option<String> {
    headers.get(name).ok().flatten().filter(|v| !v.is_empty())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::Answer;

    #[test]
    fn an_answer_crosses_framed_and_comes_back_the_same() {
        let bodies = ["", "{\"a\":\"x\\\"y\"}", "line one\nline two\n", "\n"];
        for body in bodies {
            let answer = Answer::json_text(201, body.to_string()).with_header("x-a", "b\nc");
            let framed = answer.framed().unwrap();
            let back = Answer::unframe(&framed).unwrap();
            assert_eq!(
                (back.status, &back.headers, back.body.as_str()),
                (201, &answer.headers, body),
                "{framed:?}"
            );
        }
        // Text that is no framed answer: no head line, or a head that is not one.
        for text in [
            r#"{"status":404,"headers":[],"body":""}"#,
            "{}\n{}",
            "oops\n",
        ] {
            assert!(Answer::unframe(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn a_public_read_is_cacheable_with_its_etag() {
        let a = Answer::json_text(200, "{\"a\":1}".into()).cacheable();
        let get = |n: &str| {
            a.headers
                .iter()
                .filter(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(get("cache-control"), [super::PUBLIC_CACHE_CONTROL]);
        let etag = get("etag")[0].to_string();
        assert_eq!(etag.len(), 34);
        assert!(super::none_match(&etag, &etag));
        assert!(super::none_match(&format!("W/{etag}, \"x\""), &etag));
        assert!(super::none_match("*", &etag));
        assert!(!super::none_match("\"x\"", &etag));
    }

    #[test]
    fn a_public_read_keyed_by_a_header_is_private_and_varies_by_it() {
        let mut headers = Answer::json_text(200, "{}".into()).cacheable().headers;
        headers.push(("vary".into(), "origin".into()));
        super::keyed_by_header(&mut headers);
        let get = |n: &str| {
            headers
                .iter()
                .filter(|(k, _)| k == n)
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            get("cache-control"),
            ["private, max-age=1, stale-while-revalidate=5"]
        );
        assert_eq!(get("vary"), [super::VARY_KEY_HEADERS]);
        // An answer no cache keeps stays so.
        let mut refused = Answer::json_text(404, "{}".into()).headers;
        super::keyed_by_header(&mut refused);
        assert!(refused.contains(&("cache-control".into(), "no-store".into())));
    }
}
