//! The wire: what clients send and receive. Requests are decoded once into a typed [`Op`]
//! (`op`, `decode`, `routes`); [`apply`] runs it and answers with a typed response, one
//! module per resource (`token`, `holder`, `ledger`, `market`, `presale`, `deployment`,
//! `schedule`, `settlement`, `admin`).
//! These types are the single source of the JSON the service speaks: the worker serializes
//! them, the browser package reads them, and the TypeScript declarations and the OpenAPI
//! schemas are generated from them (`codegen`).

pub mod admin;
pub mod apply;
pub mod chain;
pub mod decode;
pub mod deployment;
pub mod endpoint;
pub mod event;
pub mod health;
pub mod holder;
pub mod hooks;
pub mod ledger;
pub mod market;
pub mod merchant;
pub mod op;
pub mod parts;
pub mod pool;
pub mod presale;
pub mod routes;
pub mod schedule;
pub mod scope;
pub mod session;
pub mod settlement;
pub mod shell;
pub mod token;
pub mod webhook;

pub use apply::{apply, Reply, Response, Shell};
pub use op::{HolderRef, Op, Parts};
pub use routes::{Access, Route};
