//! What a presale's schedule runs: the end-of-sale decision, then the launch.
//!
//! A launch runs five durable steps, each its own transaction that records its transaction
//! hashes together with its effect: swapping, token-created, tokens-withdrawn, distributing,
//! completed. A crash between steps resumes at the step it was on; a finished step is never
//! repeated, because its effect and the record that it is done commit together. A step whose
//! chain submission fails is retried with exponential backoff and counted in retryCount.

use super::lookup::{emit, key, put, save, usdc};
use super::settle;
use crate::crypto;
use crate::error::{Error, Result};
use crate::model::amount::Price;
use crate::model::balance::Lock;
use crate::model::chain::{block_number, mined_at, BLOCK_MS};
use crate::model::event::EventType;
use crate::model::history::ChainStatus;
use crate::model::history::TxType;
use crate::model::intent::{Account, Action, Reserve, Side, Then};
use crate::model::presale::{launch_supply, shares, Phase, Presale, Step, TokenDeployment};
use crate::model::time::{Millis, DAY, SECOND};
use crate::model::token::{Token, TokenOrigin, TokenSpec};
use crate::ops::chain::{self, Stamp};
use crate::ops::launch::{self, NewToken, PoolOpening, Supply};
use crate::ops::ledger::Movement;
use crate::ops::{token, Ctx};
use crate::store::{DueKey, Store};

/// Backoff of a failed completion step: 2^retries seconds, capped.
pub const MAX_BACKOFF: Millis = 60 * SECOND;

pub fn backoff(retries: u32) -> Millis {
    let exp = retries.min(16);
    (SECOND << exp).min(MAX_BACKOFF)
}

/// One scheduled run of a presale at logical time `at`.
pub fn run(store: &mut dyn Store, ctx: &Ctx, mut p: Presale, at: Millis) -> Result<()> {
    match p.phase {
        Phase::Open => {
            if p.purchased >= p.target && p.auto_launch {
                p.phase = Phase::Launching;
                return step(store, ctx, p, at);
            }
            if at < p.end_ms() {
                // Its start: it is active now.
                store.schedule(&key(&p), p.end_ms())?;
                return put(store, &mut p, at);
            }
            if !p.launchable() {
                return settle::refund(store, ctx, p, at);
            }
            if p.auto_launch {
                p.phase = Phase::Launching;
                return step(store, ctx, p, at);
            }
            // Launchable without autoLaunch: it waits for resolve (and has ended meanwhile).
            put(store, &mut p, at)
        }
        Phase::Launching => step(store, ctx, p, at),
        Phase::Launched | Phase::Refunded => Ok(()),
    }
}

/// Submits a step's transactions. On failure, nothing of the step happens: the failure is
/// counted, the step is rescheduled after a backoff, and that bookkeeping commits.
fn submit_all(
    store: &mut dyn Store,
    ctx: &Ctx,
    p: &mut Presale,
    at: Millis,
    kinds: &[&str],
) -> Result<Option<Vec<Option<String>>>> {
    let mut hashes = Vec::new();
    for kind in kinds {
        match chain::try_submit(store, ctx, kind, &[p.id.as_str().as_bytes()], at)? {
            Ok(h) => hashes.push(h),
            Err(failure) => {
                p.completion.retry_count = p.completion.retry_count.saturating_add(1);
                p.completion.last_error = Some(failure.0);
                store.schedule(
                    &key(p),
                    at.saturating_add(backoff(p.completion.retry_count)),
                )?;
                save(store, p, at)?;
                return Ok(None);
            }
        }
    }
    p.completion.last_error = None;
    Ok(Some(hashes))
}

/// Runs the next completion step, then schedules the one after it for when this step's
/// transactions are mined.
pub fn step(store: &mut dyn Store, ctx: &Ctx, mut p: Presale, at: Millis) -> Result<()> {
    let Some(next) = p.completion.step.next() else {
        p.phase = Phase::Launched;
        return save(store, &mut p, at);
    };
    if next == Step::TokensWithdrawn && !market_open(store, ctx, &p)? {
        // On an EVM chain the buyers get their tokens only once the token's market is open
        // at the presale's price: if it cannot open, the launch fails openly and they are
        // refunded instead (`settle::market_failed`). The opening's receipt wakes it; until
        // then it looks again each block, from now: counted from its own due time, a run long
        // after it (the clock moved, the object slept) found it due again at once, block
        // after block, and spent a whole run's items (`due::MAX_ITEMS_PER_RUN`) on looking.
        store.schedule(&key(&p), at.max(ctx.now).saturating_add(BLOCK_MS))?;
        return Ok(());
    }
    let names = next.transactions();
    let kinds: Vec<&str> = names.iter().map(|(k, _)| *k).collect();
    p.completion.updated_at = Some(ctx.now);
    let Some(hashes) = submit_all(store, ctx, &mut p, at, &kinds)? else {
        return Ok(());
    };
    // On an EVM chain the step's movements are intents: their hashes come with settlement.
    for ((_, label), hash) in names.iter().zip(&hashes) {
        if let Some(hash) = hash {
            p.completion
                .transactions
                .insert((*label).to_string(), hash.clone());
        }
    }
    let last_hash = hashes.last().cloned().flatten();
    let at_ctx = ctx.at(at);
    match next {
        Step::Swapping => swap(store, ctx, &p)?,
        Step::TokenCreated => create_token(store, ctx, &mut p, &last_hash, at)?,
        Step::TokensWithdrawn => withdraw_bought(store, &p)?,
        Step::Distributing => distribute(store, &at_ctx, &mut p, &last_hash)?,
        Step::Completed | Step::Pending => {}
    }
    p.completion.step = next;
    if next == Step::Completed {
        p.phase = Phase::Launched;
    } else {
        store.schedule(&key(&p), mined_at(at))?;
    }
    save(store, &mut p, at)?;
    if next == Step::Completed {
        emit(store, at, EventType::PresaleLaunched, &p, None, None)?;
    }
    Ok(())
}

/// Whether the presale's pool is open on chain (on the embedded chain, and for a launch with
/// no pool, at once).
fn market_open(store: &dyn Store, ctx: &Ctx, p: &Presale) -> Result<bool> {
    if !ctx.chain.is_evm() {
        return Ok(true);
    }
    Ok(store
        .pool(&p.token_address)?
        .is_none_or(|pool| pool.position.id.is_some()))
}

/// The raised USDC leaves escrow for the launch's liquidity pool (the pool opens with it at
/// the next step).
fn swap(store: &mut dyn Store, ctx: &Ctx, p: &Presale) -> Result<()> {
    let mut usdc = usdc(store, ctx)?;
    let raised = p.purchased.cast();
    usdc.escrow = usdc.escrow.minus(raised)?;
    usdc.pooled = usdc.pooled.plus(raised)?;
    store.put_token(&usdc)
}

/// The presale's token comes into existence at its reserved address (the one launch path),
/// with a pool of the raised USDC and as many tokens as the buyers bought (so it trades at
/// the presale's price from its first moment); the rest of the supply is the reserve, from
/// which the bought tokens are withdrawn next.
fn create_token(
    store: &mut dyn Store,
    ctx: &Ctx,
    p: &mut Presale,
    hash: &Option<String>,
    at: Millis,
) -> Result<()> {
    let bought = p.amount_bought();
    if let Some(salt) = &p.deploy_salt {
        let salt = crypto::parse_bytes32(salt)
            .ok_or_else(|| Error::internal(format!("presale {}: bad deploy salt", p.id)))?;
        let info = &p.token_info;
        let action = chain::deploy(&salt, &info.name, &info.symbol, launch_supply());
        let then = Then::PresaleToken(p.id.clone());
        let intent = chain::want(ctx, p.token_address, action).with_then(then);
        chain::intend(store, ctx, intent)?;
    }
    let price = Price::of(p.purchased, bought, TokenSpec::DECIMALS);
    let info = &p.token_info;
    launch::launch(
        store,
        ctx,
        NewToken {
            address: p.token_address,
            spec: TokenSpec {
                name: info.name.clone(),
                symbol: info.symbol.clone(),
                network: chain::network_for(ctx, None)?,
                total_supply: launch_supply(),
                merchant_address: None,
                can_distribute: false,
                can_airdrop: false,
                can_lp: true,
                image_url: Some(info.image_url.clone()),
            },
            supply: Supply::Reserve,
            price,
            origin: TokenOrigin::Presale,
            marketplace: false,
            pool: price.map(|price| PoolOpening {
                tokens: Some(bought),
                usdc: p.purchased,
                price,
                then: Some(Then::PresalePool(p.id.clone())),
            }),
            at,
            tx_hash: hash.clone(),
        },
    )?;
    p.token_deployment = Some(TokenDeployment {
        token_address: p.token_address,
        hash: hash.clone(),
        amount_bought: bought,
    });
    Ok(())
}

fn launched_token(store: &dyn Store, p: &Presale) -> Result<Token> {
    token::find(store, &p.token_address)
}

/// The bought tokens move from the reserve to the presale signer, ready to distribute.
fn withdraw_bought(store: &mut dyn Store, p: &Presale) -> Result<()> {
    let mut token = launched_token(store, p)?;
    let bought = p.amount_bought();
    token.liquidity_supply = token.liquidity_supply.minus(bought)?;
    token.held = token.held.plus(bought)?;
    let mut bal = store.balance(&token.address, &p.signer)?;
    bal.active = bal.active.plus(bought)?;
    store.put_balance(&token.address, &p.signer, &bal)?;
    store.put_token(&token)
}

/// Each buyer's share moves from the signer into a lock that opens lockDuration days later.
fn distribute(
    store: &mut dyn Store,
    ctx: &Ctx,
    p: &mut Presale,
    hash: &Option<String>,
) -> Result<()> {
    let token = launched_token(store, p)?;
    let bought = p.amount_bought();
    let participants = store.participants(&p.id)?;
    let shares = shares(&participants, bought)?;
    let mut signer_bal = store.balance(&token.address, &p.signer)?;
    signer_bal.active = signer_bal.active.minus(bought)?;
    store.put_balance(&token.address, &p.signer, &signer_bal)?;
    let unlock_at = ctx.now.saturating_add(p.lock_days.saturating_mul(DAY));
    // On an EVM chain with tokenpad's lock contract, the shares go into it, each buyer's
    // released on chain at its unlock time; otherwise into the buyers' wallets, locked by the
    // ledger alone.
    let vault = ctx.chain.locker().is_some();
    for (i, (part, share)) in participants.iter().zip(shares).enumerate() {
        if share.is_zero() {
            continue;
        }
        let mut bal = store.balance(&token.address, &part.address)?;
        bal.locked = bal.locked.plus(share)?;
        store.put_balance(&token.address, &part.address, &bal)?;
        let lock = Lock {
            id: p.id.lock(i),
            token: token.address,
            owner: part.address,
            amount: share,
            unlock_at,
            vault,
        };
        store.put_lock(&lock)?;
        store.schedule(&DueKey::Unlock(lock.id.clone()), unlock_at)?;
        let stamp = match hash {
            Some(hash) => Stamp {
                id: hash.clone(),
                hash: Some(hash.clone()),
                status: ChainStatus::Confirmed,
                block: Some(block_number(mined_at(ctx.now))),
            },
            None => chain::stamp(store, ctx, "allocation", &[&part.address.0], ctx.now)?,
        };
        let mv = Movement {
            stamp: &stamp,
            token: &token,
            amount: share,
            from: super::lookup::counterparty(ctx, p),
            to: part.address,
        };
        let seq = crate::ops::history::append(
            store,
            &mv.record(ctx.now, i, TxType::PresaleAllocation, &part.user_id),
        )?;
        let action = if vault {
            Action::Lock {
                beneficiary: part.address,
                amount: share,
                unlock_at: unlock_at / SECOND,
                lock: lock.id.clone(),
            }
        } else {
            chain::transfer(Account::Treasury, Account::Wallet(part.address), share)
        };
        // Undone, the share goes back to the reserve it was withdrawn from.
        let mut intent = chain::want(ctx, token.address, action)
            .with_records(vec![seq])
            .moved(
                Side::Reserve(Reserve::Liquidity),
                Side::Locked(part.address, lock.id.clone()),
            );
        if vault {
            intent = intent.with_then(Then::PresaleLocks(p.id.clone()));
        }
        chain::intend(store, ctx, intent)?;
    }
    p.distributed = true;
    p.distribute_tx = hash.clone();
    Ok(())
}
