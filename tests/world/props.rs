//! World properties: replays reproduce the hash, input changes it, and the
//! interpolation hazards (spinner wrap, screen wrap, particles) are handled.
//!
//! Case counts follow proptest's `PROPTEST_CASES` (default 256).

use proptest::prelude::*;
use timestep_lab::host::Simulation;
use timestep_lab::sim::{
    Input, InputLog, Instance, MoverKind, PARTICLE_LIFETIME, SpriteCell, World, WorldConfig, particle_birth,
};
use timestep_lab::strategy::View;
use timestep_lab::time::Nanos;

const TICK: Nanos = 16_666_667;

fn config() -> WorldConfig {
    WorldConfig { extra_sprites: 20, ..WorldConfig::default() }
}

fn drawn(world: &World, view: View, cell: SpriteCell) -> Vec<Instance> {
    let mut out = Vec::new();
    world.write_instances(view, &mut out);
    out.into_iter().filter(|i| i.atlas == cell.atlas_rect()).collect()
}

fn input_strategy() -> impl Strategy<Value = Input> {
    (0u8..32).prop_map(Input::from_bits)
}

/// Runs `ticks` steps of `dt`, changing input at the given ticks.
fn play(cfg: &WorldConfig, changes: &[(u64, Input)], dt: Nanos, ticks: u64) -> World {
    let mut w = World::new(cfg);
    for t in 0..ticks {
        for &(_, input) in changes.iter().filter(|(at, _)| *at == t) {
            w.set_input(input);
        }
        w.step(dt);
    }
    w
}

proptest! {
    #[test]
    fn replaying_the_input_log_reproduces_the_hash(
        changes in prop::collection::vec((0u64..240, input_strategy()), 0..20),
        dt in prop::sample::select(vec![TICK, 6_944_444, 20_000_000, 100_000_000]),
    ) {
        let cfg = config();
        let original = play(&cfg, &changes, dt, 240);
        let replayed = World::replay(&cfg, original.input_log(), dt, 240);
        prop_assert_eq!(replayed.hash(), original.hash());
        prop_assert_eq!(replayed.input_log(), original.input_log());
    }

    #[test]
    fn variable_steps_replay_too(dts in prop::collection::vec(0u64..200_000_000, 1..120), fire_at in 0u64..120) {
        let cfg = config();
        let mut w = World::new(&cfg);
        for (i, dt) in dts.iter().enumerate() {
            w.set_input(if i as u64 >= fire_at { Input::FIRE | Input::LEFT } else { Input::NONE });
            w.step(*dt);
        }
        let replayed = World::replay_steps(&cfg, w.input_log(), dts.iter().copied());
        prop_assert_eq!(replayed.hash(), w.hash());
    }

    #[test]
    fn the_wrapper_is_never_drawn_mid_screen_when_it_wraps(
        dt in 1_000_000u64..200_000_000,
        alpha in 0.0f64..=1.0,
        steps in 1u64..400,
    ) {
        let mut w = World::new(&config());
        for _ in 0..steps {
            w.step(dt);
            let state = w.mover(MoverKind::Wrapper);
            let pos = drawn(&w, View::Interpolate { alpha }, SpriteCell::Wrapper)[0].position;
            if state.teleported {
                prop_assert_eq!(pos, [state.current.pos[0] as f32, state.current.pos[1] as f32]);
            }
            // Never further from the current pose than one step of its own motion.
            let (px, py) = (state.previous.pos[0] as f32, state.previous.pos[1] as f32);
            let (cx, cy) = (state.current.pos[0] as f32, state.current.pos[1] as f32);
            let reach = if state.teleported { 0.0 } else { (cx - px).hypot(cy - py) };
            let dist = (pos[0] - cx).hypot(pos[1] - cy);
            prop_assert!(dist <= reach + 1e-3, "drawn {:?} is {} px from the current pose (step moved {} px)", pos, dist, reach);
        }
    }

    #[test]
    fn particles_are_never_drawn_before_birth_nor_after_death(
        dts in prop::collection::vec(1u64..300_000_000, 1..60),
        alpha in 0.0f64..=1.0,
    ) {
        let mut w = World::new(&config());
        for dt in dts {
            w.step(dt);
            let now = w.sim_time();
            let alive = (0..)
                .take_while(|&n| particle_birth(n) <= now)
                .filter(|&n| now - particle_birth(n) < PARTICLE_LIFETIME)
                .count();
            for view in [View::Latest, View::Interpolate { alpha }] {
                let n = drawn(&w, view, SpriteCell::Particle).len();
                prop_assert_eq!(n, alive, "at {} ns", now);
            }
        }
    }
}

#[test]
fn one_different_input_changes_the_hash() {
    let cfg = config();
    let a = play(&cfg, &[(10, Input::UP), (40, Input::NONE)], TICK, 120);
    let b = play(&cfg, &[(10, Input::UP), (41, Input::NONE)], TICK, 120);
    assert_ne!(a.hash(), b.hash(), "holding UP one tick longer is a different game");
    let c = play(&cfg, &[(10, Input::UP), (40, Input::NONE)], TICK, 120);
    assert_eq!(a.hash(), c.hash(), "the same inputs are the same game");
}

#[test]
fn an_input_log_with_only_a_fire_press_differs_from_none() {
    let cfg = config();
    let mut log = InputLog::default();
    log.record(5, Input::FIRE);
    let fired = World::replay(&cfg, &log, TICK, 60);
    let idle = World::replay(&cfg, &InputLog::default(), TICK, 60);
    assert_ne!(fired.hash(), idle.hash(), "the kick changed the ball");
}

#[test]
fn the_spinner_is_interpolated_the_short_way_across_180_degrees() {
    let mut w = World::new(&config());
    let mut crossings = 0;
    for _ in 0..600 {
        w.step(TICK);
        let s = w.mover(MoverKind::Spinner);
        let (a, b) = (s.previous.rot, s.current.rot);
        if (a - b).abs() <= std::f64::consts::PI {
            continue;
        }
        crossings += 1;
        // The step crossed ±180°: every interpolated angle must lie near ±180°, never near 0.
        for alpha in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let rot = f64::from(drawn(&w, View::Interpolate { alpha }, SpriteCell::Spinner)[0].rotation);
            assert!(
                rot.abs() > 2.5,
                "alpha {alpha}: {:.1}° between {:.1}° and {:.1}°",
                rot.to_degrees(),
                a.to_degrees(),
                b.to_degrees()
            );
        }
    }
    assert!(crossings > 5, "ten seconds of spinning cross ±180° many times, saw {crossings}");
}

#[test]
fn ghosts_show_where_the_movers_truly_are() {
    let mut w = World::new(&config());
    for _ in 0..37 {
        w.step(TICK);
    }
    let mut out = Vec::new();
    let at = w.sim_time() + 3_000_000;
    w.write_ghosts(at, &mut out);
    assert_eq!(out.len(), MoverKind::ALL.len());
    for (g, kind) in out.iter().zip(MoverKind::ALL) {
        let truth = w.mover_pose_at(kind, at);
        assert_eq!(g.position, [truth.pos[0] as f32, truth.pos[1] as f32], "{} ghost", kind.name());
        assert_eq!(g.atlas, SpriteCell::Ghost.atlas_rect());
        assert_ne!(g.flags & Instance::FLAG_OUTLINE, 0);
    }
}

#[test]
fn the_ball_is_drawn_as_an_sdf_circle() {
    let w = World::new(&config());
    let ball = drawn(&w, View::Latest, SpriteCell::Ball);
    assert_eq!(ball.len(), 1);
    assert_ne!(ball[0].flags & Instance::FLAG_SDF_CIRCLE, 0, "the ball uses the SDF path");
}

#[test]
fn a_hundred_thousand_load_sprites_step_and_draw() {
    let cfg = WorldConfig { extra_sprites: 100_000, ..WorldConfig::default() };
    let mut w = World::new(&cfg);
    let mut out = Vec::with_capacity(w.max_instances());
    for _ in 0..3 {
        w.step(TICK);
        w.write_instances(View::Interpolate { alpha: 0.5 }, &mut out);
    }
    assert_eq!(out.len(), w.entity_count());
    assert!(w.entity_count() > 100_000);
}
