//! `report.json`: round trips, version checks, simulator JSON, and the committed fixtures.

use crate::harness::{self, tests};
use crate::report_card::{FIXTURES, card, fixture, fixture_monitor};
use timestep_lab::monitor::{Preset, RunSpec};
use timestep_lab::report::{RunReport, to_json};
use timestep_lab::report_card::comparison::{Source, parse_source};
use timestep_lab::report_card::{ReportCard, RunRecord, SCHEMA, SchemaError, VERSION};
use timestep_lab::strategy::StrategyId;

fn a_card_survives_a_round_trip_through_json() {
    let card = card(&[fixture_monitor(0)]);
    let text = card.to_json().expect("a card serializes");
    let back = ReportCard::from_json(&text).expect("and reads back");
    assert_eq!(back, card, "serialize then deserialize gives the same card");
    assert!(text.contains(&format!("\"schema\": \"{SCHEMA}\"")) && text.contains("\"version\": 1"), "{text:.200}");
}

fn a_future_version_is_refused_with_a_one_line_message() {
    let mut value: serde_json::Value =
        serde_json::from_str(&card(&[]).to_json().expect("serializes")).expect("valid JSON");
    value["version"] = serde_json::json!(VERSION + 1);
    let err = ReportCard::from_json(&value.to_string()).expect_err("a newer version is refused");
    assert!(matches!(err, SchemaError::FutureVersion(2)), "{err:?}");
    let message = err.to_string();
    assert_eq!(message, "report card version 2 is newer than this timestep-lab reads (version 1); update timestep-lab");
}

fn a_field_of_the_wrong_type_names_its_line() {
    let text = "{\n\"schema\": \"timestep-lab/report-card\",\n\"version\": 1,\n\"machine\": {\"os\": 3, \"app_version\": \"0\"}\n}";
    let err = ReportCard::from_json(text).expect_err("os must be a string").to_string();
    assert!(err.contains("line 4") && !err.contains('\n'), "{err}");
}

fn a_card_with_only_the_required_fields_loads_with_every_figure_unknown() {
    let text = r#"{"schema": "timestep-lab/report-card", "version": 1,
        "machine": {"os": "linux x86_64", "app_version": "0.1.0"},
        "monitors": [{"index": 2, "runs": [{"strategy": "fuzzy"}], "future_field": [1, 2]}]}"#;
    let card = ReportCard::from_json(text).expect("optional fields may be missing, unknown ones are ignored");
    let monitor = &card.monitors[0];
    assert_eq!(monitor.index, 2);
    assert_eq!(monitor.refresh_hz(), None);
    assert_eq!(monitor.runs[0], RunRecord { strategy: "fuzzy".to_owned(), ..RunRecord::default() });
}

fn simulated_reports() -> Vec<RunReport> {
    [StrategyId::CatchUp, StrategyId::Snapped]
        .into_iter()
        .map(|s| timestep_lab::sim::simulate(&RunSpec::new(s, Preset::Glaiel)).report())
        .collect()
}

fn simulator_json_loads_as_run_records() {
    let reports = simulated_reports();
    let text = to_json(&reports).expect("simulate's JSON");
    let Ok(Source::Runs(runs)) = parse_source(&text) else { panic!("simulate --format json is a list of runs") };
    assert_eq!(runs.len(), 2);
    for (run, report) in runs.iter().zip(&reports) {
        assert_eq!(run, &RunRecord::from(report), "the JSON reads as the record the conversion makes");
    }
    assert_eq!(runs[0].strategy, "catch-up");
    assert!(
        runs[0].figure(&timestep_lab::report::registry::DOUBLE_UPDATES).is_some_and(|d| d > 2000.0),
        "the article's 2535 doubles: {:?}",
        runs[0]
    );
}

fn every_field_simulate_writes_is_a_run_record_field() {
    let text = to_json(&simulated_reports()).expect("simulate's JSON");
    let written: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let record = serde_json::to_value(RunRecord::default()).expect("a record serializes");
    for key in written[0].as_object().expect("an object per run").keys() {
        assert!(record.get(key).is_some(), "RunReport field '{key}' has no RunRecord field: add it to the schema");
    }
}

fn the_fixtures_load_and_hold_one_monitor_at_their_rate() {
    for (i, (name, hz, _, _)) in FIXTURES.iter().enumerate() {
        let card = ReportCard::read(&fixture(name)).expect("the fixture loads");
        assert_eq!(card.monitors.len(), 1, "{name}");
        let monitor = &card.monitors[0];
        assert_eq!(monitor.index, i as u32 + 1, "{name}");
        assert_eq!(monitor.reported_refresh_hz, Some(*hz as f64), "{name}");
        let measured = monitor.present_cadence_hz.expect("vsync on measures the refresh");
        assert!((measured - *hz as f64).abs() < 0.01, "{name}: measured {measured}");
        assert_eq!(monitor.runs.len(), 20, "{name}: ten strategies, vsync on and off");
        assert_eq!(monitor.predictions.len(), 20, "{name}");
        assert!(monitor.frame_trace.as_ref().is_some_and(|t| t.intervals_ms.len() == 300), "{name}");
    }
}

/// Rewrites the fixtures from the synthetic cards (the simulator is
/// deterministic, so this reproduces them until a metric changes).
/// Run on request only (`-- --ignored` after a metric changes).
fn write_fixtures() {
    for (i, (name, ..)) in FIXTURES.iter().enumerate() {
        card(&[fixture_monitor(i)]).write(&fixture(name)).expect("the fixture is written");
    }
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut trials = tests![
        a_card_survives_a_round_trip_through_json,
        a_future_version_is_refused_with_a_one_line_message,
        a_field_of_the_wrong_type_names_its_line,
        a_card_with_only_the_required_fields_loads_with_every_figure_unknown,
        simulator_json_loads_as_run_records,
        every_field_simulate_writes_is_a_run_record_field,
        the_fixtures_load_and_hold_one_monitor_at_their_rate,
    ];
    trials.push(harness::on_request(harness::name(module_path!(), "write_fixtures"), write_fixtures));
    trials
}
