#![allow(clippy::unwrap_used)]

use super::*;

fn d(s: &str) -> Dec {
    Dec::parse(s).unwrap()
}

#[test]
fn parses_and_normalizes() {
    let table = [
        ("0", "0"),
        ("000", "0"),
        ("0.0", "0"),
        ("12", "12"),
        ("012.500", "12.5"),
        ("12.345678901234567891", "12.345678901234567891"),
        ("1e3", "1000"),
        ("1E+3", "1000"),
        ("1.5e-7", "0.00000015"),
        ("2.5E-1", "0.25"),
        ("1e21", "1000000000000000000000"),
        ("123.456e1", "1234.56"),
        ("123.456e-3", "0.123456"),
        (
            "340282366920938463463374607431768211456.5",
            "340282366920938463463374607431768211456.5",
        ),
    ];
    for (input, want) in table {
        assert_eq!(d(input).to_string(), want, "{input}");
    }
    for bad in [
        "", "-1", "+1", ".5", "5.", "1.2.3", " 1", "1 ", "NaN", "Infinity", "0x10", "1e", "1e+",
        "1e9999", "abc", "1,5",
    ] {
        assert_eq!(Dec::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn orders_numerically() {
    let mut v: Vec<Dec> = ["10", "9.99", "0.1", "0.09", "100", "0", "9.990001"]
        .iter()
        .map(|s| d(s))
        .collect();
    v.sort();
    let got: Vec<String> = v.iter().map(ToString::to_string).collect();
    assert_eq!(got, ["0", "0.09", "0.1", "9.99", "9.990001", "10", "100"]);
    assert_eq!(d("1.50"), d("1.5"));
}

#[test]
fn adds_and_subtracts_exactly() {
    assert_eq!(d("0.1").add(&d("0.2")).to_string(), "0.3");
    assert_eq!(d("999.999").add(&d("0.001")).to_string(), "1000");
    assert_eq!(
        d("9007199254740993")
            .add(&d("0.000000000000000001"))
            .to_string(),
        "9007199254740993.000000000000000001"
    );
    assert_eq!(d("1000").saturating_sub(&d("0.001")).to_string(), "999.999");
    assert_eq!(d("1").saturating_sub(&d("2")).to_string(), "0");
    assert_eq!(d("5").saturating_sub(&d("5")).to_string(), "0");
    assert_eq!(d("12.5").mul_small(7).to_string(), "87.5");
    assert_eq!(d("100").mul_small(7).shift_down(1).to_string(), "70");
    assert_eq!(d("0.3").shift_down(2).to_string(), "0.003");
}

#[test]
fn percentages() {
    assert_eq!(d("30").percent_of(&d("100")).unwrap().to_string(), "30");
    assert_eq!(d("1").percent_of(&d("3")).unwrap().to_string(), "33.333333");
    assert_eq!(d("0.5").percent_of(&d("2")).unwrap().to_string(), "25");
    assert_eq!(d("1").percent_of(&d("0")), None);
    // Far beyond u128: still right to the displayed digits.
    let big = d("123456789012345678901234567890123456789012345678.9");
    assert_eq!(big.percent_of(&big.mul_small(4)).unwrap().to_string(), "25");
}

#[test]
fn floats_for_bars() {
    assert_eq!(d("33.333333").to_f64_2dp(), 33.33);
    assert_eq!(d("99.995").to_f64_2dp(), 100.0);
    assert_eq!(d("0").to_f64_2dp(), 0.0);
    assert_eq!(d("12").to_f64_2dp(), 12.0);
}

#[test]
fn rounds_for_display() {
    let table = [
        ("1.2345", 2, Rounding::HalfExpand, "1.23"),
        ("1.235", 2, Rounding::HalfExpand, "1.24"),
        ("1.235", 2, Rounding::Trunc, "1.23"),
        ("9.999", 2, Rounding::HalfExpand, "10"),
        ("0.5", 0, Rounding::HalfExpand, "1"),
        ("0.4", 0, Rounding::HalfExpand, "0"),
        ("12", 2, Rounding::HalfExpand, "12"),
        ("0.000000000000000001", 6, Rounding::HalfExpand, "0"),
    ];
    for (v, digits, mode, want) in table {
        assert_eq!(d(v).round(digits, mode).to_string(), want, "{v} {digits}");
    }
}

#[test]
fn reads_exact_json_numbers_and_strings() {
    #[derive(Deserialize)]
    struct T {
        a: Dec,
        b: Dec,
        c: Option<Dec>,
        e: Dec,
    }
    let t: T = serde_json::from_str(
        r#"{"a": 12.345678901234567891, "b": "0.1", "c": null, "e": 123456789012345678901234567890}"#,
    )
    .unwrap();
    assert_eq!(t.a.to_string(), "12.345678901234567891");
    assert_eq!(t.b.to_string(), "0.1");
    assert_eq!(t.c, None);
    assert_eq!(t.e.to_string(), "123456789012345678901234567890");
    assert!(serde_json::from_str::<T>(r#"{"a": -1, "b": 1, "c": 1, "e": 1}"#).is_err());
    assert!(serde_json::from_str::<T>(r#"{"a": "x", "b": 1, "c": 1, "e": 1}"#).is_err());
    assert_eq!(serde_json::to_string(&d("0.10")).unwrap(), r#""0.1""#);
}
