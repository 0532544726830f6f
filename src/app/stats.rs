//! `--stats-json`: what a scripted run measured, written once at exit.
//!
//! The run's figures are the core's [`RunReport`] (the same type and field
//! names `timestep-lab simulate --format json` writes, assembled by the
//! session), flattened into one object with what only the window knows:
//! the adapter, the surface's acquire outcomes and the GPU pass times.

use std::path::Path;

use serde::Serialize;

use crate::error::CliError;
use crate::monitor::RunReport;
use crate::render::surface::AcquireCounts;

/// The JSON document `--stats-json` writes.
#[derive(Clone, Debug, Serialize)]
pub struct StatsJson {
    /// The run's figures and what the session saw of the display.
    #[serde(flatten)]
    pub run: RunReport,
    /// The adapter that rendered.
    pub adapter: String,
    /// Surface acquire outcomes, for robustness runs.
    pub surface: AcquireCounts,
    /// Frames whose GPU pass times were read back (0 without timestamp queries).
    pub gpu_timed_frames: u64,
    /// Mean GPU time of the scene pass (background + sprites), ms.
    pub gpu_scene_ms: Option<f64>,
    /// Mean GPU time of the overlay pass over the frames that drew it, ms.
    pub gpu_overlay_ms: Option<f64>,
}

impl StatsJson {
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
