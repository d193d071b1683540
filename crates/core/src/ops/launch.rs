//! The one launch path: a new token comes into existence here, whichever flow made it (a
//! create-token job, a memecoin or airdrop template, a presale launch). It gets its contract
//! address, its supply split, its first holders and its price, and obeys conservation from
//! its first moment.

use super::chain::{self, Stamp};
use super::{event, market, Ctx};
use crate::error::{Error, Result};
use crate::model::address::Address;
use crate::model::amount::{Price, Units, Usdc};
use crate::model::chain::{block_number, ChainMode};
use crate::model::event::{EventType, Subject};
use crate::model::history::ChainStatus;
use crate::model::history::{TxRecord, TxType};
use crate::model::ids::TokenAddress;
use crate::model::intent::{Account, Reserve, Side};
use crate::model::time::Millis;
use crate::model::token::{
    share, Token, TokenCode, TokenKind, TokenOrigin, TokenSpec, APP_SHARE_PERCENT,
    MERCHANT_SHARE_PERCENT,
};
use crate::store::Store;

/// How a new token's supply is split at launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Supply {
    /// Dashboard tokens: 15 % app supply, 5 % merchant supply, the rest the liquidity reserve.
    Dashboard,
    /// All of it in the liquidity reserve (a presale's token, until its bought tokens move).
    Reserve,
    /// These addresses hold these amounts from the start (an address may appear twice: the
    /// amounts add up); the rest is the liquidity reserve.
    Allocations(Vec<(Address, Units)>),
}

/// The liquidity pool a token opens with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolOpening {
    /// Tokens from the liquidity reserve: all of what is left of it when None.
    pub tokens: Option<Units>,
    /// USDC already in USDC's `pooled` for this pool (a presale's raise); zero otherwise.
    pub usdc: Usdc,
    /// The price the pool opens at (tokens alone; with USDC, the price of the two amounts).
    pub price: Price,
    /// What the ledger does once the pool is open on chain (an EVM chain).
    pub then: Option<crate::model::intent::Then>,
}

/// Everything a launch needs.
#[derive(Clone, Debug)]
pub struct NewToken {
    pub address: TokenAddress,
    pub spec: TokenSpec,
    pub supply: Supply,
    pub price: Option<Price>,
    pub origin: TokenOrigin,
    pub marketplace: bool,
    /// A liquidity pool opened at launch, so the token is tradable at once.
    pub pool: Option<PoolOpening>,
    /// When the deployment was mined: the token's creation time.
    pub at: Millis,
    /// The deployment transaction (on the embedded chain); the first holders' records carry
    /// it. On an EVM chain each first holder's tokens are a transfer from the treasury, with
    /// its own transaction.
    pub tx_hash: Option<String>,
}

/// Whether no token lives at `address` yet.
pub fn address_free(store: &dyn Store, address: &TokenAddress) -> Result<bool> {
    Ok(store.token(address)?.is_none())
}

/// Creates the token, opens its pool when asked, and credits its first holders. A custodial
/// holder of this merchant among them sees the tokens in its history (a `distribute` record).
pub fn launch(store: &mut dyn Store, ctx: &Ctx, new: NewToken) -> Result<Token> {
    if !address_free(store, &new.address)? {
        return Err(Error::internal(format!(
            "a token already exists at {}",
            new.address
        )));
    }
    let spec = new.spec;
    let total = spec.total_supply;
    let overflow = || Error::internal("launch allocation overflow");
    let (app, merchant, allocations) = match new.supply {
        Supply::Dashboard => (
            share(total, APP_SHARE_PERCENT),
            share(total, MERCHANT_SHARE_PERCENT),
            Vec::new(),
        ),
        Supply::Reserve => (Units::ZERO, Units::ZERO, Vec::new()),
        Supply::Allocations(a) => (Units::ZERO, Units::ZERO, a),
    };
    let held = allocations
        .iter()
        .try_fold(Units::ZERO, |acc, (_, a)| acc.checked_add(*a))
        .ok_or_else(overflow)?;
    let liquidity = total
        .checked_sub(app)
        .and_then(|t| t.checked_sub(merchant))
        .and_then(|t| t.checked_sub(held))
        .ok_or_else(overflow)?;
    let mut token = Token {
        address: new.address,
        kind: TokenKind::Merchant,
        name: spec.name,
        symbol: spec.symbol,
        decimals: TokenSpec::DECIMALS,
        network: spec.network,
        total_supply: total,
        starting_app_supply: app,
        remaining_app_supply: app,
        merchant_supply: merchant,
        liquidity_supply: liquidity,
        held,
        escrow: Units::ZERO,
        pooled: Units::ZERO,
        merchant_address: spec.merchant_address.unwrap_or(ctx.merchant.address),
        price: new.price,
        can_distribute: spec.can_distribute,
        can_airdrop: spec.can_airdrop,
        can_lp: spec.can_lp,
        image_url: spec.image_url,
        created_at: new.at,
        origin: new.origin,
        marketplace: new.marketplace,
        owed: Vec::new(),
        // the factory deploys the current build (the token's address is reserved for it)
        code: TokenCode::Packed,
    };
    let pooled = new.pool.is_some();
    if let Some(p) = new.pool {
        let opening = market::Opening {
            tokens: p.tokens.unwrap_or(token.liquidity_supply),
            usdc: p.usdc,
            price: p.price,
            then: p.then,
        };
        market::open(store, ctx, &mut token, opening, new.at)?;
    }
    store.put_token(&token)?;
    let address = token.address;
    event::emit(
        store,
        new.at,
        EventType::TokenCreated,
        Subject::Token { address },
    )?;
    if pooled {
        let subject = Subject::Liquidity { token: address };
        event::emit(store, new.at, EventType::LiquidityCreated, subject)?;
    }
    for (i, (owner, amount)) in allocations.iter().enumerate() {
        let mut bal = store.balance(&token.address, owner)?;
        bal.active = bal.active.checked_add(*amount).ok_or_else(overflow)?;
        store.put_balance(&token.address, owner, &bal)?;
        let stamp = match (&ctx.chain, &new.tx_hash) {
            (ChainMode::Embedded, Some(hash)) => Stamp {
                id: format!("{hash}-{i}"),
                hash: Some(hash.clone()),
                status: ChainStatus::Confirmed,
                block: Some(block_number(new.at)),
            },
            _ => {
                let mut s = chain::stamp(store, ctx, "allocation", &[&owner.0], new.at)?;
                s.id = format!("{}-{i}", s.id);
                s
            }
        };
        let mut records = Vec::new();
        if let Some(h) = store.holder_by_address(owner)? {
            records.push(crate::ops::history::append(
                store,
                &TxRecord {
                    id: stamp.id.clone(),
                    hash: stamp.hash.clone(),
                    chain_status: stamp.status,
                    block: stamp.block,
                    kind: TxType::Distribute,
                    user_id: h.user_id,
                    token: token.address,
                    symbol: token.symbol.clone(),
                    decimals: token.decimals,
                    amount: *amount,
                    from: token.address.address(),
                    to: *owner,
                    at: new.at,
                    reason: None,
                },
            )?);
        }
        let action = chain::transfer(Account::Treasury, chain::account(ctx, *owner), *amount);
        let intent = chain::want(ctx, token.address, action)
            .with_records(records)
            .moved(Side::Reserve(Reserve::Liquidity), Side::Row(*owner));
        chain::intend(store, ctx, intent)?;
    }
    // A merchant supply kept at an address of the merchant's choosing is sent there; the
    // ledger keeps it as the merchant supply either way.
    let merchant_account = chain::account(ctx, token.merchant_address);
    if merchant_account != Account::Treasury && !token.merchant_supply.is_zero() {
        let action = chain::transfer(Account::Treasury, merchant_account, token.merchant_supply);
        chain::intend(store, ctx, chain::want(ctx, token.address, action))?;
    }
    Ok(token)
}
