//! The live channel's calls between the edge, the relays and the merchant's object (the
//! design: `objects/live/mod.rs`).
//!
//! - The edge hands a client's `GET /live` upgrade to the relay named by [`relay_name`] (the
//!   merchant and the socket's topics), with that name and the merchant in headers it sets
//!   itself ([`RELAY_HEADER`], [`MERCHANT_HEADER`]; a client's own values are replaced).
//! - The relay asks the merchant's object to admit the socket ([`WatchCall`], by RPC on the
//!   object's stub as every call is): the object checks the credential and the topics and
//!   answers [`Admitted`]: who opened it and each topic's current message.
//! - The merchant's object sends a relay what changed ([`RelayCall`], by RPC on the relay's
//!   stub, `publish`): the latest message of each topic that changed, and what to close; the
//!   relay answers how many sockets follow each topic it was sent ([`RelayHeld`]).

use super::Credential;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::ids::{MerchantId, PresaleId, UserId};
use tokenpad_core::model::session::SessionId;
use tokenpad_core::model::time::Millis;
use tokenpad_core::{Error, ErrorCode, Result};

/// Topics one socket may follow (Cloudflare allows ten tags a socket: the topics, and the
/// session's own tag, [`session_tag`]).
pub const MAX_TOPICS: usize = 8;

/// The header the edge names the relay with, on the upgrade it hands that relay.
pub const RELAY_HEADER: &str = "x-tokenpad-relay";
/// The header the edge names the merchant with, on the same upgrade.
pub const MERCHANT_HEADER: &str = "x-tokenpad-merchant";

/// What one socket follows: a presale's public form or a holder's full form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Topic {
    Presale(PresaleId),
    Holder(UserId),
}

impl Topic {
    /// The topic as a tag: `p:<presaleId>` or `h:<userId>`.
    pub fn tag(&self) -> String {
        match self {
            Topic::Presale(id) => format!("p:{}", id.as_str()),
            Topic::Holder(id) => format!("h:{}", id.as_str()),
        }
    }

    /// The topic a tag names (`None`: not a topic's tag, such as a session's).
    pub fn from_tag(tag: &str) -> Option<Topic> {
        if let Some(id) = tag.strip_prefix("p:") {
            return Some(Topic::Presale(PresaleId::new_unchecked(id.to_string())));
        }
        let id = tag.strip_prefix("h:")?;
        UserId::parse(id).ok().map(Topic::Holder)
    }
}

/// The tag of a session's sockets, `s:<userId>`: the merchant's object closes them through it
/// when their holder's sessions are revoked.
pub fn session_tag(user: &UserId) -> String {
    format!("s:{}", user.as_str())
}

/// The tag of the sockets a key opened, `k:<key id>`: the merchant's object closes them
/// through it when the key stops (revoked, or rolled with no grace).
pub fn key_tag(id: &str) -> String {
    format!("k:{id}")
}

/// The topics a `GET /live` asks for: `presale=<id>` and `holder=<userId>`, each repeatable,
/// in the order asked, each once; 1 to [`MAX_TOPICS`].
pub fn topics<'q>(
    query: impl IntoIterator<Item = (Cow<'q, str>, Cow<'q, str>)>,
) -> Result<Vec<Topic>> {
    let mut out: Vec<Topic> = Vec::new();
    for (k, v) in query {
        let topic = match k.as_ref() {
            "presale" if !v.trim().is_empty() => {
                Topic::Presale(PresaleId::new_unchecked(v.into_owned()))
            }
            "presale" => return Err(Error::field("presale", "presale must be a presale id")),
            "holder" => Topic::Holder(UserId::parse(&v)?),
            _ => continue,
        };
        if !out.contains(&topic) {
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

/// The relay that holds a socket following `topics` of `merchant`: one relay per set of
/// topics (sorted, so the order asked does not matter), so the sockets following one presale
/// share one relay, and the merchant's object sends each change of a topic once to each
/// relay that follows it (one, for the one-topic sockets the client library opens). The name
/// is the SHA-256 of the merchant and the tags, in hex: it travels in a header, where a
/// userId's characters may not.
pub fn relay_name(merchant: &MerchantId, topics: &[Topic]) -> String {
    let mut tags: Vec<String> = topics.iter().map(Topic::tag).collect();
    tags.sort();
    let canonical = format!("{}\n{}", merchant.as_str(), tags.join("\n"));
    sha256_hex(canonical.as_bytes())
}

/// A relay asks the merchant's object to admit a socket.
#[derive(Debug, Serialize, Deserialize)]
pub struct WatchCall {
    /// What the upgrade carried (`Credential::of_upgrade`).
    pub credential: Credential,
    /// The topics' tags, as [`topics`] read them.
    pub tags: Vec<String>,
    /// The relay's name ([`relay_name`]): where the object sends the topics' changes.
    pub relay: String,
    /// The client's address, as budgets count it (`ratelimit::client_address`).
    #[serde(default)]
    pub client: String,
}

/// Who opened a socket, kept in its attachment (which survives hibernation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Opener {
    /// The public key (and what an attachment that does not read as this type counts as:
    /// the narrowest).
    #[default]
    Public,
    Secret,
    #[serde(rename_all = "camelCase")]
    Session {
        id: SessionId,
        user: UserId,
        created_at: Millis,
        expires_at: Millis,
    },
}

/// The merchant's object admitted a socket.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admitted {
    pub opener: Opener,
    /// The service clock's offset from real time (local time travel; 0 elsewhere): a
    /// session's expiry is service time.
    pub offset_ms: Millis,
    /// Each topic's current message.
    pub pushes: Vec<Push>,
    /// The id of the key that opened it (none for a session): its sockets are tagged
    /// [`key_tag`], so they close when the key stops.
    #[serde(default)]
    pub key: Option<String>,
    /// When that key stops (service time), when it is in a roll's grace period.
    #[serde(default)]
    pub key_ends_at: Option<Millis>,
}

/// A topic's message, as every socket following it receives it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Push {
    pub tag: String,
    /// Orders the messages of one merchant's object (a later state has a larger version):
    /// a relay never sends an older state after a newer one.
    pub version: u64,
    /// The digest of the topic's answer: the same answer is not sent twice.
    pub digest: String,
    /// The message: `{"type","id","serviceTime","body"}` (`objects/live/topic.rs`).
    pub message: String,
}

/// What the merchant's object sends a relay.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct RelayCall {
    pub pushes: Vec<Push>,
    pub controls: Vec<Control>,
}

/// Sockets a relay must close, or what it must know.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Control {
    /// The holder's sessions created at or before `until` (service time) were revoked: close
    /// their sockets (4401 `session_revoked`).
    CloseSessions { user: UserId, until: Millis },
    /// The key `id` stopped working: close the sockets it opened (4401 `invalid_api_key`).
    CloseKey { id: String },
    /// The key `id` stops at `at` (service time; the clock's offset is `offset_ms`), at the end
    /// of a roll's grace period: close the sockets it opened then.
    KeyEnds {
        id: String,
        at: Millis,
        offset_ms: Millis,
    },
    /// The merchant turned private mode on: close the public-key sockets following holders
    /// (4403 `session_token_required`).
    ClosePublicHolders,
    /// The service clock moved (local time travel): sessions expire on it.
    Clock { offset_ms: Millis },
}

/// A relay's answer to a [`RelayCall`]: per tag it was sent, the sockets that follow it.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct RelayHeld {
    pub held: BTreeMap<String, u32>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(Cow<'_, str>, Cow<'_, str>)> {
        form_urlencoded::parse(q.as_bytes()).collect()
    }

    #[test]
    fn topics_are_read_once_each_and_bounded() {
        let t = topics(pairs("publicKey=pk&presale=p1&holder=alice&presale=p1")).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].tag(), "p:p1");
        assert_eq!(Topic::from_tag("h:alice"), Some(t[1].clone()));
        assert_eq!(Topic::from_tag("s:alice"), None);
        let refused = |q: &str| topics(pairs(q)).unwrap_err().code;
        assert_eq!(refused("publicKey=pk"), ErrorCode::InvalidRequest);
        assert_eq!(refused("presale=%20"), ErrorCode::InvalidRequest);
        let nine: Vec<String> = (0..9).map(|i| format!("holder=u{i}")).collect();
        assert_eq!(refused(&nine.join("&")), ErrorCode::InvalidRequest);
    }

    #[test]
    fn a_relay_is_named_by_its_merchant_and_its_set_of_topics() {
        let m = MerchantId::new_unchecked("m1");
        let a = topics(pairs("presale=p1&holder=alice")).unwrap();
        let b = topics(pairs("holder=alice&presale=p1")).unwrap();
        assert_eq!(relay_name(&m, &a), relay_name(&m, &b));
        let c = topics(pairs("presale=p1")).unwrap();
        assert_ne!(relay_name(&m, &a), relay_name(&m, &c));
        let other = MerchantId::new_unchecked("m2");
        assert_ne!(relay_name(&m, &c), relay_name(&other, &c));
    }
}
