//! Reconciliation's step checks (`GET /admin/merchants/:merchantId/reconcile`, `steps`): what
//! the ledger says each completed step did, against what the chain holds.
//!
//! - **Locks**: every lock the ledger keeps in the lock contract is stored under its key
//!   (`locks(key)`, key = `locker::key(treasury, id)`, the settler's `Builder::lock_key`) with
//!   the token, amount, beneficiary and unlock time booked, not released; one the ledger has
//!   released (its release confirmed) is released on chain.
//! - **Pools**: every pool the ledger has open has code, an initialized price (`slot0`), and
//!   its position kept by the market contract for the merchant's wallet (`positionOwner`).
//! - **Raises**: a launched presale's pool opening (`swapTx`) succeeded and moved the raise
//!   from the treasury into the pool, what the position did not take back to the treasury.
//!
//! Movements still open are not checked (the object leaves them out): they are not done yet.
//! Locks and pools are read at the balances' block; a receipt is the node's.

use crate::adapters::evm::config::Evm;
use crate::adapters::evm::rpc::{Fail, Rpc};
use crate::hop::{LaunchRaise, LedgerLock, OpenPool, StepsView};
use serde_json::Value;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::time::Timestamp;
use tokenpad_core::wire::chain::StepMismatch;
use tokenpad_core::{Error, ErrorCode, Result};
use tokenpad_evm::reads::{self, StoredLock};
use tokenpad_evm::rpc::{self as r, BlockTag, CallRequest, RpcError};
use tokenpad_evm::{logs, market};

/// Reads per JSON-RPC batch.
const PER_BATCH: usize = 100;
const USDC_DECIMALS: u8 = 6;

fn rpc_error(f: Fail) -> Error {
    Error::new(ErrorCode::Unavailable, f.to_string())
}

fn unanswered(what: &str) -> Error {
    Error::new(ErrorCode::Unavailable, format!("{what} gave no answer"))
}

fn call(rpc: &Rpc<'_>, to: [u8; 20], data: Vec<u8>, block: u64) -> Value {
    let call = CallRequest {
        from: None,
        to,
        data,
    };
    r::eth_call(rpc.id(), &call, BlockTag::Number(block))
}

/// The answers to `requests`, in batches.
async fn answers(rpc: &Rpc<'_>, requests: Vec<Value>) -> Result<Vec<Result<Value, RpcError>>> {
    let mut out = Vec::with_capacity(requests.len());
    let mut rest = requests.into_iter().peekable();
    while rest.peek().is_some() {
        let chunk: Vec<Value> = rest.by_ref().take(PER_BATCH).collect();
        out.extend(rpc.batch(chunk).await.map_err(rpc_error)?);
    }
    Ok(out)
}

fn data(answer: Option<&Result<Value, RpcError>>) -> Option<Vec<u8>> {
    answer?.as_ref().ok().and_then(|v| r::data_result(v).ok())
}

/// Every step check; (how many were checked, the mismatches).
pub async fn check(
    rpc: &Rpc<'_>,
    evm: &Evm,
    wallet: Address,
    view: &StepsView,
    block: u64,
) -> Result<(u64, Vec<StepMismatch>)> {
    let mut out = Vec::new();
    if let Some(locker) = evm.chain.locker {
        locks(rpc, locker, &view.locks, block, &mut out).await?;
    }
    if let Some(m) = &evm.chain.markets {
        pools(rpc, m.market, wallet, &view.pools, block, &mut out).await?;
    }
    raises(rpc, evm.usdc, wallet, &view.launches, &mut out).await?;
    let checked = view.locks.len() + view.pools.len() + view.launches.len();
    Ok((u64::try_from(checked).unwrap_or(u64::MAX), out))
}

fn describe(l: &StoredLock) -> String {
    let state = if l.released { "released" } else { "locked" };
    format!(
        "{state}: {} units of {} for {} until {}",
        l.amount,
        Address(l.token),
        Address(l.beneficiary),
        Timestamp::at(l.unlock_at.saturating_mul(1000))
    )
}

async fn locks(
    rpc: &Rpc<'_>,
    locker: Address,
    locks: &[LedgerLock],
    block: u64,
    out: &mut Vec<StepMismatch>,
) -> Result<()> {
    let requests = locks
        .iter()
        .map(|l| call(rpc, locker.0, reads::lock_at(l.key), block))
        .collect();
    let answers = answers(rpc, requests).await?;
    for (l, answer) in locks.iter().zip(&answers) {
        let chain = data(Some(answer))
            .and_then(|d| reads::decode_lock(&d).ok())
            .ok_or_else(|| unanswered(&format!("locks() of lock {}", l.lock)))?;
        let (ledger, agrees) = match l.locked {
            Some((amount, unlock_at)) => {
                let booked = StoredLock {
                    token: l.token.address().0,
                    amount: amount.raw(),
                    beneficiary: l.beneficiary.0,
                    unlock_at,
                    released: false,
                };
                (describe(&booked), chain == booked)
            }
            // Released in the ledger: released on chain too (no lock at all is a share that
            // never went into the contract, which the balances show).
            None => ("released".to_string(), !chain.exists() || chain.released),
        };
        if !agrees {
            out.push(StepMismatch {
                kind: "lock".into(),
                what: format!(
                    "lock {} (key {}) of {}",
                    l.lock,
                    hex0x(&l.key),
                    l.beneficiary
                ),
                token_address: l.token,
                ledger,
                chain: if chain.exists() {
                    describe(&chain)
                } else {
                    "no lock under this key".into()
                },
            });
        }
    }
    Ok(())
}

async fn pools(
    rpc: &Rpc<'_>,
    market_address: Address,
    wallet: Address,
    pools: &[OpenPool],
    block: u64,
    out: &mut Vec<StepMismatch>,
) -> Result<()> {
    let mut requests = Vec::new();
    for p in pools {
        requests.push(r::eth_get_code(rpc.id(), p.pool.0, BlockTag::Number(block)));
        requests.push(call(rpc, p.pool.0, market::slot0(), block));
        requests.push(call(
            rpc,
            market_address.0,
            reads::position_owner(p.position_id),
            block,
        ));
    }
    let answers = answers(rpc, requests).await?;
    for (p, three) in pools.iter().zip(answers.chunks(3)) {
        let code = data(three.first()).ok_or_else(|| unanswered("eth_getCode"))?;
        // A pool without code answers slot0 with nothing: not initialized.
        let sqrt = data(three.get(1))
            .and_then(|d| market::decode_slot0(&d).ok())
            .map(|(sqrt, _)| sqrt)
            .unwrap_or_default();
        let owner = data(three.get(2))
            .and_then(|d| reads::decode_position_owner(&d).ok())
            .ok_or_else(|| unanswered("positionOwner()"))?;
        let mut chain = Vec::new();
        if code.is_empty() {
            chain.push("no contract at its address".to_string());
        }
        if sqrt.is_zero() {
            chain.push("no price (not initialized)".to_string());
        }
        if owner != wallet.0 {
            chain.push(format!(
                "position {} kept for {}",
                p.position_id,
                Address(owner)
            ));
        }
        if !chain.is_empty() {
            out.push(StepMismatch {
                kind: "pool".into(),
                what: format!("pool of {} at {}", p.symbol, p.pool),
                token_address: p.token,
                ledger: format!(
                    "open, its position {} kept by the market for {wallet}",
                    p.position_id
                ),
                chain: chain.join("; "),
            });
        }
    }
    Ok(())
}

async fn raises(
    rpc: &Rpc<'_>,
    usdc: Address,
    wallet: Address,
    launches: &[LaunchRaise],
    out: &mut Vec<StepMismatch>,
) -> Result<()> {
    let mut requests = Vec::new();
    for l in launches {
        let hash =
            r::parse_hex_fixed::<32>(&l.swap_tx).map_err(|e| Error::internal(e.to_string()))?;
        requests.push(r::eth_get_transaction_receipt(rpc.id(), hash));
    }
    let answers = answers(rpc, requests).await?;
    let whole = |units: u128| Decimal::from_units(units, USDC_DECIMALS);
    for (l, answer) in launches.iter().zip(&answers) {
        let receipt = answer
            .as_ref()
            .map_err(|_| unanswered("eth_getTransactionReceipt"))
            .and_then(|v| {
                r::parse_receipt(v).map_err(|e| Error::new(ErrorCode::Unavailable, e.to_string()))
            })?;
        let (mut from_treasury, mut to_treasury, mut into_pool) = (0u128, 0u128, 0u128);
        for t in receipt
            .iter()
            .flat_map(|r| &r.logs)
            .filter_map(logs::decode_transfer)
        {
            if t.token != usdc.0 {
                continue;
            }
            if t.from == wallet.0 {
                from_treasury = from_treasury.saturating_add(t.value);
            }
            if t.to == wallet.0 {
                to_treasury = to_treasury.saturating_add(t.value);
            }
            if t.to == l.pool.0 {
                into_pool = into_pool.saturating_add(t.value);
            }
        }
        let chain = match &receipt {
            None => Some(format!(
                "no receipt of {} (not mined, or dropped)",
                l.swap_tx
            )),
            Some(r) if !r.status => Some(format!("{} reverted", l.swap_tx)),
            Some(_)
                if from_treasury != l.raise
                    || into_pool == 0
                    || into_pool.checked_add(to_treasury) != Some(from_treasury) =>
            {
                Some(format!(
                    "{} USDC left the treasury, {} went into the pool and {} came back",
                    whole(from_treasury),
                    whole(into_pool),
                    whole(to_treasury)
                ))
            }
            Some(_) => None,
        };
        if let Some(chain) = chain {
            out.push(StepMismatch {
                kind: "raise".into(),
                what: format!("presale {}'s raise (its pool opening {})", l.presale, l.swap_tx),
                token_address: l.token,
                ledger: format!(
                    "{} USDC from the treasury into the pool at {}, what the position did not take back",
                    whole(l.raise),
                    l.pool
                ),
                chain,
            });
        }
    }
    Ok(())
}
