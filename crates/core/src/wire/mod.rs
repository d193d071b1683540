//! The wire: what clients send and receive, one module per resource family (`token`,
//! `holder`, `ledger`, `market`, `presale`, `deployment`, `session`, `merchant`, `keys`, `hooks`
//! for the event log and webhooks, `admin`). A family's module declares its routes (`ROUTES`:
//! method, path, access, whether it writes), decodes them into its typed operation, applies
//! it through `ops` and holds its answers' types. `routes` is the table (the families'
//! union), [`Op`] and [`apply`] only dispatch to the families.
//! These types are the single source of the JSON the service speaks: the worker serializes
//! them, the browser package reads them, and the TypeScript declarations, the OpenAPI
//! schemas and the list of routes are generated from them (`codegen`).

pub mod account;
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
pub mod keys;
pub mod ledger;
pub mod market;
pub mod merchant;
pub mod merchant_chain;
pub mod op;
pub mod parts;
pub mod pool;
pub mod presale;
pub mod routes;
pub mod scope;
pub mod session;
pub mod settlement;
pub mod shell;
pub mod token;
pub mod webhook;

pub use apply::{apply, kept_instead, Reply, Response, Shell};
pub use op::{HolderRef, Op, Parts};
pub use routes::{Access, Route};
