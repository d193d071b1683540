//! TypeScript declarations of the wire response types the browser package returns, in one
//! file (`src/js/generated/wire.d.ts`, which the package's JavaScript layer exports next to
//! the view models' types, `src/js/generated/views.d.ts`). Types whose serde is written by hand
//! get hand-written [`TS`] impls: addresses and ids are strings, and every amount is a
//! [`Decimal`], which the package hands to JavaScript as an exact decimal string.
//!
//! [`Collect`] gathers and lays out the declarations; the root crate uses it for the view
//! models, importing from `wire.d.ts` what is declared there ([`wire`]).

use crate::model::address::Address;
use crate::model::decimal::Decimal;
use crate::model::ids::{PresaleId, TokenAddress, UserId};
use crate::model::time::Timestamp;
use crate::wire::admin::ErrorBody;
use crate::wire::holder::{HolderFull, TokenBalance};
use crate::wire::presale::{Presale, PresaleMerchant};
use crate::wire::token::Token;
use crate::ErrorCode;
use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use ts_rs::{Config, TypeVisitor, TS};

/// A type that is a plain `string` in TypeScript.
macro_rules! string {
    ($($ty:ty),*) => {$(
        impl TS for $ty {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn name(_: &Config) -> String {
                "string".into()
            }
            fn inline(_: &Config) -> String {
                "string".into()
            }
        }
    )*};
}

string!(Address, TokenAddress, UserId, PresaleId, Timestamp);

/// Written in TypeScript as in `src/tokenpad.d.ts` before it was generated.
const DECIMAL_DOCS: &str = "/**
 * An exact, non-negative decimal as a string, e.g. `\"12.345678901234567891\"`.
 * Every amount (balances, supplies, USD values, USDC, prices, percentages from the service)
 * comes as a `Decimal`: the service writes exact decimals and a JavaScript number would lose
 * digits beyond 2^53. Format it with `formatAmount`; `Number(x)` only where a float is fine.
 */
";

impl TS for Decimal {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn docs() -> Option<String> {
        Some(DECIMAL_DOCS.into())
    }
    fn name(_: &Config) -> String {
        "Decimal".into()
    }
    fn inline(_: &Config) -> String {
        "string".into()
    }
    fn decl(_: &Config) -> String {
        "type Decimal = string;".into()
    }
    fn decl_concrete(cfg: &Config) -> String {
        Self::decl(cfg)
    }
    fn output_path() -> Option<PathBuf> {
        Some("Decimal.ts".into())
    }
}

impl TS for ErrorCode {
    type WithoutGenerics = Self;
    type OptionInnerType = Self;
    fn docs() -> Option<String> {
        Some("/**\n * The service's stable error codes (`ErrorBody.code`).\n */\n".into())
    }
    fn name(_: &Config) -> String {
        "ErrorCode".into()
    }
    fn inline(_: &Config) -> String {
        let codes: Vec<String> = ErrorCode::ALL
            .iter()
            .map(|c| format!("\"{}\"", c.as_str()))
            .collect();
        codes.join(" | ")
    }
    fn decl(_: &Config) -> String {
        let codes: String = ErrorCode::ALL
            .iter()
            .map(|c| format!("\n  | \"{}\"", c.as_str()))
            .collect();
        format!("type ErrorCode ={codes};")
    }
    fn decl_concrete(cfg: &Config) -> String {
        Self::decl(cfg)
    }
    fn output_path() -> Option<PathBuf> {
        Some("ErrorCode.ts".into())
    }
}

/// The file's header.
const HEADER: &str = "// Generated from the Rust wire types (crates/core/src/wire) by
//   cargo run -p tokenpad-core --features codegen --example codegen
// Do not edit: change the Rust types and run that command.
// Amounts are `Decimal` strings: the package hands every amount to JavaScript as exact text.
";

/// The TypeScript declarations of some types and of everything they use, once each, by name
/// (the order ts-rs visits dependencies in changes from one build to the next). Each is
/// exported, after its doc comment, laid out by [`pretty`]. Amounts and other 64-bit integers
/// are `number`s. Used for `wire.d.ts` here and for the browser package's view models
/// (`src/js/generated/views.d.ts`, written by the root crate).
pub struct Collect {
    cfg: Config,
    seen: HashSet<TypeId>,
    decls: BTreeMap<String, String>,
}

impl Default for Collect {
    fn default() -> Self {
        Collect {
            cfg: Config::new().with_large_int("number"),
            seen: HashSet::new(),
            decls: BTreeMap::new(),
        }
    }
}

impl Collect {
    /// `T`'s declaration and those of the types it uses.
    pub fn with<T: TS + 'static + ?Sized>(mut self) -> Self {
        self.visit::<T>();
        self
    }

    /// Whether a type of this name is declared.
    pub fn declares(&self, name: &str) -> bool {
        self.decls.contains_key(name)
    }

    /// The declared types' names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.decls.keys().map(String::as_str)
    }

    /// The declarations, each after a blank line, except those named in `except` (the types
    /// another file declares, imported from it).
    pub fn render(&self, except: &[&str]) -> String {
        let mut out = String::new();
        for (name, d) in &self.decls {
            if !except.contains(&name.as_str()) {
                out.push('\n');
                out.push_str(d);
                out.push('\n');
            }
        }
        out
    }
}

impl TypeVisitor for Collect {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        let docs = T::docs().unwrap_or_default();
        let decl = format!("{docs}export {}", pretty(&T::decl(&self.cfg)));
        self.decls.insert(T::ident(&self.cfg), decl);
        T::visit_dependencies(self);
    }
}

/// The wire response types the browser package returns, and what they use.
pub fn wire() -> Collect {
    Collect::default()
        .with::<Token>()
        .with::<HolderFull>()
        .with::<TokenBalance>()
        .with::<Presale>()
        .with::<PresaleMerchant>()
        .with::<ErrorBody>()
}

/// The whole of `src/js/generated/wire.d.ts`.
pub fn wire_dts() -> String {
    format!("{HEADER}{}", wire().render(&[]))
}

/// Lays out ts-rs's one-line object types as interfaces, one field a line:
/// `type A = { a: T, b: U, };` becomes `interface A {` with each field, after its doc
/// comment, on its own line (as `src/tokenpad.d.ts` writes its shapes, and as the package's
/// consumer test reads them). Unions and other declarations stay as they are.
fn pretty(decl: &str) -> String {
    let Some((head, rest)) = decl.split_once(" = { ") else {
        return decl.to_string();
    };
    let Some(name) = head.strip_prefix("type ") else {
        return decl.to_string();
    };
    let Some(body) = rest.strip_suffix(" };").or_else(|| rest.strip_suffix("};")) else {
        return decl.to_string();
    };
    let mut out = format!("interface {name} {{\n");
    let mut field = String::new();
    let mut depth = 0i32;
    let mut rest = body;
    while let Some(c) = rest.chars().next() {
        if field.trim().is_empty() && rest.starts_with("/**") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            for line in rest.get(..end).unwrap_or_default().lines() {
                let line = line.trim();
                let pad = if line.starts_with('*') { "   " } else { "  " };
                out.push_str(&format!("{pad}{line}\n"));
            }
            rest = rest.get(end..).unwrap_or_default();
            field.clear();
            continue;
        }
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push_str(&format!("  {};\n", field.trim()));
            field.clear();
        } else {
            field.push(c);
        }
    }
    if !field.trim().is_empty() {
        out.push_str(&format!("  {};\n", field.trim()));
    }
    out.push('}');
    out
}
