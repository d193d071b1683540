//! Liquidity pools: a token against USDC in a Uniswap v3 pool of the 0.3 % tier, as the
//! ledger keeps it. On an EVM chain the pool is the real contract and this record follows it
//! (its `Swap`, `Mint` and `Burn` events); on the embedded chain this record is the pool. The
//! arithmetic is the pool's own (`v3`), so a quote here is what the chain would do, to the
//! unit.
//!
//! A pool opened from a token's reserve alone (a dashboard token's pool, a memecoin's) holds
//! one position from the opening price upwards: buyers move the price up into it, and sellers
//! can only ever be paid the USDC buyers paid in (below the opening price there is no
//! liquidity). A presale's pool opens with the raised USDC and the bought tokens, over the
//! whole price range.

pub mod v3;

use super::address::Address;
use super::amount::{Price, Units, Usdc};
use super::chain::ChainPoint;
use super::ids::TokenAddress;
use super::time::Millis;
use alloy_primitives::{I256, U256};
use serde::{Deserialize, Serialize};
use v3::{State, Ticks, FEE_PIPS, MAX_USABLE_TICK, MIN_USABLE_TICK};

/// 10^30: a price's raw figure (USD per whole token, 18 decimals) over the pool's ratio of
/// USDC base units (6 decimals) to token base units (18).
const PRICE_SCALE: u128 = 10u128.pow(30);

/// The position tokenpad holds in its pool (on chain, the NFT the market contract keeps).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The position NFT's id (Metal's `lpInfo.nftId`); on an EVM chain None until the
    /// transaction that mints it is mined.
    pub id: Option<u64>,
    pub tick_lower: i32,
    pub tick_upper: i32,
    pub liquidity: u128,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "stored::Stored")]
pub struct Pool {
    pub token: TokenAddress,
    /// The pool contract's address.
    pub address: Address,
    /// Whether the token is the pool's token0 (its address sorts below USDC's).
    pub token_is_0: bool,
    /// In hundredths of a basis point (3000: 0.3 %).
    pub fee: u32,
    #[serde(with = "stored::u256_text")]
    pub sqrt_price_x96: U256,
    pub tick: i32,
    /// The active liquidity.
    pub liquidity: u128,
    pub ticks: Ticks,
    /// Tokens the pool holds (the token's `pooled`).
    pub token_reserve: Units,
    /// USDC the pool holds.
    pub usdc_reserve: Usdc,
    pub position: Position,
    pub created_at: Millis,
    /// On an EVM chain, the pool as its last event on chain left it; the state above is this
    /// with the ledger's own swaps not yet mined applied. None on the embedded chain, and
    /// until the pool's opening is mined.
    pub chain: Option<Observed>,
}

/// A pool's state as an event on chain left it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    #[serde(with = "stored::u256_text")]
    pub sqrt_price_x96: U256,
    pub tick: i32,
    pub liquidity: u128,
    pub at: ChainPoint,
}

impl Observed {
    pub fn state(&self) -> State {
        State {
            sqrt_price: self.sqrt_price_x96,
            tick: self.tick,
            liquidity: self.liquidity,
        }
    }
}

/// What a trade does to a pool: what goes in, what comes out, and the pool after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trade {
    /// Tokens the pool receives (a sell) or pays out (a buy).
    pub tokens: Units,
    /// USDC the pool receives (a buy) or pays out (a sell).
    pub usdc: Usdc,
    /// The pool's fee, in the asset that came in (USDC for a buy, tokens for a sell).
    pub fee: u128,
    pub after: Pool,
}

/// What a trade's event keeps of it: its amounts and the pool's price either side of it (all
/// the event shows; the pools themselves are not kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TradeFacts {
    pub tokens: Units,
    pub usdc: Usdc,
    /// As `Trade::fee`.
    pub fee: u128,
    /// The pool's price before the trade (`Pool::price`).
    #[serde(default)]
    pub price_before: Option<Price>,
    /// And after it.
    #[serde(default)]
    pub price_after: Option<Price>,
}

impl TradeFacts {
    pub fn of(before: &Pool, trade: &Trade) -> TradeFacts {
        TradeFacts {
            tokens: trade.tokens,
            usdc: trade.usdc,
            fee: trade.fee,
            price_before: before.price(),
            price_after: trade.after.price(),
        }
    }
}

/// What the ledger moved for a trade when it was made: the trade's own amounts on the
/// embedded chain; on an EVM chain the worst the holder accepted (the fewest tokens or USDC
/// out, the most USDC in), until the swap is mined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Booked {
    pub tokens: Units,
    pub usdc: Usdc,
}

/// Why a trade (or an opening) cannot happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TradeError {
    /// The amount is too small to move anything (it would receive nothing).
    TooSmall,
    /// The pool cannot fill it (tokens it does not hold, USDC no buyer paid in).
    Drains,
    /// An amount or price out of the arithmetic's range.
    TooLarge,
}

/// A pool being opened: the record, and what the position takes of what was offered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    pub pool: Pool,
    pub tokens: Units,
    pub usdc: Usdc,
}

fn too_large<E>(_: E) -> TradeError {
    TradeError::TooLarge
}

fn u128_of(x: U256) -> Result<u128, TradeError> {
    u128::try_from(x).map_err(too_large)
}

impl Pool {
    pub fn state(&self) -> State {
        State {
            sqrt_price: self.sqrt_price_x96,
            tick: self.tick,
            liquidity: self.liquidity,
        }
    }

    fn set_state(&mut self, s: &State) {
        self.sqrt_price_x96 = s.sqrt_price;
        self.tick = s.tick;
        self.liquidity = s.liquidity;
    }

    /// The pool's price: USD per whole token.
    pub fn price(&self) -> Option<Price> {
        v3::ratio_of_sqrt_price(self.sqrt_price_x96, PRICE_SCALE, !self.token_is_0)
            .map(Price::new)
            .filter(|p| !p.is_zero())
    }

    /// The USDC the curve counts below the opening price that nobody paid in (a pool opened
    /// from tokens alone): tokenpad's position's lower edge, in USDC. Zero for a position over
    /// the whole range.
    pub fn virtual_usdc(&self) -> Usdc {
        let p = &self.position;
        let full = p.tick_lower <= MIN_USABLE_TICK && p.tick_upper >= MAX_USABLE_TICK;
        if full || p.liquidity == 0 {
            return Usdc::ZERO;
        }
        let edge = if self.token_is_0 {
            p.tick_lower
        } else {
            p.tick_upper
        };
        let Ok(sqrt) = v3::sqrt_at(edge) else {
            return Usdc::ZERO;
        };
        // token0 = token: USDC is amount1 = L x sqrt(P); else amount0 = L / sqrt(P).
        let (l, q96) = (U256::from(p.liquidity), U256::from(1u8) << 96);
        let v = if self.token_is_0 {
            v3::mul_div(l, sqrt, q96)
        } else {
            v3::mul_div(l, q96, sqrt)
        };
        v.and_then(|v| u128::try_from(v).ok())
            .map_or(Usdc::ZERO, Usdc::new)
    }

    /// Whether the pool holds at least what its liquidity needs at its price (`v3::required`):
    /// the invariant every trade on the embedded chain keeps (on an EVM chain the pool
    /// contract keeps it, and reconciliation compares the reserves with it).
    pub fn solvent(&self) -> bool {
        let Ok((need0, need1)) = v3::required(&self.state(), &self.ticks) else {
            return false;
        };
        let (tokens, usdc) = if self.token_is_0 {
            (need0, need1)
        } else {
            (need1, need0)
        };
        tokens <= U256::from(self.token_reserve.raw())
            && usdc <= U256::from(self.usdc_reserve.raw())
    }

    /// A buy paying exactly `usdc` in.
    pub fn buy_with(&self, usdc: Usdc) -> Result<Trade, TradeError> {
        self.trade(true, true, usdc.raw())
    }

    /// A buy of exactly `tokens` out.
    pub fn buy_exact(&self, tokens: Units) -> Result<Trade, TradeError> {
        self.trade(true, false, tokens.raw())
    }

    /// A sell of exactly `tokens` in.
    pub fn sell(&self, tokens: Units) -> Result<Trade, TradeError> {
        self.trade(false, true, tokens.raw())
    }

    /// Whether a swap with USDC in (a buy) goes from token0 to token1.
    fn zero_for_one(&self, buy: bool) -> bool {
        buy != self.token_is_0
    }

    /// A swap: `buy` (USDC in, tokens out) or a sell; `exact_in` fixes what comes in, else
    /// what goes out. It must be filled whole.
    pub fn trade(&self, buy: bool, exact_in: bool, amount: u128) -> Result<Trade, TradeError> {
        if amount == 0 {
            return Err(TradeError::TooSmall);
        }
        let magnitude = I256::try_from(amount).map_err(too_large)?;
        let specified = if exact_in { magnitude } else { -magnitude };
        let zero_for_one = self.zero_for_one(buy);
        let s = v3::swap(
            &self.state(),
            &self.ticks,
            zero_for_one,
            specified,
            self.fee,
        )
        .map_err(too_large)?;
        if !s.unfilled.is_zero() {
            return Err(TradeError::Drains);
        }
        let (token_delta, usdc_delta) = if self.token_is_0 {
            (s.amount0, s.amount1)
        } else {
            (s.amount1, s.amount0)
        };
        let tokens = u128_of(token_delta.unsigned_abs())?;
        let usdc = u128_of(usdc_delta.unsigned_abs())?;
        if tokens == 0 || usdc == 0 {
            return Err(TradeError::TooSmall);
        }
        let mut after = self.clone();
        after.set_state(&s.state);
        let (tokens_u, usdc_u) = (Units::new(tokens), Usdc::new(usdc));
        if buy {
            after.token_reserve = self
                .token_reserve
                .checked_sub(tokens_u)
                .ok_or(TradeError::Drains)?;
            after.usdc_reserve = self
                .usdc_reserve
                .checked_add(usdc_u)
                .ok_or(TradeError::TooLarge)?;
        } else {
            after.token_reserve = self
                .token_reserve
                .checked_add(tokens_u)
                .ok_or(TradeError::TooLarge)?;
            after.usdc_reserve = self
                .usdc_reserve
                .checked_sub(usdc_u)
                .ok_or(TradeError::Drains)?;
        }
        Ok(Trade {
            tokens: tokens_u,
            usdc: usdc_u,
            fee: u128_of(s.fee)?,
            after,
        })
    }

    /// Opens `token`'s pool against `usdc_address` at `address`. With USDC (a presale's
    /// raise) the position spans the whole price range at the price of the two amounts; with
    /// tokens alone it starts at the usable tick nearest `price` and holds only tokens. The
    /// answer says what the position takes (what it cannot use stays with the caller).
    #[allow(clippy::too_many_arguments)]
    pub fn open(
        token: TokenAddress,
        usdc_address: Address,
        address: Address,
        tokens: Units,
        usdc: Usdc,
        price: Price,
        position_id: Option<u64>,
        at: Millis,
    ) -> Result<Opened, TradeError> {
        let token_is_0 = token.address() < usdc_address;
        let (t, u) = (U256::from(tokens.raw()), U256::from(usdc.raw()));
        let (sqrt, lower, upper) = if usdc.is_zero() {
            let (p, scale) = (U256::from(price.raw()), U256::from(PRICE_SCALE));
            let target = if token_is_0 {
                v3::sqrt_price_of_ratio(p, scale)
            } else {
                v3::sqrt_price_of_ratio(scale, p)
            }
            .ok_or(TradeError::TooLarge)?;
            let tick = v3::nearest_usable_tick(target).map_err(too_large)?;
            let sqrt = v3::sqrt_at(tick).map_err(too_large)?;
            if token_is_0 {
                (sqrt, tick, MAX_USABLE_TICK)
            } else {
                (sqrt, MIN_USABLE_TICK, tick)
            }
        } else {
            let sqrt = if token_is_0 {
                v3::sqrt_price_of_ratio(u, t)
            } else {
                v3::sqrt_price_of_ratio(t, u)
            }
            .ok_or(TradeError::TooLarge)?;
            (sqrt, MIN_USABLE_TICK, MAX_USABLE_TICK)
        };
        if lower >= upper {
            return Err(TradeError::TooLarge);
        }
        let (amount0, amount1) = if token_is_0 { (t, u) } else { (u, t) };
        let (sqrt_a, sqrt_b) = (
            v3::sqrt_at(lower).map_err(too_large)?,
            v3::sqrt_at(upper).map_err(too_large)?,
        );
        let liquidity =
            v3::liquidity_for_amounts(sqrt, sqrt_a, sqrt_b, amount0, amount1).map_err(too_large)?;
        if liquidity == 0 {
            return Err(TradeError::TooSmall);
        }
        let mut state = State {
            sqrt_price: sqrt,
            tick: v3::tick_at(sqrt).map_err(too_large)?,
            liquidity: 0,
        };
        let (used0, used1) =
            v3::mint_amounts(&state, lower, upper, liquidity).map_err(too_large)?;
        let (used_tokens, used_usdc) = if token_is_0 {
            (used0, used1)
        } else {
            (used1, used0)
        };
        let (used_tokens, used_usdc) = (u128_of(used_tokens)?, u128_of(used_usdc)?);
        if used_tokens > tokens.raw() || used_usdc > usdc.raw() {
            return Err(TradeError::TooLarge);
        }
        let mut ticks = Ticks::new();
        let signed = i128::try_from(liquidity).map_err(too_large)?;
        v3::add_position(&mut state, &mut ticks, lower, upper, signed).map_err(too_large)?;
        let mut pool = Pool {
            token,
            address,
            token_is_0,
            fee: FEE_PIPS,
            sqrt_price_x96: U256::ZERO,
            tick: 0,
            liquidity: 0,
            ticks,
            token_reserve: Units::new(used_tokens),
            usdc_reserve: Usdc::new(used_usdc),
            position: Position {
                id: position_id,
                tick_lower: lower,
                tick_upper: upper,
                liquidity,
            },
            created_at: at,
            chain: None,
        };
        pool.set_state(&state);
        Ok(Opened {
            tokens: pool.token_reserve,
            usdc: pool.usdc_reserve,
            pool,
        })
    }

    /// The pool as the chain has it from `at` on (its opening mined, or a `Swap` event):
    /// taken when it is newer than what the record follows. Returns whether it was.
    pub fn observe_state(&mut self, state: &State, at: ChainPoint) -> bool {
        if self.chain.as_ref().is_some_and(|c| c.at >= at) {
            return false;
        }
        self.chain = Some(Observed {
            sqrt_price_x96: state.sqrt_price,
            tick: state.tick,
            liquidity: state.liquidity,
            at,
        });
        true
    }

    /// The chain's `Mint` (`liquidity` > 0) or `Burn` (< 0) event at `at` in
    /// `[lower, upper]`. The tick map always follows it; the active liquidity only when the
    /// event is newer than the state followed (a newer swap's state already counts it).
    pub fn observe_liquidity(
        &mut self,
        lower: i32,
        upper: i32,
        liquidity: i128,
        at: ChainPoint,
    ) -> Result<(), v3::MathError> {
        let Some(seen) = self.chain.clone() else {
            let mut state = self.state();
            v3::add_position(&mut state, &mut self.ticks, lower, upper, liquidity)?;
            self.set_state(&state);
            return Ok(());
        };
        let mut state = seen.state();
        v3::add_position(&mut state, &mut self.ticks, lower, upper, liquidity)?;
        if seen.at < at {
            self.observe_state(&state, at);
        }
        Ok(())
    }

    /// The state again from what the chain says, with `pending` (the ledger's own swaps not
    /// yet mined, in order: buy, exact input, amount) applied on top, as they will be mined
    /// after it. A swap that would no longer fill is left out (it will revert).
    pub fn rebase(&mut self, pending: &[(bool, bool, u128)]) {
        let Some(seen) = &self.chain else {
            return;
        };
        let mut sim = self.clone();
        sim.set_state(&seen.state());
        for (buy, exact_in, amount) in pending {
            if let Ok(t) = sim.trade(*buy, *exact_in, *amount) {
                sim.set_state(&t.after.state());
            }
        }
        self.set_state(&sim.state());
    }
}

mod stored;

#[cfg(test)]
mod tests;
