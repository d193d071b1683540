//! The two pages readers ask for again and again, kept in memory as SQLite last answered them
//! outside a transaction: a token's largest holders (`GET /token/:address`) and a holder's
//! newest history records (`GET /holder/:userId/transactions` without a cursor). Served from
//! here, such a read runs no statement and parses nothing.
//!
//! Part of the object's row cache (`cache/mod.rs`), under its rules: a page is kept only from a
//! read outside a transaction (so only committed rows), never served inside one, and
//! forgotten by any write that may change it, committed or not (a write rolled back costs a
//! read from SQLite, never a stale page):
//! - a token's page, by a balance of that token written (its rows and its holder count come
//!   from `balances`) and by any holder inserted (a row names its address's holder);
//! - a holder's pages, by a history record of that holder appended or rewritten.
//!
//! A page of `limit` rows answers any smaller limit with its first rows (the order is the
//! same), and any limit at all when it holds fewer rows than it asked for (the whole list).
//!
//! A holder's page also keeps the JSON text the last read answered from it
//! (`objects/merchant/page_texts.rs`): a wallet polling its newest page is then answered with
//! a copy of that text, its records neither converted, looked up in the rendered-row memo
//! nor written again. The text lives in its page, so whatever forgets the page forgets it.

use std::collections::HashMap;
use tokenpad_core::model::history::TxRecord;
use tokenpad_core::model::ids::{TokenAddress, UserId};
use tokenpad_core::model::token::HolderRow;

/// Tokens whose holder page is kept, and the largest page kept: at about 100 bytes a row,
/// 2 MB at most.
const MAX_TOKEN_PAGES: usize = 20;
const MAX_HOLDER_ROWS: usize = 1_000;
/// Holders whose history pages are kept (a record is a few hundred bytes, a page at most
/// 201 of them, and its text about as large again): about 20 MB at most.
const MAX_HISTORY_HOLDERS: usize = 100;
const MAX_HISTORY_ROWS: usize = 201;
/// The longest answer text a history page keeps (201 records are about 140 KB).
const MAX_TEXT_BYTES: usize = 256 << 10;

struct Page<T> {
    /// The limit it was read with.
    limit: u32,
    rows: Vec<T>,
}

impl<T: Clone> Page<T> {
    /// The first `limit` rows, when this page holds them.
    fn first(&self, limit: u32) -> Option<Vec<T>> {
        let complete = self.rows.len() < usize::try_from(self.limit).unwrap_or(usize::MAX);
        if limit > self.limit && !complete {
            return None;
        }
        let n = usize::try_from(limit)
            .unwrap_or(usize::MAX)
            .min(self.rows.len());
        self.rows.get(..n).map(<[T]>::to_vec)
    }
}

/// A holder's newest records, each with its sequence number (`Store::history`), and the
/// answer last written from them.
struct HistoryPage {
    page: Page<(u64, TxRecord)>,
    text: Option<(TextKey, String)>,
}

/// What a history page's answer text was written for besides the page's records: the limit
/// the read asked for, and what else the answer showed (why settlement is stopped, if it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextKey {
    pub limit: u32,
    pub note: Option<String>,
}

#[derive(Default)]
pub struct Pages {
    /// A token's largest holders, with its holder count.
    holders: HashMap<TokenAddress, (Page<HolderRow>, u64)>,
    /// A holder's newest records, by the token they were filtered to (`None`: every token).
    history: HashMap<UserId, HashMap<Option<TokenAddress>, HistoryPage>>,
}

/// Inserts into a map of at most `cap` keys; a full map is emptied first and fills again from
/// the reads that follow.
pub(super) fn insert_capped<K: Eq + std::hash::Hash, V>(
    map: &mut HashMap<K, V>,
    cap: usize,
    key: K,
    value: V,
) {
    if map.len() >= cap && !map.contains_key(&key) {
        map.clear();
    }
    map.insert(key, value);
}

impl Pages {
    pub fn top_holders(&self, token: &TokenAddress, limit: u32) -> Option<(Vec<HolderRow>, u64)> {
        let (page, count) = self.holders.get(token)?;
        Some((page.first(limit)?, *count))
    }

    pub fn keep_top_holders(
        &mut self,
        token: &TokenAddress,
        limit: u32,
        rows: &[HolderRow],
        count: u64,
    ) {
        if rows.len() <= MAX_HOLDER_ROWS {
            let page = Page {
                limit,
                rows: rows.to_vec(),
            };
            insert_capped(&mut self.holders, MAX_TOKEN_PAGES, *token, (page, count));
        }
    }

    pub fn history(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        limit: u32,
    ) -> Option<Vec<(u64, TxRecord)>> {
        self.history
            .get(user_id)?
            .get(&token.copied())?
            .page
            .first(limit)
    }

    /// The answer text kept with a holder's page for `key`, while the page is kept.
    pub fn history_text(
        &self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        key: &TextKey,
    ) -> Option<String> {
        let kept = self.history.get(user_id)?.get(&token.copied())?;
        match &kept.text {
            Some((k, text)) if k == key => Some(text.clone()),
            _ => None,
        }
    }

    /// Keeps `text`, written from the holder's page as it is kept now, with that page (in place
    /// of the one kept before); nothing when no page is kept or the text is too long.
    pub fn keep_history_text(
        &mut self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        key: TextKey,
        text: &str,
    ) {
        if text.len() > MAX_TEXT_BYTES {
            return;
        }
        if let Some(kept) = self
            .history
            .get_mut(user_id)
            .and_then(|pages| pages.get_mut(&token.copied()))
        {
            kept.text = Some((key, text.to_string()));
        }
    }

    pub fn keep_history(
        &mut self,
        user_id: &UserId,
        token: Option<&TokenAddress>,
        limit: u32,
        rows: &[(u64, TxRecord)],
    ) {
        if rows.len() > MAX_HISTORY_ROWS {
            return;
        }
        let page = HistoryPage {
            page: Page {
                limit,
                rows: rows.to_vec(),
            },
            text: None,
        };
        match self.history.get_mut(user_id) {
            Some(pages) => {
                pages.insert(token.copied(), page);
            }
            None => {
                let pages = HashMap::from([(token.copied(), page)]);
                insert_capped(
                    &mut self.history,
                    MAX_HISTORY_HOLDERS,
                    user_id.clone(),
                    pages,
                );
            }
        }
    }

    /// A balance of `token` written.
    pub fn forget_token(&mut self, token: &TokenAddress) {
        self.holders.remove(token);
    }

    /// A holder inserted: whichever page lists its address now names it.
    pub fn forget_holder_pages(&mut self) {
        self.holders.clear();
    }

    /// A history record of `user_id` appended or rewritten.
    pub fn forget_history(&mut self, user_id: &UserId) {
        self.history.remove(user_id);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use tokenpad_core::model::address::Address;
    use tokenpad_core::model::amount::Units;

    fn row(n: u8) -> HolderRow {
        HolderRow {
            owner: Address([n; 20]),
            balance: Units::new(u128::from(n)),
            user_id: None,
        }
    }

    fn rows(n: u8) -> Vec<HolderRow> {
        (1..=n).map(row).collect()
    }

    #[test]
    fn a_page_answers_smaller_limits_and_larger_ones_only_when_it_is_the_whole_list() {
        let (mut p, t) = (Pages::default(), TokenAddress(Address([9; 20])));
        assert_eq!(p.top_holders(&t, 10), None);
        // Read with limit 3, and 3 rows came back: there may be more.
        p.keep_top_holders(&t, 3, &rows(3), 7);
        assert_eq!(p.top_holders(&t, 3), Some((rows(3), 7)));
        assert_eq!(p.top_holders(&t, 2), Some((rows(2), 7)));
        assert_eq!(p.top_holders(&t, 4), None);
        // Read with limit 10, and 3 came back: that is every row.
        p.keep_top_holders(&t, 10, &rows(3), 3);
        assert_eq!(p.top_holders(&t, 100), Some((rows(3), 3)));
        assert_eq!(p.top_holders(&t, 0), Some((vec![], 3)));
    }

    #[test]
    fn writes_forget_the_pages_they_may_change_and_no_other() {
        let (mut p, t, u) = (
            Pages::default(),
            TokenAddress(Address([9; 20])),
            TokenAddress(Address([8; 20])),
        );
        p.keep_top_holders(&t, 10, &rows(3), 3);
        p.keep_top_holders(&u, 10, &rows(2), 2);
        p.forget_token(&t);
        assert_eq!(p.top_holders(&t, 10), None);
        assert_eq!(p.top_holders(&u, 10), Some((rows(2), 2)));
        p.forget_holder_pages();
        assert_eq!(p.top_holders(&u, 10), None);

        let (alice, bob) = (UserId::new_unchecked("alice"), UserId::new_unchecked("bob"));
        p.keep_history(&alice, None, 51, &[]);
        p.keep_history(&alice, Some(&t), 51, &[]);
        p.keep_history(&bob, None, 51, &[]);
        assert_eq!(p.history(&alice, Some(&t), 51), Some(vec![]));
        assert_eq!(p.history(&alice, Some(&u), 51), None);
        p.forget_history(&alice);
        assert_eq!(p.history(&alice, None, 51), None);
        assert_eq!(p.history(&alice, Some(&t), 51), None);
        assert_eq!(p.history(&bob, None, 51), Some(vec![]));
    }

    #[test]
    fn a_history_text_is_kept_with_its_page_for_its_key_and_forgotten_with_it() {
        let (mut p, t) = (Pages::default(), TokenAddress(Address([9; 20])));
        let alice = UserId::new_unchecked("alice");
        let key = |limit, note: Option<&str>| TextKey {
            limit,
            note: note.map(str::to_string),
        };
        // No page kept: no text either.
        p.keep_history_text(&alice, None, key(50, None), "{}");
        assert_eq!(p.history_text(&alice, None, &key(50, None)), None);
        p.keep_history(&alice, None, 51, &[]);
        p.keep_history_text(&alice, None, key(50, None), "{\"data\":[]}");
        assert_eq!(
            p.history_text(&alice, None, &key(50, None)).as_deref(),
            Some("{\"data\":[]}")
        );
        // Another limit, another note, another token's page: not this text.
        assert_eq!(p.history_text(&alice, None, &key(10, None)), None);
        assert_eq!(
            p.history_text(&alice, None, &key(50, Some("out of gas"))),
            None
        );
        assert_eq!(p.history_text(&alice, Some(&t), &key(50, None)), None);
        // The page read again from SQLite: its old text goes with the old page.
        p.keep_history(&alice, None, 51, &[]);
        assert_eq!(p.history_text(&alice, None, &key(50, None)), None);
        // A record of the holder written: page and text forgotten.
        p.keep_history_text(&alice, None, key(50, None), "{}");
        p.forget_history(&alice);
        assert_eq!(p.history_text(&alice, None, &key(50, None)), None);
        // Too long to keep.
        p.keep_history(&alice, None, 51, &[]);
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        p.keep_history_text(&alice, None, key(50, None), &long);
        assert_eq!(p.history_text(&alice, None, &key(50, None)), None);
    }

    #[test]
    fn pages_too_large_are_not_kept_and_the_tables_stay_bounded() {
        let (mut p, t) = (Pages::default(), TokenAddress(Address([9; 20])));
        let many: Vec<HolderRow> = (0..=MAX_HOLDER_ROWS).map(|_| row(1)).collect();
        p.keep_top_holders(&t, 2_000, &many, 5_000);
        assert_eq!(p.top_holders(&t, 1), None);
        for n in 0..=MAX_TOKEN_PAGES {
            let token = TokenAddress(Address([u8::try_from(n).unwrap(); 20]));
            p.keep_top_holders(&token, 10, &rows(1), 1);
            assert!(p.holders.len() <= MAX_TOKEN_PAGES);
        }
        for n in 0..=MAX_HISTORY_HOLDERS {
            p.keep_history(&UserId::new_unchecked(format!("u{n}")), None, 51, &[]);
            assert!(p.history.len() <= MAX_HISTORY_HOLDERS);
        }
    }
}
