//! Cross-checks against an independent implementation: `vectors.json` is written by
//! `vectors.mjs` (viem, from the contracts' compiled ABIs); every byte must match.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use tokenpad_evm::auth::{self, Authorization, Domain, SignedAuthorization};
use tokenpad_evm::rpc::{parse_hex_data, parse_hex_fixed};
use tokenpad_evm::tx::{self, Eip1559};
use tokenpad_evm::{calls, locker, logs, Error};

fn vectors() -> Value {
    serde_json::from_str(include_str!("vectors.json")).expect("vectors.json parses")
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}
fn bytes(v: &Value) -> Vec<u8> {
    parse_hex_data(s(v)).unwrap()
}
fn addr(v: &Value) -> [u8; 20] {
    parse_hex_fixed(s(v)).unwrap()
}
fn word(v: &Value) -> [u8; 32] {
    parse_hex_fixed(s(v)).unwrap()
}
fn num<T: std::str::FromStr>(v: &Value) -> T
where
    T::Err: std::fmt::Debug,
{
    s(v).parse().unwrap()
}
fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap()
}

fn secret(v: &Value, index: &Value) -> [u8; 32] {
    word(&v["keys"][index.as_u64().unwrap() as usize]["secret"])
}

fn domain(d: &Value) -> Domain {
    Domain {
        name: s(&d["name"]).into(),
        version: s(&d["version"]).into(),
        chain_id: num(&d["chainId"]),
        verifying_contract: addr(&d["verifyingContract"]),
    }
}

fn authorization(a: &Value) -> Authorization {
    Authorization {
        from: addr(&a["from"]),
        to: addr(&a["to"]),
        value: num(&a["value"]),
        valid_after: num(&a["validAfter"]),
        valid_before: num(&a["validBefore"]),
        nonce: word(&a["nonce"]),
    }
}

/// The signed authorizations, in vectors.json's order, signed by this crate.
fn signed_authorizations(v: &Value) -> Vec<SignedAuthorization> {
    arr(&v["authorizations"])
        .iter()
        .map(|a| {
            auth::sign(
                &domain(&a["domain"]),
                &authorization(&a["authorization"]),
                &secret(v, &a["key"]),
            )
            .unwrap()
        })
        .collect()
}

#[test]
fn addresses_of_keys() {
    let v = vectors();
    for k in arr(&v["keys"]) {
        assert_eq!(
            auth::address_of(&word(&k["secret"])).unwrap(),
            addr(&k["address"])
        );
    }
}

#[test]
fn eip712_hashes_and_signatures() {
    let v = vectors();
    let mut parities = std::collections::BTreeSet::new();
    for a in arr(&v["authorizations"]) {
        let d = domain(&a["domain"]);
        let auth = authorization(&a["authorization"]);
        assert_eq!(
            auth::domain_separator(&d),
            word(&a["domainSeparator"]),
            "{d:?}"
        );
        assert_eq!(
            auth::signing_hash(&d, &auth),
            word(&a["signingHash"]),
            "{auth:?}"
        );
        let signed = auth::sign(&d, &auth, &secret(&v, &a["key"])).unwrap();
        assert_eq!(signed.authorization, auth);
        assert_eq!(u64::from(signed.v), a["v"].as_u64().unwrap());
        assert_eq!(signed.r, word(&a["r"]));
        assert_eq!(signed.s, word(&a["s"]));
        parities.insert(signed.v);
    }
    // Both recovery parities are exercised, so v = 27 and v = 28 are each checked.
    assert_eq!(parities.into_iter().collect::<Vec<_>>(), vec![27, 28]);
}

#[test]
fn calldata() {
    let v = vectors();
    let c = &v["calls"];
    let signed = signed_authorizations(&v);
    for x in arr(&c["factoryDeploy"]) {
        let data = calls::factory_deploy(
            word(&x["salt"]),
            s(&x["name"]),
            s(&x["symbol"]),
            num(&x["supply"]),
            addr(&x["treasury"]),
        );
        assert_eq!(data, bytes(&x["data"]), "deploy {}", x["name"]);
    }
    for x in arr(&c["batchTransferWithAuthorization"]) {
        let batch: Vec<_> = arr(&x["authorizations"])
            .iter()
            .map(|i| signed[i.as_u64().unwrap() as usize].clone())
            .collect();
        assert_eq!(
            calls::batch_transfer_with_authorization(&batch),
            bytes(&x["data"]),
            "batch of {}",
            batch.len()
        );
    }
    let pick = |x: &Value| -> Vec<SignedAuthorization> {
        arr(x)
            .iter()
            .map(|i| signed[i.as_u64().unwrap() as usize].clone())
            .collect()
    };
    for x in arr(&c["batchTransferWithAuthorizationPacked"]) {
        let batch = pick(&x["authorizations"]);
        assert_eq!(
            calls::batch_transfer_with_authorization_packed(&batch).unwrap(),
            bytes(&x["data"]),
            "packed batch of {}",
            batch.len()
        );
    }
    let unpackable = pick(&c["batchTransferWithAuthorizationUnpackable"]);
    assert!(!unpackable.is_empty());
    for a in &unpackable {
        assert_eq!(
            calls::batch_transfer_with_authorization_packed(std::slice::from_ref(a)),
            None
        );
    }
    let transfers = |x: &Value| -> Vec<([u8; 20], u128)> {
        arr(x)
            .iter()
            .map(|t| (addr(&t["to"]), num(&t["amount"])))
            .collect()
    };
    for x in arr(&c["batchTransfer"]) {
        assert_eq!(
            calls::batch_transfer(&transfers(&x["transfers"])),
            bytes(&x["data"])
        );
    }
    for x in arr(&c["batchTransferPacked"]) {
        assert_eq!(
            calls::batch_transfer_packed(&transfers(&x["transfers"])).unwrap(),
            bytes(&x["data"])
        );
    }
    for x in arr(&c["batchTransferUnpackable"]) {
        assert_eq!(
            calls::batch_transfer_packed(&transfers(&x["transfers"])),
            None
        );
    }
    for x in arr(&c["transferWithAuthorization"]) {
        let a = &signed[x["authorization"].as_u64().unwrap() as usize];
        assert_eq!(calls::transfer_with_authorization(a), bytes(&x["data"]));
    }
    for x in arr(&c["transfer"]) {
        assert_eq!(
            calls::transfer(addr(&x["to"]), num(&x["amount"])),
            bytes(&x["data"])
        );
    }
    for x in arr(&c["mint"]) {
        assert_eq!(
            calls::mint(addr(&x["to"]), num(&x["amount"])),
            bytes(&x["data"])
        );
    }
    for x in arr(&c["balanceOf"]) {
        assert_eq!(calls::balance_of(addr(&x["owner"])), bytes(&x["data"]));
    }
    for x in arr(&c["authorizationState"]) {
        assert_eq!(
            calls::authorization_state(addr(&x["authorizer"]), word(&x["nonce"])),
            bytes(&x["data"])
        );
    }
}

#[test]
fn return_data() {
    let v = vectors();
    let r = &v["returns"];
    for x in arr(&r["u128"]) {
        assert_eq!(
            calls::decode_u128(&bytes(&x["data"])).unwrap(),
            num::<u128>(&x["value"])
        );
    }
    for x in arr(&r["tooLarge"]) {
        assert!(
            matches!(calls::decode_u128(&bytes(x)), Err(Error::TooLarge { .. })),
            "{x}"
        );
    }
    for x in arr(&r["bool"]) {
        assert_eq!(
            calls::decode_bool(&bytes(&x["data"])).unwrap(),
            x["value"].as_bool().unwrap()
        );
    }
    for x in arr(&r["address"]) {
        assert_eq!(
            calls::decode_address(&bytes(&x["data"])).unwrap(),
            addr(&x["value"])
        );
    }
}

#[test]
fn revert_reasons() {
    let v = vectors();
    let r = &v["reverts"];
    assert_eq!(
        calls::revert_reason(&bytes(&r["errorString"]["data"])),
        s(&r["errorString"]["reason"])
    );
    let panic = calls::revert_reason(&bytes(&r["panic"]["data"]));
    assert_eq!(panic, "panic 0x11: arithmetic underflow or overflow");
    let custom = arr(&r["custom"]);
    assert_eq!(
        custom.len(),
        36,
        "a new error in the ABIs: teach revert_reason its message"
    );
    for e in custom {
        let reason = calls::revert_reason(&bytes(&e["data"]));
        assert!(
            reason.starts_with(s(&e["name"])),
            "{} gave {reason:?}",
            e["name"]
        );
    }
}

#[test]
fn signed_transactions() {
    let v = vectors();
    for t in arr(&v["transactions"]) {
        let x = &t["tx"];
        let tx = Eip1559 {
            chain_id: num(&x["chainId"]),
            nonce: num(&x["nonce"]),
            max_priority_fee_per_gas: num(&x["maxPriorityFeePerGas"]),
            max_fee_per_gas: num(&x["maxFeePerGas"]),
            gas_limit: num(&x["gasLimit"]),
            to: if x["to"].is_null() {
                None
            } else {
                Some(addr(&x["to"]))
            },
            value: num(&x["value"]),
            data: bytes(&x["data"]),
        };
        assert_eq!(tx::signing_hash(&tx), word(&t["signingHash"]), "{x}");
        let signed = tx::sign(&tx, &secret(&v, &t["key"])).unwrap();
        assert_eq!(signed.raw, bytes(&t["raw"]), "{x}");
        assert_eq!(signed.hash, word(&t["hash"]));
    }
    assert!(
        arr(&v["transactions"])
            .iter()
            .any(|t| t["tx"]["to"].is_null()),
        "a contract creation is covered"
    );
}

#[test]
fn transfer_topic_and_token_addresses() {
    let v = vectors();
    assert_eq!(logs::TRANSFER_TOPIC, word(&v["transferTopic"]));
    for t in arr(&v["tokenAddresses"]) {
        let got = calls::token_address(
            addr(&t["factory"]),
            addr(&t["deployer"]),
            word(&t["salt"]),
            word(&t["creationCodeHash"]),
        );
        assert_eq!(got, addr(&t["token"]));
    }
}

#[test]
fn lock_keys() {
    let v = vectors();
    let keys = arr(&v["lockKeys"]);
    assert_eq!(keys.len(), 4);
    for k in keys {
        assert_eq!(
            locker::key(addr(&k["owner"]), word(&k["id"])),
            word(&k["key"])
        );
    }
}
