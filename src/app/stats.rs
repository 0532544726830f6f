//! `--stats-json`: what a scripted run measured, written once at exit.
//!
//! Field names follow `timestep-lab simulate --format json` where they mean
//! the same thing (one metrics definition, [`crate::metrics`]), so a window
//! run and a simulated run of the same settings can be compared field by field.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use crate::error::CliError;
use crate::metrics::Totals;
use crate::render::gpu_timer::GpuTimes;
use crate::strategy::StrategyId;
use crate::time::{NANOS_PER_SEC, nanos_to_secs};

/// Counts that survive a restart of the metrics (e.g. a move to a monitor
/// with another refresh rate restarts the pattern bookkeeping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    /// Presented frames.
    pub frames: u64,
    /// Refreshes covered.
    pub vsyncs: u64,
    /// Refreshes with more than one update.
    pub double_updates: u64,
    /// Refreshes without a new frame.
    pub skipped_renders: u64,
    /// Frames showing the same picture again.
    pub repeated_frames: u64,
    /// Display time covered.
    pub system_time: u64,
}

impl Folded {
    /// Adds a finished segment's totals.
    pub fn add(&mut self, t: &Totals) {
        self.frames += t.frames;
        self.vsyncs += t.vsyncs;
        self.double_updates += t.double_updates;
        self.skipped_renders += t.skipped_renders;
        self.repeated_frames += t.repeated_frames;
        self.system_time += t.system_time;
    }
}

/// The JSON document `--stats-json` writes.
#[derive(Clone, Debug, Serialize)]
pub struct RunStats {
    /// The strategy active at exit.
    pub strategy: String,
    /// Tick rate at exit, Hz.
    pub tick_rate: f64,
    /// World updates over the run.
    pub total_updates: u64,
    /// Refreshes that showed more than one update.
    pub double_updates: u64,
    /// Refreshes without a new frame.
    pub skipped_renders: u64,
    /// Presented frames that showed the same picture again.
    pub repeated_frames: u64,
    /// Refreshes the pattern covers (with a known or emulated refresh rate;
    /// otherwise one per presented frame).
    pub vsyncs: u64,
    /// Presented frames.
    pub frames: u64,
    /// Simulated time, seconds.
    pub game_time_s: f64,
    /// Display time covered, seconds.
    pub system_time_s: f64,
    /// `game_time_s / system_time_s` (null when no time passed).
    pub speed_ratio: f64,
    /// RMS of the per-frame motion error (see `metrics::FrameStats`), ms (null without frames).
    pub judder_ms: f64,
    /// Mean input-to-photon time (display − input time), ms.
    pub latency_ms: f64,
    /// Updates per refresh from the start of the run (first 200 refreshes).
    pub pattern: String,
    /// Presented frames per second of wall time.
    pub fps: f64,
    /// Updates per second of wall time.
    pub ups: f64,
    /// Wall time the loop ran, seconds.
    pub wall_time_s: f64,
    /// Refresh measured from present timestamps (1 / median interval), Hz.
    pub measured_refresh_hz: Option<f64>,
    /// Refresh the monitor reports, Hz (null on Xvfb).
    pub reported_refresh_hz: Option<f64>,
    /// The emulated refresh, Hz, when `--emulate-refresh` was on.
    pub emulated_refresh_hz: Option<f64>,
    /// Emulation accuracy: mean lateness of the present call after the vblank's wake time, µs.
    pub emulation_late_us_mean: Option<f64>,
    /// Emulation accuracy: worst lateness, µs.
    pub emulation_late_us_max: Option<f64>,
    /// Whether vsync was found in effect (null: could not tell).
    pub vsync_in_effect: Option<bool>,
    /// The overlay's sentence about vsync.
    pub vsync_verdict: String,
    /// Present mode asked for.
    pub present_mode_requested: String,
    /// Present mode in effect at exit.
    pub present_mode_actual: String,
    /// Every strategy that ran during the run, by id, in key order.
    pub strategies_used: Vec<String>,
    /// The adapter that rendered.
    pub adapter: String,
    /// The monitor at exit.
    pub monitor: String,
    /// Surface acquire outcomes, for robustness runs.
    pub surface: SurfaceStats,
    /// Frames whose GPU pass times were read back (0 without timestamp queries).
    pub gpu_timed_frames: u64,
    /// Mean GPU time of the scene pass (background + sprites), ms.
    pub gpu_scene_ms: Option<f64>,
    /// Mean GPU time of the overlay pass over the frames that drew it, ms.
    pub gpu_overlay_ms: Option<f64>,
}

/// Sums of GPU pass times, for means over a run or a stretch of it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GpuTimeTotals {
    /// Frames timed.
    pub frames: u64,
    scene_ms: f64,
    overlay_frames: u64,
    overlay_ms: f64,
}

impl GpuTimeTotals {
    /// Adds one frame's times.
    pub fn add(&mut self, times: &GpuTimes) {
        self.frames += 1;
        self.scene_ms += times.scene_ms;
        if let Some(overlay) = times.overlay_ms {
            self.overlay_frames += 1;
            self.overlay_ms += overlay;
        }
    }

    /// Mean scene-pass time, ms (`None` before the first frame).
    pub fn scene_mean_ms(&self) -> Option<f64> {
        (self.frames > 0).then(|| self.scene_ms / self.frames as f64)
    }

    /// Mean overlay-pass time over the frames that drew the overlay, ms.
    pub fn overlay_mean_ms(&self) -> Option<f64> {
        (self.overlay_frames > 0).then(|| self.overlay_ms / self.overlay_frames as f64)
    }
}

/// Acquire outcomes over the run.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct SurfaceStats {
    /// Frames acquired.
    pub frames: u64,
    /// Suboptimal frames.
    pub suboptimal: u64,
    /// Skips: zero-sized window.
    pub zero_size: u64,
    /// Skips: timeout.
    pub timeout: u64,
    /// Skips: occluded.
    pub occluded: u64,
    /// Skips: outdated (reconfigured).
    pub outdated: u64,
    /// Skips: lost (recreated).
    pub lost: u64,
    /// Skips: validation error.
    pub validation: u64,
    /// Surface configurations.
    pub configures: u64,
}

/// Ids of `used`, in key order.
pub fn strategy_names(used: &BTreeSet<StrategyId>) -> Vec<String> {
    used.iter().map(|id| id.name().to_owned()).collect()
}

/// Per second of `wall` nanoseconds.
pub fn per_second(count: u64, wall: u64) -> f64 {
    if wall == 0 { 0.0 } else { count as f64 * NANOS_PER_SEC as f64 / wall as f64 }
}

/// Seconds, for the JSON.
pub fn secs(ns: u64) -> f64 {
    nanos_to_secs(ns)
}

impl RunStats {
    /// Writes the JSON (pretty-printed) to `path`.
    ///
    /// # Errors
    /// [`CliError::Runtime`] if the file cannot be written.
    pub fn write(&self, path: &Path) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| CliError::Runtime(format!("could not encode the stats: {e}")))?;
        std::fs::write(path, text + "\n")
            .map_err(|e| CliError::Runtime(format!("could not write {}: {e}", path.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_are_listed_by_id_in_key_order() {
        let used: BTreeSet<StrategyId> = [StrategyId::Auto, StrategyId::Lockstep, StrategyId::CatchUp].into();
        assert_eq!(strategy_names(&used), ["lockstep", "catch-up", "auto"]);
    }

    #[test]
    fn gpu_means_count_the_overlay_only_where_it_was_drawn() {
        let mut totals = GpuTimeTotals::default();
        assert_eq!((totals.scene_mean_ms(), totals.overlay_mean_ms()), (None, None));
        totals.add(&GpuTimes { scene_ms: 2.0, overlay_ms: Some(1.0) });
        totals.add(&GpuTimes { scene_ms: 4.0, overlay_ms: None });
        assert_eq!(totals.frames, 2);
        assert_eq!(totals.scene_mean_ms(), Some(3.0));
        assert_eq!(totals.overlay_mean_ms(), Some(1.0), "the hidden-overlay frame does not dilute the mean");
    }

    #[test]
    fn rates_per_second_handle_zero_time() {
        assert_eq!(per_second(120, 2 * NANOS_PER_SEC), 60.0);
        assert_eq!(per_second(5, 0), 0.0);
    }
}
