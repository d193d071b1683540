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
use std::collections::BTreeMap;
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::{Units, Usdc};
use tokenpad_core::model::chain::{ChainMode, EvmChain, Markets};
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::model::token::{Network, USDC_ADDRESS};
use tokenpad_core::model::wallet::Wallet;
use tokenpad_core::ops::idempotency::{self, Keyed};
use tokenpad_core::ops::session::access::{self, Caller};
use tokenpad_core::ops::{self, due, Ctx};
use tokenpad_core::store::mem::MemStore;
use tokenpad_core::store::Store;
use tokenpad_core::wire::routes::{self, Access};
use tokenpad_core::wire::{self, Op, Parts};
use tokenpad_core::{Error, ErrorCode, Result};

pub use crate::shell::BASE_URL;
pub const T0: Millis = 1_795_262_400_000;

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
            usdc: USDC_ADDRESS.address(),
            markets: Some(Markets {
                uniswap_factory: Address([0xfb; 20]),
                market: Address([0xfc; 20]),
            }),
            locker: Some(Address([0xfd; 20])),
            // The simulated chain never reorganizes: receipts are final at once.
            finality: 0,
        });
        let mut store = MemStore::default();
        // A fresh store: init cannot meet an existing merchant.
        let _ = ops::merchant::init(&mut store, &merchant, &[], &chain);
        Node {
            store,
            merchant,
            chain,
            now: T0,
            shell: SimShell::default(),
            tokens: BTreeMap::new(),
            bug: None,
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

    /// Runs what is due, item by item, each in its own transaction; a failing item is
    /// recorded (retried after a backoff, parked at last). Returns the items' errors.
    pub fn run_due(&mut self) -> Vec<Error> {
        let mut errors = Vec::new();
        for _ in 0..due::MAX_ITEMS_PER_RUN {
            let Ok(Some((stored, at))) = self.store.first_due(self.now) else {
                break;
            };
            let ctx = self.ctx();
            let key = stored.clone();
            let ran = self.txn(|s, _| {
                due::run_item(s, &ctx, &key, at)?;
                wire::event::seal(s, BASE_URL)
            });
            if let Err(e) = ran {
                let now = self.now;
                let _ = self.txn(|s, _| due::record_failure(s, &stored, &e, now));
                errors.push(e);
            }
        }
        errors
    }

    /// Who the request is: the secret key, or the holder's session (checked as the object does).
    fn caller(&self, req: &Request) -> Result<Caller> {
        let Some(user) = &req.session else {
            return Ok(Caller::Secret);
        };
        let token = self
            .tokens
            .get(user)
            .ok_or_else(|| Error::new(ErrorCode::InvalidSessionToken, "Invalid session token"))?;
        let key = self.shell.signing_key(&self.merchant.id);
        Ok(Caller::Session(access::verify(
            &self.store,
            &key,
            &self.merchant.id,
            token,
            self.now,
        )?))
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
        Op::decode(matched.route, &parts)?
            .ok_or_else(|| Error::internal("a merchant route without an operation"))
    }

    /// One API call, the object's way; `cut` loses its answer (None: it arrives).
    pub fn api(&mut self, req: &Request, cut: Option<Cut>) -> Option<Answer> {
        let op = Self::decode(req);
        let caller = match self.caller(req) {
            Ok(c) => c,
            Err(e) => return cut.is_none().then(|| error_answer(&e)),
        };
        let op = match op {
            Ok(op) => op,
            Err(e) => return cut.is_none().then(|| error_answer(&e)),
        };
        let permitted = match wire::scope::authorize(&self.store, caller, &self.merchant, op) {
            Ok(p) => p,
            Err(e) => return cut.is_none().then(|| error_answer(&e)),
        };
        let caller = permitted.caller().clone();
        self.run_due();
        let fingerprint =
            sha256_hex(format!("{} {}\n{}", req.method, req.path, req.body).as_bytes());
        let keyed = req
            .key
            .as_ref()
            .filter(|_| permitted.op().writes())
            .map(|k| (k.clone(), fingerprint));
        if let Some((key, fp)) = &keyed {
            let request = Keyed {
                key,
                fingerprint: fp,
            };
            match idempotency::replay(&self.store, &caller, &request, self.now) {
                Ok(Some((status, body))) => {
                    return cut.is_none().then_some(Answer {
                        status,
                        body,
                        replayed: true,
                    });
                }
                Ok(None) => {}
                Err(e) => return cut.is_none().then(|| error_answer(&e)),
            }
        }
        if cut == Some(Cut::BeforeCommit) {
            return None;
        }
        let ctx = self.ctx();
        let now = self.now;
        let unbalanced = self.bug == Some(Bug::UnbalancedWrite) && req.path.ends_with("/spend");
        let applied = self.txn(|s, shell| {
            let reply = wire::apply(s, &ctx, permitted, shell)?;
            if unbalanced && reply.status == 200 {
                if let Some(b) = s.balances.values_mut().find(|b| !b.active.is_zero()) {
                    b.active = b.active.saturating_add(Units::new(1));
                }
            }
            let body =
                serde_json::to_string(&reply.body).map_err(|e| Error::internal(e.to_string()))?;
            if let Some((key, fp)) = &keyed {
                idempotency::record(
                    s,
                    &caller,
                    &Keyed {
                        key,
                        fingerprint: fp,
                    },
                    reply.status,
                    &body,
                    now,
                )?;
            }
            Ok((reply.status, body))
        });
        let answer = match applied {
            Ok((status, body)) => Answer {
                status,
                body,
                replayed: false,
            },
            Err(e) => {
                let a = error_answer(&e);
                if (400..500).contains(&a.status) && e.code != ErrorCode::RateLimited {
                    if let Some((key, fp)) = &keyed {
                        let body = a.body.clone();
                        let _ = self.txn(|s, _| {
                            idempotency::record(
                                s,
                                &caller,
                                &Keyed {
                                    key,
                                    fingerprint: fp,
                                },
                                a.status,
                                &body,
                                now,
                            )
                        });
                    }
                }
                a
            }
        };
        if let Some(token) = self.session_made(req, &answer) {
            self.tokens.insert(token.0, token.1);
        }
        (cut.is_none()).then_some(answer)
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

impl Default for Node {
    fn default() -> Self {
        Node::new()
    }
}
