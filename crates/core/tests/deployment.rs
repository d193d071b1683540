//! Memecoin and airdrop deployments over the real core (MemStore): the validation table of
//! contract section 9, then the lifecycle on the embedded chain (pending with a known token
//! address and transaction hash, mined one block later into a Token like any other, or
//! failed), the status JSON and the overview page's data.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{assert_conserved, obj, tok, usdc_address, Fx};
use serde_json::{json, Value};
use tokenpad_core::address::Address;
use tokenpad_core::chain;
use tokenpad_core::crypto;
use tokenpad_core::deployment::{
    self, DeployRequest, Deployment, DeploymentKind as K, DeploymentStatus, MAX_AIRDROP_ADDRESSES,
};
use tokenpad_core::due;
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::history::HistoryQuery;
use tokenpad_core::ids;
use tokenpad_core::money;
use tokenpad_core::store::Store;
use tokenpad_core::token::{Network, TokenKind, TokenOrigin};

const BASE: &str = "https://tokenpad.example";

/// A distinct, valid address for index `i`.
fn addr(i: u32) -> Address {
    let mut b = [0u8; 20];
    b[0] = 0xa1;
    b[16..].copy_from_slice(&i.to_be_bytes());
    Address(b)
}

fn addr_text(i: u32) -> String {
    addr(i).to_checksum()
}

fn memecoin() -> Value {
    json!({
        "name": "Pepe Two", "symbol": "PEPE2", "totalSupply": 1000000, "initialPrice": 0.0001,
        "network": "base", "marketplace": true,
        "recipient": { "address": addr_text(1), "amount": 100000 },
    })
}

fn airdrop() -> Value {
    json!({
        "name": "Drop", "symbol": "DROP", "totalSupply": 1000, "initialPrice": "0.5",
        "network": "base-sepolia", "marketplace": false,
        "airdrop": { "addresses": [addr_text(10), addr_text(11), addr_text(12)], "supply": 100 },
        "recipient": { "address": addr_text(1), "amount": 50 },
    })
}

/// `base` with `path` (dotted) set to `value`, or removed when `value` is None.
fn with(mut base: Value, path: &str, value: Option<Value>) -> Value {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().unwrap();
    let mut node = &mut base;
    for p in parts {
        if !node.get(p).is_some_and(Value::is_object) {
            node[p] = json!({});
        }
        node = node.get_mut(p).unwrap();
    }
    let map = node.as_object_mut().unwrap();
    match value {
        Some(v) => {
            map.insert(last.to_string(), v);
        }
        None => {
            map.remove(last);
        }
    }
    base
}

fn parse(kind: K, body: Value) -> Result<DeployRequest, tokenpad_core::Error> {
    DeployRequest::parse(kind, &obj(body))
}

#[test]
fn validation_table() {
    let many: Vec<Value> = (0..=MAX_AIRDROP_ADDRESSES as u32)
        .map(|i| json!(addr_text(100 + i)))
        .collect();
    let dup = json!([addr_text(10), addr_text(11), addr_text(10).to_lowercase()]);
    // (kind, body, code, details.field)
    let table: Vec<(K, Value, C, &str)> = vec![
        // Required fields and types, both kinds.
        (
            K::Memecoin,
            with(memecoin(), "name", None),
            C::InvalidRequest,
            "name",
        ),
        (
            K::Memecoin,
            with(memecoin(), "name", Some(json!(5))),
            C::InvalidRequest,
            "name",
        ),
        (
            K::Memecoin,
            with(memecoin(), "name", Some(json!(" "))),
            C::InvalidRequest,
            "name",
        ),
        (
            K::Memecoin,
            with(memecoin(), "name", Some(json!("x".repeat(65)))),
            C::InvalidRequest,
            "name",
        ),
        (
            K::Airdrop,
            with(airdrop(), "symbol", None),
            C::InvalidRequest,
            "symbol",
        ),
        (
            K::Memecoin,
            with(memecoin(), "symbol", Some(json!("PE PE"))),
            C::InvalidRequest,
            "symbol",
        ),
        (
            K::Memecoin,
            with(memecoin(), "symbol", Some(json!("ABCDEFGHIJKL"))),
            C::InvalidRequest,
            "symbol",
        ),
        (
            K::Memecoin,
            with(memecoin(), "totalSupply", None),
            C::InvalidRequest,
            "totalSupply",
        ),
        (
            K::Airdrop,
            with(airdrop(), "totalSupply", None),
            C::InvalidRequest,
            "totalSupply",
        ),
        (
            K::Memecoin,
            with(memecoin(), "totalSupply", Some(json!(0))),
            C::InvalidAmount,
            "totalSupply",
        ),
        (
            K::Memecoin,
            with(memecoin(), "totalSupply", Some(json!(-1))),
            C::InvalidAmount,
            "totalSupply",
        ),
        (
            K::Memecoin,
            with(memecoin(), "totalSupply", Some(json!("abc"))),
            C::InvalidAmount,
            "totalSupply",
        ),
        (
            K::Memecoin,
            with(memecoin(), "totalSupply", Some(json!(true))),
            C::InvalidAmount,
            "totalSupply",
        ),
        (
            K::Memecoin,
            with(
                memecoin(),
                "totalSupply",
                Some(json!("0.0000000000000000001")),
            ),
            C::InvalidAmount,
            "totalSupply",
        ),
        (
            K::Airdrop,
            with(airdrop(), "totalSupply", Some(json!("1e400"))),
            C::InvalidAmount,
            "totalSupply",
        ),
        (
            K::Memecoin,
            with(memecoin(), "initialPrice", None),
            C::InvalidRequest,
            "initialPrice",
        ),
        (
            K::Airdrop,
            with(airdrop(), "initialPrice", Some(json!(0))),
            C::InvalidAmount,
            "initialPrice",
        ),
        (
            K::Memecoin,
            with(memecoin(), "initialPrice", Some(json!(-0.5))),
            C::InvalidAmount,
            "initialPrice",
        ),
        (
            K::Memecoin,
            with(memecoin(), "initialPrice", Some(json!([1]))),
            C::InvalidAmount,
            "initialPrice",
        ),
        (
            K::Memecoin,
            with(memecoin(), "network", None),
            C::InvalidRequest,
            "network",
        ),
        (
            K::Memecoin,
            with(memecoin(), "network", Some(json!(8453))),
            C::InvalidRequest,
            "network",
        ),
        (
            K::Memecoin,
            with(memecoin(), "network", Some(json!("mainnet"))),
            C::InvalidNetwork,
            "network",
        ),
        (
            K::Airdrop,
            with(airdrop(), "network", Some(json!("Base"))),
            C::InvalidNetwork,
            "network",
        ),
        (
            K::Memecoin,
            with(memecoin(), "marketplace", None),
            C::InvalidRequest,
            "marketplace",
        ),
        (
            K::Airdrop,
            with(airdrop(), "marketplace", Some(json!("true"))),
            C::InvalidRequest,
            "marketplace",
        ),
        // Recipient.
        (
            K::Memecoin,
            with(memecoin(), "recipient", Some(json!("0x12"))),
            C::InvalidRequest,
            "recipient",
        ),
        (
            K::Memecoin,
            with(memecoin(), "recipient.address", Some(json!("0x12"))),
            C::InvalidAddress,
            "recipient.address",
        ),
        (
            K::Airdrop,
            with(airdrop(), "recipient.address", Some(json!(12))),
            C::InvalidAddress,
            "recipient.address",
        ),
        (
            K::Memecoin,
            with(memecoin(), "recipient.address", None),
            C::InvalidRequest,
            "recipient.address",
        ),
        (
            K::Memecoin,
            with(memecoin(), "recipient.amount", None),
            C::InvalidRequest,
            "recipient.amount",
        ),
        (
            K::Airdrop,
            with(airdrop(), "recipient.amount", None),
            C::InvalidRequest,
            "recipient.amount",
        ),
        (
            K::Memecoin,
            with(memecoin(), "recipient.amount", Some(json!(0))),
            C::InvalidAmount,
            "recipient.amount",
        ),
        (
            K::Memecoin,
            with(
                with(memecoin(), "recipient.amount", None),
                "recipient.supply",
                Some(json!(-3)),
            ),
            C::InvalidAmount,
            "recipient.supply",
        ),
        (
            K::Memecoin,
            with(memecoin(), "recipient.supply", Some(json!(7))),
            C::InvalidRequest,
            "recipient.amount",
        ),
        // An airdrop's recipient has no `supply` alias: amount is missing.
        (
            K::Airdrop,
            with(
                with(airdrop(), "recipient.amount", None),
                "recipient.supply",
                Some(json!(50)),
            ),
            C::InvalidRequest,
            "recipient.amount",
        ),
        (
            K::Memecoin,
            with(memecoin(), "recipient.amount", Some(json!(1000001))),
            C::AllocationExceedsSupply,
            "recipient.amount",
        ),
        // noLp.
        (
            K::Memecoin,
            with(memecoin(), "noLp", Some(json!("yes"))),
            C::InvalidRequest,
            "noLp",
        ),
        (
            K::Memecoin,
            with(
                with(memecoin(), "recipient", None),
                "noLp",
                Some(json!(true)),
            ),
            C::InvalidRequest,
            "recipient.address",
        ),
        (
            K::Memecoin,
            with(memecoin(), "noLp", Some(json!(true))),
            C::InvalidAmount,
            "recipient.amount",
        ),
        // Airdrop list and supply.
        (
            K::Airdrop,
            with(airdrop(), "airdrop", None),
            C::InvalidRequest,
            "airdrop",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop", Some(json!([addr_text(10)]))),
            C::InvalidRequest,
            "airdrop",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.addresses", None),
            C::InvalidRequest,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.addresses", Some(json!(addr_text(10)))),
            C::InvalidRequest,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.addresses", Some(json!([]))),
            C::InvalidRequest,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.addresses", Some(Value::Array(many))),
            C::InvalidRequest,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(
                airdrop(),
                "airdrop.addresses",
                Some(json!([addr_text(10), "0xnope"])),
            ),
            C::InvalidAddress,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(
                airdrop(),
                "airdrop.addresses",
                Some(json!([addr_text(10), 5])),
            ),
            C::InvalidAddress,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.addresses", Some(json!([null]))),
            C::InvalidAddress,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.addresses", Some(dup)),
            C::InvalidRequest,
            "airdrop.addresses",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.supply", None),
            C::InvalidRequest,
            "airdrop.supply",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.supply", Some(json!(0))),
            C::InvalidAmount,
            "airdrop.supply",
        ),
        (
            K::Airdrop,
            with(airdrop(), "airdrop.supply", Some(json!("ten"))),
            C::InvalidAmount,
            "airdrop.supply",
        ),
        // 3 x 317 + 50 = 1001 > 1000.
        (
            K::Airdrop,
            with(airdrop(), "airdrop.supply", Some(json!(317))),
            C::AllocationExceedsSupply,
            "airdrop.supply",
        ),
        // 3 x 316.666666666666666667 + 50 exceeds 1000 by 1 base unit.
        (
            K::Airdrop,
            with(
                airdrop(),
                "airdrop.supply",
                Some(json!("316.666666666666666667")),
            ),
            C::AllocationExceedsSupply,
            "airdrop.supply",
        ),
        // x 3 overflows u128: refused, not wrapped.
        (
            K::Airdrop,
            with(
                with(
                    airdrop(),
                    "totalSupply",
                    Some(json!("300000000000000000000")),
                ),
                "airdrop.supply",
                Some(json!("200000000000000000000")),
            ),
            C::AllocationExceedsSupply,
            "airdrop.supply",
        ),
    ];
    for (i, (kind, body, code, field)) in table.into_iter().enumerate() {
        let err = parse(kind, body.clone()).expect_err(&format!("row {i} should fail: {body}"));
        assert_eq!(err.code, code, "row {i}: {} ({body})", err.message);
        assert_eq!(err.status(), code.status());
        let details = err.details.clone().unwrap_or_default();
        assert_eq!(
            details.get("field"),
            Some(&json!(field)),
            "row {i}: {err:?}"
        );
        assert!(!err.message.is_empty());
    }
}

#[test]
fn network_error_lists_the_networks() {
    let err = parse(
        K::Memecoin,
        with(memecoin(), "network", Some(json!("solana"))),
    )
    .unwrap_err();
    assert_eq!(err.code, C::InvalidNetwork);
    assert_eq!(err.status(), 400);
    assert_eq!(
        err.details.unwrap()["allowed"],
        json!(["base", "base-sepolia", "sepolia"])
    );
    assert!(err.message.contains("base, base-sepolia, sepolia"));
}

#[test]
fn error_details_say_where() {
    let err = parse(
        K::Airdrop,
        with(
            airdrop(),
            "airdrop.addresses",
            Some(json!([addr_text(10), "0xnope"])),
        ),
    )
    .unwrap_err();
    assert_eq!(err.details.unwrap()["index"], 1);
    let upper = format!("0x{}", hex_upper(&addr(10)));
    let err = parse(
        K::Airdrop,
        with(
            airdrop(),
            "airdrop.addresses",
            Some(json!([addr_text(10), upper])),
        ),
    )
    .unwrap_err();
    let d = err.details.unwrap();
    assert_eq!(d["index"], 1);
    assert_eq!(d["address"], json!(addr_text(10)));
    let err = parse(
        K::Airdrop,
        with(airdrop(), "airdrop.supply", Some(json!(317))),
    )
    .unwrap_err();
    let d = err.details.unwrap();
    assert_eq!(d["totalSupply"], json!(1000));
    assert_eq!(d["allocated"], json!(1001));
    assert_eq!(err.code.as_str(), "allocation_exceeds_supply");
    let err = parse(K::Memecoin, with(memecoin(), "recipient.amount", None)).unwrap_err();
    assert_eq!(
        err.message,
        "recipient.amount is required with recipient.address"
    );
}

fn hex_upper(a: &Address) -> String {
    a.0.iter().map(|b| format!("{b:02X}")).collect()
}

#[test]
fn valid_requests_parse_exactly() {
    let r = parse(K::Memecoin, memecoin()).unwrap();
    assert_eq!(r.kind, K::Memecoin);
    assert_eq!(r.network, Network::Base);
    assert_eq!(r.total_supply, tok("1000000"));
    // 0.0001 USD with PRICE_DECIMALS.
    assert_eq!(
        r.initial_price,
        money::parse_units("0.0001", money::PRICE_DECIMALS).unwrap()
    );
    assert!(r.marketplace);
    assert!(!r.no_lp);
    assert_eq!(r.recipient.as_ref().unwrap().address, addr(1));
    assert_eq!(r.recipient.as_ref().unwrap().amount, tok("100000"));
    assert!(r.airdrop.is_none());

    // `supply` names the recipient amount too; both names with one value are fine.
    let alias = with(
        with(memecoin(), "recipient.amount", None),
        "recipient.supply",
        Some(json!("100000")),
    );
    assert_eq!(parse(K::Memecoin, alias).unwrap(), r);
    let both = with(memecoin(), "recipient.supply", Some(json!(100000)));
    assert_eq!(parse(K::Memecoin, both).unwrap(), r);

    // No recipient at all: everything is liquidity.
    let none = parse(K::Memecoin, with(memecoin(), "recipient", None)).unwrap();
    assert!(none.recipient.is_none());
    assert!(none.allocations().is_empty());
    let null = parse(
        K::Memecoin,
        with(memecoin(), "recipient", Some(Value::Null)),
    )
    .unwrap();
    assert!(null.recipient.is_none());

    // noLp with the whole supply to the recipient; noLp false is the default.
    let no_lp = with(
        with(memecoin(), "noLp", Some(json!(true))),
        "recipient.amount",
        Some(json!("1000000.0")),
    );
    assert!(parse(K::Memecoin, no_lp).unwrap().no_lp);
    assert!(
        !parse(K::Memecoin, with(memecoin(), "noLp", Some(json!(false))))
            .unwrap()
            .no_lp
    );
    // An airdrop ignores noLp (it is a memecoin field).
    assert!(
        !parse(K::Airdrop, with(airdrop(), "noLp", Some(json!(true))))
            .unwrap()
            .no_lp
    );

    // Airdrop: addresses any case, amounts exact, allocation exactly totalSupply is fine.
    let a = parse(
        K::Airdrop,
        with(
            with(
                airdrop(),
                "airdrop.addresses",
                Some(json!([
                    addr_text(10).to_lowercase(),
                    addr_text(11),
                    addr_text(12)
                ])),
            ),
            "airdrop.supply",
            Some(json!(316)),
        ),
    )
    .unwrap();
    assert_eq!(a.network, Network::BaseSepolia);
    let drop = a.airdrop.as_ref().unwrap();
    assert_eq!(drop.addresses, vec![addr(10), addr(11), addr(12)]);
    assert_eq!(drop.supply, tok("316"));
    let exact = with(
        airdrop(),
        "airdrop.supply",
        Some(json!("316.666666666666666666")),
    );
    let exact = with(
        exact,
        "recipient.amount",
        Some(json!("50.000000000000000002")),
    );
    assert!(parse(K::Airdrop, exact).is_ok());
    assert_eq!(
        a.allocations(),
        vec![
            (addr(1), tok("50")),
            (addr(10), tok("316")),
            (addr(11), tok("316")),
            (addr(12), tok("316"))
        ]
    );

    // The maximum list is accepted.
    let max: Vec<Value> = (0..MAX_AIRDROP_ADDRESSES as u32)
        .map(|i| json!(addr_text(100 + i)))
        .collect();
    let big = with(
        with(airdrop(), "airdrop.addresses", Some(Value::Array(max))),
        "airdrop.supply",
        Some(json!(0.95)),
    );
    assert_eq!(
        parse(K::Airdrop, big)
            .unwrap()
            .airdrop
            .unwrap()
            .addresses
            .len(),
        MAX_AIRDROP_ADDRESSES
    );
    // Networks.
    for n in ["base", "base-sepolia", "sepolia"] {
        let r = parse(K::Memecoin, with(memecoin(), "network", Some(json!(n)))).unwrap();
        assert_eq!(r.network.as_str(), n);
    }
}

// ---------------------------------------------------------------------------------------------
// Lifecycle.

fn create(fx: &mut Fx, kind: K, body: Value, n: u8) -> Deployment {
    let req = DeployRequest::parse(kind, &obj(body)).unwrap();
    let mut id = [0u8; 16];
    id[0] = 0xde;
    id[15] = n;
    deployment::create(&mut fx.store, &fx.ctx, req, ids::uuid_v4(id)).unwrap()
}

fn mine(fx: &mut Fx) {
    fx.advance(chain::BLOCK_MS);
    due::run_due(&mut fx.store, &fx.ctx).unwrap();
    assert_conserved(&fx.store);
}

fn status(fx: &Fx, d: &Deployment) -> Value {
    let d = deployment::find(&fx.store, &d.id, Some(d.kind)).unwrap();
    deployment::status_json(&d, BASE)
}

#[test]
fn memecoin_pending_then_success() {
    let mut fx = Fx::new();
    // A token before it, so the deploy nonce is not 0.
    fx.create_token(json!({"name": "Other", "symbol": "OTH"}));
    let d = create(&mut fx, K::Memecoin, memecoin(), 1);
    assert!(ids::is_uuid(&d.id));
    assert_eq!(d.status, DeploymentStatus::Pending);
    assert_eq!(
        d.token_address,
        crypto::contract_address(&fx.merchant_address(), 1)
    );
    let hash = d.tx_hash.clone().unwrap();
    assert_eq!(hash.len(), 66);
    assert_eq!(d.submitted_at, Some(fx.ctx.now));
    assert_eq!(d.mined_at, Some(chain::mined_at(fx.ctx.now)));
    assert!(fx.store.token(&d.token_address).unwrap().is_none());
    assert_eq!(
        fx.store.schedule.get(&format!("deploy:{}", d.id)),
        d.mined_at.as_ref()
    );

    let pending = status(&fx, &d);
    assert_eq!(
        pending,
        json!({ "has_more": false, "data": {
            "id": d.id, "status": "pending", "tokenAddress": d.token_address.to_checksum(),
            "transactionHash": hash,
        }})
    );

    // Not yet mined one millisecond before the block.
    fx.advance(chain::BLOCK_MS - 1);
    due::run_due(&mut fx.store, &fx.ctx).unwrap();
    assert_eq!(status(&fx, &d)["data"]["status"], "pending");
    fx.advance(1);
    due::run_due(&mut fx.store, &fx.ctx).unwrap();
    assert_conserved(&fx.store);

    let done = status(&fx, &d);
    let address = d.token_address.to_checksum();
    assert_eq!(
        done,
        json!({ "has_more": false, "data": {
            "id": d.id, "status": "success", "tokenAddress": address,
            "transactionHash": hash,
            "serviceBuildUrl": format!("{BASE}/deployments/{}", d.id),
            "exchangeUrl": format!("https://app.uniswap.org/swap?chain=base&outputCurrency={address}"),
        }})
    );
    assert!(fx.store.schedule.is_empty());

    let t = fx.token(&d.token_address);
    assert_eq!(t.kind, TokenKind::Merchant);
    assert_eq!(t.origin, TokenOrigin::Memecoin);
    assert!(t.marketplace);
    assert_eq!(t.name, "Pepe Two");
    assert_eq!(t.symbol, "PEPE2");
    assert_eq!(t.decimals, 18);
    assert_eq!(t.total_supply, tok("1000000"));
    assert_eq!(t.starting_app_supply, 0);
    assert_eq!(t.remaining_app_supply, 0);
    assert_eq!(t.merchant_supply, 0);
    assert_eq!(t.liquidity_supply, tok("900000"));
    assert_eq!(t.held, tok("100000"));
    assert_eq!(t.merchant_address, fx.merchant_address());
    assert_eq!(
        t.price,
        Some(money::parse_units("0.0001", money::PRICE_DECIMALS).unwrap())
    );
    assert!(!t.can_distribute);
    assert!(t.can_lp);
    assert_eq!(t.created_at, d.mined_at.unwrap());
    assert_eq!(fx.active(&d.token_address, &addr(1)), tok("100000"));
    let (holders, count) = fx.store.top_holders(&d.token_address, 100).unwrap();
    assert_eq!(count, 1);
    assert_eq!(holders[0].owner, addr(1));
    // Listed with the merchant's tokens (all-tokens filters on TokenKind::Merchant).
    assert!(fx
        .store
        .tokens()
        .unwrap()
        .iter()
        .any(|t| t.address == d.token_address && t.kind == TokenKind::Merchant));

    // Running the schedule again changes nothing.
    let before = fx.store.clone();
    deployment::run_scheduled(&mut fx.store, &fx.ctx, &format!("deploy:{}", d.id)).unwrap();
    assert_eq!(before.tokens, fx.store.tokens);
    assert_eq!(before.balances, fx.store.balances);
    assert_eq!(before.deployments, fx.store.deployments);
    // Keys of other owners are not ours.
    assert!(!deployment::run_scheduled(&mut fx.store, &fx.ctx, "job:x").unwrap());
}

#[test]
fn airdrop_balances_of_record_and_holder_history() {
    let mut fx = Fx::new();
    let alice = fx.holder("alice");
    // Alice is an airdrop address (any case) and the recipient: her amounts add up.
    let body = json!({
        "name": "Drop", "symbol": "DROP", "totalSupply": 1000, "initialPrice": "0.5",
        "network": "sepolia", "marketplace": false,
        "airdrop": { "addresses": [alice.address.to_checksum().to_lowercase(), addr_text(11)], "supply": 100 },
        "recipient": { "address": alice.address.to_checksum(), "amount": 50 },
    });
    let d = create(&mut fx, K::Airdrop, body, 2);
    mine(&mut fx);
    let t = fx.token(&d.token_address);
    assert_eq!(t.origin, TokenOrigin::Airdrop);
    assert!(!t.marketplace);
    assert!(t.can_airdrop);
    assert_eq!(t.network, Network::Sepolia);
    assert_eq!(fx.active(&t.address, &alice.address), tok("150"));
    assert_eq!(fx.active(&t.address, &addr(11)), tok("100"));
    assert_eq!(t.held, tok("250"));
    assert_eq!(t.liquidity_supply, tok("750"));
    assert_eq!(
        t.price,
        Some(money::parse_units("0.5", money::PRICE_DECIMALS).unwrap())
    );

    // Alice's history shows both receipts (context Airdrop), under the deployment's hash.
    let page = tokenpad_core::history::page(
        &fx.store,
        "alice",
        &HistoryQuery::parse(None, None, None).unwrap(),
    )
    .unwrap();
    let data = page["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    for r in data {
        assert_eq!(r["type"], "distribute");
        assert_eq!(r["context"], "Airdrop");
        assert_eq!(r["transactionHash"], json!(d.tx_hash.clone().unwrap()));
        assert_eq!(r["tokenAddress"], json!(t.address.to_checksum()));
    }
    let amounts: Vec<&Value> = data.iter().map(|r| &r["amount"]).collect();
    assert!(amounts.contains(&&json!(50)) && amounts.contains(&&json!(100)));

    let s = status(&fx, &d);
    assert_eq!(
        s["data"]["exchangeUrl"],
        json!(format!(
            "https://app.uniswap.org/swap?chain=sepolia&outputCurrency={}",
            t.address.to_checksum()
        ))
    );
    // The airdrop id is not a memecoin.
    let err = deployment::find(&fx.store, &d.id, Some(K::Memecoin)).unwrap_err();
    assert_eq!(err.code, C::DeploymentNotFound);
    assert_eq!(err.status(), 404);
    assert!(deployment::find(&fx.store, &d.id, None).is_ok());
}

#[test]
fn no_lp_gives_the_recipient_everything() {
    let mut fx = Fx::new();
    let body = with(
        with(memecoin(), "noLp", Some(json!(true))),
        "recipient.supply",
        Some(json!(1000000)),
    );
    let body = with(body, "recipient.amount", None);
    let d = create(&mut fx, K::Memecoin, body, 3);
    mine(&mut fx);
    let t = fx.token(&d.token_address);
    assert_eq!(t.liquidity_supply, 0);
    assert!(!t.can_lp);
    assert_eq!(fx.active(&t.address, &addr(1)), t.total_supply);
}

#[test]
fn network_names_in_exchange_urls() {
    let a = addr(7);
    for (n, chain) in [
        (Network::Base, "base"),
        (Network::BaseSepolia, "base_sepolia"),
        (Network::Sepolia, "sepolia"),
    ] {
        assert_eq!(
            deployment::exchange_url(n, &a),
            format!(
                "https://app.uniswap.org/swap?chain={chain}&outputCurrency={}",
                a.to_checksum()
            )
        );
    }
    assert_eq!(
        deployment::service_build_url("http://127.0.0.1:8787/", "abc"),
        "http://127.0.0.1:8787/deployments/abc"
    );
}

#[test]
fn taken_address_fails_with_an_error() {
    let mut fx = Fx::new();
    let d = create(&mut fx, K::Memecoin, memecoin(), 4);
    // Something else appears at the address before the deployment is mined.
    let mut squatter = fx.token(&usdc_address());
    squatter.address = d.token_address;
    squatter.symbol = "SQUAT".into();
    fx.store.put_token(&squatter).unwrap();
    mine(&mut fx);
    let s = status(&fx, &d);
    assert_eq!(s["data"]["status"], "failed");
    assert!(s["data"]["error"]
        .as_str()
        .unwrap()
        .contains("already exists"));
    assert!(s["data"].get("serviceBuildUrl").is_none());
    assert!(s["data"].get("exchangeUrl").is_none());
    assert_eq!(s["data"]["transactionHash"], json!(d.tx_hash.unwrap()));
    assert_eq!(fx.token(&d.token_address).symbol, "SQUAT");
}

#[test]
fn failed_submission_is_a_failed_deployment() {
    let mut fx = Fx::new();
    chain::inject_faults(&mut fx.store, 1).unwrap();
    let d = create(&mut fx, K::Airdrop, airdrop(), 5);
    assert_eq!(d.status, DeploymentStatus::Failed);
    assert!(d.tx_hash.is_none());
    assert!(fx.store.schedule.is_empty());
    let s = status(&fx, &d);
    assert_eq!(s["data"]["status"], "failed");
    assert!(s["data"].get("transactionHash").is_none());
    assert!(s["data"]["error"].as_str().unwrap().contains("reverted"));
    mine(&mut fx);
    assert!(fx.store.token(&d.token_address).unwrap().is_none());
    // The next deployment goes through, at the next address.
    let next = create(&mut fx, K::Airdrop, airdrop(), 6);
    assert_ne!(next.token_address, d.token_address);
    mine(&mut fx);
    assert_eq!(status(&fx, &next)["data"]["status"], "success");
}

#[test]
fn unknown_ids_are_not_found() {
    let fx = Fx::new();
    for id in ["", "nope", "00000000-0000-4000-8000-000000000000"] {
        let err = deployment::find(&fx.store, id, Some(K::Memecoin)).unwrap_err();
        assert_eq!(err.code, C::DeploymentNotFound);
        assert_eq!(err.code.as_str(), "deployment_not_found");
    }
}

#[test]
fn two_deployments_in_one_block_get_distinct_addresses_and_hashes() {
    let mut fx = Fx::new();
    let a = create(&mut fx, K::Memecoin, memecoin(), 7);
    let b = create(&mut fx, K::Memecoin, memecoin(), 8);
    assert_ne!(a.token_address, b.token_address);
    assert_ne!(a.tx_hash, b.tx_hash);
    mine(&mut fx);
    assert_eq!(status(&fx, &a)["data"]["status"], "success");
    assert_eq!(status(&fx, &b)["data"]["status"], "success");
    assert_eq!(fx.active(&a.token_address, &addr(1)), tok("100000"));
    assert_eq!(fx.active(&b.token_address, &addr(1)), tok("100000"));
}

#[test]
fn overview_data_pending_and_deployed() {
    let mut fx = Fx::new();
    let alice = fx.holder("alice");
    let mut addresses: Vec<Value> = (0..24).map(|i| json!(addr_text(200 + i))).collect();
    addresses.push(json!(alice.address.to_checksum()));
    let body = json!({
        "name": "Big <Drop> & \"Co\"", "symbol": "BIG", "totalSupply": "1000000", "initialPrice": 2,
        "network": "base", "marketplace": true,
        "airdrop": { "addresses": addresses, "supply": 10 },
        "recipient": { "address": addr_text(1), "amount": 500 },
    });
    let d = create(&mut fx, K::Airdrop, body, 9);
    let p = deployment::overview(&fx.store, &d, BASE).unwrap();
    assert_eq!(p["status"], "pending");
    assert_eq!(p["kind"], "airdrop");
    assert_eq!(p["name"], "Big <Drop> & \"Co\"");
    assert_eq!(p["totalSupply"], json!(1000000));
    assert_eq!(p["price"], json!(2));
    assert_eq!(p["holders"], json!([]));
    assert!(p.get("exchangeUrl").is_none());
    assert_eq!(p["transactionHash"], json!(d.tx_hash.clone().unwrap()));

    mine(&mut fx);
    let d = deployment::find(&fx.store, &d.id, None).unwrap();
    let p = deployment::overview(&fx.store, &d, BASE).unwrap();
    assert_eq!(p["status"], "success");
    assert_eq!(p["holdersCount"], json!(26));
    let holders = p["holders"].as_array().unwrap();
    assert_eq!(holders.len(), deployment::PAGE_HOLDERS as usize);
    assert_eq!(holders[0]["address"], json!(addr_text(1)));
    assert_eq!(holders[0]["balance"], json!(500));
    // No userIds on the public page.
    assert!(holders.iter().all(|h| h.get("id").is_none()));
    assert!(!p.to_string().contains("alice"));
    assert_eq!(p["liquiditySupply"], json!(1000000 - 500 - 250));
    assert!(p["exchangeUrl"].as_str().unwrap().contains("chain=base&"));
    assert_eq!(
        p["serviceBuildUrl"],
        json!(format!("{BASE}/deployments/{}", d.id))
    );
}
