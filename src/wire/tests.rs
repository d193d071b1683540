#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::fixtures::*;
use crate::format::FormatOptions;
use serde_json::{json, Value};
use tokenpad_core::model::decimal::Decimal;

fn dec(s: &str) -> Decimal {
    Decimal::parse(s).unwrap()
}

/// What JavaScript receives: `to_js_json`'s text, parsed back.
fn as_js<T: Serialize>(v: &T) -> Value {
    serde_json::from_str(&to_js_json(v).unwrap()).unwrap()
}

// ---------------------------------------------------------------------------------------
// Writing for JavaScript

#[test]
fn the_formatter_quotes_exact_decimals_and_only_them() {
    assert_eq!(to_js_json(&dec("12.5")).unwrap(), r#""12.5""#);
    #[derive(Serialize)]
    struct Mixed {
        count: u64,
        index: usize,
        negative: i64,
        float: f64,
        none: Option<Decimal>,
        big: Decimal,
        tiny: Decimal,
        text: &'static str,
        flag: bool,
    }
    let text = to_js_json(&Mixed {
        count: 3,
        index: 7,
        negative: -4,
        float: 60.5,
        none: None,
        big: dec("123456789012345678901234.000001"),
        tiny: dec("0.000000000000000001"),
        text: "1.5",
        flag: true,
    })
    .unwrap();
    assert_eq!(
        text,
        r#"{"count":3,"index":7,"negative":-4,"float":60.5,"none":null,"big":"123456789012345678901234.000001","tiny":"0.000000000000000001","text":"1.5","flag":true}"#
    );
    // Beyond 2^64 and 2^53: still the exact text.
    assert_eq!(
        to_js_json(&vec![dec("18446744073709551616"), dec("9007199254740993")]).unwrap(),
        r#"["18446744073709551616","9007199254740993"]"#
    );
    // A `serde_json::Value`'s numbers are arbitrary-precision `Number`s too, so they would be
    // quoted: nothing handed to JavaScript this way holds a `Value`.
    assert_eq!(to_js_json(&json!({"n": 1})).unwrap(), r#"{"n":"1"}"#);
}

#[test]
fn writes_the_wire_names_with_amounts_as_strings() {
    let t: Token = from_str(TOKEN).unwrap();
    let v = as_js(&t);
    for key in [
        "totalSupply",
        "startingAppSupply",
        "remainingAppSupply",
        "canLP",
        "imageUrl",
        "holdersCount",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    assert_eq!(v["remainingAppSupply"], "149998765.432109876543210988");
    assert!(v["imageUrl"].is_null());
    let h: HolderFull = from_str(HOLDER).unwrap();
    let v = as_js(&h);
    assert_eq!(v["tokens"][0]["type"], "token");
    assert_eq!(v["locks"][0]["unlockDate"], "2026-11-28T12:00:00.000Z");
    let p: Presale = from_str(PRESALE).unwrap();
    let v = as_js(&p);
    assert!(v.get("completionState").is_none());
    assert_eq!(v["tokenInfo"]["imageUrl"], "https://example.com/moon.png");
}

#[test]
fn counts_stay_numbers_and_every_amount_is_a_string() {
    let t: Token = from_str(TOKEN).unwrap();
    let v = as_js(&t);
    assert_eq!(v["holdersCount"].as_u64(), Some(2));
    assert_eq!(v["decimals"].as_u64(), Some(18));
    assert_eq!(v["price"], "0.15");
    assert_eq!(v["holders"][1]["balance"], "0.000000000000000001");
    assert_eq!(v["holders"][1]["value"], "0");
    let p: Presale = from_str(PRESALE).unwrap();
    let v = as_js(&p);
    assert_eq!(v["startTimestamp"].as_u64(), Some(1_795_262_400));
    assert_eq!(v["targetUsdcAmount"], "100");
    assert_eq!(v["participants"][1]["tokenPercentage"], "99.173553");
    let b: TokenBalance = from_str(BALANCE).unwrap();
    let v = as_js(&b);
    assert_eq!(v["balance"], "9007199254740993.000000000000000001");
    assert_eq!(v["lockedBalance"], "0");
    assert_eq!(v["decimals"].as_u64(), Some(18));
}

// ---------------------------------------------------------------------------------------
// Reading

#[test]
fn reads_every_shape_with_exact_amounts() {
    let t: Token = from_str(TOKEN).unwrap();
    assert_eq!(
        t.remaining_app_supply.to_string(),
        "149998765.432109876543210988"
    );
    assert_eq!(t.holders[1].balance.to_string(), "0.000000000000000001");
    assert_eq!(
        t.price.as_ref().map(ToString::to_string),
        Some("0.15".into())
    );
    assert!(t.can_distribute && !t.can_lp);

    let h: HolderFull = from_str(HOLDER).unwrap();
    assert_eq!(h.locks[0].unlock_date, "2026-11-28T12:00:00.000Z");
    assert_eq!(h.presales[0].metadata.progress.to_string(), "60");

    let (p, m) = read_presale(PRESALE).unwrap();
    assert_eq!(p.purchased_usdc_amount.to_string(), "60.5");
    assert_eq!(m.completion_state, None);

    let b: TokenBalance = from_str(BALANCE).unwrap();
    assert_eq!(b.balance.to_string(), "9007199254740993.000000000000000001");
}

#[test]
fn reads_every_fixture() {
    let t: Token = from_str(TOKEN).unwrap();
    assert_eq!(t.holders.len(), 2);
    assert!(t.image_url.is_none());
    let h: HolderFull = from_str(HOLDER).unwrap();
    assert_eq!(
        h.presales[0].metadata.presale_id.as_str(),
        "6f1c1b2e-8a8e-4a53-9d57-0d7c3b8e9a10"
    );
    // An item id is the service's text, not necessarily an address.
    assert_eq!(h.tokens[1].id, "0x0000000000000000000000000000000000000Usd");
    let p: Presale = from_str(PRESALE).unwrap();
    assert_eq!(p.start_timestamp, 1_795_262_400);
    let b: TokenBalance = from_str(BALANCE).unwrap();
    assert_eq!(b.locked_balance, Decimal::zero());
    assert_eq!(b.decimals, 18);
}

#[test]
fn reads_the_merchant_presale_form() {
    let mut v: Value = serde_json::from_str(PRESALE).unwrap();
    v["completionState"] = json!({
        "step": "token-created", "retryCount": 1,
        "transactions": {"swapTx": "0xabc", "tokenCreationTx": "0xdef"}
    });
    v["presaleInfo"] = json!({"distributed": false});
    v["lockDuration"] = json!(7);
    let (p, m) = read_presale(&v.to_string()).unwrap();
    assert_eq!(p.purchased_usdc_amount.to_string(), "60.5");
    let c = m.completion_state.clone().unwrap();
    assert_eq!(c.step.as_str(), "token-created");
    assert_eq!(c.transactions["swapTx"], "0xabc");
    assert_eq!(m.presale_info.as_ref().map(|i| i.distributed), Some(false));

    // The full merchant form, as the service writes it, reads the same way.
    v["signerAddress"] = json!("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359");
    v["autoLaunch"] = json!(true);
    v["lockupPercentage"] = json!(25);
    v["tokenAddress"] = json!("0x1111111111111111111111111111111111111111");
    v["tokenDeploymentInfo"] = json!({
        "tokenAddress": "0x1111111111111111111111111111111111111111",
        "hash": "0xfeed", "amountTokensBought": "60500000000000000000000000"
    });
    let full: PresaleMerchant = from_str(&v.to_string()).unwrap();
    assert_eq!(full.lock_duration, 7);
    let (p, m) = read_presale(&v.to_string()).unwrap();
    assert_eq!(p, full.presale);
    assert_eq!(m.completion_state.as_ref(), Some(&full.completion_state));
    assert_eq!(m.presale_info.as_ref(), Some(&full.presale_info));
    assert_eq!(m.token_address, Some(full.token_address));
    assert_eq!(m.token_deployment_info, full.token_deployment_info);
}

#[test]
fn errors_name_the_field_by_path() {
    let mut v: Value = serde_json::from_str(HOLDER).unwrap();
    v["tokens"][1]["balance"] = Value::String("-1".into());
    assert_eq!(
        from_str::<HolderFull>(&v.to_string()).unwrap_err(),
        "tokens[1].balance: expected a non-negative decimal"
    );
    v["tokens"] = Value::Null;
    assert_eq!(
        from_str::<HolderFull>(&v.to_string()).unwrap_err(),
        "tokens: invalid type: null, expected a sequence"
    );
    let mut v: Value = serde_json::from_str(PRESALE).unwrap();
    v.as_object_mut().unwrap().remove("tokenInfo");
    assert_eq!(
        from_str::<Presale>(&v.to_string()).unwrap_err(),
        "tokenInfo: missing"
    );
    v["tokenInfo"] = json!({"name": "M", "imageUrl": ""});
    assert_eq!(
        from_str::<Presale>(&v.to_string()).unwrap_err(),
        "tokenInfo.symbol: missing"
    );
    v["tokenInfo"] = json!({"name": "M", "symbol": true, "imageUrl": ""});
    assert_eq!(
        from_str::<Presale>(&v.to_string()).unwrap_err(),
        "tokenInfo.symbol: invalid type: boolean `true`, expected a string"
    );
    // The core's field types explain themselves.
    let mut v: Value = serde_json::from_str(PRESALE).unwrap();
    v["participants"][0]["address"] = json!("0x12");
    assert_eq!(
        from_str::<Presale>(&v.to_string()).unwrap_err(),
        "participants[0].address: must be a 0x-prefixed 20-byte hex address"
    );
    assert_eq!(
        from_str::<Token>(r#""x""#).unwrap_err(),
        r#"the value: invalid type: string "x", expected struct Token"#
    );
    // serde's structs also read from arrays (fields in order): the first item is `id`.
    assert_eq!(
        from_str::<Token>("[1]").unwrap_err(),
        "[0]: invalid type: integer `1`, expected a string"
    );
    assert!(from_str::<Token>("{").is_err());
}

#[test]
fn errors_name_the_field_in_the_text_as_written() {
    // The fixture's own text: several lines, keys in the service's order.
    let edit = |from: &str, to: &str| {
        assert!(HOLDER.contains(from), "{from}");
        from_str::<HolderFull>(&HOLDER.replace(from, to)).unwrap_err()
    };
    let unlock = r#""unlockDate": "2026-11-28T12:00:00.000Z""#;
    assert_eq!(
        edit(unlock, r#""unlockDate": 5"#),
        "locks[0].unlockDate: invalid type: integer `5`, expected a string"
    );
    assert_eq!(
        edit(r#""status": "locked""#, r#""status": "frozen""#),
        "locks[0].status: unknown variant `frozen`, expected one of `active`, `locked`, `pending`"
    );
    assert_eq!(
        edit(&format!(", {unlock}"), ""),
        "locks[0].unlockDate: missing"
    );
    assert_eq!(
        edit(r#""progress": 60"#, r#""progress": "6O""#),
        "presales[0].metadata.progress: expected a non-negative decimal"
    );
    // The last member of an object: its error is placed after the object's `}`.
    let mut v: Value = serde_json::from_str(PRESALE).unwrap();
    v["participants"][1]["usdcAmount"] = json!("-1");
    assert_eq!(
        from_str::<Presale>(&v.to_string()).unwrap_err(),
        "participants[1].usdcAmount: expected a non-negative decimal"
    );
    // A syntax error keeps serde_json's position.
    assert_eq!(
        from_str::<Presale>("{\"id\": }").unwrap_err(),
        "expected value at line 1 column 8"
    );
}

#[test]
fn numbers_keep_their_exact_text_and_integers_stay_whole() {
    let mut v: Value = serde_json::from_str(PRESALE).unwrap();
    v["targetUsdcAmount"] = serde_json::from_str("123456789012345678901234.000001").unwrap();
    v["startTimestamp"] = serde_json::from_str("7.5").unwrap();
    assert!(from_str::<Presale>(&v.to_string())
        .unwrap_err()
        .starts_with("startTimestamp:"));
    v["startTimestamp"] = serde_json::from_str("7").unwrap();
    let p: Presale = from_str(&v.to_string()).unwrap();
    assert_eq!(
        p.target_usdc_amount.to_string(),
        "123456789012345678901234.000001"
    );
    assert_eq!(p.start_timestamp, 7);
    // Amounts handed back by JavaScript as strings read the same.
    v["targetUsdcAmount"] = json!("123456789012345678901234.000001");
    assert_eq!(
        from_str::<Presale>(&v.to_string())
            .unwrap()
            .target_usdc_amount,
        p.target_usdc_amount
    );
}

#[test]
fn format_options() {
    let o: FormatOptions =
        from_str(r#"{"locale":"de-DE","maximumFractionDigits":2,"roundingMode":"trunc"}"#).unwrap();
    assert_eq!(o.locale.as_deref(), Some("de-DE"));
    assert_eq!(o.maximum_fraction_digits, Some(2));
    assert!(from_str::<FormatOptions>(r#"{"maximumFractionDigits":-1}"#).is_err());
    assert_eq!(
        from_str::<FormatOptions>("{}").unwrap(),
        FormatOptions::default()
    );
}
