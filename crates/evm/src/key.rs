//! secp256k1 keys: the one place that touches `k256`, shared by EIP-712 authorizations and
//! transactions so both sign exactly the same way.

use alloy_primitives::{keccak256, Address};
use k256::ecdsa::hazmat::{self, DigestPrimitive, SignPrimitive};
use k256::ecdsa::SigningKey;
use k256::{NonZeroScalar, Secp256k1};

use crate::error::{Error, Result};

/// An Ethereum ECDSA signature over a 32-byte hash: `r`, low `s` (EIP-2), and the parity of
/// the nonce point's y coordinate (the recovery bit).
pub(crate) struct RecoverableSignature {
    pub y_odd: bool,
    pub r: [u8; 32],
    pub s: [u8; 32],
}

fn signing_key(secret: &[u8; 32]) -> Result<SigningKey> {
    SigningKey::from_bytes(&(*secret).into()).map_err(|_| Error::InvalidSecretKey)
}

/// Signs a prehashed message with RFC 6979 deterministic nonces (no randomness needed, and
/// the same input always yields the same signature, which the test vectors rely on).
///
/// With the secret scalar itself, as `SigningKey::sign_prehash_recoverable` signs, but without
/// building a `SigningKey`: that derives the public key (a multiplication by the curve's
/// generator as costly as the signature's own), which signing never uses. Every movement a
/// holder authorizes is signed here, on the merchant object's one thread: with the key built,
/// half of a settled spend's time was this function, half of that the public key.
pub(crate) fn sign_hash(secret: &[u8; 32], hash: &[u8; 32]) -> Result<RecoverableSignature> {
    let d = Option::<NonZeroScalar>::from(NonZeroScalar::from_repr((*secret).into()))
        .ok_or(Error::InvalidSecretKey)?;
    let z = hazmat::bits2field::<Secp256k1>(hash).map_err(|e| Error::Signing(e.to_string()))?;
    // k256 normalizes `s` to the lower half and flips the recovery id to match.
    let (signature, recovery) = d
        .try_sign_prehashed_rfc6979::<<Secp256k1 as DigestPrimitive>::Digest>(&z, &[])
        .map_err(|e| Error::Signing(e.to_string()))?;
    let recovery = recovery.ok_or_else(|| Error::Signing("no recovery id".into()))?;
    // Ethereum's v/y_parity encodes only the y parity; an r that overflowed the group order
    // (probability about 2^-128) cannot be expressed, so refuse instead of emitting garbage.
    if recovery.is_x_reduced() {
        return Err(Error::Signing("recovery id with reduced x".into()));
    }
    let (r, s) = signature.split_bytes();
    Ok(RecoverableSignature {
        y_odd: recovery.is_y_odd(),
        r: r.into(),
        s: s.into(),
    })
}

/// The Ethereum address of a secret key: the last 20 bytes of keccak256 of the uncompressed
/// public key without its 0x04 prefix.
pub fn address_of(secret: &[u8; 32]) -> Result<[u8; 20]> {
    let key = signing_key(secret)?;
    let point = key.verifying_key().to_encoded_point(false);
    let xy = point
        .as_bytes()
        .get(1..)
        .ok_or_else(|| Error::Signing("empty public key encoding".into()))?;
    Ok(Address::from_word(keccak256(xy)).into_array())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};

    const N_MINUS_1: [u8; 32] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36,
        0x41, 0x40,
    ];

    fn one() -> [u8; 32] {
        let mut k = [0u8; 32];
        k[31] = 1;
        k
    }

    #[test]
    fn refuses_scalars_outside_the_group() {
        let mut n = N_MINUS_1;
        n[31] += 1; // the group order itself
        for bad in [[0u8; 32], n, [0xff; 32]] {
            assert_eq!(address_of(&bad), Err(Error::InvalidSecretKey));
            assert!(matches!(
                sign_hash(&bad, &[7; 32]),
                Err(Error::InvalidSecretKey)
            ));
        }
        assert!(address_of(&N_MINUS_1).is_ok());
    }

    #[test]
    fn address_of_one_is_the_generator_address() {
        // The well-known address of private key 1.
        let expected = alloy_primitives::hex!("7e5f4552091a69125d5dfcb7b8c2659029395bdf");
        assert_eq!(address_of(&one()).unwrap(), expected);
    }

    #[test]
    fn signatures_are_low_s_deterministic_and_recover_to_the_signer() {
        let half_order = alloy_primitives::U256::from_be_bytes(N_MINUS_1) >> 1;
        for (i, secret) in [one(), N_MINUS_1, [0x42; 32]].iter().enumerate() {
            let address = address_of(secret).unwrap();
            for j in 0..16u8 {
                let hash = keccak256([i as u8, j]).0;
                let sig = sign_hash(secret, &hash).unwrap();
                let again = sign_hash(secret, &hash).unwrap();
                assert_eq!((sig.r, sig.s, sig.y_odd), (again.r, again.s, again.y_odd));
                assert!(alloy_primitives::U256::from_be_bytes(sig.s) <= half_order);
                let signature = Signature::from_scalars(sig.r, sig.s).unwrap();
                let recovery = RecoveryId::new(sig.y_odd, false);
                let key = VerifyingKey::recover_from_prehash(&hash, &signature, recovery).unwrap();
                let point = key.to_encoded_point(false);
                let recovered = Address::from_word(keccak256(&point.as_bytes()[1..]));
                assert_eq!(recovered.into_array(), address);
            }
        }
    }
}
