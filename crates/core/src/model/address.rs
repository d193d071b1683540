//! Ethereum-style 20-byte account addresses.
//!
//! Parsing is deliberately lenient about letter case (our contract accepts
//! any case and does not enforce the EIP-55 checksum), while everything we
//! emit uses the EIP-55 mixed-case form so that wallets and explorers that do
//! check it are happy.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::crypto::{create_payload, keccak256, public_key_xy};
use crate::error::{Error, ErrorCode, FieldError, Result};

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

    /// Parses an address from outside: malformed is a 400 `invalid_address` naming `field`.
    pub fn parse_field(field: &str, text: &str) -> Result<Address> {
        Address::parse(text).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidAddress,
                "must be a 0x-prefixed 20-byte hex address",
            )
            .at_field(field)
        })
    }

    /// The Ethereum address controlled by a secp256k1 secret key: the last 20 bytes of
    /// keccak256 of the uncompressed public key. None when the bytes are not a valid secret
    /// scalar (zero, or not below the group order).
    pub fn of_secret(secret: &[u8; 32]) -> Option<Address> {
        Some(Address::from_hash(&keccak256(&public_key_xy(secret)?)))
    }

    /// The address of a contract deployed with CREATE by `deployer` at account nonce
    /// `nonce`: keccak256(rlp([deployer, nonce]))[12..]. Known before the deployment is mined.
    pub fn create(deployer: &Address, nonce: u64) -> Address {
        Address::from_hash(&keccak256(&create_payload(&deployer.0, nonce)))
    }

    /// The address of a contract `factory` deploys with CREATE2 for `deployer` under `salt`,
    /// when the factory namespaces salts by deployer (as tokenpad's does):
    /// keccak256(0xff ++ factory ++ keccak256(abi.encode(deployer, salt)) ++ code_hash)[12..].
    pub fn create2(
        factory: &Address,
        deployer: &Address,
        salt: &[u8; 32],
        code_hash: &[u8; 32],
    ) -> Address {
        let mut encoded = [0u8; 64];
        if let Some(slot) = encoded.get_mut(12..32) {
            slot.copy_from_slice(&deployer.0);
        }
        if let Some(slot) = encoded.get_mut(32..) {
            slot.copy_from_slice(salt);
        }
        Address::create2_salted(factory, &keccak256(&encoded), code_hash)
    }

    /// keccak256(0xff ++ factory ++ salt ++ code_hash)[12..]: CREATE2 with the salt as given.
    pub fn create2_salted(factory: &Address, salt: &[u8; 32], code_hash: &[u8; 32]) -> Address {
        let mut buf = Vec::with_capacity(85);
        buf.push(0xff);
        buf.extend_from_slice(&factory.0);
        buf.extend_from_slice(salt);
        buf.extend_from_slice(code_hash);
        Address::from_hash(&keccak256(&buf))
    }

    /// The Uniswap v3 pool of two tokens and a fee tier (`PoolAddress.computeAddress`): the
    /// factory's CREATE2 with salt keccak256(abi.encode(token0, token1, fee)), the tokens in
    /// address order.
    pub fn uniswap_v3_pool(
        factory: &Address,
        a: &Address,
        b: &Address,
        fee: u32,
        init_code_hash: &[u8; 32],
    ) -> Address {
        let (t0, t1) = if a < b { (a, b) } else { (b, a) };
        let mut encoded = [0u8; 96];
        for (slot, token) in [(12..32, t0), (44..64, t1)] {
            if let Some(s) = encoded.get_mut(slot) {
                s.copy_from_slice(&token.0);
            }
        }
        if let Some(s) = encoded.get_mut(92..96) {
            s.copy_from_slice(&fee.to_be_bytes());
        }
        Address::create2_salted(factory, &keccak256(&encoded), init_code_hash)
    }

    /// The low 20 bytes of a 32-byte hash.
    pub fn from_hash(hash: &[u8; 32]) -> Address {
        let mut out = [0u8; 20];
        out.copy_from_slice(hash.get(12..).unwrap_or(&[0u8; 20]));
        Address(out)
    }

    /// The EIP-55 mixed-case form (`0x...`): each letter is uppercased when
    /// the matching nibble of keccak256(lowercase hex) is >= 8, which lets
    /// checksum-aware clients catch typos.
    ///
    /// Remembered per thread ([`CHECKSUMS`]): a keccak per address was a tenth of the CPU of
    /// a 100-holder token read, and pages name the same addresses request after request.
    pub fn to_checksum(&self) -> String {
        self.checksum_text().as_str().to_string()
    }

    /// The EIP-55 form as text, without a heap allocation (what serializing writes).
    fn checksum_text(&self) -> ChecksumText {
        ChecksumText(self.checksum_bytes())
    }

    /// The EIP-55 form as ASCII bytes, remembered.
    fn checksum_bytes(&self) -> [u8; 42] {
        let known = CHECKSUMS.with(|c| c.try_borrow().ok()?.get(&self.0).copied());
        known.unwrap_or_else(|| {
            let form = self.checksum_form();
            CHECKSUMS.with(|c| {
                if let Ok(mut c) = c.try_borrow_mut() {
                    if c.len() >= CHECKSUMS_KEPT {
                        c.clear();
                    }
                    c.insert(self.0, form);
                }
            });
            form
        })
    }

    /// The EIP-55 form computed, as ASCII bytes.
    fn checksum_form(&self) -> [u8; 42] {
        let mut lower = [0u8; 40];
        // 40 bytes for 20: hex encoding into a buffer of exactly that size cannot fail.
        let _ = hex::encode_to_slice(self.0, &mut lower);
        let hash = keccak256(&lower);
        let nibbles = hash.iter().flat_map(|h| [h >> 4, h & 0x0f]);
        let digits = lower
            .iter()
            .zip(nibbles)
            .map(|(&c, n)| if n >= 8 { c.to_ascii_uppercase() } else { c });
        let mut out = [0u8; 42];
        for (o, c) in out.iter_mut().zip(b"0x".iter().copied().chain(digits)) {
            *o = c;
        }
        out
    }
}

/// How many EIP-55 forms a thread remembers; the map is emptied when full (some 400 KB at
/// most), so a merchant with more addresses than this pays a keccak now and then, never
/// unbounded memory.
const CHECKSUMS_KEPT: usize = 4096;

thread_local! {
    /// EIP-55 forms already computed, by address. The same address always has the same
    /// form: remembering one changes no answer.
    static CHECKSUMS: RefCell<HashMap<[u8; 20], [u8; 42]>> = RefCell::new(HashMap::new());
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.checksum_text().as_str())
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Address({})", self.to_checksum())
    }
}

impl Serialize for Address {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.checksum_text().as_str())
    }
}

/// An address's EIP-55 form on the stack: `0x` and 40 hex digits, ASCII.
struct ChecksumText([u8; 42]);

impl ChecksumText {
    fn as_str(&self) -> &str {
        // Always ASCII (`checksum_form` writes `0x` and hex digits); the empty string would
        // show a broken form rather than panic.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for Address {
    /// A string in any letter case. In a request, anything else is a 400 `invalid_address`
    /// naming the field (null is a missing field).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let invalid = |why: &str| FieldError::new(ErrorCode::InvalidAddress, why).into_de();
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(s) => Address::parse(&s)
                .ok_or_else(|| invalid("must be a 0x-prefixed 20-byte hex address")),
            serde_json::Value::Null => Err(FieldError::missing().into_de()),
            _ => Err(invalid("must be an address string")),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn uniswap_v3_pool_addresses_are_the_factorys() {
        // Mainnet's USDC/WETH pools (0.05 % and 0.3 %), from Uniswap's factory.
        let p = |s: &str| Address::parse(s).unwrap();
        let factory = p("0x1F98431c8aD98523631AE4a59f267346ea31F984");
        let (usdc, weth) = (
            p("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"),
            p("0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"),
        );
        let init = crate::model::chain::UNISWAP_V3_POOL_INIT_CODE_HASH;
        for (fee, pool) in [
            (500, "0x88e6A0c2dDD26FEEb64F039a2c41296FcB3f5640"),
            (3000, "0x8ad599c3A0ff1De082011EFDDc58f1908eb6e6D8"),
        ] {
            assert_eq!(
                Address::uniswap_v3_pool(&factory, &usdc, &weth, fee, &init),
                p(pool)
            );
            assert_eq!(
                Address::uniswap_v3_pool(&factory, &weth, &usdc, fee, &init),
                p(pool)
            );
        }
    }

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
    fn remembered_forms_are_the_computed_ones() {
        // Twice each (the second from memory), and past the bound (the map emptied and
        // filled again): every answer is the form computed afresh.
        for round in 0..2 {
            for v in EIP55 {
                let a = Address::parse(v).unwrap();
                assert_eq!(a.to_checksum(), v, "round {round}");
            }
        }
        for i in 0..(CHECKSUMS_KEPT as u32 + 10) {
            let mut bytes = [7u8; 20];
            for (b, x) in bytes.iter_mut().zip(i.to_be_bytes()) {
                *b = x;
            }
            let a = Address(bytes);
            let fresh: String = a.checksum_form().iter().map(|&b| char::from(b)).collect();
            assert_eq!(a.to_checksum(), fresh);
            assert_eq!(a.to_checksum(), fresh);
        }
        assert!(CHECKSUMS.with(|c| c.borrow().len()) <= CHECKSUMS_KEPT);
        for v in EIP55 {
            assert_eq!(Address::parse(v).unwrap().to_checksum(), v);
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
        let err = serde_json::from_value::<Address>(serde_json::json!("0x1234")).unwrap_err();
        let fe = FieldError::from_message(&err.to_string()).unwrap();
        assert_eq!(fe.code, ErrorCode::InvalidAddress);
        assert!(serde_json::from_str::<Address>("42").is_err());
    }

    #[test]
    fn contract_address_vectors() {
        let deployer = Address::parse("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0").unwrap();
        assert_eq!(
            Address::create(&deployer, 0),
            Address::parse("0xcd234a471b72ba2f1ccf0a70fcaba648a5eecd8d").unwrap()
        );
        assert_eq!(
            Address::create(&deployer, 1),
            Address::parse("0x343c43a37d37dff08ae8c4a11544c718abb4fcf8").unwrap()
        );
        assert_eq!(
            Address::create(&deployer, 2),
            Address::parse("0xf778b86fa74e846c4f0a1fbd1335fe81c00a0c91").unwrap()
        );
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
