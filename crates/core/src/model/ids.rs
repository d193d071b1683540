//! Identifiers, one type each, so a presale id can never be passed where a job id belongs.
//! Fresh ids are made from random bytes the shell passes in.

use super::address::Address;
use crate::error::{Error, ErrorCode, FieldError, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A string id: `as_str`, `Display`, and serde as the bare string. `$check` validates text
/// from outside (a path segment, a request field): it returns the error's code and message.
macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident, $check:expr) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Checks text from outside (a path segment or a request field).
            pub fn parse(text: &str) -> Result<$name> {
                let check: fn(&str) -> std::result::Result<(), (ErrorCode, &'static str)> = $check;
                match check(text) {
                    Ok(()) => Ok($name(text.to_string())),
                    Err((code, why)) => Err(Error::new(code, why)),
                }
            }

            /// An id the service made itself (or read back from its own storage).
            pub fn new_unchecked(text: impl Into<String>) -> $name {
                $name(text.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let text = text_field(d)?;
                let check: fn(&str) -> std::result::Result<(), (ErrorCode, &'static str)> = $check;
                match check(&text) {
                    Ok(()) => Ok($name(text)),
                    Err((code, why)) => Err(FieldError::new(code, why).into_de()),
                }
            }
        }
    };
}

/// A string field: absent or null is missing, another JSON type is refused.
fn text_field<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Null => Err(FieldError::missing().into_de()),
        _ => Err(FieldError::expected("a string").into_de()),
    }
}

/// Ids the service made (UUIDs): any text is looked up, and an unknown one is not found.
fn any(_: &str) -> std::result::Result<(), (ErrorCode, &'static str)> {
    Ok(())
}

string_id!(
    /// A merchant's external id for one of its users: 1 to 128 printable characters (after
    /// URL decoding), not all of them whitespace. Spaces inside are allowed (it is the
    /// merchant's id); control, format (bidi overrides, zero-width characters), line and
    /// paragraph separator characters and Unicode noncharacters are not: each would make one
    /// id look like another, or like nothing, in a dashboard (`model::printable`).
    UserId,
    |s| {
        let len = s.chars().count();
        if len == 0
            || len > 128
            || s.chars().all(char::is_whitespace)
            || !s.chars().all(super::printable::is_printable)
        {
            Err((
                ErrorCode::InvalidUserId,
                "userId must be 1 to 128 printable characters, not all of them spaces (no control, format or noncharacter code points)",
            ))
        } else {
            Ok(())
        }
    }
);

string_id!(
    /// A merchant: 32 lowercase hex characters (also the middle of its API keys).
    MerchantId,
    |s| {
        if s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(())
        } else {
            Err((ErrorCode::MerchantNotFound, "No such merchant"))
        }
    }
);

string_id!(
    /// A presale (a UUID). Lookups of any other text simply find nothing.
    PresaleId,
    any
);

string_id!(
    /// A token-creation job (a UUID).
    JobId,
    any
);

string_id!(
    /// A memecoin or airdrop deployment (a UUID).
    DeploymentId,
    any
);

string_id!(
    /// A lock of presale tokens: `<presaleId>:<participant index>`.
    LockId,
    any
);

string_id!(
    /// A webhook endpoint of a merchant: `wh_` and 32 hex characters.
    WebhookId,
    any
);

impl UserId {
    /// Whether `text` is a valid userId.
    pub fn is_valid(text: &str) -> bool {
        UserId::parse(text).is_ok()
    }
}

impl MerchantId {
    pub fn is_valid(text: &str) -> bool {
        MerchantId::parse(text).is_ok()
    }
}

impl PresaleId {
    /// The lock of the `index`th participant of this presale.
    pub fn lock(&self, index: usize) -> LockId {
        LockId(format!("{}:{index}", self.0))
    }
}

/// A token's contract address. A distinct type from a wallet's [`Address`], so a balance is
/// never looked up with its two addresses swapped.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TokenAddress(pub Address);

impl TokenAddress {
    pub fn address(self) -> Address {
        self.0
    }

    pub fn to_checksum(self) -> String {
        self.0.to_checksum()
    }

    /// Parses a token address from outside (a path segment, a query parameter).
    pub fn parse(field: &str, text: &str) -> Result<TokenAddress> {
        Address::parse_field(field, text).map(TokenAddress)
    }
}

impl fmt::Display for TokenAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for TokenAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token{:?}", self.0)
    }
}

/// A version-4 UUID from 16 random bytes (version and variant bits set here).
pub fn uuid_v4(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let h = hex::encode(bytes);
    let part = |a: usize, b: usize| h.get(a..b).unwrap_or_default();
    format!(
        "{}-{}-{}-{}-{}",
        part(0, 8),
        part(8, 12),
        part(12, 16),
        part(16, 20),
        part(20, 32)
    )
}

/// Whether `s` has the shape of a UUID (any version), case-insensitively.
pub fn is_uuid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let lens = [8, 4, 4, 4, 12];
    parts.len() == 5
        && parts
            .iter()
            .zip(lens)
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn uuids_have_version_and_variant() {
        let id = uuid_v4([0xff; 16]);
        assert_eq!(id, "ffffffff-ffff-4fff-bfff-ffffffffffff");
        assert!(is_uuid(&id));
        assert!(!is_uuid("not-a-uuid"));
        assert!(is_uuid(&uuid_v4([0; 16])));
    }

    #[test]
    fn user_ids() {
        for ok in [
            "a",
            "user 1",
            "alice@example.com",
            &"x".repeat(128),
            "ユーザー",
            " alice ",
            "🚀 rocket",
        ] {
            assert!(UserId::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            &"x".repeat(129),
            "a\nb",
            "\u{0}",
            " ",
            "\t \u{3000}",
            "\u{a0}",
            "a\u{202e}b",
            "\u{2066}x",
            "a\u{200b}",
            "\u{200d}",
            "\u{feff}alice",
            "a\u{fdd0}",
            "a\u{fffe}",
            "\u{10ffff}",
            "\u{e0041}",
            "a\u{2028}b",
            "\u{85}",
        ] {
            assert_eq!(
                UserId::parse(bad).unwrap_err().code,
                ErrorCode::InvalidUserId
            );
        }
    }

    #[test]
    fn ids_decode_with_field_errors() {
        let err = serde_json::from_str::<UserId>("\"a\\u0000b\"").unwrap_err();
        let fe = FieldError::from_message(&err.to_string()).unwrap();
        assert_eq!(fe.code, ErrorCode::InvalidUserId);
        let err = serde_json::from_value::<PresaleId>(serde_json::json!(5)).unwrap_err();
        assert_eq!(
            FieldError::from_message(&err.to_string()).unwrap().why,
            "must be a string"
        );
    }
}
