//! Applying a typed operation: the one place an [`Op`] meets its operation and its answer.
//! It runs inside the merchant object's transaction, so it is synchronous by construction.

use super::deployment::{DeploymentCreated, DeploymentStatusResult};
use super::holder::{HolderFull, TokenBalance};
use super::hooks::{self, HookResponse};
use super::ledger::{DistributeResult, LedgerResult, RewardResult, TxPage};
use super::market::{LiquidityCreated, Side, TradeFigures, TradeResult};
use super::op::{HolderRef, Op};
use super::pool::{LpInfo, Pool};
use super::presale::{BuyPresaleResult, Presale, PresaleMerchant, ResolveResult};
use super::schedule::ParkedWork;
use super::scope;
use super::session::{MerchantSettings, SessionCreated, SessionInfo, SessionsRevoked};
use super::settlement::Settlement;
use super::token::{CreateTokenAccepted, Job, Token, DEFAULT_HOLDERS};
use crate::error::Result;
use crate::model::ids::{uuid_v4, DeploymentId, JobId, PresaleId};
use crate::model::session::SessionId;
use crate::model::token::TokenKind;
use crate::ops::ledger::Outflow;
use crate::ops::session::access::Caller;
use crate::ops::{deployment, history, holder, job, ledger, market, presale, session, settings};
use crate::ops::{token, Ctx};
use crate::store::Store;
use serde::Serialize;

pub use super::shell::Shell;

/// Every answer body of a merchant operation.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Response {
    Token(Box<Token>),
    Tokens(Vec<Token>),
    CreateToken(CreateTokenAccepted),
    Job(Box<Job>),
    Holder(HolderFull),
    Balance(TokenBalance),
    Distribute(DistributeResult),
    Ledger(LedgerResult),
    History(TxPage),
    DeploymentCreated(DeploymentCreated),
    DeploymentStatus(DeploymentStatusResult),
    Presale(Presale),
    PresaleMerchant(Box<PresaleMerchant>),
    Presales(Vec<PresaleMerchant>),
    Buy(BuyPresaleResult),
    Resolve(Box<ResolveResult>),
    Reward(Box<RewardResult>),
    Liquidity(Box<LiquidityCreated>),
    Trade(Box<TradeResult>),
    Quote(Box<TradeFigures>),
    ParkedWork(ParkedWork),
    /// The event log and webhooks (`hooks`).
    Hooks(HookResponse),
    SessionCreated(Box<SessionCreated>),
    SessionsRevoked(SessionsRevoked),
    Session(Box<SessionInfo>),
    Settings(MerchantSettings),
}

/// An answer: its HTTP status and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Response,
}

fn ok(body: Response) -> Reply {
    Reply { status: 200, body }
}

fn created(body: Response) -> Reply {
    Reply { status: 201, body }
}

/// Applies `op` for the merchant in `ctx`, as `caller` (whom the object checked, and
/// [`scope::authorize`]d before any idempotent replay): a session's limits are charged
/// first, in the same transaction, and a public reader of a private merchant sees addresses.
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    caller: &Caller,
    op: Op,
    shell: &mut dyn Shell,
) -> Result<Reply> {
    scope::authorize(store, caller, &ctx.merchant, &op)?;
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
        Response::Presale(p) => super::presale::redact(p),
        Response::Token(t) => {
            for h in &mut t.holders {
                h.id = h.address.to_checksum();
            }
        }
        _ => {}
    }
}

fn run(
    store: &mut dyn Store,
    ctx: &Ctx,
    caller: &Caller,
    op: Op,
    shell: &mut dyn Shell,
) -> Result<Reply> {
    Ok(match op {
        Op::CreateToken(req) => {
            let id = JobId::new_unchecked(uuid_v4(shell.random16()?));
            let job = job::create_token(store, ctx, req.into_spec(ctx)?, id)?;
            created(Response::CreateToken(CreateTokenAccepted::of(&job)))
        }
        Op::Job(id) => {
            let job = job::find(store, &id)?;
            let mut answer = Job::read(store, &job, shell.base_url())?;
            if job.status == crate::model::job::JobStatus::Pending {
                answer.waiting = settlement_stopped(store, ctx)?;
            }
            ok(Response::Job(Box::new(answer)))
        }
        Op::PatchToken(address, req) => {
            let t = token::patch(store, &address, &req)?;
            ok(Response::Token(Box::new(Token::read(
                store,
                &t,
                DEFAULT_HOLDERS,
            )?)))
        }
        Op::Token(address, limit) => {
            let t = token::find(store, &address)?;
            ok(Response::Token(Box::new(Token::read(store, &t, limit)?)))
        }
        Op::AllTokens => {
            let all = store
                .tokens()?
                .iter()
                .filter(|t| t.kind == TokenKind::Merchant)
                .map(|t| Token::read(store, t, DEFAULT_HOLDERS))
                .collect::<Result<Vec<Token>>>()?;
            ok(Response::Tokens(all))
        }
        Op::PutHolder(user_id) => {
            let (h, was_created) =
                holder::get_or_create(store, ctx, &user_id, &mut || shell.new_wallet())?;
            let body = Response::Holder(HolderFull::read(store, &h)?);
            if was_created {
                created(body)
            } else {
                ok(body)
            }
        }
        Op::GetHolder(user_id) => {
            let h = holder::find(store, &user_id)?;
            ok(Response::Holder(HolderFull::read(store, &h)?))
        }
        Op::HolderToken(who, address) => {
            let owner = match who {
                HolderRef::Address(a) => a,
                HolderRef::User(u) => holder::find(store, &u)?.address,
            };
            let t = token::find(store, &address)?;
            ok(Response::Balance(TokenBalance::read(store, &owner, &t)?))
        }
        Op::Distribute(address, req) => {
            let receipt = ledger::distribute(store, ctx, &address, &req)?;
            ok(Response::Distribute(DistributeResult {
                success: true,
                settlement: Settlement::of(&receipt.stamp),
            }))
        }
        Op::Reward(address, req) => {
            let receipt = ledger::distribute(store, ctx, &address, &req)?;
            Reply {
                status: 202,
                body: Response::Reward(Box::new(RewardResult::of(&receipt))),
            }
        }
        Op::CreateLiquidity(address, req) => {
            let (t, pool) = market::open_liquidity(store, ctx, &address, &req)?;
            created(Response::Liquidity(Box::new(LiquidityCreated {
                success: true,
                status: if pool.position.id.is_some() {
                    "success"
                } else {
                    "pending"
                }
                .into(),
                token_address: t.address,
                lp_info: LpInfo::of(&pool),
                pool: Pool::of(&pool, &t),
                data: Token::read(store, &t, DEFAULT_HOLDERS)?,
            })))
        }
        Op::Buy(user_id, req) => {
            let r = market::buy(store, ctx, &user_id, &req)?;
            ok(Response::Trade(Box::new(TradeResult::of(&r))))
        }
        Op::Sell(user_id, req) => {
            let r = market::sell(store, ctx, &user_id, &req)?;
            ok(Response::Trade(Box::new(TradeResult::of(&r))))
        }
        Op::BuyQuote(user_id, q) => {
            holder::find(store, &user_id)?;
            let (t, before, trade) = market::quote_buy(
                store,
                &q.token_address,
                q.usdc_amount.as_ref().map(|u| u.amount()),
                q.token_amount.as_ref().map(|n| n.amount().cast()),
            )?;
            let figures = TradeFigures::of(Side::Buy, &t, &before, &trade);
            ok(Response::Quote(Box::new(figures)))
        }
        Op::SellQuote(user_id, q) => {
            holder::find(store, &user_id)?;
            let (t, before, trade) =
                market::quote_sell(store, &q.token_address, q.token_amount.amount().cast())?;
            let figures = TradeFigures::of(Side::Sell, &t, &before, &trade);
            ok(Response::Quote(Box::new(figures)))
        }
        Op::Spend(user_id, req) => move_out(store, ctx, &user_id, Outflow::Spend(req))?,
        Op::Transfer(user_id, req) => move_out(store, ctx, &user_id, Outflow::Transfer(req))?,
        Op::Withdraw(user_id, req) => move_out(store, ctx, &user_id, Outflow::Withdraw(req))?,
        Op::History(user_id, q) => {
            let h = holder::find(store, &user_id)?;
            let stopped = settlement_stopped(store, ctx)?;
            ok(Response::History(TxPage::of(
                history::page(store, &h.user_id, &q)?,
                stopped.as_deref(),
            )))
        }
        Op::CreateDeployment(req) => {
            let spec = req.spec()?;
            let id = DeploymentId::new_unchecked(uuid_v4(shell.random16()?));
            let d = deployment::create(store, ctx, spec, id)?;
            created(Response::DeploymentCreated(DeploymentCreated { id: d.id }))
        }
        Op::DeploymentStatus(kind, id) => {
            let d = deployment::find(store, &id, Some(kind))?;
            let mut answer = DeploymentStatusResult::of(&d, shell.base_url());
            if d.status == crate::model::deployment::DeploymentStatus::Pending {
                answer.data.waiting = settlement_stopped(store, ctx)?;
            }
            ok(Response::DeploymentStatus(answer))
        }
        Op::CreatePresale(req) => {
            let id = PresaleId::new_unchecked(uuid_v4(shell.random16()?));
            let p = presale::create(store, ctx, req, id)?;
            created(Response::Presale(Presale::read(store, &p, ctx.now)?))
        }
        Op::ListPresales => {
            let all = store
                .presales()?
                .iter()
                .map(|p| PresaleMerchant::read(store, p, ctx.now))
                .collect::<Result<Vec<PresaleMerchant>>>()?;
            ok(Response::Presales(all))
        }
        Op::MerchantPresale(id) => {
            let p = presale::find(store, &id)?;
            ok(Response::PresaleMerchant(Box::new(PresaleMerchant::read(
                store, &p, ctx.now,
            )?)))
        }
        Op::PublicPresale(id) => {
            let p = presale::find(store, &id)?;
            ok(Response::Presale(Presale::read(store, &p, ctx.now)?))
        }
        Op::BuyPresale(user_id, req) => {
            let purchase = presale::buy(store, ctx, &user_id, &req)?;
            ok(Response::Buy(BuyPresaleResult::of(&purchase)))
        }
        Op::CreateSession(user_id, req) => {
            let id = SessionId(uuid_v4(shell.random16()?));
            let key = shell.session_key()?;
            let issued = session::create(store, ctx, &user_id, &req, id, &key)?;
            created(Response::SessionCreated(Box::new(SessionCreated {
                token: issued.token,
                session: SessionInfo::of(&issued.session),
            })))
        }
        Op::RevokeSessions(user_id) => {
            let revoked = session::revoke(store, ctx, &user_id)?;
            ok(Response::SessionsRevoked(SessionsRevoked {
                success: true,
                revoked,
            }))
        }
        Op::CurrentSession => match caller {
            Caller::Session(s) => {
                // Read again: `spent` as committed now.
                let s = store.session(&s.id)?.unwrap_or_else(|| s.clone());
                ok(Response::Session(Box::new(SessionInfo::of(&s))))
            }
            _ => {
                return Err(crate::error::Error::new(
                    crate::error::ErrorCode::SessionTokenRequired,
                    "GET /session needs a session token (Authorization: Bearer <token>)",
                ))
            }
        },
        Op::Settings => ok(Response::Settings(MerchantSettings::of(
            &settings::merchant(store)?,
        ))),
        Op::PatchSettings(req) => ok(Response::Settings(MerchantSettings::of(&settings::patch(
            store, ctx, &req,
        )?))),
        Op::ParkedWork => ok(Response::ParkedWork(ParkedWork::of(&store.parked()?))),
        Op::Hooks(op) => {
            let (status, body) = hooks::apply(store, ctx, op, shell)?;
            Reply {
                status,
                body: Response::Hooks(body),
            }
        }
        Op::ResolvePresale(req) => {
            let outcome = presale::resolve(store, ctx, &req)?;
            let p = presale::find(store, &req.presale_id)?;
            let view = PresaleMerchant::read(store, &p, ctx.now)?;
            ok(Response::Resolve(Box::new(ResolveResult::of(
                view, outcome,
            ))))
        }
    })
}

fn move_out(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &crate::model::ids::UserId,
    out: Outflow,
) -> Result<Reply> {
    let receipt = ledger::move_out(store, ctx, user_id, &out)?;
    Ok(ok(Response::Ledger(LedgerResult::of(&receipt))))
}

/// Why settlement on an EVM chain is stopped, if it is (the relayer out of gas, the node not
/// answering); never on the embedded chain, which settles as it records.
fn settlement_stopped(store: &dyn Store, ctx: &Ctx) -> Result<Option<String>> {
    if !ctx.chain.is_evm() {
        return Ok(None);
    }
    Ok(store.relayer()?.error)
}
