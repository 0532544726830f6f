//! The native half of the platform seam: Linux, Windows and macOS through
//! winit, wgpu's native backends and the standard library.

mod cpu_ticks;
mod device_select;
mod heap;
mod http_server;
mod spin;
mod x11;

use std::fs::OpenOptions;

use crate::render::{GpuContext, RenderError};
use crate::time::Nanos;
use std::path::Path;

pub(crate) use cpu_ticks::read_own_cpu_ticks;
pub use device_select::quiet_device_select;
pub use heap::keep_freed_heap_memory;
pub(crate) use http_server::{listen, network_addresses, post_card, random_bytes, run_http_server};
pub(crate) use spin::{busy_until, wait_until};
pub(crate) use x11::WindowMapping;

/// Default log filter: the app at `info`, the GPU stack only when it has something to say;
/// winit's XRandR warning about a display of 0 mm (every virtual and emulated display,
/// Xvfb's too: nothing to act on) and its "error setting XSETTINGS" (a server with no
/// settings manager, Xvfb's: only Xft options would not reload) wait for `RUST_LOG=debug`.
pub(crate) const DEFAULT_LOG_FILTER: &str = "info,wgpu_core=warn,wgpu_hal=warn,naga=warn,winit=warn,\
     winit::platform_impl::linux::x11::util::randr=error,winit::platform_impl::linux::x11::xdisplay=error";

/// Whether the user can turn vsync off: a native surface offers non-blocking
/// present modes (Mailbox, Immediate) where the driver has them.
pub(crate) const VSYNC_CAN_BE_TURNED_OFF: bool = true;

/// A window can be opened on any monitor, and moved to another.
pub(crate) const MONITORS_CAN_BE_CHOSEN: bool = true;

/// Exclusive fullscreen in a monitor's video mode, where the platform lists modes.
pub(crate) const EXCLUSIVE_FULLSCREEN: bool = true;

/// Whether the app publishes its figures while it runs: natively they
/// are written once, at exit (`--stats-json`).
pub(crate) const PUBLISHES_FIGURES: bool = false;

/// Most pixels a window draws: natively every one the window has (the
/// adapter's largest texture side still applies).
pub(crate) const MAX_DRAWING_PIXELS: Option<u64> = None;

/// The window's size in device pixels, as winit reports it: natively it is.
pub(crate) fn device_pixels(_window: &winit::window::Window, reported: [u32; 2]) -> [u32; 2] {
    reported
}

/// A window has no page around it: the overlay may use its whole height.
pub(crate) const PAGE_BAR_POINTS: f32 = 0.0;

/// Lines the key help adds on this platform: none natively.
pub(crate) fn help_notes() -> Vec<(String, String)> {
    Vec::new()
}

/// Installs the logger every command logs through: `RUST_LOG`, else
/// [`DEFAULT_LOG_FILTER`]. Another logger set first (a test's) wins.
pub fn init_logger() {
    init_logger_or(DEFAULT_LOG_FILTER);
}

/// The filter of a command that prints its own progress and end (`measure`):
/// warnings only, so that its once-a-second figures (at info) wait for `RUST_LOG=info`;
/// not the clipboard's fallback from Wayland to X11, which the demo does not need.
/// winit's XRandR and XSETTINGS warnings wait for `RUST_LOG=debug` as in [`DEFAULT_LOG_FILTER`].
pub(crate) const QUIET_LOG_FILTER: &str = "warn,arboard=error,winit::platform_impl::linux::x11::util::randr=error,\
     winit::platform_impl::linux::x11::xdisplay=error";

/// [`init_logger`] for a command that prints its own progress: `RUST_LOG`, else [`QUIET_LOG_FILTER`].
pub fn init_quiet_logger() {
    init_logger_or(QUIET_LOG_FILTER);
}

fn init_logger_or(filter: &str) {
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(filter)).try_init();
}

/// Runs a future to completion on this thread (the GPU's asynchronous start-up).
pub(crate) fn block_on<F: std::future::Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

/// Runs `future` to its end and hands its output to `then`: natively at
/// once, on this thread (the web half cannot wait and runs it on the page's
/// task queue instead).
pub(crate) fn spawn<T>(future: impl std::future::Future<Output = T> + 'static, then: impl FnOnce(T) + 'static) {
    then(block_on(future));
}

/// The window as the app asks for it: nothing to add natively.
pub(crate) fn window_attributes(attributes: winit::window::WindowAttributes) -> winit::window::WindowAttributes {
    attributes
}

/// The wgpu instance for a window: every native backend (`WGPU_BACKEND` narrows it).
pub(crate) async fn gpu_instance(display: winit::event_loop::OwnedDisplayHandle) -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(display)))
}

/// The adapter to try before wgpu's own pick: on Windows a DX12 one that can
/// present to `surface` (discrete before integrated), whose swap chain gives
/// DXGI's frame statistics (wgpu may otherwise pick Vulkan, which gives none
/// there); `None` elsewhere, or where `WGPU_BACKEND` chooses the back-end.
pub(crate) async fn preferred_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'static>>,
) -> Option<wgpu::Adapter> {
    if !cfg!(windows) || std::env::var_os("WGPU_BACKEND").is_some() {
        return None;
    }
    let surface = surface?;
    let mut adapters: Vec<wgpu::Adapter> = instance
        .enumerate_adapters(wgpu::Backends::DX12)
        .await
        .into_iter()
        .filter(|a| a.is_surface_supported(surface) && a.get_info().device_type != wgpu::DeviceType::Cpu)
        .collect();
    adapters.sort_by_key(|a| a.get_info().device_type != wgpu::DeviceType::DiscreteGpu);
    adapters.into_iter().next()
}

/// An error that ends the run after start-up: natively `main` prints it
/// when the event loop returns, so there is nothing to do here.
pub(crate) fn report_error(_message: &str) {}

/// Nothing to publish to natively.
pub(crate) fn publish_stats(_json: String) {}

/// Natively the tour is its own command (it writes files where it is told).
pub(crate) fn start_tour() {
    notify("the report-card tour is a command here: timestep-lab measure --out DIR (see --help)");
}

/// Natively there is no page with links: the command line is where a run starts.
pub(crate) fn set_links(_tour: &str, _again: &str, _parameters: &str) {}

/// Natively the tour's progress is its line on stderr ([`crate::output::Progress`]).
pub(crate) fn show_progress(_line: Option<&str>) {}

/// Nothing to tidy natively: a tour's command line is not run again by a reload.
pub(crate) fn tour_finished(_card_json: &str) {}

/// How a run ended: natively the log says it, and the shell is where it started.
pub(crate) fn show_ending(message: &str) {
    log::info!("{message}");
}

/// Natively there is no page to put touch controls on: keys only.
pub(crate) fn install_controls(_controls: &[super::PageControl], _act: impl FnMut(usize, bool) + 'static) {}

/// Natively winit says when a window is hidden (`Occluded`, minimised): nothing more to listen to.
pub(crate) fn on_visibility(_changed: impl FnMut(bool) + 'static) {}

/// Not known apart from the frames natively: the monitor reports its rate, the refresh meter measures it.
pub(crate) fn screen_refresh() -> Option<f64> {
    None
}

/// Whether windows cannot be placed by their client (Wayland).
#[cfg(target_os = "linux")]
pub(crate) fn cannot_place_windows(event_loop: &winit::event_loop::ActiveEventLoop) -> bool {
    use winit::platform::wayland::ActiveEventLoopExtWayland as _;
    event_loop.is_wayland()
}

/// Elsewhere a window can be placed.
#[cfg(not(target_os = "linux"))]
pub(crate) fn cannot_place_windows(_event_loop: &winit::event_loop::ActiveEventLoop) -> bool {
    false
}

/// Natively the loop spins to an emulated vblank's wake time: no skipping.
pub(crate) const EMULATES_BY_SKIPPING: bool = false;

/// Not known natively (a present's return is the display's pacing).
pub(crate) fn next_refresh(_clock: &crate::time::RealClock) -> Option<(Nanos, Nanos)> {
    None
}

/// Natively a frame starts when the loop reads the clock: no platform stamps it.
pub(crate) fn frame_timestamp(_clock: &crate::time::RealClock) -> Option<Nanos> {
    None
}

/// Where [`display_time`]'s times come from natively: the present call's
/// return, an estimate, unless a display-time source replaces it
/// ([`DisplayTimer`](crate::platform::DisplayTimer)).
pub(crate) const DISPLAY_TIME_SOURCE: timestep_core::feedback::DisplayTimeSource =
    timestep_core::feedback::DisplayTimeSource::PresentReturn;

/// The display time of a frame whose present returned at `presented_at`:
/// natively that moment (a blocking present returns at the vblank); never
/// `None` (a page's frame replaced in a burst).
pub(crate) fn display_time(_clock: &crate::time::RealClock, presented_at: Nanos) -> Option<Nanos> {
    Some(presented_at)
}

/// A GPU context without a window, with its own instance (no display
/// needed), waited for: for tests and benches. Tries the primary backends
/// (Vulkan, Metal, DX12) before GL, whose probing is slow and noisy without
/// a display; `WGPU_BACKEND` overrides the choice.
///
/// # Errors
/// As [`GpuContext::new`].
pub fn headless_gpu() -> Result<GpuContext, RenderError> {
    let descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env;
    if std::env::var_os("WGPU_BACKEND").is_some() {
        return block_on(GpuContext::new(wgpu::Instance::new(descriptor()), None, None));
    }
    let primary = wgpu::InstanceDescriptor { backends: wgpu::Backends::PRIMARY, ..descriptor() };
    match block_on(GpuContext::new(wgpu::Instance::new(primary), None, None)) {
        Err(RenderError::NoAdapter(reason)) => {
            log::info!("no adapter on the primary backends ({reason}); trying all backends");
            block_on(GpuContext::new(wgpu::Instance::new(descriptor()), None, None))
        }
        result => result,
    }
}

/// Runs `app` on `event_loop` until it exits, and hands it back for its
/// result (`Some`; the web half, which cannot wait, returns `None`).
///
/// # Errors
/// The event loop's own failure, as one line.
pub(crate) fn run_event_loop<T: 'static, A: winit::application::ApplicationHandler<T>>(
    event_loop: winit::event_loop::EventLoop<T>,
    mut app: A,
) -> Result<Option<A>, String> {
    event_loop.run_app(&mut app).map_err(|e| format!("the event loop failed: {e}"))?;
    Ok(Some(app))
}

/// SIGINT and SIGTERM (Ctrl+C, Ctrl+Break and closing the console on
/// Windows) call `end`, which ends the run the way `Esc` does and returns
/// whether it could. A second signal while that is under way, or one `end`
/// cannot deliver, exits at once with 130.
pub(crate) fn on_end_signal(mut end: impl FnMut() -> bool + Send + 'static) {
    let mut signalled = false;
    let handler = move || {
        if signalled || !end() {
            std::process::exit(130);
        }
        signalled = true;
    };
    if let Err(err) = ctrlc::set_handler(handler) {
        log::warn!("cannot catch SIGINT/SIGTERM ({err}): a signal ends the run without its outputs");
    }
}

/// Checks, before any work, that `path` can be written, so that a long run
/// does not end in an error that loses its results.
///
/// An existing file is opened for writing without truncation: its contents
/// stay until the result replaces them. A missing file is created empty and
/// removed again, so nothing is left behind if the run fails.
///
/// # Errors
/// A directory, a missing parent directory, or a file that cannot be created
/// or opened for writing (read-only, `/proc`); the message says which.
pub(crate) fn check_writable(path: &Path) -> Result<(), String> {
    let shown = path.display();
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => return Err(format!("'{shown}' is a directory; give a file name in it")),
        Ok(_) => {
            return OpenOptions::new()
                .write(true)
                .open(path)
                .map(drop)
                .map_err(|e| format!("cannot write '{shown}': {e}"));
        }
        Err(_) => {}
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(format!("cannot write '{shown}': the directory '{}' does not exist", parent.display()));
    }
    OpenOptions::new().write(true).create_new(true).open(path).map_err(|e| format!("cannot write '{shown}': {e}"))?;
    std::fs::remove_file(path).map_err(|e| format!("cannot write '{shown}': created it but cannot remove it: {e}"))
}

/// A file the app streams its output into (`--frame-log`).
pub(crate) type OutputFile = std::fs::File;

/// Creates (or truncates) `path` for streaming output.
///
/// # Errors
/// What the OS says.
pub(crate) fn create_file(path: &Path) -> std::io::Result<OutputFile> {
    std::fs::File::create(path)
}

/// Makes `dir` (and its parents) for the files a command writes into it.
///
/// # Errors
/// A file of that name, or a directory that cannot be made; the message says which.
pub(crate) fn prepare_output_dir(dir: &Path) -> Result<(), String> {
    if dir.is_file() {
        return Err(format!("'{}' is a file; give a directory", dir.display()));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))
}

/// Whether the GPU can be waited for: a readback (a screenshot) completes
/// before the call that asks for it returns.
pub(crate) const CAN_WAIT_FOR_GPU: bool = true;

/// Whether a file a command writes becomes a download (the page) rather than a file on disk.
pub(crate) const FILES_ARE_DOWNLOADS: bool = false;

/// Now, as an RFC 3339 UTC time to the second (`2026-11-24T21:01:41Z`): when a card was made.
pub(crate) fn utc_now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The system a report card names: `linux x86_64`.
pub(crate) fn system_name() -> String {
    format!("{} {}", std::env::consts::OS, std::env::consts::ARCH)
}

/// The browser a report card names: none natively.
pub(crate) fn browser() -> Option<String> {
    None
}

/// Tells the user something worth knowing that is not an error (a tour's
/// outputs): natively the log says it.
pub(crate) fn notify(message: &str) {
    log::info!("{message}");
}

/// Writes `bytes` to `path`, replacing what was there.
///
/// # Errors
/// One line naming the file.
pub(crate) fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("timestep-lab-platform-unit-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn a_missing_file_is_created_and_removed_again() {
        let path = scratch_dir("missing").join("out.json");
        assert_eq!(check_writable(&path), Ok(()));
        assert!(!path.exists(), "the check leaves nothing behind");
    }

    #[test]
    fn an_existing_file_keeps_its_contents() {
        let path = scratch_dir("existing").join("out.json");
        std::fs::write(&path, "previous run").expect("write");
        assert_eq!(check_writable(&path), Ok(()));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "previous run");
    }

    #[test]
    fn directories_missing_parents_and_proc_are_refused() {
        let dir = scratch_dir("dir");
        assert!(check_writable(&dir).unwrap_err().contains("is a directory"));
        let orphan = dir.join("no-such-dir").join("out.json");
        assert!(check_writable(&orphan).unwrap_err().contains("does not exist"));
        assert!(check_writable(Path::new("/proc/x.json")).unwrap_err().starts_with("cannot write '/proc/x.json'"));
    }
}
