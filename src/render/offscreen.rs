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
//! A buffer may not exceed the device's `max_buffer_size` (256 MiB by default),
//! and a 16384 × 16384 target is 1 GiB, so the copy goes through one reused
//! buffer in tiles that each fit ([`readback_tiles`]): bands of whole rows, or
//! where not even one row fits, columns of 64-pixel multiples within each row.
//!
//! ```text
//!   16384 × 16384, 256 MiB buffers:  rows 0..4096 | 4096..8192 | 8192..12288 | 12288..16384
//! ```
//!
//! Readback blocks until the GPU is done; it is not meant for the per-frame path.

use super::render_error::RenderError;
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

    /// Copies the texture to the CPU tile by tile within the device's
    /// `max_buffer_size`, waiting for the GPU, and returns tightly packed RGBA8
    /// rows, top row first (`width × height × 4` bytes; BGRA targets are
    /// returned as RGBA).
    ///
    /// # Errors
    /// [`RenderError::Readback`] if the device's buffers cannot hold one tile,
    /// or if mapping or waiting fails.
    pub fn read_rgba(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Vec<u8>, RenderError> {
        let max_bytes = device.limits().max_buffer_size;
        let tiles = readback_tiles([self.width, self.height], max_bytes).ok_or_else(|| {
            RenderError::Readback(format!("the device's largest buffer ({max_bytes} bytes) cannot hold one row"))
        })?;
        let largest = tiles.iter().map(|t| t.buffer_bytes()).max().unwrap_or(0);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("offscreen readback"),
            size: largest,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let row_bytes = (self.width * BYTES_PER_PIXEL) as usize;
        let mut pixels = vec![0; row_bytes * self.height as usize];
        for tile in &tiles {
            self.read_tile(device, queue, &buffer, tile, &mut pixels)?;
        }
        if matches!(self.format, wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb) {
            for pixel in pixels.chunks_exact_mut(BYTES_PER_PIXEL as usize) {
                pixel.swap(0, 2);
            }
        }
        Ok(pixels)
    }

    /// Copies `tile` through `buffer` into its place in `pixels` (tightly packed, full width).
    fn read_tile(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        buffer: &wgpu::Buffer,
        tile: &ReadbackTile,
        pixels: &mut [u8],
    ) -> Result<(), RenderError> {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("readback") });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x: tile.x, y: tile.y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(tile.padded_row_bytes()),
                    rows_per_image: Some(tile.height),
                },
            },
            wgpu::Extent3d { width: tile.width, height: tile.height, depth_or_array_layers: 1 },
        );
        let submission = queue.submit([encoder.finish()]);

        let slice = buffer.slice(..tile.buffer_bytes());
        let (sender, receiver) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
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
        {
            let mapped = slice
                .get_mapped_range()
                .map_err(|err| RenderError::Readback(format!("reading the mapped buffer: {err}")))?;
            let full_row = (self.width * BYTES_PER_PIXEL) as usize;
            let (x, tile_row) = ((tile.x * BYTES_PER_PIXEL) as usize, (tile.width * BYTES_PER_PIXEL) as usize);
            for (i, row) in mapped.chunks_exact(tile.padded_row_bytes() as usize).enumerate() {
                let start = (tile.y as usize + i) * full_row + x;
                pixels[start..start + tile_row].copy_from_slice(&row[..tile_row]);
            }
        }
        buffer.unmap();
        Ok(())
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

/// One rectangle of a tiled readback, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReadbackTile {
    /// Left edge.
    pub(crate) x: u32,
    /// Top edge.
    pub(crate) y: u32,
    /// Width.
    pub(crate) width: u32,
    /// Height (rows).
    pub(crate) height: u32,
}

impl ReadbackTile {
    /// Bytes per row in the buffer: the tile's row padded to `COPY_BYTES_PER_ROW_ALIGNMENT`.
    pub(crate) fn padded_row_bytes(&self) -> u32 {
        padded_row_bytes(self.width)
    }

    /// Bytes of buffer the tile needs.
    pub(crate) fn buffer_bytes(&self) -> u64 {
        u64::from(self.padded_row_bytes()) * u64::from(self.height)
    }
}

fn padded_row_bytes(width: u32) -> u32 {
    (width * BYTES_PER_PIXEL).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// The tiles, in row-major order, that cover a `[width, height]` target with
/// each tile's buffer at most `max_bytes`: full-width bands of as many rows as
/// fit, or, where one row does not fit, columns a multiple of 64 pixels wide
/// (256 bytes, the row alignment). `None` if not even 64 pixels fit.
pub(crate) fn readback_tiles(size: [u32; 2], max_bytes: u64) -> Option<Vec<ReadbackTile>> {
    let [width, height] = size;
    let align_pixels = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT / BYTES_PER_PIXEL;
    let tile_width = if u64::from(padded_row_bytes(width)) <= max_bytes {
        width
    } else {
        let aligned_rows = max_bytes / u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        u32::try_from(aligned_rows).unwrap_or(u32::MAX).saturating_mul(align_pixels).min(width)
    };
    if tile_width == 0 || height == 0 {
        return (width == 0 || height == 0).then(Vec::new);
    }
    let rows = u32::try_from(max_bytes / u64::from(padded_row_bytes(tile_width))).unwrap_or(u32::MAX).min(height);
    let mut tiles = Vec::new();
    for y in (0..height).step_by(rows as usize) {
        for x in (0..width).step_by(tile_width as usize) {
            tiles.push(ReadbackTile { x, y, width: tile_width.min(width - x), height: rows.min(height - y) });
        }
    }
    Some(tiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_16384_square_target_reads_back_in_four_bands_of_256_mib() {
        let tiles = readback_tiles([16384, 16384], 256 * MIB).expect("rows fit");
        let bands: Vec<(u32, u32)> = tiles.iter().map(|t| (t.y, t.height)).collect();
        assert_eq!(bands, [(0, 4096), (4096, 4096), (8192, 4096), (12288, 4096)]);
        assert!(tiles.iter().all(|t| t.x == 0 && t.width == 16384 && t.buffer_bytes() == 256 * MIB));
    }

    #[test]
    fn a_small_target_is_one_tile_with_padded_rows() {
        let tiles = readback_tiles([100, 50], 256 * MIB).expect("fits");
        assert_eq!(tiles, [ReadbackTile { x: 0, y: 0, width: 100, height: 50 }]);
        assert_eq!(tiles[0].padded_row_bytes(), 512, "400 bytes of pixels padded to 512");
        assert_eq!(tiles[0].buffer_bytes(), 512 * 50);
    }

    #[test]
    fn the_last_band_holds_the_rows_left_over() {
        // 640 px rows are 2560 bytes: 100 rows fit in 256 000 bytes; 360 = 3 × 100 + 60.
        let tiles = readback_tiles([640, 360], 256_000).expect("rows fit");
        let heights: Vec<u32> = tiles.iter().map(|t| t.height).collect();
        assert_eq!(heights, [100, 100, 100, 60]);
        assert!(tiles.iter().all(|t| t.buffer_bytes() <= 256_000));
    }

    #[test]
    fn rows_wider_than_a_buffer_split_into_aligned_columns() {
        // 1000 bytes hold three 256-byte rows of 64 px: columns of 192 px, one row each.
        let tiles = readback_tiles([500, 2], 1000).expect("64 px fit");
        let columns: Vec<(u32, u32, u32)> = tiles.iter().map(|t| (t.x, t.y, t.width)).collect();
        assert_eq!(columns, [(0, 0, 192), (192, 0, 192), (384, 0, 116), (0, 1, 192), (192, 1, 192), (384, 1, 116)]);
        assert!(tiles.iter().all(|t| t.height == 1 && t.buffer_bytes() <= 1000));
        assert_eq!(readback_tiles([500, 2], 255), None, "not even 64 px fit");
        assert_eq!(readback_tiles([0, 0], 255), Some(Vec::new()), "nothing to read");
    }
}
