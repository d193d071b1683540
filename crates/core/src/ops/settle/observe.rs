//! Transfers the chain shows that tokenpad did not make: deposits, and the movements of the
//! merchant's tokens between outside addresses.
//!
//! The settler reads the Transfer logs of the merchant's tokens (all of them: tokenpad
//! deployed these tokens, so it can follow every balance) and of USDC (only those to the
//! merchant's holders). A log from one of tokenpad's own transactions is already in the
//! ledger and is skipped, and so is any transfer from the treasury or a custodial holder:
//! only tokenpad signs for those. Everything else is applied:
//!
//! - to a custodial holder: a `deposit` record and the tokens in its balance;
//! - a merchant token between outside addresses: their balance rows follow;
//! - to the merchant's wallet (or the token's merchant address): the merchant supply;
//! - USDC from an outside address: what tokenpad sent that address before comes back out of
//!   its row, the rest is new to the ledger (its USDC supply grows, as with any deposit);
//! - into or out of one of the merchant's pools (another trader's swap, liquidity added or
//!   collected): the pool's reserve follows, so the ledger's pools hold what the pool
//!   contracts hold; USDC a pool pays to an outside address leaves the ledger. A pool that
//!   pays out more than the ledger has left in it (the rest is booked to tokenpad's own swaps
//!   not mined yet, which the chain will then refuse) owes the difference, and the undo of
//!   those swaps pays it (`ops::undo`).
//!
//! The settler applies a range of blocks and moves its cursor past it in one transaction, so
//! each log is applied exactly once; what each applied log did is journaled, so a
//! reorganization that removes it can undo exactly that (`reorg`).

use super::claims;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::history::{ChainStatus, TxRecord, TxType};
use crate::model::ids::TokenAddress;
use crate::model::intent::{Owed, OwedSince, Reserve, Side};
use crate::model::settlement::{Holding, Observation};
use crate::model::token::{Token, TokenKind};
use crate::ops::{undo, Ctx};
use crate::store::Store;

/// One Transfer log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The ledger's address of the token (USDC's ledger address for the chain's USDC).
    pub token: TokenAddress,
    pub from: Address,
    pub to: Address,
    pub amount: Units,
    pub hash: String,
    pub block: u64,
    pub log_index: u64,
}

/// What the ledger did with a log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Ours, or nothing the ledger follows.
    Skipped,
    /// A custodial holder received it: a deposit.
    Deposit,
    /// Moved between addresses outside the custody, or to the merchant.
    Followed,
}

/// Where an address's tokens sit in the ledger.
enum Place {
    MerchantSupply,
    /// The pool of the given token (a Uniswap pool holds the token and USDC).
    Pool(TokenAddress),
    Row(Address),
}

impl Place {
    fn holding(&self) -> Holding {
        match self {
            Place::MerchantSupply => Holding::MerchantSupply,
            Place::Pool(t) => Holding::Pool(*t),
            Place::Row(a) => Holding::Row(*a),
        }
    }
}

fn place(store: &dyn Store, ctx: &Ctx, t: &Token, a: Address) -> Result<Place> {
    if a == ctx.merchant.address || (t.kind == TokenKind::Merchant && a == t.merchant_address) {
        return Ok(Place::MerchantSupply);
    }
    if let Some(pool_token) = pool_token_at(store, a)? {
        // A token's pool holds that token, and USDC.
        if t.kind == TokenKind::Usdc || pool_token == t.address {
            return Ok(Place::Pool(pool_token));
        }
    }
    Ok(Place::Row(a))
}

/// The merchant's token whose pool is at `a`, if one is.
fn pool_token_at(store: &dyn Store, a: Address) -> Result<Option<TokenAddress>> {
    for t in store.tokens()? {
        if t.kind == TokenKind::Merchant && store.pool(&t.address)?.is_some_and(|p| p.address == a)
        {
            return Ok(Some(t.address));
        }
    }
    Ok(None)
}

/// Moves up to `n` of `t` out of (`into` false) or into a pool's reserve; returns how much
/// (following a log, and undoing one in `reorg`).
pub(super) fn shift_pool(
    store: &mut dyn Store,
    t: &mut Token,
    pool_token: &TokenAddress,
    n: Units,
    into: bool,
) -> Result<Units> {
    let Some(mut p) = store.pool(pool_token)? else {
        return Ok(Units::ZERO);
    };
    let usdc = t.address != *pool_token;
    let held: Units = if usdc {
        p.usdc_reserve.cast()
    } else {
        p.token_reserve
    };
    let n = if into { n } else { held.min(n) };
    let step = |x: Units| if into { x.plus(n) } else { x.minus(n) };
    if usdc {
        p.usdc_reserve = step(held)?.cast();
    } else {
        p.token_reserve = step(held)?;
    }
    t.pooled = step(t.pooled)?;
    store.put_pool(&p)?;
    Ok(n)
}

/// Applies one log (see the module's rules).
pub fn observe(store: &mut dyn Store, ctx: &Ctx, o: &Observed) -> Result<Applied> {
    if o.amount.is_zero() || store.is_own_tx(&o.hash)? {
        return Ok(Applied::Skipped);
    }
    let Some(mut t) = store.token(&o.token)? else {
        return Ok(Applied::Skipped);
    };
    // Only tokenpad signs for the treasury and its holders: those moves are in the ledger.
    if o.from == ctx.merchant.address || store.holder_by_address(&o.from)?.is_some() {
        return Ok(Applied::Skipped);
    }
    let holder = store.holder_by_address(&o.to)?;
    let usdc = t.kind == TokenKind::Usdc;
    let (from, to) = (place(store, ctx, &t, o.from)?, place(store, ctx, &t, o.to)?);
    let pool_side = matches!(from, Place::Pool(_)) || matches!(to, Place::Pool(_));
    let to_merchant = matches!(to, Place::MerchantSupply);
    if usdc && holder.is_none() && !pool_side && !to_merchant {
        // USDC between outside addresses: not the ledger's to follow.
        return Ok(Applied::Skipped);
    }
    if !usdc && t.kind != TokenKind::Merchant {
        return Ok(Applied::Skipped);
    }

    // Out of the sender's place: as much as the ledger knows it had.
    let taken = match &from {
        Place::MerchantSupply => {
            let n = t.merchant_supply.min(o.amount);
            t.merchant_supply = t.merchant_supply.minus(n)?;
            n
        }
        Place::Pool(pool_token) => shift_pool(store, &mut t, pool_token, o.amount, false)?,
        Place::Row(a) => {
            let mut b = store.balance(&t.address, a)?;
            let n = b.active.min(o.amount);
            b.active = b.active.minus(n)?;
            t.held = t.held.minus(n)?;
            store.put_balance(&t.address, a, &b)?;
            n
        }
    };
    // USDC the ledger did not know of is new supply; a merchant token's supply is fixed, so
    // only what the sender was known to have moves.
    let amount = if usdc {
        let fresh = o.amount.minus(taken)?;
        t.total_supply = t.total_supply.plus(fresh)?;
        o.amount
    } else {
        taken
    };
    let gone = usdc && holder.is_none() && matches!(to, Place::Row(_));
    // A pool short of what the chain's pool paid: the ledger booked it to swaps of its own
    // not mined yet, which the chain will refuse; the pool owes it, and their undo pays it
    // (`ops::undo`): to the side that received it, or, for USDC (whose receiver got all of
    // it, the rest as new supply), out of the supply again.
    let owed = match &from {
        Place::Pool(_) => o.amount.minus(taken)?,
        Place::MerchantSupply | Place::Row(_) => Units::ZERO,
    };
    // What a merchant token's sender sent beyond what the ledger knew it had is what a pool
    // owed it, and the claim goes with it (`claims`).
    let claims = match &from {
        Place::Pool(_) => Vec::new(),
        _ if usdc => Vec::new(),
        _ => {
            let short = o.amount.minus(taken)?;
            claims::carry(&mut t, &from.holding().side(), &to.holding().side(), short)?
        }
    };
    // What the receiver owes (`ops::undo`: the ledger booked onward what it no longer had) is
    // paid first: on chain, what arrives is what the movement built on it spends.
    let (kept, paid) = if gone {
        (amount, Vec::new())
    } else {
        undo::pay_debts(store, &mut t, &to.holding().side(), amount, ctx.now)?
    };
    match &to {
        Place::MerchantSupply => t.merchant_supply = t.merchant_supply.plus(kept)?,
        Place::Pool(pool_token) => {
            shift_pool(store, &mut t, pool_token, kept, true)?;
        }
        // USDC a pool paid to an outside address leaves what the ledger follows.
        Place::Row(_) if gone => {
            t.total_supply = t.total_supply.minus(amount)?;
        }
        Place::Row(a) => {
            let mut b = store.balance(&t.address, a)?;
            b.active = b.active.plus(kept)?;
            t.held = t.held.plus(kept)?;
            store.put_balance(&t.address, a, &b)?;
        }
    }
    owe(&mut t, &from, &to, usdc, o, owed);
    store.put_token(&t)?;
    let mut journal = Observation {
        block: o.block,
        log_index: o.log_index,
        tx: o.hash.clone(),
        token: t.address,
        from: from.holding(),
        to: if gone { Holding::Outside } else { to.holding() },
        taken,
        given: amount,
        owed,
        record: None,
        claims,
        paid,
    };
    let Some(h) = holder else {
        store.put_observation(&journal)?;
        return Ok(Applied::Followed);
    };
    journal.record = Some(crate::ops::history::append(
        store,
        &TxRecord {
            id: format!("{}-{}", o.hash, o.log_index),
            hash: Some(o.hash.clone()),
            chain_status: ChainStatus::Confirmed,
            block: Some(o.block),
            kind: TxType::Deposit,
            user_id: h.user_id,
            token: t.address,
            symbol: t.symbol.clone(),
            decimals: t.decimals,
            amount,
            from: o.from,
            to: o.to,
            at: ctx.now,
            reason: None,
        },
    )?);
    // The deposit's record grows as what this log left owed to the holder is paid: what the
    // pool could not give (the debt since this log), and the claims that came with it (a
    // USDC deposit's record shows all of it already).
    if let Some(seq) = journal.record.filter(|_| !usdc) {
        let holder_side = Side::Row(o.to);
        let this = owed_since(o);
        let carried = journal.claims.iter().filter(|c| !c.settled);
        let mut grew = false;
        for (by, since) in
            std::iter::once((None, this)).chain(carried.map(|c| (Some(&c.by), c.since)))
        {
            let mine = |d: &&mut Owed| {
                d.to == holder_side && d.since == since && by.is_none_or(|b| &d.by == b)
            };
            if let Some(d) = t.owed.iter_mut().rev().find(mine) {
                d.records.push(seq);
                grew = true;
            }
        }
        if grew {
            store.put_token(&t)?;
        }
    }
    store.put_observation(&journal)?;
    Ok(Applied::Deposit)
}

/// Records what `from` could not give of log `o` (see `observe`).
fn owe(t: &mut Token, from: &Place, to: &Place, usdc: bool, o: &Observed, n: Units) {
    let to = if usdc {
        Side::Reserve(Reserve::Minted)
    } else {
        to.holding().side()
    };
    undo::owe(t, from.holding().side(), to, n, owed_since(o), Vec::new());
}

/// What a pool owes since following log `o`.
fn owed_since(o: &Observed) -> OwedSince {
    OwedSince::Log {
        block: o.block,
        log_index: o.log_index,
    }
}
