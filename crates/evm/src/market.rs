//! Calldata for tokenpad's market contract (`contracts/TokenpadMarket.sol`) and reads of a
//! Uniswap v3 pool: opening a pool with the treasury's funds, a holder's swap paid by the
//! relayer, the nonce that binds a holder's signature to its swap, and `slot0`/`liquidity`.
//!
//! A price is a Q64.96 (`sqrtPriceX96`) and comes as alloy's `U256`; ticks are `i32` (the
//! contracts' `int24`); amounts `u128` base units, as everywhere in this crate.

use alloy_primitives::{keccak256, Address, Signed, B256, U256};
use alloy_sol_types::{SolCall, SolValue};

use crate::abi;
use crate::auth::SignedAuthorization;
use crate::error::{Error, Result};

type I24 = Signed<24, 1>;

fn tick(t: i32) -> Result<I24> {
    I24::try_from(t).map_err(|_| Error::TooLarge { what: "tick" })
}

fn uint160(x: U256) -> Result<alloy_primitives::Uint<160, 3>> {
    alloy_primitives::Uint::<160, 3>::checked_from_limbs_slice(x.as_limbs()).ok_or(
        Error::TooLarge {
            what: "sqrtPriceX96",
        },
    )
}

/// A signed receive-authorization as the market's `Pull`; `None` is an empty pull (value 0,
/// skipped by the market: nothing to sign).
fn pull(a: Option<&SignedAuthorization>, from: [u8; 20]) -> abi::Pull {
    match a {
        Some(a) => abi::Pull {
            from: Address::from(a.authorization.from),
            value: U256::from(a.authorization.value),
            validAfter: U256::from(a.authorization.valid_after),
            validBefore: U256::from(a.authorization.valid_before),
            nonce: B256::from(a.authorization.nonce),
            v: a.v,
            r: B256::from(a.r),
            s: B256::from(a.s),
        },
        None => abi::Pull {
            from: Address::from(from),
            value: U256::ZERO,
            validAfter: U256::ZERO,
            validBefore: U256::ZERO,
            nonce: B256::ZERO,
            v: 0,
            r: B256::ZERO,
            s: B256::ZERO,
        },
    }
}

/// A pool to open: its two tokens in address order, its first price and the position's range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub token0: [u8; 20],
    pub token1: [u8; 20],
    pub sqrt_price_x96: U256,
    pub tick_lower: i32,
    pub tick_upper: i32,
}

impl Opening {
    /// `openPool(token0, token1, sqrtPriceX96, tickLower, tickUpper, pull0, pull1)`: the
    /// `caller` (the treasury, which signed both pulls) opens the pool; a `None` pull puts in
    /// nothing of that token.
    pub fn calldata(
        &self,
        caller: [u8; 20],
        pull0: Option<&SignedAuthorization>,
        pull1: Option<&SignedAuthorization>,
    ) -> Result<Vec<u8>> {
        Ok(abi::openPoolCall {
            token0: Address::from(self.token0),
            token1: Address::from(self.token1),
            sqrtPriceX96: uint160(self.sqrt_price_x96)?,
            tickLower: tick(self.tick_lower)?,
            tickUpper: tick(self.tick_upper)?,
            pull0: pull(pull0, caller),
            pull1: pull(pull1, caller),
        }
        .abi_encode())
    }
}

/// One side of a holder's swap: what goes in and comes out, and the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swap {
    pub token_in: [u8; 20],
    pub token_out: [u8; 20],
    /// Exactly this much in (`exact_in`), or exactly this much out.
    pub exact_in: bool,
    pub amount: u128,
    /// The fewest out (exact in) or the most in (exact out).
    pub limit: u128,
    /// Makes otherwise identical swaps distinct.
    pub salt: [u8; 32],
}

impl Swap {
    /// What the holder authorizes the market to take: the exact input, or the most input.
    pub fn pull_value(&self) -> u128 {
        if self.exact_in {
            self.amount
        } else {
            self.limit
        }
    }

    /// The EIP-3009 nonce the holder `from` signs for this swap at `market`
    /// (`TokenpadMarket.swapNonce`): keccak256(abi.encode(market, from, tokenIn, tokenOut,
    /// exactIn, amount, limit, salt)). It binds the signature to the swap's parameters.
    pub fn nonce(&self, market: [u8; 20], from: [u8; 20]) -> [u8; 32] {
        let encoded = (
            Address::from(market),
            Address::from(from),
            Address::from(self.token_in),
            Address::from(self.token_out),
            self.exact_in,
            U256::from(self.amount),
            U256::from(self.limit),
            B256::from(self.salt),
        )
            .abi_encode();
        keccak256(encoded).0
    }

    /// `swapExactIn(...)` or `swapExactOut(...)` with the holder's signed pull.
    pub fn calldata(&self, pulled: &SignedAuthorization) -> Vec<u8> {
        let (token_in, token_out) = (Address::from(self.token_in), Address::from(self.token_out));
        let (amount, limit, salt) = (
            U256::from(self.amount),
            U256::from(self.limit),
            B256::from(self.salt),
        );
        let p = pull(Some(pulled), pulled.authorization.from);
        if self.exact_in {
            abi::swapExactInCall {
                tokenIn: token_in,
                tokenOut: token_out,
                amountIn: amount,
                minAmountOut: limit,
                salt,
                pull: p,
            }
            .abi_encode()
        } else {
            abi::swapExactOutCall {
                tokenIn: token_in,
                tokenOut: token_out,
                amountOut: amount,
                maxAmountIn: limit,
                salt,
                pull: p,
            }
            .abi_encode()
        }
    }
}

/// A pool's `slot0()` call.
pub fn slot0() -> Vec<u8> {
    abi::slot0Call {}.abi_encode()
}

/// `slot0()`'s price and tick.
pub fn decode_slot0(return_data: &[u8]) -> Result<(U256, i32)> {
    let r = abi::slot0Call::abi_decode_returns_validate(return_data)?;
    Ok((U256::from(r.sqrtPriceX96), r.tick.as_i32()))
}

/// A pool's `liquidity()` call.
pub fn liquidity() -> Vec<u8> {
    abi::liquidityCall {}.abi_encode()
}

/// `liquidity()`'s answer.
pub fn decode_liquidity(return_data: &[u8]) -> Result<u128> {
    Ok(abi::liquidityCall::abi_decode_returns_validate(
        return_data,
    )?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_the_markets() {
        // From contracts/build/TokenpadMarket.json, as solc reported them.
        assert_eq!(abi::openPoolCall::SELECTOR, [0xdb, 0xed, 0x17, 0x44]);
        assert_eq!(abi::swapExactInCall::SELECTOR, [0xe4, 0xfe, 0x7a, 0x37]);
        assert_eq!(abi::swapExactOutCall::SELECTOR, [0xb6, 0xb1, 0xbe, 0xc7]);
        assert_eq!(abi::slot0Call::SELECTOR, [0x38, 0x50, 0xc7, 0xbd]);
        assert_eq!(abi::liquidityCall::SELECTOR, [0x1a, 0x68, 0x65, 0x02]);
    }

    #[test]
    fn a_tick_past_int24_is_refused() {
        assert!(tick(8_388_607).is_ok());
        assert!(tick(8_388_608).is_err());
        let o = Opening {
            token0: [1; 20],
            token1: [2; 20],
            sqrt_price_x96: U256::MAX,
            tick_lower: 0,
            tick_upper: 60,
        };
        assert!(o.calldata([3; 20], None, None).is_err());
    }
}
