//! Webhooks: a merchant's endpoints, and the deliveries of its events to them.
//!
//! A delivery is one event for one endpoint. Deliveries of one resource to one endpoint go
//! out in order: only the oldest open one is `pending` (it has a time to be sent); those
//! behind it are `waiting`, and the next one becomes pending when it succeeds or is given
//! up. Every attempt is kept with its answer.

use super::event::EventType;
use super::ids::WebhookId;
use super::time::Millis;
use serde::{Deserialize, Serialize};

/// At most this many endpoints per merchant.
pub const MAX_WEBHOOKS: usize = 16;
/// The attempts a delivery keeps (the latest ones; `attempt_count` counts them all).
pub const KEPT_ATTEMPTS: usize = 25;
/// What an attempt keeps of the receiver's answer, at most (bytes of text).
pub const KEPT_BODY: usize = 1024;

/// A merchant's webhook endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    pub id: WebhookId,
    /// http(s) only (`ops::webhook::check_url`).
    pub url: String,
    /// What it receives: event types, `<group>.*` (`presale.*`) or `*`.
    pub events: Vec<String>,
    pub description: Option<String>,
    pub enabled: bool,
    /// The signing secret, sealed by the shell (never shown again after creation).
    pub sealed_secret: String,
    pub created_at: Millis,
    pub updated_at: Millis,
    /// The last event of the log this endpoint was considered for (its deliveries exist for
    /// every matching event up to here). Starts at the log's end when it is created: an
    /// endpoint receives what happens after it exists.
    pub cursor: u64,
}

impl Webhook {
    /// Whether this endpoint receives events of `kind` (a ping only when asked for).
    pub fn wants(&self, kind: EventType) -> bool {
        kind != EventType::WebhookPing && self.events.iter().any(|p| pattern_matches(p, kind))
    }
}

/// Whether a subscription pattern (`*`, `presale.*`, `presale.created`) covers `kind`.
pub fn pattern_matches(pattern: &str, kind: EventType) -> bool {
    let name = kind.as_str();
    match pattern.strip_suffix(".*") {
        _ if pattern == "*" => true,
        Some(group) => name.split_once('.').is_some_and(|(g, _)| g == group),
        None => pattern == name,
    }
}

/// Whether `pattern` is one a subscription may use: `*`, a group of at least one event type
/// with `.*`, or an event type (`webhook.ping` is never subscribed to: it is sent on request).
pub fn pattern_valid(pattern: &str) -> bool {
    pattern == "*"
        || EventType::ALL
            .iter()
            .filter(|t| **t != EventType::WebhookPing)
            .any(|t| pattern_matches(pattern, *t) && pattern != "webhook.*")
}

/// Where a delivery stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Behind an earlier open delivery of the same resource to the same endpoint.
    Waiting,
    /// To be sent at `next_at`.
    Pending,
    /// A 2xx answer came.
    Succeeded,
    /// Given up: no 2xx answer before its deadline.
    Failed,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Waiting => "waiting",
            DeliveryState::Pending => "pending",
            DeliveryState::Succeeded => "succeeded",
            DeliveryState::Failed => "failed",
        }
    }

    /// Still to be sent (now or once the one ahead of it is done).
    pub fn is_open(self) -> bool {
        matches!(self, DeliveryState::Waiting | DeliveryState::Pending)
    }
}

/// One try at sending a delivery, and what came back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// When it was sent (service time).
    pub at: Millis,
    pub duration_ms: u64,
    /// The receiver's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Why there is no usable answer: `timeout`, `network error`, a refused URL, ...
    pub error: Option<String>,
    /// The start of the receiver's answer (at most [`KEPT_BODY`] bytes).
    pub body: Option<String>,
}

impl Attempt {
    /// A 2xx answer: delivered.
    pub fn succeeded(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// One event for one endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// Its place in the deliveries (assigned by the store; 0 before it is stored).
    pub seq: u64,
    pub webhook: WebhookId,
    /// The event's sequence number.
    pub event: u64,
    pub kind: EventType,
    pub resource: String,
    pub state: DeliveryState,
    /// The latest attempts, oldest first (at most [`KEPT_ATTEMPTS`]).
    pub attempts: Vec<Attempt>,
    pub attempt_count: u32,
    /// When it is sent next (pending only).
    pub next_at: Option<Millis>,
    pub created_at: Millis,
    /// Failing attempts are retried until this time; the first attempt always happens.
    pub deadline: Millis,
    /// A replay: the delivery it repeats.
    pub replay_of: Option<u64>,
    /// When it succeeded or was given up.
    pub finished_at: Option<Millis>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        use EventType::*;
        assert!(pattern_matches("*", PresaleCreated));
        assert!(pattern_matches("presale.*", PresaleStatusChanged));
        assert!(!pattern_matches("presale.*", TokenCreated));
        assert!(pattern_matches("token.created", TokenCreated));
        assert!(!pattern_matches("token.create", TokenCreated));
        for ok in ["*", "presale.*", "transaction.confirmed", "lock.*"] {
            assert!(pattern_valid(ok), "{ok}");
        }
        for bad in [
            "",
            "presale",
            "nope.*",
            "webhook.ping",
            "webhook.*",
            ".*",
            "**",
            "presale.created ",
        ] {
            assert!(!pattern_valid(bad), "{bad}");
        }
    }
}
