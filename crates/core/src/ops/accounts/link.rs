//! Opaque secrets handed to a person: the links of mails (verification, reset, invitation) and
//! the login cookie. Each is `<object id>.<64 hex random>`: the object id (64 hex, the
//! account's Durable Object, which is named by the email) routes it without a lookup and says
//! nothing of the email; the random part is the secret. Only its SHA-256 is stored, so a
//! stolen database opens no account. Links are single use and expire (`model::account`).

use crate::crypto::sha256_hex;

/// A new secret for the object `object` from 32 random bytes.
pub fn new(object: &str, random: &[u8; 32]) -> String {
    format!("{object}.{}", hex::encode(random))
}

/// The object a secret names, if it has the shape of one (64 hex, a dot, 64 hex).
pub fn object_of(secret: &str) -> Option<&str> {
    let (object, rest) = secret.split_once('.')?;
    let hex64 = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hex64(object) && hex64(rest)).then_some(object)
}

/// What is stored of a secret: its SHA-256, with a label per use so one kind never opens
/// another.
pub fn hash(kind: &str, secret: &str) -> String {
    sha256_hex(format!("tokenpad {kind}\n{secret}").as_bytes())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn secrets_name_their_object() {
        let object = "ab".repeat(32);
        let s = new(&object, &[1; 32]);
        assert_eq!(object_of(&s), Some(object.as_str()));
        assert_eq!(object_of("x.y"), None);
        assert_eq!(object_of(&s[..s.len() - 1]), None);
        assert_ne!(hash("verify", &s), hash("reset", &s));
        assert_eq!(hash("verify", &s).len(), 64);
    }
}
