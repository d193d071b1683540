//! The typed operation: what a merchant request asks for, decoded once at the edge from its
//! route, path parameters, query and body, and handed to the merchant's Durable Object as
//! itself. Nothing downstream looks at strings to decide what to do.

use super::hooks::{self, HookOp};
use super::parts::{bad_user_id, percent_decode};
use super::routes::Route;

pub use super::parts::Parts;
use super::token::{DEFAULT_HOLDERS, MAX_HOLDERS};
use crate::error::{Error, ErrorCode, Result};
use crate::model::address::Address;
use crate::model::deployment::DeploymentKind;
use crate::model::ids::{DeploymentId, JobId, PresaleId, TokenAddress, UserId};
use crate::model::input::Int;
use crate::ops::deployment::{AirdropRequest, DeployRequest, MemecoinRequest};
use crate::ops::history::HistoryQuery;
use crate::ops::ledger::{DistributeRequest, SendRequest, SpendRequest};
use crate::ops::market::{
    BuyQuoteQuery, BuyRequest, LiquidityRequest, SellQuoteQuery, SellRequest,
};
use crate::ops::presale::{BuyPresaleRequest, CreatePresaleRequest, ResolvePresaleRequest};
use crate::ops::session::CreateSessionRequest;
use crate::ops::settings::PatchSettingsRequest;
use crate::ops::token::{CreateTokenRequest, PatchTokenRequest};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The first path segment of `GET /holder/:holder/token/:tokenAddress`: an address when it
/// is one, else a userId.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HolderRef {
    Address(Address),
    User(UserId),
}

/// Every operation of a merchant's API.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", content = "args", rename_all = "snake_case")]
pub enum Op {
    CreateToken(CreateTokenRequest),
    Job(JobId),
    PatchToken(TokenAddress, PatchTokenRequest),
    Token(TokenAddress, u32),
    AllTokens,
    PutHolder(UserId),
    GetHolder(UserId),
    HolderToken(HolderRef, TokenAddress),
    Distribute(TokenAddress, DistributeRequest),
    Spend(UserId, SpendRequest),
    Transfer(UserId, SendRequest),
    Withdraw(UserId, SendRequest),
    History(UserId, HistoryQuery),
    CreateDeployment(DeployRequest),
    DeploymentStatus(DeploymentKind, DeploymentId),
    CreatePresale(CreatePresaleRequest),
    ListPresales,
    MerchantPresale(PresaleId),
    PublicPresale(PresaleId),
    BuyPresale(UserId, BuyPresaleRequest),
    ResolvePresale(ResolvePresaleRequest),
    CreateLiquidity(TokenAddress, LiquidityRequest),
    Reward(TokenAddress, DistributeRequest),
    Buy(UserId, BuyRequest),
    Sell(UserId, SellRequest),
    BuyQuote(UserId, BuyQuoteQuery),
    SellQuote(UserId, SellQuoteQuery),
    ParkedWork,
    /// The event log and webhooks (`hooks`).
    Hooks(HookOp),
    CreateSession(UserId, CreateSessionRequest),
    RevokeSessions(UserId),
    CurrentSession,
    Settings,
    PatchSettings(PatchSettingsRequest),
}

impl Op {
    /// Whether it changes state, as its route declares (`routes::TABLE`): a write runs in a
    /// transaction and seals its events; a read needs neither.
    pub fn writes(&self) -> bool {
        self.route().writes()
    }

    /// The route it was decoded from (for a deployment status, the kind's route).
    pub fn route(&self) -> Route {
        match self {
            Op::CreateToken(_) => Route::CreateToken,
            Op::Job(_) => Route::Job,
            Op::PatchToken(..) => Route::PatchToken,
            Op::Token(..) => Route::Token,
            Op::AllTokens => Route::AllTokens,
            Op::PutHolder(_) => Route::PutHolder,
            Op::GetHolder(_) => Route::GetHolder,
            Op::HolderToken(..) => Route::HolderToken,
            Op::Distribute(..) => Route::Distribute,
            Op::Spend(..) => Route::Spend,
            Op::Transfer(..) => Route::Transfer,
            Op::Withdraw(..) => Route::Withdraw,
            Op::History(..) => Route::History,
            Op::CreateDeployment(DeployRequest::Memecoin(_)) => Route::CreateMemecoin,
            Op::CreateDeployment(DeployRequest::Airdrop(_)) => Route::CreateAirdrop,
            Op::DeploymentStatus(DeploymentKind::Memecoin, _) => Route::MemecoinStatus,
            Op::DeploymentStatus(DeploymentKind::Airdrop, _) => Route::AirdropStatus,
            Op::CreatePresale(_) => Route::CreatePresale,
            Op::ListPresales => Route::ListPresales,
            Op::MerchantPresale(_) => Route::MerchantPresale,
            Op::PublicPresale(_) => Route::PublicPresale,
            Op::BuyPresale(..) => Route::BuyPresale,
            Op::ResolvePresale(_) => Route::ResolvePresale,
            Op::CreateLiquidity(..) => Route::CreateLiquidity,
            Op::Reward(..) => Route::Reward,
            Op::Buy(..) => Route::Buy,
            Op::Sell(..) => Route::Sell,
            Op::BuyQuote(..) => Route::BuyQuote,
            Op::SellQuote(..) => Route::SellQuote,
            Op::ParkedWork => Route::ParkedWork,
            Op::Hooks(h) => h.route(),
            Op::CreateSession(..) => Route::CreateSession,
            Op::RevokeSessions(_) => Route::RevokeSessions,
            Op::CurrentSession => Route::CurrentSession,
            Op::Settings => Route::Settings,
            Op::PatchSettings(_) => Route::PatchSettings,
        }
    }

    /// Decodes a merchant route's request. `None` for routes the edge serves itself.
    pub fn decode(route: Route, parts: &Parts) -> Result<Option<Op>> {
        if let Some(op) = hooks::decode(route, parts)? {
            return Ok(Some(Op::Hooks(op)));
        }
        let op = match route {
            Route::CreateToken => Op::CreateToken(parts.body()?),
            Route::Job => Op::Job(JobId::new_unchecked(parts.id(0, "jobId")?)),
            Route::PatchToken => Op::PatchToken(parts.token(0)?, parts.body()?),
            Route::Token => {
                let token = parts.token(0)?;
                let limit = match parts.query("holdersLimit") {
                    None => DEFAULT_HOLDERS,
                    Some(l) => {
                        u32::try_from(Int::<1, MAX_HOLDERS>::parse("holdersLimit", l)?.get())
                            .unwrap_or(DEFAULT_HOLDERS)
                    }
                };
                Op::Token(token, limit)
            }
            Route::AllTokens => Op::AllTokens,
            Route::PutHolder => Op::PutHolder(parts.user(0)?),
            Route::GetHolder => Op::GetHolder(parts.user(0)?),
            Route::HolderToken => {
                let who = percent_decode(parts.raw(0)?).ok_or_else(bad_user_id)?;
                let holder = match Address::parse(&who) {
                    Some(a) => HolderRef::Address(a),
                    None => HolderRef::User(UserId::parse(&who)?),
                };
                Op::HolderToken(holder, parts.token(1)?)
            }
            Route::Distribute => Op::Distribute(parts.token(0)?, parts.body()?),
            Route::Spend => Op::Spend(parts.user(0)?, parts.body()?),
            Route::Transfer => Op::Transfer(parts.user(0)?, parts.body()?),
            Route::Withdraw => Op::Withdraw(parts.user(0)?, parts.body()?),
            Route::History => Op::History(
                parts.user(0)?,
                HistoryQuery::parse(
                    parts.query("limit"),
                    parts.query("cursor"),
                    parts.query("tokenAddress"),
                )?,
            ),
            // The rules across a deployment's fields are checked here, with its decoding:
            // a request that breaks them never starts executing.
            Route::CreateMemecoin => {
                deployment(DeployRequest::Memecoin(parts.body::<MemecoinRequest>()?))?
            }
            Route::CreateAirdrop => {
                deployment(DeployRequest::Airdrop(parts.body::<AirdropRequest>()?))?
            }
            Route::MemecoinStatus => {
                Op::DeploymentStatus(DeploymentKind::Memecoin, status_id(parts)?)
            }
            Route::AirdropStatus => {
                Op::DeploymentStatus(DeploymentKind::Airdrop, status_id(parts)?)
            }
            Route::CreatePresale => Op::CreatePresale(parts.body()?),
            Route::ListPresales => Op::ListPresales,
            Route::MerchantPresale => {
                Op::MerchantPresale(PresaleId::new_unchecked(parts.id(0, "presaleId")?))
            }
            Route::PublicPresale => {
                Op::PublicPresale(PresaleId::new_unchecked(parts.id(0, "presaleId")?))
            }
            Route::BuyPresale => Op::BuyPresale(parts.user(0)?, parts.body()?),
            Route::ResolvePresale => Op::ResolvePresale(parts.body()?),
            Route::CreateLiquidity => Op::CreateLiquidity(parts.token(0)?, parts.body()?),
            Route::Reward => Op::Reward(parts.token(0)?, parts.body()?),
            Route::Buy => Op::Buy(parts.user(0)?, parts.body()?),
            Route::Sell => Op::Sell(parts.user(0)?, parts.body()?),
            Route::BuyQuote => Op::BuyQuote(parts.user(0)?, parts.query_as()?),
            Route::SellQuote => Op::SellQuote(parts.user(0)?, parts.query_as()?),
            Route::ParkedWork => Op::ParkedWork,
            Route::CreateSession => Op::CreateSession(parts.user(0)?, parts.body()?),
            Route::RevokeSessions => Op::RevokeSessions(parts.user(0)?),
            Route::CurrentSession => Op::CurrentSession,
            Route::Settings => Op::Settings,
            Route::PatchSettings => Op::PatchSettings(parts.body()?),
            Route::Index
            | Route::Health
            | Route::OpenApi
            | Route::DeploymentPage
            | Route::AdminCreateMerchant
            | Route::AdminTimeAdvance
            | Route::AdminTime
            | Route::AdminFaucet
            | Route::AdminChainFaults
            | Route::AdminChain
            | Route::AdminReconcile
            | Route::Live
            | Route::AdminFaults => return Ok(None),
            Route::Events
            | Route::Event
            | Route::CreateWebhook
            | Route::ListWebhooks
            | Route::GetWebhook
            | Route::UpdateWebhook
            | Route::DeleteWebhook
            | Route::TestWebhook
            | Route::Deliveries
            | Route::ReplayDelivery => return Err(Error::internal("a hooks route not decoded")),
        };
        Ok(Some(op))
    }
}

fn deployment(req: DeployRequest) -> Result<Op> {
    req.spec()?;
    Ok(Op::CreateDeployment(req))
}

/// A deployment status id: from the path, else the JSON body's `id` (the interface calls it
/// an integer in one place, so a number is read as its text), else the query's `id`.
fn status_id(parts: &Parts) -> Result<DeploymentId> {
    if !parts.params.is_empty() {
        return Ok(DeploymentId::new_unchecked(parts.id(0, "id")?));
    }
    let from_body = match parts.body {
        Value::Null => None,
        Value::Object(m) => match m.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => {
                return Err(Error::new(ErrorCode::InvalidRequest, "must be a string").at_field("id"))
            }
        },
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "The request body must be a JSON object",
            ))
        }
    };
    from_body
        .or_else(|| parts.query("id").map(String::from))
        .filter(|id| !id.trim().is_empty())
        .map(DeploymentId::new_unchecked)
        .ok_or_else(|| Error::new(ErrorCode::InvalidRequest, "is required").at_field("id"))
}
