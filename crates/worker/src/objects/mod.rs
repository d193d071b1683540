//! The Durable Objects: one per merchant (the ledger), and the one registry.

pub mod merchant;
pub mod registry;
