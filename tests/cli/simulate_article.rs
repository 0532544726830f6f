//! The seed article's table (Tyler Glaiel, "How to make your game run at 60 fps"),
//! reproduced with `--model glaiel --updates 10000`, through the library and the binary.
//!
//! | run | strategy              | display            | article                                  |
//! |-----|-----------------------|--------------------|------------------------------------------|
//! | A   | catch-up (naive)      | 60 Hz              | 10001 / 10002 / 2535 / 0 / 166.683 / 166.7 |
//! | B   | fuzzy 60-62, no detect| 59.94 Hz           | 10000 / 9991 / 10 / 0 / 166.667 / 166.683 |
//! | C   | fuzzy 59-61, no detect| 59.94 Hz vsync off | game 166.667 vs system 169.102           |
//!
//! Several seeds are checked so the ranges are not luck.

use std::process::Command;
use timestep_lab::monitor::{Preset, RunSpec, Stop};
use timestep_lab::report::Field;
use timestep_lab::report::registry::{
    DOUBLE_UPDATES, GAME_TIME_S, PATTERN, SKIPPED_RENDERS, SYSTEM_TIME_S, TOTAL_UPDATES, VSYNCS,
};
use timestep_lab::report::{RunReport, to_json};
use timestep_lab::sim::simulate;
use timestep_lab::strategy::{FuzzyVariant, StrategyConfig, StrategyId};
use timestep_lab::time::Rate;

const SEEDS: [u64; 5] = [0, 1, 2, 42, 1234];

fn ntsc() -> Rate {
    Rate::new(60000, 1001).expect("59.94 Hz")
}

fn run(strategy: StrategyId, refresh: Rate, vsync: bool, config: StrategyConfig, seed: u64) -> RunReport {
    let spec = RunSpec::new(strategy, Preset::Glaiel)
        .with_config(config)
        .with_refresh(refresh)
        .with_vsync(vsync)
        .with_seed(seed)
        .with_stop(Stop::Updates(10_000));
    simulate(&spec).report()
}

fn run_a(seed: u64) -> RunReport {
    run(StrategyId::CatchUp, Rate::from_hz(60), true, StrategyConfig::default(), seed)
}

fn fuzzy(variant: FuzzyVariant, detect: bool) -> StrategyConfig {
    StrategyConfig::default().with_fuzzy_variant(variant).with_vsync_detect(detect)
}

fn run_b(seed: u64) -> RunReport {
    run(StrategyId::Fuzzy, ntsc(), true, fuzzy(FuzzyVariant::Fuzzy6062, false), seed)
}

fn run_c(seed: u64, detect: bool) -> RunReport {
    run(StrategyId::Fuzzy, ntsc(), false, fuzzy(FuzzyVariant::Fuzzy5961, detect), seed)
}

fn check_a(r: &RunReport) {
    assert!((10_000..=10_001).contains(&r.total_updates), "A updates: {r:?}");
    assert!((10_001..=10_002).contains(&r.vsyncs), "A vsyncs: {r:?}");
    assert!((2_300..=2_700).contains(&r.double_updates), "A double updates: {r:?}");
    assert_eq!(r.skipped_renders, 0, "A skipped renders: {r:?}");
    assert!((166.68..=166.70).contains(&r.system_time_s), "A system time: {r:?}");
}

fn check_b(r: &RunReport) {
    assert_eq!(r.total_updates, 10_000, "B updates: {r:?}");
    assert_eq!(r.vsyncs, 9_991, "B vsyncs: {r:?}");
    assert!((9..=11).contains(&r.double_updates), "B double updates: {r:?}");
    assert_eq!(r.skipped_renders, 0, "B skipped renders: {r:?}");
    assert!((r.game_time_s - 166.667).abs() < 5e-4, "B game time: {r:?}");
    assert!((r.system_time_s - 166.683).abs() < 5e-4, "B system time: {r:?}");
}

fn check_c(r: &RunReport) {
    assert!((r.game_time_s - 166.667).abs() < 5e-4, "C game time: {r:?}");
    assert!((169.0..=169.2).contains(&r.system_time_s), "C system time: {r:?}");
}

#[test]
fn the_naive_timer_double_updates_about_a_quarter_of_the_refreshes_at_60_hz() {
    for seed in SEEDS {
        check_a(&run_a(seed));
    }
}

#[test]
fn the_60_62_fuzzy_timer_double_updates_about_ten_times_on_a_59_94_hz_display() {
    for seed in SEEDS {
        check_b(&run_b(seed));
    }
}

#[test]
fn the_59_61_fuzzy_timer_without_vsync_runs_the_game_slow() {
    for seed in SEEDS {
        check_c(&run_c(seed, false));
    }
}

#[test]
fn with_vsync_detection_the_fuzzy_timer_falls_back_to_strict_stepping_and_keeps_time() {
    for seed in SEEDS {
        let r = run_c(seed, true);
        let error = (r.game_time_s / r.system_time_s - 1.0).abs();
        assert!(error < 1e-3, "seed {seed}: game {} s vs system {} s", r.game_time_s, r.system_time_s);
    }
}

#[test]
fn a_glaiel_run_is_reproducible_bit_for_bit_from_its_seed() {
    assert_eq!(run_a(7), run_a(7));
    assert_ne!(run_a(7).pattern, run_a(8).pattern, "different seeds, different noise");
}

/// The binary's JSON for the article's model and length.
fn binary_json(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
        .arg("simulate")
        .args(["--model", "glaiel", "--updates", "10000", "--format", "json"])
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The binary's runs, with the counts the checks read (the figures are
/// compared as text with the library's JSON).
fn binary(args: &[&str]) -> Vec<RunReport> {
    let value: serde_json::Value = serde_json::from_str(&binary_json(args)).expect("stdout is JSON");
    let runs = value.as_array().expect("a JSON array");
    let count =
        |run: &serde_json::Value, f: &Field| run[f.name].as_u64().unwrap_or_else(|| panic!("{}: {run}", f.name));
    let real = |run: &serde_json::Value, f: &Field| run[f.name].as_f64().unwrap_or_else(|| panic!("{}: {run}", f.name));
    runs.iter()
        .map(|run| RunReport {
            total_updates: count(run, &TOTAL_UPDATES),
            vsyncs: count(run, &VSYNCS),
            double_updates: count(run, &DOUBLE_UPDATES),
            skipped_renders: count(run, &SKIPPED_RENDERS),
            game_time_s: real(run, &GAME_TIME_S),
            system_time_s: real(run, &SYSTEM_TIME_S),
            pattern: run[PATTERN.name].as_str().expect("pattern").to_owned(),
            ..RunReport::default()
        })
        .collect()
}

#[test]
fn the_binary_prints_the_articles_table_as_json() {
    let args = ["--strategy", "catch-up", "--refresh", "60"];
    let a = binary(&args);
    assert_eq!(a.len(), 1);
    check_a(&a[0]);
    // Compared as text: serde_json's default float parser may miss the last bit.
    let library = to_json(&[run_a(0)]).expect("JSON");
    assert_eq!(binary_json(&args), library, "the binary and the library agree");

    let b = binary(&["--strategy", "fuzzy", "--fuzzy-variant", "60-62", "--refresh", "59.94", "--no-vsync-detect"]);
    check_b(&b[0]);

    let c = binary(&[
        "--strategy",
        "fuzzy",
        "--fuzzy-variant",
        "59-61",
        "--refresh",
        "59.94",
        "--vsync",
        "off",
        "--no-vsync-detect",
    ]);
    check_c(&c[0]);
    assert_eq!(c[0].pattern.len(), 200, "the pattern is cut to 200 characters");
}
