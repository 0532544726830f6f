//! Seed 003's ball: never escapes, never NaN, conserves energy when lossless,
//! rests when at rest, and integrates time exactly (unlike the naive form).

use proptest::prelude::*;
use timestep_lab::sim::ball::{Ball, BallParams, BallState, free_flight};
use timestep_lab::time::NANOS_PER_SEC;

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

fn inside(ball: &Ball) -> bool {
    let (lo, hi) = ball.bounds();
    let s = ball.state();
    (0..2).all(|i| s.pos[i] >= lo[i] && s.pos[i] <= hi[i])
}

/// The "obvious" per-step integration seed 001 warns about.
fn naive(mut s: BallState, gravity: f64, drag: f64, dt: f64) -> BallState {
    s.vel[1] += gravity * dt;
    for i in 0..2 {
        s.vel[i] *= drag.powf(dt);
        s.pos[i] += s.vel[i] * dt;
    }
    s
}

#[test]
fn two_closed_form_steps_equal_one_double_step_but_naive_steps_do_not() {
    let s = BallState { pos: [300.0, 200.0], vel: [420.0, -650.0] };
    let (g, drag, dt) = (1800.0, 0.8, 1.0 / 60.0);
    let exact_two = free_flight(free_flight(s, g, drag, dt), g, drag, dt);
    let exact_one = free_flight(s, g, drag, 2.0 * dt);
    let naive_two = naive(naive(s, g, drag, dt), g, drag, dt);
    let naive_one = naive(s, g, drag, 2.0 * dt);
    for i in 0..2 {
        assert!(
            rel(exact_two.pos[i], exact_one.pos[i]) < 1e-12,
            "closed form pos[{i}]: {exact_two:?} vs {exact_one:?}"
        );
        assert!(
            rel(exact_two.vel[i], exact_one.vel[i]) < 1e-12,
            "closed form vel[{i}]: {exact_two:?} vs {exact_one:?}"
        );
    }
    let naive_err = rel(naive_two.pos[1], naive_one.pos[1]);
    assert!(naive_err > 1e-9, "the naive form depends on the step size: relative difference {naive_err}");
}

#[test]
fn lossless_bounces_conserve_energy_over_ten_thousand_impacts() {
    let params = BallParams {
        radius: 20.0,
        gravity: 1800.0,
        drag: 1.0,
        restitution: 1.0,
        friction: 1.0,
        rolling: 1.0,
        start_pos: [200.0, 150.0],
        start_vel: [1900.0, 300.0],
        relaunch_after: 0,
    };
    let mut ball = Ball::new(&params, 640.0, 360.0);
    let e0 = ball.energy();
    let mut worst: f64 = 0.0;
    let mut steps = 0u64;
    while ball.bounces() < 10_000 {
        ball.step(NANOS_PER_SEC / 60, 1);
        worst = worst.max(rel(ball.energy(), e0));
        steps += 1;
        assert!(steps < 10_000_000, "10^4 bounces should take far fewer steps");
    }
    assert!(worst < 1e-6, "energy drifted by {worst:e} relative over {} bounces", ball.bounces());
    assert!(!ball.is_resting(), "a lossless ball never comes to rest");
}

#[test]
fn a_resting_ball_stays_at_rest_for_any_step_sequence() {
    let params =
        BallParams { start_pos: [300.0, 1e6], start_vel: [0.0, 0.0], relaunch_after: 0, ..BallParams::default() };
    let mut ball = Ball::new(&params, 640.0, 360.0);
    let at_rest = ball.state();
    assert!(ball.is_resting());
    for (i, dt) in [0, 1, NANOS_PER_SEC / 60, NANOS_PER_SEC, 7_777_777].into_iter().cycle().take(500).enumerate() {
        ball.step(dt, (i % 5) as u32);
        assert_eq!(ball.state(), at_rest, "step {i} (dt {dt} ns) moved a resting ball");
    }
}

proptest! {
    #[test]
    fn the_ball_never_leaves_the_box_nor_becomes_nan(
        dts in prop::collection::vec(0u64..=NANOS_PER_SEC, 1..40),
        vel in (-5000.0f64..5000.0, -5000.0f64..5000.0),
        pos in (0.0f64..1.0, 0.0f64..1.0),
        substeps in 0u32..=8,
        gravity in -4000.0f64..4000.0,
        drag in 0.01f64..=1.0,
        restitution in 0.0f64..=1.0,
        friction in 0.0f64..=1.0,
        size in (60.0f64..1500.0, 60.0f64..900.0),
    ) {
        let params = BallParams {
            radius: 15.0,
            gravity,
            drag,
            restitution,
            friction,
            rolling: 0.5,
            start_pos: [pos.0 * size.0, pos.1 * size.1],
            start_vel: [vel.0, vel.1],
            relaunch_after: 0,
        };
        let mut ball = Ball::new(&params, size.0, size.1);
        for dt in dts {
            ball.step(dt, substeps);
            let s = ball.state();
            prop_assert!(s.pos.iter().chain(&s.vel).all(|x| x.is_finite()), "non-finite state {:?}", s);
            prop_assert!(inside(&ball), "left the box: {:?} not in {:?}", s, ball.bounds());
        }
    }

    #[test]
    fn two_steps_of_dt_equal_one_of_two_dt_for_any_flight(
        dt in 0.0f64..0.5,
        vel in (-3000.0f64..3000.0, -3000.0f64..3000.0),
        gravity in -3000.0f64..3000.0,
        drag in 0.05f64..=1.0,
    ) {
        let s = BallState { pos: [500.0, 400.0], vel: [vel.0, vel.1] };
        let two = free_flight(free_flight(s, gravity, drag, dt), gravity, drag, dt);
        let one = free_flight(s, gravity, drag, 2.0 * dt);
        for i in 0..2 {
            // Relative to the scale of the motion, so values passing through zero are fair.
            let scale = s.pos[i].abs() + s.vel[i].abs() + gravity.abs();
            prop_assert!((two.pos[i] - one.pos[i]).abs() <= 1e-12 * scale, "pos[{}] {} vs {}", i, two.pos[i], one.pos[i]);
            prop_assert!((two.vel[i] - one.vel[i]).abs() <= 1e-12 * scale, "vel[{}] {} vs {}", i, two.vel[i], one.vel[i]);
        }
    }
}
