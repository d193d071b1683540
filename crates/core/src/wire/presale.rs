//! Presales on the wire: the public form, the merchant form (public plus signer, lock,
//! completion and deployment details), and the answers of buy and resolve.

use super::endpoint::{
    Access::{Holder, Public, Secret},
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::settlement::Settlement;
use super::shell::Shell;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::amount::percent_micro;
use crate::model::decimal::Decimal;
use crate::model::ids::uuid_v4;
use crate::model::ids::{PresaleId, TokenAddress, UserId};
use crate::model::presale::{Participant, Presale as Record, Step};
use crate::model::time::{Millis, Timestamp};
use crate::ops::presale::{self, BuyPresaleRequest, CreatePresaleRequest, ResolvePresaleRequest};
use crate::ops::presale::{Outcome, Purchase};
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const CREATE_PRESALE: Route = Route::new("createPresale");
pub const LIST_PRESALES: Route = Route::new("listPresales");
pub const RESOLVE_PRESALE: Route = Route::new("resolvePresale");
/// The same operation under the interface's other path.
pub const RESOLVE_PRESALE_ALIAS: Route = Route::new("resolvePresaleAlias");
pub const MERCHANT_PRESALE: Route = Route::new("getMerchantPresale");
pub const PUBLIC_PRESALE: Route = Route::new("getPresale");
pub const BUY_PRESALE: Route = Route::new("buyPresale");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/merchant/presale", CREATE_PRESALE, Secret, Writes),
    ("GET", "/merchant/presales", LIST_PRESALES, Secret, Reads),
    ("POST", "/merchant/presale/resolve", RESOLVE_PRESALE, Secret, Writes),
    ("POST", "/resolve-presale", RESOLVE_PRESALE_ALIAS, Secret, Writes),
    ("GET", "/merchant/presale/:presaleId", MERCHANT_PRESALE, Secret, Reads),
    ("GET", "/token/presales/:presaleId", PUBLIC_PRESALE, Public, Reads),
    ("POST", "/holder/:userId/buy-presale", BUY_PRESALE, Holder, Writes),
];

/// pending, active, completed, ended: a function of time and money.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(inline))]
#[serde(rename_all = "lowercase")]
pub enum PresaleStatus {
    Pending,
    Active,
    Completed,
    Ended,
}

impl From<crate::model::presale::Status> for PresaleStatus {
    fn from(s: crate::model::presale::Status) -> Self {
        use crate::model::presale::Status;
        match s {
            Status::Pending => PresaleStatus::Pending,
            Status::Active => PresaleStatus::Active,
            Status::Completed => PresaleStatus::Completed,
            Status::Ended => PresaleStatus::Ended,
        }
    }
}

/// `GET /token/presales/:presaleId` (public key), and what create answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Presale {
    #[cfg_attr(feature = "codegen", schemars(extend("format" = "uuid")))]
    pub id: PresaleId,
    pub name: String,
    pub description: String,
    /// UNIX seconds.
    pub start_timestamp: u64,
    /// UNIX seconds.
    pub end_timestamp: u64,
    pub target_usdc_amount: Decimal,
    pub purchased_usdc_amount: Decimal,
    /// pending before `startTimestamp`; active until `endTimestamp` while below target;
    /// completed once the target is reached or the presale launched; ended when
    /// `endTimestamp` passed below target, or after a refund.
    pub status: PresaleStatus,
    /// In the order of their first purchase: every one in an answer; in a `presale.purchase`
    /// event its buyer alone (their total and share after it); in the other `presale.*`
    /// events the first 100, as a token's event carries its first 100 holders. An event's
    /// size stays bounded however many buy in.
    pub participants: Vec<PresaleParticipant>,
    /// How many holders bought in (all of them, also where `participants` lists only some).
    /// tokenpad always sends it; absent from answers of services before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", ts(optional))]
    pub participants_count: Option<u64>,
    pub token_info: PresaleTokenInfo,
    /// ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<Timestamp>,
    /// When the presale last changed (a purchase, a completion step, a refund), ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<Timestamp>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresaleParticipant {
    /// The holder's userId.
    pub id: UserId,
    pub address: Address,
    /// The same as `address` (the name some Metal clients read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_address: Option<Address>,
    pub usdc_amount: Decimal,
    /// Percent of the tokens bought that this participant receives.
    #[cfg_attr(feature = "codegen", schemars(extend("maximum" = 100)))]
    pub token_percentage: Decimal,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresaleTokenInfo {
    pub name: String,
    pub symbol: String,
    pub image_url: String,
}

/// `GET /merchant/presales`, `GET /merchant/presale/:id`: the merchant form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::not_required("autoLaunch lockupPercentage tokenAddress")))]
#[serde(rename_all = "camelCase")]
pub struct PresaleMerchant {
    #[serde(flatten)]
    pub presale: Presale,
    pub signer_address: Address,
    /// Days the buyers' tokens stay locked.
    #[cfg_attr(feature = "codegen", schemars(range(max = 365)))]
    pub lock_duration: u64,
    pub auto_launch: bool,
    /// The share of the token's supply sold to buyers, in percent.
    #[cfg_attr(feature = "codegen", schemars(range(min = 13, max = 28)))]
    pub lockup_percentage: u64,
    /// Where the token will live (reserved at creation).
    pub token_address: TokenAddress,
    pub completion_state: CompletionState,
    pub presale_info: PresaleInfo,
    /// Present once the token is deployed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", ts(optional))]
    pub token_deployment_info: Option<TokenDeploymentInfo>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompletionState {
    /// The last step finished.
    pub step: Step,
    /// Transaction hashes by name: swapApprovalTx, swapTx, tokenCreationTx, withdrawTx,
    /// distributionApprovalTx, distributionTx.
    #[cfg_attr(
        feature = "codegen",
        schemars(with = "BTreeMap<String, crate::schema::TxHash>")
    )]
    #[cfg_attr(feature = "codegen", ts(type = "Record<string, string>"))]
    pub transactions: BTreeMap<String, String>,
    pub retry_count: u32,
    /// Why the last attempt of the current step failed (cleared on success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", ts(optional))]
    pub last_error: Option<String>,
    /// When a step last ran (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", ts(optional))]
    pub updated_at: Option<Timestamp>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresaleInfo {
    pub distributed: bool,
    /// Present once distributed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", ts(optional))]
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub distribute_tx_hash: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenDeploymentInfo {
    pub token_address: TokenAddress,
    /// `null` on an EVM chain until the deployment is mined.
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub hash: Option<String>,
    /// Base units (18 decimals) as a string of digits.
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^[0-9]+$")))]
    pub amount_tokens_bought: String,
}

/// `POST /holder/:userId/buy-presale`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BuyPresaleResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    #[serde(flatten)]
    pub settlement: Settlement,
    pub presale_id: PresaleId,
    pub usdc_amount: Decimal,
}

impl BuyPresaleResult {
    pub fn of(p: &Purchase) -> BuyPresaleResult {
        BuyPresaleResult {
            success: true,
            settlement: Settlement::of(&p.stamp),
            presale_id: p.presale_id.clone(),
            usdc_amount: Decimal::of(p.usdc),
        }
    }
}

/// `POST /merchant/presale/resolve`, `POST /resolve-presale`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResolveResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    pub presale_id: PresaleId,
    /// `launching` or `refunded`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["launching", "refunded"])))]
    pub outcome: String,
    pub presale: PresaleMerchant,
}

impl ResolveResult {
    pub fn of(p: PresaleMerchant, outcome: Outcome) -> ResolveResult {
        ResolveResult {
            success: true,
            presale_id: p.presale.id.clone(),
            outcome: outcome.as_str().to_string(),
            presale: p,
        }
    }
}

/// `part / whole x 100`, floored to 6 decimals.
fn percent(part: u128, whole: u128) -> Decimal {
    Decimal::from_units(percent_micro(part, whole), 6)
}

/// Percent of the target raised.
pub fn progress(p: &Record) -> Decimal {
    percent(p.purchased.raw(), p.target.raw())
}

/// The participants a presale's event lists (the first, in the order of their first purchase),
/// except `presale.purchase`, which lists its buyer alone.
pub const EVENT_PARTICIPANTS: u32 = 100;

impl Presale {
    /// The public form, with every participant in the order of their first purchase.
    pub fn read(store: &dyn Store, p: &Record, now: Millis) -> Result<Presale> {
        Presale::read_first(store, p, now, None)
    }

    /// The public form with at most the first `limit` participants (None: all of them).
    pub fn read_first(
        store: &dyn Store,
        p: &Record,
        now: Millis,
        limit: Option<u32>,
    ) -> Result<Presale> {
        // A full list counts itself; a first page is counted by the record, which counts 0
        // for presales from before it kept the count (the page then tells at least).
        let (rows, recorded) = match limit {
            None => (store.participants(&p.id)?, 0),
            Some(n) => (store.first_participants(&p.id, n)?, p.participant_count),
        };
        Ok(Presale::listing(p, now, rows, recorded))
    }

    /// The public form listing `rows` (participants of `p`, read by the caller), counted as
    /// `recorded` or as many as `rows`, whichever is more.
    fn listing(p: &Record, now: Millis, rows: Vec<Participant>, recorded: u64) -> Presale {
        // A buyer whose every purchase the chain refused paid nothing in: not listed.
        let rows: Vec<Participant> = rows.into_iter().filter(|x| !x.usdc.is_zero()).collect();
        let participants_count = recorded.max(u64::try_from(rows.len()).unwrap_or(u64::MAX));
        let participants = rows
            .into_iter()
            .map(|x| PresaleParticipant {
                id: x.user_id,
                address: x.address,
                user_address: Some(x.address),
                usdc_amount: Decimal::of(x.usdc),
                token_percentage: percent(x.usdc.raw(), p.purchased.raw()),
            })
            .collect();
        Presale {
            id: p.id.clone(),
            name: p.name.clone(),
            description: p.description.clone(),
            start_timestamp: p.start,
            end_timestamp: p.end,
            target_usdc_amount: Decimal::of(p.target),
            purchased_usdc_amount: Decimal::of(p.purchased),
            status: p.status(now).into(),
            participants,
            participants_count: Some(participants_count),
            token_info: PresaleTokenInfo {
                name: p.token_info.name.clone(),
                symbol: p.token_info.symbol.clone(),
                image_url: p.token_info.image_url.clone(),
            },
            created_at: Some(Timestamp::at(p.created_at)),
            updated_at: Some(Timestamp::at(p.last_change())),
        }
    }
}

/// Private mode: the public form names participants by their addresses, never by userId.
pub fn redact(p: &mut Presale) {
    for x in &mut p.participants {
        x.id = UserId::new_unchecked(x.address.to_checksum());
    }
}

impl PresaleMerchant {
    pub fn read(store: &dyn Store, p: &Record, now: Millis) -> Result<PresaleMerchant> {
        PresaleMerchant::read_first(store, p, now, None)
    }

    /// The merchant form with at most the first `limit` participants (None: all of them).
    pub fn read_first(
        store: &dyn Store,
        p: &Record,
        now: Millis,
        limit: Option<u32>,
    ) -> Result<PresaleMerchant> {
        let presale = Presale::read_first(store, p, now, limit)?;
        Ok(PresaleMerchant::of(p, presale))
    }

    /// The merchant form listing only `rows`, participants of `p` the caller read (a
    /// purchase's event: its buyer's row, read by key), counted by the record.
    pub fn listing(p: &Record, now: Millis, rows: Vec<Participant>) -> PresaleMerchant {
        let presale = Presale::listing(p, now, rows, p.participant_count);
        PresaleMerchant::of(p, presale)
    }

    fn of(p: &Record, presale: Presale) -> PresaleMerchant {
        PresaleMerchant {
            presale,
            signer_address: p.signer,
            lock_duration: p.lock_days,
            auto_launch: p.auto_launch,
            lockup_percentage: p.token_info.lockup_percentage,
            token_address: p.token_address,
            completion_state: CompletionState {
                step: p.completion.step,
                transactions: p.completion.transactions.clone(),
                retry_count: p.completion.retry_count,
                last_error: p.completion.last_error.clone(),
                updated_at: p.completion.updated_at.map(Timestamp::at),
            },
            presale_info: PresaleInfo {
                distributed: p.distributed,
                distribute_tx_hash: p.distribute_tx.clone(),
            },
            token_deployment_info: p.token_deployment.as_ref().map(|d| TokenDeploymentInfo {
                token_address: d.token_address,
                hash: d.hash.clone(),
                amount_tokens_bought: d.amount_bought.raw().to_string(),
            }),
        }
    }
}

/// An operation on presales, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PresaleOp {
    CreatePresale(Box<CreatePresaleRequest>),
    ListPresales,
    MerchantPresale(PresaleId),
    PublicPresale(PresaleId),
    BuyPresale(UserId, BuyPresaleRequest),
    ResolvePresale(ResolvePresaleRequest),
}

/// Every answer of a [`PresaleOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PresaleAnswer {
    Presale(Presale),
    PresaleMerchant(Box<PresaleMerchant>),
    Presales(Vec<PresaleMerchant>),
    Buy(BuyPresaleResult),
    Resolve(Box<ResolveResult>),
}

impl PresaleOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            PresaleOp::CreatePresale(_) => CREATE_PRESALE,
            PresaleOp::ListPresales => LIST_PRESALES,
            PresaleOp::MerchantPresale(_) => MERCHANT_PRESALE,
            PresaleOp::PublicPresale(_) => PUBLIC_PRESALE,
            PresaleOp::BuyPresale(..) => BUY_PRESALE,
            PresaleOp::ResolvePresale(_) => RESOLVE_PRESALE,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<PresaleOp>> {
    Ok(Some(match route {
        CREATE_PRESALE => PresaleOp::CreatePresale(Box::new(parts.body()?)),
        LIST_PRESALES => PresaleOp::ListPresales,
        MERCHANT_PRESALE => {
            PresaleOp::MerchantPresale(PresaleId::new_unchecked(parts.id(0, "presaleId")?))
        }
        PUBLIC_PRESALE => {
            PresaleOp::PublicPresale(PresaleId::new_unchecked(parts.id(0, "presaleId")?))
        }
        BUY_PRESALE => PresaleOp::BuyPresale(parts.user(0)?, parts.body()?),
        RESOLVE_PRESALE | RESOLVE_PRESALE_ALIAS => PresaleOp::ResolvePresale(parts.body()?),
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    op: PresaleOp,
    shell: &mut dyn Shell,
) -> Result<(u16, PresaleAnswer)> {
    Ok(match op {
        PresaleOp::CreatePresale(req) => {
            let id = PresaleId::new_unchecked(uuid_v4(shell.random16()?));
            let p = presale::create(store, ctx, *req, id)?;
            (
                201,
                PresaleAnswer::Presale(Presale::read(store, &p, ctx.now)?),
            )
        }
        PresaleOp::ListPresales => {
            let all = store
                .presales()?
                .iter()
                .map(|p| PresaleMerchant::read(store, p, ctx.now))
                .collect::<Result<Vec<PresaleMerchant>>>()?;
            (200, PresaleAnswer::Presales(all))
        }
        PresaleOp::MerchantPresale(id) => {
            let p = presale::find(store, &id)?;
            let view = PresaleMerchant::read(store, &p, ctx.now)?;
            (200, PresaleAnswer::PresaleMerchant(Box::new(view)))
        }
        PresaleOp::PublicPresale(id) => {
            let p = presale::find(store, &id)?;
            (
                200,
                PresaleAnswer::Presale(Presale::read(store, &p, ctx.now)?),
            )
        }
        PresaleOp::BuyPresale(user_id, req) => {
            let purchase = presale::buy(store, ctx, &user_id, &req)?;
            (200, PresaleAnswer::Buy(BuyPresaleResult::of(&purchase)))
        }
        PresaleOp::ResolvePresale(req) => {
            let outcome = presale::resolve(store, ctx, &req)?;
            let p = presale::find(store, &req.presale_id)?;
            let view = PresaleMerchant::read(store, &p, ctx.now)?;
            let answer = ResolveResult::of(view, outcome);
            (200, PresaleAnswer::Resolve(Box::new(answer)))
        }
    })
}
