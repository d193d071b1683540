//! Bar widths: a percentage as a number for drawing, never for arithmetic.

use crate::decimal::Dec;

/// A percentage as a float with two decimals, for bar widths; clamped to 0..=100.
pub(crate) fn bar_percent(p: Option<&Dec>) -> f64 {
    p.map_or(0.0, Dec::to_f64_2dp).clamp(0.0, 100.0)
}
