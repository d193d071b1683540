//! tokenpad's browser library: a public-key client, view models and exact amount formatting
//! for web frontends, compiled to the npm package `@tokenpad/client` (`pkg/`, built by
//! `scripts/build-pkg.sh`).
//!
//! The logic is plain Rust and tested natively (`cargo test -p tokenpad`):
//! - [`decimal`]: exact decimals held as digits (no float ever touches an amount);
//! - [`format`]: rounding and locale grouping of those digits;
//! - [`wire`]: the service's objects, which are the core's wire types
//!   (`tokenpad_core::wire`): read from the exact JSON text, written for JavaScript with every
//!   amount as a decimal string;
//! - [`client`]: URLs, answers and errors, over a [`client::Transport`] seam;
//! - [`view`]: the holder portfolio, presale progress and token supply views;
//! - [`time`]: timestamps and countdowns.
//!
//! `web` (wasm32 only) binds all of it to JavaScript: `fetch` through gloo-net, `Intl`
//! through js-sys, and the TypeScript declarations in `src/tokenpad.d.ts`. Nothing here
//! depends on the worker, and the worker does not depend on this crate.

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
