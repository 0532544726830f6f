//! Frame metrics: one definition, fed one presented frame at a time, used by
//! the virtual monitor (totals over a run) and the live overlay (rolling
//! values over the last [`RECENT_LEN`] frames).
//!
//! What is measured, per presented frame:
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
//!   next digit. Without a known refresh rate every present is one digit.
//! - **double updates**: digits > 1. **skipped renders**: refreshes without a
//!   present (the `0`s Glaiel inserts for vsyncs nobody presented at).
//! - **repeated frames**: presented frames whose content time equals the
//!   previous presented frame's, i.e. the same picture shown again. For
//!   strategies that draw the latest state this is exactly "frames with 0
//!   updates"; an interpolating strategy's 0-update frame with a new alpha is
//!   a new picture and does not count.
//! - **game time vs system time**: the driver's simulated time against
//!   `(last refresh − first refresh) / Hz` (or elapsed display time without a
//!   refresh rate); their ratio is the drift (1.0 = right speed).
//! - **lag** = display time − content time (the moment the picture is
//!   visible minus the moment it depicts). **latency** = mean lag.
//!   **judder** = standard deviation of the lag *after removing its
//!   least-squares linear trend over display time*. A game that runs at a
//!   constant wrong speed (lockstep at 144 Hz) moves perfectly smoothly: its
//!   lag grows linearly, which is a speed error (reported as the speed ratio),
//!   not judder. Only the wobble around that line is visible as stutter.
//!
//! Sums are exact integers (`i128`) relative to the first sample (so a clock
//! that started 30 days ago loses nothing), converted to `f64` only when a
//! value is asked for. Being integers they can also be *subtracted* exactly,
//! which is how the rolling window stays O(1) per frame without drift. No
//! heap allocation happens after [`Metrics::new`].

use crate::frame::FrameReport;
use crate::time::{NANOS_PER_MS, Nanos, Rate};

/// How many pattern characters are kept from the start of a run (the report's `pattern`).
pub const PATTERN_PREFIX_LEN: usize = 200;

/// How many recent frames (and pattern digits) the rolling values cover:
/// two seconds at 60 Hz, enough for the overlay's strip and a stable judder.
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
}

impl FrameSample {
    /// The sample for a driver's frame report; `game_time` is
    /// [`crate::frame::FrameDriver::game_time`] after the frame.
    pub fn from_report(report: &FrameReport, game_time: Nanos) -> FrameSample {
        FrameSample {
            updates: report.updates,
            shown_updates: report.shown_updates,
            content_time: report.content_time,
            input_time: report.input_time,
            display_time: report.display_time,
            game_time,
        }
    }
}

/// Exact running sums for a least-squares line through `(x, y)` points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LineFit {
    n: i128,
    sx: i128,
    sy: i128,
    sxx: i128,
    sxy: i128,
    syy: i128,
}

impl LineFit {
    fn add(&mut self, x: i64, y: i64) {
        let (x, y) = (i128::from(x), i128::from(y));
        self.n += 1;
        self.sx = self.sx.saturating_add(x);
        self.sy = self.sy.saturating_add(y);
        self.sxx = self.sxx.saturating_add(x * x);
        self.sxy = self.sxy.saturating_add(x * y);
        self.syy = self.syy.saturating_add(y * y);
    }

    fn remove(&mut self, x: i64, y: i64) {
        let (x, y) = (i128::from(x), i128::from(y));
        self.n -= 1;
        self.sx = self.sx.saturating_sub(x);
        self.sy = self.sy.saturating_sub(y);
        self.sxx = self.sxx.saturating_sub(x * x);
        self.sxy = self.sxy.saturating_sub(x * y);
        self.syy = self.syy.saturating_sub(y * y);
    }

    /// Mean of `y`, or `None` without points.
    fn mean_y(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sy as f64 / self.n as f64)
    }

    /// `n·Σab − Σa·Σb` exactly when it fits, else in `f64`.
    fn centered(n: i128, sab: i128, sa: i128, sb: i128) -> f64 {
        match n.checked_mul(sab).zip(sa.checked_mul(sb)).and_then(|(p, q)| p.checked_sub(q)) {
            Some(d) => d as f64,
            None => n as f64 * sab as f64 - sa as f64 * sb as f64,
        }
    }

    /// Standard deviation of `y` around its least-squares line over `x`
    /// (population), or `None` without points.
    fn residual_std(&self) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let dxx = Self::centered(self.n, self.sxx, self.sx, self.sx);
        let dxy = Self::centered(self.n, self.sxy, self.sx, self.sy);
        let dyy = Self::centered(self.n, self.syy, self.sy, self.sy);
        // Without spread in x there is no trend to remove: plain variance.
        let residual = if dxx > 0.0 { dyy - dxy * dxy / dxx } else { dyy };
        let n2 = self.n as f64 * self.n as f64;
        Some((residual.max(0.0) / n2).sqrt())
    }
}

/// Pattern digits: the first [`PATTERN_PREFIX_LEN`] and a ring of the last [`RECENT_LEN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PatternLog {
    prefix: [u8; PATTERN_PREFIX_LEN],
    prefix_len: usize,
    recent: [u8; RECENT_LEN],
    recent_next: usize,
    recent_len: usize,
}

impl PatternLog {
    const fn new() -> PatternLog {
        PatternLog {
            prefix: [0; PATTERN_PREFIX_LEN],
            prefix_len: 0,
            recent: [0; RECENT_LEN],
            recent_next: 0,
            recent_len: 0,
        }
    }

    fn digit(updates: u64) -> u8 {
        match u8::try_from(updates) {
            Ok(d) if d < 10 => b'0' + d,
            _ => b'+',
        }
    }

    fn push(&mut self, updates: u64) {
        let c = Self::digit(updates);
        if self.prefix_len < PATTERN_PREFIX_LEN {
            self.prefix[self.prefix_len] = c;
            self.prefix_len += 1;
        }
        self.recent[self.recent_next] = c;
        self.recent_next = (self.recent_next + 1) % RECENT_LEN;
        self.recent_len = (self.recent_len + 1).min(RECENT_LEN);
    }

    /// Pushes `count` zeros; only as many as the buffers can still show are
    /// written, so a 10-minute stall costs no more than a short one.
    fn push_zeros(&mut self, count: u64) {
        let room = (PATTERN_PREFIX_LEN - self.prefix_len) as u64;
        let visible = count.min(room.max(RECENT_LEN as u64));
        for _ in 0..visible {
            self.push(0);
        }
    }

    fn prefix(&self) -> &str {
        std::str::from_utf8(&self.prefix[..self.prefix_len]).unwrap_or("")
    }

    fn recent(&self) -> impl Iterator<Item = char> + '_ {
        let start = (self.recent_next + RECENT_LEN - self.recent_len) % RECENT_LEN;
        (0..self.recent_len).map(move |i| char::from(self.recent[(start + i) % RECENT_LEN]))
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
    /// `game_time / system_time`; NaN while no time has passed.
    pub speed_ratio: f64,
    /// Standard deviation of the detrended lag, ms; NaN without frames.
    pub judder_ms: f64,
    /// Mean lag (display time − content time), ms; NaN without frames.
    pub latency_ms: f64,
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
    /// First sample's display time and lag: the origin of every sum.
    origin: Option<(Nanos, i128)>,
    total_fit: LineFit,
    recent_fit: LineFit,
    recent_points: [(i64, i64); RECENT_LEN],
    recent_next: usize,
    recent_len: usize,
    pattern: PatternLog,
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
            origin: None,
            total_fit: LineFit::default(),
            recent_fit: LineFit::default(),
            recent_points: [(0, 0); RECENT_LEN],
            recent_next: 0,
            recent_len: 0,
            pattern: PatternLog::new(),
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
        self.frames += 1;
        self.updates += u64::from(frame.updates);
        self.game_time = frame.game_time;
        self.last_display = self.last_display.max(frame.display_time);
        if self.last_content == Some(frame.content_time) {
            self.repeated += 1;
        }
        self.last_content = Some(frame.content_time);
        self.record_pattern(frame);
        self.record_lag(frame);
    }

    fn record_pattern(&mut self, frame: &FrameSample) {
        self.pending_updates += u64::from(frame.shown_updates);
        let v = match self.refresh {
            Some(rate) => rate.nearest_tick(frame.display_time),
            None => self.last_refresh + 1,
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

    fn record_lag(&mut self, frame: &FrameSample) {
        let lag = i128::from(frame.display_time) - i128::from(frame.content_time);
        let (x0, y0) = *self.origin.get_or_insert((frame.display_time, lag));
        let clamp = |v: i128| i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX });
        let x = clamp(i128::from(frame.display_time) - i128::from(x0));
        let y = clamp(lag - y0);
        self.total_fit.add(x, y);
        if self.recent_len == RECENT_LEN {
            let (ox, oy) = self.recent_points[self.recent_next];
            self.recent_fit.remove(ox, oy);
        } else {
            self.recent_len += 1;
        }
        self.recent_points[self.recent_next] = (x, y);
        self.recent_next = (self.recent_next + 1) % RECENT_LEN;
        self.recent_fit.add(x, y);
    }

    fn latency_of(&self, fit: &LineFit) -> f64 {
        match (self.origin, fit.mean_y()) {
            (Some((_, y0)), Some(mean)) => (y0 as f64 + mean) / NANOS_PER_MS as f64,
            _ => f64::NAN,
        }
    }

    /// Totals since the start.
    pub fn totals(&self) -> Totals {
        let system_time = match self.refresh {
            Some(rate) => rate.tick_time(self.last_refresh - self.first_refresh),
            None => self.last_display.saturating_sub(self.start),
        };
        let speed_ratio = if system_time == 0 { f64::NAN } else { self.game_time as f64 / system_time as f64 };
        Totals {
            frames: self.frames,
            updates: self.updates,
            vsyncs: self.vsyncs,
            double_updates: self.doubles,
            skipped_renders: self.skipped,
            repeated_frames: self.repeated,
            game_time: self.game_time,
            system_time,
            speed_ratio,
            judder_ms: self.total_fit.residual_std().map_or(f64::NAN, |ns| ns / NANOS_PER_MS as f64),
            latency_ms: self.latency_of(&self.total_fit),
        }
    }

    /// The first [`PATTERN_PREFIX_LEN`] pattern characters.
    pub fn pattern_prefix(&self) -> &str {
        self.pattern.prefix()
    }

    /// The last [`RECENT_LEN`] pattern characters, oldest first.
    pub fn recent_pattern(&self) -> impl Iterator<Item = char> + '_ {
        self.pattern.recent()
    }

    /// Judder over the last [`RECENT_LEN`] frames, ms (NaN without frames).
    pub fn recent_judder_ms(&self) -> f64 {
        self.recent_fit.residual_std().map_or(f64::NAN, |ns| ns / NANOS_PER_MS as f64)
    }

    /// Mean lag over the last [`RECENT_LEN`] frames, ms (NaN without frames).
    pub fn recent_latency_ms(&self) -> f64 {
        self.latency_of(&self.recent_fit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;

    fn sample(updates: u32, content_time: Nanos, display_time: Nanos, game_time: Nanos) -> FrameSample {
        FrameSample { updates, shown_updates: updates, content_time, input_time: content_time, display_time, game_time }
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
    fn a_constant_lag_has_zero_judder_and_that_lag_as_latency() {
        let mut m = Metrics::new(0, None);
        for i in 1..=500u64 {
            let display = i * 16_666_667;
            m.record(&sample(1, display - 5_000_000, display, 0));
        }
        let t = m.totals();
        assert!(t.judder_ms.abs() < 1e-9, "judder {}", t.judder_ms);
        assert!((t.latency_ms - 5.0).abs() < 1e-9, "latency {}", t.latency_ms);
    }

    #[test]
    fn a_linearly_growing_lag_is_a_speed_error_not_judder() {
        // Lockstep at 144 Hz with 60 Hz ticks: content advances 1/60 s per 1/144 s shown.
        let mut m = Metrics::new(0, None);
        let (tick, refresh) = (Rate::from_hz(60), Rate::from_hz(144));
        for i in 0..1000 {
            m.record(&sample(1, tick.tick_time(i), refresh.tick_time(i), 0));
        }
        assert!(m.totals().judder_ms < 1e-5, "judder {}", m.totals().judder_ms);
    }

    #[test]
    fn alternating_lag_is_judder_even_with_a_start_thirty_days_in() {
        let start = 30 * 86_400 * NANOS_PER_SEC;
        let mut m = Metrics::new(start, None);
        for i in 0..1000u64 {
            let display = start + i * 16_666_667;
            let lag = if i % 2 == 0 { 10_000_000 } else { 12_000_000 };
            m.record(&sample(1, display - lag, display, 0));
        }
        let t = m.totals();
        // Not exactly 1: the alternation starts low and ends high, a hair of trend.
        assert!((t.judder_ms - 1.0).abs() < 1e-5, "judder {}", t.judder_ms);
        assert!((t.latency_ms - 11.0).abs() < 1e-9, "latency {}", t.latency_ms);
        assert!((m.recent_judder_ms() - 1.0).abs() < 1e-3, "rolling judder {}", m.recent_judder_ms());
    }

    #[test]
    fn rolling_values_forget_frames_older_than_the_window() {
        let mut m = Metrics::new(0, None);
        let mut display = 0;
        for i in 0..1000u64 {
            display += 16_666_667;
            // Wild lag early on, a steady 3 ms for the last RECENT_LEN frames.
            let lag = if i < 1000 - RECENT_LEN as u64 { (i % 7) * 4_000_000 } else { 3_000_000 };
            m.record(&sample(1, display - lag, display, 0));
        }
        assert!(m.recent_judder_ms() < 1e-6, "rolling judder {}", m.recent_judder_ms());
        assert!((m.recent_latency_ms() - 3.0).abs() < 1e-9, "rolling latency {}", m.recent_latency_ms());
        assert!(m.totals().judder_ms > 1.0, "the totals still remember");
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
    fn speed_ratio_is_game_time_over_system_time() {
        let hz = Rate::from_hz(50);
        let mut m = Metrics::new(0, Some(hz));
        let tick = Rate::from_hz(60);
        for i in 1..=50 {
            m.record(&sample(1, 0, hz.tick_time(i), tick.tick_time(i)));
        }
        let t = m.totals();
        assert_eq!(t.system_time, NANOS_PER_SEC);
        assert!((t.speed_ratio - 50.0 / 60.0).abs() < 1e-8, "ratio {}", t.speed_ratio);
    }
}
