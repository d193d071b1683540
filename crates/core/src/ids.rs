//! Identifiers. Fresh ids are made from random bytes the shell passes in.

use crate::error::{Error, ErrorCode, Result};

/// A version-4 UUID from 16 random bytes (version and variant bits set here).
pub fn uuid_v4(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let h = hex::encode(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
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

/// A merchant's external id for one of its users: 1 to 128 printable characters (after URL
/// decoding), no control characters. Spaces inside are allowed; it is the merchant's id.
pub fn validate_user_id(user_id: &str) -> Result<()> {
    let len = user_id.chars().count();
    if len == 0 || len > 128 || user_id.chars().any(char::is_control) {
        return Err(Error::new(
            ErrorCode::InvalidUserId,
            "userId must be 1 to 128 printable characters",
        ));
    }
    Ok(())
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
        ] {
            assert!(validate_user_id(ok).is_ok(), "{ok}");
        }
        for bad in ["", &"x".repeat(129), "a\nb", "\u{0}"] {
            assert_eq!(
                validate_user_id(bad).unwrap_err().code,
                ErrorCode::InvalidUserId
            );
        }
    }
}
