//! The core crate stays a library any game can adopt: none of the demo's
//! platform, rendering, CLI or image crates among its dependencies, and no
//! `unsafe` besides the attribute that forbids it.

#![cfg(not(target_arch = "wasm32"))] // runs `cargo tree` and reads the sources: the host

use std::path::Path;
use std::process::Command;

/// Crates the core must never depend on, directly or through another crate.
const FORBIDDEN: [&str; 6] = ["winit", "wgpu", "egui", "clap", "image", "plotters"];

/// The crates `cargo tree -p timestep-core -e normal ARGS` lists, and the tree.
fn dependencies(args: &[&str]) -> (Vec<String>, String) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "-p", "timestep-core", "-e", "normal", "--prefix", "none", "--offline"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    let tree = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "cargo tree failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(tree.contains("timestep-core"), "cargo tree lists the core itself:\n{tree}");
    let crates = tree.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_owned).collect();
    (crates, tree)
}

#[test]
fn the_core_depends_on_no_platform_render_cli_or_image_crate() {
    let (crates, tree) = dependencies(&["--all-features", "--target", "all"]);
    for bad in FORBIDDEN {
        let found: Vec<&String> = crates.iter().filter(|c| **c == bad || c.starts_with(&format!("{bad}-"))).collect();
        assert!(found.is_empty(), "timestep-core depends on {found:?}:\n{tree}");
    }
}

#[test]
fn without_the_lab_s_features_the_core_depends_on_no_serde_json_or_csv() {
    for features in [&["--no-default-features"][..], &[]] {
        let (crates, tree) = dependencies(&[features, &["--target", "all"]].concat());
        for lab in ["serde", "serde_json", "csv"] {
            assert!(!crates.iter().any(|c| c == lab), "timestep-core {features:?} depends on {lab}:\n{tree}");
        }
    }
}

#[test]
fn the_only_unsafe_in_the_core_is_the_attribute_forbidding_it() {
    let mut hits = Vec::new();
    visit(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut hits);
    assert_eq!(hits, ["lib.rs: #![forbid(unsafe_code)]"], "`unsafe` in the core");
}

fn visit(dir: &Path, hits: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("core sources are readable").flatten().collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            visit(&path, hits);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a core source is UTF-8");
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            hits.extend(text.lines().filter(|l| l.contains("unsafe")).map(|l| format!("{name}: {}", l.trim())));
        }
    }
}
