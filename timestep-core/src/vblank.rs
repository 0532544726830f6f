//! The vblank grid: when a display's refreshes happen, with one rounding rule.
//!
//! Refresh `k` of a display at `rate` happens at the exact instant
//! `origin + k / rate`. Clocks are whole nanoseconds, so the grid time of
//! refresh `k` is the first nanosecond at or after that instant
//! (`origin + ceil(k / rate)`), and a frame that is ready at time `t` is shown
//! at the first refresh whose grid time is at or after `t`: a frame ready
//! exactly on a refresh makes it (the article's "a time exactly on a boundary
//! waits 0").
//!
//! ```text
//!   exact:   0        16.6666…       33.3333…      50        (60 Hz, ms)
//!   grid:    |0        |16.666667     |33.333334    |50.000000
//!   ready:        ^ 5 ms → shown at 1      ^ 33.333334 → shown at 2 (at, not after)
//! ```
//!
//! The virtual monitor's displays and the window's emulated refresh
//! ([`EmulatedVsync`]) both count refreshes with this grid, and the metrics
//! number refreshes with [`VblankGrid::nearest`] (Glaiel's `round(t · Hz)`),
//! which maps every grid time back to its own index.

use crate::rng::SplitMix64;
use crate::time::{Nanos, Rate};
use crate::vrr::{VrrPanel, VrrRange};

/// The refreshes of a display at `rate`, counted from `origin`.
///
/// ```
/// use timestep_core::Rate;
/// use timestep_core::vblank::VblankGrid;
/// let grid = VblankGrid::new(Rate::new(60000, 1001).unwrap(), 1_000);
/// assert_eq!(grid.time_of(1), 1_000 + 16_683_334, "59.94 Hz, rounded up to the nanosecond");
/// assert_eq!(grid.first_at_or_after(2_000), (1, 16_684_334));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VblankGrid {
    rate: Rate,
    origin: Nanos,
}

impl VblankGrid {
    /// A grid at `rate` whose refresh 0 is at clock time `origin`.
    pub const fn new(rate: Rate, origin: Nanos) -> VblankGrid {
        VblankGrid { rate, origin }
    }

    /// The refresh rate.
    pub const fn rate(&self) -> Rate {
        self.rate
    }

    /// The grid time of refresh `k`: the first nanosecond at or after its exact instant.
    pub fn time_of(&self, k: u64) -> Nanos {
        self.origin.saturating_add(self.rate.tick_time_ceil(k))
    }

    /// The first refresh whose grid time is at or after `t`.
    pub fn at_or_after(&self, t: Nanos) -> u64 {
        self.first_at_or_after(t).0
    }

    /// [`VblankGrid::at_or_after`] and its grid time, which it computes on
    /// the way: a present asks for both, and each costs a division.
    pub fn first_at_or_after(&self, t: Nanos) -> (u64, Nanos) {
        let since = t.saturating_sub(self.origin);
        // `ticks_in` floors against the floored tick times; at most one step off the ceiled ones.
        let k = self.rate.ticks_in(since);
        let time = self.time_of(k);
        if time >= t { (k, time) } else { (k + 1, self.time_of(k + 1)) }
    }

    /// The refresh nearest to `t` (ties round up): the article's `round(t · Hz)`.
    pub fn nearest(&self, t: Nanos) -> u64 {
        self.rate.nearest_tick(t.saturating_sub(self.origin))
    }
}

/// One refresh an emulated present is shown at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Vblank {
    /// Index on the grid.
    pub index: u64,
    /// The grid time: the frame's display time.
    pub time: Nanos,
    /// When to actually present: the grid time plus the wake-up jitter.
    pub wake: Nanos,
}

/// A vsync for displays without one (an emulated refresh): presents wait for
/// the next point of a [`VblankGrid`], one frame queued at most.
///
/// A frame ready at `t` is shown at the first refresh at or after `t` and
/// after the previous frame's refresh (two presents never share a refresh).
/// The wake-up jitter (seeded, uniform in ±`jitter`) models a compositor's
/// vsync noise; the display time stays the exact grid time.
///
/// ```
/// use timestep_core::Rate;
/// use timestep_core::vblank::{EmulatedVsync, VblankGrid};
/// let mut vsync = EmulatedVsync::new(VblankGrid::new(Rate::from_hz(50), 0), 0, 7);
/// assert_eq!(vsync.next(5_000_000).time, 20_000_000, "ready at 5 ms, shown at the 20 ms refresh");
/// assert_eq!(vsync.next(5_000_000).time, 40_000_000, "two presents never share a refresh");
/// ```
///
/// As a VRR gate ([`EmulatedVsync::vrr`]) a frame ready at `t` is shown when
/// a [`VrrPanel`] of the range would start scanning it out: at once within
/// the range, no sooner than `1/max` after the last, after a self-refresh
/// it meets (see [`crate::vrr`]); its index counts scanouts, repeats included.
///
/// ```
/// use timestep_core::vblank::EmulatedVsync;
/// let mut gate = EmulatedVsync::vrr("vrr:48-144".parse().unwrap(), 0, 7);
/// assert_eq!(gate.next(5_000_000).time, 5_000_000, "shown when ready");
/// assert_eq!(gate.next(6_000_000).time, 11_944_445, "no sooner than 1/144 s after the last");
/// ```
#[derive(Clone, Debug)]
pub struct EmulatedVsync {
    grid: VblankGrid,
    /// The VRR panel that replaces the grid, for a VRR gate.
    gate: Option<VrrPanel>,
    jitter: Nanos,
    last: Option<u64>,
    rng: SplitMix64,
}

impl EmulatedVsync {
    /// Presents paced by `grid`, waking within ±`jitter` of each refresh
    /// (random but reproducible from `seed`).
    pub fn new(grid: VblankGrid, jitter: Nanos, seed: u64) -> EmulatedVsync {
        EmulatedVsync { grid, gate: None, jitter, last: None, rng: SplitMix64::new(seed) }
    }

    /// A VRR gate for `range` instead of a grid (`--emulate-refresh vrr:48-144`),
    /// waking within ±`jitter` of each frame's scanout.
    pub fn vrr(range: VrrRange, jitter: Nanos, seed: u64) -> EmulatedVsync {
        let grid = VblankGrid::new(range.max(), 0);
        EmulatedVsync { grid, gate: Some(VrrPanel::new(range)), jitter, last: None, rng: SplitMix64::new(seed) }
    }

    /// The VRR range of a VRR gate; `None` for a grid.
    pub fn vrr_range(&self) -> Option<VrrRange> {
        self.gate.as_ref().map(VrrPanel::range)
    }

    /// When a frame ready at `now` would be shown, without taking it.
    pub fn peek_time(&self, now: Nanos) -> Nanos {
        match &self.gate {
            Some(gate) => gate.clone().show(now),
            None => self.grid.time_of(self.peek(now)),
        }
    }

    /// The self-refreshes before the latest frame a VRR gate showed (0 on a grid,
    /// whose skipped refreshes the metrics count from the grid).
    pub fn repeats(&self) -> u32 {
        self.gate.as_ref().map_or(0, VrrPanel::repeats)
    }

    /// The grid.
    pub fn grid(&self) -> &VblankGrid {
        &self.grid
    }

    /// The emulated refresh rate.
    pub fn rate(&self) -> Rate {
        self.grid.rate()
    }

    /// The wake-up jitter bound.
    pub fn jitter(&self) -> Nanos {
        self.jitter
    }

    /// The refresh a frame ready at `now` would be shown at, without taking it.
    pub fn peek(&self, now: Nanos) -> u64 {
        let k = self.grid.at_or_after(now);
        self.last.map_or(k, |last| k.max(last + 1))
    }

    /// Takes the refresh a frame ready at `now` is shown at.
    pub fn next(&mut self, now: Nanos) -> Vblank {
        let (index, time) = match &mut self.gate {
            Some(gate) => {
                let time = gate.show(now);
                let index = self.last.map_or(0, |last| last + 1 + u64::from(gate.repeats()));
                (index, time)
            }
            None => {
                let index = self.peek(now);
                (index, self.grid.time_of(index))
            }
        };
        self.last = Some(index);
        let wake = if self.jitter == 0 {
            time
        } else {
            let offset = self.rng.below(self.jitter.saturating_mul(2).saturating_add(1));
            time.saturating_add(offset).saturating_sub(self.jitter)
        };
        Vblank { index, time, wake }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn grid_times_are_the_first_nanosecond_at_or_after_the_exact_instant() {
        let grid = VblankGrid::new(Rate::from_hz(60), 0);
        assert_eq!(grid.time_of(1), 16_666_667, "1/60 s = 16 666 666.67 ns, ceiled");
        assert_eq!(grid.time_of(3), 50_000_000, "exact instants stay exact");
        let offset = VblankGrid::new(Rate::from_hz(60), 1_000);
        assert_eq!(offset.time_of(1), 1_000 + 16_666_667);
    }

    #[test]
    fn a_frame_ready_exactly_on_a_refresh_makes_it() {
        let grid = VblankGrid::new(Rate::from_hz(60), 0);
        assert_eq!(grid.at_or_after(16_666_667), 1);
        assert_eq!(grid.at_or_after(16_666_668), 2);
        assert_eq!(grid.at_or_after(16_666_666), 1);
        assert_eq!(grid.at_or_after(0), 0);
    }

    #[test]
    fn at_or_after_is_exact_on_every_ntsc_refresh_for_an_hour() {
        let grid = VblankGrid::new(Rate::new(60000, 1001).expect("valid rate"), 0);
        for k in (0..215_784).step_by(997) {
            let t = grid.time_of(k);
            assert_eq!(grid.at_or_after(t), k, "refresh {k} at {t}");
            assert_eq!(grid.at_or_after(t + 1), k + 1, "just after refresh {k}");
            assert_eq!(grid.nearest(t), k, "round(t · Hz) of refresh {k}");
        }
        // 3600 s × 60000/1001 Hz = 215784.2…; refresh 215784 is at 215784·1001/60000 s, exact.
        assert_eq!(grid.time_of(215_784), 3_599_996_400_000);
    }

    #[test]
    fn an_emulated_frame_is_shown_at_the_first_refresh_at_or_after_it_is_ready() {
        let mut vsync = EmulatedVsync::new(VblankGrid::new(Rate::from_hz(60), 1_000), 0, 1);
        let v = vsync.next(1_000 + 5_000_000);
        assert_eq!(v, Vblank { index: 1, time: 1_000 + 16_666_667, wake: 1_000 + 16_666_667 });
        let v = vsync.next(1_000 + 40_000_000);
        assert_eq!(v.index, 3, "a slow frame misses refresh 2");
        assert_eq!(v.time, 1_000 + 50_000_000, "refresh 3 of 60 Hz is exactly 50 ms");
    }

    #[test]
    fn two_emulated_presents_never_share_a_refresh() {
        let mut vsync = EmulatedVsync::new(VblankGrid::new(Rate::from_hz(60), 0), 0, 1);
        assert_eq!(vsync.next(1).index, 1);
        assert_eq!(vsync.peek(1), 2, "peeking shows where the next frame would go");
        assert_eq!(vsync.next(1).index, 2, "the second frame queues behind the first");
    }

    #[test]
    fn emulated_jitter_stays_within_its_bound_and_is_reproducible() {
        let make = || EmulatedVsync::new(VblankGrid::new(Rate::from_hz(144), 0), 200_000, 42);
        let (mut a, mut b) = (make(), make());
        let mut spread = 0;
        for now in (0..1_000_000_000).step_by(7_000_000) {
            let (va, vb) = (a.next(now), b.next(now));
            assert_eq!(va, vb, "same seed, same jitter");
            assert!(va.wake.abs_diff(va.time) <= 200_000, "wake {} vs grid {}", va.wake, va.time);
            spread = spread.max(va.wake.abs_diff(va.time));
        }
        assert!(spread > 100_000, "the jitter is used, not zero (largest offset {spread} ns)");
    }
}
