//! A crate's import graph: its modules (one a source file), the modules each imports, and the
//! circles among them.

use super::read::paths;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Modules, each a path of names from the crate's root (`[]` is `lib.rs`).
pub type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// Every .rs file under `dir`.
pub fn files(dir: &Path) -> Vec<PathBuf> {
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

/// The deepest module file `path` (seen from module `from`) reaches.
pub fn resolve(
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
        // `use child::Item` in a module names its own child module `child` (Rust 2018's
        // relative paths); any other first name is another crate.
        Some(first) => {
            let mut child = from.to_vec();
            child.push((*first).to_string());
            if !modules.contains(&child) {
                return None;
            }
            from.to_vec()
        }
        None => return None,
    };
    let relative = !matches!(segs.first(), Some(&"crate" | &"self" | &"super"));
    let mut i = usize::from(!relative);
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
pub fn graph(src: &Path) -> Graph {
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

/// Every set of modules that import each other round (the strongly connected components of
/// more than one module, Tarjan's algorithm), to list them all at once.
pub fn circles(g: &Graph) -> Vec<Vec<Vec<String>>> {
    struct T<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a Vec<String>, usize>,
        low: BTreeMap<&'a Vec<String>, usize>,
        stack: Vec<&'a Vec<String>>,
        on: BTreeSet<&'a Vec<String>>,
        out: Vec<Vec<Vec<String>>>,
    }
    fn connect<'a>(t: &mut T<'a>, v: &'a Vec<String>) {
        let i = t.index.len();
        t.index.insert(v, i);
        t.low.insert(v, i);
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            if !t.index.contains_key(w) {
                connect(t, w);
                let lw = t.low[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(lw));
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(iw));
            }
        }
        if t.low[v] == t.index[v] {
            let mut c = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                c.push(w.clone());
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v) {
            connect(&mut t, v);
        }
    }
    t.out
}
