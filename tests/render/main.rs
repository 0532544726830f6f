//! The renderer offscreen on the real (usually software) adapter: sprites,
//! the world at any interpolation alpha, the overlay, GPU pass timing and
//! `--screenshot`'s picture.
//!
//! Runs under libtest-mimic (`harness = false`, see `tests/support/harness.rs`):
//! without an adapter the tests are reported as ignored, or fail with
//! `TIMESTEP_LAB_REQUIRE_GPU` set (CI).

#[path = "../support/harness.rs"]
mod harness;

mod gpu_timer;
mod offscreen;
mod overlay;
mod screenshot;
mod world;

fn main() {
    harness::run([offscreen::trials(), world::trials(), overlay::trials(), gpu_timer::trials(), screenshot::trials()])
}
