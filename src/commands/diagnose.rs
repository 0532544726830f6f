//! `timestep-lab diagnose CAPTURE`: the flags and the output. A game's capture
//! (PresentMon 1.x/2.x, OCAT, CapFrameX, FrameView) read for PresentMon's own
//! per-frame metrics ([`timestep_core::monitor::presentmon`]); the facts,
//! verdict and fix are [`crate::report_card::diagnosis`]'s.
//!
//! ```text
//! CAPTURE ──► read_capture_file (read once: one column mapping, one row type)
//!    ├─► .capture (the game's clock) ──► one swap chain ──► frame_metrics ──► --frames OUT.csv
//!    │                                                   └─► diagnosis::verdict::card (facts, verdict, fix)
//!    └─► .trace (the replay's rules: bad input is one line, exit 2) ──► on the display the facts found
//!             └─► simulate::replay (the ten strategies, by the simulator's API) ──► the fix
//!         ──► --out DIR: diagnosis.json + diagnosis.html; --budget / --junit: exit 1 when broken
//! ```

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::cli;
use crate::error::CliError;
use crate::monitor::presentmon::{
    Capture, CaptureChain, CaptureFigures, frame_metrics, frames_csv, is_tool, read_capture_file,
};
use crate::monitor::{Trace, TraceOptions};
use crate::report::registry::{HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS, STRATEGY};
use crate::report::trim_number;
use crate::report_card::RunRecord;
use crate::report_card::diagnosis::DiagnosisCard;
use crate::report_card::diagnosis::facts::{self, Sync};
use crate::report_card::diagnosis::{budget, generation, verdict};
use crate::time::{NANOS_PER_SEC, Rate};
use crate::vrr::{Refresh, VrrRange};

use super::simulate::ReplayOptions;

/// Arguments of `timestep-lab diagnose`.
///
/// Reads a game's frame capture and says what its loop does: PresentMon's
/// per-frame DisplayedTime and AnimationError recomputed from the raw
/// timestamps, the lab's figures (judder, hitches, latency, the display
/// pattern, refresh, VRR, tearing, dropped frames, queue depth), a verdict
/// with its evidence, and which of the ten strategies would do best on this
/// display with the same frame times.
#[derive(clap::Args, Debug, Clone)]
pub struct DiagnoseArgs {
    /// The capture: PresentMon 1.x or 2.x CSV (any layout), OCAT or CapFrameX.
    #[arg(value_name = "CAPTURE", value_parser = cli::file_name)]
    pub(crate) capture: PathBuf,

    /// The game to diagnose (ASCII case-insensitive), when the capture holds several.
    #[arg(long, value_name = "NAME")]
    pub(crate) app: Option<String>,

    /// Write one row per frame of the swap chain with PresentMon's column names.
    #[arg(long, value_name = "OUT.csv", value_parser = cli::file_name)]
    pub(crate) frames: Option<PathBuf>,

    /// Write the diagnosis card there: diagnosis.json and diagnosis.html.
    #[arg(long, value_name = "DIR", value_parser = cli::file_name)]
    pub(crate) out: Option<PathBuf>,

    /// Limits for a game's CI (`judder=2ms,hitches=5/min,latency=50ms`): exit 1 when the capture breaks one.
    #[arg(long, value_name = "LIMITS")]
    pub(crate) budget: Option<String>,

    /// Write the budget's checks as JUnit XML there (with --budget).
    #[arg(long, value_name = "FILE.xml", value_parser = cli::file_name, requires = "budget")]
    pub(crate) junit: Option<PathBuf>,
}

fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// The applications with frames, with their row counts, in order of appearance.
fn apps(capture: &Capture) -> Vec<(String, usize)> {
    let mut apps: Vec<(String, usize)> = Vec::new();
    for chain in &capture.chains {
        match apps.iter_mut().find(|(a, _)| a.eq_ignore_ascii_case(&chain.app)) {
            Some((_, n)) => *n += chain.frames.len(),
            None => apps.push((chain.app.clone(), chain.frames.len())),
        }
    }
    apps
}

/// The application to diagnose: `--app`, else the one game (not dwm.exe), else the only application.
///
/// # Errors
/// Several games without `--app`, or an `--app` not in the capture: one line naming them.
pub(crate) fn choose_app(capture: &Capture, app: Option<&str>) -> Result<String, CliError> {
    let apps = apps(capture);
    let list = |apps: &[&(String, usize)]| {
        apps.iter()
            .map(|(a, n)| format!("{} ({n} frames)", if a.is_empty() { "(no name)" } else { a }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(name) = app {
        return apps.iter().find(|(a, _)| a.eq_ignore_ascii_case(name)).map(|(a, _)| a.clone()).ok_or_else(|| {
            usage(format!(
                "--app {name}: not in the capture; its applications: {}",
                list(&apps.iter().collect::<Vec<_>>())
            ))
        });
    }
    let games: Vec<&(String, usize)> = apps.iter().filter(|(a, _)| !is_tool(a)).collect();
    match games.as_slice() {
        [one] => Ok(one.0.clone()),
        [] => apps
            .iter()
            .max_by_key(|(_, n)| *n)
            .map(|(a, _)| a.clone())
            .ok_or_else(|| usage("the capture holds no frames")),
        several => {
            Err(usage(format!("the capture holds several games: {}; choose one with --app NAME", list(several))))
        }
    }
}

/// The application's swap chain with the most rows (the first of equals), as the replay picks it.
fn chosen_chain<'a>(capture: &'a Capture, app: &str) -> Option<&'a CaptureChain> {
    capture
        .chains
        .iter()
        .enumerate()
        .filter(|(_, c)| c.app.eq_ignore_ascii_case(app))
        .min_by_key(|&(i, c)| (std::cmp::Reverse(c.frames.len()), i))
        .map(|(_, c)| c)
}

/// The diagnosis of one swap chain, ready to print or save.
pub(crate) struct Diagnosis {
    pub(crate) card: DiagnosisCard,
    pub(crate) frames_csv: String,
    /// The game's judder (ms RMS), hitches per minute and mean latency (ms), where known.
    pub(crate) budgeted: (Option<f64>, Option<f64>, Option<f64>),
}

/// Diagnoses `path`.
///
/// # Errors
/// [`CliError::Usage`] for a capture the trace reader refuses, or a game to choose.
pub(crate) fn diagnose(path: &Path, app: Option<&str>) -> Result<Diagnosis, CliError> {
    let name = path.display();
    // The file is read once; the diagnosis's timestamps and the replay's frames both come from its rows.
    let file = read_capture_file(path, TraceOptions::default().max_bytes).map_err(|e| usage(format!("{name}: {e}")))?;
    let mut capture = file.capture(None).map_err(|e| usage(format!("{name}: {e}")))?;
    let app = choose_app(&capture, app)?;
    // The clock from the game's own rows, where the reader took another application's.
    if capture.clock_app.as_ref().is_some_and(|c| !c.eq_ignore_ascii_case(&app)) {
        capture = file.capture(Some(&app)).map_err(|e| usage(format!("{name}: {e}")))?;
    }
    // The replay's rules for bad input (ranges, nothing displayed), and its frames.
    let trace = file.trace((!app.is_empty()).then_some(app.as_str())).map_err(|e| usage(format!("{name}: {e}")))?;
    // Its rows are no longer needed: the replay and the metrics hold what they took.
    drop(file);
    let chain = chosen_chain(&capture, &app).ok_or_else(|| usage(format!("{name}: no swap chain of {app}")))?;
    // Without a FrameType column, a frame generator's frames are told by the pattern they leave.
    let marked = generation::mark(chain, capture.frame_type_known);
    let chain = marked.as_ref().unwrap_or(chain);
    let metrics = frame_metrics(&chain.frames);
    let figures = CaptureFigures::of(chain, &metrics, capture.hz);
    let sync = facts::sync(chain, &facts::display_intervals(chain, &metrics, capture.hz));
    let (trace, options, replayed_on) = replay_display(trace, &sync);
    let strategies = replay(trace, &options)?;
    let card = verdict::card(path, &capture, chain, &metrics, &figures, strategies, &replayed_on);
    let stats = figures.stats.as_ref();
    let budgeted = (stats.map(|s| s.judder_ms), stats.map(|s| s.hitches_per_min), stats.map(|s| s.latency_ms));
    Ok(Diagnosis { card, frames_csv: frames_csv(chain, &metrics, capture.hz), budgeted })
}

/// The refresh a replay assumes where the capture does not say (the simulator's default).
const ASSUMED_HZ: u64 = 60;

/// The display the replay runs on, from what the diagnosis read of the
/// capture's display ([`facts::sync`]), not the trace reader's own guess (a
/// 30 fps cap on a VRR display reads 30 Hz there), and the words that name it:
///
/// - a refresh grid: that refresh, the capture's display changes counted on it;
/// - VRR: a VRR display over the range the capture's display changes span
///   (10th to 90th percentile, widened to whole Hz), its frames shown when presented;
/// - tearing or too few display changes: an assumed 60 Hz.
fn replay_display(trace: Trace, sync: &Sync) -> (Trace, ReplayOptions, String) {
    let assumed = Rate::from_hz(ASSUMED_HZ);
    match sync {
        Sync::Grid(grid) => {
            let period = (grid.period_ms * 1e6).round() as u64;
            if let Ok(rate) = Rate::new(NANOS_PER_SEC, period.max(1)) {
                let words =
                    format!("this {} Hz display (measured from its display changes)", trim_number(grid.hz(), 2));
                return (trace.on_refresh(rate), ReplayOptions { refresh: Some(Refresh::Fixed(rate)) }, words);
            }
        }
        Sync::Vrr { p10_ms, p90_ms, .. } => {
            let min = (1000.0 / p90_ms).floor().clamp(1.0, 999.0) as u64;
            let max = ((1000.0 / p10_ms).ceil().clamp(1.0, 1000.0) as u64).max(min + 1);
            if let Ok(range) = VrrRange::new(Rate::from_hz(min), Rate::from_hz(max)) {
                let words = format!(
                    "a VRR display of {min}-{max} Hz (the range its display changes span, {} to {} ms from the 10th \
                     to the 90th percentile; the panel's own range is unknown)",
                    trim_number(*p10_ms, 2),
                    trim_number(*p90_ms, 2)
                );
                return (trace.on_virtual_display(), ReplayOptions { refresh: Some(Refresh::Vrr(range)) }, words);
            }
        }
        Sync::Tearing { .. } => {
            let words = format!(
                "an assumed {ASSUMED_HZ} Hz display (the frames tear, so their display changes do not give the refresh)"
            );
            return (trace, ReplayOptions { refresh: Some(Refresh::Fixed(assumed)) }, words);
        }
        Sync::Unknown { .. } => {}
    }
    let words = format!("an assumed {ASSUMED_HZ} Hz display (the capture's refresh is unknown)");
    (trace.on_virtual_display(), ReplayOptions { refresh: Some(Refresh::Fixed(assumed)) }, words)
}

/// The capture's frame times (the trace reader's) through the ten strategies, by the simulator's API.
fn replay(trace: Trace, options: &ReplayOptions) -> Result<Vec<RunRecord>, CliError> {
    let runs = super::simulate::replay(trace, options)?;
    Ok(runs.iter().map(|spec| RunRecord::from(&crate::sim::simulate(spec).report())).collect())
}

/// The diagnosis as text.
pub(crate) fn to_text(card: &DiagnosisCard) -> String {
    let mut out = format!("diagnosis of {}\ncapture: {} ({})\n\n", card.swap_chain, card.capture, card.layout);
    let width = card.figures.iter().map(|f| f.name.chars().count()).max().unwrap_or(0);
    for f in &card.figures {
        let _ = writeln!(out, "{:width$}  {}", f.name, f.reading);
    }
    for (title, lines) in
        [("verdict", &card.verdict), ("what the capture cannot tell", &card.cannot_tell), ("fix", &card.fix)]
    {
        let _ = writeln!(out, "\n{title}:");
        for line in lines {
            let _ = writeln!(out, "- {line}");
        }
    }
    let _ = writeln!(out, "\nthe same frame times through the ten strategies:");
    let _ = writeln!(
        out,
        "{:<20} {:>10} {:>14} {:>11}",
        STRATEGY.label(),
        JUDDER_MS.label(),
        HITCHES_PER_MIN.label(),
        LATENCY_MS.label()
    );
    let cell = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| trim_number(v, 2));
    for run in &card.strategies {
        let _ = writeln!(
            out,
            "{:<20} {:>10} {:>14} {:>11}",
            run.strategy,
            cell(run.figure(&JUDDER_MS)),
            cell(run.hitches_per_min()),
            cell(run.figure(&LATENCY_MS))
        );
    }
    out
}

/// Runs `diagnose`.
///
/// # Errors
/// [`CliError::Usage`] for an unreadable or unusable capture, several games
/// without `--app`, or an unwritable output; [`CliError::Runtime`] when an
/// output cannot be written after the diagnosis.
pub fn run(args: &DiagnoseArgs) -> Result<(), CliError> {
    if let Some(path) = &args.frames {
        cli::check_writable(path).map_err(|e| usage(format!("--frames: {e}")))?;
    }
    if let Some(path) = &args.junit {
        cli::check_writable(path).map_err(|e| usage(format!("--junit: {e}")))?;
    }
    let limits = args.budget.as_deref().map(budget::parse).transpose().map_err(|e| usage(format!("--budget {e}")))?;
    let diagnosis = diagnose(&args.capture, args.app.as_deref())?;
    if let Some(path) = &args.frames {
        crate::platform::write_file(path, &diagnosis.frames_csv).map_err(CliError::Runtime)?;
        log::info!("diagnose: wrote {}", path.display());
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| usage(format!("--out {}: {e}", dir.display())))?;
        let json = diagnosis.card.to_json().map_err(|e| CliError::Runtime(format!("cannot write JSON: {e}")))?;
        crate::platform::write_file(&dir.join("diagnosis.json"), json).map_err(CliError::Runtime)?;
        let html = diagnosis.card.to_html().map_err(CliError::runtime)?;
        crate::platform::write_file(&dir.join("diagnosis.html"), html).map_err(CliError::Runtime)?;
        log::info!("diagnose: wrote {}", dir.display());
    }
    let mut text = to_text(&diagnosis.card);
    let checks = limits.map(|limits| {
        let (judder, hitches, latency) = diagnosis.budgeted;
        budget::check(&limits, judder, hitches, latency)
    });
    if let Some(checks) = &checks {
        text.push_str("\nbudget:\n");
        for c in checks {
            let _ = writeln!(text, "- {}", c.line());
        }
    }
    if let (Some(path), Some(checks)) = (&args.junit, &checks) {
        crate::platform::write_file(path, budget::junit(&diagnosis.card.capture, checks)).map_err(CliError::Runtime)?;
        log::info!("diagnose: wrote {}", path.display());
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::Runtime(format!("cannot write output: {e}")))?;
    match checks.iter().flatten().find(|c| !c.passes()) {
        Some(broken) => Err(CliError::Runtime(format!("over budget: {}", broken.line()))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synced trace whose display changes alternate 3, 4 and 5 refreshes of 120 Hz (a 30 fps cap).
    fn capped_at_30_on_120() -> Trace {
        let mut csv = String::from("Application,MsBetweenPresents,MsBetweenDisplayChange\n");
        for q in ["33.333", "25.000", "33.333", "41.667"].repeat(5) {
            csv.push_str(&format!("game.exe,33.333,{q}\n"));
        }
        crate::monitor::parse_trace(csv.as_bytes(), &TraceOptions::default()).expect("a capture")
    }

    #[test]
    fn the_replay_runs_on_the_refresh_the_diagnosis_read_not_the_trace_reader_s_guess() {
        let trace = capped_at_30_on_120();
        // The trace reader alone snaps these to the common 119.88 Hz; the diagnosis's grid is 120 Hz.
        assert_eq!(trace.refresh(), Rate::new(120_000, 1001).ok());
        let grid = facts::Grid { period_ms: 1000.0 / 120.0, on_grid: 20, intervals: 20, off_lines: Vec::new() };
        let (trace, options, words) = replay_display(trace, &Sync::Grid(grid));
        let rate = Rate::new(NANOS_PER_SEC, 8_333_333).expect("120 Hz");
        assert_eq!((trace.refresh(), options.refresh), (Some(rate), Some(Refresh::Fixed(rate))));
        assert_eq!(words, "this 120 Hz display (measured from its display changes)");
    }

    #[test]
    fn a_vrr_capture_is_replayed_on_a_vrr_display_over_the_range_its_display_changes_span() {
        // 1000 / 33.8 = 29.6 Hz and 1000 / 32.9 = 30.4 Hz: 29 to 31 Hz in whole Hz.
        let sync = Sync::Vrr { p10_ms: 32.9, p90_ms: 33.8, intervals: 100 };
        let (trace, options, words) = replay_display(capped_at_30_on_120(), &sync);
        assert_eq!(trace.display(), crate::monitor::TraceDisplay::Virtual, "shown when presented, on the panel");
        assert_eq!(options.refresh, Some("vrr:29-31".parse().expect("a VRR range")));
        assert!(
            words.starts_with("a VRR display of 29-31 Hz (the range its display changes span, 32.9 to 33.8 ms"),
            "{words}"
        );
    }

    #[test]
    fn where_the_refresh_is_unknown_the_replay_says_it_assumed_60_hz() {
        for sync in [Sync::Unknown { intervals: 3 }, Sync::Tearing { tearing: 9, frames: 10 }] {
            let (_, options, words) = replay_display(Trace::from_frame_times(&[16_666_667; 10]), &sync);
            assert_eq!(options.refresh, Some(Refresh::Fixed(Rate::from_hz(60))), "{sync:?}");
            assert!(words.starts_with("an assumed 60 Hz display ("), "{words}");
        }
    }

    #[test]
    fn the_page_and_compare_read_a_diagnosis_card_as_its_ten_runs() {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/trace/synthetic_144hz.csv");
        let diagnosis = diagnose(&path, None).expect("a diagnosis");
        let json = diagnosis.card.to_json().expect("JSON");
        match crate::report_card::comparison::parse_source(&json) {
            Ok(crate::report_card::comparison::Source::Runs(runs)) => assert_eq!(runs.len(), 10, "{runs:?}"),
            other => panic!("a diagnosis card is the replay's runs: {other:?}"),
        }
    }
}
