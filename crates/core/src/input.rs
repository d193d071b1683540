//! Reading request bodies. Bodies arrive as `serde_json::Value` and every field is read here,
//! so a missing field, a wrong type or a bad amount becomes a clear 400 naming the field,
//! never a serde message or a panic.

use crate::address::Address;
use crate::error::{Error, ErrorCode, Result};
use crate::money;
use serde_json::{Map, Value};

pub type Object = Map<String, Value>;

/// The body as a JSON object. An absent body (Null) reads as an empty object.
pub fn object(body: &Value) -> Result<Object> {
    match body {
        Value::Object(m) => Ok(m.clone()),
        Value::Null => Ok(Map::new()),
        _ => Err(Error::new(
            ErrorCode::InvalidRequest,
            "The request body must be a JSON object",
        )),
    }
}

fn present<'a>(m: &'a Object, field: &str) -> Option<&'a Value> {
    m.get(field).filter(|v| !v.is_null())
}

pub fn req_str(m: &Object, field: &str) -> Result<String> {
    opt_str(m, field)?.ok_or_else(|| Error::field(field, format!("{field} is required")))
}

/// A non-empty string, or None when the field is absent or null.
pub fn opt_str(m: &Object, field: &str) -> Result<Option<String>> {
    match present(m, field) {
        None => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => {
            Err(Error::field(field, format!("{field} must not be empty")))
        }
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::field(field, format!("{field} must be a string"))),
    }
}

pub fn opt_bool(m: &Object, field: &str) -> Result<Option<bool>> {
    match present(m, field) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Error::field(
            field,
            format!("{field} must be true or false"),
        )),
    }
}

pub fn req_bool(m: &Object, field: &str) -> Result<bool> {
    opt_bool(m, field)?.ok_or_else(|| Error::field(field, format!("{field} is required")))
}

/// A whole number in `min..=max`, given as a JSON number.
pub fn opt_int(m: &Object, field: &str, min: u64, max: u64) -> Result<Option<u64>> {
    match present(m, field) {
        None => Ok(None),
        Some(Value::Number(n)) => match n.to_string().parse::<u64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(Some(v)),
            _ => Err(Error::field(
                field,
                format!("{field} must be a whole number from {min} to {max}"),
            )),
        },
        Some(_) => Err(Error::field(field, format!("{field} must be a number"))),
    }
}

pub fn req_int(m: &Object, field: &str, min: u64, max: u64) -> Result<u64> {
    opt_int(m, field, min, max)?.ok_or_else(|| Error::field(field, format!("{field} is required")))
}

/// An amount in whole units (number or decimal string), > 0, exact to `decimals`.
pub fn req_amount(m: &Object, field: &str, decimals: u8) -> Result<u128> {
    money::parse_amount_value(field, m.get(field).unwrap_or(&Value::Null), decimals)
}

pub fn parse_address(field: &str, text: &str) -> Result<Address> {
    Address::parse(text).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidAddress,
            format!("{field} must be a 0x-prefixed 20-byte hex address"),
        )
        .with("field", field)
    })
}

pub fn opt_address(m: &Object, field: &str) -> Result<Option<Address>> {
    match present(m, field) {
        None => Ok(None),
        Some(Value::String(s)) => parse_address(field, s).map(Some),
        Some(_) => Err(Error::new(
            ErrorCode::InvalidAddress,
            format!("{field} must be an address string"),
        )
        .with("field", field)),
    }
}

pub fn req_address(m: &Object, field: &str) -> Result<Address> {
    opt_address(m, field)?.ok_or_else(|| Error::field(field, format!("{field} is required")))
}

/// A nested JSON object, or None when absent or null.
pub fn opt_object(m: &Object, field: &str) -> Result<Option<Object>> {
    match present(m, field) {
        None => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o.clone())),
        Some(_) => Err(Error::field(field, format!("{field} must be an object"))),
    }
}

pub fn req_object(m: &Object, field: &str) -> Result<Object> {
    opt_object(m, field)?.ok_or_else(|| Error::field(field, format!("{field} is required")))
}

/// Names a nested field in an error: `name` inside `tokenInfo` becomes `tokenInfo.name`.
pub fn within<T>(prefix: &str, r: Result<T>) -> Result<T> {
    r.map_err(|mut e| {
        if let Some(d) = e.details.as_mut() {
            if let Some(Value::String(f)) = d.get("field").cloned() {
                d.insert("field".into(), Value::String(format!("{prefix}.{f}")));
                e.message = format!("{prefix}.{}", e.message);
            }
        }
        e
    })
}

/// An http(s) URL, loosely checked: scheme, a host, no whitespace.
pub fn opt_http_url(m: &Object, field: &str) -> Result<Option<String>> {
    let Some(url) = opt_str(m, field)? else {
        return Ok(None);
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(r)
            if !r.is_empty()
                && !r.starts_with('/')
                && !url.chars().any(char::is_whitespace)
                && url.len() <= 2048 =>
        {
            Ok(Some(url))
        }
        _ => Err(Error::field(
            field,
            format!("{field} must be an http(s) URL"),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Object {
        object(&v).unwrap()
    }

    #[test]
    fn reads_fields_with_clear_errors() {
        let m = obj(
            json!({"s": "x", "e": " ", "n": 5, "b": true, "a": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "u": "https://x.y/z.png"}),
        );
        assert_eq!(req_str(&m, "s").unwrap(), "x");
        assert_eq!(
            req_str(&m, "missing").unwrap_err().details.unwrap()["field"],
            "missing"
        );
        assert_eq!(
            req_str(&m, "e").unwrap_err().code,
            ErrorCode::InvalidRequest
        );
        assert_eq!(
            req_str(&m, "n").unwrap_err().code,
            ErrorCode::InvalidRequest
        );
        assert!(req_bool(&m, "b").unwrap());
        assert_eq!(req_int(&m, "n", 1, 10).unwrap(), 5);
        assert!(req_int(&m, "n", 6, 10).is_err());
        assert!(req_address(&m, "a").is_ok());
        assert_eq!(
            req_address(&m, "s").unwrap_err().code,
            ErrorCode::InvalidAddress
        );
        assert_eq!(opt_http_url(&m, "u").unwrap().unwrap(), "https://x.y/z.png");
        assert!(opt_http_url(&obj(json!({"u": "ftp://x"})), "u").is_err());
        assert!(opt_http_url(&obj(json!({"u": "javascript:alert(1)"})), "u").is_err());
        assert!(object(&json!([1])).is_err());
        assert!(object(&Value::Null).unwrap().is_empty());
    }
}
