//! Exact, locale-aware display of decimals.
//!
//! Rounding happens here, on the digits; the locale only decides how the already-exact digits
//! are written (grouping, separator, digit shapes). In the browser that is `Intl.NumberFormat`
//! applied to a `BigInt` (see `web.rs`), so `123456789012345678901.5` is grouped exactly;
//! natively (and in tests) it is [`PlainGrouping`], the en-US style.

use crate::decimal::{Dec, Rounding};
use serde::Deserialize;

/// How a locale writes digits.
pub trait Grouping {
    /// The integer digits (`"1234567"`, no sign) with the locale's grouping and digit shapes.
    fn integer(&self, digits: &str) -> String;
    /// The separator between integer and fraction (`"."`, `","`, `"٫"`).
    fn decimal_separator(&self) -> String;
    /// Fraction digits (`"05"`) in the locale's digit shapes.
    fn fraction(&self, digits: &str) -> String;
}

/// en-US style: `1,234,567.5`, ASCII digits.
pub struct PlainGrouping;

impl Grouping for PlainGrouping {
    fn integer(&self, digits: &str) -> String {
        let mut out = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    }

    fn decimal_separator(&self) -> String {
        ".".into()
    }

    fn fraction(&self, digits: &str) -> String {
        digits.into()
    }
}

/// How many fraction digits to show, and how to drop the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digits {
    pub min: usize,
    pub max: usize,
    pub rounding: Rounding,
}

impl Digits {
    pub const fn new(min: usize, max: usize) -> Digits {
        Digits {
            min,
            max,
            rounding: Rounding::HalfExpand,
        }
    }
}

/// `d` rounded to `digits` and written by `g`: `1234567.891, {0, 2}` is `1,234,567.89`.
pub fn format_dec(d: &Dec, digits: Digits, g: &dyn Grouping) -> String {
    let r = d.round(digits.max, digits.rounding);
    let mut frac = r.frac_digits().to_string();
    while frac.len() < digits.min {
        frac.push('0');
    }
    let int = g.integer(r.int_digits());
    if frac.is_empty() {
        int
    } else {
        format!("{int}{}{}", g.decimal_separator(), g.fraction(&frac))
    }
}

/// Options for every formatted field, as JavaScript passes them (all optional; `null` is
/// absent; a digit count is a whole number 0..=255, checked further by [`Formats`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FormatOptions {
    /// A BCP 47 locale (`"de-DE"`); the runtime's default locale when absent.
    pub locale: Option<String>,
    /// Fraction digits shown at most for token amounts (default 6).
    pub maximum_fraction_digits: Option<u8>,
    /// Fraction digits shown at least for token amounts (default 0).
    pub minimum_fraction_digits: Option<u8>,
    /// Fraction digits of USD values (default 2, always shown).
    pub value_fraction_digits: Option<u8>,
    /// `"halfExpand"` (default) or `"trunc"`.
    pub rounding_mode: Option<String>,
}

/// The most fraction digits anyone may ask for (amounts have at most 18).
pub const MAX_FRACTION_DIGITS: u8 = 40;

/// Digit rules for the three kinds of figures a view shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    pub amount: Digits,
    pub value: Digits,
    pub percent: Digits,
}

impl Default for Formats {
    fn default() -> Self {
        Formats {
            amount: Digits::new(0, 6),
            value: Digits::new(2, 2),
            percent: Digits::new(0, 2),
        }
    }
}

impl Formats {
    /// The rules `options` ask for; an error names the option that is out of range.
    pub fn from_options(o: &FormatOptions) -> Result<Formats, String> {
        let rounding = match o.rounding_mode.as_deref() {
            None | Some("halfExpand") => Rounding::HalfExpand,
            Some("trunc") => Rounding::Trunc,
            Some(other) => {
                return Err(format!(
                    "roundingMode must be \"halfExpand\" or \"trunc\", not {other:?}"
                ))
            }
        };
        let check = |name: &str, v: Option<u8>, default: u8| -> Result<usize, String> {
            let v = v.unwrap_or(default);
            if v > MAX_FRACTION_DIGITS {
                return Err(format!("{name} must be 0..={MAX_FRACTION_DIGITS}, not {v}"));
            }
            Ok(usize::from(v))
        };
        let max = check("maximumFractionDigits", o.maximum_fraction_digits, 6)?;
        let min = check("minimumFractionDigits", o.minimum_fraction_digits, 0)?;
        if min > max {
            return Err(format!(
                "minimumFractionDigits ({min}) must not exceed maximumFractionDigits ({max})"
            ));
        }
        let value = check("valueFractionDigits", o.value_fraction_digits, 2)?;
        Ok(Formats {
            amount: Digits { min, max, rounding },
            value: Digits {
                min: value,
                max: value,
                rounding,
            },
            percent: Digits {
                min: 0,
                max: 2,
                rounding,
            },
        })
    }
}

/// Writes a view's figures: the digit rules plus a locale.
pub struct Formatter<'a> {
    pub formats: Formats,
    pub grouping: &'a dyn Grouping,
}

impl Formatter<'_> {
    pub fn amount(&self, d: &Dec) -> String {
        format_dec(d, self.formats.amount, self.grouping)
    }

    pub fn value(&self, d: &Dec) -> String {
        format_dec(d, self.formats.value, self.grouping)
    }

    /// `42.5%`; a share too small to show at two decimals is `<0.01%`, never a false `0%`.
    pub fn percent(&self, d: &Dec) -> String {
        let digits = self.formats.percent;
        if !d.is_zero() && d.round(digits.max, Rounding::Trunc).is_zero() {
            let smallest = Dec::parse(&format!("0.{}1", "0".repeat(digits.max.saturating_sub(1))))
                .unwrap_or_default();
            return format!("<{}%", format_dec(&smallest, digits, self.grouping));
        }
        format!("{}%", format_dec(d, digits, self.grouping))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn d(s: &str) -> Dec {
        Dec::parse(s).unwrap()
    }

    #[test]
    fn groups_exactly_beyond_float_precision() {
        let g = PlainGrouping;
        let table = [
            ("0", Digits::new(0, 6), "0"),
            ("999", Digits::new(0, 6), "999"),
            ("1000", Digits::new(0, 6), "1,000"),
            ("1234567.891", Digits::new(0, 2), "1,234,567.89"),
            ("1234567.895", Digits::new(0, 2), "1,234,567.9"),
            ("1234567", Digits::new(2, 2), "1,234,567.00"),
            (
                "123456789012345678901.123456789012345678",
                Digits::new(0, 18),
                "123,456,789,012,345,678,901.123456789012345678",
            ),
            (
                "9007199254740993",
                Digits::new(0, 0),
                "9,007,199,254,740,993",
            ),
            ("0.0000001", Digits::new(0, 6), "0"),
            ("0.0000005", Digits::new(0, 6), "0.000001"),
        ];
        for (v, digits, want) in table {
            assert_eq!(format_dec(&d(v), digits, &g), want, "{v}");
        }
    }

    #[test]
    fn options_map_to_digit_rules() {
        assert_eq!(
            Formats::from_options(&FormatOptions::default()).unwrap(),
            Formats::default()
        );
        let f = Formats::from_options(&FormatOptions {
            maximum_fraction_digits: Some(2),
            minimum_fraction_digits: Some(1),
            value_fraction_digits: Some(4),
            rounding_mode: Some("trunc".into()),
            ..FormatOptions::default()
        })
        .unwrap();
        assert_eq!(f.amount.max, 2);
        assert_eq!(f.amount.min, 1);
        assert_eq!(f.value.min, 4);
        assert_eq!(f.amount.rounding, Rounding::Trunc);
        for bad in [
            FormatOptions {
                rounding_mode: Some("ceil".into()),
                ..FormatOptions::default()
            },
            FormatOptions {
                maximum_fraction_digits: Some(41),
                ..FormatOptions::default()
            },
            FormatOptions {
                minimum_fraction_digits: Some(3),
                maximum_fraction_digits: Some(2),
                ..FormatOptions::default()
            },
        ] {
            assert!(Formats::from_options(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn formatter_writes_amounts_values_and_percents() {
        let f = Formatter {
            formats: Formats::default(),
            grouping: &PlainGrouping,
        };
        assert_eq!(f.amount(&d("1234.5678915")), "1,234.567892");
        assert_eq!(f.value(&d("1234.5")), "1,234.50");
        assert_eq!(f.percent(&d("33.333333")), "33.33%");
        assert_eq!(f.percent(&d("0.000823")), "<0.01%");
        assert_eq!(f.percent(&d("0.005")), "<0.01%");
        assert_eq!(f.percent(&d("0")), "0%");
    }
}
