//! Speed, judder, hitches, latency and present pacing: the definitions (see
//! the [module docs](super) for the worked examples), computed two ways.
//!
//! - [`batch`]: exactly, over up to [`BATCH_MAX`] frames held in an array
//!   (the rolling window, and a whole run while it is that short). This is
//!   the reference: every number is its definition applied to the frames.
//! - [`Running`]: online, O(1) per frame and no allocation, for a whole run
//!   of any length. Sums are exact integers; the final slope ŝ gives the
//!   speed, the drift and the judder RMS exactly as the batch would. What
//!   needs ŝ *per frame* (hitches, `max_hitch`, the p99 of |j|) uses the
//!   slope and median interval known before that frame; see [`Running`].

use super::RECENT_LEN;
use super::fit::LineFit;
use super::histogram::{LogHistogram, PresentHistogram, percentile};
use crate::sorted_window::SortedWindow;
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate, nanos_as_f64};
#[cfg(feature = "serde")]
use serde::Serialize;

/// The most frames [`batch`] takes (it keeps the last ones).
pub(crate) const BATCH_MAX: usize = 128;

/// Frames of a run judged together, with the slope and median interval of
/// all of them, before the running rule takes over: two seconds at 60 Hz.
/// Fewer frames make a shaky slope (see the running rule in this module's docs).
pub const WARMUP_LEN: usize = 120;

const NANOS_PER_MIN: f64 = 60.0 * NANOS_PER_SEC as f64;
const MS: f64 = NANOS_PER_MS as f64;

/// Motion, latency and pacing over a set of presented frames. Undefined
/// values (too few frames, no time passed) are NaN; see the module docs of
/// [`crate::metrics`] for each definition and a worked example.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(Serialize))]
pub struct FrameStats {
    /// Start-up: how long the first picture stood still, ms: the display
    /// time of the last frame still showing the first frame's picture, less
    /// the first frame's (0 when the second frame already moves). After such
    /// a freeze every other figure here starts with the first frame that
    /// moves. Filled in by [`Metrics`](super::Metrics); NaN without frames.
    pub startup_ms: f64,
    /// ŝ, the least-squares slope of content time on display time (1 = right speed).
    pub speed_ratio: f64,
    /// (ŝ − 1) · 60 000: ms of game time gained per minute; negative when the game runs slow.
    pub drift_ms_per_min: f64,
    /// RMS of the per-frame motion error j = ΔC − ŝ·ΔD, ms.
    pub judder_ms: f64,
    /// 99th percentile of |j|, ms.
    pub judder_p99_ms: f64,
    /// Frames with |j| ≥ P/2 or a display interval ≥ P/2 over the median.
    pub hitches: u64,
    /// The worst frame: max of |j| and of the interval's excess over the median, ms.
    pub max_hitch_ms: f64,
    /// Hitches per minute of display time.
    pub hitches_per_min: f64,
    /// Mean input-to-photon time D − I, ms.
    pub latency_ms: f64,
    /// 95th percentile of D − I, ms.
    pub latency_p95_ms: f64,
    /// Largest D − I, ms.
    pub latency_max_ms: f64,
    /// Mean present (display) interval, ms.
    pub present_interval_mean_ms: f64,
    /// Standard deviation of the present interval (population), ms.
    pub present_interval_std_ms: f64,
    /// 99th percentile of the present interval, ms.
    pub present_interval_p99_ms: f64,
}

impl FrameStats {
    /// Every value undefined: no frames.
    pub const EMPTY: FrameStats = FrameStats {
        startup_ms: f64::NAN,
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
    };
}

/// One presented frame as these statistics see it: D, C and I.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Point {
    pub(crate) display: Nanos,
    pub(crate) content: Nanos,
    pub(crate) input: Nanos,
}

/// `a − b` as `i64`: exact for clock readings below 2^63 ns (292 years),
/// whose differences always fit.
fn delta(a: Nanos, b: Nanos) -> i64 {
    a.wrapping_sub(b) as i64
}

fn ms(ns: f64) -> f64 {
    ns / MS
}

fn opt_ms(ns: Option<f64>) -> f64 {
    ns.map_or(f64::NAN, ms)
}

/// The refresh period in ns, exactly (`den · 10⁹ / num`).
fn period_ns(rate: Rate) -> f64 {
    rate.den() as f64 * NANOS_PER_SEC as f64 / rate.num() as f64
}

/// What a frame is judged against: the slope ŝ, the median present interval,
/// and the hitch threshold P/2.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Judge {
    slope: f64,
    median: f64,
    threshold: f64,
}

impl Judge {
    /// P is the refresh `period` (ns) when known, else the median interval.
    fn new(slope: Option<f64>, median: Option<f64>, period: Option<f64>) -> Option<Judge> {
        let (slope, median) = (slope?, median?);
        Some(Judge { slope, median, threshold: period.unwrap_or(median) / 2.0 })
    }

    /// j = ΔC − ŝ·ΔD, ns: how far the picture moved beyond (+) or short of (−)
    /// where a steady game at the run's speed would have put it.
    fn error(&self, dc: i64, dd: i64) -> f64 {
        dc as f64 - self.slope * dd as f64
    }

    /// How badly a frame hitched, ns: the larger of |j| and the interval's
    /// excess over the median (the picture froze that long, then jumped).
    fn size(&self, error: f64, dd: i64) -> f64 {
        error.abs().max(dd as f64 - self.median).max(0.0)
    }

    fn is_hitch(&self, size: f64) -> bool {
        size >= self.threshold && size > 0.0
    }
}

/// Exact sums over frame-to-frame deltas: interval mean and spread, and the
/// judder RMS for any slope (Σj² = ΣΔC² − 2ŝ·ΣΔCΔD + ŝ²·ΣΔD²).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DeltaSums {
    m: u64,
    sdd: u128,
    sdd2: u128,
    sdc2: u128,
    sdcdd: i128,
}

impl DeltaSums {
    /// `dd` is never negative: display times are made monotonic on record.
    fn add(&mut self, dc: i64, dd: i64) {
        let (c, d) = (i128::from(dc), i128::from(dd));
        self.m += 1;
        self.sdd = self.sdd.saturating_add(d.unsigned_abs());
        self.sdd2 = self.sdd2.saturating_add((d * d).unsigned_abs());
        self.sdc2 = self.sdc2.saturating_add((c * c).unsigned_abs());
        self.sdcdd = self.sdcdd.saturating_add(c * d);
    }

    fn judder_rms(&self, slope: Option<f64>) -> Option<f64> {
        let s = slope.filter(|_| self.m > 0)?;
        let sum_sq = self.sdc2 as f64 - 2.0 * s * self.sdcdd as f64 + s * s * self.sdd2 as f64;
        Some((sum_sq.max(0.0) / self.m as f64).sqrt())
    }

    fn interval_mean(&self) -> Option<f64> {
        (self.m > 0).then(|| self.sdd as f64 / self.m as f64)
    }

    /// Population standard deviation: `√(m·Σd² − (Σd)²) / m`, exact inside the root when it fits.
    fn interval_std(&self) -> Option<f64> {
        if self.m == 0 {
            return None;
        }
        let m = u128::from(self.m);
        let spread = match m.checked_mul(self.sdd2).zip(self.sdd.checked_mul(self.sdd)) {
            Some((a, b)) => a.saturating_sub(b) as f64,
            None => (m as f64 * self.sdd2 as f64 - self.sdd as f64 * self.sdd as f64).max(0.0),
        };
        Some(spread.sqrt() / m as f64)
    }
}

/// Hitches per minute over `span` ns of display time.
fn per_minute(hitches: u64, span: Nanos) -> f64 {
    if span == 0 { f64::NAN } else { hitches as f64 * NANOS_PER_MIN / span as f64 }
}

fn drift(slope: Option<f64>) -> f64 {
    slope.map_or(f64::NAN, |s| (s - 1.0) * NANOS_PER_MIN / MS)
}

fn fit_of(points: &[Point]) -> LineFit {
    let mut fit = LineFit::default();
    if let Some(first) = points.first() {
        for p in points {
            fit.add(delta(p.display, first.display), delta(p.content, first.content));
        }
    }
    fit
}

/// The judge of a batch: its own slope and exact median interval.
fn judge_of(points: &[Point], refresh: Option<Rate>) -> Option<Judge> {
    let mut intervals = [0u64; BATCH_MAX];
    let m = points.len().saturating_sub(1).min(BATCH_MAX);
    for (slot, w) in intervals.iter_mut().zip(points.windows(2)) {
        *slot = w[1].display.saturating_sub(w[0].display);
    }
    let intervals = &mut intervals[..m];
    intervals.sort_unstable();
    let median = percentile(intervals, 50).map(|ns| ns as f64);
    Judge::new(fit_of(points).slope(), median, refresh.map(period_ns))
}

/// The statistics of `points` (chronological, display times monotonic),
/// exactly: the definitions applied to the last [`BATCH_MAX`] of them.
pub(crate) fn batch(points: &[Point], refresh: Option<Rate>) -> FrameStats {
    let points = &points[points.len().saturating_sub(BATCH_MAX)..];
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return FrameStats::EMPTY;
    };
    let mut latencies = [0u64; BATCH_MAX];
    let (mut latency_sum, mut latency_max) = (0i128, i64::MIN);
    for (slot, p) in latencies.iter_mut().zip(points) {
        let latency = delta(p.display, p.input);
        latency_sum += i128::from(latency);
        latency_max = latency_max.max(latency);
        *slot = latency.max(0).unsigned_abs();
    }
    let latencies = &mut latencies[..points.len()];
    latencies.sort_unstable();

    let judge = judge_of(points, refresh);
    let mut deltas = DeltaSums::default();
    let mut errors = [0f64; BATCH_MAX];
    let mut intervals = [0u64; BATCH_MAX];
    let (mut hitches, mut max_hitch) = (0, None::<f64>);
    for (k, w) in points.windows(2).enumerate() {
        let (dc, dd) = (delta(w[1].content, w[0].content), delta(w[1].display, w[0].display));
        deltas.add(dc, dd);
        intervals[k] = w[1].display.saturating_sub(w[0].display);
        if let Some(judge) = judge {
            let error = judge.error(dc, dd);
            let size = judge.size(error, dd);
            errors[k] = error.abs();
            hitches += u64::from(judge.is_hitch(size));
            max_hitch = Some(max_hitch.map_or(size, |m| m.max(size)));
        }
    }
    let m = points.len() - 1;
    let intervals = &mut intervals[..m];
    intervals.sort_unstable();
    let errors = &mut errors[..if judge.is_some() { m } else { 0 }];
    errors.sort_unstable_by(f64::total_cmp);
    let span = last.display.saturating_sub(first.display);
    let slope = judge.map(|j| j.slope);
    FrameStats {
        startup_ms: f64::NAN,
        speed_ratio: slope.unwrap_or(f64::NAN),
        drift_ms_per_min: drift(slope),
        judder_ms: opt_ms(deltas.judder_rms(slope)),
        judder_p99_ms: opt_ms(percentile(errors, 99)),
        hitches,
        max_hitch_ms: opt_ms(max_hitch),
        hitches_per_min: if m == 0 { f64::NAN } else { per_minute(hitches, span) },
        latency_ms: ms(latency_sum as f64 / points.len() as f64),
        latency_p95_ms: opt_ms(percentile(latencies, 95).map(|ns| ns as f64)),
        latency_max_ms: ms(latency_max as f64),
        present_interval_mean_ms: opt_ms(deltas.interval_mean()),
        present_interval_std_ms: opt_ms(deltas.interval_std()),
        present_interval_p99_ms: opt_ms(percentile(intervals, 99).map(|ns| ns as f64)),
    }
}

/// A ring of the last `N` points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ring<const N: usize> {
    points: [Point; N],
    next: usize,
    len: usize,
}

impl<const N: usize> Ring<N> {
    pub(crate) const fn new() -> Self {
        Ring { points: [Point { display: 0, content: 0, input: 0 }; N], next: 0, len: 0 }
    }

    pub(crate) fn push(&mut self, p: Point) {
        self.points[self.next] = p;
        self.next = (self.next + 1) % N;
        self.len = (self.len + 1).min(N);
    }

    /// The points oldest first, copied into `out`; returns how many.
    pub(crate) fn copy_to(&self, out: &mut [Point; N]) -> usize {
        let start = (self.next + N - self.len) % N;
        for (i, slot) in out.iter_mut().take(self.len).enumerate() {
            *slot = self.points[(start + i) % N];
        }
        self.len
    }
}

/// The whole-run statistics, online. Per presented frame: exact integer
/// sums (the line fit of C on D, the delta sums, latency), three
/// [`LogHistogram`]s (latency, present interval, |j|) and the
/// [`PresentHistogram`].
///
/// Judging a frame (is it a hitch? its |j| for the p99) needs ŝ and the
/// median interval. ŝ is only final at the end of the run, so:
///
/// - the first [`WARMUP_LEN`] frames are held back and judged together by
///   the slope and exact median interval of those frames (a slope from a
///   handful of frames would call ordinary noise a hitch); a run that ends
///   within them is judged entirely by [`batch`], i.e. exactly;
/// - every later frame i is judged on arrival by the least-squares slope of
///   frames 0..i−1 (from the exact sums, divided in `f64`: within 10⁻¹⁵ of
///   the exact slope, at a fifth of the cost) and the exact median of the
///   [`RECENT_LEN`] intervals
///   before it. The median is local on purpose: after a change of pace (60
///   to 30 fps) the longer intervals stop being stalls once they are half
///   the window, however long the run before the change was.
///
/// The running slope differs from the final ŝ by the error of a fit over
/// seconds of frames: for a steady run that difference times one interval
/// is far below a microsecond, while the hitch threshold P/2 is
/// milliseconds. The judder RMS always uses the final ŝ (exact delta sums).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Running {
    refresh: Option<Rate>,
    /// The refresh period, ns.
    period: Option<f64>,
    frames: u64,
    first: Option<Point>,
    last: Point,
    warmup: [Point; WARMUP_LEN],
    recent: Ring<RECENT_LEN>,
    fit: LineFit,
    deltas: DeltaSums,
    median: SortedWindow<RECENT_LEN>,
    intervals: LogHistogram,
    present: PresentHistogram,
    latency_sum: i128,
    latency_max: i64,
    latencies: LogHistogram,
    errors: LogHistogram,
    hitches: u64,
    max_hitch: Option<f64>,
    /// The judge of the next frame (the running rule above), made as soon as
    /// the sums and the window it needs are final, at the end of `record`:
    /// made when the frame arrived, its slope (five `i128` conversions and a
    /// division) and the judging waited on each other every frame (the two
    /// were 10 % of an `interpolated` simulation's time, perf; made early,
    /// 3 % less CPU time, best of 15 runs).
    next_judge: Option<Judge>,
}

impl Running {
    pub(crate) fn new(refresh: Option<Rate>) -> Running {
        Running {
            refresh,
            period: refresh.map(period_ns),
            frames: 0,
            first: None,
            last: Point::default(),
            warmup: [Point::default(); WARMUP_LEN],
            recent: Ring::new(),
            fit: LineFit::default(),
            deltas: DeltaSums::default(),
            median: SortedWindow::new(),
            intervals: LogHistogram::new(),
            present: PresentHistogram::new(),
            latency_sum: 0,
            latency_max: i64::MIN,
            latencies: LogHistogram::new(),
            errors: LogHistogram::new(),
            hitches: 0,
            max_hitch: None,
            next_judge: None,
        }
    }

    /// Records a frame. A display time before the last one's is read as the
    /// last one's: a picture cannot appear before the one presented ahead of it.
    pub(crate) fn record(&mut self, mut p: Point) {
        let index = self.frames as usize;
        self.frames += 1;
        let first = *self.first.get_or_insert(p);
        p.display = p.display.max(self.last.display);
        let latency = delta(p.display, p.input);
        self.latency_sum += i128::from(latency);
        self.latency_max = self.latency_max.max(latency);
        self.latencies.add(latency.max(0).unsigned_abs());
        self.recent.push(p);
        if index == 0 {
            self.last = p;
            self.warmup[0] = p;
            self.fit.add(0, 0);
            return;
        }
        let (dc, dd) = (delta(p.content, self.last.content), delta(p.display, self.last.display));
        if index >= WARMUP_LEN
            && let Some(judge) = self.next_judge
        {
            self.judge(&judge, dc, dd);
        }
        self.fit.add(delta(p.display, first.display), delta(p.content, first.content));
        self.deltas.add(dc, dd);
        let interval = dd.unsigned_abs();
        self.median.push(interval);
        self.intervals.add(interval);
        self.present.add(interval);
        self.last = p;
        if index < WARMUP_LEN {
            self.warmup[index] = p;
            if index + 1 == WARMUP_LEN {
                self.judge_warmup();
            }
        }
        if index + 1 >= WARMUP_LEN {
            self.next_judge = Judge::new(self.fit.slope_f64(), self.median.median().map(nanos_as_f64), self.period);
        }
    }

    fn judge(&mut self, judge: &Judge, dc: i64, dd: i64) {
        let error = judge.error(dc, dd);
        let size = judge.size(error, dd);
        // Whole nanoseconds, rounded half up (`f64::round` is a libm call).
        self.errors.add((error.abs() + 0.5) as u64);
        self.hitches += u64::from(judge.is_hitch(size));
        self.max_hitch = Some(self.max_hitch.map_or(size, |m| m.max(size)));
    }

    fn judge_warmup(&mut self) {
        let warmup = self.warmup;
        if let Some(judge) = judge_of(&warmup, self.refresh) {
            for w in warmup.windows(2) {
                self.judge(&judge, delta(w[1].content, w[0].content), delta(w[1].display, w[0].display));
            }
        }
    }

    pub(crate) fn present_histogram(&self) -> &PresentHistogram {
        &self.present
    }

    /// The statistics of the last [`RECENT_LEN`] frames, by [`batch`].
    pub(crate) fn recent(&self) -> FrameStats {
        let mut points = [Point::default(); RECENT_LEN];
        let n = self.recent.copy_to(&mut points);
        batch(&points[..n], self.refresh)
    }

    /// The statistics of the whole run: [`batch`] within the warm-up, else online.
    pub(crate) fn stats(&self) -> FrameStats {
        let Some(first) = self.first else {
            return FrameStats::EMPTY;
        };
        if self.frames as usize <= WARMUP_LEN {
            return batch(&self.warmup[..self.frames as usize], self.refresh);
        }
        let slope = self.fit.slope();
        FrameStats {
            startup_ms: f64::NAN,
            speed_ratio: slope.unwrap_or(f64::NAN),
            drift_ms_per_min: drift(slope),
            judder_ms: opt_ms(self.deltas.judder_rms(slope)),
            judder_p99_ms: opt_ms(self.errors.percentile(99)),
            hitches: self.hitches,
            max_hitch_ms: opt_ms(self.max_hitch),
            hitches_per_min: per_minute(self.hitches, self.last.display - first.display),
            latency_ms: ms(self.latency_sum as f64 / self.frames as f64),
            latency_p95_ms: opt_ms(self.latencies.percentile(95)),
            latency_max_ms: ms(self.latency_max as f64),
            present_interval_mean_ms: opt_ms(self.deltas.interval_mean()),
            present_interval_std_ms: opt_ms(self.deltas.interval_std()),
            present_interval_p99_ms: opt_ms(self.intervals.percentile(99)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_judder_of_delta_sums_is_the_rms_of_j_for_any_slope() {
        let mut sums = DeltaSums::default();
        let deltas = [(16, 16), (32, 16), (0, 16), (16, 17)];
        for (dc, dd) in deltas {
            sums.add(dc, dd);
        }
        for slope in [0.5, 1.0, 2.4] {
            let rms = (deltas.iter().map(|&(c, d)| (c as f64 - slope * d as f64).powi(2)).sum::<f64>() / 4.0).sqrt();
            let from_sums = sums.judder_rms(Some(slope)).expect("frames");
            assert!((from_sums - rms).abs() < 1e-12, "slope {slope}: {from_sums} vs {rms}");
        }
    }
}
