//! The sprite pipeline: background grid plus every sprite in one draw call.
//!
//! The world hands over a slice of [`Instance`]s each frame. [`SpriteRenderer::prepare`]
//! copies them into one GPU buffer (grown geometrically, never shrunk, so
//! steady-state frames allocate nothing). [`SpriteRenderer::draw`] records one
//! render pass with up to three draw calls: the background's flat fill (only
//! when letterbox bars show; otherwise the pass's clear paints the
//! background), its grid lines, then all sprites together.
//!
//! ```text
//!   target:   ┌──────┬─────────────────────┬──────┐
//!             │ bars │ viewport = playfield│ bars │  letterbox: the playfield keeps its
//!             │      │ 1. fill (opaque)    │      │  aspect, centred; viewport and scissor
//!             │      │ 2. grid lines       │      │  stop anything drawing outside it
//!             │      │ 3. all sprites      │      │
//!             └──────┴─────────────────────┴──────┘
//! ```
//!
//! The background has its own pipelines rather than riding along as sprite
//! instances: software rasterisers (llvmpipe) execute every branch of a shader
//! under a mask, so a shared fragment shader made every sprite pay for the grid
//! and every grid pixel for the sprite paths (measured: 74 ms → 8 ms per empty
//! 1280×720 frame on lavapipe). The lines are thin quads rather than a
//! procedural full-screen shader for the same reason: only pixels near a line
//! are shaded (an empty 1280×720 frame: 3.7 ms → 1.8 ms on lavapipe).
//!
//! The grid (lines every [`GRID_SPACING`] playfield pixels) is what makes judder
//! visible: a sprite moving at constant speed should cross it at a constant rate.
//! The ball is an analytic antialiased circle ([`Instance::FLAG_SDF_CIRCLE`]) so
//! its centre is exact at any sub-pixel position. Blending is premultiplied alpha.

use super::gpu_timer::PassTimestamps;
use crate::sim::Instance;
use crate::sim::instance::ATLAS_GRID;
use std::sync::atomic::{AtomicU32, Ordering};

/// Distance between background grid lines, in playfield pixels (the atlas cell size).
pub const GRID_SPACING: f32 = 64.0;

/// Bytes per instance in the GPU buffer.
const INSTANCE_SIZE: u64 = std::mem::size_of::<Instance>() as u64;
/// Initial buffer capacity in instances.
const INITIAL_CAPACITY: u64 = 1024;
/// Mip levels generated for the atlas: 64, 32 and 16 px cells. Smaller cells
/// would bleed into their neighbours under linear filtering.
const ATLAS_MIP_LEVELS: u32 = 3;
/// Colour of the letterbox bars outside the playfield.
const LETTERBOX_COLOR: wgpu::Color = wgpu::Color::BLACK;
/// Straight sRGB colours of the playfield background, grid lines and border.
const BACKGROUND: [f32; 3] = [0.075, 0.085, 0.11];
const GRID_LINE: [f32; 3] = [0.19, 0.22, 0.28];
const BORDER: [f32; 3] = [0.38, 0.44, 0.55];

const SHADER: &str = include_str!("../../shaders/sprite.wgsl");

// The vertex layout assumes the `#[repr(C)]` layout of `Instance`.
const _: () = {
    assert!(std::mem::offset_of!(Instance, size) == 8);
    assert!(std::mem::offset_of!(Instance, rotation) == 16);
    assert!(std::mem::offset_of!(Instance, flags) == 20);
    assert!(std::mem::offset_of!(Instance, color) == 24);
    assert!(std::mem::offset_of!(Instance, atlas) == 40);
    assert!(std::mem::size_of::<Instance>() == 56);
};

const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x2, // position
    1 => Float32x2, // size
    2 => Float32,   // rotation
    3 => Uint32,    // flags
    4 => Float32x4, // color
    5 => Float32x4, // atlas
];

/// Uniforms shared by every draw; mirrors `View` in `shaders/sprite.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
struct ViewUniform {
    playfield: [f32; 2],
    /// Playfield pixels per target pixel: the antialiasing width.
    px: f32,
    _pad: u32,
    background: [f32; 4],
    grid_line: [f32; 4],
    border: [f32; 4],
}

/// Where the playfield lands in the target: the largest centred rectangle with
/// the playfield's aspect ratio, in whole target pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Letterbox {
    /// Left edge in target pixels.
    pub x: u32,
    /// Top edge in target pixels.
    pub y: u32,
    /// Width in target pixels (0 if the target is empty).
    pub width: u32,
    /// Height in target pixels (0 if the target is empty).
    pub height: u32,
    /// The playfield size it maps, in playfield pixels.
    pub(crate) playfield: [f32; 2],
}

impl Letterbox {
    /// Fits `playfield` (playfield pixels) into a `target` of `[width, height]` pixels.
    pub fn fit(playfield: [f32; 2], target: [u32; 2]) -> Letterbox {
        let playfield = [playfield[0].max(1.0), playfield[1].max(1.0)];
        let [tw, th] = target;
        let scale = (tw as f32 / playfield[0]).min(th as f32 / playfield[1]);
        let width = ((playfield[0] * scale).round() as u32).min(tw);
        let height = ((playfield[1] * scale).round() as u32).min(th);
        Letterbox { x: (tw - width) / 2, y: (th - height) / 2, width, height, playfield }
    }

    /// Target pixels per playfield pixel, per axis (equal up to rounding).
    pub(crate) fn scale(&self) -> [f32; 2] {
        [self.width as f32 / self.playfield[0], self.height as f32 / self.playfield[1]]
    }

    /// Maps a playfield point to continuous target coordinates (pixel `i` spans `i..i + 1`).
    pub fn to_target(&self, point: [f32; 2]) -> [f32; 2] {
        let [sx, sy] = self.scale();
        [self.x as f32 + point[0] * sx, self.y as f32 + point[1] * sy]
    }

    /// Whether the target pixel `(x, y)` lies inside the playfield rectangle.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        (self.x..self.x + self.width).contains(&x) && (self.y..self.y + self.height).contains(&y)
    }

    fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0
    }
}

/// Draws the background grid and then all sprites in one draw call.
pub struct SpriteRenderer {
    pipelines: Pipelines,
    bind_group: wgpu::BindGroup,
    view_buffer: wgpu::Buffer,
    instance_buffer: wgpu::Buffer,
    /// Instances the buffer holds.
    capacity: u64,
    /// Most instances one buffer may hold on this device.
    max_capacity: u64,
    /// Sprites uploaded by the last `prepare`.
    sprite_count: u32,
    target_size: [u32; 2],
    letterbox: Letterbox,
    format: wgpu::TextureFormat,
    draw_calls: AtomicU32,
    /// Where the render pass writes its GPU timestamps, if timed.
    timestamps: Option<PassTimestamps>,
}

impl SpriteRenderer {
    /// Builds the pipelines for targets of `format` and uploads the embedded atlas.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> SpriteRenderer {
        let (layout, pipelines) = build_pipelines(device, format);
        let atlas_view = upload_atlas(device, queue);
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("atlas sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            // Bilinear within the nearest mip: trilinear doubles the texel
            // fetches, which a software rasteriser pays for in full.
            mipmap_filter: wgpu::MipmapFilterMode::Nearest,
            ..Default::default()
        });
        let view_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sprite view uniforms"),
            size: std::mem::size_of::<ViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sprite bind group"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: view_buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::TextureView(&atlas_view) },
                wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::Sampler(&sampler) },
            ],
        });
        let max_capacity = (device.limits().max_buffer_size / INSTANCE_SIZE).max(1);
        let capacity = INITIAL_CAPACITY.min(max_capacity);
        SpriteRenderer {
            pipelines,
            bind_group,
            view_buffer,
            instance_buffer: create_instance_buffer(device, capacity),
            capacity,
            max_capacity,
            sprite_count: 0,
            target_size: [0, 0],
            letterbox: Letterbox::fit([1.0, 1.0], [0, 0]),
            format,
            draw_calls: AtomicU32::new(0),
            timestamps: None,
        }
    }

    /// Uploads `instances` (growing the GPU buffer geometrically only when
    /// needed) and the view: the `playfield` size in playfield pixels, mapped
    /// with letterboxing onto a target of `target_size` pixels.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        instances: &[Instance],
        playfield: [f32; 2],
        target_size: [u32; 2],
    ) {
        let needed = instances.len() as u64;
        if needed > self.capacity {
            let grown = needed.next_power_of_two().max(self.capacity * 2).min(self.max_capacity);
            log::debug!("sprite buffer grows from {} to {grown} instances", self.capacity);
            self.instance_buffer = create_instance_buffer(device, grown);
            self.capacity = grown;
        }
        let fitting = self.capacity.min(needed) as usize;
        if fitting < instances.len() {
            log::warn!("{} sprites exceed the device's buffer limit; drawing the first {fitting}", instances.len());
        }
        let instances = &instances[..fitting];
        if !instances.is_empty() {
            queue.write_buffer(&self.instance_buffer, 0, bytemuck::cast_slice(instances));
        }
        self.sprite_count = u32::try_from(fitting).unwrap_or(u32::MAX);

        self.letterbox = Letterbox::fit(playfield, target_size);
        self.target_size = target_size;
        let scale = self.letterbox.scale()[0];
        let encode = |rgb| encode_color(self.format, rgb);
        let view = ViewUniform {
            playfield: self.letterbox.playfield,
            px: if scale > 0.0 { 1.0 / scale } else { 1.0 },
            _pad: 0,
            background: encode(BACKGROUND),
            grid_line: encode(GRID_LINE),
            border: encode(BORDER),
        };
        queue.write_buffer(&self.view_buffer, 0, bytemuck::bytes_of(&view));
    }

    /// Records one render pass into `view`: clear, the background grid, then
    /// all sprites in one draw call, clipped to the letterbox. When the
    /// playfield covers the whole target (no bars) the clear paints the
    /// background and the fill draw is skipped: a software rasteriser clears
    /// far faster than it shades a full-screen quad (about 1 ms at 1280×720).
    pub fn draw(&self, encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView) {
        let size = view.texture().size();
        let actual = [size.width, size.height];
        let letterbox = if actual == self.target_size {
            self.letterbox
        } else {
            log::debug!("target is {actual:?} but prepare() was told {:?}; refitting", self.target_size);
            Letterbox::fit(self.letterbox.playfield, actual)
        };
        let bars_free = !letterbox.is_empty() && letterbox.width == actual[0] && letterbox.height == actual[1];
        let clear = if bars_free {
            let [r, g, b, a] = encode_color(self.format, BACKGROUND).map(f64::from);
            wgpu::Color { r, g, b, a }
        } else {
            LETTERBOX_COLOR
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("sprites"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(clear), store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: self.timestamps.as_ref().map(PassTimestamps::writes),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if letterbox.is_empty() {
            self.draw_calls.store(0, Ordering::Relaxed);
            return;
        }
        let (x, y, width, height) = (letterbox.x, letterbox.y, letterbox.width, letterbox.height);
        pass.set_viewport(x as f32, y as f32, width as f32, height as f32, 0.0, 1.0);
        pass.set_scissor_rect(x, y, width, height);
        pass.set_bind_group(0, &self.bind_group, &[]);
        let mut draw_calls = 1;
        if !bars_free {
            pass.set_pipeline(&self.pipelines.fill);
            pass.draw(0..4, 0..1);
            draw_calls += 1;
        }
        pass.set_pipeline(&self.pipelines.lines);
        pass.draw(0..4, 0..grid_line_count(letterbox.playfield));
        let n = self.sprite_count;
        if n > 0 {
            pass.set_pipeline(&self.pipelines.sprites);
            pass.set_vertex_buffer(0, self.instance_buffer.slice(..u64::from(n) * INSTANCE_SIZE));
            pass.draw(0..4, 0..n);
            draw_calls += 1;
        }
        self.draw_calls.store(draw_calls, Ordering::Relaxed);
    }

    /// Draw calls recorded by the last [`draw`](Self::draw): the background
    /// (grid lines, plus the fill when letterbox bars show) and 1 for all
    /// sprites together (0 for an empty target).
    pub fn draw_calls_last_frame(&self) -> u32 {
        self.draw_calls.load(Ordering::Relaxed)
    }

    /// Sprites uploaded by the last [`prepare`](Self::prepare).
    pub fn sprite_count(&self) -> u32 {
        self.sprite_count
    }

    /// Sprites the GPU buffer can hold before it must grow.
    pub fn instance_capacity(&self) -> u64 {
        self.capacity
    }

    /// Where the playfield lands in the target, as of the last [`prepare`](Self::prepare).
    pub fn letterbox(&self) -> Letterbox {
        self.letterbox
    }

    /// Has every later [`draw`](Self::draw) write its pass's GPU begin/end
    /// timestamps there (`None`: untimed).
    pub fn set_timestamps(&mut self, timestamps: Option<PassTimestamps>) {
        self.timestamps = timestamps;
    }
}

/// Straight sRGB `rgb` as a target of `format` stores it: linear for sRGB
/// formats (the hardware encodes on write), as is otherwise. Opaque.
fn encode_color(format: wgpu::TextureFormat, rgb: [f32; 3]) -> [f32; 4] {
    let c = if format.is_srgb() { rgb.map(srgb_to_linear) } else { rgb };
    [c[0], c[1], c[2], 1.0]
}

/// The sRGB transfer function's inverse, for one channel in 0..1.
fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// The three pipelines of a frame, in drawing order.
struct Pipelines {
    /// The playfield's flat background colour, opaque.
    fill: wgpu::RenderPipeline,
    /// Grid and border lines, instanced thin quads, blended.
    lines: wgpu::RenderPipeline,
    /// All sprites, instanced, blended.
    sprites: wgpu::RenderPipeline,
}

/// Instances of the grid-line draw for a playfield: vertical lines at every
/// multiple of [`GRID_SPACING`] from 0 to the width, horizontal ones likewise,
/// and the four border lines. `vs_line` derives the same counts in the shader.
fn grid_line_count(playfield: [f32; 2]) -> u32 {
    let lines = |extent: f32| (extent / GRID_SPACING).floor() as u32 + 1;
    lines(playfield[0]) + lines(playfield[1]) + 4
}

/// Builds the bind group layout and the pipelines.
fn build_pipelines(device: &wgpu::Device, format: wgpu::TextureFormat) -> (wgpu::BindGroupLayout, Pipelines) {
    let shader = super::shader_module(device, "sprite.wgsl", SHADER);
    let view = wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<ViewUniform>() as u64),
        },
        count: None,
    };
    let [texture, sampler] = super::texture_and_sampler_entries(1);
    let entries = [view, texture, sampler];
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("sprite bind group layout"),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("sprite pipeline layout"),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    // The target's encoding is compiled in (`override TARGET_SRGB`), so a
    // non-sRGB target does not pay for the conversion it never uses.
    let constants = super::target_constants(format);
    let compilation_options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
    let pipeline = |label: &str, vertex: wgpu::VertexState<'_>, topology, fragment: &str, blend| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&pipeline_layout),
            vertex,
            primitive: wgpu::PrimitiveState { topology, cull_mode: None, ..Default::default() },
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(fragment),
                compilation_options: compilation_options(),
                targets: &[Some(wgpu::ColorTargetState { format, blend, write_mask: wgpu::ColorWrites::ALL })],
            }),
            multiview_mask: None,
            cache: None,
        })
    };
    let vertex = |entry_point, buffers| wgpu::VertexState {
        module: &shader,
        entry_point: Some(entry_point),
        compilation_options: compilation_options(),
        buffers,
    };
    let strip = wgpu::PrimitiveTopology::TriangleStrip;
    let blend = Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING);
    let fill = pipeline("background fill pipeline", vertex("vs_fill", &[]), strip, "fs_fill", None);
    let lines = pipeline("grid line pipeline", vertex("vs_line", &[]), strip, "fs_line", blend);
    let instanced = [Some(wgpu::VertexBufferLayout {
        array_stride: INSTANCE_SIZE,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &INSTANCE_ATTRIBUTES,
    })];
    let sprites = pipeline("sprite pipeline", vertex("vs_sprite", &instanced), strip, "fs_sprite", blend);
    (layout, Pipelines { fill, lines, sprites })
}

fn create_instance_buffer(device: &wgpu::Device, capacity: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sprite instances"),
        size: capacity * INSTANCE_SIZE,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The atlas's coverage, ready to upload: the alpha channel of `assets/atlas.png`
/// (white on transparent by design: the instance colour tints it, so alpha is
/// all it carries) at 256², then each smaller mip level, one byte a
/// texel. [`atlas_coverage`] makes it; `cargo run --example make_atlas` writes
/// it beside the PNG, and a test checks that the two agree. Decoding the PNG
/// at start-up took a PNG decoder and the image crate's resampling into the
/// page's wasm: 74 KB of it gzipped (2.04 to 1.97 MB), where these 86 KB of
/// bytes gzip to 5 KB.
const ATLAS_COVERAGE: &[u8] = include_bytes!("../../assets/atlas-coverage.r8");

/// Side of the atlas's largest mip level, in texels: 4×4 cells of 64.
const ATLAS_SIDE: u32 = 256;

/// Side of each mip level of the atlas, largest first: [`ATLAS_MIP_LEVELS`]
/// levels, fewer if a cell would fall below a texel.
fn atlas_mip_sides() -> impl Iterator<Item = u32> {
    let cell = (ATLAS_SIDE / ATLAS_GRID).max(1);
    let levels = ATLAS_MIP_LEVELS.min(32 - cell.leading_zeros());
    (0..levels).map(move |level| (cell >> level).max(1) * ATLAS_GRID)
}

/// Uploads [`ATLAS_COVERAGE`] with its mip chain as a single-channel coverage
/// texture: one linear channel is far cheaper to filter on a software
/// rasteriser than sRGB RGBA. Bytes of the wrong length (a corrupt build)
/// degrade to plain squares.
fn upload_atlas(device: &wgpu::Device, queue: &wgpu::Queue) -> wgpu::TextureView {
    const OPAQUE: &[u8] = &[255; 16];
    let expected: u32 = atlas_mip_sides().map(|side| side * side).sum();
    let (data, sides): (&[u8], Vec<u32>) = if ATLAS_COVERAGE.len() == expected as usize {
        (ATLAS_COVERAGE, atlas_mip_sides().collect())
    } else {
        log::error!(
            "the embedded sprite atlas has {} bytes, not {expected}; sprites will be plain squares",
            ATLAS_COVERAGE.len()
        );
        (OPAQUE, vec![4])
    };
    let side = sides[0];
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("sprite atlas coverage"),
        size: wgpu::Extent3d { width: side, height: side, depth_or_array_layers: 1 },
        mip_level_count: sides.len() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut offset = 0;
    for (level, &side) in sides.iter().enumerate() {
        let len = (side * side) as usize;
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &data[offset..offset + len],
            wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(side), rows_per_image: Some(side) },
            wgpu::Extent3d { width: side, height: side, depth_or_array_layers: 1 },
        );
        offset += len;
    }
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}

/// What `assets/atlas-coverage.r8` holds, made from the atlas's PNG: its alpha
/// channel, then each mip level with every cell downsampled on its own (a
/// triangle filter), so no cell's filter footprint reaches into its neighbour.
///
/// # Errors
/// The PNG does not decode, or is not 256 texels square.
#[cfg(not(target_arch = "wasm32"))]
pub fn atlas_coverage(png: &[u8]) -> Result<Vec<u8>, String> {
    let base = image::load_from_memory_with_format(png, image::ImageFormat::Png).map_err(|e| e.to_string())?;
    let base = base.to_rgba8();
    if base.dimensions() != (ATLAS_SIDE, ATLAS_SIDE) {
        return Err(format!("the atlas is {:?}, not {ATLAS_SIDE}² texels", base.dimensions()));
    }
    let coverage = image::GrayImage::from_fn(ATLAS_SIDE, ATLAS_SIDE, |x, y| image::Luma([base.get_pixel(x, y)[3]]));
    let cell = ATLAS_SIDE / ATLAS_GRID;
    let mut out = Vec::new();
    for side in atlas_mip_sides() {
        let small = side / ATLAS_GRID;
        let mut level = image::GrayImage::new(side, side);
        for row in 0..ATLAS_GRID {
            for col in 0..ATLAS_GRID {
                let cell_image = image::imageops::crop_imm(&coverage, col * cell, row * cell, cell, cell).to_image();
                let resized = if small == cell {
                    cell_image
                } else {
                    image::imageops::resize(&cell_image, small, small, image::imageops::FilterType::Triangle)
                };
                image::imageops::replace(&mut level, &resized, i64::from(col * small), i64::from(row * small));
            }
        }
        out.extend_from_slice(level.as_raw());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_atlas_coverage_is_the_atlas_png() {
        let made = atlas_coverage(include_bytes!("../../assets/atlas.png")).expect("the atlas decodes");
        assert_eq!(made.len(), ATLAS_COVERAGE.len(), "`cargo run --example make_atlas` rewrites it");
        assert!(made == ATLAS_COVERAGE, "assets/atlas-coverage.r8 is stale: `cargo run --example make_atlas`");
    }

    #[test]
    fn a_target_of_the_playfield_size_maps_one_to_one() {
        let letterbox = Letterbox::fit([320.0, 240.0], [320, 240]);
        assert_eq!((letterbox.x, letterbox.y, letterbox.width, letterbox.height), (0, 0, 320, 240));
        assert_eq!(letterbox.to_target([100.5, 7.25]), [100.5, 7.25]);
    }

    #[test]
    fn a_wider_target_gets_bars_left_and_right() {
        let letterbox = Letterbox::fit([400.0, 300.0], [800, 400]);
        assert_eq!((letterbox.x, letterbox.y, letterbox.width, letterbox.height), (133, 0, 533, 400));
        assert!(letterbox.contains(133, 0) && !letterbox.contains(132, 0) && !letterbox.contains(666, 0));
    }

    #[test]
    fn a_taller_target_gets_bars_top_and_bottom() {
        let letterbox = Letterbox::fit([400.0, 300.0], [300, 600]);
        assert_eq!((letterbox.x, letterbox.y, letterbox.width, letterbox.height), (0, 187, 300, 225));
        assert_eq!(letterbox.to_target([200.0, 150.0]), [150.0, 299.5]);
    }

    #[test]
    fn an_empty_target_or_playfield_never_divides_by_zero() {
        let empty = Letterbox::fit([400.0, 300.0], [0, 0]);
        assert!(empty.is_empty(), "{empty:?}");
        let degenerate = Letterbox::fit([0.0, 0.0], [10, 10]);
        assert_eq!((degenerate.width, degenerate.height), (10, 10), "playfield clamps to 1×1");
    }
}
