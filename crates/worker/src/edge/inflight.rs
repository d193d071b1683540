//! One request of this isolate at a time asks the merchant's object something; the others that
//! would ask the same wait for its answer. Used where a crowd arriving at once would otherwise
//! each do the work one answer settles: a public read no answer is kept for yet (`cached`),
//! and a key this isolate has not seen checked yet (`guard`).
//!
//! A claim is only a hint, kept in memory with the time it was made: a claim older than its
//! `stale_ms` counts as gone (its request may have been abandoned without releasing it), and a
//! waiter never waits longer than that. So nothing hangs on a request that never came back.

use std::collections::HashMap;
use std::time::Duration;
use tokenpad_core::model::time::Millis;

/// The first wait; each next one is twice as long, up to [`MAX_STEP_MS`]: a crowd waiting
/// wakes a few times, not every few milliseconds each.
const FIRST_STEP_MS: Millis = 2;
const MAX_STEP_MS: Millis = 64;
/// Claims kept at most; a full map drops the stale ones, then all (each is only a hint).
const MAX_CLAIMS: usize = 4_096;

/// What the requests of this isolate are asking, since when.
pub struct InFlight {
    since: HashMap<String, Millis>,
    stale_ms: Millis,
}

impl InFlight {
    pub fn new(stale_ms: Millis) -> Self {
        Self {
            since: HashMap::new(),
            stale_ms,
        }
    }

    /// Whether another request is asking `key` (a claim made less than `stale_ms` ago).
    pub fn busy(&self, key: &str, now: Millis) -> bool {
        self.since
            .get(key)
            .is_some_and(|since| now.saturating_sub(*since) < self.stale_ms)
    }

    /// Claims `key` for this request, unless another request is asking it: whether it did.
    pub fn claim(&mut self, key: &str, now: Millis) -> bool {
        if self.busy(key, now) {
            return false;
        }
        if self.since.len() >= MAX_CLAIMS {
            let stale = self.stale_ms;
            self.since
                .retain(|_, since| now.saturating_sub(*since) < stale);
            if self.since.len() >= MAX_CLAIMS {
                self.since.clear();
            }
        }
        self.since.insert(key.to_string(), now);
        true
    }

    pub fn release(&mut self, key: &str) {
        self.since.remove(key);
    }
}

/// Waits until `done` says so (looked at after 2, 4, 8... ms), at most about `max_ms` in all.
/// Whether it did.
pub async fn wait_until(max_ms: Millis, mut done: impl FnMut() -> bool) -> bool {
    let (mut waited, mut step) = (0, FIRST_STEP_MS);
    while waited < max_ms {
        worker::Delay::from(Duration::from_millis(step)).await;
        waited += step;
        if done() {
            return true;
        }
        step = (step * 2)
            .min(MAX_STEP_MS)
            .min(max_ms.saturating_sub(waited).max(1));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_claim_at_a_time_until_released_or_stale() {
        let mut f = InFlight::new(100);
        assert!(f.claim("a", 1_000));
        assert!(!f.claim("a", 1_050));
        assert!(f.busy("a", 1_099));
        assert!(f.claim("b", 1_050), "another key is its own");
        assert!(!f.busy("a", 1_100), "stale after 100 ms");
        assert!(f.claim("a", 1_100));
        f.release("a");
        assert!(!f.busy("a", 1_101));
        assert!(f.claim("a", 1_101));
    }

    #[test]
    fn a_full_map_drops_its_stale_claims_and_keeps_the_others() {
        let mut f = InFlight::new(100);
        for i in 1..MAX_CLAIMS {
            assert!(f.claim(&format!("old{i}"), 0));
        }
        assert!(f.claim("recent", 90));
        assert!(f.claim("new", 150));
        assert!(
            f.busy("recent", 150),
            "a claim made 60 ms ago is still kept"
        );
        assert!(f.busy("new", 150));
    }
}
