//! The Durable Objects: one per merchant (the ledger), the relays that hold the live
//! channel's sockets, and the one registry.

#[cfg(feature = "front")]
pub mod account;
#[cfg(feature = "ledger")]
pub mod clock;
#[cfg(feature = "ledger")]
pub mod live;
#[cfg(feature = "ledger")]
pub mod merchant;
#[cfg(feature = "ledger")]
pub mod registry;
