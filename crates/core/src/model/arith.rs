//! Exact integer arithmetic and decimal text for amounts: parsing decimal text into base
//! units without rounding, writing base units back as exact decimals, and products and
//! quotients through a 256-bit intermediate, so nothing overflows in the middle.

pub const TOKEN_DECIMALS: u8 = 18;
pub const USDC_DECIMALS: u8 = 6;
/// USD values are reported with this many decimals (micro-dollars), floored.
pub const VALUE_DECIMALS: u8 = 6;
/// Prices are USD per whole token, held with this many decimals.
pub const PRICE_DECIMALS: u8 = 18;

/// 10^exp as u128, or None past 10^38. Looked up: `checked_pow` on a u128 is a loop of
/// software multiplications on wasm32, and every amount written as decimal text asks for one.
pub fn pow10(exp: u32) -> Option<u128> {
    POW10.get(usize::try_from(exp).ok()?).copied()
}

/// 10^0 to 10^38, every power of ten a u128 holds.
#[allow(clippy::indexing_slicing)] // Evaluated while compiling: an index out of range fails the build.
const POW10: [u128; 39] = {
    let mut table = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// Why a decimal text is not an amount. All map to `invalid_amount`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmountError {
    Malformed,
    Negative,
    TooPrecise,
    Overflow,
}

impl AmountError {
    pub fn describe(self, decimals: u8) -> String {
        match self {
            AmountError::Malformed => "must be a decimal number".into(),
            AmountError::Negative => "must not be negative".into(),
            AmountError::TooPrecise => format!("has more than {decimals} fractional digits"),
            AmountError::Overflow => "is too large".into(),
        }
    }
}

/// Decimal text (`12`, `0.5`, `1e3`, `2.5E-1`) as digits and a power of ten: the value is
/// `digits x 10^exp`. Leading zeros are dropped, so zero has no digits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecimalParts {
    digits: String,
    exp: i64,
}

impl DecimalParts {
    pub fn parse(text: &str) -> Result<DecimalParts, AmountError> {
        if text.starts_with('-') {
            return Err(AmountError::Negative);
        }
        let (mantissa, exponent) = match text.split_once(['e', 'E']) {
            Some((m, e)) => (m, Some(e)),
            None => (text, None),
        };
        let (int_part, frac_part) = match mantissa.split_once('.') {
            Some((_, "")) => return Err(AmountError::Malformed),
            Some((i, f)) => (i, f),
            None => (mantissa, ""),
        };
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int_part.is_empty() || !all_digits(int_part) || !all_digits(frac_part) {
            return Err(AmountError::Malformed);
        }
        let exp: i64 = match exponent {
            None => 0,
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty() || !all_digits(digits) {
                    return Err(AmountError::Malformed);
                }
                if digits.len() > 6 {
                    return Err(AmountError::Overflow);
                }
                e.parse::<i64>().map_err(|_| AmountError::Malformed)?
            }
        };
        let frac_len = i64::try_from(frac_part.len()).map_err(|_| AmountError::Overflow)?;
        // The digits without leading zeros, in one allocation (a request's every amount).
        let int_part = int_part.trim_start_matches('0');
        let frac_part = if int_part.is_empty() {
            frac_part.trim_start_matches('0')
        } else {
            frac_part
        };
        let mut digits = String::with_capacity(int_part.len() + frac_part.len());
        digits.push_str(int_part);
        digits.push_str(frac_part);
        Ok(DecimalParts {
            digits,
            exp: exp - frac_len,
        })
    }

    pub fn is_zero(&self) -> bool {
        self.digits.bytes().all(|b| b == b'0')
    }

    /// The plain decimal (no exponent, no leading or trailing zeros), if it has at most
    /// `max_digits` digits either side of the point.
    pub fn to_plain(&self, max_digits: usize) -> Option<String> {
        let digits = self.digits.trim_end_matches('0');
        if digits.is_empty() {
            return Some("0".into());
        }
        let zeros = self.digits.len() - digits.len();
        let exp = self.exp.checked_add(i64::try_from(zeros).ok()?)?;
        let len = i64::try_from(digits.len()).ok()?;
        let max = i64::try_from(max_digits).ok()?;
        if exp >= 0 {
            if len + exp > max {
                return None;
            }
            return Some(format!(
                "{digits}{}",
                "0".repeat(usize::try_from(exp).ok()?)
            ));
        }
        let frac = -exp;
        if frac > max || len > max + frac {
            return None;
        }
        if len > frac {
            let (int, fraction) = digits.split_at(usize::try_from(len - frac).ok()?);
            Some(format!("{int}.{fraction}"))
        } else {
            let pad = "0".repeat(usize::try_from(frac - len).ok()?);
            Some(format!("0.{pad}{digits}"))
        }
    }

    /// The value in base units of an asset with `decimals`. Exact: anything that would need
    /// rounding is refused rather than rounded.
    pub fn units(&self, decimals: u8) -> Result<u128, AmountError> {
        let mut shift = self.exp + i64::from(decimals);
        let mut digits = self.digits.as_str();
        if shift < 0 {
            // The last -shift digits fall below one base unit: they must all be zero.
            let drop = usize::try_from(-shift).map_err(|_| AmountError::Overflow)?;
            let keep = digits.len().saturating_sub(drop);
            let (kept, dropped) = digits.split_at(keep);
            if dropped.bytes().any(|b| b != b'0') {
                return Err(AmountError::TooPrecise);
            }
            digits = kept;
            shift = 0;
        }
        if digits.is_empty() {
            return Ok(0);
        }
        if digits.len() > 39 || shift > 39 {
            return Err(AmountError::Overflow);
        }
        let base: u128 = digits.parse().map_err(|_| AmountError::Overflow)?;
        let scale = pow10(u32::try_from(shift).map_err(|_| AmountError::Overflow)?)
            .ok_or(AmountError::Overflow)?;
        base.checked_mul(scale).ok_or(AmountError::Overflow)
    }
}

/// Parses decimal text into base units with `decimals` places, exactly.
pub fn parse_units(text: &str, decimals: u8) -> Result<u128, AmountError> {
    DecimalParts::parse(text)?.units(decimals)
}

/// Writes base units as the exact whole-unit decimal, without trailing zeros: `1500000, 6` is `1.5`.
pub fn format_units(value: u128, decimals: u8) -> String {
    let Some(scale) = pow10(u32::from(decimals)) else {
        return value.to_string();
    };
    // wasm32 divides and prints a u128 in software: most amounts fit in 64 bits (a USDC amount,
    // a token amount below 18.4 whole tokens), and 10^18 does too, so those take 64-bit
    // arithmetic. The same digits either way (`format_units_64_and_128_agree`).
    match (u64::try_from(value), u64::try_from(scale)) {
        (Ok(v), Ok(s)) => write_units(v / s, v % s, decimals),
        _ => write_units(value / scale, value % scale, decimals),
    }
}

/// `int.frac` with `frac` written to `decimals` digits and its trailing zeros dropped. Written
/// with `itoa` into one String of the right size: `format!` twice (a padded fraction, then the
/// whole) was a quarter of rendering a presale's participants (two decimals a row).
fn write_units<T: itoa::Integer + Default + PartialEq>(int: T, frac: T, decimals: u8) -> String {
    let mut whole = itoa::Buffer::new();
    let whole = whole.format(int);
    if frac == T::default() {
        return whole.to_string();
    }
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(frac);
    // frac < 10^decimals, so its digits fit; the zeros before them make up the width.
    let zeros = usize::from(decimals).saturating_sub(digits.len());
    let digits = digits.trim_end_matches('0');
    let mut out = String::with_capacity(whole.len() + 1 + zeros + digits.len());
    out.push_str(whole);
    out.push('.');
    out.extend(std::iter::repeat_n('0', zeros));
    out.push_str(digits);
    out
}

/// floor(a x b / d) with a 256-bit intermediate product, so it never overflows in the middle.
/// None when d is zero or the quotient does not fit in u128.
pub fn mul_div(a: u128, b: u128, d: u128) -> Option<u128> {
    if d == 0 {
        return None;
    }
    if let Some(p) = a.checked_mul(b) {
        return Some(p / d);
    }
    let (hi, lo) = widening_mul(a, b);
    if hi >= d {
        return None; // the quotient would not fit in 128 bits
    }
    // Long division of (hi, lo) by d, one bit at a time; hi < d keeps the remainder in range.
    let mut rem = hi;
    let mut quot: u128 = 0;
    for i in (0..128).rev() {
        let carry = rem >> 127;
        rem = (rem << 1) | ((lo >> i) & 1);
        quot <<= 1;
        if carry == 1 || rem >= d {
            rem = rem.wrapping_sub(d);
            quot |= 1;
        }
    }
    Some(quot)
}

/// ceil(a x b / d), as [`mul_div`] otherwise.
pub fn mul_div_up(a: u128, b: u128, d: u128) -> Option<u128> {
    let q = mul_div(a, b, d)?;
    if widening_mul(q, d) == widening_mul(a, b) {
        Some(q)
    } else {
        q.checked_add(1)
    }
}

/// The full 256-bit product of two u128s as (high, low).
pub fn widening_mul(a: u128, b: u128) -> (u128, u128) {
    const MASK: u128 = u64::MAX as u128;
    let (a_hi, a_lo) = (a >> 64, a & MASK);
    let (b_hi, b_lo) = (b >> 64, b & MASK);
    let ll = a_lo * b_lo;
    let lh = a_lo * b_hi;
    let hl = a_hi * b_lo;
    let hh = a_hi * b_hi;
    let mid = (ll >> 64) + (lh & MASK) + (hl & MASK);
    let lo = (ll & MASK) | (mid << 64);
    let hi = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
    (hi, lo)
}

/// USD value, in micro-dollars, of `balance` base units of an asset with `decimals`, at
/// `price` (USD per whole token with PRICE_DECIMALS). Floored; saturates rather than fails,
/// because a value is a display figure, never a balance.
pub fn value_micro_usd(balance: u128, decimals: u8, price: u128) -> u128 {
    let exp = u32::from(decimals) + u32::from(PRICE_DECIMALS) - u32::from(VALUE_DECIMALS);
    match pow10(exp) {
        Some(scale) => mul_div(balance, price, scale).unwrap_or(u128::MAX),
        // decimals so large that 10^exp overflows: divide in two steps.
        None => pow10(exp - 18)
            .and_then(|s| mul_div(balance / s, price, pow10(18)?))
            .unwrap_or(0),
    }
}

/// The price (USD per whole token, PRICE_DECIMALS) at which `amount_base` base units of an
/// asset with `decimals` cost `usd_base` base units of USDC.
pub fn price_from(usd_base: u128, amount_base: u128, decimals: u8) -> Option<u128> {
    // price = usd / 10^6 / (amount / 10^decimals) in units of 10^-18
    let numerator_scale =
        pow10(u32::from(decimals) + u32::from(PRICE_DECIMALS) - u32::from(USDC_DECIMALS))?;
    mul_div(usd_base, numerator_scale, amount_base)
}

/// `part / whole x 100`, floored to 6 decimals, as micro-percent (0 when whole is 0).
pub fn percent_micro(part: u128, whole: u128) -> u128 {
    mul_div(part, 100_000_000, whole).unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_exact_decimals() {
        let table: &[(&str, u8, Result<u128, AmountError>)] = &[
            ("1", 6, Ok(1_000_000)),
            ("0.1", 6, Ok(100_000)),
            ("12.345678", 6, Ok(12_345_678)),
            ("12.3456789", 6, Err(AmountError::TooPrecise)),
            ("12.3456780", 6, Ok(12_345_678)),
            ("0", 6, Ok(0)),
            ("000.5", 6, Ok(500_000)),
            ("1e3", 6, Ok(1_000_000_000)),
            ("1E+3", 6, Ok(1_000_000_000)),
            ("2.5e-1", 6, Ok(250_000)),
            ("1e-7", 6, Err(AmountError::TooPrecise)),
            ("1e999999999", 6, Err(AmountError::Overflow)),
            ("1e-999999999", 6, Err(AmountError::Overflow)),
            ("0.000000000000000001", 18, Ok(1)),
            ("0.0000000000000000001", 18, Err(AmountError::TooPrecise)),
            (
                "340282366920938463463.374607431768211455",
                18,
                Ok(u128::MAX),
            ),
            (
                "340282366920938463463.374607431768211456",
                18,
                Err(AmountError::Overflow),
            ),
            ("-1", 6, Err(AmountError::Negative)),
            ("", 6, Err(AmountError::Malformed)),
            (".5", 6, Err(AmountError::Malformed)),
            ("5.", 6, Err(AmountError::Malformed)),
            ("1.2.3", 6, Err(AmountError::Malformed)),
            (" 1", 6, Err(AmountError::Malformed)),
            ("NaN", 6, Err(AmountError::Malformed)),
            ("Infinity", 6, Err(AmountError::Malformed)),
            ("0x10", 6, Err(AmountError::Malformed)),
            ("1e", 6, Err(AmountError::Malformed)),
            ("+1", 6, Err(AmountError::Malformed)),
        ];
        for (text, decimals, want) in table {
            assert_eq!(parse_units(text, *decimals), *want, "{text}");
        }
    }

    #[test]
    fn point_one_plus_point_two_is_point_three() {
        let a = parse_units("0.1", 18).unwrap();
        let b = parse_units("0.2", 18).unwrap();
        assert_eq!(format_units(a + b, 18), "0.3");
    }

    #[test]
    fn formats_without_trailing_zeros() {
        assert_eq!(format_units(0, 6), "0");
        assert_eq!(format_units(1, 6), "0.000001");
        assert_eq!(format_units(1_500_000, 6), "1.5");
        assert_eq!(format_units(2_000_000, 6), "2");
        assert_eq!(
            format_units(u128::MAX, 18),
            "340282366920938463463.374607431768211455"
        );
    }

    #[test]
    fn values_and_prices() {
        let one_token = pow10(18).unwrap();
        let one_dollar_price = pow10(18).unwrap();
        assert_eq!(value_micro_usd(one_token, 18, one_dollar_price), 1_000_000);
        assert_eq!(value_micro_usd(1_000_000, 6, one_dollar_price), 1_000_000);
        // A billion tokens at a million dollars each does not overflow.
        let big = value_micro_usd(1_000_000_000 * one_token, 18, 1_000_000 * one_dollar_price);
        assert_eq!(big, 1_000_000_000_000_000 * 1_000_000);
        // 150 USDC for 1000 tokens is 0.15 USD per token.
        let price = price_from(150_000_000, 1000 * one_token, 18).unwrap();
        assert_eq!(format_units(price, PRICE_DECIMALS), "0.15");
    }

    /// What `format_units` writes, the plain way (the fast path must write the same).
    fn reference_units(v: u128, d: u8) -> String {
        let scale = 10u128.pow(u32::from(d));
        let (int, frac) = (v / scale, v % scale);
        if frac == 0 {
            return int.to_string();
        }
        let frac = format!("{:0width$}", frac, width = usize::from(d));
        format!("{int}.{}", frac.trim_end_matches('0'))
    }

    #[test]
    fn pow10_is_every_power_a_u128_holds() {
        for exp in 0..=40u32 {
            assert_eq!(pow10(exp), 10u128.checked_pow(exp), "10^{exp}");
        }
    }

    proptest! {
        #[test]
        fn format_units_writes_the_plain_decimal(v in any::<u128>(), d in 0u8..=38) {
            prop_assert_eq!(format_units(v, d), reference_units(v, d));
        }

        #[test]
        fn format_then_parse_is_identity(v in any::<u128>(), d in 0u8..=18) {
            prop_assert_eq!(parse_units(&format_units(v, d), d), Ok(v));
        }

        #[test]
        fn format_units_64_and_128_agree(v in any::<u64>(), d in 0u8..=19) {
            let (v128, scale) = (u128::from(v), 10u128.pow(u32::from(d)));
            prop_assert_eq!(format_units(v128, d), reference_units(v128, d));
            prop_assert_eq!(write_units(v128 / scale, v128 % scale, d), reference_units(v128, d));
            prop_assert_eq!(parse_units(&format_units(v128, d), d), Ok(v128));
        }

        #[test]
        fn mul_div_matches_exact_arithmetic(a in any::<u64>(), b in any::<u128>(), d in 1u128..) {
            let (hi, lo) = widening_mul(u128::from(a), b);
            let got = mul_div(u128::from(a), b, d);
            match u128::from(a).checked_mul(b) {
                Some(p) => prop_assert_eq!(got, Some(p / d)),
                None => {
                    // Check q*d <= a*b < (q+1)*d in 256 bits when a quotient is returned.
                    if let Some(q) = got {
                        let (qh, ql) = widening_mul(q, d);
                        prop_assert!((qh, ql) <= (hi, lo));
                        let (rh, rl) = { let (h, l) = widening_mul(q, d); let (l2, c) = l.overflowing_add(d); (h + u128::from(c), l2) };
                        prop_assert!((rh, rl) > (hi, lo));
                    } else {
                        prop_assert!(hi >= d);
                    }
                }
            }
        }
    }
}
