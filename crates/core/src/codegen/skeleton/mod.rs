//! The operations openapi.json lacks, written into its `paths` from the declarations
//! (`wire/<family>.rs`, `ROUTES`). For each declared route the document does not have, a
//! skeleton: its `operationId`, its family's tag, the `security` its `Access` allows, its path
//! parameters (the document's own in `components.parameters` where one has the name), the
//! `PublicKey` parameter on a public route, the `IdempotencyKey` parameter on a merchant route
//! that writes, an empty `summary` and no `responses`. For each path browsers call
//! (`paths::preflighted`), the whole CORS preflight (`options`), which the declaration
//! determines. A new path item goes last in `paths`; a new method goes before the item's
//! `options`.
//!
//! Nothing that is there is rewritten: the text is edited in place ([`jsontext`]), so every
//! byte of the hand-written prose stays. A skeleton then fails [`unwritten`] (the test
//! `every_operation_is_written`) until its author writes its summary and responses, and the
//! rest the declaration cannot say: description, request body, query parameters.
//!
//! [`jsontext`]: super::jsontext

use super::jsontext::{array, insert, object, pretty, Object};
use super::paths::{document_path, documented, preflighted, takes_key, UNDOCUMENTED};
use crate::wire::routes::{rows, Access, Row, EDGE};
use crate::wire::{
    account, admin, deployment, holder, hooks, keys, ledger, market, merchant, presale, session,
    token,
};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// The tag a family's new operations are filed under. An author may file one elsewhere (the
/// merchant family's parked work is under `tokens`, its settings under `sessions`; the event
/// log under `events`): an operation that exists is never rewritten.
const TAGS: &[(&[Row], &str)] = &[
    (EDGE, "meta"),
    (admin::ROUTES, "admin"),
    (token::ROUTES, "tokens"),
    (holder::ROUTES, "holders"),
    (ledger::ROUTES, "ledger"),
    (presale::ROUTES, "presales"),
    (market::ROUTES, "markets"),
    (deployment::ROUTES, "deployments"),
    (session::ROUTES, "sessions"),
    (merchant::ROUTES, "tokens"),
    (keys::ROUTES, "keys"),
    (hooks::ROUTES, "webhooks"),
    (account::ROUTES, "account"),
];

/// Every declared row with its family's tag.
fn tagged() -> Result<Vec<(&'static Row, &'static str)>, String> {
    rows()
        .map(|row| {
            TAGS.iter()
                .find(|(family, _)| family.contains(row))
                .map(|(_, tag)| (row, *tag))
                .ok_or_else(|| {
                    format!(
                        "{} {}: its family has no tag in codegen::skeleton::TAGS",
                        row.0, row.1
                    )
                })
        })
        .collect()
}

/// openapi.json's text with a skeleton for every declared operation it lacks.
pub fn render(text: &str) -> Result<String, String> {
    add_missing(text, &tagged()?)
}

/// `text` with a skeleton for each of `rows` (with their tags) that it lacks.
pub fn add_missing(text: &str, rows: &[(&Row, &str)]) -> Result<String, String> {
    let mut text = text.to_string();
    // One operation per round, each found in the text as the last one left it.
    for _ in 0..=2 * rows.len() {
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("openapi.json: {e}"))?;
        let Some((path, method, op)) = next_missing(&doc, rows)? else {
            return Ok(text);
        };
        text = insert_operation(&text, &path, &method, &op)?;
    }
    Err("openapi.json: a skeleton written did not appear in the document".to_string())
}

/// The first missing operation: its path, its method (lower case) and its text.
fn next_missing(
    doc: &Value,
    rows: &[(&Row, &str)],
) -> Result<Option<(String, String, String)>, String> {
    let have: BTreeSet<(String, String)> = documented(doc);
    for (row, tag) in rows {
        if UNDOCUMENTED.contains(&(row.0, row.1)) {
            continue;
        }
        let path = document_path(row.1);
        if !have.contains(&(row.0.to_string(), path.clone())) {
            let op = operation(row, tag, path_params(doc, &path)?)?;
            return Ok(Some((path, row.0.to_lowercase(), op)));
        }
        if preflighted(row) && !have.contains(&("OPTIONS".to_string(), path.clone())) {
            let op = preflight(row, &path, path_params(doc, &path)?)?;
            return Ok(Some((path, "options".to_string(), op)));
        }
    }
    Ok(None)
}

/// `text` with `op` as `paths.<path>.<method>`: last in a new path item, or in the path's
/// item before its `options`.
fn insert_operation(text: &str, path: &str, method: &str, op: &str) -> Result<String, String> {
    let root = Object::root(text)?;
    let paths = root.child(text, "paths")?.ok_or("openapi.json: no paths")?;
    match paths.child(text, path)? {
        Some(item) => {
            let before = (method != "options").then_some("options");
            insert(text, &item, 6, method, op, before)
        }
        None => {
            let item = object(&[(method, op.to_string())])?;
            insert(text, &paths, 4, path, &item, None)
        }
    }
}

fn reference(to: &str) -> Result<String, String> {
    pretty(&json!({ "$ref": format!("#/components/{to}") }))
}

/// The schemes an `Access` is documented with, as the document lists them.
fn security(row: &Row) -> Value {
    let schemes: &[&str] = match row.3 {
        Access::Open => &[],
        Access::Admin => &["adminKey"],
        Access::Secret => &["secretKey"],
        Access::Public => &["publicKeyQuery", "publicKeyHeader", "secretKey"],
        Access::Holder => &["secretKey", "sessionToken"],
        Access::Account if crate::wire::account::needs_login(row.2) => &["loginCookie"],
        Access::Account => &[],
    };
    let list = schemes.iter().map(|scheme| {
        let mut one = Map::new();
        one.insert((*scheme).to_string(), json!([]));
        Value::Object(one)
    });
    Value::Array(list.collect())
}

/// The parameters of the path's `{name}` segments: the document's own where
/// `components.parameters` has a path parameter of that name, else a required string; none
/// when the path item declares its parameters itself.
fn path_params(doc: &Value, path: &str) -> Result<Vec<String>, String> {
    let item = format!("/paths/{}/parameters", path.replace('/', "~1"));
    if doc.pointer(&item).is_some() {
        return Ok(Vec::new());
    }
    let known = doc
        .pointer("/components/parameters")
        .and_then(Value::as_object);
    let names = path
        .split('/')
        .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')));
    names
        .map(|name| {
            let found = known.into_iter().flatten().find(|(_, p)| {
                p.get("name").and_then(Value::as_str) == Some(name)
                    && p.get("in").and_then(Value::as_str) == Some("path")
            });
            match found {
                Some((key, _)) => reference(&format!("parameters/{key}")),
                None => object(&[
                    ("name", pretty(&json!(name))?),
                    ("in", pretty(&json!("path"))?),
                    ("required", "true".to_string()),
                    (
                        "schema",
                        object(&[
                            ("type", pretty(&json!("string"))?),
                            ("minLength", "1".to_string()),
                        ])?,
                    ),
                ]),
            }
        })
        .collect()
}

/// A declared operation's skeleton.
fn operation(row: &Row, tag: &str, mut params: Vec<String>) -> Result<String, String> {
    if row.3 == Access::Public {
        params.push(reference("parameters/PublicKey")?);
    }
    if takes_key(row) {
        params.push(reference("parameters/IdempotencyKey")?);
    }
    let mut members = vec![
        ("operationId", pretty(&json!(row.2.operation_id()))?),
        ("tags", pretty(&json!([tag]))?),
        ("summary", pretty(&json!(""))?),
        ("security", pretty(&security(row))?),
    ];
    if !params.is_empty() {
        members.push(("parameters", array(&params)));
    }
    members.push(("responses", "{}".to_string()));
    object(&members)
}

/// The CORS preflight of a path browsers call (named after the first such route on it).
fn preflight(row: &Row, path: &str, params: Vec<String>) -> Result<String, String> {
    let mut chars = row.2.operation_id().chars();
    let id: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let headers = object(&[
        (
            "Access-Control-Allow-Origin",
            reference("headers/AccessControlAllowOrigin")?,
        ),
        (
            "Access-Control-Allow-Methods",
            reference("headers/AccessControlAllowMethods")?,
        ),
        (
            "Access-Control-Allow-Headers",
            reference("headers/AccessControlAllowHeaders")?,
        ),
        ("X-Request-Id", reference("headers/RequestId")?),
    ])?;
    let accepted = object(&[
        ("description", pretty(&json!("Preflight accepted."))?),
        ("headers", headers),
    ])?;
    let responses = object(&[
        ("204", accepted),
        ("503", reference("responses/ServiceUnavailable")?),
        ("400", reference("responses/BadRequest")?),
    ])?;
    let mut members = vec![
        ("operationId", pretty(&json!(format!("preflight{id}")))?),
        ("tags", pretty(&json!(["cors"]))?),
        (
            "summary",
            pretty(&json!(format!("CORS preflight for {path}")))?,
        ),
        (
            "description",
            pretty(&json!(
                "No auth. Answers 204 with CORS headers and no body."
            ))?,
        ),
        ("security", "[]".to_string()),
        ("responses", responses),
    ];
    if !params.is_empty() {
        members.push(("parameters", array(&params)));
    }
    object(&members)
}

/// The operations whose summary or responses are not written yet (a skeleton's).
pub fn unwritten(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, item) in paths {
        for (method, op) in item.as_object().into_iter().flatten() {
            if matches!(method.as_str(), "parameters" | "summary" | "description") {
                continue;
            }
            let summary = op
                .get("summary")
                .and_then(Value::as_str)
                .is_some_and(|s| !s.trim().is_empty());
            let responses = op
                .get("responses")
                .and_then(Value::as_object)
                .is_some_and(|r| !r.is_empty());
            let lacks = match (summary, responses) {
                (true, true) => continue,
                (false, true) => "a summary",
                (true, false) => "a documented response",
                (false, false) => "a summary and a documented response",
            };
            let id = op.get("operationId").and_then(Value::as_str).unwrap_or("?");
            out.push(format!(
                "{} {path} ({id}) lacks {lacks}",
                method.to_uppercase()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests;
