//! Records: the data every other floor works on. Ids and amounts carry their meaning in
//! their types (`ids`, `amount`); the wire's exact decimals and the request field types are
//! here too (`decimal`, `input`), because requests are made of them.

pub mod account;
pub mod address;
pub mod amount;
pub mod arith;
pub mod balance;
pub mod books;
pub mod chain;
pub mod decimal;
pub mod deployment;
pub mod event;
pub mod history;
pub mod holder;
pub mod ids;
pub mod input;
pub mod intent;
pub mod job;
pub mod key;
pub mod merchant;
pub mod pool;
pub mod presale;
pub mod printable;
pub mod schedule;
pub mod session;
pub mod settlement;
pub mod time;
pub mod token;
pub mod wallet;
pub mod webhook;
