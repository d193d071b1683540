//! Merchant accounts (issue 41, docs/accounts.md): an account's operations ([`account`]: sign-up,
//! verification, login sessions, reset, invitations, over `store::accounts::AccountStore`), its
//! mails ([`mails`]), passwords ([`password`], argon2id), the secrets of links and login cookies
//! ([`link`]), the dashboard's browser credential ([`dashboard`]), login throttling
//! ([`throttle`]). What a role may do is `model::account::Role`.

pub mod account;
pub mod dashboard;
pub mod link;
pub mod mails;
pub mod password;
pub mod throttle;
