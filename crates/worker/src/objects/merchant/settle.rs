//! Settlement from the merchant's object (an EVM chain; nothing on the embedded chain).
//!
//! The object owns the relayer: only its alarm runs the settler (`adapters::evm::settler`),
//! one round at a time, so nonces never drift. When the next round runs is kept in the
//! object's storage (`settle_at`, service time) and is part of the alarm's next wake:
//! `CHAIN_BATCH_WINDOW_MS` after a request that queued movements (so the movements of a busy
//! moment share transactions: a burst of 500 rewards is a handful of batches, not 500
//! transactions), every `CHAIN_POLL_MS` while anything is in flight, every `CHAIN_SCAN_MS`
//! otherwise (to notice deposits).

use super::MerchantObject;
use crate::adapters::evm::config::{ChainConfig, Evm};
use crate::adapters::evm::settler::Settler;
use crate::adapters::wallet::WalletMaker;
use crate::hop::{self, RegistryCall};
use std::cell::{Cell, RefCell};
use tokenpad_core::model::chain::ChainMode;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::store::Store;
use tokenpad_core::wire::health::{ChainReport, NodeStatus, RelayerStatus};
use tokenpad_core::Result;

const SETTLE_AT_KEY: &str = "settle_at";
/// A settler's report reaches `/health` at least this often while nothing changes.
const REPORT_EVERY: Millis = 60_000;

/// The chain this object settles on, and its settler's state in this instance.
pub(super) struct Chain {
    /// The configuration (a bad one is kept, as the error it is, and answered to every call
    /// that needs the chain).
    config: Result<ChainConfig>,
    /// A settlement round is running (the alarm's; never two at once).
    settling: Cell<bool>,
    /// The settler's last report to the registry, for `/health`.
    report: RefCell<Option<ChainReport>>,
    /// When deposits were last looked for (service time); a restart looks at once.
    scanned_at: Cell<Millis>,
    /// The chain's clock as the last round read it (UNIX seconds), for the operator's view.
    chain_time: Cell<Option<u64>>,
    /// When the next round runs as stored (`settle_at`), once this instance read or wrote it.
    /// Only this object writes it, so the copy stays true, and the reads every write on a
    /// chain made of it (when the alarm is due, and whether a round is soon enough) need no
    /// SQL statement.
    settle_at: Cell<Option<Option<Millis>>>,
}

impl Chain {
    pub(super) fn new(config: Result<ChainConfig>) -> Chain {
        Chain {
            config,
            settling: Cell::new(false),
            report: RefCell::new(None),
            scanned_at: Cell::new(0),
            chain_time: Cell::new(None),
            settle_at: Cell::new(None),
        }
    }

    /// The chain's clock as the last round read it (UNIX seconds).
    pub(super) fn chain_time(&self) -> Option<u64> {
        self.chain_time.get()
    }

    /// The chain operations run on.
    pub(super) fn mode(&self) -> Result<ChainMode> {
        Ok(self.config.as_ref().map_err(Clone::clone)?.mode())
    }

    fn evm(&self) -> Option<&Evm> {
        self.config.as_ref().ok().and_then(|c| c.evm())
    }
}

impl MerchantObject {
    pub(super) fn evm(&self) -> Option<&Evm> {
        self.chain.evm()
    }

    /// When the settler should run next (None on the embedded chain). A merchant on an EVM
    /// chain that never ran one runs one now.
    pub(super) fn settle_at(&self, now: Millis) -> Result<Option<Millis>> {
        if self.evm().is_none() || self.hot_merchant(&self.store()?)?.is_none() {
            return Ok(None);
        }
        Ok(Some(self.stored_settle_at()?.unwrap_or(now)))
    }

    /// The next round's time as stored: the copy in memory, or read once.
    fn stored_settle_at(&self) -> Result<Option<Millis>> {
        if let Some(known) = self.chain.settle_at.get() {
            return Ok(known);
        }
        let read = self.store()?.meta::<Millis>(SETTLE_AT_KEY)?;
        self.chain.settle_at.set(Some(read));
        Ok(read)
    }

    fn set_settle_at(&self, at: Millis) -> Result<()> {
        // Unknown until the write is known to have gone through.
        self.chain.settle_at.set(None);
        self.store()?.put_meta(SETTLE_AT_KEY, &at)?;
        self.chain.settle_at.set(Some(Some(at)));
        Ok(())
    }

    /// After a commit: movements just queued go out within the batch window.
    pub(super) fn settle_soon(&self, now: Millis) {
        let Some(evm) = self.evm() else {
            return;
        };
        let soon = || -> Result<()> {
            let by = now.saturating_add(evm.batch_window_ms);
            let later = self.stored_settle_at()?.is_none_or(|at| at > by);
            if later && !self.store()?.open_intents(1)?.is_empty() {
                self.set_settle_at(by)?;
            }
            Ok(())
        };
        if let Err(e) = soon() {
            worker::console_error!("settlement not scheduled (the next alarm runs it): {e}");
            self.schedule.moved();
        }
    }

    /// The alarm's settlement round, when one is due. Its failures are logged and retried;
    /// they never fail the alarm.
    pub(super) async fn settle(&self, now: Millis, merchant: Merchant) {
        let Some(evm) = self.evm() else {
            return;
        };
        match self.settle_at(now) {
            Ok(Some(at)) if at <= now => {}
            Ok(_) => return,
            Err(e) => {
                worker::console_error!("settlement: {e}");
                return;
            }
        }
        if self.chain.settling.replace(true) {
            return;
        }
        let merchant_id = merchant.id.clone();
        let ctx = match self.ctx(now, merchant) {
            Ok(ctx) => ctx,
            Err(e) => {
                self.chain.settling.set(false);
                worker::console_error!("settlement: {e}");
                return;
            }
        };
        let settler = Settler {
            storage: self.state.storage(),
            watch: self.watch.clone(),
            evm,
            wallets: WalletMaker::from_env(&self.env),
            ctx,
            scan: now.saturating_sub(self.chain.scanned_at.get()) >= evm.scan_ms,
            base_url: self.base_url(),
        };
        let next = match settler.run().await {
            Ok(round) => {
                if round.scanned {
                    self.chain.scanned_at.set(now);
                }
                if round.chain_time.is_some() {
                    self.chain.chain_time.set(round.chain_time);
                }
                self.report_chain(&merchant_id, round.node, round.relayer, now)
                    .await;
                round.next_at
            }
            Err(e) => {
                worker::console_error!("settlement round failed (retried): {e}");
                now.saturating_add(evm.poll_ms.max(1_000))
            }
        };
        self.chain.settling.set(false);
        if let Err(e) = self.set_settle_at(next) {
            worker::console_error!("settlement: {e}");
        }
        self.schedule.moved();
    }

    /// Tells the registry how the round went, for `/health`: when it says something the last
    /// report did not, or the last is older than `REPORT_EVERY` (so `/health` knows the
    /// settler still runs). Wall-clock time, not the service's. It says whether settlement is
    /// stuck (`ops::stuck`, at service time `now`). A failure is logged: the next round
    /// reports again.
    async fn report_chain(
        &self,
        merchant: &MerchantId,
        node: NodeStatus,
        relayer: RelayerStatus,
        now: Millis,
    ) {
        let at = crate::clock::now_ms();
        let before = self.chain.report.borrow().clone();
        let stuck = match self.issues(now) {
            Ok((stuck, _)) => stuck,
            Err(e) => {
                worker::console_error!("chain report: what holds settlement up: {e}");
                Vec::new()
            }
        };
        let report = ChainReport {
            node,
            relayer,
            checked_at: at,
            last_contact_at: (node == NodeStatus::Reachable).then_some(at),
            stuck,
        }
        .after(before.as_ref());
        let due = before
            .as_ref()
            .is_none_or(|b| report.differs(b) || at.saturating_sub(b.checked_at) >= REPORT_EVERY);
        if !due {
            return;
        }
        let call = RegistryCall::ChainReport {
            merchant: merchant.clone(),
            report: report.clone(),
        };
        match hop::registry(&self.env, &call).await {
            Ok(_) => *self.chain.report.borrow_mut() = Some(report),
            Err(e) => worker::console_error!("chain report for /health: {}", e.message),
        }
    }
}
