//! The merchant in memory that `super::examples` runs its scenario on: a `MemStore`, a fixed
//! clock and fixed randomness (the same ids and addresses every run), and `World::record`,
//! which sends a request as the edge and the merchant's object handle it.

use crate::model::chain::ChainMode;
use crate::model::holder::NewWallet;
use crate::model::ids::MerchantId;
use crate::model::key::KeyKind;
use crate::model::merchant::Merchant;
use crate::model::time::Millis;
use crate::model::wallet::Wallet;
use crate::ops::session::access::{self, Caller};
use crate::ops::{self, Ctx};
use crate::session_token::SigningKey;
use crate::store::mem::MemStore;
use crate::wire::op::{Op, Parts};
use crate::wire::{self, routes, Shell};
use serde_json::Value;
use std::collections::BTreeMap;

pub(super) type R<T> = Result<T, String>;

/// 2030-01-01T00:00:00Z: far enough ahead that the examples' times (a presale's end) are in the future.
pub(super) const T0: Millis = 1_893_456_000_000;
pub(super) const MERCHANT_ID: &str = "4f9c1a2b3d4e5f60718293a4b5c6d7e8";
pub(super) const BLOCK_MS: Millis = 2_000;
pub(super) const DEAD: &str = "0x000000000000000000000000000000000000dEaD";

fn wallet(n: u8) -> R<Wallet> {
    let mut seed = [0x11u8; 32];
    if let Some(last) = seed.last_mut() {
        *last = n;
    }
    Wallet::from_seed(seed).ok_or_else(|| "not a valid secp256k1 seed".to_string())
}

/// Fixed randomness, fixed wallets: the same ids and addresses every run.
struct ExampleShell {
    n: u8,
}

impl Shell for ExampleShell {
    fn random16(&mut self) -> crate::Result<[u8; 16]> {
        self.n = self.n.wrapping_add(1);
        let mut b = [0x5au8; 16];
        if let Some(last) = b.last_mut() {
            *last = self.n;
        }
        Ok(b)
    }
    fn new_wallet(&mut self) -> crate::Result<NewWallet> {
        self.n = self.n.wrapping_add(1);
        let w = wallet(0x40u8.wrapping_add(self.n)).map_err(crate::Error::internal)?;
        Ok(NewWallet {
            address: w.address,
            sealed_key: "sealed".into(),
        })
    }
    fn base_url(&self) -> &str {
        "https://tokenpad.example.com"
    }
    fn new_secret(&mut self, _aad: &[u8]) -> crate::Result<([u8; 32], String)> {
        Ok(([0x42; 32], "sealed".into()))
    }
    fn allow_private_urls(&self) -> bool {
        false
    }
    fn session_key(&self) -> crate::Result<SigningKey> {
        Ok(SigningKey::derive(&[0x24; 32], MERCHANT_ID))
    }
}

/// The merchant in memory, and the examples recorded so far.
pub(super) struct World {
    pub(super) store: MemStore,
    pub(super) ctx: Ctx,
    shell: ExampleShell,
    pub(super) out: BTreeMap<String, Value>,
}

/// How a request is authenticated.
pub(super) enum As {
    Secret,
    Public,
    Session(String),
}

impl World {
    pub(super) fn new() -> R<World> {
        let merchant = Merchant {
            id: MerchantId::parse(MERCHANT_ID).map_err(|e| e.message)?,
            name: "Acme Rewards".into(),
            address: wallet(1)?.address,
            sealed_key: "sealed".into(),
            created_at: T0,
            private_mode: false,
        };
        let mut store = MemStore::default();
        let keys = [KeyKind::Secret, KeyKind::Public].map(|kind| {
            let key = crate::auth::new_key(kind, &merchant.id, &[0x3c; 32]);
            ops::keys::record(kind, ops::keys::DEFAULT_NAME, &key, T0)
        });
        ops::merchant::init(&mut store, &merchant, &keys, &ChainMode::Embedded)
            .map_err(|e| e.message)?;
        Ok(World {
            store,
            ctx: Ctx {
                now: T0,
                merchant,
                chain: ChainMode::Embedded,
            },
            shell: ExampleShell { n: 0 },
            out: BTreeMap::new(),
        })
    }

    /// Moves the clock on and runs what came due (mined blocks, launches).
    pub(super) fn advance(&mut self, ms: Millis) -> R<()> {
        self.ctx.now += ms;
        ops::due::run_due(&mut self.store, &self.ctx).map_err(|e| e.message)?;
        Ok(())
    }

    /// Sends a request as the edge and the merchant's object handle it; its answer's status
    /// and body. A refusal is an error: an example must be accepted.
    pub(super) fn send(
        &mut self,
        method: &str,
        url: &str,
        body: Option<Value>,
        who: &As,
    ) -> R<(u16, Value)> {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let m =
            routes::route(method, path).map_err(|e| format!("{method} {url}: {}", e.message))?;
        let query: BTreeMap<String, String> = query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let body = body.unwrap_or(Value::Null);
        let parts = Parts {
            params: &m.params,
            query: &query,
            body: &body,
        };
        let op: Op = Op::decode(m.route, &parts)
            .map_err(|e| format!("{method} {url} does not decode: {}", e.message))?
            .ok_or_else(|| format!("{method} {url} is not an operation of the merchant"))?;
        let caller = match who {
            As::Secret => Caller::Secret,
            As::Public => Caller::Public,
            As::Session(token) => {
                let key = self.shell.session_key().map_err(|e| e.message)?;
                let s = access::verify(
                    &self.store,
                    &key,
                    &self.ctx.merchant.id,
                    token,
                    self.ctx.now,
                )
                .map_err(|e| e.message)?;
                Caller::Session(s)
            }
        };
        let refused =
            |e: crate::Error| format!("{method} {url} refused: {} {}", e.code.as_str(), e.message);
        let permitted =
            wire::scope::authorize(&self.store, caller, &self.ctx.merchant, op).map_err(refused)?;
        let reply =
            wire::apply(&mut self.store, &self.ctx, permitted, &mut self.shell).map_err(refused)?;
        let value = serde_json::to_value(&reply.body).map_err(|e| e.to_string())?;
        Ok((reply.status, value))
    }

    /// Sends it and records it as `id`'s examples: the request body (if any) and the answer.
    pub(super) fn record(
        &mut self,
        id: &str,
        method: &str,
        url: &str,
        body: Option<Value>,
        who: &As,
    ) -> R<Value> {
        if let Some(b) = &body {
            self.out.insert(format!("{id}.request"), b.clone());
        }
        let (status, answer) = self.send(method, url, body, who)?;
        self.out.insert(format!("{id}.{status}"), answer.clone());
        Ok(answer)
    }
}

pub(super) fn str_at<'a>(v: &'a Value, pointer: &str) -> R<&'a str> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no {pointer} in {v}"))
}
