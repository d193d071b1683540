//! Token creation jobs. Creating a token submits its deployment transaction on the chain
//! port; the job succeeds, and the token exists, once that transaction is mined. The mining
//! time goes on the merchant's schedule, so the Durable Object alarm finishes the job on
//! time even when no request arrives; reads also finish due jobs first, so a read is never
//! behind the clock.

use crate::address::Address;
use crate::chain;
use crate::error::{Error, ErrorCode, Result};
use crate::merchant::Ctx;
use crate::store::Store;
use crate::time::Millis;
use crate::token::{token_json, CreateToken};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Pending,
    Success,
    Failed,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Success => "success",
            JobStatus::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: String,
    pub status: JobStatus,
    pub token_address: Address,
    pub tx_hash: String,
    pub submitted_at: Millis,
    pub mined_at: Millis,
    pub request: CreateToken,
    pub error: Option<String>,
}

const KEY_PREFIX: &str = "job:";

/// Submits the deployment of a new token and records the job. `job_id` is a fresh UUID.
pub fn create_token(
    store: &mut dyn Store,
    ctx: &Ctx,
    request: CreateToken,
    job_id: String,
) -> Result<Job> {
    let address = chain::next_contract_address(store, &ctx.merchant.address)?;
    let hash = chain::submit(
        store,
        &ctx.merchant.id,
        "deploy",
        &[&address.0, request.symbol.as_bytes()],
        ctx.now,
    )?;
    let job = Job {
        id: job_id,
        status: JobStatus::Pending,
        token_address: address,
        tx_hash: hash,
        submitted_at: ctx.now,
        mined_at: chain::mined_at(ctx.now),
        request,
        error: None,
    };
    store.put_job(&job)?;
    store.schedule(&format!("{KEY_PREFIX}{}", job.id), job.mined_at)?;
    Ok(job)
}

/// Finishes a job whose transaction is mined: the token comes into existence.
fn finish(store: &mut dyn Store, ctx: &Ctx, id: &str) -> Result<()> {
    let Some(mut job) = store.job(id)? else {
        return Ok(());
    };
    if job.status != JobStatus::Pending {
        return Ok(());
    }
    if store.token(&job.token_address)?.is_some() {
        job.status = JobStatus::Failed;
        job.error = Some("a contract already exists at the deployment address".into());
    } else {
        let token =
            job.request
                .clone()
                .into_token(job.token_address, ctx.merchant.address, job.mined_at);
        token.check_conservation()?;
        store.put_token(&token)?;
        job.status = JobStatus::Success;
    }
    store.put_job(&job)
}

/// Finishes the token-creation job a schedule key names, if the key is one of ours.
pub fn run_scheduled(store: &mut dyn Store, ctx: &Ctx, key: &str) -> Result<bool> {
    match key.strip_prefix(KEY_PREFIX) {
        Some(id) => finish(store, ctx, id).map(|_| true),
        None => Ok(false),
    }
}

pub fn find(store: &dyn Store, id: &str) -> Result<Job> {
    store
        .job(id)?
        .ok_or_else(|| Error::new(ErrorCode::JobNotFound, format!("No job with id {id}")))
}

/// `{ jobId, status, transactionHash, data?: Token, error? }`.
pub fn to_json(store: &dyn Store, job: &Job) -> Result<Value> {
    let mut v = json!({
        "jobId": job.id,
        "status": job.status.as_str(),
        "transactionHash": job.tx_hash,
        "tokenAddress": job.token_address.to_checksum(),
    });
    if job.status == JobStatus::Success {
        v["blockNumber"] = json!(chain::block_number(job.mined_at));
    }
    if job.status == JobStatus::Success {
        if let Some(token) = store.token(&job.token_address)? {
            let (holders, count) = store.top_holders(&token.address, 100)?;
            v["data"] = token_json(&token, &holders, count);
        }
    }
    if let Some(e) = &job.error {
        v["error"] = Value::String(e.clone());
    }
    Ok(v)
}
