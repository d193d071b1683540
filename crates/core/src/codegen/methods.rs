//! `src/js/generated/methods.ts`: the server client's methods, one per operation the package
//! calls ([`super::paths::called`]), named by its operationId and typed from openapi.json:
//! the path's parameters in order, then the request body (an operation that takes one) or the
//! query (one that reads with parameters), then the call's options (`MutationOptions`, with
//! the Idempotency-Key, on the routes that write). The answer is the first 2xx response's
//! schema. `TokenpadServer` (`src/js/server.ts`) extends the class and sends the requests, so
//! a route declared in Rust and documented has its method without a line of TypeScript
//! written by hand, and no operation can lack one.

use super::api::Types;
use super::paths::{called, document_path, takes_key};
use crate::wire::routes::Row;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

const HEADER: &str =
    "// Generated from the route declarations (crates/core/src/wire/<family>.rs, `ROUTES`) and
// openapi.json's operations by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: declare and document the route, then run that command.
";

/// The query parameters the server client never sends: it authenticates with its secret key
/// in a header, never a key in the URL.
const NOT_SENT: [&str; 1] = ["publicKey"];

/// The operations only a holder's session token may call (`Authorization: Bearer`; a key is
/// 403 `session_token_required`): the browser client's, not the server's.
pub const SESSION_ONLY: [&str; 1] = ["getSession"];

/// A query parameter of an operation: its name, TypeScript type, whether it is required and
/// its description.
struct Param {
    name: String,
    ty: String,
    required: bool,
    doc: Option<String>,
}

/// The operation `(method, path)` of the document, if it has it.
fn operation<'a>(doc: &'a Value, row: &Row) -> Option<&'a Map<String, Value>> {
    doc.get("paths")?
        .get(document_path(row.1))?
        .get(row.0.to_lowercase())?
        .as_object()
}

/// A parameter, its `$ref` (to `components.parameters`) followed.
fn resolve<'a>(doc: &'a Value, p: &'a Value) -> Option<&'a Value> {
    match p.get("$ref").and_then(Value::as_str) {
        Some(r) => doc
            .get("components")?
            .get("parameters")?
            .get(r.rsplit('/').next()?),
        None => Some(p),
    }
}

/// A query parameter's type: the scalar its schema is (a `$ref` to a named string, such as an
/// event selector list, is a string), or its enum's literals.
fn scalar(doc: &Value, schema: &Value) -> String {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => doc
            .pointer(&format!(
                "/components/schemas/{}",
                r.rsplit('/').next().unwrap_or(r)
            ))
            .unwrap_or(&Value::Null),
        None => schema,
    };
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        return e
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer" | "number") => "number".into(),
        Some("boolean") => "boolean".into(),
        _ => "string".into(),
    }
}

fn query_params(doc: &Value, op: &Map<String, Value>) -> Vec<Param> {
    op.get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| resolve(doc, p))
        .filter(|p| p.get("in").and_then(Value::as_str) == Some("query"))
        .filter_map(|p| {
            let name = p.get("name")?.as_str()?.to_string();
            (!NOT_SENT.contains(&name.as_str())).then(|| Param {
                ty: scalar(doc, p.get("schema").unwrap_or(&Value::Null)),
                required: p.get("required").and_then(Value::as_bool) == Some(true),
                doc: p
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                name,
            })
        })
        .collect()
}

/// A path's parameters as the method names them (the holder-or-address one in full).
fn path_params(pattern: &str) -> Vec<String> {
    pattern
        .split('/')
        .filter_map(|s| s.strip_prefix(':'))
        .map(|s| match s {
            "holder" => "userIdOrAddress".to_string(),
            other => other.to_string(),
        })
        .collect()
}

/// A JSDoc comment's text, safe inside `/** */`, indented by two spaces.
fn jsdoc(lines: &[String]) -> String {
    let mut out = String::from("  /**\n");
    for l in lines {
        for part in l.replace("*/", "* /").lines() {
            out.push_str(format!("   * {part}").trim_end());
            out.push('\n');
        }
    }
    out.push_str("   */\n");
    out
}

/// One method.
fn method(doc: &Value, row: &Row, types: &mut Types) -> Result<String, String> {
    let id = row.2.operation_id();
    let op = operation(doc, row)
        .ok_or_else(|| format!("{} {}: not in openapi.json's paths", row.0, row.1))?;
    let json_schema = |v: Option<&Value>| {
        v.and_then(|c| c.get("content"))
            .and_then(|c| c.get("application/json"))
            .and_then(|c| c.get("schema"))
            .cloned()
    };
    let body = json_schema(op.get("requestBody"));
    let body_required = op
        .get("requestBody")
        .and_then(|b| b.get("required"))
        .and_then(Value::as_bool)
        == Some(true);
    let answer = op
        .get("responses")
        .and_then(Value::as_object)
        .and_then(|r| r.iter().find(|(code, _)| code.starts_with('2')))
        .and_then(|(_, r)| json_schema(Some(r)))
        .map_or_else(|| "void".to_string(), |s| types.ty(&s));
    let query = query_params(doc, op);
    if body.is_some() && !query.is_empty() {
        return Err(format!(
            "{id}: both a body and query parameters (the generated method takes one or the other)"
        ));
    }
    let params = path_params(row.1);
    let mut args: Vec<String> = params.iter().map(|p| format!("{p}: string")).collect();
    let mut init = vec!["...opts".to_string()];
    let mut lines: Vec<String> = Vec::new();
    lines.push(format!("`{} {}`{}", row.0, document_path(row.1), {
        let s = op.get("summary").and_then(Value::as_str).unwrap_or("");
        if s.is_empty() {
            String::new()
        } else {
            format!(": {s}")
        }
    }));
    if let Some(b) = body {
        let ty = types.ty(&b);
        if !ty.ends_with("Request") {
            return Err(format!(
                "{id}: its body's type {ty} is not named `...Request`: name it in api.rs's REQUESTS"
            ));
        }
        if body_required {
            args.push(format!("body: {ty}"));
        } else {
            args.push(format!("body: {ty} = {{}}"));
        }
        init.push("body".into());
    } else if !query.is_empty() {
        let fields: Vec<String> = query
            .iter()
            .map(|p| {
                let opt = if p.required { "" } else { "?" };
                format!("{}{opt}: {}", p.name, p.ty)
            })
            .collect();
        let all_optional = query.iter().all(|p| !p.required);
        let default = if all_optional { " = {}" } else { "" };
        args.push(format!("query: {{ {} }}{default}", fields.join("; ")));
        let picked: Vec<String> = query
            .iter()
            .map(|p| format!("{0}: query.{0}", p.name))
            .collect();
        init.push(format!("query: {{ {} }}", picked.join(", ")));
        for p in &query {
            if let Some(d) = &p.doc {
                lines.push(format!("@param query.{} {d}", p.name));
            }
        }
    }
    let opts = if takes_key(row) {
        "MutationOptions"
    } else {
        "CallOptions"
    };
    args.push(format!("opts?: {opts}"));
    Ok(format!(
        "{doc}  {id}({args}): Promise<{answer}> {{\n    return this.call('{id}', [{params}], {{ {init} }});\n  }}\n",
        doc = jsdoc(&lines),
        args = args.join(", "),
        params = params.join(", "),
        init = init.join(", "),
    ))
}

/// `src/js/generated/methods.ts` from the document `doc` (openapi.json as rendered), and the
/// names of `api.d.ts` it uses (which that file must then declare).
pub fn methods_ts(
    doc: &Value,
    schemas: &[(String, Value)],
    wire_dts: &str,
) -> Result<(String, BTreeSet<String>), String> {
    let map: BTreeMap<String, Value> = schemas.iter().cloned().collect();
    let mut types = Types::new(&map, wire_dts);
    let mut body = String::new();
    for row in called().filter(|row| !SESSION_ONLY.contains(&row.2.operation_id())) {
        body.push('\n');
        body.push_str(&method(doc, row, &mut types)?);
    }
    let (from_wire, from_api) = types.names();
    let mut out = String::from(HEADER);
    out.push_str("import type { CallOptions } from '../http.js';\n");
    let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
    if !from_api.is_empty() {
        out.push_str(&format!(
            "import type {{ {} }} from './api.js';\n",
            list(&from_api)
        ));
    }
    out.push_str("import type { OperationId } from './routes.js';\n");
    if !from_wire.is_empty() {
        out.push_str(&format!(
            "import type {{ {} }} from './wire.js';\n",
            list(&from_wire)
        ));
    }
    out.push_str(
        "\n/** Options of a call that changes state. */\n\
         export interface MutationOptions extends CallOptions {\n  \
         /** The Idempotency-Key (1 to 255 characters); a fresh one when absent, reused on retries. */\n  \
         idempotencyKey?: string;\n\
         }\n\n\
         /** What a call sends besides its path: the query, the JSON body, and the call's options. */\n\
         export type CallInit = { query?: Record<string, string | number | boolean | undefined>; body?: unknown } & MutationOptions;\n\n\
         /**\n \
         * Every operation the server client calls, one method each, named by its operationId in\n \
         * openapi.json: the path's parameters in order, then the body or the query, then the\n \
         * call's options. `TokenpadServer` sends them.\n \
         */\n\
         export abstract class Operations {\n  \
         /** Sends operation `id` with its path's `params` (in order) and `init`. */\n  \
         protected abstract call<T>(id: OperationId, params: readonly string[], init: CallInit): Promise<T>;\n",
    );
    out.push_str(&body);
    out.push_str("}\n");
    Ok((out, types.wanted().clone()))
}
