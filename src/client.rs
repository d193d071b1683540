//! The service's answers, read: a success as its wire type (amounts from their exact text),
//! a failure as an error with a stable code. The HTTP itself is the package's JavaScript
//! (`src/js/http.ts`: `fetch`, timeouts, retries); it hands each answer's status and text here
//! through the wasm export `readAnswer`.

use crate::wire;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// An HTTP answer: status and body text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// A failure, as JavaScript sees it: `code` (stable, snake_case), `status` (HTTP status, 0
/// when no answer arrived), `message` (for people) and the service's `details`, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientError {
    pub code: String,
    pub status: u16,
    pub message: String,
    pub details: Option<Value>,
}

impl ClientError {
    pub fn new(code: &str, status: u16, message: impl Into<String>) -> ClientError {
        ClientError {
            code: code.into(),
            status,
            message: message.into(),
            details: None,
        }
    }
}

/// An error body as the service writes it (`ErrorBody`), read leniently: a code this version
/// of the package does not know yet (a newer service's) is passed on as it came.
#[derive(serde::Deserialize)]
struct ServiceError {
    code: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    details: Option<serde_json::Map<String, Value>>,
}

/// A 2xx body read as the wire type `M` (amounts from their exact text); anything else as
/// the service's error, or a generic one when the body is not that.
pub fn read_answer<M: DeserializeOwned>(res: HttpResponse) -> Result<M, ClientError> {
    if (200..300).contains(&res.status) {
        return wire::from_str(&res.body).map_err(|e| {
            ClientError::new(
                "invalid_response",
                res.status,
                format!("The service's answer is not the expected shape: {e}"),
            )
        });
    }
    match serde_json::from_str::<ServiceError>(&res.body) {
        Ok(body) if !body.code.is_empty() => Err(ClientError {
            code: body.code,
            status: res.status,
            message: if body.message.is_empty() {
                format!("HTTP {}", res.status)
            } else {
                body.message
            },
            details: body.details.map(Value::Object),
        }),
        _ => Err(ClientError::new(
            "http_error",
            res.status,
            format!("HTTP {}", res.status),
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::fixtures::*;
    use crate::wire::{HolderFull, Presale, Token, TokenBalance};

    fn read<M: DeserializeOwned>(status: u16, body: &str) -> Result<M, ClientError> {
        read_answer(HttpResponse {
            status,
            body: body.into(),
        })
    }

    #[test]
    fn reads_each_resource_exactly() {
        let t: Token = read(200, TOKEN).unwrap();
        assert_eq!(t.symbol, "DEMO");
        let h: HolderFull = read(200, HOLDER).unwrap();
        assert_eq!(h.tokens[0].balance.to_string(), "1234.567890123456789012");
        let p: Presale = read(200, PRESALE).unwrap();
        assert_eq!(p.purchased_usdc_amount.to_string(), "60.5");
        let b: TokenBalance = read(200, BALANCE).unwrap();
        assert_eq!(b.balance.to_string(), "9007199254740993.000000000000000001");
    }

    #[test]
    fn service_errors_keep_code_status_message_and_details() {
        let err = read::<HolderFull>(
            401,
            r#"{"success":false,"message":"Public key not found","code":"public_key_not_found"}"#,
        )
        .unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.status, err.message.as_str()),
            ("public_key_not_found", 401, "Public key not found")
        );
        let err = read::<HolderFull>(
            400,
            r#"{"success":false,"message":"userId is too long","code":"invalid_user_id","details":{"field":"userId"}}"#,
        )
        .unwrap_err();
        assert_eq!(err.details.unwrap()["field"], "userId");
        let err = read::<Token>(502, "<html>Bad gateway</html>").unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("http_error", 502));
        assert_eq!(err.message, "HTTP 502");
        let err = read::<Token>(200, r#"{"unexpected":true}"#).unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("invalid_response", 200));
    }

    #[test]
    fn an_error_body_is_the_wire_error_or_a_generic_one() {
        // A code this version does not know yet (a newer service's) is passed on as it came.
        let err = read::<HolderFull>(
            409,
            r#"{"success":false,"message":"Something new","code":"brand_new_code"}"#,
        )
        .unwrap_err();
        assert_eq!((err.code.as_str(), err.status), ("brand_new_code", 409));
        assert_eq!(err.message, "Something new");
        let err = read::<HolderFull>(
            404,
            r#"{"success":false,"message":"","code":"holder_not_found"}"#,
        )
        .unwrap_err();
        assert_eq!(
            (err.code.as_str(), err.message.as_str()),
            ("holder_not_found", "HTTP 404")
        );
    }
}
