//! The merchant Durable Object: one per merchant, the strongly consistent ledger.
//!
//! Every request for a merchant runs here, one at a time. Each operation is decode -> check
//! the key -> run due work -> apply the core inside one SQLite transaction (with its
//! idempotency record) -> encode. Nothing awaits between reading a balance and writing it,
//! so concurrent requests can never interleave inside an operation and never overdraw.
//! The one alarm is always set to the earliest scheduled item, so time-based work happens
//! on time with no request arriving.

use crate::envelope::Envelope;
use crate::handlers;
use crate::http;
use crate::sql_store::SqlStore;
use crate::txn::transaction;
use crate::wallet::WalletMaker;
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::{Cell, RefCell};
use tokenpad_core::auth::{hashes_equal, key_hash, parse_key, KeyKind};
use tokenpad_core::crypto::sha256_hex;
use tokenpad_core::due;
use tokenpad_core::merchant::{Ctx, Merchant};
use tokenpad_core::ratelimit::{Bucket, Limit};
use tokenpad_core::store::Store;
use tokenpad_core::time::{iso8601, Millis};
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{durable_object, wasm_bindgen, DurableObject, Env, Request, Response, State};

/// Idempotency records are kept this long.
const IDEMPOTENCY_TTL: Millis = 24 * 3600 * 1000;
const CLOCK_KEY: &str = "clock";

#[durable_object]
pub struct MerchantObject {
    state: State,
    env: Env,
    migrated: Cell<bool>,
    /// Requests this merchant may still make; in memory, because the object is the one
    /// place all of a merchant's requests pass (a restart forgives, which is fine).
    bucket: RefCell<Bucket>,
    limit: Limit,
}

impl DurableObject for MerchantObject {
    fn new(state: State, env: Env) -> Self {
        let limit = rate_limit(&env);
        Self {
            state,
            env,
            migrated: Cell::new(false),
            bucket: RefCell::new(Bucket::default()),
            limit,
        }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let envelope = match req
            .text()
            .await
            .ok()
            .and_then(|t| serde_json::from_str::<Envelope>(&t).ok())
        {
            Some(e) => e,
            None => return http::error(&Error::internal("bad envelope")),
        };
        match self.handle(envelope).await {
            Ok(resp) => Ok(resp),
            Err(e) => http::error(&e),
        }
    }

    async fn alarm(&self) -> worker::Result<Response> {
        // An error here makes the runtime retry the alarm with backoff, which is what we want.
        let now = self.now().map_err(to_worker)?;
        if let Some(merchant) =
            Merchant::load(&self.store().map_err(to_worker)?).map_err(to_worker)?
        {
            self.run_due(now, merchant).map_err(to_worker)?;
        }
        self.reschedule().await.map_err(to_worker)?;
        Response::ok("")
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitArgs {
    id: String,
    name: String,
    secret_key_hash: String,
    public_key_hash: String,
    #[serde(default)]
    offset_ms: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AdvanceArgs {
    offset_ms: u64,
}

#[derive(Deserialize)]
struct IdemRow {
    fingerprint: String,
    status: i64,
    body: String,
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
            .meta(CLOCK_KEY)?
            .and_then(|v| v.get("offsetMs").and_then(Value::as_u64))
            .unwrap_or(0))
    }

    /// The service clock: real time plus the time-travel offset (0 unless a local run moved it).
    fn now(&self) -> Result<Millis> {
        Ok(worker::Date::now().as_millis() + self.offset()?)
    }

    async fn handle(&self, req: Envelope) -> Result<Response> {
        match req.op.as_str() {
            "init" => return self.init(&req),
            "advance" => return self.advance(&req).await,
            _ => {}
        }
        // Every keyed request counts, valid key or not: a flood of bad keys costs the same.
        if req.key.is_some() {
            self.bucket
                .borrow_mut()
                .take(self.limit, worker::Date::now().as_millis())?;
        }
        let store = self.store()?;
        let merchant = Merchant::load(&store)?
            .ok_or_else(|| Error::new(ErrorCode::InvalidApiKey, "Invalid API key"))?;
        // Internal operations come only from the edge's admin routes, already authorised.
        // `deployment_page` is the keyless overview page: the edge found its merchant.
        if !matches!(
            req.op.as_str(),
            "faucet" | "chain_faults" | "deployment_page"
        ) {
            check_key(&merchant, req.key.as_deref())?;
        }
        let now = self.now()?;
        self.run_due(now, merchant.clone())?;

        // The edge passes an idempotency key only for operations that change state.
        let idem = req.idempotency_key.clone().map(|k| (k, fingerprint(&req)));
        if let Some((key, print)) = &idem {
            if let Some(resp) = replay(&store, key, print, now)? {
                return Ok(resp);
            }
        }

        // Most operations (a spend, a read) leave the schedule alone; the alarm is only
        // touched when the earliest due time moved.
        let next_before = store.next_due()?;
        let ctx = Ctx { now, merchant };
        let wallets = WalletMaker::from_env(&self.env);
        let mut tx_store = self.store()?;
        let outcome = transaction(&self.state.storage(), move || {
            let (status, body) = handlers::dispatch(&mut tx_store, &ctx, &req, wallets)?;
            if let Some((key, print)) = idem {
                record(&tx_store, &key, &print, status, &body, ctx.now)?;
            }
            Ok((status, body))
        });
        if outcome.is_ok() && store.next_due()? != next_before {
            self.reschedule().await?;
        }
        match outcome {
            Ok((status, body)) => http::json(status, &body).map_err(internal),
            Err(e) => http::error(&e).map_err(internal),
        }
    }

    /// Finishes whatever is due, in its own transaction, so it commits even when the
    /// request that triggered it is then refused.
    fn run_due(&self, now: Millis, merchant: Merchant) -> Result<()> {
        let mut store = self.store()?;
        if store.due(now)?.is_empty() {
            return Ok(());
        }
        transaction(&self.state.storage(), move || {
            due::run_due(&mut store, &Ctx { now, merchant }).map(|_| ())
        })
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

    fn init(&self, req: &Envelope) -> Result<Response> {
        let args: InitArgs = serde_json::from_value(req.internal.clone().unwrap_or(Value::Null))
            .map_err(|e| Error::internal(format!("init args: {e}")))?;
        let wallet = WalletMaker::from_env(&self.env).new_wallet()?;
        self.store()?
            .put_meta(CLOCK_KEY, &json!({ "offsetMs": args.offset_ms }))?;
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
            Merchant::init(&mut store, &m)
        })?;
        http::json(201, &merchant.to_json()).map_err(internal)
    }

    async fn advance(&self, req: &Envelope) -> Result<Response> {
        let args: AdvanceArgs = serde_json::from_value(req.internal.clone().unwrap_or(Value::Null))
            .map_err(|e| Error::internal(format!("advance args: {e}")))?;
        let mut store = self.store()?;
        store.put_meta(CLOCK_KEY, &json!({ "offsetMs": args.offset_ms }))?;
        let now = self.now()?;
        if let Some(merchant) = Merchant::load(&store)? {
            self.run_due(now, merchant)?;
        }
        self.reschedule().await?;
        http::json(200, &json!({ "now": iso8601(now) })).map_err(internal)
    }
}

fn internal(e: worker::Error) -> Error {
    Error::internal(e.to_string())
}

/// The key must be well formed, name this merchant, and hash to the stored hash of its kind.
fn check_key(merchant: &Merchant, key: Option<&str>) -> Result<()> {
    let invalid = || Error::new(ErrorCode::InvalidApiKey, "Invalid API key");
    let key = key.ok_or_else(invalid)?;
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

/// What makes two requests "the same": method, path and body (as canonical JSON, so key
/// order and whitespace do not matter).
fn fingerprint(req: &Envelope) -> String {
    let body = match crate::envelope::parse_json(req.body.as_deref()) {
        Ok(v) => v.to_string(),
        Err(_) => req.body.clone().unwrap_or_default(),
    };
    sha256_hex(format!("{} {}\n{}", req.method, req.path, body).as_bytes())
}

fn replay(store: &SqlStore, key: &str, print: &str, now: Millis) -> Result<Option<Response>> {
    let cutoff = now.saturating_sub(IDEMPOTENCY_TTL);
    let rows: Vec<IdemRow> = store.rows(
        "SELECT fingerprint, status, body FROM idempotency WHERE key = ? AND created_at >= ?",
        vec![
            key.into(),
            worker::SqlStorageValue::Integer(i64::try_from(cutoff).unwrap_or(0)),
        ],
    )?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    if row.fingerprint != print {
        return Err(Error::new(
            ErrorCode::IdempotencyKeyReused,
            "This Idempotency-Key was used with a different request",
        ));
    }
    let body: Value = serde_json::from_str(&row.body)
        .map_err(|e| Error::internal(format!("idempotency body: {e}")))?;
    let resp = http::json(u16::try_from(row.status).unwrap_or(200), &body).map_err(internal)?;
    resp.headers()
        .set("idempotent-replayed", "true")
        .map_err(internal)?;
    Ok(Some(resp))
}

/// Stores a successful response under its key, and forgets records older than a day.
fn record(
    store: &SqlStore,
    key: &str,
    print: &str,
    status: u16,
    body: &Value,
    now: Millis,
) -> Result<()> {
    let cutoff = now.saturating_sub(IDEMPOTENCY_TTL);
    store.exec(
        "DELETE FROM idempotency WHERE created_at < ?",
        vec![worker::SqlStorageValue::Integer(
            i64::try_from(cutoff).unwrap_or(0),
        )],
    )?;
    store.exec(
        "INSERT OR REPLACE INTO idempotency (key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?)",
        vec![
            key.into(),
            print.into(),
            worker::SqlStorageValue::Integer(i64::from(status)),
            body.to_string().into(),
            worker::SqlStorageValue::Integer(i64::try_from(now).unwrap_or(0)),
        ],
    )?;
    Ok(())
}
