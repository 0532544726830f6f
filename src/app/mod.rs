//! The window shell: winit 0.30 + wgpu around the same loop driver `simulate` uses.
//!
//! The shell owns everything that touches the platform — the real clock, the
//! window, the surface, precise waits, monitors, key bindings — and drives a
//! core [`crate::session::Session`] on the demo world with time as data, as
//! the virtual monitor does.
//!
//! ```text
//!   RunConfig (from run's flags, measure, or the page's query) ──► App (ApplicationHandler, shell.rs)
//!                            └─ Demo (demo/): its Loops (the demo's session; the lanes in lane mode) and a Screen
//!                                 ├─ window_host:  Screen (window, GPU, overlay numbers) and the FrameHost
//!                                 │                drawing on it: world + overlay, present (or wait for the emulated vblank)
//!                                 ├─ window_state: open, follow the monitor, fullscreen, visibility
//!                                 ├─ monitor_info: what winit says of a monitor, fullscreen on one
//!                                 ├─ gfx:          device, surface, renderers, GPU times and alarms
//!                                 ├─ lanes:        lane mode's sessions, layout and labels
//!                                 ├─ bindings:     the key table and F1 help (carried out in demo/keys.rs)
//!                                 ├─ tour:         measure's scripted segments, filling a report card
//!                                 └─ run_outputs:  --stats-json at exit (the session's report + GPU facts), --frame-log
//! ```

pub mod bindings;
pub(crate) mod config;
pub(crate) mod cpu;
pub(crate) mod cpu_load;
pub(crate) mod demo;
pub(crate) mod gfx;
pub mod lanes;
pub(crate) mod monitor_info;
pub(crate) mod run_outputs;
pub(crate) mod shell;
pub(crate) mod tour;
pub(crate) mod wait;
pub(crate) mod window_host;
pub(crate) mod window_state;

pub(crate) use config::RunConfig;

use crate::error::CliError;

/// What the user reads when no window can be opened; winit's own error
/// (which names a source file in the cargo registry) goes to the debug log.
pub(crate) const NO_DISPLAY: &str = "no display: could not open a window; set DISPLAY or WAYLAND_DISPLAY, or run \
                              `timestep-lab simulate` to study the strategies on virtual monitors without a window";

/// Opens the window with `config` and runs the event loop; with a `tour`
/// (`measure`), the tour drives the session and ends the run.
///
/// # Errors
/// [`CliError::Runtime`] when there is no display, no GPU adapter, the
/// device is lost, or outputs cannot be written at the end.
pub(crate) fn run_app(config: RunConfig, tour: Option<tour::Tour>) -> Result<(), CliError> {
    let event_loop = winit::event_loop::EventLoop::<shell::UserEvent>::with_user_event().build().map_err(|e| {
        log::debug!("winit could not create an event loop: {e}");
        CliError::Runtime(NO_DISPLAY.to_owned())
    })?;
    let proxy = event_loop.create_proxy();
    crate::platform::on_end_signal(move || proxy.send_event(shell::UserEvent::Terminate).is_ok());
    let proxy = event_loop.create_proxy();
    crate::platform::on_visibility(move |hidden| {
        if proxy.send_event(shell::UserEvent::PageHidden(hidden)).is_err() {
            log::debug!("the page was hidden or shown after the run ended");
        }
    });
    let app = match tour {
        Some(tour) => shell::App::with_tour(config, event_loop.create_proxy(), tour),
        None => shell::App::new(config, event_loop.create_proxy()),
    };
    match crate::platform::run_event_loop(event_loop, app).map_err(CliError::Runtime)? {
        Some(app) => app.into_result(),
        // The page runs the app on after start-up returns.
        None => Ok(()),
    }
}
