//! API keys. A key names its merchant, so the edge routes a request to the merchant's Durable
//! Object without a global lookup; the object then checks the key against the SHA-256 hash it
//! stored at creation (the secret itself is never stored).
//!
//! Format: `sk_<merchantId>_<64 hex>` and `pk_<merchantId>_<32 hex>`, where merchantId is 32
//! lowercase hex characters.

use crate::crypto::sha256_hex;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Secret,
    Public,
}

/// The kind and merchant id a key claims, if it is well formed. Claims are checked later.
pub fn parse_key(key: &str) -> Option<(KeyKind, String)> {
    let (kind, rest, secret_len) = if let Some(r) = key.strip_prefix("sk_") {
        (KeyKind::Secret, r, 64)
    } else if let Some(r) = key.strip_prefix("pk_") {
        (KeyKind::Public, r, 32)
    } else {
        return None;
    };
    let (merchant, secret) = rest.split_once('_')?;
    let hex_ok = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    (is_merchant_id(merchant) && hex_ok(secret, secret_len)).then(|| (kind, merchant.to_string()))
}

pub fn is_merchant_id(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Makes a merchant id and its two keys from 80 random bytes.
pub fn new_keys(random: &[u8; 80]) -> (String, String, String) {
    let merchant = hex::encode(&random[0..16]);
    let secret = format!("sk_{merchant}_{}", hex::encode(&random[16..48]));
    let public = format!("pk_{merchant}_{}", hex::encode(&random[48..64]));
    (merchant, secret, public)
}

pub fn key_hash(key: &str) -> String {
    sha256_hex(key.as_bytes())
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
        assert_eq!(parse_key(&pk), Some((KeyKind::Public, m)));
        assert!(parse_key("sk_abc").is_none());
        assert!(parse_key(&sk[..sk.len() - 1]).is_none());
        assert!(parse_key(&sk.replacen("sk_", "pk_", 1)).is_none());
        assert!(parse_key("").is_none());
        assert!(hashes_equal(&key_hash(&sk), &key_hash(&sk)));
        assert!(!hashes_equal(&key_hash(&sk), &key_hash(&pk)));
    }
}
