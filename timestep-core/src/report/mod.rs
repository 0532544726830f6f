//! What a run reports: the one [`RunReport`], the metric [registry] every
//! list of figures derives from, and the table / CSV / JSON renderings.
//!
//! The field names are a contract (scripts and CI read them); each is
//! written once, in the [registry]. The raw counts (`total_updates` …
//! `system_time_s`) are Glaiel's bookkeeping; the figures after them are
//! [`FrameStats`](crate::metrics::FrameStats), defined in
//! [`crate::metrics`] and held once in the report.
//!
//! This module stands on its own: it knows the metrics, not the monitor
//! or the session that fill it in.
//!
//! ```text
//!   origin     RunOrigin: what produced the frames (a preset, a measured setup, a trace, the window, a lane)
//!   text       to_table, to_csv, to_json: their columns from the registry
//!   registry   Field: name, unit, definition, decimals, in the table?, how to read it
//!   run_report RunReport (counts + FrameStats), IntervalHistogram, DisplayFacts, TraceInfo, VrrInfo, CompositorInfo
//!   cell       Cell: one typed value, as a table, CSV and JSON write it
//!   table      the aligned text table, trim_number
//! ```
//!
//! Each uses only those below it.

mod cell;
mod origin;
pub mod registry;
mod run_report;
mod table;
mod text;

pub use cell::Cell;
pub use origin::{Preset, RunOrigin};
pub use registry::{
    COMPOSITOR_FIELDS, COMPOSITOR_TABLE_FIELDS, DERIVED_FIELDS, FIELDS, Field, Section, TRACE_FIELDS, VRR_FIELDS,
    all_fields, definition, definitions_markdown, field, table_fields,
};
pub use run_report::{CompositorInfo, DisplayFacts, IntervalHistogram, RunReport, TraceInfo, VrrInfo};
pub use table::{NOT_A_FIGURE, NOT_YET_MEASURED, Table, hz_text, ms_text, trim_number};
pub use text::{to_csv, to_json, to_table};
