//! The merchant whose Durable Object this is, and the context every operation runs in.

use crate::address::Address;
use crate::error::{Error, ErrorCode, Result};
use crate::store::Store;
use crate::time::Millis;
use crate::token::Token;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

const KEY: &str = "merchant";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merchant {
    pub id: String,
    pub name: String,
    /// The merchant wallet: deploys its tokens, receives what holders spend.
    pub address: Address,
    /// The wallet's private key, sealed with AES-256-GCM under WALLET_ENCRYPTION_KEY (hex).
    pub sealed_key: String,
    pub secret_key_hash: String,
    pub public_key_hash: String,
    pub created_at: Millis,
}

impl Merchant {
    pub fn load(store: &dyn Store) -> Result<Option<Merchant>> {
        match store.meta(KEY)? {
            None => Ok(None),
            Some(v) => serde_json::from_value(v)
                .map(Some)
                .map_err(|e| Error::internal(format!("merchant record: {e}"))),
        }
    }

    /// Stores a new merchant and its USDC ledger. Refuses to overwrite an existing one.
    pub fn init(store: &mut dyn Store, merchant: &Merchant) -> Result<()> {
        if Merchant::load(store)?.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "merchant already exists",
            ));
        }
        let v = serde_json::to_value(merchant)
            .map_err(|e| Error::internal(format!("merchant record: {e}")))?;
        store.put_meta(KEY, &v)?;
        store.put_token(&Token::usdc(merchant.address, merchant.created_at)?)
    }

    pub fn to_json(&self) -> Value {
        json!({ "id": self.id, "name": self.name, "merchantAddress": self.address.to_checksum() })
    }
}

/// What every operation is given: the time, and who it runs for.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub now: Millis,
    pub merchant: Merchant,
}
