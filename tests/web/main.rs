//! The lab as a web page, in a real browser: `cargo xtask web` builds the
//! site once, a local server serves it (cross-origin isolated, as the page
//! would be on a host that sends COOP/COEP), and headless Chromium, driven
//! through chromedriver, loads it with WebGPU and with WebGL2 and compares
//! what the two draw.
//!
//! Runs under libtest-mimic (`harness = false`, see `tests/support/harness.rs`):
//! without `chromium`, `chromedriver` or the `wasm32-unknown-unknown` target
//! the tests are reported as ignored, or fail with `TIMESTEP_LAB_REQUIRE_GPU`
//! set (CI). They run one at a time: they measure timing.

#[path = "../support/harness.rs"]
mod harness;

#[path = "../support/banner.rs"]
mod banner;
#[path = "../serve/client.rs"]
#[expect(dead_code, reason = "the page's test starts the server; the raw HTTP helpers are tests/serve's")]
mod serve_client;

mod browser;
mod life;
mod page;
mod picture;
mod serve;

fn main() {
    harness::run_one_at_a_time([page::trials(), picture::trials(), life::trials(), serve::trials()])
}
