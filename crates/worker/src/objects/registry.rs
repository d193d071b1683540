//! The registry Durable Object: the one global object. It lists merchants (for the admin
//! faucet and time travel) and holds the service clock's time-travel offset. It is never on
//! the path of a merchant request: keys name their merchant, so the edge goes straight to
//! the merchant's own object. The one exception is deployments: the overview page at
//! `/deployments/:id` carries no key, so each merchant object records here which merchant
//! owns each of its deployment ids (a follow-up of the create, retried until it lands:
//! `objects::followup`). And `/health` on an EVM chain reads here what each merchant's
//! settler last reported of the node and its relayer.

use crate::hop::{self, RegistryCall, RegistryState};
use crate::http;
use serde::Deserialize;
use std::cell::Cell;
use tokenpad_core::model::ids::{DeploymentId, MerchantId};
use tokenpad_core::wire::health::ChainReport;
use tokenpad_core::{Error, Result};
use worker::{
    durable_object, wasm_bindgen, DurableObject, Env, Request, Response, SqlStorage, State,
};

#[durable_object]
pub struct RegistryObject {
    state: State,
    /// Test faults: the next this many deployment-owner writes fail (local runs and tests).
    faults: Cell<u32>,
}

#[derive(Deserialize)]
struct IdRow {
    id: String,
}

#[derive(Deserialize)]
struct OffsetRow {
    value: i64,
}

#[derive(Deserialize)]
struct ReportRow {
    merchant_id: String,
    data: String,
}

#[derive(Deserialize)]
struct OwnerRow {
    merchant_id: String,
}

impl DurableObject for RegistryObject {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            faults: Cell::new(0),
        }
    }

    async fn fetch(&self, req: Request) -> worker::Result<Response> {
        let answer = match hop::read::<RegistryCall>(req).await {
            Ok(call) => self.handle(call),
            Err(e) => Err(e),
        };
        match answer {
            Ok(state) => http::json(200, &state),
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
        for stmt in [
            "CREATE TABLE IF NOT EXISTS merchants (id TEXT PRIMARY KEY, name TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS clock (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL)",
            "CREATE TABLE IF NOT EXISTS deployments (id TEXT PRIMARY KEY, merchant_id TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS chain_reports (merchant_id TEXT PRIMARY KEY, data TEXT NOT NULL)",
        ] {
            sql.exec(stmt, None).map_err(db)?;
        }
        Ok(sql)
    }

    fn offset(sql: &SqlStorage) -> Result<u64> {
        let rows: Vec<OffsetRow> = sql
            .exec("SELECT value FROM clock WHERE id = 1", None)
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows
            .first()
            .map(|r| u64::try_from(r.value).unwrap_or(0))
            .unwrap_or(0))
    }

    fn ids(sql: &SqlStorage) -> Result<Vec<MerchantId>> {
        let rows: Vec<IdRow> = sql
            .exec("SELECT id FROM merchants ORDER BY rowid", None)
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows
            .into_iter()
            .map(|r| MerchantId::new_unchecked(r.id))
            .collect())
    }

    fn handle(&self, call: RegistryCall) -> Result<RegistryState> {
        let sql = self.sql()?;
        let mut state = RegistryState {
            offset_ms: Self::offset(&sql)?,
            ..RegistryState::default()
        };
        match call {
            RegistryCall::Register { id, name } => {
                sql.exec(
                    "INSERT OR IGNORE INTO merchants (id, name) VALUES (?, ?)",
                    vec![id.as_str().into(), name.into()],
                )
                .map_err(db)?;
            }
            RegistryCall::Advance { seconds } => {
                state.offset_ms = state.offset_ms.saturating_add(seconds.saturating_mul(1000));
                sql.exec(
                    "INSERT INTO clock (id, value) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET value = excluded.value",
                    vec![i64::try_from(state.offset_ms).unwrap_or(i64::MAX).into()],
                )
                .map_err(db)?;
                state.merchants = Self::ids(&sql)?;
            }
            // Which merchant owns a memecoin or airdrop deployment (its overview page).
            RegistryCall::RegisterDeployment { id, merchant } => {
                if let Some(left) = self.faults.get().checked_sub(1) {
                    self.faults.set(left);
                    return Err(Error::internal("injected registry write fault"));
                }
                sql.exec(
                    "INSERT OR IGNORE INTO deployments (id, merchant_id) VALUES (?, ?)",
                    vec![id.as_str().into(), merchant.as_str().into()],
                )
                .map_err(db)?;
            }
            RegistryCall::FindDeployment { id } => {
                state.deployment_owner = Self::owner(&sql, &id)?;
            }
            RegistryCall::List => state.merchants = Self::ids(&sql)?,
            // What /health says of the chain: each settler's latest round.
            RegistryCall::ChainReport { merchant, report } => {
                let data =
                    serde_json::to_string(&report).map_err(|e| Error::internal(e.to_string()))?;
                sql.exec(
                    "INSERT INTO chain_reports (merchant_id, data) VALUES (?, ?) ON CONFLICT(merchant_id) DO UPDATE SET data = excluded.data",
                    vec![merchant.as_str().into(), data.into()],
                )
                .map_err(db)?;
            }
            RegistryCall::ChainHealth => {
                state.chain_reports = Self::reports(&sql)?.into_iter().map(|(_, r)| r).collect();
            }
            RegistryCall::ChainReports => state.merchant_reports = Self::reports(&sql)?,
            RegistryCall::Faults { count } => self.faults.set(count),
        }
        Ok(state)
    }

    /// Every merchant's latest chain report.
    fn reports(sql: &SqlStorage) -> Result<Vec<(MerchantId, ChainReport)>> {
        let rows: Vec<ReportRow> = sql
            .exec("SELECT merchant_id, data FROM chain_reports", None)
            .and_then(|c| c.to_array())
            .map_err(db)?;
        // A row that does not read (written by another version) is skipped, never an error.
        Ok(rows
            .iter()
            .filter_map(|r| {
                let report = serde_json::from_str(&r.data).ok()?;
                Some((MerchantId::new_unchecked(r.merchant_id.clone()), report))
            })
            .collect())
    }

    fn owner(sql: &SqlStorage, id: &DeploymentId) -> Result<Option<MerchantId>> {
        let rows: Vec<OwnerRow> = sql
            .exec(
                "SELECT merchant_id FROM deployments WHERE id = ?",
                vec![id.as_str().into()],
            )
            .and_then(|c| c.to_array())
            .map_err(db)?;
        Ok(rows
            .into_iter()
            .next()
            .map(|r| MerchantId::new_unchecked(r.merchant_id)))
    }
}
