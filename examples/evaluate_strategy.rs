//! Evaluates loop strategies for your own game state on a virtual 144 Hz
//! display, headless and deterministic:
//!
//! ```sh
//! cargo run --example evaluate_strategy
//! ```
//! Replace `Ball` with your game's state: all the core asks of it is `step`.

use timestep_core::host::Simulation;
use timestep_core::monitor::{Preset, RunSpec, simulate};
use timestep_core::strategy::StrategyId;
use timestep_core::time::{Nanos, Rate};

/// A game state with a fixed-step update (here: a ball falling 1 m/s faster each second).
#[derive(Default)]
struct Ball {
    height: f64,
    speed: f64,
}

impl Simulation for Ball {
    fn step(&mut self, dt: Nanos) {
        let dt = dt as f64 / 1e9;
        self.speed -= dt;
        self.height += self.speed * dt;
    }
}

#[expect(clippy::print_stdout, reason = "the example's output is its table")]
fn main() {
    println!("strategy       doubles  hitches  judder ms  latency ms  drift ms/min");
    for id in [StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Fuzzy, StrategyId::Lockstep] {
        let mut spec = RunSpec::new(id, Preset::Glaiel);
        spec.refresh = Rate::from_hz(144).into();
        let run = simulate(&spec, &mut Ball::default()).report();
        println!(
            "{:<13} {:>8} {:>8} {:>10.3} {:>11.2} {:>13.1}",
            run.strategy,
            run.double_updates,
            run.stats.hitches,
            run.stats.judder_ms,
            run.stats.latency_ms,
            run.stats.drift_ms_per_min
        );
    }
}
