//! timestep-lab: see, measure and compare game-loop timing strategies.
//!
//! The platform-free core (time, strategies, the frame driver, metrics, the
//! virtual monitor) is the `timestep-core` crate, re-exported here under its
//! own module names; this crate is the shell around it: the demo world
//! (`sim`), the window (`app`), the renderer (`render`) and the command line
//! (`cli`, `simulate`, `plot`). See `README.md` for a tour.

pub use timestep_core::{frame, hud, metrics, monitor, refresh, rng, session, strategy, time, vblank};

pub mod app;
pub mod cli;
pub mod error;
pub mod plot;
pub mod render;
pub mod sim;
pub mod simulate;
