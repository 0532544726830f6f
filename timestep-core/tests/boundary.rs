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

/// Words that speak of the app built on the crate, not of the crate: its
/// window and overlay, its command line and flags, the display its tests run
/// on. (A compositor's name, Weston's too, is a fact about a platform.)
const APP_WORDS: [&str; 8] =
    ["demo window", "overlay", "the shell", "the lab", " cli ", "the cli", "xvfb", "--stats-json"];

#[test]
fn the_core_s_docs_speak_of_the_crate_not_of_the_app_built_on_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![("README.md".to_owned(), std::fs::read_to_string(root.join("README.md")).expect("README"))];
    sources(&root.join("src"), &mut docs);
    let mut hits = Vec::new();
    for (name, text) in &docs {
        let is_doc = |line: &str| {
            let line = line.trim_start();
            name.ends_with(".md") || line.starts_with("///") || line.starts_with("//!")
        };
        // A source's docs up to its tests, which may speak of anything.
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
        for line in text.lines().filter(|line| is_doc(line)) {
            let lower = line.to_lowercase();
            hits.extend(
                APP_WORDS.iter().filter(|w| lower.contains(*w)).map(|w| format!("{name}: '{w}' in {}", line.trim())),
            );
        }
    }
    assert!(hits.is_empty(), "the core's docs speak of the app:\n{}", hits.join("\n"));
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("core sources are readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a core source is UTF-8");
            out.push((path.strip_prefix(dir).unwrap_or(&path).display().to_string(), text));
        }
    }
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
