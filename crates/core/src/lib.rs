//! tokenpad's functional core: money, ids, the ledger, holders, tokens, presales,
//! deployments, the embedded chain's rules and the wire types. No I/O, no clock, no
//! randomness: `now` and fresh random bytes are passed in, so every rule here is tested
//! natively and deterministically.
//!
//! Floors, each importing only from those below it (checked by `tests/it/floors`):
//! - [`codegen`] (feature `codegen`): openapi.json and the TypeScript made from the wire types;
//! - [`serve`]: the merchant object's request pipeline (admit, authorize, due work, replay,
//!   apply with its record and follow-ups in one transaction), over the object's ports;
//! - [`wire`]: requests decoded into a typed [`wire::Op`], applied, and answered as typed
//!   responses (the JSON clients see, and the TypeScript and OpenAPI schemas made from it);
//! - [`ops`]: the operations, one file per resource: check, then apply;
//! - [`store`]: the storage port (a trait over records) and its in-memory fake; [`auth`],
//!   [`ratelimit`]: keys and budgets, on the records;
//! - [`schema`] (feature `codegen`): the JSON Schemas of the model's hand-serialized types;
//! - [`model`]: the records, ids and amounts with their units;
//! - [`error`], [`crypto`], [`session_token`]: the ground floor.
pub mod auth;
#[cfg(feature = "codegen")]
pub mod codegen;
pub mod crypto;
pub mod error;
pub mod model;
pub mod ops;
pub mod ratelimit;
#[cfg(feature = "codegen")]
pub mod schema;
pub mod serve;
pub mod session_token;
pub mod store;
pub mod wire;

pub use error::{Error, ErrorCode, FieldError, Result};
