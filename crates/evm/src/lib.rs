//! tokenpad-evm: what the Worker needs to settle ledger movements on an EVM chain (Base; anvil
//! locally), as pure functions: calldata for tokenpad's contracts, EIP-3009 authorizations
//! signed with holders' keys, signed EIP-1559 transactions, and JSON-RPC requests and
//! results. No I/O, no clock, no randomness: the caller does the HTTP, reads the time from the
//! chain, and supplies nonces and salts, so everything here is deterministic and testable.
//!
//! At the boundary: addresses are `[u8; 20]`, hashes, salts and keys `[u8; 32]`, amounts
//! `u128` base units (never floats), calldata `Vec<u8>`; errors are [`Error`].

mod abi;
pub mod auth;
pub mod calls;
mod error;
mod key;
pub mod locker;
pub mod logs;
pub mod market;
pub mod reads;
pub mod rpc;
pub mod tx;

pub use error::{Error, Result};
