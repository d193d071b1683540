//! tokenpad browser library: public-key reads and view models for web frontends.
//!
//! This crate compiles to `pkg/` with wasm-bindgen. It depends on `tokenpad-core` for the
//! wire types and amount arithmetic, so the browser and the edge worker never disagree on
//! what an amount or a response means. The full client lands with the browser-library issue.

use wasm_bindgen::prelude::*;

/// Formats a base-unit integer (as a decimal string) as a whole-unit decimal string, exactly.
/// `formatUnits("1500000", 6)` is `"1.5"`.
#[wasm_bindgen(js_name = formatUnits)]
pub fn format_units(base_units: &str, decimals: u8) -> Result<String, JsError> {
    let value: u128 = base_units
        .parse()
        .map_err(|_| JsError::new("base units must be a non-negative integer string"))?;
    Ok(tokenpad_core::money::format_units(value, decimals))
}
