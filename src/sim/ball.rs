//! The bouncing ball of seed 003, integrated exactly in `f64`.
//!
//! # Free flight: a closed form, not Euler
//!
//! Between walls the ball feels gravity `a` and air drag that keeps a
//! fraction `drag` of its velocity per second, i.e. a decay rate
//! `k = -ln(drag)`. The equation `v' = a - k·v` has an exact solution
//! (seed 001), per axis:
//!
//! ```text
//! v(t) = v0·e^{-kt} + a·φ1(t)            φ1(t) = (1 - e^{-kt}) / k     (→ t      as k → 0)
//! x(t) = x0 + v0·φ1(t) + a·φ2(t)         φ2(t) = (t - φ1(t)) / k       (→ t²/2   as k → 0)
//! ```
//!
//! Because it is the exact flow, two steps of `dt` land where one step of
//! `2·dt` lands (to rounding), so a variable time step moves the ball the same
//! way at every frame rate. The "obvious" `v += a·dt; v *= drag^dt; x += v·dt`
//! does not (the tests show both). `k == 0` uses the constant-acceleration
//! formula exactly; small `k·t` uses a series for `φ2` to avoid cancellation.
//!
//! # Walls: split the step at the time of impact
//!
//! ```text
//!   y
//!   │      ╭─╮          step of length T, impact at t_i:
//!   │     ╱   ╲         fly t_i, land exactly on the wall, reflect
//!   │    ╱     ╲  ╱     (normal × -restitution, tangent × friction),
//!   ├───●───────●───    then fly only the remaining T - t_i
//!   floor       t_i
//! ```
//!
//! Per (sub-)step, each axis finds the first time its coordinate leaves the
//! box. Along one axis the motion is unimodal (the velocity is monotone in
//! time), so the step splits at the turning point into at most two monotone
//! pieces, and a crossing is bracketed in one of them. For `k == 0` the
//! quadratic is solved in closed form; with drag Newton's method, started
//! from the drag-free solution, finds it a hair (2⁻⁴⁴ of the coordinate)
//! short of the wall, so the ball never tunnels (deterministic; bisection of
//! the bracket where Newton does not settle). The earlier of the two axes wins, the
//! ball flies exactly that long, bounces, and the loop continues with the
//! remaining time; no time is counted twice, and several impacts in one step
//! are fine (at most [`MAX_IMPACTS`], then the rest is flown and clamped).
//!
//! Seed 003 integrates the whole frame first and then has to *remove the
//! excess gravity* added after the impact and re-add it in the new direction.
//! Splitting the flight at the impact does that exactly: gravity only ever
//! acts for the time it really acted, on the side of the bounce it acted on.
//! Its *resting clamp* ("if the velocity changed sign again, clamp it to 0")
//! becomes: if the bounce is too weak to clear the floor before the sub-step
//! ends (the hop would land again inside the remaining time), the ball is put
//! to rest on the floor: `y = floor`, `vy = 0`. A resting ball is a pure
//! function of that state (`y == floor && vy == 0`), never moves vertically
//! again until kicked, and stays bit-for-bit at rest (it only rolls, slowed
//! by rolling friction). Sub-steps: `n` equal sub-steps per step (seed 003's
//! `Update(dt/4)` ×4); with an exact flight they only change *when* a hop is
//! small enough to rest.

use super::movers::{lerp2, secs, unit_alpha};
use crate::strategy::View;
use crate::time::{NANOS_PER_SEC, Nanos};

/// The most wall impacts resolved in one sub-step; the remaining time is then
/// flown and clamped into the box. A safety net against Zeno-like cascades in
/// corners; real bounces need one or two.
pub(crate) const MAX_IMPACTS: u32 = 32;

/// Bisection iterations when searching a time of impact with drag: more than
/// enough to shrink a bracket of a second to a few ulp.
const ROOT_ITERATIONS: u32 = 100;

/// Newton iterations for a time of impact before bisection takes over; an
/// impact of the demo's ball converges in 3–5, a slow one from a second away
/// in a dozen.
const NEWTON_ITERATIONS: u32 = 24;

/// How far short of a wall Newton's method aims a time of impact, relative to
/// the wall's coordinate (at least 1 px): 4·10⁻¹¹ px at 700 px, a thousand
/// times the rounding of a computed position, so the answer is inside the
/// box, and nothing anyone could see.
const IMPACT_APPROACH: f64 = 1.0 / (1u64 << 44) as f64;

/// How far inside the walls, relative to the distances involved, the drag-free
/// bound on a turning point must stay for [`Flight::apex_clears`] to skip
/// computing it: far above the rounding of a computed position (≈10⁻¹⁶
/// relative), far below anything that matters (10⁻⁸ px on a 700 px field).
const APEX_MARGIN: f64 = 1.0 / (1u64 << 36) as f64;

/// Below this `k·t`, `φ2` is summed as a series to avoid cancellation.
const SERIES_LIMIT: f64 = 1e-2;

/// The smallest drag factor accepted (keeps `k = -ln(drag)` finite).
const MIN_DRAG: f64 = 1e-6;

/// How the ball moves and bounces. Playfield pixels and seconds; y grows
/// downwards, so positive gravity pulls towards the bottom edge.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BallParams {
    /// Radius in pixels.
    pub radius: f64,
    /// Acceleration along +y in px/s² (down on screen).
    pub gravity: f64,
    /// Fraction of velocity kept after one second of free flight (air drag); 1 = none.
    pub drag: f64,
    /// Fraction of the normal speed kept by a bounce; 1 = perfectly elastic.
    pub restitution: f64,
    /// Fraction of the tangential speed kept by a bounce (surface friction); 1 = none.
    pub friction: f64,
    /// Fraction of the horizontal speed kept per second while resting on the floor.
    pub rolling: f64,
    /// Centre at time 0, in playfield pixels (clamped into the box).
    pub start_pos: [f64; 2],
    /// Velocity at time 0, px/s.
    pub start_vel: [f64; 2],
    /// After resting this long the world kicks the ball up again; 0 = never.
    pub relaunch_after: Nanos,
}

impl Default for BallParams {
    fn default() -> Self {
        BallParams {
            radius: 22.0,
            gravity: 1800.0,
            drag: 0.8,
            restitution: 0.82,
            friction: 0.92,
            rolling: 0.25,
            start_pos: [160.0, 140.0],
            start_vel: [520.0, -200.0],
            relaunch_after: 1_500_000_000,
        }
    }
}

/// Where the ball is and how fast it moves (px, px/s).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BallState {
    /// Centre.
    pub pos: [f64; 2],
    /// Velocity.
    pub vel: [f64; 2],
}

/// The decay rate `k` (1/s) of a per-second drag factor: `drag^t = e^{-kt}`.
pub(crate) fn decay_rate(drag: f64) -> f64 {
    let drag = if drag.is_nan() { 1.0 } else { drag.clamp(MIN_DRAG, 1.0) };
    if drag == 1.0 { 0.0 } else { -drag.ln() }
}

/// Exact free flight (no walls) for `t` seconds under `gravity` (along +y)
/// and a per-second `drag` factor.
pub fn free_flight(state: BallState, gravity: f64, drag: f64, t: f64) -> BallState {
    let k = decay_rate(drag);
    let (x, vx) = Flight { x0: state.pos[0], v0: state.vel[0], a: 0.0, k }.at(t);
    let (y, vy) = Flight { x0: state.pos[1], v0: state.vel[1], a: gravity, k }.at(t);
    BallState { pos: [x, y], vel: [vx, vy] }
}

/// Which wall of an axis: the low (`0`) or the high (`width`/`height`) one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Low,
    High,
}

/// A time of impact within a step.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Impact {
    time: f64,
    side: Side,
}

/// The outcome of flying one axis for the rest of a sub-step.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flown {
    /// It reaches a wall first.
    Hit(Impact),
    /// No wall: position and velocity at the end.
    Free(f64, f64),
}

/// How one axis leaves the box in the rest of a sub-step, before the time of
/// the impact is searched for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reach {
    /// Beyond the wall on `side` at `to`, inside at `from`, monotone between.
    Beyond { side: Side, from: f64, to: f64 },
    /// No wall: position and velocity at the end.
    Free(f64, f64),
}

/// The factors of a flight of `t` seconds at decay rate `k > 0` that do not
/// depend on where it starts: `e^{-kt}`, `φ1(t)`, `φ2(t)`. Both axes of a
/// flying ball share them, and so does every fixed step of the same length.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Basis {
    t: f64,
    k: f64,
    e: f64,
    phi1: f64,
    phi2: f64,
}

impl Basis {
    fn new(k: f64, t: f64) -> Basis {
        let u = k * t;
        // One transcendental call: e^-u = 1 + expm1(-u) loses nothing that
        // matters, and expm1 keeps phi1 accurate for small u.
        let em1 = (-u).exp_m1();
        let e = 1.0 + em1;
        let phi1 = -em1 / k;
        let phi2 = if u.abs() < SERIES_LIMIT {
            // Σ (-u)^n / (n+2)!, n = 0..=5; the next term is below 3e-17.
            t * t
                * (1.0 / 2.0 - u * (1.0 / 6.0 - u * (1.0 / 24.0 - u * (1.0 / 120.0 - u * (1.0 / 720.0 - u / 5040.0)))))
        } else {
            (t - phi1) / k
        };
        Basis { t, k, e, phi1, phi2 }
    }

    /// Whether this is the basis of `k` and `t`, bit for bit.
    fn is_for(&self, k: f64, t: f64) -> bool {
        self.k.to_bits() == k.to_bits() && self.t.to_bits() == t.to_bits()
    }
}

/// The last [`Basis`] a ball computed, kept across steps: fixed steps fly the
/// same `t` every time, so a step computes no transcendental function at all
/// unless it bounces. A cache, not state: any two compare equal.
#[derive(Clone, Copy, Debug, Default)]
struct BasisCache(Option<Basis>);

impl PartialEq for BasisCache {
    fn eq(&self, _: &BasisCache) -> bool {
        true
    }
}

impl BasisCache {
    /// The basis of `k` and `t` (`None` for `k == 0`, which needs none).
    fn get(&mut self, k: f64, t: f64) -> Option<Basis> {
        if k == 0.0 {
            return None;
        }
        match self.0 {
            Some(b) if b.is_for(k, t) => Some(b),
            _ => {
                let b = Basis::new(k, t);
                self.0 = Some(b);
                Some(b)
            }
        }
    }
}

/// One axis of free flight: start position and velocity, acceleration, decay rate.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Flight {
    x0: f64,
    v0: f64,
    a: f64,
    k: f64,
}

impl Flight {
    /// Position and velocity after `t` seconds.
    fn at(self, t: f64) -> (f64, f64) {
        self.at_with(t, None)
    }

    /// [`Flight::at`], taking the factors from `basis` when it is the one of
    /// this `k` and `t` (same bits, so the same result).
    ///
    /// Measured (callgrind, `simulate --strategy interpolated`): sharing
    /// `expm1` between the two axes of a flight saved 0.5 % of the
    /// instructions; keeping the basis across fixed steps too, with
    /// [`Flight::apex_clears`] (no `expm1` or `ln_1p` at all in a step
    /// without a bounce), 3 % more (3 499 → 3 388 per simulated frame).
    #[inline] // As `reach` and `fly_or_hit`: -3 % instructions per simulated frame, callgrind.
    fn at_with(self, t: f64, basis: Option<&Basis>) -> (f64, f64) {
        let Flight { x0, v0, a, k } = self;
        if k == 0.0 {
            return (x0 + v0 * t + 0.5 * a * t * t, v0 + a * t);
        }
        let computed;
        let b = match basis {
            Some(b) if b.is_for(k, t) => b,
            _ => {
                computed = Basis::new(k, t);
                &computed
            }
        };
        (x0 + v0 * b.phi1 + a * b.phi2, v0 * b.e + a * b.phi1)
    }

    /// Whether the velocity passes through zero at a positive time.
    fn turns(self) -> bool {
        let Flight { v0, a, .. } = self;
        !(a == 0.0 || v0 == 0.0 || (v0 > 0.0) == (a > 0.0))
    }

    /// When the velocity passes through zero, if it does at a positive time.
    fn turning_time(self) -> Option<f64> {
        let Flight { v0, a, k, .. } = self;
        if !self.turns() {
            return None;
        }
        Some(if k == 0.0 { -v0 / a } else { (-k * v0 / a).ln_1p() / k })
    }

    /// Whether the turning point, if any, is surely strictly inside
    /// `(lo, hi)` without computing it: drag only shortens the rise, so it
    /// lies within `v0²/2|a|` of the start, the drag-free rise. A rising
    /// ball far below the ceiling (half the steps) then needs neither the
    /// logarithm of [`Flight::turning_time`] nor an `expm1` at the apex.
    fn apex_clears(self, lo: f64, hi: f64) -> bool {
        if !self.turns() {
            return true;
        }
        let Flight { x0, v0, a, .. } = self;
        let rise = v0 * v0 / (2.0 * a.abs());
        let margin = APEX_MARGIN * (x0.abs() + rise);
        if v0 < 0.0 { x0 - rise - margin > lo && x0 + margin < hi } else { x0 + rise + margin < hi && x0 - margin > lo }
    }

    /// Whether and where the position leaves `[lo, hi]` in `(0, rem]` (a
    /// start on a wall moving outwards counts as leaving at 0); without
    /// leaving, the position and velocity at `rem`, which the caller would
    /// otherwise compute a second time. `basis` as in [`Flight::at_with`].
    // As a call, its entry stalled on loading the flight it was just passed
    // (two 8-byte stores forwarded into one 16-byte load): 10 % of a `paced`
    // simulation's time (perf); inlined, -3 % instructions too.
    #[inline(always)]
    fn reach(self, lo: f64, hi: f64, rem: f64, basis: Option<&Basis>) -> Reach {
        if rem.is_nan() || rem <= 0.0 {
            return Reach::Free(self.x0, self.v0);
        }
        // The motion is monotone on [0, turn] and on [turn, rem], so checking
        // the end of each piece brackets the first crossing. Where the apex
        // surely clears both walls its check is skipped, and the turn is
        // only computed for the bracket (same bits either way).
        let piece = || self.turning_time().filter(|&t| t > 0.0 && t < rem);
        let mut start = None;
        if !self.apex_clears(lo, hi) {
            let turn = piece();
            if let Some(turn) = turn {
                let (x, _) = self.at(turn);
                if x > hi {
                    return Reach::Beyond { side: Side::High, from: 0.0, to: turn };
                }
                if x < lo {
                    return Reach::Beyond { side: Side::Low, from: 0.0, to: turn };
                }
            }
            start = Some(turn.unwrap_or(0.0));
        }
        let (x, v) = self.at_with(rem, basis);
        let side = if x > hi {
            Side::High
        } else if x < lo {
            Side::Low
        } else {
            return Reach::Free(x, v);
        };
        let from = start.unwrap_or_else(|| piece().unwrap_or(0.0));
        Reach::Beyond { side, from, to: rem }
    }

    /// [`Flight::reach`] with the time of the impact, if any.
    #[inline(always)] // See `reach`.
    fn fly_or_hit(self, lo: f64, hi: f64, rem: f64, basis: Option<&Basis>) -> Flown {
        match self.reach(lo, hi, rem, basis) {
            Reach::Free(x, v) => Flown::Free(x, v),
            Reach::Beyond { side, from, to } => {
                let wall = match side {
                    Side::Low => lo,
                    Side::High => hi,
                };
                Flown::Hit(Impact { time: self.crossing(wall, side, from, to), side })
            }
        }
    }

    /// The time in `[s0, s1]` at which the monotone motion reaches `wall`,
    /// given it is inside at `s0` and beyond at `s1`: never a time at which
    /// it is beyond (the ball never tunnels).
    #[inline(never)] // Keeps the inlined flight above small: 1 step in 20 needs it.
    fn crossing(self, wall: f64, side: Side, s0: f64, s1: f64) -> f64 {
        if self.k == 0.0
            && let Some(t) = quadratic_crossing(self.x0 - wall, self.v0, self.a, s0, s1)
        {
            return t;
        }
        self.newton_crossing(wall, side, s0, s1).unwrap_or_else(|| self.bisect_crossing(wall, side, s0, s1))
    }

    /// [`Flight::crossing`] by Newton's method on `x(t) = wall ∓ ε`, aiming
    /// [`IMPACT_APPROACH`] short of the wall so that the answer is inside
    /// despite rounding. It starts at the end of the bracket from which it
    /// converges monotonically: the far end where the motion accelerates
    /// towards the wall (tangents undershoot), the near end where it
    /// decelerates (drag); `x''(t) = (a − k·v0)·e^{−kt}` keeps its sign.
    /// It stops when a step stops shrinking (rounding noise); `None` if it
    /// leaves the bracket or ends beyond the wall.
    ///
    /// Bisection took ~55 evaluations of the flight per impact, 8 % of a
    /// simulated frame; Newton takes 3–5 (callgrind, `simulate --strategy
    /// interpolated`). The times differ in the last bits (well within the
    /// ε, 10⁻¹³ s), so the world's state does too; no report reads it.
    fn newton_crossing(self, wall: f64, side: Side, s0: f64, s1: f64) -> Option<f64> {
        let toward = match side {
            Side::High => 1.0,
            Side::Low => -1.0,
        };
        let approach = IMPACT_APPROACH * wall.abs().max(1.0);
        let target = wall - toward * approach;
        // Inside, and at most twice the approach short of the wall.
        let settled = |x: f64| (0.0..=2.0 * approach).contains(&((wall - x) * toward));
        if s0 == 0.0 && settled(self.x0) {
            // On the wall already (a bounce off the other axis's wall, a kick).
            return Some(0.0);
        }
        // Started where the drag-free motion reaches the target, or else at
        // the end of the bracket from which the iteration is monotone.
        let accelerating = (self.a - self.k * self.v0) * toward > 0.0;
        let mut t =
            quadratic_crossing(self.x0 - target, self.v0, self.a, s0, s1).unwrap_or(if accelerating { s1 } else { s0 });
        let mut last_step = f64::INFINITY;
        for _ in 0..NEWTON_ITERATIONS {
            let (x, v) = self.at(t);
            let step = (x - target) / v;
            if step == 0.0 || step.is_nan() || step.abs() >= last_step {
                return settled(x).then_some(t);
            }
            // Clamped: a start within the approach of the wall steps back
            // before `s0`, and `s0` is then the answer.
            t = (t - step).clamp(s0, s1);
            last_step = step.abs();
        }
        None
    }

    /// [`Flight::crossing`] by bisection: slow but sure, for what Newton's
    /// method does not settle.
    fn bisect_crossing(self, wall: f64, side: Side, s0: f64, s1: f64) -> f64 {
        let beyond = |t: f64| {
            let (x, _) = self.at(t);
            match side {
                Side::High => x > wall,
                Side::Low => x < wall,
            }
        };
        let (mut inside, mut outside) = (s0, s1);
        for _ in 0..ROOT_ITERATIONS {
            let mid = inside + 0.5 * (outside - inside);
            if mid <= inside || mid >= outside {
                break;
            }
            if beyond(mid) {
                outside = mid;
            } else {
                inside = mid;
            }
        }
        // The last time known not to be past the wall: the ball never tunnels.
        inside
    }
}

/// The smallest root in `[s0, s1]` of `c + v·t + a·t²/2 = 0`, solved in the
/// cancellation-free form; `None` if rounding put it outside (the caller then bisects).
fn quadratic_crossing(c: f64, v: f64, a: f64, s0: f64, s1: f64) -> Option<f64> {
    let tolerance = 1e-12 * (1.0 + s1);
    let pick = |t: f64| (t >= s0 - tolerance && t <= s1 + tolerance).then(|| t.clamp(s0, s1));
    if a == 0.0 {
        return if v == 0.0 { None } else { pick(-c / v) };
    }
    let disc = v * v - 2.0 * a * c;
    if disc.is_nan() || disc < 0.0 {
        return None;
    }
    let q = -0.5 * (v + v.signum() * disc.sqrt());
    let r1 = q / (0.5 * a);
    let r2 = if q == 0.0 { r1 } else { c / q };
    let (first, second) = if r1 <= r2 { (r1, r2) } else { (r2, r1) };
    pick(first).or_else(|| pick(second))
}

fn finite_or(x: f64, fallback: f64) -> f64 {
    if x.is_finite() { x } else { fallback }
}

fn unit_or(x: f64, fallback: f64) -> f64 {
    if x.is_nan() { fallback } else { x.clamp(0.0, 1.0) }
}

/// The ball: previous and current state inside a box, stepped exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct Ball {
    params: BallParams,
    k_air: f64,
    k_roll: f64,
    lo: [f64; 2],
    hi: [f64; 2],
    prev: BallState,
    cur: BallState,
    bounces: u64,
    basis: BasisCache,
}

impl Ball {
    /// A ball in a `width` × `height` box at its start state. Out-of-range
    /// parameters are clamped (and logged): drag, restitution, friction and
    /// rolling into `[0, 1]`, the radius to fit the box, the start into the box.
    pub fn new(params: &BallParams, width: f64, height: f64) -> Ball {
        let width = finite_or(width, 1.0).max(1.0);
        let height = finite_or(height, 1.0).max(1.0);
        let defaults = BallParams::default();
        let mut p = *params;
        p.radius = finite_or(p.radius, defaults.radius).clamp(0.5, 0.5 * width.min(height));
        p.gravity = finite_or(p.gravity, 0.0);
        p.drag = unit_or(p.drag, 1.0).max(MIN_DRAG);
        p.restitution = unit_or(p.restitution, defaults.restitution);
        p.friction = unit_or(p.friction, defaults.friction);
        p.rolling = unit_or(p.rolling, 1.0).max(MIN_DRAG);
        let lo = [p.radius, p.radius];
        let hi = [width - p.radius, height - p.radius];
        p.start_pos = [
            finite_or(p.start_pos[0], 0.5 * width).clamp(lo[0], hi[0]),
            finite_or(p.start_pos[1], 0.5 * height).clamp(lo[1], hi[1]),
        ];
        p.start_vel = [finite_or(p.start_vel[0], 0.0), finite_or(p.start_vel[1], 0.0)];
        if p != *params {
            log::warn!("ball parameters adjusted to fit the playfield: {p:?}");
        }
        let start = BallState { pos: p.start_pos, vel: p.start_vel };
        Ball {
            params: p,
            k_air: decay_rate(p.drag),
            k_roll: decay_rate(p.rolling),
            lo,
            hi,
            prev: start,
            cur: start,
            bounces: 0,
            basis: BasisCache::default(),
        }
    }

    /// The (sanitised) parameters.
    pub(crate) fn params(&self) -> &BallParams {
        &self.params
    }

    /// The state after the last step.
    pub fn state(&self) -> BallState {
        self.cur
    }

    /// The state before the last step.
    pub(crate) fn previous(&self) -> BallState {
        self.prev
    }

    /// Where a picture drawn with `view` shows the centre: the latest state, a
    /// blend of the last two, or a linear prediction (which overshoots into a
    /// wall at a bounce: what extrapolation looks like, seed 004).
    pub(crate) fn drawn_pos(&self, view: View) -> [f64; 2] {
        let (prev, cur) = (self.prev, self.cur);
        match view {
            View::Latest => cur.pos,
            View::Interpolate { alpha } => lerp2(prev.pos, cur.pos, unit_alpha(alpha)),
            View::Extrapolate { ahead } => {
                let t = secs(ahead);
                [cur.pos[0] + cur.vel[0] * t, cur.pos[1] + cur.vel[1] * t]
            }
        }
    }

    /// The box the centre stays in: `([x_min, y_min], [x_max, y_max])`.
    pub fn bounds(&self) -> ([f64; 2], [f64; 2]) {
        (self.lo, self.hi)
    }

    /// Wall impacts so far.
    pub fn bounces(&self) -> u64 {
        self.bounces
    }

    /// The y of the wall gravity pulls towards, if any.
    fn floor(&self) -> Option<f64> {
        let g = self.params.gravity;
        if g > 0.0 {
            Some(self.hi[1])
        } else if g < 0.0 {
            Some(self.lo[1])
        } else {
            None
        }
    }

    /// Lying on the floor with no vertical speed (derived from the state,
    /// so it can never disagree with it).
    pub fn is_resting(&self) -> bool {
        self.cur.vel[1] == 0.0 && self.floor() == Some(self.cur.pos[1])
    }

    /// Mechanical energy per unit mass: `½|v|² + g·(height above the floor)`.
    /// Conserved exactly by the model without drag, friction or losses.
    pub fn energy(&self) -> f64 {
        let BallState { pos, vel } = self.cur;
        0.5 * (vel[0] * vel[0] + vel[1] * vel[1]) + self.params.gravity * (self.hi[1] - pos[1])
    }

    /// Replaces the velocity (a kick); a resting ball kicked upwards leaves the floor.
    pub(crate) fn set_velocity(&mut self, vel: [f64; 2]) {
        self.cur.vel = [finite_or(vel[0], 0.0), finite_or(vel[1], 0.0)];
    }

    /// Advances by `dt` in `substeps` equal sub-steps (0 counts as 1).
    pub fn step(&mut self, dt: Nanos, substeps: u32) {
        self.step_secs(dt as f64 / NANOS_PER_SEC as f64, substeps);
    }

    /// [`Ball::step`] with the duration in seconds (negative or NaN: no motion).
    pub(crate) fn step_secs(&mut self, dt: f64, substeps: u32) {
        self.prev = self.cur;
        if dt.is_nan() || dt <= 0.0 {
            return;
        }
        let n = substeps.max(1);
        let h = dt / f64::from(n);
        for _ in 0..n {
            self.substep(h);
        }
    }

    fn substep(&mut self, duration: f64) {
        let g = self.params.gravity;
        let mut rem = duration;
        let mut impacts = 0;
        while rem > 0.0 {
            let resting = self.is_resting();
            let kx = if resting { self.k_air + self.k_roll } else { self.k_air };
            let s = self.cur;
            let fx = Flight { x0: s.pos[0], v0: s.vel[0], a: 0.0, k: kx };
            let fy = Flight { x0: s.pos[1], v0: s.vel[1], a: g, k: self.k_air };
            // Shared by both axes (a flying ball's share the decay rate) and
            // by the next step if it is as long.
            let basis = self.basis.get(kx, rem);
            let flown_x = fx.fly_or_hit(self.lo[0], self.hi[0], rem, basis.as_ref());
            // A resting ball's y is frozen: it neither falls through nor bounces.
            let flown_y = if resting {
                Flown::Free(s.pos[1], s.vel[1])
            } else {
                fy.fly_or_hit(self.lo[1], self.hi[1], rem, basis.as_ref())
            };
            if let (Flown::Free(x, vx), Flown::Free(y, vy)) = (flown_x, flown_y) {
                // The common case: no wall in this sub-step.
                self.cur.pos = [x.clamp(self.lo[0], self.hi[0]), y.clamp(self.lo[1], self.hi[1])];
                self.cur.vel = [vx, vy];
                break;
            }
            let hit_x = match flown_x {
                Flown::Hit(h) => Some((0, h)),
                Flown::Free(..) => None,
            };
            let hit_y = match flown_y {
                Flown::Hit(h) => Some((1, h)),
                Flown::Free(..) => None,
            };
            let hit = match (hit_x, hit_y) {
                (Some(x), Some(y)) => Some(if y.1.time < x.1.time { y } else { x }),
                (x, y) => x.or(y),
            };
            let t = hit.map_or(rem, |(_, h)| h.time);
            self.fly(fx, if resting { None } else { Some(fy) }, t);
            let Some((axis, impact)) = hit else { break };
            rem -= t;
            self.bounce(axis, impact.side, rem);
            impacts += 1;
            if impacts >= MAX_IMPACTS {
                log::debug!("ball: {MAX_IMPACTS} impacts in one sub-step; flying the last {rem} s clamped");
                self.fly_clamped(rem);
                break;
            }
        }
    }

    /// Free flight for `t` seconds (y only when `fy` is given), clamped into
    /// the box so rounding can never put the centre outside.
    fn fly(&mut self, fx: Flight, fy: Option<Flight>, t: f64) {
        let (x, vx) = fx.at(t);
        self.cur.pos[0] = x.clamp(self.lo[0], self.hi[0]);
        self.cur.vel[0] = vx;
        if let Some(fy) = fy {
            let (y, vy) = fy.at(t);
            self.cur.pos[1] = y.clamp(self.lo[1], self.hi[1]);
            self.cur.vel[1] = vy;
        }
    }

    fn fly_clamped(&mut self, t: f64) {
        let resting = self.is_resting();
        let s = self.cur;
        let kx = if resting { self.k_air + self.k_roll } else { self.k_air };
        let fx = Flight { x0: s.pos[0], v0: s.vel[0], a: 0.0, k: kx };
        let fy = Flight { x0: s.pos[1], v0: s.vel[1], a: self.params.gravity, k: self.k_air };
        self.fly(fx, if resting { None } else { Some(fy) }, t);
        for axis in 0..2 {
            let (p, v) = (self.cur.pos[axis], self.cur.vel[axis]);
            if (p >= self.hi[axis] && v > 0.0) || (p <= self.lo[axis] && v < 0.0) {
                self.cur.vel[axis] = -v * self.params.restitution;
            }
        }
    }

    /// Puts the ball on the wall, reflects the normal velocity (inwards, times
    /// restitution) and applies friction to the tangential one; then the
    /// resting clamp for the floor.
    fn bounce(&mut self, axis: usize, side: Side, rem: f64) {
        let (wall, inward) = match side {
            Side::Low => (self.lo[axis], 1.0),
            Side::High => (self.hi[axis], -1.0),
        };
        let tangent = 1 - axis;
        self.bounces += 1;
        self.cur.pos[axis] = wall;
        // Inwards by construction: a rounding-level wrong sign must not send
        // the ball out again.
        self.cur.vel[axis] = inward * self.cur.vel[axis].abs() * self.params.restitution;
        self.cur.vel[tangent] *= self.params.friction;
        if axis == 1 && self.floor() == Some(wall) && self.cur.vel[1] != 0.0 {
            let hop = Flight { x0: wall, v0: self.cur.vel[1], a: self.params.gravity, k: self.k_air };
            // Only where it lands matters, not when: no search for the time.
            if matches!(hop.reach(self.lo[1], self.hi[1], rem, None), Reach::Beyond { side: s, .. } if s == side) {
                self.cur.vel[1] = 0.0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 1.0 / 60.0;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn closed_form_with_k_zero_is_the_constant_acceleration_formula() {
        let f = Flight { x0: 10.0, v0: 3.0, a: -2.0, k: 0.0 };
        assert_eq!(f.at(2.0), (10.0 + 6.0 - 4.0, 3.0 - 4.0), "x0 + v0 t + a t²/2 exactly");
    }

    #[test]
    fn closed_form_approaches_the_drag_free_formula_as_k_vanishes() {
        let with = Flight { x0: 1.0, v0: 300.0, a: 1800.0, k: 1e-9 }.at(0.5);
        let without = Flight { x0: 1.0, v0: 300.0, a: 1800.0, k: 0.0 }.at(0.5);
        assert!(rel(with.0, without.0) < 1e-9, "positions {with:?} vs {without:?}");
        assert!(rel(with.1, without.1) < 1e-9, "velocities {with:?} vs {without:?}");
    }

    #[test]
    fn series_and_direct_phi2_agree_at_the_switch_point() {
        let k = 1.0;
        let t = SERIES_LIMIT / k;
        let series = Flight { x0: 0.0, v0: 0.0, a: 1.0, k }.at(t * (1.0 - 1e-9)).0;
        let direct = Flight { x0: 0.0, v0: 0.0, a: 1.0, k }.at(t * (1.0 + 1e-9)).0;
        assert!(rel(series, direct) < 1e-8, "series {series} vs direct {direct}");
    }

    /// Flights across a 720 px box (walls at 22 and 698) that leave it
    /// within their time: every combination of a start, a velocity, gravity,
    /// drag and a flight time, with the bracket of the first crossing.
    fn leaving_flights() -> Vec<(Flight, f64, Side, f64, f64)> {
        let (lo, hi) = (22.0, 698.0);
        let mut out = Vec::new();
        for k in [decay_rate(0.8), decay_rate(0.05), decay_rate(0.999_999)] {
            for a in [1800.0, 0.0, -500.0] {
                for x0 in [22.0, 22.5, 200.0, 500.0, 697.9, 698.0] {
                    for v0 in [-3000.0, -800.0, -60.0, -1.0, 1.0, 60.0, 800.0, 3000.0] {
                        for rem in [DT, 0.1, 1.5] {
                            let f = Flight { x0, v0, a, k };
                            if let Reach::Beyond { side, from, to } = f.reach(lo, hi, rem, None) {
                                let wall = if side == Side::High { hi } else { lo };
                                out.push((f, wall, side, from, to));
                            }
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn newton_puts_the_impact_where_bisection_does_a_hair_inside_the_wall() {
        let flights = leaving_flights();
        assert!(flights.len() > 300, "{} flights leave the box", flights.len());
        let mut settled = 0;
        for (f, wall, side, from, to) in flights {
            let bisected = f.bisect_crossing(wall, side, from, to);
            let Some(t) = f.newton_crossing(wall, side, from, to) else { continue };
            settled += 1;
            let (x, v) = f.at(t);
            let inside = if side == Side::High { x <= wall } else { x >= wall };
            assert!(inside && (from..=to).contains(&t), "{f:?}: impact at {t} s is beyond the wall ({x})");
            assert!((x - wall).abs() < 1e-9, "{f:?}: {} px from the wall at the impact", (x - wall).abs());
            let apart = (t - bisected).abs() * v.abs();
            assert!(apart < 1e-9, "{f:?}: newton {t} s vs bisection {bisected} s ({apart} px apart)");
        }
        assert_eq!(settled, leaving_flights().len(), "Newton settles every one of them (none needs bisection)");
    }

    #[test]
    fn the_apex_check_is_skipped_only_for_turns_inside_the_walls() {
        let (lo, hi) = (22.0, 698.0);
        let mut skipped = 0;
        for k in [0.0, decay_rate(0.8), decay_rate(0.05)] {
            for a in [1800.0, -500.0] {
                for x0 in [22.0, 23.0, 60.0, 200.0, 500.0, 660.0, 697.0, 698.0] {
                    for v0 in [-2000.0, -400.0, -3.0, 3.0, 400.0, 2000.0] {
                        let f = Flight { x0, v0, a, k };
                        let Some(turn) = f.turning_time().filter(|_| f.apex_clears(lo, hi)) else { continue };
                        skipped += 1;
                        let apex = f.at(turn).0;
                        assert!(apex > lo && apex < hi, "{f:?}: skipped an apex at {apex}");
                    }
                }
            }
        }
        assert!(skipped > 20, "the check was skipped {skipped} times");
    }

    #[test]
    fn a_kept_basis_gives_the_bits_of_a_fresh_computation() {
        let mut cache = BasisCache::default();
        for (k, t) in [(0.25, DT), (0.25, DT), (0.25, 0.3), (3.0, DT), (0.25, DT)] {
            let basis = cache.get(k, t);
            let f = Flight { x0: 300.0, v0: -640.0, a: 1800.0, k };
            let (kept, fresh) = (f.at_with(t, basis.as_ref()), f.at(t));
            assert_eq!((kept.0.to_bits(), kept.1.to_bits()), (fresh.0.to_bits(), fresh.1.to_bits()), "k {k}, t {t}");
        }
        assert_eq!(cache.get(0.0, DT), None, "no drag needs no basis");
    }

    #[test]
    fn turning_time_is_where_the_velocity_is_zero() {
        for k in [0.0, 0.3, 2.0] {
            let f = Flight { x0: 0.0, v0: -500.0, a: 1800.0, k };
            let t = f.turning_time().expect("thrown up against gravity, it turns");
            assert!(f.at(t).1.abs() < 1e-9, "v({t}) = {} with k = {k}", f.at(t).1);
        }
        assert_eq!(Flight { x0: 0.0, v0: 5.0, a: 1.0, k: 0.0 }.turning_time(), None, "same signs never turn");
    }

    #[test]
    fn two_steps_of_dt_equal_one_of_two_dt() {
        let s = BallState { pos: [300.0, 200.0], vel: [420.0, -650.0] };
        for (g, drag) in [(1800.0, 0.8), (1800.0, 1.0), (-500.0, 0.05)] {
            let two = free_flight(free_flight(s, g, drag, DT), g, drag, DT);
            let one = free_flight(s, g, drag, 2.0 * DT);
            for i in 0..2 {
                assert!(
                    rel(two.pos[i], one.pos[i]) < 1e-12,
                    "pos[{i}] {} vs {} (g {g}, drag {drag})",
                    two.pos[i],
                    one.pos[i]
                );
                assert!(
                    rel(two.vel[i], one.vel[i]) < 1e-12,
                    "vel[{i}] {} vs {} (g {g}, drag {drag})",
                    two.vel[i],
                    one.vel[i]
                );
            }
        }
    }

    #[test]
    fn quadratic_crossing_finds_the_landing_time() {
        // Dropped from 100 px above the wall with g = 200: lands at t = 1.
        let t = quadratic_crossing(-100.0, 0.0, 200.0, 0.0, 2.0).expect("lands within 2 s");
        assert!((t - 1.0).abs() < 1e-15, "landing at {t}");
    }

    #[test]
    fn an_impact_splits_the_step_so_no_time_is_counted_twice() {
        // No gravity, no drag: 100 px/s towards a wall 10 px away, restitution 1.
        let params = BallParams {
            radius: 10.0,
            gravity: 0.0,
            drag: 1.0,
            restitution: 1.0,
            friction: 1.0,
            start_pos: [80.0, 50.0],
            start_vel: [100.0, 0.0],
            ..BallParams::default()
        };
        let mut ball = Ball::new(&params, 100.0, 100.0);
        ball.step_secs(0.3, 1);
        // 0.1 s to the wall at x = 90, then 0.2 s back: x = 70.
        assert!((ball.state().pos[0] - 70.0).abs() < 1e-12, "x = {}", ball.state().pos[0]);
        assert_eq!(ball.state().vel[0], -100.0, "reflected with full speed");
        assert_eq!(ball.bounces(), 1);
    }

    #[test]
    fn surface_friction_scales_only_the_tangential_speed() {
        let params = BallParams {
            radius: 10.0,
            gravity: 0.0,
            drag: 1.0,
            restitution: 0.5,
            friction: 0.25,
            start_pos: [50.0, 85.0],
            start_vel: [40.0, 100.0],
            ..BallParams::default()
        };
        let mut ball = Ball::new(&params, 100.0, 100.0);
        ball.step_secs(0.1, 1);
        let v = ball.state().vel;
        assert_eq!(v, [10.0, -50.0], "normal × -0.5, tangent × 0.25");
    }

    #[test]
    fn a_weak_bounce_comes_to_rest_on_the_floor() {
        let params = BallParams { start_pos: [100.0, 300.0], start_vel: [0.0, 0.0], ..BallParams::default() };
        let mut ball = Ball::new(&params, 400.0, 400.0);
        for _ in 0..60 * 30 {
            ball.step_secs(DT, 4);
        }
        assert!(ball.is_resting(), "after 30 s of losing energy it rests: {:?}", ball.state());
        assert_eq!(ball.state().pos[1], ball.bounds().1[1], "resting exactly on the floor");
    }

    #[test]
    fn a_resting_ball_stays_at_rest_bit_for_bit() {
        let params = BallParams { start_pos: [100.0, 1e9], start_vel: [0.0, 0.0], ..BallParams::default() };
        let mut ball = Ball::new(&params, 400.0, 400.0);
        assert!(ball.is_resting(), "started on the floor with no speed");
        let before = ball.state();
        for dt in [DT, 0.0, 1.0, 1e-9, 0.25] {
            ball.step_secs(dt, 3);
            assert_eq!(ball.state(), before, "step of {dt} s moved a resting ball");
        }
    }

    #[test]
    fn a_kick_lifts_a_resting_ball_off_the_floor() {
        let params = BallParams { start_pos: [100.0, 1e9], start_vel: [0.0, 0.0], ..BallParams::default() };
        let mut ball = Ball::new(&params, 400.0, 400.0);
        ball.set_velocity([0.0, -800.0]);
        ball.step_secs(DT, 4);
        assert!(!ball.is_resting(), "kicked upwards, it flies");
        assert!(ball.state().pos[1] < ball.bounds().1[1], "and is above the floor");
    }

    #[test]
    fn bad_parameters_are_clamped_not_propagated() {
        let params = BallParams {
            radius: f64::NAN,
            gravity: f64::INFINITY,
            drag: -3.0,
            restitution: 7.0,
            friction: f64::NAN,
            rolling: 2.0,
            start_pos: [f64::NAN, -50.0],
            start_vel: [f64::INFINITY, 1.0],
            relaunch_after: 0,
        };
        let mut ball = Ball::new(&params, 200.0, 100.0);
        ball.step_secs(0.5, 2);
        let s = ball.state();
        assert!(s.pos.iter().chain(&s.vel).all(|x| x.is_finite()), "finite state: {s:?}");
    }
}
