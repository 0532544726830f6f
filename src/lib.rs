//! timestep-lab: see, measure and compare game-loop timing strategies.
//!
//! The core (`time`, `strategy`, `frame`, `sim`, `monitor`, `metrics`)
//! imports neither winit nor wgpu and takes time as data; `app` and `render`
//! are the thin shell around it. See `README.md` for a tour.

pub mod app;
pub mod error;
pub mod frame;
pub mod metrics;
pub mod monitor;
pub mod render;
pub mod rng;
pub mod sim;
pub mod strategy;
pub mod time;
