//! The JavaScript face of the library, in headless Chromium (wasm-bindgen-test):
//! `scripts/test-browser.sh` runs it and fails unless every `#[wasm_bindgen_test]` here ran.
//! The client's requests go through the real `fetch` path (gloo-net, AbortController); the
//! service is a `fetch` stand-in installed per test, except for the refused-connection test.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use js_sys::{Array, Function, Object, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use tokenpad::web::{
    countdown, format_amount, format_units, holder_portfolio, is_tokenpad_error, presale_progress,
    token_supply, TokenpadClient,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function mock_fetch(routes) {
  const calls = [];
  const real = globalThis.fetch;
  globalThis.fetch = async (req) => {
    const url = typeof req === 'string' ? req : req.url;
    const signal = typeof req === 'string' ? undefined : req.signal;
    calls.push(url);
    for (const [pattern, status, body] of routes) {
      if (!url.includes(pattern)) continue;
      if (body === '__network__') throw new TypeError('Failed to fetch');
      if (body === '__hang__') {
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      }
      return new Response(body, { status, headers: { 'content-type': 'application/json' } });
    }
    return new Response('{"success":false,"message":"No route","code":"not_found"}', { status: 404 });
  };
  return { calls, restore() { globalThis.fetch = real; } };
}
export function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
export function json(text) { return JSON.parse(text); }
"#)]
extern "C" {
    fn mock_fetch(routes: &JsValue) -> JsValue;
    fn sleep(ms: u32) -> js_sys::Promise;
    fn json(text: &str) -> JsValue;
}

const TOKEN: &str = r#"{"id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","name":"Demo Token","symbol":"DEMO","decimals":18,"network":"base","totalSupply":1000000000,"startingAppSupply":150000000,"remainingAppSupply":149998765.432109876543210988,"merchantSupply":50000000,"liquiditySupply":800000000,"merchantAddress":"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359","price":0.15,"canDistribute":true,"canAirdrop":false,"canLP":false,"imageUrl":null,"createdAt":"2026-11-21T12:00:00.000Z","holders":[{"id":"alice","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","balance":1234.567890123456789012,"value":185.185183}],"holdersCount":1}"#;

const HOLDER: &str = r#"{"success":true,"id":"alice","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","totalValue":1285.185183,
 "tokens":[{"id":"0x5a","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","name":"Demo Token","symbol":"DEMO","balance":9007199254740993.000000000000000001,"value":185.185183,"status":"active","type":"token"}],
 "presales":[{"id":"0x11","address":"0x1111111111111111111111111111111111111111","name":"Moon","symbol":"MOON","balance":75000000,"value":60,"status":"pending","type":"presale","metadata":{"presaleId":"p-1","progress":60,"endDate":"2026-11-21T13:00:00.000Z"}}],
 "locks":[{"id":"0x22","address":"0x2222222222222222222222222222222222222222","name":"Star","symbol":"STAR","balance":250000000,"value":1000,"status":"locked","type":"lock","unlockDate":"2026-11-28T12:00:00.000Z"}]}"#;

const PRESALE: &str = r#"{"id":"p-1","name":"Moon launch","description":"The MOON presale","startTimestamp":1795262400,"endTimestamp":1795266000,"targetUsdcAmount":100,"purchasedUsdcAmount":60.5,"status":"active","participants":[{"id":"bob","address":"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB","usdcAmount":60.5,"tokenPercentage":100}],"tokenInfo":{"name":"Moon","symbol":"MOON","imageUrl":"https://example.com/moon.png"}}"#;

/// 2026-11-21T12:00:00Z
const NOW: f64 = 1_795_262_400_000.0;

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.')
        .fold(v.clone(), |acc, key| match key.parse::<u32>() {
            Ok(i) => Reflect::get_u32(&acc, i).unwrap(),
            Err(_) => Reflect::get(&acc, &key.into()).unwrap(),
        })
}

fn s(v: &JsValue, path: &str) -> String {
    get(v, path)
        .as_string()
        .unwrap_or_else(|| panic!("{path} is not a string: {:?}", get(v, path)))
}

fn n(v: &JsValue, path: &str) -> f64 {
    get(v, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number"))
}

fn opts(o: &str) -> Option<Object> {
    Some(json(o).unchecked_into())
}

fn fmt(value: impl Into<JsValue>, options: &str) -> Result<String, JsValue> {
    format_amount(value.into(), opts(options))
}

/// A `fetch` stand-in for one test: `routes` is a list of (URL part, status, body).
struct Mock(JsValue);

impl Mock {
    fn new(routes: &[(&str, u16, &str)]) -> Mock {
        let list = Array::new();
        for (pattern, status, body) in routes {
            list.push(&Array::of3(
                &(*pattern).into(),
                &(*status).into(),
                &(*body).into(),
            ));
        }
        Mock(mock_fetch(&list))
    }

    fn calls(&self) -> Vec<String> {
        Array::from(&get(&self.0, "calls"))
            .iter()
            .map(|c| c.as_string().unwrap())
            .collect()
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let restore: Function = get(&self.0, "restore").unchecked_into();
        restore.call0(&self.0).unwrap();
    }
}

fn client(options: &str) -> TokenpadClient {
    TokenpadClient::new(json(options)).unwrap()
}

fn test_client() -> TokenpadClient {
    client(r#"{"baseUrl":"http://tokenpad.test/","publicKey":"pk_m1_test","timeoutMs":2000}"#)
}

async fn resolve(p: js_sys::Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(p).await
}

fn assert_error(e: &JsValue, code: &str, status: u32) {
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {e:?}");
    assert_eq!(s(e, "name"), "TokenpadError");
    assert_eq!(s(e, "code"), code, "message: {}", s(e, "message"));
    assert_eq!(n(e, "status"), f64::from(status));
    assert!(is_tokenpad_error(e.clone()));
}

// ---------------------------------------------------------------------------------------
// Formatting through Intl

#[wasm_bindgen_test]
fn formats_exactly_beyond_double_precision() {
    assert_eq!(
        fmt(
            "123456789012345678901.123456789012345678",
            r#"{"locale":"en-US","maximumFractionDigits":18}"#
        )
        .unwrap(),
        "123,456,789,012,345,678,901.123456789012345678"
    );
    // 2^53 + 1 is not a double; as a decimal string it stays itself.
    assert_eq!(
        fmt("9007199254740993", r#"{"locale":"en-US"}"#).unwrap(),
        "9,007,199,254,740,993"
    );
    assert_eq!(
        fmt("1234.5678915", r#"{"locale":"en-US"}"#).unwrap(),
        "1,234.567892"
    );
    assert_eq!(
        fmt(
            "1234.5678915",
            r#"{"locale":"en-US","maximumFractionDigits":2,"roundingMode":"trunc"}"#
        )
        .unwrap(),
        "1,234.56"
    );
}

#[wasm_bindgen_test]
fn formats_with_each_locales_grouping_and_digits() {
    let cases = [
        ("de-DE", "1234567.891", "1.234.567,891"),
        ("en-IN", "1234567.5", "12,34,567.5"),
        ("fr-FR", "1234567.5", "1\u{202f}234\u{202f}567,5"),
        ("ar-EG", "1234.5", "١٬٢٣٤٫٥"),
        ("ja-JP", "1000000", "1,000,000"),
    ];
    for (locale, value, want) in cases {
        let got = fmt(value, &format!(r#"{{"locale":"{locale}"}}"#)).unwrap();
        assert_eq!(got, want, "{locale}");
    }
}

#[wasm_bindgen_test]
fn formats_numbers_and_bigints_and_refuses_the_rest() {
    assert_eq!(fmt(0.1, r#"{"locale":"en-US"}"#).unwrap(), "0.1");
    assert_eq!(
        fmt(1e21, r#"{"locale":"en-US"}"#).unwrap(),
        "1,000,000,000,000,000,000,000"
    );
    let big = js_sys::BigInt::new(&"123456789012345678901234567890".into()).unwrap();
    assert_eq!(
        fmt(big, r#"{"locale":"en-US"}"#).unwrap(),
        "123,456,789,012,345,678,901,234,567,890"
    );
    assert_error(&fmt("-1", "{}").unwrap_err(), "invalid_input", 0);
    assert_error(&fmt("abc", "{}").unwrap_err(), "invalid_input", 0);
    assert_error(
        &fmt("1", r#"{"locale":"this is not a locale"}"#).unwrap_err(),
        "invalid_options",
        0,
    );
    assert_error(
        &fmt(
            "1",
            r#"{"maximumFractionDigits":2,"minimumFractionDigits":3}"#,
        )
        .unwrap_err(),
        "invalid_options",
        0,
    );
    assert_eq!(format_units("1500000".into(), 6).unwrap(), "1.5");
    assert_eq!(
        format_units(js_sys::BigInt::from(1u64).into(), 18).unwrap(),
        "0.000000000000000001"
    );
}

#[wasm_bindgen_test]
fn counts_down() {
    let c = countdown(NOW + 90_061_000.0, Some(NOW)).unwrap();
    assert_eq!(s(&c, "label"), "1d 1h 1m 1s");
    assert_eq!(get(&c, "done"), JsValue::FALSE);
    let done = countdown(NOW, Some(NOW + 5.0)).unwrap();
    assert_eq!(get(&done, "done"), JsValue::TRUE);
    assert_eq!(n(&done, "remainingMs"), 0.0);
    assert_error(&countdown(f64::NAN, None).unwrap_err(), "invalid_input", 0);
}

// ---------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------
// The client

#[wasm_bindgen_test]
fn refuses_a_secret_key_and_bad_options() {
    let e = TokenpadClient::new(json(
        r#"{"baseUrl":"https://api.example.com","publicKey":"sk_m1_secret"}"#,
    ))
    .err()
    .unwrap();
    assert_error(&e, "secret_key_refused", 0);
    for bad in [
        r#"{"publicKey":"pk_x"}"#,
        r#"{"baseUrl":"api.example.com","publicKey":"pk_x"}"#,
        r#"{"baseUrl":"https://a.example","publicKey":42}"#,
        r#"{"baseUrl":"https://a.example","timeoutMs":"soon"}"#,
        r#"{"baseUrl":"https://a.example","timeoutMs":0}"#,
        r#""https://a.example""#,
    ] {
        let e = TokenpadClient::new(json(bad)).err().unwrap();
        assert_error(&e, "invalid_options", 0);
    }
    let c = client(r#"{"baseUrl":"https://a.example/","publicKey":"pk_x"}"#);
    assert_eq!(c.base_url(), "https://a.example");
    assert_eq!(c.timeout_ms(), 10_000);
}

#[wasm_bindgen_test]
async fn reads_a_token_with_exact_amounts() {
    let mock = Mock::new(&[("/token/", 200, TOKEN)]);
    let t = resolve(test_client().get_token("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()))
        .await
        .unwrap();
    assert_eq!(s(&t, "remainingAppSupply"), "149998765.432109876543210988");
    assert_eq!(s(&t, "holders.0.balance"), "1234.567890123456789012");
    assert_eq!(s(&t, "price"), "0.15");
    assert_eq!(get(&t, "imageUrl"), JsValue::NULL);
    assert_eq!(n(&t, "holdersCount"), 1.0);
    assert_eq!(
        mock.calls(),
        ["http://tokenpad.test/token/0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed?publicKey=pk_m1_test"]
    );
}

#[wasm_bindgen_test]
async fn reads_a_holder_a_balance_and_a_presale_with_encoded_paths() {
    let balance = r#"{"name":"Demo Token","symbol":"DEMO","id":"0x5a","address":"0x5a","balance":0.000000000000000001,"value":0,"lockedBalance":2}"#;
    let mock = Mock::new(&[
        ("/holder/a%20b%2Fc/token/", 200, balance),
        ("/holder/", 200, HOLDER),
        ("/token/presales/", 200, PRESALE),
    ]);
    let c = test_client();
    let h = resolve(c.get_holder("alice".into())).await.unwrap();
    assert_eq!(
        s(&h, "tokens.0.balance"),
        "9007199254740993.000000000000000001"
    );
    assert_eq!(s(&h, "locks.0.unlockDate"), "2026-11-28T12:00:00.000Z");
    assert_eq!(s(&h, "presales.0.metadata.presaleId"), "p-1");
    let b = resolve(c.get_holder_token_balance("a b/c".into(), "0x5a".into()))
        .await
        .unwrap();
    assert_eq!(s(&b, "balance"), "0.000000000000000001");
    assert_eq!(s(&b, "lockedBalance"), "2");
    let p = resolve(c.get_presale("p-1".into())).await.unwrap();
    assert_eq!(s(&p, "purchasedUsdcAmount"), "60.5");
    assert_eq!(n(&p, "startTimestamp"), 1_795_262_400.0);
    assert!(get(&p, "completionState").is_undefined());
    assert_eq!(
        mock.calls(),
        [
            "http://tokenpad.test/holder/alice?publicKey=pk_m1_test",
            "http://tokenpad.test/holder/a%20b%2Fc/token/0x5a?publicKey=pk_m1_test",
            "http://tokenpad.test/token/presales/p-1?publicKey=pk_m1_test",
        ]
    );
}

#[wasm_bindgen_test]
async fn service_errors_carry_code_status_and_message() {
    let _mock = Mock::new(&[
        (
            "/holder/nobody",
            404,
            r#"{"success":false,"message":"Holder not found","code":"holder_not_found"}"#,
        ),
        (
            "/holder/",
            401,
            r#"{"success":false,"message":"Public key not found","code":"public_key_not_found"}"#,
        ),
        ("/token/", 502, "<html>Bad gateway</html>"),
        ("/token/presales/", 200, r#"{"id":"p"}"#),
    ]);
    // No public key at all: the service's own answer comes through.
    let c = client(r#"{"baseUrl":"http://tokenpad.test"}"#);
    let e = resolve(c.get_holder("alice".into())).await.unwrap_err();
    assert_error(&e, "public_key_not_found", 401);
    assert_eq!(s(&e, "message"), "Public key not found");
    let c = test_client();
    let e = resolve(c.get_holder("nobody".into())).await.unwrap_err();
    assert_error(&e, "holder_not_found", 404);
    let e = resolve(c.get_token("0x1".into())).await.unwrap_err();
    assert_error(&e, "http_error", 502);
}

#[wasm_bindgen_test]
async fn a_malformed_answer_is_an_invalid_response() {
    let _mock = Mock::new(&[("/token/presales/", 200, r#"{"id":"p"}"#)]);
    let e = resolve(test_client().get_presale("p".into()))
        .await
        .unwrap_err();
    assert_error(&e, "invalid_response", 200);
    assert!(
        s(&e, "message").contains("name: missing"),
        "{}",
        s(&e, "message")
    );
}

#[wasm_bindgen_test]
async fn network_failures_are_network_errors() {
    // A real connection refused: nothing listens on port 9.
    let c = client(r#"{"baseUrl":"http://127.0.0.1:9","publicKey":"pk_x","timeoutMs":5000}"#);
    let e = resolve(c.get_holder("alice".into())).await.unwrap_err();
    assert_error(&e, "network_error", 0);
    assert!(s(&e, "message").starts_with("Could not reach http://127.0.0.1:9"));
    // And fetch rejecting outright (offline, CORS).
    let _mock = Mock::new(&[("/holder/", 0, "__network__")]);
    let e = resolve(test_client().get_holder("alice".into()))
        .await
        .unwrap_err();
    assert_error(&e, "network_error", 0);
}

#[wasm_bindgen_test]
async fn a_slow_service_times_out() {
    let _mock = Mock::new(&[("/holder/", 0, "__hang__")]);
    let c = client(r#"{"baseUrl":"http://tokenpad.test","publicKey":"pk_x","timeoutMs":150}"#);
    let t0 = js_sys::Date::now();
    let e = resolve(c.get_holder("alice".into())).await.unwrap_err();
    let took = js_sys::Date::now() - t0;
    assert_error(&e, "timeout", 0);
    assert!(s(&e, "message").contains("150 ms"), "{}", s(&e, "message"));
    assert!((140.0..5000.0).contains(&took), "took {took} ms");
}

type Seen = Rc<RefCell<Vec<(JsValue, JsValue)>>>;
type Callback = Closure<dyn FnMut(JsValue, JsValue)>;

fn recorder() -> (Seen, Function, Callback) {
    let seen: Seen = Rc::new(RefCell::new(Vec::new()));
    let s2 = seen.clone();
    let cb = Callback::new(move |p: JsValue, e: JsValue| {
        s2.borrow_mut().push((p, e));
    });
    let f: Function = cb.as_ref().clone().unchecked_into();
    (seen, f, cb)
}

#[wasm_bindgen_test]
async fn watch_presale_polls_until_stopped() {
    let mock = Mock::new(&[("/token/presales/", 200, PRESALE)]);
    let (seen, callback, _keep) = recorder();
    let watch = test_client().watch_presale("p-1".into(), callback, Some(250.0));
    assert!(watch.active());
    JsFuture::from(sleep(700)).await.unwrap();
    watch.stop();
    assert!(!watch.active());
    let n_stopped = seen.borrow().len();
    assert!(
        (2..=4).contains(&n_stopped),
        "{n_stopped} reads in 700 ms at 250 ms"
    );
    for (p, e) in seen.borrow().iter() {
        assert_eq!(s(p, "purchasedUsdcAmount"), "60.5");
        assert!(e.is_null());
    }
    JsFuture::from(sleep(600)).await.unwrap();
    assert_eq!(
        seen.borrow().len(),
        n_stopped,
        "a callback ran after stop()"
    );
    assert_eq!(mock.calls().len(), n_stopped);
    watch.stop(); // idempotent
}

#[wasm_bindgen_test]
async fn watch_presale_reports_errors_and_keeps_polling() {
    let _mock = Mock::new(&[(
        "/token/presales/",
        404,
        r#"{"success":false,"message":"Presale not found","code":"presale_not_found"}"#,
    )]);
    let (seen, callback, _keep) = recorder();
    let watch = test_client().watch_presale("nope".into(), callback, Some(250.0));
    JsFuture::from(sleep(400)).await.unwrap();
    watch.stop();
    let seen = seen.borrow();
    assert!(seen.len() >= 2, "{} reads", seen.len());
    let (p, e) = &seen[0];
    assert!(p.is_null());
    assert_error(e, "presale_not_found", 404);
}
