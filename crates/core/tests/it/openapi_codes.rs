//! openapi.json and the core's error table must agree: every code the service can answer is
//! documented, under the status it is answered with, and nothing else is.

use serde_json::Value;
use std::collections::BTreeSet;
use tokenpad_core::ErrorCode;

const OPENAPI: &str = include_str!("../../../../openapi.json");

fn response_for(status: u16) -> &'static str {
    match status {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        409 => "Conflict",
        413 => "PayloadTooLarge",
        415 => "UnsupportedMediaType",
        422 => "UnprocessableEntity",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        other => panic!("no shared response for status {other}"),
    }
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .expect("an enum array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

#[test]
fn every_error_code_is_documented_under_its_status() {
    let doc: Value = serde_json::from_str(OPENAPI).expect("openapi.json is JSON");
    let documented = strings(&doc["components"]["schemas"]["Error"]["properties"]["code"]["enum"]);
    let ours: BTreeSet<String> = ErrorCode::ALL
        .iter()
        .map(|c| c.as_str().to_string())
        .collect();
    assert_eq!(
        documented, ours,
        "Error.code enum differs from ErrorCode::ALL"
    );
    for code in ErrorCode::ALL {
        let name = response_for(code.status());
        let enum_ = &doc["components"]["responses"][name]["content"]["application/json"]["schema"]
            ["properties"]["code"]["enum"];
        assert!(
            strings(enum_).contains(code.as_str()),
            "{} is not listed in components.responses.{name}",
            code.as_str()
        );
    }
}
