//! JSON-RPC 2.0's envelope (a request object; a response's result or error) and its encoding
//! of numbers and bytes (quantities, data).

use alloy_primitives::hex;
use serde_json::{json, Value};

use crate::error::{Error, Result, RpcError};

/// A JSON-RPC 2.0 request object. `params` is normally an array.
pub fn request(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// The `result` of a response, or its `error` object. A `"result": null` is a result (for
/// example "no receipt yet"); a reply with neither member is reported as
/// [`RpcError::MALFORMED`].
pub fn parse_response(response: &Value) -> Result<Value, RpcError> {
    if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
        let code = error.get("code").and_then(Value::as_i64);
        let message = error.get("message").and_then(Value::as_str);
        let (Some(code), Some(message)) = (code, message) else {
            return Err(RpcError::malformed(&error.to_string()));
        };
        let data = match error.get("data") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => Some(other.to_string()),
        };
        return Err(RpcError {
            code,
            message: message.to_owned(),
            data,
        });
    }
    response
        .get("result")
        .cloned()
        .ok_or_else(|| RpcError::malformed("neither result nor error"))
}

/// A JSON-RPC quantity: lower-case hex with `0x` and no leading zeros (`0x0` for zero).
pub fn quantity(n: u128) -> String {
    format!("{n:#x}")
}

/// Parses a quantity (`0x1a`). Leading zeros are tolerated (some nodes send them); values
/// above `u128::MAX` are refused.
pub fn parse_quantity(s: &str) -> Result<u128> {
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| Error::Hex(format!("quantity without 0x: {s:?}")))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::Hex(format!("bad quantity {s:?}")));
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > 32 {
        return Err(Error::TooLarge { what: "quantity" });
    }
    if significant.is_empty() {
        return Ok(0);
    }
    u128::from_str_radix(significant, 16).map_err(|e| Error::Hex(format!("{s:?}: {e}")))
}

/// Parses a quantity that must fit `u64` (block numbers, nonces, gas).
pub fn parse_quantity_u64(s: &str) -> Result<u64> {
    u64::try_from(parse_quantity(s)?).map_err(|_| Error::TooLarge { what: "quantity" })
}

/// JSON-RPC data: `0x` followed by lower-case hex, two digits a byte (`0x` when empty).
pub fn hex_data(bytes: &[u8]) -> String {
    hex::encode_prefixed(bytes)
}

/// Parses JSON-RPC data (`0x…`, even length).
pub fn parse_hex_data(s: &str) -> Result<Vec<u8>> {
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| Error::Hex(format!("data without 0x: {s:?}")))?;
    // const-hex would also strip a second "0x"; refuse it, and anything else odd, up front.
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::Hex(format!("bad data {s:?}")));
    }
    hex::decode(digits).map_err(|e| Error::Hex(format!("{e}")))
}

/// Parses fixed-length JSON-RPC data: an address (`N` = 20) or a hash (`N` = 32).
pub fn parse_hex_fixed<const N: usize>(s: &str) -> Result<[u8; N]> {
    let bytes = parse_hex_data(s)?;
    let len = bytes.len();
    <[u8; N]>::try_from(bytes).map_err(|_| Error::Hex(format!("expected {N} bytes, got {len}")))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn request_is_a_json_rpc_2_object() {
        assert_eq!(
            request(7, "eth_chainId", json!([])),
            json!({"jsonrpc": "2.0", "id": 7, "method": "eth_chainId", "params": []})
        );
    }

    #[test]
    fn parse_response_separates_results_from_errors() {
        assert_eq!(
            parse_response(&json!({"jsonrpc": "2.0", "id": 1, "result": "0x1"})),
            Ok(json!("0x1"))
        );
        assert_eq!(
            parse_response(&json!({"id": 1, "result": null})),
            Ok(Value::Null)
        );
        let reverted = json!({"id": 1, "error": {"code": 3, "message": "execution reverted", "data": "0xdeadbeef"}});
        let e = parse_response(&reverted).unwrap_err();
        assert_eq!(e.code, RpcError::EXECUTION_REVERTED);
        assert_eq!(e.revert_data(), Some(vec![0xde, 0xad, 0xbe, 0xef]));
        assert_eq!(
            e.to_string(),
            "JSON-RPC error 3: execution reverted (0xdeadbeef)"
        );
        let structured = json!({"error": {"code": -32000, "message": "m", "data": {"x": 1}}});
        let e = parse_response(&structured).unwrap_err();
        assert_eq!(e.data.as_deref(), Some(r#"{"x":1}"#));
        assert_eq!(e.revert_data(), None);
        // "error": null beside a result is a result.
        assert_eq!(
            parse_response(&json!({"result": "0x2", "error": null})),
            Ok(json!("0x2"))
        );
    }

    #[test]
    fn parse_response_reports_malformed_replies() {
        for bad in [
            json!({}),
            json!({"error": {"message": "no code"}}),
            json!({"error": "text"}),
            json!([1]),
        ] {
            assert_eq!(
                parse_response(&bad).unwrap_err().code,
                RpcError::MALFORMED,
                "{bad}"
            );
        }
        let as_error: Error = parse_response(&json!({})).unwrap_err().into();
        assert!(matches!(as_error, Error::Rpc(_)));
    }

    #[test]
    fn quantities_round_trip() {
        assert_eq!(quantity(0), "0x0");
        assert_eq!(quantity(26), "0x1a");
        assert_eq!(quantity(u128::MAX), format!("0x{}", "f".repeat(32)));
        for n in [0, 1, 26, 255, 256, u128::from(u64::MAX), u128::MAX] {
            assert_eq!(parse_quantity(&quantity(n)).unwrap(), n);
        }
        assert_eq!(parse_quantity("0x00ff").unwrap(), 255);
        assert_eq!(parse_quantity("0xFF").unwrap(), 255);
        assert_eq!(
            parse_quantity(&format!("0x0000{}", "f".repeat(32))).unwrap(),
            u128::MAX
        );
    }

    #[test]
    fn bad_quantities_are_refused() {
        for bad in [
            "", "0x", "1a", "0X1a", "0x+1", "0x-1", "0x1g", " 0x1", "0x 1",
        ] {
            assert!(matches!(parse_quantity(bad), Err(Error::Hex(_))), "{bad:?}");
        }
        let too_big = format!("0x1{}", "0".repeat(32));
        assert_eq!(
            parse_quantity(&too_big),
            Err(Error::TooLarge { what: "quantity" })
        );
        assert_eq!(parse_quantity_u64("0xffffffffffffffff").unwrap(), u64::MAX);
        assert!(matches!(
            parse_quantity_u64("0x10000000000000000"),
            Err(Error::TooLarge { .. })
        ));
    }

    #[test]
    fn hex_data_round_trips_and_refuses_junk() {
        assert_eq!(hex_data(&[]), "0x");
        assert_eq!(hex_data(&[0, 0xab]), "0x00ab");
        assert_eq!(parse_hex_data("0x").unwrap(), Vec::<u8>::new());
        assert_eq!(parse_hex_data("0x00AB").unwrap(), vec![0, 0xab]);
        for bad in ["", "00ab", "0x0", "0x0x00", "0xzz", "0x00 "] {
            assert!(matches!(parse_hex_data(bad), Err(Error::Hex(_))), "{bad:?}");
        }
        assert_eq!(parse_hex_fixed::<2>("0x00ab").unwrap(), [0, 0xab]);
        assert!(matches!(
            parse_hex_fixed::<20>("0x00ab"),
            Err(Error::Hex(_))
        ));
    }
}
