//! The render instance: what the world hands the renderer for each sprite.
//!
//! The world writes these into a caller-owned buffer; the renderer uploads
//! them as one instance buffer and draws everything in one call. The layout
//! is `#[repr(C)]` and `Pod` so the buffer is copied to the GPU as bytes.

use bytemuck::{Pod, Zeroable};

/// Cells per row and column of the sprite atlas (`assets/atlas.png`).
pub const ATLAS_GRID: u32 = 4;

/// Which atlas cell a sprite uses. The atlas is a 4×4 grid; cell `i` is at
/// column `i % 4`, row `i / 4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum SpriteCell {
    /// Soft round blob (the ball uses an SDF instead, see [`Instance::FLAG_SDF_CIRCLE`]).
    Ball = 0,
    /// The constant-speed runner: a bar with a sharp leading edge.
    Runner = 1,
    /// The orbiter: a ring.
    Orbiter = 2,
    /// The spinner: an arrow, so its direction is visible.
    Spinner = 3,
    /// The wrapping teleporter: a diamond.
    Wrapper = 4,
    /// A particle: a small star.
    Particle = 5,
    /// The player: a ship shape.
    Player = 6,
    /// Ghost marker: an outlined cross-hair.
    Ghost = 7,
    /// Plain square for load sprites.
    Square = 8,
}

impl SpriteCell {
    /// `[u0, v0, u1, v1]` of this cell in the atlas.
    pub fn atlas_rect(self) -> [f32; 4] {
        let i = self as u32;
        let size = 1.0 / ATLAS_GRID as f32;
        let u0 = (i % ATLAS_GRID) as f32 * size;
        let v0 = (i / ATLAS_GRID) as f32 * size;
        [u0, v0, u0 + size, v0 + size]
    }
}

/// One sprite as drawn: world units are pixels of the logical playfield,
/// origin top-left, y down.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable, Default)]
pub struct Instance {
    /// Centre, in playfield pixels.
    pub position: [f32; 2],
    /// Full width and height, in playfield pixels.
    pub size: [f32; 2],
    /// Rotation in radians, counter-clockwise on screen.
    pub rotation: f32,
    /// `FLAG_*` bits.
    pub flags: u32,
    /// Straight (non-premultiplied) RGBA in 0..1, multiplied with the texel.
    pub color: [f32; 4],
    /// `[u0, v0, u1, v1]` in the atlas.
    pub atlas: [f32; 4],
}

impl Instance {
    /// Draw as an antialiased signed-distance circle instead of a texel.
    pub const FLAG_SDF_CIRCLE: u32 = 1;
    /// Draw as an outline only (ghost markers).
    pub const FLAG_OUTLINE: u32 = 2;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_layout_is_stable_for_the_gpu() {
        assert_eq!(std::mem::size_of::<Instance>(), 56);
        assert_eq!(std::mem::align_of::<Instance>(), 4);
    }

    #[test]
    fn atlas_rects_tile_the_grid() {
        assert_eq!(SpriteCell::Ball.atlas_rect(), [0.0, 0.0, 0.25, 0.25]);
        assert_eq!(SpriteCell::Wrapper.atlas_rect(), [0.0, 0.25, 0.25, 0.5]);
        assert_eq!(SpriteCell::Square.atlas_rect(), [0.0, 0.5, 0.25, 0.75]);
    }
}
