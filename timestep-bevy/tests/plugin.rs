//! The plugin on Bevy's manual clock, exactly: its `FixedMain` runs, its
//! `Blend` and a strategy switch, against the simulator and the core's own
//! `Pacer` fed the same instants.

use std::time::{Duration, Instant};

use bevy_app::{App, FixedUpdate};
use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time, TimeUpdateStrategy};
use timestep_bevy::{Blend, FrameSteps, Pacing, Rate, StrategyId, TimestepPlugin, TimestepStrategy};
use timestep_core::Pacer;
use timestep_core::host::Simulation;
use timestep_core::monitor::{Preset, RunSpec, Stop, simulate};
use timestep_core::vrr::Refresh;

const TICK: Rate = Rate::from_hz(60);
const DISPLAY: Rate = Rate::from_hz(144);

/// How many times `FixedMain` ran, in all.
#[derive(Resource, Default)]
struct Runs(u64);

fn count_run(mut runs: ResMut<Runs>) {
    runs.0 += 1;
}

/// A headless app running `strategy` at 60 ticks, counting `FixedUpdate` runs.
fn app(strategy: StrategyId) -> App {
    let mut app = App::new();
    app.add_plugins(TimestepPlugin { strategy, rate: TICK })
        .init_resource::<Runs>()
        .add_systems(FixedUpdate, count_run);
    app
}

/// Runs one frame at `at` (nanoseconds after `start` on Bevy's manual clock):
/// how many times `FixedMain` ran in it.
fn frame(app: &mut App, start: Instant, at: u64) -> u64 {
    let before = app.world().resource::<Runs>().0;
    app.insert_resource(TimeUpdateStrategy::ManualInstant(start + Duration::from_nanos(at)));
    app.update();
    app.world().resource::<Runs>().0 - before
}

/// Each frame's `FixedMain` runs as a pattern string, as the simulator prints it.
fn pattern(runs: &[u64]) -> String {
    runs.iter().map(|&n| char::from_digit(u32::try_from(n).unwrap_or(9).min(9), 10).unwrap_or('9')).collect()
}

struct NoWorld;
impl Simulation for NoWorld {
    fn step(&mut self, _dt: timestep_core::Nanos) {}
}

#[test]
fn catch_up_at_60_ticks_on_144_hz_frames_runs_fixed_main_in_the_simulators_pattern() {
    // Worked by hand: frame k starts at k/144 s, tick j falls due at j/60 s,
    // so by frame k floor(5k/12) ticks are due (tick 5 and frame 12 coincide
    // at 83.333 ms, and a tick due at a frame's start runs in it). Frame 0
    // starts the clock; then 0 0 1 0 1 0 0 1 0 1 0 1, and again every 12 frames.
    let frames = 200;
    let start = Instant::now();
    let mut app = app(StrategyId::CatchUp);
    let runs: Vec<u64> = (0..frames).map(|k| frame(&mut app, start, DISPLAY.tick_time(k))).collect();
    let by_hand: Vec<u64> = (0..frames).map(|k| if k == 0 { 0 } else { (5 * k) / 12 - (5 * (k - 1)) / 12 }).collect();
    assert_eq!(pattern(&runs), pattern(&by_hand), "FixedMain's runs against the worked example");
    assert!(runs.iter().all(|&n| n <= 1), "0 or 1 a frame: {}", pattern(&runs));
    assert!(pattern(&runs).starts_with("0001010010101"), "{}", pattern(&runs));

    // The simulator's pattern on a 144 Hz display whose frames start on its
    // refreshes: `timestep-lab simulate --strategy catch-up --refresh 144
    // --model pacing-answer --vsync on` (no noise; present waits for the vblank).
    let spec = RunSpec::new(StrategyId::CatchUp, Preset::PacingAnswer)
        .with_refresh(Refresh::Fixed(DISPLAY))
        .with_vsync(true)
        .with_stop(Stop::Updates(100));
    let simulated = simulate(&spec, &mut NoWorld).report().pattern;
    assert!(simulated.len() >= 200, "the simulator's first 200 frames: {simulated}");
    assert_eq!(pattern(&runs), simulated[..200], "the plugin against the simulator");
}

#[test]
fn fixed_main_runs_with_the_step_as_its_delta_and_bevys_own_loop_is_gone() {
    #[derive(Resource, Default)]
    struct Deltas(Vec<Duration>);
    let mut app = app(StrategyId::CatchUp);
    app.init_resource::<Deltas>().add_systems(FixedUpdate, |time: Res<Time>, mut deltas: ResMut<Deltas>| {
        deltas.0.push(time.delta());
    });
    let start = Instant::now();
    // A 100 ms frame after the first: six 60 Hz ticks (at 16.67 … 100 ms).
    frame(&mut app, start, 0);
    assert_eq!(frame(&mut app, start, 100_000_000), 6, "six ticks due, each run once");
    let world = app.world();
    assert_eq!(world.resource::<Deltas>().0, vec![Duration::from_nanos(16_666_667); 6], "Time's delta in FixedUpdate");
    assert_eq!(world.resource::<Time<Fixed>>().timestep(), Duration::from_nanos(16_666_667), "the tick period");
    assert_eq!(world.resource::<Time<Fixed>>().elapsed(), Duration::from_nanos(6 * 16_666_667));
}

#[test]
fn interpolateds_blend_equals_the_pacers_blend_factor_frame_by_frame() {
    let start = Instant::now();
    let mut app = app(StrategyId::Interpolated);
    let mut pacer = Pacer::new(StrategyId::Interpolated, TICK);
    for k in 0..300 {
        // 144 Hz frames with a wobble of up to 0.9 ms, so the alphas are not one cycle.
        let at = DISPLAY.tick_time(k) + (k * 7_919 % 900_000);
        let runs = frame(&mut app, start, at);
        let expected = pacer.advance_at(at);
        assert_eq!(runs, expected.updates().len() as u64, "frame {k}: the same updates");
        let blend = *app.world().resource::<Blend>();
        assert_eq!(blend.view(), expected.view(), "frame {k}: the same view");
        assert_eq!(blend.alpha().to_bits(), expected.alpha().to_bits(), "frame {k}: alpha {}", blend.alpha());
        assert_eq!(blend.blend(1.0, 2.0), expected.blend(1.0, 2.0), "frame {k}");
        // The overstep is a Duration: alpha × the step, to the nanosecond.
        let fraction = app.world().resource::<Time<Fixed>>().overstep_fraction_f64();
        let off_ns = (fraction - expected.alpha()).abs() * 16_666_667.0;
        assert!(off_ns <= 1.0, "frame {k}: overstep_fraction {fraction} is the alpha {}", expected.alpha());
        let _ = pacer.presented_at(at, None);
        pacer.finish_at(at);
    }
}

#[test]
fn a_strategy_switch_mid_run_is_a_resource_write_that_keeps_the_tick_phase() {
    // Catch-up, then interpolated from frame 50, then fuzzy from frame 100,
    // on 144 Hz frames half a millisecond after each refresh (frame 0 at 0):
    // by frame k the 60 Hz grid of the first frame has floor(5k/12 + 0.03)
    // = floor(5k/12) ticks due, 0.03 of a tick clear of any frame. Kept, the
    // phase gives that count on every frame, as if no switch had happened; a
    // switch that started the grid afresh (a resync) would put the next
    // tick a period after frame 50, and be a tick behind from frame 51.
    let start = Instant::now();
    let mut app = app(StrategyId::CatchUp);
    let mut reference = Pacer::new(StrategyId::CatchUp, TICK);
    let mut total = 0;
    for k in 0..150u64 {
        if k == 50 {
            *app.world_mut().resource_mut::<TimestepStrategy>() = TimestepStrategy(StrategyId::Interpolated);
            reference.set_strategy(StrategyId::Interpolated);
        }
        if k == 100 {
            app.insert_resource(TimestepStrategy(StrategyId::Fuzzy));
            reference.set_strategy(StrategyId::Fuzzy);
        }
        let at = if k == 0 { 0 } else { DISPLAY.tick_time(k) + 500_000 };
        let runs = frame(&mut app, start, at);
        total += runs;
        assert_eq!(total, 5 * k / 12, "frame {k}: ticks run so far");
        assert_eq!(runs, reference.advance_at(at).updates().len() as u64, "frame {k}: as the Pacer's own switch");
        let _ = reference.presented_at(at, None);
        reference.finish_at(at);
    }
    let pacing = app.world().resource::<Pacing>();
    assert_eq!(pacing.pacer().strategy(), StrategyId::Fuzzy, "the last write is running");
    assert_eq!(pacing.pacer().total_updates(), total);
}

#[test]
fn paced_draws_first_its_steps_run_at_the_next_frames_start() {
    // A ball in FixedUpdate; Update records where it stands when drawn.
    #[derive(Resource, Default)]
    struct Seen(Vec<(u64, u32, u32)>);
    let mut app = app(StrategyId::Paced);
    app.init_resource::<Seen>().add_systems(
        bevy_app::Update,
        |runs: Res<Runs>, steps: Res<FrameSteps>, mut seen: ResMut<Seen>| {
            seen.0.push((runs.0, steps.before_draw(), steps.after_present()));
        },
    );
    let start = Instant::now();
    let mut after_present = Vec::new();
    for k in 0..60 {
        frame(&mut app, start, DISPLAY.tick_time(k));
        after_present.push(u64::from(app.world().resource::<FrameSteps>().after_present()));
    }
    let seen = &app.world().resource::<Seen>().0;
    assert!(seen.iter().all(|&(_, before, _)| before == 0), "paced runs no step before its picture");
    assert!(after_present.iter().sum::<u64>() > 20, "it steps after: {after_present:?}");
    // What frame k drew had every step of the frames before it, none of its own.
    let mut drawn_with = 0;
    for (k, &(runs, _, _)) in seen.iter().enumerate() {
        assert_eq!(runs, drawn_with, "frame {k} drew the state of the steps before it");
        drawn_with += after_present[k];
    }
}

#[test]
fn bevys_virtual_pause_stops_the_steps_and_its_speed_is_the_pacers_time_scale() {
    use bevy_time::Virtual;
    let start = Instant::now();
    let mut app = app(StrategyId::CatchUp);
    // 60 ms frames: 3.6 ticks each, so a step lost or doubled shows.
    let runs: Vec<u64> = (0..10).map(|k| frame(&mut app, start, k * 60_000_000)).collect();
    assert_eq!(runs.iter().sum::<u64>(), 32, "0.54 s: 32 ticks due at 60 Hz {runs:?}");
    app.world_mut().resource_mut::<Time<Virtual>>().pause();
    let paused: Vec<u64> = (10..20).map(|k| frame(&mut app, start, k * 60_000_000)).collect();
    assert_eq!(paused, vec![0; 10], "no step while Time<Virtual> is paused");
    assert_eq!(app.world().resource::<FrameSteps>().total(), 0, "and the frame says so");
    app.world_mut().resource_mut::<Time<Virtual>>().unpause();
    assert_eq!(frame(&mut app, start, 20 * 60_000_000), 0, "the first frame after the pause starts the clock afresh");
    let after: u64 = (21..31).map(|k| frame(&mut app, start, k * 60_000_000)).sum();
    assert_eq!(after, 36, "then 0.6 s: 36 ticks, none owed for the pause");
    // At half speed, half the ticks: 0.6 s of wall time is 0.3 s of game time.
    app.world_mut().resource_mut::<Time<Virtual>>().set_relative_speed_f64(0.5);
    let slow: u64 = (31..41).map(|k| frame(&mut app, start, k * 60_000_000)).sum();
    assert_eq!(slow, 18, "18 ticks in 0.6 s at half speed");
    assert_eq!(app.world().resource::<Pacing>().pacer().time_scale(), 0.5);
}
