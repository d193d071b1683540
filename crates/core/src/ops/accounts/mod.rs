//! Merchant accounts (issue 41, docs/accounts.md): passwords ([`password`], argon2id), the
//! secrets of links and login cookies ([`link`]), the dashboard's browser credential
//! ([`dashboard`]), login throttling ([`throttle`]). The account's records live in its own
//! Durable Object in the worker; what a role may do is `model::account::Role`.

pub mod dashboard;
pub mod link;
pub mod password;
pub mod throttle;
