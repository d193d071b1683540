//! Request ids and the request log. Every answer carries `x-request-id` (the request's own
//! when it sent a safe one, [`safe_request_id`]: 1 to 128 letters, digits and `-_.:`, nothing
//! shaped like a key or secret; else a fresh `req_...`),
//! and every request writes one JSON log line: its id, method, route pattern (never the
//! path, which may carry a userId), the merchant its key names, the status, the error code
//! and how long it took. Never a key, a URL, a body or a secret. `REQUEST_LOG` chooses which
//! requests write it ([`RequestLog`]).

use super::incoming::Incoming;
use crate::adapters::wallet::random;
use crate::config;
use crate::http::{self, ERROR_CODE_HEADER};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::wire::routes::Matched;
use worker::{Env, Response};

pub const REQUEST_ID: &str = "x-request-id";

/// The longest request id taken from a request.
const MAX_ID_LEN: usize = 128;
/// The longest run of letters and digits a request id taken from a request may hold: a longer
/// one may be a secret (a key's 64 hex digits, a private key, a 128-bit token), and an id is
/// echoed and logged. Ids of the usual kinds fit: UUIDs (runs of 12), ULIDs (26), ours (24).
const MAX_RUN: usize = 31;
/// How the service's keys and secrets start (`sk_`, `pk_`: API keys; `whsec_`: a webhook's
/// signing secret; `eyJ`: a JWT, which a holder's session token is).
const KEY_PREFIXES: [&str; 4] = ["sk_", "pk_", "whsec_", "eyj"];

/// Whether `id`, a request's own `x-request-id`, is a safe token to echo and log: 1 to
/// [`MAX_ID_LEN`] letters, digits and `-_.:`, with no run of more than [`MAX_RUN`] letters and
/// digits, no word starting like a key or secret ([`KEY_PREFIXES`], any case), and not holding
/// the operator's admin key (`admin_key`). Anything else is replaced by a fresh id, unseen.
pub fn safe_request_id(id: &str, admin_key: Option<&str>) -> bool {
    let bytes = id.as_bytes();
    if bytes.is_empty()
        || bytes.len() > MAX_ID_LEN
        || !bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
    {
        return false;
    }
    let longest_run = bytes
        .split(|b| !b.is_ascii_alphanumeric())
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let lower = id.to_ascii_lowercase();
    // A word starts at the beginning or after a character that is not a letter or digit.
    let keyish = (0..bytes.len())
        .filter(|&i| i == 0 || bytes.get(i - 1).is_some_and(|b| !b.is_ascii_alphanumeric()))
        .any(|i| {
            lower
                .get(i..)
                .is_some_and(|rest| KEY_PREFIXES.iter().any(|p| rest.starts_with(p)))
        });
    let admin = admin_key
        .filter(|k| !k.is_empty())
        .is_some_and(|k| lower.contains(&k.to_ascii_lowercase()));
    longest_run <= MAX_RUN && !keyish && !admin
}

/// The request's own id, when it is a safe one ([`safe_request_id`]).
fn incoming(req: &Incoming, admin_key: Option<&str>) -> Option<String> {
    req.header(REQUEST_ID)
        .filter(|id| safe_request_id(id, admin_key))
}

thread_local! {
    /// This isolate's request-id prefix (8 random bytes, drawn once) and its counter.
    static IDS: std::cell::RefCell<Option<([u8; 8], u32)>> = const { std::cell::RefCell::new(None) };
}

/// A fresh request id, `req_` and 24 hex digits: this isolate's random prefix and a counter,
/// unique without asking the runtime for randomness on every request.
fn fresh() -> String {
    IDS.with(|ids| {
        let mut ids = ids.borrow_mut();
        let (prefix, n) = ids.get_or_insert_with(|| {
            let prefix = random::<8>().unwrap_or_else(|_| crate::clock::now_ms().to_be_bytes());
            (prefix, 0)
        });
        *n = n.wrapping_add(1);
        format!("req_{}{:08x}", hex::encode(*prefix), n)
    })
}

/// Which requests write their log line: the var `REQUEST_LOG` (any case). `all` (the default,
/// and what any other value means): every request. `errors`: those answered 400 or above. `off`: none
/// (the service's own error lines, such as an internal error's detail, are written still).
/// Where a line costs (locally each one crosses wrangler's inspector; on Cloudflare, Workers
/// Logs bills per line beyond its allowance), an operator chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestLog {
    All,
    Errors,
    Off,
}

impl RequestLog {
    pub fn parse(value: Option<&str>) -> RequestLog {
        let value = value.map(str::trim).unwrap_or_default();
        if value.eq_ignore_ascii_case("errors") {
            RequestLog::Errors
        } else if value.eq_ignore_ascii_case("off") {
            RequestLog::Off
        } else {
            RequestLog::All
        }
    }

    /// Whether an answer with this status writes its line.
    pub fn writes(self, status: u16) -> bool {
        match self {
            RequestLog::All => true,
            RequestLog::Errors => status >= 400,
            RequestLog::Off => false,
        }
    }
}

/// What a request's log line names, filled in by `super::handle` as it learns it (the route
/// once matched, the merchant once a key, token or admin path names one): the request is
/// routed and its key read once, for the answer and the log alike.
#[derive(Default)]
pub struct Trace {
    route: Option<&'static str>,
    merchant: Option<String>,
    /// A public-key read: answered by the edge (`hit`) or by the merchant's object (`miss`).
    cache: Option<&'static str>,
}

impl Trace {
    /// The request matched `m`; an admin route about one merchant names it in its path.
    pub fn routed(&mut self, m: &Matched) {
        self.route = Some(m.pattern);
        let named = m
            .pattern
            .split('/')
            .filter(|s| s.starts_with(':'))
            .position(|s| s == ":merchantId")
            .and_then(|i| m.params.get(i))
            .filter(|id| MerchantId::is_valid(id));
        if let Some(id) = named {
            self.merchant = Some(id.clone());
        }
    }

    /// A public-key read was answered from what the edge keeps (`edge/cached.rs`), or not.
    pub fn cache(&mut self, hit: bool) {
        self.cache = Some(if hit { "hit" } else { "miss" });
    }

    /// The merchant the request's key or session token names.
    pub fn merchant(&mut self, id: &MerchantId) {
        self.merchant = Some(id.as_str().to_string());
    }
}

/// Serves a request (`super::handle`), with its request id and its log line.
pub async fn serve(req: Incoming, env: &Env) -> worker::Result<Response> {
    let started = crate::clock::now_ms();
    let method = req.method();
    let admin_key = config::string(env, "ADMIN_API_KEY");
    let id = incoming(&req, admin_key.as_deref()).unwrap_or_else(fresh);
    let mut trace = Trace::default();
    let resp = match super::handle(req, &method, env, &mut trace).await {
        Ok(resp) => resp,
        Err(e) => http::error(&e)?,
    };
    let status = resp.status_code();
    let log = RequestLog::parse(config::string(env, "REQUEST_LOG").as_deref()).writes(status);
    let code = if log {
        resp.headers().get(ERROR_CODE_HEADER).ok().flatten()
    } else {
        None
    };
    // A WebSocket upgrade goes back as it came (its socket is part of the answer).
    let resp = if status == 101 {
        resp
    } else {
        http::edit_headers(resp, |headers| {
            headers.set(REQUEST_ID, &id)?;
            headers.delete(ERROR_CODE_HEADER)
        })?
    };
    if !log {
        return Ok(resp);
    }
    let replayed = resp.headers().has("idempotent-replayed").unwrap_or(false);
    let line = serde_json::json!({
        "type": "request",
        "requestId": id,
        "method": method,
        "route": trace.route,
        "merchantId": trace.merchant,
        "status": status,
        "code": code,
        "replayed": replayed,
        "cache": trace.cache,
        "durationMs": crate::clock::now_ms().saturating_sub(started),
    });
    if status >= 500 {
        worker::console_error!("{line}");
    } else {
        log_soon(&line.to_string());
    }
    Ok(resp)
}

// The line is printed from a microtask of its own, right after this request's code returns,
// still within the request. Where an inspector is attached (wrangler dev attaches one),
// each console call is sent with its stack trace, and this function runs deep in wasm under
// the runtime's and wasm-bindgen's futures: printed from here, the line cost a holder read
// 0.13 ms of workerd's CPU more (about a tenth of the read) than printed from an empty
// stack. An error's line (5xx) is printed at once, beside the error logged before it.
#[wasm_bindgen::prelude::wasm_bindgen(
    inline_js = "export function log_soon(line) { queueMicrotask(() => console.log(line)); }"
)]
extern "C" {
    fn log_soon(line: &str);
}

#[cfg(test)]
mod tests {
    use super::{safe_request_id, RequestLog};

    #[test]
    fn only_safe_request_ids_are_taken() {
        let sk = format!("sk_{}_{}", "ab".repeat(16), "cd".repeat(32));
        let pk = format!("pk_{}_{}", "ab".repeat(16), "ef".repeat(16));
        for ok in [
            "trace-abc_1.2:3",
            "550e8400-e29b-41d4-a716-446655440000",
            "01ARZ3NDEKTSV4RRFFQ69G5FAV",
            "req_0123456789abcdef01234567",
            "task_force",
            "desk-sk",
            "log-1732912345678",
            &"a-".repeat(64),
        ] {
            assert!(safe_request_id(ok, Some("dev-admin-key")), "{ok:?}");
        }
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiJtIn0.c2ln";
        let hex32 = "0123456789abcdef0123456789abcdef";
        let private_key = format!("0x{}", "1f".repeat(32));
        let long = "x".repeat(129);
        for bad in [
            "",
            "a b",
            "a<script>",
            "ключ",
            long.as_str(),
            sk.as_str(),
            &sk.to_uppercase(),
            pk.as_str(),
            "sk_live_short",
            "Sk_typo",
            "trace-sk_abc",
            "x.pk_1",
            "whsec_0011",
            jwt,
            hex32,
            private_key.as_str(),
            "trace-my-admin-key-here",
            "TRACE-MY-ADMIN-KEY",
        ] {
            assert!(!safe_request_id(bad, Some("my-admin-key")), "{bad:?}");
        }
        // Without an admin key configured, nothing is refused for holding one.
        assert!(safe_request_id("trace-my-admin-key", None));
        assert!(safe_request_id("trace-my-admin-key", Some("")));
    }

    #[test]
    fn request_log_settings() {
        let cases: [(Option<&str>, RequestLog, [bool; 4]); 6] = [
            // the setting, what it reads as, whether 200, 404, 429, 500 write a line
            (None, RequestLog::All, [true, true, true, true]),
            (Some("all"), RequestLog::All, [true, true, true, true]),
            (
                Some(" errors "),
                RequestLog::Errors,
                [false, true, true, true],
            ),
            (Some("off"), RequestLog::Off, [false, false, false, false]),
            (Some("OFF"), RequestLog::Off, [false, false, false, false]),
            (Some("none"), RequestLog::All, [true, true, true, true]),
        ];
        for (value, reads, writes) in cases {
            let setting = RequestLog::parse(value);
            assert_eq!(setting, reads, "{value:?}");
            let got = [200, 404, 429, 500].map(|s| setting.writes(s));
            assert_eq!(got, writes, "{value:?}");
        }
    }
}
