//! The settings of a window run, whichever way they arrive: `run`'s flags
//! (the `run` command), `measure`'s tour, or the web
//! page's query parameters.

use std::path::PathBuf;

use crate::cli::{EmulatedRefresh, StrategyList};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::Nanos;

/// Extra load sprites when `--sprites` is not given: enough to make the
/// renderer do some work, few enough for a software adapter at 60 fps.
pub(crate) const DEFAULT_SPRITES: u32 = 100;

/// Most extra sprites accepted (the renderer's benchmarks go to 100k).
pub(crate) const MAX_SPRITES: u32 = 1_000_000;

/// Largest emulated vblank jitter: a tenth of a second is already absurd.
pub(crate) const MAX_JITTER_US: u64 = 100_000;

/// The present mode asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PresentModeRequest {
    /// Fifo, or a non-blocking mode under emulation.
    Auto,
    /// This exact mode (or the closest supported one).
    Mode(wgpu::PresentMode),
}

impl clap::ValueEnum for PresentModeRequest {
    fn value_variants<'a>() -> &'a [Self] {
        use wgpu::PresentMode::{Fifo, FifoRelaxed, Immediate, Mailbox};
        &[
            PresentModeRequest::Mode(Fifo),
            PresentModeRequest::Mode(Mailbox),
            PresentModeRequest::Mode(Immediate),
            PresentModeRequest::Mode(FifoRelaxed),
            PresentModeRequest::Auto,
        ]
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let value = clap::builder::PossibleValue::new(self.label());
        Some(match self {
            PresentModeRequest::Mode(wgpu::PresentMode::Fifo) => value.alias("vsync"),
            PresentModeRequest::Mode(wgpu::PresentMode::FifoRelaxed) => value.alias("fiforelaxed"),
            _ => value,
        })
    }
}

impl PresentModeRequest {
    /// The concrete mode to ask the surface for. Emulation needs presents
    /// that do not block on a real vblank, or the two grids would beat.
    pub(crate) fn resolve(self, emulating: bool) -> wgpu::PresentMode {
        match (self, emulating) {
            (PresentModeRequest::Mode(mode), _) => mode,
            (PresentModeRequest::Auto, false) => wgpu::PresentMode::Fifo,
            (PresentModeRequest::Auto, true) => wgpu::PresentMode::Immediate,
        }
    }

    /// How the overlay names the request.
    pub(crate) fn label(self) -> &'static str {
        match self {
            PresentModeRequest::Auto => "auto",
            PresentModeRequest::Mode(mode) => crate::render::surface::present_mode_name(mode),
        }
    }
}

/// The emulated display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Emulation {
    /// The virtual refresh rate, on every monitor or per monitor.
    pub(crate) rates: EmulatedRefresh,
    /// Wake-up jitter bound.
    pub(crate) jitter: Nanos,
}

/// Validated settings of a run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RunConfig {
    /// Strategy at start.
    pub(crate) strategy: StrategyId,
    /// What strategies are built from (tick rate, fuzzy variant, …).
    pub(crate) strategy_config: StrategyConfig,
    /// Present mode asked for.
    pub(crate) present_mode: PresentModeRequest,
    /// Extra load sprites.
    pub(crate) sprites: u32,
    /// Monitor index (0-based) to open on.
    pub(crate) monitor: Option<usize>,
    /// Start in fullscreen.
    pub(crate) fullscreen: bool,
    /// Initial inner size of the window, logical pixels.
    pub(crate) window_size: [u32; 2],
    /// The window fills what it is in and follows it (a page without
    /// `?window-size=`): `window_size` is not asked for.
    pub(crate) fill_window: bool,
    /// Quit after this long.
    pub(crate) exit_after: Option<Nanos>,
    /// Where to write the stats.
    pub(crate) stats_json: Option<PathBuf>,
    /// Where to write the screenshot.
    pub(crate) screenshot: Option<PathBuf>,
    /// The emulated display, if any.
    pub(crate) emulation: Option<Emulation>,
    /// Start with the overlay hidden.
    pub(crate) no_overlay: bool,
    /// Seed for jitter and load spikes.
    pub(crate) seed: u64,
    /// The strategies of lane mode, top to bottom.
    pub(crate) lanes: StrategyList,
    /// Start in lane mode.
    pub(crate) start_in_lanes: bool,
    /// The pacer's frame limit (`--frame-limit`): a ceiling every strategy keeps.
    pub(crate) frame_limit: Option<crate::time::Rate>,
    /// Where to log the loop's frame intervals.
    pub(crate) frame_log: Option<PathBuf>,
    /// Ask the display when frames were shown, where the platform can say
    /// (`platform::display_time`); off: the present call's return, an estimate.
    pub(crate) presentation_feedback: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_present_mode_avoids_blocking_under_emulation() {
        assert_eq!(PresentModeRequest::Auto.resolve(false), wgpu::PresentMode::Fifo);
        assert_eq!(PresentModeRequest::Auto.resolve(true), wgpu::PresentMode::Immediate);
    }
}
