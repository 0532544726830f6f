//! The screen's refresh from a frame clock's timestamps (a browser's
//! requestAnimationFrame), not from the frames a page managed to draw.
//!
//! A browser stamps each animation frame with the start of its refresh, so
//! the stamps lie on the screen's grid even when the page misses refreshes:
//! every interval is a whole number of periods. A page that cannot keep up
//! sees 2P, 3P, … and only sometimes P; the period is what all of them are
//! multiples of (TestUFO's filter does the same: missed frames are ignored,
//! not averaged in).
//!
//! ```text
//!   stamps     |     |           |     |                 |     |
//!   intervals   16.7     33.3     16.7        50.0        16.7        (ms)
//!   k           1        2        1           3           1      ─► P = Σ interval / Σ k = 16.67 ms
//! ```
//!
//! Once found, the period is kept while the intervals stay multiples of it,
//! so a page that later misses most refreshes (3P, 4P, 3P …) still reports
//! the screen's rate. A screen of a rate whose period is a multiple of the
//! known one (120 Hz → 60 Hz) would pass for a slow page: a browser says
//! nothing else to tell them apart.

use std::collections::VecDeque;

/// Intervals kept: four seconds at 60 Hz.
const WINDOW: usize = 240;

/// An interval longer than this says nothing about the screen (a hidden
/// page, a stall): requestAnimationFrame stops in a background tab.
pub const STALE_MS: f64 = 100.0;

/// Intervals needed before a period is named: half a second at 60 Hz.
const MIN_INTERVALS: usize = 30;

/// How far from a multiple of the period an interval may be (a fraction of
/// the period): headless Chromium's stamps vary by σ 0.055 ms at 60 Hz, a
/// browser without cross-origin isolation rounds them to 0.1 ms; Firefox and
/// Safari to about 1 ms (6 % of a 60 Hz period).
const JITTER: f64 = 0.1;

/// How many of the shortest intervals are tried as the period.
const CANDIDATES: usize = 4;

/// Share of the intervals that must be multiples of a period for it to hold.
const AGREEING: f64 = 0.9;

/// Shortest plausible period, ms: a 500 Hz screen. Shorter intervals are two
/// callbacks of one frame, not two frames.
const SHORTEST_MS: f64 = 2.0;

/// A frame clock's recent stamps and the screen period they show.
#[derive(Clone, Debug, Default)]
pub struct FrameClock {
    last: Option<f64>,
    intervals: VecDeque<f64>,
    period_ms: Option<f64>,
    stamps: u64,
}

impl FrameClock {
    /// Takes the stamp of an animation frame, ms on the page's clock.
    pub fn record(&mut self, stamp_ms: f64) {
        if !stamp_ms.is_finite() {
            return;
        }
        self.stamps += 1;
        if let Some(last) = self.last.replace(stamp_ms) {
            let interval = stamp_ms - last;
            if (SHORTEST_MS..STALE_MS).contains(&interval) {
                if self.intervals.len() == WINDOW {
                    self.intervals.pop_front();
                }
                self.intervals.push_back(interval);
                self.estimate();
            }
        }
    }

    /// The last stamp, ms.
    pub fn last_stamp(&self) -> Option<f64> {
        self.last
    }

    /// The last interval between stamps, ms (`None` across a gap).
    pub fn last_interval(&self) -> Option<f64> {
        self.intervals.back().copied()
    }

    /// The screen's refresh period, ms, once enough intervals agree on one.
    pub fn period_ms(&self) -> Option<f64> {
        self.period_ms
    }

    /// The screen's refresh rate, Hz.
    pub fn refresh_hz(&self) -> Option<f64> {
        self.period_ms.map(|p| 1000.0 / p)
    }

    fn estimate(&mut self) {
        if self.intervals.len() < MIN_INTERVALS {
            return;
        }
        if let Some(known) = self.period_ms.and_then(|p| fit(&self.intervals, p)) {
            self.period_ms = Some(known);
            return;
        }
        let mut sorted: Vec<f64> = self.intervals.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        // The shortest interval the others are multiples of: an odd short one (two
        // callbacks in one frame) fits nothing, and the next shortest is tried.
        if let Some(found) = sorted.iter().take(CANDIDATES).find_map(|&guess| fit(&self.intervals, guess)) {
            self.period_ms = Some(found);
        }
    }
}

/// The period the intervals are whole multiples of, near `guess`: Σ interval
/// / Σ multiple over those within [`JITTER`]; `None` unless [`AGREEING`] of them are.
fn fit(intervals: &VecDeque<f64>, guess: f64) -> Option<f64> {
    let (mut sum, mut periods, mut kept) = (0.0, 0.0, 0usize);
    for &interval in intervals {
        let k = (interval / guess).round().max(1.0);
        if (interval - k * guess).abs() <= JITTER * guess {
            sum += interval;
            periods += k;
            kept += 1;
        }
    }
    let enough = kept >= MIN_INTERVALS && kept as f64 >= AGREEING * intervals.len() as f64;
    (enough && periods > 0.0).then(|| sum / periods)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_of(intervals: impl IntoIterator<Item = f64>) -> FrameClock {
        let mut clock = FrameClock::default();
        let mut t = 1000.0;
        clock.record(t);
        for i in intervals {
            t += i;
            clock.record(t);
        }
        clock
    }

    const P60: f64 = 1000.0 / 60.0;

    #[test]
    fn a_page_that_draws_every_refresh_gives_the_screen_s_period() {
        let clock = clock_of(std::iter::repeat_n(P60, 60));
        let period = clock.period_ms().expect("sixty intervals");
        assert!((period - P60).abs() < 1e-9, "{period}");
        assert!((clock.refresh_hz().unwrap_or(0.0) - 60.0).abs() < 1e-9);
    }

    #[test]
    fn too_few_intervals_name_no_period() {
        assert_eq!(clock_of(std::iter::repeat_n(P60, MIN_INTERVALS - 1)).period_ms(), None);
    }

    #[test]
    fn missed_refreshes_are_multiples_not_a_slower_screen() {
        // A page that draws every 3rd or 4th refresh, and caught one in a row only twice.
        let mut intervals: Vec<f64> = (0..60).map(|i| if i % 2 == 0 { 3.0 * P60 } else { 4.0 * P60 }).collect();
        intervals[10] = P60;
        intervals[40] = P60;
        intervals[20] = 2.0 * P60;
        let hz = clock_of(intervals).refresh_hz().expect("a period");
        assert!((hz - 60.0).abs() < 1e-6, "the screen's 60 Hz, not the page's ~17 fps: {hz}");
    }

    #[test]
    fn a_period_once_found_holds_while_the_page_falls_behind_on_every_refresh() {
        let mut intervals = vec![P60; 40];
        intervals.extend(std::iter::repeat_n(4.0 * P60, WINDOW));
        let hz = clock_of(intervals).refresh_hz().expect("a period");
        assert!((hz - 60.0).abs() < 1e-6, "still the screen's 60 Hz: {hz}");
    }

    #[test]
    fn another_screen_whose_period_is_no_multiple_is_followed() {
        let mut intervals = vec![P60; 60];
        intervals.extend(std::iter::repeat_n(1000.0 / 144.0, WINDOW));
        let hz = clock_of(intervals).refresh_hz().expect("a period");
        assert!((hz - 144.0).abs() < 1e-6, "the new screen's 144 Hz: {hz}");
    }

    #[test]
    fn jittered_stamps_and_a_hidden_gap_still_give_the_period_within_a_hundredth_of_a_percent() {
        // ±0.1 ms rounding (no cross-origin isolation), and 5 s hidden in the middle.
        let mut intervals: Vec<f64> = (0..120).map(|i| P60 + [0.1, -0.1, 0.05, -0.05][i % 4]).collect();
        intervals.insert(60, 5000.0);
        let clock = clock_of(intervals);
        let hz = clock.refresh_hz().expect("a period");
        assert!((hz - 60.0).abs() < 0.006, "{hz}");
        assert!(clock.last_interval().is_some_and(|i| i < STALE_MS), "the gap is not an interval");
        assert!(clock.last_stamp().is_some_and(|t| t > 5000.0), "the last stamp is after the gap");
    }

    #[test]
    fn noise_that_is_no_multiple_of_anything_names_no_period() {
        let intervals = (0..100).map(|i| 10.0 + f64::from(i % 7) * 3.3);
        assert_eq!(clock_of(intervals).period_ms(), None);
    }
}
