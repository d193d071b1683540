//! A merchant operation's answer as JSON text, with the rows of the pages readers poll kept
//! rendered: a holder's history records (a wallet polls its newest page) and a token's holder
//! rows (`GET /token/:address`). Writing those rows was most of such a read's own CPU (each
//! a few addresses in checksum form, decimals, a timestamp, then the JSON); a row rendered
//! once is written again as the text it gave.
//!
//! Kept by the row's whole wire form, so a row that changed (a record whose settlement moved,
//! a balance) is a different key and is rendered anew: nothing here can be stale, and nothing
//! needs forgetting. Bounded: a full memo is emptied and fills again from the reads after.

use crate::http;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::hash::Hash;
use tokenpad_core::wire::apply::Response;
use tokenpad_core::wire::ledger::{LedgerAnswer, TxPage, TxRecord};
use tokenpad_core::wire::token::TokenAnswer;
use tokenpad_core::wire::token::TokenHolder;

/// Rows of each kind kept rendered: at most a few MB (a record and its text are about 700
/// bytes, a holder row about 300).
const MAX_ROWS: usize = 4_096;

type Written = Result<String, serde_json::Error>;

#[derive(Default)]
pub struct Rendered {
    records: Kept<TxRecord>,
    holders: Kept<TokenHolder>,
}

impl Rendered {
    /// `body` as the answer's JSON text: the same bytes as [`http::encode`] writes.
    pub fn encode(&mut self, body: &Response) -> Written {
        let written = match body {
            Response::Ledger(LedgerAnswer::History(page)) => {
                self.records.write(&page.data, |data| {
                    http::encode(&TxPage {
                        has_more: page.has_more,
                        next_cursor: page.next_cursor.clone(),
                        data,
                        waiting: page.waiting.clone(),
                    })
                })?
            }
            Response::Token(TokenAnswer::Token(token)) => {
                self.holders.write(&token.holders, |rows| {
                    http::encode(&token.with_holders(rows))
                })?
            }
            _ => None,
        };
        match written {
            Some(text) => Ok(text),
            None => http::encode(body),
        }
    }
}

/// Rows of one kind, each with the JSON text it was written as. Hashed with foldhash, not
/// std's SipHash: a page looks up every row by its whole form, and SipHash over 50 records
/// was 5 % of a history page's samples in a profile of the ledger. The rows are the merchant's
/// own records, so no stranger chooses the keys.
struct Kept<T> {
    texts: HashMap<T, Box<RawValue>, foldhash::fast::RandomState>,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept {
            texts: HashMap::default(),
        }
    }
}

impl<T: Serialize + Eq + Hash + Clone> Kept<T> {
    /// `write` given each row's kept text, the rows not kept yet rendered first; `None` for
    /// more rows than are kept.
    fn write(
        &mut self,
        rows: &[T],
        write: impl Fn(Vec<&RawValue>) -> Written,
    ) -> Result<Option<String>, serde_json::Error> {
        if rows.len() > MAX_ROWS {
            return Ok(None);
        }
        // Rows read before: each looked up once.
        if let Some(texts) = self.texts(rows) {
            return write(texts).map(Some);
        }
        if self.texts.len().saturating_add(rows.len()) > MAX_ROWS {
            self.texts.clear();
        }
        for row in rows {
            if !self.texts.contains_key(row) {
                let text = RawValue::from_string(http::encode(row)?)?;
                self.texts.insert(row.clone(), text);
            }
        }
        self.texts(rows).map(write).transpose()
    }

    fn texts(&self, rows: &[T]) -> Option<Vec<&RawValue>> {
        rows.iter()
            .map(|r| self.texts.get(r).map(|t| &**t))
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use tokenpad_core::model::address::Address;
    use tokenpad_core::model::decimal::Decimal;
    use tokenpad_core::model::history::{ChainStatus, TxType};
    use tokenpad_core::model::ids::TokenAddress;
    use tokenpad_core::wire::settlement::Settlement;

    fn record(n: u8, status: ChainStatus) -> TxRecord {
        TxRecord {
            id: format!("tx-{n}"),
            settlement: Settlement {
                transaction_hash: (status == ChainStatus::Confirmed).then(|| format!("0x{n:064x}")),
                chain_status: status,
                block_number: (status == ChainStatus::Confirmed).then_some(u64::from(n)),
            },
            kind: TxType::TransferIn,
            context: "Transfer".into(),
            token_address: TokenAddress(Address([n; 20])),
            symbol: "TKN \"é\"".into(),
            amount: Decimal::from_units(u128::from(n) * 1_000, 3),
            from: Address([1; 20]),
            to: Address([2; 20]),
            timestamp: tokenpad_core::model::time::Timestamp::at(1_795_514_400_000),
            failure_reason: None,
        }
    }

    fn page(records: Vec<TxRecord>) -> Response {
        Response::Ledger(LedgerAnswer::History(TxPage {
            has_more: true,
            next_cursor: Some("c7".into()),
            data: records,
            waiting: None,
        }))
    }

    #[test]
    fn a_page_is_written_as_plain_encoding_writes_it_before_and_after_a_record_moves() {
        let mut memo = Rendered::default();
        let pending: Vec<TxRecord> = (0..5).map(|n| record(n, ChainStatus::Pending)).collect();
        for _ in 0..2 {
            let body = page(pending.clone());
            assert_eq!(memo.encode(&body).unwrap(), http::encode(&body).unwrap());
        }
        // Record 2 settles: the page shows it settled, not the text kept for it pending.
        let mut moved = pending.clone();
        *moved.get_mut(2).unwrap() = record(2, ChainStatus::Confirmed);
        let body = page(moved);
        let text = memo.encode(&body).unwrap();
        assert_eq!(text, http::encode(&body).unwrap());
        assert!(text.contains(&format!("0x{:064x}", 2)));
        // Other answers, and an empty page, are written as they always were.
        for body in [page(vec![]), Response::Token(TokenAnswer::Tokens(vec![]))] {
            assert_eq!(memo.encode(&body).unwrap(), http::encode(&body).unwrap());
        }
    }

    #[test]
    fn the_memo_stays_bounded_and_a_page_longer_than_it_is_still_written() {
        let mut memo = Rendered::default();
        for round in 0..3u8 {
            let records: Vec<TxRecord> = (0..200)
                .map(|n| {
                    let mut r = record(round, ChainStatus::Pending);
                    r.id = format!("tx-{round}-{n}");
                    r
                })
                .collect();
            for chunk in records.chunks(100) {
                let body = page(chunk.to_vec());
                assert_eq!(memo.encode(&body).unwrap(), http::encode(&body).unwrap());
                assert!(memo.records.texts.len() <= MAX_ROWS);
            }
        }
        let long: Vec<TxRecord> = (0..MAX_ROWS + 1)
            .map(|n| {
                let mut r = record(9, ChainStatus::Pending);
                r.id = format!("long-{n}");
                r
            })
            .collect();
        let body = page(long);
        assert_eq!(memo.encode(&body).unwrap(), http::encode(&body).unwrap());
        assert!(memo.records.texts.len() <= MAX_ROWS);
    }

    fn token(balances: &[u128]) -> Response {
        let holders: Vec<serde_json::Value> = balances
            .iter()
            .enumerate()
            .map(|(n, b)| {
                serde_json::json!({
                    "id": format!("user-{n}"),
                    "address": Address([u8::try_from(n).unwrap(); 20]),
                    "balance": Decimal::from_units(*b, 18),
                    "value": "0",
                })
            })
            .collect();
        let token = serde_json::json!({
            "id": "0x0101010101010101010101010101010101010101",
            "address": "0x0101010101010101010101010101010101010101",
            "name": "Crème", "symbol": "CRM", "decimals": 18, "network": "base",
            "totalSupply": "1000", "startingAppSupply": "900", "remainingAppSupply": "800",
            "merchantSupply": "100", "liquiditySupply": "0",
            "merchantAddress": "0x0202020202020202020202020202020202020202",
            "price": null, "canDistribute": true, "canAirdrop": true, "canLP": false,
            "imageUrl": null, "createdAt": "2026-11-24T10:00:00.000Z", "origin": "dashboard",
            "marketplace": false, "holders": holders, "holdersCount": balances.len(),
        });
        Response::Token(TokenAnswer::Token(Box::new(
            serde_json::from_value(token).unwrap(),
        )))
    }

    #[test]
    fn a_token_is_written_as_plain_encoding_writes_it_before_and_after_a_balance_moves() {
        let mut memo = Rendered::default();
        for balances in [&[5, 3, 1][..], &[5, 3, 1], &[6, 3, 1], &[], &[6, 3, 1, 1]] {
            let body = token(balances);
            assert_eq!(memo.encode(&body).unwrap(), http::encode(&body).unwrap());
        }
        let text = memo.encode(&token(&[7_000_000_000_000_000_000])).unwrap();
        assert!(text.contains(r#""balance":7,"#), "{text}");
    }
}
