//! The numbers behind the crate's "which strategy when" table: every strategy
//! on the virtual monitor of Tyler Glaiel's "How to make your game run at
//! 60fps" (10 000 updates of a 60 Hz tick), on a 60, 59.94 and 144 Hz display
//! with vsync, on a 60 Hz display without, and on a VRR display (`vrr:48-144`,
//! vsync on: a frame is shown when it is presented, at most 144 times a second).
//!
//! `cargo run -p timestep-core --release --example which_strategy`
#![expect(clippy::print_stdout, reason = "an example prints its table")]

use timestep_core::host::Simulation;
use timestep_core::monitor::{Preset, RunSpec, simulate};
use timestep_core::vrr::Refresh;
use timestep_core::{Nanos, StrategyId};

/// The simulator measures timing, not a world: a step does nothing.
struct NoWorld;

impl Simulation for NoWorld {
    fn step(&mut self, _dt: Nanos) {}
}

fn main() {
    let displays = [
        ("60 Hz", "60", true),
        ("59.94 Hz", "59.94", true),
        ("144 Hz", "144", true),
        ("60 Hz no vsync", "60", false),
        ("vrr:48-144", "vrr:48-144", true),
    ];
    println!("strategy      display          doubles  judder ms  drift ms/min  latency ms");
    for id in StrategyId::ALL {
        for (name, hz, vsync) in displays {
            let mut spec = RunSpec::new(id, Preset::Glaiel);
            spec.refresh = hz.parse::<Refresh>().expect("a display refresh");
            spec.vsync = vsync;
            let r = simulate(&spec, &mut NoWorld).report();
            println!(
                "{:<13} {name:<16} {:>7}  {:>9.3}  {:>12.1}  {:>10.1}",
                id.name(),
                r.double_updates,
                r.stats.judder_ms,
                r.stats.drift_ms_per_min,
                r.stats.latency_ms
            );
        }
    }
}
