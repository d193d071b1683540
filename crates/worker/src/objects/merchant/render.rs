//! A merchant operation's answer as JSON text, with the records of history pages kept
//! rendered: a holder's page is read again and again (a wallet polls it), and writing its
//! records was most of the page's own CPU (three addresses in checksum form each, a decimal,
//! a timestamp, then the JSON). A record rendered once is written again as the text it gave.
//!
//! Kept by the record's whole wire form, so a record whose settlement moved (its hash, its
//! status, its block) is a different key and is rendered anew: nothing here can be stale, and
//! nothing needs forgetting. Bounded: a full memo is emptied and fills again from the pages
//! read after.

use crate::http;
use serde_json::value::RawValue;
use std::collections::HashMap;
use tokenpad_core::wire::apply::Response;
use tokenpad_core::wire::ledger::{TxPage, TxRecord};

/// Records kept rendered: at about 700 bytes each (the record and its text), 3 MB at most.
const MAX_RECORDS: usize = 4_096;

#[derive(Default)]
pub struct Rendered {
    records: HashMap<TxRecord, Box<RawValue>>,
}

impl Rendered {
    /// `body` as the answer's JSON text: the same bytes as [`http::encode`] writes.
    pub fn encode(&mut self, body: &Response) -> Result<String, serde_json::Error> {
        let Response::History(page) = body else {
            return http::encode(body);
        };
        if page.data.len() > MAX_RECORDS {
            return http::encode(body);
        }
        // A page read before: each record looked up once.
        if let Some(text) = self.write(page)? {
            return Ok(text);
        }
        if self.records.len().saturating_add(page.data.len()) > MAX_RECORDS {
            self.records.clear();
        }
        for record in &page.data {
            if !self.records.contains_key(record) {
                let text = RawValue::from_string(http::encode(record)?)?;
                self.records.insert(record.clone(), text);
            }
        }
        match self.write(page)? {
            Some(text) => Ok(text),
            None => http::encode(body),
        }
    }

    /// The page written from its records' kept text, when every one is kept.
    fn write(&self, page: &TxPage) -> Result<Option<String>, serde_json::Error> {
        let data: Option<Vec<&RawValue>> = page
            .data
            .iter()
            .map(|r| self.records.get(r).map(|t| &**t))
            .collect();
        data.map(|data| {
            http::encode(&TxPage {
                has_more: page.has_more,
                next_cursor: page.next_cursor.clone(),
                data,
            })
        })
        .transpose()
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
            timestamp: "2026-11-24T10:00:00.000Z".into(),
        }
    }

    fn page(records: Vec<TxRecord>) -> Response {
        Response::History(TxPage {
            has_more: true,
            next_cursor: Some("c7".into()),
            data: records,
        })
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
        for body in [page(vec![]), Response::Tokens(vec![])] {
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
                assert!(memo.records.len() <= MAX_RECORDS);
            }
        }
        let long: Vec<TxRecord> = (0..MAX_RECORDS + 1)
            .map(|n| {
                let mut r = record(9, ChainStatus::Pending);
                r.id = format!("long-{n}");
                r
            })
            .collect();
        let body = page(long);
        assert_eq!(memo.encode(&body).unwrap(), http::encode(&body).unwrap());
        assert!(memo.records.len() <= MAX_RECORDS);
    }
}
