//! The merchant in memory that `super::examples` runs its scenario on: a `MemStore`, a fixed
//! clock and fixed randomness (the same ids and addresses every run), and `World::record`,
//! which sends a request as the edge decodes it and the merchant's object serves it (the
//! core's pipeline, `serve`, over this world's ports).

use crate::model::account::Role;
use crate::model::chain::ChainMode;
use crate::model::holder::NewWallet;
use crate::model::ids::MerchantId;
use crate::model::key::ApiKey;
use crate::model::key::KeyKind;
use crate::model::merchant::Merchant;
use crate::model::time::Millis;
use crate::model::wallet::Wallet;
use crate::ops::session::access::Caller;
use crate::ops::{self, Ctx};
use crate::serve::{self, Call, Credential, Object, Txn};
use crate::session_token::SigningKey;
use crate::store::keys::KeyStore;
use crate::store::mem::MemStore;
use crate::store::Store;
use crate::wire::op::{Op, Parts};
use crate::wire::{routes, Reply, Shell};
use serde_json::Value;
use std::cell::RefCell;
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
    /// The merchant's secret and public keys.
    secret: String,
    public: String,
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
        let [secret, public] = [KeyKind::Secret, KeyKind::Public]
            .map(|kind| crate::auth::new_key(kind, &merchant.id, &[0x3c; 32]));
        let keys = [(KeyKind::Secret, &secret), (KeyKind::Public, &public)]
            .map(|(kind, key)| ops::keys::record(kind, ops::keys::DEFAULT_NAME, key, T0));
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
            secret,
            public,
        })
    }

    /// Moves the clock on and runs what came due (mined blocks, launches).
    pub(super) fn advance(&mut self, ms: Millis) -> R<()> {
        self.ctx.now += ms;
        let (now, merchant) = (self.ctx.now, self.ctx.merchant.clone());
        serve::due::run(&Ports(RefCell::new(self)), now, &merchant);
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
        let credential = match who {
            As::Secret => Credential::Key(self.secret.clone()),
            As::Public => Credential::Key(self.public.clone()),
            As::Session(token) => Credential::Session(token.clone()),
        };
        let call = Call {
            credential,
            op: Ok(op),
            idempotency: None,
            client: "examples".into(),
            now: self.ctx.now,
        };
        let served = serve::serve(&Ports(RefCell::new(self)), call, |_, _| ());
        let (status, text) = served
            .answer
            .map_err(|e| format!("{method} {url} refused: {} {}", e.code.as_str(), e.message))?;
        let value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        Ok((status, value))
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

/// The world as the pipeline's object (`serve::Object`): its store and shell, taken out for
/// a transaction and put back.
struct Ports<'a>(RefCell<&'a mut World>);

/// A transaction of the world.
struct ExampleTxn {
    store: MemStore,
    shell: ExampleShell,
}

impl Txn for ExampleTxn {
    type Memo = ();

    fn store(&mut self) -> &mut dyn Store {
        &mut self.store
    }

    fn parts(&mut self) -> (&mut dyn Store, &mut dyn Shell) {
        (&mut self.store, &mut self.shell)
    }

    fn queue(&mut self, _ctx: &Ctx, _reply: &Reply) -> crate::Result<bool> {
        Ok(false)
    }
}

impl Object for Ports<'_> {
    type Txn = ExampleTxn;

    fn run<T: 'static>(
        &self,
        writes: bool,
        f: impl FnOnce(&mut ExampleTxn) -> crate::Result<T> + 'static,
    ) -> crate::Result<T> {
        let mut w = self.0.borrow_mut();
        let mut t = ExampleTxn {
            store: std::mem::take(&mut w.store),
            shell: ExampleShell { n: w.shell.n },
        };
        t.store.books.clear();
        let out = f(&mut t).and_then(|v| {
            if writes {
                t.store.commit()?;
            }
            Ok(v)
        });
        w.store = t.store;
        w.shell = t.shell;
        out
    }

    fn merchant(&self) -> crate::Result<Option<Merchant>> {
        Ok(Some(self.0.borrow().ctx.merchant.clone()))
    }

    fn keys(&self) -> crate::Result<Vec<ApiKey>> {
        self.0.borrow().store.api_keys()
    }

    fn touch(&self, record: ApiKey) {
        let _ = self.run(true, move |t| t.store.put_api_key(&record));
    }

    fn session_key(&self, _merchant: &Merchant) -> crate::Result<SigningKey> {
        self.0.borrow().shell.session_key()
    }

    fn dashboard_role(&self, _merchant: &Merchant, _token: &str) -> crate::Result<Role> {
        Err(crate::Error::new(
            crate::ErrorCode::InvalidApiKey,
            "Invalid API key",
        ))
    }

    fn charge(&self, _caller: &Caller, _client: &str) -> crate::Result<()> {
        Ok(())
    }

    fn ctx(&self, now: Millis, merchant: Merchant) -> crate::Result<Ctx> {
        Ok(Ctx {
            now,
            merchant,
            chain: ChainMode::Embedded,
        })
    }

    fn base_url(&self) -> String {
        self.0.borrow().shell.base_url().to_string()
    }

    fn pruned_at(&self) -> Millis {
        self.0.borrow().ctx.now
    }
}

pub(super) fn str_at<'a>(v: &'a Value, pointer: &str) -> R<&'a str> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no {pointer} in {v}"))
}
