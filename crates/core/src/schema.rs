//! JSON Schemas of the field types whose serde is written by hand (amounts, addresses, ids,
//! checked request fields), of the few documented shapes that have no Rust type of their own
//! (a transaction hash or a timestamp kept as a `String`, the OpenAPI document itself, the
//! status request's `id`), and the schema transforms the wire types name in their attributes.
//! Referenced schemas keep openapi.json's component names; the rest are inlined where they
//! are used. This module imports only the model, so the wire types may name it.

use crate::model::address::Address;
use crate::model::amount::{Fixed, TOKEN_DECIMALS, USDC_DECIMALS};
use crate::model::decimal::{AmountInput, Decimal, Whole, MAX_INTEGER_DIGITS};
use crate::model::event::EventType;
use crate::model::ids::{
    DeploymentId, JobId, LockId, MerchantId, PresaleId, TokenAddress, UserId, WebhookId,
};
use crate::model::input::{HttpUrl, ImageUrl, Int, Symbol, Text};
use crate::model::time::Timestamp;
use crate::ErrorCode;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{json, Map, Value};
use std::borrow::Cow;

/// A schema from a JSON object literal.
fn schema(v: Value) -> Schema {
    match v {
        Value::Object(m) => m.into(),
        _ => Schema::default(),
    }
}

/// A schema that is a component of openapi.json, named `$name`.
macro_rules! component {
    ($ty:ty, $name:literal, $json:tt) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                schema(json!($json))
            }
        }
    };
}

/// A schema written out where it is used.
macro_rules! inlined {
    ($ty:ty, $name:literal, $json:tt) => {
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                $name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                schema(json!($json))
            }
        }
    };
}

component!(Address, "Address", {
    "type": "string",
    "pattern": "^0x[0-9a-fA-F]{40}$",
    "description": "Ethereum address. EIP-55 checksummed in responses; any case accepted in requests.",
    "examples": ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"]
});

component!(UserId, "UserId", {
    "type": "string",
    "minLength": 1,
    "maxLength": 128,
    "pattern": "^[^\\u0000-\\u001f\\u007f-\\u009f]+$",
    "description": "The merchant's external id for a holder: 1 to 128 printable characters after URL-decoding."
});

component!(Decimal, "Amount", {
    "type": "number",
    "minimum": 0,
    "description": "Amount in whole units, written as the exact decimal of the stored integer (e.g. 0.1, 12.345678901234567891)."
});

// What the service reads as an amount (`model::decimal::AmountInput`): more than zero, at
// most 20 integer digits (the largest supply is far below 10^20 whole tokens) and as many
// fractional digits as the asset has. A JSON number's fractional digits cannot be bounded
// in JSON Schema: a more precise one is a 400 (the description says so).
component!(AmountInput, "AmountInput", {
    "description": "Amount in whole units of a token, as a JSON number or a decimal string for exact values (digits and an optional fraction: no exponent, sign or spaces): more than zero, at most 18 fractional digits (6 when the token is USDC); otherwise 400 `invalid_amount`.",
    "oneOf": [
        { "type": "number", "minimum": 0.000000000000000001, "maximum": 99999999999999999999u128 },
        { "type": "string", "pattern": amount_pattern(TOKEN_DECIMALS), "not": { "pattern": "^0+(\\.0+)?$" } }
    ]
});

/// The pattern of an amount string, as `model::decimal::is_plain_amount` reads it.
fn amount_pattern(max_fraction: u8) -> String {
    format!("^[0-9]{{1,{MAX_INTEGER_DIGITS}}}(\\.[0-9]{{1,{max_fraction}}})?$")
}

/// A presale's target: 2 to 200,000 USDC (`ops::presale::create`), as a number or a string.
pub struct PresaleTarget;

component!(PresaleTarget, "PresaleTarget", {
    "description": "USDC to raise, 2 to 200,000 (at most 6 fractional digits), as a JSON number or a decimal string; otherwise 400.",
    "oneOf": [
        { "type": "number", "minimum": 2, "maximum": 200000 },
        { "type": "string", "pattern": "^(0*([2-9]|[1-9][0-9]{1,4}|1[0-9]{5})(\\.[0-9]{1,6})?|0*200000(\\.0{1,6})?)$" }
    ]
});

/// A USDC amount in a request: an `AmountInput` with USDC's 6 decimals.
pub struct UsdcAmountInput;

component!(UsdcAmountInput, "UsdcAmountInput", {
    "description": "Amount in whole USDC, as a JSON number or a decimal string for exact values (digits and an optional fraction: no exponent, sign or spaces): more than zero, at most 6 fractional digits; otherwise 400 `invalid_amount`.",
    "oneOf": [
        { "type": "number", "minimum": 0.000001, "maximum": 99999999999999999999u128 },
        { "type": "string", "pattern": amount_pattern(USDC_DECIMALS), "not": { "pattern": "^0+(\\.0+)?$" } }
    ]
});

/// A token's contract address is an address on the wire.
impl JsonSchema for TokenAddress {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "TokenAddress".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        generator.subschema_for::<Address>()
    }
}

/// A request amount in a fixed unit reads like any other request amount.
impl<U: Fixed> JsonSchema for Whole<U> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Whole".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        if U::DECIMALS == crate::model::amount::USDC_DECIMALS {
            generator.subschema_for::<UsdcAmountInput>()
        } else {
            generator.subschema_for::<AmountInput>()
        }
    }
}

// Ids the service makes: presale, job and lock ids are plain strings (a lookup of any other
// text finds nothing, so requests may carry any string); merchant ids too, since an unknown
// one is a 404, not a 400. Deployment ids only ever come from the service.
inlined!(MerchantId, "MerchantId", { "type": "string" });
inlined!(PresaleId, "PresaleId", { "type": "string" });
inlined!(JobId, "JobId", { "type": "string" });
inlined!(LockId, "LockId", { "type": "string" });
inlined!(DeploymentId, "DeploymentId", { "type": "string", "format": "uuid" });
inlined!(WebhookId, "WebhookId", { "type": "string", "pattern": "^wh_[0-9a-f]{32}$" });

impl JsonSchema for EventType {
    fn schema_name() -> Cow<'static, str> {
        "EventType".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let types: Vec<&str> = EventType::ALL.iter().map(|t| t.as_str()).collect();
        schema(json!({
            "type": "string",
            "enum": types,
            "description": "What happened (see the events table in docs/events.md and the EventData schemas)."
        }))
    }
}

/// What a webhook (or the event log's `types`) may select, exactly what the service accepts
/// (`model::webhook::pattern_valid`): an event type, a group (`presale.*`) or `*`.
pub fn event_selectors() -> Vec<String> {
    let mut all = vec!["*".to_string()];
    for t in EventType::ALL {
        let name = t.as_str();
        all.push(name.to_string());
        if let Some((group, _)) = name.split_once('.') {
            let g = format!("{group}.*");
            if !all.contains(&g) {
                all.push(g);
            }
        }
    }
    all.retain(|p| crate::model::webhook::pattern_valid(p));
    all
}

/// One selector ([`event_selectors`]).
pub struct EventSelector;

impl JsonSchema for EventSelector {
    fn schema_name() -> Cow<'static, str> {
        "EventSelector".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema(json!({
            "type": "string",
            "enum": event_selectors(),
            "description": "An event type (`presale.launched`), a group of them (`presale.*`) or `*` (every event)."
        }))
    }
}

/// Selectors separated by commas (the event log's `types` query).
pub struct EventSelectorList;

impl JsonSchema for EventSelectorList {
    fn schema_name() -> Cow<'static, str> {
        "EventSelectorList".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let one = event_selectors()
            .iter()
            .map(|s| s.replace('.', "\\.").replace('*', "\\*"))
            .collect::<Vec<_>>()
            .join("|");
        schema(json!({
            "type": "string",
            "pattern": format!("^({one})(,({one}))*$"),
            "description": "Event selectors (`EventSelector`) separated by commas."
        }))
    }
}

inlined!(Symbol, "Symbol", { "type": "string", "pattern": "^[A-Za-z0-9]{1,11}$" });

inlined!(HttpUrl, "HttpUrl", {
    "type": "string",
    "format": "uri",
    "pattern": "^https?://[^/\\s]\\S*$",
    "maxLength": 2048
});

inlined!(ImageUrl, "ImageUrl", {
    "type": "string",
    "format": "uri",
    "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9._~:/?#\\[\\]@!$&()*+,;=%-]+$",
    "maxLength": 2048,
    "description": "An http(s) URL with a host and no credentials, at most 2048 bytes, in RFC 3986's characters only (no spaces, quotes, angle brackets, control or non-ASCII characters: percent-encode them; a non-ASCII host in punycode). Otherwise 400 `invalid_image_url`."
});

impl<const MAX: usize, const LINES: bool> JsonSchema for Text<MAX, LINES> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Text{MAX}{}", if LINES { "Lines" } else { "" }).into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let what = if LINES {
            "Text shown as written, line breaks allowed"
        } else {
            "One line of text shown as written"
        };
        schema(json!({
            "type": "string",
            "minLength": 1,
            "maxLength": MAX,
            "description": format!("{what}: no control, format (bidi, zero-width), invisible or noncharacter code point (but an emoji presentation selector after a visible character), not blank; otherwise 400 `invalid_text`.")
        }))
    }
}

impl<const MIN: u64, const MAX: u64> JsonSchema for Int<MIN, MAX> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Int{MIN}to{MAX}").into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema(json!({ "type": "integer", "minimum": MIN, "maximum": MAX }))
    }
}

impl JsonSchema for ErrorCode {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "ErrorCode".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        schema(json!({ "type": "string", "enum": codes }))
    }
}

/// A transaction hash (kept as a `String` in the wire types: `#[schemars(with = "TxHash")]`).
pub struct TxHash;

component!(TxHash, "TxHash", {
    "type": "string",
    "pattern": "^0x[0-9a-fA-F]{64}$",
    "description": "Transaction hash (keccak-256, 0x + 64 hex digits)."
});

component!(Timestamp, "Timestamp", {
    "type": "string",
    "format": "date-time",
    "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$",
    "description": "ISO 8601 UTC timestamp, e.g. `2026-11-21T12:00:00.000Z`."
});

/// `GET /openapi.json`: this document (served as text, so it has no wire type).
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct OpenApiDocument {
    #[schemars(extend("pattern" = "^3\\.1\\."))]
    openapi: String,
    info: Map<String, Value>,
    paths: Map<String, Value>,
}

/// `POST /memecoin/status`, `POST /airdrop/status`: the deployment id is read from the body
/// without a request type (`wire::op`), as a string or a number.
#[derive(JsonSchema)]
#[allow(dead_code)]
pub struct DeploymentStatusRequest {
    /// The deployment id returned at creation.
    #[schemars(extend("type" = ["string", "integer"], "minLength" = 1))]
    id: String,
}

/// A schema transform (`#[schemars(transform = not_required("a b"))]`, the fields' wire
/// names separated by spaces): these fields are always written, but the documented contract
/// does not promise them. They are tokenpad's additions to the objects of the interface it
/// implements, which clients of the interface must not depend on.
pub fn not_required(fields: &'static str) -> impl FnMut(&mut Schema) {
    move |schema: &mut Schema| {
        if let Some(Value::Array(req)) = schema.get_mut("required") {
            req.retain(|r| {
                !r.as_str()
                    .is_some_and(|r| fields.split(' ').any(|f| f == r))
            });
        }
    }
}

/// A schema transform (`#[schemars(transform = required("a b"))]`): these fields are
/// optional (`Option`, skipped when `None`) in the type, but every HTTP answer of this shape
/// has them, never null.
pub fn required(fields: &'static str) -> impl FnMut(&mut Schema) {
    move |schema: &mut Schema| {
        let obj = schema.ensure_object();
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for f in fields.split(' ') {
                if let Some(Value::Object(p)) = props.get_mut(f) {
                    drop_null(p);
                }
            }
        }
        let req = obj
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(req) = req {
            for f in fields.split(' ') {
                if !req.iter().any(|r| r == f) {
                    req.push(Value::from(f));
                }
            }
        }
    }
}

/// Removes `null` from a schema that allows it (as schemars writes `Option<T>`).
pub fn drop_null(p: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = p.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            p.insert("type".into(), t);
        }
    }
    if let Some(Value::Array(e)) = p.get_mut("enum") {
        e.retain(|x| !x.is_null());
    }
    if let Some(Value::Array(any)) = p.get_mut("anyOf") {
        any.retain(|s| s.get("type") != Some(&Value::from("null")));
        if any.len() == 1 {
            if let Some(Value::Object(only)) = any.pop() {
                p.remove("anyOf");
                for (k, v) in only {
                    p.entry(k).or_insert(v);
                }
            }
        }
    }
}
