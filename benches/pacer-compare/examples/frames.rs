//! The benchmark's frames in a plain loop, for a profiler: callgrind counts
//! their instructions whatever else the machine runs.
//!
//! ```sh
//! cargo build --release -p pacer-compare --example frames
//! valgrind --tool=callgrind --toggle-collect=pacer_compare::pacer_frame \
//!     target/release/examples/frames 100000 pacer
//! valgrind --tool=callgrind --toggle-collect=frames::bevy_frame \
//!     target/release/examples/frames 100000 bevy
//! ```
//! Instructions a frame: the total callgrind collects over the frames.

use std::hint::black_box;
use std::time::Duration;

use bevy_time::{Fixed, Time};
use pacer_compare::{Ball, FRAME, TICK_HZ, pacer_frame};
use timestep_core::{Instant, Pacer, Rate, StrategyId};

// bevy_time's frame after its delta, as the bench runs it.
#[path = "../shared/bevy_steps.rs"]
mod bevy_steps;
use bevy_steps::bevy_steps_and_blend;

/// One frame of `Time<Fixed>`, as `benches/frame.rs` runs it: the frame's
/// delta from the clock's `Instant`s, as `Time<Real>::update_with_instant`
/// takes it, then the fixed step.
#[inline(never)]
fn bevy_frame(time: &mut Time<Fixed>, last: &mut Instant, ball: &mut Ball, now: Instant) -> f64 {
    time.accumulate_overstep(now.saturating_duration_since(*last));
    *last = now;
    bevy_steps_and_blend(time, ball)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let frames: u32 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let mut ball = Ball::default();
    let start = Instant::now();
    if args.get(2).is_some_and(|loop_| loop_ == "bevy") {
        let mut time = Time::<Fixed>::from_hz(f64::from(TICK_HZ));
        let mut last = start;
        for k in 1..=frames {
            black_box(bevy_frame(&mut time, &mut last, &mut ball, black_box(start + FRAME * k)));
        }
        assert!(time.elapsed() > Duration::ZERO, "the fixed clock really stepped");
        return;
    }
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(u64::from(TICK_HZ)));
    for k in 1..=frames {
        black_box(pacer_frame(&mut pacer, &mut ball, black_box(start + FRAME * k)));
    }
    assert!(pacer.total_updates() > 0, "the pacer really stepped");
}
