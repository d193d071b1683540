//! The core's integration tests, in one binary: the ledger's scenario tables and property
//! tests, presales, memecoin and airdrop deployments, holder sessions' scopes and limits,
//! reads that write nothing, the error table against openapi.json, and the shape of the code
//! (no import circles, no file over 500 lines: `floors`).
//! Requests go through `wire::decode` into typed requests, then the operation, as HTTP
//! requests do (see `common`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod accounts;
mod auth_nonces;
mod common;
mod conservation;
mod deployment;
mod due;
mod events;
mod floors;
mod keys;
mod ledger_props;
mod ledger_scenarios;
mod market;
mod market_chain;
mod merchant_chain;
mod netting;
mod openapi_codes;
mod plan_holds;
mod presale;
mod reads;
mod receipts;
mod reconcile;
mod reorg;
mod reverts;
mod sessions;
mod settle;
mod stuck;
mod trade_event;
mod webhooks;
