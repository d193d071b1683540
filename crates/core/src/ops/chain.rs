//! The embedded chain: the default backend behind the chain port. It is the merchant's own
//! ledger presented as a chain: every movement gets a keccak transaction hash, transactions
//! land in 2-second blocks (`model::chain`), and contracts deploy at the Ethereum CREATE
//! address of the merchant's wallet and nonce, so addresses are deterministic and never
//! collide. Its state is one small record, updated in the same transaction as the movement
//! it records.

use super::Ctx;
use crate::crypto;
use crate::error::{Error, Result};
use crate::model::address::Address;
use crate::model::ids::TokenAddress;
use crate::model::time::Millis;
use crate::store::Store;

/// Submits a transaction at `at`: returns its hash (0x + 64 hex). The merchant's id scopes
/// the hash so two merchants' chains never produce the same one.
pub fn submit(
    store: &mut dyn Store,
    ctx: &Ctx,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<String> {
    let mut state = store.chain_state()?;
    state.tx_count = state
        .tx_count
        .checked_add(1)
        .ok_or_else(|| Error::internal("tx counter overflow"))?;
    let count = state.tx_count.to_be_bytes();
    let at_bytes = at.to_be_bytes();
    let mut all: Vec<&[u8]> = vec![
        ctx.merchant.id.as_str().as_bytes(),
        kind.as_bytes(),
        &count,
        &at_bytes,
    ];
    all.extend_from_slice(parts);
    store.put_chain_state(&state)?;
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
    ctx: &Ctx,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<std::result::Result<String, ChainFailure>> {
    let mut state = store.chain_state()?;
    if state.fail_next > 0 {
        state.fail_next -= 1;
        store.put_chain_state(&state)?;
        return Ok(Err(ChainFailure(format!(
            "{kind}: transaction reverted (injected fault)"
        ))));
    }
    submit(store, ctx, kind, parts, at).map(Ok)
}

/// Makes the next `count` fallible submissions fail (local runs and tests).
pub fn inject_faults(store: &mut dyn Store, count: u32) -> Result<()> {
    let mut state = store.chain_state()?;
    state.fail_next = count;
    store.put_chain_state(&state)
}

/// Reserves the next contract address of `deployer` (a CREATE from the merchant wallet).
pub fn next_contract_address(store: &mut dyn Store, deployer: &Address) -> Result<TokenAddress> {
    let mut state = store.chain_state()?;
    let address = Address::create(deployer, state.deploy_nonce);
    state.deploy_nonce = state
        .deploy_nonce
        .checked_add(1)
        .ok_or_else(|| Error::internal("nonce overflow"))?;
    store.put_chain_state(&state)?;
    Ok(TokenAddress(address))
}

/// Opens a liquidity position: its id (Metal's `lpInfo.nftId`) and the pool's address, which
/// is made from the token's, so one token has one pool.
pub fn open_position(store: &mut dyn Store, token: &TokenAddress) -> Result<(u64, Address)> {
    let mut state = store.chain_state()?;
    state.positions = state
        .positions
        .checked_add(1)
        .ok_or_else(|| Error::internal("position counter overflow"))?;
    store.put_chain_state(&state)?;
    let mut seed = b"tokenpad pool".to_vec();
    seed.extend_from_slice(&token.address().0);
    Ok((
        state.positions,
        Address::from_hash(&crypto::keccak256(&seed)),
    ))
}
