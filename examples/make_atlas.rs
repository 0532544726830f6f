//! Generates `assets/atlas.png`, the sprite atlas, procedurally.
//!
//! The atlas is a 4×4 grid of 64 px cells (256×256). Every texel is white and
//! only alpha carries the shape, so the instance colour tints it and linear
//! filtering never darkens edges (transparent texels are white too). Cell
//! order follows `timestep_lab::sim::SpriteCell`. Shapes are evaluated as
//! inside/outside tests in cell-local coordinates (origin at the cell centre,
//! x right, y down, in pixels) and antialiased with 4×4 supersampling.
//!
//! Beside the PNG it writes `assets/atlas-coverage.r8`, the PNG's alpha channel
//! with its mip chain, which the renderer embeds (`render::sprites`): the page
//! then carries no PNG decoder.
//!
//! Run with `cargo run --example make_atlas`; both files are committed, so this
//! only needs to run when the art changes.

use image::{Rgba, RgbaImage};
use std::f32::consts::{PI, TAU};
use timestep_lab::sim::{SpriteCell, instance::ATLAS_GRID};

/// Pixels per atlas cell.
const CELL: u32 = 64;
/// Supersamples per axis for antialiasing.
const SUPERSAMPLE: u32 = 4;
/// How far a shape may reach from the cell centre: a 4 px margin stays one
/// texel wide at the renderer's smallest mip level (16 px cells), so linear
/// filtering never pulls in a neighbouring cell.
const MAX_EXTENT: f32 = 28.0;

/// A shape: returns the coverage (0..1) of the point `(x, y)` in cell-local pixels.
type Shape = fn(f32, f32) -> f32;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let cells: [(SpriteCell, Shape); 9] = [
        (SpriteCell::Ball, ball),
        (SpriteCell::Runner, runner),
        (SpriteCell::Orbiter, ring),
        (SpriteCell::Spinner, arrow),
        (SpriteCell::Wrapper, diamond),
        (SpriteCell::Particle, star),
        (SpriteCell::Player, ship),
        (SpriteCell::Ghost, crosshair),
        (SpriteCell::Square, square),
    ];
    let side = CELL * ATLAS_GRID;
    let mut atlas = RgbaImage::from_pixel(side, side, Rgba([255, 255, 255, 0]));
    for (cell, shape) in cells {
        let index = cell as u32;
        let (cx, cy) = ((index % ATLAS_GRID) * CELL, (index / ATLAS_GRID) * CELL);
        for py in 0..CELL {
            for px in 0..CELL {
                let alpha = supersample(shape, px, py);
                atlas.put_pixel(cx + px, cy + py, Rgba([255, 255, 255, (alpha * 255.0).round() as u8]));
            }
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/atlas.png");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    atlas.save(&path)?;
    log::info!("wrote {}", path.display());
    let coverage = timestep_lab::render::sprites::atlas_coverage(&std::fs::read(&path)?)?;
    let coverage_path = path.with_file_name("atlas-coverage.r8");
    std::fs::write(&coverage_path, coverage)?;
    log::info!("wrote {}", coverage_path.display());
    Ok(())
}

/// Mean coverage of the pixel `(px, py)` over a `SUPERSAMPLE²` grid.
fn supersample(shape: Shape, px: u32, py: u32) -> f32 {
    let half = CELL as f32 / 2.0;
    let mut sum = 0.0;
    for sy in 0..SUPERSAMPLE {
        for sx in 0..SUPERSAMPLE {
            let x = px as f32 + (sx as f32 + 0.5) / SUPERSAMPLE as f32 - half;
            let y = py as f32 + (sy as f32 + 0.5) / SUPERSAMPLE as f32 - half;
            sum += shape(x, y).clamp(0.0, 1.0);
        }
    }
    sum / (SUPERSAMPLE * SUPERSAMPLE) as f32
}

fn inside(condition: bool) -> f32 {
    if condition { 1.0 } else { 0.0 }
}

/// Soft round blob: solid core, smooth falloff to the rim.
fn ball(x: f32, y: f32) -> f32 {
    let r = (x * x + y * y).sqrt();
    1.0 - ((r - 18.0) / (MAX_EXTENT - 18.0)).clamp(0.0, 1.0).powi(2)
}

/// A bar pointing +x whose leading (right) edge is a hard vertical line, so
/// judder shows as a flickering edge; the trailing end fades out.
fn runner(x: f32, y: f32) -> f32 {
    if !(-28.0..=26.0).contains(&x) || y.abs() > 10.0 {
        return 0.0;
    }
    let tail = ((x + 28.0) / 24.0).clamp(0.0, 1.0);
    0.35 + 0.65 * tail
}

/// A ring (annulus).
fn ring(x: f32, y: f32) -> f32 {
    let r = (x * x + y * y).sqrt();
    inside((20.0..=28.0).contains(&r))
}

/// An arrow pointing +x: thin shaft on the left, wide head on the right, so its
/// mass centre sits on the tip side (the offscreen test relies on that).
fn arrow(x: f32, y: f32) -> f32 {
    let shaft = (-28.0..=4.0).contains(&x) && y.abs() <= 5.0;
    let head = (4.0..=28.0).contains(&x) && y.abs() <= (28.0 - x) * 0.75;
    inside(shaft || head)
}

/// A diamond (square rotated by 45°).
fn diamond(x: f32, y: f32) -> f32 {
    inside(x.abs() + y.abs() <= 28.0)
}

/// A five-pointed star, point up.
fn star(x: f32, y: f32) -> f32 {
    let r = (x * x + y * y).sqrt();
    // Angle from "up", folded into one of the ten half-spokes.
    let angle = x.atan2(-y).rem_euclid(TAU / 5.0);
    let t = (angle - PI / 5.0).abs() / (PI / 5.0); // 1 at a point, 0 between points
    let (outer, inner) = (28.0, 11.0);
    // Straight edges between point and notch, in polar form.
    let limit = inner + (outer - inner) * t.powf(1.6);
    inside(r <= limit)
}

/// A ship pointing up with a notched tail.
fn ship(x: f32, y: f32) -> f32 {
    let body = (-28.0..=24.0).contains(&y) && x.abs() <= (y + 28.0) * 0.45;
    let notch = y > 10.0 && x.abs() < (y - 10.0) * 0.9;
    inside(body && !notch)
}

/// A cross-hair ghost marker: an outlined circle plus cross lines with a gap.
fn crosshair(x: f32, y: f32) -> f32 {
    let r = (x * x + y * y).sqrt();
    let circle = (18.0..=21.5).contains(&r);
    let horizontal = y.abs() <= 1.75 && (8.0..=MAX_EXTENT).contains(&x.abs());
    let vertical = x.abs() <= 1.75 && (8.0..=MAX_EXTENT).contains(&y.abs());
    let dot = r <= 2.5;
    inside(circle || horizontal || vertical || dot)
}

/// A plain square (filling the cell up to the margin).
fn square(x: f32, y: f32) -> f32 {
    inside(x.abs() <= MAX_EXTENT && y.abs() <= MAX_EXTENT)
}
