//! The real window under Xvfb: the binary is started, driven with xdotool and
//! judged by what it writes (`--stats-json`, `--screenshot`, stderr) and its exit status.
//!
//! Without `DISPLAY` each test starts its own Xvfb (`-displayfd` picks a free
//! display number) and kills it afterwards. Whether windows can be tested here
//! is probed once, by capability: the tools a test needs are installed, a
//! display comes up, a GPU adapter can be created, and the binary opens a
//! window on that display and presents frames. If not, the runner reports the
//! test as ignored with the reason, or as failed when `TIMESTEP_LAB_REQUIRE_GPU`
//! is set (CI); see `tests/support/harness.rs`. The tests run one at a time: they
//! measure timing, and two windows rendering on a software adapter would
//! steal each other's CPU.

use crate::harness;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::harness::{AppRun as App, Missing, number};
use libtest_mimic::{Completion, Trial};

const BIN: &str = env!("CARGO_BIN_EXE_timestep-lab");

/// An X display: the caller's `DISPLAY`, or an Xvfb we started (killed on drop).
struct Display {
    name: String,
    _xvfb: Option<harness::Xvfb>,
}

/// Size of the screen of the Xvfb the tests start.
const SCREEN: (u32, u32) = (1280, 800);

fn display() -> Result<Display, String> {
    if let Some(name) = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()) {
        return Ok(Display { name, _xvfb: None });
    }
    start_xvfb()
}

/// A fresh Xvfb of [`SCREEN`] size, whatever `DISPLAY` says.
fn start_xvfb() -> Result<Display, String> {
    let xvfb = harness::start_xvfb(&format!("{}x{}x24", SCREEN.0, SCREEN.1)).map_err(|m| m.detail)?;
    Ok(Display { name: xvfb.name.clone(), _xvfb: Some(xvfb) })
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// Whether the binary can open a window and present frames here; probed once.
///
/// # Errors
/// Why not: no display, no adapter, or the binary could not render (with the
/// last line it wrote; its whole stderr goes to ours).
fn window_probe() -> Result<(), &'static Missing> {
    static PROBE: OnceLock<Result<(), Missing>> = OnceLock::new();
    let probe = PROBE.get_or_init(|| {
        let display = display().map_err(|reason| Missing::new("no X display", reason))?;
        harness::gpu_probe().map_err(Missing::clone)?;
        let app = start_app(&display, "probe", &["--exit-after", "1", "--window-size", "160x120", "--no-overlay"]);
        app.presented_frames().map_err(|how| {
            Missing::new("timestep-lab cannot render a window here", format!("on display {} {how}", display.name))
        })
    });
    probe.as_ref().map(|_| ())
}

/// A window test needing the `tools` named: ignored (failed with
/// `TIMESTEP_LAB_REQUIRE_GPU`) where one is missing or the probe fails.
fn window_test(name: &'static str, tools: &'static [&'static str], test: fn()) -> Trial {
    Trial::ignorable_test(harness::name(module_path!(), name), move || {
        if let Some(tool) = tools.iter().find(|tool| !have(tool)) {
            let missing = Missing::new(format!("{tool} is not installed"), format!("apt-get install {tool}"));
            return harness::unavailable(&missing);
        }
        if let Err(reason) = window_probe() {
            return harness::unavailable(reason);
        }
        test();
        Ok(Completion::Completed)
    })
}

/// The folder a run named `name` writes into (emptied when it starts).
fn app_dir(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("timestep-lab-window-{name}-{}", std::process::id()))
}

/// Starts the binary with `args` on `display`, its stats and stderr in [`app_dir`].
fn start_app(display: &Display, name: &str, args: &[&str]) -> App {
    let mut command = Command::new(BIN);
    command.args(args).env("DISPLAY", &display.name).env_remove("WAYLAND_DISPLAY");
    App::spawn(command, app_dir(name))
}

fn xdotool(display: &Display, args: &[&str]) -> Option<String> {
    let out = Command::new("xdotool").args(args).env("DISPLAY", &display.name).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The window of `pid`, waiting up to 15 s for it to be mapped; focused at once.
///
/// Focused now, long before any key: winit reports a key that is down when its
/// window gains focus as an extra (synthetic) press, and the app acts on it. A
/// focus change racing the key press toggled pause twice (Space, then Space
/// again: 0 stills; 5 of 8 runs under load).
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
            focus(display, &id);
            return Some(id);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// Key presses go through XTEST to the focused window (winit ignores
/// synthetic `XSendEvent` keys), so focus it and park the pointer on it.
/// Focusing the window that has the focus already changes nothing.
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

/// A normal run logs no `ERROR` line (a spurious one at close was a bug).
fn assert_no_error_lines(stderr: &str) {
    let errors: Vec<&str> = stderr.lines().filter(|line| line.contains(" ERROR ")).collect();
    assert!(errors.is_empty(), "a normal run logged errors:\n{}", errors.join("\n"));
}

/// The serial lock and a display. The probe has shown that a display comes up,
/// so failing to get one now is a failure.
fn setup() -> (std::sync::MutexGuard<'static, ()>, Display) {
    let guard = harness::one_window_at_a_time();
    let display = display().unwrap_or_else(|reason| panic!("no display although the probe found one: {reason}"));
    (guard, display)
}

fn the_window_survives_every_key_resize_and_minimise_and_reports_all_strategies() {
    let (_serial, display) = setup();
    let shot_dir = std::env::temp_dir().join(format!("timestep-lab-shot-{}", std::process::id()));
    std::fs::create_dir_all(&shot_dir).expect("temp dir");
    let shot = shot_dir.join("shot.png");
    // Esc ends the run; --exit-after only catches a window that ignores it.
    let mut app = start_app(
        &display,
        "keys",
        &[
            "--exit-after",
            "90",
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
        panic!("no window appeared (exit {status:?}); stderr:\n{}", app.stderr());
    };
    // Tab must not give the overlay the keyboard: every strategy key after it still counts.
    press(&display, &window, "Tab");
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
    // The overlay is back: after a Tab, the first Esc must still quit.
    press(&display, &window, "Tab");
    press(&display, &window, "Escape");

    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stderr = app.stderr();
    assert!(!stderr.contains("--exit-after reached"), "Esc after Tab did not end the run; stderr:\n{stderr}");
    assert_no_error_lines(&stderr);
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
        stats["present_cadence_hz"].as_f64(),
        stats["present_mode_actual"],
        stats["vsync_verdict"]
    );
    let _ = std::fs::remove_dir_all(&shot_dir);
}

fn emulated_60_hz_with_catch_up_runs_one_update_per_refresh() {
    let (_serial, display) = setup();
    let mut app = start_app(
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
    let measured = stats["present_cadence_hz"].as_f64().unwrap_or(0.0);
    let periods = 60.0 / measured;
    assert!(
        periods >= 0.99 && (periods - periods.round()).abs() < 0.01,
        "measured refresh {measured} Hz is not on a 60 Hz grid"
    );
    // Three warm-up pictures (`WARM_UP_FRAMES` in `app::demo`) are drawn
    // before the session starts: the surface shows them, the run does not count them.
    let acquired = stats["surface"]["frames"].as_f64().unwrap_or_else(|| panic!("no surface.frames: {stats}"));
    assert_eq!(
        acquired - number(&stats, "frames"),
        3.0,
        "warm-up frames: the surface's count minus the run's ({stats})"
    );
}

/// An emulated VRR gate (`--emulate-refresh vrr:48-144`) shows each frame when
/// it is ready, no sooner than 1/144 s after the last: the verdict says VRR on
/// the gate, the run reports the range and counts on no grid.
fn an_emulated_vrr_gate_shows_frames_when_ready_and_the_verdict_says_vrr() {
    let (_serial, display) = setup();
    let mut app = start_app(
        &display,
        "emuvrr",
        &[
            "--exit-after",
            "5",
            "--window-size",
            "480x270",
            "--no-overlay",
            "--emulate-refresh",
            "vrr:48-144",
            "--strategy",
            "interpolated",
        ],
    );
    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stats = app.stats();
    let verdict = stats["vsync_verdict"].as_str().unwrap_or_default();
    eprintln!("emulated vrr:48-144, interpolated: {verdict}; {stats}");
    assert!(
        verdict.starts_with("emulated vrr:48-144 gate over ") && verdict.contains("VRR in effect"),
        "the verdict names the gate: {verdict}"
    );
    assert_eq!((stats["vrr_min_hz"].as_f64(), stats["vrr_max_hz"].as_f64()), (Some(48.0), Some(144.0)), "{stats}");
    assert!(stats["refresh_hz"].is_null(), "a VRR gate has no grid to count on: {stats}");
    // No two frames closer than 1/144 s = 6.944 ms: the 0.25 ms bins below 6.75 ms are empty.
    let bins = stats["present_interval_histogram"]["counts"].as_array().expect("a histogram");
    let early: u64 = bins.iter().take(27).filter_map(serde_json::Value::as_u64).sum();
    assert_eq!(early, 0, "intervals under 6.75 ms through a 144 Hz ceiling: {stats}");
    assert!(number(&stats, "frames") > 100.0, "frames ran: {stats}");
}

/// Runs `simulate` for the same settings and returns its JSON report.
///
/// # Panics
/// If `simulate` fails or prints no JSON: the comparison is the test.
fn simulate_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(BIN).arg("simulate").args(args).output().expect("run simulate");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "`simulate {}` failed ({}): {}", args.join(" "), out.status, stderr.trim());
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("`simulate {}` printed no JSON ({e})", args.join(" ")))
}

/// Share of refreshes a window may miss and still have its double updates
/// compared with the simulator's (which never misses one).
const MAX_MISSED_SHARE: f64 = 0.02;

fn emulated_59_94_hz_fuzzy_counts_agree_with_the_simulator() {
    let (_serial, display) = setup();
    let mut app = start_app(
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
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let window = app.stats();
    let vsyncs = number(&window, "vsyncs");
    let updates = number(&window, "total_updates");
    assert!(vsyncs > 300.0, "too few refreshes: {window}");
    let seconds = format!("{}", number(&window, "system_time_s"));
    let sim = simulate_json(&[
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
    ]);
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
    // Compare the double updates that are left, on a run that missed few: at
    // load 9 on 2 cores a missed refresh also moves fuzzy's vsync lock (window
    // -74 and +51 against the simulator), which no count of the window's own undoes.
    let missed = number(&window, "skipped_renders");
    if missed > MAX_MISSED_SHARE * vsyncs {
        eprintln!("the window missed {missed} of {vsyncs} refreshes (a busy machine): double updates not compared");
        return;
    }
    let net = |stats: &serde_json::Value| number(stats, "double_updates") - number(stats, "skipped_renders");
    let (d_win, d_sim) = (net(&window), net(&sim));
    assert!(
        (d_win - d_sim).abs() <= 0.1 * vsyncs,
        "double updates beyond missed refreshes: window {d_win}, simulator {d_sim} in {vsyncs} refreshes"
    );
}

/// The strategies in key order, as `--lanes all` stacks them.
const ALL_STRATEGIES: [&str; 10] = [
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
];

/// Lane mode is honest: ten lanes fed the same real frames on an emulated
/// 59.94 Hz grid run, lane by lane, the updates the simulator runs when it
/// replays those frame starts (`--frame-log` into `simulate --trace`).
///
/// 20 s holds a whole beat of a 60 Hz tick against 59.94 Hz (1001/60 s): the
/// ticks gain one on the frames, so catch-up must run a double update
/// somewhere and its judder is hitches-driven, while interpolation's is not.
fn lanes_all_at_59_94_hz_update_as_the_simulator_replaying_their_frames() {
    let (_serial, display) = setup();
    let dir = std::env::temp_dir().join(format!("timestep-lab-window-lane-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let frame_log = dir.join("frames.csv");
    let frame_log_arg = frame_log.to_str().expect("a UTF-8 temp dir");
    let mut app = start_app(
        &display,
        "lanes",
        &[
            "--exit-after",
            "20",
            "--window-size",
            "480x270",
            "--no-overlay",
            "--lanes",
            "all",
            "--emulate-refresh",
            "59.94",
            "--frame-log",
            frame_log_arg,
        ],
    );
    let status = app.wait(Duration::from_secs(60));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    assert_no_error_lines(&app.stderr());
    let stats = app.stats();
    let lanes = stats["lanes"].as_array().unwrap_or_else(|| panic!("no lanes in the stats: {stats}"));
    let names: Vec<&str> = lanes.iter().map(|lane| lane["strategy"].as_str().unwrap_or("?")).collect();
    assert_eq!(names, ALL_STRATEGIES, "one lane per strategy, in key order");

    let log = std::fs::read_to_string(&frame_log).unwrap_or_else(|e| panic!("no frame log ({e})"));
    let rows = log.lines().count() - 1;
    let running: Vec<&str> = ALL_STRATEGIES.into_iter().filter(|id| !matches!(*id, "fixed-fps" | "paced")).collect();
    let sim = simulate_json(&[
        "--trace",
        frame_log_arg,
        "--refresh",
        "59.94",
        "--strategy",
        &running.join(","),
        "--format",
        "json",
    ]);
    let sim = sim.as_array().unwrap_or_else(|| panic!("simulate printed no array: {sim}"));
    for (lane, id) in lanes.iter().zip(ALL_STRATEGIES) {
        assert_eq!(lane["model"].as_str(), Some("lanes"), "{id}: {lane}");
        let updates = number(lane, "total_updates");
        if matches!(id, "fixed-fps" | "paced") {
            assert_eq!(lane["needs_loop"].as_bool(), Some(true), "{id} decides when frames happen: {lane}");
            assert_eq!(updates, 0.0, "{id}: a lane that needs the loop does not run: {lane}");
            continue;
        }
        assert_eq!(lane["needs_loop"].as_bool(), Some(false), "{id}: {lane}");
        assert_eq!(number(lane, "frames"), rows as f64, "{id}: a frame-log row per lane frame");
        let replay = sim
            .iter()
            .find(|run| run["strategy"].as_str() == Some(id))
            .unwrap_or_else(|| panic!("simulate ran no {id}: {sim:?}"));
        assert_eq!(
            updates,
            number(replay, "total_updates"),
            "{id}: the lane's updates against the simulator's replay of the same {rows} frame starts\n  lane {lane}\n  simulator {replay}"
        );
    }
    let lane = |id: &str| &lanes[ALL_STRATEGIES.iter().position(|s| *s == id).expect("a known id")];
    let (catch_up, interpolated) = (lane("catch-up"), lane("interpolated"));
    assert!(number(catch_up, "double_updates") > 0.0, "a 20 s beat forces catch-up to double up: {catch_up}");
    assert!(number(catch_up, "hitches") > 0.0, "and its double is a hitch: {catch_up}");
    for lane in lanes.iter().filter(|lane| lane["needs_loop"] == false) {
        // Per minute of the lane's own displayed span (the refreshes it covered,
        // `system_time_s`, within a refresh of the span the rate divides by):
        // another lane's count, another span or another unit is far off 1 %.
        let (hitches, minutes) = (number(lane, "hitches"), number(lane, "system_time_s") / 60.0);
        assert!(minutes > 0.25, "a lane covers the 20 s run: {lane}");
        let per_min = number(lane, "hitches_per_min");
        assert!(
            (per_min - hitches / minutes).abs() <= 0.01 * hitches / minutes,
            "{hitches} hitches in {minutes:.4} min are {} per minute, the lane says {per_min}: {lane}",
            hitches / minutes
        );
    }
    let (j_catch_up, j_interpolated) = (number(catch_up, "judder_ms"), number(interpolated, "judder_ms"));
    eprintln!(
        "lanes at 59.94 Hz over {rows} frames: judder catch-up {j_catch_up:.3} ms, interpolated {j_interpolated:.3} ms"
    );
    assert!(
        j_interpolated < j_catch_up,
        "interpolated's judder {j_interpolated} ms is not below catch-up's {j_catch_up} ms\n  {interpolated}\n  {catch_up}"
    );
    let _ = std::fs::remove_dir_all(&dir);
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

fn under_a_window_manager_f_fills_the_screen_and_a_minimised_window_comes_back() {
    let _serial = harness::one_window_at_a_time();
    // Always a private Xvfb: a window manager must not be started on the user's display.
    let display = start_xvfb().unwrap_or_else(|reason| panic!("no Xvfb although the probe started one: {reason}"));
    let _wm = window_manager(&display).unwrap_or_else(|reason| panic!("{reason}"));
    // Alt+F4 ends the run; --exit-after only catches a window that ignores it.
    let mut app = start_app(&display, "wm", &["--exit-after", "90", "--sprites", "50", "--window-size", "640x360"]);
    let Some(window) = find_window(&display, &mut app) else {
        let status = app.wait(Duration::from_secs(20));
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
    // Enough frames for the count below even on a loaded machine, then close
    // the window as a user does: the window manager asks it to close.
    wait_for_frames(&mut app, 60.0);
    press(&display, &window, "alt+F4");

    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stderr = app.stderr();
    assert!(!stderr.contains("--exit-after reached"), "Alt+F4 did not close the window; stderr:\n{stderr}");
    assert_no_error_lines(&stderr);
    let stats = app.stats();
    assert!(number(&stats, "frames") > 50.0, "too few frames presented: {stats}");
    let configures = stats["surface"]["configures"].as_u64().unwrap_or(0);
    assert!(configures >= 3, "fullscreen and back should each have reconfigured the surface: {stats}");
}

fn a_window_destroyed_under_the_app_ends_the_run_cleanly_without_an_error() {
    let (_serial, display) = setup();
    let mut app = start_app(&display, "destroyed", &["--exit-after", "90", "--window-size", "480x270"]);
    let Some(window) = find_window(&display, &mut app) else {
        let status = app.wait(Duration::from_secs(20));
        panic!("no window appeared (exit {status:?}); stderr:\n{}", app.stderr());
    };
    // Let it render for a while, then destroy the X window as a dying session would.
    wait_for_frames(&mut app, 20.0);
    xdotool(&display, &["windowclose", &window]).expect("xdotool windowclose");

    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stderr = app.stderr();
    assert!(!stderr.contains("--exit-after reached"), "the run went on without its window; stderr:\n{stderr}");
    assert_no_error_lines(&stderr);
    assert!(number(&app.stats(), "frames") > 10.0, "it rendered before the window went: {}", app.stats());
}

/// Sends `signal` (`TERM`, `INT`) to the app, as a terminal or a service manager would.
fn signal(app: &App, signal: &str) {
    let pid = app.child.id().to_string();
    let sent = Command::new("kill").args(["-s", signal, &pid]).status().expect("run kill");
    assert!(sent.success(), "kill -s {signal} {pid} failed");
}

/// The window of a freshly started app, or a failure with its stderr.
fn window_of(display: &Display, app: &mut App) -> String {
    find_window(display, app).unwrap_or_else(|| {
        let status = app.wait(Duration::from_secs(20));
        panic!("no window appeared (exit {status:?}); stderr:\n{}", app.stderr())
    })
}

/// CPU time the process has used (user + system), from `/proc/PID/stat`.
fn cpu_time(app: &App) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", app.child.id())).expect("read /proc/PID/stat");
    // The command name in parentheses may hold spaces; the fields after it are numbers.
    let fields: Vec<&str> = stat.rsplit_once(')').expect("stat has a command name").1.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of stat(5), 12 and 13 after the name.
    let ticks: u64 = fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    let out = Command::new("getconf").arg("CLK_TCK").output().expect("getconf CLK_TCK");
    let per_second: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().expect("CLK_TCK is a number");
    Duration::from_millis(ticks * 1000 / per_second)
}

/// The periodic stats lines the app has logged so far: one a second while it renders,
/// written after a frame, so none while it draws nothing.
fn stats_lines(app: &App) -> usize {
    app.stderr().lines().filter(|line| line.contains(" fps, ") && line.contains(" ups, ")).count()
}

/// Waits until the app's stats lines add up to `frames` frames (each gives the
/// last second's fps; the first may say 0), so a busy machine gets more time
/// rather than a test fewer frames than it asserts. A fixed 2 s gave 8 frames
/// under load where more than 10 were asserted.
///
/// # Panics
/// When the app exits first, or after 30 s.
fn wait_for_frames(app: &mut App, frames: f64) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let logged: f64 = app
            .stderr()
            .lines()
            .filter_map(|line| line.split_once(" fps, ")?.0.rsplit(' ').next()?.parse::<f64>().ok())
            .sum();
        if logged >= frames {
            return;
        }
        if let Ok(Some(status)) = app.child.try_wait() {
            panic!("timestep-lab ended ({status}) before it logged {frames} frames; stderr:\n{}", app.stderr());
        }
        assert!(Instant::now() < until, "{logged} of {frames} frames logged in 30 s; stderr:\n{}", app.stderr());
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn sigterm_and_sigint_end_the_run_as_esc_does_writing_stats_and_screenshot_with_exit_0() {
    let (_serial, display) = setup();
    for sig in ["TERM", "INT"] {
        let name = format!("signal-{sig}");
        let shot = app_dir(&name).join("shot.png");
        let mut app = start_app(
            &display,
            &name,
            &["--exit-after", "60", "--window-size", "320x240", "--screenshot", shot.to_str().expect("utf-8 path")],
        );
        window_of(&display, &mut app);
        wait_for_frames(&mut app, 1.0);
        signal(&app, sig);

        let status = app.wait(Duration::from_secs(20));
        let stderr = app.stderr();
        assert_eq!(status.code(), Some(0), "SIG{sig}: exit status {status:?}; stderr:\n{stderr}");
        assert!(stderr.contains("terminated by a signal"), "SIG{sig} was not handled as Esc; stderr:\n{stderr}");
        assert!(!stderr.contains("--exit-after reached"), "SIG{sig} did not end the run; stderr:\n{stderr}");
        assert_no_error_lines(&stderr);
        let stats = app.stats();
        assert!(number(&stats, "frames") > 0.0, "SIG{sig}: stats.json has no frames: {stats}");
        let image = image::open(&shot).unwrap_or_else(|e| panic!("SIG{sig}: no screenshot at {}: {e}", shot.display()));
        assert_eq!((image.width(), image.height()), (320, 240), "SIG{sig}: the screenshot has the window's size");
        let spread = luminance_spread(&shot);
        assert!(spread > 5.0, "SIG{sig}: screenshot looks blank (luminance spread {spread:.2})");
        eprintln!("SIG{sig}: exit 0 after {} frames, screenshot written", number(&stats, "frames"));
    }
}

/// Runs the demo, pauses it with Space, keeps it paused for `paused` and ends it with SIGTERM;
/// returns the still pictures presented per second while paused, and the stats.
fn paused_present_rate(display: &Display, name: &str, extra: &[&str], paused: Duration) -> (f64, serde_json::Value) {
    let mut args = vec!["--exit-after", "60", "--window-size", "160x120", "--no-overlay", "--strategy", "variable"];
    args.extend_from_slice(extra);
    let mut app = start_app(display, name, &args);
    let window = window_of(display, &mut app);
    std::thread::sleep(Duration::from_millis(1000));
    let paused_at = Instant::now();
    press(display, &window, "space");
    std::thread::sleep(paused.saturating_sub(paused_at.elapsed()));
    let elapsed = paused_at.elapsed();
    signal(&app, "TERM");
    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    let stats = app.stats();
    // The session counts the frames it ran; the surface counts every picture, stills included.
    let acquired = stats["surface"]["frames"].as_f64().unwrap_or_else(|| panic!("no surface.frames: {stats}"));
    let stills = acquired - number(&stats, "frames");
    (stills / elapsed.as_secs_f64(), stats)
}

fn a_paused_demo_presents_once_per_refresh_not_as_fast_as_it_can() {
    let (_serial, display) = setup();
    let paused = Duration::from_secs(4);
    let (rate, stats) = paused_present_rate(&display, "paused", &[], paused);
    // Xvfb reports no refresh rate, and then the paused demo assumes 60 Hz.
    let refresh = stats["reported_refresh_hz"].as_f64().unwrap_or(60.0);
    eprintln!("paused, refresh {refresh} Hz: {rate:.1} stills/s");
    // The interval measured here includes the key's way to the window, so the rate is a little low.
    assert!(
        (0.5 * refresh..=1.1 * refresh).contains(&rate),
        "paused at {refresh} Hz: {rate:.1} stills/s (stats {stats})"
    );

    let (rate, stats) = paused_present_rate(&display, "paused30", &["--emulate-refresh", "30"], paused);
    eprintln!("paused, emulated 30 Hz: {rate:.1} stills/s");
    assert!((15.0..=33.0).contains(&rate), "paused at an emulated 30 Hz: {rate:.1} stills/s (stats {stats})");
}

/// Runs `strategy` for 3 s with `extra` flags; returns its stderr (the log at `info`) and stats.
fn held_run(display: &Display, name: &str, strategy: &str, extra: &[&str]) -> (String, serde_json::Value) {
    let mut args = vec!["--exit-after", "3", "--window-size", "480x270", "--no-overlay", "--strategy", strategy];
    args.extend_from_slice(extra);
    let mut app = start_app(display, name, &args);
    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    (app.stderr(), app.stats())
}

/// The lead the last periodic log line reports for held presents, ms.
fn held_lead_ms(stderr: &str) -> Option<f64> {
    let line = stderr.lines().rev().find(|line| line.contains("presents held "))?;
    line.split("presents held ").nth(1)?.split(" ms").next()?.trim().parse().ok()
}

fn self_paced_presents_are_held_only_in_non_blocking_modes_without_an_emulated_refresh() {
    let (_serial, display) = setup();
    let (stderr, stats) = held_run(&display, "held", "fixed-fps", &["--present-mode", "immediate"]);
    let lead = held_lead_ms(&stderr).unwrap_or_else(|| panic!("fixed-fps in Immediate holds its presents:\n{stderr}"));
    let fps = number(&stats, "fps");
    eprintln!("fixed-fps, Immediate, held {lead} ms after each planned start: {fps:.1} fps; {stats}");
    assert!(lead < 1000.0 / 60.0, "the lead {lead} ms fits in one 60 Hz interval");
    // The hold moves presents later, never earlier: no faster than the ticks.
    assert!(fps <= 60.5, "fixed-fps at 60 Hz presented {fps:.1} frames per second (stats {stats})");
    // A late first present (a busy machine: 16.48 ms at load 9) is made up on
    // the tick grid, which shortens the mean interval by its lateness / frames.
    assert!(number(&stats, "present_interval_mean_ms") >= 16.0, "intervals about a tick (stats {stats})");

    let (stderr, _) = held_run(&display, "held-fifo", "fixed-fps", &["--present-mode", "fifo"]);
    assert_eq!(held_lead_ms(&stderr), None, "Fifo paces the presents itself:\n{stderr}");
    let (stderr, _) = held_run(&display, "held-emulated", "fixed-fps", &["--emulate-refresh", "60"]);
    assert_eq!(held_lead_ms(&stderr), None, "the emulated vblanks pace the presents:\n{stderr}");
    let (stderr, _) = held_run(&display, "held-interpolated", "interpolated", &["--present-mode", "immediate"]);
    assert_eq!(held_lead_ms(&stderr), None, "interpolated does not pace itself:\n{stderr}");
}

fn an_unmapped_window_without_a_window_manager_stops_rendering_and_resumes_when_mapped() {
    let _serial = harness::one_window_at_a_time();
    // Always a private Xvfb: on the user's display a window manager would turn the unmap into something else.
    let display = start_xvfb().unwrap_or_else(|reason| panic!("no Xvfb although the probe started one: {reason}"));
    let mut app = start_app(&display, "unmapped", &["--exit-after", "60", "--window-size", "320x240"]);
    let window = window_of(&display, &mut app);
    std::thread::sleep(Duration::from_millis(2500));
    let (mapped_lines, mapped_cpu, mapped_at) = (stats_lines(&app), cpu_time(&app), Instant::now());
    assert!(mapped_lines > 0, "a rendering window logs its stats once a second; stderr:\n{}", app.stderr());

    xdotool(&display, &["windowunmap", "--sync", &window]).expect("xdotool windowunmap");
    let mapped_share = (cpu_time(&app) - mapped_cpu).as_secs_f64() / mapped_at.elapsed().as_secs_f64();
    // Let a frame under way finish, then watch for three seconds.
    std::thread::sleep(Duration::from_millis(1200));
    let (before, cpu_before, from) = (stats_lines(&app), cpu_time(&app), Instant::now());
    std::thread::sleep(Duration::from_secs(3));
    let (after, cpu_after) = (stats_lines(&app), cpu_time(&app));
    let share = (cpu_after - cpu_before).as_secs_f64() / from.elapsed().as_secs_f64();
    eprintln!(
        "unmapped: {} stats lines in 3 s, CPU {:.0} % (while mapped: {:.0} %)",
        after - before,
        100.0 * share,
        100.0 * mapped_share
    );
    assert_eq!(after, before, "the unmapped window went on rendering; stderr:\n{}", app.stderr());
    assert!(share < 0.10, "an unmapped window should idle, CPU {:.0} %", 100.0 * share);

    xdotool(&display, &["windowmap", "--sync", &window]).expect("xdotool windowmap");
    let (resumed, back) = eventually(|| stats_lines(&app), |lines| *lines > after);
    assert!(back, "mapped again, it should render again ({resumed} stats lines); stderr:\n{}", app.stderr());
    signal(&app, "TERM");
    let status = app.wait(Duration::from_secs(20));
    assert!(status.success(), "exit status {status:?}; stderr:\n{}", app.stderr());
    assert_no_error_lines(&app.stderr());
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    vec![
        window_test(
            "the_window_survives_every_key_resize_and_minimise_and_reports_all_strategies",
            &["xdotool"],
            the_window_survives_every_key_resize_and_minimise_and_reports_all_strategies,
        ),
        window_test(
            "emulated_60_hz_with_catch_up_runs_one_update_per_refresh",
            &[],
            emulated_60_hz_with_catch_up_runs_one_update_per_refresh,
        ),
        window_test(
            "an_emulated_vrr_gate_shows_frames_when_ready_and_the_verdict_says_vrr",
            &[],
            an_emulated_vrr_gate_shows_frames_when_ready_and_the_verdict_says_vrr,
        ),
        window_test(
            "emulated_59_94_hz_fuzzy_counts_agree_with_the_simulator",
            &[],
            emulated_59_94_hz_fuzzy_counts_agree_with_the_simulator,
        ),
        window_test(
            "lanes_all_at_59_94_hz_update_as_the_simulator_replaying_their_frames",
            &[],
            lanes_all_at_59_94_hz_update_as_the_simulator_replaying_their_frames,
        ),
        window_test(
            "under_a_window_manager_f_fills_the_screen_and_a_minimised_window_comes_back",
            &["xdotool", "openbox"],
            under_a_window_manager_f_fills_the_screen_and_a_minimised_window_comes_back,
        ),
        window_test(
            "a_window_destroyed_under_the_app_ends_the_run_cleanly_without_an_error",
            &["xdotool"],
            a_window_destroyed_under_the_app_ends_the_run_cleanly_without_an_error,
        ),
        window_test(
            "sigterm_and_sigint_end_the_run_as_esc_does_writing_stats_and_screenshot_with_exit_0",
            &["xdotool", "kill"],
            sigterm_and_sigint_end_the_run_as_esc_does_writing_stats_and_screenshot_with_exit_0,
        ),
        window_test(
            "a_paused_demo_presents_once_per_refresh_not_as_fast_as_it_can",
            &["xdotool", "kill"],
            a_paused_demo_presents_once_per_refresh_not_as_fast_as_it_can,
        ),
        window_test(
            "self_paced_presents_are_held_only_in_non_blocking_modes_without_an_emulated_refresh",
            &[],
            self_paced_presents_are_held_only_in_non_blocking_modes_without_an_emulated_refresh,
        ),
        window_test(
            "an_unmapped_window_without_a_window_manager_stops_rendering_and_resumes_when_mapped",
            &["xdotool", "kill", "getconf"],
            an_unmapped_window_without_a_window_manager_stops_rendering_and_resumes_when_mapped,
        ),
    ]
}
