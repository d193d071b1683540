//! Amounts as the wire carries them: exact decimals in whole units.
//!
//! - [`Decimal`]: an amount in a response, written as a JSON number from its exact decimal
//!   text (serde_json's `arbitrary_precision`), so `0.1` stays `0.1` and 10^30 keeps every
//!   digit. The browser package hands the same value to JavaScript as a string (see
//!   `tokenpad::web`), where a number would lose digits past 2^53.
//! - [`AmountInput`]: an amount in a request, a JSON number or a decimal string, checked when
//!   the request is decoded (well formed, not negative, not zero). Its base units depend on
//!   the asset's decimals, so the operation converts it once it knows the token.
//! - [`Whole`]: an amount in a request whose asset is fixed by the field (USDC, a new token's
//!   supply, a price), converted to base units when decoded.

use super::amount::{format_units, Amount, AmountError, DecimalParts, Fixed};
use crate::error::{ErrorCode, FieldError};
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::str::FromStr;

/// An exact, non-negative decimal in whole units.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Decimal(String);

impl Decimal {
    /// The exact decimal of `units` base units of an asset with `decimals`.
    pub fn from_units(units: u128, decimals: u8) -> Decimal {
        Decimal(format_units(units, decimals))
    }

    /// The exact decimal of a fixed-unit amount (USDC, a USD value, a price).
    pub fn of<U: Fixed>(amount: Amount<U>) -> Decimal {
        Decimal::from_units(amount.raw(), U::DECIMALS)
    }

    /// Zero in any unit.
    pub fn zero() -> Decimal {
        Decimal("0".into())
    }

    /// Parses decimal text (`12.5`, `1e3`, `0.10`) into its plain canonical form (`12.5`,
    /// `1000`, `0.1`). None for anything that is not a non-negative decimal of at most 100
    /// digits either side of the point.
    pub fn parse(text: &str) -> Option<Decimal> {
        DecimalParts::parse(text).ok()?.to_plain(100).map(Decimal)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Base units of this decimal with `decimals` places, if it is exact at that precision.
    pub fn units(&self, decimals: u8) -> Result<u128, AmountError> {
        DecimalParts::parse(&self.0)?.units(decimals)
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({})", self.0)
    }
}

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match serde_json::Number::from_str(&self.0) {
            Ok(n) => n.serialize(serializer),
            // Unreachable: every Decimal is a valid JSON number. A string rather than a panic.
            Err(_) => serializer.serialize_str(&self.0),
        }
    }
}

impl<'de> Deserialize<'de> for Decimal {
    /// A JSON number (its exact text) or a decimal string.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = number_or_string(Value::deserialize(d)?)
            .ok_or_else(|| de::Error::custom("expected a non-negative decimal"))?;
        Decimal::parse(&text).ok_or_else(|| de::Error::custom("expected a non-negative decimal"))
    }
}

/// The text of a JSON number, or a string as given.
fn number_or_string(v: Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s),
        _ => None,
    }
}

fn invalid_amount(why: impl Into<String>) -> FieldError {
    FieldError::new(ErrorCode::InvalidAmount, why)
}

/// The most integer digits an amount string may have (openapi.json's `AmountInput` pattern).
pub const MAX_INTEGER_DIGITS: usize = 20;

/// Whether `text` is an amount string in its documented form (openapi.json's `AmountInput` and
/// `UsdcAmountInput` patterns): 1 to [`MAX_INTEGER_DIGITS`] digits, then optionally a point
/// and 1 to `max_fraction` digits. No exponent (`1e2`), sign, spaces, or point without digits
/// on both sides: a string is for exact values, written as they are.
pub fn is_plain_amount(text: &str, max_fraction: u8) -> bool {
    let digits =
        |s: &str, max: usize| (1..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    match text.split_once('.') {
        None => digits(text, MAX_INTEGER_DIGITS),
        Some((int, frac)) => {
            digits(int, MAX_INTEGER_DIGITS) && digits(frac, usize::from(max_fraction))
        }
    }
}

/// Reads an amount given as a JSON number or a decimal string: well formed, not negative,
/// not zero (no operation moves nothing). `null` is a missing field. A JSON number may take
/// any form JSON gives it (`1e2`, `100.0`); a string only the plain form ([`is_plain_amount`],
/// with at most `max_fraction` fractional digits).
fn amount_text<'de, D: Deserializer<'de>>(
    d: D,
    max_fraction: u8,
) -> Result<(String, DecimalParts, bool), D::Error> {
    let value = Value::deserialize(d)?;
    let number = value.is_number();
    let text = match value {
        Value::Null => return Err(FieldError::missing().into_de()),
        Value::String(s) if !is_plain_amount(&s, max_fraction) => {
            return Err(invalid_amount(format!(
                "must be a decimal string of 1 to {MAX_INTEGER_DIGITS} digits, then optionally a point and 1 to {max_fraction} digits (no exponent, sign or spaces), or a JSON number"
            ))
            .into_de())
        }
        v => number_or_string(v)
            .ok_or_else(|| invalid_amount("must be a number or a decimal string").into_de())?,
    };
    let parts = DecimalParts::parse(&text).map_err(|e| invalid_amount(e.describe(0)).into_de())?;
    if parts.is_zero() {
        return Err(invalid_amount("must be greater than zero").into_de());
    }
    Ok((text, parts, number))
}

/// Writes amount `text` as a JSON number (serde_json keeps a number's text), or as a string
/// when it cannot be one.
fn serialize_number<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    match serde_json::Number::from_str(text) {
        Ok(n) => n.serialize(serializer),
        Err(_) => serializer.serialize_str(text),
    }
}

/// An amount in a request, in whole units of an asset the operation determines.
#[derive(Clone, PartialEq, Eq)]
pub struct AmountInput {
    text: String,
    parts: DecimalParts,
    /// Given as a JSON number (whose text may take any form JSON gives it), not a string.
    number: bool,
}

impl AmountInput {
    /// The amount in base units of an asset with `decimals`; `field` names it in the error
    /// when it is more precise than the asset or too large.
    pub fn units(&self, field: &str, decimals: u8) -> crate::Result<u128> {
        self.parts.units(decimals).map_err(|e| {
            invalid_amount(e.describe(decimals))
                .into_error()
                .at_field(field)
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Debug for AmountInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AmountInput({})", self.text)
    }
}

impl Serialize for AmountInput {
    /// As it was given: a string as the string, a number as the number's own text (with
    /// serde_json's `arbitrary_precision`, exactly), so it reads back as it was read, across
    /// the edge-to-object hop too (`1e2` written as the string `"1e2"` would not: a string
    /// takes only the plain form).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.number {
            serialize_number(&self.text, serializer)
        } else {
            serializer.serialize_str(&self.text)
        }
    }
}

impl<'de> Deserialize<'de> for AmountInput {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // The asset is known later: a string may have as many fractional digits as any asset.
        let (text, parts, number) = amount_text(d, super::amount::TOKEN_DECIMALS)?;
        Ok(AmountInput {
            text,
            parts,
            number,
        })
    }
}

/// An amount in a request in whole units of `U` (fixed decimals), held in base units.
pub struct Whole<U: Fixed>(pub Amount<U>);

impl<U: Fixed> Whole<U> {
    pub fn amount(&self) -> Amount<U> {
        self.0
    }
}

impl<U: Fixed> Clone for Whole<U> {
    fn clone(&self) -> Self {
        Whole(self.0)
    }
}
impl<U: Fixed> PartialEq for Whole<U> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}
impl<U: Fixed> Eq for Whole<U> {}
impl<U: Fixed> fmt::Debug for Whole<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Whole({})", self.0.to_decimal_string())
    }
}

impl<U: Fixed> Serialize for Whole<U> {
    /// Its exact decimal: a string in the plain form, or, past it (more than
    /// [`MAX_INTEGER_DIGITS`] whole digits, which a JSON number may have), a number, so it
    /// always reads back.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let text = self.0.to_decimal_string();
        if is_plain_amount(&text, U::DECIMALS) {
            serializer.serialize_str(&text)
        } else {
            serialize_number(&text, serializer)
        }
    }
}

impl<'de, U: Fixed> Deserialize<'de> for Whole<U> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (_, parts, _) = amount_text(d, U::DECIMALS)?;
        let raw = parts
            .units(U::DECIMALS)
            .map_err(|e| invalid_amount(e.describe(U::DECIMALS)).into_de())?;
        Ok(Whole(Amount::new(raw)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::model::amount::unit;

    fn input(v: &str) -> Result<AmountInput, FieldError> {
        let v: Value = serde_json::from_str(v).unwrap();
        serde_json::from_value::<AmountInput>(v)
            .map_err(|e| FieldError::from_message(&e.to_string()).unwrap())
    }

    #[test]
    fn amount_inputs_accept_numbers_and_strings_and_refuse_the_rest() {
        assert_eq!(
            input("12.5").unwrap().units("amount", 6).unwrap(),
            12_500_000
        );
        assert_eq!(
            input("\"12.5\"").unwrap().units("amount", 6).unwrap(),
            12_500_000
        );
        for bad in ["0", "-1", "true", "\"abc\"", "[]", "{}", "\"0.000\""] {
            assert_eq!(
                input(bad).unwrap_err().code,
                ErrorCode::InvalidAmount,
                "{bad}"
            );
        }
        assert_eq!(input("null").unwrap_err().code, ErrorCode::InvalidRequest);
        // Precision and size depend on the asset: checked once the operation knows it.
        let too_precise = input("0.0000001").unwrap().units("amount", 6).unwrap_err();
        assert_eq!(too_precise.code, ErrorCode::InvalidAmount);
        assert_eq!(too_precise.details.unwrap()["field"], "amount");
        assert!(input("1e400").unwrap().units("amount", 6).is_err());
    }

    #[test]
    fn amount_strings_take_only_their_documented_form() {
        // A JSON number may be written as JSON writes numbers; a string only as digits.
        for number in ["1e2", "1E2", "100.0", "1.5e-3"] {
            assert!(input(number).is_ok(), "{number}");
        }
        assert_eq!(input("1e2").unwrap().units("amount", 0).unwrap(), 100);
        for ok in [
            "\"1\"",
            "\"0.5\"",
            "\"012\"",
            "\"99999999999999999999\"",
            "\"1.000000000000000001\"",
        ] {
            assert!(input(ok).is_ok(), "{ok}");
        }
        for bad in [
            "\"1e2\"",
            "\"1E2\"",
            "\"1e-2\"",
            "\"1.5e3\"",
            "\"+1\"",
            "\"-1\"",
            "\" 1\"",
            "\"1 \"",
            "\".5\"",
            "\"5.\"",
            "\"1,5\"",
            "\"0x10\"",
            "\"Infinity\"",
            "\"NaN\"",
            "\"\"",
            "\"1_000\"",
            "\"\\u0661\"",               // an Arabic-Indic digit one (JSON escape)
            "\"100000000000000000000\"", // 21 digits
            "\"1.0000000000000000001\"", // 19 fractional digits
        ] {
            assert_eq!(
                input(bad).unwrap_err().code,
                ErrorCode::InvalidAmount,
                "{bad}"
            );
        }
        // A fixed unit's strings have its decimals at most; its numbers are checked exactly.
        let usdc = |v: &str| serde_json::from_str::<Whole<unit::Usdc>>(v);
        assert_eq!(usdc("\"2.000001\"").unwrap().amount().raw(), 2_000_001);
        assert!(usdc("\"2.0000010\"").is_err());
        assert!(usdc("\"2e1\"").is_err());
        assert_eq!(usdc("2e1").unwrap().amount().raw(), 20_000_000);
    }

    #[test]
    fn request_amounts_read_back_as_they_were_read() {
        // As the edge hands a decoded request to the merchant's object: written, then read.
        for text in [
            "1e2",
            "1.5E1",
            "\"2.5\"",
            "12",
            "0.000000000000000001",
            "1e30",
        ] {
            let a = input(text).unwrap();
            let back: AmountInput =
                serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
            assert_eq!(back.units("amount", 18), a.units("amount", 18), "{text}");
        }
        for text in ["1e2", "\"2.000001\"", "123456789012345678901234.5"] {
            let w: Whole<unit::Usdc> = serde_json::from_str(text).unwrap();
            let back: Whole<unit::Usdc> =
                serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
            assert_eq!(back, w, "{text}");
        }
    }

    #[test]
    fn whole_amounts_use_their_unit() {
        let w: Whole<unit::Usdc> = serde_json::from_str("\"2.5\"").unwrap();
        assert_eq!(w.amount().raw(), 2_500_000);
        assert!(serde_json::from_str::<Whole<unit::Usdc>>("0.0000001").is_err());
    }

    #[test]
    fn decimals_are_canonical_and_written_as_numbers() {
        let d = Decimal::parse("0012.50").unwrap();
        assert_eq!(d.as_str(), "12.5");
        assert_eq!(Decimal::parse("1e3").unwrap().as_str(), "1000");
        assert_eq!(Decimal::parse("2.5e-3").unwrap().as_str(), "0.0025");
        assert_eq!(serde_json::to_string(&d).unwrap(), "12.5");
        assert_eq!(Decimal::from_units(100_000, 6).as_str(), "0.1");
        let back: Decimal = serde_json::from_str("123456789012345678901234.000001").unwrap();
        assert_eq!(back.as_str(), "123456789012345678901234.000001");
        assert!(Decimal::parse("-1").is_none());
    }
}
