#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::wire::routes::{Effect, Route};

/// A document with one path item: `POST /holder/{userId}/spend` and its preflight.
const DOC: &str = r#"{
  "openapi": "3.1.0",
  "paths": {
    "/holder/{userId}/spend": {
      "post": {
        "operationId": "spend",
        "summary": "Spends.",
        "responses": {
          "200": {
            "description": "Spent."
          }
        }
      },
      "options": {
        "operationId": "preflightSpend",
        "summary": "Preflight.",
        "responses": {
          "204": {
            "description": "Accepted."
          }
        }
      }
    }
  },
  "components": {
    "parameters": {
      "UserIdPath": {
        "name": "userId",
        "in": "path"
      }
    }
  }
}
"#;

#[rustfmt::skip]
const ROWS: [(&Row, &str); 4] = [
    // There: kept as it is (its preflight too).
    (&("POST", "/holder/:userId/spend", Route::new("spend"), Access::Holder, Effect::Writes), "ledger"),
    // A new method on that path: before its `options`.
    (&("GET", "/holder/:userId/spend", Route::new("getSpent"), Access::Holder, Effect::Reads), "ledger"),
    // A new path, a merchant write: the Idempotency-Key; a parameter the document has no component for.
    (&("PATCH", "/merchant/webhooks/:webhookId", Route::new("updateWebhook"), Access::Secret, Effect::Writes), "webhooks"),
    // A new path browsers call: the public key, and the preflight.
    (&("GET", "/show/:userId", Route::new("getShow"), Access::Public, Effect::Reads), "holders"),
];

#[test]
fn a_missing_operation_is_written_and_the_rest_kept() {
    let out = add_missing(DOC, &ROWS).unwrap();
    assert_eq!(out, WRITTEN);
}

#[test]
fn writing_twice_changes_nothing() {
    let out = add_missing(DOC, &ROWS).unwrap();
    assert_eq!(add_missing(&out, &ROWS).unwrap(), out);
    assert_eq!(add_missing(DOC, &ROWS[..1]).unwrap(), DOC);
}

#[test]
fn a_skeleton_is_unwritten_until_its_summary_and_responses_are() {
    assert!(unwritten(&serde_json::from_str(DOC).unwrap()).is_empty());
    let out: Value = serde_json::from_str(&add_missing(DOC, &ROWS).unwrap()).unwrap();
    assert_eq!(
        unwritten(&out),
        [
            "GET /holder/{userId}/spend (getSpent) lacks a summary and a documented response",
            "PATCH /merchant/webhooks/{webhookId} (updateWebhook) lacks a summary and a documented response",
            "GET /show/{userId} (getShow) lacks a summary and a documented response",
        ]
    );
}

#[test]
fn path_parameters_the_item_declares_are_not_repeated() {
    let doc = "{\n  \"paths\": {\n    \"/w/{id}\": {\n      \"parameters\": [],\n      \"get\": {}\n    }\n  }\n}\n";
    let row = (
        "DELETE",
        "/w/:id",
        Route::new("deleteW"),
        Access::Secret,
        Effect::Writes,
    );
    let out: Value =
        serde_json::from_str(&add_missing(doc, &[(&row, "webhooks")]).unwrap()).unwrap();
    assert_eq!(
        out["paths"]["/w/{id}"]["delete"]["parameters"],
        serde_json::json!([{"$ref": "#/components/parameters/IdempotencyKey"}])
    );
}

/// Each family has a tag, one the document uses already.
#[test]
fn every_family_is_tagged() {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(super::super::root().join(super::super::OPENAPI)).unwrap(),
    )
    .unwrap();
    let listed = doc["tags"].as_array().unwrap().iter().map(|t| &t["name"]);
    let on_operations = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .flat_map(|op| op["tags"].as_array().into_iter().flatten());
    let used: Vec<&str> = listed
        .chain(on_operations)
        .filter_map(Value::as_str)
        .collect();
    for (_, tag) in tagged().unwrap() {
        assert!(used.contains(&tag), "openapi.json has no tag {tag}");
    }
}

const WRITTEN: &str = r##"{
  "openapi": "3.1.0",
  "paths": {
    "/holder/{userId}/spend": {
      "post": {
        "operationId": "spend",
        "summary": "Spends.",
        "responses": {
          "200": {
            "description": "Spent."
          }
        }
      },
      "get": {
        "operationId": "getSpent",
        "tags": [
          "ledger"
        ],
        "summary": "",
        "security": [
          {
            "secretKey": []
          },
          {
            "sessionToken": []
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/UserIdPath"
          }
        ],
        "responses": {}
      },
      "options": {
        "operationId": "preflightSpend",
        "summary": "Preflight.",
        "responses": {
          "204": {
            "description": "Accepted."
          }
        }
      }
    },
    "/merchant/webhooks/{webhookId}": {
      "patch": {
        "operationId": "updateWebhook",
        "tags": [
          "webhooks"
        ],
        "summary": "",
        "security": [
          {
            "secretKey": []
          }
        ],
        "parameters": [
          {
            "name": "webhookId",
            "in": "path",
            "required": true,
            "schema": {
              "type": "string",
              "minLength": 1
            }
          },
          {
            "$ref": "#/components/parameters/IdempotencyKey"
          }
        ],
        "responses": {}
      }
    },
    "/show/{userId}": {
      "get": {
        "operationId": "getShow",
        "tags": [
          "holders"
        ],
        "summary": "",
        "security": [
          {
            "publicKeyQuery": []
          },
          {
            "publicKeyHeader": []
          },
          {
            "secretKey": []
          }
        ],
        "parameters": [
          {
            "$ref": "#/components/parameters/UserIdPath"
          },
          {
            "$ref": "#/components/parameters/PublicKey"
          }
        ],
        "responses": {}
      },
      "options": {
        "operationId": "preflightGetShow",
        "tags": [
          "cors"
        ],
        "summary": "CORS preflight for /show/{userId}",
        "description": "No auth. Answers 204 with CORS headers and no body.",
        "security": [],
        "responses": {
          "204": {
            "description": "Preflight accepted.",
            "headers": {
              "Access-Control-Allow-Origin": {
                "$ref": "#/components/headers/AccessControlAllowOrigin"
              },
              "Access-Control-Allow-Methods": {
                "$ref": "#/components/headers/AccessControlAllowMethods"
              },
              "Access-Control-Allow-Headers": {
                "$ref": "#/components/headers/AccessControlAllowHeaders"
              },
              "X-Request-Id": {
                "$ref": "#/components/headers/RequestId"
              }
            }
          },
          "503": {
            "$ref": "#/components/responses/ServiceUnavailable"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/UserIdPath"
          }
        ]
      }
    }
  },
  "components": {
    "parameters": {
      "UserIdPath": {
        "name": "userId",
        "in": "path"
      }
    }
  }
}
"##;
