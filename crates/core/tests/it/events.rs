//! The event log: each change writes its events with it (and a refusal writes none), each
//! event's payload is the resource as the API shows it at the end of the change, and the log
//! pages by event id.

use crate::common::{self, Fx};
use crate::presale::{END, P, START};
use crate::reverts::pass_on;
use crate::settle::{distribute, evm, plan_all, receipt, settle_all, sign, token, LIMITS};
use serde_json::{json, Value};
use tokenpad_core::model::deployment::DeploymentKind;
use tokenpad_core::model::event::{event_id, EventType};
use tokenpad_core::model::ids::DeploymentId;
use tokenpad_core::model::time::DAY;
use tokenpad_core::ops;
use tokenpad_core::ops::event::EventQuery;
use tokenpad_core::ops::settle;
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::EventStore;
use tokenpad_core::wire::event::{seal, Event};

pub(crate) const BASE: &str = "https://tp.test";

/// Seals what is new and returns every event as the API shows it.
pub(crate) fn log(
    store: &mut MemStore,
    merchant: &tokenpad_core::model::ids::MerchantId,
) -> Vec<Value> {
    seal(store, BASE).unwrap();
    store
        .events_after(0, None, 10_000)
        .unwrap()
        .iter()
        .map(|e| common::json(&Event::read(store, merchant, e, BASE).unwrap()))
        .collect()
}

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect()
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

#[test]
fn ledger_changes_write_their_events_and_refusals_none() {
    let mut fx = Fx::new();
    let token = fx.create_token(json!({ "name": "Demo", "symbol": "DEMO", "canDistribute": true }));
    let alice = fx.holder("alice");
    fx.holder("bob");
    fx.holder("alice"); // exists: no second event
    let path = token.to_checksum();
    common::distribute(
        &mut fx.store,
        &fx.ctx,
        &path,
        &json!({ "sendToId": "alice", "amount": 100 }),
    )
    .unwrap();
    let before = fx.store.clone();
    let refused = common::move_out(
        &mut fx.store,
        &fx.ctx,
        common::Kind::Spend,
        "alice",
        &json!({ "tokenAddress": path, "amount": 1000 }),
    );
    assert!(refused.is_err());
    common::assert_unchanged(&before, &fx.store, "refused spend");
    let bob = fx.holder("bob");
    common::move_out(
        &mut fx.store,
        &fx.ctx,
        common::Kind::Transfer,
        "alice",
        &json!({ "tokenAddress": path, "amount": 10, "toAddress": bob.address.to_checksum() }),
    )
    .unwrap();

    let m = fx.ctx.merchant.id.clone();
    let events = log(&mut fx.store, &m);
    assert_eq!(
        types(&events),
        [
            "token.created",
            "holder.created",
            "holder.created",
            "transaction.created",
            "transaction.created",
            "transaction.created"
        ]
    );
    // Ids come from the sequence; every event names its merchant and resource.
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["id"], event_id(&m, i as u64 + 1));
        assert_eq!(e["merchantId"], m.as_str());
    }
    let token_event = &events[0];
    assert_eq!(token_event["resource"], format!("token:{path}"));
    assert_eq!(token_event["data"]["object"]["symbol"], "DEMO");
    let holder = &events[1];
    assert_eq!(holder["resource"], "holder:alice");
    assert_eq!(holder["data"]["object"]["id"], "alice");
    assert_eq!(
        holder["data"]["object"]["address"],
        alice.address.to_checksum()
    );
    // The distribution: the record as `GET /holder/alice/transactions` shows it.
    let tx = &events[3]["data"];
    assert_eq!(tx["userId"], "alice");
    assert_eq!(tx["object"]["type"], "distribute");
    assert_eq!(tx["object"]["amount"], common::num("100"));
    assert_eq!(tx["object"]["chainStatus"], "confirmed");
    assert_eq!(
        events[3]["resource"],
        format!("transaction:{}", tx["object"]["id"].as_str().unwrap())
    );
    // A transfer between two holders is in both histories: two records, two events.
    let sides: Vec<(&str, &str)> = events[4..]
        .iter()
        .map(|e| {
            (
                e["data"]["userId"].as_str().unwrap(),
                e["data"]["object"]["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(sides, [("alice", "transfer_out"), ("bob", "transfer_in")]);
}

#[test]
fn the_payload_is_fixed_when_the_change_commits() {
    let mut fx = Fx::new();
    let token = fx.create_token(json!({ "name": "Demo", "symbol": "DEMO", "canDistribute": true }));
    fx.holder("alice");
    let m = fx.ctx.merchant.id.clone();
    let first = log(&mut fx.store, &m);
    let path = token.to_checksum();
    common::distribute(
        &mut fx.store,
        &fx.ctx,
        &path,
        &json!({ "sendToId": "alice", "amount": 5 }),
    )
    .unwrap();
    let later = log(&mut fx.store, &m);
    // The holder's event still shows her wallet as it was when it was created.
    assert_eq!(first[1], later[1]);
    assert_eq!(later[1]["data"]["object"]["tokens"], json!([]));
}

#[test]
fn a_presale_tells_its_whole_life() {
    let mut p = P::new("10", json!({ "lockDuration": 1 }));
    p.buyer("a", "10");
    p.buyer("b", "10");
    let m = p.fx.ctx.merchant.id.clone();
    // Each step is its own transaction, sealed as it commits (as the worker does).
    seal(&mut p.fx.store, BASE).unwrap();
    p.open();
    seal(&mut p.fx.store, BASE).unwrap();
    p.buy("a", "6").unwrap();
    seal(&mut p.fx.store, BASE).unwrap();
    p.buy("b", "4").unwrap(); // the target: it launches at once
    seal(&mut p.fx.store, BASE).unwrap();
    p.to(END * 1000 + 2 * DAY);
    let events = log(&mut p.fx.store, &m);
    let presale: Vec<&Value> = events
        .iter()
        .filter(|e| e["resource"] == format!("presale:{}", p.id))
        .collect();
    let kinds: Vec<&str> = presale
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "presale.created",
            "presale.status_changed",
            "presale.purchase",
            "presale.purchase",
            "presale.status_changed",
            "presale.launched"
        ]
    );
    assert_eq!(presale[0]["data"]["object"]["status"], "pending");
    assert_eq!(presale[1]["data"]["previousStatus"], "pending");
    assert_eq!(presale[1]["data"]["object"]["status"], "active");
    assert_eq!(
        presale[1]["createdAt"], "2026-11-21T12:01:00.000Z",
        "at its start"
    );
    let purchase = &presale[2]["data"]["purchase"];
    assert_eq!(purchase["userId"], "a");
    assert_eq!(purchase["usdcAmount"], common::num("6"));
    assert!(purchase["transactionId"].is_string());
    assert_eq!(presale[4]["data"]["previousStatus"], "active");
    assert_eq!(presale[4]["data"]["object"]["status"], "completed");
    assert_eq!(
        presale[5]["data"]["object"]["completionState"]["step"],
        "completed"
    );
    // Its token, its pool, the buyers' locks opening.
    let launched = p.get();
    let token = format!("token:{}", launched.token_address.to_checksum());
    let token_events: Vec<&str> = events
        .iter()
        .filter(|e| e["resource"] == token)
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(token_events, ["token.created", "liquidity.created"]);
    let unlocked = of_type(&events, "lock.unlocked");
    assert_eq!(unlocked.len(), 2);
    assert_eq!(unlocked[0]["data"]["userId"], "a");
    assert_eq!(unlocked[0]["data"]["object"]["status"], "locked");
    assert!(events
        .iter()
        .any(|e| e["type"] == "transaction.created" && e["data"]["object"]["type"] == "unlock"));
}

#[test]
fn a_purchase_event_lists_its_buyer_alone_and_the_other_presale_events_the_first() {
    let mut p = P::new("100", json!({}));
    let buyers = ["b0", "b1", "b2", "b3", "b4"];
    for b in buyers {
        p.buyer(b, "20");
    }
    p.open();
    for b in buyers {
        p.buy(b, "1").unwrap();
        seal(&mut p.fx.store, BASE).unwrap();
    }
    p.buy("b2", "3").unwrap(); // b2's second: 4 of the 8 raised
    seal(&mut p.fx.store, BASE).unwrap();
    p.to(END * 1000); // below the threshold: ended, refunded
    let m = p.fx.ctx.merchant.id.clone();
    let events = log(&mut p.fx.store, &m);
    let listed = |e: &Value| -> Vec<(String, Value, Value)> {
        let rows = e["data"]["object"]["participants"].as_array().unwrap();
        rows.iter()
            .map(|x| {
                let id = x["id"].as_str().unwrap().to_string();
                (id, x["usdcAmount"].clone(), x["tokenPercentage"].clone())
            })
            .collect()
    };
    let row =
        |id: &str, usdc: &str, pct: &str| (id.to_string(), common::num(usdc), common::num(pct));
    let purchases = of_type(&events, "presale.purchase");
    assert_eq!(purchases.len(), 6);
    // The first: alone, all of it; the fifth: alone among five, 1 of 5.
    assert_eq!(listed(purchases[0]), [row("b0", "1", "100")]);
    assert_eq!(listed(purchases[4]), [row("b4", "1", "20")]);
    assert_eq!(purchases[4]["data"]["object"]["participantsCount"], 5);
    // b2 again: their total in the presale and its share after it, not the purchase's amount.
    let last = purchases[5];
    assert_eq!(listed(last), [row("b2", "4", "50")]);
    assert_eq!(last["data"]["purchase"]["usdcAmount"], common::num("3"));
    assert_eq!(last["data"]["object"]["participantsCount"], 5);
    assert_eq!(
        last["data"]["object"]["purchasedUsdcAmount"],
        common::num("8")
    );
    // The refund's events list the first participants (all five here), in order.
    let refunded = of_type(&events, "presale.refunded")[0];
    let ids: Vec<String> = listed(refunded).into_iter().map(|r| r.0).collect();
    assert_eq!(ids, buyers);
    assert_eq!(
        of_type(&events, "presale.status_changed")[1]["data"]["object"]["participants"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[test]
fn a_presale_below_the_threshold_is_refunded_and_says_so() {
    let mut p = P::new("100", json!({}));
    p.buyer("a", "50");
    p.open();
    seal(&mut p.fx.store, BASE).unwrap();
    p.buy("a", "10").unwrap();
    seal(&mut p.fx.store, BASE).unwrap();
    p.to(END * 1000);
    let m = p.fx.ctx.merchant.id.clone();
    let events = log(&mut p.fx.store, &m);
    let kinds: Vec<&str> = events
        .iter()
        .filter(|e| e["resource"] == format!("presale:{}", p.id))
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "presale.created",
            "presale.status_changed",
            "presale.purchase",
            "presale.status_changed",
            "presale.refunded"
        ]
    );
    let ended = of_type(&events, "presale.status_changed")[1];
    assert_eq!(ended["data"]["previousStatus"], "active");
    assert_eq!(ended["data"]["object"]["status"], "ended");
    assert!(events
        .iter()
        .any(|e| e["data"]["object"]["type"] == "presale_refund"));
    let _ = START;
}

#[test]
fn deployments_and_trades_write_their_events() {
    let mut fx = Fx::new();
    let spec = common::deploy_spec(
        DeploymentKind::Memecoin,
        &json!({ "name": "Pepe", "symbol": "PEPE", "totalSupply": 1000000, "initialPrice": "0.01",
                 "network": "base", "marketplace": true }),
    )
    .unwrap();
    let id = DeploymentId::new_unchecked("d-1");
    let d = ops::deployment::create(&mut fx.store, &fx.ctx, spec, id.clone()).unwrap();
    fx.advance(tokenpad_core::model::chain::BLOCK_MS);
    ops::due::run_due(&mut fx.store, &fx.ctx).unwrap();
    let alice = fx.holder("alice");
    common::deposit(&mut fx.store, &fx.ctx, &alice.address, 50_000_000).unwrap();
    let req = json!({ "tokenAddress": d.token_address.to_checksum(), "usdcAmount": 10 });
    let req: ops::market::BuyRequest = common::body(&req).unwrap();
    let bought = ops::market::buy(&mut fx.store, &fx.ctx, &alice.user_id, &req).unwrap();
    let m = fx.ctx.merchant.id.clone();
    let events = log(&mut fx.store, &m);
    crate::trade_event::of_0_3_reads_as_now(&fx.store, &m, &bought);
    let succeeded = of_type(&events, "deployment.succeeded");
    assert_eq!(succeeded.len(), 1);
    assert_eq!(succeeded[0]["resource"], "deployment:d-1");
    assert_eq!(succeeded[0]["data"]["object"]["status"], "success");
    assert_eq!(
        succeeded[0]["data"]["object"]["serviceBuildUrl"],
        "https://tp.test/deployments/d-1"
    );
    let liquidity = of_type(&events, "liquidity.created");
    assert_eq!(
        liquidity[0]["data"]["tokenAddress"],
        d.token_address.to_checksum()
    );
    let trade = of_type(&events, "trade.executed");
    assert_eq!(trade.len(), 1);
    assert_eq!(trade[0]["data"]["userId"], "alice");
    assert_eq!(trade[0]["data"]["object"]["side"], "buy");
    assert_eq!(trade[0]["data"]["object"]["usdcAmount"], common::num("10"));
    assert_eq!(
        trade[0]["resource"],
        format!("token:{}", d.token_address.to_checksum())
    );
}

#[test]
fn the_log_pages_by_event_id_and_filters_by_type() {
    let mut fx = Fx::new();
    for u in ["a", "b", "c", "d", "e"] {
        fx.holder(u);
    }
    let m = fx.ctx.merchant.id.clone();
    seal(&mut fx.store, BASE).unwrap();
    let q = EventQuery::parse(None, None, Some("2")).unwrap();
    let (page, more) = ops::event::page(&fx.store, &m, &q).unwrap();
    assert_eq!(page.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2]);
    assert!(more);
    let after = event_id(&m, 2);
    let q = EventQuery::parse(Some(&after), None, Some("10")).unwrap();
    let (page, more) = ops::event::page(&fx.store, &m, &q).unwrap();
    assert_eq!(page.iter().map(|e| e.seq).collect::<Vec<_>>(), [3, 4, 5]);
    assert!(!more);
    let q = EventQuery::parse(None, Some("transaction.created, holder.created"), None).unwrap();
    assert_eq!(
        q.kinds.as_deref(),
        Some(&[EventType::TransactionCreated, EventType::HolderCreated][..])
    );
    assert_eq!(ops::event::page(&fx.store, &m, &q).unwrap().0.len(), 5);
    // Groups, as webhooks subscribe; each type once.
    let q = EventQuery::parse(None, Some("holder.*,holder.created"), None).unwrap();
    assert_eq!(q.kinds.as_deref(), Some(&[EventType::HolderCreated][..]));
    let q = EventQuery::parse(None, Some("transaction.*"), None).unwrap();
    assert_eq!(
        q.kinds.as_deref(),
        Some(
            &[
                EventType::TransactionCreated,
                EventType::TransactionConfirmed,
                EventType::TransactionFailed,
                EventType::TransactionReorganized
            ][..]
        )
    );
    for bad in ["holder.created,nope", "nope.*", ".*", "holder.", "**"] {
        let err = EventQuery::parse(None, Some(bad), None).unwrap_err();
        assert_eq!(err.details.unwrap()["field"], "types", "{bad}");
    }
    for cursor in [
        "evt_nope",
        "x",
        &event_id(
            &tokenpad_core::model::ids::MerchantId::new_unchecked(
                "ffffffffffffffffffffffffffffffff",
            ),
            1,
        ),
    ] {
        let q = EventQuery::parse(Some(cursor), None, None).unwrap();
        assert_eq!(
            ops::event::page(&fx.store, &m, &q).unwrap_err().code,
            tokenpad_core::ErrorCode::InvalidCursor
        );
    }
    assert_eq!(
        ops::event::find(&fx.store, &m, &event_id(&m, 99))
            .unwrap_err()
            .code,
        tokenpad_core::ErrorCode::EventNotFound
    );
    let _ = START;
}

#[test]
fn mined_and_refused_movements_write_confirmed_and_failed_events() {
    let mut fx = evm();
    let t = token(&mut fx);
    distribute(&mut fx, &t, "alice", 10);
    distribute(&mut fx, &t, "bob", 5);
    settle_all(&mut fx);
    // Holders' own transfers: the chain may refuse them (a treasury's reward it cannot).
    pass_on(&mut fx, &t, "alice", "carol", 10);
    pass_on(&mut fx, &t, "bob", "carol", 5);
    let m = fx.ctx.merchant.id.clone();
    // Each transaction seals its events (the worker does it before commit).
    log(&mut fx.store, &m);
    let ctx = fx.ctx.clone();
    let batches = plan_all(&fx, LIMITS);
    let n = tokenpad_core::store::Store::relayer(&fx.store)
        .unwrap()
        .next_nonce
        .unwrap();
    let tx = sign(&mut fx, n, &batches[0]);
    settle::mined(&mut fx.store, &ctx, n, &receipt(&tx, false)).unwrap();
    log(&mut fx.store, &m);
    let batches = plan_all(&fx, LIMITS);
    let first = sign(&mut fx, n + 1, &batches[0]);
    let second = sign(&mut fx, n + 2, &batches[1]);
    settle::mined(&mut fx.store, &ctx, n + 1, &receipt(&first, false)).unwrap();
    let landed = crate::settle::landed(&fx, &second);
    settle::mined(&mut fx.store, &ctx, n + 2, &landed).unwrap();
    // The reverted batch wrote nothing: only each movement's final outcome is an event.
    let events = log(&mut fx.store, &m);
    let of = |kind: &str| -> Vec<(String, String)> {
        events
            .iter()
            .filter(|e| e["type"] == kind && e["data"]["object"]["type"] != "distribute")
            .map(|e| {
                let o = &e["data"]["object"];
                (
                    e["data"]["userId"].as_str().unwrap().to_string(),
                    o["chainStatus"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    // Each side's record: the sender's and carol's.
    assert_eq!(
        of("transaction.failed"),
        [
            ("alice".into(), "failed".into()),
            ("carol".into(), "failed".into())
        ]
    );
    assert_eq!(
        of("transaction.confirmed"),
        [
            ("bob".into(), "confirmed".into()),
            ("carol".into(), "confirmed".into())
        ]
    );
    let failed = events
        .iter()
        .find(|e| e["type"] == "transaction.failed")
        .unwrap();
    let created = events
        .iter()
        .find(|e| e["type"] == "transaction.created" && e["resource"] == failed["resource"])
        .unwrap();
    assert_eq!(
        created["data"]["object"]["chainStatus"], "pending",
        "each payload as of its change"
    );
}
