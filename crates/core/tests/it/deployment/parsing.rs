//! What the validation errors say, and valid requests parsed exactly.

use super::{addr, addr_text, airdrop, memecoin, parse, with};
use crate::common::tok;
use serde_json::{json, Value};
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{parse_units, Units, PRICE_DECIMALS};
use tokenpad_core::model::deployment::DeploymentKind as K;
use tokenpad_core::model::token::Network;
use tokenpad_core::ops::deployment::MAX_AIRDROP_ADDRESSES;

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
        json!(["base", "base-sepolia", "sepolia", "local"])
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
    assert_eq!(r.total_supply.raw(), tok("1000000"));
    // 0.0001 USD with PRICE_DECIMALS.
    assert_eq!(
        r.initial_price.raw(),
        parse_units("0.0001", PRICE_DECIMALS).unwrap()
    );
    assert!(r.marketplace);
    assert!(!r.no_lp);
    assert_eq!(r.recipient.as_ref().unwrap().address, addr(1));
    assert_eq!(r.recipient.as_ref().unwrap().amount.raw(), tok("100000"));
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
    assert_eq!(drop.supply.raw(), tok("316"));
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
            (addr(1), Units::new(tok("50"))),
            (addr(10), Units::new(tok("316"))),
            (addr(11), Units::new(tok("316"))),
            (addr(12), Units::new(tok("316")))
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
