//! The verdict and the fix of a diagnosis, in words, from its facts
//! ([`super::facts`]) and PresentMon's metrics: the card's figures, each
//! finding with its evidence (lines of the capture), and the best strategy
//! with the display it assumed and its cost.

use std::fmt::Write as _;
use std::path::Path;

use super::facts::{self, Sync};
use super::{DIAGNOSIS_SCHEMA, DIAGNOSIS_VERSION, DiagnosisCard, Figure, Series};
use super::{generation, reported};
use crate::monitor::presentmon::{
    Capture, CaptureChain, CaptureFigures, CaptureLayout, FrameMetrics, Ticks, ticks_to_ms,
};
use crate::report::registry::{HITCHES, HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS};
use crate::report::trim_number;
use crate::report_card::RunRecord;
use crate::report_card::choice::Spread;
use crate::report_card::evidence::Footing;
use crate::report_card::judge::{self, MAX_DRIFT_MS_PER_MIN, Metric, best};
use crate::report_card::noise::{self, JUDDER_TIE_MS};
use crate::strategy::StrategyId;

/// `12.3 ms`.
fn ms(value: f64) -> String {
    format!("{} ms", trim_number(value, 2))
}

fn figure(name: &str, reading: String, value: Option<f64>) -> Figure {
    Figure { name: name.to_owned(), reading, value }
}

/// The figures, the verdict, what cannot be told and the fix; `replayed_on`
/// names the display the strategies were replayed on (`this 120 Hz display (…)`).
pub(crate) fn card(
    path: &Path,
    capture: &Capture,
    chain: &CaptureChain,
    metrics: &[FrameMetrics],
    f: &CaptureFigures,
    strategies: Vec<RunRecord>,
    replayed_on: &str,
) -> DiagnosisCard {
    let hz = capture.hz;
    let to_ms = |t: Ticks| ticks_to_ms(t, hz);
    let intervals = facts::display_intervals(chain, metrics, hz);
    let sync = facts::sync(chain, &intervals);
    let grid = match &sync {
        Sync::Grid(grid) => Some(grid),
        _ => None,
    };
    let cadence = grid.and_then(|g| facts::cadence(&intervals, g));
    let refresh_hz = grid.map(facts::Grid::hz);
    let period_ms = grid.map(|g| g.period_ms);
    let by_pattern = generation::marked(chain);
    let alternation = (!capture.frame_type_known && by_pattern == 0)
        .then(|| generation::latency_alternation(&chain.frames, hz))
        .flatten();
    let own = reported::file_figures(chain, metrics, hz);
    let mut figures = Vec::new();
    figures.push(figure(
        "frames",
        if capture.display_known {
            format!(
                "{} presented, {} displayed, {} dropped, {}, {} tearing",
                f.frames,
                f.displayed,
                f.dropped,
                generated_words(capture, f.generated, by_pattern, alternation.is_some()),
                f.tearing
            )
        } else {
            format!(
                "{} presented; displayed, dropped and generated unknown (no MsUntilDisplayed or DisplayLatency \
                 column)",
                f.frames
            )
        },
        Some(f.frames as f64),
    ));
    let fps = f.fps.map_or_else(|| "unknown".to_owned(), |fps| format!("{} fps", trim_number(fps, 1)));
    let display = match (&sync, &cadence) {
        (Sync::Grid(g), Some(c)) => format!(
            "{} at {fps} on a {} Hz display ({}; from line {})",
            c.sequence(12),
            trim_number(g.hz(), 2),
            c.usual().iter().map(|(n, k)| format!("{n}: {k}")).collect::<Vec<_>>().join(", "),
            c.first_line
        ),
        _ => format!("{fps}; no refresh grid (see refresh)"),
    };
    figures.push(figure("display pattern (refreshes each frame stayed)", display, f.fps));
    let refresh = match &sync {
        Sync::Grid(g) => format!(
            "{} Hz: {} of {} display changes are whole multiples of {} within {} ms{}",
            trim_number(g.hz(), 3),
            g.on_grid,
            g.intervals,
            ms(g.period_ms),
            facts::GRID_TOLERANCE_MS,
            if g.off_lines.is_empty() {
                String::new()
            } else {
                format!(" (off it: line {})", g.off_lines.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))
            }
        ),
        Sync::Vrr { intervals, .. } => {
            format!(
                "unknown: {intervals} display changes fall on no refresh grid of {} ms or longer",
                facts::MIN_PERIOD_MS
            )
        }
        Sync::Tearing { .. } => "unknown: the frames tear, so display changes follow the frame rate".to_owned(),
        Sync::Unknown { intervals } => format!("unknown: {intervals} display changes of frames that do not tear"),
    };
    figures.push(figure("refresh", refresh, refresh_hz));
    let vrr = match &sync {
        Sync::Grid(_) => "no: display changes on a fixed refresh grid".to_owned(),
        Sync::Vrr { p10_ms, p90_ms, intervals } => format!(
            "likely: {intervals} display changes spread continuously from {} to {} (10th to 90th percentile) on no \
             grid, and the frames do not tear",
            ms(*p10_ms),
            ms(*p90_ms)
        ),
        Sync::Tearing { tearing, frames } => {
            format!("unknown: {tearing} of {frames} frames tear (vsync off), so display changes follow the frame rate")
        }
        Sync::Unknown { .. } => "unknown: too few display changes".to_owned(),
    };
    figures.push(figure("VRR", vrr, None));
    if let Some(c) = &cadence {
        figures.push(figure(
            "cadence judder",
            format!("{} RMS of the display changes about their mean", ms(c.spread_ms)),
            Some(c.spread_ms),
        ));
    }
    figures.push(if capture.tearing_known {
        figure("tearing", format!("{} of {} frames", f.tearing, f.frames), Some(f.tearing as f64))
    } else {
        figure("tearing", "unknown: no SyncInterval or AllowsTearing column".to_owned(), None)
    });
    figures.push(if capture.display_known {
        figure("dropped frames", format!("{} of {} frames", f.dropped, f.frames), Some(f.dropped as f64))
    } else {
        figure("dropped frames", "unknown: the file does not say which frames reached the screen".to_owned(), None)
    });
    let mut queue = f.queue_depth.map_or_else(
        || "unknown".to_owned(),
        |(mean, max)| format!("{} frames ahead of a present on average, {max} at most", trim_number(mean, 2)),
    );
    if let Some((mean, rows)) = own.render_queue {
        let _ = write!(
            queue,
            " (the file's Render Queue Depth: {} mean over {rows} rows, another count: the driver's queue of \
             rendering work, not the presents waiting for the screen)",
            trim_number(mean, 2)
        );
    }
    figures.push(figure("queue depth", queue, f.queue_depth.map(|q| q.0)));
    let ae = match (f.animation_error_rms_ms, f.animation_error_max) {
        (Some(rms), Some((max, line))) => {
            format!("{} RMS over {} frames, largest {} (line {line})", ms(rms), f.animation_errors, ms(max))
                + &file_says(own.animation_error.as_ref(), reported::Summary::Rms, rms)
        }
        _ => "unknown".to_owned(),
    };
    figures.push(figure("animation error", ae, f.animation_error_rms_ms));
    if let Some(s) = &f.stats {
        figures.push(figure(
            &JUDDER_MS.words(),
            format!("{} RMS, p99 {}", ms(s.judder_ms), ms(s.judder_p99_ms)),
            Some(s.judder_ms),
        ));
        figures.push(figure(
            &HITCHES.words(),
            format!(
                "{} ({}), largest {}",
                s.hitches,
                HITCHES_PER_MIN.with_unit(&trim_number(s.hitches_per_min, 1)),
                ms(s.max_hitch_ms)
            ),
            Some(s.hitches as f64),
        ));
        figures.push(figure(
            &LATENCY_MS.words(),
            format!(
                "CPU start to screen: mean {}, p95 {}, max {}{}{}",
                ms(s.latency_ms),
                ms(s.latency_p95_ms),
                ms(s.latency_max_ms),
                file_says(own.display_latency.as_ref(), reported::Summary::Mean, s.latency_ms),
                own.other_latency
                    .iter()
                    .map(|(column, mean, n, from)| format!(
                        " (the file's {column}: {} mean over {n} frames, another span: {from}, not the CPU start)",
                        ms(*mean)
                    ))
                    .collect::<String>()
            ),
            Some(s.latency_ms),
        ));
    } else {
        for name in [JUDDER_MS.words(), HITCHES.words(), LATENCY_MS.words()] {
            figures.push(figure(&name, "unknown: no CPU start and screen times for the frames".to_owned(), None));
        }
    }
    if let Some((mean, std)) = f.frame_time_mean_std_ms {
        figures.push(figure("frame time", format!("mean {}, σ {}", ms(mean), ms(std)), Some(mean)));
    }
    if let Some((mean, std)) = f.displayed_time_mean_std_ms {
        figures.push(figure(
            "displayed time",
            format!(
                "mean {}, σ {}{}",
                ms(mean),
                ms(std),
                file_says(own.displayed_time.as_ref(), reported::Summary::Mean, mean)
            ),
            Some(mean),
        ));
    }

    // The sample: displayed application frames, or every frame where the file has no display times.
    let (app_displayed, counted) = if capture.display_known {
        (chain.frames.iter().filter(|fr| fr.is_application() && fr.screen.is_some()).count(), "displayed application")
    } else {
        (chain.frames.iter().filter(|fr| fr.is_application()).count(), "presented")
    };
    let enough = app_displayed >= facts::MIN_FRAMES;
    let mut verdict = display_findings(&sync, cadence.as_ref(), f);
    let load = facts::load(chain, hz);
    if let Some(load) = &load {
        verdict.push(facts::bound(load));
    }
    // A steady rate that neither processor sets: a cap (σ under 3 % of the frame: a limiter's own jitter).
    let waits = load.as_ref().is_some_and(|l| {
        let busy = |ms: Option<f64>| ms.is_some_and(|ms| ms >= facts::BOUND_SHARE * l.frame_ms);
        !busy(l.cpu_ms) && !busy(l.gpu_ms) && l.gpu_util_pct.is_none_or(|u| u < facts::BOUND_UTIL_PCT)
    });
    if let Some((mean, std)) = f.frame_time_mean_std_ms
        && waits
        && mean > 0.0
        && std < 0.03 * mean
        && f.generated == 0
    {
        let held = period_ms.is_some_and(|p| (mean / p - 1.0).abs() < 0.02);
        verdict.push(format!(
            "{} at {} fps: present intervals {} mean, σ {} ({} %), and neither the CPU nor the GPU is the limit",
            if held { "held to the refresh (vsync)" } else { "capped" },
            trim_number(1000.0 / mean, 1),
            ms(mean),
            ms(std),
            trim_number(100.0 * std / mean, 1)
        ));
    }
    verdict.extend(self::verdict(chain, metrics, f, period_ms, &to_ms, by_pattern));
    if let Some(a) = &alternation {
        verdict.push(format!(
            "frame generation likely: MsPCLatency alternates between {} and {} (medians) present after present, on \
             {} of {} neighbouring rows by at least {} (half a present interval): every other present is likely a \
             frame generator's, shown between two of the game's",
            ms(a.low_ms),
            ms(a.high_ms),
            a.alternating,
            a.pairs,
            ms(a.step_ms)
        ));
    }
    if !enough {
        verdict.insert(
            0,
            format!(
                "too few frames for a verdict: {app_displayed} {counted} frames of {} rows; an RMS \
                 over n frames is within about 1/√(2n) of its own value ({} % here), and {} frames bring that to \
                 10 %; the findings below are what these frames show, not the game",
                f.frames,
                trim_number(100.0 / (2.0 * app_displayed.max(1) as f64).sqrt(), 0),
                facts::MIN_FRAMES
            ),
        );
    }
    let mut cannot_tell: Vec<String> = capture
        .missing
        .iter()
        .map(|m| {
            if m.starts_with("frame generation:") {
                generation_unknown(capture, chain, by_pattern, alternation.as_ref()).unwrap_or_else(|| m.clone())
            } else {
                m.clone()
            }
        })
        .collect();
    cannot_tell.push(
        "whether the game interpolates, its simulation step and when it reads input: a capture sees when each \
         frame's CPU work started and when it reached the screen, not what the frame depicts (app timing, where \
         present, gives the simulation start)"
            .to_owned(),
    );
    if f.stats.is_some() {
        cannot_tell.push(
            "latency from input: the figure runs from the frame's CPU start, and the game may read input later"
                .to_owned(),
        );
    }
    let fix = if enough {
        fix(f, replayed_on, &strategies)
    } else {
        vec![format!("none: a fix needs at least {} {counted} frames", facts::MIN_FRAMES)]
    };
    let series = Series {
        line: chain.frames.iter().map(|fr| fr.line).collect(),
        frame_time_ms: chain.frames.iter().map(|fr| fr.frame_time.map(to_ms)).collect(),
        displayed_time_ms: metrics.iter().map(|m| m.displayed_time.map(to_ms)).collect(),
        animation_error_ms: metrics.iter().map(|m| m.animation_error.map(to_ms)).collect(),
    };
    DiagnosisCard {
        schema: DIAGNOSIS_SCHEMA.to_owned(),
        version: DIAGNOSIS_VERSION,
        capture: path.display().to_string(),
        layout: if capture.qpc {
            format!("{}, QPC at {} MHz", capture.layout, trim_number(capture.hz as f64 / 1e6, 6))
        } else {
            capture.layout.to_string()
        },
        swap_chain: chain.name(),
        refresh_hz,
        figures,
        verdict,
        cannot_tell,
        fix,
        strategies,
        series,
    }
}

/// ` (the file's DisplayedTime: …)` where the file has its own figure, else nothing.
fn file_says(beside: Option<&reported::Beside>, how: reported::Summary, figure_ms: f64) -> String {
    beside.map_or_else(String::new, |b| format!(" ({})", b.words(how, figure_ms)))
}

/// Whether the layout carries a CPU start of its own (a 1.x CPU start is the previous present's return).
fn own_cpu_start(capture: &Capture) -> bool {
    matches!(capture.layout, CaptureLayout::Default2 | CaptureLayout::V2Metrics | CaptureLayout::ApiDump)
}

/// The frames figure's generated count, and where it comes from.
fn generated_words(capture: &Capture, generated: usize, by_pattern: usize, alternates: bool) -> String {
    if capture.frame_type_known {
        format!("{generated} generated")
    } else if by_pattern > 0 {
        format!("{generated} generated (told from the pattern: no FrameType column)")
    } else if alternates {
        "generated unknown (about every other present: see the verdict)".to_owned()
    } else if own_cpu_start(capture) {
        "0 generated (no FrameType column, none in the pattern)".to_owned()
    } else {
        "generated unknown (no FrameType column)".to_owned()
    }
}

/// What the capture cannot tell of frame generation where the file has no
/// FrameType column, in words: `None` where the core's line says it (no
/// pattern to read in this layout and none found).
fn generation_unknown(
    capture: &Capture,
    chain: &CaptureChain,
    by_pattern: usize,
    alternation: Option<&generation::Alternation>,
) -> Option<String> {
    if by_pattern > 0 {
        return Some(format!(
            "which frame generator made the {by_pattern} generated frames: the file has no FrameType column, and the \
             pattern they leave does not name it"
        ));
    }
    if alternation.is_some() {
        return Some(
            "which presents a frame generator made: the log has no FrameType column and marks none; MsPCLatency's \
             alternation shows them in pairs, not which of each pair is the generator's, so every present counts \
             as the game's here (the frame rate, queue depth and animation error include the generated frames, \
             and the game renders about half as many)"
                .to_owned(),
        );
    }
    let pc_latency = chain.frames.iter().any(|f| f.reported.pc_latency.is_some());
    Some(if own_cpu_start(capture) {
        "frame generation: no FrameType column, and none found in the pattern a generator leaves (no present shares \
         the next one's CPU start with no CPU work of its own)"
            .to_owned()
    } else if pc_latency {
        "frame generation: no FrameType column, and none found: the file has no CPU start of its own, and its \
         MsPCLatency does not alternate present after present as a generator's frames make it"
            .to_owned()
    } else {
        "frame generation: no FrameType column, so a frame generator's frames cannot be told from the game's (they \
         would read as the game's own, and in its queue): the file has no CPU start of its own nor PC latency, where \
         a generator's pattern would show"
            .to_owned()
    })
}

/// The display's finding: its refresh and the frames' cadence, VRR, or tearing.
fn display_findings(sync: &Sync, cadence: Option<&facts::Cadence>, f: &CaptureFigures) -> Vec<String> {
    let fps = f.fps.map_or_else(|| "an unknown rate".to_owned(), |fps| format!("{} fps", trim_number(fps, 1)));
    let line = match (sync, cadence) {
        (Sync::Grid(g), Some(c)) => {
            let usual = c.usual();
            let stays = usual.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>();
            let lengths = usual.iter().map(|(n, _)| trim_number(*n as f64 * g.period_ms, 1)).collect::<Vec<_>>();
            let rate = format!("{fps} on a {} Hz display", trim_number(g.hz(), 2));
            if let [(1, _)] = usual.as_slice() {
                format!("{rate}: one frame each refresh ({}) from line {}", ms(g.period_ms), c.first_line)
            } else if usual.len() > 1 {
                format!(
                    "{rate}: frames stay {} refreshes ({} ms), cadence {} from line {}, cadence judder {} RMS",
                    stays.join(", "),
                    lengths.join("/"),
                    c.sequence(12),
                    c.first_line,
                    ms(c.spread_ms)
                )
            } else {
                format!(
                    "{rate}: frames stay {} refreshes ({} ms) from line {}",
                    stays.join(", "),
                    lengths.join("/"),
                    c.first_line
                )
            }
        }
        (Sync::Vrr { p10_ms, p90_ms, intervals }, _) => format!(
            "VRR: {fps}, display changes spread continuously from {} to {} (10th to 90th percentile of {intervals}) \
             on no refresh grid, and the frames do not tear: the display followed the game",
            ms(*p10_ms),
            ms(*p90_ms)
        ),
        (Sync::Tearing { tearing, frames }, _) => format!(
            "vsync off: {tearing} of {frames} frames tear (SyncInterval 0 with tearing allowed) at {fps}; the refresh \
             cannot be read from display changes"
        ),
        _ => return Vec::new(),
    };
    vec![line]
}

/// The findings, each with its evidence.
fn verdict(
    chain: &CaptureChain,
    metrics: &[FrameMetrics],
    f: &CaptureFigures,
    period_ms: Option<f64>,
    to_ms: &dyn Fn(Ticks) -> f64,
    by_pattern: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    let rms = f.animation_error_rms_ms.unwrap_or(0.0);
    let worst = |n: usize| {
        let mut rows: Vec<(f64, u64)> = chain
            .frames
            .iter()
            .zip(metrics)
            .filter_map(|(fr, m)| m.animation_error.map(|e| (to_ms(e), fr.line)))
            .collect();
        rows.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
        rows.iter().take(n).map(|(e, l)| format!("line {l}: {}", ms(*e))).collect::<Vec<_>>().join(", ")
    };
    // Even display intervals but animation error.
    if let (Some((_, shown_std)), Some(period)) = (f.displayed_time_mean_std_ms, period_ms)
        && shown_std < 0.25 * period
        && rms > 0.25 * period
    {
        out.push(format!(
            "even display intervals (σ {}) but an animation error of {} RMS: the game steps by something other than \
             the display time (a variable step from CPU time, or a fixed step without interpolation); largest at {}",
            ms(shown_std),
            ms(rms),
            worst(3)
        ));
    }
    let motion_findings = out.len();
    // Stalls and what follows.
    let shown: Vec<(usize, f64)> =
        metrics.iter().enumerate().filter_map(|(i, m)| m.displayed_time.map(|t| (i, to_ms(t)))).collect();
    let mut sorted: Vec<f64> = shown.iter().map(|s| s.1).collect();
    sorted.sort_by(f64::total_cmp);
    if let Some(&median) = sorted.get(sorted.len() / 2) {
        let threshold = (2.0 * median).max(median + period_ms.unwrap_or(median));
        let stalls: Vec<&(usize, f64)> = shown.iter().filter(|s| s.1 >= threshold).collect();
        if !stalls.is_empty() {
            // The animation errors of the next two displayed application frames.
            let next_errors = |i: usize| -> Vec<(u64, Option<f64>)> {
                chain.frames[i + 1..]
                    .iter()
                    .zip(&metrics[i + 1..])
                    .filter(|(fr, _)| fr.screen.is_some() && fr.is_application())
                    .take(2)
                    .map(|(fr, m)| (fr.line, m.animation_error.map(to_ms)))
                    .collect()
            };
            let evidence: Vec<String> = stalls
                .iter()
                .take(5)
                .map(|&&(i, t)| {
                    let excess = t - median;
                    let near = |e: f64, target: f64| (e - target).abs() <= 0.25 * excess;
                    let after = next_errors(i);
                    let errs: Vec<String> =
                        after.iter().filter_map(|(line, e)| e.map(|e| format!("line {line} errs {}", ms(e)))).collect();
                    let reading = match after.as_slice() {
                        [(_, Some(late)), (_, Some(next))] if near(*late, -excess) && near(*next, excess) => {
                            ": the late frame moved one step while the screen waited, and the next step measured \
                             the stall (a variable step: the motion stops, then jumps)"
                        }
                        [(_, Some(late)), (_, Some(next))] if near(*late, -excess) && near(*next, 0.0) => {
                            ": the game's time did not count the stall (a fixed step: the motion lost it)"
                        }
                        [(_, Some(late)), ..] if near(*late, 0.0) => {
                            ": the late frame's step covered the stall (the motion kept time, it only froze)"
                        }
                        _ => "",
                    };
                    let errs = if errs.is_empty() { "no animation error after it".to_owned() } else { errs.join(", ") };
                    format!("line {} stays {}; then {errs}{reading}", chain.frames[i].line, ms(t))
                })
                .collect();
            out.push(format!(
                "{} stall{} (a frame on screen at least twice the median {}): {}{}",
                stalls.len(),
                if stalls.len() == 1 { "" } else { "s" },
                ms(median),
                evidence.join("; "),
                if stalls.len() > 5 { "; …" } else { "" }
            ));
        }
    }
    // A queue adding latency.
    if let (Some((depth, max)), Some(s)) = (f.queue_depth, &f.stats)
        && depth >= 1.5
    {
        let frame = f.frame_time_mean_std_ms.map_or(0.0, |m| m.0);
        out.push(format!(
            "a present queue: {} frames wait ahead of each present on average ({max} at most), adding about {} \
             of latency (CPU start to screen {} mean); a frame limiter or fewer buffers would cut it",
            trim_number(depth, 1),
            ms((depth - 1.0).max(0.0) * frame),
            ms(s.latency_ms)
        ));
    }
    if f.frames > 0 && f.dropped * 100 >= f.frames {
        let presented = f.frame_time_mean_std_ms.filter(|m| m.0 > 0.0).map(|m| 1000.0 / m.0);
        out.push(format!(
            "{} of {} frames were never displayed (dropped){}",
            f.dropped,
            f.frames,
            match (presented, f.fps) {
                (Some(p), Some(shown))
                    if p > 1.2 * shown && motion_findings == 0 && rms > 0.05 * period_ms.unwrap_or(f64::MAX) =>
                    format!(
                        ": the game presents {} fps and the display shows {}, each refresh the latest frame, so the \
                     motion it shows samples the game's time unevenly (animation error {} RMS; largest at {}); \
                     capping the frame rate to the refresh would show every frame",
                        trim_number(p, 0),
                        trim_number(shown, 0),
                        ms(rms),
                        worst(3)
                    ),
                _ => String::new(),
            }
        ));
    }
    if f.generated > 0 {
        out.push(format!(
            "frame generation: {} of {} displayed frames were generated{}; the animation error covers the {} \
             application frames only, queue depth leaves the generated ones out, and a generated frame's motion is \
             the generator's",
            f.generated,
            f.displayed,
            if by_pattern > 0 {
                format!(
                    " (told from the pattern they leave, the file having no FrameType column: {by_pattern} presents \
                     share their CPU start with the next present and carry no CPU work)"
                )
            } else {
                String::new()
            },
            f.displayed - f.generated
        ));
    }
    if out.is_empty() {
        out.push(match f.animation_error_rms_ms {
            Some(rms) => format!("no stall, no queue: animation error {} RMS", ms(rms)),
            None => "no animation error to judge: see what the capture cannot tell".to_owned(),
        });
    }
    out
}

/// The best strategy on the display it was replayed on (`replayed_on`), by how much against the game.
fn fix(f: &CaptureFigures, replayed_on: &str, strategies: &[RunRecord]) -> Vec<String> {
    let Some(best) = best(strategies, MAX_DRIFT_MS_PER_MIN) else {
        return vec!["no strategy qualifies (each drifts too far from real time on these frame times)".to_owned()];
    };
    let display = format!("on {replayed_on}");
    let judder = best.figure(&JUDDER_MS);
    let hitches = best.hitches_per_min();
    let figures = format!(
        "{}, {}",
        judder.map_or_else(|| "judder unknown".to_owned(), |j| format!("judder {}", ms(j))),
        hitches.map_or_else(|| "hitches unknown".to_owned(), |h| HITCHES_PER_MIN.reading(h))
    );
    let mut line = match against_the_game(f, best, judder, hitches) {
        Against::Better => format!("{} would do best {display} with these frame times: {figures}", best.strategy),
        Against::Trade { wins, loses } => format!(
            "a trade, not a clear fix: {} {display} with these frame times has {wins} than the game but {loses}, \
             each beyond the noise: {figures}",
            best.strategy
        ),
        Against::AsSteady => {
            let game = f.stats.as_ref().map_or(String::new(), |g| {
                format!("the game: judder {}, {}; ", ms(g.judder_ms), HITCHES_PER_MIN.reading(g.hitches_per_min))
            });
            return vec![format!(
                "none: the game's own loop is already as steady as the best of the ten {display} with these frame \
                 times, within the noise ({game}{}: {figures}): keep it",
                best.strategy
            )];
        }
    };
    if let (Some(game), Some(j)) = (f.stats.as_ref(), judder) {
        let _ = write!(
            line,
            "; the game's judder is {}, {} {}, and its {}",
            ms(game.judder_ms),
            ms((game.judder_ms - j).abs()),
            if game.judder_ms >= j { "more" } else { "less" },
            HITCHES_PER_MIN.reading(game.hitches_per_min)
        );
    }
    // What it costs: latency against the game's own, and a fixed step.
    let cost = match (best.figure(&LATENCY_MS), f.stats.as_ref().map(|s| s.latency_ms)) {
        (Some(l), Some(game)) => format!(
            "its cost: latency {} against the game's {} ({}{})",
            ms(l),
            ms(game),
            if l >= game { "+" } else { "−" },
            ms((l - game).abs())
        ),
        (Some(l), None) => format!("its cost: latency {} (the game's is unknown)", ms(l)),
        _ => "its cost: latency unknown".to_owned(),
    };
    let step = match (StrategyId::parse(&best.strategy).map(StrategyId::keeps_a_fixed_step), best.tick_rate) {
        (Ok(true), Some(t)) => format!(", and a fixed simulation step of {} Hz", trim_number(t, 2)),
        (Ok(false), _) => ", and no fixed step: physics and replays change with the frame rate".to_owned(),
        _ => String::new(),
    };
    let _ = write!(line, "; {cost}{step}");
    vec![line]
}

/// How the best of the ten stands against the game on its judder and hitches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Against {
    /// Better on one figure beyond the noise, and no worse on the other: a fix.
    Better,
    /// Better on one figure and worse on the other, each beyond the noise.
    Trade { wins: &'static str, loses: &'static str },
    /// Better on neither: the game's own loop is as steady.
    AsSteady,
}

/// The best of the ten against the game (judder: 0.25 ms or two standard
/// errors of the difference, each RMS/√(2n) over its frames; hitches: the
/// agreement's counting noise; the rule a `compare` column's best is chosen
/// by). Where a figure is unknown the fix stands, as before.
fn against_the_game(f: &CaptureFigures, best: &RunRecord, judder: Option<f64>, hitches: Option<f64>) -> Against {
    let (Some(game), Some(judder), Some(hitches)) = (f.stats.as_ref(), judder, hitches) else {
        return Against::Better;
    };
    let frames = |n: usize| Some(n as u64).filter(|&n| n > 0);
    let game_judder = Spread::rms(game.judder_ms, frames(f.displayed));
    let pick_judder = Spread::rms(judder, Footing::of(best).frames);
    let steadier = pick_judder.below_beyond_noise(game_judder, JUDDER_TIE_MS);
    let jerkier = game_judder.below_beyond_noise(pick_judder, JUDDER_TIE_MS);
    let tol = judge::tolerance_for(Metric::Hitches, None, best);
    let hitches_tie = noise::within(game.hitches_per_min, hitches, tol);
    let fewer = hitches < game.hitches_per_min && !hitches_tie;
    let more = hitches > game.hitches_per_min && !hitches_tie;
    match (steadier, jerkier, fewer, more) {
        (true, _, _, false) | (_, false, true, _) => Against::Better,
        (true, _, _, true) => Against::Trade { wins: "less judder", loses: "more hitches" },
        (_, true, true, _) => Against::Trade { wins: "fewer hitches", loses: "more judder" },
        _ => Against::AsSteady,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::presentmon::{CaptureFrame, SimSource, frame_metrics};

    const HZ: u64 = 10_000_000;

    /// A chain of application frames at 10 MHz: CPU starts and screens in µs, line = index + 2.
    fn chain(frames: &[(i64, i64)]) -> CaptureChain {
        let mut previous: Option<i64> = None;
        let frames = frames
            .iter()
            .enumerate()
            .map(|(i, &(cpu, screen))| {
                let frame = CaptureFrame {
                    line: i as u64 + 2,
                    frame_type: "Application".to_owned(),
                    frame_time: previous.map(|p| (cpu - p) * 10),
                    present_start: Some(cpu * 10 + 1_000),
                    cpu_start: Some(cpu * 10),
                    screen: Some(screen * 10),
                    sim: Some((cpu * 10, SimSource::CpuStart)),
                    seed: None,
                    dropped: false,
                    tears: false,
                    costs: Default::default(),
                    reported: Default::default(),
                };
                previous = Some(cpu);
                frame
            })
            .collect();
        CaptureChain { app: "game.exe".into(), pid: "1".into(), address: "0x1".into(), frames }
    }

    /// Remnant II's figures, read by hand: the game judders 1.72 ms with 4.02
    /// hitches a minute over 899 frames; variable's replay 4.11 ms and 26.06
    /// (13 in 30 s). Not steadier, not fewer: keep the game's. A replay at
    /// 0.5 ms is steadier beyond 0.25 ms and two standard errors
    /// (1.72/√1798 = 0.04 and 0.5/√1800 = 0.01 ms); with as many hitches it
    /// is a fix, and variable's cost names no fixed step.
    #[test]
    fn a_fix_is_named_only_where_it_beats_the_game_beyond_the_noise() {
        use crate::report::registry::{PRESENT_INTERVAL_MEAN_MS, SYSTEM_TIME_S};
        let chain = chain(&[(0, 16_667), (16_667, 33_333)]);
        let metrics = frame_metrics(&chain.frames);
        // The game's figures over `displayed` frames.
        let game = |displayed: usize, judder_ms: f64, hitches_per_min: f64, latency_ms: f64| {
            let mut figures = CaptureFigures::of(&chain, &metrics, HZ);
            figures.displayed = displayed;
            figures.stats = Some(crate::metrics::FrameStats {
                judder_ms,
                hitches_per_min,
                latency_ms,
                ..crate::metrics::FrameStats::EMPTY
            });
            figures
        };
        let figures = game(899, 1.72, 4.02, 49.79);
        let replay = |judder: f64| {
            RunRecord { strategy: "variable".to_owned(), tick_rate: Some(60.0), ..RunRecord::default() }
                .with(&crate::report::registry::SPEED_RATIO, 1.0)
                .with(&JUDDER_MS, judder)
                .with(&HITCHES, 13.0)
                .with(&HITCHES_PER_MIN, 26.06)
                .with(&LATENCY_MS, 40.98)
                .with(&SYSTEM_TIME_S, 30.0)
                .with(&PRESENT_INTERVAL_MEAN_MS, 1000.0 / 60.0)
        };
        let kept = fix(&figures, "a VRR display of 29-31 Hz", &[replay(4.11)]);
        assert_eq!(
            kept,
            ["none: the game's own loop is already as steady as the best of the ten on a VRR display of 29-31 Hz \
              with these frame times, within the noise (the game: judder 1.72 ms, hitches 4.02/min; variable: \
              judder 4.11 ms, hitches 26.06/min): keep it"]
        );
        // Starfield's trade, by hand: the game judders 5.9 ms over 1851 frames with 307.5
        // hitches a minute (153 in 30 s); paced's replay 9.37 ms and 165.97 (83). Fewer
        // hitches beyond the counting noise, more judder beyond 0.25 ms: a trade, no fix.
        let busy = game(1851, 5.9, 307.5, 22.57);
        let paced = RunRecord { strategy: "paced".to_owned(), ..replay(9.37) }
            .with(&HITCHES, 83.0)
            .with(&HITCHES_PER_MIN, 165.97);
        let traded = fix(&busy, "a VRR display of 57-72 Hz", &[paced]);
        assert!(
            traded[0].starts_with(
                "a trade, not a clear fix: paced on a VRR display of 57-72 Hz with these frame times has fewer \
                 hitches than the game but more judder, each beyond the noise: judder 9.37 ms, hitches 165.97/min; \
                 the game's judder is 5.9 ms, 3.47 ms less, and its hitches 307.50/min; its cost: latency"
            ),
            "{traded:?}"
        );
        // Steadier (0.5 ms) with as many hitches (4 a minute, 2 in 30 s): a fix.
        let steady = replay(0.5).with(&HITCHES, 2.0).with(&HITCHES_PER_MIN, 4.0);
        let named = fix(&figures, "a VRR display of 29-31 Hz", &[steady]);
        assert!(named[0].starts_with("variable would do best on a VRR display of 29-31 Hz"), "{named:?}");
        assert!(named[0].ends_with("and no fixed step: physics and replays change with the frame rate"), "{named:?}");
    }

    fn findings(chain: &CaptureChain) -> Vec<String> {
        let metrics = frame_metrics(&chain.frames);
        let figures = CaptureFigures::of(chain, &metrics, HZ);
        let intervals = facts::display_intervals(chain, &metrics, HZ);
        let sync = facts::sync(chain, &intervals);
        let grid = match &sync {
            Sync::Grid(g) => Some(g.clone()),
            _ => None,
        };
        let cadence = grid.as_ref().and_then(|g| facts::cadence(&intervals, g));
        let mut out = display_findings(&sync, cadence.as_ref(), &figures);
        out.extend(verdict(chain, &metrics, &figures, grid.map(|g| g.period_ms), &|t| ticks_to_ms(t, HZ), 0));
        out
    }

    #[test]
    fn sixty_fps_on_144_hz_is_a_144_hz_display_with_frames_staying_2_and_3_refreshes() {
        let vblank = |n: i64| (n * 1_000_000 + 72) / 144;
        let frames: Vec<(i64, i64)> = (0..120)
            .map(|i| {
                let cpu = i * 16_667;
                (cpu, (0..).map(vblank).find(|&v| v >= cpu + 10_000).unwrap_or(0))
            })
            .collect();
        let found = findings(&chain(&frames));
        assert!(
            // 12 refreshes per 5 frames: 13.889 ms three times, 20.833 twice, about a mean of 16.667 ms:
            // RMS √((3 · 2.778² + 2 · 4.167²) / 5) = 3.40 ms (3.41 with the vblanks rounded to µs).
            found.iter().any(|f| f
                == "59.9 fps on a 144 Hz display: frames stay 2, 3 refreshes (13.9/20.8 ms), cadence 2 3 2 3 2 2 3 2 \
                    3 2 2 3… from line 3, cadence judder 3.41 ms RMS"),
            "{found:?}"
        );
    }

    #[test]
    fn a_50_ms_stall_at_60_hz_is_named_by_its_line_with_the_jump_after_it() {
        let p = 16_667;
        let mut frames: Vec<(i64, i64)> = (0..60).map(|i| (i * p, (i + 2) * p)).collect();
        // Frame 30 (line 32) presents 50 ms late: frame 29 stays 4 refreshes, and
        // frame 31 starts 50 ms late, so its step (CPU start to CPU start) is 66.7 ms.
        for (i, f) in frames.iter_mut().enumerate().skip(30) {
            f.1 += 3 * p;
            if i > 30 {
                f.0 += 3 * p;
            }
        }
        let found = findings(&chain(&frames));
        let stall = found.iter().find(|f| f.starts_with("1 stall")).unwrap_or_else(|| panic!("{found:?}"));
        assert!(
            stall.contains(
                "line 31 stays 66.67 ms; then line 32 errs -50 ms, line 33 errs 50 ms: the late frame moved one step"
            ),
            "{stall}"
        );
    }

    #[test]
    fn frames_shown_two_refreshes_after_their_present_are_a_queue_of_two_that_adds_latency() {
        let p = 16_667;
        let frames: Vec<(i64, i64)> = (0..60).map(|i| (i * p, (i + 2) * p + 2_000)).collect();
        let found = findings(&chain(&frames));
        assert!(found.iter().any(|f| f.starts_with("a present queue: 1.9 frames wait ahead of each present on average (2 at most)")), "{found:?}");
    }
}
