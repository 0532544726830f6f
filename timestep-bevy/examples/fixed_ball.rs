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

const FRAMES: u64 = 72;
const SHOWN: u64 = 6;

#[expect(clippy::print_stdout, reason = "the example's output")]
fn main() {
    let display = Rate::from_hz(144);
    let start = Instant::now();
    for strategy in [StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Paced] {
        let mut app = App::new();
        app.add_plugins((TimePlugin, TimestepPlugin { strategy, rate: Rate::from_hz(60) }))
            .init_resource::<Ball>()
            .init_resource::<Drawn>()
            .add_systems(FixedUpdate, move_ball)
            .add_systems(Update, draw_ball);
        let mut pattern = String::new();
        let mut first = Vec::new();
        for k in 0..FRAMES {
            // The display's k-th refresh, exactly: 144 Hz refreshes on the integer grid.
            let at = start + Duration::from_nanos(display.tick_time(k));
            app.insert_resource(TimeUpdateStrategy::ManualInstant(at));
            app.update();
            let world = app.world();
            let steps = world.resource::<FrameSteps>().total();
            pattern.push(char::from_digit(steps, 10).unwrap_or('+'));
            if k < SHOWN {
                let alpha = world.resource::<Blend>().alpha();
                first.push(format!("{steps} {alpha:.3} {:.4}", world.resource::<Drawn>().0));
            }
        }
        let ball = app.world().resource::<Ball>().position;
        println!("{:<13} {pattern}", strategy.name());
        println!("{:<13} first frames (updates alpha drawn): {}", "", first.join(" | "));
        println!(
            "{:<13} ball at {ball:.4} after {FRAMES} frames ({:.4} s)",
            "",
            nanos_secs(display.tick_time(FRAMES - 1))
        );
    }
}

fn nanos_secs(ns: u64) -> f64 {
    Duration::from_nanos(ns).as_secs_f64()
}
