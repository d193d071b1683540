//! The settler's round, sans-IO: one implementation that the worker (over JSON-RPC, from the
//! merchant object's alarm) and the simulator (over its chain) both run, through the ports of
//! `port`.
//!
//! One round (`run`), after reading the chain's newest block (and the relayer's ETH balance
//! with it, kept in its record for `GET /merchant/chain`):
//! 0. **Follow** the chain (`follow`): a reorganization past a checkpoint undoes what the
//!    ledger took from the dropped blocks and sends the dropped transactions again, filling
//!    every nonce the new chain lacks; receipts `CHAIN_FINALITY` deep are final (a revert is
//!    acted on only then).
//! 1. **Watch** every transaction not yet mined (`watch`): a receipt of any of its versions
//!    settles its intents in the ledger (`ops::settle::mined`). One never broadcast (the
//!    object stopped between storing and sending it) is sent now: the same bytes. One unmined
//!    for `replace_after_ms` is sent again if the node dropped it, or replaced with the same
//!    nonce and a 25 % higher fee; if its nonce was used by another transaction, its intents
//!    go back to the queue.
//! 2. **Send** what is queued (`send`; `ops::settle::plan`; releases wait for the chain's
//!    clock): for each batch, build the transaction, give it the gas the chain says it needs
//!    (`gas`), sign it with the next nonce, store it with its intents marked submitted (one
//!    transaction), then broadcast it. Nonces are the object's: it is the relayer's only
//!    writer. A relayer without the ETH for the gas stops here with an error naming the
//!    address to fund, and resumes by itself once funded.
//! 3. **Scan** the new blocks' logs for deposits and pool events (`scan`).
//!
//! Nothing here runs inside a merchant's request: requests write intents; the alarm drains.

mod follow;
pub mod gas;
pub mod port;
mod scan;
mod send;
mod watch;

use crate::error::Result;
use crate::model::settlement::OUT_OF_GAS;
use crate::model::time::Millis;
use crate::ops::Ctx;
use alloy_primitives::U256;
use port::{Chain, Ledger, Level, Signer, Step, Stop};
use serde::{Deserialize, Serialize};

/// A replacement raises both fees by this much (nodes require at least 10 %).
pub const FEE_BUMP_PERCENT: u32 = 25;
/// Replacements of one nonce, at most.
pub const MAX_VERSIONS: usize = 12;
/// Transactions sent per round.
pub const BATCHES_PER_ROUND: usize = 16;
/// The tip when the node cannot suggest one (0.001 gwei: Base's usual).
pub const DEFAULT_TIP: u128 = 1_000_000;

/// How the node answered a settlement round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    /// Every call of the round was answered.
    Reachable,
    /// A call got no answer: a timeout, a network or HTTP error, a body that is not JSON-RPC.
    Unreachable,
    /// The node answered a call with an error.
    Failing,
}

/// Whether a merchant's relayer can pay for its transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RelayerStatus {
    /// Its round went through.
    Ready,
    /// It lacks the ETH for the next transaction's gas: settlement waits until it is funded.
    OutOfGas,
    /// Some movements wait on the chain (a token not deployed yet).
    Waiting,
    /// Not known: the node did not answer.
    Unknown,
}

/// The round's settings (the worker's from its environment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub chain_id: u64,
    /// Movements per batch transaction (`CHAIN_BATCH`).
    pub per_batch: usize,
    /// A transaction unmined this long is looked at again (`CHAIN_REPLACE_AFTER_MS`).
    pub replace_after_ms: u64,
    /// The next round while work is open (`CHAIN_POLL_MS`), and when idle (`CHAIN_SCAN_MS`).
    pub poll_ms: u64,
    pub scan_ms: u64,
    /// Blocks a log must be under the head before it is scanned.
    pub confirmations: u64,
    /// Scan for deposits this round.
    pub scan: bool,
}

/// A round: its ports, the merchant and the service time it runs at, its settings.
pub struct Round<'a, C, S, L> {
    pub chain: &'a C,
    pub signer: &'a S,
    pub ledger: &'a L,
    pub ctx: Ctx,
    pub config: Config,
}

/// What a round leaves to do, and what it saw.
#[derive(Debug)]
pub struct Report {
    /// When the next round should run (service time).
    pub next_at: Millis,
    /// Whether deposits were scanned.
    pub scanned: bool,
    /// How the node answered this round, and what it says of the relayer (`/health`).
    pub node: NodeStatus,
    pub relayer: RelayerStatus,
    /// The chain's clock (its newest block's timestamp, UNIX seconds) as this round read it.
    pub chain_time: Option<u64>,
    /// Why the object stopped mid-round (an injected fault), if it did: nothing was noted.
    pub halted: Option<String>,
    /// Why settlement stopped this round (noted in the relayer's record), if it did.
    pub error: Option<String>,
}

impl<C: Chain, S: Signer, L: Ledger> Round<'_, C, S, L> {
    /// One round. Errors from the chain are recorded (the relayer's `error`) and retried next
    /// round; the ledger's are returned.
    pub async fn run(&self) -> Result<Report> {
        let mut scanned = false;
        let mut chain_time = None;
        let mut balance = None;
        let mut outcome = match self.chain.head_and_balance().await {
            Ok((head, wei)) => {
                balance = wei;
                chain_time = Some(head.timestamp);
                self.steps(&head).await
            }
            Err(stop) => Err(stop),
        };
        if outcome.is_ok() && self.config.scan {
            outcome = self.scan().await;
            scanned = outcome.is_ok();
        }
        let now = self.ctx.now;
        let (node, relayer) = match &outcome {
            Ok(()) => (NodeStatus::Reachable, RelayerStatus::Ready),
            Err(Stop::Node(port::Fail::Unreachable(_))) => {
                (NodeStatus::Unreachable, RelayerStatus::Unknown)
            }
            Err(Stop::Node(port::Fail::Failing(_))) => {
                (NodeStatus::Failing, RelayerStatus::Unknown)
            }
            Err(Stop::Held(why)) if why.contains(OUT_OF_GAS) => {
                (NodeStatus::Reachable, RelayerStatus::OutOfGas)
            }
            Err(Stop::Held(_)) => (NodeStatus::Reachable, RelayerStatus::Waiting),
            Err(Stop::Halted(_) | Stop::Ledger(_)) => {
                (NodeStatus::Reachable, RelayerStatus::Unknown)
            }
        };
        let mut halted = None;
        let mut error = None;
        let retry = match outcome {
            // A whole round went through: whatever stopped settlement before is over.
            Ok(()) => {
                self.note(None, balance)?;
                None
            }
            Err(Stop::Ledger(e)) => return Err(e),
            Err(Stop::Halted(why)) => {
                halted = Some(why);
                Some(now.saturating_add(self.config.poll_ms.max(1_000)))
            }
            Err(Stop::Node(fail)) => {
                error = Some(fail.to_string());
                Some(now.saturating_add(self.config.poll_ms.max(5_000)))
            }
            Err(Stop::Held(why)) => {
                error = Some(why);
                Some(now.saturating_add(self.config.poll_ms.max(5_000)))
            }
        };
        if let Some(why) = &error {
            self.chain.log(
                Level::Error,
                &format!("settlement of merchant {}: {why}", self.ctx.merchant.id),
            );
            self.note(Some(why.clone()), balance)?;
        }
        let busy = self
            .ledger
            .read(|s| Ok(!s.open_intents(1)?.is_empty() || !s.open_chain_txs()?.is_empty()))?;
        let idle = if busy {
            self.config.poll_ms
        } else {
            self.config.scan_ms
        };
        Ok(Report {
            next_at: retry.unwrap_or(now.saturating_add(idle)),
            scanned,
            node,
            relayer,
            chain_time,
            halted,
            error,
        })
    }

    /// Follow, watch, send (see the module).
    async fn steps(&self, head: &port::Head) -> Step {
        self.follow(head).await?;
        self.watch(head).await?;
        self.send(head).await
    }

    /// Records (or clears) why settlement is stopped, and the relayer's balance this round
    /// read (`Relayer::note_balance`: written when it moved, or its reading is old).
    /// Nothing is written (no transaction at all) when neither changed.
    fn note(&self, error: Option<String>, balance: Option<u128>) -> Result<()> {
        let now = self.ctx.now;
        let mut before = self.ledger.read(|s| s.relayer())?;
        let moved = balance.is_some_and(|wei| before.note_balance(wei, now));
        if !moved && before.error == error {
            return Ok(());
        }
        self.ledger.commit(move |s| {
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

    /// The tip and fee cap over a base fee of `base`: twice the base fee plus the tip.
    async fn fees_at(&self, base: u128) -> (u128, u128) {
        let tip = self.chain.tip().await.unwrap_or(DEFAULT_TIP).max(1);
        (tip, base.saturating_mul(2).saturating_add(tip))
    }

    /// The tip and fee cap for new transactions, over the newest block's base fee.
    async fn fees(&self) -> Step<(u128, u128)> {
        let head = self.chain.head().await?;
        Ok(self.fees_at(head.base_fee).await)
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
            self.config.chain_id
        )
    }
}

/// A fee raised by `percent`, rounded up, and by one at least: `fee + max(1, ceil(fee *
/// percent / 100))`, over 256 bits (no product overflows). Nodes take a replacement only with
/// both fees raised.
pub fn bump(fee: u128, percent: u32) -> u128 {
    let wide = U256::from(fee) * U256::from(percent) + U256::from(99u8);
    let increase = u128::try_from(wide / U256::from(100u8)).unwrap_or(u128::MAX);
    fee.saturating_add(increase.max(1))
}

#[cfg(test)]
mod tests {
    use super::bump;

    #[test]
    fn a_bump_rounds_up_and_raises_by_one_at_least() {
        assert_eq!(bump(0, 25), 1);
        assert_eq!(bump(1, 25), 2);
        assert_eq!(bump(100, 25), 125);
        assert_eq!(bump(101, 25), 127);
        assert_eq!(bump(1_000_000, 10), 1_100_000);
        assert_eq!(bump(u128::MAX, 25), u128::MAX);
    }
}
