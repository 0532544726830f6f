//! Headless Chromium for the report-card tests: find it, screenshot a page,
//! read its console, and tell a blank screenshot from a drawn one.

use libtest_mimic::{Completion, Failed};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Longest a headless screenshot may take (a cold start on the 2-core CI machine takes ~5 s).
pub const CHROMIUM_TIMEOUT: Duration = Duration::from_secs(120);

/// Browser names tried on PATH, Debian's first.
pub const BROWSERS: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

pub fn find_browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).flat_map(|dir| BROWSERS.map(|b| dir.join(b))).find(|p| p.is_file())
}

/// The browser, or why the test cannot run: ignored, unless `TIMESTEP_LAB_REQUIRE_GPU` makes it a failure.
pub fn browser_or_skip() -> Result<Result<PathBuf, Completion>, Failed> {
    match find_browser() {
        Some(browser) => Ok(Ok(browser)),
        None if std::env::var_os("TIMESTEP_LAB_REQUIRE_GPU").is_some() => {
            Err("TIMESTEP_LAB_REQUIRE_GPU is set but chromium is not on PATH (apt-get install chromium)".into())
        }
        None => {
            eprintln!(
                "\n************************************************************\n\
                 SKIPPED: chromium is not on PATH (apt-get install chromium).\n\
                 Set TIMESTEP_LAB_REQUIRE_GPU=1 to turn this into a failure.\n\
                 ************************************************************\n"
            );
            Ok(Err(Completion::ignored_with("chromium is not on PATH")))
        }
    }
}

/// Lines the page wrote to the console. Chromium logs every console message
/// (`console.error` included) as `INFO:CONSOLE:line]` and uncaught
/// exceptions as "Uncaught …"; the pages have no script, so any is a defect.
pub fn console_lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught")).collect()
}

/// Runs headless Chromium on `html`, writing `png`; returns its stderr.
pub fn screenshot(browser: &Path, html: &Path, png: &Path, dir: &Path) -> Result<String, Failed> {
    let stderr_path = dir.join("chromium.log");
    let stderr = std::fs::File::create(&stderr_path).map_err(|e| format!("cannot create the log: {e}"))?;
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2000",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", html.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", browser.display()))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| format!("cannot wait for chromium: {e}"))? {
            Some(status) => break status,
            None if started.elapsed() > CHROMIUM_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("chromium took more than {CHROMIUM_TIMEOUT:?}").into());
            }
            None => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    let log = std::fs::read_to_string(&stderr_path).unwrap_or_default();
    if !status.success() {
        return Err(format!("chromium failed ({status}):\n{log}").into());
    }
    Ok(log)
}

/// The screenshot decodes and is not one flat colour: its luminance varies
/// and a good share of it differs from the page background.
pub fn check_not_blank(png: &Path) -> Result<(), Failed> {
    let image = image::open(png).map_err(|e| format!("the screenshot {} does not decode: {e}", png.display()))?;
    let rgb = image.to_rgb8();
    let (w, h) = rgb.dimensions();
    if (w, h) != (1280, 2000) {
        return Err(format!("the screenshot is {w}×{h}, expected 1280×2000").into());
    }
    let luma: Vec<f64> =
        rgb.pixels().map(|p| 0.2126 * f64::from(p[0]) + 0.7152 * f64::from(p[1]) + 0.0722 * f64::from(p[2])).collect();
    let n = luma.len() as f64;
    let mean = luma.iter().sum::<f64>() / n;
    let variance = luma.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n;
    // The page background is #f3f4f6; cards are white; ink, bars and grid lines differ from both.
    let ink = rgb.pixels().filter(|p| p.0 != [243, 244, 246] && p.0 != [255, 255, 255]).count() as f64 / n;
    if variance < 100.0 || ink < 0.03 {
        return Err(
            format!("the screenshot looks blank: luminance variance {variance:.1}, {:.1} % ink", ink * 100.0).into()
        );
    }
    eprintln!("{}: luminance variance {variance:.0}, {:.1} % ink", png.display(), ink * 100.0);
    Ok(())
}

/// `html` in headless Chromium: no console line, a screenshot that is not blank.
///
/// # Errors
/// The console lines, a blank screenshot, or Chromium failing.
pub fn check_html(browser: &Path, html: &Path, dir: &Path) -> Result<(), Failed> {
    let png = html.with_extension("png");
    let log = screenshot(browser, html, &png, dir)?;
    let console = console_lines(&log);
    if !console.is_empty() {
        return Err(format!("the page logged to the console:\n{}", console.join("\n")).into());
    }
    check_not_blank(&png)
}
