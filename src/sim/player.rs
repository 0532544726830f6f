//! The player sprite: the one mover driven by input, so input latency is
//! something you can feel (and the overlay can measure).
//!
//! It moves at [`PLAYER_SPEED`] in the held direction and stops at the
//! playfield edge. Input reaches it at a tick boundary only, which is why a
//! 10 Hz tick rate makes it feel sluggish however fast the screen refreshes.

use super::hash::Fnv1a;
use super::input::Input;
use super::instance::{Instance, SpriteCell};
use super::movers::{lerp_angle, lerp2, secs, unit_alpha};
use crate::strategy::View;

/// Player speed, px/s.
pub(crate) const PLAYER_SPEED: f64 = 480.0;
/// Drawn size, px.
const PLAYER_SIZE: f32 = 44.0;
const PLAYER_COLOR: [f32; 4] = [0.85, 0.92, 1.0, 1.0];

/// The player: previous and current position, clamped to the playfield.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Player {
    prev: [f64; 2],
    cur: [f64; 2],
    vel: [f64; 2],
    prev_facing: f64,
    facing: f64,
    lo: [f64; 2],
    hi: [f64; 2],
}

impl Player {
    /// At the bottom centre of a `width` × `height` playfield, facing up.
    pub(crate) fn new(width: f64, height: f64) -> Player {
        let half = 0.5 * f64::from(PLAYER_SIZE);
        let lo = [half, half];
        let hi = [(width - half).max(half), (height - half).max(half)];
        let start = [0.5 * width, (0.8 * height).clamp(lo[1], hi[1])];
        let up = std::f64::consts::FRAC_PI_2;
        Player { prev: start, cur: start, vel: [0.0; 2], prev_facing: up, facing: up, lo, hi }
    }

    /// Current centre.
    #[cfg(test)]
    pub(crate) fn position(&self) -> [f64; 2] {
        self.cur
    }

    /// Moves for `dt` seconds with `input` held.
    pub(crate) fn step(&mut self, input: Input, dt: f64) {
        self.prev = self.cur;
        self.prev_facing = self.facing;
        let dir = input.direction();
        for (axis, d) in dir.iter().enumerate() {
            let v = d * PLAYER_SPEED;
            let want = self.cur[axis] + v * dt;
            let got = want.max(self.lo[axis]).min(self.hi[axis]);
            // Blocked by the edge: no velocity to extrapolate with.
            self.vel[axis] = if got == want { v } else { 0.0 };
            self.cur[axis] = got;
        }
        if dir != [0.0, 0.0] {
            // Counter-clockwise on screen, where y grows downwards.
            self.facing = (-dir[1]).atan2(dir[0]);
        }
    }

    pub(crate) fn instance(&self, view: View) -> Instance {
        let (pos, rot) = match view {
            View::Latest => (self.cur, self.facing),
            View::Interpolate { alpha } => {
                let a = unit_alpha(alpha);
                (lerp2(self.prev, self.cur, a), lerp_angle(self.prev_facing, self.facing, a))
            }
            View::Extrapolate { ahead } => {
                let ahead = secs(ahead);
                let p = [self.cur[0] + self.vel[0] * ahead, self.cur[1] + self.vel[1] * ahead];
                ([p[0].max(self.lo[0]).min(self.hi[0]), p[1].max(self.lo[1]).min(self.hi[1])], self.facing)
            }
        };
        Instance {
            position: [pos[0] as f32, pos[1] as f32],
            size: [PLAYER_SIZE, PLAYER_SIZE],
            rotation: rot as f32,
            flags: 0,
            color: PLAYER_COLOR,
            atlas: SpriteCell::Player.atlas_rect(),
        }
    }

    pub(crate) fn hash_into(&self, h: &mut Fnv1a) {
        for x in self.prev.iter().chain(&self.cur).chain(&self.vel) {
            h.f64(*x);
        }
        h.f64(self.prev_facing);
        h.f64(self.facing);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holding_right_moves_at_player_speed() {
        let mut p = Player::new(1280.0, 720.0);
        let x0 = p.position()[0];
        p.step(Input::RIGHT, 0.25);
        assert_eq!(p.position()[0] - x0, PLAYER_SPEED * 0.25, "a quarter second at full speed");
    }

    #[test]
    fn the_player_stops_at_the_edge_and_does_not_extrapolate_past_it() {
        let mut p = Player::new(1280.0, 720.0);
        for _ in 0..100 {
            p.step(Input::LEFT, 0.1);
        }
        assert_eq!(p.position()[0], 22.0, "half its size from the left edge");
        let drawn = p.instance(View::Extrapolate { ahead: 500_000_000 });
        assert_eq!(drawn.position[0], 22.0, "prediction respects the edge");
    }
}
