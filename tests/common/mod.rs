//! Helpers shared by the GPU test files (`mod common;` in each).

use timestep_lab::render::GpuContext;

/// A GPU context on whatever adapter exists (Mesa's lavapipe on machines
/// without a GPU), or `None` after a loud message when there is none and
/// `TIMESTEP_LAB_REQUIRE_GPU` is unset. With the variable set (CI), a missing
/// adapter fails the test instead.
pub fn gpu_or_skip() -> Option<GpuContext> {
    match GpuContext::new_headless() {
        Ok(gpu) => {
            eprintln!("GPU test on {}", gpu.adapter_summary());
            Some(gpu)
        }
        Err(err) if std::env::var_os("TIMESTEP_LAB_REQUIRE_GPU").is_some() => {
            panic!("TIMESTEP_LAB_REQUIRE_GPU is set but no GPU adapter is available: {err}")
        }
        Err(err) => {
            eprintln!(
                "\n************************************************************\n\
                 SKIPPED: no GPU adapter ({err}).\n\
                 Set TIMESTEP_LAB_REQUIRE_GPU=1 to turn this into a failure.\n\
                 ************************************************************\n"
            );
            None
        }
    }
}
