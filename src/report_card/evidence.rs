//! What a column of `compare` rests on, and whether it can support a verdict:
//! the one decision, from a card's own figures, that the page's slow-page
//! message and `compare` both make, so that a card never says one thing and
//! its comparison another.
//!
//! A column shows its evidence (the card's notes, frames and seconds per
//! strategy, an unfinished vsync verdict, a refresh that contradicts the
//! card's own), and names no best and no agreement when any of these holds:
//!
//! | doubt | rule | why this threshold |
//! |---|---|---|
//! | too few frames | a run of fewer than [`MIN_FRAMES`] frames | see below |
//! | a page that missed refreshes | the probe drew under [`MISSING_SHARE`] of the screen's refreshes | see below |
//! | a machine that does not keep up | the window's probe missed more than 1 − [`MISSING_SHARE`] of its refreshes (`setup.missed_share`) | the page's rule: [`keeps_up`] for both |
//! | no model of the setup | measured runs, no `setup`: predictions on the desktop model | the agreement would compare this screen with another machine |
//! | an unfinished vsync verdict | a vsync probe whose verdict is `null` (`measuring… (19/30 frames)`) | the card itself does not know whether frames were paced |
//!
//! **[`MIN_FRAMES`] = 31.** The vsync meter (`timestep_core::refresh`) says
//! nothing before [`MIN_SAMPLES`] = 30 frame intervals: fewer, and its
//! verdict reads "measuring…". A run's judder, hitches and latency rest on
//! the same intervals, so a run of fewer than 30 intervals (31 frames) is
//! one the card's own meter would not judge. It is also the least that
//! shows a pattern: 60 ticks on 144 refreshes repeat every 12 refreshes, so
//! 30 intervals hold it twice and a half; and one hitch in 30 intervals at
//! 60 Hz is already 120 a minute, far beyond the best rule's tie of 0.5.
//!
//! **[`MISSING_SHARE`] = 0.9.** A browser presents on every refresh; a page
//! drawing fewer frames than that missed some. 0.9 leaves room for the odd
//! refresh a busy browser drops on a shared machine (6 in 60), while a page
//! at 21.5 fps on 60 Hz (0.36) or one that misses every other refresh (0.5)
//! is far below it. Its frames then measure the page, not the strategy.

pub use super::keep_up::{MISSING_SHARE, keeps_up};
use super::schema::{MonitorCard, ReportCard, RunRecord};
pub use crate::refresh::MIN_SAMPLES;
use crate::report::registry::{PRESENT_INTERVAL_MEAN_MS, SYSTEM_TIME_S};
use crate::report::trim_number;

/// The fewest frames a run may rest on for a verdict: the vsync meter's
/// [`MIN_SAMPLES`] intervals, plus the frame they start from (module docs).
pub const MIN_FRAMES: u64 = MIN_SAMPLES as u64 + 1;

/// How far above the screen's refresh a seen VRR range may reach and still
/// be the screen's own frames: the frame clock's measurement is within 1 %.
const SCREEN_TOLERANCE: f64 = 0.01;

/// "this machine missed 12.5 % of refreshes before any strategy ran: it does
/// not keep up with 144 Hz" when a window's probe missed more than
/// [`keeps_up`] allows; `None` when it kept up.
pub fn machine_missed_refreshes(missed_share: f64, screen_hz: Option<f64>) -> Option<String> {
    let screen =
        screen_hz.filter(|hz| hz.is_finite() && *hz > 0.0).map(|hz| format!(" with {} Hz", trim_number(hz, 2)));
    (missed_share.is_finite() && !keeps_up(1.0 - missed_share)).then(|| {
        format!(
            "this machine missed {} % of refreshes before any strategy ran: it does not keep up{}",
            trim_number(missed_share * 100.0, 1),
            screen.unwrap_or_default()
        )
    })
}

/// What a card's probe missed before any strategy ran, with vsync on: the
/// share of refreshes and what that makes a minute on its display (each
/// missed refresh a freeze, a hitch), the floor under every run's hitches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MachineMisses {
    /// Share of the probe's frames shown a refresh or more late (0 to 1).
    pub share: f64,
    /// The same a minute on the display: share × refresh × 60.
    pub per_min: f64,
}

impl MachineMisses {
    /// The misses of `monitor`'s probe, where it measured them and knows its refresh.
    pub fn of(monitor: &MonitorCard) -> Option<MachineMisses> {
        let share = monitor.setup.as_ref()?.missed_share.filter(|s| s.is_finite() && *s >= 0.0)?;
        let hz = monitor.refresh_hz().filter(|hz| *hz > 0.0)?;
        Some(MachineMisses { share, per_min: share * hz * 60.0 })
    }

    /// The floor under every run's hitches a minute: `None` where the probe
    /// missed nothing, as no hitch can then be the machine's.
    pub fn floor(self) -> Option<f64> {
        (self.per_min > 0.0).then_some(self.per_min)
    }
}

/// "the page drew 14.9 fps on a 60.0 Hz screen: it missed refreshes" when
/// it drew fewer than [`MISSING_SHARE`] of them; `None` when it kept up.
/// The page's slow-page message, its card's note and `compare` all say it from here.
pub fn missed_refreshes(fps: f64, screen_hz: f64) -> Option<String> {
    (fps.is_finite() && screen_hz > 0.0 && fps > 0.0 && !keeps_up(fps / screen_hz))
        .then(|| format!("the page drew {fps:.1} fps on a {screen_hz:.1} Hz screen: it missed refreshes"))
}

/// One run's footing: how many frames and seconds it measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Footing {
    /// Strategy id.
    pub strategy: String,
    /// Frames: the present intervals counted, plus one; else display time over the mean interval.
    pub frames: Option<u64>,
    /// Display time the run covered, s.
    pub seconds: Option<f64>,
}

impl Footing {
    /// The footing of `run`.
    pub fn of(run: &RunRecord) -> Footing {
        let seconds = run.figure(&SYSTEM_TIME_S);
        let counted = run.present_interval_histogram.as_ref().map(|h| h.counts.iter().sum::<u64>() + h.overflow + 1);
        let estimated = || match (seconds, run.figure(&PRESENT_INTERVAL_MEAN_MS)) {
            (Some(s), Some(mean)) if mean > 0.0 => Some((s * 1000.0 / mean).round() as u64 + 1),
            _ => None,
        };
        Footing { strategy: run.strategy.clone(), frames: counted.filter(|&n| n > 1).or_else(estimated), seconds }
    }
}

/// What a column rests on, and why it cannot support a verdict (if so).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Evidence {
    /// Why no best and no agreement may be named, one sentence each; empty: a verdict stands.
    pub doubts: Vec<String>,
    /// The card's own notes.
    pub notes: Vec<String>,
    /// Frames and seconds of each run.
    pub footing: Vec<Footing>,
    /// A refresh the column's data suggests that the card's own contradicts, in words.
    pub refresh_conflict: Option<String>,
    /// What the machine missed on its own before any strategy ran (the vsync-on pass of a window's card).
    pub machine: Option<MachineMisses>,
}

impl Evidence {
    /// Whether the column may name a best and an agreement.
    pub fn supports_verdict(&self) -> bool {
        self.doubts.is_empty()
    }

    /// Frames and seconds per strategy in one line: `lockstep 180 (3.0 s), fixed-fps 179 (3.0 s), …`.
    pub fn footing_line(&self) -> String {
        let one = |f: &Footing| {
            let frames = f.frames.map_or_else(|| "frames not recorded".to_owned(), |n| n.to_string());
            match f.seconds {
                Some(s) => format!("{} {frames} ({} s)", f.strategy, trim_number(s, 1)),
                None => format!("{} {frames}", f.strategy),
            }
        };
        self.footing.iter().map(one).collect::<Vec<_>>().join(", ")
    }

    /// The evidence of simulator runs: their frames; a simulator knows its model.
    pub fn of_runs(runs: &[RunRecord]) -> Evidence {
        let mut evidence = Evidence { footing: runs.iter().map(Footing::of).collect(), ..Evidence::default() };
        evidence.doubt_few_frames();
        evidence
    }

    /// The evidence of `monitor` of `card`, for its `runs` of one vsync pass.
    pub fn of_monitor(card: &ReportCard, monitor: &MonitorCard, runs: &[RunRecord]) -> Evidence {
        let mut evidence = Evidence {
            notes: monitor.notes.clone(),
            footing: runs.iter().map(Footing::of).collect(),
            ..Evidence::default()
        };
        evidence.doubt_few_frames();
        let from_a_page = card.machine.browser.is_some();
        if from_a_page && let Some(missed) = page_missed_refreshes(monitor) {
            evidence.doubts.push(missed);
        }
        let misses = MachineMisses::of(monitor);
        if !from_a_page
            && let Some(missed) = misses
                .map(|m| m.share)
                .or_else(|| probe_missed_share(monitor))
                .and_then(|share| machine_missed_refreshes(share, monitor.refresh_hz()))
        {
            evidence.doubts.push(missed);
        }
        // The probe ran with vsync on: its misses are the floor of that pass.
        if runs.iter().any(|r| r.vsync_pass() == Some(true)) {
            evidence.machine = misses;
        }
        let measured = runs.iter().any(|r| r.model.as_ref().is_some_and(crate::report::RunOrigin::is_measured));
        if measured && monitor.setup.is_none() {
            evidence.doubts.push(
                "no model of the setup: the predictions are the simulator's desktop model, not this screen's"
                    .to_owned(),
            );
        }
        for probe in monitor.present_modes.iter().filter(|p| p.vsync.is_none() && p.kind().asks_for_vsync()) {
            evidence.doubts.push(format!("the vsync verdict was unfinished: \"{}\"", probe.verdict));
        }
        if from_a_page {
            evidence.refresh_conflict = vrr_conflict(monitor);
        }
        evidence
    }

    fn doubt_few_frames(&mut self) {
        let few: Vec<String> = self
            .footing
            .iter()
            .filter(|f| f.frames.is_some_and(|n| n < MIN_FRAMES))
            .map(|f| format!("{} {}", f.strategy, f.frames.unwrap_or(0)))
            .collect();
        if !few.is_empty() {
            self.doubts.push(format!(
                "too few frames: {} (a verdict needs {MIN_FRAMES} a strategy, the {MIN_SAMPLES} intervals the vsync \
                 meter waits for)",
                few.join(", ")
            ));
        }
    }
}

/// Where no setup was modelled (so no `missed_share`), the share of
/// refreshes the window's vsync probe missed: 1 − its frames a second over
/// the refresh. A probe at 72 fps on an emulated 144 Hz grid missed half.
fn probe_missed_share(monitor: &MonitorCard) -> Option<f64> {
    let hz = monitor.refresh_hz().filter(|hz| hz.is_finite() && *hz > 0.0)?;
    let probe = monitor.present_modes.iter().find(|p| p.vsync == Some(true))?;
    let fps = probe.present_cadence_hz.filter(|fps| fps.is_finite() && *fps > 0.0)?;
    Some((1.0 - fps / hz).max(0.0))
}

/// The page's slow-page sentence from the card's own figures: the first
/// probe of a real present mode (its mean interval) against the screen's
/// refresh the frame clock measured.
pub fn page_missed_refreshes(monitor: &MonitorCard) -> Option<String> {
    let probe = monitor.present_modes.iter().find(|p| p.kind() != super::schema::PresentKind::EmulatedGrid)?;
    let mean = probe.intervals.as_ref()?.mean_ms;
    let screen = monitor.present_cadence_hz?;
    (mean > 0.0).then(|| missed_refreshes(1000.0 / mean, screen)).flatten()
}

/// A page's frames spread over a range up to its screen's refresh look like
/// a variable refresh, but the frame clock measured one fixed rate: the
/// spread is the page's, and the card's own refresh stands.
pub(crate) fn vrr_conflict(monitor: &MonitorCard) -> Option<String> {
    let [min, max] = monitor.vrr_seen_hz?;
    let screen = monitor.present_cadence_hz?;
    (max <= screen * (1.0 + SCREEN_TOLERANCE)).then(|| {
        format!(
            "frames spread {}–{} Hz on a {} Hz screen: the page's own pace, not a variable refresh",
            trim_number(min, 2),
            trim_number(max, 2),
            trim_number(screen, 2)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::IntervalHistogram;
    use crate::report_card::{Machine, PresentModeCheck};

    #[test]
    fn min_frames_are_the_vsync_meters_samples_and_one() {
        assert_eq!(MIN_FRAMES, 31, "30 intervals need 31 frames");
    }

    #[test]
    fn the_slow_page_line_falls_at_nine_tenths_of_the_screens_refreshes() {
        assert_eq!(missed_refreshes(54.1, 60.0), None, "0.9 of 60 is 54: a dropped refresh in ten is allowed");
        assert!(missed_refreshes(53.9, 60.0).is_some(), "just below 0.9 misses");
    }

    #[test]
    fn a_window_whose_probe_missed_more_than_a_tenth_does_not_keep_up_by_the_pages_rule() {
        // 2.5 % at 144 Hz is 216 a minute, a floor, but the machine keeps up; 12.5 % does not.
        assert_eq!(machine_missed_refreshes(0.025, Some(144.0)), None);
        assert!(keeps_up(0.9) && !keeps_up(0.899), "the page's rule: 0.9 of the refreshes");
        assert_eq!(
            machine_missed_refreshes(0.125, Some(144.0)).as_deref(),
            Some("this machine missed 12.5 % of refreshes before any strategy ran: it does not keep up with 144 Hz")
        );
        let monitor = MonitorCard {
            emulated_refresh_hz: Some(144.0),
            setup: Some(crate::report_card::setup::MeasuredSetup { missed_share: Some(0.025), ..Default::default() }),
            ..MonitorCard::default()
        };
        let misses = MachineMisses::of(&monitor).expect("measured");
        assert!((misses.per_min - 216.0).abs() < 1e-9, "0.025 · 144 · 60 = 216: {misses:?}");
    }

    /// The tour's defaults at an emulated 144 Hz on this project's 2-core CPU
    /// renderer: the vsync probe drew every other refresh (72 fps), and no
    /// setup could be modelled, so no `missed_share`. 1 − 72/144 = 50 % of
    /// refreshes missed, far past the page's rule (0.9 of them drawn): the
    /// window's column says the machine does not keep up, as a page's would.
    #[test]
    fn a_window_whose_vsync_probe_drew_every_other_refresh_does_not_keep_up_without_a_setup() {
        let run = RunRecord {
            strategy: "snapped".to_owned(),
            model: Some(crate::report::RunOrigin::Window),
            ..RunRecord::default()
        }
        .with(&SYSTEM_TIME_S, 3.0)
        .with(&PRESENT_INTERVAL_MEAN_MS, 13.9);
        let probe = |cadence: f64| PresentModeCheck {
            mode: "Immediate + emulated 144 Hz".to_owned(),
            vsync: Some(true),
            present_cadence_hz: Some(cadence),
            ..PresentModeCheck::default()
        };
        let monitor = MonitorCard {
            emulated_refresh_hz: Some(144.0),
            present_modes: vec![probe(72.0)],
            runs: vec![run.clone()],
            ..MonitorCard::default()
        };
        assert_eq!(probe_missed_share(&monitor), Some(0.5));
        let card = ReportCard { monitors: vec![monitor.clone()], ..ReportCard::new(Machine::default()) };
        let evidence = Evidence::of_monitor(&card, &monitor, std::slice::from_ref(&run));
        assert!(
            evidence.doubts.iter().any(|d| d
                == "this machine missed 50 % of refreshes before any strategy ran: it does not keep up with 144 Hz"),
            "{:?}",
            evidence.doubts
        );
        // 137 of 144 (95 %) keeps up: only the missing setup is doubted.
        let kept = MonitorCard { present_modes: vec![probe(137.0)], ..monitor };
        let evidence = Evidence::of_monitor(&card, &kept, &[run]);
        assert!(!evidence.doubts.iter().any(|d| d.contains("keep up")), "{:?}", evidence.doubts);
    }

    #[test]
    fn frames_come_from_the_histogram_else_from_time_over_the_mean_interval() {
        let counted = RunRecord {
            present_interval_histogram: Some(IntervalHistogram { bin_ms: 0.25, counts: vec![0, 20, 2], overflow: 1 }),
            ..RunRecord::default()
        };
        assert_eq!(Footing::of(&counted).frames, Some(24), "23 intervals, 24 frames");
        let timed = RunRecord::default().with(&SYSTEM_TIME_S, 3.0).with(&PRESENT_INTERVAL_MEAN_MS, 1000.0 / 60.0);
        assert_eq!(Footing::of(&timed).frames, Some(181), "3 s of 60 Hz intervals");
    }

    #[test]
    fn a_slow_page_with_an_unfinished_verdict_and_no_setup_gets_every_reason() {
        let run = RunRecord {
            strategy: "fixed-fps".to_owned(),
            model: Some(crate::report::RunOrigin::Window),
            ..RunRecord::default()
        }
        .with(&SYSTEM_TIME_S, 1.07)
        .with(&PRESENT_INTERVAL_MEAN_MS, 46.5);
        let probe = PresentModeCheck {
            mode: "Fifo".to_owned(),
            vsync: None,
            verdict: "Fifo requested: measuring… (19/30 frames)".to_owned(),
            intervals: crate::report_card::IntervalStats::from_intervals(&[46_500_000; 20]),
            ..PresentModeCheck::default()
        };
        let monitor = MonitorCard {
            present_cadence_hz: Some(60.0),
            vrr_seen_hz: Some([11.98, 59.17]),
            present_modes: vec![probe],
            runs: vec![run.clone()],
            ..MonitorCard::default()
        };
        let card = ReportCard {
            monitors: vec![monitor.clone()],
            ..ReportCard::new(Machine { browser: Some("Chrome/156 Android 15".to_owned()), ..Machine::default() })
        };
        let evidence = Evidence::of_monitor(&card, &monitor, &[run]);
        assert!(!evidence.supports_verdict());
        assert_eq!(evidence.doubts.len(), 4, "{:?}", evidence.doubts);
        assert!(
            evidence.doubts[0].starts_with("too few frames: fixed-fps 24 (a verdict needs 31"),
            "{:?}",
            evidence.doubts
        );
        assert_eq!(evidence.doubts[1], "the page drew 21.5 fps on a 60.0 Hz screen: it missed refreshes");
        assert!(evidence.doubts[2].starts_with("no model of the setup"));
        assert_eq!(
            evidence.doubts[3],
            "the vsync verdict was unfinished: \"Fifo requested: measuring… (19/30 frames)\""
        );
        assert_eq!(
            evidence.refresh_conflict.as_deref(),
            Some("frames spread 11.98–59.17 Hz on a 60 Hz screen: the page's own pace, not a variable refresh")
        );
        assert_eq!(evidence.footing_line(), "fixed-fps 24 (1.1 s)");
    }
}
