//! Hashing, key derivation and key sealing for the functional core.
//!
//! Everything here is deterministic: callers supply all randomness (seeds,
//! nonces), so the core stays free of I/O, clocks and RNGs and is trivially
//! testable. All primitives come from the RustCrypto crates (`k256`, `sha3`,
//! `sha2`, `aes-gcm`); this module only wires them together.

use aes_gcm::aead::{AeadInPlace, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce, Tag};
use k256::elliptic_curve::sec1::ToEncodedPoint;
use k256::SecretKey;
use sha2::Sha256;
use sha3::{Digest, Keccak256};

/// Ethereum's hash (original Keccak padding, not NIST SHA3-256): needed for
/// addresses, EIP-55 checksums and CREATE addresses to match the chain.
pub fn keccak256(data: &[u8]) -> [u8; 32] {
    Keccak256::digest(data).into()
}

/// The uncompressed secp256k1 public key (x || y, without its 0x04 tag) of a secret key;
/// None when the bytes are not a valid secret scalar (zero, or not below the group order).
pub fn public_key_xy(secret: &[u8; 32]) -> Option<[u8; 64]> {
    let key = SecretKey::from_bytes(secret.into()).ok()?;
    let point = key.public_key().to_encoded_point(false);
    point.as_bytes().get(1..)?.try_into().ok()
}

const NONCE_LEN: usize = 12;
const TAG_LEN: usize = 16;
const SECRET_LEN: usize = 32;
/// Length of a sealed secret: nonce || ciphertext || tag.
const SEALED_LEN: usize = NONCE_LEN + SECRET_LEN + TAG_LEN;

/// Encrypts a private key at rest with AES-256-GCM.
///
/// Returns `nonce || ciphertext || tag` (60 bytes), the same layout as the
/// usual combined AEAD output with the nonce in front, so the blob is
/// self-contained. `nonce` must be fresh random bytes for every call with the
/// same `key` (GCM breaks on nonce reuse). `aad` (the holder's address
/// bytes) is authenticated but not stored, so a sealed key moved to another
/// holder fails to open.
pub fn seal_secret(key: &[u8; 32], nonce: [u8; 12], secret: &[u8; 32], aad: &[u8]) -> Vec<u8> {
    let cipher = Aes256Gcm::new(key.into());
    let mut buf = *secret;
    // In-place on a stack buffer so the plaintext is never copied to the
    // heap. The only failure mode of GCM encryption is a plaintext longer
    // than 2^36 bytes, impossible for 32 bytes; should it ever happen we
    // return an empty blob, which `open_secret` rejects (fail closed).
    let Ok(tag) = cipher.encrypt_in_place_detached(&Nonce::from(nonce), aad, &mut buf) else {
        return Vec::new();
    };
    let mut out = Vec::with_capacity(SEALED_LEN);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&buf);
    out.extend_from_slice(&tag);
    out
}

/// The `tokenpad-signature` header of a webhook delivery, Stripe's scheme:
/// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret's text>`.
pub fn webhook_signature(secret: &str, t: u64, body: &str) -> String {
    use hmac::Mac;
    let mac = <hmac::Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).map(|mut mac| {
        mac.update(format!("{t}.").as_bytes());
        mac.update(body.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    });
    // HMAC takes keys of any length: the error cannot happen.
    format!("t={t},v1={}", mac.unwrap_or_default())
}

/// Decrypts a blob produced by [`seal_secret`].
///
/// Returns `None` on any failure (wrong length, wrong key, wrong `aad`,
/// tampering) without saying which, so failures leak nothing.
pub fn open_secret(key: &[u8; 32], sealed: &[u8], aad: &[u8]) -> Option<[u8; 32]> {
    if sealed.len() != SEALED_LEN {
        return None;
    }
    let (nonce, rest) = sealed.split_at_checked(NONCE_LEN)?;
    let (ciphertext, tag) = rest.split_at_checked(SECRET_LEN)?;
    let nonce: [u8; NONCE_LEN] = nonce.try_into().ok()?;
    let tag: [u8; TAG_LEN] = tag.try_into().ok()?;
    let mut buf: [u8; SECRET_LEN] = ciphertext.try_into().ok()?;
    let cipher = Aes256Gcm::new(key.into());
    cipher
        .decrypt_in_place_detached(&Nonce::from(nonce), aad, &mut buf, &Tag::from(tag))
        .ok()?;
    Some(buf)
}

/// Parses the key-encryption key from configuration: 64 hex digits (any
/// case), optionally prefixed with `0x`. Anything else is `None`, so a
/// truncated or mangled key is refused rather than silently used.
pub fn parse_encryption_key(hex: &str) -> Option<[u8; 32]> {
    parse_bytes32(hex)
}

/// 32 bytes from 64 hex digits, optionally `0x`-prefixed (a salt, a key, a hash).
pub fn parse_bytes32(hex: &str) -> Option<[u8; 32]> {
    let digits = hex.strip_prefix("0x").unwrap_or(hex);
    if digits.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    hex::decode_to_slice(digits, &mut out).ok()?;
    Some(out)
}

/// RLP of the two-item list `[deployer, nonce]`, and only that: a general
/// RLP crate would be overkill for one fixed shape.
///
/// - deployer: a 20-byte string, `0x80 + 20` then the bytes;
/// - nonce: an integer in minimal big-endian form, so 0 is the empty string
///   (`0x80`), 1..=0x7f is the byte itself, larger is `0x80 + len` then the
///   bytes;
/// - the list: payload is at most 1 + 20 + 1 + 8 = 30 < 56 bytes, so the
///   short form `0xc0 + len` applies.
pub fn create_payload(deployer: &[u8; 20], nonce: u64) -> Vec<u8> {
    let be = nonce.to_be_bytes();
    // leading_zeros() / 8 <= 8, so the range is always in bounds.
    let significant = be
        .get((nonce.leading_zeros() / 8) as usize..)
        .unwrap_or(&[]);
    let mut payload = Vec::with_capacity(31);
    payload.push(0x80 + 20);
    payload.extend_from_slice(deployer);
    match significant {
        [b] if *b < 0x80 => payload.push(*b),
        // len <= 8, so the cast cannot truncate.
        bytes => {
            payload.push(0x80 + bytes.len() as u8);
            payload.extend_from_slice(bytes);
        }
    }
    let mut out = Vec::with_capacity(payload.len() + 1);
    // payload.len() <= 30, so the cast cannot truncate.
    out.push(0xc0 + payload.len() as u8);
    out.extend_from_slice(&payload);
    out
}

/// Deterministic id for a transaction: keccak256 over each part prefixed
/// with its length as a u32 big-endian, so `["ab", "c"]` and `["a", "bc"]`
/// hash differently.
///
/// A part longer than u32::MAX bytes (not a realistic transaction field) has
/// its length prefix saturated rather than panicking.
pub fn tx_hash(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    for part in parts {
        let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
        hasher.update(len.to_be_bytes());
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// `0x` + lowercase hex, the conventional wire form for hashes and bytes.
pub fn hex0x(bytes: &[u8]) -> String {
    format!("0x{}", hex::encode(bytes))
}

/// SHA-256 as lowercase hex, for storing API keys as hashes rather than in
/// the clear. (API keys are high-entropy random tokens, so a fast unsalted
/// hash is adequate; this is not for passwords.)
pub fn sha256_hex(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use aes_gcm::aead::Aead;

    #[test]
    fn keccak_known_answers() {
        assert_eq!(
            hex0x(&keccak256(b"")),
            "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
        assert_eq!(
            hex0x(&keccak256(b"abc")),
            "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
        );
    }

    #[test]
    fn sha256_known_answers() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    const KEY: [u8; 32] = [7u8; 32];
    const NONCE: [u8; 12] = [9u8; 12];
    const SECRET: [u8; 32] = [0x5a; 32];
    const AAD: &[u8] = b"holder-address-bytes";

    #[test]
    fn seal_open_round_trip() {
        let sealed = seal_secret(&KEY, NONCE, &SECRET, AAD);
        assert_eq!(sealed.len(), SEALED_LEN);
        assert_eq!(&sealed[..12], &NONCE);
        assert_ne!(&sealed[12..44], &SECRET);
        assert_eq!(open_secret(&KEY, &sealed, AAD), Some(SECRET));
        // A different nonce gives a different blob that still opens.
        let other = seal_secret(&KEY, [1u8; 12], &SECRET, AAD);
        assert_ne!(other, sealed);
        assert_eq!(open_secret(&KEY, &other, AAD), Some(SECRET));
    }

    #[test]
    fn sealed_layout_is_nonce_then_standard_aead_output() {
        let sealed = seal_secret(&KEY, NONCE, &SECRET, AAD);
        let combined = Aes256Gcm::new(&KEY.into())
            .encrypt(
                &Nonce::from(NONCE),
                aes_gcm::aead::Payload {
                    msg: &SECRET,
                    aad: AAD,
                },
            )
            .unwrap();
        assert_eq!(&sealed[12..], combined.as_slice());
    }

    #[test]
    fn aes256gcm_known_answer() {
        // McGrew & Viega GCM spec, test case 14 (AES-256, zero key/IV, one
        // zero block), checked through our in-place path on a 2-block input:
        // the first ciphertext block must match the spec.
        let sealed = seal_secret(&[0u8; 32], [0u8; 12], &[0u8; 32], b"");
        assert_eq!(
            hex::encode(&sealed[12..28]),
            "cea7403d4d606b6e074ec5d3baf39d18"
        );
    }

    #[test]
    fn wrong_key_fails() {
        let sealed = seal_secret(&KEY, NONCE, &SECRET, AAD);
        let mut key = KEY;
        key[0] ^= 1;
        assert_eq!(open_secret(&key, &sealed, AAD), None);
    }

    #[test]
    fn wrong_aad_fails() {
        let sealed = seal_secret(&KEY, NONCE, &SECRET, AAD);
        assert_eq!(open_secret(&KEY, &sealed, b"another-holder"), None);
        assert_eq!(open_secret(&KEY, &sealed, b""), None);
    }

    #[test]
    fn any_tampered_bit_fails() {
        let sealed = seal_secret(&KEY, NONCE, &SECRET, AAD);
        for i in 0..sealed.len() {
            for bit in 0..8 {
                let mut t = sealed.clone();
                t[i] ^= 1 << bit;
                assert_eq!(open_secret(&KEY, &t, AAD), None, "byte {i} bit {bit}");
            }
        }
    }

    #[test]
    fn wrong_length_fails_without_panic() {
        let sealed = seal_secret(&KEY, NONCE, &SECRET, AAD);
        for len in 0..sealed.len() {
            assert_eq!(open_secret(&KEY, &sealed[..len], AAD), None, "len {len}");
        }
        let mut longer = sealed.clone();
        longer.push(0);
        assert_eq!(open_secret(&KEY, &longer, AAD), None);
    }

    #[test]
    fn parse_encryption_key_accepts_64_hex() {
        let h = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        let expected: [u8; 32] = hex::decode(h).unwrap().try_into().unwrap();
        assert_eq!(parse_encryption_key(h), Some(expected));
        assert_eq!(parse_encryption_key(&format!("0x{h}")), Some(expected));
    }

    #[test]
    fn parse_encryption_key_rejects_garbage() {
        let h = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        for bad in [
            String::new(),
            "0x".to_string(),
            h[..63].to_string(),
            h[..62].to_string(),
            format!("{h}0"),
            format!("{h}00"),
            format!("0x0x{}", &h[..62]),
            format!("{}zz", &h[..62]),
            format!(" {}", &h[..63]),
            format!("{}é", &h[..62]),
        ] {
            assert_eq!(parse_encryption_key(&bad), None, "{bad:?}");
        }
    }

    #[test]
    fn rlp_nonce_encoding() {
        let d = [0xaa; 20];
        let enc = |n: u64| {
            let v = create_payload(&d, n);
            assert_eq!(v[0] as usize, 0xc0 + v.len() - 1, "list header for {n}");
            assert_eq!(v[1], 0x94);
            assert_eq!(&v[2..22], &[0xaa; 20]);
            v[22..].to_vec()
        };
        assert_eq!(enc(0), [0x80]);
        assert_eq!(enc(1), [0x01]);
        assert_eq!(enc(0x7f), [0x7f]);
        assert_eq!(enc(0x80), [0x81, 0x80]);
        assert_eq!(enc(0xff), [0x81, 0xff]);
        assert_eq!(enc(0x100), [0x82, 0x01, 0x00]);
        assert_eq!(enc(0x0400), [0x82, 0x04, 0x00]);
        assert_eq!(
            enc(u64::MAX),
            [0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
        // Distinct nonces give distinct payloads, including at u64::MAX.
        assert_ne!(
            create_payload(&d, u64::MAX),
            create_payload(&d, u64::MAX - 1)
        );
    }

    #[test]
    fn tx_hash_is_length_prefixed() {
        assert_ne!(tx_hash(&[b"ab", b"c"]), tx_hash(&[b"a", b"bc"]));
        assert_ne!(tx_hash(&[b"abc"]), tx_hash(&[b"abc", b""]));
        assert_eq!(tx_hash(&[]), keccak256(b""));
        let manual = [&[0, 0, 0, 2][..], b"ab", &[0, 0, 0, 1], b"c"].concat();
        assert_eq!(tx_hash(&[b"ab", b"c"]), keccak256(&manual));
    }

    #[test]
    fn hex0x_is_lowercase_with_prefix() {
        assert_eq!(hex0x(&[]), "0x");
        assert_eq!(hex0x(&[0x00, 0xab, 0xCD, 0x0f]), "0x00abcd0f");
    }

    #[test]
    fn webhook_signatures_are_stripes_scheme() {
        // Checked with Python: hmac.new(b"whsec_test", b'1700000000.{"id":"evt_1"}', sha256).
        assert_eq!(
            webhook_signature("whsec_test", 1_700_000_000, r#"{"id":"evt_1"}"#),
            "t=1700000000,v1=c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
        );
    }
}
