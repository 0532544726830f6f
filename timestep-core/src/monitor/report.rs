//! What one simulated run reports, and the table / CSV / JSON renderings.
//!
//! The field names are a contract (scripts and CI read them): [`FIELDS`].
//! The raw counts (`total_updates` … `system_time_s`) are Glaiel's
//! bookkeeping; `speed_ratio` … `present_interval_p99_ms` are
//! [`FrameStats`](crate::metrics::FrameStats), defined in [`crate::metrics`].
//! CSV and JSON carry every field; the table shows [`TABLE_FIELDS`], the
//! columns people read first, then one pattern line per run. JSON adds
//! `present_interval_histogram` ([`IntervalHistogram`]) when the report has
//! it (every [`crate::session::Session`] report does). Undefined
//! values (no frames, no time passed) are NaN in the table and CSV and
//! `null` in JSON. Runs that replay a trace add `trace_app`,
//! `trace_frames`, `trace_dropped` and `trace_refresh_hz`.

use super::table::Table;
use super::trace::{TRACE_FIELDS, TraceInfo};
use serde::Serialize;
use std::fmt::Write as _;

use crate::metrics::{FrameStats, PRESENT_BIN_NS, PresentHistogram};
use crate::time::NANOS_PER_MS;

/// The figures of one run, with the report's exact field names: what
/// `simulate` prints and what `run --stats-json` writes (with its
/// [`DisplayFacts`]), assembled by [`crate::session::Session::report`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    /// Strategy id (`catch-up`).
    pub strategy: String,
    /// The refresh rate the pattern counts in, Hz (59.94 is 60000/1001 =
    /// 59.94006): the virtual display's, or a window's emulated or reported
    /// rate; NaN (`null`) when nobody knows it.
    pub refresh_hz: f64,
    /// Vsync on or off: the virtual display's setting, or a window's verdict
    /// (`null` when it could not tell).
    pub vsync: Option<bool>,
    /// Simulation tick rate, Hz.
    pub tick_rate: f64,
    /// Model preset (`glaiel`), `trace` when frame times were replayed, `window` for a real window.
    pub model: String,
    /// Noise seed.
    pub seed: u64,
    /// World updates run.
    pub total_updates: u64,
    /// Refreshes covered (the pattern's length).
    pub vsyncs: u64,
    /// Refreshes showing more than one update.
    pub double_updates: u64,
    /// Refreshes without a new frame.
    pub skipped_renders: u64,
    /// Frames showing the same picture as the frame before.
    pub repeated_frames: u64,
    /// Simulated time, s.
    pub game_time_s: f64,
    /// Display time covered, s.
    pub system_time_s: f64,
    /// ŝ, the least-squares slope of content time on display time (1 = right speed).
    pub speed_ratio: f64,
    /// (ŝ − 1) · 60 000: ms of game time gained per minute (negative: the game runs slow).
    pub drift_ms_per_min: f64,
    /// RMS of the per-frame motion error j = ΔC − ŝ·ΔD, ms.
    pub judder_ms: f64,
    /// 99th percentile of |j|, ms.
    pub judder_p99_ms: f64,
    /// Frames with |j| ≥ P/2 or a present interval ≥ P/2 over the median.
    pub hitches: u64,
    /// The worst frame's |j| or interval excess over the median, ms.
    pub max_hitch_ms: f64,
    /// Hitches per minute of display time.
    pub hitches_per_min: f64,
    /// Mean input-to-photon time (display time − input time), ms.
    pub latency_ms: f64,
    /// 95th percentile of input-to-photon time, ms.
    pub latency_p95_ms: f64,
    /// Largest input-to-photon time, ms.
    pub latency_max_ms: f64,
    /// Mean present (display) interval, ms.
    pub present_interval_mean_ms: f64,
    /// Standard deviation of the present interval, ms.
    pub present_interval_std_ms: f64,
    /// 99th percentile of the present interval, ms.
    pub present_interval_p99_ms: f64,
    /// The first 200 characters of the pattern.
    pub pattern: String,
    /// Present intervals in 0.25 ms bins (JSON only; absent from CSV and the table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub present_interval_histogram: Option<IntervalHistogram>,
    /// What a real display did (window runs only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub display: Option<DisplayFacts>,
    /// What a replayed trace was (`--trace` runs only): `trace_app`,
    /// `trace_frames`, `trace_dropped`, `trace_refresh_hz`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceInfo>,
}

impl Default for RunReport {
    /// An empty report: no frames, undefined figures NaN.
    fn default() -> Self {
        RunReport {
            strategy: String::new(),
            refresh_hz: f64::NAN,
            vsync: None,
            tick_rate: f64::NAN,
            model: String::new(),
            seed: 0,
            total_updates: 0,
            vsyncs: 0,
            double_updates: 0,
            skipped_renders: 0,
            repeated_frames: 0,
            game_time_s: 0.0,
            system_time_s: 0.0,
            speed_ratio: f64::NAN,
            drift_ms_per_min: f64::NAN,
            judder_ms: f64::NAN,
            judder_p99_ms: f64::NAN,
            hitches: 0,
            max_hitch_ms: f64::NAN,
            hitches_per_min: f64::NAN,
            latency_ms: f64::NAN,
            latency_p95_ms: f64::NAN,
            latency_max_ms: f64::NAN,
            present_interval_mean_ms: f64::NAN,
            present_interval_std_ms: f64::NAN,
            present_interval_p99_ms: f64::NAN,
            pattern: String::new(),
            present_interval_histogram: None,
            display: None,
            trace: None,
        }
    }
}

/// A run's [`PresentHistogram`] as JSON writes it: `counts[i]` intervals in
/// `[i, i + 1) × bin_ms` ms, empty bins after the last filled one left out,
/// and the intervals of 50 ms or more in `overflow`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntervalHistogram {
    /// Bin width, ms (0.25).
    pub bin_ms: f64,
    /// Intervals per bin, from 0 ms.
    pub counts: Vec<u64>,
    /// Intervals of [`crate::metrics::PRESENT_BINS`] bins (50 ms) or longer.
    pub overflow: u64,
}

impl From<&PresentHistogram> for IntervalHistogram {
    fn from(h: &PresentHistogram) -> IntervalHistogram {
        let used = h.bins().iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        IntervalHistogram {
            bin_ms: PRESENT_BIN_NS as f64 / NANOS_PER_MS as f64,
            counts: h.bins()[..used].to_vec(),
            overflow: h.overflow(),
        }
    }
}

/// What a session saw of a real display: written by `run --stats-json`
/// beside the run's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DisplayFacts {
    /// Frames run (including frames the surface refused).
    pub frames: u64,
    /// Frames that reached the screen.
    pub presented: u64,
    /// Presented frames per second of wall time.
    pub fps: f64,
    /// Updates per second of wall time.
    pub ups: f64,
    /// Wall time the loop ran, seconds.
    pub wall_time_s: f64,
    /// Refresh measured from present timestamps (1 / median interval), Hz.
    pub measured_refresh_hz: Option<f64>,
    /// Refresh the monitor reports, Hz (null on Xvfb).
    pub reported_refresh_hz: Option<f64>,
    /// The emulated refresh, Hz, when `--emulate-refresh` was on.
    pub emulated_refresh_hz: Option<f64>,
    /// Emulation accuracy: mean lateness of the present call after the vblank's wake time, µs.
    pub emulation_late_us_mean: Option<f64>,
    /// Emulation accuracy: worst lateness, µs.
    pub emulation_late_us_max: Option<f64>,
    /// The overlay's sentence about vsync.
    pub vsync_verdict: String,
    /// Present mode asked for.
    pub present_mode_requested: String,
    /// Present mode in effect at the end.
    pub present_mode_actual: String,
    /// The monitor at the end.
    pub monitor: String,
    /// Every strategy that ran, by id, in key order.
    pub strategies_used: Vec<String>,
}

/// The column names, in order.
pub const FIELDS: [&str; 27] = [
    "strategy",
    "refresh_hz",
    "vsync",
    "tick_rate",
    "model",
    "seed",
    "total_updates",
    "vsyncs",
    "double_updates",
    "skipped_renders",
    "repeated_frames",
    "game_time_s",
    "system_time_s",
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
    "pattern",
];

/// One line per field of [`FIELDS`] (and the trace fields): what it means,
/// in the words the README, `simulate --fields` and the overlay's hover
/// legends all show. D is a picture's display time, C the simulation time it
/// depicts, I the input time of that state, ŝ the slope of C on D, P the
/// refresh period (the median present interval when no refresh is known).
pub const DEFINITIONS: [(&str, &str); 31] = [
    ("strategy", "the loop strategy's id"),
    ("refresh_hz", "the display's refresh rate (59.94 is exactly 60000/1001)"),
    ("vsync", "whether presents wait for the display's refresh"),
    ("tick_rate", "fixed simulation updates per second"),
    ("model", "the machine model (`trace` for replayed frame times, `window` for the real window)"),
    ("seed", "the noise seed"),
    ("total_updates", "world updates run"),
    ("vsyncs", "refreshes covered by the run (the pattern's length)"),
    ("double_updates", "refreshes showing more than one new update"),
    ("skipped_renders", "refreshes without a new frame"),
    ("repeated_frames", "frames showing the same simulation time as the frame before"),
    ("game_time_s", "simulated time at the end, s"),
    ("system_time_s", "display time covered, s"),
    ("speed_ratio", "ŝ, the least-squares slope of C on D: 1 is the right speed"),
    (
        "drift_ms_per_min",
        "(ŝ − 1) · 60 000: ms of game time gained per minute of display; negative when the game runs slow",
    ),
    ("judder_ms", "RMS of j = ΔC − ŝ·ΔD over frames: how far each picture moves off steady motion"),
    ("judder_p99_ms", "99th percentile of |j|"),
    ("hitches", "frames with |j| ≥ P/2 (a jump) or a display interval ≥ P/2 over the median (a freeze)"),
    ("max_hitch_ms", "the largest |j| or display interval excess over the median"),
    ("hitches_per_min", "hitches per minute of display time"),
    (
        "latency_ms",
        "mean of D − I: from reading input to showing its picture; bounded, independent of drift and run length",
    ),
    ("latency_p95_ms", "95th percentile of D − I"),
    ("latency_max_ms", "largest D − I"),
    ("present_interval_mean_ms", "mean time between displayed frames"),
    (
        "present_interval_std_ms",
        "standard deviation of the time between displayed frames: how evenly frames are presented",
    ),
    ("present_interval_p99_ms", "99th percentile of the time between displayed frames"),
    ("pattern", "new updates shown per refresh, one digit each (`0` a repeat, `2` a double update)"),
    ("trace_app", "the replayed swap chain: application, process id, swap chain address"),
    ("trace_frames", "displayed frames replayed from the capture"),
    ("trace_dropped", "captured frames never displayed, merged into the next displayed one"),
    ("trace_refresh_hz", "the refresh rate measured from the capture's display changes"),
];

/// The one-line definition of a report field (see [`DEFINITIONS`]).
pub fn definition(field: &str) -> Option<&'static str> {
    DEFINITIONS.iter().find(|(name, _)| *name == field).map(|(_, text)| *text)
}

/// [`DEFINITIONS`] as a Markdown table, for `simulate --fields` and the README.
pub fn definitions_markdown() -> String {
    let mut out = String::from("| field | definition |\n|---|---|\n");
    for (name, text) in DEFINITIONS {
        let _ = writeln!(out, "| `{name}` | {} |", text.replace('|', "\\|"));
    }
    out
}

/// The table's columns: what the run was, the article's counts, and one
/// figure each for speed, smoothness and latency. The rest is in CSV/JSON.
pub const TABLE_FIELDS: [&str; 16] = [
    "strategy",
    "refresh_hz",
    "vsync",
    "model",
    "total_updates",
    "vsyncs",
    "double_updates",
    "skipped_renders",
    "game_time_s",
    "system_time_s",
    "drift_ms_per_min",
    "judder_ms",
    "hitches",
    "max_hitch_ms",
    "latency_ms",
    "latency_p95_ms",
];

/// `on`, `off`, or `?` when unknown.
fn on_off(vsync: Option<bool>) -> &'static str {
    match vsync {
        Some(true) => "on",
        Some(false) => "off",
        None => "?",
    }
}

/// A rate for people: `60`, `59.94`.
fn hz(value: f64) -> String {
    trim_number(value, 3)
}

/// `value` with at most `decimals` decimals and the trailing zeros after the
/// decimal point dropped: `59.94`, `144`, `16.67`. The one number formatter of
/// every label the reports, the app and its pages print.
pub fn trim_number(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.').to_owned() } else { text }
}

impl RunReport {
    /// The values in [`FIELDS`] order, formatted for a table or CSV.
    fn cells(&self) -> [String; FIELDS.len()] {
        [
            self.strategy.clone(),
            hz(self.refresh_hz),
            on_off(self.vsync).to_owned(),
            hz(self.tick_rate),
            self.model.clone(),
            self.seed.to_string(),
            self.total_updates.to_string(),
            self.vsyncs.to_string(),
            self.double_updates.to_string(),
            self.skipped_renders.to_string(),
            self.repeated_frames.to_string(),
            format!("{:.3}", self.game_time_s),
            format!("{:.3}", self.system_time_s),
            format!("{:.5}", self.speed_ratio),
            format!("{:.2}", self.drift_ms_per_min),
            format!("{:.3}", self.judder_ms),
            format!("{:.3}", self.judder_p99_ms),
            self.hitches.to_string(),
            format!("{:.3}", self.max_hitch_ms),
            format!("{:.2}", self.hitches_per_min),
            format!("{:.3}", self.latency_ms),
            format!("{:.3}", self.latency_p95_ms),
            format!("{:.3}", self.latency_max_ms),
            format!("{:.3}", self.present_interval_mean_ms),
            format!("{:.3}", self.present_interval_std_ms),
            format!("{:.3}", self.present_interval_p99_ms),
            self.pattern.clone(),
        ]
    }

    /// Sets the speed, judder, hitch, latency and present-pacing fields from `s`.
    pub fn set_stats(&mut self, s: &FrameStats) {
        self.speed_ratio = s.speed_ratio;
        self.drift_ms_per_min = s.drift_ms_per_min;
        self.judder_ms = s.judder_ms;
        self.judder_p99_ms = s.judder_p99_ms;
        self.hitches = s.hitches;
        self.max_hitch_ms = s.max_hitch_ms;
        self.hitches_per_min = s.hitches_per_min;
        self.latency_ms = s.latency_ms;
        self.latency_p95_ms = s.latency_p95_ms;
        self.latency_max_ms = s.latency_max_ms;
        self.present_interval_mean_ms = s.present_interval_mean_ms;
        self.present_interval_std_ms = s.present_interval_std_ms;
        self.present_interval_p99_ms = s.present_interval_p99_ms;
    }

    /// The speed, judder, hitch, latency and present-pacing fields as [`FrameStats`].
    pub fn stats(&self) -> FrameStats {
        FrameStats {
            speed_ratio: self.speed_ratio,
            drift_ms_per_min: self.drift_ms_per_min,
            judder_ms: self.judder_ms,
            judder_p99_ms: self.judder_p99_ms,
            hitches: self.hitches,
            max_hitch_ms: self.max_hitch_ms,
            hitches_per_min: self.hitches_per_min,
            latency_ms: self.latency_ms,
            latency_p95_ms: self.latency_p95_ms,
            latency_max_ms: self.latency_max_ms,
            present_interval_mean_ms: self.present_interval_mean_ms,
            present_interval_std_ms: self.present_interval_std_ms,
            present_interval_p99_ms: self.present_interval_p99_ms,
        }
    }

    /// A short label for plots and pattern lines: `catch-up @ 60 Hz vsync on`.
    pub fn label(&self) -> String {
        format!("{} @ {} Hz vsync {}", self.strategy, hz(self.refresh_hz), on_off(self.vsync))
    }
}

/// An aligned table of [`TABLE_FIELDS`], then one pattern line per run.
pub fn to_table(reports: &[RunReport]) -> String {
    let columns: Vec<usize> =
        TABLE_FIELDS.iter().filter_map(|name| FIELDS.iter().position(|field| field == name)).collect();
    // Names left-aligned, numbers right-aligned.
    let left: Vec<usize> = (0..columns.len()).filter(|&i| matches!(FIELDS[columns[i]], "strategy" | "model")).collect();
    let mut table = Table::new(columns.iter().map(|&c| FIELDS[c])).left(&left);
    for report in reports {
        let cells = report.cells();
        table.push(columns.iter().map(|&c| cells[c].clone()));
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
/// [`TRACE_FIELDS`] columns (empty for `null`).
pub fn to_csv(reports: &[RunReport]) -> String {
    let traced = !reports.is_empty() && reports.iter().all(|r| r.trace.is_some());
    let mut out = FIELDS.join(",");
    if traced {
        out.push(',');
        out.push_str(&TRACE_FIELDS.join(","));
    }
    out.push('\n');
    for r in reports {
        out.push_str(&r.cells().join(","));
        if let (true, Some(trace)) = (traced, &r.trace) {
            // An application name may hold a comma: quote it as CSV does.
            let cells = trace
                .cells()
                .map(|c| if c.contains([',', '"']) { format!("\"{}\"", c.replace('"', "\"\"")) } else { c });
            out.push(',');
            out.push_str(&cells.join(","));
        }
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
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    #[test]
    fn every_report_and_trace_field_has_one_definition() {
        let named: Vec<&str> = super::DEFINITIONS.iter().map(|(n, _)| *n).collect();
        let mut expected: Vec<&str> = super::FIELDS.to_vec();
        expected.extend(super::TRACE_FIELDS);
        assert_eq!(named, expected, "DEFINITIONS follows FIELDS then TRACE_FIELDS");
        assert_eq!(super::definition("hitches").map(|d| d.contains("P/2")), Some(true));
    }

    use super::*;

    fn report() -> RunReport {
        RunReport {
            strategy: "catch-up".into(),
            refresh_hz: 60000.0 / 1001.0,
            vsync: Some(true),
            tick_rate: 60.0,
            model: "glaiel".into(),
            seed: 3,
            total_updates: 10,
            vsyncs: 11,
            double_updates: 1,
            skipped_renders: 0,
            repeated_frames: 1,
            game_time_s: 0.16666,
            system_time_s: 0.18,
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
            pattern: "01111211110".into(),
            present_interval_histogram: None,
            display: None,
            trace: None,
        }
    }

    #[test]
    fn json_objects_carry_exactly_the_report_fields() {
        let value: serde_json::Value = serde_json::from_str(&to_json(&[report()]).unwrap()).unwrap();
        let object = value[0].as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        let mut expected = FIELDS.to_vec();
        keys.sort_unstable();
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }

    #[test]
    fn csv_has_a_header_and_one_row_per_run() {
        let csv = to_csv(&[report(), report()]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], FIELDS.join(","));
        assert!(lines[1].starts_with("catch-up,59.94,on,60,glaiel,3,10,11,1,0,1,"), "{}", lines[1]);
    }

    #[test]
    fn a_replayed_trace_adds_its_fields_to_json_and_csv() {
        let traced = RunReport {
            trace: Some(TraceInfo { app: Some("Game, The".into()), frames: 152, dropped: 148, refresh_hz: Some(60.0) }),
            ..report()
        };
        let value: serde_json::Value = serde_json::from_str(&to_json(std::slice::from_ref(&traced)).unwrap()).unwrap();
        assert_eq!(value[0]["trace_app"], "Game, The");
        assert_eq!((value[0]["trace_frames"].as_u64(), value[0]["trace_dropped"].as_u64()), (Some(152), Some(148)));
        assert_eq!(value[0]["trace_refresh_hz"].as_f64(), Some(60.0));
        let csv = to_csv(&[traced]);
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[0].ends_with(",pattern,trace_app,trace_frames,trace_dropped,trace_refresh_hz"), "{}", lines[0]);
        assert!(lines[1].ends_with(",01111211110,\"Game, The\",152,148,60.0000"), "{}", lines[1]);
        assert_eq!(to_csv(&[report()]).lines().next(), Some(FIELDS.join(",").as_str()), "no trace, no columns");
    }

    #[test]
    fn trim_number_drops_trailing_zeros_only_after_a_decimal_point() {
        assert_eq!(trim_number(16.6667, 2), "16.67");
        assert_eq!(trim_number(60.0, 2), "60");
        assert_eq!(trim_number(100.0, 0), "100");
        assert_eq!(trim_number(59.94006, 3), "59.94");
    }

    #[test]
    fn the_table_aligns_columns_and_prints_the_pattern_line() {
        let table = to_table(&[report()]);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("strategy"), "{table}");
        assert_eq!(lines[0].find("refresh_hz").map(|i| i + "refresh_hz".len()), lines[1].find("59.94").map(|i| i + 5));
        assert!(table.contains("catch-up @ 59.94 Hz vsync on  01111211110"), "{table}");
    }

    #[test]
    fn the_table_shows_exactly_the_table_fields_and_every_one_is_a_field() {
        for name in TABLE_FIELDS {
            assert!(FIELDS.contains(&name), "{name} is not a report field");
        }
        let table = to_table(&[report()]);
        let header: Vec<&str> = table.lines().next().unwrap_or("").split_whitespace().collect();
        assert_eq!(header, TABLE_FIELDS);
        let row: Vec<&str> = table.lines().nth(1).unwrap_or("").split_whitespace().collect();
        assert_eq!(row.len(), TABLE_FIELDS.len(), "one cell per column: {table}");
        assert_eq!(row[12], "2", "hitches");
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
