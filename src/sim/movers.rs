//! Analytic movers: sprites whose pose is a closed-form function of sim time.
//!
//! Each one exposes one hazard of drawing *between* simulation states:
//!
//! | mover   | motion                              | hazard                                           |
//! |---------|-------------------------------------|--------------------------------------------------|
//! | runner  | constant speed along a lane, wraps  | none: the smoothness reference (a TestUFO lane)  |
//! | orbiter | circle around a centre              | a lerp cuts the chord (drawn inside the circle)  |
//! | spinner | fast rotation, angle in (-π, π]     | a naive lerp of +179° → -179° spins the long way |
//! | wrapper | fast diagonal, wraps at the edges   | a lerp across a wrap smears it over the screen   |
//!
//! The pose is computed from the integer sim time, never accumulated: the
//! phase of a periodic motion is `(t mod period) / period`, an exact integer
//! remainder turned into a float once. So fixed and variable stepping put
//! these movers at bit-identical places for the same sim time, a 30-day-old
//! world is as precise as a fresh one, and [`Mover::pose_at`] is the *true*
//! pose at any instant, even between ticks: the ghost markers (`G`) draw it
//! next to the interpolated picture.
//!
//! ```text
//!  wrapper, one tick crossing the right edge:
//!    prev ·············· cur            lerp at α = ½ would be here ──► mid-screen!
//!    |x=1250       ...wrap...  x=30|    so a tick with a wrap draws `cur` at any α.
//! ```

use std::f64::consts::{PI, TAU};

use super::instance::{Instance, SpriteCell};
use crate::strategy::View;
use crate::time::{NANOS_PER_SEC, Nanos, nanos_as_f64};

/// Runner speed along its lane, px/s (TestUFO's default lane speed is 960).
pub(crate) const RUNNER_SPEED: f64 = 480.0;
/// One turn of the orbiter.
pub(crate) const ORBITER_PERIOD: Nanos = 3 * NANOS_PER_SEC;
/// One turn of the spinner: 75°/tick at 60 Hz, fast enough that ±180° is
/// crossed every few ticks.
pub(crate) const SPINNER_PERIOD: Nanos = 800_000_000;
/// Wrapper speed, px/s: fast, so a wrap happens every second or two.
pub(crate) const WRAPPER_SPEED: [f64; 2] = [760.0, 430.0];

/// A sprite pose: centre (playfield px) and rotation (radians, counter-clockwise on screen).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pose {
    /// Centre.
    pub pos: [f64; 2],
    /// Rotation in (-π, π].
    pub rot: f64,
}

/// Which analytic mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoverKind {
    /// Constant speed along a horizontal lane.
    Runner,
    /// Circles around a centre.
    Orbiter,
    /// Spins in place.
    Spinner,
    /// Fast diagonal that wraps around the screen edges.
    Wrapper,
}

impl MoverKind {
    /// All four, in drawing order.
    pub const ALL: [MoverKind; 4] = [MoverKind::Runner, MoverKind::Orbiter, MoverKind::Spinner, MoverKind::Wrapper];

    /// Lower-case name for the overlay.
    pub fn name(self) -> &'static str {
        match self {
            MoverKind::Runner => "runner",
            MoverKind::Orbiter => "orbiter",
            MoverKind::Spinner => "spinner",
            MoverKind::Wrapper => "wrapper",
        }
    }

    /// The atlas cell it is drawn with.
    pub(crate) fn cell(self) -> SpriteCell {
        match self {
            MoverKind::Runner => SpriteCell::Runner,
            MoverKind::Orbiter => SpriteCell::Orbiter,
            MoverKind::Spinner => SpriteCell::Spinner,
            MoverKind::Wrapper => SpriteCell::Wrapper,
        }
    }

    /// Drawn size in pixels.
    pub fn size(self) -> [f32; 2] {
        match self {
            MoverKind::Runner => [56.0, 28.0],
            MoverKind::Orbiter => [40.0, 40.0],
            MoverKind::Spinner => [72.0, 72.0],
            MoverKind::Wrapper => [40.0, 40.0],
        }
    }

    /// Colour (straight RGBA).
    pub(crate) fn color(self) -> [f32; 4] {
        match self {
            MoverKind::Runner => [0.30, 0.85, 0.95, 1.0],
            MoverKind::Orbiter => [0.72, 0.56, 0.98, 1.0],
            MoverKind::Spinner => [0.99, 0.78, 0.25, 1.0],
            MoverKind::Wrapper => [0.45, 0.90, 0.50, 1.0],
        }
    }
}

/// A snapshot of a mover's two states, for the overlay and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoverState {
    /// Pose after the step before last.
    pub previous: Pose,
    /// Pose after the last step.
    pub current: Pose,
    /// The last step wrapped it from one edge to the other.
    pub teleported: bool,
}

/// `x` wrapped into (-π, π].
pub(crate) fn wrap_angle(x: f64) -> f64 {
    // `rem_euclid` is an `fmod` call; in [0, 2π), where the spinner's angle
    // always is, it returns `x` itself, so skip it (same bits; the call was
    // 1 % of a simulated frame, callgrind). Out of line, or the compiler
    // computes the remainder before the test, just in case.
    #[cold]
    #[inline(never)]
    fn reduce(x: f64) -> f64 {
        x.rem_euclid(TAU)
    }
    let y = if (0.0..TAU).contains(&x) { x } else { reduce(x) };
    if y > PI { y - TAU } else { y }
}

/// Interpolates angles the short way round: from 170° to -170° passes 180°, not 0°.
pub fn lerp_angle(a: f64, b: f64, alpha: f64) -> f64 {
    wrap_angle(a + wrap_angle(b - a) * alpha)
}

/// `a + (b - a)·alpha`, per component.
pub(crate) fn lerp2(a: [f64; 2], b: [f64; 2], alpha: f64) -> [f64; 2] {
    [a[0] + (b[0] - a[0]) * alpha, a[1] + (b[1] - a[1]) * alpha]
}

/// An interpolation factor in [0, 1] from a view's `alpha` (NaN draws the current state).
pub(crate) fn unit_alpha(alpha: f64) -> f64 {
    if alpha.is_nan() { 1.0 } else { alpha.clamp(0.0, 1.0) }
}

/// Seconds in `ns`, for the float edge.
pub(crate) fn secs(ns: Nanos) -> f64 {
    ns as f64 / NANOS_PER_SEC as f64
}

/// `t + offset` as completed periods (modulo 2⁶⁴: a change between two times
/// is a wrap) and the phase within the current one, `(t + offset) mod period`
/// as a fraction of the period in [0, 1). Quotient and remainder come from
/// one division.
fn laps_and_phase(t: Nanos, period: Nanos, offset: Nanos) -> (u64, f64) {
    // u64 arithmetic unless the sum overflows (after 584 years): 128-bit
    // division is several times slower, and this runs for every mover drawn or hashed.
    let (laps, r) = match t.checked_add(offset) {
        // Converted from u64: `u128 as f64` is a library call (`__floattidf`,
        // 2 % of a simulator profile) and gives the same correctly rounded value.
        Some(x) => (x / period, nanos_as_f64(x % period)),
        None => {
            let (x, p) = (u128::from(t) + u128::from(offset), u128::from(period));
            ((x / p) as u64, (x % p) as f64)
        }
    };
    (laps, r / nanos_as_f64(period))
}

/// The phase of [`laps_and_phase`] alone.
fn phase(t: Nanos, period: Nanos, offset: Nanos) -> f64 {
    laps_and_phase(t, period, offset).1
}

/// A period in whole nanoseconds for covering `span` px at `speed` px/s (at least 1 ns).
fn period_for(span: f64, speed: f64) -> Nanos {
    let ns = (span / speed * NANOS_PER_SEC as f64).round();
    if ns.is_finite() && ns >= 1.0 { ns as Nanos } else { 1 }
}

/// The closed-form path of one mover.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Path {
    /// `x = x0 + span·phase`, constant `y`.
    Lane { y: f64, x0: f64, span: f64, period: Nanos },
    /// Circle of `radius` around `centre`.
    Circle { centre: [f64; 2], radius: f64, period: Nanos },
    /// Fixed position, angle `2π·phase`.
    Turn { centre: [f64; 2], period: Nanos },
    /// Both coordinates wrap independently (a torus).
    Torus { origin: [f64; 2], span: [f64; 2], period: [Nanos; 2], offset: [Nanos; 2] },
}

/// Completed periods of each wrapping coordinate of a [`Path`] at some time
/// (zero for paths that never wrap): a change between two times is a wrap.
type Laps = [u64; 2];

impl Path {
    /// The pose at `t`.
    fn pose(&self, t: Nanos) -> Pose {
        match *self {
            Path::Lane { y, x0, span, period } => Pose { pos: [x0 + span * phase(t, period, 0), y], rot: 0.0 },
            Path::Circle { centre, radius, period } => {
                let angle = TAU * phase(t, period, 0);
                Pose { pos: [centre[0] + radius * angle.cos(), centre[1] + radius * angle.sin()], rot: 0.0 }
            }
            Path::Turn { centre, period } => Pose { pos: centre, rot: wrap_angle(TAU * phase(t, period, 0)) },
            Path::Torus { origin, span, period, offset } => {
                let (x, y) = (phase(t, period[0], offset[0]), phase(t, period[1], offset[1]));
                Pose { pos: [origin[0] + span[0] * x, origin[1] + span[1] * y], rot: 0.0 }
            }
        }
    }

    /// The [`Laps`] at `t`.
    fn laps(&self, t: Nanos) -> Laps {
        match *self {
            Path::Lane { period, .. } => [laps_and_phase(t, period, 0).0, 0],
            Path::Torus { period, offset, .. } => {
                [laps_and_phase(t, period[0], offset[0]).0, laps_and_phase(t, period[1], offset[1]).0]
            }
            Path::Circle { .. } | Path::Turn { .. } => [0, 0],
        }
    }

    /// d(pose)/dt at `t`: px/s and rad/s.
    fn rate(&self, t: Nanos) -> Pose {
        match *self {
            Path::Lane { span, period, .. } => Pose { pos: [span / secs(period), 0.0], rot: 0.0 },
            Path::Circle { radius, period, .. } => {
                let omega = TAU / secs(period);
                let angle = TAU * phase(t, period, 0);
                Pose { pos: [-radius * omega * angle.sin(), radius * omega * angle.cos()], rot: 0.0 }
            }
            Path::Turn { period, .. } => Pose { pos: [0.0, 0.0], rot: TAU / secs(period) },
            Path::Torus { span, period, .. } => {
                Pose { pos: [span[0] / secs(period[0]), span[1] / secs(period[1])], rot: 0.0 }
            }
        }
    }
}

/// One analytic mover with its previous and current pose.
///
/// The poses are functions of time, so a step only records times and the
/// poses are computed when asked for (drawn, hashed, inspected). The
/// simulator never draws: computing four poses (two with a sine and cosine)
/// at every step was 11 % of a `paced` run's time (callgrind, `simulate
/// --strategy paced`, stop 14) for values nothing read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mover {
    kind: MoverKind,
    path: Path,
    /// The time of the previous pose.
    prev_time: Nanos,
    /// Where the last step started: it wrapped if the laps here and at
    /// `time` differ (the previous pose's time in a running world).
    step_from: Nanos,
    /// The time of the current pose.
    time: Nanos,
}

impl Mover {
    /// The mover of `kind` laid out for a `width` × `height` playfield, at time 0.
    pub(crate) fn new(kind: MoverKind, width: f64, height: f64) -> Mover {
        let [w, h] = kind.size().map(f64::from);
        let path = match kind {
            MoverKind::Runner => return Mover::runner(width, 24.0 + 0.5 * h),
            MoverKind::Orbiter => {
                Path::Circle { centre: [0.78 * width, 0.55 * height], radius: 0.22 * height, period: ORBITER_PERIOD }
            }
            MoverKind::Spinner => Path::Turn { centre: [0.22 * width, 0.55 * height], period: SPINNER_PERIOD },
            MoverKind::Wrapper => {
                let span = [width + w, height + h];
                let period = [period_for(span[0], WRAPPER_SPEED[0]), period_for(span[1], WRAPPER_SPEED[1])];
                // Start a third of the way across, not in a corner.
                let offset = [period[0] / 3, period[1] / 5];
                Path::Torus { origin: [-0.5 * w, -0.5 * h], span, period, offset }
            }
        };
        Mover::at_start(kind, path)
    }

    /// `kind` on `path` at time 0.
    fn at_start(kind: MoverKind, path: Path) -> Mover {
        Mover { kind, path, prev_time: 0, step_from: 0, time: 0 }
    }

    /// A runner crossing a `width`-wide strip at height `y` at [`RUNNER_SPEED`], at time 0.
    pub(crate) fn runner(width: f64, y: f64) -> Mover {
        let kind = MoverKind::Runner;
        let w = f64::from(kind.size()[0]);
        // The span includes the sprite, so the wrap happens off-screen.
        let span = width + w;
        let path = Path::Lane { y, x0: -0.5 * w, span, period: period_for(span, RUNNER_SPEED) };
        Mover::at_start(kind, path)
    }

    /// Steps from `t0` to `t1`: the current pose becomes the previous one
    /// and the pose at `t1` the current one. It wrapped (teleported) if the
    /// path's laps at `t0` and `t1` differ.
    pub(crate) fn advance(&mut self, t0: Nanos, t1: Nanos) {
        (self.prev_time, self.step_from, self.time) = (self.time, t0, t1);
    }

    /// The true pose at any instant.
    pub(crate) fn pose_at(&self, t: Nanos) -> Pose {
        self.path.pose(t)
    }

    /// Whether the last step wrapped: drawn at the current pose, not smeared.
    fn teleported(&self) -> bool {
        self.path.laps(self.step_from) != self.path.laps(self.time)
    }

    pub(crate) fn state(&self) -> MoverState {
        MoverState {
            previous: self.pose_at(self.prev_time),
            current: self.pose_at(self.time),
            teleported: self.teleported(),
        }
    }

    /// The pose to draw for `view`; `now` is the sim time of the current state.
    pub(crate) fn drawn(&self, view: View, now: Nanos) -> Pose {
        let cur = self.pose_at(self.time);
        match view {
            View::Latest => cur,
            // A wrap would be smeared across the screen: show where it is now.
            View::Interpolate { .. } if self.teleported() => cur,
            View::Interpolate { alpha } => {
                let (a, prev) = (unit_alpha(alpha), self.pose_at(self.prev_time));
                Pose { pos: lerp2(prev.pos, cur.pos, a), rot: lerp_angle(prev.rot, cur.rot, a) }
            }
            View::Extrapolate { ahead } => {
                let (rate, ahead) = (self.path.rate(now), secs(ahead));
                Pose {
                    pos: [cur.pos[0] + rate.pos[0] * ahead, cur.pos[1] + rate.pos[1] * ahead],
                    rot: wrap_angle(cur.rot + rate.rot * ahead),
                }
            }
        }
    }

    /// The render instance for `pose`.
    pub(crate) fn instance(&self, pose: Pose) -> Instance {
        Instance {
            position: [pose.pos[0] as f32, pose.pos[1] as f32],
            size: self.kind.size(),
            rotation: pose.rot as f32,
            flags: 0,
            color: self.kind.color(),
            atlas: self.kind.cell().atlas_rect(),
        }
    }

    /// An outline marker at `pose`, slightly larger than the sprite.
    pub(crate) fn ghost(&self, pose: Pose) -> Instance {
        let [w, h] = self.kind.size();
        let side = w.max(h) + 12.0;
        Instance {
            position: [pose.pos[0] as f32, pose.pos[1] as f32],
            size: [side, side],
            rotation: pose.rot as f32,
            flags: Instance::FLAG_OUTLINE,
            color: [1.0, 1.0, 1.0, 0.85],
            atlas: SpriteCell::Ghost.atlas_rect(),
        }
    }

    pub(crate) fn hash_into(&self, h: &mut super::hash::Fnv1a) {
        for pose in [self.pose_at(self.prev_time), self.pose_at(self.time)] {
            h.f64(pose.pos[0]);
            h.f64(pose.pos[1]);
            h.f64(pose.rot);
        }
        h.u64(u64::from(self.teleported()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: f64 = 1280.0;
    const H: f64 = 720.0;

    #[test]
    fn wrap_angle_lands_in_the_half_open_interval() {
        for x in [-10.0, -PI, -3.0, 0.0, 3.0, PI, 4.0, 100.0] {
            let y = wrap_angle(x);
            assert!(y > -PI && y <= PI, "wrap_angle({x}) = {y}");
            assert!(((x - y) / TAU - ((x - y) / TAU).round()).abs() < 1e-9, "{x} and {y} differ by whole turns");
        }
    }

    #[test]
    fn angle_interpolation_turns_the_short_way_across_180_degrees() {
        let a = 170f64.to_radians();
        let b = (-170f64).to_radians();
        let mid = lerp_angle(a, b, 0.5);
        assert!((mid.abs() - PI).abs() < 1e-12, "halfway between 170° and -170° is 180°, got {}°", mid.to_degrees());
        let quarter = lerp_angle(a, b, 0.25);
        assert!(
            (quarter - 175f64.to_radians()).abs() < 1e-12,
            "a quarter of the way is 175°, got {}°",
            quarter.to_degrees()
        );
    }

    #[test]
    fn the_runner_moves_at_constant_speed_and_wraps_off_screen() {
        let m = Mover::new(MoverKind::Runner, W, H);
        let x = |t: Nanos| m.pose_at(t).pos[0];
        let dx = x(NANOS_PER_SEC / 10) - x(0);
        assert!((dx - RUNNER_SPEED / 10.0).abs() < 0.1, "{dx} px in 0.1 s at {RUNNER_SPEED} px/s");
        let Path::Lane { period, .. } = m.path else { panic!("the runner runs on a lane") };
        assert!(x(period - 1) > W, "just before the wrap it is past the right edge: {}", x(period - 1));
        assert!(x(period) < 0.0, "just after, left of the left edge: {}", x(period));
    }

    #[test]
    fn a_wrapping_step_is_drawn_at_the_current_pose_at_any_alpha() {
        let mut m = Mover::new(MoverKind::Wrapper, W, H);
        let Path::Torus { period, offset, .. } = m.path else { panic!("the wrapper lives on a torus") };
        let wrap = period[0] - offset[0];
        m.advance(wrap - 10_000_000, wrap + 6_000_000);
        assert!(m.state().teleported, "crossing the right edge is a teleport");
        for alpha in [0.0, 0.3, 0.5, 0.9, 1.0] {
            assert_eq!(m.drawn(View::Interpolate { alpha }, 0), m.state().current, "alpha {alpha}");
        }
    }

    #[test]
    fn step_by_step_the_wrap_is_flagged_on_the_step_that_crosses_the_edge_only() {
        let mut m = Mover::new(MoverKind::Wrapper, W, H);
        let Path::Torus { period, offset, .. } = m.path else { panic!("the wrapper lives on a torus") };
        let wrap = period[0] - offset[0];
        let tick = 16_666_667;
        let (mut t, mut flagged) = (0, Vec::new());
        while t < wrap + 3 * tick {
            m.advance(t, t + tick);
            t += tick;
            if m.state().teleported {
                flagged.push(t);
            }
        }
        let expected = wrap.div_ceil(tick) * tick;
        assert!(flagged.contains(&expected), "the step ending at {expected} crosses x's edge: {flagged:?}");
        assert!(!flagged.contains(&(expected + tick)), "the step after it does not: {flagged:?}");
        m.advance(0, t);
        assert!(m.state().teleported, "a step from another start (a jump back to 0) is checked from that start");
    }

    #[test]
    fn laps_and_phase_agree_where_the_sum_overflows_64_bits() {
        let (period, offset) = (SPINNER_PERIOD, SPINNER_PERIOD / 3);
        let t = u64::MAX - offset + 5;
        let x = u128::from(t) + u128::from(offset);
        let (laps, phase) = laps_and_phase(t, period, offset);
        assert_eq!(laps, (x / u128::from(period)) as u64, "completed periods, modulo 2^64");
        assert_eq!(phase, (x % u128::from(period)) as f64 / period as f64, "the phase of the exact sum");
        assert_eq!(laps_and_phase(7, period, offset), (0, (7 + offset) as f64 / period as f64), "the 64-bit path");
    }

    #[test]
    fn wrap_angle_skips_the_remainder_only_where_it_changes_nothing() {
        for x in [0.0, -0.0, 1.0, PI, PI + 1e-15, TAU - 1e-15, TAU, -1e-300, 7.0, -7.0] {
            let slow = {
                let y = x.rem_euclid(TAU);
                if y > PI { y - TAU } else { y }
            };
            assert_eq!(wrap_angle(x).to_bits(), slow.to_bits(), "wrap_angle({x})");
        }
    }

    #[test]
    fn the_orbiter_stays_on_its_circle() {
        let m = Mover::new(MoverKind::Orbiter, W, H);
        let Path::Circle { centre, radius, .. } = m.path else { panic!("the orbiter circles") };
        for t in (0..10).map(|i| i * 123_456_789) {
            let p = m.pose_at(t).pos;
            let r = (p[0] - centre[0]).hypot(p[1] - centre[1]);
            assert!((r - radius).abs() < 1e-9, "radius {r} at t = {t}");
        }
    }

    #[test]
    fn poses_after_thirty_days_are_as_precise_as_at_the_start() {
        let m = Mover::new(MoverKind::Spinner, W, H);
        let month = 30 * 24 * 3600 * NANOS_PER_SEC;
        // A whole number of turns later, the angle is bit-identical.
        let turns = month / SPINNER_PERIOD * SPINNER_PERIOD;
        assert_eq!(m.pose_at(turns + 123_456), m.pose_at(123_456), "no drift after a month of sim time");
    }

    #[test]
    fn extrapolation_follows_the_velocity() {
        let mut m = Mover::new(MoverKind::Runner, W, H);
        m.advance(0, 100_000_000);
        let p = m.drawn(View::Extrapolate { ahead: 100_000_000 }, 100_000_000);
        let truth = m.pose_at(200_000_000);
        assert!((p.pos[0] - truth.pos[0]).abs() < 1e-6, "extrapolated {p:?} vs true {truth:?}");
    }
}
