//! The one [`RunReport`]: what a simulated run or a window's session reports.

use serde::Serialize;

use super::cell::Cell;
use super::origin::RunOrigin;
use crate::metrics::{FrameStats, PRESENT_BIN_NS, PresentHistogram};
use crate::time::NANOS_PER_MS;

/// The figures of one run, with the report's exact field names (the
/// [registry](super::registry)): what a simulated run gives and what a
/// session on a real display writes (with its [`DisplayFacts`]), assembled
/// by `Session::report`. The frame statistics are held once,
/// as [`FrameStats`], and written flat beside the counts.
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
    /// What produced the frames: a model preset (`glaiel`), `trace` when frame times were replayed,
    /// `window` for a real window, `lanes` for one of its lanes.
    pub model: RunOrigin,
    /// Noise seed.
    pub seed: u64,
    /// Where the display times (D) came from: a
    /// [`DisplayTimeSource`](crate::feedback::DisplayTimeSource)'s label.
    pub display_time_source: String,
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
    /// Start-up, speed, judder, hitches, latency and present pacing.
    #[serde(flatten)]
    pub stats: FrameStats,
    /// The first 200 characters of the pattern.
    pub pattern: String,
    /// Present intervals in 0.25 ms bins (JSON only; absent from CSV and the table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub present_interval_histogram: Option<IntervalHistogram>,
    /// What a real display did (window runs only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub display: Option<DisplayFacts>,
    /// What a replayed trace was (runs of a trace only): the
    /// [`TRACE_FIELDS`](super::TRACE_FIELDS).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceInfo>,
    /// The VRR panel the frames went to (VRR runs only): the
    /// [`VRR_FIELDS`](super::VRR_FIELDS). `refresh_hz` is then `null`: no grid.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub vrr: Option<VrrInfo>,
    /// The compositor the frames went through (composited runs only): the
    /// [`COMPOSITOR_FIELDS`](super::COMPOSITOR_FIELDS).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub compositor: Option<CompositorInfo>,
}

impl Default for RunReport {
    /// An empty report: no frames, undefined figures NaN (`n/a` in a table, `null` in JSON).
    fn default() -> Self {
        RunReport {
            strategy: String::new(),
            refresh_hz: f64::NAN,
            vsync: None,
            tick_rate: f64::NAN,
            model: RunOrigin::default(),
            seed: 0,
            total_updates: 0,
            vsyncs: 0,
            double_updates: 0,
            skipped_renders: 0,
            repeated_frames: 0,
            game_time_s: 0.0,
            system_time_s: 0.0,
            stats: FrameStats::EMPTY,
            pattern: String::new(),
            display_time_source: String::new(),
            present_interval_histogram: None,
            display: None,
            trace: None,
            vrr: None,
            compositor: None,
        }
    }
}

impl RunReport {
    /// A short label for plots and pattern lines: `catch-up @ 60 Hz vsync on`.
    pub fn label(&self) -> String {
        let refresh = match &self.vrr {
            Some(vrr) => vrr.range.clone(),
            None if !self.refresh_hz.is_finite() => format!("refresh {}", super::table::NOT_YET_MEASURED),
            None => format!("{} Hz", Cell::Hz(self.refresh_hz).format(0)),
        };
        let label = format!("{} @ {refresh} vsync {}", self.strategy, Cell::OnOff(self.vsync).format(0));
        match &self.compositor {
            Some(c) => format!("{label} via {}", c.name),
            None => label,
        }
    }
}

/// A run's [`PresentHistogram`] as JSON writes it: `counts[i]` intervals in
/// `[i, i + 1) × bin_ms` ms, empty bins after the last filled one left out,
/// and the intervals of 50 ms or more in `overflow`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
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

/// What a session saw of a real display, written beside the run's figures.
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
    pub present_cadence_hz: Option<f64>,
    /// Refresh the monitor reports, Hz (null where the platform reports none).
    pub reported_refresh_hz: Option<f64>,
    /// The emulated refresh, Hz, when one paced the presents.
    pub emulated_refresh_hz: Option<f64>,
    /// Emulation accuracy: mean lateness of the present call after the vblank's wake time, µs.
    pub emulation_late_us_mean: Option<f64>,
    /// Emulation accuracy: worst lateness, µs.
    pub emulation_late_us_max: Option<f64>,
    /// The verdict's sentence about vsync.
    pub vsync_verdict: String,
    /// Present mode asked for.
    pub present_mode_requested: String,
    /// Present mode in effect at the end.
    pub present_mode_actual: String,
    /// The monitor at the end.
    pub monitor: String,
    /// Every strategy that ran, by id, in key order.
    pub strategies_used: Vec<String>,
    /// Time the display could not be seen (a hidden page), seconds; a gap
    /// in the run that no figure counts. Absent when there was none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden_s: Option<f64>,
    /// Shown frames whose display time the compositor's feedback gave.
    pub feedback_frames: u64,
    /// Frames whose feedback was asked for and did not come in time (their D is the estimate).
    pub estimated_frames: u64,
    /// Frames the compositor discarded (never counted as shown).
    pub discarded_frames: u64,
    /// The refresh the compositor's feedback reported, Hz.
    pub compositor_refresh_hz: Option<f64>,
    /// What the figures cannot see with this run's display times (empty when they are the display's word).
    pub display_time_blind_spot: String,
}

/// What a replayed trace was: the report's [`TRACE_FIELDS`](super::TRACE_FIELDS),
/// written under the registry's names (which serialize it).
#[derive(Clone, Debug, PartialEq)]
pub struct TraceInfo {
    /// The replayed application (`null` for a plain list).
    pub app: Option<String>,
    /// Displayed frames replayed.
    pub frames: u64,
    /// Not-displayed frames merged into the next displayed one (or, after the
    /// last one, left out).
    pub dropped: u64,
    /// The refresh measured from the capture (`null` when it has no
    /// display-change times or tears).
    pub refresh_hz: Option<f64>,
}

/// The VRR panel a run's frames went to: the report's
/// [`VRR_FIELDS`](super::VRR_FIELDS), written under the registry's names.
#[derive(Clone, Debug, PartialEq)]
pub struct VrrInfo {
    /// The range as the command line writes it (`vrr:48-144`): the table's refresh.
    pub range: String,
    /// The lowest refresh, Hz.
    pub min_hz: f64,
    /// The highest refresh, Hz.
    pub max_hz: f64,
    /// Whether the panel compensates low frame rates.
    pub lfc: bool,
}

/// The compositor a run's frames went through: the report's
/// [`COMPOSITOR_FIELDS`](super::COMPOSITOR_FIELDS), written under the registry's names.
#[derive(Clone, Debug, PartialEq)]
pub struct CompositorInfo {
    /// A known compositor's name (`weston`), or where the figures came from (`given`, `measured`,
    /// `assumed`); `+held` after it where the compositor holds the window until it repaints.
    pub name: String,
    /// How long before each vblank its repaint begins, ms.
    pub latch_ms: f64,
    /// Refreshes between the vblank a repaint was for and the one that shows it.
    pub delay_refreshes: u32,
    /// Frames a newer one replaced before the compositor latched them (never shown).
    pub frames_replaced: u64,
}

impl From<crate::vrr::VrrRange> for VrrInfo {
    fn from(range: crate::vrr::VrrRange) -> VrrInfo {
        VrrInfo { range: range.to_string(), min_hz: range.min().hz(), max_hz: range.max().hz(), lfc: range.lfc() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_run_on_a_refresh_nobody_knows_is_labelled_in_words_never_nan() {
        let unknown = RunReport { strategy: "catch-up".to_owned(), vsync: Some(true), ..RunReport::default() };
        assert_eq!(unknown.label(), "catch-up @ refresh not yet measured vsync on");
        let known = RunReport { refresh_hz: 60000.0 / 1001.0, ..unknown };
        assert_eq!(known.label(), "catch-up @ 59.94 Hz vsync on");
    }
}
