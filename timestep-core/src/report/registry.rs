//! The metric registry: every figure a report carries, defined once.
//!
//! A [`Field`] is a figure's name (the contract scripts and CI read), its
//! unit, its one-line definition, how many decimals the table and CSV print,
//! whether the table shows it, and how to read it from a [`RunReport`] (or
//! from [`FrameStats`] alone, for a live HUD). Every list is derived from
//! [`FIELDS`] and [`TRACE_FIELDS`]: the table's columns, the CSV header and
//! its cells, the JSON keys (checked by a test), the columns of a sweep over
//! start phases, a HUD's rows and legends, the definitions printed for a reader.
//!
//! Nothing here needs serde: the registry is plain data and functions.
//!
//! D is a picture's display time, C the simulation time it depicts, I the
//! input time of that state, ŝ the slope of C on D, P the refresh period
//! (the median present interval on a VRR panel or when no refresh is known); see
//! [`crate::metrics`] for the definitions with worked examples.

use std::fmt::Write as _;

use serde::Serialize;
use serde::ser::SerializeMap as _;

use super::cell::Cell;
use super::run_report::{CompositorInfo, RunReport, TraceInfo, VrrInfo};
use super::table::trim_number;
use crate::metrics::FrameStats;

/// Which part of a report a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// What the run was: the same in every run of a sweep over start phases.
    Setting,
    /// What was counted and measured.
    Figure,
    /// What a replayed trace was (runs of a trace only).
    Trace,
    /// The VRR panel the frames went to (VRR runs only).
    Vrr,
    /// The compositor the frames went through (composited runs only).
    Compositor,
}

/// How a field is read.
#[derive(Clone, Copy)]
enum Read {
    /// From the report.
    Report(for<'a> fn(&'a RunReport) -> Cell<'a>),
    /// From the frame statistics (the report's, or a HUD's live ones).
    Stat(fn(&FrameStats) -> Cell<'static>),
    /// From the replayed trace's facts.
    Trace(for<'a> fn(&'a TraceInfo) -> Cell<'a>),
    /// From the VRR panel's facts.
    Vrr(fn(&VrrInfo) -> Cell<'static>),
    /// From the compositor's facts.
    Compositor(for<'a> fn(&'a CompositorInfo) -> Cell<'a>),
}

/// One figure of a report: see the module docs.
pub struct Field {
    /// The name in the table, CSV and JSON: `judder_ms`.
    pub name: &'static str,
    /// The unit, as labels print it after a value (`ms`, `ms/min`, `/min`); empty for names and counts.
    pub unit: &'static str,
    /// One line: what it means, as the definitions table and a HUD's legends show it.
    pub definition: &'static str,
    /// Decimals the table and CSV print a measured figure with.
    pub decimals: usize,
    /// Whether the table shows it (CSV and JSON carry every field).
    pub in_table: bool,
    /// The part of the report it belongs to.
    pub section: Section,
    /// The largest magnitude that still reads as fine, where there is one:
    /// `compare` marks a run beyond it with `!`, a lane's label says so.
    pub bound: Option<f64>,
    read: Read,
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Field").field("name", &self.name).finish_non_exhaustive()
    }
}

impl PartialEq for Field {
    /// Fields are equal when they have the same name (each name is defined once).
    fn eq(&self, other: &Field) -> bool {
        self.name == other.name
    }
}

impl Field {
    /// The field's value in `report` ([`Cell::Missing`] for a trace field of a run without a trace).
    pub fn cell<'a>(&self, report: &'a RunReport) -> Cell<'a> {
        match self.read {
            Read::Report(read) => read(report),
            Read::Stat(read) => read(&report.stats),
            Read::Trace(read) => report.trace.as_ref().map_or(Cell::Missing, read),
            Read::Vrr(read) => report.vrr.as_ref().map_or(Cell::Missing, read),
            Read::Compositor(read) => report.compositor.as_ref().map_or(Cell::Missing, read),
        }
    }

    /// The field's value in `report`, formatted as the table and CSV print it.
    pub fn format(&self, report: &RunReport) -> String {
        self.cell(report).format(self.decimals)
    }

    /// The field's value in a trace's facts ([`Cell::Missing`] for a field of the run).
    pub fn trace_cell<'a>(&self, trace: &'a TraceInfo) -> Cell<'a> {
        match self.read {
            Read::Trace(read) => read(trace),
            Read::Report(_) | Read::Stat(_) | Read::Vrr(_) | Read::Compositor(_) => Cell::Missing,
        }
    }

    /// The field's value in a VRR panel's facts ([`Cell::Missing`] for another field).
    pub fn vrr_cell(&self, vrr: &VrrInfo) -> Cell<'static> {
        match self.read {
            Read::Vrr(read) => read(vrr),
            Read::Report(_) | Read::Stat(_) | Read::Trace(_) | Read::Compositor(_) => Cell::Missing,
        }
    }

    /// The field's value in a compositor's facts ([`Cell::Missing`] for another field).
    pub fn compositor_cell<'a>(&self, compositor: &'a CompositorInfo) -> Cell<'a> {
        match self.read {
            Read::Compositor(read) => read(compositor),
            Read::Report(_) | Read::Stat(_) | Read::Trace(_) | Read::Vrr(_) => Cell::Missing,
        }
    }

    /// The figure in frame statistics (`None` for a field [`FrameStats`] does not hold).
    pub fn stat(&self, stats: &FrameStats) -> Option<f64> {
        match self.read {
            Read::Stat(read) => read(stats).number(),
            Read::Report(_) | Read::Trace(_) | Read::Vrr(_) | Read::Compositor(_) => None,
        }
    }

    /// Whether the field is a whole number (a count): a sweep's mean of it gets one decimal, its range none.
    pub fn is_count(&self) -> bool {
        matches!(self.cell(&probe()), Cell::Count(_))
    }

    /// Whether the field is a name, not a number: tables left-align it.
    pub fn is_text(&self) -> bool {
        matches!(self.cell(&probe()), Cell::Text(_))
    }
}

/// How people read fields: words, units, decimals; every label a table, a
/// page or a HUD prints comes from here, never from a copy.
impl Field {
    /// The name without its unit, in words: `judder`, `hitches`, `judder p99`, `refresh`
    /// (a name that does not end in its unit keeps all its words: `tick rate`).
    pub fn words(&self) -> String {
        let stem = self.name.strip_suffix(&unit_suffix(self.unit)).unwrap_or(self.name);
        stem.replace('_', " ")
    }

    /// The words and the unit: `judder ms`, `hitches/min`, `drift ms/min`, `hitches`.
    pub fn label(&self) -> String {
        self.with_unit(&self.words())
    }

    /// `text` followed by the field's unit as labels print it: `1.900 ms`, `20.11/min`, `3`.
    pub fn with_unit(&self, text: &str) -> String {
        match self.unit {
            "" => text.to_owned(),
            unit if unit.starts_with('/') => format!("{text}{unit}"),
            unit => format!("{text} {unit}"),
        }
    }

    /// `value` with the field's decimals (a count, with none): `1.900`, `20.11`, `3`.
    pub fn number(&self, value: f64) -> String {
        let decimals = self.decimals;
        format!("{value:.decimals$}")
    }

    /// The words, then the value with its decimals and unit: `judder 1.900 ms`, `hitches 20.11/min`.
    pub fn reading(&self, value: f64) -> String {
        format!("{} {}", self.words(), self.with_unit(&self.number(value)))
    }

    /// Whether `value` is one the field can hold; otherwise why not, in a few words after the
    /// field's name (`is 1e308, more than 1e12 ms`). Every number is finite; a rate (Hz) is
    /// above 0 and at most [`MAX_RATE_HZ`]; a count is whole and not negative; a figure is at
    /// most [`MAX_FIGURE`] in size. Names and flags hold no number: any passes.
    ///
    /// # Errors
    /// The value and the rule it breaks.
    pub fn check(&self, value: f64) -> Result<(), String> {
        let shown = show_value(value);
        if !value.is_finite() {
            return Err(format!("is {shown}, not a finite number"));
        }
        if self.unit == "Hz" {
            return if value > 0.0 && value <= MAX_RATE_HZ {
                Ok(())
            } else {
                Err(format!("is {shown} Hz: a rate is more than 0 and at most {} Hz", show_value(MAX_RATE_HZ)))
            };
        }
        let probe = probe();
        match self.cell(&probe) {
            Cell::Count(_) if value < 0.0 || value.fract() != 0.0 => {
                Err(format!("is {shown}: a count is a whole number, 0 or more"))
            }
            // A setting's count (the seed) may be any whole number a u64 holds.
            Cell::Count(_) if self.section == Section::Setting => Ok(()),
            Cell::Count(_) | Cell::Real(_) | Cell::Hz(_) if value.abs() > MAX_FIGURE => {
                Err(format!("is {}, more than {}", self.with_unit(&shown), self.with_unit(&show_value(MAX_FIGURE))))
            }
            _ => Ok(()),
        }
    }
}

/// The letters the definitions use, in one line (for a page's legend; the
/// module docs and [`crate::metrics`] say the same with worked examples).
pub const NOTATION: &str = "D is a picture's display time, C the simulation time it depicts, I the input time of \
     that state, ŝ the least-squares slope of C on D, P the refresh period (the median present interval when no \
     refresh is known)";

/// The largest size a figure may have, in its own unit. The longest run the
/// simulator makes is a simulated year (3.2·10¹⁰ ms) or 100 million frames,
/// and no count or time of a run comes near 10¹²; a number past it is a
/// broken file, which a table would print hundreds of digits wide.
pub const MAX_FIGURE: f64 = 1e12;

/// The highest rate a report holds, Hz: a frame every microsecond. Displays
/// refresh at 1 kHz at most, and a loop with vsync off on a fast GPU at a few
/// tens of kHz.
pub const MAX_RATE_HZ: f64 = 1e6;

/// How a unit ends a field's name: `ms` → `_ms`, `/min` → `_per_min`, `ms/min` → `_ms_per_min`, `Hz` → `_hz`.
fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        return String::new();
    }
    format!("_{}", unit.to_ascii_lowercase().replace('/', "_per_")).replace("__", "_")
}

/// A value in a message: short numbers as they are, huge or tiny ones in exponent form (`1e308`).
fn show_value(value: f64) -> String {
    if value.is_finite() && (value == 0.0 || (1e-4..1e6).contains(&value.abs())) {
        trim_number(value, 6)
    } else {
        format!("{value:e}")
    }
}

/// A report where every field has a value, to learn a field's kind of value.
fn probe() -> RunReport {
    let trace = TraceInfo { app: Some(String::new()), frames: 0, dropped: 0, refresh_hz: Some(0.0) };
    let compositor = CompositorInfo { name: String::new(), latch_ms: 0.0, delay_refreshes: 0, frames_replaced: 0 };
    RunReport { trace: Some(trace), compositor: Some(compositor), ..RunReport::default() }
}

macro_rules! field {
    ($name:literal, $unit:literal, $section:ident, $decimals:literal, $table:literal, $read:expr, $definition:expr) => {
        Field {
            name: $name,
            unit: $unit,
            definition: $definition,
            decimals: $decimals,
            in_table: $table,
            section: Section::$section,
            bound: None,
            read: $read,
        }
    };
}

/// The strategy's id.
pub static STRATEGY: Field =
    field!("strategy", "", Setting, 0, true, Read::Report(|r| Cell::Text(&r.strategy)), "the loop strategy's id");
/// The refresh rate the pattern counts in; a VRR panel's range in the table and CSV.
pub static REFRESH_HZ: Field = field!(
    "refresh_hz",
    "Hz",
    Setting,
    3,
    true,
    Read::Report(|r| r.vrr.as_ref().map_or(Cell::Hz(r.refresh_hz), |v| Cell::Text(&v.range))),
    "the display's refresh rate (59.94 is exactly 60000/1001); a VRR panel's range (`vrr:48-144`) in the table \
     and CSV, `null` in JSON (no grid: see vrr_min_hz)"
);
/// Vsync on or off.
pub static VSYNC: Field = field!(
    "vsync",
    "",
    Setting,
    0,
    true,
    Read::Report(|r| Cell::OnOff(r.vsync)),
    "whether presents wait for the display's refresh"
);
/// The simulation's tick rate.
pub static TICK_RATE: Field = field!(
    "tick_rate",
    "Hz",
    Setting,
    3,
    false,
    Read::Report(|r| Cell::Hz(r.tick_rate)),
    "fixed simulation updates per second"
);
/// The machine model.
pub static MODEL: Field = field!(
    "model",
    "",
    Setting,
    0,
    true,
    Read::Report(|r| Cell::Text(r.model.name())),
    "the machine model (a preset's name; `trace` for replayed frame times, `window` for the real window or page, \
     `lanes` for one of its lanes, `this setup` for a report card's prediction on the setup it measured)"
);
/// Where the display times came from.
pub static DISPLAY_TIME_SOURCE: Field = field!(
    "display_time_source",
    "",
    Setting,
    0,
    false,
    Read::Report(|r| Cell::Text(&r.display_time_source)),
    "where D came from: `compositor-feedback (flags)` (the display said when each frame was shown), \
     `present-return` (the present call returned: an estimate blind to queued and discarded frames), \
     `animation-frame` (the page's requestAnimationFrame after the present: an estimate), `emulated-vblank` or \
     `simulated`"
);
/// The noise seed.
pub static SEED: Field = field!("seed", "", Setting, 0, false, Read::Report(|r| Cell::Count(r.seed)), "the noise seed");
/// World updates run.
pub static TOTAL_UPDATES: Field =
    field!("total_updates", "", Figure, 0, true, Read::Report(|r| Cell::Count(r.total_updates)), "world updates run");
/// Refreshes covered.
pub static VSYNCS: Field = field!(
    "vsyncs",
    "",
    Figure,
    0,
    true,
    Read::Report(|r| Cell::Count(r.vsyncs)),
    "refreshes covered by the run (the pattern's length)"
);
/// Refreshes showing more than one update.
pub static DOUBLE_UPDATES: Field = field!(
    "double_updates",
    "",
    Figure,
    0,
    true,
    Read::Report(|r| Cell::Count(r.double_updates)),
    "refreshes showing more than one new update"
);
/// Refreshes without a new frame.
pub static SKIPPED_RENDERS: Field = field!(
    "skipped_renders",
    "",
    Figure,
    0,
    true,
    Read::Report(|r| Cell::Count(r.skipped_renders)),
    "refreshes without a new frame"
);
/// Frames showing the picture before them again.
pub static REPEATED_FRAMES: Field = field!(
    "repeated_frames",
    "",
    Figure,
    0,
    false,
    Read::Report(|r| Cell::Count(r.repeated_frames)),
    "frames showing the same simulation time as the frame before"
);
/// Simulated time.
pub static GAME_TIME_S: Field = field!(
    "game_time_s",
    "s",
    Figure,
    3,
    true,
    Read::Report(|r| Cell::Real(r.game_time_s)),
    "simulated time at the end, s"
);
/// Display time covered.
pub static SYSTEM_TIME_S: Field = field!(
    "system_time_s",
    "s",
    Figure,
    3,
    true,
    Read::Report(|r| Cell::Real(r.system_time_s)),
    "display time covered, s"
);
/// How long the picture stood still at the start.
pub static STARTUP_MS: Field = field!(
    "startup_ms",
    "ms",
    Figure,
    3,
    true,
    Read::Stat(|s| Cell::Real(s.startup_ms)),
    "start-up: how long the first picture stood still (display time of the last frame still showing it, less the \
     first frame's; 0 when the second frame moves); after such a freeze the figures below start with the first move"
);
/// ŝ.
pub static SPEED_RATIO: Field = field!(
    "speed_ratio",
    "",
    Figure,
    5,
    false,
    Read::Stat(|s| Cell::Real(s.speed_ratio)),
    "ŝ, the least-squares slope of C on D: 1 is the right speed"
);
/// The speed error. Its bound (0.2 %) is wide enough for Glaiel's fuzzy
/// timer on a 59.94 Hz display (60 ms/min slow), narrow enough to rule out
/// lockstep away from the tick rate.
pub static DRIFT_MS_PER_MIN: Field = Field {
    bound: Some(120.0),
    ..field!(
        "drift_ms_per_min",
        "ms/min",
        Figure,
        2,
        true,
        Read::Stat(|s| Cell::Real(s.drift_ms_per_min)),
        "(ŝ − 1) · 60 000: ms of game time gained per minute of display; negative when the game runs slow"
    )
};
/// Judder, RMS.
pub static JUDDER_MS: Field = field!(
    "judder_ms",
    "ms",
    Figure,
    3,
    true,
    Read::Stat(|s| Cell::Real(s.judder_ms)),
    "RMS of j = ΔC − ŝ·ΔD over frames: how far each picture moves off steady motion"
);
/// Judder, 99th percentile.
pub static JUDDER_P99_MS: Field = field!(
    "judder_p99_ms",
    "ms",
    Figure,
    3,
    false,
    Read::Stat(|s| Cell::Real(s.judder_p99_ms)),
    "99th percentile of |j|"
);
/// Hitches.
pub static HITCHES: Field = field!(
    "hitches",
    "",
    Figure,
    0,
    true,
    Read::Stat(|s| Cell::Count(s.hitches)),
    "frames with |j| ≥ P/2 (a jump) or a display interval ≥ P/2 over the median (a freeze); P is the refresh \
     period, on a VRR panel (or a refresh nobody knows) the median display interval"
);
/// The largest hitch.
pub static MAX_HITCH_MS: Field = field!(
    "max_hitch_ms",
    "ms",
    Figure,
    3,
    true,
    Read::Stat(|s| Cell::Real(s.max_hitch_ms)),
    "the largest |j| or display interval excess over the median"
);
/// Hitches per minute.
pub static HITCHES_PER_MIN: Field = field!(
    "hitches_per_min",
    "/min",
    Figure,
    2,
    false,
    Read::Stat(|s| Cell::Real(s.hitches_per_min)),
    "hitches per minute of display time"
);
/// Latency, mean.
pub static LATENCY_MS: Field = field!(
    "latency_ms",
    "ms",
    Figure,
    3,
    true,
    Read::Stat(|s| Cell::Real(s.latency_ms)),
    "mean of D − I: from reading input to showing its picture; bounded, independent of drift and run length"
);
/// Latency, 95th percentile.
pub static LATENCY_P95_MS: Field = field!(
    "latency_p95_ms",
    "ms",
    Figure,
    3,
    true,
    Read::Stat(|s| Cell::Real(s.latency_p95_ms)),
    "95th percentile of D − I"
);
/// Latency, worst.
pub static LATENCY_MAX_MS: Field =
    field!("latency_max_ms", "ms", Figure, 3, false, Read::Stat(|s| Cell::Real(s.latency_max_ms)), "largest D − I");
/// Present interval, mean.
pub static PRESENT_INTERVAL_MEAN_MS: Field = field!(
    "present_interval_mean_ms",
    "ms",
    Figure,
    3,
    false,
    Read::Stat(|s| Cell::Real(s.present_interval_mean_ms)),
    "mean time between displayed frames"
);
/// Present interval, standard deviation.
pub static PRESENT_INTERVAL_STD_MS: Field = field!(
    "present_interval_std_ms",
    "ms",
    Figure,
    3,
    false,
    Read::Stat(|s| Cell::Real(s.present_interval_std_ms)),
    "standard deviation of the time between displayed frames: how evenly frames are presented"
);
/// Present interval, 99th percentile.
pub static PRESENT_INTERVAL_P99_MS: Field = field!(
    "present_interval_p99_ms",
    "ms",
    Figure,
    3,
    false,
    Read::Stat(|s| Cell::Real(s.present_interval_p99_ms)),
    "99th percentile of the time between displayed frames"
);
/// The update pattern.
pub static PATTERN: Field = field!(
    "pattern",
    "",
    Figure,
    0,
    false,
    Read::Report(|r| Cell::Text(&r.pattern)),
    "new updates shown per refresh, one digit each (`0` a repeat, `2` a double update)"
);
/// The replayed swap chain.
pub static TRACE_APP: Field = field!(
    "trace_app",
    "",
    Trace,
    0,
    false,
    Read::Trace(|t| t.app.as_deref().map_or(Cell::Missing, Cell::Text)),
    "the replayed swap chain: application, process id, swap chain address"
);
/// Displayed frames replayed.
pub static TRACE_FRAMES: Field = field!(
    "trace_frames",
    "",
    Trace,
    0,
    false,
    Read::Trace(|t| Cell::Count(t.frames)),
    "displayed frames replayed from the capture"
);
/// Captured frames never displayed.
pub static TRACE_DROPPED: Field = field!(
    "trace_dropped",
    "",
    Trace,
    0,
    false,
    Read::Trace(|t| Cell::Count(t.dropped)),
    "captured frames never displayed, merged into the next displayed one"
);
/// The capture's refresh rate.
pub static TRACE_REFRESH_HZ: Field = field!(
    "trace_refresh_hz",
    "Hz",
    Trace,
    4,
    false,
    Read::Trace(|t| t.refresh_hz.map_or(Cell::Missing, Cell::Real)),
    "the refresh rate measured from the capture's display changes"
);

/// A VRR panel's lowest refresh.
pub static VRR_MIN_HZ: Field = field!(
    "vrr_min_hz",
    "Hz",
    Vrr,
    3,
    false,
    Read::Vrr(|v| Cell::Hz(v.min_hz)),
    "a VRR panel's lowest refresh: without a new frame it repeats the last after 1/min"
);
/// A VRR panel's highest refresh.
pub static VRR_MAX_HZ: Field = field!(
    "vrr_max_hz",
    "Hz",
    Vrr,
    3,
    false,
    Read::Vrr(|v| Cell::Hz(v.max_hz)),
    "a VRR panel's highest refresh: frames start scanout at least 1/max apart"
);
/// Whether the VRR panel compensates low frame rates.
pub static VRR_LFC: Field = field!(
    "vrr_lfc",
    "",
    Vrr,
    0,
    false,
    Read::Vrr(|v| Cell::OnOff(Some(v.lfc))),
    "low-framerate compensation: below min each frame is scanned k times (on where max ≥ 2 × min)"
);

/// The compositor's name, or where its figures came from.
pub static COMPOSITOR: Field = field!(
    "compositor",
    "",
    Compositor,
    0,
    false,
    Read::Compositor(|c| Cell::Text(&c.name)),
    "the compositor between the window and the panel: a known one's name (`weston`, `dwm`), or where its figures \
     came from (`given`, `measured`, `assumed`)"
);
/// How long before each vblank the compositor's repaint begins.
pub static COMPOSITOR_LATCH_MS: Field = field!(
    "compositor_latch_ms",
    "ms",
    Compositor,
    3,
    false,
    Read::Compositor(|c| Cell::Real(c.latch_ms)),
    "how long before each vblank the compositor's repaint begins: a buffer committed later waits a refresh more"
);
/// Refreshes the compositor holds its picture.
pub static COMPOSITOR_DELAY: Field = field!(
    "compositor_delay",
    "",
    Compositor,
    0,
    false,
    Read::Compositor(|c| Cell::Count(u64::from(c.delay_refreshes))),
    "refreshes between the vblank a repaint was for and the one that shows its picture"
);
/// Frames replaced before the compositor latched them.
pub static FRAMES_REPLACED: Field = field!(
    "frames_replaced",
    "",
    Compositor,
    0,
    false,
    Read::Compositor(|c| Cell::Count(c.frames_replaced)),
    "frames a newer one replaced before the compositor's repaint (vsync off): never shown, never counted in a figure"
);

/// The shown frame rate: derived from the counts, one definition
/// ([`crate::metrics::shown_fps`]).
pub static SHOWN_FPS: Field = field!(
    "shown_fps",
    "fps",
    Figure,
    1,
    false,
    Read::Report(|r| Cell::Real(crate::metrics::shown_fps(
        r.vsyncs,
        r.skipped_renders,
        r.repeated_frames,
        r.system_time_s
    ))),
    "shown frame rate: new pictures a second, (vsyncs − skipped_renders − repeated_frames) / system_time_s; at most \
     the refresh rate, against which it says how often the picture changes (60 of 240: a new picture every 4th \
     refresh); not given where the repeats are as many as the refreshes with a present (vsync off, several presents \
     a refresh)"
);

/// Every field of a run's report, in column order: what the run was,
/// Glaiel's counts, then the figures of [`FrameStats`], then the pattern.
pub static FIELDS: [&Field; 29] = [
    &STRATEGY,
    &REFRESH_HZ,
    &VSYNC,
    &TICK_RATE,
    &MODEL,
    &SEED,
    &DISPLAY_TIME_SOURCE,
    &TOTAL_UPDATES,
    &VSYNCS,
    &DOUBLE_UPDATES,
    &SKIPPED_RENDERS,
    &REPEATED_FRAMES,
    &GAME_TIME_S,
    &SYSTEM_TIME_S,
    &STARTUP_MS,
    &SPEED_RATIO,
    &DRIFT_MS_PER_MIN,
    &JUDDER_MS,
    &JUDDER_P99_MS,
    &HITCHES,
    &MAX_HITCH_MS,
    &HITCHES_PER_MIN,
    &LATENCY_MS,
    &LATENCY_P95_MS,
    &LATENCY_MAX_MS,
    &PRESENT_INTERVAL_MEAN_MS,
    &PRESENT_INTERVAL_STD_MS,
    &PRESENT_INTERVAL_P99_MS,
    &PATTERN,
];

/// Figures derived from the others when read, never stored: in the
/// definitions after [`FIELDS`], not in a report's CSV or JSON (a card
/// from before a derived figure existed has it too).
pub static DERIVED_FIELDS: [&Field; 1] = [&SHOWN_FPS];

/// The fields a run that replayed a trace adds, in column order.
pub static TRACE_FIELDS: [&Field; 4] = [&TRACE_APP, &TRACE_FRAMES, &TRACE_DROPPED, &TRACE_REFRESH_HZ];

/// The fields a run on a VRR panel adds, in column order.
pub static VRR_FIELDS: [&Field; 3] = [&VRR_MIN_HZ, &VRR_MAX_HZ, &VRR_LFC];

/// The fields a composited run adds, in column order.
pub static COMPOSITOR_FIELDS: [&Field; 4] = [&COMPOSITOR, &COMPOSITOR_LATCH_MS, &COMPOSITOR_DELAY, &FRAMES_REPLACED];

/// The compositor fields the table adds when a run is composited.
pub static COMPOSITOR_TABLE_FIELDS: [&Field; 2] = [&COMPOSITOR, &FRAMES_REPLACED];

/// Every field: the run's, the derived, then the trace's, the VRR panel's and the compositor's.
pub fn all_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS
        .iter()
        .chain(DERIVED_FIELDS.iter())
        .chain(TRACE_FIELDS.iter())
        .chain(VRR_FIELDS.iter())
        .chain(COMPOSITOR_FIELDS.iter())
        .copied()
}

/// The fields the table shows: what the run was, the article's counts, and
/// one figure each for speed, smoothness and latency. The rest is in CSV/JSON.
pub fn table_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().copied().filter(|f| f.in_table)
}

/// The field called `name`.
pub fn field(name: &str) -> Option<&'static Field> {
    all_fields().find(|f| f.name == name)
}

/// The one-line definition of the field called `name`.
pub fn definition(name: &str) -> Option<&'static str> {
    field(name).map(|f| f.definition)
}

/// Every field's definition as a Markdown table.
pub fn definitions_markdown() -> String {
    let mut out = String::from("| field | definition |\n|---|---|\n");
    for f in all_fields() {
        let _ = writeln!(out, "| `{}` | {} |", f.name, f.definition.replace('|', "\\|"));
    }
    out
}

/// `fields` under their names, each cell read by `cell`: how a trace's and a
/// VRR panel's facts are written, here rather than beside them, so that the
/// report's data types need no registry.
fn serialize_fields<'a, S: serde::Serializer>(
    serializer: S,
    fields: &[&'static Field],
    cell: impl Fn(&Field) -> Cell<'a>,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(fields.len()))?;
    for field in fields {
        map.serialize_entry(field.name, &cell(field))?;
    }
    map.end()
}

impl Serialize for VrrInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_fields(serializer, &VRR_FIELDS, |field| field.vrr_cell(self))
    }
}

impl Serialize for CompositorInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_fields(serializer, &COMPOSITOR_FIELDS, |field| field.compositor_cell(self))
    }
}

impl Serialize for TraceInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_fields(serializer, &TRACE_FIELDS, |field| field.trace_cell(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn every_name_is_defined_once() {
        let mut names: Vec<&str> = all_fields().map(|f| f.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name defined twice");
        assert_eq!(definition("hitches").map(|d| d.contains("P/2")), Some(true));
        assert_eq!(field("nonsense"), None);
    }

    #[test]
    fn the_sections_come_in_order_settings_figures_trace() {
        let sections: Vec<Section> = all_fields().map(|f| f.section).collect();
        let mut sorted = sections.clone();
        sorted.sort_by_key(|s| *s as u8);
        assert_eq!(sections, sorted, "settings, then figures, then the trace's");
        assert!(TRACE_FIELDS.iter().all(|f| f.section == Section::Trace && !f.in_table));
    }

    #[test]
    fn a_stat_field_reads_frame_statistics_and_a_report_field_does_not() {
        let stats = FrameStats { judder_ms: 1.5, hitches: 3, ..FrameStats::EMPTY };
        assert_eq!(JUDDER_MS.stat(&stats), Some(1.5));
        assert_eq!(HITCHES.stat(&stats), Some(3.0));
        assert_eq!(TOTAL_UPDATES.stat(&stats), None, "a count of the report, not of the statistics");
        let report = RunReport { stats, total_updates: 7, ..RunReport::default() };
        assert_eq!((JUDDER_MS.format(&report), HITCHES.format(&report)), ("1.500".to_owned(), "3".to_owned()));
        assert_eq!(TOTAL_UPDATES.format(&report), "7");
        assert!(HITCHES.is_count() && !JUDDER_MS.is_count() && STRATEGY.is_text() && !VSYNC.is_text());
    }

    #[test]
    fn cells_format_as_the_table_prints_them() {
        assert_eq!(Cell::Hz(60000.0 / 1001.0).format(0), "59.94");
        assert_eq!(Cell::OnOff(None).format(0), "?");
        assert_eq!(Cell::Real(-4800.0).format(2), "-4800.00");
        assert_eq!(Cell::Real(f64::NAN).format(3), "n/a", "an undefined figure, never NaN");
        assert_eq!(Cell::Hz(f64::NAN).format(0), "n/a");
        assert_eq!(Cell::Missing.format(3), "");
        assert_eq!(Cell::Count(31).number(), Some(31.0));
        assert_eq!(Cell::Text("x").number(), None);
    }

    #[test]
    fn every_label_names_its_unit_once_in_words() {
        for f in all_fields() {
            let (words, label) = (f.words(), f.label());
            assert!(!words.is_empty() && !words.contains('_'), "{}: {words:?}", f.name);
            let unit_in_words = format!(" {}", f.unit.to_ascii_lowercase().replace('/', " per ").trim());
            assert!(
                f.unit.is_empty() || !format!(" {words}").ends_with(&unit_in_words),
                "{}: {label:?} names its unit twice",
                f.name
            );
        }
        assert_eq!(TICK_RATE.label(), "tick rate Hz", "a name without its unit keeps all its words");
    }

    #[test]
    fn labels_read_as_words_and_a_unit() {
        assert_eq!((JUDDER_MS.words(), JUDDER_MS.label()), ("judder".to_owned(), "judder ms".to_owned()));
        assert_eq!(HITCHES_PER_MIN.label(), "hitches/min");
        assert_eq!(DRIFT_MS_PER_MIN.label(), "drift ms/min");
        assert_eq!((REFRESH_HZ.label(), JUDDER_P99_MS.label()), ("refresh Hz".to_owned(), "judder p99 ms".to_owned()));
        assert_eq!((HITCHES.label(), GAME_TIME_S.label()), ("hitches".to_owned(), "game time s".to_owned()));
        assert_eq!(JUDDER_MS.reading(1.9), "judder 1.900 ms", "the registry's three decimals");
        assert_eq!(HITCHES_PER_MIN.reading(20.111), "hitches 20.11/min");
        assert_eq!(HITCHES.reading(3.0), "hitches 3");
    }

    #[test]
    fn a_value_outside_a_field_s_range_says_which_rule_it_breaks() {
        assert_eq!(JUDDER_MS.check(1e308), Err("is 1e308 ms, more than 1e12 ms".to_owned()));
        assert_eq!(REFRESH_HZ.check(-1.0), Err("is -1 Hz: a rate is more than 0 and at most 1e6 Hz".to_owned()));
        assert_eq!(TICK_RATE.check(0.0).map_err(|e| e.starts_with("is 0 Hz")), Err(true));
        assert_eq!(HITCHES.check(2.5), Err("is 2.5: a count is a whole number, 0 or more".to_owned()));
        assert_eq!(JUDDER_MS.check(f64::INFINITY), Err("is inf, not a finite number".to_owned()));
        assert_eq!(DRIFT_MS_PER_MIN.check(-84_000.0), Ok(()), "lockstep on 144 Hz runs 84 000 ms/min fast");
        assert_eq!(SEED.check(1.8e19), Ok(()), "a seed is any u64");
        assert_eq!((JUDDER_MS.check(0.0), REFRESH_HZ.check(59.94), STRATEGY.check(3.0)), (Ok(()), Ok(()), Ok(())));
    }

    #[test]
    fn only_drift_has_a_bound_and_it_is_compares() {
        assert_eq!(DRIFT_MS_PER_MIN.bound, Some(120.0));
        assert_eq!(all_fields().filter(|f| f.bound.is_some()).count(), 1);
    }
}
