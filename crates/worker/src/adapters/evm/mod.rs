//! The chain port's EVM adapter: settlement of the merchant's ledger on a real chain.
//!
//! - `config`: which chain, from the environment (`CHAIN`, `CHAIN_RPC_URL`, ...);
//! - `rpc`: JSON-RPC over `fetch`, with a timeout, never showing the endpoint's URL;
//! - `build`: a planned batch as a transaction payload (calldata, holders' signatures, the
//!   floor of its gas; `transfers` for batches of transfers); `gas`: the gas the chain says it
//!   needs;
//! - `settler`: a round of settlement (follow, watch, send, scan), run from the merchant's
//!   alarm; `follow`: reorganizations, nonce gaps and finality.
//!
//! What to send and what a result means for the ledger are the core's (`ops::settle`); how
//! (nonces, fees, signing, batching into calls, retries) is this adapter's.

pub mod build;
pub mod config;
mod deposits;
mod follow;
mod gas;
mod pools;
pub mod rpc;
mod send;
pub mod settler;
pub mod transfers;
mod watch;
