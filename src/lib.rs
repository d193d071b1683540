//! The wasm core of the npm package `@tokenpad/client` (`pkg/`, built by
//! `scripts/build-pkg.sh`): the service's answers read exactly, view models and exact amount
//! formatting. The package's JavaScript layer (`src/js/`, TypeScript) does the HTTP, retries,
//! live updates and the service clock, and holds the server client and the React hooks.
//!
//! The logic is plain Rust and tested natively (`cargo test -p tokenpad`):
//! - [`decimal`]: exact decimals held as digits (no float ever touches an amount);
//! - [`format`]: rounding and locale grouping of those digits;
//! - [`wire`]: the service's objects, which are the core's wire types
//!   (`tokenpad_core::wire`): read from the exact JSON text, written for JavaScript with every
//!   amount as a decimal string;
//! - [`client`]: the service's answers and errors;
//! - [`view`]: the holder portfolio, presale progress and token supply views;
//! - [`time`]: timestamps and countdowns.
//!
//! With the feature `codegen` (tests only), `codegen` writes the view models' TypeScript
//! (`src/js/generated/views.d.ts`) from these structs.
//!
//! `web` (wasm32 only) exports it to the JavaScript layer, with `Intl` through js-sys. Nothing
//! here depends on the worker, and the worker does not depend on this crate.

pub mod client;
pub mod decimal;
pub mod format;
pub mod time;
pub mod view;
pub mod wire;

#[cfg(test)]
mod fixtures;

#[cfg(target_arch = "wasm32")]
pub mod web;

#[cfg(feature = "codegen")]
pub mod codegen;
