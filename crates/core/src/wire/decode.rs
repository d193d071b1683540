//! Decoding requests: JSON text once into a value (refusing duplicate keys), then into the
//! operation's typed request, with every failure a clear 400 naming the field.
//!
//! Field types check themselves (`crate::model::input`, amounts, addresses, ids) and report
//! a [`FieldError`]; serde's own failures (a missing field, a wrong JSON type) are read from
//! its message. `serde_path_to_error` supplies the path of the failing field, so a nested
//! field is named in full: `tokenInfo.name is required`, `details.field: "tokenInfo.name"`.
//! Unknown fields are ignored (Metal clients send extras).

use crate::error::{Error, ErrorCode, FieldError, Result};
use crate::model::input::Checked;
use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};
use std::fmt;

/// A request body's text as JSON. Absent or blank is `Null` (no body). Malformed JSON, and an
/// object with a key given twice (which a gateway reading the first would see differently
/// from us), are a 400 `invalid_json`.
pub fn parse_json(text: Option<&str>) -> Result<Value> {
    match text {
        None => Ok(Value::Null),
        Some(t) if t.trim().is_empty() => Ok(Value::Null),
        Some(t) => serde_json::from_str::<Strict>(t).map(|s| s.0).map_err(|e| {
            Error::new(
                ErrorCode::InvalidJson,
                format!("The request body is not valid JSON: {e}"),
            )
        }),
    }
}

/// Decodes a request body into `T` and checks its cross-field rules. An absent body reads as
/// `{}`; a body that is not an object is refused.
pub fn body<T: DeserializeOwned + Checked>(body: &Value) -> Result<T> {
    let empty = Value::Object(Map::new());
    let v = match body {
        Value::Null => &empty,
        Value::Object(_) => body,
        _ => {
            return Err(Error::new(
                ErrorCode::InvalidRequest,
                "The request body must be a JSON object",
            ))
        }
    };
    let t: T = value(v)?;
    t.check()?;
    Ok(t)
}

/// Decodes any JSON value into `T`, mapping failures to field errors.
pub fn value<T: DeserializeOwned>(v: &Value) -> Result<T> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path: Vec<String> = e
            .path()
            .iter()
            .map(|s| match s {
                serde_path_to_error::Segment::Seq { index } => format!("[{index}]"),
                other => other.to_string(),
            })
            .collect();
        field_error(&path, &e.inner().to_string())
    })
}

/// The error for a failure at `path` (segments, `[i]` for an index) with serde's message.
/// An index names an item of a list: the message says `airdrop.addresses[3] ...`, while
/// `details.field` names the list and `details.index` the item.
fn field_error(path: &[String], message: &str) -> Error {
    let (index, path) = match path.split_last() {
        Some((last, rest)) if last.starts_with('[') => {
            (last.trim_matches(['[', ']']).parse::<u64>().ok(), rest)
        }
        _ => (None, path),
    };
    let join = |extra: Option<&str>| -> String {
        let mut out = String::new();
        for seg in path.iter().map(String::as_str).chain(extra) {
            if !out.is_empty() && !seg.starts_with('[') {
                out.push('.');
            }
            out.push_str(seg);
        }
        out
    };
    let (code, why, details, field) = if let Some(fe) = FieldError::from_message(message) {
        (fe.code, fe.why, fe.details, join(None))
    } else if let Some(name) = between(message, "missing field `", "`") {
        (
            ErrorCode::InvalidRequest,
            "is required".to_string(),
            None,
            join(Some(name)),
        )
    } else if let Some((_, expected)) = message
        .strip_prefix("invalid type: ")
        .and_then(|m| m.split_once(", expected "))
    {
        let what = match expected {
            "a boolean" => "true or false",
            "a sequence" => "an array",
            e if e.starts_with("struct ") || e == "a map" => "an object",
            other => other,
        };
        (
            ErrorCode::InvalidRequest,
            format!("must be {what}"),
            None,
            join(None),
        )
    } else {
        (
            ErrorCode::InvalidRequest,
            format!("is not valid: {message}"),
            None,
            join(None),
        )
    };
    let named = match index {
        Some(i) => format!("{field}[{i}]"),
        None => field.clone(),
    };
    let mut e = Error {
        code,
        message: format!("{named} {why}"),
        details,
    }
    .with("field", field);
    if let Some(i) = index {
        e = e.with("index", i);
    }
    e
}

fn between<'a>(s: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let rest = s.split_once(start)?.1;
    Some(rest.split_once(end)?.0)
}

/// Any JSON value, refusing objects with a repeated key at any depth.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("not a finite number"))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        // With arbitrary_precision, serde_json hands a number over as a one-entry map under
        // its private key; `Value`'s own impl knows that form, so let it read the first key.
        let mut out = Map::new();
        let Some(first) = map.next_key::<String>()? else {
            return Ok(Value::Object(out));
        };
        if first == NUMBER_TOKEN {
            let text: String = map.next_value()?;
            return text
                .parse::<serde_json::Number>()
                .map(Value::Number)
                .map_err(|_| de::Error::custom("invalid number"));
        }
        let Strict(v) = map.next_value()?;
        out.insert(first, v);
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if out.insert(key.clone(), v).is_some() {
                return Err(de::Error::custom(format!(
                    "the key \"{key}\" appears twice"
                )));
            }
        }
        Ok(Value::Object(out))
    }
}

/// serde_json's private key for an arbitrary-precision number.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::ops::deployment::AirdropRequest;
    use crate::ops::presale::CreatePresaleRequest;
    use crate::ops::token::CreateTokenRequest;
    use serde_json::json;

    fn err<T: DeserializeOwned + Checked + std::fmt::Debug>(v: Value) -> Error {
        body::<T>(&v).unwrap_err()
    }

    fn field(e: &Error) -> &str {
        e.details.as_ref().unwrap()["field"].as_str().unwrap()
    }

    #[test]
    fn strict_json_refuses_repeated_keys_and_keeps_numbers_exact() {
        let e = parse_json(Some(r#"{"amount":1,"amount":100000}"#)).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert!(parse_json(Some(r#"{"a":{"b":1,"b":2}}"#)).is_err());
        assert!(parse_json(Some(r#"[{"b":1,"b":2}]"#)).is_err());
        let v = parse_json(Some(r#"{"a":0.1,"b":[1e400]}"#)).unwrap();
        assert_eq!(v["a"].to_string(), "0.1");
        assert!(v["b"][0].is_number());
        assert_eq!(parse_json(Some("  ")).unwrap(), Value::Null);
        assert_eq!(
            parse_json(Some("{")).unwrap_err().code,
            ErrorCode::InvalidJson
        );
    }

    #[test]
    fn fields_are_named_by_their_path() {
        let e = err::<CreateTokenRequest>(json!({"symbol": "X"}));
        assert_eq!(
            (e.code, field(&e), e.message.as_str()),
            (ErrorCode::InvalidRequest, "name", "name is required")
        );
        let e = err::<CreateTokenRequest>(json!({"name": 5, "symbol": "X"}));
        assert_eq!(
            (field(&e), e.message.as_str()),
            ("name", "name must be a string")
        );
        let e =
            err::<CreateTokenRequest>(json!({"name": "X", "symbol": "X", "canDistribute": "yes"}));
        assert_eq!(e.message, "canDistribute must be true or false");
        let e =
            err::<CreateTokenRequest>(json!({"name": "X", "symbol": "X", "network": "mainnet"}));
        assert_eq!(e.code, ErrorCode::InvalidNetwork);
        assert_eq!(e.details.as_ref().unwrap()["allowed"][0], "base");
        let e = err::<CreateTokenRequest>(
            json!({"name": "X", "symbol": "X", "merchantAddress": "0x12"}),
        );
        assert_eq!(
            (e.code, field(&e)),
            (ErrorCode::InvalidAddress, "merchantAddress")
        );
        let e = err::<CreateTokenRequest>(json!({"name": "X", "symbol": "X", "totalSupply": 0}));
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                ErrorCode::InvalidAmount,
                "totalSupply must be greater than zero"
            )
        );
        let e = err::<CreateTokenRequest>(json!([1]));
        assert_eq!(e.code, ErrorCode::InvalidRequest);
        let e = err::<CreateTokenRequest>(json!({"name": "X", "symbol": "X", "network": " "}));
        assert_eq!((e.code, field(&e)), (ErrorCode::InvalidRequest, "network"));
        let e = err::<crate::ops::presale::BuyPresaleRequest>(
            json!({"presaleId": " ", "usdcAmount": 1}),
        );
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::InvalidRequest, "presaleId must not be empty")
        );
        // Unknown fields are ignored, null is absent.
        body::<CreateTokenRequest>(
            &json!({"name": "X", "symbol": "X", "extra": 1, "network": null}),
        )
        .unwrap();
    }

    #[test]
    fn nested_fields_and_list_items() {
        let base = json!({"name": "P", "description": "d", "startTimestamp": 1, "endTimestamp": 2,
            "targetUsdcAmount": 10, "tokenInfo": {"symbol": "M", "imageUrl": "https://x.y/i.png"}});
        let e = err::<CreatePresaleRequest>(base.clone());
        assert_eq!(
            (field(&e), e.message.as_str()),
            ("tokenInfo.name", "tokenInfo.name is required")
        );
        let mut v = base;
        v["tokenInfo"]["name"] = json!("M");
        v["tokenInfo"]["deploymentConfig"] = json!({"lockupPercentage": 50});
        let e = err::<CreatePresaleRequest>(v);
        assert_eq!(field(&e), "tokenInfo.deploymentConfig.lockupPercentage");
        let e = err::<AirdropRequest>(json!({"name": "D", "symbol": "D", "totalSupply": 10,
            "initialPrice": 1, "network": "base", "marketplace": false,
            "airdrop": {"addresses": ["0x1111111111111111111111111111111111111111", "nope"], "supply": 1}}));
        assert_eq!(
            (e.code, field(&e)),
            (ErrorCode::InvalidAddress, "airdrop.addresses")
        );
        assert_eq!(e.details.as_ref().unwrap()["index"], 1);
        assert!(
            e.message.starts_with("airdrop.addresses[1] "),
            "{}",
            e.message
        );
        let e = err::<AirdropRequest>(json!({"name": "D", "symbol": "D", "totalSupply": 10,
            "initialPrice": 1, "network": "base", "marketplace": false,
            "airdrop": {"addresses": "nope", "supply": 1}}));
        assert_eq!(
            (e.code, field(&e)),
            (ErrorCode::InvalidRequest, "airdrop.addresses")
        );
    }
}
