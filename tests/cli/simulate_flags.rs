//! `timestep-lab simulate` through the binary: formats, files, and bad input.

use std::path::PathBuf;
use std::process::Output;

use crate::binary;

fn simulate(args: &[&str]) -> Output {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    binary::run(&all)
}

/// A scratch file unique to this test process.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("timestep-lab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("scratch file");
    path
}

fn assert_usage_error(args: &[&str], mentions: &str) {
    binary::assert_usage_error(args, &simulate(args), mentions);
}

#[test]
fn bad_flag_values_exit_2_with_one_line_on_stderr() {
    let cases: &[(&[&str], &str)] = &[
        (&["--tick-rate", "0"], "--tick-rate"),
        (&["--tick-rate", "-60"], "--tick-rate"),
        (&["--tick-rate", "NaN"], "--tick-rate"),
        (&["--tick-rate", "inf"], "--tick-rate"),
        (&["--tick-rate", "100000"], "--tick-rate"),
        (&["--tick-rate", "0.5"], "--tick-rate"),
        (&["--refresh", "0"], "--refresh"),
        (&["--refresh", "60,fast"], "--refresh"),
        (&["--refresh", "2000"], "--refresh"),
        (&["--strategy", "warp-speed"], "warp-speed"),
        (&["--strategy", "catch-up,nope"], "nope"),
        (&["--model", "laptop"], "laptop"),
        (&["--updates", "0"], "--updates"),
        (&["--updates", "many"], "--updates"),
        (&["--seconds", "0"], "--seconds"),
        (&["--seconds", "-2"], "--seconds"),
        (&["--render-ms", "-1"], "--render-ms"),
        (&["--render-ms", "NaN"], "--render-ms"),
        (&["--update-ms", "lots"], "--update-ms"),
        (&["--vsync", "sometimes"], "--vsync"),
        (&["--format", "yaml"], "--format"),
        (&["--fuzzy-variant", "58-60"], "--fuzzy-variant"),
        (&["--start-time", "-1"], "--start-time"),
        // The one supported range, 1–1000 Hz, in every rate message (not the parser's old 0.001..=10000).
        (&["--tick-rate", "99999999999999999999"], "--tick-rate: 99999999999999999999 is outside 1–1000 Hz"),
        (&["--refresh", "60,0.5"], "--refresh: 0.5 is outside 1–1000 Hz"),
        (&["--seed", "-1"], "--seed"),
        (&["--start-phase", "soon"], "--start-phase"),
        (&["--start-phase", "-0.001"], "--start-phase"),
        (&["--start-phase", "1.5"], "--start-phase"),
        (&["--phases", "0"], "--phases"),
        (&["--phases", "1001"], "--phases"),
        (&["--phases", "3", "--start-phase", "0.002"], "cannot be used with"),
        (&["--phases", "3", "--plot", "x.svg"], "--phases"),
        (&["--updates", "10", "--seconds", "1"], "--updates cannot be used with --seconds"),
        (&["--plot", ""], "--plot"),
        (&["--no-such-flag"], "--no-such-flag"),
        (&["--compositor", "-7"], "--compositor: latch -7 ms is out of range"),
        (&["--compositor", "7:x"], "--compositor: delay 'x'"),
        (&["--compositor", "mutter"], "--compositor: mutter: Mutter computes its repaint time"),
    ];
    for (args, mentions) in cases {
        assert_usage_error(args, mentions);
    }
}

#[test]
fn a_missing_trace_file_is_a_usage_error() {
    assert_usage_error(&["--trace", "/nonexistent/frames.csv"], "cannot read trace");
}

#[test]
fn a_malformed_trace_names_its_row() {
    let bad = scratch("bad.csv", "frame_ms\n16.6\n16.7\nslow\n");
    assert_usage_error(&["--trace", bad.to_str().expect("utf-8 path")], "line 4");
    let negative = scratch("negative.csv", "16.6\n-3\n");
    assert_usage_error(&["--trace", negative.to_str().expect("utf-8 path")], "line 2");
    let nan = scratch("nan.csv", "16.6\n16.6\nNaN\n");
    assert_usage_error(&["--trace", nan.to_str().expect("utf-8 path")], "line 3");
    let empty = scratch("empty.csv", "frame_ms\n");
    assert_usage_error(&["--trace", empty.to_str().expect("utf-8 path")], "no frame times");
}

#[test]
fn a_presentmon_trace_is_replayed_frame_by_frame() {
    let mut text = String::from("Application,ProcessID,SwapChainAddress,MsBetweenPresents,MsUntilDisplayed\n");
    for i in 0..600 {
        let ms = if i % 2 == 0 { "16.0" } else { "17.3333" };
        text.push_str(&format!("game.exe,42,0x1,{ms},20.0\n"));
    }
    let path = scratch("presentmon.csv", &text);
    let out = simulate(&["--trace", path.to_str().expect("utf-8 path"), "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let run = &runs[0];
    assert_eq!(run["model"], "trace");
    let updates = run["total_updates"].as_u64().expect("total_updates");
    // 600 frames of 16.6667 ms on average: 10 s, 600 ticks (the first frame only sets the origin).
    assert!((598..=600).contains(&updates), "{run}");
}

#[test]
fn json_output_is_an_array_with_exactly_the_report_fields() {
    let out =
        simulate(&["--strategy", "catch-up,lockstep", "--refresh", "60,144", "--updates", "600", "--format", "json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let runs: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let runs = runs.as_array().expect("array");
    assert_eq!(runs.len(), 4, "2 strategies × 2 refresh rates");
    let mut keys: Vec<&str> = runs[0].as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut expected: Vec<&str> = timestep_lab::report::FIELDS.iter().map(|f| f.name).collect();
    expected.push("present_interval_histogram");
    expected.sort_unstable();
    assert_eq!(keys, expected, "the report's fields and, in JSON only, the interval histogram");
    let histogram = &runs[0]["present_interval_histogram"];
    assert_eq!(histogram["bin_ms"], 0.25, "{histogram}");
    let counted: u64 = histogram["counts"].as_array().expect("counts").iter().filter_map(|c| c.as_u64()).sum();
    assert!(counted > 500, "about one interval per frame: {histogram}");
    let lockstep_144 = &runs[3];
    assert_eq!(lockstep_144["strategy"], "lockstep");
    let ratio = lockstep_144["speed_ratio"].as_f64().expect("speed_ratio");
    assert!((ratio - 2.4).abs() < 0.01, "lockstep runs 144/60 = 2.4× fast: {lockstep_144}");
    let judder = lockstep_144["judder_ms"].as_f64().expect("judder_ms");
    assert!(judder < 0.1, "a constant wrong speed is not judder: {lockstep_144}");
}

#[test]
fn csv_output_has_a_header_and_a_row_per_run() {
    let out = simulate(&["--strategy", "all", "--updates", "300", "--format", "csv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = timestep_lab::report::FIELDS.iter().map(|f| f.name).collect();
    assert_eq!(lines[0], header.join(","));
    assert_eq!(lines.len(), 11, "header + 10 strategies:\n{text}");
}

#[test]
fn the_table_shows_the_pattern_line_like_the_article() {
    let out = simulate(&["--updates", "600"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().is_some_and(|l| l.starts_with("strategy")), "{text}");
    let pattern = text.lines().find(|l| l.starts_with("catch-up @ 60 Hz vsync on")).expect("a pattern line");
    let digits = pattern.rsplit(' ').next().unwrap_or("");
    assert_eq!(digits.len(), 200, "{pattern}");
    assert!(digits.chars().all(|c| c.is_ascii_digit() || c == '+'), "{pattern}");
}

#[test]
fn with_json_the_timeline_goes_to_stderr_and_stdout_stays_json() {
    let out = simulate(&[
        "--strategy",
        "paced",
        "--model",
        "seed000",
        "--tick-rate",
        "200",
        "--timeline",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("stdout is pure JSON");
    assert!(String::from_utf8_lossy(&out.stderr).contains("timeline paced"), "timeline on stderr");
}

#[test]
fn plot_writes_an_svg_comparing_the_runs() {
    let path = scratch("runs.svg", "");
    let out = simulate(&[
        "--strategy",
        "catch-up,fuzzy,interpolated",
        "--refresh",
        "60,144",
        "--updates",
        "600",
        "--plot",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(&path).expect("the plot exists");
    assert!(svg.starts_with("<svg"), "an SVG document");
    for label in ["catch-up @ 60", "fuzzy @ 144", "interpolated @ 144", "judder", "drift"] {
        assert!(svg.contains(label), "the plot should show '{label}'");
    }
}

#[test]
fn help_documents_every_flag_and_every_model() {
    let out = simulate(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--strategy",
        "--refresh",
        "--vsync",
        "--tick-rate",
        "--model",
        "--updates",
        "--seconds",
        "--seed",
        "--start-time",
        "--render-ms",
        "--update-ms",
        "--fuzzy-variant",
        "--no-vsync-detect",
        "--format",
        "--timeline",
        "--plot",
        "--trace",
        "--start-phase",
        "--phases",
        "--compositor",
    ] {
        assert!(help.contains(flag), "--help should document {flag}");
    }
    for model in ["glaiel", "desktop", "slow", "spiky", "pacing-answer"] {
        assert!(help.contains(&format!("  {model}")), "--help should describe the {model} model");
    }
    for compositor in ["weston", "dwm", "mutter", "kwin", "windowserver", "none"] {
        assert!(help.contains(&format!("  {compositor} ")), "--help should describe the {compositor} compositor");
    }
    assert!(help.contains("Simulation tick rate, 1–1000 Hz"), "the range comes from the one constant:\n{help}");
    assert!(!help.contains("0.001") && !help.contains("10000 Hz"), "no other range:\n{help}");
}

#[test]
fn version_and_help_print_to_stdout_and_exit_0() {
    for args in [&["--version"][..], &["--help"], &["simulate", "--help"], &["run", "--help"], &["-h"]] {
        let out = binary::run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{args:?} prints to stdout");
        assert!(out.stderr.is_empty(), "{args:?}: nothing on stderr");
    }
}

#[test]
fn simulate_installs_the_logger_too() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
        .args(["simulate", "--updates", "60"])
        .env("RUST_LOG", "debug")
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("simulate: 1 run(s)"), "simulate's log reaches stderr: {stderr}");
}

#[test]
fn a_clock_starting_thirty_days_in_gives_the_same_figures_as_one_starting_at_zero() {
    let run = |start: &str| {
        let out =
            simulate(&["--strategy", "interpolated", "--model", "desktop", "--start-time", start, "--format", "csv"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (zero, month) = (run("0"), run("2592000"));
    // Same columns except nothing: refresh boundaries at 30 days are whole 60 Hz periods.
    assert_eq!(zero, month);
}

#[test]
fn at_59_94_hz_a_clock_thirty_days_in_still_starts_on_a_vblank() {
    // 30 days is no whole number of 60000/1001 Hz periods: if the clock's
    // origin set the phase, the run would start 6.08 ms after a vblank and
    // differ (21 doubles instead of 20 with this seed).
    let run = |start: &str| {
        let args = ["--strategy", "catch-up", "--refresh", "59.94", "--start-time", start, "--format", "csv"];
        let out = simulate(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(run("0"), run("2592000"));
}
