//! The validation table: every field's rules, one defect per row, with the code and the
//! field each refusal names.

use super::{addr_text, airdrop, memecoin, parse, with};
use crate::common::num;
use serde_json::{json, Value};
use tokenpad_core::error::ErrorCode as C;
use tokenpad_core::model::deployment::DeploymentKind as K;
use tokenpad_core::ops::deployment::MAX_AIRDROP_ADDRESSES;

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
            with(memecoin(), "name", Some(json!(""))),
            C::InvalidRequest,
            "name",
        ),
        (
            K::Memecoin,
            with(memecoin(), "name", Some(json!(" "))),
            C::InvalidText,
            "name",
        ),
        (
            K::Airdrop,
            with(airdrop(), "name", Some(json!("Drop\u{202e}"))),
            C::InvalidText,
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
                    // JSON numbers: a string has at most 20 integer digits.
                    Some(num("300000000000000000000")),
                ),
                "airdrop.supply",
                Some(num("200000000000000000000")),
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
