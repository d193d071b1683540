//! The service's objects are the core's wire types (`tokenpad_core::wire`): this module reads
//! them from JSON text and writes them for JavaScript.
//!
//! - Reading: the wire type's derived `Deserialize` reads the JSON text directly (numbers keep
//!   their exact text: `arbitrary_precision`). Every shape is read through this one
//!   deserializer (`serde_json::Deserializer<StrRead>`), which keeps one copy of each shape's
//!   code in the wasm. Not through a parsed `serde_json::Value`: with `arbitrary_precision`,
//!   reading a number out of a `Value` tries it as a float first (parsing and printing floats:
//!   8 KB more of gzipped wasm, measured). A failure names the field by its path
//!   (`locks[0].balance: expected a non-negative decimal`, `id: missing`), found from the
//!   error's position in the text (`wire/locate.rs`).
//! - Writing: [`to_js_json`] serializes with [`AmountsAsStrings`], a formatter that writes an
//!   exact decimal (a `Decimal`, which serializes as an arbitrary-precision JSON number) as a
//!   string, so that JavaScript gets `"1234.567890123456789012"` and never a lossy float. Counts
//!   and timestamps (`u64`, `i64`, `f64`) stay numbers.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::ser::Formatter;
use std::io;

pub use tokenpad_core::wire::admin::ErrorBody;
pub use tokenpad_core::wire::holder::{
    HolderFull, ItemKind, ItemStatus, LockItem, PresaleItem, PresaleItemMetadata, TokenBalance,
    TokenItem,
};
pub use tokenpad_core::wire::presale::{
    CompletionState, Presale, PresaleInfo, PresaleMerchant, PresaleParticipant, PresaleStatus,
    PresaleTokenInfo, TokenDeploymentInfo,
};
pub use tokenpad_core::wire::token::{Token, TokenHolder};

use tokenpad_core::model::ids::TokenAddress;

/// The merchant form's fields the progress view shows, each absent in the public form. Read
/// from the same object as its [`Presale`] (see [`read_presale`]) rather than through
/// [`PresaleMerchant`], whose `#[serde(flatten)]` makes serde buffer the whole object and
/// which requires every merchant field, where a page may hand over only `completionState`
/// (reading `PresaleMerchant` here measured 11 KB more of gzipped wasm).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MerchantPart {
    pub completion_state: Option<CompletionState>,
    pub presale_info: Option<PresaleInfo>,
    pub token_address: Option<TokenAddress>,
    pub token_deployment_info: Option<TokenDeploymentInfo>,
}

mod locate;

/// Reads a `T` from JSON text. The error names the failing field by its path.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| describe(text, &e))
}

/// A presale in either form: the public form, and what the merchant form adds when present.
pub fn read_presale(text: &str) -> Result<(Presale, MerchantPart), String> {
    Ok((from_str(text)?, from_str(text)?))
}

/// A data error as `<path>: <why>`; a syntax error as serde_json writes it (with its line
/// and column). serde reports a missing field as `missing field `id``: named here `id: missing`.
/// A field type of the core reports a tagged [`tokenpad_core::FieldError`], whose `why` is the
/// message.
fn describe(text: &str, e: &serde_json::Error) -> String {
    if !e.is_data() {
        return e.to_string();
    }
    let at = locate::offset(text, e.line(), e.column());
    let join = |path: &str, name: &str| {
        if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        }
    };
    // serde_json's message, without the position it appends (`at line 1 column 9`).
    let mut message = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    if e.line() > 0 && message.ends_with(&suffix) {
        message.truncate(message.len() - suffix.len());
    }
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'));
    let path = locate::path_at(text, at, missing.is_some());
    if let Some(name) = missing {
        return format!("{}: missing", join(&path, name));
    }
    let why = tokenpad_core::FieldError::why_from_message(&message).unwrap_or(message);
    if path.is_empty() {
        format!("the value: {why}")
    } else {
        format!("{path}: {why}")
    }
}

/// A JSON formatter that writes arbitrary-precision numbers as strings. With serde_json's
/// `arbitrary_precision`, a `Number` (and so a `Decimal`) serializes as its exact text through
/// `write_number_str`, and only it does: `u64`, `i64` and `f64` go through `write_u64`,
/// `write_i64` and `write_f64`, which keep their compact defaults. Number text is made of
/// digits, `.`, `e`, `+` and `-`: nothing to escape.
pub struct AmountsAsStrings;

impl Formatter for AmountsAsStrings {
    fn write_number_str<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        value: &str,
    ) -> io::Result<()> {
        w.write_all(b"\"")?;
        w.write_all(value.as_bytes())?;
        w.write_all(b"\"")
    }
}

/// `v` as JSON text for JavaScript: amounts as exact decimal strings, integers as numbers.
pub fn to_js_json<T: Serialize + ?Sized>(v: &T) -> Result<String, String> {
    let mut out = Vec::with_capacity(512);
    v.serialize(&mut serde_json::Serializer::with_formatter(
        &mut out,
        AmountsAsStrings,
    ))
    .map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
