//! One API call, the object's way (see the module above): admit, authorize, due work, replay,
//! apply with its record and follow-ups in one transaction, or record the refusal.

use super::admit::{admit, Admitted};
use super::credential::Credential;
use super::due;
use super::ports::{Object, Plant, Txn};
use crate::error::{Error, ErrorCode, Result};
use crate::model::time::Millis;
use crate::ops::idempotency::{self, Keyed, PRUNE_EVERY};
use crate::ops::session::access::Caller;
use crate::wire::scope::{self, Permitted};
use crate::wire::{self, Op};

/// An API call as the object receives it.
pub struct Call {
    pub credential: Credential,
    /// The decoded operation, or why the request could not be decoded: refused only after the
    /// credential checked, like any other refusal.
    pub op: Result<Op>,
    /// For a write: its Idempotency-Key and fingerprint (method, path and canonical body,
    /// hashed).
    pub idempotency: Option<(String, String)>,
    /// The client's address, as budgets count it.
    pub client: String,
    pub now: Millis,
}

/// What a call came to. `answer` is the operation's status and JSON text, or its refusal.
pub struct Served<S> {
    pub answer: Result<(u16, String)>,
    /// The answer was kept under the Idempotency-Key and is replayed.
    pub replayed: bool,
    /// The operation writes (its route says so).
    pub writes: bool,
    /// Follow-ups were queued with it.
    pub queued: bool,
    /// How many due items ran first.
    pub due: usize,
    /// What the object noted of the permitted operation before it ran (`note`), when it got
    /// that far.
    pub seen: Option<S>,
}

impl<S> Served<S> {
    fn refused(e: Error) -> Served<S> {
        Served {
            answer: Err(e),
            replayed: false,
            writes: false,
            queued: false,
            due: 0,
            seen: None,
        }
    }
}

/// Whether a refusal from applying an operation is kept under its Idempotency-Key and
/// replayed: every 4xx the operation itself answered (it started executing), never a 429 and
/// never a 5xx (a retry may then succeed).
fn recorded(e: &Error) -> bool {
    (400..500).contains(&e.status()) && e.code != ErrorCode::RateLimited
}

/// Serves one API call. `note` sees the permitted operation before it runs (what it is,
/// who asks), for what the object does after the answer (live push, caching).
pub fn serve<O: Object, S>(
    object: &O,
    call: Call,
    note: impl FnOnce(&Admitted, &Permitted) -> S,
) -> Served<S> {
    let Call {
        credential,
        op,
        idempotency,
        client,
        now,
    } = call;
    let admitted = match admit(object, &credential, &client, now) {
        Ok(a) => a,
        Err(e) => return Served::refused(e),
    };
    let permitted = match op.and_then(|op| authorize(object, &admitted, op)) {
        Ok(p) => p,
        Err(e) => return Served::refused(e),
    };
    let seen = note(&admitted, &permitted);
    let writes = permitted.op().writes();
    let ran = due::run(object, now, &admitted.merchant);
    let mut served = Served {
        answer: Err(Error::internal("not served")),
        replayed: false,
        writes,
        queued: false,
        due: ran,
        seen: Some(seen),
    };
    // Only a write carries a key (the edge passes none for a read).
    let keyed = idempotency.filter(|_| writes);
    let caller = permitted.caller().clone();
    if let Some((key, fingerprint)) = keyed.clone() {
        if !object.planted(Plant::ReplayAppliesTwice) {
            let kept = object.run(false, {
                let caller = caller.clone();
                move |t| {
                    let request = Keyed {
                        key: &key,
                        fingerprint: &fingerprint,
                    };
                    idempotency::replay(&*t.store(), &caller, &request, now)
                }
            });
            match kept {
                Ok(Some(answer)) => {
                    served.answer = Ok(answer);
                    served.replayed = true;
                    return served;
                }
                Ok(None) => {}
                Err(e) => {
                    served.answer = Err(e);
                    return served;
                }
            }
        }
    }
    match apply(object, &admitted, permitted, keyed.clone(), now) {
        Ok((status, body, queued)) => {
            served.queued = queued;
            served.answer = Ok((status, body));
        }
        Err(e) => {
            if let (true, Some(keyed)) = (recorded(&e), keyed) {
                record_refusal(object, caller, keyed, &e, now);
            }
            served.answer = Err(e);
        }
    }
    served
}

/// Who may run it, before any replay: a credential never replays what it may not do.
fn authorize<O: Object>(object: &O, admitted: &Admitted, op: Op) -> Result<Permitted> {
    let (caller, role) = (admitted.caller.clone(), admitted.role);
    let merchant = admitted.merchant.clone();
    object.run(false, move |t| {
        let store = &*t.store();
        match role {
            Some(role) => scope::authorize_member(store, role, &merchant, op),
            None => scope::authorize(store, caller, &merchant, op),
        }
    })
}

/// Applies the permitted operation: in one transaction with its idempotency record and its
/// follow-ups when it writes; a read writes nothing and opens none. Returns its status, its
/// text, and whether it queued follow-ups.
fn apply<O: Object>(
    object: &O,
    admitted: &Admitted,
    permitted: Permitted,
    keyed: Option<(String, String)>,
    now: Millis,
) -> Result<(u16, String, bool)> {
    let ctx = object.ctx(now, admitted.merchant.clone())?;
    let writes = permitted.op().writes();
    let prune = keyed.is_some() && now.saturating_sub(object.pruned_at()) >= PRUNE_EVERY;
    let after_commit = object.planted(Plant::FollowupAfterCommit);
    let (status, body, reply) = object.run(writes, {
        let ctx = ctx.clone();
        move |t| {
            let (memo, kept) = t.recall(&ctx, &permitted);
            if let Some(text) = kept {
                return Ok((200, text, None));
            }
            let caller = permitted.caller().clone();
            let reply = {
                let (store, shell) = t.parts();
                wire::apply(store, &ctx, permitted, shell)?
            };
            let body = t.encode(&reply.body)?;
            if let (Some(memo), 200) = (memo, reply.status) {
                t.remember(memo, &body);
            }
            if let Some((key, fingerprint)) = &keyed {
                let store = t.store();
                if prune {
                    idempotency::prune(store, now)?;
                }
                // An answer that shows a key is kept as a refusal: a key is shown once.
                let (status, kept) = match wire::kept_instead(&reply) {
                    Some(e) => (
                        e.status(),
                        serde_json::to_string(&e.to_body())
                            .map_err(|err| Error::internal(format!("encode: {err}")))?,
                    ),
                    None => (reply.status, body.clone()),
                };
                let request = Keyed { key, fingerprint };
                idempotency::record(store, &caller, &request, status, &kept, now)?;
            }
            let queued = if after_commit {
                false
            } else {
                t.queue(&ctx, &reply)?
            };
            Ok((reply.status, body, Some((reply, queued))))
        }
    })?;
    if prune {
        object.set_pruned_at(now);
    }
    let mut queued = reply.as_ref().is_some_and(|(_, q)| *q);
    if writes {
        // An object that stops here has committed; nothing after this runs.
        object.committed()?;
        if let Some((reply, _)) = reply.filter(|_| after_commit) {
            queued = object.run(true, move |t| t.queue(&ctx, &reply))?;
        }
    }
    Ok((status, body, queued))
}

/// The operation ran and refused: that refusal is its answer under this key (it changed
/// nothing: its transaction rolled back), kept in a transaction of its own. A failure to keep
/// it is the object's to log; the refusal is still the answer.
fn record_refusal<O: Object>(
    object: &O,
    caller: Caller,
    (key, fingerprint): (String, String),
    e: &Error,
    now: Millis,
) {
    let status = e.status();
    let Ok(body) = serde_json::to_string(&e.to_body()) else {
        return;
    };
    let kept = object.run(true, move |t| {
        let request = Keyed {
            key: &key,
            fingerprint: &fingerprint,
        };
        idempotency::record(t.store(), &caller, &request, status, &body, now)
    });
    if let Err(err) = kept {
        object.log(&format!("idempotency record of a refusal: {err}"));
    }
}
