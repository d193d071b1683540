//! The shape of the code, checked: in each of the four crates (the core, the worker, the
//! simulator, the browser package) no module imports one that imports it back, directly or
//! through others, and no source file is over 500 lines.
//!
//! A module is a source file. Its dependencies are the modules named by the paths it uses
//! (`use crate::a::b::Item`, `use super::x`, and `crate::a::b::f()` written inline, macros'
//! arguments included), each resolved to the deepest module file it reaches; `mod x;`
//! declarations are not imports. Items under `#[cfg(test)]` are left out: tests may look
//! anywhere. A file is read as Rust's tokens (proc-macro2's tokenizer), so text in strings and
//! comments is never taken for code.

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;

/// The workspace root (this file is crates/core/tests/it/floors.rs).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every .rs file under `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// `src/a/b.rs` and `src/a/b/mod.rs` are module `[a, b]`; `lib.rs` is `[]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod" || l == "lib") {
        parts.pop();
    }
    parts
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return vec![path.to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::").trim();
    let close = tree.rfind('}').filter(|&c| c > open).unwrap_or(tree.len());
    let inner = &tree[open + 1..close];
    // Split the inner list at top-level commas.
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.to_string()
            } else {
                format!("{prefix}::{p}")
            }
        })
        .collect()
}

/// Every path a file's code names that starts at `crate`, `super` or `self`. A file that
/// does not tokenize is an error (rustc would refuse it too).
fn paths(text: &str) -> Result<Vec<String>, String> {
    let tokens: TokenStream = text.parse().map_err(|e| format!("{e:?}"))?;
    let mut out = Vec::new();
    walk(tokens, &mut out);
    Ok(out
        .into_iter()
        .filter(|p| p.starts_with("crate") || p.starts_with("super") || p.starts_with("self"))
        .collect())
}

/// Reads one level of tokens (and every group in it): `use` trees, inline `crate::` paths,
/// items under `#[cfg(test)]` skipped.
fn walk(tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while let Some(t) = tokens.get(i) {
        match t {
            TokenTree::Punct(p) if p.as_char() == '#' && is_cfg_test(tokens.get(i + 1)) => {
                // The attribute, then its item: up to its body or its `;`.
                i += 2;
                while let Some(t) = tokens.get(i) {
                    i += 1;
                    match t {
                        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
                        TokenTree::Punct(p) if p.as_char() == ';' => break,
                        _ => {}
                    }
                }
            }
            TokenTree::Ident(id) if id == "use" => {
                let end = (i + 1..tokens.len())
                    .find(|&j| matches!(&tokens[j], TokenTree::Punct(p) if p.as_char() == ';'))
                    .unwrap_or(tokens.len());
                out.extend(expand(&text_of(&tokens[i + 1..end])));
                i = end + 1;
            }
            TokenTree::Punct(p) if p.as_char() == '#' => {
                // An attribute: paths it names in strings are code too (`schemars(with =
                // "crate::codegen::schema::TxHash")` is a path the derive writes out), but a
                // doc comment (`#[doc = "..."]` to the tokenizer) is prose.
                if let Some(TokenTree::Group(g)) = tokens.get(i + 1) {
                    let doc = matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "doc");
                    if !doc {
                        literal_paths(g.stream(), out);
                    }
                }
                i += 1;
            }
            TokenTree::Ident(id) if id == "crate" => {
                // `crate` followed by `::name` pairs (alone, as in `pub(crate)`, it names no
                // module).
                let mut path = String::from("crate");
                let mut j = i + 1;
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(n)),
                ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    path.push_str("::");
                    path.push_str(&n.to_string());
                    j += 3;
                }
                if j > i + 1 {
                    out.push(path);
                }
                i = j;
            }
            TokenTree::Group(g) => {
                walk(g.stream(), out);
                i += 1;
            }
            _ => i += 1,
        }
    }
}

/// The `crate::` paths written inside the string literals among `tokens`.
fn literal_paths(tokens: TokenStream, out: &mut Vec<String>) {
    for t in tokens {
        match t {
            TokenTree::Group(g) => literal_paths(g.stream(), out),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                for (start, _) in text.match_indices("crate::") {
                    let path: String = text[start..]
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    out.push(path.trim_end_matches(':').to_string());
                }
            }
            _ => {}
        }
    }
}

/// Whether a token is the bracket group of `#[cfg(test)]`.
fn is_cfg_test(t: Option<&TokenTree>) -> bool {
    matches!(t, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket
        && g.stream().to_string().replace(' ', "") == "cfg(test)")
}

/// A use tree's tokens as text: `a::{b, c as d}` (words apart, punctuation together).
fn text_of(tokens: &[TokenTree]) -> String {
    let mut text = String::new();
    let mut last_word = false;
    for t in tokens {
        match t {
            TokenTree::Ident(id) => {
                if last_word {
                    text.push(' ');
                }
                text.push_str(&id.to_string());
                last_word = true;
            }
            TokenTree::Punct(p) => {
                text.push(p.as_char());
                last_word = false;
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let (open, close) = match g.delimiter() {
                    Delimiter::Brace => ('{', '}'),
                    Delimiter::Parenthesis => ('(', ')'),
                    Delimiter::Bracket => ('[', ']'),
                    Delimiter::None => (' ', ' '),
                };
                text.push(open);
                text.push_str(&text_of(&inner));
                text.push(close);
                last_word = false;
            }
            TokenTree::Literal(l) => {
                text.push_str(&l.to_string());
                last_word = false;
            }
        }
    }
    text
}

/// The deepest module file `path` (seen from module `from`) reaches.
fn resolve(
    path: &str,
    from: &[String],
    is_dir_module: bool,
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let segs: Vec<&str> = path
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut base: Vec<String> = match segs.first() {
        Some(&"crate") => Vec::new(),
        Some(&"self") => from.to_vec(),
        Some(&"super") => {
            // `super` of a file module is its parent; of a directory module (mod.rs), too.
            let _ = is_dir_module;
            let mut b = from.to_vec();
            b.pop();
            b
        }
        _ => return None,
    };
    let mut i = 1;
    while segs.get(i) == Some(&"super") {
        base.pop();
        i += 1;
    }
    for s in &segs[i..] {
        let mut next = base.clone();
        next.push((*s).to_string());
        if modules.contains(&next) {
            base = next;
        } else {
            break;
        }
    }
    Some(base)
}

/// The import graph of one crate: module -> modules it imports.
fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let all = files(src);
    let modules: BTreeSet<Vec<String>> = all.iter().map(|f| module_of(src, f)).collect();
    let mut g = BTreeMap::new();
    for f in &all {
        let m = module_of(src, f);
        let dir_module = f
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let text = fs::read_to_string(f).unwrap_or_default();
        let named = paths(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let deps: BTreeSet<Vec<String>> = named
            .iter()
            .filter_map(|p| resolve(p, &m, dir_module, &modules))
            .filter(|d| d != &m)
            .collect();
        g.insert(m, deps);
    }
    g
}

/// A cycle in the graph, if there is one.
fn cycle(g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<Vec<String>>> {
    fn visit(
        n: &Vec<String>,
        g: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for d in g.get(n).into_iter().flatten() {
            match state.get(d) {
                Some(1) => {
                    let from = stack.iter().position(|x| x == d).unwrap_or(0);
                    let mut c = stack[from..].to_vec();
                    c.push(d.clone());
                    return Some(c);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(d, g, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if !state.contains_key(n) {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

const CRATES: [&str; 4] = [
    "crates/core/src",
    "crates/worker/src",
    "crates/sim/src",
    "src",
];

#[test]
fn no_crate_has_an_import_circle() {
    for krate in CRATES {
        let src = root().join(krate);
        let g = graph(&src);
        assert!(g.len() > 3, "{krate}: found only {} modules", g.len());
        // The reader does see imports: most modules name another.
        let edges: usize = g.values().map(BTreeSet::len).sum();
        eprintln!("{krate}: {} modules, {edges} imports", g.len());
        assert!(
            edges >= g.len(),
            "{krate}: only {edges} imports among {} modules",
            g.len()
        );
        if let Some(c) = cycle(&g) {
            let names: Vec<String> = c
                .iter()
                .map(|m| format!("crate::{}", m.join("::")))
                .collect();
            panic!("{krate}: import circle {}", names.join(" -> "));
        }
    }
}

#[test]
fn the_checker_finds_a_circle() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<String>>();
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b")]));
    g.insert(m("b"), BTreeSet::from([m("c")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    assert!(cycle(&g).is_some());
    g.insert(m("c"), BTreeSet::new());
    assert!(cycle(&g).is_none());
    assert_eq!(
        expand("super::{a, b::{c, d as e}, self}"),
        vec!["super::a", "super::b::c", "super::b::d", "super"]
    );
}

#[test]
fn no_source_file_is_over_500_lines() {
    for dir in [
        "crates/core/src",
        "crates/core/tests",
        "crates/worker/src",
        "crates/sim/src",
        "crates/sim/tests",
        "src",
        "tests/browser.rs",
    ] {
        let path = root().join(dir);
        let list = if path.is_file() {
            vec![path]
        } else {
            files(&path)
        };
        for f in list {
            let n = fs::read_to_string(&f).unwrap_or_default().lines().count();
            assert!(
                n <= MAX_LINES,
                "{} has {n} lines (at most {MAX_LINES})",
                f.display()
            );
        }
    }
}

#[test]
fn the_reader_takes_code_for_code_and_nothing_else() {
    let text = r##"
        use crate::a::{b, c::{d, e as f}};
        use super::g;
        // use crate::comment;
        /* use crate::block; */
        fn h() {
            let s = "use crate::in_a_string; crate::also";
            let r = r#"use crate::raw;"#;
            let c = '{';
            format!("{}", crate::i::j(1));
            use self::k;
        }
        #[cfg(test)]
        mod tests {
            use crate::only_in_tests;
        }
        #[cfg(test)]
        use crate::test_import;
        fn l() -> crate::m::N { todo!() }
        /// Prose naming `crate::prose::Only`.
        pub(crate) struct O {
            #[schemars(with = "Option<crate::n::Hash>")]
            p: Option<String>,
        }
    "##;
    let mut named = paths(text).unwrap();
    named.sort();
    assert_eq!(
        named,
        vec![
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "crate::i::j",
            "crate::m::N",
            "crate::n::Hash",
            "self::k",
            "super::g",
        ]
    );
}
