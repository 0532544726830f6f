//! The cost of one frame of a 60 Hz fixed step with interpolation, through
//! timestep-core's [`Pacer`] and the two loops it is most often compared
//! with, on the same synthetic clock and the same trivial game ([`Ball`]).
//!
//! - `frame/pacer`: [`pacer_frame`]: `advance`, the steps, `blend`,
//!   `presented`, `finish`, with the `interpolated` strategy.
//! - `frame/bevy_time_fixed`: `Time<Fixed>` as bevy's
//!   `run_fixed_main_schedule` drives it, without the ECS: the frame's delta
//!   (`now - last` on the clock's `Instant`s, as `Time<Real>` takes it)
//!   into `accumulate_overstep`, the `expend` loop (private in bevy_time, so
//!   written out with the public calls it makes), `overstep_fraction`.
//! - `frame/game_loop`: game-loop's `GameLoop::next_frame` with its update and
//!   render closures, on a [`TimeTrait`] that reads the synthetic clock.
//!
//! - `frame_breakdown/pacer_without_presented`: the pacer's frame less
//!   `presented` (the refresh measurement): where the pacer's time goes, not
//!   a loop a game should run (it would never learn whether vsync is on).
//! - `frame_breakdown/bevy_time_fixed_given_duration`: bevy_time's frame
//!   handed a ready `Duration`, as this bench ran it before issue 35.
//!
//! Each iteration is one frame, 16.67 ms of exact integer time after the
//! last; the state carries over from one iteration to the next, as a game's does.
//!
//! Run with `cargo bench -p pacer-compare -- --warm-up-time 1 --measurement-time 3`.

use std::cell::Cell;
use std::hint::black_box;
use std::time::Duration;

use bevy_time::{Fixed, Time};
use criterion::{Criterion, criterion_group, criterion_main};
use game_loop::{GameLoop, TimeTrait};
use pacer_compare::{Ball, FRAME, TICK_HZ, pacer_frame};
use timestep_core::{Instant, Pacer, Rate, StrategyId};

// bevy_time's frame after its delta, shared with `examples/frames.rs`.
#[path = "../shared/bevy_steps.rs"]
mod bevy_steps;
use bevy_steps::bevy_steps_and_blend;

/// The most wall time one frame may hand to game-loop, in seconds: bevy's
/// default `max_delta` of `Time<Virtual>`. Never reached on this clock.
const MAX_FRAME_SECONDS: f64 = 0.25;

thread_local! {
    /// The synthetic clock game-loop reads: its `TimeTrait::now` takes no
    /// argument, so time is fed through this cell before each frame.
    static SYNTHETIC_NOW: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// game-loop's clock, reading [`SYNTHETIC_NOW`] instead of `Instant::now`.
#[derive(Clone, Copy)]
struct SyntheticTime(Duration);

impl TimeTrait for SyntheticTime {
    fn now() -> Self {
        SyntheticTime(SYNTHETIC_NOW.with(Cell::get))
    }

    fn sub(&self, other: &Self) -> f64 {
        self.0.saturating_sub(other.0).as_secs_f64()
    }

    fn supports_sleep() -> bool {
        false
    }

    fn sleep(_seconds: f64) {}
}

/// The start of frame `k` on the synthetic clock, from its start: exact integer nanoseconds.
fn frame_time(k: u64) -> Duration {
    Duration::from_nanos(k * u64::try_from(FRAME.as_nanos()).unwrap_or(u64::MAX))
}

fn bench_pacer(c: &mut Criterion) {
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(u64::from(TICK_HZ)));
    let mut ball = Ball::default();
    let start = Instant::now();
    let mut k = 0;
    c.bench_function("frame/pacer", |b| {
        b.iter(|| {
            k += 1;
            black_box(pacer_frame(&mut pacer, &mut ball, black_box(start + frame_time(k))))
        });
    });
    assert!(pacer.total_updates() > 0, "the pacer really stepped");
}

fn bench_pacer_breakdown(c: &mut Criterion) {
    let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(u64::from(TICK_HZ)));
    let mut ball = Ball::default();
    let start = Instant::now();
    let mut k = 0;
    c.bench_function("frame_breakdown/pacer_without_presented", |b| {
        b.iter(|| {
            k += 1;
            let now = black_box(start + frame_time(k));
            let frame = pacer.advance(now);
            frame.updates().for_each(|dt| ball.update(dt.as_secs_f64()));
            let drawn = frame.blend(ball.previous, ball.position);
            let _wake = pacer.finish(now);
            black_box(drawn)
        });
    });
}

fn bench_bevy_time(c: &mut Criterion) {
    let mut time = Time::<Fixed>::from_hz(f64::from(TICK_HZ));
    let mut ball = Ball::default();
    let start = Instant::now();
    let mut last = start;
    let mut k = 0;
    c.bench_function("frame/bevy_time_fixed", |b| {
        b.iter(|| {
            k += 1;
            // The clock's `Instant`, as the pacer is fed, and the frame's
            // delta from it as `Time<Real>::update_with_instant` takes it.
            let now = black_box(start + frame_time(k));
            time.accumulate_overstep(now.saturating_duration_since(last));
            last = now;
            black_box(bevy_steps_and_blend(&mut time, &mut ball))
        });
    });
    assert!(time.elapsed() > Duration::ZERO, "the fixed clock really stepped");
}

/// The bevy_time frame as this bench ran it before issue 35: handed a ready
/// `Duration` where the pacer is handed an `Instant`, so the pacer alone paid
/// the clock's subtraction. Kept beside the fair one to show what that was.
fn bench_bevy_time_given_duration(c: &mut Criterion) {
    let mut time = Time::<Fixed>::from_hz(f64::from(TICK_HZ));
    let mut ball = Ball::default();
    let mut last = Duration::ZERO;
    let mut k = 0;
    c.bench_function("frame_breakdown/bevy_time_fixed_given_duration", |b| {
        b.iter(|| {
            k += 1;
            let now = black_box(frame_time(k));
            time.accumulate_overstep(now - last);
            last = now;
            black_box(bevy_steps_and_blend(&mut time, &mut ball))
        });
    });
}

fn bench_game_loop(c: &mut Criterion) {
    SYNTHETIC_NOW.with(|now| now.set(Duration::ZERO));
    let mut game_loop: GameLoop<Ball, SyntheticTime, ()> =
        GameLoop::new(Ball::default(), TICK_HZ, MAX_FRAME_SECONDS, ());
    let mut k = 0;
    c.bench_function("frame/game_loop", |b| {
        b.iter(|| {
            k += 1;
            SYNTHETIC_NOW.with(|now| now.set(black_box(frame_time(k))));
            game_loop.next_frame(
                |g| {
                    let dt = g.fixed_time_step();
                    g.game.update(dt);
                },
                |g| {
                    black_box(g.game.blend(g.blending_factor()));
                },
            )
        });
    });
    assert!(game_loop.number_of_updates() > 0, "game-loop really stepped");
}

criterion_group!(
    benches,
    bench_pacer,
    bench_bevy_time,
    bench_game_loop,
    bench_pacer_breakdown,
    bench_bevy_time_given_duration
);
criterion_main!(benches);
