//! A presale's two reads (`GET /token/presales/:id`, `GET /merchant/presale/:id`) kept as the
//! JSON text they answered, until the presale changes. Both list every participant (the
//! interface's form), so a read renders a row per buyer: with 10,000 buyers about 1.6 MB and
//! tens of milliseconds of the object's time, for each poll of a presale's page. Kept, a read
//! between two purchases costs a lookup and a copy.
//!
//! Nothing kept can be stale: any write of a presale or a participant through this object's
//! stores, committed or rolled back, raises `watch.presales` (`adapters/sql/rows.rs`), and
//! the next lookup forgets every kept text. What a read shows that no write changes is in
//! the key: its status, which moves with the clock (pending, active, ended), and whether a
//! public reader of a merchant in private mode sees holders by their addresses.

use crate::adapters::sql::Watch;
use std::collections::HashMap;
use tokenpad_core::model::ids::PresaleId;
use tokenpad_core::ops::session::access::Caller;
use tokenpad_core::ops::{presale, Ctx};
use tokenpad_core::store::Store;
use tokenpad_core::wire::presale::PresaleOp;
use tokenpad_core::wire::Op;

/// Texts kept at most (each a presale read, of one form, at one status).
const MAX_TEXTS: usize = 16;
/// Bytes kept at most, well within an object's 128 MB: a presale's read is about 165 bytes a
/// participant, so this holds the two reads of a presale with 40,000 buyers. A read larger
/// than it is not kept (a 200,000-USDC target at 1 USDC a purchase could list 200,000).
const MAX_BYTES: usize = 16 << 20;

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
    pub fn of(store: &dyn Store, ctx: &Ctx, caller: &Caller, op: &Op) -> Option<Key> {
        let (id, merchant_form) = match op {
            Op::Presale(PresaleOp::PublicPresale(id)) => (id, false),
            Op::Presale(PresaleOp::MerchantPresale(id)) => (id, true),
            _ => return None,
        };
        let p = presale::find(store, id).ok()?;
        Some(Key {
            id: id.clone(),
            merchant_form,
            status: p.status(ctx.now).as_str(),
            // As `wire::apply` redacts: a public reader of a merchant in private mode.
            redacted: !merchant_form && !caller.is_secret() && ctx.merchant.private_mode,
        })
    }
}

#[derive(Default)]
pub struct PresaleTexts {
    texts: HashMap<Key, String>,
    bytes: usize,
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
        if text.len() > MAX_BYTES {
            return;
        }
        if self.texts.len() >= MAX_TEXTS || self.bytes.saturating_add(text.len()) > MAX_BYTES {
            self.forget();
        }
        self.bytes = self.bytes.saturating_add(text.len());
        if let Some(was) = self.texts.insert(key, text.to_string()) {
            self.bytes = self.bytes.saturating_sub(was.len());
        }
    }

    fn forget_if_written(&mut self, watch: &Watch) {
        if watch.presales.replace(false) {
            self.forget();
        }
    }

    fn forget(&mut self) {
        self.texts.clear();
        self.bytes = 0;
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
    fn at_most_max_texts_and_max_bytes_are_kept() {
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
        let big = "x".repeat(MAX_BYTES / 2 + 1);
        texts.keep(&watch, key("active"), &big);
        texts.keep(&watch, key("ended"), &big);
        assert!(
            texts.bytes <= MAX_BYTES && texts.texts.len() == 1,
            "{}",
            texts.bytes
        );
        assert_eq!(
            texts.get(&watch, &key("ended")).map(|t| t.len()),
            Some(big.len())
        );
        // Too large to keep at all.
        texts.keep(&watch, key("pending"), &"x".repeat(MAX_BYTES + 1));
        assert_eq!(texts.get(&watch, &key("pending")), None);
        // Kept again under its key: counted once.
        texts.keep(&watch, key("ended"), "{}");
        assert_eq!(texts.bytes, 2);
    }
}
