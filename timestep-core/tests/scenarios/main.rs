//! Scenarios through the core alone: the pacer on a steady clock
//! (`drift`) and the metrics of whole runs on the virtual monitor (`metrics`,
//! with the `monitor` feature).

mod drift;
#[cfg(feature = "monitor")]
mod metrics;
#[cfg(feature = "monitor")]
mod vrr;

// On wasm32 these run in headless Chromium (`tests/chromium.rs`).
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
