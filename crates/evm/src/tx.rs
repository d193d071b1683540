//! EIP-1559 (type 2) transactions, signed here so the relayer's key never leaves the Worker
//! and no node-side signer (eth_sendTransaction) is needed.

use alloy_primitives::{keccak256, U256};
use alloy_rlp::{BufMut, Encodable, Header, RlpEncodable};

use crate::error::Result;
use crate::key;

/// The EIP-2718 type byte of an EIP-1559 transaction.
const TYPE_EIP1559: u8 = 0x02;

/// An unsigned EIP-1559 transaction with an empty access list. Fees are in wei per gas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eip1559 {
    /// EIP-155 chain id (8453 Base, 84532 Base Sepolia, 31337 anvil).
    pub chain_id: u64,
    /// The sender's account nonce; a replacement reuses it (see [`bump`]).
    pub nonce: u64,
    /// Tip to the block producer.
    pub max_priority_fee_per_gas: u128,
    /// Ceiling on base fee + tip.
    pub max_fee_per_gas: u128,
    /// Gas the transaction may use at most.
    pub gas_limit: u64,
    /// The callee; `None` creates a contract from `data`.
    pub to: Option<[u8; 20]>,
    /// Wei sent along (zero for token calls).
    pub value: u128,
    /// Calldata, or init code for a creation.
    pub data: Vec<u8>,
}

/// A signed transaction: `raw` goes to `eth_sendRawTransaction`, `hash` identifies it before
/// the node answers (store it first: a send that times out may still have landed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedTx {
    /// `0x02 ‖ rlp([chain_id, nonce, max_priority_fee_per_gas, max_fee_per_gas, gas_limit, to,
    /// value, data, access_list, y_parity, r, s])`.
    pub raw: Vec<u8>,
    /// `keccak256(raw)`, the transaction hash.
    pub hash: [u8; 32],
}

/// The `to` field: an address, or the empty string for a contract creation. alloy-rlp has no
/// `Option` encoding (its meaning differs between formats), hence this wrapper.
struct To<'a>(Option<&'a [u8; 20]>);

impl Encodable for To<'_> {
    fn encode(&self, out: &mut dyn BufMut) {
        match self.0 {
            Some(address) => address.encode(out),
            None => [0u8; 0].encode(out),
        }
    }
    fn length(&self) -> usize {
        match self.0 {
            Some(address) => address.length(),
            None => [0u8; 0].length(),
        }
    }
}

/// An empty access list: the empty RLP list. (Typed lists need an element type; this crate
/// never sends access list entries.)
struct EmptyList;

impl Encodable for EmptyList {
    fn encode(&self, out: &mut dyn BufMut) {
        Header {
            list: true,
            payload_length: 0,
        }
        .encode(out);
    }
    fn length(&self) -> usize {
        1
    }
}

/// The fields that are signed, in EIP-1559's order.
#[derive(RlpEncodable)]
struct Unsigned<'a> {
    chain_id: u64,
    nonce: u64,
    max_priority_fee_per_gas: u128,
    max_fee_per_gas: u128,
    gas_limit: u64,
    to: To<'a>,
    value: u128,
    data: &'a [u8],
    access_list: EmptyList,
}

/// The signed envelope's fields: the unsigned ones followed by the signature.
#[derive(RlpEncodable)]
struct Signed<'a> {
    chain_id: u64,
    nonce: u64,
    max_priority_fee_per_gas: u128,
    max_fee_per_gas: u128,
    gas_limit: u64,
    to: To<'a>,
    value: u128,
    data: &'a [u8],
    access_list: EmptyList,
    y_parity: bool,
    r: U256,
    s: U256,
}

fn unsigned(tx: &Eip1559) -> Unsigned<'_> {
    Unsigned {
        chain_id: tx.chain_id,
        nonce: tx.nonce,
        max_priority_fee_per_gas: tx.max_priority_fee_per_gas,
        max_fee_per_gas: tx.max_fee_per_gas,
        gas_limit: tx.gas_limit,
        to: To(tx.to.as_ref()),
        value: tx.value,
        data: &tx.data,
        access_list: EmptyList,
    }
}

fn typed(payload: &impl Encodable) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + payload.length());
    out.push(TYPE_EIP1559);
    payload.encode(&mut out);
    out
}

/// The hash the sender signs: `keccak256(0x02 ‖ rlp(unsigned fields))`.
pub fn signing_hash(tx: &Eip1559) -> [u8; 32] {
    keccak256(typed(&unsigned(tx))).0
}

/// Signs `tx` with the sender's secret key (deterministically, RFC 6979, low `s`).
pub fn sign(tx: &Eip1559, secret: &[u8; 32]) -> Result<SignedTx> {
    let sig = key::sign_hash(secret, &signing_hash(tx))?;
    let u = unsigned(tx);
    let raw = typed(&Signed {
        chain_id: u.chain_id,
        nonce: u.nonce,
        max_priority_fee_per_gas: u.max_priority_fee_per_gas,
        max_fee_per_gas: u.max_fee_per_gas,
        gas_limit: u.gas_limit,
        to: u.to,
        value: u.value,
        data: u.data,
        access_list: u.access_list,
        y_parity: sig.y_odd,
        r: U256::from_be_bytes(sig.r),
        s: U256::from_be_bytes(sig.s),
    });
    let hash = keccak256(&raw).0;
    Ok(SignedTx { raw, hash })
}

/// A same-nonce replacement for a stuck `tx`: both fee fields raised by at least `percent`
/// (rounded up, and by at least 1 wei), everything else unchanged. geth and reth accept a
/// replacement only if both fees rise by at least 10 % (their default price bump), so pass 10
/// or more; anvil accepts any rise, so a local run does not prove the bump is enough.
/// Saturates at `u128::MAX` rather than wrapping.
pub fn bump(tx: &Eip1559, percent: u32) -> Eip1559 {
    Eip1559 {
        max_priority_fee_per_gas: raise(tx.max_priority_fee_per_gas, percent),
        max_fee_per_gas: raise(tx.max_fee_per_gas, percent),
        ..tx.clone()
    }
}

/// `fee + max(1, ceil(fee * percent / 100))`, computed without overflowing the intermediate
/// product: fee = 100q + r, so fee * p / 100 = q * p + r * p / 100.
fn raise(fee: u128, percent: u32) -> u128 {
    let p = u128::from(percent);
    let q = fee / 100;
    let r = fee % 100;
    let increase = q
        .saturating_mul(p)
        .saturating_add((r * p).div_ceil(100))
        .max(1);
    fee.saturating_add(increase)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn tx() -> Eip1559 {
        Eip1559 {
            chain_id: 31337,
            nonce: 3,
            max_priority_fee_per_gas: 1_000_000_000,
            max_fee_per_gas: 3_000_000_000,
            gas_limit: 100_000,
            to: Some([0x11; 20]),
            value: 0,
            data: vec![0xa9, 0x05, 0x9c, 0xbb],
        }
    }

    #[test]
    fn raise_rounds_up_and_moves_at_least_one_wei() {
        assert_eq!(raise(100, 10), 110);
        assert_eq!(raise(15, 10), 17); // 1.5 rounds up to 2
        assert_eq!(raise(1, 10), 2);
        assert_eq!(raise(0, 10), 1);
        assert_eq!(raise(1_000, 0), 1_001);
        assert_eq!(raise(199, 12), 199 + 24); // 23.88 rounds up to 24
        assert_eq!(
            raise(10u128.pow(30) + 1, 13),
            10u128.pow(30) + 1 + 13 * 10u128.pow(28) + 1
        );
        assert_eq!(raise(u128::MAX, 10), u128::MAX);
        assert_eq!(raise(u128::MAX / 2, u32::MAX), u128::MAX);
    }

    #[test]
    fn bump_raises_both_fees_by_the_percentage_and_keeps_the_rest() {
        let old = tx();
        let new = bump(&old, 10);
        assert_eq!(new.max_priority_fee_per_gas, 1_100_000_000);
        assert_eq!(new.max_fee_per_gas, 3_300_000_000);
        assert_eq!(
            Eip1559 {
                max_priority_fee_per_gas: old.max_priority_fee_per_gas,
                max_fee_per_gas: old.max_fee_per_gas,
                ..new
            },
            old
        );
    }

    #[test]
    fn envelope_is_typed_and_hashed() {
        let signed = sign(&tx(), &[0x22; 32]).unwrap();
        assert_eq!(signed.raw[0], TYPE_EIP1559);
        assert_eq!(signed.hash, keccak256(&signed.raw).0);
        // The rest is one RLP list spanning exactly the remaining bytes.
        let mut rest = &signed.raw[1..];
        let header = Header::decode(&mut rest).unwrap();
        assert!(header.list);
        assert_eq!(header.payload_length, rest.len());
        // A different key, nonce or callee gives a different transaction.
        assert_ne!(sign(&tx(), &[0x23; 32]).unwrap().hash, signed.hash);
        assert_ne!(
            sign(&Eip1559 { nonce: 4, ..tx() }, &[0x22; 32])
                .unwrap()
                .hash,
            signed.hash
        );
        assert_ne!(
            signing_hash(&Eip1559 { to: None, ..tx() }),
            signing_hash(&tx())
        );
        assert!(sign(&tx(), &[0; 32]).is_err());
    }

    #[test]
    fn creation_encodes_to_as_the_empty_string() {
        let mut out = Vec::new();
        To(None).encode(&mut out);
        assert_eq!(out, [0x80]);
        assert_eq!(To(None).length(), 1);
        let mut out = Vec::new();
        To(Some(&[0xab; 20])).encode(&mut out);
        assert_eq!(out.len(), 21);
        assert_eq!(out[0], 0x80 + 20);
        let mut out = Vec::new();
        EmptyList.encode(&mut out);
        assert_eq!(out, [0xc0]);
    }
}
