//! Formatting through Intl, and countdowns.

use crate::*;
use tokenpad::web::{countdown, format_units};

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
