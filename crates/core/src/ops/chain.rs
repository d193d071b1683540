//! The chain port, as operations see it. An operation records its movements in the ledger
//! and asks this module two things: a [`Stamp`] for its history records (the transaction
//! hash and status the chain gives them), and, after writing them, to [`intend`] what must
//! happen on chain.
//!
//! - The embedded chain (the default) is the merchant's own ledger presented as a chain:
//!   every movement gets a keccak transaction hash at once, transactions land in 2-second
//!   blocks (`model::chain`), contracts deploy at the Ethereum CREATE address of the
//!   merchant's wallet and nonce. Nothing is queued.
//! - On an EVM chain a movement has no hash yet: its records say `pending`, and an intent
//!   (`model::intent`) is written in the same transaction; the worker's settler sends it and
//!   reports back through `ops::settle`. A token's address is the CREATE2 address the
//!   tokenpad factory will deploy it at.

use super::Ctx;
use crate::crypto;
use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::chain::{
    block_number, mined_at, ChainMode, ChainState, UNISWAP_V3_POOL_INIT_CODE_HASH,
};
use crate::model::history::ChainStatus;
use crate::model::ids::TokenAddress;
use crate::model::intent::{Account, Action, Intent};
use crate::model::time::Millis;
use crate::model::token::Network;
use crate::store::Store;

/// What the chain says of a movement when it is recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Unique per movement: the base of its history records' ids.
    pub id: String,
    /// The transaction hash, once there is one (never invented).
    pub hash: Option<String>,
    pub status: ChainStatus,
    pub block: Option<u64>,
}

/// Advances one of the chain state's counters by one; returns the value it had before.
fn take_next(
    store: &mut dyn Store,
    counter: fn(&mut ChainState) -> &mut u64,
    what: &str,
) -> Result<u64> {
    let mut state = store.chain_state()?;
    let slot = counter(&mut state);
    let taken = *slot;
    *slot = taken
        .checked_add(1)
        .ok_or_else(|| Error::internal(format!("{what} overflow")))?;
    store.put_chain_state(&state)?;
    Ok(taken)
}

/// The next movement's number (1, 2, ...): part of every hash, so no two are equal.
fn next_count(store: &mut dyn Store) -> Result<u64> {
    Ok(take_next(store, |s| &mut s.tx_count, "tx counter")?.saturating_add(1))
}

/// The embedded chain's transaction hash of a movement at `at` (0x + 64 hex). The merchant's
/// id scopes it so two merchants' chains never produce the same one.
fn embedded_hash(
    store: &mut dyn Store,
    ctx: &Ctx,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<String> {
    let count = next_count(store)?.to_be_bytes();
    let at_bytes = at.to_be_bytes();
    let mut all: Vec<&[u8]> = vec![
        ctx.merchant.id.as_str().as_bytes(),
        kind.as_bytes(),
        &count,
        &at_bytes,
    ];
    all.extend_from_slice(parts);
    Ok(crypto::hex0x(&crypto::tx_hash(&all)))
}

/// The stamp of a movement at `at`. `kind` and `parts` make the embedded chain's hash.
pub fn stamp(
    store: &mut dyn Store,
    ctx: &Ctx,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<Stamp> {
    match &ctx.chain {
        ChainMode::Embedded => {
            let hash = embedded_hash(store, ctx, kind, parts, at)?;
            Ok(Stamp {
                id: hash.clone(),
                hash: Some(hash),
                status: ChainStatus::Confirmed,
                block: Some(block_number(mined_at(at))),
            })
        }
        ChainMode::Evm(_) => Ok(Stamp {
            id: format!("mv{}", next_count(store)?),
            hash: None,
            status: ChainStatus::Pending,
            block: None,
        }),
    }
}

/// The stamp of a change that moves nothing on chain (an unlock): the embedded chain still
/// gives it a hash; on an EVM chain it has none and is final at once.
pub fn ledger_only(
    store: &mut dyn Store,
    ctx: &Ctx,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<Stamp> {
    let mut s = stamp(store, ctx, kind, parts, at)?;
    if ctx.chain.is_evm() {
        s.status = ChainStatus::Confirmed;
    }
    Ok(s)
}

/// Queues what must happen on chain (nothing on the embedded chain), in the caller's
/// transaction: the outbox. Its records are the history records that show the movement. A
/// holder's own transfer takes the holder's next authorization nonce here, in the same
/// transaction (`Intent::auth_nonce`).
pub fn intend(store: &mut dyn Store, ctx: &Ctx, mut intent: Intent) -> Result<()> {
    if !ctx.chain.is_evm() {
        return Ok(());
    }
    if let Action::Transfer { from, to, amount } = &intent.action {
        // Both ends in the treasury (a presale's signer, the reserve, a pool): nothing moves.
        if from == to || amount.is_zero() {
            return Ok(());
        }
        if let Account::Wallet(holder) = from {
            intent.auth_nonce = Some(store.take_auth_nonce(holder)?);
        }
    }
    store.enqueue_intent(&intent)?;
    Ok(())
}

/// An intent to do `action` on `token`, made now.
pub fn want(ctx: &Ctx, token: TokenAddress, action: Action) -> Intent {
    Intent::new(token, action, ctx.now)
}

/// A transfer of `amount` of `token` between two chain accounts.
pub fn transfer(from: Account, to: Account, amount: Units) -> Action {
    Action::Transfer { from, to, amount }
}

/// The chain account of a ledger address: the merchant's wallet is the treasury.
pub fn account(ctx: &Ctx, address: Address) -> Account {
    if address == ctx.merchant.address {
        Account::Treasury
    } else {
        Account::Wallet(address)
    }
}

/// Why a chain submission did not go through. Callers that can retry (presale completion
/// steps) record it and try again later; it is not a request error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainFailure(pub String);

/// Submits a transaction that may fail, as a real chain's can. The embedded chain fails only
/// when faults were injected (the failure is counted down and committed with the caller's
/// retry bookkeeping) and otherwise returns its hash. On an EVM chain the step's movements
/// are intents: there is no hash to give yet (None).
pub fn try_submit(
    store: &mut dyn Store,
    ctx: &Ctx,
    kind: &str,
    parts: &[&[u8]],
    at: Millis,
) -> Result<std::result::Result<Option<String>, ChainFailure>> {
    let mut state = store.chain_state()?;
    if state.fail_next > 0 {
        state.fail_next -= 1;
        store.put_chain_state(&state)?;
        return Ok(Err(ChainFailure(format!(
            "{kind}: transaction reverted (injected fault)"
        ))));
    }
    match &ctx.chain {
        ChainMode::Embedded => Ok(Ok(Some(embedded_hash(store, ctx, kind, parts, at)?))),
        ChainMode::Evm(_) => Ok(Ok(None)),
    }
}

/// Makes the next `count` fallible submissions fail (local runs and tests).
pub fn inject_faults(store: &mut dyn Store, count: u32) -> Result<()> {
    let mut state = store.chain_state()?;
    state.fail_next = count;
    store.put_chain_state(&state)
}

/// A new token's address, reserved now: on the embedded chain the next CREATE address of the
/// merchant wallet; on an EVM chain the factory's CREATE2 address for the merchant's relayer
/// and a fresh salt (returned, for the deploy intent).
pub fn next_contract_address(store: &mut dyn Store, ctx: &Ctx) -> Result<(TokenAddress, [u8; 32])> {
    let nonce = take_next(store, |s| &mut s.deploy_nonce, "deploy nonce")?;
    let deployer = ctx.merchant.address;
    let mut salt = [0u8; 32];
    if let Some(tail) = salt.get_mut(24..) {
        tail.copy_from_slice(&nonce.to_be_bytes());
    }
    let address = match &ctx.chain {
        ChainMode::Embedded => Address::create(&deployer, nonce),
        ChainMode::Evm(evm) => {
            Address::create2(&evm.factory, &deployer, &salt, &evm.token_code_hash)
        }
    };
    Ok((TokenAddress(address), salt))
}

/// The deploy intent of a token reserved at `address` with `salt`.
pub fn deploy(salt: &[u8; 32], name: &str, symbol: &str, supply: Units) -> Action {
    Action::Deploy {
        salt: crypto::hex0x(salt),
        name: name.to_string(),
        symbol: symbol.to_string(),
        supply,
    }
}

/// Where `token`'s pool is, and (on the embedded chain) its position's id. On an EVM chain
/// the pool is Uniswap v3's, at its factory's CREATE2 address for the token, USDC and the
/// 0.3 % tier; its position's id is the NFT the opening transaction mints (None until then).
/// The embedded chain's pool address is made from the token's, so one token has one pool.
pub fn pool_address(
    store: &mut dyn Store,
    ctx: &Ctx,
    token: &TokenAddress,
) -> Result<(Address, Option<u64>)> {
    match &ctx.chain {
        ChainMode::Embedded => {
            let position =
                take_next(store, |s| &mut s.positions, "position counter")?.saturating_add(1);
            let mut seed = b"tokenpad pool".to_vec();
            seed.extend_from_slice(&token.address().0);
            Ok((
                Address::from_hash(&crypto::keccak256(&seed)),
                Some(position),
            ))
        }
        ChainMode::Evm(evm) => {
            let m = evm.markets.as_ref().ok_or_else(|| {
                Error::new(
                    ErrorCode::Misconfigured,
                    "liquidity pools need Uniswap v3 and tokenpad's market on this chain \
                     (CHAIN_UNISWAP_FACTORY, CHAIN_MARKET)",
                )
            })?;
            let pool = Address::uniswap_v3_pool(
                &m.uniswap_factory,
                &token.address(),
                &evm.usdc,
                crate::model::pool::v3::FEE_PIPS,
                &UNISWAP_V3_POOL_INIT_CODE_HASH,
            );
            Ok((pool, None))
        }
    }
}

/// The network a new token goes on. On an EVM chain it is the chain's own: a request naming a
/// public network other than the chain's is refused (a Base Sepolia request must never land
/// on Base), and on a local node any name is taken (code written for Base runs unchanged
/// against a local run). On the embedded chain, the one asked for (Base by default).
pub fn network_for(ctx: &Ctx, asked: Option<Network>) -> Result<Network> {
    let ChainMode::Evm(evm) = &ctx.chain else {
        return Ok(asked.unwrap_or(Network::Base));
    };
    match asked {
        Some(n) if n != evm.network && evm.network != Network::Local => Err(Error::new(
            ErrorCode::NetworkUnavailable,
            format!(
                "this service deploys to {} only (chain {})",
                evm.network.as_str(),
                evm.chain_id
            ),
        )
        .with("allowed", vec![evm.network.as_str()])
        .at_field("network")),
        _ => Ok(evm.network),
    }
}
