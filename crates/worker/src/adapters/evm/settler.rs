//! The settler: drains the merchant's outbox onto the chain, from the merchant object's alarm.
//!
//! One round (`Settler::run`), after reading the chain's newest block (and the relayer's
//! ETH balance in the same JSON-RPC batch, kept in its record for `GET /merchant/chain`):
//! 0. **Follow** the chain (`follow.rs`): a reorganization past a checkpoint undoes what the
//!    ledger took from the dropped blocks and sends the dropped transactions again, filling
//!    every nonce the new chain lacks; receipts `CHAIN_FINALITY` deep are final (a revert is
//!    acted on only then).
//! 1. **Watch** every transaction not yet mined: a receipt of any of its versions settles its
//!    intents in the ledger (`ops::settle::mined`). One never broadcast (the object stopped
//!    between storing and sending it) is sent now: the same bytes. One unmined for
//!    `CHAIN_REPLACE_AFTER_MS` is sent again if the node dropped it, or replaced with the same
//!    nonce and a 25 % higher fee; if its nonce was used by another transaction, its intents
//!    go back to the queue.
//! 2. **Send** what is queued (`ops::settle::plan`; releases wait for the chain's clock): for
//!    each batch, build the transaction, give it the gas the chain says it needs (`gas.rs`),
//!    sign it with the next nonce, store it with its intents marked submitted (one SQLite
//!    transaction), then broadcast it. Nonces are the object's: it is the relayer's only
//!    writer. A relayer without the ETH for the gas stops here with an error naming the
//!    address to fund, and resumes by itself once funded.
//! 3. **Scan** the new blocks' Transfer logs for deposits (`ops::settle::observe`).
//!
//! Nothing here runs inside a merchant's request: requests write intents; the alarm drains.

use super::build::Builder;
use super::config::Evm;
use super::rpc::{Fail, Rpc};
use crate::adapters::sql::{SqlStore, Watch};
use crate::adapters::txn::transaction;
use crate::adapters::wallet::WalletMaker;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::settlement::{ChainTx, TxState, TxVersion, OUT_OF_GAS};
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::token::USDC_ADDRESS;
use tokenpad_core::ops::Ctx;
use tokenpad_core::store::Store;
use tokenpad_core::wire::chain::redact_secret;
use tokenpad_core::wire::health::{NodeStatus, RelayerStatus};
use tokenpad_core::{Error, Result};
use tokenpad_evm::rpc::{self as r, BlockTag, SendError};
use tokenpad_evm::tx;

/// A replacement raises both fees by this much (nodes require at least 10 %).
pub(super) const FEE_BUMP_PERCENT: u32 = 25;
/// Replacements of one nonce, at most.
pub(super) const MAX_VERSIONS: usize = 12;
/// Transactions sent per round.
pub(super) const BATCHES_PER_ROUND: usize = 16;
/// The tip when the node cannot suggest one (0.001 gwei: Base's usual).
const DEFAULT_TIP: u128 = 1_000_000;

/// What stopped a round early: the node is unreachable or refused, or the ledger failed.
pub(super) enum Stop {
    Rpc(Fail),
    /// Settlement of some movements cannot proceed, for the reason given (shown to the operator).
    Held(String),
    Ledger(Error),
}

impl From<Fail> for Stop {
    fn from(f: Fail) -> Stop {
        Stop::Rpc(f)
    }
}

impl From<Error> for Stop {
    fn from(e: Error) -> Stop {
        Stop::Ledger(e)
    }
}

impl From<tokenpad_evm::Error> for Stop {
    fn from(e: tokenpad_evm::Error) -> Stop {
        Stop::Ledger(Error::internal(format!("settlement: {e}")))
    }
}

pub(super) type Step<T = ()> = std::result::Result<T, Stop>;

/// The chain's newest block, read once at the start of a round.
pub(super) struct Head {
    pub number: u64,
    /// Its hash, as text.
    pub hash: Option<String>,
    /// Its timestamp: the chain's clock (UNIX seconds).
    pub timestamp: u64,
    pub base_fee: u128,
    pub gas_limit: Option<u64>,
}

pub struct Settler<'a> {
    pub storage: worker::Storage,
    /// What the object keeps in memory: this round's writes raise its flags.
    pub watch: Watch,
    pub evm: &'a Evm,
    pub wallets: WalletMaker,
    pub ctx: Ctx,
    /// Scan for deposits this round.
    pub scan: bool,
    /// The base URL events render links with (`wire::event::seal`).
    pub base_url: String,
}

/// What a round leaves to do.
pub struct Round {
    /// When the next round should run (service time).
    pub next_at: Millis,
    /// Whether deposits were scanned.
    pub scanned: bool,
    /// How the node answered this round, and what it says of the relayer (`/health`).
    pub node: NodeStatus,
    pub relayer: RelayerStatus,
    /// The chain's clock (its newest block's timestamp, UNIX seconds) as this round read it;
    /// None when it could not (the operator's view tells releases waiting for it apart).
    pub chain_time: Option<u64>,
}

impl Settler<'_> {
    pub(super) fn store(&self) -> SqlStore {
        SqlStore::new(self.storage.sql()).watching(self.watch.clone())
    }

    pub(super) fn commit<T: 'static>(
        &self,
        f: impl FnOnce(&mut SqlStore) -> Result<T> + 'static,
    ) -> Result<T> {
        let mut store = self.store();
        let base = self.base_url.clone();
        transaction(&self.storage, &self.watch, move || {
            let out = f(&mut store)?;
            // What the ledger wrote as it settled (transaction.confirmed, a job's token...),
            // its events rendered in the same transaction.
            tokenpad_core::wire::event::seal(&mut store, &base)?;
            Ok(out)
        })
    }

    /// Whether a ledger token is USDC (the chain's contract; Base's address in ledgers made
    /// before USDC followed the chain). Circle's contract has no batch call.
    pub(super) fn is_usdc(&self, t: &TokenAddress) -> bool {
        t.address() == self.evm.usdc || *t == USDC_ADDRESS
    }

    pub(super) fn builder<'s>(&'s self, store: &'s SqlStore) -> Builder<'s> {
        Builder {
            evm: self.evm,
            merchant: &self.ctx.merchant,
            wallets: self.wallets,
            store,
        }
    }

    pub(super) fn relayer_address(&self) -> [u8; 20] {
        self.ctx.merchant.address.0
    }

    /// One round. Errors from the chain are recorded (the relayer's `error`, shown by the
    /// admin chain route and logged) and retried next round; the ledger's are returned.
    pub async fn run(&self) -> Result<Round> {
        let rpc = Rpc::new(self.evm.rpc.as_str(), self.evm.rpc_timeout_ms);
        let mut scanned = false;
        let mut chain_time = None;
        let mut balance = None;
        let mut outcome = match self.head_and_balance(&rpc).await {
            Ok((head, wei)) => {
                balance = wei;
                chain_time = Some(head.timestamp);
                self.steps(&rpc, &head).await
            }
            Err(stop) => Err(stop),
        };
        if outcome.is_ok() && self.scan {
            outcome = self.scan_deposits(&rpc).await;
            scanned = outcome.is_ok();
        }
        let now = self.ctx.now;
        let (node, relayer) = match &outcome {
            Ok(()) => (NodeStatus::Reachable, RelayerStatus::Ready),
            Err(Stop::Rpc(Fail::Transport(_))) => (NodeStatus::Unreachable, RelayerStatus::Unknown),
            Err(Stop::Rpc(Fail::Node(_))) => (NodeStatus::Failing, RelayerStatus::Unknown),
            Err(Stop::Held(why)) if why.contains(OUT_OF_GAS) => {
                (NodeStatus::Reachable, RelayerStatus::OutOfGas)
            }
            Err(Stop::Held(_)) => (NodeStatus::Reachable, RelayerStatus::Waiting),
            Err(Stop::Ledger(_)) => (NodeStatus::Reachable, RelayerStatus::Unknown),
        };
        let retry = match outcome {
            // A whole round went through: whatever stopped settlement before is over.
            Ok(()) => {
                self.note(None, balance)?;
                None
            }
            Err(Stop::Ledger(e)) => return Err(e),
            Err(stop @ (Stop::Rpc(_) | Stop::Held(_))) => {
                let why = match stop {
                    Stop::Rpc(fail) => fail.to_string(),
                    Stop::Held(why) => why,
                    Stop::Ledger(_) => String::new(),
                };
                // What a node said may name the endpoint's key: never kept, logged or shown.
                let why = redact_secret(&why, self.evm.rpc.as_str());
                worker::console_error!("settlement of merchant {}: {why}", self.ctx.merchant.id);
                self.note(Some(why), balance)?;
                Some(now.saturating_add(self.evm.poll_ms.max(5_000)))
            }
        };
        let store = self.store();
        let busy = !store.open_intents(1)?.is_empty() || !store.open_chain_txs()?.is_empty();
        let next_at = retry.unwrap_or(now.saturating_add(if busy {
            self.evm.poll_ms
        } else {
            self.evm.scan_ms
        }));
        Ok(Round {
            next_at,
            scanned,
            node,
            relayer,
            chain_time,
        })
    }

    /// Follow, watch, send (see the module).
    async fn steps(&self, rpc: &Rpc<'_>, head: &Head) -> Step {
        self.follow(rpc, head).await?;
        self.watch(rpc, head).await?;
        self.send(rpc, head).await
    }

    /// Records (or clears) why settlement is stopped, and the relayer's balance this round
    /// read (`Relayer::note_balance`: written when it moved, or its reading is old).
    fn note(&self, error: Option<String>, balance: Option<u128>) -> Result<()> {
        let now = self.ctx.now;
        self.commit(move |s| {
            let mut r = s.relayer()?;
            let mut changed = balance.is_some_and(|wei| r.note_balance(wei, now));
            if r.error != error {
                r.error_at = error.as_ref().map(|_| now);
                r.error = error;
                changed = true;
            }
            if changed {
                s.put_relayer(&r)?;
            }
            Ok(())
        })
    }

    /// The chain's newest block, and the relayer's balance in the same JSON-RPC batch (no
    /// round trip of its own): None when the node did not give it (the round goes on).
    async fn head_and_balance(&self, rpc: &Rpc<'_>) -> Step<(Head, Option<u128>)> {
        let relayer = self.relayer_address();
        let mut answers = rpc
            .batch(vec![
                r::eth_get_block_by_number(rpc.id(), BlockTag::Latest),
                r::eth_get_balance(rpc.id(), relayer, BlockTag::Latest),
            ])
            .await?
            .into_iter();
        let block = answers
            .next()
            .ok_or_else(|| Fail::Transport("a batch answer is missing".into()))?
            .map_err(Fail::Node)?;
        let balance = answers
            .next()
            .and_then(|b| b.ok())
            .and_then(|b| r::u128_result(&b).ok());
        Ok((Self::head_of(&block)?, balance))
    }

    /// The chain's newest block.
    async fn head(&self, rpc: &Rpc<'_>) -> Step<Head> {
        let block = rpc
            .call(r::eth_get_block_by_number(rpc.id(), BlockTag::Latest))
            .await?;
        Self::head_of(&block)
    }

    /// A block answer as the round's head.
    fn head_of(block: &serde_json::Value) -> Step<Head> {
        let b = r::parse_block(block)?
            .ok_or_else(|| Fail::Transport("the node has no latest block".into()))?;
        Ok(Head {
            number: b.number,
            hash: b.hash.map(|h| hex0x(&h)),
            timestamp: b.timestamp,
            base_fee: b.base_fee_per_gas.unwrap_or(0),
            gas_limit: b.gas_limit,
        })
    }

    /// The tip and fee cap for new transactions: twice the newest block's base fee plus the
    /// tip.
    pub(super) async fn fees(&self, rpc: &Rpc<'_>) -> Step<(u128, u128)> {
        let head = self.head(rpc).await?;
        self.fees_at(rpc, head.base_fee).await
    }

    /// The tip and fee cap over a base fee of `base`.
    pub(super) async fn fees_at(&self, rpc: &Rpc<'_>, base: u128) -> Step<(u128, u128)> {
        // A node that cannot suggest a tip gets the default one.
        let tip = rpc
            .call(r::eth_max_priority_fee_per_gas(rpc.id()))
            .await
            .ok()
            .and_then(|v| r::u128_result(&v).ok())
            .unwrap_or(DEFAULT_TIP)
            .max(1);
        Ok((tip, base.saturating_mul(2).saturating_add(tip)))
    }

    pub(super) fn unsigned(&self, t: &ChainTx, tip: u128, cap: u128) -> Result<tx::Eip1559> {
        Ok(tx::Eip1559 {
            chain_id: self.evm.chain.chain_id,
            nonce: t.nonce,
            max_priority_fee_per_gas: tip,
            max_fee_per_gas: cap,
            gas_limit: t.gas_limit,
            to: Some(t.to.0),
            value: 0,
            data: r::parse_hex_data(&t.data)
                .map_err(|e| Error::internal(format!("stored calldata: {e}")))?,
        })
    }

    pub(super) fn sign(&self, unsigned: &tx::Eip1559) -> Result<TxVersion> {
        let m = &self.ctx.merchant;
        let secret = self.wallets.open(&m.address, &m.sealed_key)?;
        let signed =
            tx::sign(unsigned, &secret).map_err(|e| Error::internal(format!("signing: {e}")))?;
        Ok(TxVersion {
            hash: hex0x(&signed.hash),
            raw: hex0x(&signed.raw),
            max_fee_per_gas: unsigned.max_fee_per_gas,
            max_priority_fee_per_gas: unsigned.max_priority_fee_per_gas,
            signed_at: self.ctx.now,
        })
    }

    /// Sends the latest version of `t` (again: sending the same bytes twice is harmless).
    pub(super) async fn broadcast(&self, rpc: &Rpc<'_>, t: &ChainTx) -> Step {
        let latest = t
            .latest()
            .ok_or_else(|| Error::internal("a transaction without a version"))?;
        let raw = r::parse_hex_data(&latest.raw)?;
        let error = match rpc.call(r::eth_send_raw_transaction(rpc.id(), &raw)).await {
            Ok(_) => None,
            Err(Fail::Node(e)) => match SendError::classify(&e) {
                // Known already, or its nonce used (by this very transaction, which the next
                // receipt check finds, or by another: then it is abandoned after a while).
                SendError::AlreadyKnown | SendError::NonceTooLow => None,
                SendError::InsufficientFunds => {
                    return Err(Stop::Held(self.out_of_gas(None)));
                }
                SendError::Underpriced if t.versions.len() < MAX_VERSIONS => {
                    return Box::pin(self.replace(rpc, t)).await;
                }
                SendError::Underpriced => Some(e.message),
                SendError::Other(message) => Some(message),
            },
            Err(transport) => return Err(Stop::Rpc(transport)),
        };
        let (nonce, now) = (t.nonce, self.ctx.now);
        let sent = error.is_none();
        self.commit(move |s| {
            if let Some(mut stored) = s.chain_tx(nonce)? {
                if stored.is_open() {
                    if sent {
                        stored.state = TxState::Sent;
                        stored.sent_at = Some(now);
                    }
                    stored.error = error;
                    s.put_chain_tx(&stored)?;
                }
            }
            if sent {
                let mut r = s.relayer()?;
                if r.error.is_some() {
                    r.error = None;
                    r.error_at = None;
                    s.put_relayer(&r)?;
                }
            }
            Ok(())
        })?;
        Ok(())
    }
}
