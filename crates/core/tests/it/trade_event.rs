//! A trade's event (`model::event::TradeSubject`): what it keeps, and one stored by 0.3.0
//! read as one stored now. Checked on the trade `events.rs` makes.

use crate::common;
use crate::events::BASE;
use serde_json::json;
use tokenpad_core::model::event::{EventRecord, EventType, Subject};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::pool::TradeFacts;
use tokenpad_core::ops;
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::EventStore;
use tokenpad_core::wire::event::Event;

/// A trade event keeps the trade's amounts and the pool's prices, not the two whole pools; one
/// stored by 0.3.0 (with them) reads and renders as one stored now.
pub(crate) fn of_0_3_reads_as_now(
    store: &MemStore,
    m: &MerchantId,
    bought: &ops::market::TradeReceipt,
) {
    let stored = store
        .events_after(0, Some(&[EventType::TradeExecuted]), 10)
        .unwrap();
    let [now] = stored.as_slice() else {
        unreachable!("one trade event: {stored:?}")
    };
    let Subject::Trade(trade) = &now.subject else {
        unreachable!("{:?}", now.subject)
    };
    assert_eq!(trade.facts, TradeFacts::of(&bought.before, &bought.trade));
    let kept = serde_json::to_string(&now.subject).unwrap();
    assert!(kept.len() < 400, "{} bytes: {kept}", kept.len());
    let old = json!({ "trade": {
        "user_id": trade.user_id, "buy": true, "before": bought.before, "trade": bought.trade,
        "booked": trade.booked, "record": trade.record,
    } });
    let old = EventRecord {
        subject: serde_json::from_value(old).unwrap(),
        data: None,
        ..now.clone()
    };
    assert_eq!(old.subject, now.subject);
    let as_now = common::json(&Event::read(store, m, now, BASE).unwrap());
    let rendered = common::json(&Event::read(store, m, &old, BASE).unwrap());
    assert_eq!(rendered, as_now);
}
