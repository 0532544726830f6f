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
//!   registry   Field: name, unit, definition, decimals, in the table?, how to read it
//!   run        RunReport (counts + FrameStats), IntervalHistogram, DisplayFacts, TraceInfo
//!   model      RunModel: what produced the frames (a preset, a measured setup, a trace, the window, a lane)
//!   text       to_table, to_csv, to_json: their columns from the registry
//!   table      the aligned text table, trim_number
//! ```

mod model;
pub mod registry;
mod run;
mod table;
mod text;

pub use model::RunModel;
pub use registry::{
    Cell, FIELDS, Field, Section, TRACE_FIELDS, all_fields, definition, definitions_markdown, field, table_fields,
};
pub use run::{DisplayFacts, IntervalHistogram, RunReport, TraceInfo};
pub use table::{Table, trim_number};
pub use text::{to_csv, to_json, to_table};
