//! A run's report as a table, CSV or JSON: every list of columns comes from
//! the [registry](super::registry).
//!
//! CSV and JSON carry every field of [`FIELDS`]; the table shows the
//! [`table_fields`], the columns people read first, then one pattern line
//! per run. JSON adds `present_interval_histogram` when the report has it
//! (every session report does). Undefined values (no
//! frames, no time passed) are `n/a` in the table and CSV and `null` in JSON.
//! Runs that replay a trace add the [`TRACE_FIELDS`].

use std::fmt::Write as _;

use super::registry::{COMPOSITOR_FIELDS, COMPOSITOR_TABLE_FIELDS, FIELDS, TRACE_FIELDS, VRR_FIELDS, table_fields};
use super::run_report::RunReport;
use super::table::Table;

/// An aligned table of the [`table_fields`] (and the [`COMPOSITOR_TABLE_FIELDS`]
/// when a run went through a compositor), then one pattern line per run.
pub fn to_table(reports: &[RunReport]) -> String {
    let composited = reports.iter().any(|r| r.compositor.is_some());
    let columns: Vec<_> =
        table_fields().chain(if composited { &COMPOSITOR_TABLE_FIELDS[..] } else { &[] }.iter().copied()).collect();
    // Names left-aligned, numbers right-aligned.
    let left: Vec<usize> = (0..columns.len()).filter(|&i| columns[i].is_text()).collect();
    let mut table = Table::new(columns.iter().map(|f| f.name)).left(&left);
    for report in reports {
        table.push(columns.iter().map(|f| f.format(report)));
    }
    let mut out = table.to_string();
    if !reports.is_empty() {
        out.push('\n');
    }
    let label_width = reports.iter().map(|r| r.label().chars().count()).max().unwrap_or(0);
    for r in reports {
        let _ = writeln!(out, "{:<label_width$}  {}", r.label(), r.pattern);
    }
    out
}

/// A header row and one row per run; runs that replayed a trace add the
/// [`TRACE_FIELDS`] columns (empty for `null`), a list with a VRR run the
/// [`VRR_FIELDS`] (empty for the fixed displays'), one with a composited run
/// the [`COMPOSITOR_FIELDS`] (empty for the direct ones').
pub fn to_csv(reports: &[RunReport]) -> String {
    let traced = !reports.is_empty() && reports.iter().all(|r| r.trace.is_some());
    let vrr = reports.iter().any(|r| r.vrr.is_some());
    let composited = reports.iter().any(|r| r.compositor.is_some());
    let columns: Vec<_> = FIELDS
        .iter()
        .chain(if traced { &TRACE_FIELDS[..] } else { &[] })
        .chain(if vrr { &VRR_FIELDS[..] } else { &[] })
        .chain(if composited { &COMPOSITOR_FIELDS[..] } else { &[] })
        .copied()
        .collect();
    let mut out = columns.iter().map(|f| f.name).collect::<Vec<_>>().join(",");
    out.push('\n');
    for r in reports {
        // An application name may hold a comma: quote it as CSV does.
        let cells: Vec<String> = columns
            .iter()
            .map(|f| f.format(r))
            .map(|c| if c.contains([',', '"']) { format!("\"{}\"", c.replace('"', "\"\"")) } else { c })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// A JSON array of objects with the [`FIELDS`] names.
///
/// # Errors
/// Only if serialization fails, which plain numbers and strings do not.
pub fn to_json(reports: &[RunReport]) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(reports)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::super::registry::all_fields;
    use super::super::run_report::{CompositorInfo, IntervalHistogram, TraceInfo};
    use super::*;
    use crate::metrics::{FrameStats, PresentHistogram};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn names(fields: &[&super::super::registry::Field]) -> Vec<&'static str> {
        fields.iter().map(|f| f.name).collect()
    }

    fn report() -> RunReport {
        RunReport {
            strategy: "catch-up".into(),
            refresh_hz: 60000.0 / 1001.0,
            vsync: Some(true),
            tick_rate: 60.0,
            model: crate::report::RunOrigin::Preset(crate::report::Preset::Glaiel),
            seed: 3,
            display_time_source: "simulated".into(),
            total_updates: 10,
            vsyncs: 11,
            double_updates: 1,
            skipped_renders: 0,
            repeated_frames: 1,
            game_time_s: 0.16666,
            system_time_s: 0.18,
            stats: FrameStats {
                startup_ms: 16.683,
                speed_ratio: 0.92,
                drift_ms_per_min: -4_800.0,
                judder_ms: 1.5,
                judder_p99_ms: 16.68,
                hitches: 2,
                max_hitch_ms: 16.68,
                hitches_per_min: 666.67,
                latency_ms: 16.0,
                latency_p95_ms: 17.0,
                latency_max_ms: 18.0,
                present_interval_mean_ms: 16.683,
                present_interval_std_ms: 0.1,
                present_interval_p99_ms: 16.9,
            },
            pattern: "01111211110".into(),
            present_interval_histogram: None,
            display: None,
            trace: None,
            vrr: None,
            compositor: None,
        }
    }

    #[test]
    fn a_composited_run_adds_the_compositor_columns_and_a_direct_one_leaves_them_empty() {
        let info = CompositorInfo { name: "weston".into(), latch_ms: 7.0, delay_refreshes: 0, frames_replaced: 12 };
        let composited = RunReport { compositor: Some(info), ..report() };
        let csv = to_csv(&[report(), composited.clone()]);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",compositor,compositor_latch_ms,compositor_delay,frames_replaced"), "{}", lines[0]);
        assert!(lines[1].ends_with(",,,,"), "the direct run's cells are empty: {}", lines[1]);
        assert!(lines[2].ends_with(",weston,7.000,0,12"), "{}", lines[2]);
        assert!(!to_csv(&[report()]).contains("compositor"), "no composited run, no columns");
        let table = to_table(std::slice::from_ref(&composited));
        let header = table.lines().next().unwrap_or_default();
        assert!(header.contains("compositor") && header.trim_end().ends_with("frames_replaced"), "{table}");
        assert!(table.contains("catch-up @ 59.94 Hz vsync on via weston"), "the pattern line says so: {table}");
        assert!(!to_table(&[report()]).contains("compositor"));
        let json: serde_json::Value = serde_json::from_str(&to_json(&[composited]).unwrap()).unwrap();
        assert_eq!((json[0]["compositor"].as_str(), json[0]["frames_replaced"].as_u64()), (Some("weston"), Some(12)));
    }

    #[test]
    fn json_objects_carry_exactly_the_report_fields_in_registry_order() {
        let value: serde_json::Value = serde_json::from_str(&to_json(&[report()]).unwrap()).unwrap();
        let object = value[0].as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut expected = names(&FIELDS);
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
        // serde_json's map is sorted; the text keeps the order written.
        let text = to_json(&[report()]).unwrap();
        let positions: Vec<usize> = FIELDS.iter().filter_map(|f| text.find(&format!("\"{}\":", f.name))).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "JSON writes the fields in registry order: {text}");
        for f in FIELDS {
            let json = &object[f.name];
            match f.cell(&report()).number() {
                Some(n) => assert_eq!(json.as_f64(), Some(n), "{}", f.name),
                None => assert!(json.is_string() || json.is_boolean(), "{}: {json}", f.name),
            }
        }
    }

    #[test]
    fn csv_has_a_header_and_one_row_per_run() {
        let csv = to_csv(&[report(), report()]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], names(&FIELDS).join(","));
        assert!(lines[1].starts_with("catch-up,59.94,on,60,glaiel,3,simulated,10,11,1,0,1,"), "{}", lines[1]);
        assert!(
            lines[1].contains(",0.180,16.683,0.92000,-4800.00,1.500,16.680,2,"),
            "the registry's decimals: {}",
            lines[1]
        );
    }

    #[test]
    fn a_replayed_trace_adds_its_fields_to_json_and_csv() {
        let traced = RunReport {
            trace: Some(TraceInfo { app: Some("Game, The".into()), frames: 152, dropped: 148, refresh_hz: Some(60.0) }),
            ..report()
        };
        let value: serde_json::Value = serde_json::from_str(&to_json(std::slice::from_ref(&traced)).unwrap()).unwrap();
        let trace: Vec<&serde_json::Value> = TRACE_FIELDS.iter().map(|f| &value[0][f.name]).collect();
        assert_eq!(trace[0], "Game, The");
        assert_eq!((trace[1].as_u64(), trace[2].as_u64()), (Some(152), Some(148)));
        assert_eq!(trace[3].as_f64(), Some(60.0));
        let csv = to_csv(&[traced]);
        let lines: Vec<&str> = csv.lines().collect();
        let header_tail = format!(",pattern,{}", names(&TRACE_FIELDS).join(","));
        assert!(lines[0].ends_with(&header_tail), "{}", lines[0]);
        assert!(lines[1].ends_with(",01111211110,\"Game, The\",152,148,60.0000"), "{}", lines[1]);
        assert_eq!(to_csv(&[report()]).lines().next(), Some(names(&FIELDS).join(",").as_str()), "no trace, no columns");
        let unknown = TraceInfo { app: None, frames: 2, dropped: 0, refresh_hz: None };
        let value = serde_json::to_value(&unknown).unwrap();
        assert!(value[TRACE_FIELDS[0].name].is_null() && value[TRACE_FIELDS[3].name].is_null(), "{value}");
    }

    #[test]
    fn the_table_aligns_columns_and_prints_the_pattern_line() {
        let table = to_table(&[report()]);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with(FIELDS[0].name), "{table}");
        let refresh = FIELDS[1].name;
        assert_eq!(lines[0].find(refresh).map(|i| i + refresh.len()), lines[1].find("59.94").map(|i| i + 5));
        assert!(table.contains("catch-up @ 59.94 Hz vsync on  01111211110"), "{table}");
    }

    #[test]
    fn the_table_shows_exactly_the_table_fields() {
        let table = to_table(&[report()]);
        let header: Vec<&str> = table.lines().next().unwrap_or("").split_whitespace().collect();
        let shown: Vec<&str> = table_fields().map(|f| f.name).collect();
        assert_eq!(header, shown);
        let row: Vec<&str> = table.lines().nth(1).unwrap_or("").split_whitespace().collect();
        assert_eq!(row.len(), shown.len(), "one cell per column: {table}");
        let hitches = shown.iter().position(|&n| n == super::super::registry::HITCHES.name);
        assert_eq!(hitches.map(|i| row[i]), Some("2"), "hitches");
        assert!(all_fields().filter(|f| f.in_table).all(|f| FIELDS.contains(&f)), "the table shows run fields");
    }

    #[test]
    fn the_interval_histogram_keeps_bins_up_to_the_last_filled_one_and_json_adds_it() {
        let mut bins = PresentHistogram::new();
        for ns in [16_683_333, 16_683_334, 33_366_667, 100_000_000] {
            bins.add(ns);
        }
        let histogram = IntervalHistogram::from(&bins);
        assert_eq!(histogram.bin_ms, 0.25);
        assert_eq!(histogram.counts.len(), 134, "33.37 ms is in bin 133, the last filled one");
        assert_eq!((histogram.counts[66], histogram.counts[133], histogram.overflow), (2, 1, 1), "{histogram:?}");
        assert_eq!(histogram.counts.iter().sum::<u64>(), 3);
        let with = RunReport { present_interval_histogram: Some(histogram), ..report() };
        let value: serde_json::Value = serde_json::from_str(&to_json(std::slice::from_ref(&with)).unwrap()).unwrap();
        assert_eq!(value[0]["present_interval_histogram"]["overflow"], 1);
        assert_eq!(value[0].as_object().map(|o| o.len()), Some(FIELDS.len() + 1), "the fields and the histogram");
        assert_eq!(to_csv(&[with]), to_csv(&[report()]), "CSV has no histogram column");
    }
}
