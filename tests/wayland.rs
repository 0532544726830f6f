//! The window under X11 and under Wayland, and on more than one monitor.
//!
//! Xvfb alone shows winit one monitor. A Wayland session with two outputs is
//! Debian's weston nested in an Xvfb:
//!
//! ```text
//! Xvfb -displayfd 1 -screen 0 2048x600x24
//! XDG_RUNTIME_DIR=<0700 dir> DISPLAY=:N weston --backend=x11-backend.so \
//!     --output-count=2 --idle-time=0 --socket=<name>
//! timestep-lab …   with WAYLAND_DISPLAY=<name>, XDG_RUNTIME_DIR=<dir>, DISPLAY unset
//! ```
//!
//! winit lists weston's outputs as two 60 Hz monitors (`screen0`, `screen1`).
//! `--idle-time=0` matters: weston's desktop shell otherwise blanks its outputs
//! after 300 s and sends no more frame callbacks, and a client then draws one frame.
//! Weston renders with GL (Mesa's llvmpipe), not `--use-pixman`: weston 10's
//! pixman renderer keeps a pointer into a client's shm pool, and when the client
//! grows the pool (winit's decorations do, on the first focus change) and weston
//! repaints before the client's next commit, weston crashes (SIGSEGV in
//! `pixman_image_composite32`: 8 of 23 sessions under load; 0 of 12 with GL).
//! The common smoke test runs under both X11 and Wayland. Whether each can run
//! here is probed once per kind (tools installed, the session comes up, the
//! binary presents frames in it); if not, the runner reports the test as
//! ignored with the reason, or failed under `TIMESTEP_LAB_REQUIRE_GPU`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use common::{AppRun as App, Missing};
use libtest_mimic::{Completion, Trial};

const BIN: &str = env!("CARGO_BIN_EXE_timestep-lab");

/// One window test at a time: they measure timing on a shared software adapter.
static SERIAL: Mutex<()> = Mutex::new(());

/// Which windowing system a test runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    X11,
    Wayland,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::X11 => "X11",
            Kind::Wayland => "Wayland",
        }
    }

    fn tools(self) -> &'static [&'static str] {
        match self {
            Kind::X11 => &["Xvfb"],
            Kind::Wayland => &["Xvfb", "weston"],
        }
    }
}

/// A child process killed on drop.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A private display session: an Xvfb, and for Wayland a two-output weston in it.
struct DisplaySession {
    kind: Kind,
    x_display: String,
    /// `(socket name, runtime dir)` of the weston session.
    wayland: Option<(String, PathBuf)>,
    // Dropped in this order: weston before the Xvfb it draws into.
    _weston: Option<Process>,
    _xvfb: common::Xvfb,
}

impl Drop for DisplaySession {
    fn drop(&mut self) {
        if let Some((_, runtime)) = &self.wayland {
            // weston's socket and log; the compositor itself is killed right after.
            let _ = std::fs::remove_dir_all(runtime);
        }
    }
}

/// Size of the Xvfb screen: room for weston's two 1024x600 outputs.
const SCREEN: &str = "2048x600x24";

/// Starts weston with two outputs on X display `x_display`; waits for its socket.
fn start_weston(x_display: &str) -> Result<(Process, String, PathBuf), String> {
    // A socket's path must fit in 108 bytes: short names, one directory per session.
    static SESSIONS: AtomicUsize = AtomicUsize::new(0);
    let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
    let runtime = std::env::temp_dir().join(format!("tl-xdg-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&runtime);
    std::fs::create_dir_all(&runtime).map_err(|e| format!("cannot create {}: {e}", runtime.display()))?;
    set_private(&runtime)?;
    let socket = "wayland-tl".to_owned();
    let log = std::fs::File::create(runtime.join("weston.log")).map_err(|e| format!("weston log: {e}"))?;
    let child = Command::new("weston")
        .args(["--backend=x11-backend.so", "--output-count=2", "--idle-time=0"])
        .arg(format!("--socket={socket}"))
        .env("DISPLAY", x_display)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| format!("weston could not be started ({e}); apt-get install weston"))?;
    let mut process = Process(child);
    let until = Instant::now() + Duration::from_secs(15);
    while Instant::now() < until {
        if let Ok(Some(status)) = process.0.try_wait() {
            let log = std::fs::read_to_string(runtime.join("weston.log")).unwrap_or_default();
            return Err(format!(
                "weston exited with {status} (its GL renderer needs Mesa's EGL: apt-get install libegl-mesa0 \
                 libgl1-mesa-dri): {log}"
            ));
        }
        if runtime.join(&socket).exists() {
            // The socket is bound before the shell client is up; give it a moment.
            std::thread::sleep(Duration::from_millis(500));
            return Ok((process, socket, runtime));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err("weston did not open its socket within 15 s".to_owned())
}

/// `XDG_RUNTIME_DIR` must be private to its user (weston refuses it otherwise).
fn set_private(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("cannot make {} private: {e}", dir.display()))
}

impl DisplaySession {
    fn start(kind: Kind) -> Result<DisplaySession, String> {
        let xvfb = common::start_xvfb(SCREEN).map_err(|m| m.detail)?;
        let x_display = xvfb.name.clone();
        let (weston, wayland) = match kind {
            Kind::X11 => (None, None),
            Kind::Wayland => {
                let (weston, socket, runtime) = start_weston(&x_display)?;
                (Some(weston), Some((socket, runtime)))
            }
        };
        Ok(DisplaySession { kind, x_display, wayland, _weston: weston, _xvfb: xvfb })
    }
}

fn have(tool: &str) -> bool {
    // Xvfb and weston both answer `--help`; a missing binary fails to spawn.
    Command::new(tool).arg("--help").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// Starts the binary with `args` in `session`, its stats and stderr in a folder of its own.
fn start_app(session: &DisplaySession, name: &str, args: &[&str]) -> App {
    let dir = std::env::temp_dir().join(format!("timestep-lab-wayland-{name}-{}", std::process::id()));
    let mut command = Command::new(BIN);
    command.args(args);
    match &session.wayland {
        Some((socket, runtime)) => {
            command.env_remove("DISPLAY").env("WAYLAND_DISPLAY", socket).env("XDG_RUNTIME_DIR", runtime)
        }
        None => command.env("DISPLAY", &session.x_display).env_remove("WAYLAND_DISPLAY"),
    };
    App::spawn(command, dir)
}

/// Runs `app` to its `--exit-after` and returns the stats and stderr, failing on a bad exit.
fn finish(mut app: App) -> (serde_json::Value, String) {
    let status = app.wait(Duration::from_secs(60));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    (app.stats(), app.stderr())
}

/// Whether the binary presents frames under `kind` here; probed once per kind.
fn probe(kind: Kind) -> Result<(), &'static Missing> {
    static X11: OnceLock<Result<(), Missing>> = OnceLock::new();
    static WAYLAND: OnceLock<Result<(), Missing>> = OnceLock::new();
    let cell = if kind == Kind::X11 { &X11 } else { &WAYLAND };
    cell.get_or_init(|| {
        let session = DisplaySession::start(kind)
            .map_err(|reason| Missing::new(format!("no {} session", kind.name()), reason))?;
        common::gpu_probe().map_err(Missing::clone)?;
        let app = start_app(&session, "probe", &["--exit-after", "1", "--window-size", "160x120", "--no-overlay"]);
        app.presented_frames()
            .map_err(|how| Missing::new(format!("timestep-lab cannot render a window under {} here", kind.name()), how))
    })
    .as_ref()
    .map(|_| ())
}

/// A test in a fresh session of `kind`: ignored (failed with
/// `TIMESTEP_LAB_REQUIRE_GPU`) where a tool is missing or the probe fails.
fn session_test(name: &'static str, kind: Kind, test: fn(&DisplaySession)) -> Trial {
    Trial::ignorable_test(name, move || {
        if let Some(tool) = kind.tools().iter().find(|tool| !have(tool)) {
            let package = if *tool == "Xvfb" { "xvfb" } else { tool };
            let missing = Missing::new(format!("{tool} is not installed"), format!("apt-get install {package}"));
            return common::unavailable(&missing);
        }
        if let Err(reason) = probe(kind) {
            return common::unavailable(reason);
        }
        let _serial = SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let session = DisplaySession::start(kind)
            .unwrap_or_else(|reason| panic!("no {} session although the probe started one: {reason}", kind.name()));
        test(&session);
        Ok(Completion::Completed)
    })
}

fn number(stats: &serde_json::Value, field: &str) -> f64 {
    stats[field].as_f64().unwrap_or_else(|| panic!("stats field {field} is not a number: {stats}"))
}

fn text<'a>(stats: &'a serde_json::Value, field: &str) -> &'a str {
    stats[field].as_str().unwrap_or_else(|| panic!("stats field {field} is not text: {stats}"))
}

/// The common smoke test: a short Fifo run presents frames, names the monitor
/// it is on (Wayland says so only after the surface enters an output) and,
/// where the monitor reports a refresh, gives it and a vsync verdict that is
/// not "not in effect" (weston paces Fifo by its frame callbacks).
fn a_short_run_presents_frames_and_names_its_monitor(session: &DisplaySession) {
    let app = start_app(session, "smoke", &["--exit-after", "4", "--window-size", "320x200", "--no-overlay"]);
    let (stats, stderr) = finish(app);
    eprintln!(
        "{}: {:.1} fps, monitor {}, reported {:?} Hz, measured {:?} Hz, verdict: {}",
        session.kind.name(),
        number(&stats, "fps"),
        text(&stats, "monitor"),
        stats["reported_refresh_hz"].as_f64(),
        stats["measured_refresh_hz"].as_f64(),
        text(&stats, "vsync_verdict")
    );
    assert!(number(&stats, "frames") > 20.0, "too few frames: {stats}");
    let monitor = text(&stats, "monitor");
    assert!(!monitor.contains("unknown"), "the monitor must be named: {stats}\n{stderr}");
    match session.kind {
        // Xvfb lists one screen and reports no refresh rate: shown as such, never guessed.
        Kind::X11 => assert!(stats["reported_refresh_hz"].is_null(), "Xvfb reports no refresh: {stats}"),
        Kind::Wayland => {
            assert!(monitor.starts_with("screen0 ") || monitor.starts_with("screen1 "), "weston's outputs: {stats}");
            assert!(monitor.ends_with(" of 2)"), "two outputs are listed: {stats}");
            assert_eq!(stats["reported_refresh_hz"].as_f64(), Some(60.0), "weston's outputs run at 60 Hz: {stats}");
            assert!(stderr.contains("window is on screen"), "the compositor told the output: {stderr}");
            let verdict = text(&stats, "vsync_verdict");
            assert!(
                verdict.contains("paced by the compositor") || verdict.contains("vsync in effect"),
                "Fifo under weston is paced by the compositor, not '{verdict}': {stats}"
            );
            assert_ne!(stats["vsync"].as_bool(), Some(false), "{stats}");
        }
    }
}

/// `--monitor N --fullscreen` under Wayland: the stats name output N and its 60 Hz.
fn fullscreen_on(session: &DisplaySession, monitor: usize) {
    let n = monitor.to_string();
    let name = format!("fullscreen{n}");
    let args = ["--exit-after", "4", "--no-overlay", "--monitor", &n, "--fullscreen"];
    let (stats, stderr) = finish(start_app(session, &name, &args));
    eprintln!(
        "--monitor {n} --fullscreen: {:.1} fps on {}, reported {:?} Hz, verdict: {}",
        number(&stats, "fps"),
        text(&stats, "monitor"),
        stats["reported_refresh_hz"].as_f64(),
        text(&stats, "vsync_verdict")
    );
    let output = format!("screen{}", monitor - 1);
    assert_eq!(text(&stats, "monitor"), format!("{output} 1024x600 ({monitor} of 2)"), "{stats}");
    assert_eq!(stats["reported_refresh_hz"].as_f64(), Some(60.0), "{stats}");
    assert!(
        stderr.contains(&format!("window is on {output} ")),
        "the compositor must have put the surface on {output}, not only been asked to: {stderr}"
    );
    assert!(number(&stats, "frames") > 20.0, "too few frames: {stats}");
}

fn fullscreen_on_wayland_monitor_2_names_it_and_its_reported_60_hz(session: &DisplaySession) {
    fullscreen_on(session, 2);
}

fn fullscreen_on_wayland_monitor_1_names_it_and_its_reported_60_hz(session: &DisplaySession) {
    fullscreen_on(session, 1);
}

fn each_monitor_gets_its_own_emulated_refresh(session: &DisplaySession) {
    let args =
        ["--exit-after", "4", "--no-overlay", "--monitor", "2", "--fullscreen", "--emulate-refresh", "1=59.94,2=50"];
    let (stats, _) = finish(start_app(session, "emulate-per-monitor", &args));
    assert_eq!(stats["emulated_refresh_hz"].as_f64(), Some(50.0), "monitor 2 is emulated at 50 Hz: {stats}");
    assert_eq!(stats["refresh_hz"].as_f64(), Some(50.0), "refreshes are counted on the 50 Hz grid: {stats}");
    let measured = number(&stats, "measured_refresh_hz");
    let periods = 50.0 / measured;
    assert!(
        periods >= 0.99 && (periods - periods.round()).abs() < 0.01,
        "measured {measured} Hz is not on the 50 Hz grid: {stats}"
    );
}

fn a_rate_for_a_monitor_that_does_not_exist_is_a_one_line_usage_error(session: &DisplaySession) {
    let mut app = start_app(session, "no-monitor-3", &["--exit-after", "4", "--emulate-refresh", "1=60,3=144"]);
    let status = app.wait(Duration::from_secs(30));
    assert_eq!(status.code(), Some(2), "a usage error exits with 2; stderr:\n{}", app.stderr());
    let stderr = app.stderr();
    let line = stderr.lines().find(|l| l.starts_with("timestep-lab: ")).unwrap_or_default();
    assert!(
        line.starts_with("timestep-lab: --emulate-refresh: there is no monitor 3 (1 found"),
        "one line naming the flag: {stderr}"
    );
}

fn main() {
    common::run(vec![
        session_test(
            "under_x11_a_short_run_presents_frames_and_names_its_monitor",
            Kind::X11,
            a_short_run_presents_frames_and_names_its_monitor,
        ),
        session_test(
            "under_wayland_a_short_run_presents_frames_and_names_its_monitor",
            Kind::Wayland,
            a_short_run_presents_frames_and_names_its_monitor,
        ),
        session_test(
            "fullscreen_on_wayland_monitor_2_names_it_and_its_reported_60_hz",
            Kind::Wayland,
            fullscreen_on_wayland_monitor_2_names_it_and_its_reported_60_hz,
        ),
        session_test(
            "fullscreen_on_wayland_monitor_1_names_it_and_its_reported_60_hz",
            Kind::Wayland,
            fullscreen_on_wayland_monitor_1_names_it_and_its_reported_60_hz,
        ),
        session_test(
            "each_monitor_gets_its_own_emulated_refresh",
            Kind::Wayland,
            each_monitor_gets_its_own_emulated_refresh,
        ),
        session_test(
            "a_rate_for_a_monitor_that_does_not_exist_is_a_one_line_usage_error",
            Kind::X11,
            a_rate_for_a_monitor_that_does_not_exist_is_a_one_line_usage_error,
        ),
    ]);
}
