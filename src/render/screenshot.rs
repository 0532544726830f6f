//! `--screenshot`: the window's last picture, drawn again offscreen and saved as a PNG.
//!
//! The window's own frames cannot be read back (a swapchain image is gone once
//! presented), so the world's instances and the overlay are drawn once more, at
//! the window's size, into an [`Offscreen`] target of the window's blending
//! (8-bit, non-sRGB) with renderers of their own: the live ones keep their GPU
//! timestamps and egui state untouched.
//!
//! ```text
//!   instances ──SpriteRenderer──┐
//!   HudData ───Overlay (headless)┴─► Offscreen (window size) ──tiled readback──► PNG
//! ```
//!
//! Any size the window can have works: the readback is tiled within the
//! device's `max_buffer_size` (see [`super::offscreen`]), so a 16384 × 16384
//! window (1 GiB of pixels, four times the default 256 MiB limit) is saved too.

use std::path::Path;

use super::offscreen::Offscreen;
use super::overlay::{Input, Overlay, Target};
use super::render_error::RenderError;
use super::sprites::SpriteRenderer;
use crate::hud_data::HudData;
use crate::sim::Instance;

/// A window smaller than this on either side (minimised at exit, a resize
/// storm's 1 × 1) is pictured at the playfield's size instead: a picture a few
/// pixels wide shows nothing.
pub(crate) const MIN_SIDE: u32 = 16;

/// Everything a screenshot shows.
#[derive(Clone, Copy, Debug)]
pub struct Screenshot<'a> {
    /// The world as last drawn.
    pub instances: &'a [Instance],
    /// The playfield the instances are laid out in (letterboxed into the picture).
    pub playfield: [f32; 2],
    /// The window's size in pixels.
    pub size: [u32; 2],
    /// What the overlay shows, or `None` when it is hidden (`H`, `--no-overlay`).
    pub hud: Option<&'a HudData>,
    /// The window's scale factor, so the overlay has the window's layout.
    pub pixels_per_point: f32,
}

impl Screenshot<'_> {
    /// The picture's size: the window's, or the playfield's for a window under [`MIN_SIDE`],
    /// at most the device's largest texture on each side.
    pub fn picture_size(&self, device: &wgpu::Device) -> [u32; 2] {
        let [w, h] = self.size;
        let [w, h] =
            if w < MIN_SIDE || h < MIN_SIDE { self.playfield.map(|side| side.round().max(1.0) as u32) } else { [w, h] };
        let max = device.limits().max_texture_dimension_2d.max(1);
        [w.min(max), h.min(max)]
    }

    /// Draws the picture into a new offscreen target and submits the work.
    pub fn render(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Offscreen {
        let [width, height] = self.picture_size(device);
        if [width, height] != self.size {
            let [w, h] = self.size;
            let max = device.limits().max_texture_dimension_2d;
            log::warn!(
                "screenshot: the {w}x{h} window is pictured at {width}x{height} (a side under {MIN_SIDE} px shows \
                 nothing; this GPU draws at most {max} px a side)"
            );
        }
        let target = Offscreen::new(device, width, height);
        let mut overlay = self.hud.map(|hud| {
            let mut overlay = Overlay::new_headless(device, target.format(), self.pixels_per_point);
            // A throwaway frame first, painted over below: a fresh egui lays some things out from
            // the previous frame's sizes (the plot's axis width), as the window's overlay has.
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("settle") });
            overlay.draw(device, queue, Target::new(&mut encoder, target.view(), target.size()), Input::Headless, hud);
            queue.submit([encoder.finish()]);
            overlay
        });
        let mut sprites = SpriteRenderer::new(device, queue, target.format());
        sprites.prepare(device, queue, self.instances, self.playfield, target.size());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("screenshot") });
        // The scene pass clears the target.
        sprites.draw(&mut encoder, target.view());
        if let (Some(overlay), Some(hud)) = (overlay.as_mut(), self.hud) {
            overlay.draw(device, queue, Target::new(&mut encoder, target.view(), target.size()), Input::Headless, hud);
        }
        queue.submit([encoder.finish()]);
        target
    }

    /// Draws the picture and writes it to `path` as a PNG.
    ///
    /// # Errors
    /// [`RenderError::Readback`] if the picture cannot be read back, [`RenderError::Image`] if
    /// the file cannot be written.
    pub fn save_png(&self, device: &wgpu::Device, queue: &wgpu::Queue, path: &Path) -> Result<(), RenderError> {
        self.render(device, queue).save_png(device, queue, path)
    }
}
