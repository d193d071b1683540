//! The live push hub of a merchant's object: WebSockets accepted with the hibernation API
//! (the object may leave memory while they stay connected), each tagged with the topics it
//! follows, `p:<presaleId>` and `h:<userId>`. After anything that can change public state
//! (an operation that writes, due work, a faucet deposit) the object calls [`publish`]: each
//! followed topic is read once, exactly as its public-key route answers it, and sent to the
//! sockets that have not seen that answer yet (a digest per topic in the socket's attachment,
//! which survives hibernation).
//!
//! Only public-key reads are ever pushed: a presale's public form (`GET /token/presales/:id`,
//! never the merchant form) and a holder's full form (`GET /holder/:userId`). A message is
//! JSON: `{"type":"presale"|"holder","id":..., "serviceTime": <UNIX ms>, "body": "<the
//! answer's exact JSON text>"}`; the body is a string so that its numbers keep their exact
//! digits through a client's `JSON.parse`. `serviceTime` is the service clock, which local
//! time travel moves: clients count down with it.
//!
//! Private mode (a merchant setting): holders are neither followed nor pushed (they need a
//! session token, which this channel does not take), and presales name their participants
//! by address.

use crate::adapters::sql::SqlStore;
use crate::http::{self, Answer};
use std::collections::BTreeMap;
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::ids::{PresaleId, UserId};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops;
use tokenpad_core::store::Store;
use tokenpad_core::wire::holder::HolderFull;
use tokenpad_core::wire::presale::Presale;
use tokenpad_core::wire::Op;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{Request, Response, State, WebSocket, WebSocketPair, WebSocketRequestResponsePair};

/// Topics one socket may follow (Cloudflare allows ten tags a socket).
pub const MAX_TOPICS: usize = 8;

/// The header that carries the service clock (UNIX ms) on every answer of an operation.
pub const SERVICE_TIME: &str = "x-service-time";

/// Whether this request to the object is a client's WebSocket upgrade (`GET /live`).
pub fn is_upgrade(req: &Request) -> bool {
    http::header(req, "upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// Whether applying `op` may change what a public read answers: reads never do
/// (`Op::is_read`), nor do the event log's and webhooks' writes.
pub fn changes_state(op: &Op) -> bool {
    !op.is_read() && !matches!(op, Op::Hooks(_))
}

/// Adds the service clock to an answer.
pub fn stamp(answer: Answer, now: Millis) -> Answer {
    answer.with_header(SERVICE_TIME, now.to_string())
}

/// A topic: what one tag follows.
enum Topic {
    Presale(PresaleId),
    Holder(UserId),
}

impl Topic {
    fn tag(&self) -> String {
        match self {
            Topic::Presale(id) => format!("p:{}", id.as_str()),
            Topic::Holder(id) => format!("h:{}", id.as_str()),
        }
    }

    fn from_tag(tag: &str) -> Option<Topic> {
        if let Some(id) = tag.strip_prefix("p:") {
            return Some(Topic::Presale(PresaleId::new_unchecked(id.to_string())));
        }
        let id = tag.strip_prefix("h:")?;
        UserId::parse(id).ok().map(Topic::Holder)
    }

    /// The topic's public answer now: the message to send and the digest of its body.
    fn read(&self, store: &SqlStore, now: Millis) -> Result<(String, String)> {
        let (kind, id, body) = match self {
            Topic::Presale(id) => {
                let p = ops::presale::find(store, id)?;
                let mut view = Presale::read(store, &p, now)?;
                if private(store) {
                    tokenpad_core::wire::presale::redact(&mut view);
                }
                ("presale", id.as_str(), encode(&view)?)
            }
            Topic::Holder(id) => {
                if private(store) {
                    return Err(Error::new(
                        ErrorCode::SessionTokenRequired,
                        "private mode: holders are not pushed",
                    ));
                }
                let h = ops::holder::find(store, id)?;
                (
                    "holder",
                    id.as_str(),
                    encode(&HolderFull::read(store, &h)?)?,
                )
            }
        };
        let digest = sha256_hex(body.as_bytes()).chars().take(16).collect();
        let message = serde_json::json!({
            "type": kind,
            "id": id,
            "serviceTime": now,
            "body": body,
        });
        Ok((message.to_string(), digest))
    }
}

/// Whether the merchant is in private mode: no holder topics, presales by address only.
fn private(store: &SqlStore) -> bool {
    store
        .merchant()
        .ok()
        .flatten()
        .is_some_and(|m| m.private_mode)
}

fn encode<T: serde::Serialize>(v: &T) -> Result<String> {
    http::encode(v).map_err(|e| Error::internal(format!("encode: {e}")))
}

/// The topics a `GET /live` asks for: `presale=<id>` and `holder=<userId>`, each repeatable.
fn topics(req: &Request) -> Result<Vec<Topic>> {
    let url = req.url().map_err(|e| Error::internal(e.to_string()))?;
    let mut out: Vec<Topic> = Vec::new();
    for (k, v) in url.query_pairs() {
        let topic = match k.as_ref() {
            "presale" if !v.trim().is_empty() => Topic::Presale(PresaleId::new_unchecked(v)),
            "presale" => return Err(Error::field("presale", "presale must be a presale id")),
            "holder" => Topic::Holder(UserId::parse(&v)?),
            _ => continue,
        };
        if !out.iter().any(|t| t.tag() == topic.tag()) {
            out.push(topic);
        }
    }
    if out.is_empty() || out.len() > MAX_TOPICS {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            format!("Follow 1 to {MAX_TOPICS} topics: ?presale=<presaleId>&holder=<userId>"),
        ));
    }
    Ok(out)
}

/// Accepts a client's socket: `check_key` is the object's key check (the key comes from
/// `publicKey` or `x-api-key`); each topic must exist (a 404 otherwise, before any upgrade).
/// The socket gets each topic's current answer at once, then every change.
pub fn accept(
    state: &State,
    store: &SqlStore,
    req: &Request,
    now: Millis,
    check_key: impl Fn(&str) -> Result<()>,
) -> Result<Response> {
    let url = req.url().map_err(|e| Error::internal(e.to_string()))?;
    let key = url
        .query_pairs()
        .find(|(k, _)| k == "publicKey")
        .map(|(_, v)| v.into_owned())
        .or_else(|| http::header(req, "x-api-key"))
        .unwrap_or_default();
    check_key(&key)?;
    let topics = topics(req)?;
    if private(store) && topics.iter().any(|t| matches!(t, Topic::Holder(_))) {
        return Err(Error::new(
            ErrorCode::SessionTokenRequired,
            "This merchant is in private mode: a holder is not followed with the public key; read it with a session token",
        ));
    }
    let mut first = BTreeMap::new();
    let mut messages = Vec::with_capacity(topics.len());
    for t in &topics {
        let (message, digest) = t.read(store, now)?;
        first.insert(t.tag(), digest);
        messages.push(message);
    }
    let ws = |e: worker::Error| Error::internal(format!("websocket: {e}"));
    let pair = WebSocketPair::new().map_err(ws)?;
    let tags: Vec<String> = topics.iter().map(Topic::tag).collect();
    let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
    state.accept_websocket_with_tags(&pair.server, &tags);
    // Keep-alive pings are answered by the runtime, without waking the object.
    if let Ok(pong) = WebSocketRequestResponsePair::new("ping", "pong") {
        state.set_websocket_auto_response(&pong);
    }
    pair.server.serialize_attachment(&first).map_err(ws)?;
    for m in &messages {
        pair.server.send_with_str(m).map_err(ws)?;
    }
    Response::from_websocket(pair.client).map_err(ws)
}

/// Sends every followed topic whose public answer changed to the sockets following it.
/// Best effort: a socket that is closing is skipped, and a topic that cannot be read (it
/// cannot disappear, but a storage error can happen) is left for the next change.
pub fn publish(state: &State, store: &SqlStore, now: Millis) {
    let sockets = state.get_websockets();
    if sockets.is_empty() {
        return;
    }
    let mut answers: BTreeMap<String, Option<(String, String)>> = BTreeMap::new();
    for socket in sockets {
        let mut seen: BTreeMap<String, String> = socket
            .deserialize_attachment()
            .ok()
            .flatten()
            .unwrap_or_default();
        let mut changed = false;
        for tag in state.get_tags(&socket) {
            let answer = answers
                .entry(tag.clone())
                .or_insert_with(|| Topic::from_tag(&tag).and_then(|t| t.read(store, now).ok()));
            let Some((message, digest)) = answer else {
                continue;
            };
            if seen.get(&tag) != Some(digest) && socket.send_with_str(message.as_str()).is_ok() {
                seen.insert(tag, digest.clone());
                changed = true;
            }
        }
        if changed {
            let _ = socket.serialize_attachment(&seen);
        }
    }
}

/// A message from a client: nothing to do (pings are answered by the runtime).
pub fn on_message(_ws: &WebSocket) {}

/// A client closed its socket: close our side too.
pub fn on_close(ws: &WebSocket, code: usize) {
    let code = u16::try_from(code)
        .ok()
        .filter(|c| *c == 1000 || (3000..5000).contains(c))
        .unwrap_or(1000);
    let _ = ws.close(Some(code), Some("closed"));
}
