//! Scenarios through the core alone: the frame driver on a steady clock
//! (`drift`) and the metrics of whole runs on the virtual monitor (`metrics`,
//! with the `monitor` feature).

mod drift;
#[cfg(feature = "monitor")]
mod metrics;
