//! Presales: raise USDC toward a target, then launch a token whose buyers receive locked
//! tokens, or refund every buyer in full.
//!
//! - `create`: validate and open a presale;
//! - `buy`: a holder pays USDC into escrow;
//! - `resolve`: the merchant launches (or refunds) now;
//! - `launch`: what the schedule runs: the end-of-sale decision and the five completion
//!   steps, each its own transaction;
//! - `settle`: refunds and unlocks.
//!
//! Status is a pure function of time and money (`Presale::status`), so a read computes the
//! same answer an alarm would. What must *happen* at a time sits on the merchant's schedule
//! (`DueKey::Presale`, `DueKey::Unlock`), and `ops::due` runs it, from a request or the
//! Durable Object alarm.

mod buy;
mod create;
mod launch;
mod lookup;
mod resolve;
mod settle;

pub use buy::{buy, refused, BuyPresaleRequest, Purchase};
pub use create::{
    create, CreatePresaleRequest, DeploymentConfigInput, MetadataInput, TokenInfoInput,
};
pub use launch::{backoff, run, MAX_BACKOFF};
pub use lookup::{find, wake};
pub use resolve::{resolve, Outcome, ResolvePresaleRequest};
pub use settle::{market_failed, unlock};
