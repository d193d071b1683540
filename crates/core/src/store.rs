//! The storage port. The core reads and writes a merchant's state only through this trait:
//! the worker implements it on the Durable Object's SQLite (inside one transaction per
//! request, so an operation that fails half-way leaves nothing behind), and `MemStore`
//! implements it in memory for the core's own tests.
//!
//! Operations still read and check everything before their first write, so even a store
//! without transactions never sees a half-applied operation caused by a business rule.

use crate::address::Address;
use crate::deployment::Deployment;
use crate::error::Result;
use crate::history::TxRecord;
use crate::holder::Holder;
use crate::job::Job;
use crate::presale::{Participant, Presale};
use crate::time::Millis;
use crate::token::{HolderRow, Token};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An address's balance of one token: `active` can move, `locked` waits for its unlock date.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Balance {
    pub active: u128,
    pub locked: u128,
}

impl Balance {
    pub fn total(&self) -> Option<u128> {
        self.active.checked_add(self.locked)
    }
}

/// Tokens of one owner that unlock at one time (presale allocations).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lock {
    pub id: String,
    pub token: Address,
    pub owner: Address,
    pub amount: u128,
    pub unlock_at: Millis,
}

pub trait Store {
    /// Small named documents: the merchant record, the chain state.
    fn meta(&self, key: &str) -> Result<Option<Value>>;
    fn put_meta(&mut self, key: &str, value: &Value) -> Result<()>;

    fn token(&self, address: &Address) -> Result<Option<Token>>;
    fn put_token(&mut self, token: &Token) -> Result<()>;
    /// Every token, in creation order.
    fn tokens(&self) -> Result<Vec<Token>>;

    fn holder_by_user(&self, user_id: &str) -> Result<Option<Holder>>;
    fn holder_by_address(&self, address: &Address) -> Result<Option<Holder>>;
    fn insert_holder(&mut self, holder: &Holder) -> Result<()>;

    fn balance(&self, token: &Address, owner: &Address) -> Result<Balance>;
    fn put_balance(&mut self, token: &Address, owner: &Address, balance: &Balance) -> Result<()>;
    /// Every non-zero balance of one owner, by token address.
    fn balances_of(&self, owner: &Address) -> Result<Vec<(Address, Balance)>>;
    /// The largest non-zero balances (active + locked) of a token, and how many there are.
    fn top_holders(&self, token: &Address, limit: u32) -> Result<(Vec<HolderRow>, u64)>;

    fn locks_of(&self, owner: &Address) -> Result<Vec<Lock>>;
    fn lock(&self, id: &str) -> Result<Option<Lock>>;
    fn put_lock(&mut self, lock: &Lock) -> Result<()>;
    fn remove_lock(&mut self, id: &str) -> Result<()>;

    fn presale(&self, id: &str) -> Result<Option<Presale>>;
    fn put_presale(&mut self, presale: &Presale) -> Result<()>;
    /// Every presale, newest first.
    fn presales(&self) -> Result<Vec<Presale>>;
    /// A presale's participants, in the order of their first purchase.
    fn participants(&self, presale_id: &str) -> Result<Vec<Participant>>;
    fn participant(&self, presale_id: &str, user_id: &str) -> Result<Option<Participant>>;
    /// Inserts or updates one participant, keeping its place in the order.
    fn put_participant(&mut self, presale_id: &str, participant: &Participant) -> Result<()>;
    /// The ids of the presales a holder bought into, in the order of their first purchase.
    fn participations(&self, user_id: &str) -> Result<Vec<String>>;

    fn append_history(&mut self, record: &TxRecord) -> Result<()>;
    /// One holder's records, newest first, strictly older than `before` (a sequence number
    /// this method returned), at most `limit`, with the sequence number of each.
    fn history(
        &self,
        user_id: &str,
        token: Option<&Address>,
        before: Option<u64>,
        limit: u32,
    ) -> Result<Vec<(u64, TxRecord)>>;

    fn job(&self, id: &str) -> Result<Option<Job>>;
    fn put_job(&mut self, job: &Job) -> Result<()>;

    fn deployment(&self, id: &str) -> Result<Option<Deployment>>;
    fn put_deployment(&mut self, deployment: &Deployment) -> Result<()>;

    /// Due work: one entry per key, the time it is due. One Durable Object alarm serves all
    /// of them: the shell sets it to `next_due`.
    fn schedule(&mut self, key: &str, at: Millis) -> Result<()>;
    fn unschedule(&mut self, key: &str) -> Result<()>;
    /// Entries due at or before `now`, earliest first; entries due at the same time in the
    /// order they were first scheduled (so tokens mined in one block keep submission order).
    fn due(&self, now: Millis) -> Result<Vec<(String, Millis)>>;
    fn next_due(&self) -> Result<Option<Millis>>;
}
