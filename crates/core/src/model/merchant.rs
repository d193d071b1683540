//! The merchant whose Durable Object this is. Its API keys are records of their own
//! (`super::key`); a merchant stored before them kept its two keys' hashes here
//! (`secretKeyHash`, `publicKeyHash`), which the worker's storage migrates into key records.

use super::address::Address;
use super::ids::MerchantId;
use super::time::Millis;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merchant {
    pub id: MerchantId,
    pub name: String,
    /// The merchant wallet: deploys its tokens, receives what holders spend.
    pub address: Address,
    /// The wallet's private key, sealed with AES-256-GCM under WALLET_ENCRYPTION_KEY (hex).
    pub sealed_key: String,
    pub created_at: Millis,
    /// Private mode (`PATCH /merchant/settings`): holder reads need a session token, and
    /// public reads show addresses, never userIds. Off by default (and for merchants stored
    /// before the setting existed).
    #[serde(default)]
    pub private_mode: bool,
}
