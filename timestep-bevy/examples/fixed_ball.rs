//! A headless Bevy app on a 144 Hz manual clock: a ball moved one unit a
//! second in `FixedUpdate` at 60 ticks a second, drawn in `Update` from
//! [`Blend`], under three strategies. Prints each frame's `FixedMain` runs
//! (the update pattern) and the first frames' drawn positions.
//!
//! `cargo run -p timestep-bevy --example fixed_ball`

use std::time::{Duration, Instant};

use bevy_app::{App, FixedUpdate, Update};
use bevy_ecs::prelude::*;
use bevy_time::{Time, TimePlugin, TimeUpdateStrategy};
use timestep_bevy::{Blend, FrameSteps, Rate, StrategyId, TimestepPlugin};

/// Where the ball is after the latest tick, and where it was a tick before.
#[derive(Resource, Default)]
struct Ball {
    previous: f64,
    position: f64,
}

/// Where the frame draws the ball.
#[derive(Resource, Default)]
struct Drawn(f64);

/// One tick: the ball moves by `Time`'s delta (the step, in `FixedUpdate`).
fn move_ball(time: Res<Time>, mut ball: ResMut<Ball>) {
    ball.previous = ball.position;
    ball.position += time.delta_secs_f64();
}

/// The frame's picture: between the last two ticks by the pacer's blend.
fn draw_ball(blend: Res<Blend>, ball: Res<Ball>, mut drawn: ResMut<Drawn>) {
    drawn.0 = blend.blend(ball.previous, ball.position);
}

/// Frames run for each strategy: half a second of a 144 Hz display.
const FRAMES: u64 = 72;
/// Frames shown one a line.
const SHOWN: usize = 8;
const STRATEGIES: [StrategyId; 3] = [StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Paced];

/// One frame as the app saw it: `FixedMain` runs, the blend factor, where the ball was drawn.
struct Seen {
    runs: u32,
    alpha: f64,
    drawn: f64,
}

/// `strategy`'s frames on the 144 Hz refreshes, exactly, from `start` on Bevy's manual clock.
fn run(strategy: StrategyId, display: Rate, start: Instant) -> Vec<Seen> {
    let mut app = App::new();
    app.add_plugins((TimePlugin, TimestepPlugin { strategy, rate: Rate::from_hz(60) }))
        .init_resource::<Ball>()
        .init_resource::<Drawn>()
        .add_systems(FixedUpdate, move_ball)
        .add_systems(Update, draw_ball);
    (0..FRAMES)
        .map(|k| {
            app.insert_resource(TimeUpdateStrategy::ManualInstant(start + Duration::from_nanos(display.tick_time(k))));
            app.update();
            let world = app.world();
            Seen {
                runs: world.resource::<FrameSteps>().total(),
                alpha: world.resource::<Blend>().alpha(),
                drawn: world.resource::<Drawn>().0,
            }
        })
        .collect()
}

#[expect(clippy::print_stdout, reason = "the example's output")]
fn main() {
    let display = Rate::from_hz(144);
    let start = Instant::now();
    let runs: Vec<Vec<Seen>> = STRATEGIES.iter().map(|&s| run(s, display, start)).collect();
    println!("A ball at 1 unit/s, 60 ticks a second, on 144 Hz frames: FixedMain runs, alpha, drawn x");
    let header: String = STRATEGIES.iter().map(|s| format!("  {:<22}", s.name())).collect();
    println!("frame  ms    {}", header.trim_end());
    for k in 0..SHOWN {
        let ms = Duration::from_nanos(display.tick_time(k as u64)).as_secs_f64() * 1e3;
        let cells: String =
            runs.iter().map(|r| format!("  {}  {:.3}  {:.4}        ", r[k].runs, r[k].alpha, r[k].drawn)).collect();
        println!("{k:>5}  {ms:>5.2}{}", cells.trim_end());
    }
    println!("FixedMain runs in each of the {FRAMES} frames:");
    for (strategy, seen) in STRATEGIES.iter().zip(&runs) {
        let pattern: String = seen.iter().map(|f| char::from_digit(f.runs.min(9), 10).unwrap_or('9')).collect();
        println!("{:<13} {pattern}", strategy.name());
    }
}
