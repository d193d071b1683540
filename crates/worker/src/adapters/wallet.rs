//! Randomness and wallets: the only place the worker draws random bytes (crypto.getRandomValues
//! through getrandom's JS backend) and seals private keys.

use tokenpad_core::crypto::{open_secret, parse_encryption_key, seal_secret};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::holder::NewWallet;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::wallet::Wallet;
use tokenpad_core::session_token::SigningKey;
use tokenpad_core::wire::Shell;
use tokenpad_core::{Error, Result};

pub fn random<const N: usize>() -> Result<[u8; N]> {
    let mut buf = [0u8; N];
    getrandom::getrandom(&mut buf).map_err(|e| Error::internal(format!("randomness: {e}")))?;
    Ok(buf)
}

/// Makes wallets sealed under the WALLET_ENCRYPTION_KEY secret.
#[derive(Clone, Copy)]
pub struct WalletMaker {
    key: Option<[u8; 32]>,
}

impl WalletMaker {
    pub fn from_env(env: &worker::Env) -> WalletMaker {
        WalletMaker {
            key: crate::config::string(env, "WALLET_ENCRYPTION_KEY")
                .as_deref()
                .and_then(parse_encryption_key),
        }
    }

    /// A fresh key pair from the CSPRNG; its private key sealed with AES-256-GCM, bound to
    /// its address as associated data so a sealed key cannot be moved to another holder.
    pub fn new_wallet(&self) -> Result<NewWallet> {
        let key = self.key.ok_or_else(|| {
            Error::internal("WALLET_ENCRYPTION_KEY is not set to 64 hex characters")
        })?;
        for _ in 0..8 {
            // A random 32-byte string is a valid secp256k1 key with overwhelming probability;
            // the loop only guards against the ~2^-128 case.
            if let Some(wallet) = Wallet::from_seed(random::<32>()?) {
                let sealed = seal_secret(
                    &key,
                    random::<12>()?,
                    wallet.secret_bytes(),
                    &wallet.address.0,
                );
                return Ok(NewWallet {
                    address: wallet.address,
                    sealed_key: hex::encode(sealed),
                });
            }
        }
        Err(Error::internal("could not draw a valid private key"))
    }
}

impl WalletMaker {
    /// 32 secret bytes sealed under the same key, bound to `aad` (a webhook's signing secret,
    /// bound to its id), as hex.
    pub fn seal(&self, aad: &[u8], secret: &[u8; 32]) -> Result<String> {
        let key = self.key.ok_or_else(|| {
            Error::internal("WALLET_ENCRYPTION_KEY is not set to 64 hex characters")
        })?;
        Ok(hex::encode(seal_secret(&key, random::<12>()?, secret, aad)))
    }

    /// Opens what [`WalletMaker::seal`] sealed for `aad`.
    pub fn open_sealed(&self, aad: &[u8], sealed_hex: &str) -> Result<[u8; 32]> {
        let key = self.key.ok_or_else(|| {
            Error::internal("WALLET_ENCRYPTION_KEY is not set to 64 hex characters")
        })?;
        let sealed =
            hex::decode(sealed_hex).map_err(|_| Error::internal("a sealed secret is not hex"))?;
        open_secret(&key, &sealed, aad)
            .ok_or_else(|| Error::internal("a sealed secret does not open"))
    }

    /// The secret key sealed for `address` (to sign with it: the settler only). The key
    /// never leaves the object: not in a log, an error or an answer.
    pub fn open(&self, address: &Address, sealed_hex: &str) -> Result<[u8; 32]> {
        let key = self.key.ok_or_else(|| {
            Error::internal("WALLET_ENCRYPTION_KEY is not set to 64 hex characters")
        })?;
        let sealed = hex::decode(sealed_hex)
            .map_err(|_| Error::internal(format!("the sealed key of {address} is not hex")))?;
        open_secret(&key, &sealed, &address.0)
            .ok_or_else(|| Error::internal(format!("the sealed key of {address} does not open")))
    }
}

/// The session signing key of `merchant`: HKDF-SHA256 of the server secret
/// SESSION_SIGNING_KEY (64 hex; set it to end every session at once, without touching
/// wallets), else of WALLET_ENCRYPTION_KEY, per merchant (`tokenpad_core::session_token`).
/// Neither the secret nor the key is ever logged or answered.
pub fn session_key(env: &worker::Env, merchant: &MerchantId) -> Result<SigningKey> {
    let secret = crate::config::string(env, "SESSION_SIGNING_KEY")
        .or_else(|| crate::config::string(env, "WALLET_ENCRYPTION_KEY"))
        .as_deref()
        .and_then(parse_encryption_key)
        .ok_or_else(|| {
            Error::internal(
                "SESSION_SIGNING_KEY or WALLET_ENCRYPTION_KEY is not set to 64 hex characters",
            )
        })?;
    Ok(SigningKey::derive(&secret, merchant.as_str()))
}

/// What an operation gets from the worker: randomness, sealed wallets and secrets, the public
/// base URL, whether webhooks may call private addresses, the merchant's session signing key.
pub struct WorkerShell {
    pub wallets: WalletMaker,
    pub base_url: String,
    /// ALLOW_PRIVATE_WEBHOOK_URLS (local runs and tests only).
    pub allow_private_urls: bool,
    /// Where the session signing key comes from, derived only when an operation asks for it
    /// (creating a session; most operations never do).
    pub env: worker::Env,
    pub merchant: MerchantId,
}

impl Shell for WorkerShell {
    fn random16(&mut self) -> Result<[u8; 16]> {
        random()
    }

    fn new_wallet(&mut self) -> Result<NewWallet> {
        self.wallets.new_wallet()
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }

    fn new_secret(&mut self, aad: &[u8]) -> Result<([u8; 32], String)> {
        let secret = random::<32>()?;
        let sealed = self.wallets.seal(aad, &secret)?;
        Ok((secret, sealed))
    }

    fn allow_private_urls(&self) -> bool {
        self.allow_private_urls
    }

    fn session_key(&self) -> Result<SigningKey> {
        session_key(&self.env, &self.merchant)
    }
}
