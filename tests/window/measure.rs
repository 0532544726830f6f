//! `timestep-lab measure` in a real window under Xvfb: the three files, the
//! page in headless Chromium, and `compare` of two measured cards.
//!
//! Each tour runs on an emulated vblank grid (`--emulate-refresh`, so the
//! refresh is known on Xvfb and the simulator has something to predict),
//! three strategies, a fraction of a second each; a tour per rate is run
//! once and shared by the tests. Whether windows work here is probed by
//! capability (`tests/support/harness.rs`): without Xvfb, a GPU adapter or
//! Chromium a test is reported as ignored, and fails under
//! `TIMESTEP_LAB_REQUIRE_GPU`. The tours run one at a time: they measure timing.

use crate::harness;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use timestep_lab::report::registry::{PRESENT_INTERVAL_MEAN_MS, TOTAL_UPDATES};

use crate::harness::Missing;
use crate::report_card::chromium::{browser_or_skip, check_html};
use crate::report_card::scratch;
use libtest_mimic::{Completion, Failed, Trial};
use timestep_lab::report_card::ReportCard;
use timestep_lab::report_card::judge::pass_agreement;

const BIN: &str = env!("CARGO_BIN_EXE_timestep-lab");

/// The strategies each tour runs.
const STRATEGIES: [&str; 3] = ["lockstep", "interpolated", "snapped"];

/// Measured tours by emulated rate: `(rate, its --out directory)`, one at a time.
static TOURS: Mutex<Vec<(&'static str, Result<PathBuf, String>)>> = Mutex::new(Vec::new());

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<Trial> {
    vec![
        measure_test("measure_under_xvfb_writes_report_json_report_html_and_a_screenshot", the_three_files),
        Trial::ignorable_test(
            harness::name(module_path!(), "the_measured_report_html_renders_in_headless_chromium"),
            || {
                let browser = match browser_or_skip()? {
                    Ok(browser) => browser,
                    Err(skipped) => return Ok(skipped),
                };
                let out = match tour("60") {
                    Ok(out) => out,
                    Err(missing) => return harness::unavailable(&missing),
                };
                let dir = scratch("measure-chromium");
                let html = dir.join("report.html");
                std::fs::copy(card_file(&out, "html")?, &html)
                    .map_err(|e| format!("cannot copy the card's page: {e}"))?;
                check_html(&browser, &html, &dir)?;
                Ok(Completion::Completed)
            },
        ),
        measure_test("compare_of_two_reports_at_two_emulated_refresh_rates_prints_both_columns", compare_two_rates),
        Trial::ignorable_test(
            harness::name(module_path!(), "a_tour_without_rust_log_prints_its_progress_its_fallback_and_its_end_only"),
            a_quiet_tour,
        ),
        // Run when asked (`-- --ignored`), with the goal as their floor (issue 31: 9 of 10 at 60 Hz
        // and 8 at 144 and 240, vsync on and off). A machine busy in bursts of seconds hitches in
        // some runs and not others, so each strategy's prediction draws the costs its own run met
        // (`setup.runs`: its work, its wake-up, and as stalls its work beyond the 90th percentile),
        // event lengths in tenths, fixed-fps and paced hold their presents with vsync off as the
        // window does, and a few hitches agree within their count's noise. The debug build's
        // tours, each test alone on the idle 2-core VM without a real-time priority (2026-11-28,
        // load 0.3 to 1.7), vsync on and off: 60 Hz 9 and 9, then 10 and 10 three times; 144 Hz
        // 10 and 10 three times, 8 and 10 twice (paced measured 3400 hitches a minute against
        // 1900, and one or two hitches where none were predicted). Before the work's tail was
        // drawn, 144 Hz had 7 and 9 (variable 2 hitches and auto 4 where none were predicted);
        // before each run's own costs, 8 and 4 and 6 and 5. Still by chance now and then: a test
        // that fails by chance on CI would stop every change.
        agreement_test("xvfb_s_emulated_60_hz_card_agrees_with_its_predictions_with_vsync_on_and_off", "60", [9, 9])
            .with_ignored_flag(true),
        agreement_test("xvfb_s_emulated_144_hz_card_agrees_with_its_predictions_with_vsync_on_and_off", "144", [8, 8])
            .with_ignored_flag(true),
        // Runs when asked (`-- --ignored`): at 240 Hz (a 4.2 ms refresh against 1.5 to 2.2 ms of
        // work and a 0.7 to 1.2 ms wake-up on llvmpipe, in this debug build; the release build's
        // are 0.7 to 1.1 and 0.2 to 0.4) the measured runs miss refreshes in bursts (lockstep
        // alone, 8 s at a time: 11 to 181 missed of 1920). Same conditions as above: 9 and 10,
        // then 10 and 10 four times; before the work's tail was drawn 9 and 10, 9 and 8, 8 and
        // 10, 7 and 10 (lockstep, interpolated and paced a few hitches over); before each run's
        // own costs, 7 and 8 and 5 and 2.
        agreement_test("xvfb_s_emulated_240_hz_card_agrees_with_its_predictions_with_vsync_on_and_off", "240", [8, 8])
            .with_ignored_flag(true),
    ]
}

/// Every strategy, for the tours whose cards are judged on agreement.
const ALL: &str = "all";

/// A tour of every strategy (2 s each: one hitch in a 1 s run is already 60 a
/// minute) on an emulated `rate` whose card must agree with
/// its predictions on at least `least[0]` of 10 strategies with vsync on and
/// `least[1]` with vsync off. Agreement is a timing figure: on
/// a machine busier than it has cores the test reports itself skipped, with
/// the load and the card's own sentences as evidence. A machine that cannot
/// keep up with the refresh says so on the card, and its strategies still count.
fn agreement_test(name: &'static str, rate: &'static str, least: [usize; 2]) -> Trial {
    Trial::ignorable_test(harness::name(module_path!(), name), move || {
        harness::gpu_probe().map_err(|m| m.detail.clone())?;
        let out = {
            let _window = harness::one_window_at_a_time();
            match run_tour_of(rate, ALL, "2", "1") {
                Ok(out) => out,
                Err(missing) => return harness::unavailable(&missing),
            }
        };
        judge_card(&card_file(&out, "json")?, &format!("{rate} Hz emulated"), least)
    })
}

/// Judges the card at `path` (`what` names it): at least `least[0]` strategies
/// agree with their predictions with vsync on and `least[1]` with vsync off, or, on a
/// machine busier than it has cores, the test is skipped with the load and the
/// card's own sentences (and its notes on the compositor and on keeping up).
///
/// # Errors
/// The card cannot be read.
pub fn judge_card(path: &std::path::Path, what: &str, least: [usize; 2]) -> Result<Completion, Failed> {
    let card = ReportCard::read(path)?;
    let m = card.monitors.first().ok_or("a card without a monitor")?;
    let passes = [(Some(true), "vsync on", least[0]), (Some(false), "vsync off", least[1])]
        .map(|(pass, label, least)| (label, pass_agreement(m, pass), least));
    let mut evidence: Vec<String> = passes.iter().map(|(label, a, _)| format!("{label}: {}", a.sentence())).collect();
    evidence.extend(m.notes.iter().filter(|n| n.starts_with("compositor:") || n.contains("does not keep up")).cloned());
    let evidence = format!("{what}: {}", evidence.join("; "));
    eprintln!("{evidence} ({})", harness::load_evidence());
    if harness::machine_busy() {
        let why =
            format!("{evidence} ({}): agreement needs a machine no busier than it has cores", harness::load_evidence());
        return Ok(Completion::ignored_with(why));
    }
    for (label, a, least) in &passes {
        assert!(
            a.agreeing >= *least,
            "{label} agrees on {} of {}, at least {least} wanted: {evidence}",
            a.agreeing,
            a.compared
        );
    }
    Ok(Completion::Completed)
}

/// A test that needs a measured tour; ignored where none can run.
fn measure_test(name: &'static str, test: fn() -> Result<(), Failed>) -> Trial {
    Trial::ignorable_test(harness::name(module_path!(), name), move || match tour("60") {
        Err(missing) => harness::unavailable(&missing),
        Ok(_) => test().map(|()| Completion::Completed),
    })
}

/// `measure` on an emulated `rate`: its `--out` directory, run once per rate
/// (the first test to ask runs it); or why it cannot run here.
fn tour(rate: &'static str) -> Result<PathBuf, Missing> {
    let mut tours = TOURS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, done)) = tours.iter().find(|(r, _)| *r == rate) {
        return done.clone().map_err(|e| Missing { what: "measure cannot run here".to_owned(), detail: e });
    }
    harness::gpu_probe().map_err(Missing::clone)?;
    let _window = harness::one_window_at_a_time();
    let result = run_tour_of(rate, &STRATEGIES.join(","), "0.6", "1");
    tours.push((rate, result.clone().map_err(|m| m.detail)));
    result
}

/// `measure` of `strategies` on an emulated `rate`, `seconds` a strategy and
/// `probe` a present mode, in a small window: its `--out` directory.
fn run_tour_of(rate: &str, strategies: &str, seconds: &str, probe: &str) -> Result<PathBuf, Missing> {
    let xvfb = match std::env::var("DISPLAY").ok().filter(|d| !d.is_empty()) {
        Some(_) => None,
        None => Some(harness::start_xvfb("1280x800x24")?),
    };
    let display = xvfb.as_ref().map_or_else(|| std::env::var("DISPLAY").unwrap_or_default(), |x| x.name.clone());
    let dir = scratch(&format!("measure-{rate}-{}", strategies.replace(',', "-")));
    let out = dir.join("out");
    let output = Command::new(BIN)
        .args(["measure", "--out"])
        .arg(&out)
        .args(["--emulate-refresh", rate, "--strategies", strategies])
        .args(["--seconds-per-strategy", seconds, "--probe-seconds", probe, "--window-size", "320x180", "--no-overlay"])
        .args(["--name", &format!("xvfb at {rate} Hz")])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Missing::new("timestep-lab cannot start", e.to_string()))?;
    drop(xvfb);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    std::fs::write(dir.join("stderr.log"), &stderr).map_err(|e| Missing::new("no scratch space", e.to_string()))?;
    if !output.status.success() && stderr.contains("no display") {
        return Err(Missing::new("timestep-lab cannot open a window here", stderr));
    }
    assert!(output.status.success(), "measure at {rate} Hz failed ({}):\n{stderr}", output.status);
    assert!(stderr.contains("measure [1/"), "a progress line: {stderr}");
    Ok(out)
}

/// The tour a user runs, without `RUST_LOG` and without `XDG_RUNTIME_DIR`
/// (a bare Xvfb session): winit's XRandR and XSETTINGS warnings and Mesa's
/// device-select layer stay quiet; what is left is the tour's own progress,
/// the one display-time line (the frames' times are estimates, and why) and
/// its end.
fn a_quiet_tour() -> Result<Completion, Failed> {
    if let Err(missing) = harness::gpu_probe() {
        return harness::unavailable(missing);
    }
    let xvfb = match harness::start_xvfb("1280x800x24") {
        Ok(xvfb) => xvfb,
        Err(missing) => return harness::unavailable(&missing),
    };
    let _window = harness::one_window_at_a_time();
    let out = scratch("measure-quiet").join("out");
    let output = Command::new(BIN)
        .args(["measure", "--out"])
        .arg(&out)
        .args(["--emulate-refresh", "60", "--strategies", "snapped", "--seconds-per-strategy", "0.6"])
        .args(["--probe-seconds", "1", "--no-vsync-off", "--window-size", "320x180"])
        .env("DISPLAY", &xvfb.name)
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("RUST_LOG")
        .env_remove("XDG_RUNTIME_DIR")
        .stdin(Stdio::null())
        .output()?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "measure failed ({}):\n{stderr}", output.status);
    let said: Vec<&str> = stderr
        .split(['\n', '\r'])
        .chain(stdout.split(['\n', '\r']))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("measure [") && !l.starts_with("The tour is done: "))
        .filter(|l| !l.contains("display times fell back to present-return: "))
        .collect();
    assert!(said.is_empty(), "only the tour's own lines: {said:?}\n{stderr}");
    assert!(stderr.contains("measure [1/") || stdout.contains("measure [1/"), "a progress line: {stderr}");
    Ok(Completion::Completed)
}

fn the_three_files() -> Result<(), Failed> {
    let out = tour("60").map_err(|m| m.detail)?;
    let json = card_file(&out, "json")?;
    let card = ReportCard::read(&json)?;
    let named = timestep_lab::report_card::card_file_name(&card, "json");
    assert_eq!(json.file_name().map(|n| n.to_string_lossy().into_owned()), Some(named.clone()), "named by the card");
    assert!(named.starts_with("report-xvfb-at-60-hz-60hz-"), "the name, the refresh and the minute: {named}");
    assert_eq!(card.version, 1, "version 1");
    assert_eq!(card.machine.name.as_deref(), Some("xvfb at 60 Hz"), "--name is the machine's label");
    assert!(card.created.as_deref().is_some_and(|c| c.ends_with('Z')), "an RFC 3339 UTC time: {:?}", card.created);
    assert_eq!(card.monitors.len(), 1, "one monitor on Xvfb");
    let m = &card.monitors[0];
    assert_eq!(m.emulated_refresh_hz, Some(60.0), "the emulated grid is on the card");
    let first = &m.present_modes[0];
    assert!(first.mode.ends_with("emulated 60 Hz"), "the emulated grid is probed first: {}", first.mode);
    assert!(first.intervals.as_ref().is_some_and(|i| i.count > 0), "the probe measured intervals: {first:?}");
    assert!(m.present_modes.iter().any(|p| p.mode == "Fifo"), "Fifo is always supported and probed");
    for vsync in [true, false] {
        let runs: Vec<_> = m.runs.iter().filter(|r| r.vsync_requested == Some(vsync)).collect();
        let names: Vec<&str> = runs.iter().map(|r| r.strategy.as_str()).collect();
        assert_eq!(names, STRATEGIES, "every strategy ran with vsync {vsync}");
        for r in &runs {
            assert!(
                r.figure(&TOTAL_UPDATES).is_some_and(|u| u > 0.0),
                "{} (vsync {vsync}) updated the world: {r:?}",
                r.strategy
            );
            assert_eq!(r.model, Some(timestep_lab::report::RunOrigin::Window), "a measured run");
            assert!(r.figure(&PRESENT_INTERVAL_MEAN_MS).is_some(), "{} has present intervals", r.strategy);
        }
        let emulated = runs.iter().all(|r| r.present_mode.as_deref().is_some_and(|p| p.contains("emulated")));
        assert_eq!(emulated, vsync, "vsync on runs on the emulated grid, vsync off on a real non-blocking mode");
        let predicted: Vec<&str> =
            m.predictions.iter().filter(|p| p.vsync_requested == Some(vsync)).map(|p| p.strategy.as_str()).collect();
        assert_eq!(predicted, STRATEGIES, "a prediction beside every run (vsync {vsync})");
    }
    assert!(m.predictions.iter().all(|p| p.refresh_hz == Some(60.0)), "predicted at the emulated 60 Hz");
    let trace = m.frame_trace.as_ref().expect("a frame-time trace");
    assert!(trace.label.starts_with("interpolated") && !trace.intervals_ms.is_empty(), "{trace:?}");
    let html = std::fs::read_to_string(card_file(&out, "html")?)?;
    assert!(html.contains("<svg") && !html.contains("<script"), "inline SVG, no script");
    assert!(html.contains("xvfb at 60 Hz"), "the page names the machine");
    check_not_blank_png(&card_file(&out, "png")?)
}

/// The one card a tour wrote into `out`, or its page or screenshot (`extension`), named for the card.
pub fn card_file(out: &std::path::Path, extension: &str) -> Result<PathBuf, String> {
    let cards = timestep_lab::report_card::file_name::cards_in(out).map_err(|e| format!("{}: {e}", out.display()))?;
    match cards.as_slice() {
        [json] => Ok(json.with_extension(extension)),
        other => Err(format!("one card in {}, found {other:?}", out.display())),
    }
}

/// The window screenshot decodes and is not one flat colour.
fn check_not_blank_png(png: &std::path::Path) -> Result<(), Failed> {
    let image = image::open(png).map_err(|e| format!("{} does not decode: {e}", png.display()))?.to_rgb8();
    let first = image.pixels().next().copied();
    let differing = image.pixels().filter(|p| Some(**p) != first).count();
    assert!(differing * 100 > image.pixels().len(), "the screenshot is nearly one colour ({differing} pixels differ)");
    Ok(())
}

fn compare_two_rates() -> Result<(), Failed> {
    let a = tour("60").map_err(|m| m.detail)?;
    let b = tour("144").map_err(|m| m.detail)?;
    let dir = scratch("measure-compare");
    let html = dir.join("compare.html");
    let output: Output =
        Command::new(BIN).arg("compare").arg(&a).arg(card_file(&b, "json")?).arg("--html").arg(&html).output()?;
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "compare failed: {}", String::from_utf8_lossy(&output.stderr));
    for pass in ["vsync on:", "vsync off:"] {
        let table = text.split(pass).nth(1).unwrap_or_else(|| panic!("a '{pass}' table: {text}"));
        let header = table.lines().nth(1).expect("a header line");
        assert!(header.contains("60 Hz emulated") && header.contains("144 Hz emulated"), "{pass} header: {header}");
        for strategy in STRATEGIES {
            let row = table.lines().find(|l| l.starts_with(strategy)).unwrap_or_else(|| panic!("{strategy}: {table}"));
            assert_eq!(row.matches(" | ").count(), 2, "a cell per report: {row}");
        }
    }
    assert!(text.contains("the simulator agrees on"), "measured cards carry predictions: {text}");
    assert!(std::fs::read_to_string(&html)?.contains("144 Hz emulated"), "compare.html has both columns");
    Ok(())
}
