//! The merchant Durable Object: one per merchant, the strongly consistent ledger.
//!
//! Every request for a merchant runs here, one at a time. An API call is: check the key ->
//! charge the caller's rate budget -> run due work (`due`: item by item, a failing item
//! never fails the request) -> replay an idempotent answer, or apply the typed operation
//! inside one SQLite transaction with its idempotency record and its follow-ups -> do the
//! follow-ups (`followup`: the alarm, the registry), whose failure never turns the committed
//! answer into an error -> answer. Nothing awaits between reading a balance and writing it,
//! so concurrent requests can never interleave inside an operation and never overdraw.

mod budgets;
mod caller;
mod due;
mod faults;
mod followup;
mod idempotency;
mod memory;
mod outbox;
mod presale_texts;
mod render;
mod rpc;
mod settle;
mod watch;
mod webhooks;

use super::live;
use crate::adapters::evm::{self, config::ChainConfig};
use crate::adapters::sql::{SqlStore, Watch};
use crate::adapters::txn::transaction;
use crate::adapters::wallet::{WalletMaker, WorkerShell};
use crate::hop::{self, ApiCall, InitArgs, MerchantCall};
use crate::http::{self, Answer};
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Usdc;
use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::ids::DeploymentId;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::{iso8601, Millis};
use tokenpad_core::ops::{self, Ctx};
use tokenpad_core::ratelimit::budgets::Budgets;
use tokenpad_core::store::Store;
use tokenpad_core::wire::admin::{FaucetResult, MerchantCreated};
use tokenpad_core::wire::deployment::DeploymentOverview;
use tokenpad_core::wire::settlement::Settlement;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{durable_object, wasm_bindgen, DurableObject, Env, Request, Response, State};

const CLOCK_KEY: &str = "clock";

/// The object's view of the service clock: the time-travel offset (0 unless a local run
/// moved the clock).
#[derive(Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Clock {
    offset_ms: Millis,
}

#[durable_object]
pub struct MerchantObject {
    state: State,
    env: Env,
    migrated: Cell<bool>,
    /// The requests this merchant's callers may still make (`budgets`).
    budgets: RefCell<Budgets>,
    /// The alarm may not point at the earliest pending work: a write of it failed, or this
    /// instance is new. Set it again at the next chance (`followup`).
    alarm_stale: Cell<bool>,
    /// Where this instance last pointed the alarm (service time; None: no alarm). Trusted
    /// only while the alarm is not stale.
    alarm_at: Cell<Option<Millis>>,
    /// Follow-ups may be waiting (`followup`); true until a pass finds none.
    followups_pending: Cell<bool>,
    /// Test faults: the next this many alarm writes fail (local runs and tests).
    alarm_faults: Cell<u32>,
    /// Test faults: the next this many API answers are lost (local runs and tests).
    lost_answers: Cell<u32>,
    /// The chain this object settles on (a bad configuration is kept, as the error it is).
    chain: Result<ChainConfig>,
    /// A settlement round is running (the alarm's; never two at once).
    settling: Cell<bool>,
    /// The settler's last report to the registry, for `/health` (`settle`).
    chain_report: RefCell<Option<tokenpad_core::wire::health::ChainReport>>,
    /// When deposits were last looked for (service time); a restart looks at once.
    scanned_at: Cell<Millis>,
    /// Webhook deliveries are being sent (the alarm's; never two runs at once).
    delivering: Cell<bool>,
    /// The latest API request's base URL (`webhooks`), for events rendered in the alarm.
    base_url: RefCell<Option<String>>,
    /// When old events were last pruned (service time).
    pruned_at: Cell<Millis>,
    /// The clock's offset as stored (`CLOCK_KEY`), read once: it is written only by `init`
    /// and `advance`, outside any transaction, and this copy is set after each write
    /// succeeded, so it never holds a value SQLite does not.
    offset_ms: Cell<Option<Millis>>,
    /// The merchant record, for API calls, read once from SQLite outside any transaction
    /// (so it is always committed state). Any write of the record through this object's
    /// stores, committed or rolled back, raises `watch.merchant`, and the next API call
    /// reads the record again: a failed transaction can never leave its change here.
    merchant: RefCell<Option<Merchant>>,
    /// When the earliest scheduled item is due (`Some(None)`: nothing is scheduled; `None`:
    /// not known), read outside transactions like the merchant record and forgotten the same
    /// way, when any store of this object writes the schedule (`watch.schedule`): a request
    /// with nothing due runs no query to find that out.
    due_at: Cell<Option<Option<Millis>>>,
    /// Whether the merchant has webhooks (None: not known), kept like `due_at` and forgotten
    /// when any store writes a webhook (`watch.webhooks`): with none, finding the next
    /// delivery takes no query.
    has_webhooks: Cell<Option<bool>>,
    /// When idempotency records older than a day were last forgotten (service time).
    idempotency_pruned_at: Cell<Millis>,
    /// Local runs and tests (ALLOW_TIME_TRAVEL): each answer names the SQL statements its
    /// call ran (`x-sql-statements`).
    count_statements: bool,
    /// The rows of the pages readers poll (history records, token holder rows) kept as the
    /// JSON they were written as (`render.rs`).
    rendered: Rc<RefCell<render::Rendered>>,
    /// A presale's reads kept as the text they answered, until a presale is written
    /// (`presale_texts.rs`).
    presale_texts: Rc<RefCell<presale_texts::PresaleTexts>>,
    /// Live push: which relays follow which topics, and the timer that sends them changes
    /// (`objects/live`).
    live: live::Hub,
    watch: Watch,
}

impl DurableObject for MerchantObject {
    fn new(state: State, env: Env) -> Self {
        let limits = budgets::limits(&env);
        let count_statements = crate::config::flag(&env, "ALLOW_TIME_TRAVEL");
        let chain = evm::config::read(&env);
        let watch = Watch::default();
        let live = live::Hub::new(state.as_raw(), env.clone(), watch.clone());
        Self {
            state,
            env,
            migrated: Cell::new(false),
            budgets: RefCell::new(Budgets::new(limits)),
            alarm_stale: Cell::new(true),
            alarm_at: Cell::new(None),
            followups_pending: Cell::new(true),
            alarm_faults: Cell::new(0),
            lost_answers: Cell::new(0),
            chain,
            settling: Cell::new(false),
            chain_report: RefCell::new(None),
            scanned_at: Cell::new(0),
            delivering: Cell::new(false),
            base_url: RefCell::new(None),
            pruned_at: Cell::new(0),
            offset_ms: Cell::new(None),
            merchant: RefCell::new(None),
            due_at: Cell::new(None),
            has_webhooks: Cell::new(None),
            idempotency_pruned_at: Cell::new(0),
            count_statements,
            rendered: Rc::default(),
            presale_texts: Rc::default(),
            live,
            watch,
        }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        // (An edge of the release before relays hands `GET /live` upgrades here during a
        // deploy: they fail to read as a call, and its clients poll, then reconnect.)
        self.answer(hop::read::<MerchantCall>(req).await)
            .await?
            .into_response()
    }

    async fn alarm(&self) -> worker::Result<Response> {
        // The alarm that fired is gone: until it is set again, what `alarm_at` says is not.
        self.alarm_stale.set(true);
        let now = self.now().map_err(to_worker)?;
        if let Some(merchant) = self.store().and_then(|s| s.merchant()).map_err(to_worker)? {
            // Items that fail are recorded and retried or parked: they never fail the alarm.
            self.run_due(now, &merchant);
            let id = merchant.id.clone();
            // The settler's round (an EVM chain): its failures are recorded, never the alarm's.
            self.settle(now, merchant).await;
            // Webhook deliveries: only here, never inside a request.
            self.deliver_webhooks(&id).await;
        }
        self.deliver_followups(now).await;
        // Failing to set the next alarm fails this one, so the runtime retries it.
        self.sync_alarm().await.map_err(to_worker)?;
        Response::ok("")
    }
}

/// What the caller sees instead of a lost answer (test faults): the call fails, as it does
/// when the object is reset or overloaded while handling it.
fn lost(after_commit: bool) -> worker::Error {
    let when = if after_commit { "after" } else { "before" };
    worker::Error::RustError(format!(
        "injected fault: answer lost {when} the operation ran"
    ))
}

fn to_worker(e: Error) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

/// Whether a refusal from applying an operation is kept under its Idempotency-Key and
/// replayed: every 4xx the operation itself answered (it started executing), never a 429
/// and never a 5xx (a retry may then succeed).
fn recorded(e: &Error) -> bool {
    (400..500).contains(&e.status()) && e.code != ErrorCode::RateLimited
}

impl MerchantObject {
    fn store(&self) -> Result<SqlStore> {
        let store = SqlStore::new(self.state.storage().sql()).watching(self.watch.clone());
        if !self.migrated.get() {
            store.migrate()?;
            self.migrated.set(true);
        }
        Ok(store)
    }

    /// What an operation runs with: the time, the merchant, and the chain.
    fn ctx(&self, now: Millis, merchant: Merchant) -> Result<Ctx> {
        let chain = self.chain.as_ref().map_err(Clone::clone)?.mode();
        Ok(Ctx {
            now,
            merchant,
            chain,
        })
    }

    /// The merchant this object holds; operator calls to an empty object are a 404.
    fn merchant(&self) -> Result<Merchant> {
        self.store()?
            .merchant()?
            .ok_or_else(|| Error::new(ErrorCode::MerchantNotFound, "No such merchant"))
    }

    async fn handle(&self, call: MerchantCall) -> Result<Answer> {
        match call {
            MerchantCall::Api(api) => self.api(*api).await,
            MerchantCall::Init(args) => self.init(args),
            MerchantCall::Advance { offset_ms } => self.advance(offset_ms).await,
            MerchantCall::Faucet { address, usdc } => self.faucet(address, usdc).await,
            MerchantCall::ChainFaults { count } => self.chain_faults(count),
            MerchantCall::DeploymentPage { id, base_url } => self.page(&id, &base_url),
            MerchantCall::Fault { kind, count } => self.fault(kind, count).await,
            MerchantCall::ChainView => self.chain_view(),
            MerchantCall::Watch(call) => self.admit_socket(call),
        }
    }

    async fn api(&self, call: ApiCall) -> Result<Answer> {
        let store = self.store()?;
        let merchant = self
            .hot_merchant(&store)?
            .ok_or_else(|| caller::unknown(&call.credential))?;
        let caller = self.caller(&store, &merchant, &call.credential)?;
        // Only a request whose credential checked spends a budget (`budgets`): strangers with
        // forged keys cannot use one up (the edge limits them per client address).
        self.charge(&caller, &call.client)?;
        // A request that did not decode is refused only now, after its key was checked.
        let op = call.op?;
        // Who may run it, before any replay: a token never replays what it may not do.
        tokenpad_core::wire::scope::authorize(&store, &caller, &merchant, &op)?;
        // A public-key read, out of private mode: the edge may keep its answer a moment.
        let cacheable = !op.writes()
            && matches!(caller, ops::session::access::Caller::Public)
            && !merchant.private_mode;
        let changes = live::changes_state(&op);
        // What the relays hear of it once it commits, besides its changes.
        let tell = live::Tell::of(&op);
        // What may move the schedule: every write, the webhook writes included, which change
        // no public read but queue deliveries (a ping, a replay) for the alarm.
        let schedules = op.writes();
        self.note_base_url(&call.base_url);
        let now = self.now()?;
        // The alarm is touched only when the earliest pending work is not where it points
        // (most operations, a spend or a read, leave the schedule alone), or when it may be
        // wrong. A read changes nothing: only due work it ran can have moved the schedule,
        // and then the alarm is set again after the answer, so a read looks at the schedule
        // only when it ran some.
        if self.run_due(now, &merchant) > 0 && !schedules {
            self.alarm_stale.set(true);
        }

        // The edge passes an idempotency key only for operations that change state.
        if let Some(idem) = &call.idempotency {
            if let Some(resp) = idempotency::replay(&store, &caller, idem, now)? {
                return Ok(resp);
            }
        }

        let ctx = self.ctx(now, merchant)?;
        let mut shell = WorkerShell {
            wallets: WalletMaker::from_env(&self.env),
            base_url: call.base_url,
            allow_private_urls: crate::config::flag(&self.env, "ALLOW_PRIVATE_WEBHOOK_URLS"),
            env: self.env.clone(),
            merchant: ctx.merchant.id.clone(),
        };
        let idem = call.idempotency;
        let record = idem.clone().map(|i| (i, caller.clone()));
        let prune = idem.is_some()
            && now.saturating_sub(self.idempotency_pruned_at.get()) >= idempotency::PRUNE_EVERY;
        let mut tx_store = self.store()?;
        let read = !op.writes();
        let rendered = Rc::clone(&self.rendered);
        let presale_texts = Rc::clone(&self.presale_texts);
        let watch = self.watch.clone();
        let work = move || {
            // A presale's read answered before, and no presale written since: the same text.
            let kept = presale_texts::Key::of(&tx_store, &ctx, &caller, &op);
            if let (Some(key), Ok(mut texts)) = (&kept, presale_texts.try_borrow_mut()) {
                if let Some(text) = texts.get(&watch, key) {
                    return Ok((200, text, false));
                }
            }
            let reply = tokenpad_core::wire::apply(&mut tx_store, &ctx, &caller, op, &mut shell)?;
            let body = match rendered.try_borrow_mut() {
                Ok(mut memo) => memo.encode(&reply.body),
                Err(_) => http::encode(&reply.body),
            }
            .map_err(|e| Error::internal(format!("encode: {e}")))?;
            if let (Some(key), 200, Ok(mut texts)) =
                (kept, reply.status, presale_texts.try_borrow_mut())
            {
                texts.keep(&watch, key, &body);
            }
            if let Some(idem) = &idem {
                if prune {
                    idempotency::prune(&mut tx_store, ctx.now)?;
                }
                idempotency::record(&mut tx_store, &caller, idem, reply.status, &body, ctx.now)?;
            }
            let queued = outbox::queue(&tx_store, &ctx, &reply)?;
            Ok((reply.status, body, queued))
        };
        // A read writes nothing (its route declares it, `Op::writes`; it has no idempotency
        // key, and queues no follow-up): no transaction to open.
        let outcome = if read {
            work()
        } else {
            transaction(&self.state.storage(), &self.watch, work)
        };
        match outcome {
            Ok((status, body, queued)) => {
                if prune {
                    self.idempotency_pruned_at.set(now);
                }
                if queued {
                    self.followups_pending.set(true);
                }
                // Committed: from here on nothing may turn this answer into an error.
                self.settle_soon(now);
                if schedules || self.alarm_stale.get() || self.followups_pending.get() {
                    self.after_commit(now).await;
                }
                if changes {
                    self.live.changed(now);
                    self.tell_relays(tell, &store, now);
                }
                let answer = live::stamp(Answer::json_text(status, body), now);
                Ok(if cacheable && status == 200 {
                    answer.cacheable()
                } else {
                    answer
                })
            }
            Err(e) if recorded(&e) => {
                if let Some((idem, caller)) = record {
                    // The operation ran and refused: that refusal is its answer under this
                    // key (the operation changed nothing: its transaction rolled back).
                    let body = http::encode(&e.to_body())
                        .map_err(|err| Error::internal(format!("encode: {err}")))?;
                    let mut store = self.store()?;
                    let status = e.status();
                    let kept = transaction(&self.state.storage(), &self.watch, move || {
                        idempotency::record(&mut store, &caller, &idem, status, &body, now)
                    });
                    if let Err(err) = kept {
                        worker::console_error!("idempotency record of a refusal: {err}");
                    }
                }
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    fn init(&self, args: InitArgs) -> Result<Answer> {
        let wallet = WalletMaker::from_env(&self.env).new_wallet()?;
        self.set_offset(args.offset_ms)?;
        let merchant = Merchant {
            id: args.id,
            name: args.name,
            address: wallet.address,
            sealed_key: wallet.sealed_key,
            secret_key_hash: args.secret_key_hash,
            public_key_hash: args.public_key_hash,
            created_at: self.now()?,
            private_mode: false,
        };
        let mut store = self.store()?;
        let m = merchant.clone();
        let chain = self.chain.as_ref().map_err(Clone::clone)?.mode();
        transaction(&self.state.storage(), &self.watch, move || {
            ops::merchant::init(&mut store, &m, &chain)
        })?;
        Answer::json(
            201,
            &MerchantCreated {
                id: merchant.id,
                name: merchant.name,
                merchant_address: merchant.address,
                secret_key: None,
                public_key: None,
            },
        )
    }

    async fn advance(&self, offset_ms: Millis) -> Result<Answer> {
        self.set_offset(offset_ms)?;
        let now = self.now()?;
        if let Some(merchant) = self.store()?.merchant()? {
            self.run_due(now, &merchant);
        }
        // The clock moved: the relays learn it (a socket whose session the jump ended is
        // closed), and what the topics show now goes out.
        self.live.clock_moved(now);
        self.deliver_followups(now).await;
        // The clock moved and what came due ran: an alarm that cannot be written now is left
        // stale and written by the next request or call (`after_commit`), not this one's error.
        if let Err(e) = self.sync_alarm().await {
            worker::console_error!("time advance: the alarm: {}", e.message);
        }
        Answer::json(200, &serde_json::json!({ "now": iso8601(now) }))
    }

    async fn faucet(&self, address: Address, usdc: Usdc) -> Result<Answer> {
        let merchant = self.merchant()?;
        let now = self.now()?;
        self.run_due(now, &merchant);
        let mut store = self.store()?;
        let ctx = self.ctx(now, merchant)?;
        let base = self.base_url();
        let stamp = transaction(&self.state.storage(), &self.watch, move || {
            let stamp = ops::ledger::deposit_usdc(&mut store, &ctx, &address, usdc)?;
            tokenpad_core::wire::event::seal(&mut store, &base)?;
            Ok(stamp)
        })?;
        self.settle_soon(now);
        self.after_commit(now).await;
        self.live.changed(now);
        Answer::json(
            200,
            &FaucetResult {
                success: true,
                settlement: Settlement::of(&stamp),
                address,
                usdc_amount: Decimal::of(usdc),
            },
        )
    }

    fn page(&self, id: &DeploymentId, base_url: &str) -> Result<Answer> {
        self.merchant()?;
        let store = self.store()?;
        let d = ops::deployment::find(&store, id, None)?;
        Answer::json(200, &DeploymentOverview::read(&store, &d, base_url)?)
    }
}
