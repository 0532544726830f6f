//! bevy_time's frame once its delta is in, for the bench (`benches/frame.rs`)
//! and the profiler's loop (`examples/frames.rs`): one definition of the work.

use bevy_time::{Fixed, Time};
use pacer_compare::Ball;

/// A bevy_time frame after its delta is in: `Time<Fixed>::expend`, which
/// bevy's schedule runner calls in a loop (private, so written out with the
/// public calls it makes), each step's update, and the blended picture.
#[inline(always)]
pub(crate) fn bevy_steps_and_blend(time: &mut Time<Fixed>, ball: &mut Ball) -> f64 {
    let step = time.timestep();
    while time.overstep() >= step {
        time.discard_overstep(step);
        time.advance_by(step);
        ball.update(time.delta().as_secs_f64());
    }
    ball.blend(f64::from(time.overstep_fraction()))
}
