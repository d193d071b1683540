//! Holders: one custodial wallet per user of a merchant, keyed by the merchant's `userId`.

use super::address::Address;
use super::ids::UserId;
use super::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Holder {
    pub user_id: UserId,
    pub address: Address,
    /// The wallet's private key sealed under WALLET_ENCRYPTION_KEY (hex). Never leaves storage.
    pub sealed_key: String,
    pub created_at: Millis,
}

/// A new wallet, made by the shell from fresh randomness: its address and sealed key.
pub struct NewWallet {
    pub address: Address,
    pub sealed_key: String,
}
