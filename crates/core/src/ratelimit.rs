//! A token bucket per merchant: `per_second` requests a second on average, bursts up to
//! `burst`. Integer arithmetic in thousandths of a request, so it is exact and deterministic;
//! time is passed in.

use crate::error::{Error, ErrorCode, Result};
use crate::model::time::Millis;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub per_second: u64,
    pub burst: u64,
}

impl Limit {
    /// No limit at all (per_second 0).
    pub fn off() -> Limit {
        Limit {
            per_second: 0,
            burst: 0,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bucket {
    /// Requests available, in thousandths. None until the first request fills the bucket.
    milli: Option<u64>,
    last: Millis,
}

const ONE: u64 = 1000;

impl Bucket {
    /// Takes one request from the bucket at `now`, or refuses with 429 `rate_limited` and
    /// `details.retryAfterSeconds` (at least 1), which the HTTP layer sends as Retry-After.
    pub fn take(&mut self, limit: Limit, now: Millis) -> Result<()> {
        if limit.per_second == 0 {
            return Ok(());
        }
        let capacity = limit.burst.max(1).saturating_mul(ONE);
        let elapsed = now.saturating_sub(self.last);
        // per_second requests a second = per_second thousandths a millisecond.
        let refill = elapsed.saturating_mul(limit.per_second);
        let available = self
            .milli
            .map_or(capacity, |m| m.saturating_add(refill).min(capacity));
        self.last = now;
        if available >= ONE {
            self.milli = Some(available - ONE);
            return Ok(());
        }
        self.milli = Some(available);
        let wait_ms = (ONE - available).div_ceil(limit.per_second);
        Err(Error::new(
            ErrorCode::RateLimited,
            "Too many requests for this merchant: slow down and retry after the given time",
        )
        .with("retryAfterSeconds", wait_ms.div_ceil(1000).max(1)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_refills_at_the_rate() {
        let limit = Limit {
            per_second: 2,
            burst: 3,
        };
        let mut b = Bucket::default();
        let t = 1_000_000;
        for _ in 0..3 {
            b.take(limit, t).unwrap();
        }
        let err = b.take(limit, t).unwrap_err();
        assert_eq!(err.code, ErrorCode::RateLimited);
        assert_eq!(err.details.unwrap()["retryAfterSeconds"], 1);
        // 2 a second: one more after 500 ms, not before.
        assert!(b.take(limit, t + 499).is_err());
        b.take(limit, t + 500).unwrap();
        assert!(b.take(limit, t + 500).is_err());
        // A long pause refills to the burst, no more.
        for _ in 0..3 {
            b.take(limit, t + 60_000).unwrap();
        }
        assert!(b.take(limit, t + 60_000).is_err());
    }

    #[test]
    fn off_never_limits() {
        let mut b = Bucket::default();
        for i in 0..10_000 {
            b.take(Limit::off(), i).unwrap();
        }
    }
}
