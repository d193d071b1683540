//! Webhooks: a merchant's endpoints (`POST/GET/PATCH/DELETE /merchant/webhooks`), a test
//! ping, and the deliveries of its events (`deliver`: fan-out, ordering, retries), each
//! listed with its attempts and replayable.

pub mod deliver;
mod url;

pub use url::{check_url, MAX_URL};

use super::Ctx;
use crate::error::{Error, ErrorCode, Result};
use crate::model::event::{parse_public_id, EventType, Subject};
use crate::model::ids::{MerchantId, WebhookId};
use crate::model::input::{Checked, HttpUrl, Int, Text};
use crate::model::webhook::{pattern_valid, Delivery, Webhook, MAX_WEBHOOKS};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// At most this many subscription patterns per endpoint.
pub const MAX_PATTERNS: usize = 32;
pub const DEFAULT_PAGE: u32 = 20;
pub const MAX_PAGE: u64 = 100;

/// `POST /merchant/webhooks`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateWebhook"))]
#[serde(rename_all = "camelCase")]
pub struct CreateWebhookRequest {
    /// Where events are POSTed: an http(s) URL on the public internet.
    pub url: HttpUrl,
    /// What it receives: event types (`presale.launched`), groups (`presale.*`) or `*`.
    #[cfg_attr(
        feature = "codegen",
        schemars(
            with = "Vec<crate::schema::EventSelector>",
            extend("minItems" = 1, "maxItems" = 32)
        )
    )]
    pub events: Vec<Text<64>>,
    /// A note for yourself: one line of at most 256 characters shown as written (no control,
    /// format, invisible or noncharacter code point, not blank; otherwise 400 `invalid_text`).
    #[serde(default)]
    pub description: Option<Text<256>>,
    /// Default true.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// `PATCH /merchant/webhooks/:webhookId`: the fields to change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "UpdateWebhook"))]
#[serde(rename_all = "camelCase")]
pub struct UpdateWebhookRequest {
    #[serde(default)]
    pub url: Option<HttpUrl>,
    #[serde(default)]
    #[cfg_attr(
        feature = "codegen",
        schemars(
            with = "Option<Vec<crate::schema::EventSelector>>",
            extend("minItems" = 1, "maxItems" = 32)
        )
    )]
    pub events: Option<Vec<Text<64>>>,
    #[serde(default)]
    pub description: Option<Text<256>>,
    /// A disabled endpoint receives nothing: events while it is disabled are not delivered
    /// to it, and its pending deliveries wait until it is enabled again.
    #[serde(default)]
    pub enabled: Option<bool>,
}

fn check_events(events: &[Text<64>]) -> Result<Vec<String>> {
    if events.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "must name at least one event type (or \"*\")",
        )
        .at_field("events"));
    }
    if events.len() > MAX_PATTERNS {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            format!("must have at most {MAX_PATTERNS} items"),
        )
        .at_field("events"));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let p = e.as_str().trim();
        if !pattern_valid(p) {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                format!("is not an event type, a group (presale.*) or *: {p}"),
            )
            .at_field(&format!("events[{i}]"))
            .with("index", i as u64));
        }
        if !out.iter().any(|x| x == p) {
            out.push(p.to_string());
        }
    }
    Ok(out)
}

impl Checked for CreateWebhookRequest {
    fn check(&self) -> Result<()> {
        check_url(self.url.as_str(), true)?;
        check_events(&self.events).map(drop)
    }
}

impl Checked for UpdateWebhookRequest {
    fn check(&self) -> Result<()> {
        if let Some(url) = &self.url {
            check_url(url.as_str(), true)?;
        }
        if let Some(events) = &self.events {
            check_events(events)?;
        }
        Ok(())
    }
}

/// This merchant's endpoint `id`, or 404 `webhook_not_found`.
pub fn find(store: &dyn Store, id: &WebhookId) -> Result<Webhook> {
    store.webhook(id)?.ok_or_else(|| {
        Error::new(
            ErrorCode::WebhookNotFound,
            format!("No webhook with id {id}"),
        )
    })
}

/// A new endpoint. `id` is fresh, `sealed_secret` its signing secret as the shell sealed it;
/// `allow_private` lets it call private addresses (local runs and tests).
pub fn create(
    store: &mut dyn Store,
    ctx: &Ctx,
    req: &CreateWebhookRequest,
    id: WebhookId,
    sealed_secret: String,
    allow_private: bool,
) -> Result<Webhook> {
    let url = check_url(req.url.as_str(), allow_private)?;
    let events = check_events(&req.events)?;
    if store.webhooks()?.len() >= MAX_WEBHOOKS {
        return Err(Error::new(
            ErrorCode::WebhookLimitReached,
            format!("A merchant has at most {MAX_WEBHOOKS} webhooks: delete one first"),
        )
        .with("limit", MAX_WEBHOOKS as u64));
    }
    let w = Webhook {
        id,
        url,
        events,
        description: req.description.clone().map(Text::into_string),
        enabled: req.enabled.unwrap_or(true),
        sealed_secret,
        created_at: ctx.now,
        updated_at: ctx.now,
        cursor: store.last_event_seq()?,
    };
    store.put_webhook(&w)?;
    Ok(w)
}

pub fn update(
    store: &mut dyn Store,
    ctx: &Ctx,
    id: &WebhookId,
    req: &UpdateWebhookRequest,
    allow_private: bool,
) -> Result<Webhook> {
    let mut w = find(store, id)?;
    if let Some(url) = &req.url {
        w.url = check_url(url.as_str(), allow_private)?;
    }
    if let Some(events) = &req.events {
        w.events = check_events(events)?;
    }
    if let Some(d) = &req.description {
        w.description = Some(d.as_str().to_string());
    }
    if let Some(enabled) = req.enabled {
        w.enabled = enabled;
    }
    w.updated_at = ctx.now;
    store.put_webhook(&w)?;
    Ok(w)
}

/// Deletes an endpoint: nothing more is sent to it (a delivery already on its way may still
/// arrive), and its deliveries are forgotten.
pub fn delete(store: &mut dyn Store, id: &WebhookId) -> Result<Webhook> {
    let w = find(store, id)?;
    store.delete_webhook(id)?;
    Ok(w)
}

/// A test event (`webhook.ping`) for this endpoint alone, queued now; enabled or not.
pub fn ping(store: &mut dyn Store, ctx: &Ctx, id: &WebhookId) -> Result<Delivery> {
    let w = find(store, id)?;
    let seq = super::event::emit(
        store,
        ctx.now,
        EventType::WebhookPing,
        Subject::Ping {
            webhook: w.id.clone(),
        },
    )?;
    let event = store
        .event(seq)?
        .ok_or_else(|| Error::internal("the ping event is missing"))?;
    deliver::enqueue(store, &w.id, &event, ctx.now, None)
}

/// `GET /merchant/webhooks/:webhookId/deliveries?cursor=&limit=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryQuery {
    /// A delivery id: only deliveries older than it.
    pub cursor: Option<String>,
    pub limit: u32,
}

impl DeliveryQuery {
    pub fn parse(cursor: Option<&str>, limit: Option<&str>) -> Result<DeliveryQuery> {
        let limit = match limit {
            None | Some("") => DEFAULT_PAGE,
            Some(l) => {
                u32::try_from(Int::<1, MAX_PAGE>::parse("limit", l)?.get()).unwrap_or(DEFAULT_PAGE)
            }
        };
        Ok(DeliveryQuery {
            cursor: cursor.filter(|c| !c.is_empty()).map(str::to_string),
            limit,
        })
    }
}

/// One endpoint's deliveries, newest first, and whether older ones follow.
pub fn deliveries(
    store: &dyn Store,
    merchant: &MerchantId,
    id: &WebhookId,
    q: &DeliveryQuery,
) -> Result<(Vec<Delivery>, bool)> {
    find(store, id)?;
    let before = match &q.cursor {
        None => None,
        Some(c) => Some(parse_public_id("dlv", merchant, c).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidCursor,
                "cursor is not one this service returned",
            )
        })?),
    };
    let mut list = store.deliveries_of(id, before, q.limit.saturating_add(1))?;
    let more = list.len() > q.limit as usize;
    list.truncate(q.limit as usize);
    Ok((list, more))
}

/// Endpoint `webhook`'s delivery `id`, or 404 `delivery_not_found`.
pub fn find_delivery(
    store: &dyn Store,
    merchant: &MerchantId,
    webhook: &WebhookId,
    id: &str,
) -> Result<Delivery> {
    find(store, webhook)?;
    parse_public_id("dlv", merchant, id)
        .map(|seq| store.delivery(seq))
        .transpose()?
        .flatten()
        .filter(|d| &d.webhook == webhook)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::DeliveryNotFound,
                format!("No delivery with id {id}"),
            )
        })
}

/// Sends a delivery's event again, as a new delivery (after those of its resource still
/// open). The event must still be kept (30 days).
pub fn replay(store: &mut dyn Store, ctx: &Ctx, webhook: &WebhookId, id: &str) -> Result<Delivery> {
    let d = find_delivery(store, &ctx.merchant.id, webhook, id)?;
    let event = store.event(d.event)?.ok_or_else(|| {
        Error::new(
            ErrorCode::EventNotFound,
            "The delivery's event is no longer kept (events are kept 30 days)",
        )
    })?;
    deliver::enqueue(store, webhook, &event, ctx.now, Some(d.seq))
}
