//! The public-key client: builds the URLs, reads the answers, turns failures into errors with
//! stable codes. The HTTP itself goes through [`Transport`], so this logic is tested natively
//! with a fake; in the browser (and Node) the transport is `fetch`, through gloo-net.

use crate::wire::{self, HolderFull, Presale, Token, TokenBalance};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;

/// Used when the options give no `timeoutMs`.
pub const DEFAULT_TIMEOUT_MS: u32 = 10_000;

/// An HTTP answer: status and body text (never parsed by the transport).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// Why no answer arrived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportError {
    /// The request could not be made or the connection failed (offline, DNS, CORS, refused).
    Network(String),
    /// No complete answer within the timeout.
    Timeout,
}

/// One GET with a timeout. The seam between the client's logic and the network.
pub trait Transport {
    fn get(
        &self,
        url: &str,
        timeout_ms: u32,
    ) -> impl Future<Output = Result<HttpResponse, TransportError>>;
}

/// A failure, as JavaScript sees it: `code` (stable, snake_case), `status` (HTTP status, 0
/// when no answer arrived), `message` (for people) and the service's `details`, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientError {
    pub code: String,
    pub status: u16,
    pub message: String,
    pub details: Option<Value>,
}

impl ClientError {
    pub fn new(code: &str, status: u16, message: impl Into<String>) -> ClientError {
        ClientError {
            code: code.into(),
            status,
            message: message.into(),
            details: None,
        }
    }

    /// A key that must never reach a browser.
    pub fn secret_key() -> ClientError {
        ClientError::new(
            "secret_key_refused",
            0,
            "A secret key (sk_...) must never be used in a browser: pass the public key (pk_...)",
        )
    }
}

/// What `new TokenpadClient(options)` was given, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    /// `https://host[:port][/prefix]`, without a trailing slash.
    pub base_url: String,
    pub public_key: Option<String>,
    pub timeout_ms: u32,
}

impl ClientConfig {
    /// Refuses a secret key outright, a base URL that is not http(s), and a timeout that is not
    /// a positive number of milliseconds. A missing public key is allowed: the service then
    /// answers `Public key not found`, as it would to anyone.
    pub fn new(
        base_url: &str,
        public_key: Option<&str>,
        timeout_ms: Option<f64>,
    ) -> Result<ClientConfig, ClientError> {
        let key = public_key.map(str::trim).filter(|k| !k.is_empty());
        if key.is_some_and(|k| k.to_ascii_lowercase().starts_with("sk_")) {
            return Err(ClientError::secret_key());
        }
        let base = base_url.trim().trim_end_matches('/');
        let lower = base.to_ascii_lowercase();
        let rest = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"));
        if rest.is_none_or(|host| host.is_empty() || host.contains(['?', '#', ' '])) {
            return Err(ClientError::new(
                "invalid_options",
                0,
                format!("baseUrl must be an http(s) URL such as https://api.example.com, not {base_url:?}"),
            ));
        }
        let timeout_ms = match timeout_ms {
            None => DEFAULT_TIMEOUT_MS,
            Some(t) if t.is_finite() && t >= 1.0 && t <= f64::from(u32::MAX) => t.round() as u32,
            Some(_) => {
                return Err(ClientError::new(
                    "invalid_options",
                    0,
                    "timeoutMs must be a positive number of milliseconds",
                ))
            }
        };
        Ok(ClientConfig {
            base_url: base.to_string(),
            public_key: key.map(str::to_string),
            timeout_ms,
        })
    }
}

/// `encodeURIComponent`: everything but `A-Z a-z 0-9 - _ . ! ~ * ' ( )` is percent-encoded.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The client: the configuration and a transport.
pub struct Client<T> {
    pub config: ClientConfig,
    pub transport: T,
}

impl<T: Transport> Client<T> {
    pub fn new(config: ClientConfig, transport: T) -> Client<T> {
        Client { config, transport }
    }

    /// The URL of `segments` (each percent-encoded) with the public key as a query parameter.
    pub fn url(&self, segments: &[&str]) -> String {
        let mut url = self.config.base_url.clone();
        for s in segments {
            url.push('/');
            url.push_str(&encode_component(s));
        }
        if let Some(key) = &self.config.public_key {
            url.push_str("?publicKey=");
            url.push_str(&encode_component(key));
        }
        url
    }

    /// `GET /token/:address`.
    pub async fn get_token(&self, address: &str) -> Result<Token, ClientError> {
        self.get_json(&self.url(&["token", address])).await
    }

    /// `GET /holder/:userId`.
    pub async fn get_holder(&self, user_id: &str) -> Result<HolderFull, ClientError> {
        self.get_json(&self.url(&["holder", user_id])).await
    }

    /// `GET /holder/:userIdOrAddress/token/:tokenAddress`.
    pub async fn get_holder_token_balance(
        &self,
        user_id_or_address: &str,
        token_address: &str,
    ) -> Result<TokenBalance, ClientError> {
        let url = self.url(&["holder", user_id_or_address, "token", token_address]);
        self.get_json(&url).await
    }

    /// `GET /token/presales/:presaleId`.
    pub async fn get_presale(&self, presale_id: &str) -> Result<Presale, ClientError> {
        self.get_json(&self.url(&["token", "presales", presale_id]))
            .await
    }

    async fn get_json<M: DeserializeOwned>(&self, url: &str) -> Result<M, ClientError> {
        let res = match self.transport.get(url, self.config.timeout_ms).await {
            Ok(res) => res,
            Err(TransportError::Timeout) => {
                return Err(ClientError::new(
                    "timeout",
                    0,
                    format!(
                        "No answer from {} within {} ms",
                        self.config.base_url, self.config.timeout_ms
                    ),
                ))
            }
            Err(TransportError::Network(why)) => {
                let why = if why.is_empty() {
                    String::new()
                } else {
                    format!(": {why}")
                };
                return Err(ClientError::new(
                    "network_error",
                    0,
                    format!("Could not reach {}{why}", self.config.base_url),
                ));
            }
        };
        read_answer(res)
    }
}

/// An error body as the service writes it (`ErrorBody`), read leniently: a code this version
/// of the package does not know yet (a newer service's) is passed on as it came.
#[derive(serde::Deserialize)]
struct ServiceError {
    code: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Option<serde_json::Map<String, Value>>,
}

/// A 2xx body read as the wire type `M` (amounts from their exact text); anything else as
/// the service's error, or a generic one when the body is not that.
pub fn read_answer<M: DeserializeOwned>(res: HttpResponse) -> Result<M, ClientError> {
    if (200..300).contains(&res.status) {
        return wire::from_str(&res.body).map_err(|e| {
            ClientError::new(
                "invalid_response",
                res.status,
                format!("The service's answer is not the expected shape: {e}"),
            )
        });
    }
    match serde_json::from_str::<ServiceError>(&res.body) {
        Ok(body) if !body.code.is_empty() => Err(ClientError {
            code: body.code,
            status: res.status,
            message: if body.message.is_empty() {
                format!("HTTP {}", res.status)
            } else {
                body.message
            },
            details: body.details.map(Value::Object),
        }),
        _ => Err(ClientError::new(
            "http_error",
            res.status,
            format!("HTTP {}", res.status),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::fixtures::*;
    use std::cell::RefCell;
    use std::future::ready;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    /// Runs a future that never waits (the fake transport answers at once).
    fn run<F: Future>(f: F) -> F::Output {
        let mut f = pin!(f);
        match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("the fake transport never waits"),
        }
    }

    struct Fake {
        answer: Result<HttpResponse, TransportError>,
        seen: RefCell<Vec<(String, u32)>>,
    }

    impl Transport for Fake {
        fn get(
            &self,
            url: &str,
            timeout_ms: u32,
        ) -> impl Future<Output = Result<HttpResponse, TransportError>> {
            self.seen.borrow_mut().push((url.to_string(), timeout_ms));
            ready(self.answer.clone())
        }
    }

    fn client(status: u16, body: &str) -> Client<Fake> {
        client_with(Ok(HttpResponse {
            status,
            body: body.into(),
        }))
    }

    fn client_with(answer: Result<HttpResponse, TransportError>) -> Client<Fake> {
        let config = ClientConfig::new("http://127.0.0.1:8787/", Some("pk_m1_abc"), None).unwrap();
        Client::new(
            config,
            Fake {
                answer,
                seen: RefCell::new(Vec::new()),
            },
        )
    }

    #[test]
    fn refuses_secret_keys_and_bad_options() {
        for key in ["sk_m1_secret", " sk_live", "SK_m1_x"] {
            let err = ClientConfig::new("https://a.example", Some(key), None).unwrap_err();
            assert_eq!(err.code, "secret_key_refused", "{key}");
            assert_eq!(err.status, 0);
        }
        for base in ["", "127.0.0.1:8787", "ftp://x", "https://", "https://a b"] {
            let err = ClientConfig::new(base, Some("pk_x"), None).unwrap_err();
            assert_eq!(err.code, "invalid_options", "{base:?}");
        }
        for t in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            let err = ClientConfig::new("https://a.example", None, Some(t)).unwrap_err();
            assert_eq!(err.code, "invalid_options", "{t}");
        }
        let c =
            ClientConfig::new(" https://a.example/api// ", Some(" pk_x "), Some(2500.0)).unwrap();
        assert_eq!(c.base_url, "https://a.example/api");
        assert_eq!(c.public_key.as_deref(), Some("pk_x"));
        assert_eq!(c.timeout_ms, 2500);
        let c = ClientConfig::new("http://h", Some(""), None).unwrap();
        assert_eq!((c.public_key, c.timeout_ms), (None, DEFAULT_TIMEOUT_MS));
    }

    #[test]
    fn builds_encoded_urls_with_the_public_key() {
        let c = client(200, TOKEN);
        assert_eq!(
            c.url(&["holder", "a b/c?d", "token", "0xAb"]),
            "http://127.0.0.1:8787/holder/a%20b%2Fc%3Fd/token/0xAb?publicKey=pk_m1_abc"
        );
        assert_eq!(encode_component("é&=+#%"), "%C3%A9%26%3D%2B%23%25");
        let t = run(c.get_token("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")).unwrap();
        assert_eq!(t.symbol, "DEMO");
        assert_eq!(
            c.transport.seen.borrow()[0],
            (
                "http://127.0.0.1:8787/token/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed?publicKey=pk_m1_abc".to_string(),
                DEFAULT_TIMEOUT_MS
            )
        );
    }

    #[test]
    fn reads_each_resource_exactly() {
        let h = run(client(200, HOLDER).get_holder("alice")).unwrap();
        assert_eq!(h.tokens[0].balance.to_string(), "1234.567890123456789012");
        let p = run(client(200, PRESALE).get_presale("6f1c")).unwrap();
        assert_eq!(p.purchased_usdc_amount.to_string(), "60.5");
        let c = client(200, BALANCE);
        let b = run(c.get_holder_token_balance("alice", "0x5a")).unwrap();
        assert_eq!(b.balance.to_string(), "9007199254740993.000000000000000001");
        assert!(c.transport.seen.borrow()[0]
            .0
            .ends_with("/holder/alice/token/0x5a?publicKey=pk_m1_abc"));
    }

    #[test]
    fn service_errors_keep_code_status_message_and_details() {
        let err = run(client(
            401,
            r#"{"success":false,"message":"Public key not found","code":"public_key_not_found"}"#,
        )
        .get_holder("alice"))
        .unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.status, err.message.as_str()),
            ("public_key_not_found", 401, "Public key not found")
        );
        let err = run(client(
            400,
            r#"{"success":false,"message":"userId is too long","code":"invalid_user_id","details":{"field":"userId"}}"#,
        )
        .get_holder("x"))
        .unwrap_err();
        assert_eq!(err.details.unwrap()["field"], "userId");
        let err = run(client(502, "<html>Bad gateway</html>").get_token("0x1")).unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("http_error", 502));
        assert_eq!(err.message, "HTTP 502");
        let err = run(client(200, r#"{"unexpected":true}"#).get_token("0x1")).unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("invalid_response", 200));
    }

    #[test]
    fn an_error_body_is_the_wire_error_or_a_generic_one() {
        // A code this version does not know yet (a newer service's) is passed on as it came.
        let err = run(client(
            409,
            r#"{"success":false,"message":"Something new","code":"brand_new_code"}"#,
        )
        .get_holder("alice"))
        .unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("brand_new_code", 409));
        assert_eq!(err.message, "Something new");
        let err = run(client(
            404,
            r#"{"success":false,"message":"","code":"holder_not_found"}"#,
        )
        .get_holder("alice"))
        .unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.message.as_str()),
            ("holder_not_found", "HTTP 404")
        );
    }

    #[test]
    fn network_failures_and_timeouts_have_their_own_codes() {
        let err = run(client_with(Err(TransportError::Timeout)).get_holder("a")).unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("timeout", 0));
        assert!(err.message.contains("10000 ms"), "{}", err.message);
        let err = run(
            client_with(Err(TransportError::Network("Failed to fetch".into()))).get_holder("a"),
        )
        .unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("network_error", 0));
        assert_eq!(
            err.message,
            "Could not reach http://127.0.0.1:8787: Failed to fetch"
        );
    }

    #[test]
    fn no_public_key_no_query() {
        let config = ClientConfig::new("http://h:1", None, None).unwrap();
        let c = Client::new(
            config,
            Fake {
                answer: Err(TransportError::Timeout),
                seen: RefCell::new(Vec::new()),
            },
        );
        assert_eq!(c.url(&["holder", "alice"]), "http://h:1/holder/alice");
    }
}
