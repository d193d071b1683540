//! Test-only fault injection (`POST /admin/chain/faults`, `POST /admin/faults`; local runs
//! and tests, behind ALLOW_TIME_TRAVEL at the edge): the ways a merchant's object can fail,
//! made to happen on purpose, so the tests can show it recovers.

use super::MerchantObject;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::random;
use crate::http::Answer;
use std::cell::Cell;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Units;
use tokenpad_core::model::ids::JobId;
use tokenpad_core::model::intent::{OwedSince, Reserve, Side};
use tokenpad_core::model::key::KeyKind;
use tokenpad_core::ops;
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::store::{DueKey, Store};
use tokenpad_core::wire::admin::{ChainFaultsResult, FaultKind, FaultsResult};
use tokenpad_core::{Error, Result};

/// The faults armed in this instance, and a local run's statement count (ALLOW_TIME_TRAVEL).
#[derive(Default)]
pub(super) struct Faults {
    /// The next this many alarm writes fail.
    alarm_writes: Cell<u32>,
    /// The next this many API answers are lost.
    lost_answers: Cell<u32>,
    /// Each answer names the SQL statements its call ran (`x-sql-statements`, `rpc`).
    pub(super) count_statements: bool,
}

impl Faults {
    pub(super) fn new(count_statements: bool) -> Faults {
        Faults {
            count_statements,
            ..Faults::default()
        }
    }

    /// Whether this alarm write is to fail (and one fewer will).
    pub(super) fn alarm_write_fails(&self) -> bool {
        let Some(left) = self.alarm_writes.get().checked_sub(1) else {
            return false;
        };
        self.alarm_writes.set(left);
        true
    }

    /// Whether this API call's answer is to be lost, and when: `Some(false)` before the
    /// operation runs, `Some(true)` after it committed.
    pub(super) fn lose_answer(&self) -> Option<bool> {
        let left = self.lost_answers.get().checked_sub(1)?;
        self.lost_answers.set(left);
        Some(left % 2 == 0)
    }
}

impl MerchantObject {
    /// The next `count` fallible chain submissions fail.
    #[inline(never)]
    pub(super) fn chain_faults(&self, count: u32) -> Result<Answer> {
        let mut store = self.store()?;
        self.merchant()?;
        transaction(&self.state.storage(), &self.watch, move || {
            ops::chain::inject_faults(&mut store, count)
        })?;
        Answer::json(
            200,
            &ChainFaultsResult {
                success: true,
                fail_next: u64::from(count),
            },
        )
    }

    pub(super) async fn fault(&self, kind: FaultKind, count: u32) -> Result<Answer> {
        self.merchant()?;
        let mut id = None;
        match kind {
            FaultKind::PoisonDue => id = Some(self.poison().await?),
            FaultKind::AlarmWrites => self.faults.alarm_writes.set(count),
            FaultKind::LostAnswers => self.faults.lost_answers.set(count),
            FaultKind::HaltAfterSigning => {
                let mut store = self.store()?;
                transaction(&self.state.storage(), &self.watch, move || {
                    let mut state = store.chain_state()?;
                    state.halt_after_signing = count;
                    store.put_chain_state(&state)
                })?;
            }
            FaultKind::MerchantRollback => self.merchant_rollback()?,
            FaultKind::LedgerRollback => self.ledger_rollback()?,
            FaultKind::UnbalancedBooks => self.unbalanced_books()?,
            FaultKind::OrphanDebt => self.orphan_debt()?,
            // The registry's own fault: the edge sends it there.
            FaultKind::RegistryWrites => {}
        }
        Answer::json(
            200,
            &FaultsResult {
                success: true,
                kind,
                id,
            },
        )
    }

    /// A transaction that writes the merchant in private mode, a key record that takes
    /// another public key and every key revoked, then fails.
    fn merchant_rollback(&self) -> Result<()> {
        let mut store = self.store()?;
        let mut merchant = self.merchant()?;
        merchant.private_mode = !merchant.private_mode;
        let other = format!("pk_{}_{}", merchant.id.as_str(), "0".repeat(32));
        let now = self.now()?;
        let mut keys = store.api_keys()?;
        for k in &mut keys {
            k.revoked_at = Some(now);
        }
        keys.push(tokenpad_core::ops::keys::record(
            KeyKind::Public,
            "rolled back",
            &other,
            now,
        ));
        let failed = transaction(&self.state.storage(), &self.watch, move || {
            store.put_merchant(&merchant)?;
            for k in &keys {
                store.put_api_key(k)?;
            }
            Err::<(), _>(Error::internal(
                "injected fault: rolled back after writing the merchant",
            ))
        });
        match failed {
            Err(_) => Ok(()),
            Ok(()) => Err(Error::internal(
                "the merchant_rollback transaction committed",
            )),
        }
    }

    /// A transaction that credits one whole token to each of the 100 largest holders of
    /// every token (and counts them held, so the token stays whole), then fails.
    fn ledger_rollback(&self) -> Result<()> {
        let mut store = self.store()?;
        let failed = transaction(&self.state.storage(), &self.watch, move || {
            credit_top_holders(&mut store, true)?;
            Err::<(), _>(Error::internal(
                "injected fault: rolled back after writing balances",
            ))
        });
        match failed {
            Err(_) => Ok(()),
            Ok(()) => Err(Error::internal("the ledger_rollback transaction committed")),
        }
    }

    /// A transaction that credits one whole token to each of the 100 largest holders of every
    /// token without counting them held, and returns Ok: the books must refuse it at the commit.
    fn unbalanced_books(&self) -> Result<()> {
        let mut store = self.store()?;
        let outcome = transaction(&self.state.storage(), &self.watch, move || {
            credit_top_holders(&mut store, false)
        });
        match outcome {
            Err(e) if e.message.contains("conservation broken") => Ok(()),
            Err(e) => Err(Error::internal(format!(
                "the unbalanced_books transaction failed for another reason: {}",
                e.message
            ))),
            Ok(()) => Err(Error::internal(
                "the unbalanced_books transaction committed",
            )),
        }
    }

    /// One base unit of the merchant's USDC owed by an address no one uses to the supply,
    /// with nothing to pay it (see `FaultKind::OrphanDebt`).
    fn orphan_debt(&self) -> Result<()> {
        let mut store = self.store()?;
        let usdc = self.chain.mode()?.usdc();
        transaction(&self.state.storage(), &self.watch, move || {
            let mut t = ops::token::find(&store, &usdc)?;
            ops::undo::owe(
                &mut t,
                Side::Row(Address([0xde; 20])),
                Side::Reserve(Reserve::Minted),
                Units::new(1),
                OwedSince::Intent(0),
                Vec::new(),
            );
            store.put_token(&t)
        })
    }

    /// A job due now whose stored record cannot be read: every run of it fails.
    async fn poison(&self) -> Result<String> {
        let id = format!("poison-{}", hex::encode(random::<8>()?));
        let now = self.now()?;
        let mut store = self.store()?;
        let job = JobId::new_unchecked(id.clone());
        transaction(&self.state.storage(), &self.watch, move || {
            store.exec(
                "INSERT INTO jobs (id, data) VALUES (?, ?)",
                vec![job.as_str().into(), "{\"poisoned\":".into()],
            )?;
            store.schedule(&DueKey::Job(job), now)
        })?;
        self.schedule.moved();
        if let Err(e) = self.sync_alarm().await {
            worker::console_error!("alarm not set: {e}");
        }
        Ok(id)
    }
}

/// Credits one whole token to each of the 100 largest holders of every token; with `counted`,
/// also counts them held, so each token stays whole (without, its books do not balance).
fn credit_top_holders(store: &mut dyn Store, counted: bool) -> Result<()> {
    for mut token in store.tokens()? {
        let one = 10u128
            .checked_pow(u32::from(token.decimals))
            .map(Units::new)
            .ok_or_else(|| Error::internal("decimals out of range"))?;
        let (top, _) = store.top_holders(&token.address, 100)?;
        for row in top {
            let mut balance = store.balance(&token.address, &row.owner)?;
            balance.active = balance.active.plus(one)?;
            store.put_balance(&token.address, &row.owner, &balance)?;
            if counted {
                token.held = token.held.plus(one)?;
            }
        }
        if counted {
            store.put_token(&token)?;
        }
    }
    Ok(())
}
