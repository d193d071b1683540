//! tokenpad's functional core: money, ids, the ledger, holders, tokens, the embedded chain's
//! pure rules and the wire types. No I/O, no clock, no randomness: `now` and fresh random
//! bytes are passed in, so every rule here is tested natively and deterministically.
pub mod address;
pub mod auth;
pub mod chain;
pub mod crypto;
pub mod deployment;
pub mod due;
pub mod error;
pub mod history;
pub mod holder;
pub mod ids;
pub mod input;
pub mod job;
pub mod ledger;
pub mod mem;
pub mod merchant;
pub mod money;
pub mod presale;
pub mod ratelimit;
pub mod store;
pub mod time;
pub mod token;

pub use error::{Error, ErrorCode, Result};
