#![doc = include_str!("../README.md")]
//!
//! ## The modules
//!
//! ```text
//!   plugin   TimestepPlugin, TimestepSystems: the two systems and what they replace
//!   pacing   the resources: Pacing (the Pacer), TimestepStrategy, Blend, FrameSteps,
//!            Vsync, MeasuredRefresh
//!   runner   pacing_runner: Bevy's headless loop, waiting for the pacer's wake
//! ```

mod pacing;
mod plugin;
mod runner;

pub use pacing::{Blend, FrameSteps, MeasuredRefresh, Pacing, STATUS_EVERY, TimestepStrategy, Vsync};
pub use plugin::{TimestepPlugin, TimestepSystems};
pub use runner::pacing_runner;
pub use timestep_core::{Rate, StrategyId, View};
