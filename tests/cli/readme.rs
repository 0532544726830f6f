//! The README's tables and definitions are the binary's own output: every
//! fenced block right after a `<!-- output of: timestep-lab ARGS -->` marker,
//! in README.md and in every page of `docs/`, must equal what
//! `timestep-lab ARGS` prints today.
//!
//! A block after `<!-- output of: cargo run --example your_loop -- ARGS -->`
//! must equal what that example prints (its code is included here), and
//! every table after [`STRATEGY_TABLE`] must list the registry's strategies:
//! key, id and summary, from each strategy's row.
//!
//! After a deliberate change, regenerate them:
//! `README_UPDATE=1 cargo test --test cli readme::`.

use std::path::Path;
use std::process::Command;

#[path = "../../examples/your_loop.rs"]
#[expect(dead_code, reason = "the example's main is not called here, its report is")]
mod your_loop;

use timestep_lab::app::bindings::strategy_keys;
use timestep_lab::strategy::REGISTRY;

const MARKER: &str = "<!-- output of: timestep-lab ";

/// A block the `your_loop` example prints.
const EXAMPLE_MARKER: &str = "<!-- output of: cargo run --example your_loop -- ";

/// The line before a table of the registry's strategies (`| key | id | … |`).
const STRATEGY_TABLE: &str = "<!-- the registry's strategies: key, id, summary -->";

/// What prints a generated block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The binary.
    Binary,
    /// The `your_loop` example.
    YourLoop,
}

/// One generated block: the arguments and the line range of its body.
struct Block {
    source: Source,
    args: Vec<String>,
    body: std::ops::Range<usize>,
}

fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let (source, rest) = match (line.strip_prefix(MARKER), line.strip_prefix(EXAMPLE_MARKER)) {
            (Some(rest), _) => (Source::Binary, rest),
            (None, Some(rest)) => (Source::YourLoop, rest),
            (None, None) => continue,
        };
        let args = rest.trim_end_matches("-->").split_whitespace().map(str::to_owned).collect();
        assert!(lines.get(i + 1).is_some_and(|l| l.starts_with("```")), "README line {}: a fence must follow", i + 2);
        let end = (i + 2..lines.len())
            .find(|&j| lines[j].starts_with("```"))
            .unwrap_or_else(|| panic!("README line {}: the block never closes", i + 2));
        found.push(Block { source, args, body: i + 2..end });
    }
    found
}

fn run(source: Source, args: &[String]) -> String {
    if source == Source::YourLoop {
        let out = your_loop::report(args).unwrap_or_else(|e| panic!("your_loop {args:?} failed: {e}"));
        return out.trim_end().to_owned();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_timestep-lab")).args(args).output().expect("the binary runs");
    assert!(out.status.success(), "timestep-lab {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("output is UTF-8").trim_end().to_owned()
}

/// README.md and the manual's pages in `docs/`, in a stable order.
fn pages() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|dir| {
            dir.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect()
        })
        .unwrap_or_default();
    docs.sort();
    std::iter::once(root.join("README.md")).chain(docs).collect()
}

#[test]
fn every_generated_readme_block_matches_the_binary() {
    let pages = pages();
    let total: usize = pages.iter().map(|p| check_page(p)).sum();
    assert!(total >= 3, "the README and docs/ have their generated tables and definitions (found {total})");
}

/// Checks (or with `README_UPDATE`, rewrites) one page's generated blocks; returns how many it has.
fn check_page(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{} is readable: {e}", path.display()));
    let lines: Vec<&str> = text.lines().collect();
    let found = blocks(&lines);
    let update = std::env::var_os("README_UPDATE").is_some();
    let mut rebuilt: Vec<String> = Vec::new();
    let mut next = 0;
    let mut stale = Vec::new();
    for block in &found {
        let fresh = run(block.source, &block.args);
        let old = lines[block.body.clone()].join("\n");
        if fresh != old {
            stale.push(format!("timestep-lab {}\n--- README\n{old}\n--- binary\n{fresh}", block.args.join(" ")));
        }
        rebuilt.extend(lines[next..block.body.start].iter().map(|l| (*l).to_owned()));
        rebuilt.push(fresh);
        next = block.body.end;
    }
    rebuilt.extend(lines[next..].iter().map(|l| (*l).to_owned()));
    if update && !stale.is_empty() {
        std::fs::write(path, rebuilt.join("\n") + "\n")
            .unwrap_or_else(|e| panic!("{} is writable: {e}", path.display()));
        return found.len();
    }
    assert!(
        stale.is_empty(),
        "{} block(s) of {} differ from the binary (README_UPDATE=1 cargo test --test cli readme:: rewrites them):\n{}",
        stale.len(),
        path.display(),
        stale.join("\n\n")
    );
    found.len()
}

/// The registry's strategies as table rows: `| key | `id` | summary |`, in key order.
fn strategy_rows() -> Vec<String> {
    let keys = strategy_keys().into_iter().take(REGISTRY.len());
    keys.map(|(key, id)| format!("| {key} | `{}` | {} |", id.name(), id.info().summary)).collect()
}

#[test]
fn every_strategy_table_lists_the_registry() {
    let update = std::env::var_os("README_UPDATE").is_some();
    let rows = strategy_rows();
    assert_eq!(rows.len(), REGISTRY.len(), "every strategy of the registry has a key");
    let mut tables = 0;
    for path in pages() {
        let text = std::fs::read_to_string(&path).expect("a readable page");
        let lines: Vec<&str> = text.lines().collect();
        let mut rebuilt: Vec<String> = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            rebuilt.push(lines[i].to_owned());
            if lines[i].trim() != STRATEGY_TABLE {
                i += 1;
                continue;
            }
            tables += 1;
            // The header and its rule stay as written; the rows are the registry's.
            let header = i + 1..(i + 3).min(lines.len());
            assert!(
                lines[header.clone()].iter().all(|l| l.starts_with('|')),
                "{}:{}: a table follows",
                path.display(),
                i + 2
            );
            rebuilt.extend(lines[header.clone()].iter().map(|l| (*l).to_owned()));
            let end = (header.end..lines.len()).find(|&j| !lines[j].starts_with('|')).unwrap_or(lines.len());
            let written: Vec<&str> = lines[header.end..end].to_vec();
            if !update {
                assert_eq!(
                    written,
                    rows,
                    "{}: the table after line {} is not the registry's (README_UPDATE=1 rewrites it)",
                    path.display(),
                    i + 1
                );
            }
            rebuilt.extend(rows.iter().cloned());
            i = end;
        }
        if update {
            std::fs::write(&path, rebuilt.join("\n") + "\n").expect("a writable page");
        }
    }
    assert!(tables >= 2, "the README and docs/strategies.md list the strategies (found {tables})");
}

/// The words after `apt-get install` on the first line that has it.
fn packages(text: &str) -> Vec<String> {
    let line = text.lines().find(|l| l.contains("apt-get install")).unwrap_or_default();
    let after = line.split("apt-get install").nth(1).unwrap_or_default();
    let mut words: Vec<String> = after.split_whitespace().filter(|w| !w.starts_with('-')).map(str::to_owned).collect();
    words.sort();
    words
}

#[test]
fn the_readme_one_liner_installs_exactly_what_ci_installs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md is readable");
    let ci = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run is readable");
    let list = ci.lines().find(|l| l.starts_with("packages=(")).expect(".ci/run has a packages=(…) line");
    let mut ci_packages: Vec<String> =
        list.trim_start_matches("packages=(").trim_end_matches(')').split_whitespace().map(str::to_owned).collect();
    ci_packages.sort();
    assert!(!ci_packages.is_empty(), ".ci/run lists packages");
    assert_eq!(packages(&readme), ci_packages, "README's apt-get one-liner and .ci/run's packages differ");
}

#[test]
fn the_readme_s_first_lines_give_exactly_the_two_commands() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    let open = lines.iter().position(|l| l.starts_with("```")).expect("a fenced block");
    assert!(open <= 3, "the README opens with its commands, not with line {}", open + 1);
    let close = (open + 1..lines.len()).find(|&i| lines[i].starts_with("```")).expect("the block closes");
    let commands: Vec<&str> = lines[open + 1..close]
        .iter()
        .map(|l| l.split(" #").next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(commands, ["cargo run --release", "cargo test"], "the demo and every test, nothing else");
}
