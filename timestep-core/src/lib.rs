// The README's quick start runs a real loop: it needs `std`.
#![cfg_attr(feature = "std", doc = include_str!("../README.md"))]
//!
//! ## The modules
//!
//! The front door ([`Pacer`], `sleep_until`, [`Rate`], [`StrategyId`]) is
//! re-exported here. Everything behind it is platform-free: no window, no
//! GPU, no real sleeping. Time arrives as data (integer nanoseconds),
//! strategies are state machines that return decisions, and the same
//! [`Pacer`] decides in a game's own loop, in the lab's window and in the
//! `monitor` (a virtual display that reproduces Tyler Glaiel's monitor
//! simulator; the `monitor` feature). Which feature gates which module is
//! in the README's "Features" above: without the default `std` the pacing
//! core (`pacer` on the game's own clock in nanoseconds, `time` without the
//! real clock, `strategy`, `frame`, `refresh`, `vblank`, `rng`) is `no_std`
//! with `alloc`.
//!
//! ```text
//!   pacer     the front door: advance_at → steps, view; presented_at; finish_at → wake
//!             (Nanos); advance, presented, finish on Instants, run (std)
//!   time      integer nanoseconds, exact rational rates, clocks (the real one: std),
//!             sleep_until (std)
//!   strategy  ten loop strategies (lockstep … auto), one state machine each
//!   frame     a frame through a host: begin → steps → render → present → wake
//!   metrics   pattern, doubles, skips, speed, judder, hitches, latency             std
//!   vblank    the refresh grid (one rounding rule) and an emulated vsync
//!   refresh   the measured refresh rate and the vsync verdict
//!   feedback  when frames were really shown, as the display says (Wayland, Vulkan, DXGI,
//!             Metal, Android), and where a run's display times came from
//!   session   the lab's loop: pacer + world + metrics + verdict → HUD data, report  monitor
//!   report    the one RunReport, the metric registry, table / CSV / JSON          monitor
//!   hud       the loop's figures an overlay shows, as plain data                   monitor
//!   monitor   the virtual monitor: models, runs, reports; trace replay (trace)     monitor
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(not(any(feature = "std", test)), no_std)]

extern crate alloc;

pub mod feedback;
#[cfg(any(not(feature = "std"), test))]
mod float;
pub mod frame;
#[cfg(feature = "monitor")]
pub mod hud;
#[cfg(feature = "std")]
pub mod metrics;
/// Without `std` the metrics are left out (their square roots need std's
/// float functions); the sorted window the vsync detector shares with them stays.
#[cfg(not(feature = "std"))]
#[cfg_attr(not(test), expect(dead_code, reason = "the vsync detector uses part of the window"))]
mod metrics {
    pub(crate) mod window;
}
#[cfg(feature = "monitor")]
pub mod monitor;
pub mod pacer;
pub mod refresh;
#[cfg(feature = "monitor")]
pub mod report;
#[doc(hidden)]
pub mod rng;
#[cfg(feature = "monitor")]
pub mod session;
pub mod strategy;
pub mod time;
pub mod vblank;

#[cfg(feature = "std")]
pub use pacer::Present;
pub use pacer::{Frame, Pacer, Updates};
pub use strategy::{StrategyConfig, StrategyId, View};
#[cfg(feature = "std")]
pub use time::Instant;
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub use time::sleep_until;
pub use time::{DEFAULT_SPIN, Nanos, Rate};

// The unit tests run in headless Chromium on wasm32 (`tests/chromium.rs`).
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
