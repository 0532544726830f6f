//! A lane's world: the smallest scene that shows what a loop strategy does to motion.
//!
//! Lane mode (`C`, `--lanes`) splits the playfield into horizontal strips, one
//! per strategy, each with its own [`LaneWorld`] fed the same frames. A lane
//! holds two things, each in its own band:
//!
//! ```text
//!   ┌───────────────────────────── lane (width × height) ─────────────────────────────┐
//!   │  ▬▬►  runner: constant speed, wraps off the lane's ends            runner band   │ 40 %
//!   │─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─ ─│
//!   │        ●                  ball: elastic bounces, closed-form flight    ball band │ 60 %
//!   └──────────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! - The runner is the demo's smoothness reference (a TestUFO lane): a
//!   closed-form function of the integer sim time, so every strategy's lane
//!   has it at the same place for the same sim time, and any unevenness seen
//!   is the strategy's.
//! - The ball is the seed-003 ball without losses (restitution, friction and
//!   drag 1), so it bounces for as long as the lane runs instead of coming to
//!   rest: its flight is exact, so a variable step moves it like fixed ones,
//!   and interpolation cutting the corner at a bounce, or extrapolation
//!   overshooting into the floor, is visible.
//!
//! Both are sized from the lane's height, so ten lanes on a 720-pixel playfield
//! still show a runner and a bounce. Drawing never changes the world (seed
//! 000); a lane that does not run (a strategy that needs the loop) is drawn
//! [`Look::Dimmed`] at its last state.

use super::ball::{Ball, BallParams};
use super::instance::{Instance, SpriteCell};
use super::movers::{Mover, MoverKind, secs};
use crate::host::Simulation;
use crate::strategy::View;
use crate::time::{NANOS_PER_SEC, Nanos};

/// Instances [`LaneWorld::write_instances`] appends: the runner and the ball.
pub(crate) const LANE_INSTANCES: usize = 2;

/// Share of the lane's height the runner's band takes (the ball has the rest).
const RUNNER_BAND: f64 = 0.4;

/// The smallest lane accepted, px: below this nothing readable moves.
const MIN_SIZE: [f64; 2] = [64.0, 16.0];

/// One full bounce of the ball (floor to floor): slow enough to follow with the
/// eye, fast enough that several bounces happen while the runner crosses.
const BOUNCE_PERIOD: Nanos = NANOS_PER_SEC;

/// How high the ball flies, as a share of its band's free height: below the
/// ceiling, so a bounce off the floor is the only impact besides the side walls.
const APEX_SHARE: f64 = 0.85;

/// The ball's horizontal speed, px/s: slower than the runner, so the two are told apart.
const BALL_SPEED_X: f64 = 300.0;

/// The ball's colour: the demo's warm coral.
const BALL_COLOR: [f32; 4] = [0.98, 0.45, 0.35, 1.0];

/// How much of its colour a dimmed lane keeps (premultiplied blending: alpha dims).
const DIM_ALPHA: f32 = 0.3;

/// How a lane is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Look {
    /// The lane runs: full colour.
    Live,
    /// The lane does not run (its strategy needs the loop): faded.
    Dimmed,
}

/// A runner and a lossless bouncing ball in one lane. See the module docs.
#[derive(Clone, Debug)]
pub(crate) struct LaneWorld {
    size: [f64; 2],
    tick: u64,
    time: Nanos,
    runner: Mover,
    /// The drawn runner's size: the demo's runner, shrunk to fit a thin band.
    runner_size: [f32; 2],
    ball: Ball,
    /// Upward speed that reaches the apex from the floor: a ball put to rest is relaunched with it.
    launch_speed: f64,
}

impl LaneWorld {
    /// A lane `size` = `[width, height]` playfield pixels wide and tall, at time
    /// 0. Sides below 64 × 16 px (or not finite) are raised to that.
    pub(crate) fn new(size: [f32; 2]) -> LaneWorld {
        let side = |x: f32, min: f64| if x.is_finite() { f64::from(x).max(min) } else { min };
        let (width, height) = (side(size[0], MIN_SIZE[0]), side(size[1], MIN_SIZE[1]));
        let band = RUNNER_BAND * height;
        let kind = MoverKind::Runner.size();
        let runner_h = kind[1].min((0.7 * band) as f32);
        let ball_band = height - band;
        let radius = (0.2 * ball_band).clamp(2.0, 22.0);
        let apex = APEX_SHARE * (ball_band - 2.0 * radius);
        let period = secs(BOUNCE_PERIOD);
        // Floor to floor in `period`: apex = g·(period/2)²/2.
        let gravity = 8.0 * apex / (period * period);
        let params = BallParams {
            radius,
            gravity,
            drag: 1.0,
            restitution: 1.0,
            friction: 1.0,
            rolling: 1.0,
            // At the apex, a quarter of the way across, heading right.
            start_pos: [radius + 0.25 * (width - 2.0 * radius), ball_band - radius - apex],
            start_vel: [BALL_SPEED_X, 0.0],
            relaunch_after: 0,
        };
        LaneWorld {
            size: [width, height],
            tick: 0,
            time: 0,
            runner: Mover::runner(width, 0.5 * band),
            runner_size: [runner_h * kind[0] / kind[1], runner_h],
            ball: Ball::new(&params, width, ball_band),
            launch_speed: (2.0 * gravity * apex).sqrt(),
        }
    }

    /// Back to time 0 with the same size.
    pub(crate) fn reset(&mut self) {
        *self = LaneWorld::new(self.size());
    }

    /// The lane's size, playfield pixels (after raising tiny sides).
    pub(crate) fn size(&self) -> [f32; 2] {
        [self.size[0] as f32, self.size[1] as f32]
    }

    /// Steps taken.
    #[cfg(test)]
    pub(crate) fn tick(&self) -> u64 {
        self.tick
    }

    /// Sim time: the exact sum of all step durations.
    #[cfg(test)]
    pub(crate) fn sim_time(&self) -> Nanos {
        self.time
    }

    /// The runner's previous and current pose, lane coordinates.
    #[cfg(test)]
    pub(crate) fn runner(&self) -> super::movers::MoverState {
        self.runner.state()
    }

    /// The ball after the last step, in its band's coordinates (y from the band's top).
    #[cfg(test)]
    pub(crate) fn ball(&self) -> super::ball::BallState {
        self.ball.state()
    }

    /// The ball's physics object (bounds, bounces, energy).
    #[cfg(test)]
    pub(crate) fn ball_physics(&self) -> &Ball {
        &self.ball
    }

    /// Appends the runner and the ball as `view` says, shifted by `origin`
    /// (the lane's top-left corner in the playfield). Never mutates the world;
    /// allocates only if `out` lacks room for [`LANE_INSTANCES`] more.
    pub(crate) fn write_instances(&self, view: View, origin: [f32; 2], look: Look, out: &mut Vec<Instance>) {
        let alpha = match look {
            Look::Live => 1.0,
            Look::Dimmed => DIM_ALPHA,
        };
        let runner = self.runner.drawn(view, self.time);
        let mut instance = self.runner.instance(runner);
        instance.position = [origin[0] + instance.position[0], origin[1] + instance.position[1]];
        instance.size = self.runner_size;
        instance.color[3] *= alpha;
        out.push(instance);

        let pos = self.ball.drawn_pos(view);
        let band = (RUNNER_BAND * self.size[1]) as f32;
        let d = (2.0 * self.ball.params().radius) as f32;
        let [r, g, b, a] = BALL_COLOR;
        out.push(Instance {
            position: [origin[0] + pos[0] as f32, origin[1] + band + pos[1] as f32],
            size: [d, d],
            rotation: 0.0,
            flags: Instance::FLAG_SDF_CIRCLE,
            color: [r, g, b, a * alpha],
            atlas: SpriteCell::Ball.atlas_rect(),
        });
    }
}

impl Simulation for LaneWorld {
    fn step(&mut self, dt: Nanos) {
        let previous = self.time;
        self.time = self.time.saturating_add(dt);
        self.runner.advance(previous, self.time);
        self.ball.step(dt, 1);
        if self.ball.is_resting() {
            // A step longer than a hop (a hitch under `variable`) ends in the
            // resting clamp; the lane's ball is there to bounce, so it goes on.
            self.ball.set_velocity([self.ball.state().vel[0], -self.launch_speed]);
        }
        self.tick += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::movers::RUNNER_SPEED;

    const TICK: Nanos = 16_666_667;

    /// A lane as ten lanes on the demo's 1280 × 720 playfield make it.
    fn lane() -> LaneWorld {
        LaneWorld::new([934.0, 70.0])
    }

    fn run(world: &mut LaneWorld, steps: u32, dt: Nanos) {
        for _ in 0..steps {
            world.step(dt);
        }
    }

    #[test]
    fn both_sprites_are_drawn_inside_their_lane_shifted_by_its_origin() {
        let mut world = lane();
        let origin = [346.0, 144.0];
        let mut out = Vec::new();
        for _ in 0..600 {
            world.step(TICK);
            out.clear();
            world.write_instances(View::Interpolate { alpha: 0.5 }, origin, Look::Live, &mut out);
            assert_eq!(out.len(), LANE_INSTANCES);
            for i in &out {
                let y = i.position[1] - origin[1];
                let (top, bottom) = (y - 0.5 * i.size[1], y + 0.5 * i.size[1]);
                assert!(top > -1e-3 && bottom < 70.0 + 1e-3, "{i:?} leaves the lane's height");
            }
            let ball = out[1].position[0] - origin[0];
            let (left, right) = (ball - 0.5 * out[1].size[0], ball + 0.5 * out[1].size[0]);
            assert!(left > -1e-3 && right < 934.0 + 1e-3, "ball at {ball} leaves the lane");
        }
        assert_eq!(out[0].atlas, SpriteCell::Runner.atlas_rect());
        assert_eq!(out[1].flags, Instance::FLAG_SDF_CIRCLE);
    }

    #[test]
    fn the_runner_crosses_the_lane_at_the_demo_runners_speed() {
        let mut world = lane();
        let x0 = world.runner().current.pos[0];
        run(&mut world, 60, TICK);
        let moved = world.runner().current.pos[0] - x0;
        let expected = RUNNER_SPEED * secs(60 * TICK);
        assert!((moved - expected).abs() < 0.01, "moved {moved} px in 60 ticks, expected {expected}");
        assert!(world.runner().current.pos[1] == 14.0, "the runner runs in the middle of the top 40 % of 70 px");
    }

    #[test]
    fn the_ball_keeps_bouncing_without_losing_energy() {
        let mut world = lane();
        let energy = world.ball_physics().energy();
        run(&mut world, 60 * 60, TICK);
        let ball = world.ball_physics();
        // One floor bounce a second, a side wall every 3 s (917 px at 300 px/s).
        assert!((75..=85).contains(&ball.bounces()), "a minute of bounces: {}", ball.bounces());
        assert!(!ball.is_resting(), "a lossless ball never comes to rest");
        let drift = (ball.energy() - energy).abs() / energy;
        assert!(drift < 1e-6, "energy drifted by a fraction {drift}");
    }

    #[test]
    fn variable_steps_put_the_runner_where_fixed_steps_do() {
        let (mut fixed, mut variable) = (lane(), lane());
        run(&mut fixed, 120, TICK);
        let mut left = 120 * TICK;
        for dt in [TICK / 3, 2 * TICK + 5, TICK - 5, 3 * TICK + 12_345].iter().cycle() {
            let d = (*dt).min(left);
            variable.step(d);
            left -= d;
            if left == 0 {
                break;
            }
        }
        assert_eq!(fixed.sim_time(), variable.sim_time());
        assert_eq!(fixed.runner().current, variable.runner().current, "a closed form of the same sim time");
        let (a, b) = (fixed.ball().pos, variable.ball().pos);
        assert!((a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6, "exact flight: {a:?} vs {b:?}");
    }

    #[test]
    fn a_ball_put_to_rest_by_a_step_longer_than_a_hop_is_launched_again() {
        let mut world = lane();
        world.step(2 * NANOS_PER_SEC);
        let ball = world.ball_physics();
        assert!(!ball.is_resting(), "two seconds in one step end on the floor, and the ball leaves it again");
        assert!(ball.state().vel[1] < 0.0, "upwards: {:?}", ball.state());
        run(&mut world, 120, TICK);
        assert!(world.ball_physics().bounces() > 2, "and goes on bouncing");
    }

    #[test]
    fn drawing_never_changes_the_world_and_dimming_only_fades() {
        let mut world = lane();
        run(&mut world, 37, TICK);
        let (runner, ball, tick) = (world.runner(), world.ball(), world.tick());
        let (mut live, mut dim) = (Vec::new(), Vec::new());
        let view = View::Extrapolate { ahead: TICK / 2 };
        world.write_instances(view, [0.0, 0.0], Look::Live, &mut live);
        world.write_instances(view, [0.0, 0.0], Look::Dimmed, &mut dim);
        assert_eq!((world.runner(), world.ball(), world.tick()), (runner, ball, tick), "render never mutates");
        for (l, d) in live.iter().zip(&dim) {
            assert_eq!((l.position, l.size, l.color[..3].to_vec()), (d.position, d.size, d.color[..3].to_vec()));
            assert_eq!(d.color[3], l.color[3] * DIM_ALPHA, "a dimmed lane is the same picture, faded");
        }
    }

    #[test]
    fn a_tiny_or_nonsense_lane_is_raised_to_the_smallest_usable_size() {
        let mut world = LaneWorld::new([f32::NAN, 3.0]);
        assert_eq!(world.size(), [64.0, 16.0]);
        run(&mut world, 100, TICK);
        let ball = world.ball();
        assert!(ball.pos.iter().chain(&ball.vel).all(|x| x.is_finite()), "{ball:?}");
        world.reset();
        assert_eq!((world.tick(), world.sim_time()), (0, 0), "reset goes back to time 0");
    }
}
