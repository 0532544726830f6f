//! Everything that differs between platforms, behind one seam: the rest of
//! the app calls `crate::platform::…` and never asks which platform it is on.
//!
//! ```text
//!                     native (native/)                        web (web/)
//! time source         timestep_core::Instant: std's           timestep_core::Instant: performance.now()
//! start-up            env_logger, pollster::block_on,         console log, spawn_local,
//!                     EventLoop::run_app                      EventLoop::spawn_app
//! waiting, sleeping   WaitUntil, then the core's sleep_until  requestAnimationFrame, timers
//! files               read with a size limit, write, check    <input type=file>, downloads
//!                     writable before a run
//! how a run ends      SIGINT / SIGTERM (ctrlc) like Esc       page hide / unload
//! present modes       whatever the surface offers             Fifo only: vsync is always on
//! window visible      winit, plus X11's map state (x11rb)     document visibility
//! process             glibc heap trim threshold, /proc CPU    nothing
//! ```
//!
//! A port to another platform adds its half here and its dependencies in
//! `Cargo.toml`; this module is the only place with `cfg(target_arch)`.

#[cfg_attr(all(not(target_arch = "wasm32"), not(test)), expect(dead_code, reason = "a browser's frame clock"))]
mod frame_clock;
pub(crate) mod read_limited;
#[cfg_attr(
    all(not(target_arch = "wasm32"), target_os = "linux"),
    expect(dead_code, reason = "X11 asks its server instead")
)]
mod window_mapping;

#[cfg(not(target_arch = "wasm32"))]
mod native;
#[cfg(not(target_arch = "wasm32"))]
pub use native::*;

#[cfg(target_arch = "wasm32")]
mod web;
#[cfg(target_arch = "wasm32")]
pub use web::*;

/// One touch control of a page: a key's action as a button (natively there are none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PageControl {
    /// The button's text (`fuzzy`, `Tick +`).
    pub(crate) label: String,
    /// What it does, for screen readers and the tooltip (the key table's help line).
    pub(crate) name: String,
    /// The key it stands for, shown in the tooltip.
    pub(crate) key: String,
    /// Held while the finger is down (the player's moves), else a tap.
    pub(crate) held: bool,
}
