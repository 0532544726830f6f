// The README's quick start runs a real loop: it needs `std`.
#![cfg_attr(feature = "std", doc = include_str!("../README.md"))]
//!
//! ## The modules
//!
//! The front door ([`Pacer`], `sleep_until`, [`Rate`], [`StrategyId`]) is
//! re-exported here. Everything behind it is platform-free: no window, no
//! GPU, no real sleeping. Time arrives as data (integer nanoseconds),
//! strategies are state machines that return decisions, and the same
//! [`Pacer`] decides in a game's own loop and in the `monitor` (a virtual
//! display that reproduces Tyler Glaiel's monitor
//! simulator; the `monitor` feature). Which feature gates which module is
//! in the README's "Features" above: without the default `std` the pacing
//! core (`pacer` on the game's own clock in nanoseconds, `time` without the
//! real clock, `strategy`, `host`, `refresh`, `vblank`, `vrr`, `rng`) is `no_std`
//! with `alloc`.
//!
//! ```text
//!   pacer     the front door: advance_at → steps, view; presented_at; finish_at → wake
//!             (Nanos); advance, presented, finish on Instants, run (std)
//!   time      integer nanoseconds, exact rational rates, clocks (the real one: std),
//!             sleep_until (std)
//!   strategy  ten loop strategies (lockstep … auto), one state machine each
//!   host      a frame through a host: begin → steps → render → present → wake
//!   metrics   pattern, doubles, skips, speed, judder, hitches, latency             std
//!   vblank    the refresh grid (one rounding rule) and an emulated vsync
//!   vrr       variable refresh: a fixed rate or a range (vrr:48-144), a VRR panel's scanouts
//!   refresh   the measured refresh rate and the vsync verdict
//!   feedback  when frames were really shown, as the display says (Wayland, Vulkan, DXGI,
//!             Metal, Android), and where a run's display times came from
//!   session   a measured loop: pacer + world + metrics + verdict → HUD data, report monitor
//!   report    the one RunReport, the metric registry, table / CSV / JSON          monitor
//!   hud       the loop's figures a HUD shows, as plain data                        monitor
//!   monitor   the virtual monitor: models, runs, reports; trace replay (trace)     monitor
//! ```
//!
//! ## Glossary
//!
//! One name for each idea, in every module:
//!
//! - **tick**: a point of the fixed grid of the tick rate (a [`Rate`]);
//!   `Pacer::tick_period` is the time between two.
//! - **update**: one run of the game's update with a `dt` (a tick period, or
//!   the frame's time for `variable`). A frame's updates are
//!   [`Frame::updates`], an [`Updates`] iterator of `dt`s, and what
//!   `presented` returns (`paced` updates after its present); every one so
//!   far is `Pacer::total_updates`, the reports' `total_updates`; a host's
//!   frame counts its own in `FrameReport::updates`.
//! - **steps**: what a strategy decides a frame runs ([`strategy::Steps`]:
//!   so many ticks, or one variable `dt`); the pacer hands them out as updates.
//! - **frame**: one pass of the loop, advance → updates → draw → present →
//!   finish. A [`Frame`] is what `advance` says to do in one; [`host`] runs
//!   a whole one through a `FrameHost` (`run_host_frame`, on the `Pacer`
//!   and the `Session`) and reports it as a `FrameReport`.
//! - **view**: which picture a frame draws ([`View`]): the latest state, a
//!   blend of the last two by `alpha`, or the latest moved `ahead`;
//!   [`Frame::blend`] draws it for one quantity.
//! - **present**: the picture handed to the display. `Present` is what a
//!   game tells the pacer of one (when it returned, how long it blocked);
//!   `session::PresentOutcome` is what a `Session` records (shown, blocked,
//!   throttled).
//! - **wake**: when the next frame should start: `finish` says, and
//!   `sleep_until` waits for it.
//! - **game time** is what the updates have covered, **wall time** the
//!   clock's; the **time scale** is the ratio (`Pacer::set_time_scale`).
//! - **verdict**: whether vsync is in effect, judged from the presents.
//! - **run**: `pacer::run` is a game's whole loop; `run_host_frame` one
//!   frame through a host.
//!
//! ## Units
//!
//! One unit of time a layer. Where a game meets the pacer with `std`'s
//! types, time is a `Duration` (or an `Instant`): the `Pacer`'s `advance`,
//! `presented` and `finish`, a [`Frame`]'s steps and `ahead`, the pacer's
//! game time and tick period, `Present`, [`StrategyConfig`] (its fields and
//! its builders), the `pacer::run` loop's context, `sleep_until`. Behind it,
//! time is [`Nanos`], integer nanoseconds: the `_at` twins on the game's own
//! clock, [`View`], the strategies' decisions, the `host` layer
//! (`Simulation::step`, `FrameHost`, `FrameReport`), the refresh
//! measurement, the metrics, the virtual monitor and its reports. Fractions
//! (a view's alpha, a blend, the time scale, a rate in Hz) are `f64` in both.
#![forbid(unsafe_code)]
#![cfg_attr(not(any(feature = "std", test)), no_std)]

extern crate alloc;

pub mod feedback;
#[cfg(any(not(feature = "std"), test))]
mod float;
#[cfg(feature = "std")]
pub mod hold;
pub mod host;
#[cfg(feature = "monitor")]
pub mod hud;
// Without `std` the metrics are left out (their square roots need std's
// float functions); the sorted window the vsync detector shares with them
// is a module of its own, beneath both.
#[cfg(feature = "std")]
pub mod metrics;
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
#[cfg_attr(
    all(not(feature = "std"), not(test)),
    expect(dead_code, reason = "without the metrics, the vsync detector uses part of the window")
)]
mod sorted_window;
pub mod strategy;
pub mod time;
pub mod vblank;
pub mod vrr;

#[cfg(feature = "std")]
pub use pacer::Present;
pub use pacer::{Frame, Pacer, Updates};
pub use strategy::{StrategyConfig, StrategyId, View};
#[cfg(feature = "std")]
pub use time::Instant;
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub use time::sleep_until;
pub use time::{DEFAULT_SPIN, EVENT_LOOP_EARLY, Nanos, Rate};

// The unit tests run in headless Chromium on wasm32 (`tests/chromium.rs`).
#[cfg(all(test, target_arch = "wasm32"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
