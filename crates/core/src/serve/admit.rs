//! Who a request is, once per request (an API call and a live socket alike): a secret or
//! public key checked against the merchant's working keys (`ops::keys::check`: its hash, not
//! revoked, not past a roll's grace), its last use written at most once a minute; a
//! dashboard credential (`dt_...`) checked against the members; or a holder's session token
//! checked against the merchant's signing key and the session it names. Then it is charged
//! to its budget: only a credential that checked spends one, so strangers with forged keys
//! cannot use a budget up (the edge limits them per client address).

use super::credential::Credential;
use super::ports::Object;
use crate::error::{Error, ErrorCode, Result};
use crate::model::account::Role;
use crate::model::key::KeyKind;
use crate::model::merchant::Merchant;
use crate::model::time::Millis;
use crate::ops::keys;
use crate::ops::session::access::{self, Caller};

/// A credential that checked: the merchant, who is calling, its key's id (a key), and its
/// role (the dashboard's credential).
pub struct Admitted {
    pub merchant: Merchant,
    pub caller: Caller,
    pub key: Option<String>,
    pub role: Option<Role>,
}

/// The merchant and who is calling, from the client address `client`, charged to its budget.
pub fn admit<O: Object>(
    object: &O,
    credential: &Credential,
    client: &str,
    now: Millis,
) -> Result<Admitted> {
    let merchant = object.merchant()?.ok_or_else(|| unknown(credential))?;
    let (caller, key, role) = match credential {
        // A member with a role, whose powers are a secret key's (a viewer's only its reads:
        // `wire::scope::authorize_member`).
        Credential::Key(token) if token.starts_with("dt_") => {
            let role = object.dashboard_role(&merchant, token)?;
            (Caller::Secret, None, Some(role))
        }
        Credential::Key(key) => {
            let keys = object.keys()?;
            let (kind, id, touch) =
                keys::check_with(&keys, &merchant.id, key, now, |k| object.key_hash(k, &keys))?;
            if let Some(record) = touch {
                object.touch(record);
            }
            let caller = match kind {
                KeyKind::Secret => Caller::Secret,
                KeyKind::Public => Caller::Public,
            };
            (caller, Some(id), None)
        }
        Credential::Session(token) => {
            let signing = object.session_key(&merchant)?;
            let session = object.run(false, {
                let (id, token) = (merchant.id.clone(), token.clone());
                move |t| {
                    let store = super::ports::Txn::store(t);
                    access::verify(&*store, &signing, &id, &token, now)
                }
            })?;
            (Caller::Session(session), None, None)
        }
    };
    object.charge(&caller, client)?;
    Ok(Admitted {
        merchant,
        caller,
        key,
        role,
    })
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
