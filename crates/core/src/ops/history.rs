//! A holder's history, newest first, paged by an opaque cursor.

use crate::error::{Error, ErrorCode, Result};
use crate::model::history::TxRecord;
use crate::model::ids::{TokenAddress, UserId};
use crate::model::input::Int;
use crate::store::Store;
use serde::{Deserialize, Serialize};

pub const DEFAULT_PAGE: u32 = 50;
pub const MAX_PAGE: u64 = 200;

/// `GET /holder/:userId/transactions?limit=&cursor=&tokenAddress=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryQuery {
    pub limit: u32,
    /// Records strictly older than this sequence number (from a cursor).
    pub before: Option<u64>,
    pub token: Option<TokenAddress>,
}

impl HistoryQuery {
    /// From the raw query parameters; empty `cursor` or `tokenAddress` means none.
    pub fn parse(
        limit: Option<&str>,
        cursor: Option<&str>,
        token: Option<&str>,
    ) -> Result<HistoryQuery> {
        let limit = match limit {
            None => DEFAULT_PAGE,
            Some(l) => {
                u32::try_from(Int::<1, MAX_PAGE>::parse("limit", l)?.get()).unwrap_or(DEFAULT_PAGE)
            }
        };
        let before = match cursor {
            None | Some("") => None,
            Some(c) => Some(decode_cursor(c)?),
        };
        let token = match token {
            None | Some("") => None,
            Some(t) => Some(TokenAddress::parse("tokenAddress", t)?),
        };
        Ok(HistoryQuery {
            limit,
            before,
            token,
        })
    }
}

fn decode_cursor(c: &str) -> Result<u64> {
    c.strip_prefix('c')
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidCursor,
                "cursor is not one this service returned",
            )
        })
}

/// One page of records, and the cursor of the next page when there is one.
pub struct Page {
    pub records: Vec<TxRecord>,
    pub next_cursor: Option<String>,
}

pub fn page(store: &dyn Store, user_id: &UserId, q: &HistoryQuery) -> Result<Page> {
    // Read one more than asked, to know whether there is more without a second query.
    let mut rows = store.history(user_id, q.token.as_ref(), q.before, q.limit + 1)?;
    let has_more = rows.len() > q.limit as usize;
    rows.truncate(q.limit as usize);
    let next_cursor = if has_more {
        rows.last().map(|(seq, _)| format!("c{seq}"))
    } else {
        None
    };
    Ok(Page {
        records: rows.into_iter().map(|(_, r)| r).collect(),
        next_cursor,
    })
}

/// Appends a record to a holder's history, with its `transaction.created` event; returns its
/// sequence number. Every movement's records are written through here.
pub fn append(store: &mut dyn Store, record: &TxRecord) -> Result<u64> {
    let seq = store.append_history(record)?;
    super::event::emit_about(
        store,
        record.at,
        crate::model::event::EventType::TransactionCreated,
        crate::model::event::Subject::Transaction { seq },
        super::event::transaction_resource(&record.id),
    )?;
    Ok(seq)
}
