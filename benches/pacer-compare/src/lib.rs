//! What the benchmark and the allocation test share: the synthetic clock's
//! frame interval, the trivial game state, and one frame through
//! [`Pacer`]'s front door, so the test counts the allocations of exactly the
//! code the benchmark times.
//!
//! ```text
//!   frame k starts at  start + k × 16.67 ms      (exact integer nanoseconds)
//!   Pacer:             advance → steps → blend → presented → finish
//!   Time<Fixed>:       accumulate_overstep(now - last) → expend loop → overstep_fraction
//!   GameLoop:          next_frame (accumulate → update loop → blending_factor → render)
//! ```
//!
//! The frame interval is a little longer than the 60 Hz tick (16.666… ms), so
//! most frames run one step and about one in 5 000 runs none: the same
//! alpha-varying steady state every loop sees on a display near the tick rate.

use std::time::Duration;

use timestep_core::{Instant, Pacer};

/// The synthetic clock's frame interval: 16.67 ms, a 60 Hz display.
pub const FRAME: Duration = Duration::from_nanos(16_670_000);

/// The fixed-step rate every loop runs, in updates a second.
pub const TICK_HZ: u32 = 60;

/// The game state: a position that moves one unit a second, and where it was a step ago.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ball {
    /// The position one step ago, where an interpolated picture starts.
    pub previous: f64,
    /// The position now.
    pub position: f64,
}

impl Ball {
    /// One fixed step of `dt` seconds.
    pub fn update(&mut self, dt: f64) {
        self.previous = self.position;
        self.position += dt;
    }

    /// The picture between the last two states by `alpha` (0: the previous, 1: the current).
    pub fn blend(&self, alpha: f64) -> f64 {
        self.previous + (self.position - self.previous) * alpha
    }
}

/// One frame through the pacer at `now`: advance, run the steps, draw the
/// blended position, report the present and finish. Returns what was drawn.
pub fn pacer_frame(pacer: &mut Pacer, ball: &mut Ball, now: Instant) -> f64 {
    let frame = pacer.advance(now);
    frame.updates().for_each(|dt| ball.update(dt.as_secs_f64()));
    let drawn = frame.blend(ball.previous, ball.position);
    // `interpolated` runs no steps after the present; the loop is there for
    // a strategy that does, as a game's would be.
    pacer.presented(now).for_each(|dt| ball.update(dt.as_secs_f64()));
    // Vsync is assumed (the default), so an interpolated pacer asks no wait.
    let _wake = pacer.finish(now);
    drawn
}
