//! Uniswap v3's pool arithmetic, as `UniswapV3Pool` does it, so the ledger's figures are the
//! chain's to the unit: a swap walks the pool's initialized ticks one step at a time, exactly
//! where the pool's own loop stops (the next initialized tick within one bitmap word), and
//! each step is `SwapMath.computeSwapStep`; a position's amounts are `_modifyPosition`'s and
//! its liquidity is the periphery's `LiquidityAmounts`.
//!
//! The per-step math (TickMath, SqrtPriceMath, SwapMath, FullMath) is `uniswap_v3_math`'s,
//! a Rust port over alloy's `U256`. Written here, because no library does them apart from a
//! node: the loop over a tick map held in memory, the bitmap word boundaries it stops at (a
//! `BTreeMap` range gives the same stops as the pool's bitmap), the square root of a price
//! ratio (integer Newton steps: no float), and the periphery's liquidity-for-amounts.
//!
//! Nothing here panics on any input: every operation is checked and fails as [`MathError`].

use alloy_primitives::ruint::UintTryFrom;
use alloy_primitives::{I256, U256, U512};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uniswap_v3_math::{full_math, liquidity_math, sqrt_price_math, swap_math, tick_math};

/// The pool's fee, in hundredths of a basis point: Uniswap's 0.3 % tier.
pub const FEE_PIPS: u32 = 3_000;
/// The 0.3 % tier's tick spacing: positions start and end on multiples of it.
pub const TICK_SPACING: i32 = 60;
pub const MIN_TICK: i32 = tick_math::MIN_TICK;
pub const MAX_TICK: i32 = tick_math::MAX_TICK;
/// The widest range a position can have at this spacing.
pub const MIN_USABLE_TICK: i32 = MIN_TICK / TICK_SPACING * TICK_SPACING;
pub const MAX_USABLE_TICK: i32 = MAX_TICK / TICK_SPACING * TICK_SPACING;

/// Why a computation has no answer (a price out of range, an amount too large, a swap with
/// nothing to swap).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MathError(pub String);

impl<E: std::fmt::Display> From<E> for MathError {
    fn from(e: E) -> MathError {
        MathError(e.to_string())
    }
}

type Math<T> = Result<T, MathError>;

fn fail<T>(why: &str) -> Math<T> {
    Err(MathError(why.to_string()))
}

/// An initialized tick: the liquidity referencing it and the change in active liquidity when
/// the price crosses it upwards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TickInfo {
    pub gross: u128,
    pub net: i128,
}

/// The initialized ticks of a pool (every one a multiple of [`TICK_SPACING`]).
pub type Ticks = BTreeMap<i32, TickInfo>;

/// What a swap reads and changes: `slot0`'s price and tick, and the active liquidity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    pub sqrt_price: U256,
    pub tick: i32,
    pub liquidity: u128,
}

/// A swap's result, as the pool's `Swap` event reports it: the pool's deltas (positive: paid
/// into the pool), the fee taken (in the input token), and the state after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swapped {
    pub amount0: I256,
    pub amount1: I256,
    pub fee: U256,
    /// What the pool could not fill (exact input left unspent, exact output not delivered).
    pub unfilled: I256,
    pub state: State,
}

/// floor(sqrt(n)) by Newton's method from a power of two above the root.
fn isqrt(n: U512) -> U512 {
    if n.is_zero() {
        return n;
    }
    let bits = n.bit_len();
    let mut x = U512::from(1u8) << bits.div_ceil(2);
    loop {
        let y = (x + n / x) >> 1;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// `sqrt(amount1 / amount0)` as a Q64.96: the price at which the pool holds the two amounts
/// in that ratio. None for a zero amount or a ratio past the pool's price range.
pub fn sqrt_price_of_ratio(amount1: U256, amount0: U256) -> Option<U256> {
    if amount0.is_zero() || amount1.is_zero() {
        return None;
    }
    let ratio_x192 = (U512::from(amount1) << 192) / U512::from(amount0);
    let root = U256::uint_try_from(isqrt(ratio_x192)).ok()?;
    (root >= tick_math::MIN_SQRT_RATIO && root < tick_math::MAX_SQRT_RATIO).then_some(root)
}

/// `sqrt_price^2 x scale / 2^192` (or its inverse, `scale x 2^192 / sqrt_price^2`): a price
/// ratio back out of a Q64.96, to the nearest unit (a square root's floor is a hair below the
/// ratio it came from: rounding gives the ratio back), None past u128.
pub fn ratio_of_sqrt_price(sqrt_price: U256, scale: u128, inverse: bool) -> Option<u128> {
    let squared = U512::from(sqrt_price).checked_mul(U512::from(sqrt_price))?;
    let scaled = U512::from(scale);
    let (num, den) = if inverse {
        (scaled << 192, squared)
    } else {
        (squared.checked_mul(scaled)?, U512::from(1u8) << 192)
    };
    if den.is_zero() {
        return None;
    }
    u128::try_from((num + (den >> 1)) / den).ok()
}

/// floor(a x b / d) over 512 bits; None when d is zero or the result exceeds 256 bits.
pub fn mul_div(a: U256, b: U256, d: U256) -> Option<U256> {
    full_math::mul_div(a, b, d).ok()
}

pub fn sqrt_at(tick: i32) -> Math<U256> {
    Ok(tick_math::get_sqrt_ratio_at_tick(tick)?)
}

pub fn tick_at(sqrt_price: U256) -> Math<i32> {
    Ok(tick_math::get_tick_at_sqrt_ratio(sqrt_price)?)
}

/// The usable tick (a multiple of the spacing) whose price is nearest `sqrt_price`.
pub fn nearest_usable_tick(sqrt_price: U256) -> Math<i32> {
    let below = tick_at(sqrt_price)?.div_euclid(TICK_SPACING) * TICK_SPACING;
    let below = below.clamp(MIN_USABLE_TICK, MAX_USABLE_TICK);
    let above = (below + TICK_SPACING).min(MAX_USABLE_TICK);
    let (low, high) = (sqrt_at(below)?, sqrt_at(above)?);
    let nearer_above = high.saturating_sub(sqrt_price) < sqrt_price.saturating_sub(low);
    Ok(if nearer_above { above } else { below })
}

/// The periphery's `LiquidityAmounts.getLiquidityForAmounts`: the most liquidity that
/// `amount0` and `amount1` can back in `[sqrt_a, sqrt_b]` at `sqrt_price`.
pub fn liquidity_for_amounts(
    sqrt_price: U256,
    sqrt_a: U256,
    sqrt_b: U256,
    amount0: U256,
    amount1: U256,
) -> Math<u128> {
    let (a, b) = if sqrt_a <= sqrt_b {
        (sqrt_a, sqrt_b)
    } else {
        (sqrt_b, sqrt_a)
    };
    let q96 = sqrt_price_math::Q96;
    let for0 = |lo: U256, hi: U256| -> Math<U256> {
        let intermediate = full_math::mul_div(lo, hi, q96)?;
        Ok(full_math::mul_div(
            amount0,
            intermediate,
            hi.checked_sub(lo).unwrap_or_default(),
        )?)
    };
    let for1 = |lo: U256, hi: U256| -> Math<U256> {
        Ok(full_math::mul_div(
            amount1,
            q96,
            hi.checked_sub(lo).unwrap_or_default(),
        )?)
    };
    let liquidity = if sqrt_price <= a {
        for0(a, b)?
    } else if sqrt_price < b {
        for0(sqrt_price, b)?.min(for1(a, sqrt_price)?)
    } else {
        for1(a, b)?
    };
    u128::try_from(liquidity).or_else(|_| fail("liquidity past uint128"))
}

/// What a pool takes for minting `liquidity` in `[lower, upper]` when its state is `state`
/// (`_modifyPosition`, rounded up), as (amount0, amount1).
pub fn mint_amounts(state: &State, lower: i32, upper: i32, liquidity: u128) -> Math<(U256, U256)> {
    let (a, b) = (sqrt_at(lower)?, sqrt_at(upper)?);
    let d0 = |x: U256, y: U256| sqrt_price_math::_get_amount_0_delta(x, y, liquidity, true);
    let d1 = |x: U256, y: U256| sqrt_price_math::_get_amount_1_delta(x, y, liquidity, true);
    Ok(if state.tick < lower {
        (d0(a, b)?, U256::ZERO)
    } else if state.tick < upper {
        (d0(state.sqrt_price, b)?, d1(a, state.sqrt_price)?)
    } else {
        (U256::ZERO, d1(a, b)?)
    })
}

/// Adds `liquidity` in `[lower, upper]` to the tick map and, when the range holds the current
/// tick, to the active liquidity (`_updatePosition` and `_modifyPosition`). A negative
/// `liquidity` removes it (a burn).
pub fn add_position(
    state: &mut State,
    ticks: &mut Ticks,
    lower: i32,
    upper: i32,
    liquidity: i128,
) -> Math<()> {
    if lower >= upper || lower < MIN_TICK || upper > MAX_TICK {
        return fail("a position's range must be lower < upper within the tick range");
    }
    for (tick, upper_end) in [(lower, false), (upper, true)] {
        let info = ticks.entry(tick).or_default();
        info.gross = liquidity_math::add_delta(info.gross, liquidity)?;
        let signed = if upper_end {
            liquidity.checked_neg()
        } else {
            Some(liquidity)
        };
        info.net = signed
            .and_then(|l| info.net.checked_add(l))
            .ok_or_else(|| MathError("liquidityNet overflow".into()))?;
        if info.gross == 0 {
            ticks.remove(&tick);
        }
    }
    if lower <= state.tick && state.tick < upper {
        state.liquidity = liquidity_math::add_delta(state.liquidity, liquidity)?;
    }
    Ok(())
}

/// What the pool must hold at `state` for all the liquidity in `ticks` (token0, token1),
/// rounded down: each range between initialized ticks needs token0 above the price and
/// token1 below it. A pool that holds less cannot pay what its curve promises.
pub fn required(state: &State, ticks: &Ticks) -> Math<(U256, U256)> {
    let (mut need0, mut need1) = (U256::ZERO, U256::ZERO);
    let mut active: u128 = 0;
    let mut lower: Option<i32> = None;
    for (tick, info) in ticks {
        if let Some(from) = lower {
            if active > 0 {
                let (a, b) = (sqrt_at(from)?, sqrt_at(*tick)?);
                let p = state.sqrt_price;
                if p < b {
                    let start = if p > a { p } else { a };
                    need0 = need0.saturating_add(sqrt_price_math::_get_amount_0_delta(
                        start, b, active, false,
                    )?);
                }
                if p > a {
                    let end = if p < b { p } else { b };
                    need1 = need1.saturating_add(sqrt_price_math::_get_amount_1_delta(
                        a, end, active, false,
                    )?);
                }
            }
        }
        active = liquidity_math::add_delta(active, info.net)?;
        lower = Some(*tick);
    }
    Ok((need0, need1))
}

/// `TickBitmap.nextInitializedTickWithinOneWord`: the next initialized tick at or below
/// (`lte`) or above `tick`, or the edge of the bitmap word it lies in when there is none.
fn next_tick(ticks: &Ticks, tick: i32, lte: bool) -> (i32, bool) {
    let compressed = tick.div_euclid(TICK_SPACING);
    if lte {
        let word_start = (compressed >> 8) << 8;
        let range = word_start.saturating_mul(TICK_SPACING)..=compressed * TICK_SPACING;
        match ticks.range(range).next_back() {
            Some((t, _)) => (*t, true),
            None => (word_start.saturating_mul(TICK_SPACING), false),
        }
    } else {
        let next = compressed + 1;
        let word_end = ((next >> 8) << 8) + 255;
        let range = next * TICK_SPACING..=word_end.saturating_mul(TICK_SPACING);
        match ticks.range(range).next() {
            Some((t, _)) => (*t, true),
            None => (word_end.saturating_mul(TICK_SPACING), false),
        }
    }
}

fn signed(x: U256) -> Math<I256> {
    I256::checked_from_sign_and_abs(alloy_primitives::Sign::Positive, x)
        .ok_or_else(|| MathError("amount past int256".into()))
}

fn add(a: I256, b: I256) -> Math<I256> {
    a.checked_add(b)
        .ok_or_else(|| MathError("amount overflow".into()))
}

fn sub(a: I256, b: I256) -> Math<I256> {
    a.checked_sub(b)
        .ok_or_else(|| MathError("amount overflow".into()))
}

/// `UniswapV3Pool.swap` without its transfers: `amount_specified` > 0 is an exact input,
/// < 0 an exact output; the price may go as far as the pool's extreme (the limit tokenpad's
/// market contract swaps with).
pub fn swap(
    state: &State,
    ticks: &Ticks,
    zero_for_one: bool,
    amount_specified: I256,
    fee: u32,
) -> Math<Swapped> {
    if amount_specified.is_zero() {
        return fail("a swap of nothing");
    }
    let limit = if zero_for_one {
        tick_math::MIN_SQRT_RATIO + U256::from(1u8)
    } else {
        tick_math::MAX_SQRT_RATIO - U256::from(1u8)
    };
    let moves = if zero_for_one {
        limit < state.sqrt_price
    } else {
        limit > state.sqrt_price
    };
    let exact_input = amount_specified.is_positive();
    let mut remaining = amount_specified;
    let mut calculated = I256::ZERO;
    let mut fees = U256::ZERO;
    let mut s = *state;
    while moves && !remaining.is_zero() && s.sqrt_price != limit {
        let start = s.sqrt_price;
        let (next, initialized) = next_tick(ticks, s.tick, zero_for_one);
        let next = next.clamp(MIN_TICK, MAX_TICK);
        let sqrt_next = sqrt_at(next)?;
        let target = if (zero_for_one && sqrt_next < limit) || (!zero_for_one && sqrt_next > limit)
        {
            limit
        } else {
            sqrt_next
        };
        let (price, amount_in, amount_out, fee_amount) =
            swap_math::compute_swap_step(s.sqrt_price, target, s.liquidity, remaining, fee)?;
        s.sqrt_price = price;
        let taken = signed(
            amount_in
                .checked_add(fee_amount)
                .ok_or_else(|| MathError("amount overflow".into()))?,
        )?;
        if exact_input {
            remaining = sub(remaining, taken)?;
            calculated = sub(calculated, signed(amount_out)?)?;
        } else {
            remaining = add(remaining, signed(amount_out)?)?;
            calculated = add(calculated, taken)?;
        }
        fees = fees.saturating_add(fee_amount);
        if s.sqrt_price == sqrt_next {
            if initialized {
                let net = ticks.get(&next).map_or(0, |t| t.net);
                let net = if zero_for_one {
                    net.checked_neg()
                        .ok_or_else(|| MathError("liquidityNet overflow".into()))?
                } else {
                    net
                };
                s.liquidity = liquidity_math::add_delta(s.liquidity, net)?;
            }
            s.tick = if zero_for_one { next - 1 } else { next };
        } else if s.sqrt_price != start {
            s.tick = tick_at(s.sqrt_price)?;
        }
    }
    let specified_done = sub(amount_specified, remaining)?;
    let (amount0, amount1) = if zero_for_one == exact_input {
        (specified_done, calculated)
    } else {
        (calculated, specified_done)
    };
    Ok(Swapped {
        amount0,
        amount1,
        fee: fees,
        unfilled: remaining,
        state: s,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn usable_ticks_and_ratios() {
        assert_eq!(MIN_USABLE_TICK, -887_220);
        assert_eq!(MAX_USABLE_TICK, 887_220);
        // A price of 1 is tick 0, whose sqrt price is exactly 2^96.
        let one = sqrt_price_of_ratio(U256::from(7u8), U256::from(7u8)).unwrap();
        assert_eq!(one, U256::from(1u8) << 96);
        assert_eq!(nearest_usable_tick(one).unwrap(), 0);
        assert_eq!(ratio_of_sqrt_price(one, 1_000, false), Some(1_000));
        assert_eq!(ratio_of_sqrt_price(one, 1_000, true), Some(1_000));
        // 4 = 2^2: the square root is exact.
        let four = sqrt_price_of_ratio(U256::from(4u8), U256::from(1u8)).unwrap();
        assert_eq!(four, U256::from(2u8) << 96);
        assert_eq!(isqrt(U512::from(99u8)), U512::from(9u8));
        assert_eq!(isqrt(U512::from(100u8)), U512::from(10u8));
        assert!(sqrt_price_of_ratio(U256::ZERO, U256::from(1u8)).is_none());
    }

    #[test]
    fn next_tick_stops_at_word_edges_and_initialized_ticks() {
        let mut ticks = Ticks::new();
        ticks.insert(120, TickInfo { gross: 1, net: 1 });
        ticks.insert(-60, TickInfo { gross: 1, net: -1 });
        assert_eq!(next_tick(&ticks, 0, false), (120, true));
        // -60 is in the word below tick 0's: the walk stops at the word's edge first.
        assert_eq!(next_tick(&ticks, 0, true), (0, false));
        assert_eq!(next_tick(&ticks, -1, true), (-60, true));
        assert_eq!(next_tick(&ticks, -61, true), (-256 * 60, false));
        assert_eq!(next_tick(&ticks, 120, false), (255 * 60, false));
        // At an initialized tick, looking down finds it; looking up skips it.
        assert_eq!(next_tick(&ticks, 120, true), (120, true));
    }

    #[test]
    fn a_full_range_swap_pays_less_than_the_spot_price() {
        let sqrt = U256::from(1u8) << 96;
        let mut state = State {
            sqrt_price: sqrt,
            tick: 0,
            liquidity: 0,
        };
        let mut ticks = Ticks::new();
        let l: u128 = 1_000_000_000_000;
        add_position(
            &mut state,
            &mut ticks,
            MIN_USABLE_TICK,
            MAX_USABLE_TICK,
            l as i128,
        )
        .unwrap();
        assert_eq!(state.liquidity, l);
        let (a0, a1) = mint_amounts(&state, MIN_USABLE_TICK, MAX_USABLE_TICK, l).unwrap();
        assert!(a0 > U256::ZERO && a1 > U256::ZERO);
        let s = swap(
            &state,
            &ticks,
            true,
            I256::try_from(1_000_000i64).unwrap(),
            FEE_PIPS,
        )
        .unwrap();
        assert_eq!(s.amount0, I256::try_from(1_000_000i64).unwrap());
        assert!(s.amount1.is_negative());
        assert!(s.amount1.unsigned_abs() < U256::from(997_000u32));
        assert_eq!(s.fee, U256::from(3_000u32));
        assert!(s.state.sqrt_price < sqrt);
        assert!(s.unfilled.is_zero());
    }

    #[test]
    fn a_swap_past_all_liquidity_is_partly_filled() {
        let sqrt = sqrt_at(600).unwrap();
        let mut state = State {
            sqrt_price: sqrt,
            tick: 600,
            liquidity: 0,
        };
        let mut ticks = Ticks::new();
        add_position(&mut state, &mut ticks, 600, MAX_USABLE_TICK, 1_000_000_000).unwrap();
        // Selling token0 below the range: nothing there.
        let s = swap(
            &state,
            &ticks,
            true,
            I256::try_from(1_000i64).unwrap(),
            FEE_PIPS,
        )
        .unwrap();
        assert_eq!(s.amount0, I256::ZERO);
        assert_eq!(s.unfilled, I256::try_from(1_000i64).unwrap());
    }
}
