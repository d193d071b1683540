//! `readAnswer`: the service's answers, read exactly, and its errors with their codes.

use crate::*;
use tokenpad::web::read_answer;

#[wasm_bindgen_test]
fn reads_a_token_with_exact_amounts() {
    let t = read_answer("token", 200, TOKEN.into()).unwrap();
    assert_eq!(s(&t, "remainingAppSupply"), "149998765.432109876543210988");
    assert_eq!(s(&t, "holders.0.balance"), "1234.567890123456789012");
    assert_eq!(s(&t, "price"), "0.15");
    assert_eq!(get(&t, "imageUrl"), JsValue::NULL);
    assert_eq!(n(&t, "holdersCount"), 1.0);
}

#[wasm_bindgen_test]
fn reads_a_holder_a_balance_and_a_presale() {
    let balance = r#"{"name":"Demo Token","symbol":"DEMO","id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","balance":0.000000000000000001,"value":0,"lockedBalance":2,"decimals":18}"#;
    let h = read_answer("holder", 200, HOLDER.into()).unwrap();
    assert_eq!(
        s(&h, "tokens.0.balance"),
        "9007199254740993.000000000000000001"
    );
    assert_eq!(s(&h, "locks.0.unlockDate"), "2026-11-28T12:00:00.000Z");
    assert_eq!(s(&h, "presales.0.metadata.presaleId"), "p-1");
    let b = read_answer("balance", 200, balance.into()).unwrap();
    assert_eq!(s(&b, "balance"), "0.000000000000000001");
    assert_eq!(s(&b, "lockedBalance"), "2");
    let p = read_answer("presale", 201, PRESALE.into()).unwrap();
    assert_eq!(s(&p, "purchasedUsdcAmount"), "60.5");
    assert_eq!(n(&p, "startTimestamp"), 1_795_262_400.0);
    assert!(get(&p, "completionState").is_undefined());
}

#[wasm_bindgen_test]
fn service_errors_carry_code_status_message_and_details() {
    let e = read_answer(
        "holder",
        401,
        r#"{"success":false,"message":"Public key not found","code":"public_key_not_found"}"#
            .into(),
    )
    .unwrap_err();
    assert_error(&e, "public_key_not_found", 401);
    assert_eq!(s(&e, "message"), "Public key not found");
    let e = read_answer(
        "holder",
        400,
        r#"{"success":false,"message":"userId is too long","code":"invalid_user_id","details":{"field":"userId"}}"#.into(),
    )
    .unwrap_err();
    assert_error(&e, "invalid_user_id", 400);
    assert_eq!(s(&e, "details.field"), "userId");
    let e = read_answer("token", 502, "<html>Bad gateway</html>".into()).unwrap_err();
    assert_error(&e, "http_error", 502);
}

#[wasm_bindgen_test]
fn a_malformed_answer_is_an_invalid_response() {
    let e = read_answer("presale", 200, r#"{"id":"p"}"#.into()).unwrap_err();
    assert_error(&e, "invalid_response", 200);
    assert!(
        s(&e, "message").contains("name: missing"),
        "{}",
        s(&e, "message")
    );
    let e = read_answer("nothing", 200, "{}".into()).unwrap_err();
    assert_error(&e, "invalid_input", 0);
}
