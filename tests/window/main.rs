//! The binary in a real window: under Xvfb (`app`), under a two-output
//! Wayland session (`wayland`), `measure`'s tour with its report
//! (`measure`), and the README's `cargo run` lines as written (`readme`).
//!
//! Runs under libtest-mimic (`harness = false`, see `tests/support/harness.rs`):
//! where a tool, a display or an adapter is missing the tests are reported as
//! ignored, or fail with `TIMESTEP_LAB_REQUIRE_GPU` set (CI). They run one at
//! a time: they measure timing.

#[path = "../support/harness.rs"]
mod harness;
#[path = "../support/report_card/mod.rs"]
mod report_card;

mod app;
mod measure;
mod readme;
mod wayland;
#[cfg(target_os = "linux")]
mod x11_present;

fn main() {
    #[cfg_attr(not(target_os = "linux"), expect(unused_mut, reason = "X11 Present is read on Linux"))]
    let mut modules = vec![app::trials(), wayland::trials(), measure::trials(), readme::trials()];
    #[cfg(target_os = "linux")]
    modules.push(x11_present::trials());
    harness::run_one_at_a_time(modules)
}
