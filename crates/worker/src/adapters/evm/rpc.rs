//! JSON-RPC over `fetch`, with a timeout. The endpoint's URL is a secret (providers put API
//! keys in it): no error, log line or answer built here ever contains it.

use futures_util::future::{select, Either};
use serde_json::Value;
use std::cell::Cell;
use tokenpad_evm::rpc::{parse_response, RpcError};
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit};

/// Why a call did not get an answer from the node, or what the node refused.
#[derive(Clone, Debug)]
pub enum Fail {
    /// No usable answer: a timeout, a network error, an HTTP error, a body that is not
    /// JSON-RPC. The call may or may not have reached the node.
    Transport(String),
    /// The node answered with an error.
    Node(RpcError),
}

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::Transport(why) => write!(f, "the chain's RPC endpoint did not answer: {why}"),
            Fail::Node(e) => write!(
                f,
                "the chain's node refused: {} (code {})",
                e.message, e.code
            ),
        }
    }
}

pub struct Rpc<'a> {
    url: &'a str,
    timeout_ms: u64,
    next_id: Cell<u64>,
}

impl<'a> Rpc<'a> {
    pub fn new(url: &'a str, timeout_ms: u64) -> Rpc<'a> {
        Rpc {
            url,
            timeout_ms,
            next_id: Cell::new(1),
        }
    }

    /// A fresh request id.
    pub fn id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id.wrapping_add(1));
        id
    }

    async fn post(&self, body: &Value) -> Result<Value, Fail> {
        let headers = Headers::new();
        headers
            .set("content-type", "application/json")
            .map_err(|_| Fail::Transport("could not build the request".into()))?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post)
            .with_headers(headers)
            .with_body(Some(body.to_string().into()));
        let req = Request::new_with_init(self.url, &init)
            .map_err(|_| Fail::Transport("the RPC URL is not usable".into()))?;
        let controller = AbortController::default();
        let signal = controller.signal();
        let fetch = Fetch::Request(req);
        let sending = Box::pin(fetch.send_with_signal(&signal));
        let timer = Box::pin(Delay::from(std::time::Duration::from_millis(
            self.timeout_ms,
        )));
        let mut resp = match select(sending, timer).await {
            Either::Left((Ok(resp), _)) => resp,
            Either::Left((Err(_), _)) => return Err(Fail::Transport("network error".into())),
            Either::Right(((), _)) => {
                controller.abort();
                return Err(Fail::Transport(format!(
                    "no answer within {} ms",
                    self.timeout_ms
                )));
            }
        };
        let status = resp.status_code();
        if !(200..300).contains(&status) {
            return Err(Fail::Transport(format!("HTTP status {status}")));
        }
        resp.json::<Value>()
            .await
            .map_err(|_| Fail::Transport("the answer is not JSON".into()))
    }

    /// One call: its result, or why there is none.
    pub async fn call(&self, request: Value) -> Result<Value, Fail> {
        let answer = self.post(&request).await?;
        parse_response(&answer).map_err(|e| {
            if e.code == RpcError::MALFORMED {
                Fail::Transport(e.message)
            } else {
                Fail::Node(e)
            }
        })
    }

    /// Several calls in one HTTP request (a JSON-RPC batch); each answer in request order.
    pub async fn batch(&self, requests: Vec<Value>) -> Result<Vec<Result<Value, RpcError>>, Fail> {
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<Value> = requests.iter().map(|r| r["id"].clone()).collect();
        let answer = self.post(&Value::Array(requests)).await?;
        let Value::Array(items) = answer else {
            // A node that does not take batches answers one error object.
            return Err(match parse_response(&answer) {
                Err(e) => Fail::Node(e),
                Ok(_) => Fail::Transport("a batch answered with one result".into()),
            });
        };
        ids.iter()
            .map(|id| {
                items
                    .iter()
                    .find(|item| &item["id"] == id)
                    .map(parse_response)
                    .ok_or_else(|| Fail::Transport("a batch answer is missing".into()))
            })
            .collect()
    }
}
