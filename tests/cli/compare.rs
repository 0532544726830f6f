//! `timestep-lab compare` through the binary: report cards at 60 and 144 Hz,
//! simulator JSON beside them, the HTML page, and bad input.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::binary;

use crate::report_card::{FIXTURES, fixture, scratch};

fn compare(args: &[&str]) -> Output {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    binary::run(&all)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

fn stdout(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "stdout: {text}\nstderr: {}", String::from_utf8_lossy(&out.stderr));
    text
}

fn fixtures() -> [PathBuf; 2] {
    [fixture(FIXTURES[0].0), fixture(FIXTURES[1].0)]
}

#[test]
fn two_report_cards_give_a_column_per_monitor_in_both_vsync_passes() {
    let [a, b] = fixtures();
    let text = stdout(&compare(&[path(&a), path(&b)]));
    for pass in ["vsync on:", "vsync off:"] {
        let table = text.split(pass).nth(1).unwrap_or_else(|| panic!("a '{pass}' table: {text}"));
        let header = table.lines().nth(1).expect("a header line");
        assert!(
            header.starts_with("strategy")
                && header.contains("| virtual monitor · monitor 1 (60 Hz)")
                && header.contains("| virtual monitor · monitor 2 (144 Hz)"),
            "{pass} header: {header}"
        );
        for strategy in ["lockstep", "interpolated", "snapped", "auto"] {
            let row = table.lines().find(|l| l.starts_with(strategy)).unwrap_or_else(|| panic!("{strategy}: {table}"));
            assert_eq!(row.matches(" | ").count(), 2, "a cell per monitor: {row}");
        }
    }
    assert_eq!(text.matches("virtual monitor · monitor 1 (60 Hz): best ").count(), 2, "a verdict per pass: {text}");
    assert!(text.contains("the simulator agrees on"), "report cards carry predictions: {text}");
    assert!(text.contains("best (*): among runs with |drift| <= 120 ms/min"), "the rule is stated: {text}");
}

#[test]
fn simulator_json_sits_beside_a_report_card() {
    let dir = scratch("compare-sim");
    let sim = binary::run(&[
        "simulate",
        "--strategy",
        "interpolated,snapped",
        "--refresh",
        "144",
        "--model",
        "desktop",
        "--seconds",
        "10",
        "--format",
        "json",
    ]);
    let sim_path = dir.join("sim144.json");
    std::fs::write(&sim_path, stdout(&sim)).expect("written");
    let [a, _] = fixtures();
    let text = stdout(&compare(&[path(&a), path(&sim_path)]));
    let header = text.lines().find(|l| l.starts_with("strategy")).expect("a header");
    assert!(header.contains("monitor 1 (60 Hz)") && header.contains("sim 144 Hz (desktop)"), "{header}");
    let lockstep = text.lines().find(|l| l.starts_with("lockstep")).expect("lockstep's row");
    assert!(lockstep.trim_end().ends_with('-'), "the simulator ran no lockstep: {lockstep}");
    assert!(text.contains("sim 144 Hz (desktop): best "), "{text}");
}

#[test]
fn html_is_written_only_where_asked() {
    let dir = scratch("compare-html");
    let html = dir.join("compare.html");
    let [a, b] = fixtures();
    stdout(&compare(&[path(&a), path(&b), "--html", path(&html)]));
    let page = std::fs::read_to_string(&html).expect("compare.html is written");
    assert_eq!(page.matches("<svg").count(), 2, "a chart per vsync pass");
    assert!(!page.contains("http") && !page.contains("<script"), "self-contained");
    let before: Vec<PathBuf> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").path()).collect();
    stdout(&compare(&[path(&a)]));
    let after: Vec<PathBuf> = std::fs::read_dir(&dir).expect("dir").map(|e| e.expect("entry").path()).collect();
    assert_eq!(before, after, "no file without --html");
}

#[test]
fn a_tight_drift_bound_leaves_columns_without_a_best() {
    let [a, _] = fixtures();
    // 0.001 ms a minute: an exact speed's least-squares slope is off by float rounding (5e-9 here).
    let text = stdout(&compare(&[path(&a), "--max-drift", "0.001"]));
    assert!(text.contains("best (*): among runs with |drift| <= 0.001 ms/min"), "{text}");
    let off = text.split("vsync off:").nth(1).expect("a vsync-off table");
    assert!(
        off.contains("virtual monitor · monitor 1 (60 Hz): best none (every run is off speed or unmeasured)"),
        "{off}"
    );
    let rows = off.lines().skip(3).take_while(|l| !l.starts_with("virtual monitor · monitor"));
    assert!(rows.clone().count() == 10 && rows.into_iter().all(|r| r.ends_with(" !")), "every run is marked: {off}");
    // With vsync on, lockstep and fixed-fps run at exactly 60 Hz: one of them is best.
    let on = text.split("vsync off:").next().expect("a vsync-on table");
    assert!(
        on.contains("virtual monitor · monitor 1 (60 Hz): best fixed-fps")
            || on.contains("virtual monitor · monitor 1 (60 Hz): best lockstep"),
        "{on}"
    );
}

#[test]
fn files_that_are_not_reports_or_runs_exit_2_naming_the_file() {
    let dir = scratch("compare-bad");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("written");
        p
    };
    let mut future: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(FIXTURES[0].0)).expect("fixture")).expect("JSON");
    future["version"] = serde_json::json!(2);
    let cases = [
        (write("notes.txt", "hello"), "not valid JSON"),
        (write("object.json", "{\"hello\": 1}"), "neither a report card"),
        (write("empty.json", "[]"), "an empty list of runs"),
        (write("future.json", &future.to_string()), "version 2 is newer"),
        (dir.join("missing.json"), "cannot read"),
    ];
    for (file, says) in &cases {
        let [a, _] = fixtures();
        let args = [path(&a), path(file)];
        let out = compare(&args);
        binary::assert_usage_error(&args, &out, says);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(path(file)), "the message names the file: {stderr}");
    }
}

/// A card with a broken figure would print a 300-digit cell; a refresh below 0 Hz, nonsense.
#[test]
fn a_card_with_a_figure_out_of_range_exits_2_naming_the_field() {
    let dir = scratch("compare-range");
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture(FIXTURES[0].0)).expect("fixture")).expect("JSON");
    let mut huge = card.clone();
    huge["monitors"][0]["runs"][0]["judder_ms"] = serde_json::json!(1e308);
    let mut negative = card;
    negative["monitors"][0]["present_cadence_hz"] = serde_json::json!(-1.0);
    for (name, card, says) in [
        ("huge.json", huge, "monitors[0].runs[0].judder_ms is 1e308 ms, more than 1e12 ms"),
        ("negative.json", negative, "monitors[0].present_cadence_hz is -1 Hz: a rate is more than 0"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, card.to_string()).expect("written");
        let args = [path(&file)];
        let out = compare(&args);
        binary::assert_usage_error(&args, &out, says);
        assert!(out.stdout.is_empty(), "no table is printed: {}", String::from_utf8_lossy(&out.stdout));
    }
}

/// `compare /dev/zero` grew to 12 GB before the reads were bounded. Under a 400 MB address-space
/// limit (the debug binary alone maps about 100 MB) an unbounded read ends in "out of memory";
/// the bounded one stops at its 16 MB limit and says so.
#[cfg(target_os = "linux")]
#[test]
fn an_endless_file_exits_2_naming_the_size_limit_within_400_mb() {
    let out = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 400000 && exec \"$0\" compare /dev/zero", env!("CARGO_BIN_EXE_timestep-lab")])
        .output()
        .expect("sh runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "timestep-lab: '/dev/zero' is larger than 16 MB, the most this reads (is it the right file?)",
        "one line naming the limit"
    );
}

#[test]
fn a_negative_drift_bound_exits_2() {
    let [a, _] = fixtures();
    let out = compare(&[path(&a), "--max-drift", "-1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // clap reports the flag (its message format is main's business).
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--max-drift") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn an_unwritable_html_file_exits_2_before_any_work() {
    let [a, _] = fixtures();
    let args = [path(&a), "--html", "/nonexistent-dir/compare.html"];
    binary::assert_usage_error(&args, &compare(&args), "--html: cannot write '/nonexistent-dir/compare.html'");
}

/// `measure`'s flags are checked before a window is opened: these fail the
/// same with or without a display (the test has none).
#[test]
fn bad_measure_flags_exit_2_with_one_line_naming_the_flag() {
    let dir = scratch("measure-flags");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").expect("written");
    let out_dir = dir.join("out");
    let cases: [(Vec<&str>, &str); 6] = [
        (vec!["--out", path(&file)], "--out: '"),
        (vec!["--out", path(&out_dir), "--monitor", "0"], "--monitor: 0 is out of range"),
        (vec!["--out", path(&out_dir), "--monitor", "some"], "or 'all'"),
        (vec!["--out", path(&out_dir), "--strategies", "lockstep,warp"], "--strategies: unknown strategy 'warp'"),
        (vec!["--out", path(&out_dir), "--seconds-per-strategy", "0"], "--seconds-per-strategy: 0 s is out of range"),
        (vec!["--out", path(&out_dir), "--emulate-jitter-us", "5"], "--emulate-jitter-us: needs --emulate-refresh"),
    ];
    for (flags, says) in &cases {
        let mut args = vec!["measure"];
        args.extend(flags);
        binary::assert_usage_error(&args, &binary::run(&args), says);
    }
}

#[test]
fn a_folder_stands_for_the_cards_in_it() {
    let dir = scratch("compare-dir");
    let [a, b] = fixtures();
    std::fs::copy(&a, dir.join("report.json")).expect("copy a card under the old name");
    std::fs::copy(&b, dir.join("report-virtual-monitor-144hz-20261127-1942.json")).expect("copy a named card");
    std::fs::write(dir.join("notes.json"), "{}").expect("a file that is no card");
    let text = stdout(&compare(&[path(&dir)]));
    let header = text.lines().find(|l| l.starts_with("strategy")).expect("a header");
    assert!(header.contains("(60 Hz)") && header.contains("(144 Hz)"), "both cards of the folder: {header}");
    assert!(!text.contains("notes.json"), "only card files are read: {text}");
    let empty = scratch("compare-empty-dir");
    let out = compare(&[path(&empty)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("holds no report card") && err.trim().lines().count() == 1, "one line naming it: {err}");
}

#[test]
fn every_column_that_supports_a_verdict_says_why_and_one_strategy_ships() {
    let [a, b] = fixtures();
    let text = stdout(&compare(&[path(&a), path(&b)]));
    assert!(text.contains("\n  why "), "a reason for the best: {text}");
    assert!(text.contains("\n  not lockstep: "), "a reason for each miss: {text}");
    assert!(text.contains("\n  frames: lockstep "), "the frames each figure rests on: {text}");
    let ship: Vec<&str> = text.lines().filter(|l| l.starts_with("ship this (")).collect();
    assert_eq!(ship.len(), 2, "one line to ship a pass, vsync on first: {text}");
    assert!(
        ship[0].starts_with("ship this (vsync on): ") && ship[1].starts_with("ship this (vsync off): "),
        "{ship:?}"
    );
    assert!(ship[0].contains("the best on both screens") && ship[0].contains("; weakest on "), "{}", ship[0]);
}

/// README's compare section: the block after `<!-- last lines of: timestep-lab ARGS -->` is the
/// ship lines (and their ties) that `timestep-lab ARGS` prints, word for word. With
/// `README_UPDATE` set, the block is rewritten from the binary.
#[test]
fn the_readmes_compare_lines_are_the_answers_last_lines() {
    const MARKER: &str = "<!-- last lines of: timestep-lab ";
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    let at = lines.iter().position(|l| l.starts_with(MARKER)).expect("README's compare section has its marker");
    let args: Vec<&str> = lines[at].trim_start_matches(MARKER).trim_end_matches("-->").split_whitespace().collect();
    assert!(lines[at + 1].starts_with("```"), "a fence follows the marker");
    let end = (at + 2..lines.len()).find(|&j| lines[j].starts_with("```")).expect("the block closes");
    let text = stdout(&binary::run(&args));
    let ship: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("ship this ("))
        .take_while(|l| l.starts_with("ship this (") || l.starts_with("  "))
        .collect();
    assert!(ship.len() >= 2, "a ship line a pass: {text}");
    if std::env::var_os("README_UPDATE").is_some() {
        let mut out: Vec<&str> = lines[..at + 2].to_vec();
        out.extend(&ship);
        out.extend(&lines[end..]);
        std::fs::write(&readme_path, out.join("\n") + "\n").expect("README.md rewritten");
        return;
    }
    assert_eq!(lines[at + 2..end], ship[..], "README's compare lines, word for word (README_UPDATE=1 rewrites them)");
}
