//! The web half of the platform seam: a page in a browser (`wasm32-unknown-unknown`).
//!
//! What a browser does differently, and what stands in here, one job per file:
//!
//! ```text
//! animation_frame.rs  requestAnimationFrame: its timestamps start frames, give display
//!                     times and the screen's refresh (not the frames the page managed)
//! page_ui.rs          the page itself: its query, window.timestepLab, the canvas filling
//!                     the viewport, touch controls, the tour's progress, moving on
//! visibility.rs       visibilitychange and pagehide: hidden time is a gap, pagehide ends the run
//! files.rs            outputs become downloads named like the file; nothing is checked up front
//! downloads.rs        the download links themselves
//! logging.rs          the console logger
//! message_box.rs      messages on the page (errors, endings, notes), panics
//! dom.rs              the document, its elements, failed browser calls logged, the
//!                     listeners it owns: beneath message_box.rs and page_ui.rs
//! this file           the facts: time is the core's Instant (performance.now()), Fifo only (a
//!                     browser is always vsynced), nothing may spin, start-up is asynchronous
//! ```
//!
//! Every closure handed to the browser is owned (by a [`Listener`] or the
//! frame hook), never leaked with `forget`, and every browser call that can
//! fail is logged or shown where it does.

mod animation_frame;
mod dom;
mod downloads;
mod files;
mod logging;
mod message_box;
mod page_ui;
mod visibility;

use crate::time::{Nanos, RealClock};

pub(crate) use animation_frame::{DISPLAY_TIME_SOURCE, display_time, frame_timestamp, next_refresh, screen_refresh};
pub(crate) use files::{OutputFile, check_writable, create_file, prepare_output_dir, write_file};
pub use logging::{init_logger, init_quiet_logger};
pub(crate) use message_box::{notify, report_error, show_ending};
pub use message_box::{report_panics_on_page, show_message};
pub use page_ui::page_query;
pub(crate) use page_ui::{install_controls, publish_stats, set_links, show_progress, start_tour, tour_finished};
pub(crate) use visibility::{WindowMapping, on_end_signal, on_visibility};

/// A browser presents every frame in step with the display: vsync cannot be turned off.
pub(crate) const VSYNC_CAN_BE_TURNED_OFF: bool = false;

/// A page is one canvas on one screen: it cannot choose or move to a monitor.
pub(crate) const MONITORS_CAN_BE_CHOSEN: bool = false;

/// A page can ask for fullscreen, never for a video mode.
pub(crate) const EXCLUSIVE_FULLSCREEN: bool = false;

/// The page answers `window.timestepLab.stats()` with the run's figures while it runs.
pub(crate) const PUBLISHES_FIGURES: bool = true;

/// A page cannot block until an emulated vblank: it skips the display's
/// refreshes that fall between the emulated ones instead.
pub(crate) const EMULATES_BY_SKIPPING: bool = true;

/// A browser cannot wait for the GPU: readbacks complete by callback, later.
pub(crate) const CAN_WAIT_FOR_GPU: bool = false;

/// Every file a command writes becomes a download.
pub(crate) const FILES_ARE_DOWNLOADS: bool = true;

/// Most pixels the page draws, whatever the device pixel ratio: a 1080p
/// frame (2.1 MP). A phone at ratio 3 (390×844 CSS px: 1170×2532, 3.0 MP)
/// draws at 0.83 of its pixel ratio, the picture at its CSS size; WebGL2's
/// 2048 px texture side would cap it anyway. A budget, not a measurement:
/// what a phone's GPU or a software rasteriser fills at 60 Hz with room left.
pub(crate) const MAX_DRAWING_PIXELS: Option<u64> = Some(1920 * 1080);

/// The canvas's size in device pixels: its CSS size × `devicePixelRatio`.
/// winit reads `devicePixelContentBoxSize`, which headless Chromium under
/// phone emulation (ratio 3) reported at the CSS size (390×844, not
/// 1170×2532); the product is what a real phone's box gives. `reported`
/// where the page cannot say.
pub(crate) fn device_pixels(window: &winit::window::Window, reported: [u32; 2]) -> [u32; 2] {
    use winit::platform::web::WindowExtWebSys as _;
    let (Some(canvas), Some(page)) = (window.canvas(), web_sys::window()) else { return reported };
    let rect = canvas.get_bounding_client_rect();
    let ratio = page.device_pixel_ratio();
    let size = [rect.width(), rect.height()].map(|css| (css * ratio).round());
    if size.iter().all(|s| s.is_finite() && *s >= 1.0) { size.map(|s| s as u32) } else { reported }
}

/// Nothing to tune: the browser owns the allocator.
pub fn keep_freed_heap_memory() -> bool {
    false
}

/// No Vulkan layer in a page: nothing to quieten.
pub fn quiet_device_select() -> bool {
    false
}

/// The page's bar of buttons along the bottom (44 CSS px buttons and their
/// margins, `web/index.html`): the overlay's key table leaves it free.
pub(crate) const PAGE_BAR_POINTS: f32 = 60.0;

/// What differs in a browser, for the key help (F1): the page's own ways in.
pub(crate) fn help_notes() -> Vec<(String, String)> {
    [
        ("touch", "Controls (bottom right): a button for every key; tap a lane to select it"),
        ("page", "flags are query parameters (?strategy=fuzzy&lanes=all): Controls lists them"),
        ("console", "window.timestepLab.stats(): this run's figures (run --stats-json)"),
    ]
    .map(|(key, text)| (key.to_owned(), text.to_owned()))
    .into()
}

/// Returns at once: the page must not block (no `sleep_until` on wasm32);
/// requestAnimationFrame and the event loop's timers pace its frames.
pub(crate) fn wait_until(_clock: &RealClock, _deadline: Nanos) {}

/// Burns the CPU until `clock` reads `deadline`: artificial load is load on the web too.
pub(crate) fn busy_until(clock: &RealClock, deadline: Nanos) {
    use crate::time::Clock as _;
    while clock.now() < deadline {
        std::hint::spin_loop();
    }
}

/// Runs `future` on the page's task queue and hands its output to `then`
/// (the page must never block: `pollster::block_on` hung it at 96 % CPU).
pub(crate) fn spawn<T: 'static>(
    future: impl std::future::Future<Output = T> + 'static,
    then: impl FnOnce(T) + 'static,
) {
    wasm_bindgen_futures::spawn_local(async move { then(future.await) });
}

/// The window is a canvas appended to the page's body, focused so that keys reach it.
pub(crate) fn window_attributes(attributes: winit::window::WindowAttributes) -> winit::window::WindowAttributes {
    use winit::platform::web::WindowAttributesExtWebSys as _;
    attributes.with_append(true).with_focusable(true)
}

/// A page's canvas is where the page puts it: no client places a window here.
pub(crate) fn cannot_place_windows(_event_loop: &winit::event_loop::ActiveEventLoop) -> bool {
    true
}

/// A page takes the adapter its back-end gives: no preference.
pub(crate) async fn preferred_adapter(
    _instance: &wgpu::Instance,
    _surface: Option<&wgpu::Surface<'static>>,
) -> Option<wgpu::Adapter> {
    None
}

/// The wgpu instance for the page: WebGPU where the browser offers an
/// adapter, WebGL2 otherwise, both wgpu's own back-ends (WebGL2 is wgpu's
/// `webgl` feature: wgpu-core, wgpu-hal's GL and naga in the wasm). The check
/// runs before any canvas gets a context, because a canvas that had a WebGPU
/// context cannot get a WebGL one. The site's wasm has one of the two (`cargo
/// xtask web` builds each, and web/index.html loads the one the browser can
/// run); with both (the crate's default features) one wasm chooses here.
pub(crate) async fn gpu_instance(_display: winit::event_loop::OwnedDisplayHandle) -> wgpu::Instance {
    let descriptor = wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU | wgpu::Backends::GL,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    };
    wgpu::util::new_instance_with_webgpu_detection(descriptor).await
}

/// Unknown: a page cannot read its process's CPU time.
pub(crate) fn read_own_cpu_ticks(_buf: &mut String) -> Option<u64> {
    None
}

/// Hands `app` to the browser's event loop and returns at once (`None`): the
/// page keeps running it after the start-up code has returned.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub(crate) fn run_event_loop<T: 'static, A: winit::application::ApplicationHandler<T> + 'static>(
    event_loop: winit::event_loop::EventLoop<T>,
    app: A,
) -> Result<Option<A>, String> {
    use winit::platform::web::EventLoopExtWebSys as _;
    // The frame clock starts now: the stamps while the GPU starts (an idle page) count too.
    animation_frame::ensure_hook();
    event_loop.spawn_app(app);
    Ok(None)
}

/// Now, as an RFC 3339 UTC time to the second (`2026-11-24T21:01:41Z`), from
/// the page's `Date` (a date library would add 40 KB to the gzipped wasm).
pub(crate) fn utc_now() -> String {
    let iso = String::from(js_sys::Date::new_0().to_iso_string());
    // `2026-11-24T21:01:41.123Z` → `2026-11-24T21:01:41Z`
    match iso.split_once('.') {
        Some((seconds, _)) => format!("{seconds}Z"),
        None => iso,
    }
}

/// The system a report card names: the page.
pub(crate) fn system_name() -> String {
    "web wasm32".to_owned()
}

/// The browser a report card names: its user agent.
pub(crate) fn browser() -> Option<String> {
    let agent = web_sys::window().map(|w| w.navigator().user_agent());
    dom::logged(agent?, "read the user agent")
}

/// A page serves nothing: `serve` is the command line's.
///
/// # Errors
/// Always: not on a page.
pub(crate) fn run_http_server(
    _listener: std::net::TcpListener,
    _gallery: std::sync::Arc<dyn crate::http_message::HttpService>,
) -> Result<(), String> {
    Err("not on a page: run `timestep-lab serve` on a computer".to_owned())
}

/// A page listens on nothing: `serve` is the command line's.
///
/// # Errors
/// Always: not on a page.
pub(crate) fn listen(_addr: std::net::SocketAddr) -> std::io::Result<std::net::TcpListener> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "not on a page: run `timestep-lab serve` on a computer"))
}

/// A page lists no network addresses.
pub(crate) fn network_addresses() -> Vec<std::net::IpAddr> {
    Vec::new()
}

/// The page's random numbers (`Math.random`: a page keeps no token).
pub(crate) fn random_bytes(buf: &mut [u8]) {
    for b in buf {
        *b = (js_sys::Math::random() * 256.0) as u8;
    }
}

/// A page sends its card from its own script (web/index.html), not through this.
///
/// # Errors
/// Always: not on a page.
pub(crate) fn post_card(_url: &str, _card: &str) -> Result<String, String> {
    Err("not on a page: the page sends its card itself when served by `timestep-lab serve`".to_owned())
}
