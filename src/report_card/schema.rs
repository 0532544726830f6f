//! `report.json`: the report card's types, version 1.
//!
//! One file describes one machine and the monitors a `measure` tour ran on.
//! Every figure is a plain JSON number; an unknown or undefined figure is
//! `null`, never `NaN`, `0` or a missing key in files this version writes.
//! Readers ignore keys they do not know (a later timestep-lab may add
//! optional ones without a version bump); a key that changes meaning or
//! disappears bumps [`VERSION`], and an older reader refuses the file with
//! a one-line error instead of reading it wrong. `docs/report-card.md` is
//! the same documentation for people who never open the source.
//!
//! ```text
//! ReportCard
//! ├─ schema "timestep-lab/report-card", version 1, created
//! ├─ machine: name, os, adapter, backend, driver, app_version
//! └─ monitors[]: index, name, size_px, scale_factor,
//!    │           reported / measured / emulated refresh (Hz), notes[]
//!    ├─ present_modes[]: mode, vsync (verdict), verdict, measured refresh,
//!    │                   intervals: count, mean/std/p99/min/max ms, histogram
//!    ├─ frame_trace: label, intervals_ms[] (a few hundred display intervals)
//!    ├─ runs[]:        RunRecord, one per strategy × vsync pass, measured
//!    └─ predictions[]: RunRecord, the simulator's `desktop` model at the
//!                      measured refresh, same strategies and passes
//! ```
//!
//! A [`RunRecord`] carries the field names of `simulate --format json` and
//! `run --stats-json` (their [`RunReport`]), every figure optional, so the
//! objects those commands print load as run records as they are.

use super::ReportError;
use super::setup::MeasuredSetup;
pub use super::stats::IntervalStats;
use super::stats::micros_as_ms;
use crate::platform::read_limited::{MAX_JSON_BYTES, read_text_limited};
use crate::report::registry::{
    self, DRIFT_MS_PER_MIN, HITCHES, HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS, MAX_FIGURE, REFRESH_HZ, REPEATED_FRAMES,
    SHOWN_FPS, SKIPPED_RENDERS, SPEED_RATIO, SYSTEM_TIME_S, VSYNCS,
};
use crate::report::{FIELDS, Field, IntervalHistogram, RunOrigin, RunReport, Section};
use crate::time::Nanos;
use serde::{Deserialize, Serialize};

/// The `schema` value of every report card.
pub const SCHEMA: &str = "timestep-lab/report-card";

/// The version this timestep-lab writes and the newest it reads.
pub const VERSION: u32 = 1;

/// How many display intervals a [`FrameTrace`] keeps: enough to see a
/// pattern repeat at 240 Hz for a second, small enough for a readable plot.
pub(crate) const TRACE_LEN: usize = 300;

/// A report card: one machine, the monitors measured on it. See the module docs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReportCard {
    /// Always [`SCHEMA`].
    pub(crate) schema: String,
    /// The format version, [`VERSION`] for files this timestep-lab writes.
    pub version: u32,
    /// When the tour ran: an RFC 3339 UTC timestamp (`2025-11-23T08:30:00Z`), or null.
    #[serde(default)]
    pub created: Option<String>,
    /// The machine the tour ran on.
    pub machine: Machine,
    /// Every monitor the tour measured, in tour order.
    #[serde(default)]
    pub monitors: Vec<MonitorCard>,
}

impl ReportCard {
    /// An empty card of the current version for `machine`.
    pub fn new(machine: Machine) -> ReportCard {
        ReportCard { schema: SCHEMA.to_owned(), version: VERSION, created: None, machine, monitors: Vec::new() }
    }

    /// Reads a card from JSON text, checking its schema and version first.
    ///
    /// # Errors
    /// Not JSON, not a report card, a version this timestep-lab does not
    /// know, or a field of the wrong type (the message says which line).
    pub fn from_json(text: &str) -> Result<ReportCard, SchemaError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(SchemaError::NotJson)?;
        check_header(&value)?;
        check_numbers(&value)?;
        serde_json::from_str(text).map_err(SchemaError::Invalid)
    }

    /// The card as pretty-printed JSON with a final newline.
    ///
    /// # Errors
    /// Only if serialization fails, which plain numbers and strings do not.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }

    /// Reads a card from a file (at most [`MAX_JSON_BYTES`]).
    ///
    /// # Errors
    /// [`ReportError::Read`], or [`ReportError::Card`] with any
    /// [`ReportCard::from_json`] error; both name the file.
    pub fn read(path: &std::path::Path) -> Result<ReportCard, ReportError> {
        let text = read_text_limited(path, MAX_JSON_BYTES)?;
        ReportCard::from_json(&text).map_err(|source| ReportError::Card { path: path.to_owned(), source })
    }

    /// Writes the card as `report.json` (or wherever `path` says).
    ///
    /// # Errors
    /// [`ReportError::Write`] naming the file when it cannot be written.
    pub fn write(&self, path: &std::path::Path) -> Result<(), ReportError> {
        let text = self.to_json().map_err(ReportError::Encode)?;
        crate::platform::write_file(path, text).map_err(ReportError::Write)
    }
}

/// Checks that `value` is a report card of a version this build reads.
///
/// # Errors
/// [`SchemaError::NotACard`], [`SchemaError::FutureVersion`] or [`SchemaError::BadVersion`].
pub(crate) fn check_header(value: &serde_json::Value) -> Result<(), SchemaError> {
    let schema = value.get("schema").and_then(serde_json::Value::as_str);
    if schema != Some(SCHEMA) {
        return Err(SchemaError::NotACard(schema.map(str::to_owned)));
    }
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v > u64::from(VERSION) => Err(SchemaError::FutureVersion(v)),
        Some(v) if v >= 1 => Ok(()),
        _ => Err(SchemaError::BadVersion(value.get("version").map_or_else(|| "missing".to_owned(), |v| v.to_string()))),
    }
}

/// Why a text is not a report card this build can read.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    NotJson(serde_json::Error),
    /// JSON, but without `"schema": "timestep-lab/report-card"`.
    #[error("not a timestep-lab report card (its \"schema\" is {}, expected \"{SCHEMA}\")", .0.as_deref().map_or_else(|| "missing".to_owned(), |s| format!("\"{s}\"")))]
    NotACard(Option<String>),
    /// Written by a newer timestep-lab.
    #[error("report card version {0} is newer than this timestep-lab reads (version {VERSION}); update timestep-lab")]
    FutureVersion(u64),
    /// `version` missing, zero or not a whole number.
    #[error("report card \"version\" is {0}, expected a whole number from 1 to {VERSION}")]
    BadVersion(String),
    /// A field has the wrong type or a required one is missing.
    #[error("report card does not match version {VERSION}: {0}")]
    Invalid(serde_json::Error),
    /// A number no field can hold (a judder of 1e308 ms, a refresh of −1 Hz).
    #[error("report card field {0}")]
    Figure(#[from] FigureError),
}

/// A number in a card or a run that its field cannot hold: where, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path} {problem}")]
pub struct FigureError {
    /// Where in the JSON: `monitors[0].runs[3].judder_ms`.
    pub path: String,
    /// The value and the rule it breaks: `is 1e308 ms, more than 1e12 ms`.
    pub problem: String,
}

/// Checks every number in `value` (a card, or one run) before it is read, so
/// that no table or page ever prints a broken figure: under a registry name
/// (wherever it appears: a run's figures, a prediction's range) the
/// registry's [`Field::check`]; under any other `…_hz` key the rate's rule
/// (more than 0 Hz); anywhere else at most [`MAX_FIGURE`] in size.
///
/// # Errors
/// The first number that breaks its rule, with its path.
pub fn check_numbers(value: &serde_json::Value) -> Result<(), FigureError> {
    check_under(value, None, &mut String::new())
}

/// The rule for numbers under `key`: a registry field's, a rate's, or none beyond the size limit.
fn rule_for(key: &str) -> Option<&'static Field> {
    registry::field(key).or_else(|| key.ends_with("_hz").then_some(&REFRESH_HZ))
}

fn check_under(value: &serde_json::Value, rule: Option<&'static Field>, path: &mut String) -> Result<(), FigureError> {
    let fail = |path: &str, problem: String| Err(FigureError { path: path.to_owned(), problem });
    match value {
        serde_json::Value::Number(n) => {
            let v = n.as_f64().unwrap_or(f64::NAN);
            match rule {
                Some(field) => field.check(v).or_else(|problem| fail(path, problem)),
                None if v.abs() > MAX_FIGURE => fail(path, format!("is {v:e}, more than {MAX_FIGURE:e}")),
                None => Ok(()),
            }
        }
        serde_json::Value::Array(items) => {
            let len = path.len();
            for (i, item) in items.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                check_under(item, rule, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        serde_json::Value::Object(map) => {
            let len = path.len();
            for (key, item) in map {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                check_under(item, rule_for(key), path)?;
                path.truncate(len);
            }
            Ok(())
        }
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::String(_) => Ok(()),
    }
}

/// The machine a tour ran on.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Machine {
    /// A label for the machine (host name, or what the user called it); null if not given.
    #[serde(default)]
    pub name: Option<String>,
    /// Operating system and CPU architecture (`linux x86_64`).
    pub(crate) os: String,
    /// The GPU adapter (`NVIDIA GeForce RTX 3060`, `llvmpipe (LLVM 15.0.6, 256 bits)`).
    #[serde(default)]
    pub(crate) adapter: Option<String>,
    /// The graphics API in use (`Vulkan`, `Metal`, `Dx12`, `Gl`).
    #[serde(default)]
    pub(crate) backend: Option<String>,
    /// The driver and its version, as the adapter reports them.
    #[serde(default)]
    pub(crate) driver: Option<String>,
    /// The timestep-lab version that wrote the card.
    pub(crate) app_version: String,
    /// The browser's user agent, for a card measured by the web page; absent in a native card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
}

impl Machine {
    /// Who measured the card, in words: its name, else the browser and
    /// device (`Chrome 156 on Android 15`), else the adapter and system
    /// (`llvmpipe on Linux`). Never a host name: the card has none.
    pub fn in_words(&self) -> String {
        let name = self.name.as_deref().map(str::trim).filter(|n| n.chars().any(char::is_alphanumeric));
        name.map(str::to_owned)
            .or_else(|| self.browser.as_deref().map(super::agent::in_words))
            .unwrap_or_else(|| super::agent::machine_in_words(&self.os, self.adapter.as_deref()))
    }

    /// This machine's OS and architecture (or the browser) and this build's version; no name, adapter or driver yet.
    pub fn this_build() -> Machine {
        Machine {
            os: crate::platform::system_name(),
            app_version: env!("CARGO_PKG_VERSION").to_owned(),
            browser: crate::platform::browser(),
            ..Machine::default()
        }
    }
}

/// One monitor and everything measured on it.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct MonitorCard {
    /// The number `measure --monitor N` takes for this monitor.
    pub index: u32,
    /// The monitor's name as the OS gives it; null if it has none.
    #[serde(default)]
    pub name: Option<String>,
    /// Width and height in physical pixels.
    #[serde(default)]
    pub size_px: Option<[u32; 2]>,
    /// The OS's scale factor (1, 1.25, 2…).
    #[serde(default)]
    pub scale_factor: Option<f64>,
    /// The refresh rate the monitor reports, Hz (null on Xvfb and some Wayland compositors).
    #[serde(default)]
    pub reported_refresh_hz: Option<f64>,
    /// How often presents came, measured from their timestamps with vsync in effect (1 / median
    /// interval), Hz: the display's refresh where the presents keep to it, less where a
    /// compositor or a slow frame makes them miss refreshes (49.4 Hz under Weston's 60 Hz output).
    /// Cards before it was named for what it is call it `measured_refresh_hz`.
    #[serde(default, alias = "measured_refresh_hz")]
    pub present_cadence_hz: Option<f64>,
    /// The emulated vblank grid the tour ran on instead (`--emulate-refresh`), Hz; null for a real one.
    #[serde(default)]
    pub emulated_refresh_hz: Option<f64>,
    /// The lowest and highest frame rate a variable refresh (VRR) was seen at,
    /// Hz: under vsync the present intervals spread between bounds instead of
    /// falling on multiples of one period. Absent where none was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vrr_seen_hz: Option<[f64; 2]>,
    /// What the tour found per present mode, in the order it tried them.
    #[serde(default)]
    pub present_modes: Vec<PresentModeCheck>,
    /// A sample of display intervals from one run, for the frame-time plot.
    #[serde(default)]
    pub frame_trace: Option<FrameTrace>,
    /// The measured runs: one per strategy × vsync pass.
    #[serde(default)]
    pub runs: Vec<RunRecord>,
    /// What the tour measured of the setup (frame work, present queue, wake-up
    /// precision), the model the predictions ran on; null in cards from before
    /// it was measured, whose predictions ran on the `desktop` model.
    #[serde(default)]
    pub setup: Option<MeasuredSetup>,
    /// The simulator's predictions for the same strategies and passes at this
    /// monitor's refresh, on the model of [`MonitorCard::setup`].
    #[serde(default)]
    pub predictions: Vec<RunRecord>,
    /// How far each prediction spreads over the runs it was made from (a
    /// measured setup's predictions start at several points of its wake-up);
    /// empty for predictions made from one run.
    #[serde(default)]
    pub prediction_ranges: Vec<PredictionRange>,
    /// Anything the tour wants the reader to know (a present mode it could not get, a run cut short).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl MonitorCard {
    /// The refresh rate the runs were counted in: the emulated grid, else the measured, else the reported rate.
    pub fn refresh_hz(&self) -> Option<f64> {
        self.emulated_refresh_hz.or(self.present_cadence_hz).or(self.reported_refresh_hz)
    }
}

/// The kind of present a probe asked for, as a type: whether it waits for a
/// vblank is a property of the kind, not of how its name is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PresentKind {
    /// Fifo: every present waits for a vblank.
    Fifo,
    /// FifoRelaxed: waits, unless the frame came late.
    FifoRelaxed,
    /// Mailbox: the newest frame at each vblank, no wait.
    Mailbox,
    /// Immediate: no wait.
    Immediate,
    /// The lab's emulated vblank grid (Immediate presents at its times).
    EmulatedGrid,
    /// A mode this build does not know.
    #[serde(other)]
    Other,
}

impl PresentKind {
    /// Whether presents of this kind wait for the display's refresh.
    pub fn asks_for_vsync(self) -> bool {
        matches!(self, PresentKind::Fifo | PresentKind::FifoRelaxed | PresentKind::EmulatedGrid)
    }

    /// The kind a card's `mode` text names: cards from before [`PresentModeCheck::kind`]
    /// was stored (`Fifo`, `Immediate + emulated 60 Hz`). The one place that reads the text.
    pub fn from_text(mode: &str) -> PresentKind {
        if mode.contains("emulated") {
            return PresentKind::EmulatedGrid;
        }
        match mode.trim() {
            "Fifo" => PresentKind::Fifo,
            "FifoRelaxed" => PresentKind::FifoRelaxed,
            "Mailbox" => PresentKind::Mailbox,
            "Immediate" => PresentKind::Immediate,
            _ => PresentKind::Other,
        }
    }
}

/// What one present mode did on a monitor.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct PresentModeCheck {
    /// The present mode (`Fifo`, `FifoRelaxed`, `Mailbox`, `Immediate`), as a reader sees it.
    pub mode: String,
    /// The same as a type; absent on older cards, whose kind comes from `mode`'s text
    /// ([`PresentModeCheck::kind`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present_kind: Option<PresentKind>,
    /// Whether vsync was in effect: the verdict; null when it could not tell.
    #[serde(default)]
    pub vsync: Option<bool>,
    /// The verdict as one sentence (the overlay's), e.g. "Fifo: frames every 16.7 ms, vsync in effect".
    #[serde(default)]
    pub verdict: String,
    /// How often presents came in this mode, Hz (1 / median present interval); `measured_refresh_hz`
    /// in cards before it was named for what it is.
    #[serde(default, alias = "measured_refresh_hz")]
    pub present_cadence_hz: Option<f64>,
    /// Present-interval statistics; null when no frame was presented.
    #[serde(default)]
    pub intervals: Option<IntervalStats>,
}

impl PresentModeCheck {
    /// The kind of present: the stored type, else (an older card) the one its text names.
    pub fn kind(&self) -> PresentKind {
        self.present_kind.unwrap_or_else(|| PresentKind::from_text(&self.mode))
    }
}

/// A sample of display intervals from one run, for the frame-time plot.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct FrameTrace {
    /// Which run the sample comes from (`interpolated, Fifo`).
    pub label: String,
    /// Intervals between consecutive frames' display times, ms, in order (at most [`TRACE_LEN`]), rounded to 1 µs.
    pub intervals_ms: Vec<f64>,
}

impl FrameTrace {
    /// The first [`TRACE_LEN`] of `intervals` (ns), rounded to whole microseconds.
    pub(crate) fn from_intervals(label: impl Into<String>, intervals: &[Nanos]) -> FrameTrace {
        let intervals_ms = intervals.iter().take(TRACE_LEN).map(|&ns| micros_as_ms(ns)).collect();
        FrameTrace { label: label.into(), intervals_ms }
    }
}

/// One run's figures: a measured run, a prediction, or a simulator run.
///
/// The names are [`RunReport`]'s (`simulate --format json`). Every figure is
/// optional: files from before a figure existed, and runs where it is
/// undefined (no frames), give `null`. Read hitches per minute and drift
/// through [`RunRecord::hitches_per_min`] and [`RunRecord::drift_ms_per_min`],
/// which derive them from older fields when a file lacks them.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct RunRecord {
    /// Strategy id (`catch-up`).
    pub strategy: String,
    /// Vsync: the simulator's setting, or a window's verdict (null: could not tell).
    pub vsync: Option<bool>,
    /// The vsync pass of the tour this run belongs to (on/off as asked for); null for simulator runs.
    pub vsync_requested: Option<bool>,
    /// The present mode in effect (`Fifo`); null for simulator runs.
    pub present_mode: Option<String>,
    /// Simulation tick rate, Hz.
    pub tick_rate: Option<f64>,
    /// The refresh rate the pattern counts in, Hz.
    pub refresh_hz: Option<f64>,
    /// What produced the frames: `window` for a measured run, the simulator's model (`desktop`, `this setup`) otherwise.
    pub model: Option<RunOrigin>,
    /// The simulator's noise seed.
    pub seed: Option<u64>,
    /// Where the run's display times came from (`compositor-feedback (…)`,
    /// `present-return`, …: the report's `display_time_source`); null in older files.
    pub display_time_source: Option<String>,
    /// Every number of the report's figures, by the registry's names
    /// (`total_updates` … `present_interval_p99_ms`), written flat.
    #[serde(flatten)]
    pub figures: Figures,
    /// Present intervals in the core's fixed 0.25 ms bins (`simulate --format json`'s
    /// `present_interval_histogram`); null where the run has none.
    pub present_interval_histogram: Option<IntervalHistogram>,
    /// Updates per refresh, the first 200 refreshes (`1111211110…`).
    pub pattern: Option<String>,
    /// A VRR display's lowest and highest refresh, Hz (`simulate`'s
    /// `vrr_min_hz`, `vrr_max_hz`); absent for a fixed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrr_min_hz: Option<f64>,
    /// See [`RunRecord::vrr_min_hz`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vrr_max_hz: Option<f64>,
}

/// The spread of a prediction made from several runs: the least and the
/// most of each judged figure (see `judge`'s agreement).
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PredictionRange {
    /// Strategy id.
    pub strategy: String,
    /// The vsync pass the prediction belongs to.
    pub(crate) vsync_requested: Option<bool>,
    /// Runs the range covers.
    pub(crate) runs: u32,
    /// Judder, ms: least and most.
    pub(crate) judder_ms: Option<[f64; 2]>,
    /// Hitches per minute: least and most.
    pub(crate) hitches_per_min: Option<[f64; 2]>,
    /// Latency, ms: least and most.
    pub(crate) latency_ms: Option<[f64; 2]>,
}

impl PredictionRange {
    /// The range of `runs` (one strategy, one pass; the first names them).
    pub(crate) fn of(runs: &[RunRecord]) -> PredictionRange {
        let span = |figure: fn(&RunRecord) -> Option<f64>| {
            let values: Vec<f64> = runs.iter().filter_map(figure).filter(|v| v.is_finite()).collect();
            let lo = values.iter().copied().reduce(f64::min)?;
            let hi = values.iter().copied().reduce(f64::max)?;
            Some([lo, hi])
        };
        PredictionRange {
            strategy: runs.first().map(|r| r.strategy.clone()).unwrap_or_default(),
            vsync_requested: runs.first().and_then(|r| r.vsync_requested),
            runs: runs.len() as u32,
            judder_ms: span(|r| r.figure(&JUDDER_MS)),
            hitches_per_min: span(RunRecord::hitches_per_min),
            latency_ms: span(|r| r.figure(&LATENCY_MS)),
        }
    }
}

/// A float figure, `None` when undefined (NaN or infinite).
fn defined(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

impl From<&RunReport> for RunRecord {
    /// Every figure a [`RunReport`] has; NaN becomes `None`.
    fn from(r: &RunReport) -> RunRecord {
        let mut figures = Figures::default();
        for field in Figures::fields() {
            figures.set(field, field.cell(r).number());
        }
        RunRecord {
            strategy: r.strategy.clone(),
            vsync: r.vsync,
            vsync_requested: None,
            present_mode: r.display.as_ref().map(|d| d.present_mode_actual.clone()),
            tick_rate: defined(r.tick_rate),
            refresh_hz: defined(r.refresh_hz),
            model: (!r.model.name().is_empty()).then(|| r.model.clone()),
            seed: Some(r.seed),
            display_time_source: (!r.display_time_source.is_empty()).then(|| r.display_time_source.clone()),
            figures,
            present_interval_histogram: r.present_interval_histogram.clone(),
            pattern: Some(r.pattern.clone()),
            vrr_min_hz: r.vrr.as_ref().map(|v| v.min_hz),
            vrr_max_hz: r.vrr.as_ref().map(|v| v.max_hz),
        }
    }
}

/// A run's figures: every number of the report after its settings, from
/// `total_updates` to `present_interval_p99_ms` (the registry's
/// [`Section::Figure`] numbers), each optional. JSON writes them under the
/// registry's names in its order (counts as whole numbers, `null` when
/// unknown); reading ignores names it does not know, and a figure a file
/// lacks is `None`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    values: Vec<(&'static Field, f64)>,
}

impl Figures {
    /// The fields a record keeps, in order.
    pub(crate) fn fields() -> impl Iterator<Item = &'static Field> {
        FIELDS.iter().copied().filter(|f| f.section == Section::Figure && !f.is_text())
    }

    /// The figure, if known.
    pub(crate) fn get(&self, field: &Field) -> Option<f64> {
        self.values.iter().find(|(f, _)| *f == field).map(|(_, v)| *v)
    }

    /// Sets (or, for `None` and undefined values, clears) a figure.
    pub(crate) fn set(&mut self, field: &'static Field, value: Option<f64>) {
        self.values.retain(|(f, _)| *f != field);
        if let Some(v) = value.and_then(defined) {
            self.values.push((field, v));
            // In registry order, so that equal figures compare equal.
            self.values.sort_by_key(|(f, _)| Figures::fields().position(|g| g == *f));
        }
    }
}

impl Serialize for Figures {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(None)?;
        for field in Figures::fields() {
            match self.get(field) {
                Some(v) if field.is_count() && v >= 0.0 && v.fract() == 0.0 => {
                    map.serialize_entry(field.name, &(v as u64))?;
                }
                value => map.serialize_entry(field.name, &value)?,
            }
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Figures {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Figures, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Figures;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a run's figures")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Figures, A::Error> {
                let mut figures = Figures::default();
                while let Some(key) = map.next_key::<String>()? {
                    match Figures::fields().find(|f| f.name == key) {
                        Some(field) => figures.set(field, map.next_value::<Option<f64>>()?),
                        None => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(figures)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

impl RunRecord {
    /// Where the run's display times came from, when the file says.
    pub(crate) fn display_times(&self) -> Option<crate::feedback::DisplayTimeSource> {
        self.display_time_source.as_deref().and_then(crate::feedback::DisplayTimeSource::parse)
    }

    /// A figure of the run, if known.
    pub fn figure(&self, field: &Field) -> Option<f64> {
        self.figures.get(field)
    }

    /// A figure as a card shows it: the recorded one, except hitches per minute
    /// and drift, which older files lack and are derived (see above).
    pub fn value(&self, field: &Field) -> Option<f64> {
        if *field == HITCHES_PER_MIN {
            self.hitches_per_min()
        } else if *field == DRIFT_MS_PER_MIN {
            self.drift_ms_per_min()
        } else if *field == SHOWN_FPS {
            self.shown_fps()
        } else {
            self.figure(field)
        }
    }

    /// The record with `field` set to `value`.
    #[must_use]
    #[cfg(test)]
    pub(crate) fn with(mut self, field: &'static Field, value: f64) -> RunRecord {
        self.figures.set(field, Some(value));
        self
    }

    /// The vsync pass this run belongs to: the pass asked for, else the vsync it ran with.
    pub fn vsync_pass(&self) -> Option<bool> {
        self.vsync_requested.or(self.vsync)
    }

    /// Speed error in ms per minute: the recorded figure, else `(speed_ratio − 1) · 60 000`.
    pub(crate) fn drift_ms_per_min(&self) -> Option<f64> {
        self.figure(&DRIFT_MS_PER_MIN)
            .or_else(|| self.figure(&SPEED_RATIO).map(|s| (s - 1.0) * 60_000.0))
            .and_then(defined)
    }

    /// New pictures a second, from the counts by the core's one definition
    /// ([`crate::metrics::shown_fps`]): every card has them, older ones too.
    pub fn shown_fps(&self) -> Option<f64> {
        let count = |field: &Field| self.figure(field).filter(|v| *v >= 0.0).map(|v| v as u64);
        let shown = crate::metrics::shown_fps(
            count(&VSYNCS)?,
            count(&SKIPPED_RENDERS)?,
            count(&REPEATED_FRAMES)?,
            self.figure(&SYSTEM_TIME_S)?,
        );
        defined(shown)
    }

    /// Hitches per minute: the recorded figure, else hitches over the display time covered.
    pub fn hitches_per_min(&self) -> Option<f64> {
        self.figure(&HITCHES_PER_MIN)
            .or_else(|| match (self.figure(&HITCHES), self.figure(&SYSTEM_TIME_S)) {
                (Some(h), Some(s)) if s > 0.0 => Some(h * 60.0 / s),
                _ => None,
            })
            .and_then(defined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_present_kind_is_stored_as_a_type_and_an_old_cards_comes_from_its_text() {
        let old: PresentModeCheck = serde_json::from_str(r#"{"mode": "Immediate + emulated 60 Hz"}"#).expect("old");
        assert_eq!((old.present_kind, old.kind()), (None, PresentKind::EmulatedGrid));
        assert!(old.kind().asks_for_vsync(), "an emulated grid waits for its vblanks");
        let fifo: PresentModeCheck = serde_json::from_str(r#"{"mode": "Fifo"}"#).expect("old");
        assert_eq!(fifo.kind(), PresentKind::Fifo);
        let new = PresentModeCheck {
            mode: "Mailbox".to_owned(),
            present_kind: Some(PresentKind::Mailbox),
            ..PresentModeCheck::default()
        };
        let text = serde_json::to_string(&new).expect("json");
        assert!(text.contains(r#""present_kind":"mailbox""#), "{text}");
        let back: PresentModeCheck = serde_json::from_str(&text).expect("round trip");
        assert_eq!((back.kind(), back.kind().asks_for_vsync()), (PresentKind::Mailbox, false));
        let unknown: PresentModeCheck =
            serde_json::from_str(r#"{"mode": "x", "present_kind": "warp"}"#).expect("a later kind");
        assert_eq!(unknown.kind(), PresentKind::Other);
    }
    use crate::report::registry::{JUDDER_MS, STARTUP_MS, TOTAL_UPDATES};

    #[test]
    fn figures_round_trip_in_registry_order_with_counts_whole_and_unknowns_null() {
        let run = RunRecord::default().with(&HITCHES, 3.0).with(&JUDDER_MS, 1.25);
        let text = serde_json::to_string(&run).expect("JSON");
        assert!(text.contains("\"hitches\":3,"), "a count is a whole number: {text}");
        assert!(text.contains("\"judder_ms\":1.25,") && text.contains("\"latency_ms\":null"), "{text}");
        let at = |name: &str| text.find(&format!("\"{name}\":"));
        let order: Vec<Option<usize>> = Figures::fields().map(|f| at(f.name)).collect();
        assert!(order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert_eq!(serde_json::from_str::<RunRecord>(&text).expect("read back"), run);
    }

    #[test]
    fn a_record_from_before_start_up_loads_without_it() {
        let old = r#"{"strategy": "fuzzy", "hitches": 2, "judder_ms": 0.5, "fps": 60.0}"#;
        let run: RunRecord = serde_json::from_str(old).expect("an older record loads");
        assert_eq!((run.figure(&STARTUP_MS), run.figure(&HITCHES)), (None, Some(2.0)));
        assert_eq!(run.figure(&JUDDER_MS), Some(0.5), "unknown keys (fps) are ignored");
    }

    #[test]
    fn drift_is_derived_from_the_speed_ratio_when_missing() {
        let run = RunRecord::default().with(&SPEED_RATIO, 1000.0 / 1001.0);
        let drift = run.drift_ms_per_min().expect("derived from the speed ratio");
        assert!((drift - (-60_000.0 / 1001.0)).abs() < 1e-9, "59.94 Hz lockstep loses 59.94 ms a minute: {drift}");
        let recorded = run.with(&DRIFT_MS_PER_MIN, 3.0);
        assert_eq!(recorded.drift_ms_per_min(), Some(3.0), "a recorded figure wins");
    }

    #[test]
    fn hitches_per_minute_are_derived_from_hitches_and_display_time() {
        let run = RunRecord::default().with(&HITCHES, 3.0).with(&SYSTEM_TIME_S, 30.0);
        assert_eq!(run.hitches_per_min(), Some(6.0), "3 hitches in 30 s");
        assert_eq!(run.with(&SYSTEM_TIME_S, 0.0).hitches_per_min(), None, "no time, no rate");
    }

    #[test]
    fn a_nan_report_figure_becomes_none() {
        let record = RunRecord::from(&RunReport { strategy: "fuzzy".into(), ..RunReport::default() });
        assert_eq!(record.figure(&JUDDER_MS), None);
        assert_eq!(record.refresh_hz, None);
        assert_eq!(record.figure(&TOTAL_UPDATES), Some(0.0));
    }

    fn card_with_one_run() -> serde_json::Value {
        let run = RunRecord { strategy: "fuzzy".to_owned(), ..RunRecord::default() }.with(&JUDDER_MS, 0.5);
        let monitor = MonitorCard { reported_refresh_hz: Some(60.0), runs: vec![run], ..MonitorCard::default() };
        let card = ReportCard { monitors: vec![monitor], ..ReportCard::new(Machine::this_build()) };
        serde_json::to_value(&card).expect("JSON")
    }

    #[test]
    fn a_figure_or_a_rate_out_of_range_is_refused_naming_the_field() {
        let good = card_with_one_run();
        assert!(ReportCard::from_json(&good.to_string()).is_ok(), "the card as written loads");
        let cases = [
            ("judder_ms", serde_json::json!(1e308), "monitors[0].runs[0].judder_ms is 1e308 ms, more than 1e12 ms"),
            (
                "hitches",
                serde_json::json!(2.5),
                "monitors[0].runs[0].hitches is 2.5: a count is a whole number, 0 or more",
            ),
            (
                "tick_rate",
                serde_json::json!(-1),
                "monitors[0].runs[0].tick_rate is -1 Hz: a rate is more than 0 and at most 1e6 Hz",
            ),
        ];
        for (key, value, says) in cases {
            let mut card = good.clone();
            card["monitors"][0]["runs"][0][key] = value;
            let error = ReportCard::from_json(&card.to_string()).expect_err("refused").to_string();
            assert_eq!(error, format!("report card field {says}"));
        }
        let mut card = good;
        card["monitors"][0]["reported_refresh_hz"] = serde_json::json!(-1.0);
        let error = ReportCard::from_json(&card.to_string()).expect_err("refused").to_string();
        assert_eq!(
            error,
            "report card field monitors[0].reported_refresh_hz is -1 Hz: a rate is more than 0 and at most 1e6 Hz"
        );
    }

    #[test]
    fn a_prediction_range_and_interval_statistics_are_checked_too() {
        let mut card = card_with_one_run();
        card["monitors"][0]["prediction_ranges"] =
            serde_json::json!([{"strategy": "fuzzy", "latency_ms": [16.0, 1e300]}]);
        let error = ReportCard::from_json(&card.to_string()).expect_err("refused").to_string();
        assert!(error.contains("monitors[0].prediction_ranges[0].latency_ms[1] is 1e300 ms"), "{error}");
        let mut card = card_with_one_run();
        card["monitors"][0]["frame_trace"] = serde_json::json!({"label": "x", "intervals_ms": [16.7, 1e15]});
        let error = ReportCard::from_json(&card.to_string()).expect_err("refused").to_string();
        assert!(error.contains("monitors[0].frame_trace.intervals_ms[1] is 1e15, more than 1e12"), "{error}");
        let mut card = card_with_one_run();
        card["monitors"][0]["present_modes"] = serde_json::json!([{"mode": "Fifo", "present_cadence_hz": 0.0}]);
        let error = ReportCard::from_json(&card.to_string()).expect_err("refused").to_string();
        assert!(error.contains("present_modes[0].present_cadence_hz is 0 Hz"), "{error}");
    }

    #[test]
    fn a_card_that_calls_the_present_cadence_measured_refresh_hz_still_loads() {
        let mut card = card_with_one_run();
        card["monitors"][0].as_object_mut().expect("a monitor").remove("present_cadence_hz");
        card["monitors"][0]["measured_refresh_hz"] = serde_json::json!(49.4);
        card["monitors"][0]["present_modes"] = serde_json::json!([{"mode": "Fifo", "measured_refresh_hz": 60.0}]);
        let card = ReportCard::from_json(&card.to_string()).expect("an earlier card loads");
        assert_eq!(card.monitors[0].present_cadence_hz, Some(49.4));
        assert_eq!(card.monitors[0].present_modes[0].present_cadence_hz, Some(60.0));
    }

    #[test]
    fn a_card_without_schema_or_with_version_0_is_refused() {
        let no_schema = serde_json::json!({"version": 1});
        assert!(matches!(check_header(&no_schema), Err(SchemaError::NotACard(None))));
        let zero = serde_json::json!({"schema": SCHEMA, "version": 0});
        assert!(matches!(check_header(&zero), Err(SchemaError::BadVersion(v)) if v == "0"));
        let text = serde_json::json!({"schema": SCHEMA, "version": "1"});
        assert!(matches!(check_header(&text), Err(SchemaError::BadVersion(_))), "a string is not a version");
    }
}
