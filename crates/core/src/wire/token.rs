//! Tokens on the wire: the Token object (with its top holders), create-token's answer and
//! the job status.

use super::endpoint::{
    Access::{Public, Secret},
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::settlement;
use super::shell::Shell;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::chain::block_number;
use crate::model::decimal::Decimal;
use crate::model::deployment::exchange_url;
use crate::model::ids::uuid_v4;
use crate::model::ids::{JobId, TokenAddress};
use crate::model::input::Int;
use crate::model::job::{Job as JobRecord, JobStatus};
use crate::model::time::Timestamp;
use crate::model::token::TokenKind;
use crate::model::token::{Network, Token as TokenRecord, TokenOrigin};
use crate::ops::token::{self, CreateTokenRequest, PatchTokenRequest};
use crate::ops::{job, Ctx};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const CREATE_TOKEN: Route = Route::new("createToken");
pub const JOB: Route = Route::new("getJob");
/// The same read under the interface's older path.
pub const CREATE_TOKEN_STATUS: Route = Route::new("getCreateTokenStatus");
pub const PATCH_TOKEN: Route = Route::new("patchToken");
pub const ALL_TOKENS: Route = Route::new("listTokens");
pub const TOKEN: Route = Route::new("getToken");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/merchant/create-token", CREATE_TOKEN, Secret, Writes),
    ("GET", "/merchant/create-token/status/:jobId", CREATE_TOKEN_STATUS, Secret, Reads),
    ("GET", "/jobs/:jobId", JOB, Secret, Reads),
    ("PATCH", "/merchant/token/:tokenAddress", PATCH_TOKEN, Secret, Writes),
    ("GET", "/merchant/all-tokens", ALL_TOKENS, Secret, Reads),
    ("GET", "/token/:tokenAddress", TOKEN, Public, Reads),
];

/// Holders a token read lists by default, and at most.
pub const DEFAULT_HOLDERS: u32 = 100;
pub const MAX_HOLDERS: u64 = 1000;

// `H` is a holder row as the token carries it: its wire type, or the same row already
// written as JSON (the merchant object keeps the rows it rendered, `objects/merchant/render.rs`).
/// `GET /token/:tokenAddress`: the interface's Token, plus additive fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", ts(concrete(H = TokenHolder)))]
#[cfg_attr(feature = "codegen", schemars(rename = "Token"))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::not_required("origin marketplace")))]
#[serde(rename_all = "camelCase")]
pub struct Token<H = TokenHolder> {
    /// Same value as `address`.
    #[cfg_attr(feature = "codegen", schemars(with = "Address"))]
    pub id: String,
    pub address: TokenAddress,
    pub name: String,
    pub symbol: String,
    /// 18 for tokens, 6 for USDC.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = [18, 6])))]
    pub decimals: u8,
    pub network: Network,
    pub total_supply: Decimal,
    pub starting_app_supply: Decimal,
    pub remaining_app_supply: Decimal,
    pub merchant_supply: Decimal,
    /// The liquidity reserve.
    pub liquidity_supply: Decimal,
    pub merchant_address: Address,
    /// USD per token; null until a price exists.
    pub price: Option<Decimal>,
    /// The Reward Allocation switch.
    pub can_distribute: bool,
    pub can_airdrop: bool,
    #[serde(rename = "canLP")]
    pub can_lp: bool,
    pub image_url: Option<String>,
    pub created_at: Timestamp,
    /// How the token came to be.
    pub origin: TokenOrigin,
    /// Listed on the service's marketplace (template deployments).
    pub marketplace: bool,
    /// Largest balances first, at most `holdersLimit`.
    pub holders: Vec<H>,
    /// All holders, regardless of `holdersLimit`.
    pub holders_count: u64,
    /// Metal's name for `startingAppSupply`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_reward_supply: Option<Decimal>,
    /// Metal's name for `remainingAppSupply`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_reward_supply: Option<Decimal>,
    /// The token's liquidity pool, once one is open (absent before). From then on `price`
    /// (and every USD value) is the pool's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<super::pool::Pool>,
}

/// One holder of a token.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
pub struct TokenHolder {
    /// The holder's userId, or the address for a non-custodial address.
    pub id: String,
    pub address: Address,
    pub balance: Decimal,
    /// USD: balance x price; 0 with no price.
    pub value: Decimal,
}

impl Token {
    /// The token with its `limit` largest holders.
    pub fn read(store: &dyn Store, token: &TokenRecord, limit: u32) -> Result<Token> {
        let (rows, holders_count) = store.top_holders(&token.address, limit)?;
        let pool = store.pool(&token.address)?;
        let amount = |u: crate::model::amount::Units| Decimal::from_units(u.raw(), token.decimals);
        Ok(Token {
            id: token.address.to_checksum(),
            address: token.address,
            name: token.name.clone(),
            symbol: token.symbol.clone(),
            decimals: token.decimals,
            network: token.network,
            total_supply: amount(token.total_supply),
            starting_app_supply: amount(token.starting_app_supply),
            remaining_app_supply: amount(token.remaining_app_supply),
            merchant_supply: amount(token.merchant_supply),
            liquidity_supply: amount(token.liquidity_supply),
            merchant_address: token.merchant_address,
            price: token.price.map(Decimal::of),
            can_distribute: token.can_distribute,
            can_airdrop: token.can_airdrop,
            can_lp: token.can_lp,
            image_url: token.image_url.clone(),
            created_at: Timestamp::at(token.created_at),
            origin: token.origin,
            marketplace: token.marketplace,
            holders: rows
                .iter()
                .map(|h| TokenHolder {
                    id: h
                        .user_id
                        .as_ref()
                        .map_or_else(|| h.owner.to_checksum(), |u| u.to_string()),
                    address: h.owner,
                    balance: amount(h.balance),
                    value: Decimal::of(token.value_of(h.balance)),
                })
                .collect(),
            holders_count,
            starting_reward_supply: Some(amount(token.starting_app_supply)),
            remaining_reward_supply: Some(amount(token.remaining_app_supply)),
            pool: pool.map(|p| super::pool::Pool::of(&p, token)),
        })
    }
}

impl<H> Token<H> {
    /// The same token carrying `holders` in place of its rows (the same rows, written
    /// another way).
    pub fn with_holders<G>(&self, holders: Vec<G>) -> Token<G> {
        Token {
            id: self.id.clone(),
            address: self.address,
            name: self.name.clone(),
            symbol: self.symbol.clone(),
            decimals: self.decimals,
            network: self.network,
            total_supply: self.total_supply.clone(),
            starting_app_supply: self.starting_app_supply.clone(),
            remaining_app_supply: self.remaining_app_supply.clone(),
            merchant_supply: self.merchant_supply.clone(),
            liquidity_supply: self.liquidity_supply.clone(),
            merchant_address: self.merchant_address,
            price: self.price.clone(),
            can_distribute: self.can_distribute,
            can_airdrop: self.can_airdrop,
            can_lp: self.can_lp,
            image_url: self.image_url.clone(),
            created_at: self.created_at.clone(),
            origin: self.origin,
            marketplace: self.marketplace,
            holders,
            holders_count: self.holders_count,
            starting_reward_supply: self.starting_reward_supply.clone(),
            remaining_reward_supply: self.remaining_reward_supply.clone(),
            pool: self.pool.clone(),
        }
    }
}

/// `POST /merchant/create-token` -> 201.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::not_required("id transactionHash tokenAddress")))]
#[serde(rename_all = "camelCase")]
pub struct CreateTokenAccepted {
    /// The same as `jobId` (Metal's SDK reads `id`).
    pub id: JobId,
    pub job_id: JobId,
    /// `pending`.
    #[cfg_attr(feature = "codegen", schemars(extend("const" = "pending")))]
    pub status: JobStatus,
    /// The deployment transaction, once it is sent (on an EVM chain: not at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub transaction_hash: Option<String>,
    pub token_address: TokenAddress,
}

impl CreateTokenAccepted {
    pub fn of(job: &JobRecord) -> CreateTokenAccepted {
        CreateTokenAccepted {
            id: job.id.clone(),
            job_id: job.id.clone(),
            status: job.status,
            transaction_hash: job.tx_hash.clone(),
            token_address: job.token_address,
        }
    }
}

/// `GET /jobs/:jobId`: the job, and the token once it exists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::not_required("id transactionHash tokenAddress")))]
#[cfg_attr(
    feature = "codegen",
    schemars(extend("allOf" = [
        { "if": { "properties": { "status": { "const": "success" } } },
          "then": { "properties": { "data": { "$ref": "#/components/schemas/Token" } }, "required": ["data"] } },
        { "if": { "properties": { "status": { "const": "failed" } } },
          "then": { "properties": { "error": { "type": "string" } }, "required": ["error"] } }
    ]))
)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    /// The same as `jobId` (Metal's SDK reads `id`).
    pub id: JobId,
    pub job_id: JobId,
    pub status: JobStatus,
    /// The deployment transaction, once it is sent (on an EVM chain: not at once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub transaction_hash: Option<String>,
    pub token_address: TokenAddress,
    /// The block the deployment was mined in (on success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_number: Option<u64>,
    /// The token (on success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Token>,
    /// Why it failed (on failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// On success: the token's page in the demo frontend (Metal's build page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metal_build_url: Option<String>,
    /// On success: a swap page for the token (Uniswap's; absent on a local node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uniswap_url: Option<String>,
    /// Once the token has a liquidity pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lp_info: Option<super::pool::LpInfo>,
    /// While pending on an EVM chain with settlement stopped: why (the relayer has no ETH for
    /// gas, with the address to fund; the node does not answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
}

impl Job {
    pub fn read(store: &dyn Store, job: &JobRecord, base_url: &str) -> Result<Job> {
        let success = job.status == JobStatus::Success;
        let data = match store.token(&job.token_address)? {
            Some(t) if success => Some(Token::read(store, &t, DEFAULT_HOLDERS)?),
            _ => None,
        };
        let lp_info = store
            .pool(&job.token_address)?
            .map(|p| super::pool::LpInfo::of(&p));
        Ok(Job {
            id: job.id.clone(),
            metal_build_url: success.then(|| {
                format!(
                    "{}/app/token?address={}",
                    base_url.trim_end_matches('/'),
                    job.token_address
                )
            }),
            uniswap_url: success
                .then(|| exchange_url(job.request.network, job.token_address))
                .flatten(),
            lp_info,
            job_id: job.id.clone(),
            status: job.status,
            transaction_hash: job.tx_hash.clone(),
            token_address: job.token_address,
            // The block it was mined in (an EVM chain's, from its receipt); the embedded
            // chain's 2-second block of its time.
            block_number: success.then(|| job.block.unwrap_or_else(|| block_number(job.mined_at))),
            data,
            error: job.error.clone(),
            waiting: None,
        })
    }
}

/// An operation on tokens, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenOp {
    CreateToken(CreateTokenRequest),
    Job(JobId),
    PatchToken(TokenAddress, PatchTokenRequest),
    Token(TokenAddress, u32),
    AllTokens,
}

/// Every answer of a [`TokenOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum TokenAnswer {
    Token(Box<Token>),
    Tokens(Vec<Token>),
    CreateToken(CreateTokenAccepted),
    Job(Box<Job>),
}

impl TokenOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            TokenOp::CreateToken(_) => CREATE_TOKEN,
            TokenOp::Job(_) => JOB,
            TokenOp::PatchToken(..) => PATCH_TOKEN,
            TokenOp::Token(..) => TOKEN,
            TokenOp::AllTokens => ALL_TOKENS,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<TokenOp>> {
    Ok(Some(match route {
        CREATE_TOKEN => TokenOp::CreateToken(parts.body()?),
        JOB | CREATE_TOKEN_STATUS => TokenOp::Job(JobId::new_unchecked(parts.id(0, "jobId")?)),
        PATCH_TOKEN => TokenOp::PatchToken(parts.token(0)?, parts.body()?),
        TOKEN => {
            let token = parts.token(0)?;
            let limit = match parts.query("holdersLimit") {
                None => DEFAULT_HOLDERS,
                Some(l) => u32::try_from(Int::<1, MAX_HOLDERS>::parse("holdersLimit", l)?.get())
                    .unwrap_or(DEFAULT_HOLDERS),
            };
            TokenOp::Token(token, limit)
        }
        ALL_TOKENS => TokenOp::AllTokens,
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    op: TokenOp,
    shell: &mut dyn Shell,
) -> Result<(u16, TokenAnswer)> {
    Ok(match op {
        TokenOp::CreateToken(req) => {
            let id = JobId::new_unchecked(uuid_v4(shell.random16()?));
            let job = job::create_token(store, ctx, req.into_spec(ctx)?, id)?;
            (201, TokenAnswer::CreateToken(CreateTokenAccepted::of(&job)))
        }
        TokenOp::Job(id) => {
            let job = job::find(store, &id)?;
            let mut answer = Job::read(store, &job, shell.base_url())?;
            if job.status == JobStatus::Pending {
                answer.waiting = settlement::stopped(store, ctx)?;
            }
            (200, TokenAnswer::Job(Box::new(answer)))
        }
        TokenOp::PatchToken(address, req) => {
            let t = token::patch(store, &address, &req)?;
            let answer = Token::read(store, &t, DEFAULT_HOLDERS)?;
            (200, TokenAnswer::Token(Box::new(answer)))
        }
        TokenOp::Token(address, limit) => {
            let t = token::find(store, &address)?;
            (
                200,
                TokenAnswer::Token(Box::new(Token::read(store, &t, limit)?)),
            )
        }
        TokenOp::AllTokens => {
            let all = store
                .tokens()?
                .iter()
                .filter(|t| t.kind == TokenKind::Merchant)
                .map(|t| Token::read(store, t, DEFAULT_HOLDERS))
                .collect::<Result<Vec<Token>>>()?;
            (200, TokenAnswer::Tokens(all))
        }
    })
}
