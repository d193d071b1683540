//! The view models, fed the objects JavaScript hands over.

use crate::*;
use js_sys::Reflect;
use tokenpad::web::{holder_portfolio, presale_progress, token_supply};

// View models from JavaScript objects

/// The holder as the client hands it over: amounts as decimal strings.
fn holder_as_client_returns_it() -> JsValue {
    let h = json(HOLDER);
    let tokens = get(&h, "tokens.0");
    Reflect::set(
        &tokens,
        &"balance".into(),
        &"9007199254740993.000000000000000001".into(),
    )
    .unwrap();
    h
}

#[wasm_bindgen_test]
fn portfolio_from_the_clients_objects() {
    let v = holder_portfolio(
        holder_as_client_returns_it(),
        Some(NOW),
        opts(r#"{"locale":"en-US"}"#),
    )
    .unwrap();
    assert_eq!(s(&v, "userId"), "alice");
    assert_eq!(s(&v, "totalValue"), "1285.185183");
    assert_eq!(s(&v, "totalValueFormatted"), "1,285.19");
    assert_eq!(s(&v, "rows.0.kind"), "lock");
    assert_eq!(s(&v, "rows.0.countdown.label"), "7d 0h 0m 0s");
    assert_eq!(n(&v, "rows.0.unlockAtMs"), NOW + 7.0 * 86_400_000.0);
    assert_eq!(s(&v, "rows.1.symbol"), "DEMO");
    assert_eq!(
        s(&v, "rows.1.balance"),
        "9007199254740993.000000000000000001"
    );
    assert_eq!(s(&v, "rows.1.balanceFormatted"), "9,007,199,254,740,993");
    assert_eq!(get(&v, "rows.1.countdown"), JsValue::NULL);
    assert_eq!(get(&v, "rows.1.presaleId"), JsValue::NULL);
    assert_eq!(s(&v, "rows.2.presaleId"), "p-1");
    assert_eq!(n(&v, "rows.2.progress"), 60.0);
    assert_eq!(n(&v, "lockCount"), 1.0);
    assert_eq!(n(&v, "nextUnlock.targetMs"), NOW + 7.0 * 86_400_000.0);
}

#[wasm_bindgen_test]
fn portfolio_from_plain_json_numbers_and_with_a_locale() {
    let v = holder_portfolio(json(HOLDER), Some(NOW), opts(r#"{"locale":"de-DE"}"#)).unwrap();
    assert_eq!(s(&v, "totalValueFormatted"), "1.285,19");
    assert_eq!(s(&v, "rows.0.balanceFormatted"), "250.000.000");
    // Without nowMs it counts from Date.now(): the 2026 unlock is in the past or future, but
    // the view is computed either way.
    assert!(holder_portfolio(json(HOLDER), None, None).is_ok());
}

#[wasm_bindgen_test]
fn presale_progress_from_js() {
    let v = presale_progress(
        json(PRESALE),
        Some(NOW + 600_000.0),
        opts(r#"{"locale":"en-US"}"#),
    )
    .unwrap();
    assert_eq!(s(&v, "statusLabel"), "Live");
    assert_eq!(s(&v, "phase"), "live");
    assert_eq!(n(&v, "percent"), 60.5);
    assert_eq!(s(&v, "percentFormatted"), "60.5%");
    assert_eq!(s(&v, "raised"), "60.5");
    assert_eq!(s(&v, "raisedFormatted"), "60.50");
    assert_eq!(get(&v, "thresholdReached"), JsValue::FALSE);
    assert_eq!(s(&v, "thresholdAmountFormatted"), "70.00");
    assert_eq!(s(&v, "timeLabel"), "Ends in 50m 0s");
    assert_eq!(n(&v, "participantCount"), 1.0);
    assert_eq!(get(&v, "completion"), JsValue::NULL);
    // The merchant form adds the completion step.
    let merchant = json(PRESALE);
    Reflect::set(
        &merchant,
        &"completionState".into(),
        &json(r#"{"step":"distributing","transactions":{},"retryCount":0}"#),
    )
    .unwrap();
    Reflect::set(&merchant, &"status".into(), &"completed".into()).unwrap();
    let v = presale_progress(merchant, Some(NOW), None).unwrap();
    assert_eq!(s(&v, "statusLabel"), "Launching");
    assert_eq!(n(&v, "completion.stepIndex"), 4.0);
    assert_eq!(s(&v, "completion.label"), "Distributing tokens");
}

#[wasm_bindgen_test]
fn token_supply_from_js() {
    // As the client returns it: the amount as its exact decimal string.
    let token = json(TOKEN);
    Reflect::set(
        &token,
        &"remainingAppSupply".into(),
        &"149998765.432109876543210988".into(),
    )
    .unwrap();
    let v = token_supply(token, opts(r#"{"locale":"en-US"}"#)).unwrap();
    assert_eq!(s(&v, "distributed"), "1234.567890123456789012");
    assert_eq!(s(&v, "distributedFormatted"), "1,234.56789");
    assert_eq!(s(&v, "remainingAppSupplyFormatted"), "149,998,765.43211");
    assert_eq!(s(&v, "distributedPercentFormatted"), "<0.01%");
    assert_eq!(s(&v, "priceFormatted"), "0.15");
    assert_eq!(s(&v, "topHolders.0.id"), "alice");
    // The same object through JSON.parse lost digits before the library saw it: this is why
    // the client hands amounts over as strings.
    let lossy = token_supply(json(TOKEN), None).unwrap();
    assert_ne!(s(&lossy, "distributed"), "1234.567890123456789012");
}

#[wasm_bindgen_test]
fn views_refuse_malformed_objects_naming_the_field() {
    let e = holder_portfolio(json(r#"{"success":true}"#), Some(NOW), None).unwrap_err();
    assert_error(&e, "invalid_input", 0);
    assert!(
        s(&e, "message").contains("id: missing"),
        "{}",
        s(&e, "message")
    );
    let bad = json(HOLDER);
    Reflect::set(&get(&bad, "locks.0"), &"balance".into(), &(-5).into()).unwrap();
    let e = holder_portfolio(bad, Some(NOW), None).unwrap_err();
    assert!(
        s(&e, "message").contains("locks[0].balance"),
        "{}",
        s(&e, "message")
    );
    assert_error(
        &token_supply(JsValue::UNDEFINED, None).unwrap_err(),
        "invalid_input",
        0,
    );
}
