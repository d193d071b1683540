//! `bench/sign.mjs` instantiates this crate's wasm in Node (raw, without wasm-bindgen's glue:
//! the exports take and return numbers only) and times its exports: `n`
//! signatures of an EIP-3009 authorization, as the settler signs a holder's movement
//! (`tokenpad_evm::auth::sign`), and the same hashes signed through a `k256` `SigningKey`, as
//! `tokenpad_evm` signed before it signed with the secret scalar alone (building the key derives
//! the public key). Each returns a digest of the signatures, so that nothing is optimized away
//! and the two ways can be checked to sign alike.

use k256::ecdsa::SigningKey;
use tokenpad_evm::auth::{self, Authorization, Domain};
use wasm_bindgen::prelude::wasm_bindgen;

fn secret(i: u32) -> [u8; 32] {
    let mut s = [7u8; 32];
    s[..4].copy_from_slice(&i.to_be_bytes());
    s
}

fn domain() -> Domain {
    Domain {
        name: "USD Coin".into(),
        version: "2".into(),
        chain_id: 8453,
        verifying_contract: [0x83; 20],
    }
}

fn authorization(i: u32) -> Authorization {
    Authorization {
        from: [1; 20],
        to: [2; 20],
        value: u128::from(i).saturating_add(1),
        valid_after: 0,
        valid_before: u64::MAX,
        nonce: [3; 32],
    }
}

/// `n` authorizations signed as the settler signs them: a digest of their `r`s and `s`s.
#[wasm_bindgen]
pub fn sign_authorizations(n: u32) -> u32 {
    let d = domain();
    let mut digest = 0u32;
    for i in 0..n {
        if let Ok(signed) = auth::sign(&d, &authorization(i), &secret(i)) {
            digest = fold(digest, &signed.r, &signed.s, signed.v);
        }
    }
    digest
}

/// The same signatures through a `SigningKey`, built for each as before.
#[wasm_bindgen]
pub fn sign_with_signing_keys(n: u32) -> u32 {
    let d = domain();
    let mut digest = 0u32;
    for i in 0..n {
        let hash = auth::signing_hash(&d, &authorization(i));
        let Ok(key) = SigningKey::from_bytes(&secret(i).into()) else {
            continue;
        };
        if let Ok((sig, recovery)) = key.sign_prehash_recoverable(&hash) {
            let (r, s) = sig.split_bytes();
            let v = if recovery.is_y_odd() { 28 } else { 27 };
            digest = fold(digest, &r.into(), &s.into(), v);
        }
    }
    digest
}

fn fold(digest: u32, r: &[u8; 32], s: &[u8; 32], v: u8) -> u32 {
    r.iter()
        .chain(s)
        .chain(std::iter::once(&v))
        .fold(digest, |d, b| d.rotate_left(5) ^ u32::from(*b))
}

fn refuse(_: &mut [u8]) -> Result<(), getrandom::Error> {
    Err(getrandom::Error::UNSUPPORTED)
}
getrandom::register_custom_getrandom!(refuse);
