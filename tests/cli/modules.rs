//! Sibling modules do not import each other in a cycle: when two rooms need
//! the same piece, it moves down into a third that both import (the report
//! card's `markup` under `html` and `plots`; `stats` under `schema` and
//! `setup`). Read from the source: `super::NAME` (and `super::super::NAME`
//! one directory deeper) and `crate::PATH::NAME` name a sibling `NAME`;
//! unit tests and comments aside.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The directories whose modules are checked, from the package root, with
/// the path their modules have in their crate: the app's rooms, the app's and
/// the core's crate roots (`platform` and `render`, `report` and `monitor`),
/// and the page's half of the platform.
const ROOTS: [(&str, &str); 13] = [
    ("src", "crate::"),
    ("src/app", "crate::app::"),
    ("src/commands", "crate::commands::"),
    ("src/platform", "crate::platform::"),
    ("src/platform/web", "crate::platform::web::"),
    ("src/platform/native", "crate::platform::native::"),
    ("src/render", "crate::render::"),
    ("src/render/overlay", "crate::render::overlay::"),
    ("src/report_card", "crate::report_card::"),
    ("src/sim", "crate::sim::"),
    ("timestep-core/src", "crate::"),
    ("timestep-core/src/monitor", "crate::monitor::"),
    ("timestep-core/src/report", "crate::report::"),
];

/// A file's code before its unit tests, without comment lines.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("a readable source file");
    let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap_or_default();
    code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Every `.rs` file under `dir`, with its depth below it (0 for `dir/x.rs`).
fn files(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, usize)>) {
    for entry in std::fs::read_dir(dir).expect("a source directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, depth + 1, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((path, depth));
        }
    }
}

/// The sibling module a file belongs to: `dir/x.rs` and `dir/x/…` are `x`.
fn module_of(dir: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(dir).expect("under the directory");
    let first = relative.components().next().expect("a file name").as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_owned()
}

/// The identifiers that follow `prefix` in `code` (`super::html::…` → `html`).
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    code.match_indices(prefix)
        .filter(|(at, _)| !code[..*at].ends_with("::") && !code[..*at].ends_with(|c: char| c.is_alphanumeric()))
        .filter_map(|(at, _)| {
            let rest = &code[at + prefix.len()..];
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            (end > 0).then(|| &rest[..end])
        })
        .filter(|name| *name != "super")
        .collect()
}

/// Which sibling imports which, in `dir` (a module of its crate at `crate_path`, `crate::report_card::`).
fn imports(root: &Path, dir: &str, crate_path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let path = root.join(dir);
    let mut found = Vec::new();
    files(&path, 0, &mut found);
    let modules: BTreeSet<String> =
        found.iter().map(|(f, _)| module_of(&path, f)).filter(|m| m != "mod" && m != "lib").collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, depth) in &found {
        let from = module_of(&path, file);
        if from == "mod" {
            continue;
        }
        // `super::` from dir/x.rs or dir/x/mod.rs is dir; from dir/x/y.rs it is dir/x.
        let is_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
        let ups = depth + usize::from(!is_mod_rs);
        let prefix = "super::".repeat(ups);
        let text = code(file);
        for name in names_after(&text, &prefix).into_iter().chain(names_after(&text, crate_path)) {
            if name != from && modules.contains(name) {
                graph.entry(from.clone()).or_default().insert(name.to_owned());
            }
        }
    }
    graph
}

/// One cycle through `start`, if the graph has one: `[a, b, a]`.
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().expect("a path is never empty");
        for next in graph.get(last).into_iter().flatten() {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_owned());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

#[test]
fn no_two_sibling_modules_import_each_other_through_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cycles = Vec::new();
    let mut edges = 0;
    for (dir, crate_path) in ROOTS {
        let graph = imports(root, dir, crate_path);
        edges += graph.values().map(BTreeSet::len).sum::<usize>();
        for module in graph.keys() {
            if let Some(cycle) = cycle_from(&graph, module) {
                cycles.push(format!("{dir}: {}", cycle.join(" -> ")));
            }
        }
    }
    assert!(edges >= 20, "the reader finds the imports ({edges})");
    assert!(cycles.is_empty(), "sibling modules in a cycle (move the shared piece down):\n{}", cycles.join("\n"));
}

#[test]
fn the_reader_finds_a_planted_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("html".to_owned(), BTreeSet::from(["plots".to_owned()])),
        ("plots".to_owned(), BTreeSet::from(["judge".to_owned(), "html".to_owned()])),
    ]
    .into_iter()
    .collect();
    assert_eq!(cycle_from(&graph, "html"), Some(vec!["html".into(), "plots".into(), "html".into()]));
    assert_eq!(cycle_from(&graph, "judge"), None, "judge imports nothing");
    assert_eq!(names_after("use super::html::{self, escape};\nsuper::plots::x", "super::"), ["html", "plots"]);
    assert_eq!(names_after("use super::super::schema::X;", "super::"), Vec::<&str>::new(), "two levels up is not one");
}
