//! Whether the toolchain has the standard library for `wasm32-unknown-unknown`.
//! One file for `cargo xtask web` and the web tests' harness
//! (`tests/web/browser.rs` includes it with `#[path]`).

use std::path::PathBuf;
use std::process::Command;

/// The target the site is built for.
pub const TARGET: &str = "wasm32-unknown-unknown";

/// Whether `rustc --print target-libdir` names a folder that holds the
/// target's `libcore` (rustup prints the folder whether or not it is there).
pub fn installed() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    libdir.is_ok_and(|dir| {
        std::fs::read_dir(dir).is_ok_and(|mut entries| {
            entries.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libcore-")))
        })
    })
}
