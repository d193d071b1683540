//! Hello world as a Rust Worker (scripts/bench.sh): bench/hello's routes, built with the same
//! tools as tokenpad (workers-rs, wasm-bindgen, worker-build, the same release profile).
//! Where bench/hello is the runtime's floor, this is the floor of a Worker written the way
//! tokenpad is: the cost of crossing between wasm and JavaScript, of Rust futures driven by
//! JavaScript promises, of the shim worker-build puts around every call. What tokenpad
//! spends above this is its own work.
//!
//! `/` answers a constant; `/log` writes tokenpad's log line first; `/object` and
//! `/object-write` call one SQLite-backed Durable Object by RPC (one row read, or that row
//! updated in a transaction and read back) and then write the line.

use serde::{Deserialize, Serialize};
use std::cell::Cell;
use worker::wasm_bindgen::prelude::*;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{
    durable_object, event, js_sys, web_sys, Context, DurableObject, Env, Headers, Request,
    Response, SqlStorage, State,
};

#[derive(Serialize, Deserialize)]
struct Row {
    id: String,
    amount: i64,
}

thread_local! {
    static SEQ: Cell<u32> = const { Cell::new(0) };
}

/// tokenpad's request log line, of the same shape and length.
fn log_line(method: &str, route: &str) {
    let n = SEQ.with(|s| {
        s.set(s.get().wrapping_add(1));
        s.get()
    });
    let line = serde_json::json!({
        "type": "request",
        "requestId": format!("req_0123456789abcdef{n:08x}"),
        "method": method,
        "route": route,
        "merchantId": "m_0123456789abcdef",
        "status": 200,
        "code": null,
        "replayed": false,
        "durationMs": 1,
    });
    worker::console_log!("{line}");
}

fn json(body: String) -> worker::Result<Response> {
    let headers = Headers::new();
    headers.set("content-type", "application/json")?;
    Ok(Response::from_bytes(body.into_bytes())?.with_headers(headers))
}

#[wasm_bindgen]
extern "C" {
    /// The ledger's stub, as its RPC methods.
    type LedgerRpc;
    #[wasm_bindgen(method)]
    fn read(this: &LedgerRpc, id: &str) -> js_sys::Promise;
    #[wasm_bindgen(method)]
    fn add(this: &LedgerRpc, id: &str, amount: i32) -> js_sys::Promise;
}

async fn object(env: &Env, write: bool) -> worker::Result<Response> {
    let stub = env
        .durable_object("LEDGER")?
        .id_from_name("bench")?
        .get_stub()?
        .into_rpc::<LedgerRpc>();
    let promise = if write {
        stub.add("h0", 1)
    } else {
        stub.read("h0")
    };
    let body = JsFuture::from(promise)
        .await?
        .as_string()
        .unwrap_or_default();
    if write {
        log_line("POST", "/holder/:userId/spend");
    } else {
        log_line("GET", "/holder/:userId");
    }
    json(body)
}

#[event(fetch)]
async fn fetch(req: web_sys::Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let url = req.url();
    if url.ends_with("/log") {
        log_line("GET", "/holder/:userId");
    } else if url.ends_with("/object") {
        return object(&env, false).await;
    } else if url.ends_with("/object-write") {
        return object(&env, true).await;
    }
    json(r#"{"hello":"world"}"#.to_string())
}

#[durable_object]
pub struct Ledger {
    sql: SqlStorage,
    state: State,
}

impl DurableObject for Ledger {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        // A failure here shows as every later call failing, which the benchmark reports.
        let _ = sql.exec(
            "CREATE TABLE IF NOT EXISTS balances (id TEXT PRIMARY KEY, amount INTEGER NOT NULL)",
            None,
        );
        let _ = sql.exec(
            "INSERT OR IGNORE INTO balances (id, amount) VALUES ('h0', 0)",
            None,
        );
        Ledger { sql, state }
    }

    async fn fetch(&self, _req: Request) -> worker::Result<Response> {
        Response::error("call by RPC", 400)
    }
}

/// One row as JSON text.
fn row(sql: &SqlStorage, id: &str) -> worker::Result<String> {
    let rows: Vec<Row> = sql
        .exec(
            "SELECT id, amount FROM balances WHERE id = ?",
            Some(vec![id.into()]),
        )?
        .to_array()?;
    serde_json::to_string(&rows.first()).map_err(|e| worker::Error::RustError(e.to_string()))
}

#[wasm_bindgen(wasm_bindgen = ::worker::wasm_bindgen, wasm_bindgen_futures = ::worker::wasm_bindgen_futures)]
impl Ledger {
    /// One row, as JSON text.
    pub async fn read(&self, id: String) -> Result<String, JsValue> {
        row(&self.sql, &id).map_err(|e| JsValue::from(e.to_string()))
    }

    /// The row updated in a transaction (`transactionSync`, as tokenpad runs each write),
    /// then read back, as JSON text.
    pub async fn add(&self, id: String, amount: i32) -> Result<String, JsValue> {
        let storage = self.state.storage();
        let storage: &JsValue = storage.as_raw().as_ref();
        let transaction_sync: js_sys::Function =
            js_sys::Reflect::get(storage, &JsValue::from_str("transactionSync"))?.dyn_into()?;
        let sql = self.sql.clone();
        let update = Closure::once(move || -> Result<JsValue, JsValue> {
            let run = || -> worker::Result<String> {
                sql.exec(
                    "UPDATE balances SET amount = amount + ? WHERE id = ?",
                    Some(vec![amount.into(), id.as_str().into()]),
                )?;
                row(&sql, &id)
            };
            run()
                .map(JsValue::from)
                .map_err(|e| JsValue::from(e.to_string()))
        });
        Ok(transaction_sync
            .call1(storage, update.as_ref())?
            .as_string()
            .unwrap_or_default())
    }
}
