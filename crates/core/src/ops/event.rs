//! The event log: operations write what happened ([`emit`]) in their own transaction, and
//! `GET /merchant/events` reads it ([`page`]). The payload of each new event is rendered by
//! the wire floor before the transaction commits (`wire::event::seal`).

use crate::error::{Error, ErrorCode, Result};
use crate::model::event::{parse_public_id, EventRecord, EventType, Subject};
use crate::model::ids::MerchantId;
use crate::model::input::Int;
use crate::model::time::Millis;
use crate::model::webhook::pattern_matches;
use crate::store::Store;

pub const DEFAULT_PAGE: u32 = 50;
pub const MAX_PAGE: u64 = 200;
/// Events (and finished deliveries) are kept this long.
pub const RETENTION: Millis = 30 * crate::model::time::DAY;

/// The resource an event is about, `<kind>:<id>`: the unit of delivery order.
fn resource(store: &dyn Store, subject: &Subject) -> Result<String> {
    Ok(match subject {
        Subject::Holder { user_id } => format!("holder:{user_id}"),
        Subject::Transaction { seq } => {
            let r = store
                .history_at(*seq)?
                .ok_or_else(|| Error::internal(format!("history record {seq} is missing")))?;
            transaction_resource(&r.id)
        }
        Subject::Token { address } | Subject::Liquidity { token: address } => {
            format!("token:{}", address.to_checksum())
        }
        Subject::Trade(t) => format!("token:{}", t.token.to_checksum()),
        Subject::Presale { id, .. } => format!("presale:{id}"),
        Subject::Lock { lock, .. } => format!("lock:{}", lock.id),
        Subject::Deployment { id } => format!("deployment:{id}"),
        Subject::Ping { webhook } => format!("webhook:{webhook}"),
    })
}

/// The resource of a history record's events, by the record's id.
pub fn transaction_resource(record_id: &str) -> String {
    format!("transaction:{record_id}")
}

/// Writes that `kind` happened at `at` to `subject`. Call it after the change is written:
/// the event's payload is rendered from the state the transaction ends with.
pub fn emit(store: &mut dyn Store, at: Millis, kind: EventType, subject: Subject) -> Result<u64> {
    let resource = resource(store, &subject)?;
    emit_about(store, at, kind, subject, resource)
}

/// [`emit`], its resource already known to the caller (which spares reading it back).
pub fn emit_about(
    store: &mut dyn Store,
    at: Millis,
    kind: EventType,
    subject: Subject,
    resource: String,
) -> Result<u64> {
    store.append_event(&EventRecord {
        seq: 0,
        kind,
        at,
        resource,
        subject,
        data: None,
    })
}

/// `GET /merchant/events?after=&types=&limit=`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EventQuery {
    /// An event id: only events after it. None: from the oldest kept.
    pub after: Option<String>,
    /// Only these types (comma-separated in the query).
    pub kinds: Option<Vec<EventType>>,
    pub limit: u32,
}

impl EventQuery {
    /// From the raw query parameters; empty ones count as absent.
    pub fn parse(
        after: Option<&str>,
        types: Option<&str>,
        limit: Option<&str>,
    ) -> Result<EventQuery> {
        let limit = match limit {
            None | Some("") => DEFAULT_PAGE,
            Some(l) => {
                u32::try_from(Int::<1, MAX_PAGE>::parse("limit", l)?.get()).unwrap_or(DEFAULT_PAGE)
            }
        };
        let kinds = match types.map(str::trim).filter(|t| !t.is_empty()) {
            None => None,
            // Types, groups (`presale.*`) or `*`, as a webhook subscribes.
            Some(list) => {
                let mut kinds = Vec::new();
                for t in list.split(',').map(str::trim) {
                    let matched: Vec<EventType> = EventType::ALL
                        .iter()
                        .copied()
                        .filter(|k| pattern_matches(t, *k))
                        .collect();
                    if matched.is_empty() {
                        return Err(Error::new(
                            ErrorCode::InvalidRequest,
                            format!("has an unknown event type: {t}"),
                        )
                        .at_field("types"));
                    }
                    for k in matched {
                        if !kinds.contains(&k) {
                            kinds.push(k);
                        }
                    }
                }
                Some(kinds)
            }
        };
        Ok(EventQuery {
            after: after.filter(|a| !a.is_empty()).map(str::to_string),
            kinds,
            limit,
        })
    }
}

/// The sequence number an event id names, or 400 `invalid_cursor`.
pub fn seq_of(merchant: &MerchantId, id: &str) -> Result<u64> {
    parse_public_id("evt", merchant, id).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidCursor,
            "after is not an event id of this merchant",
        )
    })
}

/// One page of the log, oldest first, and whether more follow.
pub fn page(
    store: &dyn Store,
    merchant: &MerchantId,
    q: &EventQuery,
) -> Result<(Vec<EventRecord>, bool)> {
    let after = match &q.after {
        Some(id) => seq_of(merchant, id)?,
        None => 0,
    };
    let mut events = store.events_after(after, q.kinds.as_deref(), q.limit.saturating_add(1))?;
    let more = events.len() > q.limit as usize;
    events.truncate(q.limit as usize);
    Ok((events, more))
}

/// The event an id names, or 404 `event_not_found`.
pub fn find(store: &dyn Store, merchant: &MerchantId, id: &str) -> Result<EventRecord> {
    parse_public_id("evt", merchant, id)
        .map(|seq| store.event(seq))
        .transpose()?
        .flatten()
        .ok_or_else(|| Error::new(ErrorCode::EventNotFound, format!("No event with id {id}")))
}
