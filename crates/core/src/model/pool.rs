//! Liquidity pools: a token against USDC, priced like a full-range Uniswap position: a
//! constant product of the two reserves, Uniswap's 0.3 % fee taken from what comes in (it
//! stays in the pool, so `k` grows with every trade), and every rounding in the pool's
//! favour. The math is exact integer arithmetic with 256-bit intermediates.
//!
//! A pool opened from a token's reserve alone (no USDC yet: a dashboard token's first pool,
//! a memecoin's) starts at its price through a *virtual* USDC reserve: the curve is the one
//! `tokens x (usdc + virtual)` describes, but only USDC that buyers paid in can ever be paid
//! out, so a pool can never pay more USDC than it holds. A presale's pool opens with the
//! raised USDC itself (no virtual part).

use super::address::Address;
use super::amount::{Price, Units, Usdc, TOKEN_DECIMALS};
use super::arith::{mul_div, widening_mul};
use super::ids::TokenAddress;
use super::time::Millis;
use serde::{Deserialize, Serialize};

/// Uniswap's fee tier: 0.3 % of what comes in, in basis points.
pub const FEE_BPS: u32 = 30;
const BPS: u128 = 10_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pool {
    pub token: TokenAddress,
    /// The pool's address (deterministic: made from the token's).
    pub address: Address,
    /// Tokens in the pool (the token's `pooled`).
    pub token_reserve: Units,
    /// USDC paid into the pool; only this can be paid out.
    pub usdc_reserve: Usdc,
    /// The price support of a pool opened without USDC: part of the curve, never paid out.
    pub virtual_usdc: Usdc,
    pub fee_bps: u32,
    /// The liquidity position's id (Metal's `lpInfo.nftId`).
    pub nft_id: u64,
    pub created_at: Millis,
}

/// What a trade does to a pool: what goes in, what comes out, and the pool after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trade {
    /// Tokens the pool receives (a sell) or pays out (a buy).
    pub tokens: Units,
    /// USDC the pool receives (a buy) or pays out (a sell).
    pub usdc: Usdc,
    /// The part of what came in that is the pool's fee (in the asset that came in: USDC for
    /// a buy, tokens for a sell).
    pub fee: u128,
    pub after: Pool,
}

/// Why a trade cannot happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TradeError {
    /// The amount is too small to move anything (it would receive nothing).
    TooSmall,
    /// The pool cannot pay that much (tokens it does not hold, USDC no buyer paid in).
    Drains,
    /// An amount too large for the arithmetic.
    TooLarge,
}

/// floor(amount_in x (1 - fee) x reserve_out / (reserve_in + amount_in x (1 - fee))).
fn out_given_in(
    amount_in: u128,
    reserve_in: u128,
    reserve_out: u128,
    fee_bps: u32,
) -> Result<u128, TradeError> {
    let with_fee = amount_in
        .checked_mul(BPS - u128::from(fee_bps))
        .ok_or(TradeError::TooLarge)?;
    let denominator = reserve_in
        .checked_mul(BPS)
        .and_then(|r| r.checked_add(with_fee))
        .ok_or(TradeError::TooLarge)?;
    mul_div(with_fee, reserve_out, denominator).ok_or(TradeError::TooLarge)
}

/// ceil(reserve_in x amount_out / ((reserve_out - amount_out) x (1 - fee))): the least
/// `amount_in` for which [`out_given_in`] pays at least `amount_out`.
fn in_given_out(
    amount_out: u128,
    reserve_in: u128,
    reserve_out: u128,
    fee_bps: u32,
) -> Result<u128, TradeError> {
    if amount_out >= reserve_out {
        return Err(TradeError::Drains);
    }
    let numerator_a = reserve_in.checked_mul(BPS).ok_or(TradeError::TooLarge)?;
    let denominator = (reserve_out - amount_out)
        .checked_mul(BPS - u128::from(fee_bps))
        .ok_or(TradeError::TooLarge)?;
    let q = mul_div(numerator_a, amount_out, denominator).ok_or(TradeError::TooLarge)?;
    // Round up: q x denominator < numerator_a x amount_out means a remainder.
    let exact = widening_mul(q, denominator) == widening_mul(numerator_a, amount_out);
    let amount_in = if exact {
        q
    } else {
        q.checked_add(1).ok_or(TradeError::TooLarge)?
    };
    // Guard against rounding: the amount found must really buy amount_out.
    match out_given_in(amount_in, reserve_in, reserve_out, fee_bps)? {
        got if got >= amount_out => Ok(amount_in),
        _ => amount_in.checked_add(1).ok_or(TradeError::TooLarge),
    }
}

fn fee_of(amount_in: u128, fee_bps: u32) -> u128 {
    // The fee is the part of `amount_in` the curve does not count, rounded up (the pool's).
    let counted = amount_in.saturating_mul(BPS - u128::from(fee_bps)) / BPS;
    amount_in.saturating_sub(counted)
}

impl Pool {
    /// The USDC side of the curve: paid-in USDC plus the virtual reserve.
    pub fn usdc_curve(&self) -> Option<u128> {
        self.usdc_reserve.raw().checked_add(self.virtual_usdc.raw())
    }

    /// The pool's price: USD per whole token (None for an empty pool).
    pub fn price(&self) -> Option<Price> {
        Price::of(
            Usdc::new(self.usdc_curve()?),
            self.token_reserve,
            TOKEN_DECIMALS,
        )
    }

    /// The constant product, in 256 bits (high, low).
    pub fn k(&self) -> (u128, u128) {
        widening_mul(
            self.token_reserve.raw(),
            self.usdc_curve().unwrap_or(u128::MAX),
        )
    }

    /// A buy paying exactly `usdc` in.
    pub fn buy_with(&self, usdc: Usdc) -> Result<Trade, TradeError> {
        let curve = self.usdc_curve().ok_or(TradeError::TooLarge)?;
        let tokens = out_given_in(usdc.raw(), curve, self.token_reserve.raw(), self.fee_bps)?;
        self.buy(tokens, usdc.raw())
    }

    /// A buy of exactly `tokens` out.
    pub fn buy_exact(&self, tokens: Units) -> Result<Trade, TradeError> {
        let curve = self.usdc_curve().ok_or(TradeError::TooLarge)?;
        let usdc = in_given_out(tokens.raw(), curve, self.token_reserve.raw(), self.fee_bps)?;
        self.buy(tokens.raw(), usdc)
    }

    fn buy(&self, tokens: u128, usdc: u128) -> Result<Trade, TradeError> {
        if tokens == 0 || usdc == 0 {
            return Err(TradeError::TooSmall);
        }
        if tokens >= self.token_reserve.raw() {
            return Err(TradeError::Drains);
        }
        let mut after = self.clone();
        after.token_reserve = Units::new(self.token_reserve.raw() - tokens);
        after.usdc_reserve = self
            .usdc_reserve
            .checked_add(Usdc::new(usdc))
            .ok_or(TradeError::TooLarge)?;
        Ok(Trade {
            tokens: Units::new(tokens),
            usdc: Usdc::new(usdc),
            fee: fee_of(usdc, self.fee_bps),
            after,
        })
    }

    /// A sell of exactly `tokens` in.
    pub fn sell(&self, tokens: Units) -> Result<Trade, TradeError> {
        let curve = self.usdc_curve().ok_or(TradeError::TooLarge)?;
        let usdc = out_given_in(tokens.raw(), self.token_reserve.raw(), curve, self.fee_bps)?;
        if usdc == 0 {
            return Err(TradeError::TooSmall);
        }
        // Only USDC buyers paid in can be paid out, and never all of it (the curve needs
        // some to keep a price).
        if usdc >= self.usdc_reserve.raw() {
            return Err(TradeError::Drains);
        }
        let mut after = self.clone();
        after.token_reserve = self
            .token_reserve
            .checked_add(tokens)
            .ok_or(TradeError::TooLarge)?;
        after.usdc_reserve = Usdc::new(self.usdc_reserve.raw() - usdc);
        Ok(Trade {
            tokens,
            usdc: Usdc::new(usdc),
            fee: fee_of(tokens.raw(), self.fee_bps),
            after,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn pool(tokens: u128, usdc: u128, virtual_usdc: u128) -> Pool {
        Pool {
            token: TokenAddress(Address::ZERO),
            address: Address::ZERO,
            token_reserve: Units::new(tokens),
            usdc_reserve: Usdc::new(usdc),
            virtual_usdc: Usdc::new(virtual_usdc),
            fee_bps: FEE_BPS,
            nft_id: 1,
            created_at: 0,
        }
    }

    const TOKEN: u128 = 1_000_000_000_000_000_000;
    const USDC: u128 = 1_000_000;

    #[test]
    fn uniswap_v2_amounts() {
        // 1,000 tokens against 1,000 USDC; paying 10 USDC gets
        // floor(10e6 x 9970 x 1000e18 / (1000e6 x 10000 + 10e6 x 9970)) tokens.
        let p = pool(1000 * TOKEN, 1000 * USDC, 0);
        let t = p.buy_with(Usdc::new(10 * USDC)).unwrap();
        assert_eq!(t.tokens.raw(), 9_871_580_343_970_612_988);
        assert_eq!(t.fee, 30_000);
        assert_eq!(t.after.token_reserve.raw(), 1000 * TOKEN - t.tokens.raw());
        // Buying exactly that many tokens costs at most the same 10 USDC.
        let exact = p.buy_exact(t.tokens).unwrap();
        assert!(exact.usdc.raw() <= 10 * USDC);
        assert!(p.buy_exact(Units::new(exact.tokens.raw())).unwrap().usdc == exact.usdc);
        assert_eq!(p.price().unwrap(), Price::one_dollar());
    }

    #[test]
    fn nothing_drains_the_pool() {
        let p = pool(1000 * TOKEN, 0, 500 * USDC);
        assert_eq!(
            p.buy_exact(Units::new(1000 * TOKEN)).unwrap_err(),
            TradeError::Drains
        );
        // No USDC was paid in: a sell cannot be paid.
        assert_eq!(p.sell(Units::new(TOKEN)).unwrap_err(), TradeError::Drains);
        assert_eq!(p.buy_with(Usdc::new(0)).unwrap_err(), TradeError::TooSmall);
        let bought = p.buy_with(Usdc::new(100 * USDC)).unwrap();
        // The buyer can sell back, for less than paid.
        let back = bought.after.sell(bought.tokens).unwrap();
        assert!(back.usdc < bought.usdc);
        assert_eq!(
            p.buy_with(Usdc::new(u128::MAX)).unwrap_err(),
            TradeError::TooLarge
        );
    }
}
