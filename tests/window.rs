//! The real window under Xvfb: the binary is started, driven with xdotool and
//! judged by what it writes (`--stats-json`, `--screenshot`) and its exit status.
//!
//! Without `DISPLAY` each test starts its own Xvfb (`-displayfd` picks a free
//! display number) and kills it afterwards. If Xvfb, xdotool or a GPU adapter
//! (Mesa lavapipe is enough) is missing the tests print a loud `SKIPPED` and
//! pass, unless `TIMESTEP_LAB_REQUIRE_GPU` is set (CI), which makes it a failure.
//! The tests run one at a time: they measure timing, and two windows rendering
//! on a software adapter would steal each other's CPU.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_timestep-lab");

/// One window test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn require_gpu() -> bool {
    std::env::var_os("TIMESTEP_LAB_REQUIRE_GPU").is_some()
}

/// Passes loudly, or fails when `TIMESTEP_LAB_REQUIRE_GPU` is set.
fn skip(reason: &str) {
    if require_gpu() {
        panic!("TIMESTEP_LAB_REQUIRE_GPU is set, but {reason}");
    }
    eprintln!(
        "\n************************************************************\n\
         SKIPPED: {reason}.\n\
         Set TIMESTEP_LAB_REQUIRE_GPU=1 to turn this into a failure.\n\
         ************************************************************\n"
    );
}

/// An X display: the caller's `DISPLAY`, or an Xvfb we started (killed on drop).
struct Display {
    name: String,
    xvfb: Option<Child>,
}

impl Drop for Display {
    fn drop(&mut self) {
        if let Some(child) = self.xvfb.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Size of the screen of the Xvfb the tests start.
const SCREEN: (u32, u32) = (1280, 800);

fn display() -> Result<Display, String> {
    if let Some(name) = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()) {
        return Ok(Display { name, xvfb: None });
    }
    start_xvfb()
}

/// A fresh Xvfb of [`SCREEN`] size, whatever `DISPLAY` says.
fn start_xvfb() -> Result<Display, String> {
    let screen = format!("{}x{}x24", SCREEN.0, SCREEN.1);
    let mut child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", &screen, "-nolisten", "tcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("Xvfb could not be started ({e}); install xvfb"))?;
    let stdout = child.stdout.take().ok_or("Xvfb has no stdout")?;
    // Xvfb writes the display number it picked once it accepts connections.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let mut display = Display { name: String::new(), xvfb: Some(child) };
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(line) if !line.trim().is_empty() => {
            display.name = format!(":{}", line.trim());
            Ok(display)
        }
        // Dropping `display` kills the Xvfb that never came up.
        _ => Err("Xvfb did not report a display number within 10 s".to_owned()),
    }
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// A running `timestep-lab` with its stderr going to a file.
struct App {
    child: Child,
    log: PathBuf,
    dir: PathBuf,
}

impl App {
    fn start(display: &Display, name: &str, args: &[&str]) -> App {
        let dir = std::env::temp_dir().join(format!("timestep-lab-window-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let log = dir.join("stderr.log");
        let child = Command::new(BIN)
            .args(args)
            .arg("--stats-json")
            .arg(dir.join("stats.json"))
            .env("DISPLAY", &display.name)
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start timestep-lab");
        App { child, log, dir }
    }

    fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits for the exit (`--exit-after` should end it); kills it after `limit`.
    fn wait(&mut self, limit: Duration) -> ExitStatus {
        let until = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("timestep-lab did not exit within {limit:?}; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn stats(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.path("stats.json"))
            .unwrap_or_else(|e| panic!("no stats.json ({e}); stderr:\n{}", self.stderr()));
        serde_json::from_str(&text).expect("stats.json is JSON")
    }
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// True (after a loud skip) when the app could not start for lack of an adapter.
fn skipped_for_missing_adapter(app: &App, status: ExitStatus) -> bool {
    let stderr = app.stderr();
    if !status.success() && stderr.contains("no GPU adapter") {
        skip(&format!("no GPU adapter: {}", stderr.trim()));
        return true;
    }
    false
}

fn xdotool(display: &Display, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool").args(args).env("DISPLAY", &display.name).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The window of `pid`, waiting up to 15 s for it to be mapped.
fn find_window(display: &Display, app: &mut App) -> Option<String> {
    let pid = app.child.id().to_string();
    let until = Instant::now() + Duration::from_secs(15);
    while Instant::now() < until {
        if let Ok(Some(_)) = app.child.try_wait() {
            return None;
        }
        let found = xdotool(display, &["search", "--onlyvisible", "--pid", &pid])
            .or_else(|| xdotool(display, &["search", "--onlyvisible", "--name", "^timestep-lab$"]));
        if let Some(id) = found.and_then(|ids| ids.lines().last().map(str::to_owned)) {
            return Some(id);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// Key presses go through XTEST to the focused window (winit ignores
/// synthetic `XSendEvent` keys), so focus it and park the pointer on it.
fn focus(display: &Display, window: &str) {
    let _ = xdotool(display, &["windowfocus", window]);
    let _ = xdotool(display, &["mousemove", "--window", window, "200", "200"]);
}

fn press(display: &Display, window: &str, key: &str) {
    focus(display, window);
    xdotool(display, &["key", "--delay", "30", key]).unwrap_or_else(|| panic!("xdotool key {key} failed"));
    std::thread::sleep(Duration::from_millis(250));
}

/// Standard deviation of the luminance of a PNG: a blank image has ~0.
fn luminance_spread(path: &Path) -> f64 {
    let image =
        image::open(path).unwrap_or_else(|e| panic!("{} is not a readable PNG: {e}", path.display())).to_rgba8();
    let lum: Vec<f64> =
        image.pixels().map(|p| 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2])).collect();
    let mean = lum.iter().sum::<f64>() / lum.len() as f64;
    (lum.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / lum.len() as f64).sqrt()
}

fn number(stats: &serde_json::Value, field: &str) -> f64 {
    stats[field].as_f64().unwrap_or_else(|| panic!("stats field {field} is not a number: {stats}"))
}

fn setup() -> Option<(std::sync::MutexGuard<'static, ()>, Display)> {
    let guard = SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match display() {
        Ok(display) => Some((guard, display)),
        Err(reason) => {
            skip(&reason);
            None
        }
    }
}

#[test]
fn the_window_survives_every_key_resize_and_minimise_and_reports_all_strategies() {
    let Some((_serial, display)) = setup() else { return };
    if !have("xdotool") {
        skip("xdotool is not installed (apt-get install xdotool)");
        return;
    }
    let shot_dir = std::env::temp_dir().join(format!("timestep-lab-shot-{}", std::process::id()));
    std::fs::create_dir_all(&shot_dir).expect("temp dir");
    let shot = shot_dir.join("shot.png");
    let mut app = App::start(
        &display,
        "keys",
        &[
            "--exit-after",
            "16",
            "--sprites",
            "50",
            "--window-size",
            "640x360",
            "--screenshot",
            shot.to_str().expect("utf-8 temp path"),
        ],
    );
    let Some(window) = find_window(&display, &mut app) else {
        let status = app.wait(Duration::from_secs(20));
        if skipped_for_missing_adapter(&app, status) {
            return;
        }
        panic!("no window appeared (exit {status:?}); stderr:\n{}", app.stderr());
    };
    for key in ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"] {
        press(&display, &window, key);
    }
    for key in ["v", "Up", "Up", "Down", "l", "g", "f", "h", "F1", "space", "space", "r", "m"] {
        press(&display, &window, key);
    }
    // Steer the player: WASD are held keys.
    focus(&display, &window);
    let _ = xdotool(&display, &["keydown", "d"]);
    std::thread::sleep(Duration::from_millis(300));
    let _ = xdotool(&display, &["keyup", "d"]);
    press(&display, &window, "f");
    // Resize storm down to 1×1 and back.
    for size in [["1", "1"], ["640", "360"], ["1", "1"], ["1280", "720"]] {
        let _ = xdotool(&display, &["windowsize", &window, size[0], size[1]]);
        std::thread::sleep(Duration::from_millis(200));
    }
    // Minimise needs a window manager; unmapping is what minimising does to the window without one.
    let _ = xdotool(&display, &["windowminimize", &window]);
    let _ = xdotool(&display, &["windowunmap", &window]);
    std::thread::sleep(Duration::from_millis(700));
    let _ = xdotool(&display, &["windowmap", &window]);
    let _ = xdotool(&display, &["windowactivate", &window]);
    press(&display, &window, "h");

    let status = app.wait(Duration::from_secs(25));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stats = app.stats();
    let used: Vec<&str> =
        stats["strategies_used"].as_array().expect("strategies_used").iter().filter_map(|v| v.as_str()).collect();
    for id in [
        "lockstep",
        "fixed-fps",
        "variable",
        "catch-up",
        "interpolated",
        "extrapolated",
        "fuzzy",
        "snapped",
        "paced",
        "auto",
    ] {
        assert!(used.contains(&id), "{id} missing from strategies_used {used:?}; stderr:\n{}", app.stderr());
    }
    assert!(number(&stats, "frames") > 50.0, "too few frames presented: {stats}");
    let configures = stats["surface"]["configures"].as_u64().unwrap_or(0);
    assert!(configures >= 3, "V and the resizes should each have reconfigured the surface: {stats}");
    assert_eq!(stats["tick_rate"].as_f64(), Some(100.0), "Up, Up, Down took 60 Hz to 100 Hz: {stats}");
    // lavapipe has timestamp queries: the passes must have been timed and read back.
    if stats["adapter"].as_str().is_some_and(|a| a.contains("llvmpipe")) {
        assert!(number(&stats, "gpu_timed_frames") > 10.0, "GPU pass times were not read back: {stats}");
        assert!(number(&stats, "gpu_scene_ms") > 0.0, "{stats}");
    }
    let spread = luminance_spread(&shot);
    assert!(spread > 5.0, "screenshot {} looks blank (luminance spread {spread:.2})", shot.display());
    eprintln!(
        "window run: {:.1} fps, measured refresh {:?} Hz, mode {}, verdict: {}",
        number(&stats, "fps"),
        stats["measured_refresh_hz"].as_f64(),
        stats["present_mode_actual"],
        stats["vsync_verdict"]
    );
    let _ = std::fs::remove_dir_all(&shot_dir);
}

#[test]
fn emulated_60_hz_with_catch_up_runs_one_update_per_refresh() {
    let Some((_serial, display)) = setup() else { return };
    let mut app = App::start(
        &display,
        "emu60",
        &[
            "--exit-after",
            "6",
            "--window-size",
            "480x270",
            "--no-overlay",
            "--emulate-refresh",
            "60",
            "--strategy",
            "catch-up",
        ],
    );
    let status = app.wait(Duration::from_secs(20));
    if skipped_for_missing_adapter(&app, status) {
        return;
    }
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stats = app.stats();
    let (updates, vsyncs, doubles) =
        (number(&stats, "total_updates"), number(&stats, "vsyncs"), number(&stats, "double_updates"));
    let ratio = updates / vsyncs;
    eprintln!(
        "emulated 60 Hz, catch-up: {updates} updates over {vsyncs} refreshes ({ratio:.3}), {doubles} doubles; {stats}"
    );
    assert!((0.9..=1.1).contains(&ratio), "updates per refresh {ratio:.3} (stats {stats})");
    // Every double update must be paid for by a refresh that got no update: a
    // refresh the busy machine missed (skipped) or a frame that ran no update
    // (repeated). Catch-up's tick boundaries can sit right on the vblanks, and
    // then scheduling noise turns `11` into `02`/`20`: the stutter `fuzzy` fixes.
    let zeros = number(&stats, "skipped_renders") + number(&stats, "repeated_frames");
    assert!(
        doubles <= zeros + 0.05 * vsyncs,
        "{doubles} double updates but only {zeros} refreshes without an update in {vsyncs} (stats {stats})"
    );
    // Presents land on the grid: the median interval is a whole number of 60 Hz
    // periods (one, unless the machine was too busy to make every vblank).
    let measured = stats["measured_refresh_hz"].as_f64().unwrap_or(0.0);
    let periods = 60.0 / measured;
    assert!(
        periods >= 0.99 && (periods - periods.round()).abs() < 0.01,
        "measured refresh {measured} Hz is not on a 60 Hz grid"
    );
}

/// Runs `simulate` for the same settings; `None` (after a loud note) while the simulator lacks them.
fn simulate_json(args: &[&str]) -> Option<serde_json::Value> {
    let out = Command::new(BIN).arg("simulate").args(args).output().expect("run simulate");
    if !out.status.success() {
        eprintln!(
            "NOTE: `simulate {}` failed ({}), comparison skipped: {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

#[test]
fn emulated_59_94_hz_fuzzy_counts_agree_with_the_simulator() {
    let Some((_serial, display)) = setup() else { return };
    let mut app = App::start(
        &display,
        "emu5994",
        &[
            "--exit-after",
            "8",
            "--window-size",
            "480x270",
            "--no-overlay",
            "--emulate-refresh",
            "59.94",
            "--strategy",
            "fuzzy",
            "--fuzzy-variant",
            "60-62",
        ],
    );
    let status = app.wait(Duration::from_secs(20));
    if skipped_for_missing_adapter(&app, status) {
        return;
    }
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let window = app.stats();
    let vsyncs = number(&window, "vsyncs");
    let updates = number(&window, "total_updates");
    assert!(vsyncs > 300.0, "too few refreshes: {window}");
    let seconds = format!("{}", number(&window, "system_time_s"));
    let Some(sim) = simulate_json(&[
        "--refresh",
        "59.94",
        "--strategy",
        "fuzzy",
        "--fuzzy-variant",
        "60-62",
        "--seconds",
        &seconds,
        "--format",
        "json",
    ]) else {
        return;
    };
    let sim = if sim.is_array() { sim[0].clone() } else { sim };
    let (sim_updates, sim_vsyncs) = (number(&sim, "total_updates"), number(&sim, "vsyncs"));
    eprintln!(
        "59.94 Hz fuzzy 60-62 over {seconds} s: window {updates} updates / {vsyncs} refreshes, \
         simulator {sim_updates} / {sim_vsyncs}\n  window {window}\n  simulator {sim}"
    );
    assert!((updates - sim_updates).abs() <= 0.1 * sim_updates, "window {updates} vs simulator {sim_updates} updates");
    assert!((vsyncs - sim_vsyncs).abs() <= 0.1 * sim_vsyncs, "window {vsyncs} vs simulator {sim_vsyncs} refreshes");
    // A refresh the window missed because this machine was busy forces a double
    // update in any strategy that keeps time; the simulator's model never misses.
    // Compare the double updates that are left.
    let net = |stats: &serde_json::Value| number(stats, "double_updates") - number(stats, "skipped_renders");
    let (d_win, d_sim) = (net(&window), net(&sim));
    assert!(
        (d_win - d_sim).abs() <= 0.1 * vsyncs,
        "double updates beyond missed refreshes: window {d_win}, simulator {d_sim} in {vsyncs} refreshes"
    );
}

/// A window manager (openbox) on a display, killed on drop.
struct WindowManager(Child);

impl Drop for WindowManager {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts openbox on `display` and waits until it manages the screen (it
/// answers EWMH desktop queries, which nothing answers without a WM).
fn window_manager(display: &Display) -> Result<WindowManager, String> {
    let child = Command::new("openbox")
        .arg("--sm-disable")
        .env("DISPLAY", &display.name)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("openbox could not be started ({e}); apt-get install openbox"))?;
    let wm = WindowManager(child);
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if xdotool(display, &["get_desktop"]).is_some() {
            return Ok(wm);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err("openbox did not take over the screen within 10 s".to_owned())
}

/// `(x, y, width, height)` of `window`.
fn geometry(display: &Display, window: &str) -> Option<(i64, i64, u32, u32)> {
    let shell = xdotool(display, &["getwindowgeometry", "--shell", window])?;
    let field = |name: &str| {
        shell.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix('=')?.trim().parse::<i64>().ok())
    };
    Some((field("X")?, field("Y")?, u32::try_from(field("WIDTH")?).ok()?, u32::try_from(field("HEIGHT")?).ok()?))
}

/// Polls `probe` for up to 5 s; returns its last answer and whether it was ever true.
fn eventually<T>(mut probe: impl FnMut() -> T, ok: impl Fn(&T) -> bool) -> (T, bool) {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let value = probe();
        if ok(&value) || Instant::now() > until {
            let passed = ok(&value);
            return (value, passed);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn under_a_window_manager_f_fills_the_screen_and_a_minimised_window_comes_back() {
    let _serial = SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    for tool in ["xdotool", "openbox"] {
        if !have(tool) {
            skip(&format!("{tool} is not installed (apt-get install {tool})"));
            return;
        }
    }
    // Always a private Xvfb: a window manager must not be started on the user's display.
    let display = match start_xvfb() {
        Ok(display) => display,
        Err(reason) => return skip(&reason),
    };
    let _wm = match window_manager(&display) {
        Ok(wm) => wm,
        Err(reason) => return skip(&reason),
    };
    let mut app = App::start(&display, "wm", &["--exit-after", "12", "--sprites", "50", "--window-size", "640x360"]);
    let Some(window) = find_window(&display, &mut app) else {
        let status = app.wait(Duration::from_secs(20));
        if skipped_for_missing_adapter(&app, status) {
            return;
        }
        panic!("no window appeared (exit {status:?}); stderr:\n{}", app.stderr());
    };
    let windowed = geometry(&display, &window).expect("window geometry");
    assert_eq!((windowed.2, windowed.3), (640, 360), "--window-size");

    press(&display, &window, "f");
    let (full, filled) = eventually(|| geometry(&display, &window), |g| *g == Some((0, 0, SCREEN.0, SCREEN.1)));
    assert!(filled, "F should fill the {SCREEN:?} screen, window is {full:?}; stderr:\n{}", app.stderr());
    press(&display, &window, "f");
    let (back, restored) = eventually(|| geometry(&display, &window), |g| g.map(|g| (g.2, g.3)) == Some((640, 360)));
    assert!(restored, "F again should restore 640x360, window is {back:?}");
    // One monitor: M has nowhere to go and must leave the window where it is.
    press(&display, &window, "m");
    let after_m = geometry(&display, &window);
    assert_eq!(after_m.map(|g| (g.2, g.3)), Some((640, 360)), "M on a single monitor");

    // A real minimise: the window manager iconifies (unmaps) the window.
    let pid = app.child.id().to_string();
    let visible = || xdotool(&display, &["search", "--onlyvisible", "--pid", &pid]).is_some();
    xdotool(&display, &["windowminimize", "--sync", &window]).expect("xdotool windowminimize");
    let (shown, _) = eventually(visible, |shown| !*shown);
    assert!(!shown, "the window manager should have iconified the window");
    std::thread::sleep(Duration::from_millis(800));
    xdotool(&display, &["windowactivate", "--sync", &window]).expect("xdotool windowactivate");
    let (shown, _) = eventually(visible, |shown| *shown);
    assert!(shown, "activating the window should restore it; stderr:\n{}", app.stderr());
    press(&display, &window, "h");

    let status = app.wait(Duration::from_secs(25));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stats = app.stats();
    assert!(number(&stats, "frames") > 50.0, "too few frames presented: {stats}");
    let configures = stats["surface"]["configures"].as_u64().unwrap_or(0);
    assert!(configures >= 3, "fullscreen and back should each have reconfigured the surface: {stats}");
}
