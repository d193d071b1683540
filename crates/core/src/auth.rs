//! API keys. A key names its merchant, so the edge routes a request to the merchant's Durable
//! Object without a global lookup; the object then checks the key against the SHA-256 hash it
//! stored at creation (the secret itself is never stored).
//!
//! Format: `sk_<merchantId>_<64 hex>` and `pk_<merchantId>_<32 hex>`, where merchantId is 32
//! lowercase hex characters. A merchant holds any number of each (`ops::keys`), each a record
//! named by an id derived from its hash ([`key_id`]).

use crate::crypto::sha256_hex;
use crate::model::ids::MerchantId;

pub use crate::model::key::KeyKind;

/// The kind and merchant id a key claims, if it is well formed. Claims are checked later.
pub fn parse_key(key: &str) -> Option<(KeyKind, MerchantId)> {
    let (kind, rest, secret_len) = if let Some(r) = key.strip_prefix("sk_") {
        (KeyKind::Secret, r, 64)
    } else if let Some(r) = key.strip_prefix("pk_") {
        (KeyKind::Public, r, 32)
    } else {
        return None;
    };
    let (merchant, secret) = rest.split_once('_')?;
    let hex_ok = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    let merchant = MerchantId::parse(merchant).ok()?;
    hex_ok(secret, secret_len).then_some((kind, merchant))
}

/// Whether `text` (a URL's path or query, raw or percent-decoded) carries a secret key: a
/// well-formed `sk_<32 hex>_<64 hex>` anywhere in it, in any case (`SK_`, upper-case hex:
/// hex is case-insensitive, so an upper-cased key is the whole secret still). Only the full
/// shape counts, so a userId that merely contains `sk_` (`task_force`) is not mistaken for one.
pub fn contains_secret_key(text: &str) -> bool {
    let bytes = text.as_bytes();
    let hex = |from: usize, n: usize| {
        bytes
            .get(from..from.saturating_add(n))
            .is_some_and(|s| s.iter().all(u8::is_ascii_hexdigit))
    };
    (0..bytes.len()).any(|i| {
        let at = i + 3;
        bytes
            .get(i..at)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"sk_"))
            && hex(at, 32)
            && bytes.get(at + 32) == Some(&b'_')
            && hex(at + 33, 64)
    })
}

/// Whether a URL's query value starts like a secret key (`sk_`, in any case): refused even
/// when it is not a well-formed key (a typo'd or truncated key is still most of a secret).
pub fn starts_like_secret_key(value: &str) -> bool {
    value
        .as_bytes()
        .get(..3)
        .is_some_and(|p| p.eq_ignore_ascii_case(b"sk_"))
}

/// Makes a merchant id and its two keys from 80 random bytes.
pub fn new_keys(random: &[u8; 80]) -> (MerchantId, String, String) {
    let part = |a: usize, b: usize| hex::encode(random.get(a..b).unwrap_or_default());
    let merchant = part(0, 16);
    let secret = format!("sk_{merchant}_{}", part(16, 48));
    let public = format!("pk_{merchant}_{}", part(48, 64));
    (MerchantId::new_unchecked(merchant), secret, public)
}

/// A new key of `kind` for `merchant` from 32 random bytes (a public key uses the first 16).
pub fn new_key(kind: KeyKind, merchant: &MerchantId, random: &[u8; 32]) -> String {
    match kind {
        KeyKind::Secret => format!("sk_{}_{}", merchant.as_str(), hex::encode(random)),
        KeyKind::Public => format!(
            "pk_{}_{}",
            merchant.as_str(),
            hex::encode(random.get(..16).unwrap_or_default())
        ),
    }
}

pub fn key_hash(key: &str) -> String {
    sha256_hex(key.as_bytes())
}

/// The id of the key whose hash is `hash`: `key_` and 32 hex digits of the hash's own SHA-256.
/// Derived, so a key names its record without a lookup, the keys a merchant was created with
/// get the same ids however often they are migrated, and the id says nothing of the key.
pub fn key_id(hash: &str) -> String {
    let h = sha256_hex(format!("tokenpad key id\n{hash}").as_bytes());
    format!("key_{}", h.get(..32).unwrap_or_default())
}

/// A key's last four characters, as listed (`...a1b2`).
pub fn last4(key: &str) -> String {
    let skip = key.chars().count().saturating_sub(4);
    key.chars().skip(skip).collect()
}

/// Compares two hex hashes without an early exit, so timing says nothing about the key.
pub fn hashes_equal(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_their_merchant() {
        let (m, sk, pk) = new_keys(&[7u8; 80]);
        assert_eq!(parse_key(&sk), Some((KeyKind::Secret, m.clone())));
        assert_eq!(parse_key(&pk), Some((KeyKind::Public, m.clone())));
        assert!(parse_key("sk_abc").is_none());
        assert!(parse_key(&sk[..sk.len() - 1]).is_none());
        assert!(parse_key(&sk.replacen("sk_", "pk_", 1)).is_none());
        assert!(parse_key("").is_none());
        assert!(hashes_equal(&key_hash(&sk), &key_hash(&sk)));
        assert!(!hashes_equal(&key_hash(&sk), &key_hash(&pk)));
        let made = new_key(KeyKind::Public, &m, &[0xab; 32]);
        assert_eq!(parse_key(&made), Some((KeyKind::Public, m.clone())));
        let made = new_key(KeyKind::Secret, &m, &[0xab; 32]);
        assert_eq!(parse_key(&made), Some((KeyKind::Secret, m)));
        assert_eq!(last4(&made), "abab");
        let id = key_id(&key_hash(&made));
        assert!(id.starts_with("key_") && id.len() == 36);
        assert_ne!(id, key_id(&key_hash(&sk)));
    }

    #[test]
    fn finds_a_secret_key_anywhere_in_text() {
        let (_, sk, pk) = new_keys(&[9u8; 80]);
        assert!(contains_secret_key(&sk));
        assert!(contains_secret_key(&format!("/holder/{sk}")));
        assert!(contains_secret_key(&format!("/holder/x{sk}y/token")));
        assert!(contains_secret_key(&format!("a=1&sk_=sk_&b={sk}")));
        assert!(contains_secret_key(
            &sk.to_uppercase().replacen("SK_", "sk_", 1)
        ));
        // In any case: the whole key upper-cased, or only its prefix.
        assert!(contains_secret_key(&sk.to_uppercase()));
        assert!(contains_secret_key(&format!(
            "/holder/{}",
            sk.replacen("sk_", "Sk_", 1)
        )));
        assert!(contains_secret_key(&format!(
            "a={}",
            sk.replacen("sk_", "sK_", 1)
        )));
        assert!(starts_like_secret_key("SK_typo"));
        assert!(starts_like_secret_key("sk_"));
        assert!(!starts_like_secret_key("desk_sk_1"));
        assert!(!starts_like_secret_key("s"));
        assert!(!contains_secret_key(&pk));
        assert!(!contains_secret_key("/holder/task_force/token/sk_"));
        assert!(!contains_secret_key(&sk[..sk.len() - 1]));
        assert!(!contains_secret_key(""));
        assert!(!contains_secret_key("sk_sk_sk_"));
        assert!(!contains_secret_key("ユsk_ユ"));
    }
}
