//! What a transaction's gas is on the simulated chain: a schedule close to the EVM's (Berlin's
//! cold and warm access, EIP-2929; EIP-2200/3529's storage costs), charged as the transaction
//! runs. Deterministic: the same transaction on the same state uses the same gas. A
//! transaction carries a limit; the first charge past it stops it (out of gas): nothing it did
//! stays, its receipt fails with all of its limit used, and the relayer's nonce is used.
//!
//! | what                                         | gas                                     |
//! |----------------------------------------------|-----------------------------------------|
//! | a transaction                                | 21,000 ([`TX_BASE`])                    |
//! | its calldata                                 | 64 the selector + 368 a word            |
//! | a call into a contract: first / again        | 2,600 / 100 ([`CALL_COLD`], `_WARM`)    |
//! | reading a slot: first / again (SLOAD)        | 2,100 / 100                             |
//! | writing a slot first, zero to nonzero        | 22,100 (20,000 + 2,100 cold)            |
//! | writing a slot first, nonzero                | 5,000 (2,900 + 2,100 cold)              |
//! | writing a slot read before (zero / nonzero)  | 20,000 / 2,900; written before: 100     |
//! | a holder's signature (EIP-3009, EIP-712)     | 4,500 (ecrecover 3,000 + hashing 1,500) |
//! | a log                                        | 375 + 375 a topic + 8 a data byte       |
//! | a movement's own code (ABI, checks)          | 1,500 ([`EXEC`])                        |
//! | deploying a token (CREATE2, ~6 KB of code)   | 32,000 + 200 a code byte + 60,000       |
//! | deploying a Uniswap v3 pool (~22 KB of code) | 32,000 + 200 a code byte                |
//! | a swap crossing an initialized tick          | 22,100 a tick                           |
//!
//! Storage refunds (a slot written back to zero) are not counted: what a transaction needs is
//! what it must be allowed to spend before any refund. A slot is a (contract, key) pair: a
//! token's balance of an owner, its used authorizations, a lock's two words, a pool's words.
//! The chain's gas schedule can be raised (`SimChain::gas_percent`, a repricing fault): every
//! charge is multiplied by it, so estimates taken before no longer hold.

use super::SentTx;
use std::collections::BTreeSet;
use tokenpad_core::model::address::Address;

pub const TX_BASE: u64 = 21_000;
pub const SELECTOR: u64 = 4 * 16;
/// A calldata word: an address or a small amount, 12 zero bytes (4 each) and 20 nonzero (16
/// each).
pub const WORD: u64 = 12 * 4 + 20 * 16;
pub const CALL_COLD: u64 = 2_600;
pub const CALL_WARM: u64 = 100;
pub const SLOAD_COLD: u64 = 2_100;
pub const WARM: u64 = 100;
pub const SSTORE_SET: u64 = 20_000;
pub const SSTORE_RESET: u64 = 2_900;
pub const SIGNATURE: u64 = 3_000 + 1_500;
pub const LOG: u64 = 375;
pub const LOG_TOPIC: u64 = 375;
pub const LOG_BYTE: u64 = 8;
pub const EXEC: u64 = 1_500;
pub const CREATE: u64 = 32_000;
pub const CODE_BYTE: u64 = 200;
pub const TOKEN_CODE: u64 = 6_000;
pub const TOKEN_CONSTRUCTOR: u64 = 60_000;
pub const POOL_CODE: u64 = 22_000;
pub const TICK_CROSS: u64 = SSTORE_SET + SLOAD_COLD;

/// A storage slot: a contract and its key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Slot(pub Address, pub String);

/// Why a transaction stopped for want of gas (its receipt's reason).
pub const OUT_OF_GAS: &str = "out of gas";

/// The gas a running transaction used, under its limit.
#[derive(Clone, Debug)]
pub struct Meter {
    pub used: u64,
    pub limit: u64,
    /// The schedule's multiplier, in percent (100: as the table says).
    pub percent: u64,
    accessed: BTreeSet<Address>,
    read: BTreeSet<Slot>,
    written: BTreeSet<Slot>,
}

impl Meter {
    pub fn new(limit: u64, percent: u64) -> Meter {
        Meter {
            used: 0,
            limit,
            percent: percent.max(1),
            accessed: BTreeSet::new(),
            read: BTreeSet::new(),
            written: BTreeSet::new(),
        }
    }

    /// A meter with no limit: what a transaction needs (an estimate).
    pub fn unlimited(percent: u64) -> Meter {
        Meter::new(u64::MAX, percent)
    }

    /// Charges `gas` (scaled); out of gas past the limit.
    pub fn charge(&mut self, gas: u64) -> Result<(), String> {
        let scaled = gas.saturating_mul(self.percent) / 100;
        self.used = self.used.saturating_add(scaled);
        if self.used > self.limit {
            return Err(OUT_OF_GAS.into());
        }
        Ok(())
    }

    /// The transaction's intrinsic gas: 21,000 and `words` of calldata.
    pub fn intrinsic(&mut self, words: u64) -> Result<(), String> {
        self.charge(TX_BASE + SELECTOR + WORD * words)
    }

    /// A call into `contract`: cold the first time in the transaction.
    pub fn call(&mut self, contract: Address) -> Result<(), String> {
        let cost = if self.accessed.insert(contract) {
            CALL_COLD
        } else {
            CALL_WARM
        };
        self.charge(cost + EXEC)
    }

    /// An SLOAD of `slot`.
    pub fn load(&mut self, slot: Slot) -> Result<(), String> {
        let cost = if self.read.insert(slot) {
            SLOAD_COLD
        } else {
            WARM
        };
        self.charge(cost)
    }

    /// An SSTORE to `slot`, which held zero before the transaction when `was_zero`.
    pub fn store(&mut self, slot: Slot, was_zero: bool) -> Result<(), String> {
        let cold = if self.read.insert(slot.clone()) {
            SLOAD_COLD
        } else {
            0
        };
        let write = if !self.written.insert(slot) {
            WARM
        } else if was_zero {
            SSTORE_SET
        } else {
            SSTORE_RESET
        };
        self.charge(cold + write)
    }

    /// A log with `topics` and `data` bytes.
    pub fn log(&mut self, topics: u64, data: u64) -> Result<(), String> {
        self.charge(LOG + LOG_TOPIC * topics + LOG_BYTE * data)
    }

    /// A holder's signature checked (EIP-3009).
    pub fn signature(&mut self) -> Result<(), String> {
        self.charge(SIGNATURE)
    }

    /// Contract code of `bytes` deployed (CREATE2 and the code deposit).
    pub fn create(&mut self, bytes: u64) -> Result<(), String> {
        self.charge(CREATE + CODE_BYTE * bytes)
    }
}

impl super::SimChain {
    /// `eth_estimateGas` at the pending block: the gas `tx` needs, run on the state after
    /// the relayer's pending transactions before its nonce (each its latest version the
    /// node would mine), with no limit. Exact: the same state gives the same need; it is
    /// what the transaction uses whether it succeeds or reverts.
    pub fn estimate_gas(&self, tx: &SentTx) -> u64 {
        let mut scratch = self.scratch();
        let before: Vec<SentTx> = self
            .mempool
            .range(self.nonce..tx.nonce.max(self.nonce))
            .filter_map(|(_, v)| v.iter().rev().find(|t| !self.held.contains(&t.hash)))
            .cloned()
            .collect();
        for t in &before {
            scratch.execute(t, false);
        }
        let mut probe = tx.clone();
        probe.gas_limit = u64::MAX;
        scratch.execute(&probe, false)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn slot(n: u8) -> Slot {
        Slot(Address([n; 20]), "balance".into())
    }

    #[test]
    fn storage_is_cold_then_warm_and_a_new_slot_costs_most() {
        let mut m = Meter::unlimited(100);
        m.store(slot(1), true).unwrap();
        assert_eq!(m.used, 22_100);
        m.store(slot(1), true).unwrap();
        assert_eq!(m.used, 22_200);
        m.store(slot(2), false).unwrap();
        assert_eq!(m.used, 27_200);
        m.load(slot(3)).unwrap();
        m.load(slot(3)).unwrap();
        assert_eq!(m.used, 27_200 + 2_200);
        // Read first, then written: the cold read was paid.
        m.store(slot(3), false).unwrap();
        assert_eq!(m.used, 29_400 + 2_900);
    }

    #[test]
    fn past_the_limit_is_out_of_gas_and_a_repricing_scales_every_charge() {
        let mut m = Meter::new(21_000, 100);
        assert!(m.charge(21_000).is_ok());
        assert_eq!(m.charge(1), Err(OUT_OF_GAS.to_string()));
        let mut m = Meter::unlimited(150);
        m.intrinsic(0).unwrap();
        assert_eq!(m.used, (21_000 + 64) * 3 / 2);
    }
}
