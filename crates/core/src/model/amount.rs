//! Money is an integer count of base units, never a float, and every amount says its unit.
//!
//! `Amount<U>` is a u128 count of `U`'s smallest units: `Units` (base units of the token at
//! hand, whose decimals come from that token), `Usdc` (6 decimals), `Usd` (a USD value in
//! micro-dollars) and `Price` (USD per whole token, 18 decimals). Arithmetic is checked: an
//! overflow is refused, never wrapped. Stored records hold the bare integer
//! (`#[serde(transparent)]`); the wire carries exact decimals (`super::decimal`).

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;

pub use super::arith::{
    format_units, mul_div, parse_units, percent_micro, pow10, price_from, value_micro_usd,
    AmountError, DecimalParts, PRICE_DECIMALS, TOKEN_DECIMALS, USDC_DECIMALS, VALUE_DECIMALS,
};

/// What an amount counts.
pub trait Unit: 'static {
    const NAME: &'static str;
}

/// A unit with a fixed number of decimals.
pub trait Fixed: Unit {
    const DECIMALS: u8;
}

pub mod unit {
    //! The units amounts are counted in.
    use super::{Fixed, Unit, PRICE_DECIMALS, TOKEN_DECIMALS, USDC_DECIMALS, VALUE_DECIMALS};

    /// Base units of the token at hand (its decimals come from the token).
    #[derive(Debug)]
    pub enum Base {}
    /// Base units of a token with 18 decimals (every token tokenpad creates).
    #[derive(Debug)]
    pub enum Token18 {}
    /// USDC base units (6 decimals).
    #[derive(Debug)]
    pub enum Usdc {}
    /// A USD value in micro-dollars.
    #[derive(Debug)]
    pub enum Usd {}
    /// A price: USD per whole token, 18 decimals.
    #[derive(Debug)]
    pub enum Price {}

    impl Unit for Base {
        const NAME: &'static str = "units";
    }
    impl Unit for Token18 {
        const NAME: &'static str = "token units";
    }
    impl Fixed for Token18 {
        const DECIMALS: u8 = TOKEN_DECIMALS;
    }
    impl Unit for Usdc {
        const NAME: &'static str = "USDC units";
    }
    impl Fixed for Usdc {
        const DECIMALS: u8 = USDC_DECIMALS;
    }
    impl Unit for Usd {
        const NAME: &'static str = "micro-USD";
    }
    impl Fixed for Usd {
        const DECIMALS: u8 = VALUE_DECIMALS;
    }
    impl Unit for Price {
        const NAME: &'static str = "price units";
    }
    impl Fixed for Price {
        const DECIMALS: u8 = PRICE_DECIMALS;
    }
}

/// A count of `U`'s smallest units.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub struct Amount<U: Unit> {
    raw: u128,
    #[serde(skip)]
    unit: PhantomData<fn() -> U>,
}

/// Base units of the token at hand.
pub type Units = Amount<unit::Base>;
/// USDC base units.
pub type Usdc = Amount<unit::Usdc>;
/// A USD value in micro-dollars.
pub type Usd = Amount<unit::Usd>;
/// USD per whole token, 18 decimals.
pub type Price = Amount<unit::Price>;

impl<U: Unit> Amount<U> {
    pub const ZERO: Self = Amount::new(0);

    pub const fn new(raw: u128) -> Self {
        Amount {
            raw,
            unit: PhantomData,
        }
    }

    /// The bare count of smallest units.
    pub const fn raw(self) -> u128 {
        self.raw
    }

    pub const fn is_zero(self) -> bool {
        self.raw == 0
    }

    pub fn checked_add(self, other: Self) -> Option<Self> {
        self.raw.checked_add(other.raw).map(Amount::new)
    }

    pub fn checked_sub(self, other: Self) -> Option<Self> {
        self.raw.checked_sub(other.raw).map(Amount::new)
    }

    /// `self + other`; an overflow is an amount too large to hold (400 `invalid_amount`).
    pub fn plus(self, other: Self) -> Result<Self> {
        self.checked_add(other).ok_or_else(too_large)
    }

    /// `self - other` where the ledger has already checked `other <= self`; an underflow is
    /// a bug, so it is an internal error and the operation rolls back.
    pub fn minus(self, other: Self) -> Result<Self> {
        self.checked_sub(other)
            .ok_or_else(|| Error::internal(format!("{} underflow", U::NAME)))
    }

    pub fn saturating_add(self, other: Self) -> Self {
        Amount::new(self.raw.saturating_add(other.raw))
    }

    /// The same count in another unit, where the two are the same asset (USDC held in the
    /// ledger as a token's base units, a new token's 18-decimal units).
    pub const fn cast<V: Unit>(self) -> Amount<V> {
        Amount::new(self.raw)
    }
}

impl<U: Fixed> Amount<U> {
    /// `whole` whole units (e.g. `Usdc::whole(2)` is 2 USDC); None past u128.
    pub fn whole(whole: u128) -> Option<Self> {
        pow10(u32::from(U::DECIMALS))
            .and_then(|s| whole.checked_mul(s))
            .map(Amount::new)
    }

    /// The exact decimal of this amount in whole units.
    pub fn to_decimal_string(self) -> String {
        format_units(self.raw, U::DECIMALS)
    }
}

impl Units {
    /// The USD value of this many base units of an asset with `decimals` at `price`.
    pub fn value_at(self, decimals: u8, price: Price) -> Usd {
        Usd::new(value_micro_usd(self.raw, decimals, price.raw))
    }
}

impl Price {
    /// The price at which `amount` base units of an asset with `decimals` cost `usdc`.
    pub fn of(usdc: Usdc, amount: Units, decimals: u8) -> Option<Price> {
        price_from(usdc.raw, amount.raw, decimals).map(Price::new)
    }

    /// One dollar.
    pub fn one_dollar() -> Price {
        Price::new(pow10(u32::from(PRICE_DECIMALS)).unwrap_or(1))
    }
}

fn too_large() -> Error {
    Error::new(ErrorCode::InvalidAmount, "amount is too large").with("field", "amount")
}

// Manual impls: derives would ask `U` (an uninhabited marker) for the same traits.
impl<U: Unit> Clone for Amount<U> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<U: Unit> Copy for Amount<U> {}
impl<U: Unit> Default for Amount<U> {
    fn default() -> Self {
        Self::ZERO
    }
}
impl<U: Unit> PartialEq for Amount<U> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}
impl<U: Unit> Eq for Amount<U> {}
impl<U: Unit> PartialOrd for Amount<U> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<U: Unit> Ord for Amount<U> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.raw.cmp(&other.raw)
    }
}
impl<U: Unit> Hash for Amount<U> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.raw.hash(state);
    }
}
impl<U: Unit> fmt::Debug for Amount<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.raw, U::NAME)
    }
}
impl<U: Unit> std::iter::Sum for Amount<U> {
    /// Saturating: sums are display figures (values); ledger sums use `plus`.
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, Self::saturating_add)
    }
}
