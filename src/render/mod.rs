//! wgpu rendering: context, surface, instanced sprite pipeline.
//!
//! The renderer is a thin shell around the core: the world writes
//! [`Instance`](crate::sim::Instance)s, [`SpriteRenderer`] uploads them into one
//! reused instance buffer and draws the background grid and every sprite in a
//! single instanced draw call into any `&wgpu::TextureView`. The same code
//! therefore draws the window (through the surface wrapper) and an
//! [`Offscreen`] target for tests, benches and `--screenshot`.
//!
//! ```text
//!   world ──write_instances──▶ Vec<Instance> ──prepare──▶ GPU buffer ──draw──▶ &TextureView
//!                                                                           ├─ surface frame
//!                                                                           └─ Offscreen ──read_rgba / save_png
//! ```
//!
//! `--screenshot` ([`Screenshot`]) draws the last frame once more, overlay included, into an
//! [`Offscreen`] target at the window's size and reads it back in tiles that fit the device's
//! buffers.
//!
//! Shaders (`shaders/*.wgsl`) and the atlas (`assets/atlas-coverage.r8`, from `assets/atlas.png`) are embedded
//! in the binary, so it runs from any directory.

pub(crate) mod context;
pub(crate) mod egui_painter;
pub mod gpu_timer;
pub(crate) mod offscreen;
pub mod overlay;
pub(crate) mod render_error;
pub(crate) mod screenshot;
pub mod sprites;
pub(crate) mod surface;

pub use context::GpuContext;
pub use offscreen::Offscreen;
pub use render_error::RenderError;
pub use screenshot::Screenshot;
pub use sprites::{Letterbox, SpriteRenderer};

/// The WGSL every shader module starts with: `TARGET_SRGB` and the colour helpers.
const TARGET_WGSL: &str = include_str!("../../shaders/target.wgsl");

/// A shader module from `shaders/target.wgsl` followed by `body`.
fn shader_module(device: &wgpu::Device, label: &str, body: &str) -> wgpu::ShaderModule {
    let source = format!("{TARGET_WGSL}\n{body}");
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}

/// The pipeline constants of `shaders/target.wgsl` for targets of `format`.
fn target_constants(format: wgpu::TextureFormat) -> [(&'static str, f64); 1] {
    [("TARGET_SRGB", if format.is_srgb() { 1.0 } else { 0.0 })]
}

/// Bind group layout entries for a filterable 2D texture at `binding` and its
/// filtering sampler at `binding + 1`, both for the fragment stage.
fn texture_and_sampler_entries(binding: u32) -> [wgpu::BindGroupLayoutEntry; 2] {
    [
        wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: binding + 1,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        },
    ]
}
