//! An in-memory `Store` for the core's tests. Same contract as the SQLite adapter.

use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::Units;
use crate::model::balance::{Balance, Lock};
use crate::model::books::Books;
use crate::model::chain::ChainState;
use crate::model::deployment::Deployment;
use crate::model::history::TxRecord;
use crate::model::holder::Holder;
use crate::model::ids::{DeploymentId, JobId, LockId, PresaleId, TokenAddress, UserId};
use crate::model::intent::{Intent, IntentStatus};
use crate::model::job::Job;
use crate::model::merchant::Merchant;
use crate::model::pool::Pool;
use crate::model::presale::{Participant, Presale};
use crate::model::schedule::DueFailure;
use crate::model::session::{Session, SessionId};
use crate::model::settlement::{ChainTx, Observation, Relayer};
use crate::model::time::Millis;
use crate::model::token::{HolderRow, Token};
use crate::store::idempotency::Kept;
use crate::store::Store;
use imbl::{OrdMap, Vector};
use maps::retain;
use std::collections::BTreeMap;

mod events;
mod keys;
pub mod log;
mod maps;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemStore {
    pub merchant: Option<Merchant>,
    pub chain: ChainState,
    pub tokens: Vec<Token>,
    pub holders: Vec<Holder>,
    pub balances: BTreeMap<(TokenAddress, Address), Balance>,
    pub locks: Vec<Lock>,
    pub history: Vector<TxRecord>,
    pub jobs: BTreeMap<JobId, Job>,
    pub deployments: BTreeMap<DeploymentId, Deployment>,
    pub pools: BTreeMap<TokenAddress, Pool>,
    /// The outbox, in id order (id = position + 1).
    pub intents: Vector<Intent>,
    /// Each authorizer's next EIP-3009 nonce.
    pub auth_nonces: BTreeMap<Address, u64>,
    pub chain_txs: OrdMap<u64, ChainTx>,
    pub relayer: Relayer,
    /// Followed Transfer logs, by (block, log index).
    pub observations: OrdMap<(u64, u64), Observation>,
    /// In creation order.
    pub presales: Vec<Presale>,
    /// (presale id, participant), in the order of first purchase.
    pub participants: Vec<(PresaleId, Participant)>,
    pub schedule: BTreeMap<String, Millis>,
    /// When each schedule key was first scheduled (a counter), to break ties in `due`.
    pub schedule_order: BTreeMap<String, u64>,
    /// Failures of scheduled work, by stored key.
    pub due_failures: BTreeMap<String, DueFailure>,
    /// The event log, webhooks and deliveries (`log.rs`).
    pub log: self::log::Log,
    pub sessions: BTreeMap<SessionId, Session>,
    /// What the transaction under way moved, checked by [`MemStore::commit`].
    pub books: Books,
    /// Idempotency records, by stored key.
    pub kept_answers: OrdMap<String, Kept>,
    /// API key records, oldest first.
    pub api_keys: Vec<crate::model::key::ApiKey>,
}

impl MemStore {
    /// Ends the transaction under way as the SQLite adapter's commit does: every token it
    /// touched still conserves its supply ([`Books::check`]); an error is what would roll it
    /// back there. The in-memory store has no rollback: callers stop at the error.
    pub fn commit(&mut self) -> Result<()> {
        self.books.check()
    }

    /// Σ of every balance of a token, recomputed from scratch (the invariant tests use it).
    pub fn sum_balances(&self, token: &TokenAddress) -> Units {
        self.balances
            .iter()
            .filter(|((t, _), _)| t == token)
            .map(|(_, b)| b.active.saturating_add(b.locked))
            .sum()
    }
}

fn nonzero(b: &Balance) -> bool {
    !b.active.is_zero() || !b.locked.is_zero()
}

impl Store for MemStore {
    fn merchant(&self) -> Result<Option<Merchant>> {
        Ok(self.merchant.clone())
    }
    fn put_merchant(&mut self, merchant: &Merchant) -> Result<()> {
        self.merchant = Some(merchant.clone());
        Ok(())
    }
    fn chain_state(&self) -> Result<ChainState> {
        Ok(self.chain.clone())
    }
    fn put_chain_state(&mut self, state: &ChainState) -> Result<()> {
        self.chain = state.clone();
        Ok(())
    }
    fn token(&self, address: &TokenAddress) -> Result<Option<Token>> {
        Ok(self.tokens.iter().find(|t| &t.address == address).cloned())
    }
    fn put_token(&mut self, token: &Token) -> Result<()> {
        match self.tokens.iter_mut().find(|t| t.address == token.address) {
            Some(t) => {
                self.books.token_written(Some(t), token);
                *t = token.clone();
            }
            None => {
                self.books.token_written(None, token);
                self.tokens.push(token.clone());
            }
        }
        Ok(())
    }
    fn tokens(&self) -> Result<Vec<Token>> {
        Ok(self.tokens.clone())
    }
    fn holder_by_user(&self, user_id: &UserId) -> Result<Option<Holder>> {
        Ok(self.holders.iter().find(|h| &h.user_id == user_id).cloned())
    }
    fn holder_by_address(&self, address: &Address) -> Result<Option<Holder>> {
        Ok(self.holders.iter().find(|h| &h.address == address).cloned())
    }
    fn insert_holder(&mut self, holder: &Holder) -> Result<()> {
        self.holders.push(holder.clone());
        Ok(())
    }
    fn balance(&self, token: &TokenAddress, owner: &Address) -> Result<Balance> {
        Ok(self
            .balances
            .get(&(*token, *owner))
            .copied()
            .unwrap_or_default())
    }
    fn put_balance(
        &mut self,
        token: &TokenAddress,
        owner: &Address,
        balance: &Balance,
    ) -> Result<()> {
        let before = self.balances.insert((*token, *owner), *balance);
        self.books
            .balance_written(token, &before.unwrap_or_default(), balance)
    }
    fn holdings(&self, owner: &Address) -> Result<Vec<(Token, Balance)>> {
        Ok(self
            .tokens
            .iter()
            .filter_map(|t| {
                let b = self.balances.get(&(t.address, *owner))?;
                nonzero(b).then(|| (t.clone(), *b))
            })
            .collect())
    }
    fn top_holders(&self, token: &TokenAddress, limit: u32) -> Result<(Vec<HolderRow>, u64)> {
        let mut rows: Vec<HolderRow> = self
            .balances
            .iter()
            .filter(|((t, _), b)| t == token && nonzero(b))
            .map(|((_, owner), b)| HolderRow {
                owner: *owner,
                balance: b.active.saturating_add(b.locked),
                user_id: self
                    .holders
                    .iter()
                    .find(|h| &h.address == owner)
                    .map(|h| h.user_id.clone()),
            })
            .collect();
        rows.sort_by(|a, b| b.balance.cmp(&a.balance).then(a.owner.cmp(&b.owner)));
        let count = rows.len() as u64;
        rows.truncate(limit as usize);
        Ok((rows, count))
    }
    fn locks_of(&self, owner: &Address) -> Result<Vec<Lock>> {
        Ok(self
            .locks
            .iter()
            .filter(|l| &l.owner == owner)
            .cloned()
            .collect())
    }
    fn lock(&self, id: &LockId) -> Result<Option<Lock>> {
        Ok(self.locks.iter().find(|l| &l.id == id).cloned())
    }
    fn put_lock(&mut self, lock: &Lock) -> Result<()> {
        match self.locks.iter_mut().find(|l| l.id == lock.id) {
            Some(l) => *l = lock.clone(),
            None => self.locks.push(lock.clone()),
        }
        Ok(())
    }
    fn remove_lock(&mut self, id: &LockId) -> Result<()> {
        self.locks.retain(|l| &l.id != id);
        Ok(())
    }
    fn presale(&self, id: &PresaleId) -> Result<Option<Presale>> {
        Ok(self.presales.iter().find(|p| &p.id == id).cloned())
    }
    fn put_presale(&mut self, presale: &Presale) -> Result<()> {
        match self.presales.iter_mut().find(|p| p.id == presale.id) {
            Some(p) => *p = presale.clone(),
            None => self.presales.push(presale.clone()),
        }
        Ok(())
    }
    fn presales(&self) -> Result<Vec<Presale>> {
        Ok(self.presales.iter().rev().cloned().collect())
    }
    fn participants(&self, presale: &PresaleId) -> Result<Vec<Participant>> {
        Ok(self
            .participants
            .iter()
            .filter(|(id, _)| id == presale)
            .map(|(_, p)| p.clone())
            .collect())
    }
    fn first_participants(&self, presale: &PresaleId, limit: u32) -> Result<Vec<Participant>> {
        let mut all = self.participants(presale)?;
        all.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(all)
    }
    fn participant(&self, presale: &PresaleId, user_id: &UserId) -> Result<Option<Participant>> {
        Ok(self
            .participants
            .iter()
            .find(|(id, p)| id == presale && &p.user_id == user_id)
            .map(|(_, p)| p.clone()))
    }
    fn put_participant(&mut self, presale: &PresaleId, participant: &Participant) -> Result<()> {
        match self
            .participants
            .iter_mut()
            .find(|(id, p)| id == presale && p.user_id == participant.user_id)
        {
            Some((_, p)) => *p = participant.clone(),
            None => self
                .participants
                .push((presale.clone(), participant.clone())),
        }
        Ok(())
    }
    fn positions(&self, user_id: &UserId) -> Result<Vec<(Presale, Participant)>> {
        Ok(self
            .participants
            .iter()
            .filter(|(_, p)| &p.user_id == user_id)
            .filter_map(|(id, p)| {
                let presale = self.presales.iter().find(|s| &s.id == id)?;
                Some((presale.clone(), p.clone()))
            })
            .collect())
    }
    fn append_history(&mut self, record: &TxRecord) -> Result<u64> {
        self.history.push_back(record.clone());
        Ok(self.history.len() as u64)
    }
    fn history_at(&self, seq: u64) -> Result<Option<TxRecord>> {
        Ok(self.history.get((seq as usize).wrapping_sub(1)).cloned())
    }
    fn put_history_at(&mut self, seq: u64, record: &TxRecord) -> Result<()> {
        if let Some(r) = self.history.get_mut((seq as usize).wrapping_sub(1)) {
            *r = record.clone();
        }
        Ok(())
    }
    fn take_auth_nonce(&mut self, authorizer: &Address) -> Result<u64> {
        let next = self.auth_nonces.entry(*authorizer).or_insert(0);
        let taken = *next;
        *next = taken
            .checked_add(1)
            .ok_or_else(|| crate::error::Error::internal("authorization nonce overflow"))?;
        Ok(taken)
    }
    fn enqueue_intent(&mut self, intent: &Intent) -> Result<u64> {
        let id = self.intents.len() as u64 + 1;
        let mut i = intent.clone();
        i.id = id;
        self.intents.push_back(i);
        Ok(id)
    }
    fn intent(&self, id: u64) -> Result<Option<Intent>> {
        Ok(self.intents.get((id as usize).wrapping_sub(1)).cloned())
    }
    fn put_intent(&mut self, intent: &Intent) -> Result<()> {
        if let Some(i) = self.intents.get_mut((intent.id as usize).wrapping_sub(1)) {
            *i = intent.clone();
        }
        Ok(())
    }
    fn failed_intents(&self, limit: u32) -> Result<Vec<Intent>> {
        Ok(self
            .intents
            .iter()
            .rev()
            .filter(|i| i.status == IntentStatus::Failed)
            .take(limit as usize)
            .cloned()
            .collect())
    }
    fn chain_tx(&self, nonce: u64) -> Result<Option<ChainTx>> {
        Ok(self.chain_txs.get(&nonce).cloned())
    }
    fn put_chain_tx(&mut self, tx: &ChainTx) -> Result<()> {
        self.chain_txs.insert(tx.nonce, tx.clone());
        Ok(())
    }
    fn open_chain_txs(&self) -> Result<Vec<ChainTx>> {
        Ok(self
            .chain_txs
            .values()
            .filter(|t| t.is_open())
            .cloned()
            .collect())
    }
    fn unfinal_chain_txs(&self) -> Result<Vec<ChainTx>> {
        Ok(self
            .chain_txs
            .values()
            .filter(|t| t.is_unfinal())
            .cloned()
            .collect())
    }
    fn is_own_tx(&self, hash: &str) -> Result<bool> {
        Ok(self
            .chain_txs
            .values()
            .any(|t| t.versions.iter().any(|v| v.hash == hash)))
    }
    fn recent_chain_txs(&self, limit: u32) -> Result<Vec<ChainTx>> {
        let n = usize::try_from(limit).unwrap_or(usize::MAX);
        Ok(self.chain_txs.values().rev().take(n).cloned().collect())
    }
    fn put_observation(&mut self, o: &Observation) -> Result<()> {
        self.observations.insert((o.block, o.log_index), o.clone());
        Ok(())
    }
    fn observations_after(&self, block: u64) -> Result<Vec<Observation>> {
        let from = block.saturating_add(1);
        Ok(self
            .observations
            .range((from, 0)..)
            .map(|(_, o)| o.clone())
            .collect())
    }
    fn forget_observations(&mut self, after: u64, before: u64) -> Result<()> {
        retain(&mut self.observations, |(b, _), _| {
            *b <= after && *b >= before
        });
        Ok(())
    }
    fn relayer(&self) -> Result<Relayer> {
        Ok(self.relayer.clone())
    }
    fn put_relayer(&mut self, relayer: &Relayer) -> Result<()> {
        self.relayer = relayer.clone();
        Ok(())
    }
    fn open_intents(&self, limit: u32) -> Result<Vec<Intent>> {
        Ok(self
            .intents
            .iter()
            .filter(|i| matches!(i.status, IntentStatus::Queued | IntentStatus::Submitted))
            .take(limit as usize)
            .cloned()
            .collect())
    }
    fn history(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<(u64, TxRecord)>> {
        Ok(self
            .history
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u64 + 1, r))
            .rev()
            .filter(|(seq, r)| {
                &r.user_id == user_id
                    && token.is_none_or(|t| &r.token == t)
                    && before.is_none_or(|b| *seq < b)
            })
            .take(limit as usize)
            .map(|(seq, r)| (seq, r.clone()))
            .collect())
    }
    fn pool(&self, token: &TokenAddress) -> Result<Option<Pool>> {
        Ok(self.pools.get(token).cloned())
    }
    fn put_pool(&mut self, pool: &Pool) -> Result<()> {
        self.pools.insert(pool.token, pool.clone());
        Ok(())
    }
    fn remove_pool(&mut self, token: &TokenAddress) -> Result<()> {
        self.pools.remove(token);
        Ok(())
    }
    fn job(&self, id: &JobId) -> Result<Option<Job>> {
        Ok(self.jobs.get(id).cloned())
    }
    fn put_job(&mut self, job: &Job) -> Result<()> {
        self.jobs.insert(job.id.clone(), job.clone());
        Ok(())
    }
    fn deployment(&self, id: &DeploymentId) -> Result<Option<Deployment>> {
        Ok(self.deployments.get(id).cloned())
    }
    fn put_deployment(&mut self, deployment: &Deployment) -> Result<()> {
        self.deployments
            .insert(deployment.id.clone(), deployment.clone());
        Ok(())
    }
    fn schedule_raw(&mut self, stored: &str, at: Millis) -> Result<()> {
        let key = stored.to_string();
        if !self.schedule.contains_key(&key) {
            let next = self.schedule_order.values().max().map_or(0, |m| m + 1);
            self.schedule_order.insert(key.clone(), next);
        }
        self.schedule.insert(key, at);
        Ok(())
    }
    fn unschedule_raw(&mut self, stored: &str) -> Result<()> {
        self.schedule.remove(stored);
        self.schedule_order.remove(stored);
        Ok(())
    }
    fn due(&self, now: Millis) -> Result<Vec<(String, Millis)>> {
        let mut due: Vec<(String, Millis)> = self
            .schedule
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(k, at)| (k.clone(), *at))
            .collect();
        due.sort_by_key(|(k, at)| (*at, self.schedule_order.get(k).copied().unwrap_or(0)));
        Ok(due)
    }
    fn next_due(&self) -> Result<Option<Millis>> {
        Ok(self.schedule.values().min().copied())
    }
    fn due_failure(&self, stored: &str) -> Result<Option<DueFailure>> {
        Ok(self.due_failures.get(stored).cloned())
    }
    fn put_due_failure(&mut self, failure: &DueFailure) -> Result<()> {
        self.due_failures
            .insert(failure.key.clone(), failure.clone());
        Ok(())
    }
    fn clear_due_failure(&mut self, stored: &str) -> Result<()> {
        self.due_failures.remove(stored);
        Ok(())
    }
    fn parked(&self) -> Result<Vec<DueFailure>> {
        let mut parked: Vec<DueFailure> = self
            .due_failures
            .values()
            .filter(|f| f.parked_at.is_some())
            .cloned()
            .collect();
        parked.sort_by(|a, b| b.parked_at.cmp(&a.parked_at).then(a.key.cmp(&b.key)));
        Ok(parked)
    }
}
