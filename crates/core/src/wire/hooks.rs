//! The event log's and webhooks' operations: decoded from their routes into a [`HookOp`]
//! (one `Op::Hooks` of the operation enum) and applied here, answered with the types of
//! `event` and `webhook`.

use super::endpoint::{
    Access::Secret,
    Effect::{Reads, Writes},
    Route, Row,
};
use super::event::{Event, EventPage};
use super::parts::Parts;
use super::shell::Shell;
use super::webhook::{Delivery, DeliveryPage, Webhook, WebhookCreated, WebhookDeleted};
use crate::error::Result;
use crate::model::ids::WebhookId;
use crate::ops::event::{self as log, EventQuery};
use crate::ops::webhook::{self, CreateWebhookRequest, DeliveryQuery, UpdateWebhookRequest};
use crate::ops::Ctx;
use crate::store::Store;
use serde::Serialize;

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const EVENTS: Route = Route::new("listEvents");
pub const EVENT: Route = Route::new("getEvent");
pub const CREATE_WEBHOOK: Route = Route::new("createWebhook");
pub const LIST_WEBHOOKS: Route = Route::new("listWebhooks");
pub const GET_WEBHOOK: Route = Route::new("getWebhook");
pub const UPDATE_WEBHOOK: Route = Route::new("updateWebhook");
pub const DELETE_WEBHOOK: Route = Route::new("deleteWebhook");
pub const TEST_WEBHOOK: Route = Route::new("testWebhook");
pub const DELIVERIES: Route = Route::new("listDeliveries");
pub const REPLAY_DELIVERY: Route = Route::new("replayDelivery");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("GET", "/merchant/events", EVENTS, Secret, Reads),
    ("GET", "/merchant/events/:eventId", EVENT, Secret, Reads),
    ("POST", "/merchant/webhooks", CREATE_WEBHOOK, Secret, Writes),
    ("GET", "/merchant/webhooks", LIST_WEBHOOKS, Secret, Reads),
    ("GET", "/merchant/webhooks/:webhookId", GET_WEBHOOK, Secret, Reads),
    ("PATCH", "/merchant/webhooks/:webhookId", UPDATE_WEBHOOK, Secret, Writes),
    ("DELETE", "/merchant/webhooks/:webhookId", DELETE_WEBHOOK, Secret, Writes),
    ("POST", "/merchant/webhooks/:webhookId/test", TEST_WEBHOOK, Secret, Writes),
    ("GET", "/merchant/webhooks/:webhookId/deliveries", DELIVERIES, Secret, Reads),
    ("POST", "/merchant/webhooks/:webhookId/deliveries/:deliveryId/replay", REPLAY_DELIVERY, Secret, Writes),
];

/// An operation on the event log or the webhooks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookOp {
    Events(EventQuery),
    Event(String),
    CreateWebhook(CreateWebhookRequest),
    ListWebhooks,
    GetWebhook(WebhookId),
    UpdateWebhook(WebhookId, UpdateWebhookRequest),
    DeleteWebhook(WebhookId),
    TestWebhook(WebhookId),
    Deliveries(WebhookId, DeliveryQuery),
    ReplayDelivery(WebhookId, String),
}

impl HookOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            HookOp::Events(_) => EVENTS,
            HookOp::Event(_) => EVENT,
            HookOp::CreateWebhook(_) => CREATE_WEBHOOK,
            HookOp::ListWebhooks => LIST_WEBHOOKS,
            HookOp::GetWebhook(_) => GET_WEBHOOK,
            HookOp::UpdateWebhook(..) => UPDATE_WEBHOOK,
            HookOp::DeleteWebhook(_) => DELETE_WEBHOOK,
            HookOp::TestWebhook(_) => TEST_WEBHOOK,
            HookOp::Deliveries(..) => DELIVERIES,
            HookOp::ReplayDelivery(..) => REPLAY_DELIVERY,
        }
    }
}

/// Every answer of a [`HookOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HookResponse {
    Events(EventPage),
    Event(Box<Event>),
    Webhook(Webhook),
    WebhookCreated(WebhookCreated),
    Webhooks(Vec<Webhook>),
    WebhookDeleted(WebhookDeleted),
    Delivery(Box<Delivery>),
    Deliveries(DeliveryPage),
}

fn webhook_id(parts: &Parts) -> Result<WebhookId> {
    parts.id(0, "webhookId").map(WebhookId::new_unchecked)
}

/// Decodes a route of this module; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<HookOp>> {
    let q = |name: &str| parts.query(name);
    Ok(Some(match route {
        EVENTS => HookOp::Events(EventQuery::parse(q("after"), q("types"), q("limit"))?),
        EVENT => HookOp::Event(parts.id(0, "eventId")?),
        CREATE_WEBHOOK => HookOp::CreateWebhook(parts.body()?),
        LIST_WEBHOOKS => HookOp::ListWebhooks,
        GET_WEBHOOK => HookOp::GetWebhook(webhook_id(parts)?),
        UPDATE_WEBHOOK => HookOp::UpdateWebhook(webhook_id(parts)?, parts.body()?),
        DELETE_WEBHOOK => HookOp::DeleteWebhook(webhook_id(parts)?),
        TEST_WEBHOOK => HookOp::TestWebhook(webhook_id(parts)?),
        DELIVERIES => HookOp::Deliveries(
            webhook_id(parts)?,
            DeliveryQuery::parse(q("cursor"), q("limit"))?,
        ),
        REPLAY_DELIVERY => HookOp::ReplayDelivery(webhook_id(parts)?, parts.id(1, "deliveryId")?),
        _ => return Ok(None),
    }))
}

fn reply(status: u16, body: HookResponse) -> (u16, HookResponse) {
    (status, body)
}

/// `wh_` and 32 hex characters.
fn new_webhook_id(shell: &mut dyn Shell) -> Result<WebhookId> {
    Ok(WebhookId::new_unchecked(format!(
        "wh_{}",
        hex::encode(shell.random16()?)
    )))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    op: HookOp,
    shell: &mut dyn Shell,
) -> Result<(u16, HookResponse)> {
    let merchant = &ctx.merchant.id;
    Ok(match op {
        HookOp::Events(q) => {
            let (events, more) = log::page(store, merchant, &q)?;
            let data = events
                .iter()
                .map(|e| Event::read(store, merchant, e, shell.base_url()))
                .collect::<Result<Vec<Event>>>()?;
            let next_cursor = data.last().map(|e| e.id.clone()).or(q.after);
            reply(
                200,
                HookResponse::Events(EventPage {
                    has_more: more,
                    next_cursor,
                    data,
                }),
            )
        }
        HookOp::Event(id) => {
            let e = log::find(store, merchant, &id)?;
            let event = Event::read(store, merchant, &e, shell.base_url())?;
            reply(200, HookResponse::Event(Box::new(event)))
        }
        HookOp::CreateWebhook(req) => {
            let id = new_webhook_id(shell)?;
            let (secret, sealed) = shell.new_secret(id.as_str().as_bytes())?;
            let w = webhook::create(store, ctx, &req, id, sealed, shell.allow_private_urls())?;
            reply(
                201,
                HookResponse::WebhookCreated(WebhookCreated {
                    webhook: Webhook::of(&w),
                    secret: secret_text(&secret),
                }),
            )
        }
        HookOp::ListWebhooks => {
            let all = store.webhooks()?.iter().map(Webhook::of).collect();
            reply(200, HookResponse::Webhooks(all))
        }
        HookOp::GetWebhook(id) => reply(
            200,
            HookResponse::Webhook(Webhook::of(&webhook::find(store, &id)?)),
        ),
        HookOp::UpdateWebhook(id, req) => {
            let w = webhook::update(store, ctx, &id, &req, shell.allow_private_urls())?;
            reply(200, HookResponse::Webhook(Webhook::of(&w)))
        }
        HookOp::DeleteWebhook(id) => {
            let w = webhook::delete(store, &id)?;
            reply(
                200,
                HookResponse::WebhookDeleted(WebhookDeleted {
                    id: w.id,
                    deleted: true,
                }),
            )
        }
        HookOp::TestWebhook(id) => {
            let d = webhook::ping(store, ctx, &id)?;
            reply(
                202,
                HookResponse::Delivery(Box::new(Delivery::of(merchant, &d))),
            )
        }
        HookOp::Deliveries(id, q) => {
            let (list, more) = webhook::deliveries(store, merchant, &id, &q)?;
            reply(
                200,
                HookResponse::Deliveries(DeliveryPage::of(merchant, &list, more)),
            )
        }
        HookOp::ReplayDelivery(id, delivery) => {
            let d = webhook::replay(store, ctx, &id, &delivery)?;
            reply(
                202,
                HookResponse::Delivery(Box::new(Delivery::of(merchant, &d))),
            )
        }
    })
}

/// A signing secret as the merchant sees it and as it keys the signature: `whsec_` and its
/// 32 bytes in hex.
pub fn secret_text(secret: &[u8; 32]) -> String {
    format!("whsec_{}", hex::encode(secret))
}
