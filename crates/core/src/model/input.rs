//! The field types requests are made of. Each checks itself while the request is decoded, so
//! a request that decodes is well formed; a field that is not becomes a 400 naming it
//! (`crate::wire::decode` adds the field's path to the message and `details.field`).
//!
//! - [`Text`]: free text shown to people (names, descriptions), at most `MAX` characters that
//!   render as themselves (`super::printable`); [`NonBlank`]: a string read further elsewhere;
//! - [`Symbol`]: a ticker, 1 to 11 ASCII letters or digits;
//! - [`HttpUrl`]: an http(s) URL (a webhook's, checked further where it is used);
//! - [`ImageUrl`]: a token's image, a real http(s) URL in plain URL characters;
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

/// Free text shown to people (a name, a description, a link): 1 to `MAX` characters that
/// render as themselves (`super::printable::display_text`: no control, format, invisible or
/// noncharacter code point, and not only whitespace or invisible characters). `LINES`: it may
/// span lines (a description). Empty or longer than `MAX`: 400 `invalid_request` (a field's
/// size, as every field's); any other failure: 400 `invalid_text`. Kept exactly as sent.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Text<const MAX: usize, const LINES: bool = false>(String);

/// Free text that may span lines (a description).
pub type Prose<const MAX: usize> = Text<MAX, true>;

impl<const MAX: usize, const LINES: bool> Text<MAX, LINES> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    fn check(s: String) -> std::result::Result<Self, FieldError> {
        if s.is_empty() {
            return Err(invalid("must not be empty"));
        }
        if s.chars().count() > MAX {
            return Err(invalid(format!("must be at most {MAX} characters")));
        }
        super::printable::display_text(&s, LINES)
            .map_err(|why| FieldError::new(ErrorCode::InvalidText, why))?;
        Ok(Text(s))
    }

    /// Checks text from outside that is not part of a JSON body (a query parameter).
    pub fn parse(field: &str, s: &str) -> Result<Self> {
        Text::check(s.to_string()).map_err(|e| e.into_error().at_field(field))
    }
}

impl<const MAX: usize, const LINES: bool> fmt::Debug for Text<MAX, LINES> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl<const MAX: usize, const LINES: bool> Serialize for Text<MAX, LINES> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de, const MAX: usize, const LINES: bool> Deserialize<'de> for Text<MAX, LINES> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Text::check(string(d)?).map_err(FieldError::into_de)
    }
}

/// A token's name: 1 to 64 characters (every flow that makes a token shares the rule).
pub type TokenName = Text<64>;

/// A non-blank string of any length, not shown as text but read further where it is used (an
/// address, or else a userId, with their own rules and codes).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct NonBlank(String);

impl NonBlank {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for NonBlank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for NonBlank {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for NonBlank {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = string(d)?;
        if s.trim().is_empty() {
            return Err(invalid("must not be empty").into_de());
        }
        Ok(NonBlank(s))
    }
}

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

/// A token's image: a real http(s) URL, as dashboards and wallets will show and fetch it. At
/// most [`ImageUrl::MAX`] bytes of RFC 3986's characters only (letters, digits and
/// `-._~:/?#[]@!$&()*+,;=%`, each `%` starting an escape): no control or format characters,
/// spaces, quotes, angle brackets or other text a page could misread; a non-ASCII host goes
/// in its punycode form, other text percent-encoded. It must parse as a URL with an http(s)
/// scheme and a host, and without credentials (`user:pass@` would be shown to everyone).
/// Any failure: 400 `invalid_image_url`. Kept exactly as sent.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ImageUrl(String);

impl ImageUrl {
    pub const MAX: usize = 2048;

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// Checks an image URL; the reason it is refused, if it is.
    pub fn check(text: &str) -> std::result::Result<(), &'static str> {
        if text.len() > Self::MAX {
            return Err("must be at most 2048 bytes");
        }
        let allowed = |b: u8| b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&()*+,;=%".contains(&b);
        if !text.bytes().all(allowed) {
            return Err("must contain only URL characters (no spaces, quotes, angle brackets, control or non-ASCII characters: percent-encode them)");
        }
        let bytes = text.as_bytes();
        let escapes_ok = bytes.iter().enumerate().all(|(i, b)| {
            *b != b'%'
                || bytes
                    .get(i + 1..i + 3)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
        });
        if !escapes_ok {
            return Err("has a % that does not start a %XX escape");
        }
        // `scheme://host` literally: a WHATWG parser also reads `https:host` and `https:///host`.
        let lower = text.to_ascii_lowercase();
        let authority = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"));
        if !authority.is_some_and(|a| !a.is_empty() && !a.starts_with('/')) {
            return Err("must be an absolute http(s) URL (http:// or https:// and a host)");
        }
        let url = url::Url::parse(text).map_err(|_| "must be an absolute http(s) URL")?;
        if url.host_str().is_none_or(str::is_empty) {
            return Err("must have a host");
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("must not carry credentials (user:password@)");
        }
        Ok(())
    }
}

impl fmt::Debug for ImageUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl Serialize for ImageUrl {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ImageUrl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = string(d)?;
        if s.is_empty() {
            return Err(FieldError::new(ErrorCode::InvalidImageUrl, "must not be empty").into_de());
        }
        ImageUrl::check(&s)
            .map_err(|why| FieldError::new(ErrorCode::InvalidImageUrl, why).into_de())?;
        Ok(ImageUrl(s))
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
    use super::*;
    use serde_json::from_str;

    fn image(text: &str) -> std::result::Result<ImageUrl, ErrorCode> {
        serde_json::from_value::<ImageUrl>(Value::String(text.into())).map_err(|e| {
            FieldError::from_message(&e.to_string()).map_or(ErrorCode::Internal, |fe| fe.code)
        })
    }

    #[test]
    fn image_urls_are_real_http_urls_in_url_characters() {
        for ok in [
            "https://example.com/moon.png",
            "http://cdn.example.com:8080/a/b.png?size=64&v=2#x",
            "HTTPS://Example.com",
            "https://xn--r8jz45g.jp/%E7%94%BB%E5%83%8F.png",
            "https://[2606:4700::1111]/i.png",
            &format!("https://a.com/{}", "x".repeat(2048 - 14)),
        ] {
            assert_eq!(image(ok).unwrap().as_str(), ok, "{ok}");
        }
        for bad in [
            "",
            " ",
            "moon.png",
            "ftp://example.com/moon.png",
            "javascript:alert(1)",
            "data:image/png;base64,AAAA",
            "https://",
            "https:///path",
            "https:example.com/x.png",
            "https:/example.com/x.png",
            "https://user:pw@example.com/x.png",
            "https://example.com/a\u{0}b.png",
            "https://example.com/a\u{7}.png",
            "https://example.com/a\u{85}.png",
            "https://example.com/\"onerror=\"x.png",
            "https://example.com/<script>.png",
            "https://example.com/it's.png",
            "https://example.com/a b.png",
            "https://example.com/a\\b.png",
            "https://example.com/\u{202e}gnp.exe",
            "https://例え.jp/x.png",
            "https://example.com/%zz.png",
            "https://example.com/%4",
            &format!("https://a.com/{}", "x".repeat(2048 - 13)),
        ] {
            assert_eq!(
                image(bad).unwrap_err(),
                ErrorCode::InvalidImageUrl,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn free_text_refuses_what_does_not_render_as_itself_with_its_own_code() {
        fn code<T: serde::de::DeserializeOwned>(text: &str) -> Option<ErrorCode> {
            serde_json::from_value::<T>(Value::String(text.into()))
                .err()
                .map(|e| {
                    FieldError::from_message(&e.to_string())
                        .map_or(ErrorCode::Internal, |fe| fe.code)
                })
        }
        assert_eq!(code::<TokenName>("Moon ❤\u{FE0F}"), None);
        assert_eq!(code::<Prose<50>>("Two\nlines"), None);
        // Empty or too long: the field's size, as before.
        assert_eq!(code::<TokenName>(""), Some(ErrorCode::InvalidRequest));
        assert_eq!(
            code::<TokenName>(&"x".repeat(65)),
            Some(ErrorCode::InvalidRequest)
        );
        // What it holds: its own code.
        for bad in [
            "   ",
            "a\u{0}b",
            "\u{1b}[2J",
            "a\u{202e}b",
            "a\u{200b}",
            "\u{3164}",
            "Two\nlines",
        ] {
            assert_eq!(
                code::<TokenName>(bad),
                Some(ErrorCode::InvalidText),
                "{bad:?}"
            );
        }
        assert_eq!(code::<Prose<50>>("a\u{7}b"), Some(ErrorCode::InvalidText));
        // Read further elsewhere, not as text: only non-blank.
        assert!(serde_json::from_value::<NonBlank>(Value::String("a\u{202e}b".into())).is_ok());
    }

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
