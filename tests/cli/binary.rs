//! Running the binary as a user does, and judging a usage error.

use std::process::{Command, Output};

/// Runs `timestep-lab` with `args` and no display, so the demo can only get
/// as far as checking its flags.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timestep-lab"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("the binary runs")
}

/// The user's error, done right: exit code 2, one line on stderr that
/// mentions `mentions`, no panic.
pub fn assert_usage_error(args: &[&str], out: &Output, mentions: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?} should exit 2; stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?} should print one line, got: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert!(stderr.contains(mentions), "{args:?}: '{stderr}' should mention '{mentions}'");
}
