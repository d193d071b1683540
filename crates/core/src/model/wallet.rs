//! A signing identity: a secp256k1 secret and the address it controls.

use super::address::Address;
use std::fmt;

/// The secret is private and `Debug` prints only the address, so a wallet can be logged or
/// put in an error without leaking the key. `Clone` is intentionally not derived, to keep
/// copies of secrets deliberate.
pub struct Wallet {
    pub address: Address,
    secret: [u8; 32],
}

impl Wallet {
    /// Builds a wallet from caller-supplied random bytes.
    ///
    /// Returns `None` if the bytes are not a valid secp256k1 scalar (zero, or not below the
    /// group order n: probability about 2^-128 for uniform bytes); the caller should retry
    /// with fresh bytes rather than us reducing them, which would bias the key.
    pub fn from_seed(seed: [u8; 32]) -> Option<Wallet> {
        let address = Address::of_secret(&seed)?;
        Some(Wallet {
            address,
            secret: seed,
        })
    }

    /// The raw secret, for sealing with `crypto::seal_secret` or signing.
    pub fn secret_bytes(&self) -> &[u8; 32] {
        &self.secret
    }
}

impl fmt::Debug for Wallet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wallet")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn secret_from_u8(n: u8) -> [u8; 32] {
        let mut s = [0u8; 32];
        s[31] = n;
        s
    }

    /// secp256k1 group order n.
    const N: [u8; 32] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36,
        0x41, 0x41,
    ];

    #[test]
    fn wallet_addresses_from_known_secrets() {
        let w1 = Wallet::from_seed(secret_from_u8(1)).unwrap();
        assert_eq!(
            w1.address.to_checksum(),
            "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
        );
        let w2 = Wallet::from_seed(secret_from_u8(2)).unwrap();
        assert_eq!(
            w2.address.to_checksum(),
            "0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF"
        );
        assert_eq!(w2.secret_bytes(), &secret_from_u8(2));
        assert_eq!(Address::of_secret(&secret_from_u8(1)), Some(w1.address));
    }

    #[test]
    fn invalid_scalars_are_rejected() {
        assert!(Wallet::from_seed([0u8; 32]).is_none());
        assert!(Wallet::from_seed(N).is_none());
        let mut n_plus_1 = N;
        n_plus_1[31] += 1;
        assert!(Wallet::from_seed(n_plus_1).is_none());
        assert!(Wallet::from_seed([0xff; 32]).is_none());
        let mut n_minus_1 = N;
        n_minus_1[31] -= 1;
        assert!(Wallet::from_seed(n_minus_1).is_some());
        assert!(Address::of_secret(&[0u8; 32]).is_none());
    }

    #[test]
    fn wallet_debug_never_prints_secret() {
        let secret = [0x42u8; 32];
        let w = Wallet::from_seed(secret).unwrap();
        let dbg = format!("{w:?}");
        let pretty = format!("{w:#?}");
        assert!(dbg.contains(&w.address.to_checksum()), "{dbg}");
        for s in [&dbg, &pretty] {
            assert!(!s.to_ascii_lowercase().contains("4242"), "{s}");
            assert!(!s.contains("66, 66"), "{s}");
            assert!(!s.contains("secret"), "{s}");
        }
    }
}
