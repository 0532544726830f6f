#![doc = include_str!("../README.md")]
//!
//! ## The modules
//!
//! ```text
//!   plugin   TimestepPlugin, TimestepSystems: the two systems and what they replace
//!   pacing   the resources: Pacing (the Pacer), TimestepStrategy, Blend, FrameSteps,
//!            Vsync, MeasuredRefresh
//!   runner   pacing_runner: Bevy's headless loop, waiting for the pacer's wake
//!   winit    (feature `winit`) the wake as bevy_winit's wait, finished with sleep_until
//! ```

mod pacing;
mod plugin;
mod runner;
#[cfg(feature = "winit")]
mod winit;

pub use pacing::{Blend, FrameSteps, MeasuredRefresh, Pacing, STATUS_EVERY, TimestepStrategy, Vsync};
pub use plugin::{TimestepPlugin, TimestepSystems};
pub use runner::pacing_runner;
pub use timestep_core::{Rate, StrategyId, View};
