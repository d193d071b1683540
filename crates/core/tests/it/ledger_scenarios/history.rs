//! History: every movement recorded, newest first, paged by cursor, filtered by token.

use super::{data, do_deposit, do_dist, do_out, field_strs, keys, page, query, set, world, World};
use crate::common::{usdc_address, Kind};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::time::iso8601;
use tokenpad_core::ops::history::HistoryQuery;

#[test]
fn history_records_every_movement_newest_first() {
    let mut w = world();
    let mut times = Vec::new();
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h1 = do_dist(&mut w, "A", "alice", json!(10));
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h2 = do_out(&mut w, Kind::Spend, "alice", "A", json!(1), "")
        .stamp
        .hash
        .unwrap();
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h3 = do_out(&mut w, Kind::Transfer, "alice", "A", json!(2), "bob")
        .stamp
        .hash
        .unwrap();
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h4 = do_out(&mut w, Kind::Withdraw, "alice", "A", json!(3), "ext1")
        .stamp
        .hash
        .unwrap();
    w.fx.advance(1_000);
    times.push(w.fx.ctx.now);
    let h5 = do_deposit(&mut w, "alice", 5_000_000);
    let hashes = [&h1, &h2, &h3, &h4, &h5];
    let unique: BTreeSet<&&String> = hashes.iter().collect();
    assert_eq!(unique.len(), 5, "transaction hashes are unique");

    let all = page(&w, "alice", &query(None, None, None));
    assert_eq!(all["has_more"], false);
    assert_eq!(all["next_cursor"], Value::Null);
    assert_eq!(
        field_strs(&all, "type"),
        ["deposit", "withdraw", "transfer_out", "spend", "distribute"]
    );
    assert_eq!(
        field_strs(&all, "context"),
        ["Deposit", "Withdraw", "Transfer", "Transfer", "Airdrop"]
    );
    assert_eq!(
        field_strs(&all, "transactionHash"),
        [&h5, &h4, &h3, &h2, &h1].map(String::as_str)
    );
    let stamps: Vec<String> = times.iter().rev().map(|t| iso8601(*t)).collect();
    assert_eq!(field_strs(&all, "timestamp"), stamps);

    let (a, alice, bob, ext1, merchant, usdc) = (
        w.addr("A").to_checksum(),
        w.addr("alice").to_checksum(),
        w.addr("bob").to_checksum(),
        w.addr("ext1").to_checksum(),
        w.addr("merchant").to_checksum(),
        usdc_address().to_checksum(),
    );
    let rows = data(&all);
    let expect = [
        (&usdc, "USDC", "5", Address::ZERO.to_checksum(), &alice),
        (&a, "ALPHA", "3", alice.clone(), &ext1),
        (&a, "ALPHA", "2", alice.clone(), &bob),
        (&a, "ALPHA", "1", alice.clone(), &merchant),
        (&a, "ALPHA", "10", a.clone(), &alice),
    ];
    for (row, (token, symbol, amount, from, to)) in rows.iter().zip(expect) {
        assert_eq!(
            keys(row),
            set(&[
                "id",
                "transactionHash",
                "chainStatus",
                "type",
                "context",
                "tokenAddress",
                "symbol",
                "amount",
                "from",
                "to",
                "timestamp",
                "blockNumber"
            ])
        );
        assert!(row["blockNumber"].as_u64().is_some_and(|b| b > 0), "{row}");
        assert_eq!(row["tokenAddress"], *token, "{row}");
        assert_eq!(row["symbol"], symbol, "{row}");
        assert_eq!(row["amount"].to_string(), amount, "{row}");
        assert_eq!(row["from"], from, "{row}");
        assert_eq!(row["to"], *to, "{row}");
    }

    // The holder-to-holder transfer is in both histories, under one hash and two ids.
    let bobs = page(&w, "bob", &query(None, None, None));
    assert_eq!(field_strs(&bobs, "type"), ["transfer_in"]);
    let inbound = &data(&bobs)[0];
    assert_eq!(inbound["transactionHash"], h3.as_str());
    assert_eq!(inbound["from"], alice.as_str());
    assert_eq!(inbound["to"], bob.as_str());
    assert_eq!(inbound["amount"].to_string(), "2");
    assert_eq!(inbound["context"], "Transfer");
    assert_ne!(inbound["id"], rows[2]["id"]);

    // Record ids are unique across the whole store.
    let ids: BTreeSet<&str> = w.fx.store.history.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), w.fx.store.history.len());
    // Nobody else has records; an unknown user has none.
    assert!(data(&page(&w, "carol", &query(None, None, None))).is_empty());
    assert!(data(&page(&w, "nobody", &query(None, None, None))).is_empty());
}

#[test]
fn withdraw_to_a_holder_is_in_the_recipients_history() {
    let mut w = world();
    do_dist(&mut w, "A", "alice", json!(3));
    let h = do_out(&mut w, Kind::Withdraw, "alice", "A", json!(1), "carol")
        .stamp
        .hash
        .unwrap();
    let carol = page(&w, "carol", &query(None, None, None));
    assert_eq!(field_strs(&carol, "type"), ["transfer_in"]);
    assert_eq!(field_strs(&carol, "transactionHash"), [h.as_str()]);
    let alice = page(&w, "alice", &query(None, None, None));
    assert_eq!(field_strs(&alice, "type"), ["withdraw", "distribute"]);
}

/// Alice gets 23 ALPHA, 5 BETA and 3 USDC records, interleaved with bob's.
fn busy_world() -> World {
    let mut w = world();
    for i in 0..23u32 {
        w.fx.advance(1_000);
        do_dist(&mut w, "A", "alice", json!(i + 1));
        if i % 5 == 0 {
            do_dist(&mut w, "B", "alice", json!(i + 1));
            do_dist(&mut w, "A", "bob", json!(1));
        }
        if i % 8 == 0 {
            do_deposit(&mut w, "alice", 1_000_000);
        }
    }
    w
}

/// Follows next_cursor from the first page; checks every page's shape, returns the ids.
fn walk(w: &World, user: &str, limit: u32, token: Option<&str>) -> Vec<String> {
    let limit_text = limit.to_string();
    let mut cursor: Option<String> = None;
    let mut ids = Vec::new();
    for _ in 0..1_000 {
        let q = query(Some(&limit_text), cursor.as_deref(), token);
        let p = page(w, user, &q);
        let rows = data(&p);
        ids.extend(rows.iter().map(|r| r["id"].as_str().unwrap().to_string()));
        if p["has_more"] == true {
            assert_eq!(rows.len(), limit as usize, "a page with more is full");
            cursor = Some(p["next_cursor"].as_str().unwrap().to_string());
        } else {
            assert_eq!(p["next_cursor"], Value::Null);
            assert!(rows.len() <= limit as usize);
            return ids;
        }
    }
    panic!("paging did not end");
}

#[test]
fn history_paging_covers_every_record_exactly_once() {
    let w = busy_world();
    let all = page(&w, "alice", &query(Some("200"), None, None));
    assert_eq!(all["has_more"], false);
    let all_ids: Vec<String> = field_strs(&all, "id")
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(all_ids.len(), 23 + 5 + 3);
    // Default page size is 50: everything fits.
    assert_eq!(data(&page(&w, "alice", &query(None, None, None))).len(), 31);
    for limit in [1, 2, 5, 7, 30, 31, 32, 200] {
        assert_eq!(walk(&w, "alice", limit, None), all_ids, "limit {limit}");
    }
    // Newest first: timestamps never increase down the list.
    let stamps = field_strs(&all, "timestamp");
    assert!(stamps.windows(2).all(|p| p[0] >= p[1]));
    // An empty cursor is the first page.
    let first = page(&w, "alice", &query(Some("3"), Some(""), None));
    assert_eq!(field_strs(&first, "id"), all_ids[..3].to_vec());
}

#[test]
fn history_filters_by_token() {
    let w = busy_world();
    let a = w.addr("A").to_checksum();
    for (token, n) in [
        (a.clone(), 23),
        (a.to_ascii_lowercase(), 23),
        (w.addr("B").to_checksum(), 5),
        (usdc_address().to_checksum(), 3),
        (w.addr("SMALL").to_checksum(), 0),
    ] {
        let all = page(&w, "alice", &query(Some("200"), None, Some(&token)));
        let rows = data(&all);
        assert_eq!(rows.len(), n, "{token}");
        assert!(rows.iter().all(|r| r["tokenAddress"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case(&token)));
        let ids: Vec<String> = field_strs(&all, "id")
            .into_iter()
            .map(String::from)
            .collect();
        for limit in [1, 4, 23] {
            assert_eq!(
                walk(&w, "alice", limit, Some(&token)),
                ids,
                "{token} {limit}"
            );
        }
    }
    // Bob only has his own ALPHA records.
    let bob = page(&w, "bob", &query(None, None, Some(&a)));
    assert_eq!(data(&bob).len(), 5);
    assert!(field_strs(&bob, "to")
        .iter()
        .all(|t| *t == w.addr("bob").to_checksum()));
}

#[test]
fn history_query_validation() {
    for limit in ["0", "201", "abc", "-1", "1.5", "", "1e2", "99999999999"] {
        let err = HistoryQuery::parse(Some(limit), None, None)
            .err()
            .unwrap_or_else(|| panic!("limit {limit:?} accepted"));
        assert_eq!(err.code, C::InvalidRequest, "limit {limit:?}");
        assert_eq!(err.details.unwrap()["field"], "limit");
    }
    for limit in ["1", "50", "200"] {
        assert!(
            HistoryQuery::parse(Some(limit), None, None).is_ok(),
            "{limit}"
        );
    }
    assert_eq!(query(None, None, None).limit, 50);
    for cursor in ["abc", "c", "c0", "x5", "c-1", "c1.5", "5", "cabc"] {
        let err = HistoryQuery::parse(None, Some(cursor), None)
            .err()
            .unwrap_or_else(|| panic!("cursor {cursor:?} accepted"));
        assert_eq!(err.code, C::InvalidCursor, "cursor {cursor:?}");
    }
    assert!(query(None, Some(""), None).before.is_none());
    assert!(query(None, None, Some("")).token.is_none());
    for token in ["0x12", "abc", "0xZZ00000000000000000000000000000000000000"] {
        let err = HistoryQuery::parse(None, None, Some(token))
            .err()
            .unwrap_or_else(|| panic!("token {token:?} accepted"));
        assert_eq!(err.code, C::InvalidAddress, "token {token:?}");
    }
}

#[test]
fn a_cursor_from_another_query_still_only_goes_older() {
    let w = busy_world();
    let all_ids: Vec<String> =
        field_strs(&page(&w, "alice", &query(Some("200"), None, None)), "id")
            .into_iter()
            .map(String::from)
            .collect();
    let p = page(&w, "alice", &query(Some("10"), None, None));
    let cursor = p["next_cursor"].as_str().unwrap().to_string();
    let rest = page(&w, "alice", &query(Some("200"), Some(&cursor), None));
    assert_eq!(field_strs(&rest, "id"), all_ids[10..].to_vec());
}
