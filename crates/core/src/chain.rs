//! The embedded chain: the default backend behind the chain port. It is the merchant's own
//! ledger presented as a chain: every movement gets a keccak transaction hash, transactions
//! land in 2-second blocks, and contracts deploy at the Ethereum CREATE address of the
//! merchant's wallet and nonce, so addresses are deterministic and never collide.
//!
//! Its state (the deploy nonce and a transaction counter) is one small document in the
//! merchant's store, updated in the same transaction as the movement it records.

use crate::address::Address;
use crate::crypto;
use crate::error::{Error, Result};
use crate::store::Store;
use crate::time::Millis;
use serde::{Deserialize, Serialize};

pub const BLOCK_MS: Millis = 2_000;
const STATE_KEY: &str = "chain";

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainState {
    /// The merchant wallet's next CREATE nonce.
    pub deploy_nonce: u64,
    /// Transactions submitted so far; part of every hash, so no two hashes are equal.
    pub tx_count: u64,
    /// Fault injection (local runs and tests only): this many of the next fallible
    /// submissions fail, so retries and backoff can be exercised end to end.
    #[serde(default)]
    pub fail_next: u32,
}

/// The block a transaction submitted at `at` is mined in.
pub fn block_number(at: Millis) -> u64 {
    at / BLOCK_MS
}

/// When a transaction submitted at `at` is mined: the start of the next block.
pub fn mined_at(submitted: Millis) -> Millis {
    (submitted / BLOCK_MS + 1) * BLOCK_MS
}

fn load(store: &dyn Store) -> Result<ChainState> {
    match store.meta(STATE_KEY)? {
        None => Ok(ChainState::default()),
        Some(v) => {
            serde_json::from_value(v).map_err(|e| Error::internal(format!("chain state: {e}")))
        }
    }
}

fn save(store: &mut dyn Store, state: &ChainState) -> Result<()> {
    let v =
        serde_json::to_value(state).map_err(|e| Error::internal(format!("chain state: {e}")))?;
    store.put_meta(STATE_KEY, &v)
}

/// Submits a transaction: returns its hash (0x + 64 hex). `merchant` scopes the hash so two
/// merchants' chains never produce the same one.
pub fn submit(
    store: &mut dyn Store,
    merchant: &str,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<String> {
    let mut state = load(store)?;
    state.tx_count = state
        .tx_count
        .checked_add(1)
        .ok_or_else(|| Error::internal("tx counter overflow"))?;
    let count = state.tx_count.to_be_bytes();
    let at_bytes = at.to_be_bytes();
    let mut all: Vec<&[u8]> = vec![merchant.as_bytes(), kind.as_bytes(), &count, &at_bytes];
    all.extend_from_slice(parts);
    save(store, &state)?;
    Ok(crypto::hex0x(&crypto::tx_hash(&all)))
}

/// Why a chain submission did not go through. Callers that can retry (presale completion
/// steps) record it and try again later; it is not a request error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainFailure(pub String);

/// Submits a transaction that may fail, as a real chain's can. The embedded chain fails only
/// when faults were injected; the failure is counted down and committed with the caller's
/// retry bookkeeping.
pub fn try_submit(
    store: &mut dyn Store,
    merchant: &str,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<std::result::Result<String, ChainFailure>> {
    let mut state = load(store)?;
    if state.fail_next > 0 {
        state.fail_next -= 1;
        save(store, &state)?;
        return Ok(Err(ChainFailure(format!(
            "{kind}: transaction reverted (injected fault)"
        ))));
    }
    submit(store, merchant, kind, parts, at).map(Ok)
}

/// Makes the next `count` fallible submissions fail (local runs and tests).
pub fn inject_faults(store: &mut dyn Store, count: u32) -> Result<()> {
    let mut state = load(store)?;
    state.fail_next = count;
    save(store, &state)
}

/// Reserves the next contract address of `deployer` (a CREATE from the merchant wallet).
pub fn next_contract_address(store: &mut dyn Store, deployer: &Address) -> Result<Address> {
    let mut state = load(store)?;
    let address = crypto::contract_address(deployer, state.deploy_nonce);
    state.deploy_nonce = state
        .deploy_nonce
        .checked_add(1)
        .ok_or_else(|| Error::internal("nonce overflow"))?;
    save(store, &state)?;
    Ok(address)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::mem::MemStore;

    #[test]
    fn hashes_are_unique_and_addresses_follow_create() {
        let mut s = MemStore::default();
        let a = submit(&mut s, "m", "spend", &[b"x"], 5).unwrap();
        let b = submit(&mut s, "m", "spend", &[b"x"], 5).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 66);
        let deployer = Address::parse("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0").unwrap();
        let first = next_contract_address(&mut s, &deployer).unwrap();
        assert_eq!(first, crypto::contract_address(&deployer, 0));
        assert_eq!(
            next_contract_address(&mut s, &deployer).unwrap(),
            crypto::contract_address(&deployer, 1)
        );
        assert_eq!(mined_at(0), 2_000);
        assert_eq!(mined_at(1_999), 2_000);
        assert_eq!(mined_at(2_000), 4_000);
    }
}
