//! The operator's routes (admin key) and the open ones: merchants, the service clock, the
//! test faucet, chain faults, health and the index.

use super::endpoint::{
    Access::Admin,
    Effect::{Reads, Writes},
    Route, Row,
};
use super::settlement::Settlement;
use crate::model::address::Address;
use crate::model::amount::unit;
use crate::model::decimal::{Decimal, Whole};
use crate::model::ids::MerchantId;
use crate::model::input::{Checked, Int, Text};
use crate::model::time::Timestamp;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below and the edge's admin dispatch (`edge/admin.rs`) name them.
pub const ADMIN_CREATE_MERCHANT: Route = Route::new("adminCreateMerchant");
pub const ADMIN_TIME_ADVANCE: Route = Route::new("adminAdvanceTime");
pub const ADMIN_FAUCET: Route = Route::new("adminFaucet");
pub const ADMIN_TIME: Route = Route::new("adminTime");
pub const ADMIN_CHAIN_FAULTS: Route = Route::new("adminChainFaults");
pub const ADMIN_FAULTS: Route = Route::new("adminFaults");
pub const ADMIN_CHAIN: Route = Route::new("adminChain");
pub const ADMIN_RECONCILE: Route = Route::new("adminReconcile");
pub const ADMIN_CHAIN_RETRY: Route = Route::new("adminChainRetry");
pub const ADMIN_CHAIN_OVERVIEW: Route = Route::new("adminChainOverview");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/admin/merchants", ADMIN_CREATE_MERCHANT, Admin, Writes),
    ("POST", "/admin/time/advance", ADMIN_TIME_ADVANCE, Admin, Writes),
    ("POST", "/admin/faucet", ADMIN_FAUCET, Admin, Writes),
    ("GET", "/admin/time", ADMIN_TIME, Admin, Reads),
    ("POST", "/admin/chain/faults", ADMIN_CHAIN_FAULTS, Admin, Writes),
    ("POST", "/admin/faults", ADMIN_FAULTS, Admin, Writes),
    ("GET", "/admin/merchants/:merchantId/chain", ADMIN_CHAIN, Admin, Reads),
    ("GET", "/admin/merchants/:merchantId/reconcile", ADMIN_RECONCILE, Admin, Reads),
    ("POST", "/admin/merchants/:merchantId/chain/retry", ADMIN_CHAIN_RETRY, Admin, Writes),
    ("GET", "/admin/chain", ADMIN_CHAIN_OVERVIEW, Admin, Reads),
];

/// `POST /admin/merchants`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "CreateMerchant"))]
pub struct CreateMerchantRequest {
    pub name: Text<100>,
}

impl Checked for CreateMerchantRequest {}

/// A merchant as created; the keys are shown once, at creation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Merchant"))]
#[cfg_attr(feature = "codegen", schemars(transform = crate::schema::required("secretKey publicKey")))]
#[serde(rename_all = "camelCase")]
pub struct MerchantCreated {
    pub id: MerchantId,
    pub name: String,
    pub merchant_address: Address,
    /// Returned only here, once; stored only as a hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^sk_")))]
    pub secret_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("pattern" = "^pk_")))]
    pub public_key: Option<String>,
}

/// `POST /admin/time/advance` (local runs and tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "TimeAdvance"))]
pub struct TimeAdvanceRequest {
    pub seconds: Int<1, 31_536_000>,
}

impl Checked for TimeAdvanceRequest {}

/// The service clock: real time plus the time-travel offset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "TimeAdvanceResult"))]
#[serde(rename_all = "camelCase")]
pub struct Clock {
    /// Total offset of the service clock from real time.
    pub offset_seconds: u64,
    /// ISO 8601.
    pub now: Timestamp,
    /// The service clock, UNIX seconds.
    pub now_unix: u64,
}

/// `POST /admin/faucet` (local runs and tests): test USDC for a holder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Faucet"))]
#[serde(rename_all = "camelCase")]
pub struct FaucetRequest {
    /// Address of a holder (of `merchantId` when given, else of any merchant).
    pub address: Address,
    /// USDC in whole units (at most 6 fractional digits).
    pub usdc_amount: Whole<unit::Usdc>,
    /// The holder's merchant; any merchant's holder when absent.
    pub merchant_id: Option<MerchantId>,
}

impl Checked for FaucetRequest {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FaucetResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    #[serde(flatten)]
    pub settlement: Settlement,
    pub address: Address,
    pub usdc_amount: Decimal,
}

/// `POST /admin/chain/faults` (local runs and tests): the merchant's next `count` fallible
/// chain submissions fail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "ChainFaults"))]
#[serde(rename_all = "camelCase")]
pub struct ChainFaultsRequest {
    pub merchant_id: MerchantId,
    pub count: Int<0, 100>,
}

impl Checked for ChainFaultsRequest {}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ChainFaultsResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    pub fail_next: u64,
}

/// What `POST /admin/faults` makes fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "FaultKind"))]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Schedules, due now, an item whose owner fails every time it runs (a job whose stored
    /// record cannot be read): it must end parked, blocking nothing.
    PoisonDue,
    /// The merchant object's next `count` answers to API calls (and to the clock's moves,
    /// `POST /admin/time/advance`) are lost, as a caller sees it when an object is reset or
    /// overloaded mid-request: the odd ones before the operation runs, the even ones after
    /// it committed.
    LostAnswers,
    /// The merchant object's next `count` alarm writes fail.
    AlarmWrites,
    /// The registry's next `count` deployment-owner writes fail.
    RegistryWrites,
    /// An EVM chain: the settler's next `count` transactions are signed and stored but not
    /// sent, and its round ends in an error, as if the object stopped between the two.
    HaltAfterSigning,
    /// The merchant object runs a transaction that writes its merchant record in the other
    /// privacy mode, revokes every key and adds one taking another public key
    /// (`pk_<merchant id>_` and 32 zeros), and then fails: the records, and any copy of them
    /// the object keeps in memory, must stay as they were.
    MerchantRollback,
    /// The merchant object runs a transaction that credits one whole token to each of the 100
    /// largest holders of every token (and counts them held) and then fails: the balances and
    /// tokens, and the
    /// copies of them the object keeps in memory, must stay as they were.
    LedgerRollback,
    /// The merchant object runs a transaction that credits one whole token to each of the 100
    /// largest holders of every token without counting them held (a ledger bug) and returns
    /// as if all were well: the books refuse it as it commits (conservation per token), so
    /// nothing of it stays. Answers 200 only if it was refused for that.
    UnbalancedBooks,
    /// The merchant object writes a debt into its USDC's books (one base unit, owed by an
    /// address no one uses to the supply) with nothing open to pay it, as a settlement bug
    /// would leave one: an EVM chain's settlement report must say it stuck (`unpaid`) past
    /// `CHAIN_STUCK_AFTER_MS`. Balances are untouched.
    OrphanDebt,
}

/// `POST /admin/faults` (local runs and tests).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Faults"))]
#[serde(rename_all = "camelCase")]
pub struct FaultsRequest {
    pub kind: FaultKind,
    /// The merchant (every kind but `registry_writes`).
    pub merchant_id: Option<MerchantId>,
    /// How many (`lost_answers`, `alarm_writes`, `registry_writes`; default 1).
    pub count: Option<Int<1, 100>>,
}

impl Checked for FaultsRequest {
    fn check(&self) -> crate::Result<()> {
        if self.merchant_id.is_none() && self.kind != FaultKind::RegistryWrites {
            return Err(crate::Error::field(
                "merchantId",
                "merchantId is required for this kind",
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FaultsResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    pub kind: FaultKind,
    /// `poison_due`: the id of the poisoned job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// `GET /health`: whether the service can run, and on which chain (never its RPC URL).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct Health {
    /// False when the configuration is unusable, or on an EVM chain when its node does not
    /// answer the settlers or answers with errors (then `error` says why).
    pub ok: bool,
    /// The release this Worker is (the workspace's version, as the npm package and
    /// openapi.json's `info.version` have it).
    pub version: String,
    /// The git commit of its sources (scripts/build-worker.sh: the last commit that changed
    /// the Worker's sources), with `-dirty` when they differed from it; `unknown` when built
    /// outside git. With `version`, it names one build.
    pub commit: String,
    pub chain: HealthChain,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What is wrong that does not stop the service (`ok` stays true): on an EVM chain, how
    /// many merchants' settlement is stuck past `CHAIN_STUCK_AFTER_MS`, never which
    /// (`GET /admin/chain` lists them, with what to do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HealthChain {
    /// `embedded` (the ledger presented as a chain) or `evm`.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["embedded", "evm"])))]
    pub kind: String,
    /// The EVM chain id (absent on the embedded chain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// On an EVM chain: whether its node answers, from the settlers' latest rounds (no
    /// request to `/health` calls the node). Never its URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<HealthNode>,
    /// On an EVM chain: the merchants' relayers, as their settlers last found them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relayers: Option<HealthRelayers>,
}

/// The chain's node, as the settlers last found it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HealthNode {
    /// `reachable`; `unreachable` (the latest round got no answer: a timeout, a network or
    /// HTTP error); `failing` (the node answered with errors); `unknown` (no settler reported
    /// in the last five minutes: no merchant, or none running).
    #[cfg_attr(
        feature = "codegen",
        schemars(extend("enum" = ["reachable", "unreachable", "failing", "unknown"]))
    )]
    pub status: String,
    /// When the latest report's round ran (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked_at: Option<String>,
    /// When the node last answered a whole round (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_contact_at: Option<String>,
    /// What is wrong, for people (never the node's URL or its error text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How many merchants' relayers reported in the last five minutes, by state (the admin chain
/// route, `GET /admin/merchants/:merchantId/chain`, says which and why).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HealthRelayers {
    pub reporting: u64,
    /// Their latest round went through.
    pub ready: u64,
    /// They lack the ETH for gas: their settlement waits until they are funded.
    pub out_of_gas: u64,
    /// Some of their movements wait on the chain (a token not deployed yet).
    pub waiting: u64,
    /// Their settlement is stuck: a movement parked for an operator, or past
    /// `CHAIN_STUCK_AFTER_MS` a transaction not mined, the relayer out of gas or its node
    /// failing, movements queued (`GET /admin/chain` says which and what to do).
    #[serde(default)]
    pub stuck: u64,
}

/// `GET /`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub name: String,
    pub description: String,
    pub openapi: String,
}

/// Every error: `{ success: false, message, code, details? }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS, schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "Error"))]
pub struct ErrorBody {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = false)))]
    #[cfg_attr(feature = "codegen", ts(type = "false"))]
    pub success: bool,
    /// For people.
    pub message: String,
    /// The same as `message` (the name some clients read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Stable, for programs.
    pub code: crate::ErrorCode,
    /// Extra information, e.g. `field` for the field that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", ts(type = "Record<string, unknown>"))]
    pub details: Option<serde_json::Map<String, serde_json::Value>>,
}
