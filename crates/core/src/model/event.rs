//! The merchant's event log: one record per thing that happened to one of its resources,
//! written in the same transaction as the change it describes (so an event exists exactly
//! when its change does).
//!
//! An operation writes an event with its [`Subject`] (what it is about: a reference, or a
//! snapshot of what no longer exists afterwards, such as an opened lock). Before the
//! transaction commits, the wire floor renders each new event's payload, the resource as the
//! API shows it at that moment (`wire::event::seal`), so the payload is fixed with the change.
//!
//! Ids come from the log's sequence: `evt_<the merchant id's first 12 characters><the
//! sequence number, 12 hex digits>`. Unique across merchants, ordered within one, and the
//! cursor of `GET /merchant/events` is an event id.

use super::amount::Usdc;
use super::balance::Lock;
use super::ids::{DeploymentId, MerchantId, PresaleId, TokenAddress, UserId, WebhookId};
use super::pool::{Booked, Pool, Trade, TradeFacts};
use super::time::Millis;
use serde::{Deserialize, Serialize};

macro_rules! event_types {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal ),* $(,)?) => {
        /// What happened. The string form is part of the public API: never rename one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum EventType { $( $(#[$doc])* $variant ),* }

        impl EventType {
            /// Every type, in the order the documentation lists them.
            pub const ALL: &'static [EventType] = &[ $( EventType::$variant ),* ];

            pub fn as_str(self) -> &'static str {
                match self { $( EventType::$variant => $name ),* }
            }

            /// The type named `s`, if there is one.
            pub fn parse(s: &str) -> Option<EventType> {
                match s { $( $name => Some(EventType::$variant), )* _ => None }
            }
        }
    };
}

event_types! {
    /// A holder's wallet was created (`PUT /holder/:userId` for a new userId).
    HolderCreated => "holder.created",
    /// A record appeared in a holder's history (every movement, on any chain).
    TransactionCreated => "transaction.created",
    /// The chain mined a movement (an EVM chain; the embedded chain's are confirmed when
    /// created).
    TransactionConfirmed => "transaction.confirmed",
    /// The chain refused a movement for good; the ledger undid it (a `reversal` record).
    TransactionFailed => "transaction.failed",
    /// A reorganization of the chain dropped the block that held a confirmed movement: it is
    /// `submitted` again, sent again, and confirmed again in a block of the new chain.
    TransactionReorganized => "transaction.reorganized",
    /// A token came into existence (a create-token job, a memecoin or airdrop, a presale
    /// launch).
    TokenCreated => "token.created",
    PresaleCreated => "presale.created",
    /// A holder bought into a presale.
    PresalePurchase => "presale.purchase",
    /// A presale's status moved (pending, active, completed, ended).
    PresaleStatusChanged => "presale.status_changed",
    /// A presale's launch finished: its token exists and its buyers hold their locks.
    PresaleLaunched => "presale.launched",
    /// Every buyer of a presale got their USDC back.
    PresaleRefunded => "presale.refunded",
    /// Locked tokens became active.
    LockUnlocked => "lock.unlocked",
    DeploymentSucceeded => "deployment.succeeded",
    DeploymentFailed => "deployment.failed",
    /// A token's liquidity pool opened.
    LiquidityCreated => "liquidity.created",
    /// A holder bought from or sold to a token's pool.
    TradeExecuted => "trade.executed",
    /// A test event, sent only to the webhook it was asked for.
    WebhookPing => "webhook.ping",
}

impl Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        EventType::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown event {s}")))
    }
}

/// A presale purchase, as its event tells it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurchaseFacts {
    pub user_id: UserId,
    pub usdc: Usdc,
    /// The buyer's history record of the purchase.
    pub record: u64,
}

/// What an event is about: what its payload is rendered from.
///
/// Stored as JSON, externally tagged (`{"presale": {...}}`): an internally tagged enum is
/// read through serde's buffer, which cannot hold the u128 of an amount.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subject {
    Holder {
        user_id: UserId,
    },
    /// A history record, by its sequence number.
    Transaction {
        seq: u64,
    },
    Token {
        address: TokenAddress,
    },
    Presale {
        id: PresaleId,
        /// The status before a status change.
        #[serde(default)]
        previous_status: Option<String>,
        #[serde(default)]
        purchase: Option<PurchaseFacts>,
    },
    /// A lock as it was when it opened (it no longer exists afterwards).
    Lock {
        lock: Lock,
        user_id: Option<UserId>,
    },
    Deployment {
        id: DeploymentId,
    },
    /// A token's pool.
    Liquidity {
        token: TokenAddress,
    },
    /// A trade in a token's pool.
    Trade(Box<TradeSubject>),
    Ping {
        webhook: WebhookId,
    },
}

/// A trade, as its event tells it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredTrade")]
pub struct TradeSubject {
    pub user_id: UserId,
    pub buy: bool,
    pub token: TokenAddress,
    pub facts: TradeFacts,
    /// What the ledger moved (None: the trade's own amounts).
    #[serde(default)]
    pub booked: Option<Booked>,
    /// The token leg's history record (its settlement is the trade's).
    pub record: u64,
}

/// A trade's subject as stored: as [`TradeSubject`], or as events of 0.3.0 and before kept
/// it, with the whole pool before the trade and the trade (the pool after it in it) where
/// `token` and `facts` are now. Those are read into the new shape.
#[derive(Deserialize)]
struct StoredTrade {
    user_id: UserId,
    buy: bool,
    #[serde(default)]
    token: Option<TokenAddress>,
    #[serde(default)]
    facts: Option<TradeFacts>,
    #[serde(default)]
    before: Option<Box<Pool>>,
    #[serde(default)]
    trade: Option<Box<Trade>>,
    #[serde(default)]
    booked: Option<Booked>,
    record: u64,
}

impl TryFrom<StoredTrade> for TradeSubject {
    type Error = String;

    fn try_from(s: StoredTrade) -> Result<Self, String> {
        let (token, facts) = match (s.token, s.facts, s.before, s.trade) {
            (Some(token), Some(facts), _, _) => (token, facts),
            (_, _, Some(before), Some(trade)) => (before.token, TradeFacts::of(&before, &trade)),
            _ => return Err("a trade event without its trade".into()),
        };
        Ok(TradeSubject {
            user_id: s.user_id,
            buy: s.buy,
            token,
            facts,
            booked: s.booked,
            record: s.record,
        })
    }
}

/// One event of the log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord {
    /// Its place in the log (assigned by the store; 0 before it is stored).
    pub seq: u64,
    pub kind: EventType,
    /// When it happened (service time).
    pub at: Millis,
    /// The resource it is about, `<kind>:<id>` (`presale:<id>`, `transaction:<record id>`,
    /// ...): events of one resource are delivered in order.
    pub resource: String,
    pub subject: Subject,
    /// The payload as the API shows it (JSON text), fixed before the transaction commits;
    /// None until then.
    pub data: Option<String>,
}

const PREFIX_LEN: usize = 12;

fn tag(merchant: &MerchantId) -> &str {
    merchant
        .as_str()
        .get(..PREFIX_LEN)
        .unwrap_or(merchant.as_str())
}

/// The public id of an item numbered `seq` in one of the merchant's logs: `<prefix>_<the
/// merchant id's first 12 characters><seq, 12 hex digits>`.
pub fn public_id(prefix: &str, merchant: &MerchantId, seq: u64) -> String {
    format!("{prefix}_{}{seq:012x}", tag(merchant))
}

/// The sequence number a public id made by [`public_id`] names, if it is one of this
/// merchant's.
pub fn parse_public_id(prefix: &str, merchant: &MerchantId, id: &str) -> Option<u64> {
    let rest = id.strip_prefix(prefix)?.strip_prefix('_')?;
    let (mine, seq) = (rest.get(..PREFIX_LEN)?, rest.get(PREFIX_LEN..)?);
    if mine != tag(merchant) || seq.len() != 12 || !seq.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(seq, 16).ok().filter(|n| *n > 0)
}

/// An event's id.
pub fn event_id(merchant: &MerchantId, seq: u64) -> String {
    public_id("evt", merchant, seq)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_name_their_merchant() {
        let m = MerchantId::new_unchecked("0123456789abcdef0123456789abcdef");
        let other = MerchantId::new_unchecked("ffff456789abcdef0123456789abcdef");
        let id = event_id(&m, 42);
        assert_eq!(id, "evt_0123456789ab00000000002a");
        assert_eq!(parse_public_id("evt", &m, &id), Some(42));
        assert_eq!(parse_public_id("evt", &other, &id), None);
        assert_eq!(parse_public_id("dlv", &m, &id), None);
        for bad in [
            "",
            "evt_",
            "evt_0123456789ab",
            "evt_0123456789ab00000000002g",
            "evt_0123456789ab000000000000",
        ] {
            assert_eq!(parse_public_id("evt", &m, bad), None, "{bad}");
        }
    }

    #[test]
    fn subjects_with_amounts_round_trip_as_json() {
        // Amounts beyond u64 as stores keep them: as JSON text.
        let usdc = Usdc::whole(u128::from(u64::MAX)).unwrap();
        let s = Subject::Presale {
            id: PresaleId::new_unchecked("afc2800c-ffff-4e42-9346-646d3867494b"),
            previous_status: None,
            purchase: Some(PurchaseFacts {
                user_id: UserId::new_unchecked("alice"),
                usdc,
                record: 7,
            }),
        };
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Subject>(&json).unwrap(), s);
    }

    #[test]
    fn types_round_trip() {
        for t in EventType::ALL {
            assert_eq!(EventType::parse(t.as_str()), Some(*t));
            let json = serde_json::to_string(t).unwrap();
            assert_eq!(serde_json::from_str::<EventType>(&json).unwrap(), *t);
        }
        assert_eq!(EventType::parse("presale.*"), None);
    }
}
