//! What one simulated run reports, and the table / CSV / JSON renderings.
//!
//! The field names are a contract (scripts and CI read them): `strategy`,
//! `refresh_hz`, `vsync`, `tick_rate`, `model`, `seed`, `total_updates`,
//! `vsyncs`, `double_updates`, `skipped_renders`, `repeated_frames`,
//! `game_time_s`, `system_time_s`, `speed_ratio`, `judder_ms`, `latency_ms`,
//! `pattern`; runs that replay a trace add `trace_app`, `trace_frames`,
//! `trace_dropped` and `trace_refresh_hz`. Undefined values (no frames, no time passed) are NaN in the
//! table and `null` in JSON.

use super::trace::{TRACE_FIELDS, TraceInfo};
use serde::Serialize;
use std::fmt::Write as _;

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
    /// `game_time_s / system_time_s` (1 = right speed).
    pub speed_ratio: f64,
    /// Standard deviation of the detrended lag, ms.
    pub judder_ms: f64,
    /// Mean lag between display time and content time, ms.
    pub latency_ms: f64,
    /// The first 200 characters of the pattern.
    pub pattern: String,
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
            judder_ms: f64::NAN,
            latency_ms: f64::NAN,
            pattern: String::new(),
            display: None,
            trace: None,
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
pub const FIELDS: [&str; 17] = [
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
    "judder_ms",
    "latency_ms",
    "pattern",
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
    let s = format!("{value:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

impl RunReport {
    /// The values in [`FIELDS`] order, formatted for a table or CSV.
    fn cells(&self) -> [String; 17] {
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
            format!("{:.3}", self.judder_ms),
            format!("{:.3}", self.latency_ms),
            self.pattern.clone(),
        ]
    }

    /// A short label for plots and pattern lines: `catch-up @ 60 Hz vsync on`.
    pub fn label(&self) -> String {
        format!("{} @ {} Hz vsync {}", self.strategy, hz(self.refresh_hz), on_off(self.vsync))
    }
}

/// An aligned table (every field but the pattern), then one pattern line per run.
pub fn to_table(reports: &[RunReport]) -> String {
    let columns = FIELDS.len() - 1;
    let rows: Vec<[String; 17]> = reports.iter().map(RunReport::cells).collect();
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).chain([FIELDS[c].len()]).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (c, cell) in cells.enumerate() {
            // Names left-aligned, numbers right-aligned.
            let w = widths[c];
            if c == 0 || c == 4 {
                let _ = write!(text, "{cell:<w$}  ");
            } else {
                let _ = write!(text, "{cell:>w$}  ");
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut FIELDS[..columns].iter().copied());
    for row in &rows {
        line(&mut row[..columns].iter().map(String::as_str));
    }
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
            judder_ms: 1.5,
            latency_ms: 16.0,
            pattern: "01111211110".into(),
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
    fn the_table_aligns_columns_and_prints_the_pattern_line() {
        let table = to_table(&[report()]);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("strategy"), "{table}");
        assert_eq!(lines[0].find("refresh_hz").map(|i| i + "refresh_hz".len()), lines[1].find("59.94").map(|i| i + 5));
        assert!(table.contains("catch-up @ 59.94 Hz vsync on  01111211110"), "{table}");
    }
}
