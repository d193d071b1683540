//! Deployments on the wire: create's answer, the status in its `{ has_more, data }` wrapper,
//! and the data of the public overview page.

use super::endpoint::{
    Access::{Open, Secret},
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::settlement;
use super::shell::Shell;
use crate::error::Result;
use crate::error::{Error, ErrorCode};
use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::deployment::{
    exchange_url, service_build_url, Deployment as Record, DeploymentKind, DeploymentStatus,
};
use crate::model::ids::uuid_v4;
use crate::model::ids::{DeploymentId, TokenAddress};
use crate::model::time::Timestamp;
use crate::model::token::Network;
use crate::ops::deployment::{self, AirdropRequest, DeployRequest, MemecoinRequest};
use crate::ops::Ctx;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const CREATE_MEMECOIN: Route = Route::new("createMemecoin");
pub const CREATE_AIRDROP: Route = Route::new("createAirdrop");
pub const MEMECOIN_STATUS: Route = Route::new("getMemecoinStatus");
pub const AIRDROP_STATUS: Route = Route::new("getAirdropStatus");
/// The status reads under the interface's other forms: the id in the query, or in a POST body
/// (a read all the same).
pub const MEMECOIN_STATUS_BY_QUERY: Route = Route::new("getMemecoinStatusByQuery");
pub const MEMECOIN_STATUS_POST: Route = Route::new("postMemecoinStatus");
pub const AIRDROP_STATUS_BY_QUERY: Route = Route::new("getAirdropStatusByQuery");
pub const AIRDROP_STATUS_POST: Route = Route::new("postAirdropStatus");
pub const DEPLOYMENT_PAGE: Route = Route::new("getDeploymentPage");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/template/memecoin", CREATE_MEMECOIN, Secret, Writes),
    ("POST", "/template/airdrop", CREATE_AIRDROP, Secret, Writes),
    ("GET", "/template/memecoin/status/:id", MEMECOIN_STATUS, Secret, Reads),
    ("GET", "/memecoin/status", MEMECOIN_STATUS_BY_QUERY, Secret, Reads),
    ("POST", "/memecoin/status", MEMECOIN_STATUS_POST, Secret, Reads),
    ("GET", "/template/airdrop/status/:id", AIRDROP_STATUS, Secret, Reads),
    ("GET", "/airdrop/status", AIRDROP_STATUS_BY_QUERY, Secret, Reads),
    ("POST", "/airdrop/status", AIRDROP_STATUS_POST, Secret, Reads),
    ("GET", "/deployments/:id", DEPLOYMENT_PAGE, Open, Reads),
];

/// Holders the overview page lists.
pub const PAGE_HOLDERS: u32 = 20;

/// `POST /template/memecoin`, `POST /template/airdrop` -> 201.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct DeploymentCreated {
    /// A UUID: poll the deployment's status with it.
    pub id: DeploymentId,
}

/// The interface's Deployment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "codegen",
    schemars(extend(
        "if" = { "properties": { "status": { "const": "success" } } },
        "then" = {
            "properties": {
                "transactionHash": { "$ref": "#/components/schemas/TxHash" },
                "serviceBuildUrl": { "type": "string" },
                "exchangeUrl": { "type": "string" }
            },
            "required": ["transactionHash", "serviceBuildUrl"]
        },
        // Not before success: the two links (`not: {}` matches nothing, so they are absent).
        "else" = { "properties": { "serviceBuildUrl": { "not": {} }, "exchangeUrl": { "not": {} } } },
        "allOf" = [{
            "if": { "properties": { "status": { "const": "failed" } } },
            "then": { "properties": { "error": { "type": "string" } }, "required": ["error"] }
        }]
    ))
)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    pub id: DeploymentId,
    pub status: DeploymentStatus,
    /// Known from creation.
    pub token_address: TokenAddress,
    /// Once submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub transaction_hash: Option<String>,
    /// On success: the overview page, `<public base URL>/deployments/<id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("format" = "uri")))]
    pub service_build_url: Option<String>,
    /// On success: a swap page for the token against USDC on its network (Uniswap's, which
    /// does not work as expected on a test network). Absent on a local node: no public
    /// exchange reaches it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("format" = "uri")))]
    pub exchange_url: Option<String>,
    /// On failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// While pending on an EVM chain with settlement stopped: why (the relayer has no ETH for
    /// gas, with the address to fund; the node does not answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
}

/// The status answer: `{ has_more: false, data: Deployment }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "DeploymentStatus"))]
pub struct DeploymentStatusResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = false)))]
    pub has_more: bool,
    pub data: Deployment,
}

impl Deployment {
    pub fn of(d: &Record, base_url: &str) -> Deployment {
        let success = d.status == DeploymentStatus::Success;
        Deployment {
            id: d.id.clone(),
            status: d.status,
            token_address: d.token_address,
            transaction_hash: d.tx_hash.clone(),
            service_build_url: success.then(|| service_build_url(base_url, &d.id)),
            exchange_url: success
                .then(|| exchange_url(d.request.network, d.token_address))
                .flatten(),
            error: d.error.clone(),
            waiting: None,
        }
    }
}

impl DeploymentStatusResult {
    pub fn of(d: &Record, base_url: &str) -> DeploymentStatusResult {
        DeploymentStatusResult {
            has_more: false,
            data: Deployment::of(d, base_url),
        }
    }
}

/// What the overview page shows, as data (the worker renders it): the deployment, the
/// token's figures and, once deployed, its top holders by address. Holder userIds are the
/// merchant's own ids for its users and the page is public, so they are left out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentOverview {
    pub id: DeploymentId,
    pub kind: DeploymentKind,
    pub status: DeploymentStatus,
    pub name: String,
    pub symbol: String,
    pub network: Network,
    pub token_address: TokenAddress,
    pub total_supply: Decimal,
    pub price: Decimal,
    pub marketplace: bool,
    pub transaction_hash: Option<String>,
    pub created_at: Timestamp,
    pub service_build_url: String,
    pub holders: Vec<OverviewHolder>,
    pub holders_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mined_at: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_supply: Option<Decimal>,
    /// The service runs the embedded chain (its own ledger presented as a chain): the token
    /// exists nowhere else, whatever network it names, so the page offers no exchange
    /// ([`DeploymentOverview::on_embedded_chain`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub embedded: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverviewHolder {
    pub address: Address,
    pub balance: Decimal,
}

impl DeploymentOverview {
    /// The page of a service on the embedded chain: no exchange link (no exchange trades a
    /// token that only this service's ledger holds; the API's `exchangeUrl` stays, as Metal's
    /// answers have it).
    pub fn on_embedded_chain(mut self) -> DeploymentOverview {
        self.exchange_url = None;
        self.embedded = true;
        self
    }

    pub fn read(store: &dyn Store, d: &Record, base_url: &str) -> Result<DeploymentOverview> {
        let req = &d.request;
        let mut v = DeploymentOverview {
            id: d.id.clone(),
            kind: d.kind,
            status: d.status,
            name: req.name.clone(),
            symbol: req.symbol.clone(),
            network: req.network,
            token_address: d.token_address,
            total_supply: Decimal::from_units(req.total_supply.raw(), 18),
            price: Decimal::of(req.initial_price),
            marketplace: req.marketplace,
            transaction_hash: d.tx_hash.clone(),
            created_at: Timestamp::at(d.created_at),
            service_build_url: service_build_url(base_url, &d.id),
            holders: Vec::new(),
            holders_count: 0,
            error: d.error.clone(),
            exchange_url: None,
            mined_at: None,
            liquidity_supply: None,
            embedded: false,
        };
        if d.status == DeploymentStatus::Success {
            v.exchange_url = exchange_url(req.network, d.token_address);
            v.mined_at = d.mined_at.map(Timestamp::at);
            if let Some(token) = store.token(&d.token_address)? {
                let (holders, count) = store.top_holders(&token.address, PAGE_HOLDERS)?;
                let amount =
                    |u: crate::model::amount::Units| Decimal::from_units(u.raw(), token.decimals);
                v.holders = holders
                    .iter()
                    .map(|h| OverviewHolder {
                        address: h.owner,
                        balance: amount(h.balance),
                    })
                    .collect();
                v.holders_count = count;
                v.liquidity_supply = Some(amount(token.liquidity_supply));
            }
        }
        Ok(v)
    }
}

/// A deployment made or looked up, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeploymentOp {
    CreateDeployment(DeployRequest),
    DeploymentStatus(DeploymentKind, DeploymentId),
}

/// Every answer of a [`DeploymentOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum DeploymentAnswer {
    Created(DeploymentCreated),
    Status(DeploymentStatusResult),
}

impl DeploymentOp {
    /// The route it was decoded from (the kind's route).
    pub fn route(&self) -> Route {
        match self {
            DeploymentOp::CreateDeployment(DeployRequest::Memecoin(_)) => CREATE_MEMECOIN,
            DeploymentOp::CreateDeployment(DeployRequest::Airdrop(_)) => CREATE_AIRDROP,
            DeploymentOp::DeploymentStatus(DeploymentKind::Memecoin, _) => MEMECOIN_STATUS,
            DeploymentOp::DeploymentStatus(DeploymentKind::Airdrop, _) => AIRDROP_STATUS,
        }
    }
}

/// Decodes a route of this family; None for any other route (the overview page is the
/// edge's).
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<DeploymentOp>> {
    Ok(Some(match route {
        // The rules across a deployment's fields are checked here, with its decoding: a
        // request that breaks them never starts executing.
        CREATE_MEMECOIN => create(DeployRequest::Memecoin(parts.body::<MemecoinRequest>()?))?,
        CREATE_AIRDROP => create(DeployRequest::Airdrop(parts.body::<AirdropRequest>()?))?,
        MEMECOIN_STATUS | MEMECOIN_STATUS_BY_QUERY | MEMECOIN_STATUS_POST => {
            DeploymentOp::DeploymentStatus(DeploymentKind::Memecoin, status_id(parts)?)
        }
        AIRDROP_STATUS | AIRDROP_STATUS_BY_QUERY | AIRDROP_STATUS_POST => {
            DeploymentOp::DeploymentStatus(DeploymentKind::Airdrop, status_id(parts)?)
        }
        _ => return Ok(None),
    }))
}

fn create(req: DeployRequest) -> Result<DeploymentOp> {
    req.spec()?;
    Ok(DeploymentOp::CreateDeployment(req))
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

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(
    store: &mut dyn Store,
    ctx: &Ctx,
    op: DeploymentOp,
    shell: &mut dyn Shell,
) -> Result<(u16, DeploymentAnswer)> {
    Ok(match op {
        DeploymentOp::CreateDeployment(req) => {
            let spec = req.spec()?;
            let id = DeploymentId::new_unchecked(uuid_v4(shell.random16()?));
            let d = deployment::create(store, ctx, spec, id)?;
            (
                201,
                DeploymentAnswer::Created(DeploymentCreated { id: d.id }),
            )
        }
        DeploymentOp::DeploymentStatus(kind, id) => {
            let d = deployment::find(store, &id, Some(kind))?;
            let mut answer = DeploymentStatusResult::of(&d, shell.base_url());
            if d.status == DeploymentStatus::Pending {
                answer.data.waiting = settlement::stopped(store, ctx)?;
            }
            (200, DeploymentAnswer::Status(answer))
        }
    })
}
