//! A merchant's API keys as records (`ops::keys`): each secret or public key the merchant
//! holds, named, with the SHA-256 hash it is checked against (never the key itself), its last
//! four characters, when it was made and last used, and when it stops working: at once when
//! it is revoked, at `expires_at` when it was rolled with a grace period.

use super::time::Millis;
use serde::{Deserialize, Serialize};

/// Which of the two kinds a key is: a secret key (`sk_...`, every operation) or a public key
/// (`pk_...`, public reads from browsers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ApiKeyKind"))]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    Secret,
    Public,
}

impl KeyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Secret => "secret",
            KeyKind::Public => "public",
        }
    }
}

/// Where a key stands at a given moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ApiKeyStatus"))]
#[serde(rename_all = "snake_case")]
pub enum KeyStatus {
    /// It works and has no end.
    Live,
    /// It works until its `expires_at` (a roll's grace period).
    Expiring,
    /// It was revoked, or its grace period is over: it never works again.
    Revoked,
}

/// One key of the merchant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKey {
    /// `key_<32 hex>`.
    pub id: String,
    pub kind: KeyKind,
    /// The merchant's name for it (`"Default"` for the keys the merchant was created with).
    pub name: String,
    /// SHA-256 of the whole key, hex (`auth::key_hash`).
    pub hash: String,
    /// The key's last four characters; None for a key made before key records, until its
    /// first use shows them.
    #[serde(default)]
    pub last4: Option<String>,
    pub created_at: Millis,
    #[serde(default)]
    pub last_used_at: Option<Millis>,
    /// When it stops working (set by a roll's grace period).
    #[serde(default)]
    pub expires_at: Option<Millis>,
    #[serde(default)]
    pub revoked_at: Option<Millis>,
    /// The whole key, for a public key only: it is public (it sits in every browser page
    /// that reads with it), so the merchant's dashboard can always show it. None for a secret
    /// key (only its hash is kept), and for a public key from before this field until its
    /// first use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
}

impl ApiKey {
    /// Whether it works at `now`: not revoked, and not past its expiry.
    pub fn works_at(&self, now: Millis) -> bool {
        self.revoked_at.is_none() && self.expires_at.is_none_or(|at| now < at)
    }

    pub fn status(&self, now: Millis) -> KeyStatus {
        if !self.works_at(now) {
            KeyStatus::Revoked
        } else if self.expires_at.is_some() {
            KeyStatus::Expiring
        } else {
            KeyStatus::Live
        }
    }

    /// When it stops (or stopped) working, if an end is set: its revocation, else its expiry.
    pub fn end(&self) -> Option<Millis> {
        self.revoked_at.or(self.expires_at)
    }

    /// When it stopped working, if it has: its revocation, or its expiry once past.
    pub fn ended_at(&self, now: Millis) -> Option<Millis> {
        self.revoked_at.or(self.expires_at.filter(|at| *at <= now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_works_until_revoked_or_expired() {
        let mut k = ApiKey {
            id: "key_1".into(),
            kind: KeyKind::Secret,
            name: "Default".into(),
            hash: "aa".into(),
            last4: None,
            created_at: 10,
            last_used_at: None,
            expires_at: None,
            revoked_at: None,
            public_key: None,
        };
        assert_eq!(k.status(100), KeyStatus::Live);
        k.expires_at = Some(200);
        assert_eq!(k.status(199), KeyStatus::Expiring);
        assert_eq!(k.status(200), KeyStatus::Revoked);
        assert_eq!(k.ended_at(199), None);
        assert_eq!(k.ended_at(200), Some(200));
        k.expires_at = None;
        k.revoked_at = Some(150);
        assert!(!k.works_at(151));
        assert_eq!(k.ended_at(151), Some(150));
    }
}
