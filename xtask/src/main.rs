//! `cargo xtask web`: builds the lab as a static web site.
//!
//! ```text
//! cargo build -p timestep-lab-web --lib --target wasm32-unknown-unknown --profile web
//!     --no-default-features --features webgpu          (then --features webgl)
//!   └─► target/wasm32-unknown-unknown/web/timestep_lab_web.wasm
//!         └─► wasm-bindgen (as a library, the version in Cargo.lock; names section dropped)
//!               ─► OUT/timestep_lab_web{.js,_bg.wasm}              WebGPU alone
//!               ─► OUT/timestep_lab_web_webgl{.js,_bg.wasm}        WebGL2 alone
//! web/index.html ─► OUT/index.html (loads the one its browser can run)
//! ```
//!
//! OUT (default `target/site`) is what any static file server serves:
//! `python3 -m http.server -d target/site`. Nothing is downloaded from
//! outside the package registries.
//!
//! Two builds, each with one GPU back-end, so a browser downloads only the
//! one it runs: WebGPU alone is 1.34 MB gzipped, WebGL2 alone 1.95 (wgpu's
//! own WebGL2: wgpu-core, wgpu-hal and naga are in that wasm) (2026-11-29). Each
//! build's size is printed, and the WebGPU one over 1.4 MB gzipped fails the
//! build. The `webgpu` and `webgl` features of web/Cargo.toml say which the
//! wasm has.
//!
//! No wasm-opt: npm's binaryen 132 (`wasm-opt -Oz`, every feature rustc's
//! target and `+simd128` use) took the wasm from 6.51 to 5.75 MB but *grew* it
//! gzipped, 2.31 to 2.37 MB, which is what a browser downloads (2026-11-27);
//! Debian's binaryen (108) broke the page both ways it was tried (on
//! wasm-bindgen's output: "Table.set(): Argument 1 is invalid"; before it:
//! "Import #0 … is not an object"), and grew the WebGL2 wasm gzipped too:
//! `-Oz` 5.73 to 4.98 MB, 1.93 to 2.00 MB gzipped (2026-11-28).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;

mod wasm_target;
use wasm_target::TARGET;

/// Builds timestep-lab's web site.
#[derive(Parser, Debug)]
#[command(name = "cargo xtask")]
enum Task {
    /// Build the static site: index.html, the JavaScript glue and the wasm.
    Web {
        /// Where the site goes.
        #[arg(long, value_name = "DIR", default_value = "target/site")]
        out: PathBuf,
        /// A debug build (faster to build, ~5× larger and slower).
        #[arg(long)]
        debug: bool,
    },
}

const CRATE: &str = "timestep_lab_web";

fn main() -> ExitCode {
    let Task::Web { out, debug } = Task::parse();
    match build_site(&out, debug) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask web: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (xtask's parent directory).
fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map_or(manifest.clone(), Path::to_path_buf)
}

/// One of the page's builds: the wasm's feature (its GPU back-end), the
/// name of its files, and what the output calls it.
struct Build {
    feature: &'static str,
    name: &'static str,
    label: &'static str,
}

/// The page's builds. web/index.html loads the WebGPU one where the browser
/// gives a WebGPU adapter, the WebGL2 one elsewhere.
const BUILDS: [Build; 2] = [
    Build { feature: "webgpu", name: CRATE, label: "WebGPU" },
    Build { feature: "webgl", name: "timestep_lab_web_webgl", label: "WebGL2" },
];

/// The most the WebGPU build's wasm may weigh gzipped, in bytes (issue 46):
/// what most browsers download. A `--debug` build is not held to it.
const WEBGPU_GZIPPED_BUDGET: usize = 1_400_000;

fn build_site(out: &Path, debug: bool) -> Result<(), String> {
    let root = root();
    let out = if out.is_absolute() { out.to_path_buf() } else { root.join(out) };
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    for build in BUILDS {
        let bytes = build_wasm(&root, &out, debug, build.feature, build.name)?;
        let gzipped = gzipped_len(&bytes);
        println!(
            "{} build: {}_bg.wasm {:.2} MB, {:.2} MB gzipped ({} bytes)",
            build.label,
            build.name,
            bytes.len() as f64 / 1e6,
            gzipped as f64 / 1e6,
            gzipped
        );
        if build.feature == "webgpu" && !debug && gzipped > WEBGPU_GZIPPED_BUDGET {
            return Err(format!(
                "the WebGPU wasm is {gzipped} bytes gzipped, over its budget of {WEBGPU_GZIPPED_BUDGET}"
            ));
        }
    }
    let page = root.join("web").join("index.html");
    std::fs::copy(&page, out.join("index.html")).map_err(|e| format!("cannot copy {}: {e}", page.display()))?;
    println!("site: {}; serve it with `timestep-lab serve --site {}`", out.display(), out.display());
    Ok(())
}

/// Builds the wasm with the GPU back-end `feature` alone and writes it, with
/// its JavaScript, to `out` as `name`; returns the wasm written.
fn build_wasm(root: &Path, out: &Path, debug: bool, feature: &str, name: &str) -> Result<Vec<u8>, String> {
    let profile = if debug { "dev" } else { "web" };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root)
        .args(["build", "-p", "timestep-lab-web", "--lib", "--target", TARGET, "--profile", profile])
        .args(["--no-default-features", "--features", feature])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        let hint = if wasm_target::installed() {
            "cargo's errors are above".to_owned()
        } else {
            format!("the target is not installed: `rustup target add {TARGET}`")
        };
        return Err(format!("cargo build for {TARGET} failed ({status}); {hint}"));
    }
    let dir = if debug { "debug" } else { "web" };
    // Where cargo put it: CARGO_TARGET_DIR (relative to the workspace) or target/.
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |dir| root.join(dir));
    let wasm = target_dir.join(TARGET).join(dir).join(format!("{CRATE}.wasm"));
    wasm_bindgen_cli_support::Bindgen::new()
        .input_path(&wasm)
        .out_name(name)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(false)
        .debug(debug)
        .remove_name_section(!debug)
        .remove_producers_section(true)
        .generate(out)
        .map_err(|e| format!("wasm-bindgen: {e}"))?;
    let bindgen_wasm = out.join(format!("{name}_bg.wasm"));
    std::fs::read(&bindgen_wasm).map_err(|e| format!("cannot read {}: {e}", bindgen_wasm.display()))
}

/// The length of `bytes` gzipped at the best level, as a server sends them.
fn gzipped_len(bytes: &[u8]) -> usize {
    use std::io::Write as _;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).and_then(|()| encoder.finish()).map_or(0, |g| g.len())
}
