//! Time is passed in, never read: `Millis` is UNIX milliseconds on the service clock (which
//! local runs may move forward with time travel). This module only formats it.

use serde::{Deserialize, Serialize};

pub type Millis = u64;

/// An instant on the wire: ISO 8601 in UTC with milliseconds (`2026-11-21T12:00:00.000Z`,
/// [`iso8601`]). Made from a [`Millis`] by the service; read back as it came by the package.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(String);

impl Timestamp {
    /// The instant `ms` (UNIX milliseconds).
    pub fn at(ms: Millis) -> Timestamp {
        Timestamp(iso8601(ms))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Timestamp {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<&str> for Timestamp {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub const SECOND: Millis = 1_000;
pub const DAY: Millis = 86_400 * SECOND;

/// ISO 8601 in UTC with milliseconds, e.g. `2026-11-21T12:00:00.000Z` (JavaScript's
/// `Date.toISOString()` form, so browsers parse it as is).
pub fn iso8601(ms: Millis) -> String {
    let secs = ms / 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    if y > 9999 {
        // Past what four digits hold: as `format!` writes it.
        return plain_iso8601(ms);
    }
    // The digits written into place: `format!` with seven padded fields was most of a
    // history record's conversion to its wire form (every record, event and answer has one).
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: u64| {
        for i in (at..at + width).rev() {
            if let Some(b) = out.get_mut(i) {
                // v % 10 < 10: the cast cannot truncate.
                *b = b'0' + (v % 10) as u8;
            }
            v /= 10;
        }
    };
    put(0, 4, y);
    put(5, 2, m);
    put(8, 2, d);
    put(11, 2, rem / 3600);
    put(14, 2, (rem % 3600) / 60);
    put(17, 2, rem % 60);
    put(20, 3, ms % 1000);
    out.iter().map(|&b| char::from(b)).collect()
}

/// [`iso8601`] with `format!`, for years past 9999 (and the tests' reference).
fn plain_iso8601(ms: Millis) -> String {
    let secs = ms / 1000;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(secs / 86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        ms % 1000
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm, restricted to dates on or after the epoch).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        let table = [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_700_000_000_123, "2023-11-14T22:13:20.123Z"),
            (1_795_262_400_000, "2026-11-21T12:00:00.000Z"),
            (4_107_542_399_999, "2100-02-28T23:59:59.999Z"),
        ];
        for (ms, want) in table {
            assert_eq!(iso8601(ms), want, "{ms}");
        }
    }

    proptest::proptest! {
        #[test]
        fn writes_what_format_writes(ms in proptest::prelude::any::<u64>()) {
            proptest::prop_assert_eq!(iso8601(ms), plain_iso8601(ms));
        }

        #[test]
        fn writes_what_format_writes_in_four_digit_years(ms in 0u64..253_402_300_800_000) {
            proptest::prop_assert_eq!(iso8601(ms), plain_iso8601(ms));
        }
    }
}
