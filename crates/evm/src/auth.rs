//! EIP-3009 `TransferWithAuthorization`: a holder's key signs an EIP-712 message that moves
//! its tokens, and the relayer (which alone holds ETH) submits it. Holders never need gas.

use std::borrow::Cow;

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{Eip712Domain, SolStruct};

use crate::abi;
use crate::error::Result;
use crate::key;

pub use crate::key::address_of;

/// The EIP-712 domain a token signs under. Take `name` and `version` from what the token
/// answers to `name()` and `version()`: tokenpad tokens use version "1", USDC "2", and real
/// USDC's name differs between chains ("USD Coin" on Base, "USDC" on Base Sepolia).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    /// The token's `name()`.
    pub name: String,
    /// The token's `version()`.
    pub version: String,
    /// The chain the token lives on (replay protection across chains).
    pub chain_id: u64,
    /// The token contract (replay protection across tokens).
    pub verifying_contract: [u8; 20],
}

/// One transfer a holder authorizes. Valid only while `valid_after < block.timestamp <
/// valid_before` (both strict, as USDC); `nonce` is a random-looking 32-byte value chosen by
/// the caller (this crate has no randomness), unique per `from`, so authorizations are
/// independent and settle in any order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authorization {
    /// The holder whose tokens move; must be the signer.
    pub from: [u8; 20],
    /// The recipient.
    pub to: [u8; 20],
    /// Amount in the token's base units.
    pub value: u128,
    /// Unix seconds; the authorization is usable only strictly after this.
    pub valid_after: u64,
    /// Unix seconds; the authorization is usable only strictly before this.
    pub valid_before: u64,
    /// Unique per `from`; spent (or cancelled) on chain exactly once.
    pub nonce: [u8; 32],
}

/// An authorization with its ECDSA signature, ready for `transferWithAuthorization` or a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedAuthorization {
    /// What was signed.
    pub authorization: Authorization,
    /// 27 or 28, the form OpenZeppelin's ECDSA (and USDC) accept.
    pub v: u8,
    /// Signature `r`.
    pub r: [u8; 32],
    /// Signature `s`, always in the lower half of the curve order (high-`s` is refused on chain).
    pub s: [u8; 32],
}

fn eip712_domain(domain: &Domain) -> Eip712Domain {
    Eip712Domain::new(
        Some(Cow::Owned(domain.name.clone())),
        Some(Cow::Owned(domain.version.clone())),
        Some(U256::from(domain.chain_id)),
        Some(Address::from(domain.verifying_contract)),
        None,
    )
}

fn eip712_struct(auth: &Authorization) -> abi::TransferWithAuthorization {
    abi::TransferWithAuthorization {
        from: Address::from(auth.from),
        to: Address::from(auth.to),
        value: U256::from(auth.value),
        validAfter: U256::from(auth.valid_after),
        validBefore: U256::from(auth.valid_before),
        nonce: B256::from(auth.nonce),
    }
}

fn receive_struct(auth: &Authorization) -> abi::ReceiveWithAuthorization {
    abi::ReceiveWithAuthorization {
        from: Address::from(auth.from),
        to: Address::from(auth.to),
        value: U256::from(auth.value),
        validAfter: U256::from(auth.valid_after),
        validBefore: U256::from(auth.valid_before),
        nonce: B256::from(auth.nonce),
    }
}

/// Signs `auth` in EIP-3009's receive form (`receiveWithAuthorization`: only `auth.to`, the
/// payee, can carry it out, so nobody can front-run it to move the funds elsewhere). What
/// tokenpad's market contract takes, from holders and the treasury alike.
pub fn sign_receive(
    domain: &Domain,
    auth: &Authorization,
    secret: &[u8; 32],
) -> Result<SignedAuthorization> {
    let hash = receive_struct(auth)
        .eip712_signing_hash(&eip712_domain(domain))
        .0;
    let sig = key::sign_hash(secret, &hash)?;
    Ok(SignedAuthorization {
        authorization: auth.clone(),
        v: if sig.y_odd { 28 } else { 27 },
        r: sig.r,
        s: sig.s,
    })
}

/// The domain separator, to compare with the token's `DOMAIN_SEPARATOR()` before trusting a
/// configured name/version: a mismatch means every signature would be refused on chain.
pub fn domain_separator(domain: &Domain) -> [u8; 32] {
    eip712_domain(domain).separator().0
}

/// The EIP-712 digest `keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(authorization))` that
/// the holder's key signs and the contract recovers from.
pub fn signing_hash(domain: &Domain, auth: &Authorization) -> [u8; 32] {
    eip712_struct(auth)
        .eip712_signing_hash(&eip712_domain(domain))
        .0
}

/// Signs `auth` with the holder's secret key (deterministically, RFC 6979). The caller is
/// responsible for `auth.from` being this key's address: the contract refuses the signature
/// otherwise, so check with [`address_of`] when the pairing is not already certain.
pub fn sign(
    domain: &Domain,
    auth: &Authorization,
    secret: &[u8; 32],
) -> Result<SignedAuthorization> {
    let sig = key::sign_hash(secret, &signing_hash(domain, auth))?;
    Ok(SignedAuthorization {
        authorization: auth.clone(),
        v: if sig.y_odd { 28 } else { 27 },
        r: sig.r,
        s: sig.s,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use alloy_primitives::hex;

    fn domain() -> Domain {
        Domain {
            name: "USD Coin".into(),
            version: "2".into(),
            chain_id: 8453,
            verifying_contract: hex!("833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
        }
    }

    fn authorization(from: [u8; 20]) -> Authorization {
        Authorization {
            from,
            to: hex!("000000000000000000000000000000000000dEaD"),
            value: 1_000_000,
            valid_after: 0,
            valid_before: 1_900_000_000,
            nonce: [9; 32],
        }
    }

    #[test]
    fn type_hash_is_the_contracts_constant() {
        // EIP3009.sol's TRANSFER_WITH_AUTHORIZATION_TYPEHASH.
        let expected = hex!("7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a2267");
        let s = eip712_struct(&authorization([1; 20]));
        assert_eq!(s.eip712_type_hash().0, expected);
    }

    #[test]
    fn every_field_of_domain_and_message_is_signed() {
        let base = signing_hash(&domain(), &authorization([1; 20]));
        let domains = [
            Domain {
                name: "USDC".into(),
                ..domain()
            },
            Domain {
                version: "1".into(),
                ..domain()
            },
            Domain {
                chain_id: 84532,
                ..domain()
            },
            Domain {
                verifying_contract: [2; 20],
                ..domain()
            },
        ];
        for d in &domains {
            assert_ne!(signing_hash(d, &authorization([1; 20])), base, "{d:?}");
        }
        let a = authorization([1; 20]);
        let messages = [
            Authorization {
                from: [3; 20],
                ..a.clone()
            },
            Authorization {
                to: [3; 20],
                ..a.clone()
            },
            Authorization {
                value: 1_000_001,
                ..a.clone()
            },
            Authorization {
                valid_after: 1,
                ..a.clone()
            },
            Authorization {
                valid_before: 1_900_000_001,
                ..a.clone()
            },
            Authorization {
                nonce: [8; 32],
                ..a.clone()
            },
        ];
        for m in &messages {
            assert_ne!(signing_hash(&domain(), m), base, "{m:?}");
        }
    }

    #[test]
    fn sign_keeps_the_authorization_and_uses_v_27_or_28() {
        let secret = [0x11; 32];
        let from = address_of(&secret).unwrap();
        for i in 0..8u8 {
            let a = Authorization {
                nonce: [i; 32],
                ..authorization(from)
            };
            let signed = sign(&domain(), &a, &secret).unwrap();
            assert_eq!(signed.authorization, a);
            assert!(signed.v == 27 || signed.v == 28);
        }
        assert!(sign(&domain(), &authorization(from), &[0; 32]).is_err());
    }
}
