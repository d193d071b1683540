//! Login throttling: failed attempts counted per account (in the account's object) and per
//! client address (in an object of its own), in fixed windows. After [`ACCOUNT_MAX_FAILURES`]
//! failed logins of one account, or [`CLIENT_MAX_FAILURES`] from one address (more: offices
//! and NATs share one), in a window of [`WINDOW`], every attempt is refused with 429 `too_many_attempts`
//! and Retry-After until the window ends; a success does not reset the address's count (an
//! attacker with one good account cannot use it to go on guessing others).

use crate::error::{Error, ErrorCode, Result};
pub use crate::model::account::Attempts;
use crate::model::time::Millis;

/// Failed logins of one account allowed in a window.
pub const ACCOUNT_MAX_FAILURES: u32 = 5;
/// Failed logins from one client address allowed in a window.
pub const CLIENT_MAX_FAILURES: u32 = 20;
/// The window, in ms (15 minutes).
pub const WINDOW: Millis = 15 * 60_000;

impl Attempts {
    fn current(self, now: Millis) -> Attempts {
        if now.saturating_sub(self.window_start) >= WINDOW {
            Attempts {
                failures: 0,
                window_start: now,
            }
        } else {
            self
        }
    }

    /// Refuses an attempt at `now` once the window's `max` failures are spent.
    pub fn check(self, now: Millis, max: u32) -> Result<()> {
        let a = self.current(now);
        if a.failures < max {
            return Ok(());
        }
        let left = (a.window_start + WINDOW).saturating_sub(now);
        Err(Error::new(
            ErrorCode::TooManyAttempts,
            "Too many failed logins: retry after the given time",
        )
        .with("retryAfterSeconds", left.div_ceil(1000).max(1)))
    }

    /// The count after a failed attempt at `now`.
    pub fn failed(self, now: Millis) -> Attempts {
        let a = self.current(now);
        Attempts {
            failures: a.failures.saturating_add(1),
            window_start: a.window_start,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_close_the_window_until_it_ends() {
        let mut a = Attempts::default();
        let t0 = 1_000_000;
        for i in 0..ACCOUNT_MAX_FAILURES {
            assert!(a.check(t0 + u64::from(i), ACCOUNT_MAX_FAILURES).is_ok());
            a = a.failed(t0 + u64::from(i));
        }
        let e = a.check(t0 + 10, ACCOUNT_MAX_FAILURES).unwrap_err();
        assert_eq!(e.code, ErrorCode::TooManyAttempts);
        assert_eq!(e.status(), 429);
        assert!(a.check(t0 + WINDOW - 1, ACCOUNT_MAX_FAILURES).is_err());
        assert!(a.check(t0 + WINDOW, ACCOUNT_MAX_FAILURES).is_ok());
        assert_eq!(a.failed(t0 + WINDOW).failures, 1);
        // An address has a larger budget.
        assert!(a.check(t0 + 10, CLIENT_MAX_FAILURES).is_ok());
    }
}
