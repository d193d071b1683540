//! How a pool record is stored (a JSON document), and the form of the records written before
//! pools were Uniswap v3 positions: a constant product `tokens x (usdc + virtual)` with a
//! virtual USDC reserve. Such a record is read as the v3 position over the same reserves
//! whose curve is the old one (a constant product is a v3 position; its lower edge, where the
//! old pool held no USDC, is rounded down to a usable tick), so a ledger from before keeps
//! every unit it holds and its pools keep trading.

use super::v3::{self, State, Ticks, MAX_USABLE_TICK, MIN_USABLE_TICK, TICK_SPACING};
use super::{Observed, Pool, Position};
use crate::model::address::Address;
use crate::model::amount::{Units, Usdc};
use crate::model::ids::TokenAddress;
use crate::model::time::Millis;
use crate::model::token::USDC_ADDRESS;
use alloy_primitives::U256;
use serde::Deserialize;

/// A `U256` as its decimal digits.
pub(crate) mod u256_text {
    use alloy_primitives::U256;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &U256, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<U256, D::Error> {
        let text = String::deserialize(d)?;
        U256::from_str_radix(&text, 10).map_err(serde::de::Error::custom)
    }
}

fn optional_u256<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<U256>, D::Error> {
    Option::<String>::deserialize(d)?
        .map(|t| U256::from_str_radix(&t, 10).map_err(serde::de::Error::custom))
        .transpose()
}

/// Every field either form has.
#[derive(Deserialize)]
pub(super) struct Stored {
    token: TokenAddress,
    address: Address,
    token_reserve: Units,
    usdc_reserve: Usdc,
    created_at: Millis,
    #[serde(default)]
    token_is_0: Option<bool>,
    #[serde(default)]
    fee: Option<u32>,
    #[serde(default, deserialize_with = "optional_u256")]
    sqrt_price_x96: Option<U256>,
    #[serde(default)]
    tick: Option<i32>,
    #[serde(default)]
    liquidity: Option<u128>,
    #[serde(default)]
    ticks: Option<Ticks>,
    #[serde(default)]
    position: Option<Position>,
    #[serde(default)]
    chain: Option<Observed>,
    /// Before v3 pools: the virtual USDC reserve and the position's number.
    #[serde(default)]
    virtual_usdc: Option<Usdc>,
    #[serde(default)]
    nft_id: Option<u64>,
}

impl TryFrom<Stored> for Pool {
    type Error = String;

    fn try_from(s: Stored) -> Result<Pool, String> {
        let v3 = (
            s.token_is_0,
            s.fee,
            s.sqrt_price_x96,
            s.tick,
            s.liquidity,
            s.position.clone(),
        );
        if let (
            Some(token_is_0),
            Some(fee),
            Some(sqrt),
            Some(tick),
            Some(liquidity),
            Some(position),
        ) = v3
        {
            return Ok(Pool {
                token: s.token,
                address: s.address,
                token_is_0,
                fee,
                sqrt_price_x96: sqrt,
                tick,
                liquidity,
                ticks: s.ticks.unwrap_or_default(),
                token_reserve: s.token_reserve,
                usdc_reserve: s.usdc_reserve,
                position,
                created_at: s.created_at,
                chain: s.chain,
            });
        }
        legacy(&s).ok_or_else(|| format!("pool of {}: a stored pool that cannot be read", s.token))
    }
}

/// The v3 position equal to a constant-product pool of `tokens x (usdc + virtual)`.
fn legacy(s: &Stored) -> Option<Pool> {
    let token_is_0 = s.token.address() < USDC_ADDRESS.address();
    let tokens = U256::from(s.token_reserve.raw());
    let usdc = U256::from(s.usdc_reserve.raw());
    let virt = U256::from(s.virtual_usdc.unwrap_or(Usdc::ZERO).raw());
    let curve = usdc.checked_add(virt)?;
    // The price, USDC over tokens, oriented as the pool's token1 over token0.
    let sqrt = if token_is_0 {
        v3::sqrt_price_of_ratio(curve, tokens)?
    } else {
        v3::sqrt_price_of_ratio(tokens, curve)?
    };
    let (lower, upper) = if virt.is_zero() {
        (MIN_USABLE_TICK, MAX_USABLE_TICK)
    } else {
        // The old curve held no USDC at the price virt^2 / k (k = tokens x curve).
        let k = tokens.checked_mul(curve)?;
        let v2 = virt.checked_mul(virt)?;
        let edge = if token_is_0 {
            v3::sqrt_price_of_ratio(v2, k)?
        } else {
            v3::sqrt_price_of_ratio(k, v2)?
        };
        let floor = v3::tick_at(edge).ok()?.div_euclid(TICK_SPACING) * TICK_SPACING;
        if token_is_0 {
            (floor.max(MIN_USABLE_TICK), MAX_USABLE_TICK)
        } else {
            (MIN_USABLE_TICK, (floor + TICK_SPACING).min(MAX_USABLE_TICK))
        }
    };
    let (amount0, amount1) = if token_is_0 {
        (tokens, usdc)
    } else {
        (usdc, tokens)
    };
    let liquidity = v3::liquidity_for_amounts(
        sqrt,
        v3::sqrt_at(lower).ok()?,
        v3::sqrt_at(upper).ok()?,
        amount0,
        amount1,
    )
    .ok()?;
    let mut state = State {
        sqrt_price: sqrt,
        tick: v3::tick_at(sqrt).ok()?,
        liquidity: 0,
    };
    let mut ticks = Ticks::new();
    if liquidity > 0 {
        let signed = i128::try_from(liquidity).ok()?;
        v3::add_position(&mut state, &mut ticks, lower, upper, signed).ok()?;
    }
    Some(Pool {
        token: s.token,
        address: s.address,
        token_is_0,
        fee: v3::FEE_PIPS,
        sqrt_price_x96: state.sqrt_price,
        tick: state.tick,
        liquidity: state.liquidity,
        ticks,
        token_reserve: s.token_reserve,
        usdc_reserve: s.usdc_reserve,
        position: Position {
            id: s.nft_id,
            tick_lower: lower,
            tick_upper: upper,
            liquidity,
        },
        created_at: s.created_at,
        chain: None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::amount::Price;

    #[test]
    fn a_pool_round_trips_through_its_stored_form() {
        let token = TokenAddress(Address([0x11; 20]));
        let opened = Pool::open(
            token,
            USDC_ADDRESS.address(),
            Address([0x22; 20]),
            Units::new(1_000_000_000_000_000_000_000),
            Usdc::ZERO,
            Price::new(10_000_000_000_000_000),
            Some(3),
            7,
        )
        .unwrap();
        let text = serde_json::to_string(&opened.pool).unwrap();
        let back: Pool = serde_json::from_str(&text).unwrap();
        assert_eq!(back, opened.pool);
    }

    #[test]
    fn a_constant_product_record_reads_as_the_same_curve() {
        // 1,000 tokens against 10 USDC paid in and 10 virtual: $0.02, and no USDC at $0.01...
        let text = r#"{"token":"0x1111111111111111111111111111111111111111",
            "address":"0x2222222222222222222222222222222222222222",
            "token_reserve":1000000000000000000000,"usdc_reserve":10000000,
            "virtual_usdc":10000000,"fee_bps":30,"nft_id":4,"created_at":5}"#;
        let p: Pool = serde_json::from_str(text).unwrap();
        assert_eq!(p.position.id, Some(4));
        assert_eq!(p.token_reserve.raw(), 1_000_000_000_000_000_000_000);
        assert_eq!(p.usdc_reserve.raw(), 10_000_000);
        let price = p.price().unwrap().raw();
        assert!(
            price.abs_diff(20_000_000_000_000_000) < 20_000_000_000_000,
            "{price}"
        );
        // Selling pays at most the 10 USDC buyers paid in.
        let sold = p.sell(Units::new(100_000_000_000_000_000_000)).unwrap();
        assert!(sold.usdc.raw() < 10_000_000);
        assert!(p.sell(Units::new(10_000_000_000_000_000_000_000)).is_err());
    }
}
