//! The client: reads over `fetch`, errors, timeouts, watching a presale.

use crate::*;
use js_sys::Function;
use std::cell::RefCell;
use std::rc::Rc;
use tokenpad::web::TokenpadClient;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

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
    let balance = r#"{"name":"Demo Token","symbol":"DEMO","id":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","address":"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed","balance":0.000000000000000001,"value":0,"lockedBalance":2,"decimals":18}"#;
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
