//! The field types requests are made of. Each checks itself while the request is decoded, so
//! a request that decodes is well formed; a field that is not becomes a 400 naming it
//! (`crate::wire::decode` adds the field's path to the message and `details.field`).
//!
//! - [`Text`]: a non-blank string of at most `MAX` characters;
//! - [`Symbol`]: a ticker, 1 to 11 ASCII letters or digits;
//! - [`HttpUrl`]: an http(s) URL;
//! - [`Int`]: a whole number in `MIN..=MAX`.
//!
//! Amounts are in `super::decimal`, addresses and ids in their own modules. A request type
//! whose rules span fields implements [`Checked`].

use crate::error::{ErrorCode, FieldError, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// Rules across a request's fields, checked right after its fields decode.
pub trait Checked {
    fn check(&self) -> Result<()> {
        Ok(())
    }
}

fn invalid(why: impl Into<String>) -> FieldError {
    FieldError::new(ErrorCode::InvalidRequest, why)
}

/// A string field: absent or null is missing, any other JSON type is refused.
fn string<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        Value::Null => Err(FieldError::missing().into_de()),
        _ => Err(FieldError::expected("a string").into_de()),
    }
}

/// A non-blank string of at most `MAX` characters.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Text<const MAX: usize>(String);

impl<const MAX: usize> Text<MAX> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    fn check(s: String) -> std::result::Result<Self, FieldError> {
        if s.trim().is_empty() {
            return Err(invalid("must not be empty"));
        }
        if s.chars().count() > MAX {
            return Err(invalid(format!("must be at most {MAX} characters")));
        }
        Ok(Text(s))
    }

    /// Checks text from outside that is not part of a JSON body (a query parameter).
    pub fn parse(field: &str, s: &str) -> Result<Self> {
        Text::check(s.to_string()).map_err(|e| e.into_error().at_field(field))
    }
}

impl<const MAX: usize> fmt::Debug for Text<MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl<const MAX: usize> Serialize for Text<MAX> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Text::check(string(d)?).map_err(FieldError::into_de)
    }
}

/// A token's name: 1 to 64 characters (every flow that makes a token shares the rule).
pub type TokenName = Text<64>;

/// A non-blank string of any length (checked further where it is used).
pub type NonBlank = Text<{ usize::MAX }>;

/// A token's ticker: 1 to 11 ASCII letters or digits.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Symbol(String);

impl Symbol {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for Symbol {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Symbol {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = string(d)?;
        if s.trim().is_empty() {
            return Err(invalid("must not be empty").into_de());
        }
        if s.len() > 11 || !s.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(invalid("must be 1 to 11 letters or digits").into_de());
        }
        Ok(Symbol(s))
    }
}

/// An http(s) URL, loosely checked: scheme, a host, no whitespace, at most 2048 bytes.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct HttpUrl(String);

impl HttpUrl {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    fn valid(url: &str) -> bool {
        let rest = url
            .strip_prefix("https://")
            .or_else(|| url.strip_prefix("http://"));
        matches!(rest, Some(r) if !r.is_empty()
            && !r.starts_with('/')
            && !url.chars().any(char::is_whitespace)
            && url.len() <= 2048)
    }
}

impl fmt::Debug for HttpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for HttpUrl {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for HttpUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = string(d)?;
        if s.trim().is_empty() {
            return Err(invalid("must not be empty").into_de());
        }
        if !HttpUrl::valid(&s) {
            return Err(invalid("must be an http(s) URL").into_de());
        }
        Ok(HttpUrl(s))
    }
}

/// A whole number in `MIN..=MAX`, given as a JSON number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Int<const MIN: u64, const MAX: u64>(u64);

impl<const MIN: u64, const MAX: u64> Int<MIN, MAX> {
    pub fn get(self) -> u64 {
        self.0
    }

    fn out_of_range() -> FieldError {
        invalid(format!("must be a whole number from {MIN} to {MAX}"))
    }

    /// Checks a number from outside that is not part of a JSON body (a query parameter).
    pub fn parse(field: &str, s: &str) -> Result<Self> {
        match s.parse::<u64>() {
            Ok(v) if (MIN..=MAX).contains(&v) => Ok(Int(v)),
            _ => Err(Self::out_of_range().into_error().at_field(field)),
        }
    }
}

impl<const MIN: u64, const MAX: u64> fmt::Debug for Int<MIN, MAX> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl<const MIN: u64, const MAX: u64> Serialize for Int<MIN, MAX> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl<'de, const MIN: u64, const MAX: u64> Deserialize<'de> for Int<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        match Value::deserialize(d)? {
            // A whole value written with a fraction or an exponent (`900.0`, `9e2`) is whole:
            // JSON Schema's `integer` says so, and clients' number types write it that way.
            Value::Number(n) => match crate::model::arith::parse_units(&n.to_string(), 0)
                .ok()
                .and_then(|v| u64::try_from(v).ok())
            {
                Some(v) if (MIN..=MAX).contains(&v) => Ok(Int(v)),
                _ => Err(Self::out_of_range().into_de()),
            },
            Value::Null => Err(FieldError::missing().into_de()),
            _ => Err(FieldError::expected("a number").into_de()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Int;
    use serde_json::{from_str, Value};

    #[test]
    fn a_whole_number_is_whole_however_json_writes_it() {
        let read = |text: &str| {
            serde_json::from_value::<Int<60, 86_400>>(from_str::<Value>(text).unwrap())
        };
        for text in ["900", "900.0", "9e2", "9.00E2"] {
            assert_eq!(read(text).unwrap().0, 900, "{text}");
        }
        for text in ["900.5", "59", "86401", "-900", "1e400"] {
            assert!(read(text).is_err(), "{text}");
        }
    }
}
