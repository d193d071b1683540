//! Token buckets: `per_second` requests a second on average, bursts up to `burst`. Integer
//! arithmetic in thousandths of a request, so it is exact and deterministic; time is passed
//! in. A merchant's budgets ([`budgets`]: the secret key's own, one per client address for
//! public and session traffic, one per session) and the edge's bad-key budget per client
//! address are made of them; [`Buckets`] keeps a bounded map of them by name.

pub mod budgets;

use crate::error::{Error, ErrorCode, Result};
use crate::model::time::Millis;
use std::collections::HashMap;

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
    /// Requests available at `now`, in thousandths.
    fn available(&self, limit: Limit, now: Millis) -> u64 {
        let capacity = limit.burst.max(1).saturating_mul(ONE);
        let elapsed = now.saturating_sub(self.last);
        // per_second requests a second = per_second thousandths a millisecond.
        let refill = elapsed.saturating_mul(limit.per_second);
        self.milli
            .map_or(capacity, |m| m.saturating_add(refill).min(capacity))
    }

    /// Takes one request from the bucket at `now`, or refuses with 429 `rate_limited` and
    /// `details.retryAfterSeconds` (at least 1), which the HTTP layer sends as Retry-After.
    pub fn take(&mut self, limit: Limit, now: Millis) -> Result<()> {
        if limit.per_second == 0 {
            return Ok(());
        }
        let available = self.available(limit, now);
        self.last = now;
        if let Some(left) = available.checked_sub(ONE) {
            self.milli = Some(left);
            return Ok(());
        }
        self.milli = Some(available);
        Err(refusal(limit, available))
    }

    /// Whether one request could be taken at `now` (the same refusal as `take`), changing
    /// nothing.
    pub fn peek(&self, limit: Limit, now: Millis) -> Result<()> {
        if limit.per_second == 0 {
            return Ok(());
        }
        let available = self.available(limit, now);
        if available >= ONE {
            Ok(())
        } else {
            Err(refusal(limit, available))
        }
    }

    /// Gives back one request taken at `now` (it turned out not to count), up to the burst.
    pub fn refund(&mut self, limit: Limit, now: Millis) {
        if limit.per_second == 0 {
            return;
        }
        let capacity = limit.burst.max(1).saturating_mul(ONE);
        self.milli = Some(self.available(limit, now).saturating_add(ONE).min(capacity));
        self.last = now;
    }

    /// Whether the bucket is back to its full burst at `now` (so forgetting it loses nothing).
    fn full(&self, limit: Limit, now: Millis) -> bool {
        self.available(limit, now) >= limit.burst.max(1).saturating_mul(ONE)
    }
}

/// Whole seconds (at least 1) until a bucket with `available` thousandths holds one request.
fn retry_after(limit: Limit, available: u64) -> u64 {
    let wait_ms = ONE
        .saturating_sub(available)
        .div_ceil(limit.per_second.max(1));
    wait_ms.div_ceil(1000).max(1)
}

fn refusal(limit: Limit, available: u64) -> Error {
    Error::new(
        ErrorCode::RateLimited,
        "Too many requests for this merchant: slow down and retry after the given time",
    )
    .with("retryAfterSeconds", retry_after(limit, available))
}

/// A client's address as budgets count it: an IPv4 address, or an IPv6 address's /64 (one
/// subscriber's prefix, which it can fill with addresses at will); `unknown` when the request
/// came with none (`CF-Connecting-IP`, which Cloudflare sets and overwrites), so every such
/// request shares one budget.
pub fn client_address(header: Option<&str>) -> String {
    match header.and_then(|h| h.trim().parse::<std::net::IpAddr>().ok()) {
        None => "unknown".into(),
        Some(std::net::IpAddr::V4(v4)) => v4.to_string(),
        Some(std::net::IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                format!("{a:x}:{b:x}:{c:x}:{d:x}::/64")
            }
        },
    }
}

/// Buckets by name (a client address), at most `capacity` of them: memory stays bounded
/// whatever the number of names. A new name in a full map first drops the buckets that are
/// full again (forgetting them changes nothing), then, if none is, the one untouched longest.
#[derive(Clone, Debug)]
pub struct Buckets {
    limit: Limit,
    capacity: usize,
    map: HashMap<String, Bucket>,
}

impl Buckets {
    pub fn new(limit: Limit, capacity: usize) -> Buckets {
        Buckets {
            limit,
            capacity: capacity.max(1),
            map: HashMap::new(),
        }
    }

    pub fn limit(&self) -> Limit {
        self.limit
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Whether `name` may make one more request at `now` (nothing is taken).
    pub fn peek(&self, name: &str, now: Millis) -> Result<()> {
        match self.map.get(name) {
            Some(b) => b.peek(self.limit, now),
            None => Ok(()),
        }
    }

    /// Takes one request from `name`'s bucket at `now` (or refuses, as [`Bucket::take`]).
    pub fn take(&mut self, name: &str, now: Millis) -> Result<()> {
        if self.limit.per_second == 0 {
            return Ok(());
        }
        if !self.map.contains_key(name) && self.map.len() >= self.capacity {
            self.make_room(now);
        }
        self.map
            .entry(name.to_string())
            .or_default()
            .take(self.limit, now)
    }

    /// Gives back one request of `name`'s (see [`Bucket::refund`]).
    pub fn refund(&mut self, name: &str, now: Millis) {
        if let Some(b) = self.map.get_mut(name) {
            b.refund(self.limit, now);
        }
    }

    fn make_room(&mut self, now: Millis) {
        let limit = self.limit;
        self.map.retain(|_, b| !b.full(limit, now));
        if self.map.len() < self.capacity {
            return;
        }
        let oldest = self
            .map
            .iter()
            .min_by_key(|(_, b)| b.last)
            .map(|(name, _)| name.clone());
        if let Some(name) = oldest {
            self.map.remove(&name);
        }
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
    fn peek_changes_nothing() {
        let limit = Limit {
            per_second: 1,
            burst: 1,
        };
        let mut b = Bucket::default();
        b.peek(limit, 0).unwrap();
        b.peek(limit, 0).unwrap();
        b.take(limit, 0).unwrap();
        assert_eq!(b.peek(limit, 0).unwrap_err().code, ErrorCode::RateLimited);
        assert!(b.take(limit, 999).is_err());
        b.peek(limit, 1_999).unwrap();
    }

    #[test]
    fn buckets_are_per_name_and_bounded() {
        let limit = Limit {
            per_second: 1,
            burst: 2,
        };
        let mut m = Buckets::new(limit, 3);
        m.take("a", 0).unwrap();
        m.take("a", 0).unwrap();
        assert!(m.take("a", 0).is_err());
        assert!(m.peek("a", 0).is_err());
        // Another name has its own budget.
        m.peek("b", 0).unwrap();
        m.take("b", 1).unwrap();
        m.take("c", 1).unwrap();
        assert_eq!(m.len(), 3);
        // A fourth name in a full map drops the bucket untouched longest ("a" at 0 is not
        // full again yet at 2, "b" neither): "a" goes, the map stays at 3.
        m.take("d", 2).unwrap();
        assert_eq!(m.len(), 3);
        m.peek("a", 2).unwrap();
        // A refund gives one back, never past the burst.
        m.refund("d", 2);
        m.take("d", 2).unwrap();
        m.take("d", 2).unwrap();
        assert!(m.take("d", 2).is_err());
        m.refund("d", 2);
        m.refund("d", 2);
        m.refund("d", 2);
        m.take("d", 2).unwrap();
        m.take("d", 2).unwrap();
        assert!(m.take("d", 2).is_err());
        // Many names never grow it past its capacity.
        for i in 0..1_000 {
            let _ = m.take(&format!("n{i}"), 3);
            assert!(m.len() <= 3);
        }
        // Off: nothing is kept.
        let mut off = Buckets::new(Limit::off(), 3);
        for i in 0..10 {
            off.take(&format!("x{i}"), 0).unwrap();
        }
        assert!(off.is_empty());
    }

    #[test]
    fn off_never_limits() {
        let mut b = Bucket::default();
        for i in 0..10_000 {
            b.take(Limit::off(), i).unwrap();
        }
    }
}
