//! Particles: entities that appear and disappear, the hazard interpolation
//! forgets most often.
//!
//! An emitter at the bottom of the playfield releases [`PARTICLE_RATE`]
//! particles per second of sim time; each flies a parabola for
//! [`PARTICLE_LIFETIME`] and is gone. Particle `n` is born at the exact
//! instant `ceil(n / rate)` and its launch velocity comes from
//! `SplitMix64::for_index(seed, n)`, so its whole life is a closed-form
//! function of time: fixed and variable stepping spawn the same particles at
//! the same places.
//!
//! Drawing rules:
//! - born during the last step → drawn at its current position at any alpha
//!   (there is no previous state to interpolate from; lerping from the origin
//!   would fly it in "from nowhere");
//! - dead → removed in the step, never drawn.
//!
//! All particles live the same time, so they die in birth order and the pool
//! is a fixed-size ring: no allocation, ever.
//!
//! ```text
//!  ring: [ . . d d a a a a a n n . . ]   d: dead (dropped from the head)
//!              ^head       newborns ^    a: alive, n: born this tick
//! ```

use super::hash::Fnv1a;
use super::instance::{Instance, SpriteCell};
use super::movers::{lerp2, secs, unit_alpha};
use crate::rng::SplitMix64;
use crate::strategy::View;
use crate::time::{NANOS_PER_SEC, Nanos};

/// Particles emitted per second of sim time.
pub const PARTICLE_RATE: u64 = 40;
/// How long each particle lives.
pub const PARTICLE_LIFETIME: Nanos = 1_600_000_000;
/// The pool size: the most particles ever alive at once (`rate × lifetime`,
/// plus one for the birth at the window's start, plus one for rounding).
pub const PARTICLE_CAPACITY: usize = (PARTICLE_RATE * PARTICLE_LIFETIME / NANOS_PER_SEC) as usize + 2;
/// Downward acceleration of particles, px/s².
const PARTICLE_GRAVITY: f64 = 700.0;
/// Drawn size at birth; particles shrink to a third by the end of their life.
const PARTICLE_SIZE: f32 = 12.0;
/// Warm sparks.
const PALETTE: [[f32; 3]; 4] = [[1.0, 0.62, 0.22], [1.0, 0.42, 0.45], [1.0, 0.82, 0.35], [0.98, 0.55, 0.75]];

/// The birth instant of particle `n`: the first nanosecond at or after `n / rate` s.
pub fn particle_birth(n: u64) -> Nanos {
    // 64-bit while `n·10⁹` fits (the first 584 years): a `u128` division is a
    // library call even by a constant, and this runs every step.
    if let Some(scaled) = n.checked_mul(NANOS_PER_SEC) {
        return scaled.div_ceil(PARTICLE_RATE);
    }
    let t = (u128::from(n) * u128::from(NANOS_PER_SEC)).div_ceil(u128::from(PARTICLE_RATE));
    Nanos::try_from(t).unwrap_or(Nanos::MAX)
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Particle {
    birth: Nanos,
    born_tick: u64,
    vel0: [f64; 2],
    tint: u8,
}

/// The emitter and its fixed-capacity ring of live particles.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Particles {
    emitter: [f64; 2],
    seed: u64,
    pool: [Particle; PARTICLE_CAPACITY],
    head: usize,
    len: usize,
    /// The next particle to be born, and its birth (kept: asking every step
    /// cost a multiplication and two divisions by constants).
    next: u64,
    next_birth: Nanos,
    /// Sim time of the previous and the current state. A particle's position
    /// is a closed-form function of time, so the previous and current
    /// positions are derived from these when drawn instead of being stored
    /// and shifted every step (the simulator steps millions of times a second).
    t0: Nanos,
    t1: Nanos,
}

impl Particles {
    /// An emitter near the bottom centre of a `width` × `height` playfield,
    /// with the particle born at time 0 already out.
    pub(crate) fn new(width: f64, height: f64, seed: u64) -> Particles {
        let mut p = Particles {
            emitter: [0.5 * width, height - 16.0],
            seed,
            pool: [Particle::default(); PARTICLE_CAPACITY],
            head: 0,
            len: 0,
            next: 0,
            next_birth: particle_birth(0),
            t0: 0,
            t1: 0,
        };
        p.spawn_until(0, 0);
        p
    }

    /// Live particles.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn position(&self, p: &Particle, t: Nanos) -> [f64; 2] {
        let age = secs(t.saturating_sub(p.birth));
        [self.emitter[0] + p.vel0[0] * age, self.emitter[1] + p.vel0[1] * age + 0.5 * PARTICLE_GRAVITY * age * age]
    }

    fn slot(&self, i: usize) -> usize {
        (self.head + i) % PARTICLE_CAPACITY
    }

    /// Advances from `t0` to `t1`: drops the dead, moves the living, spawns
    /// the newborns of `(t0, t1]` tagged with `tick`.
    pub(crate) fn step(&mut self, t0: Nanos, t1: Nanos, tick: u64) {
        while self.len > 0 && t1.saturating_sub(self.pool[self.head].birth) >= PARTICLE_LIFETIME {
            self.head = (self.head + 1) % PARTICLE_CAPACITY;
            self.len -= 1;
        }
        debug_assert!(t0 <= t1, "time runs forwards");
        self.t0 = t0;
        self.t1 = t1;
        self.spawn_until(t1, tick);
    }

    fn spawn_until(&mut self, t: Nanos, tick: u64) {
        // After a long step most births are already dead: skip them in O(1).
        // Particle `n` is born at or before `oldest_alive` exactly when
        // `n < oldest_alive · rate + 1`, so a live next birth says that there
        // is nothing to skip without computing it.
        if let Some(oldest_alive) = t.checked_sub(PARTICLE_LIFETIME)
            && self.next_birth <= oldest_alive
        {
            // 64-bit while it fits, as in `particle_birth` (this and the
            // births were 1.2 % of a simulated frame as `u128` divisions).
            let first = match oldest_alive.checked_mul(PARTICLE_RATE) {
                Some(scaled) => scaled / NANOS_PER_SEC + 1,
                None => {
                    let first = u128::from(oldest_alive) * u128::from(PARTICLE_RATE) / u128::from(NANOS_PER_SEC) + 1;
                    u64::try_from(first).unwrap_or(u64::MAX)
                }
            };
            self.next = self.next.max(first);
            self.next_birth = particle_birth(self.next);
        }
        while self.next_birth <= t && self.next < u64::MAX {
            let (n, birth) = (self.next, self.next_birth);
            self.next += 1;
            self.next_birth = particle_birth(self.next);
            let mut rng = SplitMix64::for_index(self.seed, n);
            let p = Particle {
                birth,
                born_tick: tick,
                vel0: [rng.range_f64(-140.0, 140.0), rng.range_f64(-620.0, -420.0)],
                tint: (rng.next_u64() % PALETTE.len() as u64) as u8,
            };
            if self.len == PARTICLE_CAPACITY {
                // Cannot happen with the capacity above; keep the newest if it does.
                debug_assert!(false, "particle pool overflow");
                self.head = (self.head + 1) % PARTICLE_CAPACITY;
                self.len -= 1;
            }
            let s = self.slot(self.len);
            self.pool[s] = p;
            self.len += 1;
        }
    }

    /// Appends one instance per live particle; `tick` and `now` are the world's.
    pub(crate) fn write(&self, view: View, tick: u64, now: Nanos, out: &mut Vec<Instance>) {
        let atlas = SpriteCell::Particle.atlas_rect();
        for i in 0..self.len {
            let p = &self.pool[self.slot(i)];
            let cur = self.position(p, self.t1);
            let pos = match view {
                _ if p.born_tick == tick => cur,
                View::Latest => cur,
                View::Interpolate { alpha } => lerp2(self.position(p, self.t0), cur, unit_alpha(alpha)),
                View::Extrapolate { ahead } => {
                    let (age, ahead) = (secs(now.saturating_sub(p.birth)), secs(ahead));
                    let vel = [p.vel0[0], p.vel0[1] + PARTICLE_GRAVITY * age];
                    [cur[0] + vel[0] * ahead, cur[1] + vel[1] * ahead]
                }
            };
            let life = 1.0 - (secs(now.saturating_sub(p.birth)) / secs(PARTICLE_LIFETIME)) as f32;
            let [r, g, b] = PALETTE[usize::from(p.tint)];
            let size = PARTICLE_SIZE * (1.0 + 2.0 * life) / 3.0;
            out.push(Instance {
                position: [pos[0] as f32, pos[1] as f32],
                size: [size, size],
                rotation: 0.0,
                flags: 0,
                color: [r, g, b, life.clamp(0.0, 1.0)],
                atlas,
            });
        }
    }

    pub(crate) fn hash_into(&self, h: &mut Fnv1a) {
        h.u64(self.next);
        h.u64(self.len as u64);
        h.u64(self.t0);
        h.u64(self.t1);
        for i in 0..self.len {
            let p = &self.pool[self.slot(i)];
            h.u64(p.birth);
            h.u64(p.born_tick);
            for x in &p.vel0 {
                h.f64(*x);
            }
            h.u64(u64::from(p.tint));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TICK: Nanos = 16_666_667;

    /// Runs `n` ticks of `TICK` and returns the particles and the last tick number.
    fn run(n: u64) -> (Particles, u64) {
        let mut p = Particles::new(1280.0, 720.0, 9);
        for i in 0..n {
            p.step(i * TICK, (i + 1) * TICK, i + 1);
        }
        (p, n)
    }

    #[test]
    fn births_happen_exactly_at_the_emission_rate() {
        assert_eq!(particle_birth(0), 0);
        assert_eq!(particle_birth(1), 25_000_000, "40 per second: one every 25 ms");
        assert_eq!(particle_birth(PARTICLE_RATE), NANOS_PER_SEC, "exact after a second");
    }

    #[test]
    fn live_count_matches_births_within_the_lifetime() {
        let (p, n) = run(600);
        let now = n * TICK;
        let expected = (0..)
            .take_while(|&k| particle_birth(k) <= now)
            .filter(|&k| now - particle_birth(k) < PARTICLE_LIFETIME)
            .count();
        assert_eq!(p.len(), expected, "every particle born in the last {PARTICLE_LIFETIME} ns and no other");
        assert!(p.len() <= PARTICLE_CAPACITY, "the pool never overflows");
    }

    #[test]
    fn a_particle_born_this_tick_is_drawn_at_its_current_position_even_at_alpha_zero() {
        // Tick 2 covers (16.7 ms, 33.3 ms]: particle 1 is born at 25 ms.
        let (p, tick) = run(2);
        let mut out = Vec::new();
        p.write(View::Interpolate { alpha: 0.0 }, tick, 2 * TICK, &mut out);
        let newborn = p.pool[p.slot(p.len - 1)];
        assert_eq!(newborn.born_tick, tick, "the last particle was born in this tick");
        let drawn = out.last().expect("the newborn is drawn").position;
        let cur = p.position(&newborn, 2 * TICK);
        assert_eq!(drawn, [cur[0] as f32, cur[1] as f32], "drawn where it is, not lerped from nowhere");
    }

    #[test]
    fn births_are_exact_on_both_sides_of_the_64_bit_fast_path() {
        let exact = |n: u64| (u128::from(n) * u128::from(NANOS_PER_SEC)).div_ceil(u128::from(PARTICLE_RATE));
        let last_fast = u64::MAX / NANOS_PER_SEC;
        for n in [0, 1, 39, 40, 41, last_fast - 1, last_fast, last_fast + 1, u64::MAX / 2] {
            assert_eq!(u128::from(particle_birth(n)), exact(n).min(u128::from(u64::MAX)), "particle {n}");
        }
    }

    #[test]
    fn the_dead_are_not_drawn() {
        let (p, tick) = run(200);
        let mut out = Vec::new();
        p.write(View::Latest, tick, tick * TICK, &mut out);
        assert_eq!(out.len(), p.len(), "one instance per live particle");
        assert!(out.iter().all(|i| i.color[3] > 0.0), "no fully faded (dead) particle drawn");
    }

    #[test]
    fn one_long_step_spawns_the_same_particles_as_many_short_ones() {
        let (short, n) = run(300);
        let mut long = Particles::new(1280.0, 720.0, 9);
        long.step(0, n * TICK, 1);
        assert_eq!(long.len(), short.len(), "same live count");
        for i in 0..short.len() {
            let (a, b) = (short.pool[short.slot(i)], long.pool[long.slot(i)]);
            let (pa, pb) = (short.position(&a, n * TICK), long.position(&b, n * TICK));
            assert_eq!((a.birth, a.vel0, pa), (b.birth, b.vel0, pb), "particle {i} differs");
        }
    }
}
