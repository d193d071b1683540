//! The shell's adapters: SQLite behind the core's storage port, transactions, randomness,
//! and the webhook sender.

pub mod accounts;
pub mod cache;
pub mod evm;
pub mod sql;
pub mod txn;
pub mod wallet;
pub mod webhook;
