//! tokenpad's edge worker: the whole HTTP service as a Cloudflare Worker.
//!
//! Floors, each importing only from those below it:
//! - `edge`: the stateless front: routing, key rules, body limits, CORS, decoding a request
//!   once into a typed operation, admin orchestration, the deployment page;
//! - `objects`: one SQLite-backed Durable Object per merchant (the ledger), the relays that
//!   hold the live channel's sockets, and the registry;
//! - `hop`: the typed calls between the edge and the objects;
//! - `adapters`: the core's storage port on Durable Object SQLite, transactions, randomness;
//! - `http` (the one error-to-HTTP mapping), `config` and `clock`.

mod adapters;
mod clock;
mod config;
mod edge;
mod hop;
mod http;
mod objects;

pub use objects::account::AccountObject;
pub use objects::live::relay::RelayObject;
pub use objects::merchant::MerchantObject;
pub use objects::registry::RegistryObject;

use worker::{event, web_sys, Context, Env, Response};

/// Every request: served by the edge, answered with its request id, logged in one line. The
/// runtime's request as it is (`edge::incoming` says why not a `worker::Request`).
#[event(fetch)]
async fn fetch(req: web_sys::Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    edge::trace::serve(edge::incoming::Incoming::new(req), &env).await
}
