//! The merchant Durable Object: one per merchant, the strongly consistent ledger.
//!
//! Every request for a merchant runs here, one at a time (`api.rs`), through the core's
//! pipeline (`tokenpad_core::serve`: check the credential and charge its caller's budget,
//! once -> authorize the operation, once -> run due work item by item -> replay an idempotent
//! answer, or apply the operation inside one SQLite transaction with its idempotency record
//! and its follow-ups), over this object's ports (`ports.rs`); then the follow-ups
//! (`followup.rs`: the alarm, the registry), whose failure never turns the committed answer
//! into an error -> tell live push (`objects/live`) -> answer. Nothing awaits between reading
//! a balance and writing it, so concurrent requests can never interleave inside an operation
//! and never overdraw. The alarm (`alarm` below) runs due work, the chain's settlement (`settle.rs`) and
//! webhook deliveries (`webhooks.rs`); the operator's calls are in `operator.rs` (the chain's
//! in `chain_view.rs`), the test faults in `faults.rs`, how the edge calls in `rpc.rs`.
//!
//! The object's state between requests is in a few groups, each owned by the file that uses
//! it: [`MerchantObject`] lists them.

mod api;
mod budgets;
mod caller;
mod chain_view;
mod due;
mod faults;
mod followup;
mod gate;
mod members;
mod memory;
mod operator;
mod outbox;
mod page_texts;
mod ports;
mod presale_texts;
mod render;
mod rpc;
mod settle;
mod webhooks;

use super::live;
use crate::adapters::evm;
use crate::adapters::sql::{SqlStore, Watch};
use crate::hop::{self, MerchantCall};
use crate::http::Answer;
use std::cell::Cell;
use tokenpad_core::model::merchant::Merchant;
use tokenpad_core::model::time::Millis;
use tokenpad_core::ops::Ctx;
use tokenpad_core::ratelimit::budgets::Budgets;
use tokenpad_core::store::Store;
use tokenpad_core::{Error, ErrorCode, Result};
use worker::{durable_object, wasm_bindgen, DurableObject, Env, Request, Response, State};

#[durable_object]
pub struct MerchantObject {
    state: State,
    env: Env,
    /// Which kinds of state this object's stores wrote (the copies in `kept` and `hooks`
    /// forget theirs by it), and how many SQL statements they ran.
    watch: Watch,
    /// The schema was migrated by this instance.
    migrated: Cell<bool>,
    /// Copies of committed state and of answers already rendered (`memory.rs`).
    kept: memory::Kept,
    /// Its callers' budgets and idempotency records (`caller.rs`).
    callers: caller::Callers,
    /// Where the alarm points, and whether follow-ups wait (`followup.rs`).
    schedule: followup::Schedule,
    /// The chain it settles on and its settler (`settle.rs`).
    chain: settle::Chain,
    /// Webhook deliveries (`webhooks.rs`).
    hooks: webhooks::Hooks,
    /// Live push: which relays follow which topics, and the timer that sends them changes
    /// (`objects/live`).
    live: live::Hub,
    /// Test faults armed, and a local run's statement count (`faults.rs`).
    faults: faults::Faults,
    /// Writes arriving together go through together, in one commit (`gate.rs`).
    gate: gate::WriteGate,
}

impl DurableObject for MerchantObject {
    fn new(state: State, env: Env) -> Self {
        let watch = Watch::default();
        let kept = memory::Kept::default();
        let live = live::Hub::new(
            state.as_raw(),
            env.clone(),
            watch.clone(),
            kept.clock.clone(),
        );
        Self {
            callers: caller::Callers::new(Budgets::new(budgets::limits(&env))),
            chain: settle::Chain::new(evm::config::read(&env)),
            faults: faults::Faults::new(crate::config::flag(&env, "ALLOW_TIME_TRAVEL")),
            state,
            env,
            watch,
            migrated: Cell::new(false),
            kept,
            schedule: followup::Schedule::default(),
            hooks: webhooks::Hooks::default(),
            live,
            gate: gate::WriteGate::default(),
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
        // The alarm that fired is gone: until it is set again, where it pointed is not known.
        self.schedule.moved();
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

impl MerchantObject {
    fn store(&self) -> Result<SqlStore> {
        let mut store = SqlStore::new(self.state.storage().sql()).watching(self.watch.clone());
        if !self.migrated.get() {
            store.migrate()?;
            self.migrated.set(true);
        }
        Ok(store)
    }

    /// What an operation runs with: the time, the merchant, and the chain.
    fn ctx(&self, now: Millis, merchant: Merchant) -> Result<Ctx> {
        Ok(Ctx {
            now,
            merchant,
            chain: self.chain.mode()?,
        })
    }

    /// The merchant this object holds; operator calls to an empty object are a 404.
    fn merchant(&self) -> Result<Merchant> {
        self.store()?
            .merchant()?
            .ok_or_else(|| Error::new(ErrorCode::MerchantNotFound, "No such merchant"))
    }

    /// One call. The API's arm is the hot one; every other arm is a function of its own, the
    /// async ones boxed, so that this stays small: V8 compiles wasm a function at a time at
    /// its first call, and with every arm inlined here (47 KB) the first request after a
    /// restart compiled the operator's, the dashboard's and the test faults' code as well.
    async fn handle(&self, call: MerchantCall) -> Result<Answer> {
        match call {
            MerchantCall::Api(api) => self.api(*api).await,
            MerchantCall::Watch(call) => self.admit_socket(call),
            MerchantCall::Init(args) => self.init(args),
            MerchantCall::Advance { offset_ms } => Box::pin(self.advance(offset_ms)).await,
            MerchantCall::Faucet { address, usdc } => Box::pin(self.faucet(address, usdc)).await,
            MerchantCall::ChainFaults { count } => self.chain_faults(count),
            MerchantCall::DeploymentPage { id, base_url } => self.page(&id, &base_url),
            MerchantCall::Fault { kind, count } => Box::pin(self.fault(kind, count)).await,
            MerchantCall::ChainView => self.chain_view(),
            MerchantCall::StepsView => self.steps_view(),
            MerchantCall::ChainRetry => Box::pin(self.chain_retry()).await,
            MerchantCall::Members(call) => self.members(call),
        }
    }
}
