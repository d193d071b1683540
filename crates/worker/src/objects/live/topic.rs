//! A topic's public answer, read in the merchant's object, and the message that carries it.
//!
//! Only public-key reads are ever pushed: a presale's public form (`GET /token/presales/:id`,
//! never the merchant form) and a holder's full form (`GET /holder/:userId`). A message is
//! JSON: `{"type":"presale"|"holder","id":..., "serviceTime": <UNIX ms>, "body": "<the
//! answer's exact JSON text>"}`; the body is a string so that its numbers keep their exact
//! digits through a client's `JSON.parse`. `serviceTime` is the service clock when the
//! message was made, which local time travel moves: clients count down with it.

use crate::adapters::sql::SqlStore;
use crate::hop::live::Topic;
use crate::http;
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::ids::UserId;
use tokenpad_core::model::session::Scope;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops;
use tokenpad_core::ops::session::access::{self, Caller};
use tokenpad_core::wire::holder::HolderFull;
use tokenpad_core::wire::presale::Presale;
use tokenpad_core::{Error, ErrorCode, Result};

/// A topic's answer as read: its digest, and its text as a JSON string literal (escaped once,
/// then put into as many messages as need it).
#[derive(Clone, Debug)]
pub struct Read {
    pub digest: String,
    pub body: String,
}

/// The topic's public answer now. Who may receive it is decided before (`may_follow`).
pub fn read(store: &SqlStore, topic: &Topic, now: Millis, private: bool) -> Result<Read> {
    let body = match topic {
        Topic::Presale(id) => {
            let p = ops::presale::find(store, id)?;
            let mut view = Presale::read(store, &p, now)?;
            if private {
                tokenpad_core::wire::presale::redact(&mut view);
            }
            encode(&view)?
        }
        Topic::Holder(id) => {
            let h = ops::holder::find(store, id)?;
            encode(&HolderFull::read(store, &h)?)?
        }
    };
    Ok(Read {
        digest: sha256_hex(body.as_bytes()).chars().take(16).collect(),
        body: encode(&body)?,
    })
}

/// The message carrying `topic`'s answer `body` (a JSON string literal, `Read::body`) at
/// service time `now`, its keys in the order clients have always received them.
pub fn message(topic: &Topic, now: Millis, body: &str) -> Result<String> {
    let (kind, id) = match topic {
        Topic::Presale(id) => ("presale", id.as_str()),
        Topic::Holder(id) => ("holder", id.as_str()),
    };
    let id = encode(id)?;
    Ok(format!(
        "{{\"type\":\"{kind}\",\"id\":{id},\"serviceTime\":{now},\"body\":{body}}}"
    ))
}

fn encode<T: serde::Serialize + ?Sized>(v: &T) -> Result<String> {
    http::encode(v).map_err(|e| Error::internal(format!("encode: {e}")))
}

/// Whether `caller` may follow holder `user`: a key unless the merchant is in private mode, a
/// session only its own holder, with the `read` scope (the refusals of `GET /holder/:userId`).
pub fn may_follow(caller: &Caller, user: &UserId, private: bool) -> Result<()> {
    match caller {
        Caller::Public if private => Err(Error::new(
            ErrorCode::SessionTokenRequired,
            "This merchant is in private mode: a holder is not followed with the public key; follow it with the holder's session token",
        )),
        Caller::Public | Caller::Secret => Ok(()),
        Caller::Session(s) => access::permit(s, user, Some(Scope::Read)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use tokenpad_core::model::ids::PresaleId;

    #[test]
    fn a_message_carries_the_body_as_a_string_with_the_service_clock() {
        let topic = Topic::Presale(PresaleId::new_unchecked("p\"1"));
        let body = encode("{\"amount\":1.000000000000000001}").unwrap();
        let m: serde_json::Value =
            serde_json::from_str(&message(&topic, 1_700_000_000_123, &body).unwrap()).unwrap();
        assert_eq!(m["type"], "presale");
        assert_eq!(m["id"], "p\"1");
        assert_eq!(m["serviceTime"], 1_700_000_000_123u64);
        assert_eq!(m["body"], "{\"amount\":1.000000000000000001}");
    }
}
