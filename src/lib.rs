//! timestep-lab: see, measure and compare game-loop timing strategies.
//!
//! The platform-free core (time, strategies, the frame driver, metrics, the
//! virtual monitor) is the `timestep-core` crate, re-exported here under its
//! own module names; this crate is the shell around it: the demo world
//! (`sim`), the window (`app`), the renderer (`render`, the overlay's numbers
//! in `hud_data`), report cards (`report_card`) and the command line
//! (`commands`, one module per command, with the flag types they share in
//! `cli`). See `README.md` for a tour.
//!
//! This library exists for the tests, examples, benches and the web page:
//! what they use is `pub`, everything else `pub(crate)`.
//!
//! ## Glossary
//!
//! One meaning for each word, in every module. The core's words (tick,
//! update, steps, frame, view, present, wake, game and wall time, verdict)
//! are in `timestep_core`'s glossary and mean the same here.
//!
//! - **mode**: which loops the window shows. In *single mode* the demo's
//!   session runs one strategy; in *lane mode* (`C`, `--lanes`) every
//!   strategy of the lane list runs in its own lane, and the demo's session
//!   waits, paused. `app::demo`'s `Loops` holds both and hands each change
//!   (tick rate, present mode, monitor, a gap) to every loop it concerns.
//! - **present mode**: how the surface hands pictures to the display,
//!   `wgpu::PresentMode` (Fifo, Mailbox, Immediate, …). A session records
//!   one as a `session::PresentModeInfo` (its name, whether it asks for
//!   vsync); on a page, where the browser always vsyncs, `V` chooses between
//!   requestAnimationFrame and timers instead. A tour's **present setup** is
//!   a present mode with or without the emulated grid.
//! - **emulated refresh**: a vblank grid the app waits for on top of the
//!   display's (`--emulate-refresh`), so a refresh rate can be tried on any
//!   monitor.
//! - **monitor**: a display the window can be on, as winit names it
//!   (`OnMonitor`); one no one named is `session::UNKNOWN_MONITOR`
//!   everywhere. The **virtual monitor** is the core's simulator (`monitor`).
//! - **plan**: what a tour is asked to measure (`TourPlan`: monitors,
//!   strategies, lengths). From it the tour lays out its **segments**, one
//!   timed part each (a probe, a run, a move to the next monitor); a
//!   segment **under way** settles, then records.
//! - **probe**: a lockstep segment in one present setup, for the vsync
//!   verdict, the measured refresh and the present intervals.
//! - **wake**: when the next frame starts. Asked ahead, it is a strategy's
//!   `Wake.at`: the shell waits for it by sleeping, then spinning
//!   (`app::wait` splits the wait, `App::schedule` tells winit). Measured
//!   after the fact, it is how long after a vblank a frame started: a
//!   measured setup's `wake_ms`, the virtual monitor's `vblank_wake`.
//! - **overlay**: the panel drawn over the playfield (`render::overlay`);
//!   the numbers it shows are the **HUD data** (`hud_data::HudData`). Its
//!   **panel layout** is full or compact (`PanelLayout`); where its last
//!   draw put things is an `OverlayLayout`.
//! - **load**: artificial CPU work in each frame (`L`, `app::cpu_load`);
//!   **load sprites** are extra entities in the world (`--sprites`,
//!   `sim::load_sprites`).
//! - **lane**: one strategy's strip of the playfield in lane mode, with its
//!   own session (`app::lanes`) and world (`sim::lane_world`).
//! - **card**: a report card, what `measure` writes (`report-<screen>-<time>.json`
//!   and `.html`) and `compare` reads (`report_card`).

pub use timestep_core::{
    feedback, hold, host, metrics, monitor, refresh, report, rng, session, strategy, time, vblank, vrr,
};

pub mod app;
pub(crate) mod cli;
pub mod commands;
pub mod error;
#[cfg_attr(target_arch = "wasm32", expect(dead_code, reason = "a page serves nothing"))]
pub(crate) mod http_message;
pub mod hud_data;
pub(crate) mod output;
pub mod platform;
pub mod registry;
pub mod render;
pub mod report_card;
pub(crate) mod run_chart;
pub(crate) mod serve;
pub mod sim;
