//! Webhooks on the wire: an endpoint (its secret only in the answer that created it), its
//! deliveries with every attempt and answer, and a page of them.

use crate::model::event::{event_id, public_id};
use crate::model::ids::{MerchantId, WebhookId};
use crate::model::time::Timestamp;
use crate::model::webhook::{
    Attempt as AttemptRecord, Delivery as DeliveryRecord, DeliveryState, Webhook as WebhookRecord,
};
use serde::{Deserialize, Serialize};

/// A webhook endpoint. Its signing secret is shown once, when it is created.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: WebhookId,
    pub url: String,
    /// What it receives: event types, groups (`presale.*`) or `*`.
    pub events: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A disabled endpoint receives nothing.
    pub enabled: bool,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Webhook {
    pub fn of(w: &WebhookRecord) -> Webhook {
        Webhook {
            id: w.id.clone(),
            url: w.url.clone(),
            events: w.events.clone(),
            description: w.description.clone(),
            enabled: w.enabled,
            created_at: Timestamp::at(w.created_at),
            updated_at: Timestamp::at(w.updated_at),
        }
    }
}

/// `POST /merchant/webhooks` -> 201: the endpoint and its signing secret, shown this once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WebhookCreated {
    #[serde(flatten)]
    pub webhook: Webhook,
    /// The signing secret (`whsec_...`): keep it; it is never shown again. Verify each
    /// delivery's `tokenpad-signature` with it.
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^whsec_[0-9a-f]{64}$")))]
    pub secret: String,
}

/// `DELETE /merchant/webhooks/:webhookId`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct WebhookDeleted {
    pub id: WebhookId,
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub deleted: bool,
}

/// One attempt at sending a delivery, and the receiver's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    /// When it was sent (the service clock).
    pub at: Timestamp,
    pub duration_ms: u64,
    /// The receiver's HTTP status, when it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_status: Option<u16>,
    /// Why there is no usable answer: `timeout`, `network error`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The start of the receiver's answer (at most 1 KiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
}

impl DeliveryAttempt {
    fn of(a: &AttemptRecord) -> DeliveryAttempt {
        DeliveryAttempt {
            at: Timestamp::at(a.at),
            duration_ms: a.duration_ms,
            response_status: a.status,
            error: a.error.clone(),
            response_body: a.body.clone(),
        }
    }
}

/// One event for one endpoint: where it stands, and every attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub id: String,
    pub webhook_id: WebhookId,
    pub event_id: String,
    pub event_type: crate::model::event::EventType,
    /// `pending` (sent at `nextAttemptAt`), `waiting` (behind an earlier delivery of the same
    /// resource), `succeeded` (a 2xx answer came), `failed` (no 2xx answer within three days).
    pub status: DeliveryState,
    pub attempt_count: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// A replay: the delivery it repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_of: Option<String>,
    /// The latest attempts (at most 25), oldest first.
    pub attempts: Vec<DeliveryAttempt>,
}

impl Delivery {
    pub fn of(merchant: &MerchantId, d: &DeliveryRecord) -> Delivery {
        Delivery {
            id: public_id("dlv", merchant, d.seq),
            webhook_id: d.webhook.clone(),
            event_id: event_id(merchant, d.event),
            event_type: d.kind,
            status: d.state,
            attempt_count: d.attempt_count,
            next_attempt_at: d.next_at.map(Timestamp::at),
            created_at: Timestamp::at(d.created_at),
            finished_at: d.finished_at.map(Timestamp::at),
            replay_of: d.replay_of.map(|s| public_id("dlv", merchant, s)),
            attempts: d.attempts.iter().map(DeliveryAttempt::of).collect(),
        }
    }
}

/// `GET /merchant/webhooks/:webhookId/deliveries`: newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct DeliveryPage {
    pub has_more: bool,
    /// Pass as `cursor` for older deliveries; null on the last page.
    pub next_cursor: Option<String>,
    pub data: Vec<Delivery>,
}

impl DeliveryPage {
    pub fn of(merchant: &MerchantId, list: &[DeliveryRecord], more: bool) -> DeliveryPage {
        let data: Vec<Delivery> = list.iter().map(|d| Delivery::of(merchant, d)).collect();
        DeliveryPage {
            has_more: more,
            next_cursor: if more {
                data.last().map(|d| d.id.clone())
            } else {
                None
            },
            data,
        }
    }
}
