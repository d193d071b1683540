//! The Durable Objects: one per merchant (the ledger), the relays that hold the live
//! channel's sockets, and the one registry.

pub mod account;
pub mod clock;
pub mod live;
pub mod merchant;
pub mod registry;
