//! The operator's chain calls to the merchant's object (the edge's admin routes): what the
//! ledger says of settlement (`ChainView`: with what is parked, what holds settlement up and
//! what only waits, `ops::stuck`), what it says each completed step left on chain
//! (`StepsView`, for reconciliation), and parked movements sent again (`ChainRetry`).

use super::MerchantObject;
use crate::adapters::evm::build::Builder;
use crate::adapters::sql::SqlStore;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::WalletMaker;
use crate::hop::{ChainView, LaunchRaise, LedgerLock, OpenPool, StepsView};
use crate::http::Answer;
use std::collections::BTreeSet;
use tokenpad_core::model::ids::{LockId, TokenAddress};
use tokenpad_core::model::intent::{Action, Intent};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::presale::Phase;
use tokenpad_core::model::time::{Millis, SECOND};
use tokenpad_core::ops::settle::{self, reconcile};
use tokenpad_core::ops::stuck::{Issue, Settling, Trouble, Unpaid};
use tokenpad_core::store::Store;
use tokenpad_core::wire::chain::ChainRetried;
use tokenpad_core::Result;

/// The latest refused movements a chain view lists.
const FAILED_SHOWN: u32 = 20;
/// Where the relayer's trouble and since when are kept across rounds (`ops::stuck::Trouble`).
const TROUBLE_KEY: &str = "relayer_trouble";
/// Where since when debts have been left with nothing open is kept (`ops::stuck::Unpaid`).
const UNPAID_KEY: &str = "debts_unpaid_since";
/// How far into the outbox a settler's report looks for what holds settlement up (the
/// settler's planner looks as far).
const LOOKAHEAD: u32 = 5_000;

impl MerchantObject {
    /// What holds settlement up and what only waits, at service time `now`, over the open
    /// intents `open`. `note`: a round just ran, so the relayer's trouble (and since when) is
    /// kept for the next.
    fn settling(
        &self,
        store: &SqlStore,
        merchant: &Merchant,
        open: &[Intent],
        now: Millis,
        note: bool,
    ) -> Result<(Vec<Issue>, Vec<Issue>)> {
        let Some(evm) = self.evm() else {
            return Ok((Vec::new(), Vec::new()));
        };
        let relayer = store.relayer()?;
        let before = store.meta::<Option<Trouble>>(TROUBLE_KEY)?.flatten();
        let began = relayer.error_at.unwrap_or(now);
        let trouble = Trouble::now(relayer.error.as_deref(), before, began);
        if note && trouble != before {
            store.put_meta(TROUBLE_KEY, &trouble)?;
        }
        let txs = store.open_chain_txs()?;
        // Debts count only with nothing open (`Unpaid`): a busy round reads no token.
        let tokens = if Unpaid::idle(open, &txs) {
            store.tokens()?
        } else {
            Vec::new()
        };
        let was = store.meta::<Option<Millis>>(UNPAID_KEY)?.flatten();
        let unpaid = Unpaid::now(&tokens, open, &txs, was, now);
        if note && unpaid != was {
            store.put_meta(UNPAID_KEY, &unpaid)?;
        }
        let unarrived = settle::hold::unarrived(store, open, self.chain.mode()?.usdc())?;
        let s = Settling {
            merchant: &merchant.id,
            relayer: merchant.address,
            chain_id: evm.chain.chain_id,
            open,
            txs: &txs,
            trouble,
            chain_time: self.chain.chain_time(),
            now,
            after: evm.stuck_after_ms,
            unarrived: &unarrived,
            tokens: &tokens,
            unpaid,
        };
        Ok(s.report())
    }

    /// What holds settlement up and what only waits, after a settler's round at `now`.
    pub(super) fn issues(&self, now: Millis) -> Result<(Vec<Issue>, Vec<Issue>)> {
        let merchant = self.merchant()?;
        let store = self.store()?;
        let open = store.open_intents(LOOKAHEAD)?;
        self.settling(&store, &merchant, &open, now, true)
    }

    /// What the ledger says, for the edge's chain and reconciliation routes.
    #[inline(never)]
    pub(super) fn chain_view(&self) -> Result<Answer> {
        let merchant = self.merchant()?;
        let store = self.store()?;
        let now = self.now()?;
        let ctx = self.ctx(now, merchant.clone())?;
        let open = store.open_intents(u32::MAX)?;
        let (stuck, waiting) = self.settling(&store, &merchant, &open, now, false)?;
        let view = ChainView {
            relayer_address: merchant.address,
            relayer: store.relayer()?,
            open_movements: u64::try_from(open.len()).unwrap_or(u64::MAX),
            open_txs: store.open_chain_txs()?,
            failed: store.failed_intents(FAILED_SHOWN)?,
            expected: reconcile::expected(&store, &ctx)?,
            pools: reconcile::pool_states(&store)?,
            parked: open.into_iter().filter(|i| i.parked.is_some()).collect(),
            stuck,
            waiting,
            stuck_after_ms: self.evm().map(|e| e.stuck_after_ms),
        };
        Answer::json(200, &view)
    }

    /// What the ledger says each completed step left on chain: the locks in the lock
    /// contract (still locked, or released), the open pools and the launched presales' raises.
    /// What an open movement is still changing is left out (it is not done yet).
    #[inline(never)]
    pub(super) fn steps_view(&self) -> Result<Answer> {
        let merchant = self.merchant()?;
        let store = self.store()?;
        let mut view = StepsView::default();
        let Some(evm) = self.evm() else {
            return Answer::json(200, &view);
        };
        let open = store.open_intents(u32::MAX)?;
        let busy_locks: BTreeSet<&LockId> = open.iter().filter_map(|i| i.action.lock()).collect();
        let opening: BTreeSet<TokenAddress> = open
            .iter()
            .filter(|i| matches!(i.action, Action::OpenPool { .. }))
            .map(|i| i.token)
            .collect();
        let builder = Builder {
            evm,
            merchant: &merchant,
            wallets: WalletMaker::from_env(&self.env),
            store: &store,
        };
        for t in store.tokens()? {
            let Some(p) = store.pool(&t.address)? else {
                continue;
            };
            if let (Some(position_id), false) = (p.position.id, opening.contains(&t.address)) {
                view.pools.push(OpenPool {
                    token: t.address,
                    symbol: t.symbol,
                    pool: p.address,
                    position_id,
                });
            }
        }
        for p in store.presales()? {
            let pool = store
                .pool(&p.token_address)?
                .filter(|pool| pool.position.id.is_some() && !opening.contains(&p.token_address));
            let swap_tx = p.completion.transactions.get("swapTx");
            if let (Phase::Launched, Some(pool), Some(swap_tx)) = (p.phase, pool, swap_tx) {
                view.launches.push(LaunchRaise {
                    presale: p.id.clone(),
                    token: p.token_address,
                    pool: pool.address,
                    raise: p.purchased.raw(),
                    swap_tx: swap_tx.clone(),
                });
            }
            if !p.distributed {
                continue;
            }
            for (i, part) in store.participants(&p.id)?.iter().enumerate() {
                let id = p.id.lock(i);
                if busy_locks.contains(&id) {
                    continue;
                }
                let locked = match store.lock(&id)? {
                    Some(l) if l.vault => Some((l.amount, l.unlock_at / SECOND)),
                    // Locked by the ledger alone (no lock contract when it was made).
                    Some(_) => continue,
                    None => None,
                };
                view.locks.push(LedgerLock {
                    key: builder.lock_key(&id),
                    lock: id,
                    token: p.token_address,
                    beneficiary: part.address,
                    locked,
                });
            }
        }
        Answer::json(200, &view)
    }

    /// Every parked movement goes back to the queue, in one transaction, and the settler runs
    /// soon (`POST /admin/merchants/:merchantId/chain/retry`).
    pub(super) async fn chain_retry(&self) -> Result<Answer> {
        let merchant = self.merchant()?;
        let now = self.now()?;
        let mut store = self.store()?;
        let retried = transaction(&self.state.storage(), &self.watch, move || {
            settle::retry_parked(&mut store)
        })?;
        self.settle_soon(now);
        self.after_commit(now).await;
        Answer::json(
            200,
            &ChainRetried {
                success: true,
                merchant_id: merchant.id,
                retried,
            },
        )
    }
}
