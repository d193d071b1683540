//! Events on the wire: the envelope (`GET /merchant/events`, and every webhook delivery's
//! body), the payload of each type, and [`seal`], which renders new events' payloads before
//! their transaction commits.
//!
//! A payload is `data.object`, the resource as the API shows it (the merchant forms: a
//! presale as `GET /merchant/presale/:id` answers it) at the end of the change the event
//! records, and a few facts beside it (whose history a transaction is in, what a purchase
//! paid, the status before a status change).

use super::deployment::Deployment;
use super::holder::{HolderFull, ItemKind, ItemStatus, LockItem};
use super::ledger::TxRecord;
use super::market::{BookedAmounts, Side, TradeFigures, TradeResult};
use super::pool::Pool;
use super::presale::{PresaleMerchant, EVENT_PARTICIPANTS};
use super::settlement::Settlement;
use super::token::{Token, DEFAULT_HOLDERS};
use super::webhook::Webhook;
use crate::error::{Error, Result};
use crate::model::decimal::Decimal;
use crate::model::event::{event_id, EventRecord, EventType, Subject};
use crate::model::ids::{MerchantId, TokenAddress, UserId};
use crate::model::pool::Booked;
use crate::model::time::Timestamp;
use crate::ops;
use crate::store::Store;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Something that happened to one of the merchant's resources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Unique (`evt_...`): a receiver deduplicates on it, since a delivery may come more
    /// than once. Also the cursor of `GET /merchant/events?after=`.
    pub id: String,
    #[serde(rename = "type")]
    pub kind: EventType,
    /// When it happened (the service clock).
    pub created_at: Timestamp,
    #[cfg_attr(feature = "codegen", schemars(with = "String"))]
    pub merchant_id: MerchantId,
    /// The resource it is about (`presale:<id>`, `transaction:<id>`, `token:<address>`,
    /// `holder:<userId>`, `lock:<id>`, `deployment:<id>`, `webhook:<id>`): one resource's
    /// events are delivered to an endpoint in the order they happened.
    pub resource: String,
    pub data: EventData,
}

/// An event's payload: `object` and the facts beside it, by type (see each schema).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EventData(pub Value);

/// `holder.created`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct HolderEventData {
    pub object: HolderFull,
}

/// `transaction.created`, `transaction.confirmed`, `transaction.failed`,
/// `transaction.reorganized`: a record of a holder's history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TransactionEventData {
    pub object: TxRecord,
    /// The holder whose history it is in.
    pub user_id: UserId,
}

/// `token.created`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct TokenEventData {
    pub object: Token,
}

/// A purchase (`presale.purchase`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresalePurchase {
    pub user_id: UserId,
    pub usdc_amount: Decimal,
    /// The buyer's history record of it (its `transaction.created` event's object).
    pub transaction_id: String,
}

/// `presale.*`: the presale's merchant form. `presale.purchase` lists its buyer alone in
/// `object.participants` (their row after the purchase: their total `usdcAmount` in the
/// presale and their `tokenPercentage` of all raised), so a purchase costs the same however
/// many bought before; the other types list the first 100. `participantsCount` counts them
/// all; `GET /merchant/presale/:id` lists every one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PresaleEventData {
    pub object: PresaleMerchant,
    /// `presale.status_changed`: the status before (the new one is `object.status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "codegen", schemars(extend("enum" = ["pending", "active", "completed", "ended"])))]
    pub previous_status: Option<String>,
    /// `presale.purchase`: who bought, and for how much.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purchase: Option<PresalePurchase>,
}

/// `lock.unlocked`: the lock as it was when it opened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LockEventData {
    pub object: LockItem,
    /// The holder it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<UserId>,
}

/// `deployment.succeeded`, `deployment.failed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct DeploymentEventData {
    pub object: Deployment,
}

/// `liquidity.created`: the token's pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LiquidityEventData {
    pub object: Pool,
    pub token_address: TokenAddress,
}

/// `trade.executed`: the trade as `POST /holder/:userId/buy` (or `/sell`) answered it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TradeEventData {
    pub object: TradeResult,
    pub user_id: UserId,
}

/// `webhook.ping`: the endpoint it tests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct PingEventData {
    pub object: Webhook,
}

#[cfg(feature = "codegen")]
impl schemars::JsonSchema for EventData {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EventData".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let any = vec![
            g.subschema_for::<HolderEventData>(),
            g.subschema_for::<TransactionEventData>(),
            g.subschema_for::<TokenEventData>(),
            g.subschema_for::<PresaleEventData>(),
            g.subschema_for::<LockEventData>(),
            g.subschema_for::<DeploymentEventData>(),
            g.subschema_for::<LiquidityEventData>(),
            g.subschema_for::<TradeEventData>(),
            g.subschema_for::<PingEventData>(),
        ];
        schemars::json_schema!({
            "description": "The payload: `object` is the resource as the API shows it, at the end of the change. Which schema goes with which `type`: holder.created HolderEventData; transaction.* TransactionEventData; token.created TokenEventData; presale.* PresaleEventData; lock.unlocked LockEventData; deployment.* DeploymentEventData; liquidity.created LiquidityEventData; trade.executed TradeEventData; webhook.ping PingEventData.",
            "anyOf": any
        })
    }
}

/// A payload's JSON text, written straight from its wire type (no value tree: its keys stay
/// in the type's order; a reader parses the text into a value, whose keys it sorts, so an
/// event reads the same either way).
fn to_text<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::internal(format!("event payload: {e}")))
}

fn missing(what: &str) -> Error {
    Error::internal(format!("event subject is gone: {what}"))
}

/// An event's payload, rendered from the store as it is now.
pub fn render(store: &dyn Store, e: &EventRecord, base_url: &str) -> Result<String> {
    match &e.subject {
        Subject::Holder { user_id } => {
            let h = ops::holder::find(store, user_id)?;
            to_text(&HolderEventData {
                object: HolderFull::read(store, &h)?,
            })
        }
        Subject::Transaction { seq } => {
            let r = store.history_at(*seq)?.ok_or_else(|| missing("record"))?;
            to_text(&TransactionEventData {
                object: TxRecord::of(&r),
                user_id: r.user_id.clone(),
            })
        }
        Subject::Token { address } => {
            let t = ops::token::find(store, address)?;
            to_text(&TokenEventData {
                object: Token::read(store, &t, DEFAULT_HOLDERS)?,
            })
        }
        Subject::Presale {
            id,
            previous_status,
            purchase,
        } => {
            let p = ops::presale::find(store, id)?;
            let (object, purchase) = match purchase {
                None => {
                    let first = Some(EVENT_PARTICIPANTS);
                    (PresaleMerchant::read_first(store, &p, e.at, first)?, None)
                }
                // A purchase lists its buyer alone, read by key: its cost does not grow with
                // the presale's other participants.
                Some(f) => {
                    let buyer = store
                        .participant(&p.id, &f.user_id)?
                        .ok_or_else(|| missing("buyer's participation"))?;
                    let record = store
                        .history_at(f.record)?
                        .ok_or_else(|| missing("purchase record"))?;
                    let facts = PresalePurchase {
                        user_id: f.user_id.clone(),
                        usdc_amount: Decimal::of(f.usdc),
                        transaction_id: record.id,
                    };
                    let object = PresaleMerchant::listing(&p, e.at, vec![buyer]);
                    (object, Some(facts))
                }
            };
            to_text(&PresaleEventData {
                object,
                previous_status: previous_status.clone(),
                purchase,
            })
        }
        Subject::Lock { lock, user_id } => {
            let t = ops::token::find(store, &lock.token)?;
            to_text(&LockEventData {
                object: LockItem {
                    id: t.address.to_checksum(),
                    address: t.address,
                    name: t.name.clone(),
                    symbol: t.symbol.clone(),
                    balance: Decimal::from_units(lock.amount.raw(), t.decimals),
                    value: Decimal::of(t.value_of(lock.amount)),
                    price: t.price.map(Decimal::of),
                    status: ItemStatus::Locked,
                    kind: ItemKind::Lock,
                    unlock_date: Timestamp::at(lock.unlock_at),
                },
                user_id: user_id.clone(),
            })
        }
        Subject::Deployment { id } => {
            let d = ops::deployment::find(store, id, None)?;
            to_text(&DeploymentEventData {
                object: Deployment::of(&d, base_url),
            })
        }
        Subject::Liquidity { token } => {
            let t = ops::token::find(store, token)?;
            let pool = store.pool(token)?.ok_or_else(|| missing("pool"))?;
            to_text(&LiquidityEventData {
                object: Pool::of(&pool, &t),
                token_address: t.address,
            })
        }
        Subject::Trade(trade) => {
            let t = ops::token::find(store, &trade.token)?;
            let r = store
                .history_at(trade.record)?
                .ok_or_else(|| missing("trade record"))?;
            let side = if trade.buy { Side::Buy } else { Side::Sell };
            let facts = &trade.facts;
            to_text(&TradeEventData {
                object: TradeResult {
                    success: true,
                    settlement: Settlement::of_record(&r),
                    figures: TradeFigures::of(side, &t, facts),
                    booked: BookedAmounts::of(
                        &t,
                        &trade.booked.unwrap_or(Booked {
                            tokens: facts.tokens,
                            usdc: facts.usdc,
                        }),
                    ),
                },
                user_id: trade.user_id.clone(),
            })
        }
        Subject::Ping { webhook } => {
            let w = ops::webhook::find(store, webhook)?;
            to_text(&PingEventData {
                object: Webhook::of(&w),
            })
        }
    }
}

/// Renders the payload of every event not rendered yet. Call it at the end of every
/// transaction that may have written events, before it commits: the payload then shows the
/// resource exactly as the change left it.
pub fn seal(store: &mut dyn Store, base_url: &str) -> Result<()> {
    for e in store.unsealed_events()? {
        let data = render(store, &e, base_url)?;
        store.seal_event(e.seq, &data)?;
    }
    Ok(())
}

impl Event {
    /// The event as the API shows it. An event not sealed yet (a path that forgot to seal)
    /// is rendered now.
    pub fn read(
        store: &dyn Store,
        merchant: &MerchantId,
        e: &EventRecord,
        base_url: &str,
    ) -> Result<Event> {
        let rendered;
        let text = match &e.data {
            Some(text) => text,
            None => {
                rendered = render(store, e, base_url)?;
                &rendered
            }
        };
        let data = serde_json::from_str(text)
            .map_err(|err| Error::internal(format!("stored event payload: {err}")))?;
        Ok(Event {
            id: event_id(merchant, e.seq),
            kind: e.kind,
            created_at: Timestamp::at(e.at),
            merchant_id: merchant.clone(),
            resource: e.resource.clone(),
            data: EventData(data),
        })
    }
}

/// `GET /merchant/events`: oldest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "codegen", derive(schemars::JsonSchema))]
pub struct EventPage {
    pub has_more: bool,
    /// The last event's id: pass it as `after` for the next page, or later to poll for new
    /// events (it is the `after` you sent when the page is empty).
    pub next_cursor: Option<String>,
    pub data: Vec<Event>,
}
