//! Who a request is, once per request ([`MerchantObject::admit`], for an API call and for a
//! live socket alike): a secret or public key checked against its stored hash, or a holder's
//! session token checked against the merchant's signing key and the session it names; then
//! charged to its budget (`budgets.rs`). What the caller may do is decided once too, by the
//! core (`wire::scope::authorize`, whose `Permitted` is all `wire::apply` takes).

use super::MerchantObject;
use crate::adapters::sql::SqlStore;
use crate::adapters::wallet::session_key;
use crate::hop::Credential;
use std::cell::{Cell, RefCell};
use tokenpad_core::auth::{hashes_equal, key_hash, parse_key, KeyKind};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::session::access::{self, Caller};
use tokenpad_core::ratelimit::budgets::Budgets;
use tokenpad_core::{Error, ErrorCode, Result};

/// What the object keeps of its callers between requests.
pub(super) struct Callers {
    /// The requests they may still make (`budgets.rs`).
    pub(super) budgets: RefCell<Budgets>,
    /// When idempotency records older than a day were last forgotten (service time).
    pub(super) idempotency_pruned_at: Cell<Millis>,
}

impl Callers {
    pub(super) fn new(budgets: Budgets) -> Callers {
        Callers {
            budgets: RefCell::new(budgets),
            idempotency_pruned_at: Cell::new(0),
        }
    }
}

impl MerchantObject {
    /// The merchant and who is calling, from the client address `client`, charged to its
    /// budget: the one check of a credential an API call or a live socket makes. Only a
    /// credential that checked spends a budget: strangers with forged keys cannot use one up
    /// (the edge limits them per client address).
    pub(super) fn admit(
        &self,
        store: &SqlStore,
        credential: &Credential,
        client: &str,
    ) -> Result<(Merchant, Caller)> {
        let merchant = self
            .hot_merchant(store)?
            .ok_or_else(|| unknown(credential))?;
        let caller = self.caller(store, &merchant, credential)?;
        self.charge(&caller, client)?;
        Ok((merchant, caller))
    }

    /// Who the request is: a key checked against its stored hash, or a session token
    /// checked against this merchant's signing key and the session it names.
    fn caller(
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
fn unknown(credential: &Credential) -> Error {
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
