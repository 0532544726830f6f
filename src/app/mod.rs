//! The window shell: winit 0.30 + wgpu around the same loop driver `simulate` uses.
//!
//! The shell owns everything that touches the platform — the real clock, the
//! window, the surface, precise waits, monitors, key bindings — and feeds the
//! core ([`crate::frame::FrameDriver`], [`crate::sim::World`],
//! [`crate::metrics::Metrics`]) time as data, like the virtual monitor does.
//!
//! ```text
//!   args ──► RunConfig ──► App (ApplicationHandler)
//!                            ├─ shell:    events, key table, about_to_wait decides when to wake
//!                            ├─ host:     FrameHost: render world + overlay, present (or wait for the emulated vblank)
//!                            ├─ refresh:  measured refresh + "is vsync in effect?" verdict
//!                            ├─ emulate:  virtual vblank grid (--emulate-refresh)
//!                            ├─ monitors: list, follow, fullscreen
//!                            └─ stats:    --stats-json at exit
//! ```

pub mod args;
pub mod bindings;
pub mod cpu;
pub mod emulate;
pub mod host;
pub mod hud;
pub mod load;
pub mod monitors;
pub mod refresh;
pub mod shell;
pub mod stats;
pub mod wait;

pub use args::{RunArgs, RunConfig};

use crate::error::CliError;

/// Default log filter: the app at `info`, the GPU stack only when it has something to say.
pub const DEFAULT_LOG_FILTER: &str = "info,wgpu_core=warn,wgpu_hal=warn,naga=warn,winit=warn";

/// Installs the logger every command logs through: `RUST_LOG`, else
/// [`DEFAULT_LOG_FILTER`]. Another logger set first (a test's) wins.
pub fn init_logger() {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(DEFAULT_LOG_FILTER)).try_init();
}

/// What the user reads when no window can be opened; winit's own error
/// (which names a source file in the cargo registry) goes to the debug log.
pub const NO_DISPLAY: &str = "no display: could not open a window; set DISPLAY or WAYLAND_DISPLAY, or run \
                              `timestep-lab simulate` to study the strategies on virtual monitors without a window";

/// Opens the demo window and runs until `Esc`, the window is closed, or `--exit-after`.
///
/// # Errors
/// [`CliError::Usage`] for bad flags or unwritable output files;
/// [`CliError::Runtime`] when there is no display, no GPU adapter, the device
/// is lost, or output files cannot be written at the end.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let config = RunConfig::from_args(args)?;
    let event_loop = winit::event_loop::EventLoop::new().map_err(|e| {
        log::debug!("winit could not create an event loop: {e}");
        CliError::Runtime(NO_DISPLAY.to_owned())
    })?;
    let mut app = shell::App::new(config);
    event_loop.run_app(&mut app).map_err(|e| CliError::Runtime(format!("the event loop failed: {e}")))?;
    app.into_result()
}
