//! Live push (`GET /live`), all of it here but the edge's stateless checks of the upgrade
//! (`edge/live.rs`) and the typed calls between the parts (`hop/live.rs`):
//! - the relays, Durable Objects that hold the sockets (`relay.rs`);
//! - the merchant object's hub ([`Hub`], this file, with `flush.rs`, `follow.rs` and
//!   `topic.rs`): what changed goes out once per topic, at most every [`PUSH_EVERY_MS`], to
//!   the relays that follow it; how many watch never reaches the merchant's object. The
//!   object hands it each committed operation ([`Hub::committed`], what it will hear taken
//!   by [`Heard::of`] before the operation runs) and each admission ([`Hub::admit`]).
//!
//! A client's `GET /live` reaches a relay, one per merchant and set of topics
//! (`hop::live::relay_name`); the relay asks this object to admit the socket ([`Hub::admit`]:
//! the credential and the topics checked as every request's are, each topic's current
//! message in the answer) and accepts it with the hibernation API. The object keeps which
//! relays follow which topics (`follow.rs`, in memory and SQLite). A write only marks that
//! something changed ([`Hub::changed`]: no read, no send), and starts a timer when none runs:
//! when it fires, each followed topic is read once, exactly as its public-key route answers
//! it, and a topic whose answer changed since it was last sent goes to each relay that
//! follows it, in one call per relay (`topic.rs` makes the message). A burst of writes thus
//! costs one read and one send per topic per period, and the last state always goes out: the
//! timer runs after the last change. A relay that does not answer gets the topic again at
//! the next period.
//!
//! Who may follow what: a key follows presales, and holders unless the merchant is in private
//! mode; a holder's session token (the subprotocols `tokenpad-session, <token>`, see
//! `hop::Credential::of_upgrade`) follows presales and its own holder (with the `read`
//! scope), in private mode too. The relay closes a session's socket (4401, the reason
//! `session_expired` or `session_revoked`) when its session expires (its alarm) or is revoked
//! (this object tells the relays following the session's tag, [`Hub::revoked`]); a public-key
//! socket following a holder is closed (4403, `session_token_required`) once the merchant
//! turns private mode on ([`Hub::private_mode_on`]); a key's sockets are closed (4401,
//! `invalid_api_key`) once the key stops: at once by a revoke or a roll with no grace, by the
//! relay's alarm at the end of a roll's grace period. In private mode
//! presales name their participants by address.

mod flush;
mod follow;
pub mod relay;
mod topic;

use crate::adapters::sql::{SqlStore, Watch};
use crate::hop::live::WatchCall;
use crate::hop::live::{
    key_tag, relay_name, session_tag, Admitted, Control, Opener, Push, Topic, MAX_TOPICS,
};
use crate::objects::clock::ServiceClock;
use follow::{Followed, Snapshot};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;
use tokenpad_core::model::ids::UserId;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::wire::keys::KeyOp;
use tokenpad_core::wire::merchant::MerchantOp;
use tokenpad_core::wire::session::SessionOp;
use tokenpad_core::wire::Op;
use tokenpad_core::{Error, ErrorCode, Result};
use wasm_bindgen::{JsCast, JsValue};
use worker::worker_sys::DurableObjectState;
use worker::Env;

/// A topic's watchers get its state at most once per this many milliseconds.
pub const PUSH_EVERY_MS: Millis = 250;

/// A relay that fails this many sends in a row is forgotten (a relay that restarts drops its
/// sockets, whose clients reconnect and are admitted again).
const MAX_FAILURES: u32 = 5;

/// What the relays must hear of an operation once it commits ([`Hub::committed`]), taken
/// before it runs (applying it consumes it).
pub struct Heard {
    /// It may change what a public read answers: reads never do (`Op::writes` is false), nor
    /// do the event log's and webhooks' writes.
    changes: bool,
    tell: Tell,
}

enum Tell {
    Nothing,
    /// The holder's sessions were revoked: their sockets close.
    Revoked(UserId),
    /// The merchant's settings changed: in private mode, public-key sockets following
    /// holders close.
    Settings,
    /// A key was revoked or rolled: if it stopped, the sockets it opened close.
    Key(String),
}

impl Heard {
    pub fn of(op: &Op) -> Heard {
        let tell = match op {
            Op::Session(SessionOp::RevokeSessions(user)) => Tell::Revoked(user.clone()),
            Op::Merchant(MerchantOp::PatchSettings(_)) => Tell::Settings,
            Op::Keys(KeyOp::Revoke(id) | KeyOp::Roll(id, _)) => Tell::Key(id.clone()),
            _ => Tell::Nothing,
        };
        Heard {
            changes: op.writes() && !matches!(op, Op::Hooks(_) | Op::Keys(_)),
            tell,
        }
    }
}

/// The object's live push hub; cheap to clone (one shared state).
#[derive(Clone)]
pub struct Hub(Rc<Inner>);

struct Inner {
    /// The object's state (its `DurableObjectState`), for its storage when a timer fires.
    raw: JsValue,
    env: Env,
    watch: Watch,
    /// The object's service clock: a flush reads the topics at its time.
    clock: ServiceClock,
    state: RefCell<HubState>,
}

#[derive(Default)]
struct HubState {
    /// None until read from SQLite (at the first change or admission of this instance).
    followed: Option<Followed>,
    /// Something changed since the topics were last read.
    stale: bool,
    /// A flush is scheduled.
    scheduled: bool,
    /// When the last flush ran (real time).
    last_flush: Millis,
    /// The last version given (`Push::version`).
    version: u64,
    /// Controls waiting to go, per relay.
    controls: BTreeMap<String, Vec<Control>>,
    /// Sends that failed in a row, per relay.
    failures: BTreeMap<String, u32>,
}

impl HubState {
    /// The next version: larger than every version given, by this instance or an earlier
    /// one (real time, in thousandths of a millisecond).
    fn next_version(&mut self, real: Millis) -> u64 {
        self.version = self
            .version
            .saturating_add(1)
            .max(real.saturating_mul(1000));
        self.version
    }
}

fn real_now() -> Millis {
    crate::clock::now_ms()
}

impl Hub {
    pub fn new(raw: &DurableObjectState, env: Env, watch: Watch, clock: ServiceClock) -> Hub {
        Hub(Rc::new(Inner {
            raw: JsValue::from(raw),
            env,
            watch,
            clock,
            state: RefCell::default(),
        }))
    }

    fn store(&self) -> SqlStore {
        let raw: DurableObjectState = self.0.raw.clone().unchecked_into();
        let storage = worker::State::from(raw).storage();
        SqlStore::new(storage.sql()).watching(self.0.watch.clone())
    }

    /// Runs `f` with the topics followed, read from SQLite first if this instance has not.
    /// An instance reading them sends every topic at its first flush: its predecessor may
    /// have stopped with a change not yet sent.
    fn with_followed<R>(
        &self,
        f: impl FnOnce(&mut Followed, &mut HubState) -> Result<R>,
    ) -> Result<R> {
        let mut guard = self.0.state.borrow_mut();
        let state = &mut *guard;
        let (mut followed, loaded) = match state.followed.take() {
            Some(f) => (f, false),
            None => (Followed::load(&self.store(), real_now())?, true),
        };
        if loaded && !followed.is_empty() {
            state.stale = true;
        }
        let out = f(&mut followed, state);
        let flush = loaded && state.stale;
        state.followed = Some(followed);
        drop(guard);
        if flush {
            self.schedule();
        }
        out
    }

    /// Something that public reads show may have changed (a write, due work, the clock): the
    /// followed topics are read again at the next flush, at the service clock's time then.
    pub fn changed(&self) {
        let followed = self.with_followed(|f, s| {
            if !f.is_empty() {
                s.stale = true;
            }
            Ok(!f.is_empty())
        });
        match followed {
            Ok(true) => self.schedule(),
            Ok(false) => {}
            Err(e) => worker::console_error!("live: the followed topics: {e}"),
        }
    }

    /// An operation committed at service time `now`: its changes go out at the next flush,
    /// and the sockets it ends are closed. `private_mode` says whether the merchant is in
    /// private mode now (asked only after a change of its settings); `key_end`, when a key
    /// stops (stopped) working, if it does (asked only after a key's revoke or roll).
    pub fn committed(
        &self,
        heard: Heard,
        private_mode: impl FnOnce() -> bool,
        key_end: impl FnOnce(&str) -> Option<Millis>,
        now: Millis,
    ) {
        if heard.changes {
            self.changed();
        }
        match heard.tell {
            Tell::Nothing => {}
            Tell::Revoked(user) => self.revoked(&user, now),
            Tell::Settings => {
                if private_mode() {
                    self.private_mode_on();
                }
            }
            Tell::Key(id) => {
                let tag = key_tag(&id);
                let control = match key_end(&id) {
                    Some(at) if at <= now => Control::CloseKey { id },
                    Some(at) => Control::KeyEnds {
                        id,
                        at,
                        offset_ms: now.saturating_sub(real_now()),
                    },
                    None => return,
                };
                self.control(|f| f.relays_of(&tag), control);
            }
        }
    }

    /// The service clock moved to `now` (local time travel): every relay learns it (its
    /// sessions expire on it), and every topic is read again.
    pub fn clock_moved(&self, now: Millis) {
        let offset = now.saturating_sub(real_now());
        self.control(|f| f.relays_with(""), Control::Clock { offset_ms: offset });
        self.changed();
    }

    /// Holder `user`'s sessions made at or before `until` were revoked: their sockets close.
    fn revoked(&self, user: &UserId, until: Millis) {
        let tag = session_tag(user);
        let control = Control::CloseSessions {
            user: user.clone(),
            until,
        };
        self.control(|f| f.relays_of(&tag), control);
    }

    /// The merchant turned private mode on: public-key sockets following holders close.
    fn private_mode_on(&self) {
        self.control(|f| f.relays_with("h:"), Control::ClosePublicHolders);
    }

    /// Queues `control` for the relays `which` names, and flushes soon.
    fn control(&self, which: impl FnOnce(&Followed) -> Vec<String>, control: Control) {
        let queued = self.with_followed(|f, s| {
            let relays = which(f);
            for relay in &relays {
                s.controls
                    .entry(relay.clone())
                    .or_default()
                    .push(control.clone());
            }
            Ok(!relays.is_empty())
        });
        match queued {
            Ok(true) => self.schedule(),
            Ok(false) => {}
            Err(e) => worker::console_error!("live: the followed topics: {e}"),
        }
    }

    /// Admits a socket a relay asks for (`WatchCall`), opened by `caller` (with the key whose
    /// id and end, if it has one, are `key`, when a key opened it) of `merchant` (in private mode or not): each topic
    /// must be one it may follow and must exist (a 403 or 404 otherwise). The answer carries
    /// each topic's current message; from now on the relay is sent each topic's changes.
    pub fn admit(
        &self,
        store: &SqlStore,
        caller: &Caller,
        key: Option<(String, Option<Millis>)>,
        merchant: &Merchant,
        call: WatchCall,
        now: Millis,
    ) -> Result<Admitted> {
        let private = merchant.private_mode;
        let merchant = &merchant.id;
        let topics = call
            .tags
            .iter()
            .map(|t| Topic::from_tag(t))
            .collect::<Option<Vec<Topic>>>()
            .filter(|t| !t.is_empty() && t.len() <= MAX_TOPICS)
            .ok_or_else(|| Error::new(ErrorCode::InvalidRequest, "No topic to follow"))?;
        if call.relay != relay_name(merchant, &topics) {
            return Err(Error::internal(
                "live: a relay asked for topics not its own",
            ));
        }
        for t in &topics {
            if let Topic::Holder(user) = t {
                topic::may_follow(caller, user, private)?;
            }
        }
        let opener = match caller {
            Caller::Public => Opener::Public,
            Caller::Secret => Opener::Secret,
            Caller::Session(s) => Opener::Session {
                id: s.id.clone(),
                user: s.user_id.clone(),
                created_at: s.created_at,
                expires_at: s.expires_at,
            },
        };
        let real = real_now();
        let relay = call.relay;
        let pushes = self.with_followed(|followed, s| {
            let mut pushes = Vec::with_capacity(topics.len());
            for t in &topics {
                let tag = t.tag();
                // The state last sent, while nothing changed since; else read now.
                let kept = followed
                    .topics
                    .get(&tag)
                    .and_then(|e| e.last.clone())
                    .filter(|_| !s.stale);
                let (digest, body, version) = match kept {
                    Some(k) => (k.digest, k.body, k.version),
                    None => {
                        let read = topic::read(store, t, now, private)?;
                        let version = s.next_version(real);
                        // The topic's first relay, while nothing changed since the last flush:
                        // the state it has, which the next flush compares with.
                        if !s.stale && !followed.topics.contains_key(&tag) {
                            followed.topics.entry(tag.clone()).or_default().last = Some(Snapshot {
                                digest: read.digest.clone(),
                                body: read.body.clone(),
                                version,
                            });
                        }
                        (read.digest, read.body, version)
                    }
                };
                let message = topic::message(t, now, &body)?;
                pushes.push(Push {
                    tag,
                    version,
                    digest,
                    message,
                });
            }
            let mut tags: Vec<String> = topics.iter().map(Topic::tag).collect();
            if let Opener::Session { user, .. } = &opener {
                tags.push(session_tag(user));
            }
            if let Some((id, _)) = &key {
                tags.push(key_tag(id));
            }
            for tag in tags {
                if followed.add(&tag, &relay, real) {
                    follow::write(store, &tag, &relay)?;
                }
            }
            Ok(pushes)
        })?;
        Ok(Admitted {
            opener,
            offset_ms: now.saturating_sub(real),
            pushes,
            key_ends_at: key.as_ref().and_then(|(_, end)| *end),
            key: key.map(|(id, _)| id),
        })
    }

    /// Starts the timer unless one runs: it fires [`PUSH_EVERY_MS`] after the last flush (at
    /// once when that is past).
    fn schedule(&self) {
        let wait = {
            let mut s = self.0.state.borrow_mut();
            if s.scheduled {
                return;
            }
            s.scheduled = true;
            s.last_flush
                .saturating_add(PUSH_EVERY_MS)
                .saturating_sub(real_now())
        };
        let hub = self.clone();
        worker::wasm_bindgen_futures::spawn_local(async move {
            if wait > 0 {
                worker::Delay::from(Duration::from_millis(wait)).await;
            }
            hub.flush().await;
        });
    }
}
