//! The plugin's systems allocate nothing per frame after a warm-up: whole
//! Bevy frames (`App::update`, the plugin's two systems, `FixedMain` with a
//! game's step and an `Update` that draws from `Blend`) counted by the
//! project's counting global allocator, as the Pacer's own test counts its
//! frames (`benches/pacer-compare/tests/alloc.rs`). Every `STATUS_EVERY`-th
//! frame brings the vsync verdict and the refresh measurement up to date,
//! and that one allocates (the meter's sorted window, the verdict's sentence).

use std::time::Duration;

use bevy_app::{App, FixedUpdate, Update};
use bevy_ecs::prelude::*;
use bevy_time::{Time, TimeUpdateStrategy};
use timestep_bevy::{Blend, Pacing, Rate, STATUS_EVERY, StrategyId, TimestepPlugin};

// The project's counting allocator (the `world` test binary's), installed as this binary's own.
#[path = "../../tests/world/counting.rs"]
mod counting;

use counting::allocations_during;

#[derive(Resource, Default)]
struct Ball {
    previous: f64,
    position: f64,
    drawn: f64,
}

fn step(time: Res<Time>, mut ball: ResMut<Ball>) {
    ball.previous = ball.position;
    ball.position += time.delta_secs_f64();
}

fn draw(blend: Res<Blend>, mut ball: ResMut<Ball>) {
    ball.drawn = blend.blend(ball.previous, ball.position);
}

/// A 144 Hz manual clock, the plugin with `strategy` at 60 ticks, a ball.
fn app(strategy: StrategyId) -> App {
    let mut app = App::new();
    app.add_plugins(TimestepPlugin { strategy, rate: Rate::from_hz(60) })
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_nanos(6_944_444)))
        .init_resource::<Ball>()
        .add_systems(FixedUpdate, step)
        .add_systems(Update, draw);
    app
}

fn frames(app: &mut App, n: u64) {
    for _ in 0..n {
        app.update();
    }
}

#[test]
fn the_counting_allocator_sees_one_vec_as_one_allocation() {
    let n = allocations_during(|| drop(std::hint::black_box(vec![1u8; 16])));
    assert_eq!(n, 1, "one Vec of 16 bytes is one allocation");
}

#[test]
fn frames_between_status_updates_allocate_nothing_after_a_warm_up_for_every_strategy() {
    for strategy in StrategyId::ALL {
        let mut app = app(strategy);
        // Warm-up: Bevy builds its schedules, the refresh meter fills its window.
        frames(&mut app, 3 * STATUS_EVERY);
        assert_eq!(
            app.world().resource::<Pacing>().frames() % STATUS_EVERY,
            0,
            "{strategy}: just after a status update"
        );
        let updates = app.world().resource::<Pacing>().pacer().total_updates();
        let allocations = allocations_during(|| frames(&mut app, STATUS_EVERY - 1));
        assert_eq!(allocations, 0, "{strategy}: {allocations} heap allocations in {} frames", STATUS_EVERY - 1);
        let stepped = app.world().resource::<Pacing>().pacer().total_updates() - updates;
        assert!(
            stepped >= 40,
            "{strategy}: the plugin really stepped: {stepped} updates in {} frames",
            STATUS_EVERY - 1
        );
        let status = allocations_during(|| frames(&mut app, 1));
        assert!((1..=8).contains(&status), "{strategy}: the status update's frame allocates a little: {status}");
    }
}
