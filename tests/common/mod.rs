//! The harness of the GPU and window test files (`mod common;` in each).
//!
//! These files run with `harness = false` under `libtest-mimic`, so a test
//! that cannot run on this machine is reported by the test runner itself:
//!
//! ```text
//! test a_saved_png_matches_the_readback_and_is_not_blank ... ignored (no GPU adapter: …)
//! test result: ok. 0 passed; 0 failed; 9 ignored; 0 measured; 0 filtered out
//! ```
//!
//! instead of passing with a banner that `cargo test` hides. What decides is a
//! probe of the capability, run once per test binary (can an adapter be
//! created at all?), never the wording of an error. With
//! `TIMESTEP_LAB_REQUIRE_GPU` set (CI does) every such skip is a failure.
//! Filters work as with the built-in harness: `cargo test --test NAME FILTER`.

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
    let probe = PROBE.get_or_init(|| match std::panic::catch_unwind(GpuContext::new_headless) {
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
pub fn gpu_test(name: &'static str, test: fn(GpuContext)) -> Trial {
    gpu_trial(name, move |gpu| {
        test(gpu);
        Ok(Completion::Completed)
    })
}

/// As [`gpu_test`], for a test that may itself find the adapter lacking and
/// return [`Completion::Ignored`].
pub fn gpu_trial(
    name: &'static str,
    test: impl FnOnce(GpuContext) -> Result<Completion, Failed> + Send + 'static,
) -> Trial {
    Trial::ignorable_test(name, move || {
        if let Err(reason) = gpu_probe() {
            return unavailable(reason);
        }
        let gpu = GpuContext::new_headless()
            .map_err(|err| Failed::from(format!("the adapter probe passed, but now: {err}")))?;
        test(gpu)
    })
}

/// `gpu_tests![a, b]`: one [`gpu_test`] per function, named after it.
macro_rules! gpu_tests {
    ($($test:ident),* $(,)?) => {
        vec![$(common::gpu_test(stringify!($test), $test)),*]
    };
}
pub(crate) use gpu_tests;

/// Runs `trials` with the command line's filters and options, then exits.
pub fn run(trials: Vec<Trial>) -> ! {
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}
