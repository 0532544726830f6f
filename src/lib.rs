//! timestep-lab: see, measure and compare game-loop timing strategies.
//!
//! The platform-free core (time, strategies, the frame driver, metrics, the
//! virtual monitor) is the `timestep-core` crate, re-exported here under its
//! own module names; this crate is the shell around it: the demo world
//! (`sim`), the window (`app`), the renderer (`render`), report cards
//! (`report_card`) and the command line (`commands`, one module per command,
//! with the flag types they share in `cli`). See `README.md` for a tour.

pub use timestep_core::{feedback, frame, metrics, monitor, refresh, report, rng, session, strategy, time, vblank};

pub mod app;
pub mod cli;
pub mod commands;
pub mod error;
pub mod hud;
pub mod output;
pub mod platform;
pub mod plot;
pub mod render;
pub mod report_card;
pub mod sim;
