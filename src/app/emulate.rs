//! `--emulate-refresh`: a virtual vblank grid for displays without vsync.
//!
//! Xvfb, VRR panels and vsync-off drivers present whenever asked, so the
//! classic vsync artefacts (the 59.94 Hz double update, 144 Hz judder) never
//! show. With emulation on, the window presents over a non-blocking mode and
//! the host's `present()` waits for the next point of an exact grid first:
//!
//! ```text
//!   t_k = origin + rate.tick_time(k)          (exact, no accumulated rounding)
//!
//!   frame ready ──┐       wake = t_k ± jitter
//!                 v       v
//!   ──|───────────|───────|──────────|────   grid at 60000/1001 Hz
//!    t_{k-1}             t_k        t_{k+1}
//! ```
//!
//! A present is shown at the first grid point after the frame is ready and
//! after the previous present's grid point (one frame queued, the article's
//! model); `present()` reports `t_k` as the display time. The optional
//! jitter (seeded, uniform in ±N µs) models the vsync wake-up noise of a real
//! compositor.

use crate::rng::SplitMix64;
use crate::time::{Nanos, Rate};

/// One vblank the emulation presents at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vblank {
    /// Index on the grid (0 at the origin).
    pub index: u64,
    /// The exact grid time: what the frame's display time is.
    pub time: Nanos,
    /// When to actually present: the grid time plus jitter.
    pub wake: Nanos,
}

/// The virtual vblank grid and its jitter generator.
#[derive(Clone, Debug)]
pub struct VblankGrid {
    rate: Rate,
    origin: Nanos,
    jitter: Nanos,
    last: Option<u64>,
    rng: SplitMix64,
}

impl VblankGrid {
    /// A grid at `rate` starting at clock time `origin`, waking within
    /// ±`jitter` of each point (random but reproducible from `seed`).
    pub fn new(rate: Rate, origin: Nanos, jitter: Nanos, seed: u64) -> VblankGrid {
        VblankGrid { rate, origin, jitter, last: None, rng: SplitMix64::new(seed) }
    }

    /// The emulated refresh rate.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The grid's wake-up jitter bound.
    pub fn jitter(&self) -> Nanos {
        self.jitter
    }

    /// The index of the last vblank presented at, if any.
    pub fn last_index(&self) -> Option<u64> {
        self.last
    }

    /// The grid time of vblank `index`.
    pub fn time_of(&self, index: u64) -> Nanos {
        self.origin.saturating_add(self.rate.tick_time(index))
    }

    /// The vblank a frame ready at `now` is shown at: the first grid point
    /// strictly after `now` and after the previous present's point.
    pub fn next(&mut self, now: Nanos) -> Vblank {
        let after_now = self.rate.ticks_in(now.saturating_sub(self.origin)) + 1;
        let index = match self.last {
            Some(last) => after_now.max(last + 1),
            None => after_now,
        };
        self.last = Some(index);
        let time = self.time_of(index);
        let wake = if self.jitter == 0 {
            time
        } else {
            let span = self.jitter.saturating_mul(2).saturating_add(1);
            let offset = self.rng.below(span);
            (time + offset).saturating_sub(self.jitter)
        };
        Vblank { index, time, wake }
    }
}

/// Seeded randomness for the shell (load spikes, jitter) without a dependency.
#[derive(Clone, Copy, Debug)]
pub struct ShellRng(SplitMix64);

impl ShellRng {
    /// A generator reproducible from `seed`.
    pub fn new(seed: u64) -> ShellRng {
        ShellRng(SplitMix64::new(seed))
    }

    /// A uniform value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_shown_at_the_first_grid_point_after_it_is_ready() {
        let mut grid = VblankGrid::new(Rate::from_hz(60), 1_000, 0, 1);
        let v = grid.next(1_000 + 5_000_000);
        assert_eq!(v, Vblank { index: 1, time: 1_000 + 16_666_666, wake: 1_000 + 16_666_666 });
        let v = grid.next(1_000 + 40_000_000);
        assert_eq!(v.index, 3, "a slow frame misses vblank 2");
        assert_eq!(v.time, 1_000 + 50_000_000, "tick 3 of 60 Hz is exactly 50 ms");
    }

    #[test]
    fn a_frame_exactly_on_a_grid_point_waits_for_the_next_one() {
        let mut grid = VblankGrid::new(Rate::from_hz(60), 0, 0, 1);
        assert_eq!(grid.next(16_666_666).index, 2);
    }

    #[test]
    fn two_presents_never_share_a_vblank() {
        let mut grid = VblankGrid::new(Rate::from_hz(60), 0, 0, 1);
        assert_eq!(grid.next(0).index, 1);
        assert_eq!(grid.next(0).index, 2, "the second frame queues behind the first");
    }

    #[test]
    fn ntsc_grid_is_exact_after_an_hour() {
        let grid = VblankGrid::new(Rate::new(60000, 1001).unwrap(), 0, 0, 1);
        // 3600 s × 60000/1001 Hz = 215784.2… vblanks; vblank 215784 is at 215784·1001/60000 s.
        assert_eq!(grid.time_of(215_784), 3_599_996_400_000);
    }

    #[test]
    fn jitter_stays_within_its_bound_and_is_reproducible() {
        let make = || VblankGrid::new(Rate::from_hz(144), 0, 200_000, 42);
        let (mut a, mut b) = (make(), make());
        for now in (0..1_000_000_000).step_by(7_000_000) {
            let (va, vb) = (a.next(now), b.next(now));
            assert_eq!(va, vb, "same seed, same jitter");
            assert!(va.wake.abs_diff(va.time) <= 200_000, "wake {} vs grid {}", va.wake, va.time);
        }
    }
}
