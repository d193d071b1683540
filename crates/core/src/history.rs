//! Transaction records: each holder's history, newest first, paged by an opaque cursor.

use crate::address::Address;
use crate::error::{Error, ErrorCode, Result};
use crate::money;
use crate::store::Store;
use crate::time::{iso8601, Millis};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxType {
    Distribute,
    Spend,
    TransferIn,
    TransferOut,
    Withdraw,
    Deposit,
    PresaleBuy,
    PresaleRefund,
    PresaleAllocation,
    Unlock,
}

impl TxType {
    pub fn as_str(self) -> &'static str {
        match self {
            TxType::Distribute => "distribute",
            TxType::Spend => "spend",
            TxType::TransferIn => "transfer_in",
            TxType::TransferOut => "transfer_out",
            TxType::Withdraw => "withdraw",
            TxType::Deposit => "deposit",
            TxType::PresaleBuy => "presale_buy",
            TxType::PresaleRefund => "presale_refund",
            TxType::PresaleAllocation => "presale_allocation",
            TxType::Unlock => "unlock",
        }
    }

    /// Metal's label for the record, shown by apps built on its SDK.
    pub fn context(self) -> &'static str {
        match self {
            TxType::Distribute | TxType::PresaleAllocation => "Airdrop",
            TxType::Spend | TxType::TransferIn | TxType::TransferOut | TxType::Unlock => "Transfer",
            TxType::Withdraw => "Withdraw",
            TxType::Deposit | TxType::PresaleRefund => "Deposit",
            TxType::PresaleBuy => "Buy",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TxRecord {
    /// Unique per record: the transaction hash plus which side of it this record is.
    pub id: String,
    pub hash: String,
    pub kind: TxType,
    /// The holder whose history this record is in.
    pub user_id: String,
    pub token: Address,
    pub symbol: String,
    pub decimals: u8,
    pub amount: u128,
    pub from: Address,
    pub to: Address,
    pub at: Millis,
}

impl TxRecord {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "transactionHash": self.hash,
            "type": self.kind.as_str(),
            "context": self.kind.context(),
            "tokenAddress": self.token.to_checksum(),
            "symbol": self.symbol,
            "amount": money::amount_json(self.amount, self.decimals),
            "from": self.from.to_checksum(),
            "to": self.to.to_checksum(),
            "timestamp": iso8601(self.at),
            // The embedded chain's receipt: the 2-second block the transaction landed in.
            "blockNumber": crate::chain::block_number(crate::chain::mined_at(self.at)),
        })
    }
}

pub const DEFAULT_PAGE: u32 = 50;
pub const MAX_PAGE: u32 = 200;

/// Query of `GET /holder/:userId/transactions`, from its raw query parameters.
pub struct HistoryQuery {
    pub limit: u32,
    pub before: Option<u64>,
    pub token: Option<Address>,
}

impl HistoryQuery {
    pub fn parse(
        limit: Option<&str>,
        cursor: Option<&str>,
        token: Option<&str>,
    ) -> Result<HistoryQuery> {
        let limit = match limit {
            None => DEFAULT_PAGE,
            Some(l) => match l.parse::<u32>() {
                Ok(n) if (1..=MAX_PAGE).contains(&n) => n,
                _ => {
                    return Err(Error::field(
                        "limit",
                        format!("limit must be a whole number from 1 to {MAX_PAGE}"),
                    ))
                }
            },
        };
        let before = match cursor {
            None | Some("") => None,
            Some(c) => Some(decode_cursor(c)?),
        };
        let token = match token {
            None | Some("") => None,
            Some(t) => Some(crate::input::parse_address("tokenAddress", t)?),
        };
        Ok(HistoryQuery {
            limit,
            before,
            token,
        })
    }
}

fn decode_cursor(c: &str) -> Result<u64> {
    c.strip_prefix("c")
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidCursor,
                "cursor is not one this service returned",
            )
        })
}

/// One page of a holder's history: `{ has_more, next_cursor, data }`.
pub fn page(store: &dyn Store, user_id: &str, q: &HistoryQuery) -> Result<Value> {
    // Read one more than asked, to know whether there is more without a second query.
    let mut rows = store.history(user_id, q.token.as_ref(), q.before, q.limit + 1)?;
    let has_more = rows.len() > q.limit as usize;
    rows.truncate(q.limit as usize);
    let next_cursor = if has_more {
        rows.last().map(|(seq, _)| format!("c{seq}"))
    } else {
        None
    };
    let data: Vec<Value> = rows.iter().map(|(_, r)| r.to_json()).collect();
    Ok(json!({ "has_more": has_more, "next_cursor": next_cursor, "data": data }))
}
