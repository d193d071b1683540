//! Applying a typed operation: each family applies its own (`token::apply`, `ledger::apply`,
//! ...); this takes it as its caller was permitted it (`scope::authorize`), charges a session,
//! seals the events it wrote and hides what a public reader of a private merchant may not see. It runs inside the merchant
//! object's transaction, so it is synchronous by construction.

use super::deployment::{self, DeploymentAnswer};
use super::holder::{self, HolderAnswer};
use super::hooks::{self, HookResponse};
use super::keys::{self, KeyAnswer};
use super::ledger::{self, LedgerAnswer};
use super::market::{self, MarketAnswer};
use super::merchant::{self, MerchantAnswer};
use super::op::Op;
use super::presale::{self, PresaleAnswer};
use super::scope;
use super::session::{self, SessionAnswer};
use super::token::{self, TokenAnswer};
use crate::error::Result;
use crate::ops::session::access::Caller;
use crate::ops::Ctx;
use crate::store::Store;
use serde::Serialize;

pub use super::shell::Shell;

/// Every answer body of a merchant operation, by resource family.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Response {
    Token(TokenAnswer),
    Holder(HolderAnswer),
    Ledger(LedgerAnswer),
    Deployment(DeploymentAnswer),
    Presale(PresaleAnswer),
    Market(MarketAnswer),
    Session(SessionAnswer),
    Merchant(MerchantAnswer),
    /// The merchant's API keys (`keys`).
    Keys(KeyAnswer),
    /// The event log and webhooks (`hooks`).
    Hooks(HookResponse),
}

/// An answer: its HTTP status and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Response,
}

/// Applies an operation for the merchant in `ctx`, as the caller it was permitted to (whom the
/// object checked, and [`scope::authorize`]d before any idempotent replay): a session's limits
/// are charged first, in the same transaction, and a public reader of a private merchant sees
/// addresses.
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    permitted: scope::Permitted,
    shell: &mut dyn Shell,
) -> Result<Reply> {
    let (caller, op) = permitted.into_parts();
    let caller = &caller;
    scope::charge(store, &ctx.chain.usdc(), caller, &op)?;
    let read = !op.writes();
    let mut reply = run(store, ctx, caller, op, shell)?;
    // The payloads of the events it wrote (`event::seal`), so they commit with it; events show
    // the resource as the secret-key API does, whoever asked. A read wrote none.
    if !read {
        super::event::seal(store, shell.base_url())?;
    }
    redact(&mut reply, caller, &ctx.merchant);
    Ok(reply)
}

/// What a public reader (a public key, a session token) of a merchant in private mode sees:
/// holders named by their addresses, never by their userIds.
fn redact(reply: &mut Reply, caller: &Caller, merchant: &crate::model::merchant::Merchant) {
    if caller.is_secret() || !merchant.private_mode {
        return;
    }
    match &mut reply.body {
        Response::Presale(PresaleAnswer::Presale(p)) => super::presale::redact(p),
        Response::Token(TokenAnswer::Token(t)) => {
            for h in &mut t.holders {
                h.id = h.address.to_checksum();
            }
        }
        _ => {}
    }
}

/// What an idempotency record keeps instead of this answer, if not the answer itself: a
/// key is shown once, so the write that made it is never replayed (`keys::kept_instead`).
pub fn kept_instead(reply: &Reply) -> Option<crate::error::Error> {
    match &reply.body {
        Response::Keys(answer) => keys::kept_instead(answer),
        _ => None,
    }
}

/// The family's answer as a reply.
fn reply<T>(answer: Result<(u16, T)>, family: fn(T) -> Response) -> Result<Reply> {
    let (status, body) = answer?;
    Ok(Reply {
        status,
        body: family(body),
    })
}

/// Each family's `apply` (and `decode`, `op.rs`) is `#[inline(never)]`: inlined here, they
/// made one 71 KB function, which V8 compiles whole at its first call after a Worker starts
/// (it compiles wasm lazily, a function at a time), so the first read after a restart paid
/// for compiling every family's code. Apart, a request compiles its own family's alone.
fn run(
    store: &mut dyn Store,
    ctx: &Ctx,
    caller: &Caller,
    op: Op,
    shell: &mut dyn Shell,
) -> Result<Reply> {
    match op {
        Op::Token(op) => reply(token::apply(store, ctx, op, shell), Response::Token),
        Op::Holder(op) => reply(holder::apply(store, ctx, op, shell), Response::Holder),
        Op::Ledger(op) => reply(ledger::apply(store, ctx, op), Response::Ledger),
        Op::Deployment(op) => reply(
            deployment::apply(store, ctx, op, shell),
            Response::Deployment,
        ),
        Op::Presale(op) => reply(presale::apply(store, ctx, op, shell), Response::Presale),
        Op::Market(op) => reply(market::apply(store, ctx, op), Response::Market),
        Op::Session(op) => reply(
            session::apply(store, ctx, caller, op, shell),
            Response::Session,
        ),
        Op::Merchant(op) => reply(merchant::apply(store, ctx, op), Response::Merchant),
        Op::Keys(op) => reply(keys::apply(store, ctx, op, shell), Response::Keys),
        Op::Hooks(op) => reply(hooks::apply(store, ctx, op, shell), Response::Hooks),
    }
}
