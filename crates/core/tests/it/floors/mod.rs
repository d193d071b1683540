//! The shape of the code, checked in each of the five crates (the core, the worker, the EVM
//! crate, the simulator, the browser package): no module imports one that imports it back,
//! directly or through others; no module imports from a floor above its own; no source file is
//! over 500 lines.
//!
//! A module is a source file. Its dependencies are the modules named by the paths it uses
//! (`use crate::a::b::Item`, `use super::x`, `use self::x`, `use child::Item` for a child module,
//! and `crate::`, `super::` or `self::` paths written inline, macros' arguments and attributes'
//! strings included), each resolved to the deepest module file it reaches; `mod x;`
//! declarations are not imports. Items under `#[cfg(test)]` are left out: tests may look
//! anywhere.

mod graph;
mod read;

use graph::{circles, files, graph, resolve, Graph};
use read::{expand, paths};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 500;

/// The workspace root (this file is crates/core/tests/it/floors/mod.rs).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Each crate's source folder and its floors, lowest first: a module may import from its own
/// floor and those below, never from one above (the top-level module it is in decides its
/// floor; every top-level module is placed).
const CRATES: [(&str, &[&[&str]]); 5] = [
    (
        "crates/core/src",
        &[
            &["error", "crypto", "session_token"],
            &["model"],
            &["schema"],
            &["store", "auth", "ratelimit"],
            &["ops"],
            &["wire"],
            &["serve"],
            &["codegen"],
        ],
    ),
    (
        "crates/worker/src",
        &[
            &["clock", "config", "http", "key_hashes"],
            &["hop", "adapters"],
            &["edge", "objects"],
        ],
    ),
    (
        "crates/evm/src",
        &[
            &["abi", "error"],
            &["key"],
            &["tx"],
            &["rpc", "auth"],
            &["calls", "logs", "market", "locker", "reads"],
        ],
    ),
    (
        "crates/sim/src",
        &[
            &["bug", "shell", "chain", "debts"],
            &["node"],
            &["webhooks"],
            &["chain_port", "settler", "check"],
            &["step"],
            &["requests"],
            &["world"],
            &["gen", "main"],
        ],
    ),
    (
        "src",
        &[
            &["decimal", "time", "fixtures"],
            &["format"],
            &["wire"],
            &["view", "client"],
            &["web", "codegen"],
        ],
    ),
];

/// The floor of a module: its top-level module's place in `floors` (`None` for the crate root).
fn floor_of(m: &[String], floors: &[&[&str]]) -> Option<usize> {
    let top = m.first()?;
    floors.iter().position(|f| f.contains(&top.as_str()))
}

/// The imports that go up a floor, and the top-level modules no floor names.
fn up_arrows(g: &Graph, floors: &[&[&str]]) -> (Vec<String>, Vec<String>) {
    let mut up = Vec::new();
    let mut unplaced = BTreeSet::new();
    for (m, deps) in g {
        let Some(top) = m.first() else { continue };
        let Some(from) = floor_of(m, floors) else {
            unplaced.insert(top.clone());
            continue;
        };
        for d in deps {
            if floor_of(d, floors).is_some_and(|to| to > from) {
                up.push(format!(
                    "crate::{} -> crate::{}",
                    m.join("::"),
                    d.join("::")
                ));
            }
        }
    }
    (up, unplaced.into_iter().collect())
}

#[test]
fn no_crate_has_an_import_circle_or_an_arrow_up_a_floor() {
    for (krate, floors) in CRATES {
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
        let names = |c: &Vec<Vec<String>>| {
            c.iter()
                .map(|m| format!("crate::{}", m.join("::")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let found: Vec<String> = circles(&g).iter().map(names).collect();
        assert!(
            found.is_empty(),
            "{krate}: modules in a circle:\n  {}",
            found.join("\n  ")
        );
        let (up, unplaced) = up_arrows(&g, floors);
        assert!(
            unplaced.is_empty(),
            "{krate}: top-level modules on no floor (place them in CRATES): {unplaced:?}"
        );
        assert!(
            up.is_empty(),
            "{krate}: imports up a floor:\n  {}",
            up.join("\n  ")
        );
    }
}

#[test]
fn the_checker_finds_a_circle() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<String>>();
    let mut g = BTreeMap::new();
    g.insert(m("a"), BTreeSet::from([m("b")]));
    g.insert(m("b"), BTreeSet::from([m("c")]));
    g.insert(m("c"), BTreeSet::from([m("a")]));
    g.insert(m("d"), BTreeSet::from([m("a")]));
    assert_eq!(circles(&g), vec![vec![m("a"), m("b"), m("c")]]);
    g.insert(m("c"), BTreeSet::new());
    assert!(circles(&g).is_empty());
    // An arrow up a floor, and a module no floor names.
    let floors: &[&[&str]] = &[&["a", "c"], &["b"]];
    let (up, unplaced) = up_arrows(&g, floors);
    assert_eq!(up, vec!["crate::a -> crate::b"]);
    assert_eq!(unplaced, vec!["d"]);
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
        "crates/evm/src",
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
        use child::q;
        use std::fmt;
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
            "child::q",
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "crate::i::j",
            "crate::m::N",
            "crate::n::Hash",
            "self::k",
            "std::fmt",
            "super::g",
        ]
    );
    // Resolved from module `a::m`: a child's name is a path down, another crate's is none.
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<String>>();
    let modules = BTreeSet::from([m("a"), m("a::m"), m("a::m::child"), m("a::n")]);
    let from = m("a::m");
    assert_eq!(
        resolve("child::q", &from, false, &modules),
        Some(m("a::m::child"))
    );
    assert_eq!(resolve("std::fmt", &from, false, &modules), None);
    assert_eq!(
        resolve("super::n::X", &from, false, &modules),
        Some(m("a::n"))
    );
}
