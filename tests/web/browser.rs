//! The site, a server for it, and headless Chromium through chromedriver (WebDriver).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::harness::Missing;

/// Which graphics API the page gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// WebGPU (Chromium's `--enable-unsafe-webgpu`, on SwiftShader's Vulkan).
    WebGpu,
    /// WebGL2 (no WebGPU adapter, so the page falls back; ANGLE on SwiftShader).
    WebGl2,
}

impl Backend {
    /// How the adapter summary names the backend.
    pub fn adapter_backend(self) -> &'static str {
        match self {
            Backend::WebGpu => "BrowserWebGpu",
            Backend::WebGl2 => "on Gl",
        }
    }
}

/// The built site, built once per test binary: `cargo xtask web --out target/site-test`.
///
/// # Errors
/// What is missing (the browser, its driver, the wasm target), or why the build failed.
pub fn site() -> Result<&'static Path, &'static Missing> {
    static SITE: OnceLock<Result<PathBuf, Missing>> = OnceLock::new();
    SITE.get_or_init(build_site).as_ref().map(PathBuf::as_path)
}

fn build_site() -> Result<PathBuf, Missing> {
    for tool in ["chromium", "chromedriver"] {
        if !on_path(tool) {
            return Err(Missing::new(
                format!("no {tool}"),
                "install Debian's chromium and chromium-driver (the README's one-liner)",
            ));
        }
    }
    if !wasm_target_installed() {
        // The README's `cargo test` does the set-up: add the target where rustup can.
        let added = Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]).status();
        if !added.is_ok_and(|s| s.success()) || !wasm_target_installed() {
            return Err(Missing::new("no wasm32 target", "rustup target add wasm32-unknown-unknown"));
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = root.join("target").join("site-test");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let started = Instant::now();
    let built = Command::new(cargo)
        .current_dir(&root)
        .args(["xtask", "web", "--out"])
        .arg(&out)
        .output()
        .map_err(|e| Missing::new("cannot run cargo", e.to_string()))?;
    if !built.status.success() {
        return Err(Missing::new(
            "the site does not build",
            format!("cargo xtask web: {}\n{}", built.status, String::from_utf8_lossy(&built.stderr)),
        ));
    }
    eprintln!("site built in {:.0} s: {}", started.elapsed().as_secs_f64(), out.display());
    Ok(out)
}

/// The start of a test's error that reports it as skipped, with the rest as
/// the reason (see [`skip_if_starved`]), not as failed.
pub const SKIP: &str = "skip: ";

/// Most of the screen's refreshes a page may miss and still be judged on
/// figures that need it to keep up: on an idle machine headless Chromium's
/// page missed none in 3 s (WEB.md: 181 frames); under load (8 on 2 cores)
/// the same page missed 10 to 75 %.
pub const STARVED_SHARE: f64 = 0.05;

/// How many times its `limit` [`Browser::wait_for`] waits for a page that
/// keeps presenting frames but has not got there yet (a busy machine).
pub const PROGRESS_LIMIT_FACTOR: u32 = 6;

/// `Err(SKIP …)` when the page was `starved` (as `evidence`, its own counts,
/// says): what a quiet machine gives cannot be judged, and the reason names
/// the machine's load.
///
/// # Errors
/// The skip, with its reason.
pub fn skip_if_starved(starved: bool, evidence: &str, what: &str) -> Result<(), String> {
    if !starved {
        return Ok(());
    }
    let load = std::fs::read_to_string("/proc/loadavg").ok().and_then(|l| l.split(' ').next().map(str::to_owned));
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let load = load.unwrap_or_else(|| "unknown".to_owned());
    Err(format!("{SKIP}{evidence} (load {load} on {cores} cores): {what} needs a page that keeps up"))
}

/// Whether the machine is busier than it has cores (the 1-minute load
/// average): a page's callbacks then run late in their refresh, and a frame
/// that finishes after its refresh is shown one later. That is the load's
/// doing, not the browser's: figures that hold only for a page whose
/// callbacks run on time are skipped then, with the load in the reason.
pub fn machine_busy() -> bool {
    crate::harness::machine_busy()
}

/// Runs `test` against the built site in a fresh browser with a `window`-sized
/// window, one browser at a time, or skips when something is missing.
///
/// # Errors
/// The test's failure, or a browser that does not start.
pub fn in_browser(
    backend: Backend,
    window: [u32; 2],
    test: impl FnOnce(&Browser, &Server) -> Result<(), String>,
) -> Result<libtest_mimic::Completion, libtest_mimic::Failed> {
    let dir = match site() {
        Ok(dir) => dir,
        Err(missing) => return crate::harness::unavailable(missing),
    };
    let _one = crate::harness::one_window_at_a_time();
    let server = Server::start(dir);
    let browser = Browser::start(backend, window)?;
    match test(&browser, &server) {
        Ok(()) => Ok(libtest_mimic::Completion::Completed),
        Err(why) if why.starts_with(SKIP) => {
            eprintln!("{why}");
            Ok(libtest_mimic::Completion::ignored_with(why.trim_start_matches(SKIP)))
        }
        Err(err) => Err(err.into()),
    }
}

/// The check `cargo xtask web` makes: one file for both.
#[path = "../../xtask/src/wasm_target.rs"]
mod wasm_target;
use wasm_target::installed as wasm_target_installed;

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// A static file server for `dir` on a free local port, in a thread, with the
/// headers that make the page cross-origin isolated.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    server: std::sync::Arc<tiny_http::Server>,
}

impl Server {
    /// Serves `dir` until dropped.
    pub fn start(dir: &Path) -> Server {
        let server = std::sync::Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("a local port"));
        let base = format!("http://{}", server.server_addr());
        let (serving, dir) = (std::sync::Arc::clone(&server), dir.to_owned());
        std::thread::spawn(move || {
            for request in serving.incoming_requests() {
                let path = request.url().split('?').next().unwrap_or("/").trim_start_matches('/').to_owned();
                let file = dir.join(if path.is_empty() { "index.html" } else { &path });
                let _ = match std::fs::read(&file) {
                    Ok(bytes) => request.respond(
                        tiny_http::Response::from_data(bytes)
                            .with_header(header("Content-Type", content_type(&file)))
                            .with_header(header("Cross-Origin-Opener-Policy", "same-origin"))
                            .with_header(header("Cross-Origin-Embedder-Policy", "require-corp")),
                    ),
                    Err(_) => request.respond(tiny_http::Response::empty(404)),
                };
            }
        });
        Server { base, server }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.server.unblock();
    }
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

/// Headless Chromium in a WebDriver session.
pub struct Browser {
    driver: Child,
    url: String,
    _profile: PathBuf,
    /// Where the page's downloads land.
    pub downloads: PathBuf,
}

impl Browser {
    /// Removes every card and card page from the downloads, so that the next
    /// tour's are the only ones.
    ///
    /// # Errors
    /// A file that cannot be removed.
    pub fn clear_cards(&self) -> Result<(), String> {
        let entries = std::fs::read_dir(&self.downloads).map_err(|e| e.to_string())?;
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with(timestep_lab::report_card::file_name::PREFIX) {
                std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        Ok(())
    }

    /// The card the page downloaded and its page beside it
    /// (`report-<screen>-<yyyymmdd-hhmm>.json` and `.html`), once both are
    /// there; `None` until then.
    pub fn downloaded_card(&self) -> Option<(PathBuf, PathBuf)> {
        let json = timestep_lab::report_card::file_name::cards_in(&self.downloads).ok()?.into_iter().next()?;
        let html = json.with_extension("html");
        html.is_file().then_some((json, html))
    }

    /// Starts chromedriver and a headless Chromium with the flags that give
    /// it WebGPU (or, for [`Backend::WebGl2`], leave it without) on this machine.
    ///
    /// # Errors
    /// When chromedriver does not come up or refuses the session.
    pub fn start(backend: Backend, window: [u32; 2]) -> Result<Browser, String> {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start chromedriver: {e}"))?;
        let profile = std::env::temp_dir().join(format!("timestep-lab-chromium-{}-{port}", std::process::id()));
        let downloads = profile.join("downloads");
        std::fs::create_dir_all(&downloads).map_err(|e| format!("cannot make {}: {e}", downloads.display()))?;
        let mut browser = Browser {
            driver,
            url: format!("http://127.0.0.1:{port}"),
            _profile: profile.clone(),
            downloads: downloads.clone(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while browser.get("/status").is_err() {
            if Instant::now() > deadline {
                return Err("chromedriver did not answer within 20 s".to_owned());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            format!("--user-data-dir={}", profile.display()),
            "--use-angle=swiftshader".to_owned(),
            "--use-vulkan=swiftshader".to_owned(),
            "--enable-features=Vulkan".to_owned(),
            format!("--window-size={},{}", window[0], window[1]),
        ];
        if backend == Backend::WebGpu {
            args.push("--enable-unsafe-webgpu".to_owned());
        }
        let capabilities = serde_json::json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args, "prefs": {
                "download.default_directory": downloads,
                "download.prompt_for_download": false,
                // The tour offers two files: allow the page more than one download.
                "profile.default_content_setting_values.automatic_downloads": 1,
            }},
        }}});
        let session = browser.post("/session", &capabilities)?;
        let id = session["sessionId"].as_str().ok_or_else(|| format!("no session: {session}"))?.to_owned();
        browser.url = format!("{}/session/{id}", browser.url);
        Ok(browser)
    }

    fn get(&self, path: &str) -> Result<serde_json::Value, String> {
        let response = ureq::get(&format!("{}{path}", self.url)).call();
        read(response)
    }

    fn post(&self, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, String> {
        let response = ureq::post(&format!("{}{path}", self.url)).send_json(body.clone());
        read(response)
    }

    /// Opens `url`.
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn open(&self, url: &str) -> Result<(), String> {
        self.post("/url", &serde_json::json!({"url": url})).map(drop)
    }

    /// The value of a JavaScript function body (`return …`).
    ///
    /// # Errors
    /// WebDriver's error (a script that throws).
    pub fn eval(&self, script: &str) -> Result<serde_json::Value, String> {
        self.post("/execute/sync", &serde_json::json!({"script": script, "args": []}))
    }

    /// The value an asynchronous script passes to its callback (`arguments[0]`).
    ///
    /// # Errors
    /// WebDriver's error (a script that throws, or runs past chromedriver's 30 s).
    pub fn eval_async(&self, script: &str) -> Result<serde_json::Value, String> {
        self.post("/execute/async", &serde_json::json!({"script": script, "args": []}))
    }

    /// Polls `script` (a function body) until it returns `true`, or the page
    /// stalls as [`Browser::wait_for`] tells.
    ///
    /// # Errors
    /// What the page says when it never did.
    pub fn wait_for_script(&self, limit: Duration, script: &str) -> Result<(), String> {
        let start = Instant::now();
        let mut progress = (start, f64::NAN);
        while self.eval(script)? != serde_json::Value::Bool(true) {
            // As in [`Browser::wait_for`]: a page still presenting frames is slow, not stuck.
            let presented = self.stats()?["presented"].as_f64().unwrap_or(f64::NAN);
            let now = Instant::now();
            if presented.is_finite() && presented != progress.1 {
                progress = (now, presented);
            }
            if now.duration_since(progress.0) > limit || now.duration_since(start) > limit * PROGRESS_LIMIT_FACTOR {
                let waited = now - start;
                return Err(format!("'{script}' not true after {waited:?}; the page says '{}'", self.message()?));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(())
    }

    /// `window.timestepLab.stats()`, or `null` before the page published any.
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn stats(&self) -> Result<serde_json::Value, String> {
        self.eval("return window.timestepLab ? window.timestepLab.stats() : null")
    }

    /// Polls [`Browser::stats`] until `ready` holds for them, or the page
    /// stalls: `limit` passes with no new frame presented (or, before the
    /// page published any figures, `limit` after the start). A page that
    /// keeps drawing, however slowly on a busy machine, gets up to
    /// [`PROGRESS_LIMIT_FACTOR`] times `limit`: a busy machine once drew a
    /// 1920×1080 page at 5 fps and 30 s ran out before its 30th frame.
    ///
    /// # Errors
    /// The last stats (or the page's message) when `ready` never held.
    pub fn wait_for(
        &self,
        limit: Duration,
        ready: impl Fn(&serde_json::Value) -> bool,
    ) -> Result<serde_json::Value, String> {
        let start = Instant::now();
        let mut progress = (start, f64::NAN);
        loop {
            let stats = self.stats()?;
            if !stats.is_null() && ready(&stats) {
                return Ok(stats);
            }
            let presented = stats["presented"].as_f64().unwrap_or(f64::NAN);
            let now = Instant::now();
            // NaN never equals itself: the first figures published count as progress.
            if presented.is_finite() && presented != progress.1 {
                progress = (now, presented);
            }
            let stalled = now.duration_since(progress.0) > limit;
            if stalled || now.duration_since(start) > limit * PROGRESS_LIMIT_FACTOR {
                let message = self.message().unwrap_or_default();
                let why = if stalled { format!("no new frame for {limit:?}") } else { format!("{:?}", now - start) };
                return Err(format!("not ready after {why}: page message '{message}', stats {stats}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The text the page shows in its message box (empty when none).
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn message(&self) -> Result<String, String> {
        let text = self.eval("const m = document.getElementById('message'); return m ? m.textContent : ''")?;
        Ok(text.as_str().unwrap_or_default().to_owned())
    }

    /// Presses and releases `key` (a character, as WebDriver types it) on the focused canvas.
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn press(&self, key: &str) -> Result<(), String> {
        let actions = serde_json::json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "pause", "duration": 50}, {"type": "keyUp", "value": key},
        ]}]});
        self.post("/actions", &actions).map(drop)
    }

    /// Picks `files` in the page's file input `css` (as a user choosing them).
    ///
    /// # Errors
    /// WebDriver's error (no such element).
    pub fn pick_files(&self, css: &str, files: &[PathBuf]) -> Result<(), String> {
        let element = self.post("/element", &serde_json::json!({"using": "css selector", "value": css}))?;
        let id = element.as_object().and_then(|o| o.values().next()).and_then(|v| v.as_str()).unwrap_or_default();
        let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        self.post(&format!("/element/{id}/value"), &serde_json::json!({"text": paths.join("\n")})).map(drop)
    }

    /// This tab's WebDriver handle.
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn tab(&self) -> Result<String, String> {
        self.get("/window").map(|h| h.as_str().unwrap_or_default().to_owned())
    }

    /// Opens a new tab and switches to it; returns its handle.
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn new_tab(&self) -> Result<String, String> {
        let tab = self.post("/window/new", &serde_json::json!({"type": "tab"}))?;
        let handle = tab["handle"].as_str().ok_or_else(|| format!("no new tab: {tab}"))?.to_owned();
        self.switch_to(&handle)?;
        Ok(handle)
    }

    /// Switches to the tab `handle`: what follows acts on it.
    ///
    /// # Errors
    /// WebDriver's error.
    pub fn switch_to(&self, handle: &str) -> Result<(), String> {
        self.post("/window", &serde_json::json!({"handle": handle})).map(drop)
    }

    /// A DevTools protocol command (`Emulation.setDeviceMetricsOverride`, …)
    /// through chromedriver's own passage to it.
    ///
    /// # Errors
    /// WebDriver's error, or the protocol's.
    pub fn cdp(&self, command: &str, params: serde_json::Value) -> Result<serde_json::Value, String> {
        self.post("/goog/cdp/execute", &serde_json::json!({"cmd": command, "params": params}))
    }

    /// The page as a phone: `size` CSS px at `ratio` device pixels each, mobile, with touch.
    ///
    /// # Errors
    /// The protocol's error.
    pub fn phone(&self, size: [u32; 2], ratio: f64) -> Result<(), String> {
        self.viewport(size, ratio, true)?;
        self.cdp("Emulation.setTouchEmulationEnabled", serde_json::json!({"enabled": true, "maxTouchPoints": 5}))
            .map(drop)
    }

    /// A viewport of exactly `size` CSS px at `ratio` (a headless window's
    /// size includes what would be the browser's own bars).
    ///
    /// # Errors
    /// The protocol's error.
    pub fn viewport(&self, size: [u32; 2], ratio: f64, mobile: bool) -> Result<(), String> {
        let metrics =
            serde_json::json!({"width": size[0], "height": size[1], "deviceScaleFactor": ratio, "mobile": mobile});
        self.cdp("Emulation.setDeviceMetricsOverride", metrics).map(drop)
    }

    /// A finger down and up at CSS pixel `at`.
    ///
    /// # Errors
    /// The protocol's error.
    pub fn tap(&self, at: [f64; 2]) -> Result<(), String> {
        let point = serde_json::json!([{"x": at[0], "y": at[1]}]);
        self.cdp("Input.dispatchTouchEvent", serde_json::json!({"type": "touchStart", "touchPoints": point}))?;
        self.cdp("Input.dispatchTouchEvent", serde_json::json!({"type": "touchEnd", "touchPoints": []})).map(drop)
    }

    /// Taps the middle of the element `css` (as a finger would: no click is sent).
    ///
    /// # Errors
    /// No such element, or the protocol's error.
    pub fn tap_element(&self, css: &str) -> Result<(), String> {
        let script = format!(
            "const e = document.querySelector({css:?}); if (!e) return null;              const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]"
        );
        let at = self.eval(&script)?;
        let [x, y] = [0, 1].map(|i| at[i].as_f64());
        match (x, y) {
            (Some(x), Some(y)) => self.tap([x, y]),
            _ => Err(format!("no element {css} to tap")),
        }
    }

    /// Minimises (`true`) or restores the browser's window: the page is hidden or shown
    /// (`visibilitychange`), as a background tab or a locked phone would be.
    ///
    /// # Errors
    /// The protocol's error.
    pub fn hide(&self, hidden: bool) -> Result<(), String> {
        // Focus emulation keeps a page visible whatever its window does.
        self.cdp("Emulation.setFocusEmulationEnabled", serde_json::json!({"enabled": false}))?;
        let window = self.cdp("Browser.getWindowForTarget", serde_json::json!({}))?;
        let id = window["windowId"].as_u64().ok_or_else(|| format!("no window: {window}"))?;
        let state = if hidden { "minimized" } else { "normal" };
        let bounds = serde_json::json!({"windowId": id, "bounds": {"windowState": state}});
        self.cdp("Browser.setWindowBounds", bounds).map(drop)
    }

    /// A PNG of the element `css` as shown (its box on the page, at the page's pixel ratio).
    ///
    /// # Errors
    /// No such element, WebDriver's error, or a screenshot that is not base64.
    pub fn element_screenshot(&self, css: &str) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let element = self.post("/element", &serde_json::json!({"using": "css selector", "value": css}))?;
        let id = element.as_object().and_then(|o| o.values().next()).and_then(|v| v.as_str()).unwrap_or_default();
        let data = self.get(&format!("/element/{id}/screenshot"))?;
        base64::engine::general_purpose::STANDARD.decode(data.as_str().unwrap_or_default()).map_err(|e| e.to_string())
    }

    /// A PNG of the page as shown.
    ///
    /// # Errors
    /// WebDriver's error, or a screenshot that is not base64.
    pub fn screenshot(&self) -> Result<Vec<u8>, String> {
        use base64::Engine as _;
        let data = self.get("/screenshot")?;
        base64::engine::general_purpose::STANDARD.decode(data.as_str().unwrap_or_default()).map_err(|e| e.to_string())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = ureq::delete(&self.url).call();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// WebDriver's `value`, or its error message.
fn read(response: Result<ureq::Response, ureq::Error>) -> Result<serde_json::Value, String> {
    let body = match response {
        Ok(response) => response.into_string(),
        Err(ureq::Error::Status(_, response)) => response.into_string(),
        Err(err) => return Err(err.to_string()),
    }
    .map_err(|e| e.to_string())?;
    let value: serde_json::Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
    match value["value"].get("error") {
        Some(error) => Err(format!("{error}: {}", value["value"]["message"])),
        None => Ok(value["value"].clone()),
    }
}
