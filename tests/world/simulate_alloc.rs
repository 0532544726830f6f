//! The simulator loop allocates nothing per frame: a run ten times as long
//! makes exactly as many heap allocations (all of them set-up).

use crate::counting::allocations_during;

use timestep_lab::metrics::{FrameSample, Metrics};
use timestep_lab::monitor::{Preset, RunSpec, Stop, TIMELINE_EVENTS, simulate_world};
use timestep_lab::sim::{World, WorldConfig};
use timestep_lab::strategy::StrategyId;
use timestep_lab::time::Rate;

fn allocations_for(strategy: StrategyId, preset: Preset, updates: u64) -> u64 {
    let spec = RunSpec::new(strategy, preset).with_stop(Stop::Updates(updates)).with_timeline(TIMELINE_EVENTS);
    let mut world = World::new(&WorldConfig::default());
    allocations_during(|| {
        std::hint::black_box(simulate_world(&spec, &mut world, &mut |_| {}));
    })
}

#[test]
fn a_ten_times_longer_run_allocates_no_more_for_any_strategy_or_model() {
    for strategy in StrategyId::ALL {
        for preset in [Preset::Glaiel, Preset::Desktop, Preset::Spiky] {
            // Warm-up: one-time set-up (lazy statics, logger) is not per-frame.
            allocations_for(strategy, preset, 10);
            let short = allocations_for(strategy, preset, 1_000);
            let long = allocations_for(strategy, preset, 10_000);
            assert_eq!(short, long, "{strategy} on {preset}: {short} allocations for 1000 updates, {long} for 10000");
        }
    }
}

#[test]
fn recording_a_frame_in_the_metrics_never_allocates() {
    let hz = Rate::from_hz(60);
    let mut metrics = Metrics::new(0, Some(hz));
    let n = allocations_during(|| {
        for i in 0..100_000u64 {
            let frame = FrameSample {
                updates: (i % 3) as u32,
                shown_updates: (i % 3) as u32,
                content_time: hz.tick_time(i),
                input_time: hz.tick_time(i),
                display_time: hz.tick_time(i + 1 + i / 1000),
                game_time: hz.tick_time(i),
                repeats: 0,
            };
            metrics.record(&frame);
        }
        std::hint::black_box(metrics.totals());
        std::hint::black_box(metrics.recent_judder_ms());
    });
    assert_eq!(n, 0, "Metrics::record allocated {n} times");
}
