//! The world: everything that moves, stepped by the loop and drawn by views.
//!
//! ```text
//!            set_input(i) ──► pending ──┐ (applied at the next step, logged on change)
//!                                       ▼
//!  step(dt):  time += dt ─► input ─► ball (exact flight + bounces, sub-steps)
//!                                 ─► movers (poses from the integer time)
//!                                 ─► player, particles, load sprites
//!                                 ─► tick += 1            previous := current everywhere
//!
//!  write_instances(view, out):  out.clear(); one Instance per entity, as
//!      Latest → current, Interpolate{α} → lerp(previous, current, α),
//!      Extrapolate{ahead} → current + velocity × ahead        (never mutates)
//!  write_ghosts(at, out):       where each analytic mover truly is at `at`
//! ```
//!
//! Determinism: the state is a pure function of the config, the sequence of
//! step durations and the input log. [`World::hash`] folds every bit of it
//! into one number, and [`World::replay`] rebuilds a run from its log, so a
//! test can show that catch-up on a 60 Hz display and interpolation on a
//! 144 Hz one computed *the same game*.
//!
//! Allocation: everything is sized in [`World::new`]; a step and a
//! `write_instances` into a buffer with [`World::max_instances`] capacity
//! allocate nothing (the input log grows only when input changes, and starts
//! with room for [`INPUT_LOG_CAPACITY`] changes).

use super::ball::{Ball, BallParams, BallState};
use super::hash::Fnv1a;
use super::input::{Input, InputLog};
use super::instance::{Instance, SpriteCell};
use super::load_sprites::LoadSprites;
use super::movers::{MoverKind, MoverState, Pose, secs};
use super::particles::{PARTICLE_CAPACITY, Particles};
use super::player::Player;
use crate::host::Simulation;
use crate::strategy::View;
use crate::time::Nanos;

/// Input changes the log holds before it first has to grow.
pub const INPUT_LOG_CAPACITY: usize = 4096;

/// Entities that always exist: ball, runner, orbiter, spinner, wrapper, player.
pub const FIXED_ENTITIES: usize = 6;

/// Ghost markers [`World::write_ghosts`] appends: one per analytic mover.
pub const GHOSTS: usize = MoverKind::ALL.len();

/// The smallest playfield side accepted, px (everything has to fit in it).
const MIN_SIDE: f32 = 128.0;

/// The ball's colour: warm coral.
const BALL_COLOR: [f32; 4] = [0.98, 0.45, 0.35, 1.0];

/// Horizontal speed of a relaunch, px/s.
const LAUNCH_SPEED_X: f64 = 420.0;

/// What the world is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldConfig {
    /// Playfield width in pixels.
    pub width: f32,
    /// Playfield height in pixels.
    pub height: f32,
    /// Extra bouncing squares for load (0 in the demo; benchmarks use 100 000).
    pub extra_sprites: usize,
    /// Seed for everything random (load sprites, particles).
    pub seed: u64,
    /// The ball's physics.
    pub ball: BallParams,
    /// Equal ball sub-steps per step (seed 003 uses 4; 0 counts as 1).
    pub ball_substeps: u32,
}

impl Default for WorldConfig {
    fn default() -> Self {
        WorldConfig {
            width: 1280.0,
            height: 720.0,
            extra_sprites: 0,
            seed: 0x7157_E9AB,
            ball: BallParams::default(),
            ball_substeps: 1,
        }
    }
}

impl WorldConfig {
    /// This config with a playfield every entity fits in: non-finite or tiny
    /// sides become [`MIN_SIDE`] or the default, sub-steps at least 1.
    fn sanitized(&self) -> WorldConfig {
        let side = |x: f32, fallback: f32| if x.is_finite() { x.max(MIN_SIDE) } else { fallback };
        let defaults = WorldConfig::default();
        let c = WorldConfig {
            width: side(self.width, defaults.width),
            height: side(self.height, defaults.height),
            ball_substeps: self.ball_substeps.max(1),
            ..*self
        };
        if c != *self {
            log::warn!("world config adjusted: {}x{} px, {} ball sub-steps", c.width, c.height, c.ball_substeps);
        }
        c
    }
}

/// The simulated world. See the module docs.
#[derive(Clone, Debug)]
pub struct World {
    config: WorldConfig,
    tick: u64,
    time: Nanos,
    prev_time: Nanos,
    pending: Input,
    applied: Input,
    log: InputLog,
    ball: Ball,
    rest_since: Option<Nanos>,
    movers: [super::movers::Mover; 4],
    player: Player,
    particles: Particles,
    load: LoadSprites,
}

impl World {
    /// A world at time 0, tick 0, nothing held.
    pub fn new(config: &WorldConfig) -> World {
        let config = config.sanitized();
        let (w, h) = (f64::from(config.width), f64::from(config.height));
        World {
            config,
            tick: 0,
            time: 0,
            prev_time: 0,
            pending: Input::NONE,
            applied: Input::NONE,
            log: InputLog::with_capacity(INPUT_LOG_CAPACITY),
            ball: Ball::new(&config.ball, w, h),
            rest_since: None,
            movers: MoverKind::ALL.map(|k| super::movers::Mover::new(k, w, h)),
            player: Player::new(w, h),
            particles: Particles::new(w, h, config.seed),
            load: LoadSprites::new(config.extra_sprites, config.width, config.height, config.seed),
        }
    }

    /// Rebuilds the run recorded in `log`: `ticks` steps of `dt` each.
    pub fn replay(config: &WorldConfig, log: &InputLog, dt: Nanos, ticks: u64) -> World {
        World::replay_steps(config, log, (0..ticks).map(|_| dt))
    }

    /// Rebuilds a run recorded in `log` with one step per duration in `dts`
    /// (variable steps replay too, given the same durations).
    pub fn replay_steps(config: &WorldConfig, log: &InputLog, dts: impl IntoIterator<Item = Nanos>) -> World {
        let mut world = World::new(config);
        let mut events = log.entries().iter().peekable();
        for dt in dts {
            while let Some(e) = events.next_if(|e| e.tick <= world.tick) {
                world.set_input(e.input);
            }
            world.step(dt);
        }
        world
    }

    /// Back to the initial state with the same config (the input log is cleared).
    pub(crate) fn reset(&mut self) {
        *self = World::new(&self.config);
    }

    /// The (sanitised) config.
    pub(crate) fn config(&self) -> &WorldConfig {
        &self.config
    }

    /// Steps taken.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// Sim time: the exact sum of all step durations.
    pub fn sim_time(&self) -> Nanos {
        self.time
    }

    /// Entities alive now (what `write_instances` draws).
    pub fn entity_count(&self) -> usize {
        FIXED_ENTITIES + self.particles.len() + self.load.len()
    }

    /// The most instances `write_instances` can ever write; reserve this
    /// (plus [`GHOSTS`]) once and drawing never allocates.
    pub fn max_instances(&self) -> usize {
        FIXED_ENTITIES + PARTICLE_CAPACITY + self.load.len()
    }

    /// Sets the input held from the next step on.
    pub fn set_input(&mut self, input: Input) {
        self.pending = input;
    }

    /// The input the last step used.
    #[cfg(test)]
    pub(crate) fn input(&self) -> Input {
        self.applied
    }

    /// Every input change that took effect, with the step it took effect at.
    pub fn input_log(&self) -> &InputLog {
        &self.log
    }

    /// The ball after the last step.
    pub fn ball(&self) -> BallState {
        self.ball.state()
    }

    /// The ball before the last step.
    pub fn previous_ball(&self) -> BallState {
        self.ball.previous()
    }

    /// The ball's physics object (bounds, bounce count, energy, resting).
    #[cfg(test)]
    pub(crate) fn ball_physics(&self) -> &Ball {
        &self.ball
    }

    /// A mover's previous and current pose.
    pub fn mover(&self, kind: MoverKind) -> MoverState {
        self.movers[kind as usize].state()
    }

    /// Where a mover truly is at sim time `at` (exact, also between ticks).
    pub fn mover_pose_at(&self, kind: MoverKind, at: Nanos) -> Pose {
        self.movers[kind as usize].pose_at(at)
    }

    /// The player's centre after the last step.
    #[cfg(test)]
    pub(crate) fn player(&self) -> [f64; 2] {
        self.player.position()
    }

    /// FNV-1a over the bit patterns of the whole state (not the pending input,
    /// which has not acted yet). Equal hashes: the same game.
    pub fn hash(&self) -> u64 {
        let mut h = Fnv1a::new();
        h.u64(self.tick);
        h.u64(self.time);
        h.u64(self.prev_time);
        h.u64(u64::from(self.applied.bits()));
        for s in [self.ball.previous(), self.ball.state()] {
            for x in s.pos.iter().chain(&s.vel) {
                h.f64(*x);
            }
        }
        h.u64(self.ball.bounces());
        h.u64(self.rest_since.map_or(u64::MAX, |t| t));
        for m in &self.movers {
            m.hash_into(&mut h);
        }
        self.player.hash_into(&mut h);
        self.particles.hash_into(&mut h);
        self.load.hash_into(&mut h);
        h.finish()
    }

    /// Kicks the ball up to about 70 % of the playfield height, towards the centre.
    fn launch_ball(&mut self) {
        let (lo, hi) = self.ball.bounds();
        let g = self.ball.params().gravity;
        let vy = if g == 0.0 { -600.0 } else { -g.signum() * (2.0 * g.abs() * 0.7 * (hi[1] - lo[1])).sqrt() };
        let toward_centre = if self.ball.state().pos[0] < 0.5 * (lo[0] + hi[0]) { 1.0 } else { -1.0 };
        self.ball.set_velocity([toward_centre * LAUNCH_SPEED_X, vy]);
    }

    fn advance(&mut self, dt: Nanos) {
        self.prev_time = self.time;
        self.time = self.time.saturating_add(dt);
        let input = self.pending;
        if input != self.applied {
            self.log.record(self.tick, input);
        }
        let fire_pressed = input.contains(Input::FIRE) && !self.applied.contains(Input::FIRE);
        self.applied = input;

        let relaunch = self.ball.params().relaunch_after;
        let rested_enough =
            self.rest_since.is_some_and(|s| relaunch > 0 && self.prev_time.saturating_sub(s) >= relaunch);
        if fire_pressed || rested_enough {
            self.launch_ball();
        }
        self.ball.step(dt, self.config.ball_substeps);
        self.rest_since = if self.ball.is_resting() { Some(self.rest_since.unwrap_or(self.time)) } else { None };

        for m in &mut self.movers {
            m.advance(self.prev_time, self.time);
        }
        self.player.step(input, secs(dt));
        self.tick += 1;
        self.particles.step(self.prev_time, self.time, self.tick);
        self.load.step(secs(dt) as f32);
    }

    /// Clears `out` and writes one instance per entity as `view` says, back
    /// to front: load sprites, particles, movers, player, ball. Never
    /// mutates the world; allocates only if `out` lacks capacity.
    pub fn write_instances(&self, view: View, out: &mut Vec<Instance>) {
        out.clear();
        out.reserve(self.max_instances());
        self.load.write(view, out);
        self.particles.write(view, self.tick, self.time, out);
        for m in &self.movers {
            out.push(m.instance(m.drawn(view, self.time)));
        }
        out.push(self.player.instance(view));
        out.push(self.ball_instance(view));
    }

    fn ball_instance(&self, view: View) -> Instance {
        let pos = self.ball.drawn_pos(view);
        let d = (2.0 * self.ball.params().radius) as f32;
        Instance {
            position: [pos[0] as f32, pos[1] as f32],
            size: [d, d],
            rotation: 0.0,
            flags: Instance::FLAG_SDF_CIRCLE,
            color: BALL_COLOR,
            atlas: SpriteCell::Ball.atlas_rect(),
        }
    }

    /// Appends an outline marker where each analytic mover truly is at sim
    /// time `at` ("should be here" next to "drawn here").
    pub fn write_ghosts(&self, at: Nanos, out: &mut Vec<Instance>) {
        for m in &self.movers {
            out.push(m.ghost(m.pose_at(at)));
        }
    }
}

impl Simulation for World {
    fn step(&mut self, dt: Nanos) {
        self.advance(dt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;

    const TICK: Nanos = 16_666_667;

    fn small() -> WorldConfig {
        WorldConfig { extra_sprites: 50, ..WorldConfig::default() }
    }

    fn cell_instances(out: &[Instance], cell: SpriteCell) -> Vec<Instance> {
        out.iter().filter(|i| i.atlas == cell.atlas_rect() && i.flags & Instance::FLAG_OUTLINE == 0).copied().collect()
    }

    #[test]
    fn input_takes_effect_at_the_next_step_and_is_logged_once() {
        let mut w = World::new(&small());
        w.step(TICK);
        w.set_input(Input::RIGHT);
        assert_eq!(w.input(), Input::NONE, "not applied before the next step");
        let x0 = w.player()[0];
        w.step(TICK);
        w.step(TICK);
        assert!(w.player()[0] > x0, "the player moved right");
        assert_eq!(w.input_log().entries().len(), 1, "one change, logged once");
        assert_eq!(w.input_log().entries()[0].tick, 1, "it took effect at step 1");
    }

    #[test]
    fn writing_instances_does_not_change_the_world() {
        let mut w = World::new(&small());
        for _ in 0..30 {
            w.step(TICK);
        }
        let before = w.hash();
        let mut out = Vec::new();
        for view in [View::Latest, View::Interpolate { alpha: 0.3 }, View::Extrapolate { ahead: TICK / 2 }] {
            w.write_instances(view, &mut out);
            assert_eq!(out.len(), w.entity_count(), "one instance per entity for {view:?}");
        }
        w.write_ghosts(w.sim_time(), &mut out);
        assert_eq!(w.hash(), before, "render never mutates the world");
    }

    #[test]
    fn write_instances_reuses_a_buffer_with_enough_capacity() {
        let mut w = World::new(&small());
        let mut out = Vec::with_capacity(w.max_instances() + GHOSTS);
        let ptr = out.as_ptr();
        for _ in 0..200 {
            w.step(TICK);
            w.write_instances(View::Interpolate { alpha: 0.5 }, &mut out);
            w.write_ghosts(w.sim_time(), &mut out);
        }
        assert_eq!(out.as_ptr(), ptr, "the buffer was never reallocated");
    }

    #[test]
    fn reset_returns_to_the_initial_hash() {
        let mut w = World::new(&small());
        let h0 = w.hash();
        w.set_input(Input::UP | Input::FIRE);
        for _ in 0..50 {
            w.step(TICK);
        }
        assert_ne!(w.hash(), h0, "the world moved");
        w.reset();
        assert_eq!(w.hash(), h0, "reset is the initial state");
        assert!(w.input_log().is_empty(), "and forgets the input log");
    }

    #[test]
    fn fire_kicks_the_ball_on_the_press_not_while_held() {
        let cfg = WorldConfig { ball: BallParams { relaunch_after: 0, ..BallParams::default() }, ..small() };
        let mut w = World::new(&cfg);
        for _ in 0..60 * 40 {
            w.step(TICK);
        }
        assert!(w.ball_physics().is_resting(), "without relaunch the ball comes to rest");
        w.set_input(Input::FIRE);
        w.step(TICK);
        assert!(w.ball().vel[1] < 0.0, "fire kicks it upwards");
        for _ in 0..60 * 40 {
            w.step(TICK);
        }
        assert!(w.ball_physics().is_resting(), "holding fire does not kick again");
    }

    #[test]
    fn a_resting_ball_is_relaunched_after_the_configured_time() {
        let mut w = World::new(&small());
        let mut launched = false;
        for _ in 0..60 * 60 {
            let resting = w.ball_physics().is_resting();
            w.step(TICK);
            launched |= resting && w.ball().vel[1] < 0.0;
        }
        assert!(launched, "within a minute the ball rests and is kicked up again");
    }

    #[test]
    fn fixed_and_variable_steps_put_the_analytic_movers_at_the_same_bits() {
        let mut fixed = World::new(&small());
        let mut variable = World::new(&small());
        for _ in 0..120 {
            fixed.step(TICK);
        }
        let dts = [TICK / 3, 2 * TICK, TICK + 12_345, 7];
        let mut left = 120 * TICK;
        for dt in dts.iter().cycle() {
            let d = (*dt).min(left);
            variable.step(d);
            left -= d;
            if left == 0 {
                break;
            }
        }
        assert_eq!(fixed.sim_time(), variable.sim_time());
        for kind in MoverKind::ALL {
            assert_eq!(fixed.mover(kind).current, variable.mover(kind).current, "{} differs", kind.name());
        }
        assert_ne!(fixed.hash(), variable.hash(), "the worlds as a whole differ (tick counts, ball rounding)");
    }

    #[test]
    fn ghosts_mark_the_true_pose_between_ticks() {
        let mut w = World::new(&small());
        w.step(TICK);
        w.step(TICK);
        let mut out = Vec::new();
        let at = TICK + TICK / 2;
        w.write_ghosts(at, &mut out);
        assert_eq!(out.len(), GHOSTS);
        assert!(out.iter().all(|g| g.flags & Instance::FLAG_OUTLINE != 0), "ghosts are outlines");
        let runner = w.mover_pose_at(MoverKind::Runner, at);
        assert_eq!(out[0].position, [runner.pos[0] as f32, runner.pos[1] as f32], "runner ghost at its true place");
        // Halfway through the tick the interpolated runner is at the ghost (constant speed).
        w.write_instances(View::Interpolate { alpha: 0.5 }, &mut out);
        let drawn = cell_instances(&out, SpriteCell::Runner)[0].position[0];
        assert!((drawn - runner.pos[0] as f32).abs() < 1e-3, "drawn {drawn} vs true {}", runner.pos[0]);
    }

    #[test]
    fn a_zero_step_changes_nothing_but_the_tick() {
        let mut w = World::new(&small());
        w.step(TICK);
        let (ball, time) = (w.ball(), w.sim_time());
        w.step(0);
        assert_eq!((w.ball(), w.sim_time(), w.tick()), (ball, time, 2), "dt = 0 moves nothing");
    }

    #[test]
    fn absurd_configs_are_made_usable() {
        let cfg = WorldConfig { width: f32::NAN, height: -5.0, ball_substeps: 0, ..WorldConfig::default() };
        let mut w = World::new(&cfg);
        w.step(NANOS_PER_SEC);
        assert_eq!(w.config().width, 1280.0, "NaN width falls back to the default");
        assert_eq!(w.config().height, MIN_SIDE, "a tiny height is raised");
        assert!(w.ball().pos.iter().all(|x| x.is_finite()));
    }
}
