//! WebGL2 draws what WebGPU draws: the page paused on a reset world (a
//! frame that does not depend on when it was taken), its canvas shot in a
//! browser with WebGPU and in one without, compared pixel by pixel.
//!
//! Both browsers draw on SwiftShader (WebGPU through Dawn on its Vulkan,
//! WebGL2 through ANGLE on its GL), but on different paths: wgpu's WebGPU
//! back-end hands the WGSL to the browser, which writes an `Rgba8Unorm`
//! canvas through an sRGB view; wgpu's WebGL2 back-end has naga write GLSL
//! ES and draws into the canvas's own `Rgba8UnormSrgb` buffer. Where the two
//! paths may round differently, and by how much, is [`MATCH`]'s and
//! [`MOST_BEYOND_MATCH`]'s to say; a picture that is *not* the same frame (the same
//! page paused before the reset, sprites elsewhere) is checked to fail them,
//! so the comparison can tell.

use std::time::{Duration, Instant};

use image::RgbImage;
use libtest_mimic::{Completion, Failed, Trial};

use crate::browser::{Backend, Browser, Server};
use crate::harness;

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<Trial> {
    let name = |test| harness::name(module_path!(), test);
    vec![Trial::ignorable_test(
        name("webgl2_draws_the_same_paused_frame_as_webgpu_pixel_for_pixel_within_rounding"),
        same_frame_on_both,
    )]
}

/// The page: lockstep draws the world as it is (no interpolation or
/// prediction, so a reset world is drawn where it starts), at a fixed size,
/// without the overlay (its figures are the run's, never the same twice).
const QUERY: &str = "?strategy=lockstep&window-size=480x270&no-overlay&seed=1";

/// How long a page gets to start and run a few frames (a software adapter on 2 shared cores).
const START: Duration = Duration::from_secs(30);

/// Most a channel may differ (of 255) for two pixels to be the same: one
/// step of rounding where each path turns linear colour into sRGB bytes,
/// and one where it blends or filters, each way.
const MATCH: u8 = 2;

/// Most pixels that may differ by more than [`MATCH`]: edge pixels whose
/// coverage another rasteriser may round across it. Fewer than half the ink
/// of the smallest sprite (the player's ship: 70 pixels brighter than 120 of
/// 255 at 480×270), so a sprite missing, doubled or drawn elsewhere fails.
/// Measured here (Chromium's SwiftShader for both): 0 pixels differ at all;
/// the frame paused before the reset differs in about 2 600.
const MOST_BEYOND_MATCH: usize = 32;

fn same_frame_on_both() -> Result<Completion, Failed> {
    let site = match crate::browser::site() {
        Ok(site) => site,
        Err(missing) => return harness::unavailable(missing),
    };
    let _one = harness::one_window_at_a_time();
    let server = Server::start(site);
    let webgpu = stills(&server, Backend::WebGpu)?;
    let webgl = stills(&server, Backend::WebGl2)?;
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("web-picture");
    let _ = std::fs::create_dir_all(&out);
    for (name, picture) in [
        ("webgpu-running", &webgpu.running),
        ("webgpu-reset", &webgpu.reset),
        ("webgl2-running", &webgl.running),
        ("webgl2-reset", &webgl.reset),
    ] {
        let _ = picture.save(out.join(format!("{name}.png")));
    }
    let same = Difference::between(&webgpu.reset, &webgl.reset)?;
    let other = Difference::between(&webgpu.reset, &webgpu.running)?;
    eprintln!("WebGPU against WebGL2, the reset world: {same}");
    eprintln!("WebGPU, the reset world against the world paused before it: {other}");
    assert!(!other.within_tolerance(), "a different frame fails the comparison: {other}");
    assert!(same.within_tolerance(), "WebGL2 draws WebGPU's frame: {same} (pictures in {})", out.display());
    Ok(Completion::Completed)
}

/// What the canvas shows paused mid-run, and paused on the reset world.
struct Stills {
    running: RgbImage,
    reset: RgbImage,
}

/// Opens the page on `backend`, pauses it (Space), shoots the canvas, resets
/// the world (R) and shoots it again once the still picture has changed and
/// then holds.
fn stills(server: &Server, backend: Backend) -> Result<Stills, String> {
    let browser = Browser::start(backend, [900, 700])?;
    browser.open(&format!("{}/{QUERY}", server.base))?;
    let stats = browser.wait_for(START, |s| s["total_updates"].as_f64().is_some_and(|n| n >= 30.0))?;
    let adapter = stats["adapter"].as_str().unwrap_or_default();
    assert!(adapter.contains(backend.adapter_backend()), "drawn on {adapter}, not {backend:?}");
    browser.eval("document.querySelector('canvas').focus(); return null")?;
    browser.press(" ")?;
    paused(&browser)?;
    let running = steady_canvas(&browser, None)?;
    browser.press("r")?;
    let reset = steady_canvas(&browser, Some(&running))?;
    let message = browser.message()?;
    assert!(message.is_empty(), "{backend:?}: the page shows '{message}'");
    Ok(Stills { running, reset })
}

/// Waits until the page's updates have stopped for half a second (the pause took).
fn paused(browser: &Browser) -> Result<(), String> {
    let updates = |browser: &Browser| browser.stats().map(|s| s["total_updates"].as_f64().unwrap_or(f64::NAN));
    let deadline = Instant::now() + START;
    let mut last = updates(browser)?;
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = updates(browser)?;
        if now == last {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("Space did not pause the page: {last} then {now} updates"));
        }
        last = now;
    }
}

/// The canvas once two shots a quarter of a second apart are the same (and,
/// given `not`, differ from it: the still picture has been redrawn).
fn steady_canvas(browser: &Browser, not: Option<&RgbImage>) -> Result<RgbImage, String> {
    let deadline = Instant::now() + START;
    let mut last = canvas(browser)?;
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let now = canvas(browser)?;
        if now == last && not.is_none_or(|other| *other != now) {
            return Ok(now);
        }
        if Instant::now() > deadline {
            return Err(format!("the canvas did not settle on a new picture in {START:?}"));
        }
        last = now;
    }
}

fn canvas(browser: &Browser) -> Result<RgbImage, String> {
    let png = browser.element_screenshot("canvas")?;
    Ok(image::load_from_memory(&png).map_err(|e| e.to_string())?.to_rgb8())
}

/// How two pictures of one size differ, per pixel by the largest of its channels' differences.
#[derive(Debug)]
struct Difference {
    pixels: usize,
    /// Pixels that differ at all.
    differing: usize,
    /// Pixels that differ by more than [`MATCH`].
    beyond_match: usize,
    /// The largest difference of any channel.
    largest: u8,
}

impl Difference {
    fn between(a: &RgbImage, b: &RgbImage) -> Result<Difference, String> {
        if a.dimensions() != b.dimensions() {
            return Err(format!("pictures of different sizes: {:?} and {:?}", a.dimensions(), b.dimensions()));
        }
        let per_pixel: Vec<u8> = a
            .pixels()
            .zip(b.pixels())
            .map(|(p, q)| p.0.iter().zip(q.0).map(|(x, y)| x.abs_diff(y)).max().unwrap_or(0))
            .collect();
        Ok(Difference {
            pixels: per_pixel.len(),
            differing: per_pixel.iter().filter(|&&d| d > 0).count(),
            beyond_match: per_pixel.iter().filter(|&&d| d > MATCH).count(),
            largest: per_pixel.iter().copied().max().unwrap_or(0),
        })
    }

    fn within_tolerance(&self) -> bool {
        self.beyond_match <= MOST_BEYOND_MATCH
    }
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} pixels, {} differ, {} by more than {MATCH} of 255 (at most {MOST_BEYOND_MATCH} may), the most by {}",
            self.pixels, self.differing, self.beyond_match, self.largest
        )
    }
}
