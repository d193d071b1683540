//! What a settlement round needs from its shell: the chain (`Chain`: reads, receipts, sends,
//! logs), what only the chain's adapter knows how to make (`Signer`: a batch's calldata and
//! the relayer's signature), and the ledger's transactions (`Ledger`). The core decides what
//! and when; the adapters do the how on the wire (JSON-RPC, ABI, RLP, keys) or in memory (the
//! simulator's chain).
//!
//! The chain's methods are `async`: the worker's calls go out over `fetch`; the simulator's
//! answer at once. No `Send` bound: the Worker is single-threaded (hence
//! `allow(async_fn_in_trait)`, whose lint is about that bound only).

use crate::error::{Error, Result};
use crate::model::address::Address;
use crate::model::chain::PoolEvent;
use crate::model::ids::TokenAddress;
use crate::model::pool::v3::State;
use crate::model::settlement::ChainTx;
use crate::ops::settle::observe::Observed;
use crate::ops::settle::plan::Batch;
use crate::ops::settle::Mined;
use crate::store::Store;
use std::fmt;

/// The chain's newest block, read once at the start of a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    pub number: u64,
    /// Its hash, as text.
    pub hash: Option<String>,
    /// Its timestamp: the chain's clock (UNIX seconds).
    pub timestamp: u64,
    pub base_fee: u128,
    pub gas_limit: Option<u64>,
}

/// A call the node did not answer (a timeout, a network error, an answer that is not
/// JSON-RPC), or answered with an error. What it says names no secret (the adapter redacts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fail {
    Unreachable(String),
    Failing(String),
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fail::Unreachable(why) | Fail::Failing(why) => f.write_str(why),
        }
    }
}

/// What stopped a round early: the node is unreachable or refused, settlement of some
/// movements is held (the reason is shown to the operator), the object stopped (an injected
/// fault), or the ledger failed.
#[derive(Debug)]
pub enum Stop {
    Node(Fail),
    Held(String),
    Halted(String),
    Ledger(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Ledger(e)
    }
}

impl From<Fail> for Stop {
    fn from(f: Fail) -> Stop {
        Stop::Node(f)
    }
}

pub type Step<T = ()> = std::result::Result<T, Stop>;

/// What the node said to a signed transaction (`eth_sendRawTransaction`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sent {
    Accepted,
    /// Known already.
    AlreadyKnown,
    /// Its nonce is used (by this very transaction, or by another).
    NonceTooLow,
    /// The relayer lacks the ETH for its gas.
    InsufficientFunds,
    /// Its fee is too low to replace what the node holds at its nonce.
    Underpriced(String),
    Other(String),
}

/// A planned batch as a transaction's payload (the adapter's ABI), and the least gas its call
/// is given (measured: some calls need more than their estimate says).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Payload {
    pub to: Address,
    pub data: Vec<u8>,
    pub floor: u64,
}

/// A transaction to sign with the relayer's key (EIP-1559 on the adapter's chain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsigned {
    pub nonce: u64,
    pub to: Address,
    /// The calldata, as 0x-hex (as stored in `ChainTx::data`).
    pub data: String,
    pub gas_limit: u64,
    pub tip: u128,
    pub cap: u128,
}

/// A signed transaction: its hash and its raw bytes, as 0x-hex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    pub hash: String,
    pub raw: String,
}

/// New blocks' logs the ledger follows: Transfers of the merchant's tokens, USDC to its
/// holders and into and out of its pools (as `observe` reads them, in chain order), and its
/// pools' own events.
#[derive(Clone, Debug, Default)]
pub struct Scanned {
    pub transfers: Vec<Observed>,
    pub pool_events: Vec<PoolEvent>,
}

/// Bugs the simulator plants in the round, to show its checks find them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plant {
    /// A signed batch's intents stay queued (as if `settle::signed` did not mark them): the
    /// next round sends them again.
    ForgetsToMarkSent,
    /// A transaction gets a gas limit below the chain's estimate, never more after it ran out
    /// (as fixed limits measured once do).
    GasLimitTooLow,
}

/// How loud a line of the round's log is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Warn,
    Error,
}

/// The chain, as the round reads and writes it.
#[allow(async_fn_in_trait)]
pub trait Chain {
    /// The newest block, and the relayer's balance in wei if the node gave it with it.
    async fn head_and_balance(&self) -> Step<(Head, Option<u128>)>;
    /// The newest block.
    async fn head(&self) -> Step<Head>;
    /// The relayer's balance in wei.
    async fn balance(&self) -> Step<u128>;
    /// The relayer's nonce: how many of its transactions the chain holds at its newest block,
    /// or with its pending ones (`pending`).
    async fn nonce(&self, pending: bool) -> Step<u64>;
    /// The node's suggested priority fee; None when it cannot suggest one.
    async fn tip(&self) -> Option<u128>;
    /// The hashes of blocks `numbers` in one go; a block the node did not give is None.
    async fn block_hashes(&self, numbers: &[u64]) -> Step<Vec<Option<String>>>;
    /// For each of `open`, the receipt of any of its versions, as the ledger reads it.
    async fn receipts(&self, open: &[ChainTx], head: &Head) -> Step<Vec<Option<Mined>>>;
    /// Whether the node knows transaction `hash` (pending, or mined).
    async fn known(&self, hash: &str) -> Step<bool>;
    /// Sends the latest version of `t`.
    async fn send(&self, t: &ChainTx) -> Step<Sent>;
    /// The gas each payload needs now, from the relayer; None where the node cannot estimate
    /// it (it would revert now).
    async fn estimates(&self, payloads: &[Payload]) -> Step<Vec<Option<u64>>>;
    /// Whether each token has code on chain.
    async fn has_code(&self, tokens: &[TokenAddress]) -> Step<Vec<bool>>;
    /// Why token deployments must wait (the factory deploys another token code), if they must.
    async fn wrong_factory(&self) -> Step<Option<String>>;
    /// Each pool's state at block `at`.
    async fn pool_states(&self, pools: &[Address], at: u64) -> Step<Vec<State>>;
    /// The newest block's number.
    async fn block_number(&self) -> Step<u64>;
    /// What the ledger follows in blocks `from..=to`.
    async fn logs(&self, from: u64, to: u64) -> Step<Scanned>;
    /// A line for the operator's log.
    fn log(&self, _level: Level, _line: &str) {}
    /// A bug planted in the round (the simulator's, to show its checks find it): never in a
    /// shipped adapter.
    fn planted(&self) -> Option<Plant> {
        None
    }
}

/// What only the chain's adapter knows how to make.
pub trait Signer {
    /// Whether a token's transfers go in one batch call (Circle's USDC has none).
    fn batchable(&self, token: &TokenAddress) -> bool;
    /// A planned batch's payload (holders' signed authorizations included).
    fn build(&self, batch: &Batch) -> Result<Payload>;
    /// Signs with the relayer's key.
    fn sign(&self, tx: &Unsigned) -> Result<Signed>;
}

/// The ledger: read, and written in transactions (each step's report commits alone, with the
/// events it wrote). The worker's transactions take closures that own what they use.
pub trait Ledger {
    fn read<T>(&self, f: impl FnOnce(&dyn Store) -> Result<T>) -> Result<T>;
    fn commit<T: 'static>(
        &self,
        f: impl FnOnce(&mut dyn Store) -> Result<T> + 'static,
    ) -> Result<T>;
}
