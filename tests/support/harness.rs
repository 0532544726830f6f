//! The harness of the GPU, window and report test binaries
//! (`#[path = "../support/harness.rs"] mod harness;` in each `main.rs`).
//!
//! These binaries run with `harness = false` under `libtest-mimic`: each
//! area's `main` collects every module's trials (`module::test_name`, so
//! filters work as with the built-in harness: `cargo test --test render
//! overlay::`), and a test that cannot run on this machine is reported by the
//! test runner itself:
//!
//! ```text
//! test screenshot::the_saved_png_is_the_rendered_picture ... ignored (no GPU adapter: …)
//! test result: ok. 0 passed; 0 failed; 9 ignored; 0 measured; 0 filtered out
//! ```
//!
//! instead of passing with a banner that `cargo test` hides. What decides is a
//! probe of the capability, run once per test binary (can an adapter be
//! created at all?), never the wording of an error. With
//! `TIMESTEP_LAB_REQUIRE_GPU` set (CI does) every such skip is a failure.

#![allow(
    dead_code,
    unused_macros,
    unused_imports,
    reason = "each test binary uses a different part of the shared harness"
)]

use std::sync::OnceLock;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use timestep_lab::render::GpuContext;

/// The variable that turns a skip into a failure.
pub const REQUIRE_GPU: &str = "TIMESTEP_LAB_REQUIRE_GPU";

/// Whether a missing adapter or display must fail the test (CI).
pub fn gpu_required() -> bool {
    std::env::var_os(REQUIRE_GPU).is_some()
}

/// Why a test cannot run on this machine.
#[derive(Clone, Debug)]
pub struct Missing {
    /// A few words for the runner's `ignored (…)` line: `no GPU adapter`.
    pub what: String,
    /// The whole story (the error, what to install), printed once by the probe
    /// and in a failure.
    pub detail: String,
}

impl Missing {
    /// A `what` and its `detail`; the detail is printed to stderr now, once per probe.
    pub fn new(what: impl Into<String>, detail: impl Into<String>) -> Missing {
        let missing = Missing { what: what.into(), detail: detail.into() };
        eprintln!("cannot test here: {}: {}", missing.what, missing.detail);
        missing
    }
}

/// The outcome of a test that cannot run here: ignored, with the reason shown
/// by the runner, or a failure with the whole story when [`REQUIRE_GPU`] is set.
///
/// # Errors
/// When [`REQUIRE_GPU`] is set.
pub fn unavailable(missing: &Missing) -> Result<Completion, Failed> {
    if gpu_required() {
        Err(format!("{REQUIRE_GPU} is set, but {}: {}", missing.what, missing.detail).into())
    } else {
        Ok(Completion::ignored_with(format!("{}; {REQUIRE_GPU}=1 makes this a failure", missing.what)))
    }
}

/// Whether a headless GPU context can be created here: the adapter's summary,
/// or why not. Probed once per test binary; any failure counts, a panic too.
///
/// # Errors
/// Why there is no adapter.
pub fn gpu_probe() -> Result<&'static str, &'static Missing> {
    static PROBE: OnceLock<Result<String, Missing>> = OnceLock::new();
    let probe = PROBE.get_or_init(|| match std::panic::catch_unwind(timestep_lab::platform::headless_gpu) {
        Ok(Ok(gpu)) => {
            let summary = gpu.adapter_summary();
            eprintln!("GPU tests run on {summary}");
            Ok(summary)
        }
        Ok(Err(err)) => Err(Missing::new("no GPU adapter", err.to_string())),
        Err(panic) => {
            Err(Missing::new("no GPU adapter", format!("creating one panicked: {}", panic_message(panic.as_ref()))))
        }
    });
    probe.as_ref().map(String::as_str)
}

/// A test that draws on the GPU: `test` gets its own context. Ignored when the
/// probe finds no adapter (failed with [`REQUIRE_GPU`]).
pub fn gpu_test(name: impl Into<String>, test: fn(GpuContext)) -> Trial {
    gpu_trial(name, move |gpu| {
        test(gpu);
        Ok(Completion::Completed)
    })
}

/// As [`gpu_test`], for a test that may itself find the adapter lacking and
/// return [`Completion::Ignored`].
pub fn gpu_trial(
    name: impl Into<String>,
    test: impl FnOnce(GpuContext) -> Result<Completion, Failed> + Send + 'static,
) -> Trial {
    Trial::ignorable_test(name, move || {
        if let Err(reason) = gpu_probe() {
            return unavailable(reason);
        }
        let gpu = timestep_lab::platform::headless_gpu()
            .map_err(|err| Failed::from(format!("the adapter probe passed, but now: {err}")))?;
        test(gpu)
    })
}

/// `gpu_tests![a, b]`: one [`gpu_test`] per function, named `module::function`.
macro_rules! gpu_tests {
    ($($test:ident),* $(,)?) => {
        vec![$(crate::harness::gpu_test(crate::harness::name(module_path!(), stringify!($test)), $test)),*]
    };
}
pub(crate) use gpu_tests;

/// `tests![a, b]`: one plain [`test`] per function, named `module::function`.
macro_rules! tests {
    ($($test:ident),* $(,)?) => {
        vec![$(crate::harness::test(crate::harness::name(module_path!(), stringify!($test)), $test)),*]
    };
}
pub(crate) use tests;

/// A test's name as the built-in harness gives it: `module::test`, from the
/// `module_path!()` of the module that defines it (`render::overlay`: the
/// binary's name comes first and is left out).
pub fn name(module_path: &str, test: &str) -> String {
    match module_path.split_once("::") {
        Some((_binary, module)) => format!("{module}::{test}"),
        None => test.to_owned(),
    }
}

/// A test that needs nothing of the machine.
pub fn test(name: String, test: fn()) -> Trial {
    Trial::test(name, move || {
        test();
        Ok(())
    })
}

/// A test that runs only when asked (`-- --ignored`, `--include-ignored`): a
/// tool that writes files for people, not a check.
pub fn on_request(name: String, test: fn()) -> Trial {
    self::test(name, test).with_ignored_flag(true)
}

/// Runs every module's trials with the command line's filters and options, then exits.
pub fn run(modules: impl IntoIterator<Item = Vec<Trial>>) -> ! {
    libtest_mimic::run(&Arguments::from_args(), modules.into_iter().flatten().collect()).exit()
}

/// As [`run`], one test at a time unless `--test-threads` says otherwise:
/// for tests that measure timing, where two windows rendering on a software
/// adapter would steal each other's CPU (a capability probe of one module
/// included).
pub fn run_one_at_a_time(modules: impl IntoIterator<Item = Vec<Trial>>) -> ! {
    let mut args = Arguments::from_args();
    args.test_threads.get_or_insert(1);
    libtest_mimic::run(&args, modules.into_iter().flatten().collect()).exit()
}

/// Holds off every other window test while the guard lives, whatever
/// `--test-threads` says: they measure timing.
pub fn one_window_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static WINDOWS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    WINDOWS.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

/// An Xvfb of its own (`-displayfd` picks a free display number), killed on drop.
pub struct Xvfb {
    /// The display name for `DISPLAY`: `:99`.
    pub name: String,
    child: std::process::Child,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts an Xvfb with one screen of `screen` (`1280x800x24`) and waits up to
/// 10 s for it to accept connections.
///
/// # Errors
/// Why not: Xvfb is not installed, or it never reported its display.
pub fn start_xvfb(screen: &str) -> Result<Xvfb, Missing> {
    use std::io::{BufRead, BufReader};
    // -noreset: an X server resets when its last client leaves, dropping every
    // connection still being set up; a client connecting just as another leaves
    // (the app after an xdotool call, a test's second run) then fails with "no
    // display". Two xdotool loops on one Xvfb: 32 of 600 connections failed, 0 with it.
    let mut child = std::process::Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", screen, "-nolisten", "tcp", "-noreset"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| Missing::new("Xvfb is not installed", format!("Xvfb could not be started ({e}); install xvfb")))?;
    let stdout = child.stdout.take();
    // Dropping `xvfb` on an error kills the Xvfb that never came up.
    let mut xvfb = Xvfb { name: String::new(), child };
    let stdout = stdout.ok_or_else(|| Missing::new("no X display", "Xvfb has no stdout"))?;
    // Xvfb writes the display number it picked once it accepts connections.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    match rx.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(line) if !line.trim().is_empty() => {
            xvfb.name = format!(":{}", line.trim());
            Ok(xvfb)
        }
        _ => Err(Missing::new("no X display", "Xvfb did not report a display number within 10 s")),
    }
}

/// A number of a `--stats-json` (or a report): `stats[field]`.
///
/// # Panics
/// When the field is missing or not a number.
pub fn number(stats: &serde_json::Value, field: &str) -> f64 {
    stats[field].as_f64().unwrap_or_else(|| panic!("stats field {field} is not a number: {stats}"))
}

/// A running `timestep-lab` writing `--stats-json` and its stderr into a
/// folder of its own; killed on drop.
pub struct AppRun {
    /// The process.
    pub child: std::process::Child,
    log: std::path::PathBuf,
    dir: std::path::PathBuf,
}

impl AppRun {
    /// Starts `command` (the binary, its arguments and environment) with
    /// `--stats-json DIR/stats.json` and stderr in `DIR/stderr.log`; `dir` is
    /// emptied first.
    pub fn spawn(mut command: std::process::Command, dir: std::path::PathBuf) -> AppRun {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let log = dir.join("stderr.log");
        let child = command
            .arg("--stats-json")
            .arg(dir.join("stats.json"))
            .env("RUST_LOG", "info")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start timestep-lab");
        AppRun { child, log, dir }
    }

    /// A file in the run's folder.
    pub fn path(&self, file: &str) -> std::path::PathBuf {
        self.dir.join(file)
    }

    /// What the run wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits for the exit (`--exit-after` should end it); kills it after `limit`.
    pub fn wait(&mut self, limit: std::time::Duration) -> std::process::ExitStatus {
        let until = std::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if std::time::Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("timestep-lab did not exit within {limit:?}; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Waits for a probe run (`--exit-after 1`) to end: `Ok` when it exited
    /// cleanly after presenting frames.
    ///
    /// # Errors
    /// How it ended and after how many frames, with its stderr.
    pub fn presented_frames(mut self) -> Result<(), String> {
        let status = self.wait(std::time::Duration::from_secs(30));
        let frames = std::fs::read_to_string(self.path("stats.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|stats| stats["frames"].as_u64())
            .unwrap_or(0);
        if status.success() && frames > 0 {
            return Ok(());
        }
        Err(format!("it ended with {status} after {frames} frames; its stderr:\n{}", self.stderr()))
    }

    /// The `--stats-json` it wrote.
    pub fn stats(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.path("stats.json"))
            .unwrap_or_else(|e| panic!("no stats.json ({e}); stderr:\n{}", self.stderr()));
        serde_json::from_str(&text).expect("stats.json is JSON")
    }
}

impl Drop for AppRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The 1-minute load average and the number of cores: `load 15.2 on 2 cores`.
pub fn load_evidence() -> String {
    let load = std::fs::read_to_string("/proc/loadavg").ok().and_then(|l| l.split(' ').next().map(str::to_owned));
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    format!("load {} on {cores} cores", load.unwrap_or_else(|| "unknown".to_owned()))
}

/// Whether the machine is busier than it has cores (the 1-minute load
/// average): timing figures measured then are the load's, not the code's, and
/// a test that judges them reports itself skipped with [`load_evidence`].
pub fn machine_busy() -> bool {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split(' ').next().and_then(|x| x.parse::<f64>().ok()));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    load.is_some_and(|load| load > cores as f64)
}
