//! TypeScript for the server client (`@tokenpad/client/server`): every secret-key request and
//! answer, in `src/js/generated/api.d.ts`, and the names of the fields that carry an amount, in
//! `src/js/generated/decimals.ts` (the server client reads JSON without wasm and keeps those
//! numbers as exact decimal strings).
//!
//! Both come from the JSON Schemas of openapi.json's `components.schemas` ([`super::openapi`]),
//! which are themselves derived from the Rust request types (`ops/**`, `*Request`) and wire
//! types, so the server client, the OpenAPI document and the service share one source. The
//! answers the browser package also returns (Token, HolderFull, Presale, ...) are imported from
//! `wire.d.ts` (ts-rs) rather than declared twice.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// The request schemas, by their TypeScript names (the Rust types' names).
const REQUESTS: [(&str, &str); 19] = [
    ("CreateToken", "CreateTokenRequest"),
    ("PatchToken", "PatchTokenRequest"),
    ("Distribute", "DistributeRequest"),
    ("Spend", "SpendRequest"),
    ("Send", "SendRequest"),
    ("CreatePresale", "CreatePresaleRequest"),
    ("BuyPresale", "BuyPresaleRequest"),
    ("ResolvePresale", "ResolvePresaleRequest"),
    ("CreateMemecoin", "MemecoinRequest"),
    ("CreateAirdrop", "AirdropRequest"),
    ("CreateWebhook", "CreateWebhookRequest"),
    ("UpdateWebhook", "UpdateWebhookRequest"),
    ("CreateSession", "CreateSessionRequest"),
    ("PatchSettings", "PatchSettingsRequest"),
    ("CreateLiquidity", "CreateLiquidityRequest"),
    ("Buy", "BuyRequest"),
    ("Sell", "SellRequest"),
    ("CreateKey", "CreateKeyRequest"),
    ("RollKey", "RollKeyRequest"),
];

/// The answers the dashboard reads that no server client method returns (and what they use):
/// the account API's (`/account/...`: cookie routes, same origin) and `GET /health`'s.
const DASHBOARD_ANSWERS: [&str; 7] = [
    "Account",
    "AccountMerchantCreated",
    "DashboardToken",
    "Members",
    "Mailbox",
    "AccountAccepted",
    "Health",
];

/// The secret-key answers (and what they use) the server client returns.
const ANSWERS: [&str; 26] = [
    "CreateTokenAccepted",
    "Job",
    "DistributeResult",
    "LedgerResult",
    "TxPage",
    "DeploymentCreated",
    "DeploymentStatus",
    "BuyPresaleResult",
    "ResolveResult",
    "PresaleMerchant",
    "Token",
    "Event",
    "EventPage",
    "Webhook",
    "WebhookCreated",
    "WebhookDeleted",
    "Delivery",
    "DeliveryPage",
    "SessionCreated",
    "SessionInfo",
    "SessionsRevoked",
    "MerchantSettings",
    "ApiKey",
    "ApiKeyList",
    "ApiKeyCreated",
    "ApiKeyRolled",
];

const HEADER: &str =
    "// Generated from the Rust request and wire types (through openapi.json's schemas) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: change the Rust types and run that command.
";

fn ts_name(schema: &str) -> String {
    REQUESTS
        .iter()
        .find(|(s, _)| *s == schema)
        .map_or_else(|| schema.to_string(), |(_, ts)| (*ts).to_string())
}

struct Gen<'a> {
    schemas: &'a BTreeMap<String, Value>,
    /// The names `wire.d.ts` (ts-rs) declares: imported, not declared again.
    from_wire: BTreeSet<String>,
    wanted: BTreeSet<String>,
    imports: BTreeSet<String>,
}

impl Gen<'_> {
    fn reference(&mut self, r: &str) -> String {
        let name = r.rsplit('/').next().unwrap_or(r);
        match name {
            "Amount" => {
                self.imports.insert("Decimal".into());
                "Decimal".into()
            }
            "AmountInput" => "DecimalInput".into(),
            "Address" | "TxHash" | "Timestamp" | "UserId" => "string".into(),
            n if self.from_wire.contains(n) => {
                self.imports.insert(n.into());
                n.into()
            }
            n => {
                self.wanted.insert(n.into());
                ts_name(n)
            }
        }
    }

    /// A schema as a TypeScript type expression.
    fn ty(&mut self, s: &Value) -> String {
        let Some(o) = s.as_object() else {
            return "unknown".into();
        };
        if let Some(r) = o.get("$ref").and_then(Value::as_str) {
            return self.reference(r);
        }
        if let Some(c) = o.get("const") {
            return c.to_string();
        }
        if let Some(e) = o.get("enum").and_then(Value::as_array) {
            return e
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(" | ");
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(v) = o.get(key).and_then(Value::as_array) {
                if v.iter()
                    .all(|x| x.get("type").is_some() || x.get("$ref").is_some())
                {
                    let parts: Vec<String> = v.iter().map(|x| self.ty(x)).collect();
                    return parts.join(" | ");
                }
            }
        }
        let types: Vec<&str> = match o.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ if o.contains_key("properties") => vec!["object"],
            _ => vec![],
        };
        if types.is_empty() {
            return "unknown".into();
        }
        let parts: Vec<String> = types
            .iter()
            .map(|t| match *t {
                "string" => "string".into(),
                "integer" | "number" => "number".into(),
                "boolean" => "boolean".into(),
                "null" => "null".into(),
                "array" => {
                    let item = o.get("items").map_or("unknown".into(), |i| self.ty(i));
                    if item.contains(' ') {
                        format!("Array<{item}>")
                    } else {
                        format!("{item}[]")
                    }
                }
                _ => self.object(o, ""),
            })
            .collect();
        parts.join(" | ")
    }

    /// An object schema's body `{ ... }`, each field on its own line after `indent`.
    fn object(&mut self, o: &Map<String, Value>, indent: &str) -> String {
        let Some(props) = o.get("properties").and_then(Value::as_object) else {
            let inner = o
                .get("additionalProperties")
                .filter(|v| v.is_object())
                .map_or("unknown".into(), |v| self.ty(v));
            return format!("Record<string, {inner}>");
        };
        let required: BTreeSet<&str> = o
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = String::from("{\n");
        for (name, p) in props {
            if let Some(d) = p.get("description").and_then(Value::as_str) {
                out.push_str(&format!("{indent}  /** {} */\n", d.replace("*/", "* /")));
            }
            let opt = if required.contains(name.as_str()) {
                ""
            } else {
                "?"
            };
            let ty = self.ty(p);
            out.push_str(&format!("{indent}  {name}{opt}: {ty};\n"));
        }
        out.push_str(indent);
        out.push('}');
        out
    }

    /// The declaration of schema `name`.
    fn decl(&mut self, name: &str) -> String {
        let s = self.schemas.get(name).cloned().unwrap_or(Value::Null);
        let ts = ts_name(name);
        let docs = s
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!("/** {} */\n", d.replace("*/", "* /")))
            .unwrap_or_default();
        let Some(o) = s.as_object() else {
            return format!("{docs}export type {ts} = unknown;\n");
        };
        if !o.contains_key("properties") {
            return format!("{docs}export type {ts} = {};\n", self.ty(&s));
        }
        let body = self.object(o, "");
        // `oneOf` of required-field variants (Distribute: exactly one of its recipient
        // fields): each variant requires its own and forbids every other variant's.
        let alternatives: Vec<&Value> = o
            .get("oneOf")
            .and_then(Value::as_array)
            .map(|v| v.iter().collect())
            .unwrap_or_default();
        let required_of = |x: &Value| -> Vec<String> {
            x.get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let every: Vec<String> = alternatives.iter().flat_map(|x| required_of(x)).collect();
        let variants: Vec<String> = alternatives
            .iter()
            .filter(|x| x.get("required").is_some())
            .map(|x| {
                let own = required_of(x);
                let mut parts: Vec<String> = own
                    .iter()
                    .map(|r| format!("{r}: NonNullable<{ts}Fields[\"{r}\"]>"))
                    .collect();
                let mut others: Vec<&String> = every.iter().filter(|k| !own.contains(k)).collect();
                others.dedup();
                for n in others {
                    parts.push(format!("{n}?: never"));
                }
                format!("{{ {} }}", parts.join("; "))
            })
            .collect();
        if variants.is_empty() {
            format!("{docs}export interface {ts} {body}\n")
        } else {
            format!(
                "interface {ts}Fields {body}\n{docs}export type {ts} = Omit<{ts}Fields, {keys}> & ({alts});\n",
                keys = variants_keys(o),
                alts = variants.join(" | ")
            )
        }
    }
}

/// The fields a `oneOf` decides, as a union of string literals.
fn variants_keys(o: &Map<String, Value>) -> String {
    let mut keys = BTreeSet::new();
    for v in o
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for r in v
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            keys.extend(r.as_str().map(|s| format!("\"{s}\"")));
        }
    }
    keys.into_iter().collect::<Vec<_>>().join(" | ")
}

/// The names a declaration file exports.
fn exported(dts: &str) -> BTreeSet<String> {
    dts.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("export interface ")
                .or_else(|| l.strip_prefix("export type "))?;
            rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .map(str::to_string)
        })
        .collect()
}

/// TypeScript type expressions of openapi.json's schemas for another generated file (the
/// server client's methods, `super::methods`), noting the names they use: those `wire.d.ts`
/// declares, and those `api.d.ts` must.
pub struct Types<'a>(Gen<'a>);

impl<'a> Types<'a> {
    pub fn new(schemas: &'a BTreeMap<String, Value>, wire_dts: &str) -> Types<'a> {
        Types(Gen {
            schemas,
            from_wire: exported(wire_dts),
            wanted: BTreeSet::new(),
            imports: BTreeSet::new(),
        })
    }

    /// Schema `s` as a TypeScript type.
    pub fn ty(&mut self, s: &Value) -> String {
        self.0.ty(s)
    }

    /// The names used: `(from wire.d.ts, from api.d.ts)`, the latter by their TypeScript names.
    pub fn names(&self) -> (BTreeSet<String>, BTreeSet<String>) {
        let api = self.0.wanted.iter().map(|n| ts_name(n)).collect();
        (self.0.imports.clone(), api)
    }

    /// The schema names `api.d.ts` must declare for what was written.
    pub fn wanted(&self) -> &BTreeSet<String> {
        &self.0.wanted
    }
}

/// `src/js/generated/api.d.ts`; `wire_dts` is `wire.d.ts`, whose types are imported; `also`:
/// the schemas another generated file uses from it (`Types::wanted`).
pub fn api_dts(schemas: &[(String, Value)], wire_dts: &str, also: &BTreeSet<String>) -> String {
    let map: BTreeMap<String, Value> = schemas.iter().cloned().collect();
    let from_wire = exported(wire_dts);
    let mut g = Gen {
        schemas: &map,
        wanted: REQUESTS
            .iter()
            .map(|(s, _)| (*s).to_string())
            .chain(ANSWERS.iter().map(|s| (*s).to_string()))
            .chain(DASHBOARD_ANSWERS.iter().map(|s| (*s).to_string()))
            .chain(also.iter().cloned())
            .filter(|s| !from_wire.contains(s))
            .collect(),
        from_wire: from_wire.clone(),
        imports: BTreeSet::new(),
    };
    let mut done: BTreeMap<String, String> = BTreeMap::new();
    while let Some(next) = g.wanted.iter().find(|w| !done.contains_key(*w)).cloned() {
        let d = g.decl(&next);
        done.insert(next, d);
    }
    let mut out = String::from(HEADER);
    let imports: Vec<String> = g.imports.iter().cloned().collect();
    out.push_str(&format!(
        "import type {{ {} }} from './wire.js';\n\n",
        imports.join(", ")
    ));
    out.push_str(
        "/** An amount in a request: a decimal string for exact values (\"12.5\"), or a number. */\n\
         export type DecimalInput = string | number;\n",
    );
    let mut sorted: Vec<(String, String)> = done.into_iter().collect();
    sorted.sort_by_key(|(n, _)| ts_name(n));
    for (_, d) in sorted {
        out.push('\n');
        out.push_str(&d);
    }
    out
}

/// Every property name whose value is an amount (`Amount`) in an answer, and checks that no
/// such name is anything else in another answer (the exact reader goes by name).
pub fn decimal_fields(schemas: &[(String, Value)]) -> Result<Vec<String>, String> {
    fn is_amount(p: &Value) -> bool {
        let r = |v: &Value| {
            v.get("$ref").and_then(Value::as_str) == Some("#/components/schemas/Amount")
        };
        r(p) || ["anyOf", "oneOf"].iter().any(|k| {
            p.get(*k)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(r))
        })
    }
    fn numeric(p: &Value) -> bool {
        let t = |v: &Value| matches!(v.as_str(), Some("number" | "integer"));
        match p.get("type") {
            Some(Value::Array(a)) => a.iter().any(t),
            Some(v) => t(v),
            None => false,
        }
    }
    let mut amounts = BTreeSet::new();
    let mut others: BTreeMap<String, String> = BTreeMap::new();
    for (name, s) in schemas {
        let Some(props) = s.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (field, p) in props {
            if is_amount(p) {
                amounts.insert(field.clone());
            } else if numeric(p) {
                others.insert(field.clone(), name.clone());
            }
        }
    }
    if let Some((f, s)) = others.iter().find(|(f, _)| amounts.contains(*f)) {
        return Err(format!(
            "field `{f}` is an amount in one answer and another number in {s}: the server \
             client's exact reader goes by field name, so rename one"
        ));
    }
    for key in crate::error::AMOUNT_DETAILS {
        if let Some(s) = others.get(key) {
            return Err(format!(
                "error detail `{key}` is an amount, and another number in {s}: rename one"
            ));
        }
        amounts.insert(key.to_string());
    }
    Ok(amounts.into_iter().collect())
}

/// `src/js/generated/decimals.ts`.
pub fn decimals_ts(schemas: &[(String, Value)]) -> Result<String, String> {
    let fields = decimal_fields(schemas)?;
    let list: Vec<String> = fields.iter().map(|f| format!("  '{f}',")).collect();
    Ok(format!(
        "{HEADER}\n/** The fields that carry an amount in the service's answers and errors' `details`: read as exact decimal strings. */\n\
         export const DECIMAL_FIELDS: readonly string[] = [\n{}\n];\n",
        list.join("\n")
    ))
}
