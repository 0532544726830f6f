//! An offscreen render target with CPU readback, for tests, benches and `--screenshot`.
//!
//! The renderer draws into any `&wgpu::TextureView`, so rendering offscreen is
//! just drawing into [`Offscreen::view`]. Reading back copies the texture into a
//! mappable buffer whose rows are padded to `COPY_BYTES_PER_ROW_ALIGNMENT`
//! (256 bytes) and strips that padding again:
//!
//! ```text
//!   texture row: | w × 4 bytes |            buffer row: | w × 4 bytes | pad to 256 |
//! ```
//!
//! Readback blocks until the GPU is done; it is not meant for the per-frame path.

use super::error::RenderError;
use super::sprites::SpriteRenderer;
use crate::sim::Instance;
use std::path::Path;

/// The format of every offscreen target: 8-bit RGBA without sRGB encoding,
/// like the window surface (`Surface` picks a non-sRGB format), so offscreen
/// frames, screenshots and benchmarks blend exactly as the window does.
const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Bytes per RGBA8 pixel.
const BYTES_PER_PIXEL: u32 = 4;

/// An RGBA8 render target that can be read back to the CPU.
pub struct Offscreen {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    width: u32,
    height: u32,
    format: wgpu::TextureFormat,
}

impl Offscreen {
    /// Creates a `width × height` target (each clamped to at least 1) in the
    /// window's format, `Rgba8Unorm`.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Offscreen {
        Offscreen::with_format(device, width, height, FORMAT)
    }

    /// As [`Offscreen::new`] in another 8-bit RGBA format; `Rgba8UnormSrgb`
    /// checks the renderer on surfaces that only offer sRGB formats.
    ///
    /// # Panics
    /// If `format` is not 4 bytes per pixel (readback assumes RGBA8).
    pub fn with_format(device: &wgpu::Device, width: u32, height: u32, format: wgpu::TextureFormat) -> Offscreen {
        assert_eq!(format.block_copy_size(None), Some(BYTES_PER_PIXEL), "Offscreen reads back RGBA8 formats only");
        let (width, height) = (width.max(1), height.max(1));
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen target"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Offscreen { texture, view, width, height, format }
    }

    /// The view to render into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// The target's colour format (`Rgba8Unorm` unless made [`with_format`](Self::with_format)),
    /// for building pipelines.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// `[width, height]` in pixels.
    pub fn size(&self) -> [u32; 2] {
        [self.width, self.height]
    }

    /// Prepares, draws and submits one frame of `instances` (a `playfield`
    /// letterboxed into this target) with `renderer`, which must have been built
    /// for [`Offscreen::format`]. Returns without waiting; read back to wait.
    pub fn render(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &mut SpriteRenderer,
        instances: &[Instance],
        playfield: [f32; 2],
    ) -> wgpu::SubmissionIndex {
        renderer.prepare(device, queue, instances, playfield, self.size());
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("offscreen frame") });
        renderer.draw(&mut encoder, &self.view);
        queue.submit([encoder.finish()])
    }

    /// Copies the texture to a buffer, waits for the GPU and returns tightly
    /// packed RGBA8 rows, top row first (`width × height × 4` bytes).
    ///
    /// # Errors
    /// [`RenderError::Readback`] if mapping or waiting fails.
    pub fn read_rgba(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Vec<u8>, RenderError> {
        let unpadded = self.width * BYTES_PER_PIXEL;
        let padded = unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen readback"),
            size: u64::from(padded) * u64::from(self.height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d { width: self.width, height: self.height, depth_or_array_layers: 1 },
        );
        let submission = queue.submit([encoder.finish()]);

        let (sender, receiver) = std::sync::mpsc::channel();
        buffer.slice(..).map_async(wgpu::MapMode::Read, move |result| {
            // The receiver outlives the poll below; a send error cannot happen.
            let _ = sender.send(result);
        });
        device
            .poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: None })
            .map_err(|err| RenderError::Readback(format!("waiting for the GPU: {err}")))?;
        receiver
            .recv()
            .map_err(|_| RenderError::Readback("the map callback never ran".into()))?
            .map_err(|err| RenderError::Readback(format!("mapping the buffer: {err}")))?;

        let mut pixels = Vec::with_capacity((unpadded * self.height) as usize);
        {
            let mapped = buffer
                .get_mapped_range(..)
                .map_err(|err| RenderError::Readback(format!("reading the mapped buffer: {err}")))?;
            for row in mapped.chunks_exact(padded as usize) {
                pixels.extend_from_slice(&row[..unpadded as usize]);
            }
        }
        buffer.unmap();
        Ok(pixels)
    }

    /// Reads the target back and writes it to `path` as a PNG.
    ///
    /// # Errors
    /// [`RenderError::Readback`], or [`RenderError::Image`] if the file cannot be written.
    pub fn save_png(&self, device: &wgpu::Device, queue: &wgpu::Queue, path: &Path) -> Result<(), RenderError> {
        let pixels = self.read_rgba(device, queue)?;
        image::save_buffer_with_format(
            path,
            &pixels,
            self.width,
            self.height,
            image::ExtendedColorType::Rgba8,
            image::ImageFormat::Png,
        )
        .map_err(|err| RenderError::Image { path: path.to_path_buf(), reason: err.to_string() })
    }
}
