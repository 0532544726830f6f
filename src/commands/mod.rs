//! The five commands of `timestep-lab`, each with its flags and its entry point.
//!
//! ```text
//! main.rs ──► run       the demo window (the default): RunArgs ──► app::RunConfig ──► app::run_app
//!         ├─► simulate  the virtual monitor: SimulateArgs ──► one RunSpec per run ──► sim::simulate
//!         │             ──► table / CSV / JSON (sweep: --phases), --plot, --timeline
//!         ├─► measure   the report-card tour: MeasureArgs ──► app::tour::Tour in the window
//!         ├─► compare   report cards and simulator runs side by side: report_card::comparison
//!         └─► diagnose  a game's capture: PresentMon's per-frame metrics, a verdict, the fix
//!         └─► serve     the page for every screen, and the gallery of their cards: crate::serve
//! ```
//!
//! A command owns its flags and calls library code; no library module calls
//! a command. The flag types the commands share (rates, strategy lists,
//! sizes, numbers with a unit, output-file checks) are in [`crate::cli`].

pub mod compare;
pub mod diagnose;
pub mod measure;
pub mod page;
pub mod run;
pub mod serve;
pub mod simulate;
