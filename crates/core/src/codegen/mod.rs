//! Code generation from the wire types (feature `codegen`, never in production builds):
//! - `openapi.json`'s `components.schemas` ([`openapi`]): every request and response schema,
//!   from `schemars::JsonSchema`, derived on the types next to their serde derives;
//! - `src/js/generated/wire.d.ts` ([`ts`]): the TypeScript declarations of the responses the
//!   browser package returns, from `ts_rs::TS`;
//! - `src/js/generated/api.d.ts` and `decimals.ts` ([`api`]): the server client's requests and
//!   answers, and the names of the amount fields its exact JSON reader keeps as strings;
//! - `src/js/generated/routes.json` ([`paths`]): every route as the wire families declare it
//!   (`wire/<family>.rs`, `ROUTES`), and a check that `openapi.json`'s `paths` agree with them;
//! - `openapi.json`'s `paths` ([`skeleton`]): a skeleton operation for each declared route the
//!   document lacks (and the whole CORS preflight of a path browsers call), whose author then
//!   writes its prose and responses (a test fails until they do);
//! - `src/js/generated/routes.ts` ([`paths`]): the routes the package calls, by operationId,
//!   from which the server client (`src/js/server.ts`) builds its requests.
//! - `src/js/generated/methods.ts` ([`methods`]): the server client's methods, one per
//!   operation it calls, named by its operationId and typed from the document.
//!
//! `cargo run -p tokenpad-core --features codegen --example codegen` rewrites them; the
//! tests below fail while a committed file differs from what the types generate.
//!
//! Field types with hand-written serde have hand-written impls ([`schema`], [`ts`]). On the
//! types themselves, attributes say what serde cannot: `schemars(with = "TxHash")` for a hash
//! kept as a `String`, `extend("const" = true)` for a `success` that is always true, and
//! [`schema::not_required`] / [`schema::required`] where the documented contract differs
//! from what serde always writes.

pub mod api;
pub mod examples;
pub mod examples_account;
pub mod examples_admin;
pub mod examples_world;
pub mod jsontext;
pub mod methods;
pub mod openapi;
pub mod paths;
pub mod skeleton;
pub mod ts;

use std::path::PathBuf;

/// The repository's root (two levels above this crate).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub const OPENAPI: &str = "openapi.json";
pub const WIRE_DTS: &str = "src/js/generated/wire.d.ts";
pub const API_DTS: &str = "src/js/generated/api.d.ts";
pub const DECIMALS_TS: &str = "src/js/generated/decimals.ts";
pub const ROUTES_JSON: &str = "src/js/generated/routes.json";
pub const ROUTES_TS: &str = "src/js/generated/routes.ts";
pub const METHODS_TS: &str = "src/js/generated/methods.ts";

/// What the generated files should contain: `(path from the root, text)`, given the current
/// text of openapi.json (whose hand-written parts are kept).
pub fn files(openapi_text: &str) -> Result<Vec<(&'static str, String)>, String> {
    let schemas = openapi::schemas()?;
    let openapi = skeleton::render(openapi_text)?;
    let openapi = openapi::render(&openapi, &schemas)?;
    let openapi = openapi::render_section(&openapi, "examples", &examples::components()?)?;
    let openapi = openapi::set_version(&openapi, env!("CARGO_PKG_VERSION"))?;
    let wire = ts::wire_dts();
    let document: serde_json::Value =
        serde_json::from_str(&openapi).map_err(|e| format!("{OPENAPI}: {e}"))?;
    let (methods, used) = methods::methods_ts(&document, &schemas, &wire)?;
    Ok(vec![
        (API_DTS, api::api_dts(&schemas, &wire, &used)),
        (METHODS_TS, methods),
        (OPENAPI, openapi),
        (WIRE_DTS, wire),
        (DECIMALS_TS, api::decimals_ts(&schemas)?),
        (ROUTES_JSON, paths::routes_json()?),
        (ROUTES_TS, paths::routes_ts()?),
    ])
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use crate::schema::{not_required, required};
    use schemars::Schema;

    /// Fails while a committed generated file is stale. `UPDATE_CODEGEN=1` rewrites them.
    #[test]
    fn generated_files_are_current() {
        let root = root();
        let current = std::fs::read_to_string(root.join(OPENAPI)).unwrap();
        let update = std::env::var("UPDATE_CODEGEN").is_ok_and(|v| v == "1");
        let mut stale = Vec::new();
        for (path, want) in files(&current).unwrap() {
            let have = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            if have != want {
                if update {
                    std::fs::write(root.join(path), want).unwrap();
                } else {
                    stale.push(path);
                }
            }
        }
        assert!(
            stale.is_empty(),
            "{stale:?} differ from what the Rust wire types generate: run \
             `cargo run -p tokenpad-core --features codegen --example codegen` \
             (or this test with UPDATE_CODEGEN=1) and commit the result"
        );
    }

    /// openapi.json names the release it documents: `info.version` is the workspace's
    /// version (which `generated_files_are_current` keeps it at), and setting it changes
    /// nothing else.
    #[test]
    fn the_document_has_the_workspace_version() {
        let text = std::fs::read_to_string(root().join(OPENAPI)).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["info"]["version"], env!("CARGO_PKG_VERSION"));
        let moved = openapi::set_version(&text, "9.8.7-rc.1").unwrap();
        let mut want = doc.clone();
        want["info"]["version"] = "9.8.7-rc.1".into();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&moved).unwrap(),
            want
        );
        assert_eq!(
            openapi::set_version(&moved, env!("CARGO_PKG_VERSION")).unwrap(),
            text
        );
    }

    /// Every `details` entry an operation writes from an amount (`.with(key, amount(..))`,
    /// `decimal(..)`, `amount_json(..)`, `usdc_json(..)`) is read exactly by the clients: its
    /// key is in the generated list of amount fields.
    #[test]
    fn amount_details_are_read_exactly() {
        let fields = api::decimal_fields(&openapi::schemas().unwrap()).unwrap();
        let mut files = vec![root().join("crates/core/src")];
        let mut checked = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                for e in std::fs::read_dir(&path).unwrap() {
                    files.push(e.unwrap().path());
                }
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (at, _) in text.match_indices(".with(\"") {
                let rest = &text[at + 7..];
                let Some(end) = rest.find('"') else { continue };
                let key = &rest[..end];
                let value = rest[end + 1..].trim_start_matches([',', ' ', '\n']);
                let helpers = ["amount(", "amount_json(", "decimal(", "usdc_json("];
                if helpers.iter().any(|h| value.starts_with(h)) {
                    checked += 1;
                    assert!(
                        fields.iter().any(|f| f == key),
                        "{}: details.{key} is an amount: add it to error::AMOUNT_DETAILS",
                        path.display()
                    );
                }
            }
        }
        assert!(checked >= 10, "found only {checked} amount details");
    }

    /// Every operation has its examples: a request example when it takes a JSON body, an
    /// answer example for each JSON success response (GET /live has neither: it upgrades).
    #[test]
    fn every_operation_has_examples() {
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root().join(OPENAPI)).unwrap()).unwrap();
        let examples = doc["components"]["examples"].as_object().unwrap();
        let mut refs = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                if !["get", "put", "post", "patch", "delete"].contains(&method.as_str()) {
                    continue;
                }
                let id = op["operationId"].as_str().unwrap();
                let mut wanted = Vec::new();
                if let Some(media) = op["requestBody"]["content"]["application/json"].as_object() {
                    wanted.push((format!("{id}.request"), media.clone()));
                }
                for (status, r) in op["responses"].as_object().unwrap() {
                    if !status.starts_with('2') {
                        continue;
                    }
                    for media in r["content"]
                        .as_object()
                        .into_iter()
                        .flat_map(|c| c.values())
                    {
                        wanted.push((format!("{id}.{status}"), media.as_object().unwrap().clone()));
                    }
                }
                if path != "/live" {
                    assert!(
                        !wanted.is_empty(),
                        "{method} {path}: nothing to give an example of"
                    );
                }
                for (name, media) in wanted {
                    let want = format!("#/components/examples/{name}");
                    assert_eq!(
                        media["examples"]["example"]["$ref"].as_str(),
                        Some(want.as_str()),
                        "{method} {path}: no example {name}"
                    );
                    assert!(examples.contains_key(&name), "{name} is not generated");
                    refs += 1;
                }
            }
        }
        assert_eq!(refs, examples.len(), "an example no operation refers to");
    }

    #[test]
    fn rendering_keeps_the_rest_of_the_document() {
        let doc = "{\n  \"a\": 1,\n  \"components\": {\n    \"schemas\": {\n      \"X\": {}\n    },\n    \"b\": {}\n  }\n}\n";
        let s = vec![("Y".to_string(), serde_json::json!({"type": "string"}))];
        let out = openapi::render(doc, &s).unwrap();
        assert_eq!(
            out,
            "{\n  \"a\": 1,\n  \"components\": {\n    \"schemas\": {\n      \"Y\": {\n        \"type\": \"string\"\n      }\n    },\n    \"b\": {}\n  }\n}\n"
        );
    }

    #[test]
    fn additive_and_required_fields() {
        let mut s: Schema =
            serde_json::from_value(serde_json::json!({"required": ["a", "b"], "properties": {}}))
                .unwrap();
        not_required("b")(&mut s);
        required("c a")(&mut s);
        assert_eq!(s.get("required").unwrap(), &serde_json::json!(["a", "c"]));
    }
}
