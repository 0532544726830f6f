//! The web half of the platform seam: a page in a browser (`wasm32-unknown-unknown`).
//!
//! What a browser does differently, and what stands in here:
//!
//! ```text
//! time source     performance.now() through web-time (std's Instant panics on the web)
//! frame start     the requestAnimationFrame timestamp (document.timeline.currentTime)
//! start-up        a console logger; the event loop is spawned (spawn_app), never run to its end
//! waiting         requestAnimationFrame paces frames: nothing may spin (a spin freezes the page)
//! files           outputs become downloads named like the file; nothing is checked up front
//! how a run ends  `pagehide` (the tab closes or navigates away) ends it like Esc
//! present modes   Fifo only: a browser is always vsynced
//! ```

use std::path::Path;

use wasm_bindgen::JsCast as _;
use wasm_bindgen::closure::Closure;

use crate::time::{Nanos, RealClock};

pub use web_time::Instant;

/// A browser presents every frame in step with the display: vsync cannot be turned off.
pub const VSYNC_CAN_BE_TURNED_OFF: bool = false;

/// Nothing to tune: the browser owns the allocator.
pub fn keep_freed_heap_memory() -> bool {
    false
}

/// What differs in a browser, for the key help (F1).
pub fn help_notes() -> Vec<(String, String)> {
    [
        ("V", "frames on requestAnimationFrame (vsync, always on in a browser) or on timers, whose frames the compositor drops or shows late"),
        ("page", "flags are query parameters: ?strategy=fuzzy&tick-rate=60&lanes=all"),
        ("emulate", "?emulate-refresh=30 shows frames only at the refreshes nearest a 30 Hz grid (at most the screen's rate)"),
        ("console", "window.timestepLab.stats(): this run's figures (run --stats-json)"),
    ]
    .map(|(key, text)| (key.to_owned(), text.to_owned()))
    .into()
}

/// Returns at once: the page must not spin, requestAnimationFrame paces its frames.
pub fn spin_until(_clock: &RealClock, _deadline: Nanos) {}

/// Burns the CPU until `clock` reads `deadline`: artificial load is load on the web too.
pub fn busy_until(clock: &RealClock, deadline: Nanos) {
    use crate::time::Clock as _;
    while clock.now() < deadline {
        std::hint::spin_loop();
    }
}

/// A page is visible or hidden as the document says, through winit's occlusion events.
pub use super::visibility::WindowMapping;

/// Runs `future` on the page's task queue and hands its output to `then`
/// (the page must never block: `pollster::block_on` hung it at 96 % CPU).
pub fn spawn<T: 'static>(future: impl std::future::Future<Output = T> + 'static, then: impl FnOnce(T) + 'static) {
    wasm_bindgen_futures::spawn_local(async move { then(future.await) });
}

/// The window is a canvas appended to the page's body, focused so that keys reach it.
pub fn window_attributes(attributes: winit::window::WindowAttributes) -> winit::window::WindowAttributes {
    use winit::platform::web::WindowAttributesExtWebSys as _;
    attributes.with_append(true).with_focusable(true)
}

/// The wgpu instance for the page: WebGPU where the browser offers an
/// adapter, WebGL2 otherwise. The check runs before any canvas gets a
/// context, because a canvas that had a WebGPU context cannot get a WebGL one.
pub async fn gpu_instance(_display: winit::event_loop::OwnedDisplayHandle) -> wgpu::Instance {
    let descriptor = wgpu::InstanceDescriptor {
        backends: wgpu::Backends::BROWSER_WEBGPU | wgpu::Backends::GL,
        ..wgpu::InstanceDescriptor::new_without_display_handle()
    };
    wgpu::util::new_instance_with_webgpu_detection(descriptor).await
}

/// The page answers `window.timestepLab.stats()` with the run's figures.
pub fn wants_stats() -> bool {
    true
}

thread_local! {
    /// The last stats the app published, as JSON text.
    static STATS: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// The timestamps of the last two requestAnimationFrame callbacks, ms on the page's clock.
    static FRAMES: std::cell::Cell<(f64, f64)> = const { std::cell::Cell::new((f64::NAN, f64::NAN)) };
}

/// Keeps `json` (the object `run --stats-json` writes) for
/// `window.timestepLab.stats()`, which it installs on the first call.
pub fn publish_stats(json: String) {
    let first = STATS.with(|stats| {
        let mut stats = stats.borrow_mut();
        let first = stats.is_empty();
        *stats = json;
        first
    });
    if first {
        install_page_api();
    }
}

/// `window.timestepLab = { stats() }`: the figures the overlay shows, as the
/// same JSON object `run --stats-json` writes (tests read it, and so can users).
fn install_page_api() {
    let Some(window) = web_sys::window() else { return };
    let stats = Closure::<dyn Fn() -> wasm_bindgen::JsValue>::new(|| {
        STATS.with(|s| js_sys::JSON::parse(&s.borrow()).unwrap_or(wasm_bindgen::JsValue::NULL))
    });
    let api = js_sys::Object::new();
    let installed = js_sys::Reflect::set(&api, &"stats".into(), stats.as_ref())
        .and_then(|_| js_sys::Reflect::set(&window, &"timestepLab".into(), &api));
    if installed.is_err() {
        log::warn!("cannot install window.timestepLab");
    }
    stats.forget();
}

/// Where the page's display times come from: the requestAnimationFrame after the present.
pub const DISPLAY_TIME_SOURCE: timestep_core::feedback::DisplayTimeSource =
    timestep_core::feedback::DisplayTimeSource::AnimationFrame;

/// A browser says nothing of when frames were shown: no feedback to ask for.
#[derive(Debug)]
pub struct PresentationFeedback;

impl PresentationFeedback {
    /// Never available in a page.
    ///
    /// # Errors
    /// Always.
    pub fn new(_window: &winit::window::Window, _clock: &RealClock) -> Result<PresentationFeedback, String> {
        Err("a browser gives no presentation feedback".to_owned())
    }

    /// Nothing to ask.
    pub fn request(&mut self, _frame: u64) {}

    /// Nothing arrives.
    pub fn poll(&mut self, _take: impl FnMut(timestep_core::feedback::Feedback)) {}
}

/// The display time of a frame presented at `presented_at`: the browser
/// shows it no earlier than the next requestAnimationFrame time after the
/// present, found from the last callback's timestamp and the last callback
/// interval (whether or not this frame's callback has run yet: our callback
/// and winit's take turns being first); `presented_at` until two callbacks
/// have been seen.
pub fn display_time(clock: &RealClock, presented_at: Nanos) -> Nanos {
    next_refresh(clock).map_or(presented_at, |(next, _)| next)
}

/// The next requestAnimationFrame time after now on `clock`'s scale, and
/// the interval between the last two callbacks; `None` until two have been
/// seen (or when the interval is implausible: a hidden page, a stall).
pub fn next_refresh(clock: &RealClock) -> Option<(Nanos, Nanos)> {
    use crate::time::Clock as _;
    ensure_frame_hook();
    let (previous, last) = FRAMES.with(std::cell::Cell::get);
    let performance = web_sys::window().and_then(|w| w.performance())?;
    let interval = last - previous;
    if !(interval.is_finite() && interval > 0.0 && interval < CALLBACK_STALE_MS) {
        return None;
    }
    let now_ms = performance.now();
    let next_ms = last + interval * (((now_ms - last) / interval).floor() + 1.0).max(1.0);
    let ahead_ms = next_ms - now_ms;
    Some((clock.now().saturating_add((ahead_ms.max(0.0) * 1e6) as Nanos), (interval * 1e6) as Nanos))
}

/// The start of the frame that requestAnimationFrame is running, on
/// `clock`'s scale: the callback's timestamp, which is the page's
/// `document.timeline.currentTime` in every callback of that frame (measured in
/// headless Chromium: 0.0 ms apart in 120 of 120 frames, with both a callback
/// of ours and one of winit's). A browser game reads it as its frame time: the
/// callback itself runs 0.5 to 4 ms after it, by how busy the page is, and that
/// jitter would reach every strategy that reads the clock. `None` outside a
/// frame (a timer) or when the timeline is stale or absent.
pub fn frame_timestamp(clock: &RealClock) -> Option<Nanos> {
    use crate::time::Clock as _;
    let window = web_sys::window()?;
    let stamp = window.document()?.timeline().current_time()?;
    let age_ms = window.performance()?.now() - stamp;
    (age_ms.is_finite() && (0.0..CALLBACK_STALE_MS).contains(&age_ms))
        .then(|| clock.now().saturating_sub((age_ms * 1e6) as Nanos))
}

/// The longest a callback interval, or a timestamp's age when its callback
/// runs, may be and still say something about the display: longer is a
/// hidden page or a stall.
const CALLBACK_STALE_MS: f64 = 100.0;

/// A page cannot block until an emulated vblank: it skips the display's
/// refreshes that fall between the emulated ones instead.
pub const EMULATES_BY_SKIPPING: bool = true;

/// Starts a requestAnimationFrame chain that records each callback's
/// timestamp (winit does not hand the app the timestamp). Registered before
/// winit's own callback, it runs first in every frame.
fn ensure_frame_hook() {
    thread_local! {
        static STARTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    type Callback = Closure<dyn FnMut(f64)>;
    let slot: std::rc::Rc<std::cell::RefCell<Option<Callback>>> = std::rc::Rc::default();
    let again = std::rc::Rc::clone(&slot);
    *slot.borrow_mut() = Some(Closure::new(move |timestamp: f64| {
        FRAMES.with(|f| f.set((f.get().1, timestamp)));
        if let (Some(window), Some(callback)) = (web_sys::window(), again.borrow().as_ref()) {
            let _ = window.request_animation_frame(callback.as_ref().unchecked_ref());
        }
    }));
    if let (Some(window), Some(callback)) = (web_sys::window(), slot.borrow().as_ref()) {
        let _ = window.request_animation_frame(callback.as_ref().unchecked_ref());
    }
}

/// Unknown: a page cannot read its process's CPU time.
pub fn read_own_cpu_ticks(_buf: &mut String) -> Option<u64> {
    None
}

/// Logs `info` and above to the browser's console (warnings and errors at their own levels).
struct ConsoleLogger;

impl log::Log for ConsoleLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        let gpu_stack = ["wgpu", "naga", "winit"].iter().any(|p| metadata.target().starts_with(p));
        metadata.level() <= if gpu_stack { log::Level::Warn } else { log::Level::Info }
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let text = wasm_bindgen::JsValue::from_str(&format!("{}: {}", record.target(), record.args()));
        match record.level() {
            log::Level::Error => web_sys::console::error_1(&text),
            log::Level::Warn => web_sys::console::warn_1(&text),
            _ => web_sys::console::log_1(&text),
        }
    }

    fn flush(&self) {}
}

/// Installs the console logger; another logger set first wins.
pub fn init_logger() {
    static LOGGER: ConsoleLogger = ConsoleLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}

/// Hands `app` to the browser's event loop and returns at once (`None`): the
/// page keeps running it after the start-up code has returned.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn run_event_loop<T: 'static, A: winit::application::ApplicationHandler<T> + 'static>(
    event_loop: winit::event_loop::EventLoop<T>,
    app: A,
) -> Result<Option<A>, String> {
    use winit::platform::web::EventLoopExtWebSys as _;
    event_loop.spawn_app(app);
    Ok(None)
}

/// `pagehide` (the tab closes, reloads or navigates away) calls `end`, which
/// ends the run the way `Esc` does.
pub fn on_end_signal(mut end: impl FnMut() -> bool + 'static) {
    let Some(window) = web_sys::window() else { return };
    let handler = Closure::<dyn FnMut()>::new(move || {
        let _ = end();
    });
    if window.add_event_listener_with_callback("pagehide", handler.as_ref().unchecked_ref()).is_err() {
        log::warn!("cannot listen for pagehide: closing the page ends the run without its outputs");
    }
    handler.forget();
}

/// Starts the report-card tour: the page reloads as `?measure` with the
/// run's parameters that a tour takes.
pub fn start_tour() {
    let Some(window) = web_sys::window() else { return };
    let query = crate::commands::page::measure_query(&page_query());
    if let Err(err) = window.location().set_search(&query) {
        log::warn!("cannot open the tour ({query}): {err:?}");
    }
}

/// The page's query string (`?strategy=fuzzy&tick-rate=60`), empty when there is none.
pub fn page_query() -> String {
    web_sys::window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// Shows `message` on the page, over the canvas, where a user who opened the
/// page sees it (a bad query parameter, no GPU): never a blank canvas.
pub fn show_message(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let shown = match document.get_element_by_id("message") {
        Some(element) => Some(element),
        None => document.create_element("p").ok().inspect(|element| {
            element.set_id("message");
            if let Some(body) = document.body() {
                let _ = body.append_child(element);
            }
        }),
    };
    if let Some(element) = shown {
        element.set_text_content(Some(message));
        let _ = element.set_attribute("class", "shown");
    }
}

/// An error that ends the run after start-up (no GPU adapter, a lost
/// device): the page cannot return it to anyone, so it shows it.
pub fn report_error(message: &str) {
    show_message(&format!("timestep-lab: {message}"));
}

/// A panic (a bug) is shown on the page and logged to the console with its
/// message, instead of leaving a frozen canvas and `unreachable` in the console.
pub fn report_panics_on_page() {
    std::panic::set_hook(Box::new(|info| {
        let message = format!("timestep-lab stopped on a bug: {info}");
        web_sys::console::error_1(&wasm_bindgen::JsValue::from_str(&message));
        show_message(&message);
    }));
}

/// Nothing to check: an output becomes a download when it is written.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn check_writable(_path: &Path) -> Result<(), String> {
    Ok(())
}

/// Nothing to make: the files a command writes become downloads.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn prepare_output_dir(_dir: &Path) -> Result<(), String> {
    Ok(())
}

/// A browser cannot wait for the GPU: readbacks complete by callback, later.
pub const CAN_WAIT_FOR_GPU: bool = false;

/// Now, as an RFC 3339 UTC time to the second (`2026-11-24T21:01:41Z`), from
/// the page's `Date` (a date library would add 40 KB to the gzipped wasm).
pub fn utc_now() -> String {
    let iso = String::from(js_sys::Date::new_0().to_iso_string());
    // `2026-11-24T21:01:41.123Z` → `2026-11-24T21:01:41Z`
    match iso.split_once('.') {
        Some((seconds, _)) => format!("{seconds}Z"),
        None => iso,
    }
}

/// The system a report card names: the page.
pub fn system_name() -> String {
    "web wasm32".to_owned()
}

/// The browser a report card names: its user agent.
pub fn browser() -> Option<String> {
    web_sys::window().and_then(|w| w.navigator().user_agent().ok())
}

/// Shows `message` on the page (a tour's downloads).
pub fn notify(message: &str) {
    log::info!("{message}");
    show_message(message);
}

/// Offers `bytes` as a download named after `path`'s file name.
///
/// # Errors
/// One line when the page cannot make the download (no document, a blocked
/// object URL).
pub fn write_file(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), String> {
    let name = path.file_name().map_or_else(|| "download".to_owned(), |n| n.to_string_lossy().into_owned());
    download(&name, bytes.as_ref()).map_err(|e| format!("cannot offer '{name}' as a download: {e}"))
}

/// Offers `bytes` as the file `name`: a link in the page's list of
/// downloads, clicked at once. A browser may hold back a second automatic
/// download of the same page until the user allows it; the link stays for
/// them to click (its object URL lives as long as the page).
fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    let js = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js)?;
    let anchor: web_sys::HtmlAnchorElement =
        document.create_element("a").map_err(js)?.dyn_into().map_err(|_| "not an anchor".to_owned())?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.set_text_content(Some(name));
    let list = match document.get_element_by_id("downloads") {
        Some(list) => list,
        None => {
            let list = document.create_element("nav").map_err(js)?;
            list.set_id("downloads");
            if let Some(body) = document.body() {
                body.append_child(&list).map_err(js)?;
            }
            list
        }
    };
    list.append_child(&anchor).map_err(js)?;
    anchor.click();
    Ok(())
}

/// A file the app streams its output into: kept in memory, offered as a
/// download when it is dropped.
pub struct OutputFile {
    name: std::path::PathBuf,
    bytes: Vec<u8>,
}

impl std::io::Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Err(err) = write_file(&self.name, &self.bytes) {
            log::warn!("{err}");
        }
    }
}

/// A stream that becomes a download named after `path`.
///
/// # Errors
/// None on the web; the signature matches the native half.
pub fn create_file(path: &Path) -> std::io::Result<OutputFile> {
    Ok(OutputFile { name: path.to_owned(), bytes: Vec::new() })
}
