//! The dashboard's browser credential: `dt_<merchantId>_<payload>.<mac>`, both base64url
//! (no padding). The payload is JSON naming the account (its email), the login session it was
//! derived from, the member's role and its expiry (service time, ms); the MAC is HMAC-SHA256
//! of the payload's text under a key derived per merchant from a server secret with
//! HKDF-SHA256 (salt `tokenpad dashboard token v1`, info the merchant id), so a token of one
//! merchant never verifies under another's. It is sent as `x-api-key`, like a secret key, and
//! the merchant's object checks it: signature, merchant, expiry, then its members table (the
//! account is still a member; its role now is what counts). Short expiry plus that members
//! check is what ends a token: a removed member's token stops at once, a logged-out session's
//! within its five minutes (docs/accounts.md).

use crate::model::account::Role;
use crate::model::ids::MerchantId;
use crate::model::time::Millis;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

const SALT: &[u8] = b"tokenpad dashboard token v1";

/// The key a merchant's dashboard tokens are signed with.
#[derive(Clone)]
pub struct DashboardKey([u8; 32]);

impl DashboardKey {
    pub fn derive(secret: &[u8; 32], merchant: &MerchantId) -> DashboardKey {
        let mut okm = [0u8; 32];
        // 32 bytes are far below HKDF-SHA256's limit: expand cannot fail.
        let _ =
            Hkdf::<Sha256>::new(Some(SALT), secret).expand(merchant.as_str().as_bytes(), &mut okm);
        DashboardKey(okm)
    }

    fn mac(&self, text: &[u8]) -> Vec<u8> {
        match <Hmac<Sha256> as Mac>::new_from_slice(&self.0) {
            Ok(mut mac) => {
                mac.update(text);
                mac.finalize().into_bytes().to_vec()
            }
            // HMAC takes keys of any length: this cannot happen.
            Err(_) => Vec::new(),
        }
    }
}

/// What a dashboard token says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The account (its normalized email).
    #[serde(rename = "a")]
    pub account: String,
    /// The login session it was derived from (an id, not the cookie).
    #[serde(rename = "s")]
    pub session: String,
    #[serde(rename = "r")]
    pub role: Role,
    /// When it stops working (service time, ms).
    #[serde(rename = "x")]
    pub expires_at: Millis,
}

/// The merchant a dashboard token claims, if it has a dashboard token's shape. Checked later,
/// by that merchant's object ([`verify`]).
pub fn merchant_of(token: &str) -> Option<MerchantId> {
    let rest = token.strip_prefix("dt_")?;
    let (merchant, body) = rest.split_once('_')?;
    let (payload, mac) = body.split_once('.')?;
    if payload.is_empty() || mac.is_empty() {
        return None;
    }
    MerchantId::parse(merchant).ok()
}

/// A token for `merchant` saying `claims`.
pub fn sign(key: &DashboardKey, merchant: &MerchantId, claims: &Claims) -> String {
    let text = serde_json::to_string(claims).unwrap_or_default();
    let payload = URL_SAFE_NO_PAD.encode(text.as_bytes());
    let mac = URL_SAFE_NO_PAD.encode(key.mac(payload.as_bytes()));
    format!("dt_{}_{payload}.{mac}", merchant.as_str())
}

/// The claims of `token` if `key` signed it for `merchant` and it has not expired at `now`.
/// Any failure is None: the caller answers 401 `invalid_api_key` without saying which.
pub fn verify(
    key: &DashboardKey,
    merchant: &MerchantId,
    token: &str,
    now: Millis,
) -> Option<Claims> {
    let rest = token.strip_prefix("dt_")?;
    let (named, body) = rest.split_once('_')?;
    let (payload, mac) = body.split_once('.')?;
    let expected = key.mac(payload.as_bytes());
    let given = URL_SAFE_NO_PAD.decode(mac).ok()?;
    let same = expected.len() == given.len()
        && expected
            .iter()
            .zip(&given)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if !same || named != merchant.as_str() {
        return None;
    }
    let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    (now < claims.expires_at).then_some(claims)
}

/// Whether `text` (a URL's path or query, raw or decoded) carries a dashboard token:
/// `dt_<32 hex>_` anywhere, in any case.
pub fn contained_in(text: &str) -> bool {
    let bytes = text.as_bytes();
    (0..bytes.len()).any(|i| {
        let at = i + 3;
        bytes
            .get(i..at)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"dt_"))
            && bytes
                .get(at..at + 32)
                .is_some_and(|s| s.iter().all(u8::is_ascii_hexdigit))
            && bytes.get(at + 32) == Some(&b'_')
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn claims() -> Claims {
        Claims {
            account: "ann@example.com".into(),
            session: "s1".into(),
            role: Role::Viewer,
            expires_at: 1_000,
        }
    }

    #[test]
    fn a_token_verifies_for_its_merchant_until_it_expires() {
        let a = MerchantId::new_unchecked("a".repeat(32));
        let b = MerchantId::new_unchecked("b".repeat(32));
        let ka = DashboardKey::derive(&[1; 32], &a);
        let kb = DashboardKey::derive(&[1; 32], &b);
        let t = sign(&ka, &a, &claims());
        assert!(t.starts_with(&format!("dt_{}_", a.as_str())));
        assert_eq!(merchant_of(&t), Some(a.clone()));
        assert_eq!(verify(&ka, &a, &t, 999), Some(claims()));
        assert_eq!(verify(&ka, &a, &t, 1_000), None, "expired");
        // Another merchant's key, or the token renamed to another merchant: refused.
        assert_eq!(verify(&kb, &b, &t, 0), None);
        let renamed = t.replacen(a.as_str(), b.as_str(), 1);
        assert_eq!(verify(&kb, &b, &renamed, 0), None);
        // Another server secret: refused.
        assert_eq!(verify(&DashboardKey::derive(&[2; 32], &a), &a, &t, 0), None);
        // A changed payload (a viewer making itself owner): refused.
        let mut forged = claims();
        forged.role = Role::Owner;
        let forged_payload = URL_SAFE_NO_PAD.encode(serde_json::to_string(&forged).unwrap());
        let mac = t.rsplit_once('.').unwrap().1;
        let forged = format!("dt_{}_{forged_payload}.{mac}", a.as_str());
        assert_eq!(verify(&ka, &a, &forged, 0), None);
        assert!(contained_in(&format!("/x?k={}", t.to_uppercase())));
        assert!(!contained_in("/holder/dt_user"));
    }
}
