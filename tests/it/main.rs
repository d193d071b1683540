//! The wasm exports of the package, in headless Chromium (wasm-bindgen-test), in one
//! integration-test binary: `format` (Intl formatting and countdowns), `views` (the view
//! models from JavaScript objects), `client` (`readAnswer`: the service's answers read
//! exactly). `scripts/test-browser.sh` runs it and fails unless every `#[wasm_bindgen_test]`
//! here ran. The JavaScript layer over these (the clients, retries, live updates) is tested
//! in Chromium by tests/browser/.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use js_sys::{Object, Reflect};
use tokenpad::web::format_amount;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod client;
mod format;
mod views;

#[wasm_bindgen(inline_js = r#"
export function json(text) { return JSON.parse(text); }
"#)]
extern "C" {
    pub(crate) fn json(text: &str) -> JsValue;
}

pub(crate) const TOKEN: &str = r#"{"id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","name":"Demo Token","symbol":"DEMO","decimals":18,"network":"base","totalSupply":1000000000,"startingAppSupply":150000000,"remainingAppSupply":149998765.432109876543210988,"merchantSupply":50000000,"liquiditySupply":800000000,"merchantAddress":"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359","price":0.15,"canDistribute":true,"canAirdrop":false,"canLP":false,"imageUrl":null,"createdAt":"2026-11-21T12:00:00.000Z","origin":"dashboard","marketplace":false,"holders":[{"id":"alice","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","balance":1234.567890123456789012,"value":185.185183}],"holdersCount":1}"#;

pub(crate) const HOLDER: &str = r#"{"success":true,"id":"alice","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","totalValue":1285.185183,
 "tokens":[{"id":"0x5a","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","name":"Demo Token","symbol":"DEMO","balance":9007199254740993.000000000000000001,"value":185.185183,"status":"active","type":"token"}],
 "presales":[{"id":"0x11","address":"0x1111111111111111111111111111111111111111","name":"Moon","symbol":"MOON","balance":75000000,"value":60,"status":"pending","type":"presale","metadata":{"presaleId":"p-1","progress":60,"endDate":"2026-11-21T13:00:00.000Z"}}],
 "locks":[{"id":"0x22","address":"0x2222222222222222222222222222222222222222","name":"Star","symbol":"STAR","balance":250000000,"value":1000,"status":"locked","type":"lock","unlockDate":"2026-11-28T12:00:00.000Z"}]}"#;

pub(crate) const PRESALE: &str = r#"{"id":"p-1","name":"Moon launch","description":"The MOON presale","startTimestamp":1795262400,"endTimestamp":1795266000,"targetUsdcAmount":100,"purchasedUsdcAmount":60.5,"status":"active","participants":[{"id":"bob","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","usdcAmount":60.5,"tokenPercentage":100}],"tokenInfo":{"name":"Moon","symbol":"MOON","imageUrl":"https://example.com/moon.png"}}"#;

/// 2026-11-21T12:00:00Z
pub(crate) const NOW: f64 = 1_795_262_400_000.0;

pub(crate) fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.')
        .fold(v.clone(), |acc, key| match key.parse::<u32>() {
            Ok(i) => Reflect::get_u32(&acc, i).unwrap(),
            Err(_) => Reflect::get(&acc, &key.into()).unwrap(),
        })
}

pub(crate) fn s(v: &JsValue, path: &str) -> String {
    get(v, path)
        .as_string()
        .unwrap_or_else(|| panic!("{path} is not a string: {:?}", get(v, path)))
}

pub(crate) fn n(v: &JsValue, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number"))
}

pub(crate) fn opts(o: &str) -> Option<Object> {
    Some(json(o).unchecked_into())
}

pub(crate) fn fmt(value: impl Into<JsValue>, options: &str) -> Result<String, JsValue> {
    format_amount(value.into(), opts(options))
}

pub(crate) fn assert_error(e: &JsValue, code: &str, status: u32) {
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {e:?}");
    assert_eq!(s(e, "name"), "TokenpadError");
    assert_eq!(s(e, "code"), code, "message: {}", s(e, "message"));
    assert_eq!(n(e, "status"), f64::from(status));
}
