//! The merchant Durable Object: one per merchant, the strongly consistent ledger.
//!
//! Every request for a merchant runs here, one at a time. An API call is: check the key ->
//! run due work -> replay an idempotent answer, or apply the typed operation inside one
//! SQLite transaction (with its idempotency record) -> answer. Nothing awaits between
//! reading a balance and writing it, so concurrent requests can never interleave inside an
//! operation and never overdraw. The one alarm is always set to the earliest scheduled item,
//! so time-based work happens on time with no request arriving.

use super::idempotency;
use super::live;
use crate::adapters::evm::{self, config::ChainConfig};
use crate::adapters::sql::SqlStore;
use crate::adapters::txn::transaction;
use crate::adapters::wallet::{WalletMaker, WorkerShell};
use crate::hop::{self, ApiCall, InitArgs, MerchantCall};
use crate::http;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use tokenpad_core::auth::{hashes_equal, key_hash, parse_key, KeyKind};
use tokenpad_core::model::address::Address;
use tokenpad_core::model::amount::Usdc;
use tokenpad_core::model::decimal::Decimal;
use tokenpad_core::model::ids::DeploymentId;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::{iso8601, Millis};
use tokenpad_core::ops::{self, Ctx};
use tokenpad_core::ratelimit::{Bucket, Limit};
use tokenpad_core::store::Store;
use tokenpad_core::wire::admin::{ChainFaultsResult, FaucetResult, MerchantCreated};
use tokenpad_core::wire::deployment::DeploymentOverview;
use tokenpad_core::wire::settlement::Settlement;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{
    durable_object, wasm_bindgen, DurableObject, Env, Request, Response, State, WebSocket,
    WebSocketIncomingMessage,
};

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
    /// Requests this merchant may still make; in memory, because the object is the one
    /// place all of a merchant's requests pass (a restart forgives, which is fine).
    bucket: RefCell<Bucket>,
    limit: Limit,
    /// The chain this object settles on (a bad configuration is kept, as the error it is).
    chain: Result<ChainConfig>,
}

impl DurableObject for MerchantObject {
    fn new(state: State, env: Env) -> Self {
        let limit = rate_limit(&env);
        let chain = evm::config::read(&env);
        Self {
            state,
            env,
            migrated: Cell::new(false),
            bucket: RefCell::new(Bucket::default()),
            limit,
            chain,
        }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        if live::is_upgrade(&req) {
            return self.live(&req).or_else(|e| http::error(&e));
        }
        let outcome = match hop::read::<MerchantCall>(req).await {
            Ok(call) => self.handle(call).await,
            Err(e) => Err(e),
        };
        match outcome {
            Ok(resp) => Ok(resp),
            Err(e) => http::error(&e),
        }
    }

    async fn alarm(&self) -> worker::Result<Response> {
        // An error here makes the runtime retry the alarm with backoff, which is what we want.
        let now = self.now().map_err(to_worker)?;
        if let Some(merchant) = self.store().and_then(|s| s.merchant()).map_err(to_worker)? {
            self.run_due(now, merchant).map_err(to_worker)?;
        }
        self.reschedule().await.map_err(to_worker)?;
        Response::ok("")
    }

    async fn websocket_message(
        &self,
        ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> worker::Result<()> {
        live::on_message(&ws);
        Ok(())
    }

    async fn websocket_close(
        &self,
        ws: WebSocket,
        code: usize,
        _reason: String,
        _was_clean: bool,
    ) -> worker::Result<()> {
        live::on_close(&ws, code);
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> worker::Result<()> {
        live::on_close(&ws, 1011);
        Ok(())
    }
}

/// RATE_LIMIT_PER_SECOND (default 200; 0 turns the limit off) and RATE_LIMIT_BURST (default
/// twice the rate), per merchant.
fn rate_limit(env: &Env) -> Limit {
    let num =
        |name: &str| crate::config::string(env, name).and_then(|v| v.trim().parse::<u64>().ok());
    let per_second = num("RATE_LIMIT_PER_SECOND").unwrap_or(200);
    Limit {
        per_second,
        burst: num("RATE_LIMIT_BURST").unwrap_or(per_second.saturating_mul(2)),
    }
}

fn to_worker(e: Error) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

impl MerchantObject {
    fn store(&self) -> Result<SqlStore> {
        let store = SqlStore::new(self.state.storage().sql());
        if !self.migrated.get() {
            store.migrate()?;
            self.migrated.set(true);
        }
        Ok(store)
    }

    fn offset(&self) -> Result<Millis> {
        Ok(self
            .store()?
            .meta::<Clock>(CLOCK_KEY)?
            .unwrap_or_default()
            .offset_ms)
    }

    /// The service clock: real time plus the time-travel offset (0 unless a local run moved it).
    fn now(&self) -> Result<Millis> {
        Ok(worker::Date::now().as_millis() + self.offset()?)
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

    async fn handle(&self, call: MerchantCall) -> Result<Response> {
        match call {
            MerchantCall::Api(api) => self.api(*api).await,
            MerchantCall::Init(args) => self.init(args),
            MerchantCall::Advance { offset_ms } => self.advance(offset_ms).await,
            MerchantCall::Faucet { address, usdc } => self.faucet(address, usdc).await,
            MerchantCall::ChainFaults { count } => {
                let mut store = self.store()?;
                self.merchant()?;
                transaction(&self.state.storage(), move || {
                    ops::chain::inject_faults(&mut store, count)
                })?;
                http::json(
                    200,
                    &ChainFaultsResult {
                        success: true,
                        fail_next: u64::from(count),
                    },
                )
                .map_err(internal)
            }
            MerchantCall::DeploymentPage { id, base_url } => self.page(&id, &base_url),
        }
    }

    async fn api(&self, call: ApiCall) -> Result<Response> {
        // Every keyed request counts, valid key or not: a flood of bad keys costs the same.
        self.bucket
            .borrow_mut()
            .take(self.limit, worker::Date::now().as_millis())?;
        let store = self.store()?;
        let merchant = store
            .merchant()?
            .ok_or_else(|| Error::new(ErrorCode::InvalidApiKey, "Invalid API key"))?;
        check_key(&merchant, &call.key)?;
        // A request that did not decode is refused only now, after its key was checked.
        let op = call.op?;
        let changes = live::changes_state(&op);
        let now = self.now()?;
        self.run_due(now, merchant.clone())?;

        // The edge passes an idempotency key only for operations that change state.
        if let Some(idem) = &call.idempotency {
            if let Some(resp) = idempotency::replay(&store, idem, now)? {
                return Ok(resp);
            }
        }

        // Most operations (a spend, a read) leave the schedule alone; the alarm is only
        // touched when the earliest due time moved.
        let next_before = store.next_due()?;
        let ctx = self.ctx(now, merchant)?;
        let mut shell = WorkerShell {
            wallets: WalletMaker::from_env(&self.env),
            base_url: call.base_url,
        };
        let idem = call.idempotency;
        let mut tx_store = self.store()?;
        let outcome = transaction(&self.state.storage(), move || {
            let reply = tokenpad_core::wire::apply(&mut tx_store, &ctx, op, &mut shell)?;
            let body =
                http::encode(&reply.body).map_err(|e| Error::internal(format!("encode: {e}")))?;
            if let Some(idem) = &idem {
                idempotency::record(&tx_store, idem, reply.status, &body, ctx.now)?;
            }
            Ok((reply.status, body))
        });
        if outcome.is_ok() && store.next_due()? != next_before {
            self.reschedule().await?;
        }
        let (status, body) = outcome?;
        if changes {
            live::publish(&self.state, &store, now);
        }
        live::stamp(http::json_text(status, body).map_err(internal)?, now)
    }

    /// A client's WebSocket for live updates (`GET /live`, see `live.rs`).
    fn live(&self, req: &Request) -> Result<Response> {
        self.bucket
            .borrow_mut()
            .take(self.limit, worker::Date::now().as_millis())?;
        let store = self.store()?;
        let merchant = store
            .merchant()?
            .ok_or_else(|| Error::new(ErrorCode::InvalidApiKey, "Invalid API key"))?;
        let now = self.now()?;
        self.run_due(now, merchant.clone())?;
        live::accept(&self.state, &store, req, now, |key| {
            check_key(&merchant, key)
        })
    }

    /// Finishes whatever is due, in its own transaction, so it commits even when the
    /// request that triggered it is then refused.
    fn run_due(&self, now: Millis, merchant: Merchant) -> Result<()> {
        let mut store = self.store()?;
        if store.due(now)?.is_empty() {
            return Ok(());
        }
        let ctx = self.ctx(now, merchant)?;
        transaction(&self.state.storage(), move || {
            ops::due::run_due(&mut store, &ctx).map(|_| ())
        })?;
        live::publish(&self.state, &self.store()?, now);
        Ok(())
    }

    /// Points the object's one alarm at the earliest scheduled item (in real time).
    async fn reschedule(&self) -> Result<()> {
        let next = self.store()?.next_due()?;
        let storage = self.state.storage();
        match next {
            Some(at) => {
                let real = at.saturating_sub(self.offset()?);
                let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(real as f64));
                storage
                    .set_alarm(worker::ScheduledTime::new(date))
                    .await
                    .map_err(internal)
            }
            None => storage.delete_alarm().await.map_err(internal),
        }
    }

    fn init(&self, args: InitArgs) -> Result<Response> {
        let wallet = WalletMaker::from_env(&self.env).new_wallet()?;
        self.store()?.put_meta(
            CLOCK_KEY,
            &Clock {
                offset_ms: args.offset_ms,
            },
        )?;
        let merchant = Merchant {
            id: args.id,
            name: args.name,
            address: wallet.address,
            sealed_key: wallet.sealed_key,
            secret_key_hash: args.secret_key_hash,
            public_key_hash: args.public_key_hash,
            created_at: self.now()?,
        };
        let mut store = self.store()?;
        let m = merchant.clone();
        transaction(&self.state.storage(), move || {
            ops::merchant::init(&mut store, &m)
        })?;
        http::json(
            201,
            &MerchantCreated {
                id: merchant.id,
                name: merchant.name,
                merchant_address: merchant.address,
                secret_key: None,
                public_key: None,
            },
        )
        .map_err(internal)
    }

    async fn advance(&self, offset_ms: Millis) -> Result<Response> {
        self.store()?.put_meta(CLOCK_KEY, &Clock { offset_ms })?;
        let now = self.now()?;
        if let Some(merchant) = self.store()?.merchant()? {
            self.run_due(now, merchant)?;
        }
        self.reschedule().await?;
        http::json(200, &serde_json::json!({ "now": iso8601(now) })).map_err(internal)
    }

    async fn faucet(&self, address: Address, usdc: Usdc) -> Result<Response> {
        let merchant = self.merchant()?;
        let now = self.now()?;
        self.run_due(now, merchant.clone())?;
        let mut store = self.store()?;
        let ctx = self.ctx(now, merchant)?;
        let stamp = transaction(&self.state.storage(), move || {
            ops::ledger::deposit_usdc(&mut store, &ctx, &address, usdc)
        })?;
        live::publish(&self.state, &self.store()?, now);
        http::json(
            200,
            &FaucetResult {
                success: true,
                settlement: Settlement::of(&stamp),
                address,
                usdc_amount: Decimal::of(usdc),
            },
        )
        .map_err(internal)
    }

    fn page(&self, id: &DeploymentId, base_url: &str) -> Result<Response> {
        self.merchant()?;
        let store = self.store()?;
        let d = ops::deployment::find(&store, id, None)?;
        http::json(200, &DeploymentOverview::read(&store, &d, base_url)?).map_err(internal)
    }
}

/// The key must be well formed, name this merchant, and hash to the stored hash of its kind.
fn check_key(merchant: &Merchant, key: &str) -> Result<()> {
    let invalid = || Error::new(ErrorCode::InvalidApiKey, "Invalid API key");
    let (kind, id) = parse_key(key).ok_or_else(invalid)?;
    let stored = match kind {
        KeyKind::Secret => &merchant.secret_key_hash,
        KeyKind::Public => &merchant.public_key_hash,
    };
    if id == merchant.id && hashes_equal(&key_hash(key), stored) {
        Ok(())
    } else {
        Err(invalid())
    }
}
