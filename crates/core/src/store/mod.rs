//! The storage port. The core reads and writes a merchant's state only through this trait:
//! the worker implements it on the Durable Object's SQLite (inside one transaction per
//! request, so an operation that fails half-way leaves nothing behind), and `MemStore`
//! implements it in memory for the core's own tests.
//!
//! Operations still read and check everything before their first write, so even a store
//! without transactions never sees a half-applied operation caused by a business rule.
//! The port knows records only (`crate::model`): it sits on the floor just above them.

pub mod accounts;
pub mod events;
pub mod idempotency;
pub mod keys;
#[cfg(feature = "mem")]
pub mod mem;

pub use events::EventStore;
pub mod session;

use crate::error::Result;
use crate::model::address::Address;
use crate::model::balance::{Balance, Lock};
use crate::model::chain::ChainState;
use crate::model::deployment::Deployment;
use crate::model::history::TxRecord;
use crate::model::holder::Holder;
use crate::model::ids::{DeploymentId, JobId, LockId, PresaleId, TokenAddress, UserId};
use crate::model::intent::Intent;
use crate::model::job::Job;
use crate::model::merchant::Merchant;
use crate::model::pool::Pool;
use crate::model::presale::{Participant, Presale};
use crate::model::schedule::DueFailure;
use crate::model::settlement::{ChainTx, Observation, Relayer};
use crate::model::time::Millis;
use crate::model::token::{HolderRow, Token};

/// A key on the merchant's schedule of due work: what is due, by whom it is run.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DueKey {
    /// A token-creation job whose deployment is mined.
    Job(JobId),
    /// A memecoin or airdrop deployment whose transaction is mined.
    Deployment(DeploymentId),
    /// A presale's end-of-sale decision or its next completion step.
    Presale(PresaleId),
    /// A lock whose unlock date has come.
    Unlock(LockId),
}

impl DueKey {
    /// The stored form: `job:<id>`, `deploy:<id>`, `presale:<id>`, `unlock:<id>`.
    pub fn encode(&self) -> String {
        match self {
            DueKey::Job(id) => format!("job:{id}"),
            DueKey::Deployment(id) => format!("deploy:{id}"),
            DueKey::Presale(id) => format!("presale:{id}"),
            DueKey::Unlock(id) => format!("unlock:{id}"),
        }
    }

    /// The key a stored form names; None for a form no owner claims.
    pub fn decode(text: &str) -> Option<DueKey> {
        let (kind, id) = text.split_once(':')?;
        Some(match kind {
            "job" => DueKey::Job(JobId::new_unchecked(id)),
            "deploy" => DueKey::Deployment(DeploymentId::new_unchecked(id)),
            "presale" => DueKey::Presale(PresaleId::new_unchecked(id)),
            "unlock" => DueKey::Unlock(LockId::new_unchecked(id)),
            _ => return None,
        })
    }
}

/// A merchant's records. The event log, webhooks and deliveries are the same store's
/// ([`EventStore`]), so an operation writes its events in its own transaction; so are holder
/// sessions ([`session::SessionStore`]), idempotency records
/// ([`idempotency::IdempotencyStore`]) and API keys ([`keys::KeyStore`]).
pub trait Store:
    EventStore + session::SessionStore + idempotency::IdempotencyStore + keys::KeyStore
{
    fn merchant(&self) -> Result<Option<Merchant>>;
    fn put_merchant(&mut self, merchant: &Merchant) -> Result<()>;
    /// The embedded chain's state (default when none was stored yet).
    fn chain_state(&self) -> Result<ChainState>;
    fn put_chain_state(&mut self, state: &ChainState) -> Result<()>;

    fn token(&self, address: &TokenAddress) -> Result<Option<Token>>;
    fn put_token(&mut self, token: &Token) -> Result<()>;
    /// Every token, in creation order.
    fn tokens(&self) -> Result<Vec<Token>>;

    fn holder_by_user(&self, user_id: &UserId) -> Result<Option<Holder>>;
    fn holder_by_address(&self, address: &Address) -> Result<Option<Holder>>;
    fn insert_holder(&mut self, holder: &Holder) -> Result<()>;

    fn balance(&self, token: &TokenAddress, owner: &Address) -> Result<Balance>;
    fn put_balance(
        &mut self,
        token: &TokenAddress,
        owner: &Address,
        balance: &Balance,
    ) -> Result<()>;
    /// Every non-zero balance of one owner, each with its token, in the order the tokens were
    /// created: one read for a holder's whole portfolio, however many tokens it holds.
    fn holdings(&self, owner: &Address) -> Result<Vec<(Token, Balance)>>;
    /// The largest non-zero balances (active + locked) of a token, and how many there are.
    fn top_holders(&self, token: &TokenAddress, limit: u32) -> Result<(Vec<HolderRow>, u64)>;

    fn locks_of(&self, owner: &Address) -> Result<Vec<Lock>>;
    fn lock(&self, id: &LockId) -> Result<Option<Lock>>;
    fn put_lock(&mut self, lock: &Lock) -> Result<()>;
    fn remove_lock(&mut self, id: &LockId) -> Result<()>;

    fn presale(&self, id: &PresaleId) -> Result<Option<Presale>>;
    fn put_presale(&mut self, presale: &Presale) -> Result<()>;
    /// Every presale, newest first.
    fn presales(&self) -> Result<Vec<Presale>>;
    /// A presale's participants, in the order of their first purchase.
    fn participants(&self, presale: &PresaleId) -> Result<Vec<Participant>>;
    /// The first `limit` of them, in the same order (an event's bounded form).
    fn first_participants(&self, presale: &PresaleId, limit: u32) -> Result<Vec<Participant>>;
    fn participant(&self, presale: &PresaleId, user_id: &UserId) -> Result<Option<Participant>>;
    /// Inserts or updates one participant, keeping its place in the order.
    fn put_participant(&mut self, presale: &PresaleId, participant: &Participant) -> Result<()>;
    /// The presales a holder bought into, each with the holder's participation, in the order
    /// of their first purchase: one read for a holder's positions, however many.
    fn positions(&self, user_id: &UserId) -> Result<Vec<(Presale, Participant)>>;

    /// Appends a record; returns its sequence number.
    fn append_history(&mut self, record: &TxRecord) -> Result<u64>;
    fn history_at(&self, seq: u64) -> Result<Option<TxRecord>>;
    /// Rewrites the record at `seq` (its chain status, hash and block as the chain settles).
    fn put_history_at(&mut self, seq: u64, record: &TxRecord) -> Result<()>;
    /// One holder's records, newest first, strictly older than `before` (a sequence number
    /// this method returned), at most `limit`, with the sequence number of each.
    fn history(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<(u64, TxRecord)>>;

    /// A token's liquidity pool (at most one per token).
    fn pool(&self, token: &TokenAddress) -> Result<Option<Pool>>;
    fn put_pool(&mut self, pool: &Pool) -> Result<()>;
    /// The token has no pool any more (its opening failed on chain).
    fn remove_pool(&mut self, token: &TokenAddress) -> Result<()>;

    /// Takes `authorizer`'s next EIP-3009 nonce (0 the first time, then one more each call),
    /// in the caller's transaction: a rollback gives it back, a commit uses it up for good.
    fn take_auth_nonce(&mut self, authorizer: &Address) -> Result<u64>;

    /// Queues a chain intent (the outbox); returns its id, assigned in order.
    fn enqueue_intent(&mut self, intent: &Intent) -> Result<u64>;
    fn intent(&self, id: u64) -> Result<Option<Intent>>;
    fn put_intent(&mut self, intent: &Intent) -> Result<()>;
    /// Intents not settled yet (queued or submitted), oldest first, at most `limit`.
    fn open_intents(&self, limit: u32) -> Result<Vec<Intent>>;
    /// Intents that failed, newest first, at most `limit`.
    fn failed_intents(&self, limit: u32) -> Result<Vec<Intent>>;

    /// The settler's transactions (an EVM chain), by the relayer nonce they use.
    fn chain_tx(&self, nonce: u64) -> Result<Option<ChainTx>>;
    fn put_chain_tx(&mut self, tx: &ChainTx) -> Result<()>;
    /// Transactions not mined yet (signed or sent), lowest nonce first.
    fn open_chain_txs(&self) -> Result<Vec<ChainTx>>;
    /// Mined transactions whose receipts are not final yet (`ChainTx::is_unfinal`), lowest
    /// nonce first.
    fn unfinal_chain_txs(&self) -> Result<Vec<ChainTx>>;
    /// Whether `hash` is one of the settler's transactions (any version of any nonce).
    fn is_own_tx(&self, hash: &str) -> Result<bool>;
    /// The last `limit` chain transactions by nonce, newest first.
    fn recent_chain_txs(&self, limit: u32) -> Result<Vec<ChainTx>>;
    /// Journals what a followed Transfer log did (`ops::settle::observe`).
    fn put_observation(&mut self, o: &Observation) -> Result<()>;
    /// The journaled observations of blocks after `block`, in chain order.
    fn observations_after(&self, block: u64) -> Result<Vec<Observation>>;
    /// Forgets the observations of blocks after `after` (undone) and before `before` (too
    /// old for any reorganization still followed).
    fn forget_observations(&mut self, after: u64, before: u64) -> Result<()>;
    fn relayer(&self) -> Result<Relayer>;
    fn put_relayer(&mut self, relayer: &Relayer) -> Result<()>;

    fn job(&self, id: &JobId) -> Result<Option<Job>>;
    fn put_job(&mut self, job: &Job) -> Result<()>;

    fn deployment(&self, id: &DeploymentId) -> Result<Option<Deployment>>;
    fn put_deployment(&mut self, deployment: &Deployment) -> Result<()>;

    /// Due work: one entry per key, the time it is due. One Durable Object alarm serves all
    /// of them: the shell sets it to `next_due`.
    fn schedule(&mut self, key: &DueKey, at: Millis) -> Result<()> {
        self.schedule_raw(&key.encode(), at)
    }
    /// Schedules an entry by its stored form (a failed item's retry).
    fn schedule_raw(&mut self, stored: &str, at: Millis) -> Result<()>;
    fn unschedule(&mut self, key: &DueKey) -> Result<()> {
        self.unschedule_raw(&key.encode())
    }
    /// Removes an entry by its stored form (also one no owner claims).
    fn unschedule_raw(&mut self, stored: &str) -> Result<()>;
    /// Entries due at or before `now`, earliest first, in their stored form (`DueKey::decode`
    /// names the owner); entries due at the same time in the order they were first
    /// scheduled (so tokens mined in one block keep submission order).
    fn due(&self, now: Millis) -> Result<Vec<(String, Millis)>>;
    /// The first entry of `due(now)`.
    fn first_due(&self, now: Millis) -> Result<Option<(String, Millis)>> {
        Ok(self.due(now)?.into_iter().next())
    }
    fn next_due(&self) -> Result<Option<Millis>>;

    /// The failures recorded for a schedule key (stored form), if any.
    fn due_failure(&self, stored: &str) -> Result<Option<DueFailure>>;
    fn put_due_failure(&mut self, failure: &DueFailure) -> Result<()>;
    /// Forgets a key's failures (it ran).
    fn clear_due_failure(&mut self, stored: &str) -> Result<()>;
    /// Every parked item, most recently parked first.
    fn parked(&self) -> Result<Vec<DueFailure>>;
}
