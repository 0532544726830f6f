//! Load sprites: many simple bouncing squares, to see what 100k entities cost.
//!
//! Struct-of-arrays (`Vec<f32>` per field) so the step and the interpolation
//! are straight loops over contiguous floats the compiler vectorises; the
//! branches are written as selects for the same reason. The previous state
//! is a `copy_from_slice` of the current one (a memcpy), so a step is two
//! memcpys and two passes. `f32` because these are for load, not for
//! precision; nothing about them is accumulated across long runs except
//! their bouncing positions, which are clamped into the box.

use super::hash::Fnv1a;
use super::instance::{Instance, SpriteCell};
use crate::rng::SplitMix64;
use crate::strategy::View;

/// Drawn size of a load sprite, px.
const LOAD_SIZE: f32 = 6.0;
/// Muted slate and teal, translucent: background noise, not the show.
const PALETTE: [[f32; 4]; 4] =
    [[0.45, 0.55, 0.70, 0.55], [0.40, 0.62, 0.62, 0.55], [0.55, 0.50, 0.68, 0.55], [0.50, 0.58, 0.52, 0.55]];

/// `n` bouncing squares, one `Vec<f32>` per field.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LoadSprites {
    x: Vec<f32>,
    y: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    px: Vec<f32>,
    py: Vec<f32>,
    lo: f32,
    hi: [f32; 2],
}

/// Moves one coordinate of every sprite and reflects it off `[lo, hi]`.
fn bounce_axis(pos: &mut [f32], vel: &mut [f32], lo: f32, hi: f32, dt: f32) {
    for (p, v) in pos.iter_mut().zip(vel.iter_mut()) {
        let n = *p + *v * dt;
        let below = n < lo;
        let above = n > hi;
        let reflected = if below {
            2.0 * lo - n
        } else if above {
            2.0 * hi - n
        } else {
            n
        };
        *v = if below | above { -*v } else { *v };
        // A step longer than a crossing could reflect past the other wall.
        *p = reflected.max(lo).min(hi);
    }
}

impl LoadSprites {
    /// `n` sprites scattered over a `width` × `height` box with random
    /// velocities (60–260 px/s), from `seed`.
    pub(crate) fn new(n: usize, width: f32, height: f32, seed: u64) -> LoadSprites {
        let lo = 0.5 * LOAD_SIZE;
        let hi = [(width - lo).max(lo), (height - lo).max(lo)];
        let mut rng = SplitMix64::new(seed ^ 0x10AD_10AD_10AD_10AD);
        let mut s = LoadSprites {
            x: Vec::with_capacity(n),
            y: Vec::with_capacity(n),
            vx: Vec::with_capacity(n),
            vy: Vec::with_capacity(n),
            px: Vec::new(),
            py: Vec::new(),
            lo,
            hi,
        };
        for _ in 0..n {
            s.x.push(rng.range_f64(f64::from(lo), f64::from(hi[0])) as f32);
            s.y.push(rng.range_f64(f64::from(lo), f64::from(hi[1])) as f32);
            let (angle, speed) = (rng.range_f64(0.0, std::f64::consts::TAU), rng.range_f64(60.0, 260.0));
            s.vx.push((angle.cos() * speed) as f32);
            s.vy.push((angle.sin() * speed) as f32);
        }
        s.px = s.x.clone();
        s.py = s.y.clone();
        s
    }

    pub(crate) fn len(&self) -> usize {
        self.x.len()
    }

    /// Advances every sprite by `dt` seconds.
    #[inline] // So that the caller's conversion of `dt` is skipped with the rest.
    pub(crate) fn step(&mut self, dt: f32) {
        // The demo world has none: skip the two empty memcpy calls and the
        // loop set-up (70 instructions per step, 2 % of a simulated frame;
        // callgrind, `simulate --strategy interpolated`).
        if self.x.is_empty() {
            return;
        }
        self.px.copy_from_slice(&self.x);
        self.py.copy_from_slice(&self.y);
        bounce_axis(&mut self.x, &mut self.vx, self.lo, self.hi[0], dt);
        bounce_axis(&mut self.y, &mut self.vy, self.lo, self.hi[1], dt);
    }

    /// Appends one instance per sprite. `out` must have the capacity reserved
    /// by the caller to stay allocation-free.
    pub(crate) fn write(&self, view: View, out: &mut Vec<Instance>) {
        let atlas = SpriteCell::Square.atlas_rect();
        let make = move |i: usize, x: f32, y: f32| Instance {
            position: [x, y],
            size: [LOAD_SIZE, LOAD_SIZE],
            rotation: 0.0,
            flags: 0,
            color: PALETTE[i & 3],
            atlas,
        };
        let cur = self.x.iter().zip(&self.y);
        match view {
            View::Latest => out.extend(cur.enumerate().map(|(i, (&x, &y))| make(i, x, y))),
            View::Interpolate { alpha } => {
                let a = super::movers::unit_alpha(alpha) as f32;
                let prev = self.px.iter().zip(&self.py);
                out.extend(
                    cur.zip(prev)
                        .enumerate()
                        .map(|(i, ((&x, &y), (&px, &py)))| make(i, px + (x - px) * a, py + (y - py) * a)),
                );
            }
            View::Extrapolate { ahead } => {
                let t = super::movers::secs(ahead) as f32;
                let vel = self.vx.iter().zip(&self.vy);
                out.extend(cur.zip(vel).enumerate().map(|(i, ((&x, &y), (&vx, &vy)))| make(i, x + vx * t, y + vy * t)));
            }
        }
    }

    pub(crate) fn hash_into(&self, h: &mut Fnv1a) {
        h.u64(self.x.len() as u64);
        for field in [&self.x, &self.y, &self.vx, &self.vy, &self.px, &self.py] {
            for v in field {
                h.f32(*v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_sprites_never_leave_the_box_even_with_huge_steps() {
        let mut s = LoadSprites::new(1000, 320.0, 200.0, 3);
        for dt in [1.0 / 60.0, 5.0, 0.0, 100.0, 1.0 / 1000.0] {
            s.step(dt);
            let inside_x = s.x.iter().all(|&x| (s.lo..=s.hi[0]).contains(&x));
            let inside_y = s.y.iter().all(|&y| (s.lo..=s.hi[1]).contains(&y));
            assert!(inside_x && inside_y, "a sprite escaped after a step of {dt} s");
        }
    }

    #[test]
    fn a_sprite_reflects_off_the_wall_it_crosses() {
        let mut pos = [95.0];
        let mut vel = [100.0];
        bounce_axis(&mut pos, &mut vel, 0.0, 100.0, 0.1);
        assert_eq!((pos[0], vel[0]), (95.0, -100.0), "5 px to the wall, 5 px back");
    }

    #[test]
    fn interpolation_writes_one_instance_per_sprite_between_the_states() {
        let mut s = LoadSprites::new(10, 320.0, 200.0, 3);
        s.step(0.1);
        let mut out = Vec::new();
        s.write(View::Interpolate { alpha: 0.5 }, &mut out);
        assert_eq!(out.len(), 10);
        let expected = 0.5 * (s.px[4] + s.x[4]);
        assert!((out[4].position[0] - expected).abs() < 1e-3, "{} vs {expected}", out[4].position[0]);
    }
}
