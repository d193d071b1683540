//! Who a request is, once per request ([`MerchantObject::admit`], for an API call and for a
//! live socket alike): a secret or public key checked against the merchant's working keys
//! (`tokenpad_core::ops::keys::check`: its hash, not revoked, not past a roll's grace), its
//! last use written at most once a minute; or a holder's
//! session token checked against the merchant's signing key and the session it names; then
//! charged to its budget (`budgets.rs`). What the caller may do is decided once too, by the
//! core (`wire::scope::authorize`, whose `Permitted` is all `wire::apply` takes).

use super::MerchantObject;
use crate::adapters::sql::SqlStore;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::session_key;
use crate::hop::Credential;
use std::cell::{Cell, RefCell};
use tokenpad_core::model::account::Role;
use tokenpad_core::model::key::{ApiKey, KeyKind};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::keys;
use tokenpad_core::ops::session::access::{self, Caller};
use tokenpad_core::ratelimit::budgets::Budgets;
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::{Error, ErrorCode, Result};

/// A credential that checked: the merchant, who is calling, its key's id (a key), and its
/// role (the dashboard's credential).
pub(super) struct Admitted {
    pub(super) merchant: Merchant,
    pub(super) caller: Caller,
    pub(super) key: Option<String>,
    pub(super) role: Option<Role>,
}

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
    /// The merchant and who is calling (and the id of its key, when a key calls), from the
    /// client address `client`, charged to its budget: the one check of a credential an API
    /// call or a live socket makes. Only a credential that checked spends a budget: strangers
    /// with forged keys cannot use one up (the edge limits them per client address).
    pub(super) fn admit(
        &self,
        store: &SqlStore,
        credential: &Credential,
        client: &str,
    ) -> Result<Admitted> {
        let merchant = self
            .hot_merchant(store)?
            .ok_or_else(|| unknown(credential))?;
        let (caller, key, role) = self.caller(store, &merchant, credential)?;
        self.charge(&caller, client)?;
        Ok(Admitted {
            merchant,
            caller,
            key,
            role,
        })
    }

    /// Who the request is (and its key's id): a key checked against the merchant's working
    /// keys, or a session token checked against this merchant's signing key and the session
    /// it names.
    fn caller(
        &self,
        store: &SqlStore,
        merchant: &Merchant,
        credential: &Credential,
    ) -> Result<(Caller, Option<String>, Option<Role>)> {
        match credential {
            // The dashboard's credential (`members.rs`): a member with a role, whose powers
            // are a secret key's (a viewer's only its reads: `scope::authorize_member`).
            Credential::Key(token) if token.starts_with("dt_") => {
                let role = self.dashboard_role(store, &merchant.id, token)?;
                Ok((Caller::Secret, None, Some(role)))
            }
            Credential::Key(key) => {
                let now = self.now()?;
                let (kind, id, touch) =
                    keys::check(&self.hot_keys(store)?, &merchant.id, key, now)?;
                if let Some(record) = touch {
                    self.touch(record);
                }
                let caller = match kind {
                    KeyKind::Secret => Caller::Secret,
                    KeyKind::Public => Caller::Public,
                };
                Ok((caller, Some(id), None))
            }
            Credential::Session(token) => {
                let key = session_key(&self.env, &merchant.id)?;
                let session = access::verify(store, &key, &merchant.id, token, self.now()?)?;
                Ok((Caller::Session(session), None, None))
            }
        }
    }
}

impl MerchantObject {
    /// Writes a key's last use (and last four characters, for a key from before key
    /// records): at most once a minute per key (`keys::check` says when), in a transaction of
    /// its own. Its failure is logged, never the request's: the key checked.
    fn touch(&self, record: ApiKey) {
        let written = self.store().and_then(|mut store| {
            transaction(&self.state.storage(), &self.watch, move || {
                store.put_api_key(&record)
            })
        });
        if let Err(e) = written {
            worker::console_error!("a key's last use: {}", e.message);
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
