//! The shape of the code, checked: in each of the three crates (the core, the worker, the
//! browser package) no module imports one that imports it back, directly or through others,
//! and no source file is over 500 lines.
//!
//! A module is a source file. Its dependencies are the modules named by the paths it uses
//! (`use crate::a::b::Item`, `use super::x`, and `crate::a::b::f()` written inline), each
//! resolved to the deepest module file it reaches; `mod x;` declarations are not imports.
//! Code after the file's `#[cfg(test)]` is left out: tests may look anywhere.

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

/// The code of a file without comments and without its tests.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return vec![path.to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::").trim();
    // Text that only looks like a use tree ("in use at the end of ..." in a string literal,
    // which this reader does not skip) may close no brace after it opens one: read to its end
    // rather than slice backwards; its words name no `crate`/`super`/`self` path.
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

/// Every path a file's code names that starts at `crate`, `super` or `self`.
fn paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // use statements (which may span lines and contain braces)
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        rest = &rest[i + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(end) = rest.find(';') {
            out.extend(expand(&rest[..end]));
            rest = &rest[end..];
        }
    }
    // inline paths: crate::a::b
    let bytes = code.as_bytes();
    let mut i = 0;
    while let Some(j) = code[i..].find("crate::") {
        let start = i + j;
        let mut end = start;
        while end < bytes.len()
            && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b':')
        {
            end += 1;
        }
        out.push(code[start..end].trim_end_matches(':').to_string());
        i = end.max(start + 1);
    }
    out.into_iter()
        .filter(|p| p.starts_with("crate") || p.starts_with("super") || p.starts_with("self"))
        .collect()
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
        let deps: BTreeSet<Vec<String>> = paths(&code(&text))
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

const CRATES: [&str; 3] = ["crates/core/src", "crates/worker/src", "src"];

#[test]
fn no_crate_has_an_import_circle() {
    for krate in CRATES {
        let src = root().join(krate);
        let g = graph(&src);
        assert!(g.len() > 3, "{krate}: found only {} modules", g.len());
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
fn text_that_only_looks_like_a_use_tree_names_no_path() {
    // What followed "in use " in an error message once (a `{` opened after its last `}`).
    let text = "at the end of a transaction\"),\n    }\n    outcome\n}\n\nfn run<T>(\n    f: impl FnOnce() -> Result<T>,\n) -> Result<T> {\n    let raw = storage.as_raw()";
    let named: Vec<String> = expand(text)
        .into_iter()
        .filter(|p| p.starts_with("crate") || p.starts_with("super") || p.starts_with("self"))
        .collect();
    assert!(named.is_empty(), "{named:?}");
}
