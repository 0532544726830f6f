//! The README's quick start as a program: a game with its own loop and its
//! own state adopts a [`Pacer`] in a handful of lines.
//!
//! Headless, so no vsync paces the frames: a frame limit of 120 Hz does.
//! Pass a strategy id to try another (`cargo run -p timestep-core --example
//! quick_start -- fixed-fps`); every one of the ten fits the same loop.
#![expect(clippy::print_stdout, reason = "an example prints what it did")]

use std::time::Duration;

use timestep_core::{DEFAULT_SPIN, Instant, Pacer, Rate, StrategyId, sleep_until};

/// A ball moving at 1 unit a second, with the state one update ago to draw between.
#[derive(Default)]
struct Ball {
    previous: f64,
    position: f64,
}

impl Ball {
    fn update(&mut self, dt: Duration) {
        self.previous = self.position;
        self.position += dt.as_secs_f64();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let strategy: StrategyId = std::env::args().nth(1).as_deref().unwrap_or("interpolated").parse()?;
    let mut ball = Ball::default();
    let mut pacer = Pacer::new(strategy, Rate::from_hz(60));
    pacer.set_frame_limit(Some(Rate::from_hz(120)));
    let (start, mut frames, mut drawn) = (Instant::now(), 0, 0.0);
    while start.elapsed() < Duration::from_secs(1) {
        let frame = pacer.advance(Instant::now());
        frame.updates().for_each(|dt| ball.update(dt));
        drawn = frame.blend(ball.previous, ball.position);
        pacer.presented(Instant::now()).for_each(|dt| ball.update(dt));
        if let Some(wake) = pacer.finish(Instant::now()) {
            sleep_until(wake, DEFAULT_SPIN);
        }
        frames += 1;
    }
    println!("{strategy}: {frames} frames, {} updates, ball drawn at {drawn:.3}", pacer.total_updates());
    Ok(())
}
