//! `pacing_runner`: Bevy's loop that waits for the pacer's wake. The only
//! test here on the real clock: a few milliseconds, bounded from below only.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use bevy_app::{App, AppExit, Update};
use bevy_ecs::prelude::*;
use timestep_bevy::{Pacing, Rate, StrategyId, TimestepPlugin, pacing_runner};

/// Frames run (the app is the runner's once it runs: its world is out of reach).
static FRAMES: AtomicU32 = AtomicU32::new(0);

/// Counts frames and asks to exit after the fifth.
fn count_then_exit(mut exit: MessageWriter<AppExit>) {
    if FRAMES.fetch_add(1, Ordering::Relaxed) + 1 == 5 {
        exit.write(AppExit::Success);
    }
}

#[test]
fn the_runner_waits_for_each_wake_and_returns_the_apps_exit() {
    let mut app = App::new();
    app.add_plugins(TimestepPlugin { strategy: StrategyId::CatchUp, rate: Rate::from_hz(60) })
        .add_systems(Update, count_then_exit)
        .set_runner(pacing_runner);
    // A 500 Hz frame limit: a wake every 2 ms, so five frames take four waits.
    app.world_mut().resource_mut::<Pacing>().pacer_mut().set_frame_limit(Some(Rate::from_hz(500)));
    let start = Instant::now();
    let exit = app.run();
    let took = start.elapsed();
    assert_eq!(exit, AppExit::Success);
    assert_eq!(FRAMES.load(Ordering::Relaxed), 5, "the runner stopped at the exit");
    assert!(took.as_micros() >= 6_000, "four waits for 2 ms slots: {took:?}");
    assert!(took.as_secs() < 10, "and no more: {took:?}");
}
