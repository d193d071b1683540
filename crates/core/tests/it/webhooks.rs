//! Webhook endpoints and the delivery of events to them: fan-out from the log, order per
//! resource, retries with backoff for three days, replays, pings, deletion.

use crate::common::{self, Fx};
use serde_json::json;
use tokenpad_core::model::event::EventType;
use tokenpad_core::model::ids::WebhookId;
use tokenpad_core::model::time::{Millis, DAY, SECOND};
use tokenpad_core::model::webhook::{Attempt, DeliveryState, MAX_WEBHOOKS};
use tokenpad_core::ops::webhook::deliver::{self, Outcome, RETRY_FOR};
use tokenpad_core::ops::webhook::{self, CreateWebhookRequest, UpdateWebhookRequest};
use tokenpad_core::store::EventStore;
use tokenpad_core::ErrorCode;

fn hook(fx: &mut Fx, id: &str, events: &[&str]) -> WebhookId {
    let req: CreateWebhookRequest =
        common::body(&json!({ "url": "https://example.com/hooks", "events": events })).unwrap();
    let id = WebhookId::new_unchecked(id);
    webhook::create(
        &mut fx.store,
        &fx.ctx,
        &req,
        id.clone(),
        "sealed".into(),
        false,
    )
    .unwrap();
    id
}

fn attempt(at: Millis, status: Option<u16>) -> Attempt {
    Attempt {
        at,
        duration_ms: 5,
        status,
        error: status.is_none().then(|| "timeout".to_string()),
        body: None,
    }
}

/// (delivery seq, event type, state) of one endpoint's deliveries, oldest first.
fn states(fx: &Fx, id: &WebhookId) -> Vec<(u64, EventType, DeliveryState)> {
    let mut v: Vec<_> = fx
        .store
        .deliveries_of(id, None, 1000)
        .unwrap()
        .into_iter()
        .map(|d| (d.seq, d.kind, d.state))
        .collect();
    v.reverse();
    v
}

fn kinds(fx: &Fx, id: &WebhookId) -> Vec<EventType> {
    states(fx, id).iter().map(|s| s.1).collect()
}

#[test]
fn endpoints_get_what_they_subscribe_to_from_their_creation_on() {
    let mut fx = Fx::new();
    fx.holder("before");
    let all = hook(&mut fx, "wh_all", &["*"]);
    let holders = hook(&mut fx, "wh_holders", &["holder.*"]);
    let tokens = hook(&mut fx, "wh_tokens", &["token.created"]);
    let off = hook(&mut fx, "wh_off", &["*"]);
    let req: UpdateWebhookRequest = common::body(&json!({ "enabled": false })).unwrap();
    webhook::update(&mut fx.store, &fx.ctx, &off, &req, false).unwrap();
    assert!(!deliver::fan_out_pending(&fx.store).unwrap());
    fx.holder("alice");
    fx.create_token(json!({ "name": "T", "symbol": "T" }));
    assert!(deliver::fan_out_pending(&fx.store).unwrap());
    let made = deliver::fan_out(&mut fx.store, fx.ctx.now).unwrap();
    assert_eq!(made, 4);
    assert!(!deliver::fan_out_pending(&fx.store).unwrap());
    assert_eq!(
        kinds(&fx, &all),
        [EventType::HolderCreated, EventType::TokenCreated]
    );
    assert_eq!(kinds(&fx, &holders), [EventType::HolderCreated]);
    assert_eq!(kinds(&fx, &tokens), [EventType::TokenCreated]);
    assert_eq!(
        kinds(&fx, &off),
        [],
        "a disabled endpoint misses what happens meanwhile"
    );
    // A ping goes to its endpoint alone, and fan-out never sends it again.
    let d = webhook::ping(&mut fx.store, &fx.ctx, &tokens).unwrap();
    assert_eq!(d.kind, EventType::WebhookPing);
    assert_eq!(d.state, DeliveryState::Pending);
    deliver::fan_out(&mut fx.store, fx.ctx.now).unwrap();
    assert_eq!(
        kinds(&fx, &all),
        [EventType::HolderCreated, EventType::TokenCreated]
    );
    assert_eq!(
        kinds(&fx, &tokens),
        [EventType::TokenCreated, EventType::WebhookPing]
    );
}

#[test]
fn one_resource_goes_in_order_and_a_failure_is_retried_with_backoff() {
    let mut fx = Fx::new();
    let id = hook(&mut fx, "wh_1", &["presale.*", "holder.created"]);
    let p = common::create_presale(
        &mut fx.store,
        &fx.ctx,
        &crate::presale::body("10", json!({})),
        "p-1",
    )
    .unwrap();
    fx.holder("alice");
    fx.ctx.now = crate::presale::START * 1000;
    tokenpad_core::ops::due::run_due(&mut fx.store, &fx.ctx).unwrap(); // pending -> active
    deliver::fan_out(&mut fx.store, fx.ctx.now).unwrap();
    use DeliveryState::*;
    use EventType::*;
    assert_eq!(
        states(&fx, &id)
            .iter()
            .map(|s| (s.1, s.2))
            .collect::<Vec<_>>(),
        [
            (PresaleCreated, Pending),
            (HolderCreated, Pending),
            (PresaleStatusChanged, Waiting)
        ]
    );
    let now = fx.ctx.now;
    let ready = fx.store.ready_deliveries(now, 100).unwrap();
    assert_eq!(
        ready.iter().map(|d| d.kind).collect::<Vec<_>>(),
        [PresaleCreated, HolderCreated]
    );
    // The presale's first delivery fails: it is retried in 30 s; the one behind it waits.
    let first = ready[0].seq;
    assert_eq!(
        deliver::record(&mut fx.store, first, attempt(now, Some(500)), now).unwrap(),
        Outcome::RetryAt(now + 30 * SECOND)
    );
    assert_eq!(
        deliver::record(&mut fx.store, ready[1].seq, attempt(now, Some(204)), now).unwrap(),
        Outcome::Succeeded
    );
    assert!(fx.store.ready_deliveries(now, 100).unwrap().is_empty());
    assert_eq!(
        fx.store.next_delivery_at().unwrap(),
        Some(now + 30 * SECOND)
    );
    let later = now + 30 * SECOND;
    assert_eq!(
        deliver::record(&mut fx.store, first, attempt(later, None), later).unwrap(),
        Outcome::RetryAt(later + 60 * SECOND)
    );
    let last = later + 60 * SECOND;
    assert_eq!(
        deliver::record(&mut fx.store, first, attempt(last, Some(200)), last).unwrap(),
        Outcome::Succeeded
    );
    // Now the status change goes, at once.
    let ready = fx.store.ready_deliveries(last, 100).unwrap();
    assert_eq!(
        ready
            .iter()
            .map(|d| (d.kind, d.next_at))
            .collect::<Vec<_>>(),
        [(PresaleStatusChanged, Some(last))]
    );
    let done = fx.store.delivery(first).unwrap().unwrap();
    assert_eq!(done.attempt_count, 3);
    assert_eq!(
        done.attempts.iter().map(|a| a.status).collect::<Vec<_>>(),
        [Some(500), None, Some(200)]
    );
    // Recording again (a late duplicate) changes nothing.
    assert_eq!(
        deliver::record(&mut fx.store, first, attempt(last, Some(200)), last).unwrap(),
        Outcome::Gone
    );
    let _ = p;
}

#[test]
fn a_delivery_is_given_up_after_three_days_and_the_next_one_goes() {
    let mut fx = Fx::new();
    let id = hook(&mut fx, "wh_1", &["*"]);
    fx.holder("alice");
    let t0 = fx.ctx.now;
    // Two events of one resource: the second waits for the first.
    let e = fx.store.events_after(0, None, 10).unwrap();
    deliver::fan_out(&mut fx.store, t0).unwrap();
    webhook::deliver::enqueue(&mut fx.store, &id, &e[0], t0, None).unwrap();
    let seqs: Vec<u64> = states(&fx, &id).iter().map(|s| s.0).collect();
    let mut now = t0;
    let mut tries = 0;
    loop {
        tries += 1;
        match deliver::record(&mut fx.store, seqs[0], attempt(now, Some(503)), now).unwrap() {
            Outcome::RetryAt(at) => now = at,
            Outcome::GaveUp => break,
            other => panic!("{other:?}"),
        }
    }
    assert!(
        now - t0 <= RETRY_FOR && now - t0 > RETRY_FOR - 6 * 3600 * SECOND,
        "{}",
        now - t0
    );
    assert!((15..=25).contains(&tries), "{tries} attempts in three days");
    let d = fx.store.delivery(seqs[0]).unwrap().unwrap();
    assert_eq!(d.state, DeliveryState::Failed);
    assert_eq!(d.attempt_count, tries);
    assert_eq!(d.finished_at, Some(now));
    let next = fx.store.delivery(seqs[1]).unwrap().unwrap();
    assert_eq!(
        (next.state, next.next_at),
        (DeliveryState::Pending, Some(now))
    );
    // Once its own deadline has passed, it still gets its attempt, then gives up.
    let late = t0 + RETRY_FOR + 1;
    assert_eq!(
        deliver::record(&mut fx.store, seqs[1], attempt(late, None), late).unwrap(),
        Outcome::GaveUp
    );
    let _ = DAY;
}

#[test]
fn replays_deletion_and_validation() {
    let mut fx = Fx::new();
    let id = hook(&mut fx, "wh_1", &["holder.created"]);
    fx.holder("alice");
    deliver::fan_out(&mut fx.store, fx.ctx.now).unwrap();
    let now = fx.ctx.now;
    let first = states(&fx, &id)[0].0;
    deliver::record(&mut fx.store, first, attempt(now, Some(200)), now).unwrap();
    let m = fx.ctx.merchant.id.clone();
    let dlv = tokenpad_core::model::event::public_id("dlv", &m, first);
    let again = webhook::replay(&mut fx.store, &fx.ctx, &id, &dlv).unwrap();
    assert_eq!(
        (again.replay_of, again.state, again.event),
        (Some(first), DeliveryState::Pending, 1)
    );
    assert_eq!(
        webhook::replay(&mut fx.store, &fx.ctx, &id, "dlv_nope")
            .unwrap_err()
            .code,
        ErrorCode::DeliveryNotFound
    );
    // Deleting stops everything: its deliveries are gone, a late answer is not recorded.
    webhook::delete(&mut fx.store, &id).unwrap();
    assert!(fx.store.ready_deliveries(now, 10).unwrap().is_empty());
    assert_eq!(
        deliver::record(&mut fx.store, again.seq, attempt(now, Some(200)), now).unwrap(),
        Outcome::Gone
    );
    assert_eq!(
        webhook::find(&fx.store, &id).unwrap_err().code,
        ErrorCode::WebhookNotFound
    );
    fx.holder("bob");
    assert!(!deliver::fan_out_pending(&fx.store).unwrap());

    // Bad requests: a clear error, naming the field.
    for (body, field) in [
        (json!({ "url": "https://x.test/h", "events": [] }), "events"),
        (
            json!({ "url": "https://x.test/h", "events": ["nope.*"] }),
            "events[0]",
        ),
        (
            json!({ "url": "https://x.test/h", "events": ["*", "webhook.ping"] }),
            "events[1]",
        ),
        (json!({ "url": "ftp://x.test/h", "events": ["*"] }), "url"),
        (
            json!({ "url": "https://u:p@x.test/h", "events": ["*"] }),
            "url",
        ),
        (json!({ "events": ["*"] }), "url"),
    ] {
        let e = common::body::<CreateWebhookRequest>(&body).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidRequest, "{body}");
        assert_eq!(e.details.unwrap()["field"], field, "{body}");
    }
    let local: CreateWebhookRequest =
        common::body(&json!({ "url": "http://127.0.0.1:9/h", "events": ["*"] })).unwrap();
    let e = webhook::create(
        &mut fx.store,
        &fx.ctx,
        &local,
        WebhookId::new_unchecked("wh_l"),
        "s".into(),
        false,
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::UrlNotAllowed);
    assert!(webhook::create(
        &mut fx.store,
        &fx.ctx,
        &local,
        WebhookId::new_unchecked("wh_l"),
        "s".into(),
        true
    )
    .is_ok());
    for i in 1..MAX_WEBHOOKS {
        hook(&mut fx, &format!("wh_{i}"), &["*"]);
    }
    let one_more: CreateWebhookRequest =
        common::body(&json!({ "url": "https://x.test/h", "events": ["*"] })).unwrap();
    let e = webhook::create(
        &mut fx.store,
        &fx.ctx,
        &one_more,
        WebhookId::new_unchecked("wh_x"),
        "s".into(),
        false,
    )
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::WebhookLimitReached);
}
