//! A request's parts as the edge received them, and the typed values its path parameters,
//! query and body decode into: what each family's `decode` reads.

use super::decode;
use crate::error::{Error, ErrorCode, Result};
use crate::model::ids::{TokenAddress, UserId};
use crate::model::input::Checked;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;

/// A request's parts, as the edge received them.
pub struct Parts<'a> {
    /// Path parameters as sent (percent-encoded), in the pattern's order.
    pub params: &'a [String],
    /// Query parameters; with a name repeated, the first value counts.
    pub query: &'a BTreeMap<String, String>,
    /// The body parsed once (`decode::parse_json`); `Null` when there is none.
    pub body: &'a Value,
}

impl Parts<'_> {
    pub fn raw(&self, i: usize) -> Result<&str> {
        self.params
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| Error::internal("missing path parameter"))
    }

    pub fn user(&self, i: usize) -> Result<UserId> {
        let text = percent_decode(self.raw(i)?).ok_or_else(bad_user_id)?;
        UserId::parse(&text)
    }

    pub fn token(&self, i: usize) -> Result<TokenAddress> {
        let text = percent_decode(self.raw(i)?).ok_or_else(|| {
            Error::new(ErrorCode::InvalidAddress, "is not a valid address").at_field("tokenAddress")
        })?;
        TokenAddress::parse("tokenAddress", &text)
    }

    /// An id path parameter: any text (an unknown one is simply not found).
    pub fn id(&self, i: usize, name: &str) -> Result<String> {
        percent_decode(self.raw(i)?).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidRequest,
                "is not valid percent-encoded UTF-8",
            )
            .at_field(name)
        })
    }

    pub fn query(&self, name: &str) -> Option<&str> {
        self.query.get(name).map(String::as_str)
    }

    pub fn body<T: DeserializeOwned + Checked>(&self) -> Result<T> {
        decode::body(self.body)
    }

    /// The query parameters decoded as a request (each value a string).
    pub fn query_as<T: DeserializeOwned + Checked>(&self) -> Result<T> {
        let object: serde_json::Map<String, Value> = self
            .query
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        decode::body(&Value::Object(object))
    }
}

pub fn bad_user_id() -> Error {
    Error::new(
        ErrorCode::InvalidUserId,
        "userId must be 1 to 128 printable characters",
    )
}

/// Decodes a path segment's %XX escapes strictly: a malformed escape or bytes that are not
/// UTF-8 are refused (None), never passed on as the undecoded text.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
        }
    }
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(|c| c.into_owned())
}
