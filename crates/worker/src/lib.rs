//! tokenpad's edge worker: the whole HTTP service as a Cloudflare Worker.
//!
//! Floors, each importing only from those below it:
//! - `edge`: the stateless front: routing, key rules, body limits, CORS, decoding a request
//!   once into a typed operation, admin orchestration, the deployment page;
//! - `objects`: one SQLite-backed Durable Object per merchant (the ledger), the relays that
//!   hold the live channel's sockets, and the registry;
//! - `hop`: the typed calls between the edge and the objects;
//! - `adapters`: the core's storage port on Durable Object SQLite, transactions, randomness;
//! - `http` (the one error-to-HTTP mapping), `config`, `clock` and `key_hashes` (API keys'
//!   hashes, remembered per isolate).
//!
//! Deployed as two Workers, one build of this crate each (Cargo.toml's features): the front
//! (`front`: `edge` and the account object) and the ledger (`ledger`: the merchants' objects,
//! the relays, the registry), which the front binds by script name. `edge` never calls into
//! `objects`, nor the reverse: they meet only through `hop`'s calls, so either build leaves
//! out the other's code. What one build does not use of the floors they share is dead there,
//! and allowed to be: both are built together for the tests and clippy.

#![cfg_attr(
    not(all(feature = "front", feature = "ledger")),
    allow(dead_code, unused_imports)
)]
mod adapters;
mod clock;
mod config;
#[cfg(feature = "front")]
mod edge;
mod hop;
mod http;
mod key_hashes;
mod objects;

#[cfg(feature = "front")]
pub use objects::account::AccountObject;
#[cfg(feature = "ledger")]
pub use objects::live::relay::RelayObject;
#[cfg(feature = "ledger")]
pub use objects::merchant::MerchantObject;
#[cfg(feature = "ledger")]
pub use objects::registry::RegistryObject;

use worker::{event, web_sys, Context, Env, Response};

/// Every request: served by the edge, answered with its request id, logged in one line. The
/// runtime's request as it is (`edge::incoming` says why not a `worker::Request`).
#[cfg(feature = "front")]
#[event(fetch)]
async fn fetch(req: web_sys::Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    edge::trace::serve(edge::incoming::Incoming::new(req), &env).await
}
