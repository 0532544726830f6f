//! Seed 004's drift demo, and why the core counts time in integers.
//!
//! deWiTTERS' variable-timestep loop moves an object 0.001 units per
//! millisecond; after 10 s it is at 10.000000000000075 when frames come at
//! 40 fps and at 9.9999999999998312 at 100 fps. Our game time is a count of
//! ticks converted exactly, so it is the same nanosecond at any frame rate.

use timestep_core::Pacer;
use timestep_core::host::{FrameHost, Simulation};
use timestep_core::strategy::{StrategyConfig, StrategyId, View};
use timestep_core::time::{Clock, ManualClock, NANOS_PER_SEC, Nanos, Rate, duration_to_nanos};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// The seed's float loop: `position += speed * dt` with dt in milliseconds.
fn float_position_after_ten_seconds(fps: u32) -> f64 {
    let dt_ms = 1000.0 / f64::from(fps);
    let mut position = 0.0f64;
    for _ in 0..(10 * fps) {
        position += 0.001 * dt_ms;
    }
    position
}

#[test]
fn accumulated_floats_end_in_different_places_at_40_and_100_fps() {
    let at_40 = float_position_after_ten_seconds(40);
    let at_100 = float_position_after_ten_seconds(100);
    assert_eq!(at_40, 10.000000000000075, "the seed's 40 fps figure");
    assert_eq!(at_100, 9.999999999999831, "the seed's 100 fps figure (9.9999999999998312)");
    assert_ne!(at_40, at_100);
}

struct NoWorld;

impl Simulation for NoWorld {
    fn step(&mut self, _dt: Nanos) {}
}

/// A host whose frames take exactly `frame` nanoseconds and cost nothing.
struct SteadyHost {
    clock: ManualClock,
}

impl FrameHost<NoWorld> for SteadyHost {
    fn now(&mut self) -> Nanos {
        self.clock.now()
    }
    fn render(&mut self, _world: &NoWorld, _view: View) {}
    fn present(&mut self) -> Nanos {
        self.clock.now()
    }
}

/// The pacer's game time after `10 × fps` frames exactly `1/fps` apart.
///
/// It drives the [`Pacer`] itself rather than calling the simulator:
/// this is about the pacer's integer arithmetic under the seed's ideal frame
/// rate, and the simulator's display would add its model's costs and vblank
/// grid to every frame start.
fn game_time_after(strategy: StrategyId, fps: u64, tick: Rate, start: Nanos) -> Nanos {
    let config = StrategyConfig::default().with_tick_rate(tick);
    let mut pacer = Pacer::with_config(strategy, config);
    let mut host = SteadyHost { clock: ManualClock::starting_at(start) };
    let frame = Rate::from_hz(fps);
    for n in 1..=10 * fps {
        pacer.run_host_frame(&mut NoWorld, &mut host);
        host.clock.advance_to(start + frame.tick_time(n));
    }
    pacer.run_host_frame(&mut NoWorld, &mut host);
    duration_to_nanos(pacer.game_time())
}

#[test]
fn integer_game_time_is_exactly_ten_seconds_at_40_and_100_fps() {
    for strategy in [StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Extrapolated] {
        for fps in [40, 100] {
            for tick in [Rate::from_hz(60), Rate::from_hz(144), Rate::new(60000, 1001).unwrap()] {
                let game = game_time_after(strategy, fps, tick, 0);
                assert_eq!(
                    game,
                    tick.tick_time(tick.ticks_in(10 * NANOS_PER_SEC)),
                    "{strategy} at {fps} fps, tick {tick}: every whole tick of 10 s, to the nanosecond"
                );
            }
            assert_eq!(game_time_after(strategy, fps, Rate::from_hz(60), 0), 10 * NANOS_PER_SEC);
        }
    }
}

#[test]
fn variable_steps_sum_to_exactly_the_wall_time() {
    for fps in [40, 100, 144] {
        let game = game_time_after(StrategyId::Variable, fps, Rate::from_hz(60), 123_456_789);
        assert_eq!(game, 10 * NANOS_PER_SEC, "variable at {fps} fps");
    }
}
