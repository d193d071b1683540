//! The chain port's EVM adapter: settlement of the merchant's ledger on a real chain.
//!
//! - `config`: which chain, from the environment (`CHAIN`, `CHAIN_RPC_URL`, ...);
//! - `rpc`: JSON-RPC over `fetch`, with a timeout, never showing the endpoint's URL;
//! - `build`: a planned batch as a transaction payload (calldata, holders' signatures, the
//!   floor of its gas; `transfers` for batches of transfers);
//! - `settler`: the adapter of the core's settlement round (`ops::settle::round`), run from
//!   the merchant's alarm: its ports over JSON-RPC (`chain`, `receipts`, `deposits`), SQLite
//!   and the relayer's key.
//!
//! What to send, when, and what a result means for the ledger are the core's
//! (`ops::settle`); how on the wire (ABI, RLP, signing, JSON-RPC batches) is this adapter's.

pub mod build;
mod chain;
pub mod config;
mod deposits;
mod pools;
mod receipts;
pub mod rpc;
pub mod settler;
pub mod transfers;
