//! The shell's adapters: SQLite behind the core's storage port, transactions, randomness,
//! and the webhook sender.

pub mod cache;
pub mod cache_events;
pub mod cache_participants;
pub mod cache_table;
pub mod evm;
pub mod pages;
pub mod sql;
pub mod sql_chain;
pub mod sql_events;
pub mod sql_idempotency;
pub mod sql_rows;
pub mod sql_session;
pub mod sql_store;
pub mod txn;
pub mod wallet;
pub mod webhook;
