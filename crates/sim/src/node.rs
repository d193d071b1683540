//! The merchant's Durable Object, as the simulator runs it: its durable state is the core's
//! `MemStore`; every transaction is all or nothing (the store is restored when it fails, as
//! SQLite rolls back); an API call goes the object's way (the credential, a session's scope,
//! due work first, an idempotent replay under the caller's key, else the operation with its
//! idempotency record in one transaction, a refusal recorded too); due work runs item by
//! item, a failing item recorded and retried. Nothing is kept in memory across a crash but
//! what the store holds.

use crate::bug::Bug;
use crate::shell::SimShell;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::account::Role;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::chain::{ChainMode, EvmChain, Markets};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::key::{ApiKey, KeyKind};
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::token::{Network, USDC_ADDRESS};
use tokenpad_core::model::wallet::Wallet;
use tokenpad_core::ops::due::Retry;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::ops::{self, Ctx};
use tokenpad_core::serve::{self, Call, Credential, Followup, Object, Plant, Txn};
use tokenpad_core::session_token::SigningKey;
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::Store;
use tokenpad_core::wire::routes::{self, Access};
use tokenpad_core::wire::{self, Op, Parts, Reply, Shell};
use tokenpad_core::{Error, ErrorCode, Result};

pub use crate::shell::BASE_URL;
pub const T0: Millis = 1_795_262_400_000;

/// Base Sepolia's USDC (Circle's): a chain's own USDC, not Base's address (`USDC_ADDRESS`).
pub const SEPOLIA_USDC: Address = Address([
    0x03, 0x6c, 0xbd, 0x53, 0x84, 0x2c, 0x54, 0x26, 0x63, 0x4e, 0x79, 0x29, 0x54, 0x1e, 0xc2, 0x31,
    0x8f, 0x3d, 0xcf, 0x7e,
]);

thread_local! {
    /// The USDC of the chains this thread's worlds simulate (`CHAIN_USDC`): Base's address
    /// unless [`simulate_usdc`] says otherwise. A setting of the thread, not of a world, so
    /// that a failing history shrinks and replays on the chain it failed on.
    static CHAIN_USDC: std::cell::Cell<Address> = const { std::cell::Cell::new(USDC_ADDRESS.0) };
}

/// From now on, this thread's new worlds simulate a chain whose USDC is `usdc`.
pub fn simulate_usdc(usdc: Address) {
    CHAIN_USDC.with(|c| c.set(usdc));
}

/// The USDC of the chain this thread's new worlds simulate.
pub fn chain_usdc() -> Address {
    CHAIN_USDC.with(std::cell::Cell::get)
}

/// A request as a client sends it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub method: &'static str,
    /// Path and query, percent-encoded as sent.
    pub path: String,
    pub body: Value,
    /// `Some(userId)`: the holder's session token; None: the secret key.
    pub session: Option<String>,
    pub key: Option<String>,
}

/// An answer: status, body, and whether it was replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub replayed: bool,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// Where a call's answer may be lost (the object stops, or its answer never arrives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Before the operation's transaction commits: nothing happened.
    BeforeCommit,
    /// After it committed: it happened, and the client never hears.
    AfterCommit,
}

pub struct Node {
    pub store: MemStore,
    pub merchant: Merchant,
    pub chain: ChainMode,
    pub now: Millis,
    pub shell: SimShell,
    /// Session tokens the merchant made, by userId (the client's side of them).
    pub tokens: BTreeMap<String, String>,
    /// A bug planted in the service (`bug`), to show the checks find it.
    pub bug: Option<Bug>,
    /// The merchant's secret key (the merchant's server sends it).
    pub secret_key: String,
    /// When idempotency records older than a day were last forgotten.
    pub pruned_at: Millis,
    /// The follow-ups queued (`serve::Followup`), by key: durable, as the object's table.
    pub followups: BTreeSet<String>,
}

fn error_answer(e: &Error) -> Answer {
    Answer {
        status: e.status(),
        body: serde_json::to_string(&e.to_body()).unwrap_or_default(),
        replayed: false,
    }
}

impl Node {
    pub fn new() -> Node {
        let relayer = Wallet::from_seed([0x11; 32])
            .map(|w| w.address)
            .unwrap_or(Address([0x11; 20]));
        let merchant = Merchant {
            id: MerchantId::new_unchecked("0123456789abcdef0123456789abcdef"),
            name: "Simulated".into(),
            address: relayer,
            sealed_key: "sealed".into(),
            created_at: T0,
            private_mode: false,
        };
        let chain = ChainMode::Evm(EvmChain {
            chain_id: 31_337,
            network: Network::Local,
            factory: Address([0xfa; 20]),
            token_code_hash: [0x7f; 32],
            usdc: chain_usdc(),
            markets: Some(Markets {
                uniswap_factory: Address([0xfb; 20]),
                market: Address([0xfc; 20]),
            }),
            locker: Some(Address([0xfd; 20])),
            // The simulated chain never reorganizes: receipts are final at once.
            finality: 0,
        });
        let mut store = MemStore::default();
        let secret_key = tokenpad_core::auth::new_key(KeyKind::Secret, &merchant.id, &[0x5c; 32]);
        let key = ops::keys::record(KeyKind::Secret, ops::keys::DEFAULT_NAME, &secret_key, T0);
        // A fresh store: init cannot meet an existing merchant.
        let _ = ops::merchant::init(&mut store, &merchant, &[key], &chain);
        Node {
            store,
            merchant,
            chain,
            now: T0,
            shell: SimShell::default(),
            tokens: BTreeMap::new(),
            bug: None,
            secret_key,
            pruned_at: 0,
            followups: BTreeSet::new(),
        }
    }

    pub fn ctx(&self) -> Ctx {
        let merchant = self
            .store
            .merchant()
            .ok()
            .flatten()
            .unwrap_or_else(|| self.merchant.clone());
        Ctx {
            now: self.now,
            merchant,
            chain: self.chain.clone(),
        }
    }

    /// Runs `f` as one transaction: all of it, or (it failed, or its commit refused books
    /// that do not balance, as the object's does) nothing.
    pub fn txn<T>(
        &mut self,
        f: impl FnOnce(&mut MemStore, &mut SimShell) -> Result<T>,
    ) -> Result<T> {
        let before = self.store.clone();
        let shell = self.shell.clone();
        self.store.books.clear();
        let out = f(&mut self.store, &mut self.shell).and_then(|v| {
            self.store.commit()?;
            Ok(v)
        });
        if out.is_err() {
            self.store = before;
            self.shell = shell;
        }
        out
    }

    /// Runs what is due, item by item, each in its own transaction (`serve::due`, as the
    /// object does); a failing item is recorded (retried after a backoff, parked at last).
    /// Returns the items' errors.
    pub fn run_due(&mut self) -> Vec<Error> {
        let now = self.now;
        let merchant = self.ctx().merchant;
        let ports = Ports::new(self, None, false);
        serve::due::run(&ports, now, &merchant);
        ports.failures.into_inner()
    }

    /// Decodes a request as the edge does: its route and access, then its typed operation.
    fn decode(req: &Request) -> Result<Op> {
        let (path, query) = req.path.split_once('?').unwrap_or((&req.path, ""));
        let matched = routes::route(req.method, path)?;
        if req.session.is_some() && matched.access == Access::Secret {
            return Err(Error::new(
                ErrorCode::SecretKeyRequired,
                "This operation needs the merchant's secret key",
            ));
        }
        let query: BTreeMap<String, String> = query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), routes::percent_decode(v).unwrap_or_default()))
            .collect();
        let parts = Parts {
            params: &matched.params,
            query: &query,
            body: &req.body,
        };
        Op::decode_routed(matched.route, &parts)
    }

    /// One API call, the object's way (`serve::serve`, the worker's pipeline); `cut` loses
    /// its answer (None: it arrives).
    pub fn api(&mut self, req: &Request, cut: Option<Cut>) -> Option<Answer> {
        let op = Self::decode(req);
        let credential = match &req.session {
            None => Credential::Key(self.secret_key.clone()),
            Some(user) => Credential::Session(self.tokens.get(user).cloned().unwrap_or_default()),
        };
        let fingerprint =
            sha256_hex(format!("{} {}\n{}", req.method, req.path, req.body).as_bytes());
        let call = Call {
            credential,
            op,
            idempotency: req.key.clone().map(|k| (k, fingerprint)),
            client: "sim".into(),
            now: self.now,
        };
        let unbalanced = self.bug == Some(Bug::UnbalancedWrite) && req.path.ends_with("/spend");
        let ports = Ports::new(self, cut, unbalanced);
        let served = serve::serve(&ports, call, |_, _| ());
        drop(ports);
        let answer = match served.answer {
            Ok((status, body)) => Answer {
                status,
                body,
                replayed: served.replayed,
            },
            Err(e) => error_answer(&e),
        };
        if cut.is_some() {
            return None;
        }
        if let Some(token) = self.session_made(req, &answer) {
            self.tokens.insert(token.0, token.1);
        }
        Some(answer)
    }

    /// A session token the answer made (the merchant's server hands it to the holder's browser).
    fn session_made(&self, req: &Request, a: &Answer) -> Option<(String, String)> {
        if a.status != 201 || !req.path.ends_with("/session") {
            return None;
        }
        let user = req
            .path
            .strip_prefix("/holder/")?
            .strip_suffix("/session")?;
        let token = a.json().get("token")?.as_str()?.to_string();
        Some((routes::percent_decode(user)?, token))
    }

    /// Test USDC for a holder (the admin faucet).
    pub fn faucet(&mut self, user: &str, usdc: u128) -> Result<()> {
        let user = tokenpad_core::model::ids::UserId::parse(user)?;
        let holder = self
            .store
            .holder_by_user(&user)?
            .ok_or_else(|| Error::new(ErrorCode::HolderNotFound, "no such holder"))?;
        self.run_due();
        let ctx = self.ctx();
        self.txn(|s, _| {
            ops::ledger::deposit_usdc(s, &ctx, &holder.address, Usdc::new(usdc))?;
            wire::event::seal(s, BASE_URL)
        })
    }
}

/// The object's ports (`serve::Object`) over a node, for one call: its transactions (the
/// store taken out, restored whole when one fails), its keys, and the faults of this call.
pub struct Ports<'a> {
    node: RefCell<&'a mut Node>,
    cut: Option<Cut>,
    unbalanced: bool,
    /// The due items that failed.
    pub failures: RefCell<Vec<Error>>,
}

impl<'a> Ports<'a> {
    pub fn new(node: &'a mut Node, cut: Option<Cut>, unbalanced: bool) -> Ports<'a> {
        Ports {
            node: RefCell::new(node),
            cut,
            unbalanced,
            failures: RefCell::new(Vec::new()),
        }
    }
}

/// A transaction of the simulated object: the store and shell, taken out of the node.
pub struct SimTxn {
    store: MemStore,
    shell: SimShell,
    followups: BTreeSet<String>,
    /// The object stops before its operation's transaction commits (`Cut::BeforeCommit`).
    stops: bool,
    /// `Bug::UnbalancedWrite` on this call.
    unbalanced: bool,
}

impl Txn for SimTxn {
    type Memo = ();

    fn store(&mut self) -> &mut dyn Store {
        &mut self.store
    }

    fn parts(&mut self) -> (&mut dyn Store, &mut dyn Shell) {
        (&mut self.store, &mut self.shell)
    }

    fn queue(&mut self, ctx: &Ctx, reply: &Reply) -> Result<bool> {
        if self.unbalanced && reply.status == 200 {
            if let Some(b) = self
                .store
                .balances
                .values_mut()
                .find(|b| !b.active.is_zero())
            {
                b.active = b.active.saturating_add(Units::new(1));
            }
        }
        let Some(followup) = Followup::of(ctx, reply) else {
            return Ok(false);
        };
        self.followups.insert(followup.key());
        Ok(true)
    }

    fn committing(&mut self) -> Result<()> {
        if self.stops {
            return Err(Error::internal("the object stopped before its commit"));
        }
        Ok(())
    }
}

impl Object for Ports<'_> {
    type Txn = SimTxn;

    fn run<T: 'static>(
        &self,
        writes: bool,
        f: impl FnOnce(&mut SimTxn) -> Result<T> + 'static,
    ) -> Result<T> {
        let mut node = self.node.borrow_mut();
        let mut t = SimTxn {
            store: std::mem::take(&mut node.store),
            shell: node.shell.clone(),
            followups: std::mem::take(&mut node.followups),
            stops: self.cut == Some(Cut::BeforeCommit),
            unbalanced: self.unbalanced,
        };
        let before = writes.then(|| (t.store.clone(), t.followups.clone()));
        t.store.books.clear();
        let out = f(&mut t).and_then(|v| {
            if writes {
                t.store.commit()?;
            }
            Ok(v)
        });
        match (out.is_ok(), before) {
            (false, Some((store, followups))) => {
                node.store = store;
                node.followups = followups;
            }
            _ => {
                node.store = t.store;
                node.shell = t.shell;
                node.followups = t.followups;
            }
        }
        out
    }

    fn merchant(&self) -> Result<Option<Merchant>> {
        self.node.borrow().store.merchant()
    }

    fn keys(&self) -> Result<Vec<ApiKey>> {
        self.node.borrow().store.api_keys()
    }

    fn touch(&self, record: ApiKey) {
        let _ = self.run(true, move |t| t.store.put_api_key(&record));
    }

    fn session_key(&self, merchant: &Merchant) -> Result<SigningKey> {
        Ok(self.node.borrow().shell.signing_key(&merchant.id))
    }

    fn dashboard_role(&self, _merchant: &Merchant, _token: &str) -> Result<Role> {
        Err(Error::new(ErrorCode::InvalidApiKey, "Invalid API key"))
    }

    fn charge(&self, _caller: &Caller, _client: &str) -> Result<()> {
        Ok(())
    }

    fn ctx(&self, now: Millis, merchant: Merchant) -> Result<Ctx> {
        Ok(Ctx {
            now,
            merchant,
            chain: self.node.borrow().chain.clone(),
        })
    }

    fn due_failed(&self, _item: &str, error: &Error, _retry: Retry) {
        self.failures.borrow_mut().push(error.clone());
    }

    fn base_url(&self) -> String {
        BASE_URL.into()
    }

    fn pruned_at(&self) -> Millis {
        self.node.borrow().pruned_at
    }

    fn set_pruned_at(&self, at: Millis) {
        self.node.borrow_mut().pruned_at = at;
    }

    fn committed(&self) -> Result<()> {
        match self.cut {
            Some(Cut::AfterCommit) => Err(Error::internal("the object stopped after its commit")),
            _ => Ok(()),
        }
    }

    fn planted(&self, bug: Plant) -> bool {
        self.node.borrow().bug.and_then(Bug::plant) == Some(bug)
    }
}

impl Default for Node {
    fn default() -> Self {
        Node::new()
    }
}
