//! Memecoin and airdrop deployments (`POST /template/memecoin`, `POST /template/airdrop`).
//!
//! A deployment is a token-creation flow on the chain port, like a create-token job: the
//! contract address is reserved at once (the merchant wallet's next CREATE address), the
//! deployment transaction is submitted at creation, and the token comes into existence
//! (through the one launch path) once that transaction is mined. The mining time goes on the
//! merchant's schedule, so the Durable Object alarm finishes the deployment on time even
//! when no request arrives.
//!
//! The deployed token is a Token like any other. Its supply: the recipient's amount and each
//! airdrop address's supply are balances of record; the rest is the liquidity reserve (none
//! with `noLp`). There is no app supply and no merchant supply. Its price is `initialPrice`.

mod request;

pub use request::{
    AirdropInput, AirdropRecipient, AirdropRequest, DeployRequest, MemecoinRecipient,
    MemecoinRequest, MAX_AIRDROP_ADDRESSES,
};

use super::launch::{self, NewToken, PoolOpening, Supply};
use super::{chain, Ctx};
use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::amount::{Units, Usdc};
use crate::model::chain::mined_at;
use crate::model::deployment::{DeploySpec, Deployment, DeploymentKind, DeploymentStatus};
use crate::model::event::{EventType, Subject};
use crate::model::ids::{DeploymentId, TokenAddress};
use crate::model::intent::Then;
use crate::model::pool::{Pool, TradeError};
use crate::model::time::Millis;
use crate::model::token::TokenSpec;
use crate::store::{DueKey, Store};

/// Reserves the token's address, submits the deployment transaction and records the
/// deployment, pending until the transaction is mined. `id` is a fresh UUID.
pub fn create(
    store: &mut dyn Store,
    ctx: &Ctx,
    mut spec: DeploySpec,
    id: DeploymentId,
) -> Result<Deployment> {
    spec.network = chain::network_for(ctx, Some(spec.network))?;
    let (address, salt) = chain::next_contract_address(store, ctx)?;
    if spec.kind == DeploymentKind::Memecoin && !spec.no_lp {
        pool_can_open(&spec, address, ctx.chain.usdc())?;
    }
    let submitted = chain::try_submit(
        store,
        ctx,
        "deploy",
        &[
            &address.address().0,
            spec.kind.as_str().as_bytes(),
            spec.symbol.as_bytes(),
        ],
        ctx.now,
    )?;
    let mut d = Deployment {
        id,
        kind: spec.kind,
        status: DeploymentStatus::Pending,
        token_address: address,
        tx_hash: None,
        submitted_at: None,
        mined_at: None,
        block: None,
        created_at: ctx.now,
        request: spec,
        error: None,
    };
    match submitted {
        Ok(Some(hash)) => {
            let mined = mined_at(ctx.now);
            d.tx_hash = Some(hash);
            d.submitted_at = Some(ctx.now);
            d.mined_at = Some(mined);
            store.schedule(&DueKey::Deployment(d.id.clone()), mined)?;
        }
        Ok(None) => {
            // An EVM chain: the settler deploys it, and the deployment finishes once mined.
            let req = &d.request;
            let action = chain::deploy(&salt, &req.name, &req.symbol, req.total_supply);
            let then = Then::FinishDeployment(d.id.clone());
            chain::intend(
                store,
                ctx,
                chain::want(ctx, address, action).with_then(then),
            )?;
        }
        Err(failure) => {
            d.status = DeploymentStatus::Failed;
            d.error = Some(failure.0);
        }
    }
    store.put_deployment(&d)?;
    if d.status == DeploymentStatus::Failed {
        announce(store, &d, ctx.now)?;
    }
    Ok(d)
}

/// Whether a memecoin's pool can open as its launch will open it: from the liquidity reserve
/// (the supply less what the recipient gets) at `initialPrice`, for the token at `token`. A
/// reserve too small for a position at that price (the simulator found 1,698 base units at
/// $0.07), or a price past the pool's range, once let the deployment be accepted and then
/// never finish: the ledger could not open the pool its token comes with. Now 400
/// `invalid_amount`, naming the amount that sets the reserve.
fn pool_can_open(spec: &DeploySpec, token: TokenAddress, usdc: TokenAddress) -> Result<()> {
    let held = spec
        .allocations()
        .iter()
        .try_fold(Units::ZERO, |acc, (_, a)| acc.checked_add(*a));
    let reserve = held
        .and_then(|h| spec.total_supply.checked_sub(h))
        .unwrap_or(Units::ZERO);
    let opened = Pool::open(
        token,
        usdc.address(),
        Address([0; 20]),
        reserve,
        Usdc::ZERO,
        spec.initial_price,
        None,
        0,
    );
    let Err(e) = opened else { return Ok(()) };
    let field = if spec.recipient.is_some() {
        "recipient.amount"
    } else {
        "totalSupply"
    };
    let why = match e {
        TradeError::TooSmall => "leaves a liquidity reserve too small to open the token's pool at initialPrice: leave the pool more tokens, or set noLp",
        TradeError::TooLarge | TradeError::Drains => "leaves a liquidity reserve the token's pool cannot hold at initialPrice (the price or the amount is past its range): change them, or set noLp",
    };
    Err(Error::new(ErrorCode::InvalidAmount, why)
        .at_field(field)
        .with(
            "liquiditySupply",
            serde_json::to_value(crate::model::decimal::Decimal::from_units(
                reserve.raw(),
                18,
            ))
            .unwrap_or_default(),
        ))
}

/// Finishes a deployment whose transaction is mined: the token comes into existence with
/// its balances of record. Idempotent: a deployment that is no longer pending is left alone.
pub fn finish(store: &mut dyn Store, ctx: &Ctx, id: &DeploymentId) -> Result<()> {
    let Some(mut d) = store.deployment(id)? else {
        return Ok(());
    };
    if d.status != DeploymentStatus::Pending {
        return Ok(());
    }
    if !launch::address_free(store, &d.token_address)? {
        d.status = DeploymentStatus::Failed;
        d.error = Some("a contract already exists at the deployment address".into());
        store.put_deployment(&d)?;
        return announce(store, &d, ctx.now);
    }
    let at = d.mined_at.unwrap_or(ctx.now);
    let req = &d.request;
    let opens_pool = req.kind == DeploymentKind::Memecoin && !req.no_lp;
    // On an EVM chain the pool opens in a transaction of its own: the deployment succeeds
    // once it is mined, so its exchange link leads to a pool that exists.
    let waits_for_pool = opens_pool && ctx.chain.is_evm();
    launch::launch(
        store,
        ctx,
        NewToken {
            address: d.token_address,
            spec: TokenSpec {
                name: req.name.clone(),
                symbol: req.symbol.clone(),
                network: req.network,
                total_supply: req.total_supply,
                merchant_address: None,
                can_distribute: false,
                can_airdrop: req.kind == DeploymentKind::Airdrop,
                can_lp: !req.no_lp,
                image_url: None,
            },
            supply: Supply::Allocations(req.allocations()),
            price: Some(req.initial_price),
            origin: req.kind.origin(),
            marketplace: req.marketplace,
            // A memecoin opens its pool from what is left of the supply, at its initial
            // price (unless noLp); an airdrop's pool is the merchant's to open.
            pool: opens_pool.then(|| PoolOpening {
                tokens: None,
                usdc: crate::model::amount::Usdc::ZERO,
                price: req.initial_price,
                then: waits_for_pool.then(|| Then::DeploymentReady(d.id.clone())),
            }),
            at,
            tx_hash: d.tx_hash.clone(),
        },
    )?;
    d.mined_at = Some(at);
    if waits_for_pool {
        return store.put_deployment(&d);
    }
    d.status = DeploymentStatus::Success;
    store.put_deployment(&d)?;
    announce(store, &d, at)
}

/// A deployment whose token exists and whose pool has opened on chain succeeds.
pub fn ready(store: &mut dyn Store, ctx: &Ctx, id: &DeploymentId) -> Result<()> {
    let Some(mut d) = store.deployment(id)? else {
        return Ok(());
    };
    if d.status != DeploymentStatus::Pending {
        return Ok(());
    }
    d.status = DeploymentStatus::Success;
    store.put_deployment(&d)?;
    announce(store, &d, ctx.now)
}

/// `deployment.succeeded` or `deployment.failed`, after the deployment's record is written.
fn announce(store: &mut dyn Store, d: &Deployment, at: Millis) -> Result<()> {
    let kind = if d.status == DeploymentStatus::Success {
        EventType::DeploymentSucceeded
    } else {
        EventType::DeploymentFailed
    };
    let subject = Subject::Deployment { id: d.id.clone() };
    super::event::emit(store, at, kind, subject).map(drop)
}

/// This merchant's deployment `id`, of `kind` when given. Unknown, or of the other kind:
/// 404 `deployment_not_found` (a memecoin id is not an airdrop).
pub fn find(
    store: &dyn Store,
    id: &DeploymentId,
    kind: Option<DeploymentKind>,
) -> Result<Deployment> {
    store
        .deployment(id)?
        .filter(|d| kind.is_none_or(|k| d.kind == k))
        .ok_or_else(|| {
            let what = kind.map_or("deployment", DeploymentKind::as_str);
            Error::new(
                ErrorCode::DeploymentNotFound,
                format!("No {what} deployment with id {id}"),
            )
        })
}
