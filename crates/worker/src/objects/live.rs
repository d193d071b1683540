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
//! Who may follow what: a key follows presales, and holders unless the merchant is in private
//! mode; a holder's session token (the subprotocols `tokenpad-session, <token>`, see
//! `hop::Credential::of_upgrade`) follows presales and its own holder (with the `read` scope),
//! in private mode too. The socket's attachment says who opened it: a socket of a session is
//! closed (4401, the reason `session_expired` or `session_revoked`) when its session ends: a
//! revocation publishes at once, and the object's alarm wakes it at the earliest expiry of
//! its sockets ([`next_expiry`], [`close_ended`]); every publish checks too. A public-key
//! socket following a holder is closed (4403, `session_token_required`) once the merchant
//! turns private mode on. Nothing is sent to either after that. In private mode presales name
//! their participants by address.

use crate::adapters::sql::SqlStore;
use crate::hop::{session_protocol, SESSION_PROTOCOL};
use crate::http::{self, Answer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::ids::{PresaleId, UserId};
use tokenpad_core::model::session::{Scope, SessionId};
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops;
use tokenpad_core::ops::session::access::{self, Caller};
use tokenpad_core::store::session::SessionStore;
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
/// (`Op::writes` is false), nor do the event log's and webhooks' writes.
pub fn changes_state(op: &Op) -> bool {
    op.writes() && !matches!(op, Op::Hooks(_))
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

    /// The topic's public answer now: the message to send and the digest of its body. Who
    /// may receive it is decided before (`accept`, `publish`).
    fn read(&self, store: &SqlStore, now: Millis, private: bool) -> Result<(String, String)> {
        let (kind, id, body) = match self {
            Topic::Presale(id) => {
                let p = ops::presale::find(store, id)?;
                let mut view = Presale::read(store, &p, now)?;
                if private {
                    tokenpad_core::wire::presale::redact(&mut view);
                }
                ("presale", id.as_str(), encode(&view)?)
            }
            Topic::Holder(id) => {
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

/// Who opened a socket, kept in its attachment (which survives hibernation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
enum Opener {
    /// The public key (and what an attachment that does not read as this type counts as:
    /// the narrowest).
    #[default]
    Public,
    Secret,
    Session {
        id: SessionId,
        expires_at: Millis,
    },
}

/// A socket's attachment: who opened it, and per topic tag the digest of the last answer sent.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Attachment {
    #[serde(default)]
    opener: Opener,
    #[serde(default)]
    seen: BTreeMap<String, String>,
}

/// Whether `caller` may follow holder `user`: a key unless the merchant is in private mode, a
/// session only its own holder, with the `read` scope (the refusals of `GET /holder/:userId`).
fn may_follow(caller: &Caller, user: &UserId, private: bool) -> Result<()> {
    match caller {
        Caller::Public if private => Err(Error::new(
            ErrorCode::SessionTokenRequired,
            "This merchant is in private mode: a holder is not followed with the public key; follow it with the holder's session token",
        )),
        Caller::Public | Caller::Secret => Ok(()),
        Caller::Session(s) => access::permit(s, user, Some(Scope::Read)),
    }
}

/// Accepts a client's socket: `caller` is who its credential checked as (the object's check,
/// `Credential::of_upgrade`); each topic must be one it may follow and must exist (a 403 or
/// 404 otherwise, before any upgrade). The socket gets each topic's current answer at once,
/// then every change. A socket opened with the session subprotocol gets it selected.
pub fn accept(
    state: &State,
    store: &SqlStore,
    req: &Request,
    now: Millis,
    caller: &Caller,
) -> Result<Response> {
    let topics = topics(req)?;
    let private = private(store);
    for t in &topics {
        if let Topic::Holder(user) = t {
            may_follow(caller, user, private)?;
        }
    }
    let mut seen = BTreeMap::new();
    let mut messages = Vec::with_capacity(topics.len());
    for t in &topics {
        let (message, digest) = t.read(store, now, private)?;
        seen.insert(t.tag(), digest);
        messages.push(message);
    }
    let opener = match caller {
        Caller::Public => Opener::Public,
        Caller::Secret => Opener::Secret,
        Caller::Session(s) => Opener::Session {
            id: s.id.clone(),
            expires_at: s.expires_at,
        },
    };
    let ws = |e: worker::Error| Error::internal(format!("websocket: {e}"));
    let pair = WebSocketPair::new().map_err(ws)?;
    let tags: Vec<String> = topics.iter().map(Topic::tag).collect();
    let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
    state.accept_websocket_with_tags(&pair.server, &tags);
    // Keep-alive pings are answered by the runtime, without waking the object.
    if let Ok(pong) = WebSocketRequestResponsePair::new("ping", "pong") {
        state.set_websocket_auto_response(&pong);
    }
    pair.server
        .serialize_attachment(&Attachment { opener, seen })
        .map_err(ws)?;
    for m in &messages {
        pair.server.send_with_str(m).map_err(ws)?;
    }
    let mut response = Response::from_websocket(pair.client).map_err(ws)?;
    // A browser that offered the subprotocol fails the socket unless it is selected.
    let offered = http::header(req, "sec-websocket-protocol");
    if matches!(caller, Caller::Session(_))
        && offered.as_deref().and_then(session_protocol).is_some()
    {
        response
            .headers_mut()
            .set("sec-websocket-protocol", SESSION_PROTOCOL)
            .map_err(ws)?;
    }
    Ok(response)
}

/// Why a socket may no longer receive anything, as its close code and reason: its session
/// ended, or it follows a holder with the public key and the merchant turned private mode on.
/// `sessions` remembers each session looked up in this round.
fn ended(
    opener: &Opener,
    tags: &[String],
    private: bool,
    store: &SqlStore,
    now: Millis,
    sessions: &mut BTreeMap<SessionId, Option<ErrorCode>>,
) -> Option<(u16, ErrorCode)> {
    match opener {
        Opener::Session { expires_at, .. } if now >= *expires_at => {
            Some((4401, ErrorCode::SessionExpired))
        }
        Opener::Session { id, .. } => sessions
            .entry(id.clone())
            .or_insert_with(|| match store.session(id) {
                Ok(Some(s)) if s.revoked_at.is_none() => None,
                Ok(_) => Some(ErrorCode::SessionRevoked),
                // A storage error: judged again at the next change.
                Err(_) => None,
            })
            .map(|code| (4401, code)),
        Opener::Public if private && tags.iter().any(|t| t.starts_with("h:")) => {
            Some((4403, ErrorCode::SessionTokenRequired))
        }
        _ => None,
    }
}

/// When the next socket's session expires (after `now`): the object's alarm wakes it then,
/// and [`close_ended`] closes the socket on time, changes or not.
pub fn next_expiry(state: &State, now: Millis) -> Option<Millis> {
    state
        .get_websockets()
        .iter()
        .filter_map(|socket| match attachment(socket).opener {
            Opener::Session { expires_at, .. } if expires_at > now => Some(expires_at),
            _ => None,
        })
        .min()
}

/// Closes the sockets that may no longer receive anything (`ended`), sending nothing.
pub fn close_ended(state: &State, store: &SqlStore, now: Millis) {
    let sockets = state.get_websockets();
    if sockets.is_empty() {
        return;
    }
    let private = private(store);
    let mut sessions = BTreeMap::new();
    for socket in sockets {
        let tags = state.get_tags(&socket);
        close_if_ended(
            &socket,
            &attachment(&socket),
            &tags,
            private,
            store,
            now,
            &mut sessions,
        );
    }
}

/// A socket's attachment; one that does not read as one counts as the narrowest (a public
/// key's, nothing seen yet).
fn attachment(socket: &WebSocket) -> Attachment {
    socket
        .deserialize_attachment()
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Closes `socket` if it may no longer receive anything (`ended`); whether it did.
fn close_if_ended(
    socket: &WebSocket,
    attachment: &Attachment,
    tags: &[String],
    private: bool,
    store: &SqlStore,
    now: Millis,
    sessions: &mut BTreeMap<SessionId, Option<ErrorCode>>,
) -> bool {
    let Some((code, why)) = ended(&attachment.opener, tags, private, store, now, sessions) else {
        return false;
    };
    let _ = socket.close(Some(code), Some(why.as_str()));
    true
}

/// Sends every followed topic whose public answer changed to the sockets following it, and
/// closes the sockets that may no longer receive anything (`ended`). Best effort: a socket
/// that is closing is skipped, and a topic that cannot be read (it cannot disappear, but a
/// storage error can happen) is left for the next change.
pub fn publish(state: &State, store: &SqlStore, now: Millis) {
    let sockets = state.get_websockets();
    if sockets.is_empty() {
        return;
    }
    let private = private(store);
    let mut answers: BTreeMap<String, Option<(String, String)>> = BTreeMap::new();
    let mut sessions = BTreeMap::new();
    for socket in sockets {
        let mut attachment = attachment(&socket);
        let tags = state.get_tags(&socket);
        if close_if_ended(
            &socket,
            &attachment,
            &tags,
            private,
            store,
            now,
            &mut sessions,
        ) {
            continue;
        }
        let mut changed = false;
        for tag in tags {
            let answer = answers.entry(tag.clone()).or_insert_with(|| {
                Topic::from_tag(&tag).and_then(|t| t.read(store, now, private).ok())
            });
            let Some((message, digest)) = answer else {
                continue;
            };
            if attachment.seen.get(&tag) != Some(digest)
                && socket.send_with_str(message.as_str()).is_ok()
            {
                attachment.seen.insert(tag, digest.clone());
                changed = true;
            }
        }
        if changed {
            let _ = socket.serialize_attachment(&attachment);
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
