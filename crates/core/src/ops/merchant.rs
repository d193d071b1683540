//! A merchant comes into being: its record, its first API keys and its USDC ledger.

use crate::error::{Error, ErrorCode, Result};
use crate::model::chain::ChainMode;
use crate::model::key::ApiKey;
use crate::model::merchant::Merchant;
use crate::model::token::Token;
use crate::store::Store;

/// Stores a new merchant, the records of its first keys (`ops::keys::record`) and its USDC
/// ledger (under the USDC contract of the chain it settles on). Refuses to overwrite an
/// existing one.
pub fn init(
    store: &mut dyn Store,
    merchant: &Merchant,
    keys: &[ApiKey],
    chain: &ChainMode,
) -> Result<()> {
    if store.merchant()?.is_some() {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "merchant already exists",
        ));
    }
    store.put_merchant(merchant)?;
    for key in keys {
        store.put_api_key(key)?;
    }
    store.put_token(&Token::usdc(
        chain.usdc(),
        chain.network(None),
        merchant.address,
        merchant.created_at,
    ))
}
