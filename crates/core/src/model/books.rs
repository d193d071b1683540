//! Conservation per token, asserted once, where a transaction commits.
//!
//! Every token obeys two rules: its record accounts for its whole supply
//! (`total = app + merchant + liquidity + escrow + pooled + held`, [`Token::check_conservation`])
//! and its `held` is the sum of every address's balance. The second spans many rows, so it is
//! checked by what a transaction moved rather than by summing every balance: the store tells
//! [`Books`] each token record and each balance it writes, with what was there before, and at
//! the commit [`Books::check`] asks, for every token touched, that the balances moved by
//! exactly as much as the token's `held` did, and that the last record written accounts for
//! its supply. A transaction that breaks either is refused and rolled back (an internal error:
//! it is a bug in the ledger), whichever operation wrote it; no operation has to remember to
//! check. Both stores keep one: the SQLite adapter checks it as `transactionSync` ends, the
//! in-memory store when its user commits.

use crate::error::{Error, Result};
use crate::model::amount::Units;
use crate::model::balance::Balance;
use crate::model::ids::TokenAddress;
use crate::model::token::Token;
use std::collections::BTreeMap;

/// What one transaction wrote to one token's books.
/// A signed amount of base units (a u128 and its sign: balances span all of u128).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Net {
    negative: bool,
    units: u128,
}

impl Net {
    /// `after - before`.
    fn between(before: u128, after: u128) -> Net {
        if after >= before {
            Net {
                negative: false,
                units: after - before,
            }
        } else {
            Net {
                negative: true,
                units: before - after,
            }
        }
    }

    fn plus(self, other: Net) -> Result<Net> {
        let sum = if self.negative == other.negative {
            let units = self
                .units
                .checked_add(other.units)
                .ok_or_else(|| Error::internal("the balances moved overflow"))?;
            Net {
                negative: self.negative,
                units,
            }
        } else if self.units >= other.units {
            Net {
                negative: self.negative,
                units: self.units - other.units,
            }
        } else {
            Net {
                negative: other.negative,
                units: other.units - self.units,
            }
        };
        // Zero has one sign.
        Ok(Net {
            negative: sum.negative && sum.units != 0,
            ..sum
        })
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Moves {
    /// How far the balances written moved, in all: Σ (after - before), with its sign.
    moved: Net,
    /// The token's `held` before the transaction first wrote its record.
    held_before: Option<Units>,
    /// The record as the transaction last wrote it.
    last: Option<Token>,
}

/// The moves of the transaction under way, per token.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Books {
    tokens: BTreeMap<TokenAddress, Moves>,
}

fn total(b: &Balance) -> Result<u128> {
    b.total()
        .map(Units::raw)
        .ok_or_else(|| Error::internal("a balance's active + locked overflows"))
}

impl Books {
    /// A transaction begins: nothing moved yet.
    pub fn clear(&mut self) {
        self.tokens.clear();
    }

    /// `after` was written over `before` (`None`: a new token).
    pub fn token_written(&mut self, before: Option<&Token>, after: &Token) {
        let m = self.tokens.entry(after.address).or_default();
        if m.held_before.is_none() {
            m.held_before = Some(before.map_or(Units::ZERO, |t| t.held));
        }
        m.last = Some(after.clone());
    }

    /// `owner`'s balance of `token` was written: `before` became `after`.
    pub fn balance_written(
        &mut self,
        token: &TokenAddress,
        before: &Balance,
        after: &Balance,
    ) -> Result<()> {
        let step = Net::between(total(before)?, total(after)?);
        let m = self.tokens.entry(*token).or_default();
        m.moved = m.moved.plus(step)?;
        Ok(())
    }

    /// The transaction is about to commit: every token it touched still conserves its supply
    /// (an internal error naming the token if not). Forgets the moves either way.
    pub fn check(&mut self) -> Result<()> {
        for (address, m) in std::mem::take(&mut self.tokens) {
            if let Some(t) = &m.last {
                t.check_conservation()?;
            }
            // The balances must have moved by exactly as much as held did.
            let held_before = m.held_before.unwrap_or(Units::ZERO).raw();
            let held_after = m.last.as_ref().map_or(held_before, |t| t.held.raw());
            if m.moved != Net::between(held_before, held_after) {
                let sign = if m.moved.negative { "-" } else { "+" };
                return Err(Error::internal(format!(
                    "conservation broken for {address}: its balances moved by {sign}{} while \
                     its held moved from {held_before} to {held_after}",
                    m.moved.units
                )));
            }
        }
        Ok(())
    }
}
