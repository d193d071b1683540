//! The simulated chain's Uniswap v3 pools: opened by tokenpad's market (`OpenPool`), traded
//! by holders through the market (`Swap`) and by anyone directly. Their arithmetic is the
//! core's port of Uniswap's (`model::pool::v3`), applied to the chain's own pool state: the
//! simulator checks the ledger's bookkeeping of the chain, not Uniswap's math.

use alloy_primitives::{I256, U256};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::pool::v3::{self, State, Ticks, FEE_PIPS};

/// A pool as the chain holds it.
#[derive(Clone, Debug)]
pub struct ChainPool {
    pub token: Address,
    pub address: Address,
    pub token_is_0: bool,
    pub state: State,
    pub ticks: Ticks,
}

/// What a pool's opening took (token, USDC) and the position's liquidity.
pub struct Opening {
    pub pool: ChainPool,
    pub tokens: u128,
    pub usdc: u128,
    pub liquidity: u128,
}

fn u128_of(x: U256) -> Result<u128, String> {
    u128::try_from(x).map_err(|_| "amount past uint128".to_string())
}

/// TokenpadMarket's opening: the pool initialized at `sqrt_price`, the most liquidity the
/// amounts back in `[lower, upper]` minted, and what the position takes.
pub fn open(
    token: Address,
    usdc: Address,
    address: Address,
    amounts: (u128, u128),
    sqrt_price: U256,
    range: (i32, i32),
) -> Result<Opening, String> {
    let (tokens, usdc_in) = amounts;
    let (lower, upper) = range;
    let token_is_0 = token < usdc;
    let (a0, a1) = if token_is_0 {
        (tokens, usdc_in)
    } else {
        (usdc_in, tokens)
    };
    let e = |e: v3::MathError| e.0;
    let sqrt_a = v3::sqrt_at(lower).map_err(e)?;
    let sqrt_b = v3::sqrt_at(upper).map_err(e)?;
    let liquidity =
        v3::liquidity_for_amounts(sqrt_price, sqrt_a, sqrt_b, U256::from(a0), U256::from(a1))
            .map_err(e)?;
    if liquidity == 0 {
        return Err("TokenpadMarketNoLiquidity".into());
    }
    let mut state = State {
        sqrt_price,
        tick: v3::tick_at(sqrt_price).map_err(e)?,
        liquidity: 0,
    };
    let (used0, used1) = v3::mint_amounts(&state, lower, upper, liquidity).map_err(e)?;
    let mut ticks = Ticks::new();
    let signed = i128::try_from(liquidity).map_err(|_| "liquidity past int128".to_string())?;
    v3::add_position(&mut state, &mut ticks, lower, upper, signed).map_err(e)?;
    let (used0, used1) = (u128_of(used0)?, u128_of(used1)?);
    let (used_tokens, used_usdc) = if token_is_0 {
        (used0, used1)
    } else {
        (used1, used0)
    };
    if used_tokens > tokens || used_usdc > usdc_in {
        return Err("the position takes more than it was given".into());
    }
    Ok(Opening {
        pool: ChainPool {
            token,
            address,
            token_is_0,
            state,
            ticks,
        },
        tokens: used_tokens,
        usdc: used_usdc,
        liquidity,
    })
}

/// A swap's outcome: what goes in and out (token, USDC sides) and the pool's deltas.
pub struct Traded {
    /// Paid into the pool.
    pub paid_in: u128,
    /// Paid out of it.
    pub paid_out: u128,
    pub amount0: i128,
    pub amount1: i128,
    pub after: State,
}

impl ChainPool {
    /// A swap: `buy` pays USDC for tokens; `exact_in`: `amount` goes in, else `amount` comes
    /// out. Refused when the pool cannot fill it whole.
    pub fn swap(&self, buy: bool, exact_in: bool, amount: u128) -> Result<Traded, String> {
        // Buying tokens: USDC in. token0 is the token when `token_is_0`.
        let zero_for_one = buy != self.token_is_0;
        let magnitude = I256::try_from(amount).map_err(|_| "amount past int256".to_string())?;
        let specified = if exact_in { magnitude } else { -magnitude };
        let s = v3::swap(&self.state, &self.ticks, zero_for_one, specified, FEE_PIPS)
            .map_err(|e| e.0)?;
        if !s.unfilled.is_zero() {
            return Err("the pool cannot fill it (not enough liquidity)".into());
        }
        let as_i128 = |x: I256| i128::try_from(x).map_err(|_| "amount past int128".to_string());
        let (amount0, amount1) = (as_i128(s.amount0)?, as_i128(s.amount1)?);
        let (paid_in, paid_out) = if zero_for_one {
            (amount0, amount1)
        } else {
            (amount1, amount0)
        };
        if paid_in <= 0 || paid_out > 0 {
            return Err("a swap that moves nothing".into());
        }
        Ok(Traded {
            paid_in: paid_in.unsigned_abs(),
            paid_out: paid_out.unsigned_abs(),
            amount0,
            amount1,
            after: s.state,
        })
    }
}
