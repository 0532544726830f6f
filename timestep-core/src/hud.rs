//! The loop's figures a HUD shows: plain data a [`Session`](crate::session::Session)
//! fills in each frame ([`LoopFigures`]).
//!
//! The session owns the measurements; a HUD only draws them. Keeping this a plain struct
//! with no GUI types means a game's HUD and tests can fill and read it without a GPU
//! or a window. What else a HUD shows (CPU, GPU, sprites, help) is the game's own.
//!
//! Frame intervals live in a [`FrameTimeRing`]: a bounded window of the last few seconds that
//! never allocates once it has filled up.
//!
//! ```text
//!   oldest                                   newest
//!   |--16.7--|--16.7--|--33.3--|--16.7--| ... |--16.7--|
//!   <------------------ span <= window ------------------>
//! ```

use std::collections::VecDeque;
use std::time::Duration;

use crate::metrics::{FrameStats, PresentHistogram};

/// How far back the frame-time plot looks.
pub const FRAME_TIME_WINDOW: Duration = Duration::from_secs(5);

/// Most intervals kept, whatever the frame rate: 5 s at ~800 fps. Beyond that (vsync off on a
/// fast machine) the ring covers less than [`FRAME_TIME_WINDOW`], which keeps both the memory and
/// the plot's cost bounded.
pub const FRAME_TIME_CAPACITY: usize = 4096;

/// Recent frame intervals: at most `capacity` entries spanning at most `window`.
///
/// Intervals are kept as [`Duration`]s so the running span is exact integer arithmetic; the
/// millisecond floats the plot needs are computed when read.
#[derive(Debug, Clone)]
pub struct FrameTimeRing {
    intervals: VecDeque<Duration>,
    span: Duration,
    window: Duration,
    capacity: usize,
}

impl FrameTimeRing {
    /// An empty ring holding up to `capacity` intervals that together span at most `window`.
    /// Allocates its storage once, here.
    pub fn new(window: Duration, capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self { intervals: VecDeque::with_capacity(capacity), span: Duration::ZERO, window, capacity }
    }

    /// Appends the newest interval, dropping the oldest ones that fall out of the window or
    /// exceed the capacity. Never allocates.
    pub fn push(&mut self, interval: Duration) {
        while self.intervals.len() >= self.capacity
            || (!self.intervals.is_empty() && self.span + interval > self.window)
        {
            let Some(oldest) = self.intervals.pop_front() else { break };
            self.span -= oldest;
        }
        self.intervals.push_back(interval);
        self.span += interval;
    }

    /// Forgets every interval (e.g. when the strategy changes), keeping the storage.
    pub fn clear(&mut self) {
        self.intervals.clear();
        self.span = Duration::ZERO;
    }

    /// Number of intervals held.
    pub fn len(&self) -> usize {
        self.intervals.len()
    }

    /// True when no interval has been pushed since creation or the last [`Self::clear`].
    pub fn is_empty(&self) -> bool {
        self.intervals.is_empty()
    }

    /// Sum of the intervals held: how much wall time the ring covers.
    pub fn span(&self) -> Duration {
        self.span
    }

    /// Time window the ring was created with.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// Most intervals the ring holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The newest interval, if any.
    pub fn latest(&self) -> Option<Duration> {
        self.intervals.back().copied()
    }

    /// The longest interval held, if any.
    pub fn max(&self) -> Option<Duration> {
        self.intervals.iter().copied().max()
    }

    /// Intervals from oldest to newest.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Duration> + ExactSizeIterator + '_ {
        self.intervals.iter().copied()
    }

    /// Intervals from oldest to newest, in milliseconds.
    pub fn iter_ms(&self) -> impl DoubleEndedIterator<Item = f64> + ExactSizeIterator + '_ {
        self.intervals.iter().map(|d| d.as_secs_f64() * 1e3)
    }
}

impl Default for FrameTimeRing {
    fn default() -> Self {
        Self::new(FRAME_TIME_WINDOW, FRAME_TIME_CAPACITY)
    }
}

/// Every figure of the loop a HUD shows, filled by
/// [`Session::fill_hud`](crate::session::Session::fill_hud); the HUD never changes them.
#[derive(Debug, Clone)]
pub struct LoopFigures {
    /// Strategy id as it parses, e.g. `"catch-up"`.
    pub strategy_name: &'static str,
    /// One-line explanation of what the strategy does.
    pub strategy_summary: &'static str,
    /// Where the strategy comes from (the article, engine or post it is seeded from).
    pub strategy_source: &'static str,
    /// Live status, e.g. the reason `auto` picked its current mode; empty when there is none.
    pub strategy_status: String,
    /// Simulation ticks per second.
    pub tick_rate_hz: f64,
    /// Present mode asked for (`Fifo`, `Mailbox`, `Immediate`, `auto`).
    pub present_mode_requested: String,
    /// Present mode the surface is actually configured with.
    pub present_mode_actual: String,
    /// Name of the monitor the window is on.
    pub monitor_name: String,
    /// Refresh rate the display reports for that monitor, if it reports one.
    pub reported_refresh_hz: Option<f64>,
    /// Refresh rate measured from present timestamps, once enough frames were seen.
    pub present_cadence_hz: Option<f64>,
    /// One sentence on whether vsync is really in effect, e.g.
    /// `"Fifo requested, frames every 2.0 ms: vsync not in effect"`.
    pub vsync_verdict: String,
    /// The emulated refresh rate when one paces presents; `None` when off.
    pub emulated_refresh_hz: Option<f64>,
    /// Displayed frames per second.
    pub fps: f64,
    /// Simulation updates per second.
    pub ups: f64,
    /// Intervals between recent frames (last [`FRAME_TIME_WINDOW`]).
    pub frame_times_ms: FrameTimeRing,
    /// Updates shown per displayed refresh over the last 120 refreshes, oldest first, as
    /// `crate::metrics` writes it: `0`–`9`, `+` for ten or more, e.g. `"1111211110"`.
    pub pattern: String,
    /// Frames that ran two or more updates.
    pub double_updates: u64,
    /// Refreshes that showed no new frame.
    pub skipped_renders: u64,
    /// Frames that ran no update (the same picture drawn again).
    pub repeated_frames: u64,
    /// Start-up, speed (`speed_ratio`, `drift_ms_per_min`), judder, hitches, latency and present
    /// pacing since the setting last changed, as [`crate::metrics`] defines them: for a run with
    /// one setting, exactly the figures of its [`crate::report::RunReport`].
    pub stats: FrameStats,
    /// Present intervals since the setting last changed, in 0.25 ms bins.
    pub present_histogram: PresentHistogram,
    /// The simulation is paused.
    pub paused: bool,
    /// Where the display times behind these figures come from.
    pub display_time_source: crate::feedback::DisplayTimeSource,
}

impl Default for LoopFigures {
    fn default() -> Self {
        Self {
            strategy_name: "",
            strategy_summary: "",
            strategy_source: "",
            strategy_status: String::new(),
            tick_rate_hz: 0.0,
            present_mode_requested: String::new(),
            present_mode_actual: String::new(),
            monitor_name: String::new(),
            reported_refresh_hz: None,
            present_cadence_hz: None,
            vsync_verdict: String::new(),
            emulated_refresh_hz: None,
            fps: 0.0,
            ups: 0.0,
            frame_times_ms: FrameTimeRing::default(),
            pattern: String::new(),
            double_updates: 0,
            skipped_renders: 0,
            repeated_frames: 0,
            stats: FrameStats::EMPTY,
            present_histogram: PresentHistogram::new(),
            paused: false,
            display_time_source: crate::feedback::DisplayTimeSource::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn ring_drops_the_oldest_intervals_once_the_window_is_full() {
        let mut ring = FrameTimeRing::new(Duration::from_millis(100), 1000);
        for _ in 0..10 {
            ring.push(10 * MS);
        }
        assert_eq!(ring.len(), 10, "ten 10 ms frames fill a 100 ms window exactly");
        assert_eq!(ring.span(), 100 * MS);

        ring.push(25 * MS);
        assert_eq!(ring.span(), 95 * MS, "three 10 ms frames made room for one 25 ms frame");
        assert_eq!(ring.len(), 8);
        assert_eq!(ring.latest(), Some(25 * MS));
        assert_eq!(ring.max(), Some(25 * MS));
    }

    #[test]
    fn ring_never_exceeds_its_capacity_at_high_frame_rates() {
        let mut ring = FrameTimeRing::new(Duration::from_secs(5), 64);
        for _ in 0..1000 {
            ring.push(Duration::from_micros(100));
        }
        assert_eq!(ring.len(), 64, "capacity bounds the ring when the window is not the limit");
        assert_eq!(ring.span(), Duration::from_micros(6400), "span is exact integer time");
    }

    #[test]
    fn ring_push_does_not_reallocate_in_steady_state() {
        let mut ring = FrameTimeRing::new(Duration::from_secs(5), 256);
        let storage = ring.intervals.capacity();
        for i in 0..10_000u64 {
            ring.push(Duration::from_micros(500 + (i % 7) * 3000));
        }
        assert_eq!(ring.intervals.capacity(), storage, "the deque kept its first allocation");
    }

    #[test]
    fn ring_keeps_one_interval_longer_than_the_window() {
        let mut ring = FrameTimeRing::new(Duration::from_millis(100), 16);
        ring.push(10 * MS);
        ring.push(Duration::from_secs(1));
        assert_eq!(ring.len(), 1, "a hitch longer than the window still shows up");
        assert_eq!(ring.latest(), Some(Duration::from_secs(1)));
    }

    #[test]
    fn ring_reads_back_in_milliseconds_oldest_first() {
        let mut ring = FrameTimeRing::default();
        ring.push(Duration::from_micros(16_667));
        ring.push(Duration::from_micros(33_333));
        let ms: Vec<f64> = ring.iter_ms().collect();
        assert_eq!(ms.len(), 2);
        assert!((ms[0] - 16.667).abs() < 1e-9 && (ms[1] - 33.333).abs() < 1e-9, "got {ms:?}");
        ring.clear();
        assert!(ring.is_empty() && ring.span() == Duration::ZERO);
    }
}
