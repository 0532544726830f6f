//! `--start-phase` and `--phases`: where a run starts relative to the
//! display's refresh grid, and a sweep over random start phases.

use crate::binary;
use std::process::Output;

fn simulate(args: &[&str]) -> Output {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    let out = binary::run(&all);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_slice(&simulate(&all).stdout).expect("JSON")
}

fn doubles(args: &[&str]) -> u64 {
    json(args)[0]["double_updates"].as_u64().expect("double_updates")
}

#[test]
fn catch_up_doubles_a_quarter_of_the_refreshes_only_when_it_starts_on_a_vblank() {
    let on_vblank = doubles(&["--strategy", "catch-up", "--start-phase", "vblank"]);
    assert!((2_000..=3_000).contains(&on_vblank), "on a vblank about 1 refresh in 4 doubles: {on_vblank}");
    assert_eq!(on_vblank, doubles(&["--strategy", "catch-up"]), "vblank is the default");
    assert_eq!(doubles(&["--strategy", "catch-up", "--start-phase", "0.005"]), 0, "5 ms into the refresh: none");
    // --start-time moves the clock's origin, not the phase: the run still starts on a vblank.
    assert_eq!(doubles(&["--strategy", "catch-up", "--start-time", "0.005"]), on_vblank);
}

#[test]
fn a_random_phase_is_drawn_from_the_seed() {
    let args = ["--strategy", "catch-up", "--start-phase", "random", "--seed", "5", "--updates", "600"];
    assert_eq!(json(&args), json(&args), "the same seed, the same run");
}

#[test]
fn a_sweep_table_has_a_row_per_strategy_and_refresh_with_mean_and_range() {
    let args = ["--strategy", "catch-up,interpolated", "--refresh", "60,144", "--updates", "600", "--phases", "3"];
    let out = simulate(&args);
    let table = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "header + 2 strategies × 2 refreshes:\n{table}");
    for column in
        ["strategy", "refresh_hz", "phases", "phase_ms", "double_updates", "judder_ms", "hitches", "latency_ms"]
    {
        assert!(lines[0].contains(column), "header has {column}: {}", lines[0]);
    }
    assert!(!lines[0].contains("pattern"), "patterns differ per phase and are left out");
    for line in &lines[1..] {
        assert!(line.split_whitespace().nth(6) == Some("3"), "phases column: {line}");
        assert!(line.matches(" [").count() >= 10 && line.contains('–'), "mean [min–max] cells: {line}");
    }
}

#[test]
fn a_sweep_in_json_holds_a_spread_object_per_numeric_column() {
    let runs = json(&["--strategy", "catch-up", "--refresh", "60,59.94", "--updates", "600", "--phases", "3"]);
    let runs = runs.as_array().expect("array");
    assert_eq!(runs.len(), 2);
    let run = &runs[0];
    assert_eq!(run["strategy"], "catch-up");
    assert_eq!(run["refresh_hz"], 60.0);
    assert_eq!(run["phases"], 3);
    for column in [
        "phase_ms",
        "total_updates",
        "double_updates",
        "speed_ratio",
        "drift_ms_per_min",
        "judder_ms",
        "judder_p99_ms",
        "hitches",
        "max_hitch_ms",
        "hitches_per_min",
        "latency_ms",
        "latency_p95_ms",
        "latency_max_ms",
        "present_interval_mean_ms",
        "present_interval_std_ms",
        "present_interval_p99_ms",
    ] {
        let spread = &run[column];
        let (mean, min, max) = (spread["mean"].as_f64(), spread["min"].as_f64(), spread["max"].as_f64());
        let (Some(mean), Some(min), Some(max)) = (mean, min, max) else { panic!("{column}: {spread}") };
        assert!(min <= mean && mean <= max, "{column}: {spread}");
    }
    assert!(run["phase_ms"]["max"].as_f64().is_some_and(|p| p < 16.667), "phases within a period: {run}");
    assert!(run.get("pattern").is_none(), "{run}");
}

#[test]
fn a_sweep_in_csv_has_mean_min_and_max_columns() {
    let out = simulate(&["--strategy", "fuzzy", "--updates", "600", "--phases", "3", "--format", "csv"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "header + one row:\n{text}");
    let header: Vec<&str> = lines[0].split(',').collect();
    assert_eq!(header[..7], ["strategy", "refresh_hz", "vsync", "tick_rate", "model", "seed", "phases"]);
    assert_eq!(header[7..10], ["phase_ms_mean", "phase_ms_min", "phase_ms_max"]);
    assert!(header.contains(&"double_updates_max"), "{}", lines[0]);
    assert_eq!(lines[1].split(',').count(), header.len(), "{}", lines[1]);
}

#[test]
fn bad_phase_values_are_one_line_usage_errors() {
    let cases: [(&[&str], &str); 5] = [
        (&["simulate", "--start-phase", "midway"], "--start-phase: expected vblank, random or a number of seconds"),
        (&["simulate", "--start-phase", "-0.002"], "--start-phase"),
        (&["simulate", "--start-phase", "2"], "at most 1 s"),
        (&["simulate", "--phases", "0"], "--phases: 0 is out of range: it must be 1–1000"),
        (&["simulate", "--phases", "3", "--start-phase", "random"], "cannot be used with"),
    ];
    for (args, mentions) in cases {
        binary::assert_usage_error(args, &binary::run(args), mentions);
    }
}
