//! The merchant object's request pipeline, written once, with no I/O: what happens to an API
//! call between the edge and the ledger, and to the object's due work. The worker's merchant
//! object (`crates/worker/src/objects/merchant`), the simulator (`crates/sim`) and the
//! examples' world (`codegen::examples_world`) all run these functions; each supplies only
//! the ports ([`Object`], [`Txn`]): its storage transaction, memos, budgets and keys.
//!
//! An API call ([`serve`]): the credential is checked and its budget charged, once
//! ([`admit`]) -> a request that did not decode is refused only then -> the operation is
//! authorized, once (`wire::scope`) -> due work runs ([`due::run`]: item by item, each in its
//! own transaction; a failing item never fails the request) -> an answer kept under the
//! caller's Idempotency-Key is replayed, or the operation is applied inside ONE transaction
//! with its idempotency record and its follow-ups ([`Txn::queue`]) -> a refusal the operation
//! itself answered is kept under the key too, in a transaction of its own.

pub mod admit;
pub mod credential;
pub mod due;
mod followup;
mod pipeline;
mod ports;

pub use admit::{admit, Admitted};
pub use credential::Credential;
pub use followup::Followup;
pub use pipeline::{serve, Call, Served};
pub use ports::{Object, Plant, Txn};
