//! API keys' hashes, remembered in each isolate for the keys that checked. A keyed request
//! hashed its key (SHA-256, `auth::key_hash`) three times: twice in the edge's guard (to see
//! whether the key is known good, then to mark it so) and once in the merchant's object (to
//! find its record); in a profile of a history read that was 4 % of the ledger's samples.
//!
//! The hash is a function of the key alone, so a remembered one is never wrong, whatever
//! became of the key since (revoked, rolled): the checks that use it still decide. Only keys
//! a caller said checked are remembered, so strangers sending forged keys cannot fill the
//! memo (and it is bounded anyway). The keys stay in the isolate's memory, as the requests
//! that carried them did: never written, logged or answered.

use std::cell::RefCell;
use std::collections::HashMap;

/// Keys remembered at most; a full memo is emptied and fills again from the requests after.
const MAX_KEYS: usize = 1_024;

thread_local! {
    static HASHES: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// `key`'s hash (`auth::key_hash`), remembered when `checked` says the hash is of a key that
/// checked (it is called only when the hash was not remembered yet).
pub fn of(key: &str, checked: impl FnOnce(&str) -> bool) -> String {
    let kept = HASHES.with(|h| h.try_borrow().ok()?.get(key).cloned());
    if let Some(hash) = kept {
        return hash;
    }
    let hash = tokenpad_core::auth::key_hash(key);
    if checked(&hash) {
        HASHES.with(|h| {
            if let Ok(mut h) = h.try_borrow_mut() {
                if h.len() >= MAX_KEYS {
                    h.clear();
                }
                h.insert(key.to_string(), hash.clone());
            }
        });
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokenpad_core::auth::key_hash;

    #[test]
    fn a_hash_is_the_key_hash_and_only_checked_keys_are_remembered() {
        let forged = "sk_m_forged";
        assert_eq!(of(forged, |_| false), key_hash(forged));
        // Not remembered: asked again, the hash is computed again (and `checked` asked).
        let mut asked = false;
        assert_eq!(
            of(forged, |_| {
                asked = true;
                false
            }),
            key_hash(forged)
        );
        assert!(asked);
        let good = "sk_m_good";
        assert_eq!(of(good, |_| true), key_hash(good));
        assert_eq!(
            of(good, |_| unreachable!("remembered: not checked again")),
            key_hash(good)
        );
        for n in 0..=MAX_KEYS {
            of(&format!("sk_m_{n}"), |_| true);
            assert!(HASHES.with(|h| h.borrow().len()) <= MAX_KEYS);
        }
    }
}
