//! Holder and token JSON, receipts and distribute's answer, exact decimals end to end.

use super::{assert_tx_hash, data, do_deposit, do_dist, do_out, keys, page, query, set, world};
use crate::common::{self, json as to_json, num, tok, units, usdc_address, Kind};
use serde_json::{json, Value};
use tokenpad_core::model::amount::{Price, PRICE_DECIMALS};
use tokenpad_core::model::history::ChainStatus;
use tokenpad_core::store::Store;
use tokenpad_core::wire::holder::{HolderFull, TokenBalance};
use tokenpad_core::wire::ledger::{DistributeResult, LedgerResult};
use tokenpad_core::wire::settlement::Settlement;
use tokenpad_core::wire::token::Token;

#[test]
fn holder_full_json_shape() {
    let mut w = world();
    let alice = w.fx.holder("alice");
    let full = |w: &super::World| to_json(&HolderFull::read(&w.fx.store, &alice).unwrap());
    let empty = full(&w);
    assert_eq!(
        empty,
        json!({
            "success": true,
            "id": "alice",
            "address": alice.address.to_checksum(),
            "totalValue": 0,
            "tokens": [],
            "presales": [],
            "locks": [],
        })
    );

    do_dist(&mut w, "A", "alice", json!(10));
    do_deposit(&mut w, "alice", 12_500_000);
    let item_keys = set(&[
        "id", "address", "name", "symbol", "balance", "value", "price", "status", "type",
    ]);
    let v = full(&w);
    let tokens = v["tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 2);
    let usdc = usdc_address().to_checksum();
    assert_eq!(
        tokens[0],
        json!({
            "id": usdc, "address": usdc, "name": "USD Coin", "symbol": "USDC",
            "balance": num("12.5"), "value": num("12.5"), "price": 1, "status": "active", "type": "token",
        })
    );
    let a = w.addr("A").to_checksum();
    assert_eq!(
        tokens[1],
        json!({
            "id": a, "address": a, "name": "Alpha", "symbol": "ALPHA",
            "balance": 10, "value": 0, "price": null, "status": "active", "type": "token",
        })
    );
    for t in tokens {
        assert_eq!(keys(t), item_keys);
    }
    assert_eq!(v["totalValue"].to_string(), "12.5");

    // A price values the tokens (0.15 USD each) and re-sorts by value.
    let mut token = w.fx.token(&w.token("A"));
    token.price = Some(Price::new(units("0.15", PRICE_DECIMALS)));
    w.fx.store.put_token(&token).unwrap();
    let v = full(&w);
    assert_eq!(v["tokens"][1]["value"].to_string(), "1.5");
    assert_eq!(v["totalValue"].to_string(), "14");
    token.price = Some(Price::new(units("2", PRICE_DECIMALS)));
    w.fx.store.put_token(&token).unwrap();
    let v = full(&w);
    assert_eq!(v["tokens"][0]["symbol"], "ALPHA");
    assert_eq!(v["tokens"][0]["value"].to_string(), "20");
    assert_eq!(v["totalValue"].to_string(), "32.5");

    // Locked balance is not an active token item.
    w.fx.lock(&w.token("A"), &alice.address, tok("50"));
    let v = full(&w);
    assert_eq!(v["tokens"][0]["balance"].to_string(), "10");

    // Spent down to zero, an item disappears.
    do_out(&mut w, Kind::Spend, "alice", "A", json!(10), "");
    do_out(&mut w, Kind::Spend, "alice", "USDC", json!(12.5), "");
    let v = full(&w);
    assert_eq!(v["tokens"], json!([]));
    assert_eq!(v["totalValue"], json!(0));

    // The balance object.
    let token = w.fx.token(&w.token("A"));
    let b = to_json(&TokenBalance::read(&w.fx.store, &alice.address, &token).unwrap());
    assert_eq!(b["balance"], json!(0));
    assert_eq!(b["lockedBalance"], json!(50));
    assert_eq!(b["decimals"], json!(18));
}

#[test]
fn token_json_lists_holders_by_balance() {
    let mut w = world();
    do_dist(&mut w, "A", "alice", json!(5));
    do_dist(&mut w, "A", "bob", json!(50));
    do_dist(&mut w, "A", "carol", json!(20));
    do_out(&mut w, Kind::Transfer, "alice", "A", json!(2), "ext1");
    let a = w.token("A");
    let token = w.fx.token(&a);
    let v = to_json(&Token::read(&w.fx.store, &token, 100).unwrap());
    let holder_row = |id: String, who: &str, balance: u64| json!({"id": id, "address": w.addr(who).to_checksum(), "balance": balance, "value": 0});
    assert_eq!(
        v["holders"],
        json!([
            holder_row("bob".into(), "bob", 50),
            holder_row("carol".into(), "carol", 20),
            holder_row("alice".into(), "alice", 3),
            holder_row(w.addr("ext1").to_checksum(), "ext1", 2),
        ])
    );
    assert_eq!(v["holdersCount"], json!(4));
    assert_eq!(v["id"], v["address"]);
    assert_eq!(v["address"], a.to_checksum());
    assert_eq!(v["name"], "Alpha");
    assert_eq!(v["symbol"], "ALPHA");
    assert_eq!(v["decimals"], 18);
    assert_eq!(v["network"], "base");
    assert_eq!(v["totalSupply"], json!(1_000_000_000));
    assert_eq!(v["startingAppSupply"], json!(150_000_000));
    assert_eq!(v["remainingAppSupply"], json!(149_999_925));
    assert_eq!(v["merchantSupply"], json!(50_000_000));
    assert_eq!(v["liquiditySupply"], json!(800_000_000));
    assert_eq!(v["merchantAddress"], w.addr("merchant").to_checksum());
    assert_eq!(v["price"], Value::Null);
    assert_eq!(v["canDistribute"], true);

    // A limit cuts the list, not the count.
    let v = to_json(&Token::read(&w.fx.store, &token, 2).unwrap());
    assert_eq!(v["holders"].as_array().unwrap().len(), 2);
    assert_eq!(v["holders"][0]["id"], "bob");
    assert_eq!(v["holdersCount"], json!(4));

    // Spending to the merchant supply is not a holder balance.
    do_out(&mut w, Kind::Spend, "alice", "A", json!(3), "");
    let (rows, count) = w.fx.store.top_holders(&a, 100).unwrap();
    assert_eq!(count, 3);
    assert!(rows.iter().all(|r| r.owner != w.addr("merchant")));

    // With a price, values follow.
    let mut token = w.fx.token(&a);
    token.price = Some(Price::new(units("0.5", PRICE_DECIMALS)));
    w.fx.store.put_token(&token).unwrap();
    let v = to_json(&Token::read(&w.fx.store, &token, 100).unwrap());
    assert_eq!(v["holders"][0]["value"], json!(25));
    assert_eq!(v["price"].to_string(), "0.5");
}

#[test]
fn point_one_plus_point_two_is_exactly_point_three() {
    for (a, b) in [
        (num("0.1"), num("0.2")),
        (json!("0.1"), json!("0.2")),
        (json!(0.1), json!(0.2)),
    ] {
        let mut w = world();
        do_dist(&mut w, "A", "alice", a);
        do_dist(&mut w, "A", "alice", b);
        let (token, alice) = (w.token("A"), w.addr("alice"));
        assert_eq!(w.fx.active(&token, &alice), 300_000_000_000_000_000);
        let t = w.fx.token(&token);
        let b = to_json(&TokenBalance::read(&w.fx.store, &alice, &t).unwrap());
        assert_eq!(b["balance"].to_string(), "0.3");
        let h = w.fx.holder("alice");
        let full = to_json(&HolderFull::read(&w.fx.store, &h).unwrap());
        assert_eq!(full["tokens"][0]["balance"].to_string(), "0.3");
        let hist = page(&w, "alice", &query(None, None, None));
        let amounts: Vec<String> = data(&hist)
            .iter()
            .map(|r| r["amount"].to_string())
            .collect();
        assert_eq!(amounts, ["0.2", "0.1"]);
    }
}

#[test]
fn receipts_and_distribute_responses() {
    let mut w = world();
    let path = w.addr("A").to_checksum();
    let hash = common::distribute(
        &mut w.fx.store,
        &w.fx.ctx,
        &path,
        &json!({"sendToId": "alice", "amount": 10}),
    )
    .unwrap();
    let out = to_json(&DistributeResult {
        success: true,
        settlement: Settlement {
            transaction_hash: Some(hash),
            chain_status: ChainStatus::Confirmed,
            block_number: Some(1),
        },
    });
    assert_eq!(
        keys(&out),
        set(&["success", "transactionHash", "chainStatus", "blockNumber"])
    );
    assert_eq!(out["success"], true);
    assert_tx_hash(&out["transactionHash"]);

    let r = do_out(&mut w, Kind::Transfer, "alice", "A", json!("2.5"), "bob");
    let v = to_json(&LedgerResult::of(&r));
    assert_eq!(
        v,
        json!({
            "success": true,
            "transactionHash": r.stamp.hash,
            "chainStatus": "confirmed",
            "blockNumber": r.stamp.block,
            "from": w.addr("alice").to_checksum(),
            "to": w.addr("bob").to_checksum(),
            "amount": num("2.5"),
            "tokenAddress": path,
        })
    );
    let r = do_out(&mut w, Kind::Spend, "alice", "A", json!(1), "");
    assert_eq!(r.to, w.addr("merchant"));
    assert_eq!(r.from, w.addr("alice"));
}
