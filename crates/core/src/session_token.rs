//! Session tokens on the wire: JWTs (RFC 7519) signed with HS256 by `jwt-compact`, under a key
//! that is a server secret, derived per merchant with HKDF-SHA256.
//!
//! A session token is meant for a browser. It names what it is for and nothing secret: the
//! issuer (`iss: "tokenpad"`), the merchant (`aud`), the holder's userId (`sub`), the session
//! (`jti`), what it may do (`scope`, space-separated as in RFC 9068), when it was issued and
//! when it expires (`iat`, `exp`, UNIX seconds on the service clock). Anyone can read those;
//! nobody without the key can change them.
//!
//! The key: `HKDF-SHA256(ikm = server secret, salt = "tokenpad session token v1", info =
//! merchant id)`, 32 bytes. One key per merchant, so a token of one merchant never verifies
//! under another's, and the server secret (WALLET_ENCRYPTION_KEY) cannot be recovered from a
//! derived key. Pure functions: the caller passes the secret and the time.
//!
//! A session token is told apart from an API key by its shape: a JWT is three base64url parts
//! joined by dots (keys are `sk_...` / `pk_...` and have no dot).

use chrono::{DateTime, Duration, Utc};
use hkdf::Hkdf;
use jwt_compact::alg::{Hs256, Hs256Key};
use jwt_compact::{AlgorithmExt, Claims, Header, TimeOptions, UntrustedToken, ValidationError};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::fmt;

/// The `iss` of every session token.
pub const ISSUER: &str = "tokenpad";
/// Changing this ends every session at once (the key of every merchant changes).
const SALT: &[u8] = b"tokenpad session token v1";
/// Longer text is not a session token (the edge reads no further).
pub const MAX_LEN: usize = 4096;

/// A merchant's session signing key. Never printed.
#[derive(Clone)]
pub struct SigningKey([u8; 32]);

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

impl SigningKey {
    /// The key of `merchant` under the server secret `secret`.
    pub fn derive(secret: &[u8; 32], merchant: &str) -> SigningKey {
        let mut okm = [0u8; 32];
        // 32 bytes are far below HKDF-SHA256's limit (255 x 32): expand cannot fail.
        let _ = Hkdf::<Sha256>::new(Some(SALT), secret).expand(merchant.as_bytes(), &mut okm);
        SigningKey(okm)
    }

    fn hs256(&self) -> Hs256Key {
        Hs256Key::new(self.0)
    }
}

/// The claims of a session token besides `iat` and `exp`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenClaims {
    pub iss: String,
    /// The merchant id.
    pub aud: String,
    /// The holder's userId.
    pub sub: String,
    /// The session id.
    pub jti: String,
    /// Space-separated scopes.
    pub scope: String,
}

/// A token whose signature checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    pub claims: TokenClaims,
    /// UNIX seconds.
    pub issued_at: i64,
    /// UNIX seconds.
    pub expires_at: i64,
}

/// Why a token does not verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not a token, a bad signature, another algorithm, another issuer, missing claims.
    Invalid,
    /// Signed by us, but past its `exp` on the service clock.
    Expired,
}

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// Signs a token issued at `issued_at` that expires at `expires_at` (UNIX seconds).
pub fn sign(
    key: &SigningKey,
    claims: &TokenClaims,
    issued_at: i64,
    expires_at: i64,
) -> Option<String> {
    let mut c = Claims::new(claims.clone());
    c.issued_at = Some(at(issued_at));
    c.expiration = Some(at(expires_at));
    Hs256
        .token(&Header::empty().with_token_type("JWT"), &c, &key.hs256())
        .ok()
}

/// Whether `text` has a JWT's shape: three non-empty base64url parts joined by dots, the
/// first a JSON object (`eyJ` is the base64url of `{"`), at most [`MAX_LEN`] characters.
pub fn looks_like(text: &str) -> bool {
    let b64 = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    let parts: Vec<&str> = text.split('.').collect();
    text.len() <= MAX_LEN
        && text.starts_with("eyJ")
        && parts.len() == 3
        && parts.iter().all(|p| b64(p))
}

/// The merchant a token claims (`aud`), unverified: only to route it to that merchant, whose
/// object verifies it.
pub fn audience(text: &str) -> Option<String> {
    if !looks_like(text) {
        return None;
    }
    let token = UntrustedToken::new(text).ok()?;
    let claims = token.deserialize_claims_unchecked::<TokenClaims>().ok()?;
    Some(claims.custom.aud)
}

/// Verifies `text` under `key` at `now` (UNIX seconds): the signature (HS256 only), the
/// issuer, and the expiry. The caller checks the audience and the session it names.
pub fn verify(key: &SigningKey, text: &str, now: i64) -> Result<Verified, Refusal> {
    if !looks_like(text) {
        return Err(Refusal::Invalid);
    }
    let untrusted = UntrustedToken::new(text).map_err(|_| Refusal::Invalid)?;
    let hs = key.hs256();
    let token = Hs256
        .validator::<TokenClaims>(&hs)
        .validate(&untrusted)
        .map_err(|_| Refusal::Invalid)?;
    let claims = token.claims();
    let (Some(iat), Some(exp)) = (claims.issued_at, claims.expiration) else {
        return Err(Refusal::Invalid);
    };
    if claims.custom.iss != ISSUER {
        return Err(Refusal::Invalid);
    }
    // Expired at `exp` itself: a token lives exactly its ttl.
    let options = TimeOptions::new(Duration::zero(), move || at(now));
    match claims.validate_expiration(&options) {
        Ok(_) if now < exp.timestamp() => {}
        Ok(_) | Err(ValidationError::Expired) => return Err(Refusal::Expired),
        Err(_) => return Err(Refusal::Invalid),
    }
    Ok(Verified {
        claims: claims.custom.clone(),
        issued_at: iat.timestamp(),
        expires_at: exp.timestamp(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    const A: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    fn claims() -> TokenClaims {
        TokenClaims {
            iss: ISSUER.into(),
            aud: A.into(),
            sub: "alice".into(),
            jti: "s1".into(),
            scope: "read transfer".into(),
        }
    }

    /// A tiny base64url (no padding) encoder, to forge tokens.
    fn b64(bytes: &[u8]) -> String {
        const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                out.push(char::from(ABC[((n >> (18 - 6 * i)) & 63) as usize]));
            }
        }
        out
    }

    #[test]
    fn signs_and_verifies_with_its_merchants_key_only() {
        let secret = [7u8; 32];
        let key = SigningKey::derive(&secret, A);
        let t = sign(&key, &claims(), 1000, 1900).unwrap();
        assert!(looks_like(&t), "{t}");
        assert_eq!(audience(&t).as_deref(), Some(A));
        let v = verify(&key, &t, 1000).unwrap();
        assert_eq!(
            (v.claims, v.issued_at, v.expires_at),
            (claims(), 1000, 1900)
        );
        // Another merchant's key, another server secret: invalid.
        let other = SigningKey::derive(&secret, B);
        assert_eq!(verify(&other, &t, 1000), Err(Refusal::Invalid));
        let rotated = SigningKey::derive(&[8u8; 32], A);
        assert_eq!(verify(&rotated, &t, 1000), Err(Refusal::Invalid));
        // Expired at exp exactly, and after.
        assert!(verify(&key, &t, 1899).is_ok());
        assert_eq!(verify(&key, &t, 1900), Err(Refusal::Expired));
        assert_eq!(verify(&key, &t, 5000), Err(Refusal::Expired));
        assert_eq!(format!("{key:?}"), "SigningKey(..)");
    }

    #[test]
    fn forged_tokens_are_invalid() {
        let key = SigningKey::derive(&[7u8; 32], A);
        let t = sign(&key, &claims(), 1000, 1900).unwrap();
        let parts: Vec<&str> = t.split('.').collect();
        // The payload changed (another holder, more scopes, a later exp), signature kept.
        let payload = |json: &str| format!("{}.{}.{}", parts[0], b64(json.as_bytes()), parts[2]);
        let more = format!(
            r#"{{"exp":9999999999,"iat":1000,"iss":"tokenpad","aud":"{A}","sub":"bob","jti":"s1","scope":"read transfer spend"}}"#
        );
        assert_eq!(verify(&key, &payload(&more), 1000), Err(Refusal::Invalid));
        // alg none, and HS512 headers.
        for header in [r#"{"alg":"none","typ":"JWT"}"#, r#"{"alg":"HS512"}"#] {
            let forged = format!("{}.{}.{}", b64(header.as_bytes()), parts[1], parts[2]);
            assert_eq!(verify(&key, &forged, 1000), Err(Refusal::Invalid));
            let unsigned = format!("{}.{}.", b64(header.as_bytes()), parts[1]);
            assert_eq!(verify(&key, &unsigned, 1000), Err(Refusal::Invalid));
        }
        // A signature of the right length but wrong bytes, truncated, or missing.
        let mut bad = parts[2].to_string();
        bad.replace_range(0..1, if bad.starts_with('A') { "B" } else { "A" });
        assert_eq!(
            verify(&key, &format!("{}.{}.{bad}", parts[0], parts[1]), 1000),
            Err(Refusal::Invalid)
        );
        assert_eq!(verify(&key, &t[..t.len() - 2], 1000), Err(Refusal::Invalid));
        // Another issuer, signed with the right key.
        let mut c = claims();
        c.iss = "someone".into();
        let other = sign(&key, &c, 1000, 1900).unwrap();
        assert_eq!(verify(&key, &other, 1000), Err(Refusal::Invalid));
        for junk in [
            "",
            "a.b",
            "a.b.c.d",
            "eyJ..",
            "sk_abc",
            &"eyJ.".repeat(2000),
        ] {
            assert!(
                !looks_like(junk) || verify(&key, junk, 0).is_err(),
                "{junk}"
            );
            assert_eq!(verify(&key, junk, 0), Err(Refusal::Invalid));
        }
        assert_eq!(audience("eyJhbGciOiJIUzI1NiJ9.e30.abc"), None);
    }

    #[test]
    fn keys_are_not_keys_of_the_api() {
        assert!(!looks_like("sk_0123456789abcdef0123456789abcdef_00"));
        assert!(!looks_like("pk_0123456789abcdef0123456789abcdef_00"));
        assert!(looks_like("eyJhbGciOiJIUzI1NiJ9.e30.abc"));
        assert!(!looks_like("eyJhbGciOiJIUzI1NiJ9.e30.ab c"));
        assert!(!looks_like("eyJhbGciOiJIUzI1NiJ9.e30.ab=c"));
    }
}
