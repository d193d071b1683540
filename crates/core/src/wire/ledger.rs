//! Movements on the wire: distribute's answer, the spend/transfer/withdraw receipt, and a
//! holder's history.

use super::endpoint::{
    Access::{Holder, Secret},
    Effect::{Reads, Writes},
    Route, Row,
};
use super::parts::Parts;
use super::settlement;
use super::settlement::Settlement;
use crate::error::Result;
use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::history::{ChainStatus, TxRecord as Record, TxType};
use crate::model::ids::TokenAddress;
use crate::model::ids::UserId;
use crate::model::time::Timestamp;
use crate::ops::history::Page;
use crate::ops::history::{self, HistoryQuery};
use crate::ops::ledger::Receipt;
use crate::ops::ledger::{self, DistributeRequest, Outflow, SendRequest, SpendRequest};
use crate::ops::{holder, Ctx};
use crate::store::Store;
use serde::{Deserialize, Serialize};

/// This family's routes, each named by its operationId in openapi.json (`endpoint::Route`):
/// its rows below, its operations' `route()` and its decoding name them.
pub const DISTRIBUTE: Route = Route::new("distribute");
pub const REWARD: Route = Route::new("reward");
pub const SPEND: Route = Route::new("spend");
pub const TRANSFER: Route = Route::new("transfer");
pub const WITHDRAW: Route = Route::new("withdraw");
pub const HISTORY: Route = Route::new("listHolderTransactions");

/// This family's routes: method, path pattern, route, who may call it, whether it writes.
#[rustfmt::skip]
pub const ROUTES: &[Row] = &[
    ("POST", "/token/:tokenAddress/distribute", DISTRIBUTE, Secret, Writes),
    ("POST", "/token/:tokenAddress/reward", REWARD, Secret, Writes),
    ("POST", "/holder/:userId/spend", SPEND, Holder, Writes),
    ("POST", "/holder/:userId/transfer", TRANSFER, Holder, Writes),
    ("POST", "/holder/:userId/withdraw", WITHDRAW, Secret, Writes),
    ("GET", "/holder/:userId/transactions", HISTORY, Holder, Reads),
];

/// `POST /token/:tokenAddress/distribute`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DistributeResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    #[serde(flatten)]
    pub settlement: Settlement,
}

/// `POST /token/:tokenAddress/reward` -> 202: a distribution, answered in Metal's shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewardResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    #[serde(flatten)]
    pub settlement: Settlement,
    /// The same as `transactionHash` (Metal's name).
    #[cfg_attr(feature = "codegen", schemars(with = "Option<crate::schema::TxHash>"))]
    pub tx_hash: Option<String>,
    pub name: String,
    pub symbol: String,
    pub token_address: TokenAddress,
    pub amount: Decimal,
    /// The holder's address.
    pub recipient: Address,
    /// What is left of the token's reward (app) supply.
    pub rewards_balance: Decimal,
}

impl RewardResult {
    pub fn of(r: &Receipt) -> RewardResult {
        let t = &r.token;
        RewardResult {
            success: true,
            settlement: Settlement::of(&r.stamp),
            tx_hash: r.stamp.hash.clone(),
            name: t.name.clone(),
            symbol: t.symbol.clone(),
            token_address: t.address,
            amount: Decimal::from_units(r.amount.raw(), t.decimals),
            recipient: r.to,
            rewards_balance: Decimal::from_units(t.remaining_app_supply.raw(), t.decimals),
        }
    }
}

/// `POST /holder/:userId/{spend,transfer,withdraw}` (Metal's shape).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LedgerResult {
    #[cfg_attr(feature = "codegen", schemars(extend("const" = true)))]
    pub success: bool,
    #[serde(flatten)]
    pub settlement: Settlement,
    pub from: Address,
    pub to: Address,
    pub amount: Decimal,
    pub token_address: TokenAddress,
}

impl LedgerResult {
    pub fn of(r: &Receipt) -> LedgerResult {
        LedgerResult {
            success: true,
            settlement: Settlement::of(&r.stamp),
            from: r.from,
            to: r.to,
            amount: Decimal::from_units(r.amount.raw(), r.token.decimals),
            token_address: r.token.address,
        }
    }
}

// `R` is a record as the page carries it: its wire type, or the same record already written
// as JSON (the merchant object keeps the records it rendered, `objects/merchant/render.rs`,
// and writes a page of them without rendering them again). Not a doc comment: the schema's
// description is the first line's.
/// `GET /holder/:userId/transactions`: one page, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "codegen", schemars(rename = "TxPage"))]
pub struct TxPage<R = TxRecord> {
    pub has_more: bool,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
    /// Newest first.
    pub data: Vec<R>,
    /// On an EVM chain, when records on this page are still on their way and settlement is
    /// stopped: why (the relayer has no ETH for gas, with the address to fund; the node does
    /// not answer). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
}

impl TxPage {
    /// A page; `stopped` is why settlement is stopped, if it is.
    pub fn of(page: Page, stopped: Option<&str>) -> TxPage {
        let open = page.records.iter().any(|r| {
            matches!(
                r.chain_status,
                ChainStatus::Pending | ChainStatus::Submitted
            )
        });
        TxPage {
            has_more: page.next_cursor.is_some(),
            next_cursor: page.next_cursor,
            data: page.records.iter().map(TxRecord::of).collect(),
            waiting: stopped.filter(|_| open).map(str::to_string),
        }
    }
}

/// One record of a holder's history.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TxRecord {
    pub id: String,
    #[serde(flatten)]
    pub settlement: Settlement,
    #[serde(rename = "type")]
    pub kind: TxType,
    /// Metal's label: Airdrop, Transfer, Withdraw, Deposit, Buy, Sell.
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["Airdrop", "Transfer", "Withdraw", "Deposit", "Buy", "Sell"])))]
    pub context: String,
    pub token_address: TokenAddress,
    pub symbol: String,
    pub amount: Decimal,
    pub from: Address,
    pub to: Address,
    /// ISO 8601.
    pub timestamp: Timestamp,
    /// Why the chain refused the movement (an EVM chain): on a `failed` record and on the
    /// `reversal` that undid it, as the chain said it (`ERC20InsufficientBalance`,
    /// `TokenpadMarketSlippage(...)`). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
}

impl TxRecord {
    pub fn of(r: &Record) -> TxRecord {
        TxRecord {
            id: r.id.clone(),
            settlement: Settlement::of_record(r),
            kind: r.kind,
            context: r.kind.context().to_string(),
            token_address: r.token,
            symbol: r.symbol.clone(),
            amount: Decimal::from_units(r.amount.raw(), r.decimals),
            from: r.from,
            to: r.to,
            timestamp: Timestamp::at(r.at),
            failure_reason: r.reason.clone(),
        }
    }
}

/// A movement or a holder's history, decoded from one of [`ROUTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LedgerOp {
    Distribute(TokenAddress, DistributeRequest),
    Reward(TokenAddress, DistributeRequest),
    Spend(UserId, SpendRequest),
    Transfer(UserId, SendRequest),
    Withdraw(UserId, SendRequest),
    History(UserId, HistoryQuery),
}

/// Every answer of a [`LedgerOp`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum LedgerAnswer {
    Distribute(DistributeResult),
    Ledger(LedgerResult),
    History(TxPage),
    Reward(Box<RewardResult>),
}

impl LedgerOp {
    /// The route it was decoded from.
    pub fn route(&self) -> Route {
        match self {
            LedgerOp::Distribute(..) => DISTRIBUTE,
            LedgerOp::Reward(..) => REWARD,
            LedgerOp::Spend(..) => SPEND,
            LedgerOp::Transfer(..) => TRANSFER,
            LedgerOp::Withdraw(..) => WITHDRAW,
            LedgerOp::History(..) => HISTORY,
        }
    }
}

/// Decodes a route of this family; None for any other route.
#[inline(never)]
pub fn decode(route: Route, parts: &Parts) -> Result<Option<LedgerOp>> {
    Ok(Some(match route {
        DISTRIBUTE => LedgerOp::Distribute(parts.token(0)?, parts.body()?),
        REWARD => LedgerOp::Reward(parts.token(0)?, parts.body()?),
        SPEND => LedgerOp::Spend(parts.user(0)?, parts.body()?),
        TRANSFER => LedgerOp::Transfer(parts.user(0)?, parts.body()?),
        WITHDRAW => LedgerOp::Withdraw(parts.user(0)?, parts.body()?),
        HISTORY => LedgerOp::History(
            parts.user(0)?,
            HistoryQuery::parse(
                parts.query("limit"),
                parts.query("cursor"),
                parts.query("tokenAddress"),
            )?,
        ),
        _ => return Ok(None),
    }))
}

/// Applies `op`: its HTTP status and answer.
#[inline(never)]
pub fn apply(store: &mut dyn Store, ctx: &Ctx, op: LedgerOp) -> Result<(u16, LedgerAnswer)> {
    Ok(match op {
        LedgerOp::Distribute(address, req) => {
            let receipt = ledger::distribute(store, ctx, &address, &req)?;
            let answer = DistributeResult {
                success: true,
                settlement: Settlement::of(&receipt.stamp),
            };
            (200, LedgerAnswer::Distribute(answer))
        }
        LedgerOp::Reward(address, req) => {
            let receipt = ledger::distribute(store, ctx, &address, &req)?;
            (
                202,
                LedgerAnswer::Reward(Box::new(RewardResult::of(&receipt))),
            )
        }
        LedgerOp::Spend(user_id, req) => move_out(store, ctx, &user_id, Outflow::Spend(req))?,
        LedgerOp::Transfer(user_id, req) => move_out(store, ctx, &user_id, Outflow::Transfer(req))?,
        LedgerOp::Withdraw(user_id, req) => move_out(store, ctx, &user_id, Outflow::Withdraw(req))?,
        LedgerOp::History(user_id, q) => {
            let h = holder::find(store, &user_id)?;
            let stopped = settlement::stopped(store, ctx)?;
            let page = TxPage::of(history::page(store, &h.user_id, &q)?, stopped.as_deref());
            (200, LedgerAnswer::History(page))
        }
    })
}

fn move_out(
    store: &mut dyn Store,
    ctx: &Ctx,
    user_id: &UserId,
    out: Outflow,
) -> Result<(u16, LedgerAnswer)> {
    let receipt = ledger::move_out(store, ctx, user_id, &out)?;
    Ok((200, LedgerAnswer::Ledger(LedgerResult::of(&receipt))))
}
