//! The Durable Objects: one per merchant (the ledger), and the one registry.

mod live;
pub mod merchant;
pub mod registry;
