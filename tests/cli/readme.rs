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

#[path = "../../xtask/src/wasm_target.rs"]
mod wasm_target;

/// The commands of README.md's section 2 block that runs `serve`, comments left out, as written.
fn serve_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README.md");
    let section = readme.split("\n## 2. ").nth(1).and_then(|s| s.split("\n## ").next()).expect("section 2");
    let block = section
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("timestep-lab serve"))
        .expect("a block with `timestep-lab serve` in section 2");
    block
        .lines()
        .map(|l| l.split(" #").next().unwrap_or_default().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

/// A free directory for one of these tests.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("timestep-lab-readme-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

#[test]
fn serve_without_a_page_says_in_one_line_the_readme_s_steps_that_build_it() {
    let commands = serve_commands();
    let serve = commands.iter().position(|c| c == "timestep-lab serve").expect("`timestep-lab serve` as written");
    assert!(serve >= 1, "the steps that build the page come before serve: {commands:?}");
    assert!(
        commands.iter().any(|c| c == "timestep-lab measure --send URL"),
        "this machine's card, sent without --out: {commands:?}"
    );
    // A fresh clone: no page built. Tests listen on loopback only, hence --addr.
    let clone = scratch("no-page");
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .current_dir(&clone)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "a usage error: {stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "at once, building nothing: {:?}",
        started.elapsed()
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    let asked = stderr.split('`').nth(1).unwrap_or_else(|| panic!("a command in backquotes: {stderr}"));
    assert_eq!(asked, commands[..serve].join(" && "), "serve asks for exactly the README's steps before it");
    assert!(!clone.join("target").exists(), "the product ran no build");
    let _ = std::fs::remove_dir_all(&clone);
}

/// Whether `tool` runs.
fn runs(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn the_readme_s_serve_commands_run_as_written_in_the_checkout() {
    let commands = serve_commands();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !runs("rustup") {
        eprintln!("skipped: no rustup, the section's first step (`{}`)", commands[0]);
        return;
    }
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["rustup", "target", "add", target] => {
                assert_eq!(*target, wasm_target::TARGET);
                // As the web tests do: rustup downloads the target only where it is missing.
                if !wasm_target::installed() {
                    let added = Command::new("rustup").args(&words[1..]).status();
                    if !added.is_ok_and(|s| s.success()) || !wasm_target::installed() {
                        eprintln!("skipped: `{command}` failed (offline?): the page cannot be built here");
                        return;
                    }
                }
            }
            ["cargo", "xtask", "web"] => {
                // Minutes the first time; the web tests' build (same profile, same target dir) shares it.
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let built = Command::new(cargo).args(&words[1..]).current_dir(root).output().expect("cargo runs");
                assert!(built.status.success(), "`{command}`: {}", String::from_utf8_lossy(&built.stderr));
                assert!(root.join("target/site/index.html").is_file(), "`{command}` leaves the page in target/site");
            }
            ["timestep-lab", "serve"] => serve_as_written(root, &commands),
            ["timestep-lab", "measure", "--send", "URL"] => {} // with serve, above
            _ => panic!("a command this test does not know how to run: `{command}`"),
        }
    }
}

/// `timestep-lab serve` in the checkout (on loopback, cards in a scratch directory: tests write
/// nowhere else), the page from where `cargo xtask web` put it, and a card sent to the printed
/// address with `measure --send URL` (a measured card: a tour needs a window, tests/window's).
fn serve_as_written(root: &Path, commands: &[String]) {
    use std::io::{Read as _, Write as _};
    let cards = scratch("cards");
    let mut child = Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
        .args(["serve", "--addr", "127.0.0.1:0", "--cards"])
        .arg(&cards)
        .current_dir(root)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut stdout = child.stdout.take().expect("its stdout");
    let banner = crate::banner::read(&mut stdout).unwrap_or_else(|banner| banner);
    let url = crate::banner::local_url(&banner);
    let page =
        url.as_deref().and_then(|u| u.strip_prefix("http://")).and_then(|u| u.split_once('/')).map(|(host, _)| {
            let mut stream = std::net::TcpStream::connect(host).expect("connects to the loopback");
            stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).expect("a timeout");
            let _ = write!(stream, "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            answer
        });
    let sent = url.as_deref().map(|url| {
        let card = root.join("tests/data/report_card/60hz.json");
        let send = commands.iter().find(|c| c.starts_with("timestep-lab measure --send")).expect("measure --send");
        let mut words: Vec<String> =
            send.split_whitespace().skip(1).map(|w| if w == "URL" { url.to_owned() } else { w.to_owned() }).collect();
        words.extend(["--card".to_owned(), card.display().to_string()]);
        Command::new(env!("CARGO_BIN_EXE_timestep-lab")).args(&words).output().expect("measure runs")
    });
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&cards);
    assert!(url.is_some(), "serve printed the address for this machine: {banner}");
    let page = page.unwrap_or_default();
    assert!(
        page.starts_with("HTTP/1.1 200") && page.contains("<html"),
        "the page built by `cargo xtask web` is served"
    );
    let sent = sent.expect("measure ran");
    assert!(sent.status.success(), "measure --send URL: {}", String::from_utf8_lossy(&sent.stderr));
}
