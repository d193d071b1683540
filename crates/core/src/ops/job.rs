//! Token creation jobs. Creating a token submits its deployment transaction on the chain
//! port; the job succeeds, and the token exists, once that transaction is mined. The mining
//! time goes on the merchant's schedule, so the Durable Object alarm finishes the job on
//! time even when no request arrives; reads also finish due jobs first, so a read is never
//! behind the clock.

use super::launch::{self, NewToken, Supply};
use super::{chain, Ctx};
use crate::error::{Error, ErrorCode, Result};
use crate::model::chain::mined_at;
use crate::model::ids::JobId;
use crate::model::intent::Then;
use crate::model::job::{Job, JobStatus};
use crate::model::token::{TokenOrigin, TokenSpec};
use crate::store::{DueKey, Store};

/// Submits the deployment of a new token and records the job. `id` is a fresh UUID.
pub fn create_token(store: &mut dyn Store, ctx: &Ctx, spec: TokenSpec, id: JobId) -> Result<Job> {
    let (address, salt) = chain::next_contract_address(store, ctx)?;
    let stamp = chain::stamp(
        store,
        ctx,
        "deploy",
        &[&address.address().0, spec.symbol.as_bytes()],
        ctx.now,
    )?;
    let job = Job {
        id,
        status: JobStatus::Pending,
        token_address: address,
        tx_hash: stamp.hash,
        submitted_at: ctx.now,
        mined_at: mined_at(ctx.now),
        block: None,
        request: spec,
        error: None,
    };
    store.put_job(&job)?;
    if ctx.chain.is_evm() {
        // The job finishes once the settler sees the deployment mined.
        let action = chain::deploy(
            &salt,
            &job.request.name,
            &job.request.symbol,
            job.request.total_supply,
        );
        let intent = chain::want(ctx, address, action).with_then(Then::FinishJob(job.id.clone()));
        chain::intend(store, ctx, intent)?;
    } else {
        store.schedule(&DueKey::Job(job.id.clone()), job.mined_at)?;
    }
    Ok(job)
}

/// Finishes a job whose transaction is mined: the token comes into existence.
pub fn finish(store: &mut dyn Store, ctx: &Ctx, id: &JobId) -> Result<()> {
    let Some(mut job) = store.job(id)? else {
        return Ok(());
    };
    if job.status != JobStatus::Pending {
        return Ok(());
    }
    if launch::address_free(store, &job.token_address)? {
        launch::launch(
            store,
            ctx,
            NewToken {
                address: job.token_address,
                spec: job.request.clone(),
                supply: Supply::Dashboard,
                price: None,
                origin: TokenOrigin::Dashboard,
                marketplace: false,
                pool: None,
                at: job.mined_at,
                tx_hash: job.tx_hash.clone(),
            },
        )?;
        job.status = JobStatus::Success;
    } else {
        job.status = JobStatus::Failed;
        job.error = Some("a contract already exists at the deployment address".into());
    }
    store.put_job(&job)
}

/// This merchant's job `id`, or 404 `job_not_found`.
pub fn find(store: &dyn Store, id: &JobId) -> Result<Job> {
    store
        .job(id)?
        .ok_or_else(|| Error::new(ErrorCode::JobNotFound, format!("No job with id {id}")))
}
