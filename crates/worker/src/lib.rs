//! tokenpad's edge worker: the whole HTTP service as a Cloudflare Worker.
//!
//! - `edge`: the stateless front: routing, key rules, body limits, CORS, admin orchestration.
//! - `merchant_object`: one SQLite-backed Durable Object per merchant, the ledger.
//! - `registry_object`: the merchant list and the service clock's offset.
//! - `handlers`: the merchant object's operations, one file per resource.
//! - `sql_store`: the core's `Store` port on Durable Object SQLite; `txn`: transactions.
//! - `http`: the one error-to-HTTP mapping.

mod config;
mod edge;
mod envelope;
mod handlers;
mod http;
mod merchant_object;
mod overview;
mod registry_object;
mod routes;
mod sql_store;
mod txn;
mod wallet;

pub use merchant_object::MerchantObject;
pub use registry_object::RegistryObject;

use worker::{event, Context, Env, Request, Response};

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    match edge::handle(req, &env).await {
        Ok(resp) => Ok(resp),
        Err(e) => http::error(&e),
    }
}
