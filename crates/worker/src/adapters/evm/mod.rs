//! The chain port's EVM adapter: settlement of the merchant's ledger on a real chain.

pub mod config;
