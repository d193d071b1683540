//! Ethereum-style 20-byte account addresses.
//!
//! Parsing is deliberately lenient about letter case (our contract accepts
//! any case and does not enforce the EIP-55 checksum), while everything we
//! emit uses the EIP-55 mixed-case form so that wallets and explorers that do
//! check it are happy.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::crypto::keccak256;

/// A 20-byte account address.
///
/// `Debug` and `Display` both show the checksum form, because raw byte arrays
/// are unreadable in logs and test failures.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Address(pub [u8; 20]);

impl Address {
    /// The all-zero address, used as a "no account" placeholder.
    pub const ZERO: Address = Address([0u8; 20]);

    /// Parses `0x` followed by exactly 40 hex digits, in any letter case.
    ///
    /// The checksum is not enforced (per our contract), so all-lowercase and
    /// all-uppercase inputs are accepted as well as EIP-55 mixed case. The
    /// `0x` prefix itself must be lowercase, as Ethereum tooling writes it.
    pub fn parse(s: &str) -> Option<Address> {
        let digits = s.strip_prefix("0x")?;
        if digits.len() != 40 {
            return None;
        }
        let mut out = [0u8; 20];
        hex::decode_to_slice(digits, &mut out).ok()?;
        Some(Address(out))
    }

    /// The EIP-55 mixed-case form (`0x...`): each letter is uppercased when
    /// the matching nibble of keccak256(lowercase hex) is >= 8, which lets
    /// checksum-aware clients catch typos.
    pub fn to_checksum(&self) -> String {
        let lower = hex::encode(self.0);
        let hash = keccak256(lower.as_bytes());
        let nibbles = hash.iter().flat_map(|h| [h >> 4, h & 0x0f]);
        let mut out = String::with_capacity(42);
        out.push_str("0x");
        out.extend(lower.chars().zip(nibbles).map(
            |(c, n)| {
                if n >= 8 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            },
        ));
        out
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_checksum())
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Address({})", self.to_checksum())
    }
}

impl Serialize for Address {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_checksum())
    }
}

impl<'de> Deserialize<'de> for Address {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(AddressVisitor)
    }
}

/// Visitor so both borrowed and owned (e.g. escaped) strings are accepted
/// without an intermediate `String` allocation.
struct AddressVisitor;

impl Visitor<'_> for AddressVisitor {
    type Value = Address;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a 0x-prefixed 20-byte hex address")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Address, E> {
        Address::parse(v).ok_or_else(|| E::custom("invalid address"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Test vectors from EIP-55 itself.
    const EIP55: [&str; 8] = [
        // All caps
        "0x52908400098527886E0F7030069857D2E4169EE7",
        "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
        // All lower
        "0xde709f2102306220921060314715629080e2fb77",
        "0x27b1fdb04752bbc536007a920d24acb045561c26",
        // Normal
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
        "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ];

    #[test]
    fn eip55_vectors_round_trip() {
        for v in EIP55 {
            let a = Address::parse(v).expect(v);
            assert_eq!(a.to_checksum(), v);
            assert_eq!(a.to_string(), v);
        }
    }

    #[test]
    fn any_case_is_accepted() {
        for v in EIP55 {
            let expected = Address::parse(v).unwrap();
            let digits = &v[2..];
            let lower = format!("0x{}", digits.to_ascii_lowercase());
            let upper = format!("0x{}", digits.to_ascii_uppercase());
            assert_eq!(Address::parse(&lower), Some(expected));
            assert_eq!(Address::parse(&upper), Some(expected));
        }
        // A wrong checksum is not rejected: the contract does not enforce it.
        let wrong = "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        assert_eq!(
            Address::parse(wrong).unwrap().to_checksum(),
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
        );
    }

    #[test]
    fn malformed_input_is_rejected() {
        let good = "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        let bad = [
            "".to_string(),
            "0x".to_string(),
            good.to_string(),              // missing 0x
            format!("0X{good}"),           // prefix must be lowercase
            format!("0x{}", &good[..39]),  // 39 digits
            format!("0x{good}0"),          // 41 digits
            format!("0x{}", &good[..38]),  // 19 bytes
            format!("0x{good}00"),         // 21 bytes
            format!("0x{}g", &good[..39]), // non-hex char
            format!("0x{}é", &good[..38]), // non-ASCII, 40 bytes
            format!(" 0x{good}"),          // whitespace
            format!("0x{good} "),
            format!("0x{}", "-".repeat(40)),
        ];
        for s in &bad {
            assert_eq!(Address::parse(s), None, "{s:?}");
        }
    }

    #[test]
    fn zero_address() {
        assert_eq!(
            Address::ZERO.to_checksum(),
            "0x0000000000000000000000000000000000000000"
        );
        assert_eq!(
            Address::parse("0x0000000000000000000000000000000000000000"),
            Some(Address::ZERO)
        );
    }

    #[test]
    fn serde_uses_checksum_and_parse() {
        let a = Address::parse("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed").unwrap();
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, "\"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed\"");
        let back: Address = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
        // Lowercase and escaped (owned) strings deserialize too.
        let lower: Address =
            serde_json::from_str("\"0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed\"").unwrap();
        assert_eq!(lower, a);
        let escaped: Address =
            serde_json::from_str("\"\\u0030x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed\"").unwrap();
        assert_eq!(escaped, a);
    }

    #[test]
    fn serde_rejects_bad_address() {
        let err = serde_json::from_str::<Address>("\"0x1234\"").unwrap_err();
        assert!(err.to_string().contains("invalid address"), "{err}");
        assert!(serde_json::from_str::<Address>("42").is_err());
    }

    #[test]
    fn debug_shows_checksum() {
        let a = Address::parse("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed").unwrap();
        assert_eq!(
            format!("{a:?}"),
            "Address(0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed)"
        );
    }
}
