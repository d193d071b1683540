//! A merchant comes into being: its record and its USDC ledger.

use crate::error::{Error, ErrorCode, Result};
use crate::model::merchant::Merchant;
use crate::model::token::Token;
use crate::store::Store;

/// Stores a new merchant and its USDC ledger. Refuses to overwrite an existing one.
pub fn init(store: &mut dyn Store, merchant: &Merchant) -> Result<()> {
    if store.merchant()?.is_some() {
        return Err(Error::new(
            ErrorCode::InvalidRequest,
            "merchant already exists",
        ));
    }
    store.put_merchant(merchant)?;
    store.put_token(&Token::usdc(merchant.address, merchant.created_at))
}
