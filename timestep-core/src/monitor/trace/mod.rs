//! Trace replay: measured frames to replay instead of the cost model.
//!
//! A trace is either a plain list of frame times in milliseconds (one per
//! line, header optional) or a frame-time capture: PresentMon 1.x / 2.x,
//! OCAT or CapFrameX CSV. A capture holds every process and swap chain that
//! presented (dwm.exe beside the game), frames that were never displayed, and
//! when the display changed. The replay needs one swap chain's displayed
//! frames, so reading a capture takes four steps:
//!
//! ```text
//! rows ──► one swap chain ──► displayed frames ──► display timing
//!          (most rows, or     (a not-displayed      (refresh measured from the
//!           the one named)     frame's present       display-change intervals, or
//!                              interval merges       none: a virtual display)
//!                              into the next)
//! ```
//!
//! Worked example (one swap chain at 60 Hz, times in ms):
//!
//! ```text
//! row  MsBetweenPresents  Dropped  MsBetweenDisplayChange   →  replayed frame
//!  1         10.0            1            0.000                (merged into row 2)
//!  2          6.7            0           16.667                present 16.7, display +1 refresh
//!  3         16.6            0           33.333                present 16.6, display +2 refreshes (1 skipped)
//!  4         16.7            1            0.000                (trailing: counted, not replayed)
//! ```
//!
//! gives 2 frames, 2 dropped, and a replay whose third refresh has no new
//! frame. Which columns mean what, per format, is in [`read`]'s docs; how the
//! refresh is measured is [`RefreshEstimate`].

#[cfg(feature = "trace")]
pub mod presentmon;
#[cfg(feature = "trace")]
mod read;

#[cfg(feature = "trace")]
pub use read::{TraceError, TraceOptions, parse_trace, read_trace};

use crate::report::{TraceInfo, trim_number};
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate};
use std::fmt;

/// One displayed frame of a trace, as the replay needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceFrame {
    /// From the previous displayed frame's present to this one's; the present
    /// intervals of the not-displayed frames before it are included.
    pub present: Nanos,
    /// From the previous display change to this frame's, when the capture
    /// records it (`None` for the first frame and for 0 / NA cells).
    pub display_change: Option<Nanos>,
    /// From this frame's present to its display, when the capture records it.
    pub until_displayed: Option<Nanos>,
}

/// What a trace says about the display its frames were shown on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceDisplay {
    /// No display-change times (a plain list, or a capture without them): the
    /// replay shows frames on a virtual display of the run's refresh and vsync.
    Virtual,
    /// V-synced or composed frames with display-change times: the refresh is
    /// measured from them and the replay shows each frame when the capture did.
    Synced(RefreshEstimate),
    /// The frames tear (`SyncInterval` 0 with `AllowsTearing` 1, or a legacy
    /// full-screen flip): display changes follow the frame rate, not a
    /// refresh, so the refresh must be given; frames show at present + latency.
    Tearing,
}

/// The refresh rate measured from a capture's display-change intervals.
///
/// With `q` the displayed frames' known display-change intervals and `m`
/// their median, each interval spans `n = max(1, round(q / m))` refreshes and
/// the period is `Σq / Σn`, rounded to the nanosecond: the mean refresh
/// period, which a median of printed values (1 µs steps) would miss by up to
/// 0.5 µs per refresh. The rate is not snapped to a nominal one (120 Hz for a
/// measured 119.83): replayed display times are whole refreshes of this rate,
/// and a grid 0.1 % off drifts one refresh against the presents every 1000
/// refreshes. [`RefreshEstimate::nominal_hz`] names the nominal rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefreshEstimate {
    /// The measured refresh rate (1 s / period).
    pub rate: Rate,
    /// The median display-change interval.
    pub median: Nanos,
    /// How many intervals were measured.
    pub intervals: u64,
    /// Intervals more than a quarter refresh away from a whole number of
    /// refreshes: many of them mean a variable refresh rate or tearing.
    pub off_grid: u64,
}

/// Common display refresh rates, Hz, for [`RefreshEstimate::nominal_hz`].
/// The NTSC family is exact (59.94 is 60000/1001).
pub(crate) const COMMON_REFRESH_HZ: [f64; 24] = [
    24_000.0 / 1001.0,
    24.0,
    25.0,
    30_000.0 / 1001.0,
    30.0,
    48.0,
    50.0,
    60_000.0 / 1001.0,
    60.0,
    72.0,
    75.0,
    85.0,
    90.0,
    100.0,
    120_000.0 / 1001.0,
    120.0,
    144.0,
    165.0,
    170.0,
    180.0,
    200.0,
    240.0,
    360.0,
    480.0,
];

/// Intervals more than a quarter `period` from the whole number of periods
/// `refreshes` gives each: the count of a [`RefreshEstimate`]'s `off_grid`.
fn off_grid(intervals: &[Nanos], period: Nanos, refreshes: impl Fn(Nanos) -> u128) -> u64 {
    let period = u128::from(period);
    intervals.iter().filter(|&&q| u128::from(q).abs_diff(refreshes(q) * period) * 4 > period).count() as u64
}

/// How close a measured rate must be to a common one to be called that (1 %).
pub const NOMINAL_TOLERANCE: f64 = 0.01;

impl RefreshEstimate {
    /// Measures the refresh from display-change intervals; `None` without any.
    pub(crate) fn from_intervals(intervals: &[Nanos]) -> Option<RefreshEstimate> {
        let mut sorted: Vec<Nanos> = intervals.iter().copied().filter(|&q| q > 0).collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_unstable();
        let mid = sorted.len() / 2;
        let median = if sorted.len() % 2 == 1 { sorted[mid] } else { (sorted[mid - 1] + sorted[mid]).div_ceil(2) };
        let refreshes = |q: Nanos| ((2 * u128::from(q) + u128::from(median)) / (2 * u128::from(median))).max(1);
        let total_q: u128 = sorted.iter().map(|&q| u128::from(q)).sum();
        let total_n: u128 = sorted.iter().map(|&q| refreshes(q)).sum();
        let period = ((2 * total_q + total_n) / (2 * total_n)).max(1);
        let period = u64::try_from(period).unwrap_or(u64::MAX);
        let rate = Rate::new(NANOS_PER_SEC, period).ok()?;
        let off_grid = off_grid(&sorted, period, refreshes);
        Some(RefreshEstimate { rate, median, intervals: sorted.len() as u64, off_grid })
    }

    /// The same estimate on the grid of `rate` (its [`RefreshEstimate::grid`]):
    /// the intervals off it counted again, a quarter refresh from a whole number.
    pub(crate) fn on(self, rate: Rate, intervals: &[Nanos]) -> RefreshEstimate {
        if rate == self.rate {
            return self;
        }
        let period = rate.period().max(1);
        let shown: Vec<Nanos> = intervals.iter().copied().filter(|&q| q > 0).collect();
        let wide = u128::from(period);
        let off_grid = off_grid(&shown, period, |q| ((2 * u128::from(q) + wide) / (2 * wide)).max(1));
        RefreshEstimate { rate, off_grid, ..self }
    }

    /// The refresh grid of display-change `intervals`: the measured rate when
    /// at least 90 % of them lie within a quarter refresh of a whole number
    /// of its refreshes; else the lowest common refresh rate for which they
    /// lie within 0.15 refresh (a steady 60 fps on 144 Hz alternates 2 and 3
    /// refreshes, whose median misleads the measured one); else none (a VRR
    /// display, or tearing). The one grid of a diagnosis and of a replay.
    pub fn grid(&self, intervals: &[Nanos]) -> Option<Rate> {
        let fits = |period: f64, within: f64| {
            let on = intervals
                .iter()
                .filter(|&&q| {
                    let n = q as f64 / period;
                    n >= 1.0 - within && (n - n.round()).abs() <= within
                })
                .count();
            on * 10 >= intervals.len() * 9
        };
        if fits(self.rate.period() as f64, 0.25) {
            return Some(self.rate);
        }
        COMMON_REFRESH_HZ
            .iter()
            .find(|&&hz| fits(NANOS_PER_SEC as f64 / hz, 0.15))
            .and_then(|&hz| Rate::new((hz * 1001.0).round() as u64, 1001).ok())
    }

    /// The common rate within 1 % of the measured one (the nearest), if any.
    pub fn nominal_hz(&self) -> Option<f64> {
        let hz = self.rate.hz();
        COMMON_REFRESH_HZ
            .into_iter()
            .filter(|c| (hz - c).abs() <= c * NOMINAL_TOLERANCE)
            .min_by(|a, b| (hz - a).abs().total_cmp(&(hz - b).abs()))
    }
}

/// One swap chain of a capture: (`Application`, `ProcessID`, `SwapChainAddress`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwapChain {
    /// `Application` (may be empty; empty too for a plain list).
    pub app: String,
    /// `ProcessID` as written.
    pub pid: String,
    /// `SwapChainAddress` as written.
    pub address: String,
    /// Rows of this swap chain in the capture.
    pub frames: u64,
    /// Of those, frames that were never displayed.
    pub not_displayed: u64,
}

impl fmt::Display for SwapChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let app = if self.app.is_empty() { "(no name)" } else { &self.app };
        write!(f, "{app} (pid {}, swap chain {}, {} frames)", self.pid, self.address, self.frames)
    }
}

/// Why the replayed swap chain was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A plain list: there is nothing to choose.
    Plain,
    /// The swap chain with the most frames (the first in the file on a tie).
    MostFrames,
    /// The one with the most frames among those of this application.
    App(String),
}

/// A trace ready to replay: one swap chain's displayed frames and what the
/// capture says about its display.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    frames: Vec<TraceFrame>,
    dropped: u64,
    display: TraceDisplay,
    chosen: SwapChain,
    others: Vec<SwapChain>,
    choice: Choice,
    composed: bool,
}

impl Trace {
    /// A plain list of frame times (start to start), every frame displayed.
    ///
    /// ```
    /// use timestep_core::monitor::{Preset, RunSpec, Stop, Trace};
    /// use timestep_core::StrategyId;
    /// use std::sync::Arc;
    ///
    /// let trace = Trace::from_frame_times(&[16_666_667, 16_666_667, 100_000_000]);
    /// assert_eq!((trace.frames().len(), trace.frames()[2].present), (3, 100_000_000));
    /// let spec = RunSpec::new(StrategyId::CatchUp, Preset::Glaiel).with_trace(Some(Arc::new(trace))).with_stop(Stop::TraceEnd);
    /// assert_eq!(spec.estimated_frames(), 3.0, "a replay runs the trace's frames");
    /// ```
    pub fn from_frame_times(times: &[Nanos]) -> Trace {
        let frames: Vec<TraceFrame> =
            times.iter().map(|&present| TraceFrame { present, ..TraceFrame::default() }).collect();
        let chosen = SwapChain {
            app: String::new(),
            pid: String::new(),
            address: String::new(),
            frames: frames.len() as u64,
            not_displayed: 0,
        };
        Trace {
            frames,
            dropped: 0,
            display: TraceDisplay::Virtual,
            chosen,
            others: Vec::new(),
            choice: Choice::Plain,
            composed: false,
        }
    }

    /// The same frames with their display changes counted on the refresh
    /// grid of `rate`, where a reading of the display found one (a 30 fps cap
    /// on a 120 Hz display stays 3, 4 or 5 refreshes, which the median of its
    /// display changes would read as one of 30 Hz). Only a synced trace
    /// changes: the others have no display times on a grid.
    ///
    /// ```
    /// use timestep_core::monitor::parse_trace;
    /// use timestep_core::time::Rate;
    ///
    /// // 25.0, 33.3 and 41.7 ms: 3, 4 and 5 refreshes of 8.33 ms.
    /// let mut csv = String::from("Application,MsBetweenPresents,MsBetweenDisplayChange\n");
    /// for q in [33.333, 25.0, 33.333, 41.667, 33.333, 33.333] {
    ///     csv.push_str(&format!("game.exe,33.333,{q}\n"));
    /// }
    /// let trace = parse_trace(csv.as_bytes(), &Default::default()).expect("a capture");
    /// let on_120 = trace.on_refresh(Rate::from_hz(120));
    /// assert_eq!(on_120.refresh(), Some(Rate::from_hz(120)));
    /// ```
    #[must_use]
    pub fn on_refresh(self, rate: Rate) -> Trace {
        match self.display {
            TraceDisplay::Synced(estimate) => {
                let intervals: Vec<Nanos> = self.frames.iter().filter_map(|f| f.display_change).collect();
                Trace { display: TraceDisplay::Synced(estimate.on(rate, &intervals)), ..self }
            }
            TraceDisplay::Virtual | TraceDisplay::Tearing => self,
        }
    }

    /// A synced trace's frames shown by the run's own display instead of
    /// when the capture showed them ([`TraceDisplay::Virtual`]): for a
    /// display that followed the game (VRR), whose display changes are on no
    /// grid, or one whose refresh is unknown. A tearing trace is unchanged:
    /// its frames show at present + the captured latency on any display.
    #[must_use]
    pub fn on_virtual_display(self) -> Trace {
        match self.display {
            TraceDisplay::Synced(_) => Trace { display: TraceDisplay::Virtual, ..self },
            TraceDisplay::Virtual | TraceDisplay::Tearing => self,
        }
    }

    /// The displayed frames, in order.
    pub fn frames(&self) -> &[TraceFrame] {
        &self.frames
    }

    /// Frames of the chosen swap chain that were never displayed.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// What the trace says about its display.
    pub fn display(&self) -> TraceDisplay {
        self.display
    }

    /// Whether the compositor composed most of its displayed frames
    /// (PresentMon's `PresentMode` "Composed: Flip"), rather than scanning
    /// them out directly ("Hardware: Independent Flip", "Hardware: Legacy Flip").
    pub fn composed(&self) -> bool {
        self.composed
    }

    /// The replayed swap chain.
    pub fn chosen(&self) -> &SwapChain {
        &self.chosen
    }

    /// The capture's other swap chains, in file order.
    pub fn others(&self) -> &[SwapChain] {
        &self.others
    }

    /// The refresh the capture fixes (`Some` for [`TraceDisplay::Synced`]).
    pub fn refresh(&self) -> Option<Rate> {
        match self.display {
            TraceDisplay::Synced(estimate) => Some(estimate.rate),
            TraceDisplay::Virtual | TraceDisplay::Tearing => None,
        }
    }

    /// Whether the capture fixes vsync: on for synced frames, off for tearing
    /// ones, `None` for a virtual display (the run decides).
    pub fn vsync(&self) -> Option<bool> {
        match self.display {
            TraceDisplay::Synced(_) => Some(true),
            TraceDisplay::Tearing => Some(false),
            TraceDisplay::Virtual => None,
        }
    }

    /// The report's trace fields.
    pub fn info(&self) -> TraceInfo {
        TraceInfo {
            app: (self.choice != Choice::Plain).then(|| self.chosen.app.clone()),
            frames: self.frames.len() as u64,
            dropped: self.dropped,
            refresh_hz: self.refresh().map(Rate::hz),
        }
    }

    /// One line naming the replayed swap chain and the others (`None` for a
    /// plain list).
    pub fn selection_notice(&self) -> Option<String> {
        /// Other swap chains named before "and N more".
        const LISTED: usize = 8;
        let why = match &self.choice {
            Choice::Plain => return None,
            Choice::MostFrames => "the swap chain with the most frames".to_owned(),
            Choice::App(name) => format!("the swap chain of '{name}' with the most frames"),
        };
        let mut line = format!(
            "replaying {}, {why}: {} displayed, {} not displayed (merged into the next displayed frame)",
            self.chosen,
            self.frames.len(),
            self.dropped
        );
        if self.others.is_empty() {
            return Some(line);
        }
        line.push_str("; also in the capture: ");
        let listed: Vec<String> = self.others.iter().take(LISTED).map(SwapChain::to_string).collect();
        line.push_str(&listed.join(", "));
        if self.others.len() > LISTED {
            line.push_str(&format!(" and {} more", self.others.len() - LISTED));
        }
        line.push_str(" (choose with --trace-app NAME)");
        Some(line)
    }

    /// One line on the display the replay uses, for stderr.
    pub fn display_notice(&self) -> String {
        match self.display {
            TraceDisplay::Synced(e) => {
                let nominal = match e.nominal_hz() {
                    Some(hz) => format!("a {} Hz display", trim_number(hz, 3)),
                    None => "not within 1 % of a common rate".to_owned(),
                };
                let mut line = format!(
                    "refresh {:.3} Hz ({nominal}) measured from {} display-change intervals (median {:.4} ms); \
                     display times come from the capture",
                    e.rate.hz(),
                    e.intervals,
                    e.median as f64 / NANOS_PER_MS as f64
                );
                if e.off_grid * 20 > e.intervals {
                    line.push_str(&format!(
                        "; warning: {} of them are not whole refreshes (variable refresh rate?)",
                        e.off_grid
                    ));
                }
                line
            }
            TraceDisplay::Tearing => {
                "the capture tears (display changes follow the frame rate): frames show at present + the \
                 captured latency, vsync off"
                    .to_owned()
            }
            TraceDisplay::Virtual => {
                "no display-change times in the trace: frames show on a virtual display (--refresh, --vsync)".to_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const MS: Nanos = NANOS_PER_MS;

    #[test]
    fn the_refresh_is_the_mean_period_over_whole_refreshes() {
        // 16.6, 16.8 and 33.4 ms: median 16.8, refreshes 1 + 1 + 2, period 66.8 / 4 = 16.7 ms (59.88 Hz).
        let e = RefreshEstimate::from_intervals(&[16_600_000, 33_400_000, 16_800_000]).expect("intervals");
        assert_eq!(e.median, 16_800_000);
        assert_eq!(e.rate, Rate::new(NANOS_PER_SEC, 16_700_000).expect("rate"), "Σq / Σn");
        assert_eq!(e.intervals, 3);
        assert_eq!(e.off_grid, 0);
        assert_eq!(e.nominal_hz(), Some(60_000.0 / 1001.0), "59.88 Hz: within 1 % of 59.94 and 60, nearer 59.94");
    }

    #[test]
    fn an_even_count_takes_the_mean_of_the_two_middle_intervals_and_zeros_are_unknown() {
        let e = RefreshEstimate::from_intervals(&[0, 8 * MS, 9 * MS]).expect("intervals");
        assert_eq!(e.median, 8_500_000);
        assert_eq!(e.intervals, 2, "the 0 is an unknown interval, not a measured one");
        assert!(RefreshEstimate::from_intervals(&[0, 0]).is_none());
    }

    #[test]
    fn eighty_fps_on_a_120_hz_grid_is_replayed_on_that_grid_not_the_medians() {
        // One and two refreshes of 8.342 ms alternate: the median-led estimate
        // reads two refreshes as one, the grid finds 119.88 Hz, and on it no
        // interval is off (the Far Cry capture read 77.6 Hz before).
        let period = 8_341_667;
        let intervals: Vec<Nanos> = (0..100).map(|k| if k % 2 == 0 { period } else { 2 * period }).collect();
        let estimate = RefreshEstimate::from_intervals(&intervals).expect("intervals");
        assert_ne!(estimate.rate, Rate::new(120_000, 1001).expect("rate"), "{estimate:?}");
        let rate = estimate.grid(&intervals).expect("a grid");
        assert_eq!(rate, Rate::new(120_000, 1001).expect("rate"));
        let on = estimate.on(rate, &intervals);
        assert_eq!((on.rate, on.off_grid, on.intervals), (rate, 0, 100));
    }

    #[test]
    fn intervals_between_whole_refreshes_are_counted_off_grid() {
        // 10 and 15 ms around a median of 10: 15 is 1.5 refreshes.
        let e = RefreshEstimate::from_intervals(&[10 * MS, 10 * MS, 15 * MS]).expect("intervals");
        assert_eq!(e.off_grid, 1);
        assert_eq!(e.nominal_hz(), None, "35/4 ms = 114.3 Hz is no common rate");
    }

    #[test]
    fn a_measured_rate_is_named_by_the_nearest_common_rate_within_one_percent() {
        let named = |period: Nanos| {
            RefreshEstimate {
                rate: Rate::new(NANOS_PER_SEC, period).expect("rate"),
                median: period,
                intervals: 1,
                off_grid: 0,
            }
            .nominal_hz()
        };
        assert_eq!(named(8_345_000), Some(120_000.0 / 1001.0), "119.83 Hz");
        assert_eq!(named(6_944_000), Some(144.0));
        assert_eq!(named(16_680_000), Some(60_000.0 / 1001.0), "59.95 Hz");
        assert_eq!(named(10_263_000), None, "97.4 Hz");
    }

    #[test]
    fn a_plain_list_reports_no_app_and_no_refresh() {
        let trace = Trace::from_frame_times(&[16 * MS, 17 * MS]);
        let info = trace.info();
        assert_eq!(info, TraceInfo { app: None, frames: 2, dropped: 0, refresh_hz: None });
        let cells: Vec<String> =
            crate::report::TRACE_FIELDS.iter().map(|f| f.trace_cell(&info).format(f.decimals)).collect();
        assert_eq!(cells, [String::new(), "2".into(), "0".into(), String::new()]);
        assert_eq!(trace.selection_notice(), None);
        assert_eq!(trace.vsync(), None, "a virtual display: the run decides");
    }
}
