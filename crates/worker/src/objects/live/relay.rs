//! A relay: the Durable Object that holds the WebSockets of `GET /live` for one merchant and
//! one set of topics (`hop::live::relay_name`), and sends each change the merchant's object
//! publishes to all of them. How many sockets a topic has is a relay's cost, never the
//! merchant object's: the object sends a topic's change once per relay that follows it.
//!
//! A socket arrives as the upgrade the edge handed on. The relay asks the merchant's object
//! to admit it (`MerchantCall::Watch`: the object checks the credential and the topics, and
//! answers who opened it and each topic's current message), then accepts it with the
//! hibernation API, tagged with its topics (and a session's `s:<userId>`), who opened it in
//! its attachment, and sends it each topic's current state at once. A refusal is answered
//! before any upgrade, as a JSON error.
//!
//! The merchant's object calls `publish` (RPC) with the latest message of each topic that
//! changed: each goes to every socket tagged with its topic, unless an equal or newer state
//! was already sent to them all (`Push::version`, `Push::digest`). The relay remembers the
//! last message sent per topic while it stays in memory, so a socket accepted while a change
//! crosses its admission gets the newer of the two. After it hibernates it remembers nothing,
//! and the next change goes to everyone. The answer says how many sockets follow each topic:
//! the object stops sending a topic to a relay with none (its sockets closed, or the relay
//! restarted and its clients reconnected elsewhere).
//!
//! Sessions: a session's socket is closed (4401 `session_expired`) at its expiry, by the
//! relay's alarm (expiry is service time: the relay keeps the clock's offset, which local
//! time travel moves), and when the object says its sessions were revoked (4401
//! `session_revoked`); public-key sockets following holders are closed (4403
//! `session_token_required`) when the object says the merchant turned private mode on; a
//! key's sockets (tagged `k:<key id>`) are closed (4401 `invalid_api_key`) when the object
//! says the key was revoked or rolled with no grace, and by the alarm when a roll's grace
//! period ends (the ends are kept in storage, `KEY_ENDS_KEY`).

use crate::hop::live::{
    key_tag, session_tag, topics, Admitted, Control, Opener, Push, RelayCall, RelayHeld, WatchCall,
    MERCHANT_HEADER, RELAY_HEADER,
};
use crate::hop::{self, Credential, MerchantCall, SESSION_PROTOCOL};
use crate::http;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::time::Millis;
use tokenpad_core::{Error, ErrorCode, Result};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use worker::js_sys::JsString;
use worker::web_sys;
use worker::{
    durable_object, DurableObject, Env, Request, Response, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair, WebSocketRequestResponsePair,
};

/// Where the relay keeps the service clock's offset (for its alarm, after it hibernated).
const OFFSET_KEY: &str = "offset";
/// Where the relay keeps when the keys in a roll's grace period stop (key id -> service time).
const KEY_ENDS_KEY: &str = "key_ends";

#[wasm_bindgen]
extern "C" {
    /// A WebSocket, for `send` with a JavaScript string: the message crosses out of wasm
    /// once, whatever the number of sockets it goes to.
    #[wasm_bindgen(js_name = WebSocket)]
    type TextSocket;
    #[wasm_bindgen(method, catch, js_name = send)]
    fn send_text(this: &TextSocket, data: &JsString) -> std::result::Result<(), JsValue>;
}

/// The last message every socket of a topic was sent.
struct Sent {
    version: u64,
    digest: String,
    message: String,
}

#[durable_object]
pub struct RelayObject {
    state: State,
    env: Env,
    sent: RefCell<HashMap<String, Sent>>,
    /// The service clock's offset from real time, as last known (None: read it from storage).
    offset: Cell<Option<Millis>>,
}

impl DurableObject for RelayObject {
    fn new(state: State, env: Env) -> Self {
        Self {
            state,
            env,
            sent: RefCell::default(),
            offset: Cell::new(None),
        }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        match self.accept(&req).await {
            Ok(response) => Ok(response),
            Err(e) => http::error(&e),
        }
    }

    async fn alarm(&self) -> worker::Result<Response> {
        self.expire().await;
        Response::ok("")
    }

    async fn websocket_message(
        &self,
        _ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> worker::Result<()> {
        // Nothing to do: pings are answered by the runtime, without waking the relay.
        Ok(())
    }

    async fn websocket_close(
        &self,
        ws: WebSocket,
        code: usize,
        _reason: String,
        _was_clean: bool,
    ) -> worker::Result<()> {
        // A client closed its socket: close our side too.
        let code = u16::try_from(code)
            .ok()
            .filter(|c| *c == 1000 || (3000..5000).contains(c))
            .unwrap_or(1000);
        let _ = ws.close(Some(code), Some("closed"));
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> worker::Result<()> {
        let _ = ws.close(Some(1011), Some("closed"));
        Ok(())
    }
}

#[wasm_bindgen(wasm_bindgen = ::worker::wasm_bindgen, wasm_bindgen_futures = ::worker::wasm_bindgen_futures)]
impl RelayObject {
    /// `stub.publish(json)`: a `RelayCall` from the merchant's object, answered with a
    /// `RelayHeld` (JSON).
    #[wasm_bindgen(js_name = publish)]
    pub async fn publish(&self, call: String) -> std::result::Result<String, JsValue> {
        let call: RelayCall = hop::parse(&call).map_err(|e| JsValue::from(e.to_string()))?;
        for control in call.controls {
            self.control(control).await;
        }
        let mut held = BTreeMap::new();
        for push in call.pushes {
            let tag = push.tag.clone();
            held.insert(tag, self.fan_out(push));
        }
        serde_json::to_string(&RelayHeld { held }).map_err(|e| JsValue::from(e.to_string()))
    }
}

fn ws_error(e: impl std::fmt::Display) -> Error {
    Error::internal(format!("websocket: {e}"))
}

/// A socket's opener; an attachment that does not read as one counts as the narrowest.
fn opener(ws: &web_sys::WebSocket) -> Opener {
    WebSocket::from(ws.clone())
        .deserialize_attachment()
        .ok()
        .flatten()
        .unwrap_or_default()
}

fn close(ws: &web_sys::WebSocket, code: u16, why: ErrorCode) {
    let _ = ws.close_with_code_and_reason(code, why.as_str());
}

impl RelayObject {
    fn sockets(&self, tag: Option<&str>) -> Vec<web_sys::WebSocket> {
        let raw = self.state.as_raw();
        match tag {
            Some(tag) => raw.get_websockets_with_tag(tag),
            None => raw.get_websockets(),
        }
        .unwrap_or_default()
    }

    /// Admits and accepts a client's socket, or answers why not.
    async fn accept(&self, req: &Request) -> Result<Response> {
        if !http::header(req, "upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket")) {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "GET /live is a WebSocket: connect with Upgrade: websocket",
            ));
        }
        let relay = http::header(req, RELAY_HEADER)
            .ok_or_else(|| Error::internal("live: an upgrade without its relay"))?;
        let merchant = http::header(req, MERCHANT_HEADER)
            .and_then(|m| MerchantId::parse(&m).ok())
            .ok_or_else(|| Error::internal("live: an upgrade without its merchant"))?;
        let url = req.url().map_err(|e| Error::internal(e.to_string()))?;
        let topics = topics(url.query_pairs())?;
        let credential = Credential::of_upgrade(url.query_pairs(), |h| http::header(req, h))?;
        let session = matches!(credential, Credential::Session(_));
        let call = MerchantCall::Watch(WatchCall {
            credential,
            tags: topics.iter().map(|t| t.tag()).collect(),
            relay,
            client: tokenpad_core::ratelimit::client_address(
                http::header(req, "cf-connecting-ip").as_deref(),
            ),
        });
        let admitted: Admitted = hop::merchant_typed(&self.env, &merchant, &call).await?;

        let pair = WebSocketPair::new().map_err(ws_error)?;
        let mut tags: Vec<JsValue> = topics.iter().map(|t| JsValue::from(t.tag())).collect();
        if let Opener::Session { user, .. } = &admitted.opener {
            tags.push(JsValue::from(session_tag(user)));
        }
        if let Some(id) = &admitted.key {
            tags.push(JsValue::from(key_tag(id)));
        }
        let raw = self.state.as_raw();
        raw.accept_websocket_with_tags(pair.server.as_ref(), tags)
            .map_err(|e| ws_error(worker::Error::from(e)))?;
        // Keep-alive pings are answered by the runtime, without waking the relay.
        if let Ok(pong) = WebSocketRequestResponsePair::new("ping", "pong") {
            let _ = raw.set_websocket_auto_response(&pong);
        }
        pair.server
            .serialize_attachment(&admitted.opener)
            .map_err(ws_error)?;
        for push in &admitted.pushes {
            let newest = self.newest(push);
            pair.server
                .send_with_str(&newest.message)
                .map_err(ws_error)?;
            self.first_of(&newest);
        }
        if let Opener::Session { expires_at, .. } = &admitted.opener {
            self.note_offset(admitted.offset_ms).await;
            self.arm(*expires_at, admitted.offset_ms).await;
        }
        if let (Some(id), Some(at)) = (&admitted.key, admitted.key_ends_at) {
            self.note_offset(admitted.offset_ms).await;
            self.key_ends(id.clone(), at).await;
        }
        let mut response = Response::from_websocket(pair.client).map_err(ws_error)?;
        // A browser that offered the subprotocol fails the socket unless it is selected.
        let offered = http::header(req, "sec-websocket-protocol");
        if session && offered.as_deref().and_then(hop::session_protocol).is_some() {
            response
                .headers_mut()
                .set("sec-websocket-protocol", SESSION_PROTOCOL)
                .map_err(ws_error)?;
        }
        Ok(response)
    }

    /// What a new socket gets for `push`'s topic: the newer of the admission's and the last
    /// one sent to every socket.
    fn newest(&self, push: &Push) -> Push {
        match self.sent.borrow().get(&push.tag) {
            Some(sent) if sent.version > push.version => Push {
                tag: push.tag.clone(),
                version: sent.version,
                digest: sent.digest.clone(),
                message: sent.message.clone(),
            },
            _ => push.clone(),
        }
    }

    /// A new socket got `push`: when no other socket follows its topic (and the relay knows
    /// of nothing sent to its sockets), that is what every socket of it was sent, and the
    /// same state is not sent again at the next change. Looked into only while nothing is
    /// known of the topic (a relay just started, or woken from hibernation).
    fn first_of(&self, push: &Push) {
        if self.sent.borrow().contains_key(&push.tag) {
            return;
        }
        let open = self
            .sockets(Some(&push.tag))
            .iter()
            .filter(|ws| ws.ready_state() == web_sys::WebSocket::OPEN)
            .count();
        if open == 1 {
            self.sent.borrow_mut().insert(
                push.tag.clone(),
                Sent {
                    version: push.version,
                    digest: push.digest.clone(),
                    message: push.message.clone(),
                },
            );
        }
    }

    /// Sends `push` to every open socket following its topic, unless they all have it (or a
    /// newer state); how many follow it. A socket the relay closed (its session ended) stays
    /// listed until its client answers the close, and gets nothing more.
    fn fan_out(&self, push: Push) -> u32 {
        let sockets: Vec<web_sys::WebSocket> = self
            .sockets(Some(&push.tag))
            .into_iter()
            .filter(|ws| ws.ready_state() == web_sys::WebSocket::OPEN)
            .collect();
        let count = u32::try_from(sockets.len()).unwrap_or(u32::MAX);
        let mut sent = self.sent.borrow_mut();
        if let Some(last) = sent.get_mut(&push.tag) {
            if last.version >= push.version {
                return count;
            }
            if last.digest == push.digest {
                last.version = push.version;
                return count;
            }
        }
        let text = JsString::from(push.message.as_str());
        for ws in &sockets {
            // A socket closing meanwhile is skipped (its client reconnects and is admitted).
            let _ = ws.unchecked_ref::<TextSocket>().send_text(&text);
        }
        sent.insert(
            push.tag,
            Sent {
                version: push.version,
                digest: push.digest,
                message: push.message,
            },
        );
        count
    }

    async fn control(&self, control: Control) {
        match control {
            Control::CloseSessions { user, until } => {
                for ws in self.sockets(Some(&session_tag(&user))) {
                    if matches!(opener(&ws), Opener::Session { created_at, .. } if created_at <= until)
                    {
                        close(&ws, 4401, ErrorCode::SessionRevoked);
                    }
                }
            }
            Control::CloseKey { id } => self.close_key(&id),
            Control::KeyEnds { id, at, offset_ms } => {
                self.note_offset(offset_ms).await;
                self.key_ends(id, at).await;
            }
            Control::ClosePublicHolders => {
                let raw = self.state.as_raw();
                for ws in self.sockets(None) {
                    let follows_holder = raw
                        .get_tags(&ws)
                        .is_ok_and(|tags| tags.iter().any(|t| t.starts_with("h:")));
                    if follows_holder && opener(&ws) == Opener::Public {
                        close(&ws, 4403, ErrorCode::SessionTokenRequired);
                    }
                }
            }
            Control::Clock { offset_ms } => {
                self.note_offset(offset_ms).await;
                self.expire().await;
            }
        }
    }

    /// Keeps the clock's offset, in memory and (when it changed) in storage.
    async fn note_offset(&self, offset: Millis) {
        if self.offset.get() == Some(offset) {
            return;
        }
        if let Err(e) = self.state.storage().put(OFFSET_KEY, offset).await {
            worker::console_error!("relay: the clock's offset: {e}");
        }
        self.offset.set(Some(offset));
    }

    async fn offset(&self) -> Millis {
        if let Some(offset) = self.offset.get() {
            return offset;
        }
        let stored = self.state.storage().get::<Millis>(OFFSET_KEY).await;
        let offset = stored.ok().flatten().unwrap_or(0);
        self.offset.set(Some(offset));
        offset
    }

    /// The alarm wakes the relay at `expires_at` (service time) if that is before its time.
    async fn arm(&self, expires_at: Millis, offset: Millis) {
        let at = expires_at.saturating_sub(offset).max(1);
        let storage = self.state.storage();
        let current = storage.get_alarm().await.ok().flatten();
        if current.is_none_or(|c| u64::try_from(c).unwrap_or(0) > at) {
            self.set_alarm(at).await;
        }
    }

    async fn set_alarm(&self, at: Millis) {
        let date = worker::js_sys::Date::new(&JsValue::from_f64(at as f64));
        if let Err(e) = self
            .state
            .storage()
            .set_alarm(worker::ScheduledTime::new(date))
            .await
        {
            worker::console_error!("relay: the alarm: {e}");
        }
    }

    fn close_key(&self, id: &str) {
        for ws in self.sockets(Some(&key_tag(id))) {
            close(&ws, 4401, ErrorCode::InvalidApiKey);
        }
    }

    async fn stored_key_ends(&self) -> BTreeMap<String, Millis> {
        let stored = self.state.storage().get(KEY_ENDS_KEY).await;
        stored.ok().flatten().unwrap_or_default()
    }

    /// Key `id` stops at `at` (service time): its sockets close then (`expire`).
    async fn key_ends(&self, id: String, at: Millis) {
        let mut ends = self.stored_key_ends().await;
        let end = ends.get(&id).map_or(at, |had| (*had).min(at));
        ends.insert(id, end);
        if let Err(e) = self.state.storage().put(KEY_ENDS_KEY, &ends).await {
            worker::console_error!("relay: a key's end: {e}");
        }
        let offset = self.offset().await;
        self.arm(end, offset).await;
    }

    /// Closes the sockets whose session expired or whose key's grace period ended, and sets
    /// the alarm for the next expiry.
    async fn expire(&self) {
        let offset = self.offset().await;
        let now = crate::clock::now_ms().saturating_add(offset);
        let mut next: Option<Millis> = None;
        let mut ends = self.stored_key_ends().await;
        let before = ends.len();
        ends.retain(|id, at| {
            if now >= *at {
                self.close_key(id);
                return false;
            }
            next = Some(next.map_or(*at, |n| n.min(*at)));
            true
        });
        if ends.len() != before {
            if let Err(e) = self.state.storage().put(KEY_ENDS_KEY, &ends).await {
                worker::console_error!("relay: the keys' ends: {e}");
            }
        }
        for ws in self.sockets(None) {
            if let Opener::Session { expires_at, .. } = opener(&ws) {
                if now >= expires_at {
                    close(&ws, 4401, ErrorCode::SessionExpired);
                } else {
                    next = Some(next.map_or(expires_at, |n| n.min(expires_at)));
                }
            }
        }
        let storage = self.state.storage();
        match next {
            Some(at) => self.set_alarm(at.saturating_sub(offset).max(1)).await,
            None => {
                let _ = storage.delete_alarm().await;
            }
        }
    }
}
