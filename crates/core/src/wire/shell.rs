//! What the shell provides an operation: fresh randomness, sealed secrets, and facts of its
//! configuration. The core never draws randomness or reads configuration itself.

use crate::error::Result;
use crate::model::holder::NewWallet;
use crate::session_token::SigningKey;

pub trait Shell {
    /// 16 fresh random bytes, for a new id.
    fn random16(&mut self) -> Result<[u8; 16]>;
    /// A fresh wallet, its private key sealed.
    fn new_wallet(&mut self) -> Result<NewWallet>;
    /// The service's public base URL, for links in answers (a deployment's page).
    fn base_url(&self) -> &str;
    /// 32 fresh random bytes (a webhook's signing secret), and the same sealed for storage,
    /// bound to `aad` (the webhook's id).
    fn new_secret(&mut self, aad: &[u8]) -> Result<([u8; 32], String)>;
    /// Whether webhooks may call private and loopback addresses (local runs and tests only).
    fn allow_private_urls(&self) -> bool;
    /// The merchant's session signing key (a server secret: never in an answer or a log).
    fn session_key(&self) -> Result<SigningKey>;
}
