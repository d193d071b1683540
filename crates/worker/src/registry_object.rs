//! The registry Durable Object: the one global object. It lists merchants (for the admin
//! faucet and time travel) and holds the service clock's time-travel offset. It is never on
//! the path of a merchant request: keys name their merchant, so the edge goes straight to
//! the merchant's own object. The one exception is deployments: the overview page at
//! `/deployments/:id` carries no key, so the edge records which merchant owns each id here.

use crate::http;
use serde::Deserialize;
use serde_json::{json, Value};
use tokenpad_core::{Error, Result};
use worker::{
    durable_object, wasm_bindgen, DurableObject, Env, Request, Response, SqlStorage, State,
};

#[durable_object]
pub struct RegistryObject {
    state: State,
}

#[derive(Deserialize)]
struct Call {
    op: String,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize)]
struct IdRow {
    id: String,
}

#[derive(Deserialize)]
struct OffsetRow {
    value: i64,
}

impl DurableObject for RegistryObject {
    fn new(state: State, _env: Env) -> Self {
        Self { state }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let call = match req
            .text()
            .await
            .ok()
            .and_then(|t| serde_json::from_str::<Call>(&t).ok())
        {
            Some(c) => c,
            None => return http::error(&Error::internal("bad registry call")),
        };
        match self.handle(&call) {
            Ok(v) => http::json(200, &v),
            Err(e) => http::error(&e),
        }
    }
}

fn db(e: worker::Error) -> Error {
    Error::internal(format!("registry storage: {e}"))
}

impl RegistryObject {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        sql.exec(
            "CREATE TABLE IF NOT EXISTS merchants (id TEXT PRIMARY KEY, name TEXT NOT NULL)",
            None,
        )
        .map_err(db)?;
        sql.exec(
            "CREATE TABLE IF NOT EXISTS clock (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)",
            None,
        )
        .map_err(db)?;
        sql.exec(
            "CREATE TABLE IF NOT EXISTS deployments (id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL)",
            None,
        )
        .map_err(db)?;
        Ok(sql)
    }

    fn offset(sql: &SqlStorage) -> Result<i64> {
        let rows: Vec<OffsetRow> = sql
            .exec("SELECT value FROM clock WHERE id = 1", None)
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows.first().map(|r| r.value).unwrap_or(0))
    }

    fn ids(sql: &SqlStorage) -> Result<Vec<String>> {
        let rows: Vec<IdRow> = sql
            .exec("SELECT id FROM merchants ORDER BY rowid", None)
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows.into_iter().map(|r| r.id).collect())
    }

    fn handle(&self, call: &Call) -> Result<Value> {
        let sql = self.sql()?;
        match call.op.as_str() {
            "register" => {
                let id = call
                    .args
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let name = call
                    .args
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                sql.exec(
                    "INSERT OR IGNORE INTO merchants (id, name) VALUES (?, ?)",
                    vec![id.into(), name.into()],
                )
                .map_err(db)?;
                Ok(json!({ "offsetMs": Self::offset(&sql)? }))
            }
            "advance" => {
                let seconds = call
                    .args
                    .get("seconds")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                let offset = Self::offset(&sql)?.saturating_add(seconds.saturating_mul(1000));
                sql.exec(
                    "INSERT INTO clock (id, value) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET value = excluded.value",
                    vec![offset.into()],
                )
                .map_err(db)?;
                Ok(json!({ "offsetMs": offset, "merchants": Self::ids(&sql)? }))
            }
            // Which merchant owns a memecoin or airdrop deployment (its overview page).
            "register_deployment" => {
                let arg = |k: &str| call.args.get(k).and_then(Value::as_str).unwrap_or_default();
                let (id, merchant_id) = (arg("id"), arg("merchantId"));
                if id.is_empty() || merchant_id.is_empty() {
                    return Err(Error::internal(
                        "register_deployment needs id and merchantId",
                    ));
                }
                sql.exec(
                    "INSERT OR IGNORE INTO deployments (id, merchant_id) VALUES (?, ?)",
                    vec![id.into(), merchant_id.into()],
                )
                .map_err(db)?;
                Ok(json!({ "ok": true }))
            }
            "find_deployment" => {
                #[derive(Deserialize)]
                struct OwnerRow {
                    merchant_id: String,
                }
                let id = call
                    .args
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let rows: Vec<OwnerRow> = sql
                    .exec(
                        "SELECT merchant_id FROM deployments WHERE id = ?",
                        vec![id.into()],
                    )
                    .and_then(|c| c.to_array())
                    .map_err(db)?;
                Ok(json!({ "merchantId": rows.first().map(|r| r.merchant_id.clone()) }))
            }
            "list" => Ok(json!({ "offsetMs": Self::offset(&sql)?, "merchants": Self::ids(&sql)? })),
            other => Err(Error::internal(format!("unknown registry op {other}"))),
        }
    }
}
