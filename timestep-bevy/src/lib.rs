//! Bevy's [`FixedMain`](bevy_app::FixedMain) run by any of timestep-core's
//! loop strategies: add [`TimestepPlugin`] after Bevy's `TimePlugin` (in
//! `MinimalPlugins` and `DefaultPlugins`) and `FixedUpdate` runs as often as
//! the strategy says, each run with `Time<Fixed>`'s delta set to the step.
//!
//! ```text
//!   First              Bevy's time_system: Time<Real> moves to this frame's instant
//!   RunFixedMainLoop   [TimestepSystems] the steps the last frame's present left (paced),
//!                      a strategy switch, then advance: FixedMain × the frame's steps,
//!                      Blend (the picture's blend factor), Time<Fixed>'s overstep
//!   Update, PostUpdate the game draws from Blend (or Time<Fixed>'s overstep_fraction)
//!   Last               [TimestepSystems] present and finish: the steps a render-first
//!                      strategy runs after its picture (run next frame, before its
//!                      steps, so this picture is drawn without them), the wake time,
//!                      now and then the refresh measurement and the vsync verdict
//! ```
//!
//! The Pacer's clock is Bevy's: nanoseconds of `Time<Real>`'s elapsed time,
//! one instant a frame (what `time_system` read at the frame's start). So
//! `TimeUpdateStrategy::ManualInstant` and `ManualDuration` drive the plugin
//! exactly, as they drive Bevy's own fixed timestep; the frame's present and
//! finish are at the same instant (a frame costs no time on Bevy's clock).
//!
//! Bevy's own fixed-timestep runner (`bevy_time::run_fixed_main_schedule`, an
//! accumulator) is taken out of `RunFixedMainLoop`, so steps are never
//! doubled; systems ordered against `RunFixedMainLoopSystems` keep their
//! order, since the plugin's system runs in `FixedMainLoop` where Bevy's ran.

mod pacing;
mod plugin;
mod runner;

pub use pacing::{Blend, FrameSteps, MeasuredRefresh, Pacing, STATUS_EVERY, TimestepStrategy, Vsync};
pub use plugin::{TimestepPlugin, TimestepSystems};
pub use runner::pacing_runner;
pub use timestep_core::{Rate, StrategyId, View};
