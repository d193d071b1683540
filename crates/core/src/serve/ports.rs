//! The ports the pipeline runs over: the object ([`Object`]: its transactions, the records it
//! keeps hot, credentials' secrets, budgets, what it is told) and a transaction of it
//! ([`Txn`]); and the bugs a simulator may plant in the pipeline ([`Plant`]).

use crate::error::{Error, Result};
use crate::model::account::Role;
use crate::model::key::ApiKey;
use crate::model::merchant::Merchant;
use crate::model::time::Millis;
use crate::ops::due::Retry;
use crate::ops::session::access::Caller;
use crate::ops::Ctx;
use crate::session_token::SigningKey;
use crate::store::Store;
use crate::wire::scope::Permitted;
use crate::wire::{Reply, Response, Shell};

/// Bugs a simulator may plant in the pipeline, to show its checks find them (a checker that
/// never fails proves nothing). Only a port's [`Object::planted`] turns one on; the worker's
/// never does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plant {
    /// The replay of a kept answer is skipped: a retry under the same key applies again.
    ReplayAppliesTwice,
    /// Follow-ups are queued after the operation's transaction committed, not inside it: an
    /// object that stops in between loses them.
    FollowupAfterCommit,
}

/// What a transaction of the object sees: its store, the shell (randomness, secrets,
/// configuration), and what the object remembers of answers.
pub trait Txn {
    /// What [`Txn::recall`] found a read's answer under, to [`Txn::remember`] it by.
    type Memo;

    /// The store.
    fn store(&mut self) -> &mut dyn Store;

    /// The store and the shell, borrowed together (an operation takes both).
    fn parts(&mut self) -> (&mut dyn Store, &mut dyn Shell);

    /// The answer's body as JSON text (the worker keeps texts it rendered before).
    fn encode(&mut self, body: &Response) -> Result<String> {
        serde_json::to_string(body).map_err(|e| Error::internal(format!("encode: {e}")))
    }

    /// A read's text the object kept from an earlier identical read, if nothing it shows
    /// changed since (`Some(text)`); and the memo to keep this one's by.
    fn recall(
        &mut self,
        _ctx: &Ctx,
        _permitted: &Permitted,
    ) -> (Option<Self::Memo>, Option<String>) {
        (None, None)
    }

    /// Keeps a read's text (status 200) under the memo [`Txn::recall`] gave.
    fn remember(&mut self, _memo: Self::Memo, _text: &str) {}

    /// Queues the follow-ups the answer calls for (inside the operation's transaction, or
    /// with [`Plant::FollowupAfterCommit`] after it); true when there was one.
    fn queue(&mut self, ctx: &Ctx, reply: &Reply) -> Result<bool>;

    /// The operation's transaction is about to commit (an object that stops here, the
    /// simulator's fault, rolls all of it back).
    fn committing(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The merchant object as the pipeline uses it: transactions, the records it keeps hot,
/// credentials' secrets, budgets, and what it is told along the way.
pub trait Object {
    type Txn: Txn + 'static;

    /// Runs `f` on the object's store: inside ONE storage transaction when `writes` (all of
    /// it, or, when it fails or its books do not balance, nothing); as the store is when not
    /// (a read opens none).
    fn run<T: 'static>(
        &self,
        writes: bool,
        f: impl FnOnce(&mut Self::Txn) -> Result<T> + 'static,
    ) -> Result<T>;

    /// The merchant the object holds.
    fn merchant(&self) -> Result<Option<Merchant>>;
    /// The merchant's API keys (their hashes and states).
    fn keys(&self) -> Result<Vec<ApiKey>>;
    /// A key's hash (`auth::key_hash`), which an object may remember for the keys among
    /// `keys` (the merchant's): the hash depends on the key alone.
    fn key_hash(&self, key: &str, _keys: &[ApiKey]) -> String {
        crate::auth::key_hash(key)
    }
    /// Writes a key's last use (`ops::keys::check` says when); a failure is the object's to
    /// log, never the request's.
    fn touch(&self, record: ApiKey);
    /// The key holders' session tokens are signed with.
    fn session_key(&self, merchant: &Merchant) -> Result<SigningKey>;
    /// The role a dashboard credential (`dt_...`) carries, checked against the members.
    fn dashboard_role(&self, merchant: &Merchant, token: &str) -> Result<Role>;
    /// Charges a checked caller's budget (at `client`'s address).
    fn charge(&self, caller: &Caller, client: &str) -> Result<()>;

    /// The merchant's context at `now` (its chain).
    fn ctx(&self, now: Millis, merchant: Merchant) -> Result<Ctx>;
    /// Whether work may be due at `now` (false only when it surely is not: no query).
    fn maybe_due(&self, _now: Millis) -> bool {
        true
    }
    /// A due item failed and rolled back; `retry` says what became of it.
    fn due_failed(&self, _item: &str, _error: &Error, _retry: Retry) {}
    /// Storage itself failed while running due work (not an item).
    fn due_stopped(&self, _error: &Error) {}
    /// Logs a failure that is not the request's (it still answers).
    fn log(&self, _line: &str) {}
    /// The base URL events render links with.
    fn base_url(&self) -> String;

    /// When idempotency records older than a day were last forgotten (service time).
    fn pruned_at(&self) -> Millis;
    fn set_pruned_at(&self, _at: Millis) {}

    /// The operation's transaction committed. An object that stops here (the simulator's
    /// fault) answers the error: nothing after the commit runs.
    fn committed(&self) -> Result<()> {
        Ok(())
    }

    /// A bug planted in the pipeline (the simulator's); None in what ships.
    fn planted(&self, _bug: Plant) -> bool {
        false
    }
}
