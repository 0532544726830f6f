#![doc = include_str!("../README.md")]
//!
//! ## The modules
//!
//! The front door ([`Pacer`], [`sleep_until`], [`Rate`], [`StrategyId`]) is
//! re-exported here. Everything behind it is platform-free: no window, no
//! GPU, no real sleeping. Time arrives as data (integer nanoseconds),
//! strategies are state machines that return decisions, and the same
//! [`Pacer`] decides in a game's own loop, in the lab's window and in the
//! `monitor` (a virtual display that reproduces Tyler
//! Glaiel's monitor simulator; the default `monitor` feature).
//!
//! ```text
//!   pacer     the front door: advance → steps, view; presented; finish → wake
//!   time      integer nanoseconds, exact rational rates, clocks, sleep_until
//!   strategy  ten loop strategies (lockstep … auto), one state machine each
//!   frame     a frame through a host: begin → steps → render → present → wake
//!   metrics   pattern, doubles, skips, speed, judder, hitches, latency
//!   vblank    the refresh grid (one rounding rule) and an emulated vsync
//!   refresh   the measured refresh rate and the vsync verdict
//!   session   the lab's loop: pacer + world + metrics + verdict → HUD data and report
//!   hud       the overlay's numbers as plain data
//!   monitor   the virtual monitor: models, runs, reports
//! ```
#![forbid(unsafe_code)]

pub mod frame;
#[cfg(feature = "monitor")]
pub mod hud;
pub mod metrics;
#[cfg(feature = "monitor")]
pub mod monitor;
pub mod pacer;
pub mod refresh;
#[doc(hidden)]
pub mod rng;
#[cfg(feature = "monitor")]
pub mod session;
pub mod strategy;
pub mod time;
pub mod vblank;

pub use pacer::{Frame, Pacer, Present, Updates};
pub use strategy::{StrategyConfig, StrategyId, View};
#[cfg(not(target_arch = "wasm32"))]
pub use time::sleep_until;
pub use time::{DEFAULT_SPIN, Instant, Nanos, Rate};
