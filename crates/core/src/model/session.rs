//! Holder sessions: what a session token may do for one holder, until when, and how much of
//! each token it has moved. The token (`crate::session_token`) names its session; this record
//! is the authority: its scopes, its limits and what it spent, its expiry and its revocation.

use super::amount::Units;
use super::ids::{TokenAddress, UserId};
use super::time::Millis;
use crate::error::{ErrorCode, FieldError};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// What a session may do. `read` reads its holder (wallet, balances, history); the others
/// each allow one kind of movement out of the holder's wallet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Read,
    BuyPresale,
    Transfer,
    Spend,
}

impl Scope {
    pub const ALL: [Scope; 4] = [
        Scope::Read,
        Scope::BuyPresale,
        Scope::Transfer,
        Scope::Spend,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::BuyPresale => "buy-presale",
            Scope::Transfer => "transfer",
            Scope::Spend => "spend",
        }
    }

    pub fn parse(text: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Scopes as a JWT `scope` claim: space-separated, in their canonical order.
    pub fn join(scopes: &[Scope]) -> String {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Scope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Scope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let allowed = || Scope::ALL.map(Scope::as_str).to_vec();
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Scope::parse(&s).ok_or_else(|| {
                FieldError::new(
                    ErrorCode::InvalidRequest,
                    format!("must be one of {}, not \"{s}\"", allowed().join(", ")),
                )
                .with("allowed", allowed())
                .into_de()
            }),
            serde_json::Value::Null => Err(FieldError::missing().into_de()),
            _ => Err(FieldError::expected("a string").into_de()),
        }
    }
}

/// A component of openapi.json: `SessionScope`, the scope names.
#[cfg(feature = "codegen")]
impl schemars::JsonSchema for Scope {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SessionScope".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "enum": Scope::ALL.map(Scope::as_str),
            "description": "What a session token may do: `read` its holder (wallet, balances, history), `buy-presale`, `transfer`, `spend` (each a movement out of the holder's wallet)."
        })
    }
}

/// A session id (a UUID the service made).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(pub String);

impl SessionId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// How much of one token a session may move, and how much it has moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limit {
    pub token: TokenAddress,
    /// The token's symbol and decimals (to show the amounts).
    pub symbol: String,
    pub decimals: u8,
    /// At most this much in one operation.
    pub per_operation: Option<Units>,
    /// At most this much over the session's life.
    pub per_session: Option<Units>,
    /// What the session moved so far (committed operations only).
    pub spent: Units,
}

/// One session of one holder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: SessionId,
    pub user_id: UserId,
    /// In canonical order, no repeats.
    pub scopes: Vec<Scope>,
    /// Empty: the scopes alone bound what moves (and the balance). Otherwise only the tokens
    /// listed may move, each within its limits.
    pub limits: Vec<Limit>,
    pub created_at: Millis,
    pub expires_at: Millis,
    pub revoked_at: Option<Millis>,
}

impl Session {
    pub fn allows(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }

    /// Whether the session is usable at `now`: not revoked, not expired.
    pub fn live_at(&self, now: Millis) -> bool {
        self.revoked_at.is_none() && now < self.expires_at
    }

    pub fn limit_of(&self, token: &TokenAddress) -> Option<&Limit> {
        self.limits.iter().find(|l| &l.token == token)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scopes_read_and_write_their_names() {
        for s in Scope::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<Scope>(&json).unwrap(), s);
        }
        assert_eq!(
            Scope::join(&[Scope::Read, Scope::BuyPresale]),
            "read buy-presale"
        );
        let e = serde_json::from_str::<Scope>("\"admin\"").unwrap_err();
        let fe = FieldError::from_message(&e.to_string()).unwrap();
        assert_eq!(fe.code, ErrorCode::InvalidRequest);
        assert!(
            fe.why.contains("read, buy-presale, transfer, spend"),
            "{}",
            fe.why
        );
    }
}
