//! The README's `cargo run` lines, run as written. They are read from
//! README.md and every page of `docs/`, so a new line is a new trial: every line of a fenced block and
//! every inline code span that starts with `cargo run` (a bare
//! `cargo run --release --`, the prefix the README tells you to put before a
//! command, is not a command). Each runs from the package root, word for
//! word, under an Xvfb of its own:
//!
//! ```text
//! cargo builds ──► "Running `…`" ──► the program runs ──► exits by itself ──────────► exit 0
//!                                          └─► a window up for WINDOW_SECONDS ──► Esc ──► exit 0
//! ```
//!
//! Both windowed programs in the README quit on Esc (the demo and
//! `minimal_game`), as a user quits them; headless ones end by themselves.
//! A plain ``` block right after a command's own one-command block is its
//! output as the README shows it: those lines must appear, in order and
//! together, in what it prints (`compare`'s table).
//!
//! The `--release` lines need a release build. Without one these trials are
//! ignored with the reason (`cargo build --release` makes one; CI does, in
//! `.ci/run`, before `cargo test`), and fail under `TIMESTEP_LAB_REQUIRE_GPU`.

use crate::harness::{self, Missing};

use libtest_mimic::{Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long a program's window stays up before Esc: a few hundred frames, and longer than
/// `minimal_game --seconds 3`, which ends by itself.
const WINDOW_SECONDS: u64 = 5;

/// How long a program may run (after its build) before it counts as hung.
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// How long a build may take: a release build from nothing on 2 busy cores.
const BUILD_LIMIT: Duration = Duration::from_secs(3600);

/// The status line cargo prints when the build is done and the program starts.
const RUNNING: &str = "Running `";

/// One `cargo run` line of the README.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadmeCommand {
    /// Its words, `cargo` first.
    pub words: Vec<String>,
    /// The output the README shows right after it, if any: lines that must appear in what it prints.
    pub shown: Vec<String>,
}

/// Every `cargo run` line of `readme`, in order, each once.
pub fn commands(readme: &str) -> Vec<ReadmeCommand> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut found: Vec<ReadmeCommand> = Vec::new();
    let mut add = |words: Vec<String>, shown: Vec<String>| {
        let complete = words.last().is_some_and(|w| w != "--");
        if complete && !found.iter().any(|c| c.words == words) {
            found.push(ReadmeCommand { words, shown });
        }
    };
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("```") {
            let end = (i + 1..lines.len()).find(|&j| lines[j].starts_with("```")).unwrap_or(lines.len());
            let block: Vec<Vec<String>> = lines[i + 1..end].iter().filter_map(|l| command_words(l)).collect();
            let one = block.len() == 1;
            for words in block {
                add(words, if one { output_after(&lines, end) } else { Vec::new() });
            }
            i = end + 1;
            continue;
        }
        for span in lines[i].split('`').skip(1).step_by(2) {
            if let Some(words) = command_words(span) {
                add(words, Vec::new());
            }
        }
        i += 1;
    }
    found
}

/// The words of a `cargo run` line, its `# comment` left out; `None` for any other line.
fn command_words(line: &str) -> Option<Vec<String>> {
    let code = line.split(" #").next().unwrap_or_default().trim();
    code.starts_with("cargo run").then(|| code.split_whitespace().map(str::to_owned).collect())
}

/// The lines of a plain ``` block that follows the block ending at line `end`, blank lines apart.
fn output_after(lines: &[&str], end: usize) -> Vec<String> {
    let Some(start) = (end + 1..lines.len()).find(|&j| !lines[j].trim().is_empty()) else { return Vec::new() };
    if lines[start] != "```" {
        return Vec::new();
    }
    lines[start + 1..].iter().take_while(|l| !l.starts_with("```")).map(|l| (*l).to_owned()).collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether a release build of the binary is there (cargo brings it up to date).
fn release_built() -> bool {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), |dir| root().join(dir));
    target.join("release").join("timestep-lab").is_file()
}

fn xdotool(display: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool").args(args).env("DISPLAY", display).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A window shown on `display` (the only program on it is the one under test).
fn visible_window(display: &str) -> Option<String> {
    xdotool(display, &["search", "--onlyvisible", "--name", "."])?.lines().last().map(str::to_owned)
}

/// Esc in `window`: focused first, as key presses go to the focused window.
fn press_escape(display: &str, window: &str) -> bool {
    let _ = xdotool(display, &["windowfocus", "--sync", window]);
    let _ = xdotool(display, &["mousemove", "--window", window, "100", "100"]);
    xdotool(display, &["key", "Escape"]).is_some()
}

/// The last lines of a log, for a failure message.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// How a run ended.
struct Ended {
    status: std::process::ExitStatus,
    stdout: String,
    stderr: String,
    quit_with_escape: bool,
}

/// Runs `command` on `display` and ends it as the module docs say.
fn run(command: &ReadmeCommand, display: &str, dir: &Path) -> Result<Ended, Failed> {
    let (out_path, err_path) = (dir.join("stdout.log"), dir.join("stderr.log"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(cargo)
        .args(&command.words[1..])
        .current_dir(root())
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).map_err(|e| format!("stdout log: {e}"))?)
        .stderr(std::fs::File::create(&err_path).map_err(|e| format!("stderr log: {e}"))?)
        .spawn()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    let stderr = || std::fs::read_to_string(&err_path).unwrap_or_default();
    let started = Instant::now();
    let mut running_since: Option<Instant> = None;
    let mut window_since: Option<Instant> = None;
    let mut quit_with_escape = false;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("waiting: {e}"))? {
            break status;
        }
        let now = Instant::now();
        if running_since.is_none() && stderr().contains(RUNNING) {
            running_since = Some(now);
        }
        let Some(running) = running_since else {
            if now - started > BUILD_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still building after {BUILD_LIMIT:?}:\n{}", tail(&stderr())).into());
            }
            std::thread::sleep(Duration::from_millis(100));
            continue;
        };
        if now - running > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {RUN_LIMIT:?}:\n{}", tail(&stderr())).into());
        } else if !quit_with_escape && let Some(window) = visible_window(display) {
            let since = *window_since.get_or_insert(now);
            if now - since >= Duration::from_secs(WINDOW_SECONDS) {
                quit_with_escape = press_escape(display, &window);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    Ok(Ended {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: stderr(),
        quit_with_escape,
    })
}

/// Whether `shown` appears in `output` as a run of whole lines, in order.
fn shows(output: &str, shown: &[String]) -> bool {
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    shown.is_empty() || lines.windows(shown.len()).any(|w| w.iter().zip(shown).all(|(a, b)| *a == b.trim_end()))
}

fn runs_as_written(command: &ReadmeCommand) -> Result<Completion, Failed> {
    let line = command.words.join(" ");
    if command.words.iter().any(|w| w == "--release") && !release_built() {
        let missing = Missing::new(
            "no release build yet",
            "`cargo build --release` makes one (CI does); this test does not start a release build of its own",
        );
        return harness::unavailable(&missing);
    }
    if command.words.iter().any(|w| w.contains(['"', '\'', '$', '*'])) {
        return Err(format!("{line}: quoting or shell syntax; this test splits README lines at spaces").into());
    }
    let _serial = harness::one_window_at_a_time();
    let xvfb = match harness::start_xvfb("1280x800x24") {
        Ok(xvfb) => xvfb,
        Err(missing) => return harness::unavailable(&missing),
    };
    let dir = std::env::temp_dir().join(format!("timestep-lab-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let ended = run(command, &xvfb.name, &dir)?;
    if !ended.status.success() {
        // A windowed program on a machine without an adapter: a skip, not a failure.
        if let Err(missing) = harness::gpu_probe() {
            return harness::unavailable(missing);
        }
        let how = if ended.quit_with_escape { " after Esc" } else { "" };
        return Err(format!("{line} ended with {}{how}; stderr:\n{}", ended.status, tail(&ended.stderr)).into());
    }
    if !shows(&ended.stdout, &command.shown) {
        return Err(format!(
            "{line}: the README shows\n{}\nbut it printed\n{}",
            command.shown.join("\n"),
            ended.stdout
        )
        .into());
    }
    eprintln!("{line}: exit 0{}", if ended.quit_with_escape { " (quit with Esc)" } else { "" });
    Ok(Completion::Completed)
}

/// README.md and the manual's pages in `docs/`, in a stable order: each page's
/// `cargo run` lines are run as written.
fn pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .map(|dir| {
            dir.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect()
        })
        .unwrap_or_default();
    docs.sort();
    std::iter::once(root().join("README.md")).chain(docs).collect()
}

/// One trial per README or docs/ line, named after it, and the parser's own check.
pub fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = pages()
        .iter()
        .flat_map(|page| commands(&std::fs::read_to_string(page).unwrap_or_default()))
        .map(|command| {
            let name = harness::name(module_path!(), &format!("runs_as_written: {}", command.words.join(" ")));
            Trial::ignorable_test(name, move || runs_as_written(&command))
        })
        .collect();
    trials.push(harness::test(
        harness::name(module_path!(), "the_readme_s_cargo_run_lines_are_all_found"),
        the_readme_s_cargo_run_lines_are_all_found,
    ));
    trials
}

fn the_readme_s_cargo_run_lines_are_all_found() {
    let sample = "\
cargo run --release   # the demo window
Write `cargo run --release --` in its place: `cargo run --release -- simulate --strategy all`.

```sh
cargo run --release -- compare a.json b.json
```

```
vsync on: …
row
```
```sh
cargo run --example a          # one
cargo run --example b -- --x 3 # two
```
```
not the output of either
```
";
    let found = commands(sample);
    let lines: Vec<String> = found.iter().map(|c| c.words.join(" ")).collect();
    assert_eq!(
        lines,
        [
            "cargo run --release -- simulate --strategy all",
            "cargo run --release -- compare a.json b.json",
            "cargo run --example a",
            "cargo run --example b -- --x 3"
        ],
        "a fenced line outside a fence is prose, `cargo run --release --` is a prefix"
    );
    assert_eq!(found[1].shown, ["vsync on: …", "row"], "the plain block right after a one-command block");
    assert!(found[2].shown.is_empty() && found[3].shown.is_empty(), "a block of two commands has no one output");
    assert!(shows("a\nvsync on: …\nrow\nb\n", &found[1].shown) && !shows("vsync on: …\nb\nrow\n", &found[1].shown));
    let all: Vec<ReadmeCommand> =
        pages().iter().flat_map(|page| commands(&std::fs::read_to_string(page).unwrap_or_default())).collect();
    assert!(all.len() >= 6, "the README's and docs/' cargo run lines: {all:?}");
    assert!(all.iter().any(|c| c.words == ["cargo", "run", "--release"]), "the demo's own line: {all:?}");
    assert!(all.iter().any(|c| !c.shown.is_empty()), "compare's table is checked: {all:?}");
}
