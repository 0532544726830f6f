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
//!                            ├─ (core)    vblank::EmulatedVsync for --emulate-refresh
//!                            ├─ monitors: list, follow, fullscreen
//!                            └─ stats:    --stats-json at exit
//! ```

pub mod args;
pub mod bindings;
pub mod cpu;
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
const DEFAULT_LOG_FILTER: &str = "info,wgpu_core=warn,wgpu_hal=warn,naga=warn,winit=warn";

/// Opens the demo window and runs until `Esc`, the window is closed, or `--exit-after`.
///
/// # Errors
/// [`CliError::Usage`] for bad flags; [`CliError::Runtime`] when there is no
/// display, no GPU adapter, the device is lost, or output files cannot be written.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    let config = RunConfig::from_args(args)?;
    // Another command (or a test) may have set a logger already; that one wins.
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(DEFAULT_LOG_FILTER)).try_init();
    let event_loop = winit::event_loop::EventLoop::new().map_err(|e| {
        CliError::Runtime(format!(
            "no display: could not open a window ({e}); set DISPLAY or WAYLAND_DISPLAY, or run \
             `timestep-lab simulate` to study the strategies on virtual monitors without a window"
        ))
    })?;
    let mut app = shell::App::new(config);
    event_loop.run_app(&mut app).map_err(|e| CliError::Runtime(format!("the event loop failed: {e}")))?;
    app.into_result()
}
