//! A presale's two reads (`GET /token/presales/:id`, `GET /merchant/presale/:id`) kept as the
//! JSON text they answered, until the presale changes. Both list every participant (the
//! interface's form), so a read renders a row per buyer: with 10,000 buyers about 1.6 MB and
//! tens of milliseconds of the object's time, for each poll of a presale's page. Kept, a read
//! between two purchases costs a lookup and a copy.
//!
//! Nothing kept can be stale: any write of a presale or a participant through this object's
//! stores, committed or rolled back, raises `watch.presales` (`adapters/sql_rows.rs`), and
//! the next lookup forgets every kept text. What a read shows that no write changes is in
//! the key: its status, which moves with the clock (pending, active, ended), and whether a
//! public reader of a merchant in private mode sees holders by their addresses.

use crate::adapters::sql::Watch;
use std::collections::HashMap;
use tokenpad_core::model::ids::PresaleId;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::ops::{presale, Ctx};
use tokenpad_core::store::Store;
use tokenpad_core::wire::Op;
use tokenpad_core::Result;

/// Texts kept at most (each a presale read, of one form, at one status): a few large
/// presales' pages, a few tens of MB at worst, well within an object's memory.
const MAX_TEXTS: usize = 16;

/// Which read, of which presale, as whom and when.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    id: PresaleId,
    merchant_form: bool,
    status: &'static str,
    redacted: bool,
}

impl Key {
    /// The key of `op` when it is a presale's read of a presale that exists; `None` for
    /// every other operation (and a presale not found, whose error `apply` answers).
    pub fn of(store: &dyn Store, ctx: &Ctx, caller: &Caller, op: &Op) -> Result<Option<Key>> {
        let (id, merchant_form) = match op {
            Op::PublicPresale(id) => (id, false),
            Op::MerchantPresale(id) => (id, true),
            _ => return Ok(None),
        };
        let Ok(p) = presale::find(store, id) else {
            return Ok(None);
        };
        Ok(Some(Key {
            id: id.clone(),
            merchant_form,
            status: p.status(ctx.now).as_str(),
            // As `wire::apply` redacts: a public reader of a merchant in private mode.
            redacted: !merchant_form && !caller.is_secret() && ctx.merchant.private_mode,
        }))
    }
}

#[derive(Default)]
pub struct PresaleTexts {
    texts: HashMap<Key, String>,
}

impl PresaleTexts {
    /// The text kept for `key`, unless a presale was written since it was kept.
    pub fn get(&mut self, watch: &Watch, key: &Key) -> Option<String> {
        self.forget_if_written(watch);
        self.texts.get(key).cloned()
    }

    /// Keeps what the read of `key` answered (with 200).
    pub fn keep(&mut self, watch: &Watch, key: Key, text: &str) {
        self.forget_if_written(watch);
        if self.texts.len() >= MAX_TEXTS {
            self.texts.clear();
        }
        self.texts.insert(key, text.to_string());
    }

    fn forget_if_written(&mut self, watch: &Watch) {
        if watch.presales.replace(false) {
            self.texts.clear();
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(status: &'static str) -> Key {
        Key {
            id: PresaleId::new_unchecked("p1"),
            merchant_form: false,
            status,
            redacted: false,
        }
    }

    #[test]
    fn a_text_is_kept_until_a_presale_is_written() {
        let watch = Watch::default();
        let mut texts = PresaleTexts::default();
        texts.keep(&watch, key("active"), "{\"a\":1}");
        assert_eq!(
            texts.get(&watch, &key("active")).as_deref(),
            Some("{\"a\":1}")
        );
        // Another status is another read.
        assert_eq!(texts.get(&watch, &key("ended")), None);
        // Any presale or participant write (committed or not) forgets every text.
        watch.presales.set(true);
        assert_eq!(texts.get(&watch, &key("active")), None);
        assert!(!watch.presales.get());
    }

    #[test]
    fn at_most_max_texts_are_kept() {
        let watch = Watch::default();
        let mut texts = PresaleTexts::default();
        for i in 0..=MAX_TEXTS {
            let k = Key {
                id: PresaleId::new_unchecked(format!("p{i}")),
                ..key("active")
            };
            texts.keep(&watch, k, "{}");
        }
        assert!(texts.texts.len() <= MAX_TEXTS);
    }
}
