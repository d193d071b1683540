//! Timestamps and countdowns. `now` is always passed in (milliseconds since the UNIX epoch,
//! what `Date.now()` returns), so every view is a pure function of its inputs.

use serde::Serialize;

/// Parses the service's ISO 8601 UTC timestamps (`2026-11-21T12:00:00.000Z`, fraction
/// optional) into UNIX milliseconds. `None` for anything else.
pub fn parse_iso_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b.last() != Some(&b'Z') {
        return None;
    }
    let num = |from: usize, to: usize| -> Option<i64> {
        let part = s.get(from..to)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let sep = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let ms = match &s[19..s.len() - 1] {
        "" => 0,
        frac => {
            let digits = frac.strip_prefix('.')?;
            if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            // Milliseconds: the first three digits, padded.
            let first3: String = digits.chars().chain("000".chars()).take(3).collect();
            first3.parse().ok()?
        }
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 24 + h) * 60 + mi) * 60_000 + sec * 1000 + ms)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Time left until `target_ms`, broken down for display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "codegen", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Countdown {
    /// The instant counted down to (UNIX ms).
    pub target_ms: i64,
    /// Milliseconds left; 0 once reached.
    pub remaining_ms: i64,
    /// True once `now` has reached the target.
    pub done: bool,
    pub days: i64,
    pub hours: i64,
    pub minutes: i64,
    /// Whole seconds, rounded up, so the display reaches `0s` exactly when `done`.
    pub seconds: i64,
    /// `6d 23h 59m 59s`, `4h 0m 12s`, `12m 5s`, `9s`, `0s`.
    pub label: String,
}

/// The countdown from `now_ms` to `target_ms`.
pub fn countdown(target_ms: i64, now_ms: i64) -> Countdown {
    let remaining_ms = target_ms.saturating_sub(now_ms).max(0);
    let total_s = remaining_ms.div_euclid(1000) + i64::from(remaining_ms % 1000 != 0);
    let (days, hours) = (total_s / 86_400, total_s % 86_400 / 3600);
    let (minutes, seconds) = (total_s % 3600 / 60, total_s % 60);
    let label = if days > 0 {
        format!("{days}d {hours}h {minutes}m {seconds}s")
    } else if hours > 0 {
        format!("{hours}h {minutes}m {seconds}s")
    } else if minutes > 0 {
        format!("{minutes}m {seconds}s")
    } else {
        format!("{seconds}s")
    };
    Countdown {
        target_ms,
        remaining_ms,
        done: remaining_ms == 0,
        days,
        hours,
        minutes,
        seconds,
        label,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_service_timestamps() {
        let table = [
            ("1970-01-01T00:00:00.000Z", 0),
            ("2000-02-29T00:00:00.000Z", 951_782_400_000),
            ("2023-11-14T22:13:20.123Z", 1_700_000_000_123),
            ("2026-11-21T12:00:00Z", 1_795_262_400_000),
            ("2026-11-21T12:00:00.5Z", 1_795_262_400_500),
            ("2100-02-28T23:59:59.999999Z", 4_107_542_399_999),
        ];
        for (s, want) in table {
            assert_eq!(parse_iso_ms(s), Some(want), "{s}");
        }
        // Agrees with the core's formatter, which writes what the service sends.
        for ms in [0u64, 1, 86_399_999, 1_795_262_400_123, 4_102_444_800_000] {
            let iso = tokenpad_core::model::time::iso8601(ms);
            assert_eq!(
                parse_iso_ms(&iso),
                Some(i64::try_from(ms).unwrap()),
                "{iso}"
            );
        }
        for bad in [
            "",
            "2026-11-21",
            "2026-11-21T12:00:00",
            "2026-11-21T12:00:00+01:00",
            "2026-13-21T12:00:00Z",
            "2026-11-21 12:00:00Z",
            "2026-11-21T12:00:00.Z",
            "2026-11-21T1a:00:00Z",
        ] {
            assert_eq!(parse_iso_ms(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn counts_down() {
        let c = countdown(7 * 86_400_000, 1);
        assert_eq!((c.days, c.hours, c.minutes, c.seconds), (7, 0, 0, 0));
        assert_eq!(c.label, "7d 0h 0m 0s");
        assert!(!c.done);
        let c = countdown(1_000_000 + 3_723_500, 1_000_000);
        assert_eq!(c.label, "1h 2m 4s");
        assert_eq!(c.remaining_ms, 3_723_500);
        assert_eq!(countdown(65_000, 0).label, "1m 5s");
        assert_eq!(countdown(1, 0).label, "1s");
        let done = countdown(5, 10);
        assert!(done.done);
        assert_eq!(done.remaining_ms, 0);
        assert_eq!(done.label, "0s");
    }
}
