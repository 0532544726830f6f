//! `--start-phase` and `--phases`: where a run starts relative to the
//! display's refresh grid, and a sweep over random start phases.

use crate::binary;
use std::process::Output;
use timestep_lab::commands::simulate::random_phase;
use timestep_lab::time::{Nanos, Rate, nanos_to_ms};

/// The columns a sweep groups by: one value per row, not a spread.
const GROUP: [&str; 6] = ["strategy", "refresh_hz", "vsync", "tick_rate", "model", "seed"];

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
        assert!(line.split_whitespace().nth(7) == Some("3"), "phases column: {line}");
        assert!(line.matches(" [").count() >= 10 && line.contains('–'), "mean [min–max] cells: {line}");
    }
}

/// `(mean, min, max)` of the finite values, as a sweep reports a column.
fn spread(values: &[f64]) -> Option<(f64, f64, f64)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let mean = finite.iter().sum::<f64>() / finite.len() as f64;
    let min = finite.iter().copied().reduce(f64::min)?;
    let max = finite.iter().copied().reduce(f64::max)?;
    Some((mean, min, max))
}

/// `PHASE` (ns, under a second) as `--start-phase` seconds, to the nanosecond.
fn seconds(phase: Nanos) -> String {
    format!("0.{phase:09}")
}

#[test]
fn a_sweep_in_json_holds_the_mean_min_and_max_of_the_runs_at_its_seeds_phases() {
    // Each row of the sweep must be the spread of the runs one gets by starting
    // a plain run at each of the seed's phases (`--start-phase`), column by column.
    let sweep = json(&["--strategy", "catch-up", "--refresh", "60,59.94", "--updates", "600", "--phases", "3"]);
    let rows = sweep.as_array().expect("array");
    assert_eq!(rows.len(), 2, "one row per refresh: {sweep}");
    assert_eq!((&rows[0]["refresh_hz"], &rows[1]["refresh_hz"]), (&60.0.into(), &(60_000.0 / 1_001.0).into()));
    let ntsc = Rate::new(60_000, 1_001).expect("59.94 Hz");
    for (row, (refresh, rate)) in rows.iter().zip([("60", Rate::from_hz(60)), ("59.94", ntsc)]) {
        assert_eq!(row["strategy"], "catch-up");
        assert_eq!(row["phases"], 3);
        assert!(row.get("pattern").is_none(), "patterns differ per phase and are left out: {row}");
        let phases: Vec<Nanos> = (0..3).map(|i| random_phase(0, i, rate)).collect();
        assert!(phases.iter().all(|&p| p < rate.period()), "phases within a period: {phases:?}");
        let phase_ms: Vec<f64> = phases.iter().map(|&p| nanos_to_ms(p)).collect();
        let (mean, min, max) = spread(&phase_ms).expect("three phases");
        assert_eq!(row["phase_ms"], serde_json::json!({"mean": mean, "min": min, "max": max}), "{refresh} Hz");
        let runs: Vec<serde_json::Value> = phases
            .iter()
            .map(|&p| {
                let args = ["--strategy", "catch-up", "--refresh", refresh, "--updates", "600"];
                json(&[&args[..], &["--start-phase", &seconds(p)]].concat())[0].clone()
            })
            .collect();
        let mut spreads = 0;
        for (column, first) in runs[0].as_object().expect("a run is an object") {
            if GROUP.contains(&column.as_str()) {
                assert_eq!(&row[column], first, "{refresh} Hz: the group column {column}");
                continue;
            }
            if !(first.is_number() || first.is_null()) {
                continue;
            }
            let values: Vec<f64> = runs.iter().map(|run| run[column].as_f64().unwrap_or(f64::NAN)).collect();
            let expected = match spread(&values) {
                Some((mean, min, max)) => serde_json::json!({"mean": mean, "min": min, "max": max}),
                None => serde_json::json!({"mean": null, "min": null, "max": null}),
            };
            assert_eq!(row[column], expected, "{refresh} Hz, {column}: the sweep vs the runs {values:?}");
            spreads += 1;
        }
        assert!(spreads >= 16, "{refresh} Hz: a spread per numeric column, {spreads} found: {row}");
    }
}

#[test]
fn a_sweep_in_csv_has_mean_min_and_max_columns() {
    let out = simulate(&["--strategy", "fuzzy", "--updates", "600", "--phases", "3", "--format", "csv"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "header + one row:\n{text}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let settings = ["strategy", "refresh_hz", "vsync", "tick_rate", "model", "seed", "display_time_source"];
    assert_eq!(header[..8], [&settings[..], &["phases"]].concat());
    assert_eq!(header[8..11], ["phase_ms_mean", "phase_ms_min", "phase_ms_max"]);
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
