//! The world: a bouncing ball and movers that each expose an interpolation hazard.
//!
//! What the loop strategies are judged on. Every entity keeps its previous
//! and current state; a step moves current to previous and computes the new
//! current; drawing picks a [`crate::strategy::View`] of the two and never
//! changes anything (seed 000).
//!
//! ```text
//!   ┌──────────────────────────── playfield (default 1280 × 720 px) ───────────────────┐
//!   │ ▬▬► runner (constant speed: the smoothness reference, wraps off-screen)           │
//!   │            ◆ wrapper (fast diagonal, wraps: teleports must not smear)             │
//!   │    ↻ spinner (angle wraps at ±180°)       ● ball (seed 003 physics)    ○ orbiter  │
//!   │                                            ▲ player (input)                       │
//!   │ · · · load sprites (SoA, up to 100k) · ·   ⁂ particles (born/die: no lerp from nowhere)
//!   └────────────────────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! - [`ball`]: the seed-003 ball, integrated with an exact closed form and
//!   split at every wall impact;
//! - `movers`: runner, orbiter, spinner, wrapper as closed-form functions of
//!   the integer sim time (so fixed and variable stepping agree on them, and
//!   ghosts can show their true pose between ticks);
//! - `particles`, `player`, `load`: the rest of the cast;
//! - [`input`]: input applied at tick boundaries and the log that replays it;
//! - [`World`]: all of it, with a state hash for determinism checks;
//! - [`lane`]: a lane's world (a runner and a bouncing ball) for lane mode.

pub mod ball;
mod hash;
pub(crate) mod input;
pub mod instance;
pub(crate) mod lane_world;
mod load_sprites;
mod movers;
mod particles;
mod player;

mod world;

pub use input::{Input, InputEvent, InputLog};
pub use instance::{Instance, SpriteCell};
pub(crate) use lane_world::{LANE_INSTANCES, LaneWorld, Look};
pub use movers::{MoverKind, lerp_angle};
pub use particles::{PARTICLE_CAPACITY, PARTICLE_LIFETIME, PARTICLE_RATE, particle_birth};
pub use world::{FIXED_ENTITIES, GHOSTS, INPUT_LOG_CAPACITY, World, WorldConfig};

/// Runs `spec` on the virtual monitor with a fresh demo world
/// (`World::new(&WorldConfig::default())`): what `simulate` prints, and what
/// the lanes and the report card's predictions compare against.
pub fn simulate(spec: &crate::monitor::RunSpec) -> crate::monitor::RunOutcome {
    simulate_with_progress(spec, &mut |_| {})
}

/// As [`simulate`], calling `progress` with the fraction done as the run goes.
pub(crate) fn simulate_with_progress(
    spec: &crate::monitor::RunSpec,
    progress: &mut dyn FnMut(f64),
) -> crate::monitor::RunOutcome {
    let mut world = World::new(&WorldConfig::default());
    crate::monitor::simulate_world(spec, &mut world, progress)
}
