//! Output files are checked before any work: a path that cannot be written
//! is a one-line usage error (exit 2) before the window opens or the first
//! run starts; a write that fails after the runs still leaves every other
//! result printed.

use crate::binary::{assert_usage_error, run};
use std::path::PathBuf;

/// A scratch directory unique to this test process.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timestep-lab-paths-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn text(path: &std::path::Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn run_refuses_unwritable_outputs_before_it_looks_for_a_display() {
    let dir = scratch_dir("run");
    let png_dir = dir.join("shots.png");
    std::fs::create_dir_all(&png_dir).expect("a directory named like a file");
    let missing = dir.join("no-such-dir").join("stats.json");
    let cases: [(&[&str], &str); 5] = [
        (&["--stats-json", "/proc/x.json"], "--stats-json: cannot write '/proc/x.json'"),
        (&["--stats-json", text(&dir)], "is a directory"),
        (&["--stats-json", text(&missing)], "does not exist"),
        (&["--screenshot", "/proc/x.png"], "--screenshot: cannot write"),
        (&["--screenshot", text(&png_dir)], "--screenshot"),
    ];
    for (args, mentions) in cases {
        let out = run(args);
        // Without a display the run would stop at the window with exit 1: exit 2
        // and this message show the check came first.
        assert_usage_error(args, &out, mentions);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("no display"), "{args:?}");
    }
}

#[test]
fn an_existing_output_file_is_accepted_and_left_alone_until_the_end() {
    let path = scratch_dir("existing").join("stats.json");
    std::fs::write(&path, "previous run").expect("write");
    let out = run(&["--stats-json", text(&path), "--exit-after", "1"]);
    assert_eq!(out.status.code(), Some(1), "gets as far as the display: {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "previous run", "the check writes nothing");
    let fresh = scratch_dir("fresh").join("stats.json");
    let out = run(&["--stats-json", text(&fresh), "--exit-after", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!fresh.exists(), "the check leaves no empty file behind");
}

#[test]
fn simulate_refuses_an_unwritable_plot_before_running() {
    let dir = scratch_dir("plot");
    let cases = [
        ("/proc/x.svg".to_owned(), "--plot: cannot write '/proc/x.svg'"),
        (text(&dir).to_owned(), "is a directory"),
        (text(&dir.join("missing").join("runs.svg")).to_owned(), "does not exist"),
    ];
    for (path, mentions) in &cases {
        let args = ["simulate", "--plot", path.as_str()];
        let out = run(&args);
        assert_usage_error(&args, &out, mentions);
        assert!(out.stdout.is_empty(), "nothing ran, no table: {}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn a_plot_that_fails_after_the_runs_still_prints_the_table() {
    // /dev/full opens for writing (the check passes) but every write fails.
    let args = ["simulate", "--updates", "600", "--plot", "/dev/full"];
    let out = run(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a failed write after the work is exit 1: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains("plot"), "{stderr}");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.starts_with("strategy") && table.contains("catch-up @ 60 Hz vsync on"), "the table: {table}");
}
