//! What the chain should say: every custodial holder's balance of every token it has in the
//! ledger (active plus locked: locked tokens sit in the holder's wallet on chain), the
//! treasury's balance of each merchant token (everything the ledger keeps outside balances
//! and opened pools: the app, merchant and liquidity supplies, escrow and presale signers,
//! and what a pool whose opening is not mined yet takes), and each opened pool contract's
//! balances of its token and of USDC, and its state (`slot0`'s price and
//! tick, the active liquidity) as the ledger last followed it.
//! The worker reads `balanceOf` for each and reports the differences. While movements are
//! still settling, the two differ by them; a report says how many are open.

use crate::error::{Error, Result};
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::amount::USDC_DECIMALS;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::pool::Observed;
use crate::model::token::TokenKind;
use crate::ops::Ctx;
use crate::store::Store;

/// One balance the chain should show.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Expected {
    pub token: TokenAddress,
    pub symbol: String,
    pub decimals: u8,
    pub owner: Address,
    /// The holder, or None for the treasury.
    pub user_id: Option<UserId>,
    pub ledger: Units,
}

/// Every balance to check, token by token.
pub fn expected(store: &dyn Store, ctx: &Ctx) -> Result<Vec<Expected>> {
    let overflow = || Error::internal("reconciliation overflow");
    let signers: Vec<Address> = store.presales()?.iter().map(|p| p.signer).collect();
    // What the ledger keeps in a pool whose opening is not mined (on its way, or dropped by
    // a reorganization), or pooled for one not made yet (a launch's raise between its swap
    // step and its token), is still the treasury's on chain: only opened pools hold theirs.
    let mut opened_usdc = Units::ZERO;
    for t in store.tokens()? {
        if let Some(p) = store.pool(&t.address)?.filter(|p| p.position.id.is_some()) {
            opened_usdc = opened_usdc
                .checked_add(p.usdc_reserve.cast())
                .ok_or_else(overflow)?;
        }
    }
    let mut out = Vec::new();
    for t in store.tokens()? {
        let (rows, _) = store.top_holders(&t.address, u32::MAX)?;
        // Locks the lock contract holds: not in their owners' wallets.
        let mut in_vault = Units::ZERO;
        for row in rows {
            let Some(h) = store.holder_by_address(&row.owner)? else {
                continue;
            };
            let vaulted = store
                .locks_of(&row.owner)?
                .iter()
                .filter(|l| l.vault && l.token == t.address)
                .try_fold(Units::ZERO, |s, l| s.checked_add(l.amount))
                .ok_or_else(overflow)?;
            in_vault = in_vault.checked_add(vaulted).ok_or_else(overflow)?;
            out.push(Expected {
                token: t.address,
                symbol: t.symbol.clone(),
                decimals: t.decimals,
                owner: row.owner,
                user_id: Some(h.user_id),
                ledger: row.balance.checked_sub(vaulted).ok_or_else(overflow)?,
            });
        }
        if t.kind == TokenKind::Usdc {
            // The treasury keeps the presales' escrow, the merchant's own USDC, and what is
            // pooled outside opened pools.
            let unopened = t.pooled.checked_sub(opened_usdc).ok_or_else(overflow)?;
            out.push(Expected {
                token: t.address,
                symbol: t.symbol.clone(),
                decimals: t.decimals,
                owner: ctx.merchant.address,
                user_id: None,
                ledger: t
                    .escrow
                    .checked_add(t.merchant_supply)
                    .and_then(|s| s.checked_add(unopened))
                    .ok_or_else(overflow)?,
            });
        }
        if t.kind != TokenKind::Merchant {
            continue;
        }
        if let Some(locker) = ctx.chain.locker() {
            out.push(Expected {
                token: t.address,
                symbol: t.symbol.clone(),
                decimals: t.decimals,
                owner: locker,
                user_id: None,
                ledger: in_vault,
            });
        }
        let mut treasury = t
            .remaining_app_supply
            .checked_add(t.liquidity_supply)
            .and_then(|s| s.checked_add(t.escrow))
            .ok_or_else(overflow)?;
        if let Some(p) = store.pool(&t.address)?.filter(|p| p.position.id.is_none()) {
            treasury = treasury.checked_add(p.token_reserve).ok_or_else(overflow)?;
        } else if let Some(p) = store.pool(&t.address)? {
            // The pool contract holds its reserves.
            let usdc = ctx.chain.usdc();
            for (token, symbol, decimals, ledger) in [
                (t.address, t.symbol.clone(), t.decimals, p.token_reserve),
                (
                    usdc,
                    "USDC".to_string(),
                    USDC_DECIMALS,
                    p.usdc_reserve.cast(),
                ),
            ] {
                out.push(Expected {
                    token,
                    symbol,
                    decimals,
                    owner: p.address,
                    user_id: None,
                    ledger,
                });
            }
        }
        if t.merchant_address == ctx.merchant.address {
            treasury = treasury
                .checked_add(t.merchant_supply)
                .ok_or_else(overflow)?;
        }
        for s in &signers {
            let b = store.balance(&t.address, s)?;
            treasury = treasury
                .checked_add(b.total().ok_or_else(overflow)?)
                .ok_or_else(overflow)?;
        }
        out.push(Expected {
            token: t.address,
            symbol: t.symbol.clone(),
            decimals: t.decimals,
            owner: ctx.merchant.address,
            user_id: None,
            ledger: treasury,
        });
    }
    Ok(out)
}

/// A pool's state as the ledger last followed it from the chain.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PoolState {
    pub token: TokenAddress,
    pub symbol: String,
    pub pool: Address,
    /// None until the pool's opening is mined.
    pub followed: Option<Observed>,
}

/// Every pool's state to compare with the chain's `slot0` and `liquidity()`.
pub fn pool_states(store: &dyn Store) -> Result<Vec<PoolState>> {
    let mut out = Vec::new();
    for t in store.tokens()? {
        if let Some(p) = store.pool(&t.address)? {
            out.push(PoolState {
                token: t.address,
                symbol: t.symbol,
                pool: p.address,
                followed: p.chain,
            });
        }
    }
    Ok(out)
}
