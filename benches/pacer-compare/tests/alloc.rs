//! One frame through the [`Pacer`] allocates nothing: 1 000 steady-state
//! frames of the benchmark's own frame ([`pacer_frame`]), counted by a
//! counting global allocator.
//!
//! The allocator is `tests/world/counting.rs`, included as this binary's own
//! (a `#[global_allocator]` is one per binary); it counts per thread, because
//! the harness runs tests in parallel threads.

use std::time::Duration;

use pacer_compare::{Ball, FRAME, TICK_HZ, pacer_frame};
use timestep_core::{Instant, Pacer, Rate, StrategyId};

// The project's counting allocator (the `world` test binary's), installed as this binary's own.
#[path = "../../../tests/world/counting.rs"]
mod counting;

use counting::allocations_during;

/// Runs frames `from..to` through the pacer on the synthetic clock that starts at `start`.
fn frames(pacer: &mut Pacer, ball: &mut Ball, start: Instant, from: u32, to: u32) {
    for k in from..to {
        std::hint::black_box(pacer_frame(pacer, ball, start + FRAME * k));
    }
}

#[test]
fn the_counting_allocator_sees_one_vec_as_one_allocation() {
    let n = allocations_during(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1, "one Vec of 16 bytes is one allocation");
}

#[test]
fn a_thousand_pacer_frames_after_a_warm_up_allocate_nothing() {
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(u64::from(TICK_HZ)));
    let mut ball = Ball::default();
    let start = Instant::now();
    // Warm-up: the refresh meter fills its window.
    frames(&mut pacer, &mut ball, start, 0, 300);
    let updates = pacer.total_updates();
    let allocations = allocations_during(|| frames(&mut pacer, &mut ball, start, 300, 1_300));
    assert_eq!(allocations, 0, "{allocations} heap allocations in 1000 steady-state frames");
    // 1000 frames of 16.67 ms are 16.67 s: 1000 ticks of 60 Hz, one fewer
    // than the frames' count rounded (1000.2 ticks) if the phase falls so.
    let stepped = pacer.total_updates() - updates;
    assert!((999..=1_001).contains(&stepped), "the pacer really stepped: {stepped} updates in 1000 frames");
    assert!(pacer.game_time() > Duration::from_secs(16), "the game clock ran: {:?}", pacer.game_time());
}
