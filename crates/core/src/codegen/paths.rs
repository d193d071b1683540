//! `openapi.json`'s `paths` against the routes the families declare (`routes::TABLE`): the
//! same methods and paths and operationIds, an `Idempotency-Key` exactly on the merchant
//! routes that write, and the security the route's `Access` allows. A declared operation the
//! document lacks is written into it as a skeleton (`skeleton`); its prose, query
//! parameters, request body and responses are written by hand. The HTTP suite's list of
//! routes ([`routes_json`]) and the server client's ([`routes_ts`]) are generated from the
//! declarations too.

use crate::wire::routes::{rows, Access, Effect, Row};
use serde_json::Value;
use std::collections::BTreeSet;

/// The routes the document leaves out: the index page (`GET /`), which is HTML for people.
pub const UNDOCUMENTED: &[(&str, &str)] = &[("GET", "/")];

/// A row's path as the document writes it: `:name` as `{name}` (the holder-or-address
/// parameter under the document's longer name).
pub fn document_path(pattern: &str) -> String {
    pattern
        .split('/')
        .map(|s| match s.strip_prefix(':') {
            Some("holder") => "{holderAddressOrUserId}".to_string(),
            Some(name) => format!("{{{name}}}"),
            None => s.to_string(),
        })
        .collect::<Vec<String>>()
        .join("/")
}

/// Whether browsers call the route, so the document lists its path's CORS preflight (the live
/// channel, a WebSocket, has none documented).
pub fn preflighted(row: &Row) -> bool {
    matches!(row.3, Access::Public | Access::Holder) && row.1 != "/live"
}

/// Whether the route takes an `Idempotency-Key`: a merchant route that writes (the edge's own
/// routes, admin and open, take none).
pub fn takes_key(row: &Row) -> bool {
    row.4 == Effect::Writes && !matches!(row.3, Access::Admin | Access::Open | Access::Account)
}

/// The `(METHOD, path)` pairs the declarations say the document has.
pub fn declared() -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for row in rows() {
        if UNDOCUMENTED.contains(&(row.0, row.1)) {
            continue;
        }
        out.insert((row.0.to_string(), document_path(row.1)));
        if preflighted(row) {
            out.insert(("OPTIONS".to_string(), document_path(row.1)));
        }
    }
    out
}

/// `src/js/generated/routes.json`: every documented route as the families declare it (method,
/// path as the document writes it, operationId, access, whether it writes, whether browsers
/// preflight it),
/// the list the HTTP suite checks the document and the server against.
pub fn routes_json() -> Result<String, String> {
    let list: Vec<Value> = rows()
        .filter(|row| !UNDOCUMENTED.contains(&(row.0, row.1)))
        .map(|row| {
            serde_json::json!({
                "method": row.0,
                "path": document_path(row.1),
                "operationId": row.2.operation_id(),
                "access": format!("{:?}", row.3).to_lowercase(),
                "writes": row.4 == Effect::Writes,
                "preflight": preflighted(row),
            })
        })
        .collect();
    serde_json::to_string_pretty(&list)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

/// The routes the package calls over HTTP: a merchant's (no admin or open ones), and not the
/// live channel, a WebSocket (live.ts).
pub fn called() -> impl Iterator<Item = &'static Row> {
    rows().filter(|row| {
        matches!(row.3, Access::Secret | Access::Public | Access::Holder)
            && row.2 != crate::wire::routes::LIVE
    })
}

/// `src/js/generated/routes.ts`: the routes the package calls over HTTP (the merchant's: no
/// admin or open ones, not the live channel), by operationId: method, path pattern as
/// declared, and whether the route writes (a merchant route that writes takes an
/// Idempotency-Key, [`takes_key`]). The server client (`src/js/server.ts`) builds its requests
/// from it.
pub fn routes_ts() -> Result<String, String> {
    let mut out = String::from(
        "// Generated from the route declarations (crates/core/src/wire/<family>.rs, `ROUTES`) by\n\
         //   cargo run -p tokenpad-core --features codegen --example codegen\n\
         // Do not edit: declare the route in its family's wire file and run that command.\n\n\
         /**\n \
         * The routes the package calls over HTTP (a merchant's: no admin or open ones, and not\n \
         * the live channel's WebSocket), by operationId: the method, the path as declared\n \
         * (`:name` is a parameter, percent-encoded when sent) and whether the route writes (it\n \
         * then takes an Idempotency-Key).\n \
         */\n\
         export const ROUTES = {\n",
    );
    for row in called() {
        let (method, path, route, _, _) = *row;
        let id = route.operation_id();
        let plain = |s: &str| !s.contains(['\'', '\\', '\n']);
        let named = id.starts_with(|c: char| c.is_ascii_lowercase())
            && id.chars().all(|c| c.is_ascii_alphanumeric());
        if !named || !plain(method) || !plain(path) {
            return Err(format!(
                "{method} {path}: operationId {id:?} is not a plain name"
            ));
        }
        out.push_str(&format!(
            "  {id}: {{ method: '{method}', path: '{path}', writes: {} }},\n",
            takes_key(row)
        ));
    }
    out.push_str(
        "} as const;\n\n\
         /** The operationId of a route the package calls. */\n\
         export type OperationId = keyof typeof ROUTES;\n",
    );
    Ok(out)
}

/// The `(METHOD, path)` pairs the document has.
pub fn documented(openapi: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let Some(paths) = openapi.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, item) in paths {
        for (method, _) in item.as_object().into_iter().flatten() {
            if !matches!(method.as_str(), "parameters" | "summary" | "description") {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

/// What is wrong with one declared route's operation in the document, if anything.
pub fn check(openapi: &Value, row: &Row) -> Vec<String> {
    let (method, pattern, route, access, _) = *row;
    let operation_id = route.operation_id();
    let path = document_path(pattern);
    let Some(op) = openapi.pointer(&format!(
        "/paths/{}/{}",
        path.replace('/', "~1"),
        method.to_lowercase()
    )) else {
        return Vec::new();
    };
    let mut wrong = Vec::new();
    let documented_id = op.get("operationId").and_then(Value::as_str);
    if documented_id != Some(operation_id) {
        wrong.push(format!(
            "{method} {path}: operationId {documented_id:?}, declared {operation_id:?}"
        ));
    }
    let item_params = openapi
        .pointer(&format!("/paths/{}/parameters", path.replace('/', "~1")))
        .and_then(Value::as_array);
    let keyed = op
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .chain(item_params)
        .flatten()
        .any(|p| {
            p.get("$ref").and_then(Value::as_str) == Some("#/components/parameters/IdempotencyKey")
        });
    let merchant_write = takes_key(row);
    if keyed != merchant_write {
        wrong.push(format!(
            "{method} {path}: an Idempotency-Key parameter {}",
            if merchant_write {
                "is missing"
            } else {
                "is documented on a route that takes none"
            }
        ));
    }
    let schemes: BTreeSet<&str> = op
        .get("security")
        .or_else(|| openapi.get("security"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(|o| o.keys().map(String::as_str))
        .collect();
    let fits = match access {
        Access::Open => schemes.is_empty(),
        Access::Admin => schemes == BTreeSet::from(["adminKey"]),
        Access::Secret => schemes == BTreeSet::from(["secretKey"]),
        Access::Public => schemes.contains("publicKeyQuery") && schemes.contains("publicKeyHeader"),
        Access::Holder => schemes.contains("sessionToken") && !schemes.contains("adminKey"),
        Access::Account if crate::wire::account::needs_login(row.2) => {
            schemes == BTreeSet::from(["loginCookie"])
        }
        Access::Account => schemes.is_empty(),
    };
    if !fits {
        wrong.push(format!(
            "{method} {path}: security {schemes:?} does not fit {access:?}"
        ));
    }
    wrong
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn document() -> Value {
        let text = std::fs::read_to_string(super::super::root().join(super::super::OPENAPI));
        serde_json::from_str(&text.unwrap()).unwrap()
    }

    #[test]
    fn the_document_has_exactly_the_declared_routes() {
        let doc = document();
        let (declared, documented) = (declared(), documented(&doc));
        let missing: Vec<_> = declared.difference(&documented).collect();
        let extra: Vec<_> = documented.difference(&declared).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "declared in a wire/<family>.rs ROUTES but not in openapi.json's paths: {missing:?} \
             (`UPDATE_CODEGEN=1 cargo test -p tokenpad-core --lib codegen` writes their \
             skeletons); in the paths but declared nowhere: {extra:?}"
        );
    }

    /// Every operation has its summary and at least one response: a skeleton the generator
    /// wrote fails here until its author has written them.
    #[test]
    fn every_operation_is_written() {
        let unwritten = super::super::skeleton::unwritten(&document());
        assert!(
            unwritten.is_empty(),
            "{unwritten:#?}\ncodegen writes a declared route's skeleton into openapi.json \
             (operationId, tags, security, path parameters, the Idempotency-Key of a write, the \
             CORS preflight); its author writes the rest by hand: the summary and description, \
             query parameters, the request body and the responses, referring to \
             #/components/schemas and #/components/examples (see docs/contributing.md)"
        );
    }

    #[test]
    fn each_operation_takes_the_key_and_the_credentials_its_route_declares() {
        let doc = document();
        let wrong: Vec<String> = rows().flat_map(|row| check(&doc, row)).collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
    }
}
