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
//! Shaders (`shaders/*.wgsl`) and the atlas (`assets/atlas.png`) are embedded
//! in the binary, so it runs from any directory.

pub mod context;
pub mod error;
pub mod offscreen;
pub mod overlay;
pub mod sprites;
pub mod surface;

pub use context::GpuContext;
pub use error::RenderError;
pub use offscreen::Offscreen;
pub use sprites::{Letterbox, SpriteRenderer};
