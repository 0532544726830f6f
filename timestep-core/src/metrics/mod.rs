//! Frame metrics: one definition, fed one presented frame at a time, used by
//! the virtual monitor (totals over a run), a live HUD (rolling values over
//! the last [`RECENT_LEN`] frames) and the reports.
//!
//! What is counted, per presented frame:
//!
//! ```text
//!  refreshes   |  v0  |  v1  |  v2  |  v3  |  v4  |  v5  |
//!  presents        F0     F1            F2     F3 F3'
//!  updates         1      2             1      1  0
//!  pattern         1      2      0      1      1        ← updates per displayed refresh
//!                         ^double ^skipped     ^F3' lands in the same refresh as F3:
//!                                               its updates count towards the next digit
//! ```
//!
//! - **pattern**: for each refresh, the updates whose result it shows
//!   (`1111211110…`, counts ≥ 10 as `+`). A present's refresh is
//!   `v = round(display_time · Hz)` (Glaiel's bookkeeping); a present that
//!   lands in the same refresh as the previous one adds its updates to the
//!   next digit. Without a refresh grid (a VRR panel, or a rate nobody
//!   knows) every present is one digit, after a `0` for each refresh the host
//!   says repeated the previous picture ([`FrameSample::repeats`]: a VRR
//!   panel's self-refreshes).
//! - **double updates**: digits > 1. **skipped renders**: refreshes without a
//!   present (the `0`s Glaiel inserts for vsyncs nobody presented at).
//! - **repeated frames**: presented frames whose content time equals the
//!   previous presented frame's, i.e. the same picture shown again. For
//!   strategies that draw the latest state this is exactly "frames with 0
//!   updates"; an interpolating strategy's 0-update frame with a new alpha is
//!   a new picture and does not count.
//! - **game time vs system time**: the driver's simulated time against
//!   `(last refresh − first refresh) / Hz` (or elapsed display time without a
//!   refresh rate).
//!
//! # Motion, latency and pacing ([`FrameStats`])
//!
//! Per presented frame i: **D** = display time, **C** = the simulation time
//! the picture depicts ([`FrameSample::content_time`]), **I** = when the
//! input behind it was read ([`FrameSample::input_time`]); ΔD and ΔC are the
//! changes since frame i − 1. Over the frames: **ŝ** = the least-squares
//! slope of C on D, **P** = the refresh period (the median present interval
//! on a VRR panel, which has no one period, or when no refresh rate is known).
//!
//! ```text
//!  D   0      16      32      48      64      80      96    ms: refreshes, P = 16
//!      |       |       |       |       |       |       |
//!  C   0      16      32     [64]    [64]     80      96    ms: frame 3 runs two ticks, frame 4 none
//!  ΔC         16      16      32       0      16      16
//!  j           0       0     +16     −16       0       0    j = ΔC − ŝ·ΔD, ŝ = 1
//! ```
//!
//! - **speed**: `speed_ratio` = ŝ, `drift_ms_per_min` = (ŝ − 1)·60 000.
//!   Lockstep at 144 Hz with 60 Hz ticks shows one 16.667 ms tick per
//!   6.944 ms refresh: ŝ = 2.4, drift +84 000 ms/min. Fuzzy on 59.94 Hz shows
//!   one tick per 1001/60 000 s: ŝ = 1000/1001, drift −59.94 ms/min. A
//!   constant wrong speed is smooth motion at the wrong pace: drift, never
//!   judder or latency.
//! - **judder**: j = ΔC − ŝ·ΔD, how far the picture moved beyond (+) or short
//!   of (−) where steady motion at the run's own speed would put it; multiply
//!   by an object's speed for pixels. `judder_ms` = RMS of j,
//!   `judder_p99_ms` = p99 of |j|. Above: √((16² + 16²)/6) = 9.238 ms, and
//!   p99 = 16 ms (rank ⌈0.99·6⌉ = 6 of 6).
//! - **hitches**: frames with |j| ≥ P/2, or whose present interval exceeds
//!   the median interval by ≥ P/2 (a stall: the picture froze, then jumped).
//!   `max_hitch_ms` = the largest of |j| and of that excess over all frames;
//!   `hitches_per_min` per minute of display time. Above: 2 hitches
//!   (|j| = 16 ≥ 8), max 16 ms, 2 per 96 ms = 1 250 per minute. A 100 ms
//!   freeze that the game then catches up:
//!
//!   ```text
//!    D          0   16   32   48  148  164  180   ms
//!    C          0   16   32   48  148  164  180   ms (ŝ = 1, every j = 0)
//!    ΔD            16   16   16  100   16   16   median 16
//!    ΔD − 16        0    0    0   84    0    0   → 1 hitch, max_hitch 84 ms, judder 0
//!   ```
//! - **latency**: D − I, input to photon: `latency_ms` (mean),
//!   `latency_p95_ms`, `latency_max_ms`. Bounded, whatever the run's length
//!   or drift. Updates read input at 0 and 16 ms; at 16 ms catch-up draws the
//!   16 ms state and shows it at 32 ms: 16 ms. An interpolated picture at
//!   α = 0.25 depicts input from 0 + 0.25·16 = 4 ms: 28 ms, i.e. (1 − α) of
//!   a tick more.
//! - **present pacing**: intervals ΔD: `present_interval_mean_ms`,
//!   `present_interval_std_ms` (population), `present_interval_p99_ms`, and
//!   a [`PresentHistogram`] ([`Metrics::present_histogram`]). Intervals
//!   16, 16, 16, 33 ms: mean 81/4 = 20.25 ms, σ = √(216.75/4) = 7.361 ms,
//!   p99 = 33 ms (rank 4 of 4).
//!
//! A whole-run statistic depends on how long the run is only through the
//! events in it: a mean, an RMS, a percentile or a rate, never a sum of
//! errors that grows with time.
//!
//! # Start-up
//!
//! A loop that must wait for its first tick before it has anything to
//! draw (or to interpolate between) shows its first picture until that
//! tick has run: at 2 Hz ticks, half a second of frozen frames. That is
//! **start-up** (`startup_ms`), its own figure: the display time of the last
//! frame still showing the first frame's picture (the same content time),
//! less the first frame's; 0 when the second frame already moves. After such
//! a freeze, motion, latency and pacing ([`FrameStats`]) start with the first
//! frame that moves (an interpolating loop's first move is a sliver of a
//! tick: the interval before it still shows the freeze). So the freeze
//! counts neither in the speed fit nor as hitches, and a 3 s run and a 60 s
//! run of the same clean loop give the same drift and hitches per minute:
//!
//! ```text
//!  D    0    17    33  …  483   500   517   534   ms: 60 Hz refreshes, 2 Hz ticks
//!  C    0     0     0  …    0     0   0.1    17   ms: the first tick runs at 517 ms
//!       └──── start-up 500 ms ────┘    └─ motion, latency, pacing start here
//! ```
//!
//! Without a freeze (only the first frame shows the first picture) nothing
//! is left out: the motion starts from the first frame. The counts
//! (pattern, doubles, skips, repeats, game and system time) keep every
//! frame: they are the article's bookkeeping of the whole run.
//!
//! # What the player sees
//!
//! **shown frame rate** (`shown_fps`): new pictures a second, the refreshes
//! that showed a picture the one before did not, over the display time
//! covered: `(vsyncs − skipped_renders − repeated_frames) / system_time`,
//! at least 0. A display shows at most one picture a refresh, so it is at
//! most the refresh rate on a grid; set against the refresh it says how
//! often the picture changes. A 60 Hz loop on a 240 Hz screen, 3 s:
//!
//! ```text
//!  refreshes   v0  v1  v2  v3  v4  v5  v6  v7 …   720 in 3 s
//!  presents    F0              F1              …   180: three refreshes of four skipped
//!  shown fps   (720 − 540 − 0) / 3 s = 60: a new picture every 4th refresh, 60 of 240
//! ```
//!
//! An interpolating loop presenting every refresh (711 frames, 9 refreshes
//! skipped, each frame a new α) shows (720 − 9 − 0) / 3 = 237 of 240. With
//! vsync off several presents may land in one refresh: the refreshes with a
//! present are counted once each, but a repeat may share its refresh with a
//! new picture, so where the repeats are as many as those refreshes (catch-up
//! presenting three times a tick) the counts cannot tell, and the figure is
//! not given (NaN).
//!
//! # How it is computed
//!
//! Sums are exact integers (`i128`) relative to the first frame (a clock that
//! started 30 days ago loses nothing), converted to `f64` only when a value
//! is asked for, so ŝ, the drift, the judder RMS (ΣΔC² − 2ŝ·ΣΔCΔD + ŝ²·ΣΔD²)
//! and every mean and σ are those of the whole run. Percentiles come from
//! fixed log-linear histograms, within 1.6 % (see `histogram.rs`). Judging a
//! single frame (hitch? its |j| for the p99) needs ŝ before the run is over:
//! the first [`WARMUP_LEN`] frames are judged together by their own slope,
//! later ones by the slope of all frames before them and the median of the
//! [`RECENT_LEN`] intervals before them. A run of at most [`WARMUP_LEN`]
//! frames, and every rolling value, is computed exactly from the frames held
//! in an array. No heap allocation happens after [`Metrics::new`].
//!
//! # Live use
//!
//! A HUD's Metrics restarts on every strategy switch. Recommended
//! there: judder and latency (mean, p95) from [`Metrics::recent`] (two
//! seconds: they react at once), hitches per minute, max hitch and drift
//! from [`Metrics::stats`] since the switch (hitches are rare events and
//! drift needs a long baseline: over two seconds a 1 ms present jitter alone
//! reads as ±30 ms/min).

mod fit;
mod histogram;
mod motion;
mod pattern;

pub use histogram::{PRESENT_BIN_NS, PRESENT_BINS, PresentHistogram, nearest_rank, percentile};
pub use motion::{FrameStats, WARMUP_LEN};

/// The shown frame rate, new pictures a second (module docs, "What the
/// player sees"): refreshes covered less those without a new frame and
/// those repeating the picture before, over the display time covered, s;
/// NaN when no time was covered, or when the repeats are as many as the
/// refreshes with a present (several presents a refresh: the counts cannot tell).
pub fn shown_fps(vsyncs: u64, skipped_renders: u64, repeated_frames: u64, system_time_s: f64) -> f64 {
    if system_time_s.is_nan() || system_time_s <= 0.0 {
        return f64::NAN;
    }
    let presented = vsyncs.saturating_sub(skipped_renders);
    if repeated_frames > 0 && repeated_frames >= presented {
        return f64::NAN;
    }
    (presented - repeated_frames) as f64 / system_time_s
}

use crate::host::FrameReport;
use crate::time::{Nanos, Rate, nanos_to_ms};
use motion::{Point, Running};
use pattern::PatternLog;

/// How many pattern characters are kept from the start of a run (the report's `pattern`).
pub const PATTERN_PREFIX_LEN: usize = 200;

/// How many recent frames (and pattern digits) the rolling values cover:
/// two seconds at 60 Hz, enough for a HUD's strip and a stable judder.
pub const RECENT_LEN: usize = 120;

/// What the metrics need to know about one presented frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSample {
    /// World updates run in this frame (counted in the totals).
    pub updates: u32,
    /// Updates first visible in this frame's picture (counted in the pattern;
    /// differs from `updates` only for render-first strategies like `paced`).
    pub shown_updates: u32,
    /// The time the picture depicts.
    pub content_time: Nanos,
    /// When the input behind the picture was read (see
    /// [`FrameReport::input_time`]).
    pub input_time: Nanos,
    /// When the picture became visible.
    pub display_time: Nanos,
    /// The driver's total simulated time after this frame.
    pub game_time: Nanos,
    /// Refreshes before it that repeated the previous picture, where the host
    /// counts them (a VRR panel's self-refreshes); a refresh grid's are
    /// counted from the grid.
    pub repeats: u32,
}

impl FrameSample {
    /// The sample for a driver's frame report; `game_time` is
    /// the pacer's game time after the frame ([`crate::Pacer::game_time`]).
    pub fn from_report(report: &FrameReport, game_time: Nanos) -> FrameSample {
        FrameSample {
            updates: report.updates,
            shown_updates: report.shown_updates,
            content_time: report.content_time,
            input_time: report.input_time,
            display_time: report.display_time,
            game_time,
            repeats: report.repeats,
        }
    }
}

/// A snapshot of the totals since [`Metrics::new`] (or the last reset).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Totals {
    /// Presented frames.
    pub frames: u64,
    /// World updates.
    pub updates: u64,
    /// Refreshes covered by the pattern (its length).
    pub vsyncs: u64,
    /// Refreshes that showed more than one update.
    pub double_updates: u64,
    /// Refreshes without a new frame.
    pub skipped_renders: u64,
    /// Presented frames showing the same content time as the frame before.
    pub repeated_frames: u64,
    /// Simulated time.
    pub game_time: Nanos,
    /// Display time covered: refreshes / Hz, or elapsed display time without a rate.
    pub system_time: Nanos,
    /// Speed, judder, hitches, latency and present pacing over the whole run.
    pub stats: FrameStats,
}

/// Frame statistics fed one presented frame at a time. See the module docs.
#[derive(Clone, Debug)]
pub struct Metrics {
    refresh: Option<Rate>,
    start: Nanos,
    first_refresh: u64,
    last_refresh: u64,
    /// Updates waiting to be written as the next pattern digit.
    pending_updates: u64,
    frames: u64,
    updates: u64,
    vsyncs: u64,
    doubles: u64,
    skipped: u64,
    repeated: u64,
    last_content: Option<Nanos>,
    last_display: Nanos,
    game_time: Nanos,
    pattern: PatternLog,
    startup: Startup,
    motion: Running,
    /// Gaps taken out of the timeline ([`Metrics::skip`]): when each began
    /// and ended, and the time taken out up to its end.
    gaps: Vec<(Nanos, Nanos, Nanos)>,
}

/// The frames before the picture first moves (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Startup {
    /// The first frame.
    first: Option<Point>,
    /// The latest frame showing the first frame's picture; after the picture
    /// moved, the last one that did.
    still: Option<Point>,
    /// Frames that showed the first frame's picture.
    still_frames: u64,
    /// The picture has moved: every frame since goes to the motion statistics.
    moved: bool,
}

impl Startup {
    /// Takes a frame; returns the frames the motion statistics get: none
    /// while the picture stands still; when it first moves, this one, after
    /// the first frame if that was the only still one; then this one.
    fn record(&mut self, p: Point) -> [Option<Point>; 2] {
        if self.moved {
            return [Some(p), None];
        }
        let first = *self.first.get_or_insert(p);
        if p.content == first.content {
            let display = self.still.map_or(p.display, |s| s.display.max(p.display));
            self.still = Some(Point { display, ..p });
            self.still_frames += 1;
            return [None, None];
        }
        self.moved = true;
        // A first frame that is the only still one is where the motion starts
        // from. After a freeze the motion starts with the first move: the
        // interval before it still shows the first picture (an interpolating
        // loop's first move is a sliver of a tick), its latency the freeze's.
        let frozen = self.still_frames > 1;
        [self.still.filter(|_| !frozen), Some(p)]
    }

    /// How long the first picture stood still, ns; `None` without frames.
    fn duration(&self) -> Option<Nanos> {
        Some(self.still?.display.saturating_sub(self.first?.display))
    }
}

impl Metrics {
    /// Metrics for frames shown on a display of `refresh` (if known), counted
    /// from clock time `start` (the first refresh is `round(start · Hz)`).
    pub fn new(start: Nanos, refresh: Option<Rate>) -> Metrics {
        let first_refresh = refresh.map_or(0, |r| r.nearest_tick(start));
        Metrics {
            refresh,
            start,
            first_refresh,
            last_refresh: first_refresh,
            pending_updates: 0,
            frames: 0,
            updates: 0,
            vsyncs: 0,
            doubles: 0,
            skipped: 0,
            repeated: 0,
            last_content: None,
            last_display: start,
            game_time: 0,
            pattern: PatternLog::new(),
            startup: Startup::default(),
            motion: Running::new(refresh),
            gaps: Vec::new(),
        }
    }

    /// Takes `from..to` out of the timeline: nothing was shown then and
    /// nothing should count it (a hidden page, a pause). Later times (display,
    /// input, and content, which is on a strategy's clock, the wall's,
    /// re-anchored when it resyncs after the gap) are read as if the gap had
    /// not been; an input read before it stays where it was. So the interval
    /// across the gap is an ordinary one, and no hitch, skipped refresh,
    /// latency or system time comes of it.
    ///
    /// ```text
    ///   frames    |   |   |   (hidden 5 s)                    |   |   |
    ///   counted   |   |   |   |   |   |    as if the page had never gone
    /// ```
    pub fn skip(&mut self, from: Nanos, to: Nanos) {
        let before = self.gaps.last().map_or(0, |&(_, _, total)| total);
        self.gaps.push((from, to.max(from), before.saturating_add(to.saturating_sub(from))));
    }

    /// `t` without the gaps before it. A time inside a gap is its start: a
    /// frame can be stamped before the gap is known to have ended (a
    /// browser's frame begins before the `visibilitychange` it runs).
    fn without_gaps(&self, t: Nanos) -> Nanos {
        match self.gaps.iter().rev().find(|&&(from, _, _)| from < t) {
            None => t,
            Some(&(_, to, total)) if t >= to => t.saturating_sub(total),
            Some(&(from, to, total)) => from.saturating_sub(total - (to - from)),
        }
    }

    /// Starts over from `start`, keeping the refresh rate.
    pub fn reset(&mut self, start: Nanos) {
        *self = Metrics::new(start, self.refresh);
    }

    /// Changes the refresh rate (the window moved to another monitor): starts over.
    pub fn set_refresh(&mut self, start: Nanos, refresh: Option<Rate>) {
        *self = Metrics::new(start, refresh);
    }

    /// The refresh rate refreshes are counted in.
    pub fn refresh(&self) -> Option<Rate> {
        self.refresh
    }

    /// Records one presented frame.
    pub fn record(&mut self, frame: &FrameSample) {
        let shifted;
        let frame = if self.gaps.is_empty() {
            frame
        } else {
            shifted = FrameSample {
                display_time: self.without_gaps(frame.display_time),
                input_time: self.without_gaps(frame.input_time),
                content_time: self.without_gaps(frame.content_time),
                ..*frame
            };
            &shifted
        };
        self.frames += 1;
        self.updates += u64::from(frame.updates);
        self.game_time = frame.game_time;
        self.last_display = self.last_display.max(frame.display_time);
        if self.last_content == Some(frame.content_time) {
            self.repeated += 1;
        }
        self.last_content = Some(frame.content_time);
        self.record_pattern(frame);
        let point = Point { display: frame.display_time, content: frame.content_time, input: frame.input_time };
        for p in self.startup.record(point).into_iter().flatten() {
            self.motion.record(p);
        }
    }

    fn record_pattern(&mut self, frame: &FrameSample) {
        self.pending_updates += u64::from(frame.shown_updates);
        let v = match self.refresh {
            Some(rate) => rate.nearest_tick(frame.display_time),
            None => self.last_refresh + 1 + u64::from(frame.repeats),
        };
        if v <= self.last_refresh {
            return;
        }
        let gap = v - self.last_refresh - 1;
        self.skipped += gap;
        self.pattern.push_zeros(gap);
        self.pattern.push(self.pending_updates);
        if self.pending_updates > 1 {
            self.doubles += 1;
        }
        self.vsyncs += gap + 1;
        self.last_refresh = v;
        self.pending_updates = 0;
    }

    /// Totals since the start: the raw counts and [`Metrics::stats`].
    pub fn totals(&self) -> Totals {
        let system_time = match self.refresh {
            Some(rate) => rate.tick_time(self.last_refresh - self.first_refresh),
            None => self.last_display.saturating_sub(self.start),
        };
        Totals {
            frames: self.frames,
            updates: self.updates,
            vsyncs: self.vsyncs,
            double_updates: self.doubles,
            skipped_renders: self.skipped,
            repeated_frames: self.repeated,
            game_time: self.game_time,
            system_time,
            stats: self.stats(),
        }
    }

    /// Start-up, and speed, judder, hitches, latency and present pacing
    /// since the picture first moved (see the module docs).
    pub fn stats(&self) -> FrameStats {
        self.with_startup(|motion| motion.stats())
    }

    /// The same statistics over the last [`RECENT_LEN`] frames since the
    /// picture first moved, computed exactly from them (their own slope,
    /// median interval and percentiles); the start-up is the run's.
    pub fn recent(&self) -> FrameStats {
        self.with_startup(|motion| motion.recent())
    }

    /// The start-up, in ms, as [`FrameStats::startup_ms`]; NaN without frames.
    pub fn startup_ms(&self) -> f64 {
        self.startup.duration().map_or(f64::NAN, nanos_to_ms)
    }

    /// The motion statistics with the start-up filled in. While the picture
    /// has not moved yet, they are those of its last still frame: a latency, nothing else.
    fn with_startup(&self, stats: impl Fn(&Running) -> FrameStats) -> FrameStats {
        let mut s = match (self.startup.moved, self.startup.still) {
            (false, Some(still)) => motion::batch(&[still], self.refresh),
            _ => stats(&self.motion),
        };
        s.startup_ms = self.startup_ms();
        s
    }

    /// Present intervals since the start, in fixed bins for a histogram.
    pub fn present_histogram(&self) -> &PresentHistogram {
        self.motion.present_histogram()
    }

    /// The first [`PATTERN_PREFIX_LEN`] pattern characters.
    pub fn pattern_prefix(&self) -> &str {
        self.pattern.prefix()
    }

    /// The last [`RECENT_LEN`] pattern characters, oldest first.
    pub fn recent_pattern(&self) -> impl Iterator<Item = char> + '_ {
        self.pattern.recent()
    }

    /// Judder (RMS of j) over the last [`RECENT_LEN`] frames, ms; NaN with fewer than two.
    pub fn recent_judder_ms(&self) -> f64 {
        self.recent().judder_ms
    }

    /// Mean latency (D − I) over the last [`RECENT_LEN`] frames, ms; NaN without frames.
    pub fn recent_latency_ms(&self) -> f64 {
        self.recent().latency_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sixty_hertz_loop_on_a_240_hertz_screen_shows_60_new_pictures_a_second() {
        // The module docs' example: 720 refreshes in 3 s, 540 without a present.
        assert_eq!(shown_fps(720, 540, 0, 3.0), 60.0);
        assert_eq!(shown_fps(720, 9, 0, 3.0), 237.0, "an interpolating loop, a new alpha each refresh");
        assert_eq!(shown_fps(720, 0, 360, 3.0), 120.0, "a repeated picture is not a new one");
        assert!(shown_fps(1200, 0, 2695, 20.0).is_nan(), "catch-up with vsync off: more repeats than refreshes");
        assert!(shown_fps(10, 0, 0, 0.0).is_nan(), "no time covered, no rate");
    }
    use crate::rng::SplitMix64;
    use crate::time::{NANOS_PER_MS, NANOS_PER_SEC};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const MS: Nanos = NANOS_PER_MS;

    fn sample(updates: u32, content_time: Nanos, display_time: Nanos, game_time: Nanos) -> FrameSample {
        FrameSample {
            updates,
            shown_updates: updates,
            content_time,
            input_time: content_time,
            display_time,
            game_time,
            repeats: 0,
        }
    }

    /// 62.5 Hz: a refresh period of exactly 16 ms.
    fn hz62_5() -> Rate {
        Rate::new(125, 2).unwrap()
    }

    /// Metrics fed `(display, content, input)` times.
    fn fed(refresh: Option<Rate>, start: Nanos, frames: impl IntoIterator<Item = (Nanos, Nanos, Nanos)>) -> Metrics {
        let mut m = Metrics::new(start, refresh);
        for (display, content, input) in frames {
            m.record(&FrameSample {
                updates: 1,
                shown_updates: 1,
                content_time: content,
                input_time: input,
                display_time: display,
                game_time: content,
                repeats: 0,
            });
        }
        m
    }

    /// Frames every 16 ms showing content `content(i)` ms, input read 10 ms before display.
    fn every_16_ms(n: u64, content: impl Fn(u64) -> u64) -> Vec<(Nanos, Nanos, Nanos)> {
        (0..n).map(|i| (100 * MS + i * 16 * MS, content(i) * MS, 90 * MS + i * 16 * MS)).collect()
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn pattern_counts_updates_per_refresh_with_zeros_for_skipped_refreshes() {
        let hz = Rate::from_hz(60);
        let mut m = Metrics::new(0, Some(hz));
        let mut game = 0;
        for (updates, refresh) in [(1, 1), (2, 2), (1, 4), (1, 5)] {
            game += u64::from(updates);
            m.record(&sample(updates, 0, hz.tick_time(refresh), game));
        }
        assert_eq!(m.pattern_prefix(), "12011");
        let t = m.totals();
        assert_eq!((t.vsyncs, t.double_updates, t.skipped_renders), (5, 1, 1), "{t:?}");
        assert_eq!(t.system_time, hz.tick_time(5));
    }

    #[test]
    fn a_second_present_in_the_same_refresh_adds_to_the_next_digit() {
        let hz = Rate::from_hz(60);
        let mut m = Metrics::new(0, Some(hz));
        m.record(&sample(1, 0, hz.tick_time(1), 0));
        m.record(&sample(1, 0, hz.tick_time(1) + 1_000_000, 0));
        m.record(&sample(1, 0, hz.tick_time(2), 0));
        assert_eq!(m.pattern_prefix(), "12");
    }

    #[test]
    fn counts_of_ten_or_more_show_as_plus() {
        let mut m = Metrics::new(0, None);
        m.record(&sample(9, 0, 1, 0));
        m.record(&sample(10, 1, 2, 0));
        m.record(&sample(300, 2, 3, 0));
        assert_eq!(m.pattern_prefix(), "9++");
    }

    #[test]
    fn repeated_frames_are_frames_showing_the_same_content_time_again() {
        let mut m = Metrics::new(0, None);
        m.record(&sample(1, 10, 20, 0));
        m.record(&sample(0, 10, 30, 0));
        m.record(&sample(0, 12, 40, 0));
        assert_eq!(m.totals().repeated_frames, 1);
    }

    #[test]
    fn the_recent_pattern_is_the_last_digits_oldest_first() {
        let mut m = Metrics::new(0, None);
        for i in 0..(RECENT_LEN as u32 + 5) {
            m.record(&sample(i % 3, u64::from(i), u64::from(i) + 1, 0));
        }
        let recent: String = m.recent_pattern().collect();
        assert_eq!(recent.len(), RECENT_LEN);
        assert!(recent.starts_with("201"), "{recent}");
        assert_eq!(m.pattern_prefix().len(), RECENT_LEN + 5);
    }

    #[test]
    fn a_skipped_gap_is_no_hitch_no_latency_and_no_skipped_refresh() {
        // 60 Hz, one update a frame; hidden for 5 s after frame 59.
        let p = NANOS_PER_SEC / 60;
        // A strategy's content time is on its clock, the wall's: it jumps with the gap too.
        let frame = |i: u64, at: Nanos| FrameSample {
            updates: 1,
            shown_updates: 1,
            content_time: at - p,
            input_time: at - p,
            display_time: at,
            game_time: i * p,
            repeats: 0,
        };
        let (mut skipped, mut counted) =
            (Metrics::new(0, Some(Rate::from_hz(60))), Metrics::new(0, Some(Rate::from_hz(60))));
        let hidden = 5 * NANOS_PER_SEC;
        for i in 1..120 {
            let at = if i < 60 { i * p } else { i * p + hidden };
            if i == 60 {
                skipped.skip(59 * p, 59 * p + hidden);
            }
            skipped.record(&frame(i, at));
            counted.record(&frame(i, at));
        }
        let (s, c) = (skipped.totals(), counted.totals());
        assert_eq!(s.stats.hitches, 0, "the gap is no hitch: {:?}", s.stats);
        assert_eq!(s.skipped_renders, 0, "no refresh was missed");
        assert_eq!(s.vsyncs, 119, "one refresh a frame, the gap none");
        assert_eq!(s.system_time, 119 * NANOS_PER_SEC / 60, "the display's time without the gap");
        assert!((s.stats.latency_max_ms - nanos_to_ms(p)).abs() < 1e-9, "one frame's latency: {:?}", s.stats);
        assert!(c.stats.hitches >= 1 && c.skipped_renders == 300, "without skip the gap counts: {c:?}");
    }

    #[test]
    fn a_frame_stamped_before_the_gap_was_known_to_end_counts_from_its_start() {
        let p = NANOS_PER_SEC / 60;
        let mut metrics = Metrics::new(0, Some(Rate::from_hz(60)));
        let sample = |at: Nanos| FrameSample {
            updates: 1,
            shown_updates: 1,
            content_time: at - p,
            input_time: at - p,
            display_time: at,
            game_time: at,
            repeats: 0,
        };
        for i in 1..60 {
            metrics.record(&sample(i * p));
        }
        let (from, to) = (60 * p, 60 * p + 5 * NANOS_PER_SEC);
        metrics.skip(from, to);
        // The next frame began 4 ms before the page said it was visible again.
        metrics.record(&FrameSample { content_time: to - 4_000_000, ..sample(to + p) });
        for i in 2..60 {
            metrics.record(&sample(to + i * p));
        }
        let stats = metrics.totals().stats;
        assert!(stats.max_hitch_ms < 20.0 && stats.judder_p99_ms < 20.0, "no 5 s jump: {stats:?}");
    }

    #[test]
    fn a_huge_gap_counts_every_skipped_refresh_but_writes_only_what_fits() {
        let hz = Rate::from_hz(1000);
        let mut m = Metrics::new(0, Some(hz));
        m.record(&sample(1, 0, hz.tick_time(1), 0));
        m.record(&sample(1, 0, hz.tick_time(1_000_002), 0));
        let t = m.totals();
        assert_eq!(t.skipped_renders, 1_000_000);
        assert_eq!(t.vsyncs, 1_000_002);
        assert_eq!(m.pattern_prefix().len(), PATTERN_PREFIX_LEN);
    }

    #[test]
    fn a_perfectly_paced_run_has_no_judder_no_hitches_and_a_constant_latency() {
        for n in [100, 1_000] {
            let s = fed(Some(hz62_5()), 0, every_16_ms(n, |i| 16 * i)).stats();
            assert_eq!((s.speed_ratio, s.drift_ms_per_min), (1.0, 0.0), "{n} frames: {s:?}");
            assert_eq!((s.judder_ms, s.judder_p99_ms), (0.0, 0.0), "{n} frames: {s:?}");
            assert_eq!((s.hitches, s.max_hitch_ms, s.hitches_per_min), (0, 0.0, 0.0), "{n} frames: {s:?}");
            assert_eq!((s.latency_ms, s.latency_p95_ms, s.latency_max_ms), (10.0, 10.0, 10.0), "{n} frames: {s:?}");
            let intervals = (s.present_interval_mean_ms, s.present_interval_std_ms, s.present_interval_p99_ms);
            assert_eq!(intervals, (16.0, 0.0, 16.0), "{n} frames: {s:?}");
        }
    }

    #[test]
    fn a_double_update_then_a_repeat_is_two_hitches_of_one_tick() {
        // The module docs' table: frame 3 shows two ticks, frame 4 none. The
        // extra tick sits at the mean display time, so ŝ is exactly 1.
        let m = fed(Some(hz62_5()), 0, every_16_ms(7, |i| if i == 3 { 64 } else { 16 * i }));
        let s = m.stats();
        assert_eq!(s.speed_ratio, 1.0, "{s:?}");
        assert!(close(s.judder_ms, (512.0f64 / 6.0).sqrt(), 1e-12), "√((16² + 16²)/6) = 9.238: {s:?}");
        assert_eq!(s.judder_p99_ms, 16.0, "rank 6 of 6: {s:?}");
        assert_eq!((s.hitches, s.max_hitch_ms), (2, 16.0), "{s:?}");
        assert!(close(s.hitches_per_min, 1_250.0, 1e-9), "2 per 96 ms: {s:?}");
        assert_eq!(m.totals().repeated_frames, 1, "frame 4 shows frame 3's picture again");
    }

    #[test]
    fn judged_online_the_repeat_after_a_double_sees_the_running_slope() {
        // 1001 frames, the double at frame 500 (the middle: the final ŝ is 1),
        // the repeat at 501. Frame 500 is judged by the slope of frames
        // 0..499 (exactly 1): j = 32 − 16 = 16 ms. Frame 501 by the slope of
        // frames 0..500, pulled up by the extra tick at their end:
        // ŝ − 1 = 16·(8000 − 4000) / Σ(16i − 4000)² = 250 / 10 479 250,
        // so |j| = 16·(1 + 250/10 479 250) = 16.000382 ms.
        let s = fed(Some(hz62_5()), 0, every_16_ms(1001, |i| if i == 500 { 8016 } else { 16 * i })).stats();
        assert_eq!(s.speed_ratio, 1.0, "{s:?}");
        assert_eq!(s.hitches, 2, "{s:?}");
        assert!(close(s.max_hitch_ms, 16.0 * (1.0 + 250.0 / 10_479_250.0), 1e-9), "{s:?}");
        assert!(close(s.judder_ms, (512.0f64 / 1000.0).sqrt(), 1e-12), "the RMS uses the final ŝ: {s:?}");
    }

    #[test]
    fn the_59_94_hz_double_and_repeat_are_two_hitches_of_a_60_hz_tick() {
        // 60 Hz ticks on a 59.94 Hz display: one tick per refresh, ŝ = 1000/1001,
        // so a steady frame has j = T − ŝ·P = 0 and the double/repeat pair has
        // j = ±T = ±16.667 ms (±1 ns from the nanosecond grid's floors).
        let (ntsc, tick) = (Rate::new(60000, 1001).unwrap(), Rate::from_hz(60));
        let frames = (0..101).map(|i| {
            let ticks = if i == 50 { 51 } else { i };
            (ntsc.tick_time(i), tick.tick_time(ticks), ntsc.tick_time(i))
        });
        let s = fed(Some(ntsc), 0, frames).stats();
        assert!(close(s.speed_ratio, 1000.0 / 1001.0, 1e-8), "{s:?}");
        assert!(close(s.drift_ms_per_min, -60_000.0 / 1001.0, 1e-3), "−59.94 ms/min: {s:?}");
        assert_eq!(s.hitches, 2, "{s:?}");
        assert!(close(s.max_hitch_ms, 50.0 / 3.0, 1e-5), "one 60 Hz tick: {s:?}");
    }

    #[test]
    fn a_100_ms_freeze_that_the_game_catches_up_is_one_hitch_of_84_ms() {
        // The module docs' freeze: every j is 0, the stall rule sees it.
        let d = [0, 16, 32, 48, 148, 164, 180];
        let s = fed(Some(hz62_5()), 0, d.iter().map(|&t| (t * MS, t * MS, t * MS))).stats();
        assert_eq!((s.speed_ratio, s.judder_ms), (1.0, 0.0), "{s:?}");
        assert_eq!((s.hitches, s.max_hitch_ms), (1, 84.0), "{s:?}");
        assert!(close(s.hitches_per_min, 60_000.0 / 180.0, 1e-9), "1 per 180 ms: {s:?}");
        assert_eq!((s.present_interval_mean_ms, s.present_interval_p99_ms), (30.0, 100.0), "{s:?}");
        assert!(close(s.present_interval_std_ms, 980.0f64.sqrt(), 1e-12), "σ = √980 = 31.305: {s:?}");

        // The same freeze in a longer run, judged online.
        let d = (0..600).map(|i| if i < 300 { 16 * i } else { 16 * i + 84 });
        let s = fed(Some(hz62_5()), 0, d.map(|t| (t * MS, t * MS, t * MS))).stats();
        assert_eq!((s.hitches, s.max_hitch_ms, s.judder_ms), (1, 84.0, 0.0), "{s:?}");
    }

    #[test]
    fn a_100_ms_freeze_of_the_game_itself_is_a_hitch_too() {
        // Lockstep-like: the picture advances one tick per frame, also across
        // the stall. Judged by the slope before it (exactly 1): j = 16 − 100,
        // and the interval is 100 − 16 over the median.
        let frames = (0..600u64).map(|i| {
            let display = if i < 300 { 16 * i } else { 16 * i + 84 };
            (display * MS, 16 * i * MS, display * MS)
        });
        let s = fed(Some(hz62_5()), 0, frames).stats();
        assert_eq!((s.hitches, s.max_hitch_ms), (1, 84.0), "{s:?}");
    }

    #[test]
    fn after_a_change_of_pace_long_intervals_stop_being_stalls_within_half_a_window() {
        // 16 ms frames, then 32 ms frames; no refresh rate, so P is the median.
        // The k-th 32 ms interval (k from 0) is judged against the median of
        // the 120 intervals before it: 16 ms while k ≤ 60 (excess 16 ≥ 8, a
        // hitch), then 32 ms. 61 hitches, however long the run before.
        for before in [300, 3_000] {
            let d = (0..before + 300).map(|i| if i <= before { 16 * i } else { 32 * i - 16 * before });
            let s = fed(None, 0, d.map(|t| (t * MS, t * MS, t * MS))).stats();
            assert_eq!((s.hitches, s.max_hitch_ms), (61, 16.0), "{before} frames before: {s:?}");
        }
    }

    #[test]
    fn present_intervals_16_16_16_33_have_mean_20_25_sigma_7_36_and_p99_33() {
        let d = [0, 16, 32, 48, 81];
        let m = fed(None, 0, d.iter().map(|&t| (t * MS, t * MS, t * MS)));
        let s = m.stats();
        assert_eq!((s.present_interval_mean_ms, s.present_interval_p99_ms), (20.25, 33.0), "{s:?}");
        assert!(close(s.present_interval_std_ms, (216.75f64 / 4.0).sqrt(), 1e-12), "σ = 7.361: {s:?}");
        let h = m.present_histogram();
        assert_eq!((h.bins()[64], h.bins()[132], h.total()), (3, 1, 4), "16 ms → bin 64, 33 ms → bin 132");
    }

    #[test]
    fn latency_is_display_minus_input_time_mean_p95_and_max() {
        // Catch-up shows input read 16 ms before display; an interpolated
        // frame at α = 0.25 input from 4 ms into a 16 ms tick: 28 ms.
        let frames = [(16, 0), (32, 16), (48, 32), (64, 36)].map(|(d, i)| (d * MS, d * MS, i * MS));
        let s = fed(None, 0, frames).stats();
        assert_eq!((s.latency_ms, s.latency_p95_ms, s.latency_max_ms), (19.0, 28.0, 28.0), "{s:?}");
    }

    #[test]
    fn a_constant_wrong_speed_is_drift_not_judder_nor_hitches() {
        // Lockstep at 144 Hz with 60 Hz ticks: content advances 1/60 s per 1/144 s shown.
        let (tick, refresh) = (Rate::from_hz(60), Rate::from_hz(144));
        let frames = (0..1000).map(|i| (refresh.tick_time(i), tick.tick_time(i), refresh.tick_time(i)));
        let s = fed(Some(refresh), 0, frames).stats();
        assert!(close(s.speed_ratio, 2.4, 1e-9), "{s:?}");
        assert!(close(s.drift_ms_per_min, 84_000.0, 1e-4), "{s:?}");
        assert!(s.judder_ms < 1e-5, "{s:?}");
        assert_eq!(s.hitches, 0, "{s:?}");
    }

    #[test]
    fn a_run_starting_thirty_days_in_has_the_figures_of_one_starting_at_zero() {
        let start = 30 * 86_400 * NANOS_PER_SEC;
        let frames = every_16_ms(1001, |i| if i == 500 { 8016 } else { 16 * i });
        let shifted = frames.iter().map(|&(d, c, i)| (d + start, c + start, i + start));
        assert_eq!(fed(Some(hz62_5()), start, shifted).stats(), fed(Some(hz62_5()), 0, frames).stats());
    }

    #[test]
    fn online_totals_agree_with_the_exact_batch_over_the_same_frames() {
        // 128 noisy frames: the online path judges frames 120..127 with the
        // running slope and keeps percentiles in histograms; the batch is exact.
        let mut rng = SplitMix64::new(7);
        let mut frames = Vec::new();
        let (mut display, mut content) = (0u64, 0u64);
        for i in 0..motion::BATCH_MAX as u64 {
            display += 16_683_333 + rng.below(2_000_000);
            content += if i % 37 == 5 { 33_333_333 } else { 16_666_667 };
            frames.push((display, content, display - 14_000_000 - rng.below(4_000_000)));
        }
        let online = fed(Some(Rate::new(60000, 1001).unwrap()), 0, frames.iter().copied()).stats();
        let points: Vec<Point> =
            frames.iter().map(|&(display, content, input)| Point { display, content, input }).collect();
        let exact = motion::batch(&points, Some(Rate::new(60000, 1001).unwrap()));
        assert_eq!(online.hitches, exact.hitches, "online {online:?}\nexact {exact:?}");
        // A frame's |j| moves by (ŝ_judge − ŝ)·ΔD: the warm-up's slope (of the
        // first 120 frames) is not that of all 128, a double every 37 frames
        // being a staircase, not a line.
        let warmup_slope = motion::batch(&points[..WARMUP_LEN], Some(Rate::new(60000, 1001).unwrap())).speed_ratio;
        let longest = frames.windows(2).map(|w| w[1].0 - w[0].0).max().unwrap_or(0) as f64 / MS as f64;
        let hitch_tolerance = (warmup_slope - exact.speed_ratio).abs() * longest + 1e-9;
        for (name, a, b, tolerance) in [
            ("speed", online.speed_ratio, exact.speed_ratio, 1e-12),
            ("judder", online.judder_ms, exact.judder_ms, 1e-9),
            ("latency", online.latency_ms, exact.latency_ms, 1e-12),
            ("interval mean", online.present_interval_mean_ms, exact.present_interval_mean_ms, 1e-12),
            ("interval σ", online.present_interval_std_ms, exact.present_interval_std_ms, 1e-9),
            ("latency max", online.latency_max_ms, exact.latency_max_ms, 0.0),
            ("judder p99", online.judder_p99_ms, exact.judder_p99_ms, exact.judder_p99_ms / 64.0),
            ("latency p95", online.latency_p95_ms, exact.latency_p95_ms, exact.latency_p95_ms / 64.0),
            (
                "interval p99",
                online.present_interval_p99_ms,
                exact.present_interval_p99_ms,
                exact.present_interval_p99_ms / 64.0,
            ),
            ("max hitch", online.max_hitch_ms, exact.max_hitch_ms, hitch_tolerance),
        ] {
            assert!(close(a, b, tolerance), "{name}: online {a} vs exact {b}");
        }
    }

    #[test]
    fn rolling_values_forget_frames_older_than_the_window() {
        // A double/repeat pair every 10 frames early on, then RECENT_LEN steady frames.
        let n = 1_000;
        let steady_from = n - RECENT_LEN as u64;
        let m = fed(
            Some(hz62_5()),
            0,
            every_16_ms(n, |i| if i < steady_from && i % 10 == 3 { 16 * i + 16 } else { 16 * i }),
        );
        let recent = m.recent();
        assert_eq!((recent.judder_ms, recent.hitches, recent.latency_ms), (0.0, 0, 10.0), "{recent:?}");
        assert_eq!(m.recent_judder_ms(), 0.0);
        assert_eq!(m.recent_latency_ms(), 10.0);
        assert!(m.stats().hitches > 100, "the totals still remember: {:?}", m.stats());
    }

    #[test]
    fn without_frames_everything_is_undefined_and_one_frame_has_only_a_latency() {
        let m = Metrics::new(0, None);
        assert!(m.stats().judder_ms.is_nan() && m.stats().latency_ms.is_nan() && m.stats().hitches == 0);
        assert!(m.recent_judder_ms().is_nan());
        let one = fed(None, 0, [(20 * MS, 0, 5 * MS)]).stats();
        assert_eq!(one.latency_ms, 15.0);
        assert!(one.speed_ratio.is_nan() && one.judder_ms.is_nan() && one.present_interval_mean_ms.is_nan(), "{one:?}");
    }

    /// 62.5 Hz frames (16 ms apart, the first at 16 ms) whose picture stands
    /// still for the first 32 frames (a 2 Hz tick not run yet), then moves
    /// one refresh per frame. A moving picture is shown 10 ms after its
    /// input; the still ones show the first frame's input, 6 ms.
    fn frozen_for_a_tick(n: u64) -> Metrics {
        let frames = (0..n).map(|i| {
            let display = 16 * (i + 1);
            let (content, input) = if i <= 31 { (0, 6) } else { (16 * (i - 31), display - 10) };
            (display * MS, content * MS, input * MS)
        });
        fed(Some(hz62_5()), 0, frames)
    }

    #[test]
    fn a_picture_frozen_until_the_first_tick_is_start_up_not_drift_nor_hitches() {
        // 3.2 s and 64 s: the same figures, whatever the length.
        for n in [200, 4_000] {
            let m = frozen_for_a_tick(n);
            let s = m.stats();
            assert_eq!(s.startup_ms, 31.0 * 16.0, "{n} frames: the last still frame is frame 31: {s:?}");
            assert_eq!((s.speed_ratio, s.drift_ms_per_min), (1.0, 0.0), "{n} frames: {s:?}");
            assert_eq!((s.hitches, s.max_hitch_ms, s.hitches_per_min), (0, 0.0, 0.0), "{n} frames: {s:?}");
            assert_eq!(m.present_histogram().total(), n - 33, "{n} frames: intervals from frame 32, the first move");
            assert_eq!(m.recent().startup_ms, s.startup_ms, "the rolling figures carry the run's start-up");
            assert_eq!(m.totals().repeated_frames, 31, "the counts keep every frame");
        }
    }

    #[test]
    fn the_frozen_frames_latency_is_start_up_and_not_counted() {
        // Frame 31 shows 6 ms input at 512 ms: the freeze, not a latency.
        let s = frozen_for_a_tick(100).stats();
        assert_eq!((s.latency_ms, s.latency_p95_ms, s.latency_max_ms), (10.0, 10.0, 10.0), "{s:?}");
    }

    #[test]
    fn a_picture_that_never_moves_is_all_start_up_with_a_latency() {
        let m = fed(Some(hz62_5()), 0, (0..10).map(|i| (16 * i * MS, 0, 0)));
        let s = m.stats();
        assert_eq!((s.startup_ms, s.latency_ms), (144.0, 144.0), "{s:?}");
        assert!(s.speed_ratio.is_nan() && s.judder_ms.is_nan() && s.hitches == 0, "{s:?}");
        assert!(Metrics::new(0, None).stats().startup_ms.is_nan(), "no frames, no start-up");
    }

    #[test]
    fn the_game_and_system_times_are_the_raw_counts_they_were() {
        let hz = Rate::from_hz(50);
        let mut m = Metrics::new(0, Some(hz));
        let tick = Rate::from_hz(60);
        for i in 1..=50 {
            m.record(&sample(1, tick.tick_time(i), hz.tick_time(i), tick.tick_time(i)));
        }
        let t = m.totals();
        assert_eq!((t.system_time, t.game_time), (NANOS_PER_SEC, tick.tick_time(50)));
        assert!(close(t.stats.speed_ratio, 50.0 / 60.0, 1e-8), "a 60 Hz tick per 50 Hz refresh: {:?}", t.stats);
    }
}
