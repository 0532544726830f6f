//! Report cards: what a `measure` tour found on each monitor, as `report.json`
//! and `report.html`, and `compare` to put cards and simulator runs side by side.
//!
//! The tour (in the window shell) drives the real display and fills a
//! [`ReportCard`]; this module owns everything after that:
//!
//! ```text
//! measure tour ──► ReportCard ──► report.json      (schema: versioned, documented field by field)
//!   per monitor:     │        └──► report.html      (self-contained: inline SVG, no script)
//!   present modes    │
//!   frame trace      └── predictions: predict(measured refresh reported or not, vsync, config, strategies)
//!   measured runs                     = the virtual monitor's desktop model, same strategies
//!
//! compare A.json B.json sim.json ──► a table per vsync pass: strategies × monitors / simulated displays,
//!                                    the best strategy per column, measured vs predicted ──► compare.html
//! ```
//!
//! - [`schema`]: the types of `report.json` ([`ReportCard`], [`MonitorCard`],
//!   [`PresentModeCheck`], [`IntervalStats`], [`FrameTrace`], [`RunRecord`]).
//! - [`stats`]: present-interval statistics ([`IntervalStats`], [`Histogram`]): mean, σ, p99
//!   and histogram from integer ns.
//! - [`setup`]: a model of the measured setup (frame work, present queue, wake-up precision).
//! - [`predict`]: the simulator's prediction for a measured display, on that model.
//! - [`judge`]: the best-strategy rule and the measured-vs-predicted tolerances.
//! - [`html`] and [`plots`]: the page and its SVG plots (both escape text with `markup`).
//! - [`comparison`]: what `timestep-lab compare` prints: the tables and verdicts.
//! - [`synthetic`]: a card made by the simulator alone (tests, fixtures, screenshots).
//! - [`diagnosis`]: what `diagnose` found in a game's capture, as JSON and a page.
//! - [`agent`]: a browser's user agent in words (`Chrome 156 on Android 15`).
//! - [`evidence`]: what a column rests on and whether it supports a verdict (the one slow-page decision).
//! - [`reasons`]: a reason in words for every best and miss, and the one strategy to ship.
//! - [`file_name`]: a card's file name, `report-<screen>-<yyyymmdd-hhmm>.json`, from its own data.

pub(crate) mod agent;
pub(crate) mod choice;
pub mod comparison;
pub mod diagnosis;
pub mod evidence;
pub mod file_name;
pub(crate) mod html;
pub mod judge;
pub(crate) mod keep_up;
pub(crate) mod load;
mod markup;
pub(crate) mod noise;
pub(crate) mod plots;
pub(crate) mod predict;
pub(crate) mod reasons;
pub(crate) mod sampler;
pub(crate) mod schema;
pub(crate) mod setup;
pub(crate) mod stats;
pub(crate) mod synthetic;

pub use file_name::{card_file_name, card_file_stem};
pub use html::{report_html, write_report_html};
pub(crate) use predict::{PredictedDisplay, predict};
pub(crate) use sampler::{FrameTimes, SetupSampler};
pub use schema::{
    FigureError, Machine, MonitorCard, PresentKind, PresentModeCheck, ReportCard, RunRecord, SCHEMA, SchemaError,
    VERSION,
};
pub(crate) use schema::{FrameTrace, IntervalStats};
pub use synthetic::{SyntheticMonitor, synthetic_card};

/// Why a report card, a page or a comparison could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file could not be read, or was too large.
    #[error(transparent)]
    Read(#[from] crate::platform::read_limited::ReadError),
    /// A file that is not a report card this build reads.
    #[error("{}: {source}", path.display())]
    Card {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: SchemaError,
    },
    /// A file that `compare` cannot read.
    #[error("{}: {source}", path.display())]
    Source {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: comparison::SourceError,
    },
    /// A plot of the page could not be drawn.
    #[error(transparent)]
    Plot(#[from] crate::run_chart::PlotError),
    /// The card could not be encoded as JSON.
    #[error("cannot encode the report card: {0}")]
    Encode(serde_json::Error),
    /// A file could not be written (the message names it).
    #[error("{0}")]
    Write(String),
    /// A folder given for its cards holds none, or cannot be listed (the message names it).
    #[error("{0}")]
    Folder(String),
}
