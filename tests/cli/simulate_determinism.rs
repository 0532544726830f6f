//! Determinism across displays: fixed-step strategies compute the same game
//! whatever the monitor, so one input log gives one world state hash after N
//! ticks on 50, 60 and 144 Hz displays. `variable` steps by the frame time and
//! so computes a different game on each display.

use timestep_lab::host::Simulation;
use timestep_lab::monitor::{Preset, RunSpec, Stop, simulate_world};
use timestep_lab::sim::{Input, InputLog, World, WorldConfig};
use timestep_lab::strategy::StrategyId;
use timestep_lab::time::{Nanos, Rate};

const TICKS: u64 = 900;

/// The input log: what a player did, by tick.
fn script() -> InputLog {
    let mut log = InputLog::with_capacity(16);
    for (tick, input) in [
        (10, Input::RIGHT),
        (80, Input::RIGHT | Input::UP),
        (150, Input::FIRE),
        (151, Input::NONE),
        (300, Input::LEFT | Input::DOWN),
        (420, Input::FIRE | Input::LEFT),
        (600, Input::NONE),
        (700, Input::UP),
    ] {
        log.record(tick, input);
    }
    log
}

/// The demo world with input fed from a log at tick boundaries, through the world's own API.
struct Scripted<'a> {
    world: World,
    log: &'a InputLog,
    next: usize,
}

impl Simulation for Scripted<'_> {
    fn step(&mut self, dt: Nanos) {
        while let Some(e) = self.log.entries().get(self.next).filter(|e| e.tick <= self.world.tick()) {
            self.world.set_input(e.input);
            self.next += 1;
        }
        self.world.step(dt);
    }
}

fn hash_after_run(strategy: StrategyId, refresh_hz: u64, log: &InputLog) -> u64 {
    let spec = RunSpec::new(strategy, Preset::Desktop)
        .with_refresh(Rate::from_hz(refresh_hz))
        .with_stop(Stop::Updates(TICKS))
        .with_step_limit(Some(TICKS));
    let mut sim = Scripted { world: World::new(&WorldConfig::default()), log, next: 0 };
    let outcome = simulate_world(&spec, &mut sim, &mut |_| {});
    assert_eq!(outcome.metrics.totals().updates, TICKS, "{strategy} @ {refresh_hz} Hz ran exactly {TICKS} ticks");
    sim.world.hash()
}

#[test]
fn fixed_step_strategies_compute_the_same_game_on_50_60_and_144_hz_displays() {
    let log = script();
    let reference = World::replay(&WorldConfig::default(), &log, Rate::from_hz(60).period(), TICKS).hash();
    for strategy in
        [StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Fuzzy, StrategyId::Snapped, StrategyId::Paced]
    {
        for hz in [50, 60, 144] {
            assert_eq!(
                hash_after_run(strategy, hz, &log),
                reference,
                "{strategy} @ {hz} Hz should compute the same {TICKS} ticks as a plain replay of the log"
            );
        }
    }
}

#[test]
fn variable_steps_compute_a_different_game_on_each_display() {
    let log = script();
    let hashes: Vec<u64> = [50, 60, 144].iter().map(|&hz| hash_after_run(StrategyId::Variable, hz, &log)).collect();
    assert_ne!(hashes[0], hashes[1], "variable: 50 Hz vs 60 Hz");
    assert_ne!(hashes[1], hashes[2], "variable: 60 Hz vs 144 Hz");
    assert_ne!(hashes[0], hashes[2], "variable: 50 Hz vs 144 Hz");
}
