//! The shell an operation runs with, made deterministic: "random" bytes count up, wallets
//! are real secp256k1 keys from counted seeds, secrets are sealed as their own text. What the
//! worker draws from the platform's CSPRNG, a seed's history draws from here, so the same
//! history makes the same ids.

use tokenpad_core::model::holder::NewWallet;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::wallet::Wallet;
use tokenpad_core::session_token::SigningKey;
use tokenpad_core::wire::Shell;
use tokenpad_core::{Error, Result};

/// The service's base URL, as events and webhooks render it.
pub const BASE_URL: &str = "https://sim.tokenpad.test";

#[derive(Clone, Debug, Default)]
pub struct SimShell {
    counter: u64,
}

impl SimShell {
    fn next(&mut self) -> u64 {
        self.counter += 1;
        self.counter
    }

    pub fn signing_key(&self, merchant: &MerchantId) -> SigningKey {
        SigningKey::derive(&[0x5e; 32], merchant.as_str())
    }
}

impl Shell for SimShell {
    fn random16(&mut self) -> Result<[u8; 16]> {
        let n = self.next();
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&n.to_be_bytes());
        b[8..].copy_from_slice(&(n ^ 0x5eed_5eed).to_be_bytes());
        Ok(b)
    }

    fn new_wallet(&mut self) -> Result<NewWallet> {
        let n = self.next();
        let mut seed = [0x22u8; 32];
        seed[24..].copy_from_slice(&n.to_be_bytes());
        let w = Wallet::from_seed(seed).ok_or_else(|| Error::internal("a bad seed"))?;
        Ok(NewWallet {
            address: w.address,
            sealed_key: format!("sealed-{n}"),
        })
    }

    fn base_url(&self) -> &str {
        BASE_URL
    }

    fn new_secret(&mut self, _aad: &[u8]) -> Result<([u8; 32], String)> {
        let n = self.next();
        let mut s = [0x33u8; 32];
        s[24..].copy_from_slice(&n.to_be_bytes());
        Ok((s, format!("sealed-secret-{n}")))
    }

    fn allow_private_urls(&self) -> bool {
        true
    }

    fn session_key(&self) -> Result<SigningKey> {
        Ok(self.signing_key(&MerchantId::new_unchecked(
            "0123456789abcdef0123456789abcdef",
        )))
    }
}
