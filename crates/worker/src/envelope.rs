//! What the edge hands a merchant's Durable Object: the matched operation and the request
//! parts it needs, as one JSON document. The body stays raw text; the object parses it, once.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use tokenpad_core::input::{self, Object};
use tokenpad_core::{Error, ErrorCode, Result};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Envelope {
    pub op: String,
    pub params: Vec<String>,
    pub query: BTreeMap<String, String>,
    /// The request body as sent (UTF-8), if any.
    pub body: Option<String>,
    /// The API key the request carried (checked against the stored hash by the object).
    pub key: Option<String>,
    pub method: String,
    pub path: String,
    pub idempotency_key: Option<String>,
    /// Arguments of internal operations (merchant init, time advance, faucet).
    pub internal: Option<Value>,
    /// The service's public base URL (PUBLIC_BASE_URL, else the request's scheme://host),
    /// for links in responses such as a deployment's serviceBuildUrl.
    #[serde(default)]
    pub base_url: Option<String>,
}

impl Envelope {
    pub fn param(&self, i: usize) -> Result<&str> {
        self.params
            .get(i)
            .map(String::as_str)
            .ok_or_else(|| Error::internal("missing path parameter"))
    }

    pub fn query(&self, name: &str) -> Option<&str> {
        self.query.get(name).map(String::as_str)
    }

    /// The parsed JSON body (Null when there is none).
    pub fn json(&self) -> Result<Value> {
        parse_json(self.body.as_deref())
    }

    /// The body as a JSON object (empty when there is none).
    pub fn object(&self) -> Result<Object> {
        input::object(&self.json()?)
    }
}

pub fn parse_json(body: Option<&str>) -> Result<Value> {
    match body {
        None => Ok(Value::Null),
        Some(t) if t.trim().is_empty() => Ok(Value::Null),
        Some(t) => serde_json::from_str(t).map_err(|e| {
            Error::new(
                ErrorCode::InvalidJson,
                format!("The request body is not valid JSON: {e}"),
            )
        }),
    }
}
