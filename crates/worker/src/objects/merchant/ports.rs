//! The merchant object as the core's pipeline sees it (`tokenpad_core::serve::Object`): its
//! SQLite transactions (`transactionSync`, with the row cache and the books checked at each
//! commit: `adapters/txn.rs`), the records it keeps hot (`memory.rs`), the rendered texts it
//! keeps (`render.rs`, `presale_texts.rs`, `page_texts.rs`), its callers' budgets (`budgets.rs`), the
//! dashboard's members (`members.rs`) and its follow-ups (`outbox.rs`). What a request goes
//! through is the core's (`serve`); only how each step touches the platform is here.

use super::{outbox, page_texts, presale_texts, render, MerchantObject};
use crate::adapters::sql::{SqlStore, Watch};
use crate::adapters::txn::transaction;
use crate::adapters::wallet::{session_key, WalletMaker, WorkerShell};
use crate::http;
use std::cell::RefCell;
use std::rc::Rc;
use tokenpad_core::model::account::Role;
use tokenpad_core::model::ids::MerchantId;
use tokenpad_core::model::key::ApiKey;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::due::Retry;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::ops::Ctx;
use tokenpad_core::serve::{Object, Txn};
use tokenpad_core::session_token::SigningKey;
use tokenpad_core::store::keys::KeyStore;
use tokenpad_core::store::Store;
use tokenpad_core::wire::scope::Permitted;
use tokenpad_core::wire::{Reply, Response, Shell};
use tokenpad_core::{Error, Result};

/// The object serving one call: its links render with the call's base URL.
pub(super) struct Serving<'a> {
    pub(super) object: &'a MerchantObject,
    pub(super) base_url: String,
    /// The merchant, once read (the shell signs sessions for it).
    merchant: RefCell<Option<MerchantId>>,
}

impl<'a> Serving<'a> {
    pub(super) fn new(object: &'a MerchantObject, base_url: String) -> Serving<'a> {
        Serving {
            object,
            base_url,
            merchant: RefCell::new(None),
        }
    }
}

/// A transaction of the object (or a read outside one): its store, the shell made only when
/// an operation asks for it, and the texts the object keeps.
pub(super) struct WorkerTxn {
    store: SqlStore,
    shell: Option<WorkerShell>,
    env: worker::Env,
    base_url: String,
    merchant: Option<MerchantId>,
    watch: Watch,
    rendered: Rc<RefCell<render::Rendered>>,
    presale_texts: Rc<RefCell<presale_texts::PresaleTexts>>,
}

/// Where a read's kept text is found (`Txn::recall`): a presale's reads, or a holder's newest
/// history page.
pub enum Memo {
    Presale(presale_texts::Key),
    Page(page_texts::Key),
}

impl Txn for WorkerTxn {
    type Memo = Memo;

    fn store(&mut self) -> &mut dyn Store {
        &mut self.store
    }

    fn parts(&mut self) -> (&mut dyn Store, &mut dyn Shell) {
        let shell = self.shell.get_or_insert_with(|| WorkerShell {
            wallets: WalletMaker::from_env(&self.env),
            base_url: self.base_url.clone(),
            allow_private_urls: crate::config::flag(&self.env, "ALLOW_PRIVATE_WEBHOOK_URLS"),
            env: self.env.clone(),
            merchant: self
                .merchant
                .clone()
                .unwrap_or_else(|| MerchantId::new_unchecked("")),
        });
        (&mut self.store, shell)
    }

    fn encode(&mut self, body: &Response) -> Result<String> {
        match self.rendered.try_borrow_mut() {
            Ok(mut memo) => memo.encode(body),
            Err(_) => http::encode(body),
        }
        .map_err(|e| Error::internal(format!("encode: {e}")))
    }

    fn recall(&mut self, ctx: &Ctx, p: &Permitted) -> (Option<Self::Memo>, Option<String>) {
        let recalled = |text: String| {
            let n = &self.watch.recalled;
            n.set(n.get().saturating_add(1));
            (None, Some(text))
        };
        if let Some(key) = page_texts::Key::of(&self.store, ctx, p.op()) {
            return match key.get(&self.store) {
                Some(text) => recalled(text),
                None => (Some(Memo::Page(key)), None),
            };
        }
        let key = presale_texts::Key::of(&self.store, ctx, p.caller(), p.op());
        if let (Some(k), Ok(mut texts)) = (&key, self.presale_texts.try_borrow_mut()) {
            if let Some(text) = texts.get(&self.watch, k) {
                return recalled(text);
            }
        }
        (key.map(Memo::Presale), None)
    }

    fn remember(&mut self, memo: Self::Memo, text: &str) {
        match memo {
            Memo::Page(key) => key.keep(&self.store, text),
            Memo::Presale(key) => {
                if let Ok(mut texts) = self.presale_texts.try_borrow_mut() {
                    texts.keep(&self.watch, key, text);
                }
            }
        }
    }

    fn queue(&mut self, ctx: &Ctx, reply: &Reply) -> Result<bool> {
        outbox::queue(&self.store, ctx, reply)
    }
}

impl Object for Serving<'_> {
    type Txn = WorkerTxn;

    fn run<T: 'static>(
        &self,
        writes: bool,
        f: impl FnOnce(&mut WorkerTxn) -> Result<T> + 'static,
    ) -> Result<T> {
        let o = self.object;
        let mut t = WorkerTxn {
            store: o.store()?,
            shell: None,
            env: o.env.clone(),
            base_url: self.base_url.clone(),
            merchant: self.merchant.borrow().clone(),
            watch: o.watch.clone(),
            rendered: Rc::clone(&o.kept.rendered),
            presale_texts: Rc::clone(&o.kept.presale_texts),
        };
        if writes {
            transaction(&o.state.storage(), &o.watch, move || f(&mut t))
        } else {
            f(&mut t)
        }
    }

    fn merchant(&self) -> Result<Option<Merchant>> {
        let merchant = self.object.hot_merchant(&self.object.store()?)?;
        *self.merchant.borrow_mut() = merchant.as_ref().map(|m| m.id.clone());
        Ok(merchant)
    }

    fn keys(&self) -> Result<Vec<ApiKey>> {
        self.object.hot_keys(&self.object.store()?)
    }

    fn key_hash(&self, key: &str, keys: &[ApiKey]) -> String {
        crate::key_hashes::of(key, |hash| {
            keys.iter()
                .any(|k| tokenpad_core::auth::hashes_equal(&k.hash, hash))
        })
    }

    fn touch(&self, record: ApiKey) {
        let written = self.run(true, move |t| t.store.put_api_key(&record));
        if let Err(e) = written {
            worker::console_error!("a key's last use: {}", e.message);
        }
    }

    fn session_key(&self, merchant: &Merchant) -> Result<SigningKey> {
        session_key(&self.object.env, &merchant.id)
    }

    fn dashboard_role(&self, merchant: &Merchant, token: &str) -> Result<Role> {
        let store = self.object.store()?;
        self.object.dashboard_role(&store, &merchant.id, token)
    }

    fn charge(&self, caller: &Caller, client: &str) -> Result<()> {
        self.object.charge(caller, client)
    }

    fn ctx(&self, now: Millis, merchant: Merchant) -> Result<Ctx> {
        self.object.ctx(now, merchant)
    }

    fn maybe_due(&self, now: Millis) -> bool {
        // Nothing due is known without a query, most of the time.
        !matches!(self.object.hot_due(), Ok(at) if at.is_none_or(|at| at > now))
    }

    fn due_failed(&self, item: &str, error: &Error, retry: Retry) {
        match retry {
            Retry::At(_) => {
                worker::console_error!("due item {item} failed, retried later: {error}")
            }
            Retry::Parked => {
                worker::console_error!("due item {item} parked after repeated failures: {error}")
            }
        }
        // The item moved (or left the schedule): the alarm must follow.
        self.object.schedule.moved();
    }

    fn due_stopped(&self, error: &Error) {
        // Storage itself failed (not an item): the alarm tries again.
        worker::console_error!("due work stopped: {error}");
        self.object.schedule.moved();
    }

    fn log(&self, line: &str) {
        worker::console_error!("{line}");
    }

    fn base_url(&self) -> String {
        self.object.base_url()
    }

    fn pruned_at(&self) -> Millis {
        self.object.callers.idempotency_pruned_at.get()
    }

    fn set_pruned_at(&self, at: Millis) {
        self.object.callers.idempotency_pruned_at.set(at);
    }
}
