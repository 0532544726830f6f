//! Draws egui's tessellated meshes with wgpu: the overlay's renderer.
//!
//! egui-wgpu would do this too, but its fragment shader carries a
//! software-filtering path behind a uniform branch, and llvmpipe runs both
//! sides of every branch: on the 2-core CI machine the overlay cost 15.5 ms of
//! a frame that way and 3.4 ms with a plain sample-and-multiply shader. This
//! painter is that plain shader plus the bookkeeping egui asks of a backend:
//!
//! ```text
//!   TexturesDelta ──update_textures──▶ one wgpu texture + bind group per TextureId
//!   [ClippedPrimitive] ──prepare──▶ one vertex + one index buffer (reused, grown)
//!                                  └▶ draw list: (scissor, texture, index range, base vertex)
//!   render(pass) ──▶ per mesh: scissor, bind texture, draw_indexed (base vertex 0: offsets are in the indices)
//! ```
//!
//! Colours stay in gamma space end to end, as egui produces them (see
//! `shaders/overlay.wgsl`). Paint callbacks are not supported (the overlay
//! draws none).

use std::collections::HashMap;
use std::ops::Range;

use egui::epaint::{ClippedPrimitive, ImageDelta, Primitive, Vertex};
use egui::{TextureFilter, TextureId, TextureOptions, TextureWrapMode};

const SHADER: &str = include_str!("../../shaders/overlay.wgsl");
/// Bytes per egui vertex (position, uv, colour).
const VERTEX_SIZE: u64 = std::mem::size_of::<Vertex>() as u64;
/// Bytes per index.
const INDEX_SIZE: u64 = std::mem::size_of::<u32>() as u64;
/// Initial buffer capacities (vertices / indices); both grow geometrically.
const INITIAL_VERTICES: u64 = 16 * 1024;
const INITIAL_INDICES: u64 = 32 * 1024;

const VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 3] = [
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x2,
        offset: std::mem::offset_of!(Vertex, pos) as u64,
        shader_location: 0,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x2,
        offset: std::mem::offset_of!(Vertex, uv) as u64,
        shader_location: 1,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Unorm8x4,
        offset: std::mem::offset_of!(Vertex, color) as u64,
        shader_location: 2,
    },
];

/// The uniform block of `overlay.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ScreenUniform {
    size_points: [f32; 2],
    pad: [f32; 2],
}

/// A texture egui asked for, as uploaded.
struct MeshTexture {
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
}

/// One mesh of the current frame.
struct Draw {
    /// Scissor rectangle in target pixels: x, y, width, height (never empty).
    scissor: [u32; 4],
    texture: TextureId,
    indices: Range<u32>,
}

/// Paints egui output into render passes; see the module docs.
pub(crate) struct EguiPainter {
    pipeline: wgpu::RenderPipeline,
    screen_buffer: wgpu::Buffer,
    screen_bind_group: wgpu::BindGroup,
    texture_layout: wgpu::BindGroupLayout,
    samplers: HashMap<TextureOptions, wgpu::Sampler>,
    textures: HashMap<TextureId, MeshTexture>,
    vertex_buffer: wgpu::Buffer,
    vertex_capacity: u64,
    index_buffer: wgpu::Buffer,
    index_capacity: u64,
    /// Staging for this frame's vertices and indices, reused across frames.
    vertices: Vec<Vertex>,
    indices: Vec<u32>,
    draws: Vec<Draw>,
}

impl EguiPainter {
    /// Builds the pipeline for targets of `format`.
    pub(crate) fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> EguiPainter {
        let shader = super::shader_module(device, "overlay.wgsl", SHADER);
        let screen_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overlay screen layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<ScreenUniform>() as u64),
                },
                count: None,
            }],
        });
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overlay texture layout"),
            entries: &super::texture_and_sampler_entries(0),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("overlay pipeline layout"),
            bind_group_layouts: &[Some(&screen_layout), Some(&texture_layout)],
            immediate_size: 0,
        });
        let pipeline = overlay_pipeline(device, format, &shader, &layout);
        let screen_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overlay screen uniform"),
            size: std::mem::size_of::<ScreenUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let screen_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("overlay screen bind group"),
            layout: &screen_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: screen_buffer.as_entire_binding() }],
        });
        EguiPainter {
            pipeline,
            screen_buffer,
            screen_bind_group,
            texture_layout,
            samplers: HashMap::new(),
            textures: HashMap::new(),
            vertex_buffer: create_buffer(device, "overlay vertices", INITIAL_VERTICES * VERTEX_SIZE, true),
            vertex_capacity: INITIAL_VERTICES,
            index_buffer: create_buffer(device, "overlay indices", INITIAL_INDICES * INDEX_SIZE, false),
            index_capacity: INITIAL_INDICES,
            vertices: Vec::new(),
            indices: Vec::new(),
            draws: Vec::new(),
        }
    }

    /// Creates or patches texture `id` as egui's `delta` says.
    pub(crate) fn update_texture(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        id: TextureId,
        delta: &ImageDelta,
    ) {
        let egui::ImageData::Color(image) = &delta.image;
        let [width, height] = image.size.map(|side| u32::try_from(side).unwrap_or(u32::MAX));
        if width == 0 || height == 0 {
            return;
        }
        let origin = match delta.pos {
            None => {
                let texture = device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("overlay texture"),
                    size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    // Gamma-space bytes sampled as they are: see the module docs.
                    format: wgpu::TextureFormat::Rgba8Unorm,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                    view_formats: &[],
                });
                let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
                let sampler =
                    self.samplers.entry(delta.options).or_insert_with(|| create_sampler(device, delta.options));
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("overlay texture bind group"),
                    layout: &self.texture_layout,
                    entries: &[
                        wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) },
                        wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(sampler) },
                    ],
                });
                self.textures.insert(id, MeshTexture { texture, bind_group });
                wgpu::Origin3d::ZERO
            }
            Some([x, y]) => {
                let Some(existing) = self.textures.get(&id) else {
                    log::warn!("egui patched texture {id:?}, which was never created; ignored");
                    return;
                };
                let size = existing.texture.size();
                let [x, y] = [x, y].map(|v| u32::try_from(v).unwrap_or(u32::MAX));
                if x.saturating_add(width) > size.width || y.saturating_add(height) > size.height {
                    log::warn!("egui patch of texture {id:?} at ({x}, {y}) does not fit; ignored");
                    return;
                }
                wgpu::Origin3d { x, y, z: 0 }
            }
        };
        let Some(target) = self.textures.get(&id) else { return };
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &target.texture,
                mip_level: 0,
                origin,
                aspect: wgpu::TextureAspect::All,
            },
            bytemuck::cast_slice(&image.pixels),
            wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(width * 4), rows_per_image: Some(height) },
            wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        );
    }

    /// Forgets texture `id` (egui frees it after painting).
    pub(crate) fn free_texture(&mut self, id: &TextureId) {
        self.textures.remove(id);
    }

    /// Uploads this frame's meshes for a target of `size_px` pixels at
    /// `pixels_per_point`, and builds the draw list [`render`](Self::render) uses.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        primitives: &[ClippedPrimitive],
        size_px: [u32; 2],
        pixels_per_point: f32,
    ) {
        self.vertices.clear();
        self.indices.clear();
        self.draws.clear();
        let ppp = if pixels_per_point.is_finite() && pixels_per_point > 0.0 { pixels_per_point } else { 1.0 };
        for ClippedPrimitive { clip_rect, primitive } in primitives {
            let mesh = match primitive {
                Primitive::Mesh(mesh) => mesh,
                Primitive::Callback(_) => {
                    log::debug!("egui paint callbacks are not supported by the overlay painter; skipped");
                    continue;
                }
            };
            let Some(scissor) = scissor_px(*clip_rect, ppp, size_px) else { continue };
            if mesh.indices.is_empty() || !self.textures.contains_key(&mesh.texture_id) {
                continue;
            }
            let (Ok(base_vertex), Ok(first), Ok(count)) = (
                u32::try_from(self.vertices.len()),
                u32::try_from(self.indices.len()),
                u32::try_from(mesh.indices.len()),
            ) else {
                log::warn!("overlay meshes exceed 32-bit indices; the rest is not drawn");
                break;
            };
            if mesh.indices.iter().any(|&i| i.checked_add(base_vertex).is_none()) {
                log::warn!("overlay meshes exceed 32-bit indices; the rest is not drawn");
                break;
            }
            self.vertices.extend_from_slice(&mesh.vertices);
            // The mesh's offset goes into its indices, not into a base vertex:
            // WebGL2 has no base vertex (wgpu's WebGL2 back-end panics "Draw
            // elements instanced base vertex is not supported"), and every
            // other backend draws the same either way.
            self.indices.extend(mesh.indices.iter().map(|&i| i + base_vertex));
            self.draws.push(Draw { scissor, texture: mesh.texture_id, indices: first..first + count });
        }
        let size_points = [size_px[0] as f32 / ppp, size_px[1] as f32 / ppp];
        queue.write_buffer(&self.screen_buffer, 0, bytemuck::bytes_of(&ScreenUniform { size_points, pad: [0.0; 2] }));
        if self.draws.is_empty() {
            return;
        }
        let vertices = self.vertices.len() as u64;
        if vertices > self.vertex_capacity {
            self.vertex_capacity = vertices.next_power_of_two();
            self.vertex_buffer = create_buffer(device, "overlay vertices", self.vertex_capacity * VERTEX_SIZE, true);
        }
        let indices = self.indices.len() as u64;
        if indices > self.index_capacity {
            self.index_capacity = indices.next_power_of_two();
            self.index_buffer = create_buffer(device, "overlay indices", self.index_capacity * INDEX_SIZE, false);
        }
        queue.write_buffer(&self.vertex_buffer, 0, bytemuck::cast_slice(&self.vertices));
        queue.write_buffer(&self.index_buffer, 0, bytemuck::cast_slice(&self.indices));
    }

    /// Records the draws [`prepare`](Self::prepare) listed into `pass`.
    pub(crate) fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.draws.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.screen_bind_group, &[]);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..self.vertices.len() as u64 * VERTEX_SIZE));
        pass.set_index_buffer(
            self.index_buffer.slice(..self.indices.len() as u64 * INDEX_SIZE),
            wgpu::IndexFormat::Uint32,
        );
        for draw in &self.draws {
            let Some(texture) = self.textures.get(&draw.texture) else { continue };
            let [x, y, width, height] = draw.scissor;
            pass.set_scissor_rect(x, y, width, height);
            pass.set_bind_group(1, &texture.bind_group, &[]);
            pass.draw_indexed(draw.indices.clone(), 0, 0..1);
        }
    }
}

impl std::fmt::Debug for EguiPainter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EguiPainter")
            .field("textures", &self.textures.len())
            .field("draws", &self.draws.len())
            .finish_non_exhaustive()
    }
}

/// `clip` (points) in target pixels, clamped to the target; `None` if nothing is left.
fn scissor_px(clip: egui::Rect, pixels_per_point: f32, size_px: [u32; 2]) -> Option<[u32; 4]> {
    let [w, h] = size_px.map(|side| side as f32);
    // Round outwards so a clip edge between pixels never hides a half-covered pixel.
    let x0 = (clip.min.x * pixels_per_point).floor().clamp(0.0, w);
    let y0 = (clip.min.y * pixels_per_point).floor().clamp(0.0, h);
    let x1 = (clip.max.x * pixels_per_point).ceil().clamp(0.0, w);
    let y1 = (clip.max.y * pixels_per_point).ceil().clamp(0.0, h);
    (x1 > x0 && y1 > y0).then_some([x0 as u32, y0 as u32, (x1 - x0) as u32, (y1 - y0) as u32])
}

fn create_buffer(device: &wgpu::Device, label: &str, size: u64, vertex: bool) -> wgpu::Buffer {
    let usage = if vertex { wgpu::BufferUsages::VERTEX } else { wgpu::BufferUsages::INDEX };
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn create_sampler(device: &wgpu::Device, options: TextureOptions) -> wgpu::Sampler {
    let filter = |filter: TextureFilter| match filter {
        TextureFilter::Nearest => wgpu::FilterMode::Nearest,
        TextureFilter::Linear => wgpu::FilterMode::Linear,
    };
    let address = match options.wrap_mode {
        TextureWrapMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        TextureWrapMode::Repeat => wgpu::AddressMode::Repeat,
        TextureWrapMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
    };
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("overlay sampler"),
        address_mode_u: address,
        address_mode_v: address,
        mag_filter: filter(options.magnification),
        min_filter: filter(options.minification),
        ..Default::default()
    })
}

/// The overlay's pipeline: premultiplied-alpha triangles of egui vertices.
fn overlay_pipeline(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    shader: &wgpu::ShaderModule,
    layout: &wgpu::PipelineLayout,
) -> wgpu::RenderPipeline {
    let constants = super::target_constants(format);
    let options = || wgpu::PipelineCompilationOptions { constants: &constants, ..Default::default() };
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("overlay pipeline"),
        layout: Some(layout),
        vertex: wgpu::VertexState {
            module: shader,
            entry_point: Some("vs_main"),
            compilation_options: options(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: VERTEX_SIZE,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &VERTEX_ATTRIBUTES,
            })],
        },
        primitive: wgpu::PrimitiveState { cull_mode: None, ..Default::default() },
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: shader,
            entry_point: Some("fs_main"),
            compilation_options: options(),
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scissors_round_outwards_and_clamp_to_the_target() {
        let clip = egui::Rect::from_min_max(egui::pos2(10.25, 5.5), egui::pos2(20.5, 30.0));
        assert_eq!(scissor_px(clip, 1.0, [100, 100]), Some([10, 5, 11, 25]));
        assert_eq!(scissor_px(clip, 2.0, [100, 100]), Some([20, 11, 21, 49]));
        assert_eq!(scissor_px(clip, 2.0, [30, 30]), Some([20, 11, 10, 19]), "clamped to the target");
        let outside = egui::Rect::from_min_max(egui::pos2(200.0, 0.0), egui::pos2(300.0, 10.0));
        assert_eq!(scissor_px(outside, 1.0, [100, 100]), None);
        assert_eq!(scissor_px(egui::Rect::NOTHING, 1.0, [100, 100]), None);
        assert_eq!(scissor_px(egui::Rect::EVERYTHING, 1.0, [64, 48]), Some([0, 0, 64, 48]));
    }

    #[test]
    fn the_vertex_layout_matches_egui_s_vertex() {
        assert_eq!(VERTEX_SIZE, 20);
        assert_eq!(VERTEX_ATTRIBUTES.map(|a| a.offset), [0, 8, 16]);
    }
}
