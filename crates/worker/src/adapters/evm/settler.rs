//! The settler: drains the merchant's outbox onto the chain, from the merchant object's alarm.
//!
//! One round (`Settler::run`):
//! 1. **Watch** every transaction not yet mined: a receipt of any of its versions settles its
//!    intents in the ledger (`ops::settle::mined`). One never broadcast (the object stopped
//!    between storing and sending it) is sent now: the same bytes. One unmined for
//!    `CHAIN_REPLACE_AFTER_MS` is sent again if the node dropped it, or replaced with the same
//!    nonce and a 25 % higher fee; if its nonce was used by another transaction, its intents
//!    go back to the queue.
//! 2. **Send** what is queued (`ops::settle::plan`): for each batch, build and sign the
//!    transaction with the next nonce, store it with its intents marked submitted (one SQLite
//!    transaction), then broadcast it. Nonces are the object's: it is the relayer's only
//!    writer. A relayer without the ETH for the gas stops here with an error naming the
//!    address to fund, and resumes by itself once funded.
//! 3. **Scan** the new blocks' Transfer logs for deposits (`ops::settle::observe`).
//!
//! Nothing here runs inside a merchant's request: requests write intents; the alarm drains.

use super::build::{Builder, Built};
use super::config::Evm;
use super::rpc::{Fail, Rpc};
use crate::adapters::sql::{SqlStore, Watch};
use crate::adapters::txn::transaction;
use crate::adapters::wallet::WalletMaker;
use tokenpad_core::crypto::hex0x;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::ids::TokenAddress;
use tokenpad_core::model::settlement::{ChainTx, TxState, TxVersion};
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::token::USDC_ADDRESS;
use tokenpad_core::ops::settle;
use tokenpad_core::ops::settle::plan::{plan, Batch, Call, Limits};
use tokenpad_core::ops::Ctx;
use tokenpad_core::store::Store;
use tokenpad_core::wire::health::{NodeStatus, RelayerStatus};
use tokenpad_core::{Error, Result};
use tokenpad_evm::rpc::{self as r, BlockTag, SendError};
use tokenpad_evm::tx;

/// A replacement raises both fees by this much (nodes require at least 10 %).
pub(super) const FEE_BUMP_PERCENT: u32 = 25;
/// Replacements of one nonce, at most.
pub(super) const MAX_VERSIONS: usize = 12;
/// Transactions sent per round.
const BATCHES_PER_ROUND: usize = 16;
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
}

/// Part of the reason the relayer lacks gas (`out_of_gas`), which says so.
const OUT_OF_GAS: &str = "is out of gas";

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
    fn is_usdc(&self, t: &TokenAddress) -> bool {
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
        let mut outcome = self.watch(&rpc).await;
        if outcome.is_ok() {
            outcome = self.send(&rpc).await;
        }
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
                self.note(None)?;
                None
            }
            Err(Stop::Ledger(e)) => return Err(e),
            Err(stop @ (Stop::Rpc(_) | Stop::Held(_))) => {
                let why = match stop {
                    Stop::Rpc(fail) => fail.to_string(),
                    Stop::Held(why) => why,
                    Stop::Ledger(_) => String::new(),
                };
                worker::console_error!("settlement of merchant {}: {why}", self.ctx.merchant.id);
                self.note(Some(why))?;
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
        })
    }

    /// Records (or clears) why settlement is stopped.
    fn note(&self, error: Option<String>) -> Result<()> {
        let now = self.ctx.now;
        self.commit(move |s| {
            let mut r = s.relayer()?;
            if r.error != error {
                r.error_at = error.as_ref().map(|_| now);
                r.error = error;
                s.put_relayer(&r)?;
            }
            Ok(())
        })
    }

    // ---------------------------------------------------------------- 2. send

    async fn send(&self, rpc: &Rpc<'_>) -> Step {
        let store = self.store();
        let limits = Limits {
            per_batch: self.evm.batch,
            batches: BATCHES_PER_ROUND,
        };
        let planned = plan(&store, limits, |t: &TokenAddress| !self.is_usdc(t))?;
        let (batches, held) = self.deployed_only(rpc, planned).await?;
        if batches.is_empty() {
            return held.map_or(Ok(()), |why| Err(Stop::Held(why)));
        }
        let builder = self.builder(&store);
        let built = batches
            .iter()
            .map(|b| builder.build(b))
            .collect::<Result<Vec<Built>>>()?;
        let relayer = self.relayer_address();
        let mut nonce = match store.relayer()?.next_nonce {
            Some(n) => n,
            None => r::u64_result(
                &rpc.call(r::eth_get_transaction_count(
                    rpc.id(),
                    relayer,
                    BlockTag::Pending,
                ))
                .await?,
            )?,
        };
        let (tip, cap) = self.fees(rpc).await?;
        let balance = r::u128_result(
            &rpc.call(r::eth_get_balance(rpc.id(), relayer, BlockTag::Latest))
                .await?,
        )?;
        let mut budget = balance;
        for (b, payload) in batches.iter().zip(built) {
            let cost = u128::from(payload.gas_limit).saturating_mul(cap);
            if cost > budget {
                return Err(Stop::Held(self.out_of_gas(Some((balance, cost)))));
            }
            budget -= cost;
            let unsigned = tx::Eip1559 {
                chain_id: self.evm.chain.chain_id,
                nonce,
                max_priority_fee_per_gas: tip,
                max_fee_per_gas: cap,
                gas_limit: payload.gas_limit,
                to: Some(payload.to),
                value: 0,
                data: payload.data.clone(),
            };
            let record = ChainTx {
                nonce,
                intents: b.intents.iter().map(|i| i.id).collect(),
                to: Address(payload.to),
                data: hex0x(&payload.data),
                gas_limit: payload.gas_limit,
                versions: vec![self.sign(&unsigned)?],
                state: TxState::Signed,
                mined_hash: None,
                block: None,
                gas_used: None,
                error: None,
                sent_at: None,
                created_at: self.ctx.now,
            };
            let stored = record.clone();
            // Stored before it is sent: a crash after this line sends these same bytes.
            let halt = self.commit(move |s| {
                settle::signed(s, &stored)?;
                let mut state = s.chain_state()?;
                let halt = state.halt_after_signing > 0;
                if halt {
                    state.halt_after_signing -= 1;
                    s.put_chain_state(&state)?;
                }
                Ok(halt)
            })?;
            if halt {
                return Err(Stop::Ledger(Error::internal(
                    "settlement halted between signing and sending (injected fault)",
                )));
            }
            self.broadcast(rpc, &record).await?;
            nonce = nonce.saturating_add(1);
        }
        held.map_or(Ok(()), |why| Err(Stop::Held(why)))
    }

    /// The batches whose token has code on chain (a call to an address without code
    /// "succeeds" and moves nothing): a token whose deployment failed or is not mined holds its
    /// movements back, and says so.
    async fn deployed_only(
        &self,
        rpc: &Rpc<'_>,
        planned: Vec<Batch>,
    ) -> Step<(Vec<Batch>, Option<String>)> {
        let mut tokens: Vec<TokenAddress> = planned
            .iter()
            .filter(|b| b.call == Call::Transfers && !self.is_usdc(&b.token))
            .map(|b| b.token)
            .collect();
        tokens.sort();
        tokens.dedup();
        if tokens.is_empty() {
            return Ok((planned, None));
        }
        let requests = tokens
            .iter()
            .map(|t| r::eth_get_code(rpc.id(), t.address().0, BlockTag::Latest))
            .collect();
        let mut missing = Vec::new();
        for (t, answer) in tokens.iter().zip(rpc.batch(requests).await?) {
            let code = r::data_result(&answer.map_err(Fail::Node)?)?;
            if code.is_empty() {
                missing.push(*t);
            }
        }
        if missing.is_empty() {
            return Ok((planned, None));
        }
        let why = format!(
            "token {} has no code on chain (its deployment failed or is not mined): its movements wait",
            missing.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
        );
        let kept = planned
            .into_iter()
            .filter(|b| b.call != Call::Transfers || !missing.contains(&b.token))
            .collect();
        Ok((kept, Some(why)))
    }

    /// Why settlement waits on the relayer's ETH; `figures` is (its balance, what the next
    /// transaction may cost) in wei when known.
    fn out_of_gas(&self, figures: Option<(u128, u128)>) -> String {
        let relayer = self.ctx.merchant.address.to_checksum();
        let had = match figures {
            Some((balance, need)) => {
                format!("it has {balance} wei and the next transaction may cost up to {need} wei")
            }
            None => "the node refused a transaction for want of it".into(),
        };
        format!(
            "the relayer {relayer} {OUT_OF_GAS}: {had}. Send ETH to {relayer} on chain {}; settlement resumes by itself.",
            self.evm.chain.chain_id
        )
    }

    /// The tip and fee cap for new transactions: twice the base fee plus the tip.
    pub(super) async fn fees(&self, rpc: &Rpc<'_>) -> Step<(u128, u128)> {
        let answers = rpc
            .batch(vec![
                r::eth_get_block_by_number(rpc.id(), BlockTag::Latest),
                r::eth_max_priority_fee_per_gas(rpc.id()),
            ])
            .await?;
        let mut answers = answers.into_iter();
        let block = answers
            .next()
            .ok_or_else(|| Fail::Transport("no block".into()))?
            .map_err(Fail::Node)?;
        let base = r::parse_block(&block)?
            .and_then(|b| b.base_fee_per_gas)
            .unwrap_or(0);
        let tip = answers
            .next()
            .and_then(|a| a.ok())
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
