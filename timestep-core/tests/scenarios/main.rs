//! Scenarios through the core alone: the pacer on a steady clock
//! (`drift`) and the metrics of whole runs on the virtual monitor (`metrics`).

mod drift;
mod metrics;
