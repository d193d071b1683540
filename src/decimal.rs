//! Exact non-negative decimals, held as their digits.
//!
//! The service writes every amount as the exact decimal of an integer count of base units
//! (`12.345678901234567891`), which a JavaScript number cannot hold. [`Dec`] keeps the digits,
//! of any length, and does the little arithmetic the view models need (sum, difference,
//! comparison, a percentage, rounding for display) on them, so no float ever touches an amount.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use tokenpad_core::model::decimal::Decimal;

/// The largest exponent accepted in `1e21`-style input (keeps a hostile `1e999999` from
/// allocating a million zeros).
const MAX_EXPONENT: i64 = 400;

/// A non-negative decimal: `int` has no leading zeros (`"0"` for zero), `frac` no trailing
/// zeros. Two equal values always have equal fields, so `==` is numeric equality.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dec {
    int: String,
    frac: String,
}

/// How [`Dec::round`] drops digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Rounding {
    /// Half away from zero (`Intl.NumberFormat`'s default): 0.125 -> 0.13.
    #[default]
    HalfExpand,
    /// Toward zero: 0.129 -> 0.12. Never shows more than there is.
    Trunc,
}

impl Default for Dec {
    fn default() -> Self {
        Dec::zero()
    }
}

impl Dec {
    pub fn zero() -> Dec {
        Dec {
            int: "0".into(),
            frac: String::new(),
        }
    }

    fn normalized(int: &str, frac: &str) -> Dec {
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        Dec {
            int: if int.is_empty() {
                "0".into()
            } else {
                int.into()
            },
            frac: frac.into(),
        }
    }

    /// Parses `12`, `0.5`, `000.50`, `1e21`, `2.5E-7` (what JSON and JavaScript write).
    /// `None` for anything else: negative, empty, `NaN`, `Infinity`, `.5`, `5.`, spaces.
    pub fn parse(text: &str) -> Option<Dec> {
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], Some(&text[i + 1..])),
            None => (text, None),
        };
        let (int, frac) = match mantissa.split_once('.') {
            Some((i, f)) => (i, f),
            None => (mantissa, ""),
        };
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || !digits(int) || !digits(frac) {
            return None;
        }
        if mantissa.contains('.') && frac.is_empty() {
            return None;
        }
        let exp: i64 = match exponent {
            None => 0,
            Some(e) => {
                let unsigned = e.strip_prefix(['+', '-']).unwrap_or(e);
                if unsigned.is_empty() || !digits(unsigned) || unsigned.len() > 6 {
                    return None;
                }
                let exp: i64 = e.parse().ok()?;
                if exp.abs() > MAX_EXPONENT {
                    return None;
                }
                exp
            }
        };
        if exp == 0 {
            return Some(Dec::normalized(int, frac));
        }
        // All digits, and where the point falls among them.
        let all = format!("{int}{frac}");
        let point = i64::try_from(int.len()).ok()? + exp;
        let len = i64::try_from(all.len()).ok()?;
        let dec = if point <= 0 {
            let zeros = "0".repeat(usize::try_from(-point).ok()?);
            Dec::normalized("0", &format!("{zeros}{all}"))
        } else if point >= len {
            let zeros = "0".repeat(usize::try_from(point - len).ok()?);
            Dec::normalized(&format!("{all}{zeros}"), "")
        } else {
            let at = usize::try_from(point).ok()?;
            Dec::normalized(&all[..at], &all[at..])
        };
        Some(dec)
    }

    /// `units` base units of an asset with `decimals` places: `(1500000, 6)` is 1.5.
    pub fn from_units(units: u128, decimals: u8) -> Dec {
        let text = tokenpad_core::model::amount::format_units(units, decimals);
        Dec::parse(&text).unwrap_or_default()
    }

    /// The wire's exact decimal (always canonical and non-negative, so it always parses).
    pub fn of(d: &Decimal) -> Dec {
        Dec::parse(d.as_str()).unwrap_or_default()
    }

    pub fn from_u64(n: u64) -> Dec {
        Dec::normalized(&n.to_string(), "")
    }

    pub fn is_zero(&self) -> bool {
        self.int == "0" && self.frac.is_empty()
    }

    /// The digits before the point (`"0"` for values below one).
    pub fn int_digits(&self) -> &str {
        &self.int
    }

    /// The digits after the point, without trailing zeros (empty for whole numbers).
    pub fn frac_digits(&self) -> &str {
        &self.frac
    }

    /// Both values as integers over the same power of ten: (a, b, fraction length).
    fn aligned(&self, other: &Dec) -> (String, String) {
        let f = self.frac.len().max(other.frac.len());
        let a = format!("{}{:0<f$}", self.int, self.frac);
        let b = format!("{}{:0<f$}", other.int, other.frac);
        let w = a.len().max(b.len());
        (format!("{a:0>w$}"), format!("{b:0>w$}"))
    }

    fn from_aligned(digits: &str, frac_len: usize) -> Dec {
        let at = digits.len().saturating_sub(frac_len);
        Dec::normalized(&digits[..at], &digits[at..])
    }

    pub fn add(&self, other: &Dec) -> Dec {
        let frac_len = self.frac.len().max(other.frac.len());
        let (a, b) = self.aligned(other);
        let mut out = Vec::with_capacity(a.len() + 1);
        let mut carry = 0u8;
        for (x, y) in a.bytes().rev().zip(b.bytes().rev()) {
            let s = (x - b'0') + (y - b'0') + carry;
            out.push(b'0' + s % 10);
            carry = s / 10;
        }
        if carry > 0 {
            out.push(b'0' + carry);
        }
        out.reverse();
        Dec::from_aligned(&String::from_utf8_lossy(&out), frac_len)
    }

    /// `self - other`, or zero when `other` is larger.
    pub fn saturating_sub(&self, other: &Dec) -> Dec {
        if *self <= *other {
            return Dec::zero();
        }
        let frac_len = self.frac.len().max(other.frac.len());
        let (a, b) = self.aligned(other);
        let mut out = Vec::with_capacity(a.len());
        let mut borrow = 0u8;
        for (x, y) in a.bytes().rev().zip(b.bytes().rev()) {
            let (x, y) = (x - b'0', y - b'0' + borrow);
            if x >= y {
                out.push(b'0' + x - y);
                borrow = 0;
            } else {
                out.push(b'0' + x + 10 - y);
                borrow = 1;
            }
        }
        out.reverse();
        Dec::from_aligned(&String::from_utf8_lossy(&out), frac_len)
    }

    /// `self x n` for a small whole `n`.
    pub fn mul_small(&self, n: u32) -> Dec {
        let digits = format!("{}{}", self.int, self.frac);
        let mut out = Vec::with_capacity(digits.len() + 10);
        let mut carry: u64 = 0;
        for d in digits.bytes().rev() {
            let p = u64::from(d - b'0') * u64::from(n) + carry;
            out.push(b'0' + (p % 10) as u8);
            carry = p / 10;
        }
        while carry > 0 {
            out.push(b'0' + (carry % 10) as u8);
            carry /= 10;
        }
        out.reverse();
        Dec::from_aligned(&String::from_utf8_lossy(&out), self.frac.len())
    }

    /// `self / 10^places`, exactly.
    pub fn shift_down(&self, places: usize) -> Dec {
        let digits = format!("{:0>w$}{}", self.int, self.frac, w = places + 1);
        Dec::from_aligned(&digits, self.frac.len() + places)
    }

    /// `self / whole x 100`, floored to 6 decimals; `None` when `whole` is zero. Exact while
    /// both values fit in 30 significant digits, and off by less than 10^-28 beyond that.
    pub fn percent_of(&self, whole: &Dec) -> Option<Dec> {
        if whole.is_zero() {
            return None;
        }
        let (a, b) = self.aligned(whole);
        let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
        let keep = 30;
        let drop = a.len().max(b.len()).saturating_sub(keep);
        let cut = |s: &str| -> u128 {
            let end = s.len().saturating_sub(drop);
            s[..end].parse().unwrap_or(0)
        };
        let (a, b) = (cut(a), cut(b));
        if b == 0 {
            return None;
        }
        let micro = tokenpad_core::model::amount::mul_div(a, 100_000_000, b)?;
        Some(Dec::from_units(micro, 6))
    }

    /// Rounded to at most `digits` fraction digits.
    pub fn round(&self, digits: usize, mode: Rounding) -> Dec {
        if self.frac.len() <= digits {
            return self.clone();
        }
        let kept = Dec::normalized(&self.int, &self.frac[..digits]);
        let round_up = match mode {
            Rounding::Trunc => false,
            Rounding::HalfExpand => self.frac.as_bytes().get(digits).is_some_and(|&b| b >= b'5'),
        };
        if !round_up {
            return kept;
        }
        // Add one unit in the last kept place.
        let unit = match digits {
            0 => Dec::from_u64(1),
            n => Dec::normalized("0", &format!("{}1", "0".repeat(n - 1))),
        };
        kept.add(&unit)
    }

    /// Rounded to two decimals as a float, for display only (bar widths): never used for
    /// amounts. Saturates at about 10^16.
    pub fn to_f64_2dp(&self) -> f64 {
        let r = self.round(2, Rounding::HalfExpand);
        let int: u64 = if r.int.len() > 16 {
            u64::MAX / 1000
        } else {
            r.int.parse().unwrap_or(0)
        };
        let frac: u64 = format!("{:0<2}", r.frac).parse().unwrap_or(0);
        int.saturating_mul(100).saturating_add(frac) as f64 / 100.0
    }
}

impl Ord for Dec {
    fn cmp(&self, other: &Self) -> Ordering {
        self.int
            .len()
            .cmp(&other.int.len())
            .then_with(|| self.int.cmp(&other.int))
            .then_with(|| {
                let f = self.frac.len().max(other.frac.len());
                format!("{:0<f$}", self.frac).cmp(&format!("{:0<f$}", other.frac))
            })
    }
}

impl PartialOrd for Dec {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Dec {
    /// The plain decimal: no exponent, no trailing zeros (`1.5`, `0`, `1000000000000000000000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.frac.is_empty() {
            f.write_str(&self.int)
        } else {
            write!(f, "{}.{}", self.int, self.frac)
        }
    }
}

/// serde_json (with `arbitrary_precision`, as this workspace builds it) hands a number to
/// `deserialize_any` as a one-entry map under this key, holding the number's exact text.
const SERDE_JSON_NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl Serialize for Dec {
    /// As the exact decimal string: JavaScript gets `"12.345678901234567891"`, not a float.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Dec {
    /// From a JSON number (its exact text), a decimal string, or a JavaScript number.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dec, D::Error> {
        d.deserialize_any(DecVisitor)
    }
}

struct DecVisitor;

impl DecVisitor {
    fn text<E: de::Error>(text: &str) -> Result<Dec, E> {
        Dec::parse(text)
            .ok_or_else(|| E::custom(format!("expected a non-negative decimal, got {text:?}")))
    }
}

impl<'de> Visitor<'de> for DecVisitor {
    type Value = Dec;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a non-negative decimal number or decimal string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Dec, E> {
        Self::text(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dec, E> {
        Ok(Dec::from_u64(v))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Dec, E> {
        Ok(Dec::from_units(v, 0))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dec, E> {
        u64::try_from(v)
            .map(Dec::from_u64)
            .map_err(|_| E::custom("expected a non-negative decimal, got a negative number"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dec, E> {
        if !v.is_finite() || v < 0.0 {
            return Err(E::custom(
                "expected a non-negative decimal, got a negative or non-finite number",
            ));
        }
        // The shortest text that reads back as the same double: 0.1 -> "0.1".
        Self::text(ryu::Buffer::new().format_finite(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Dec, A::Error> {
        let key: Option<String> = map.next_key()?;
        match key.as_deref() {
            Some(SERDE_JSON_NUMBER_TOKEN) => {
                let text: String = map.next_value()?;
                Self::text(&text)
            }
            _ => Err(de::Error::custom(
                "expected a decimal number, got an object",
            )),
        }
    }
}

#[cfg(test)]
mod tests;
