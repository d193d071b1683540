//! Who a request is: a secret or public key checked against its stored hash, or a holder's
//! session token checked against the merchant's signing key and the session it names.

use super::MerchantObject;
use crate::adapters::sql::SqlStore;
use crate::adapters::wallet::session_key;
use crate::hop::Credential;
use tokenpad_core::auth::{hashes_equal, key_hash, parse_key, KeyKind};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::ops::session::access::{self, Caller};
use tokenpad_core::{Error, ErrorCode, Result};

impl MerchantObject {
    /// Who the request is: a key checked against its stored hash, or a session token
    /// checked against this merchant's signing key and the session it names.
    pub(super) fn caller(
        &self,
        store: &SqlStore,
        merchant: &Merchant,
        credential: &Credential,
    ) -> Result<Caller> {
        match credential {
            Credential::Key(key) => check_key(merchant, key),
            Credential::Session(token) => {
                let key = session_key(&self.env, &merchant.id)?;
                let session = access::verify(store, &key, &merchant.id, token, self.now()?)?;
                Ok(Caller::Session(session))
            }
        }
    }
}

/// The refusal of a credential that names no merchant this object holds.
pub(super) fn unknown(credential: &Credential) -> Error {
    match credential {
        Credential::Key(_) => Error::new(ErrorCode::InvalidApiKey, "Invalid API key"),
        Credential::Session(_) => {
            Error::new(ErrorCode::InvalidSessionToken, "Invalid session token")
        }
    }
}

/// The key must be well formed, name this merchant, and hash to the stored hash of its kind.
fn check_key(merchant: &Merchant, key: &str) -> Result<Caller> {
    let invalid = || Error::new(ErrorCode::InvalidApiKey, "Invalid API key");
    let (kind, id) = parse_key(key).ok_or_else(invalid)?;
    let stored = match kind {
        KeyKind::Secret => &merchant.secret_key_hash,
        KeyKind::Public => &merchant.public_key_hash,
    };
    if id == merchant.id && hashes_equal(&key_hash(key), stored) {
        Ok(match kind {
            KeyKind::Secret => Caller::Secret,
            KeyKind::Public => Caller::Public,
        })
    } else {
        Err(invalid())
    }
}
