//! `timestep-lab measure`: a scripted tour in the window that fills a report card.
//!
//! The tour drives the window's own [`crate::session::Session`] (through
//! [`Demo::restart`]) through timed segments, each on a fresh world, and
//! turns what each segment measured into the card of [`crate::report_card`]:
//!
//! ```text
//! per monitor (--monitor N, or all: the window moves to each in turn)
//!   probe  every supported present mode (+ the emulated grid), lockstep:
//!          vsync verdict, measured refresh, present-interval histogram  ── probe-seconds each
//!   runs   every strategy with vsync on (Fifo, or the emulated grid),   ── seconds-per-strategy each
//!          then with vsync off (Immediate, else Mailbox; none: a note)
//!   setup  from the reference probe (the emulated grid, else Fifo) and every run's frames:
//!          frame work, present queue depth, wake-up after a vblank, sleep lateness
//!   predictions: predict(measured refresh, reported or not, the setup's model) for the same strategies and passes
//! each segment: settle (SETTLE: the new present mode and strategy find their
//!               rhythm; nothing recorded) ─► a fresh session ─► record ─► the session's RunReport
//! at the end:  DIR/report-<screen>-<yyyymmdd-hhmm>.json, .html and .png (the screenshot)
//! ```
//!
//! A progress line on stderr says which segment runs and how long is left.
//! Esc, closing the window or Ctrl+C end the tour early: the card is still
//! written with what was measured, and says that it was cut short.
//!
//! The rooms: this file runs the segments and fills the card; `compositor`
//! says what the card tells of the compositor; `progress` keeps the progress line.

use std::path::PathBuf;

use winit::event_loop::ActiveEventLoop;

use crate::app::config::{PresentModeRequest, RunConfig};
use crate::app::demo::Demo;
use crate::app::demo::ShownFrame;
use crate::app::monitor_info::{MonitorInfo, refresh_rate_from_millihertz};
use crate::error::CliError;
use crate::render::surface::present_mode_name;
use crate::report::registry::{PRESENT_INTERVAL_MEAN_MS, PRESENT_INTERVAL_P99_MS, PRESENT_INTERVAL_STD_MS};
use crate::report_card::{
    FrameTimes, FrameTrace, IntervalStats, Machine, MonitorCard, PredictedDisplay, PresentModeCheck, ReportCard,
    RunRecord, SetupSampler, card_file_name, card_file_stem, predict, write_report_html,
};
use crate::strategy::StrategyId;
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate};
use crate::vrr::VrrRange;

mod compositor;
mod progress;

use compositor::{compositor_of, fed_back, held_note};
use progress::Progress;

/// Time each segment runs before it is recorded: a new present mode
/// reconfigures the surface, and its first frames say nothing about pacing.
pub(crate) const SETTLE: Nanos = 300 * NANOS_PER_MS;

/// Time the window gets to arrive on the next monitor before it is measured.
pub(crate) const MOVE_SETTLE: Nanos = NANOS_PER_SEC;

/// How far apart (relative) the reported refresh and the rate frames were
/// shown at must be before a prediction tells its strategies the reported
/// one, as the live strategies were told: beyond the rounding of a rate to
/// millihertz. Weston's outputs here showed 60 Hz frames at 37 to 58 Hz, and
/// 58.2 is only 3 % off: paced, told 58.2 instead of 60, was predicted
/// 663 hitches a minute where the measured run had none.
const TOLD_APART: f64 = 0.0001;

/// The kinds of file a tour writes into `--out`, each named
/// `report-<screen>-<yyyymmdd-hhmm>.<extension>` by [`card_file_name`].
pub(crate) const OUTPUTS: [&str; 3] = ["json", "html", "png"];

/// Present modes probed, in this order, where the surface supports them.
const PROBED_MODES: [wgpu::PresentMode; 4] =
    [wgpu::PresentMode::Fifo, wgpu::PresentMode::FifoRelaxed, wgpu::PresentMode::Mailbox, wgpu::PresentMode::Immediate];

/// Which monitors the tour visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MonitorChoice {
    /// Monitor N (numbered from 1).
    One(usize),
    /// Every monitor, in turn.
    All,
}

/// What a tour measures, and where its card goes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TourPlan {
    /// Directory for [`OUTPUTS`].
    pub(crate) out: PathBuf,
    /// The monitors to visit; `None`: the one the window opens on.
    pub(crate) monitors: Option<MonitorChoice>,
    /// Strategies run in each vsync pass, in this order.
    pub(crate) strategies: Vec<StrategyId>,
    /// How long each strategy runs in each pass.
    pub(crate) run_length: Nanos,
    /// How long each present mode is probed.
    pub(crate) probe_length: Nanos,
    /// Whether the pass with vsync off runs.
    pub(crate) vsync_off: bool,
    /// The machine's name in the card.
    pub(crate) name: Option<String>,
}

/// What a segment presents with: a present mode, with or without the emulated grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PresentSetup {
    present: wgpu::PresentMode,
    emulated: bool,
}

/// One timed part of the tour: a probe, a run, or a move to the next monitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Segment {
    /// Lockstep in `setup`: vsync verdict and present intervals.
    Probe(PresentSetup),
    /// `strategy` in `setup`, in the vsync pass `vsync`.
    Run { strategy: StrategyId, vsync: bool, setup: PresentSetup },
    /// Move the window to the next monitor and start its card.
    NextMonitor,
    /// A [`Segment::NextMonitor`] done (its monitor's segments follow it).
    Moved,
}

/// The segment under way.
#[derive(Clone, Debug)]
struct UnderWay {
    segment: Segment,
    /// When recording starts (after [`SETTLE`]).
    record_at: Nanos,
    recording: bool,
    ends: Nanos,
    last_display: Option<Nanos>,
    intervals: Vec<Nanos>,
}

/// `measure`'s tour: the plan, where it stands, and the card it fills.
pub(crate) struct Tour {
    /// What to measure, as asked.
    plan: TourPlan,
    /// The segments planned from it so far (each further monitor's when the window is on it).
    segments: Vec<Segment>,
    /// The next segment to begin.
    next: usize,
    under_way: Option<UnderWay>,
    card: Option<ReportCard>,
    monitor: Option<MonitorCard>,
    /// Which monitors are still to visit after the current one.
    monitors_left: usize,
    /// The emulated grid on the monitor measured now.
    emulated: Option<Rate>,
    /// Time one monitor's segments take.
    per_monitor: Nanos,
    started: Nanos,
    progress: Progress,
    /// The current monitor's frames, for the model of its setup.
    sampler: SetupSampler,
    /// Whether the reference probe (the emulated grid, else Fifo) found vsync in effect.
    reference_vsync: Option<bool>,
    /// The mode of each of the current monitor's probes, in the order of its card's
    /// `present_modes`: which measured a real present mode, and which the emulated grid.
    probe_modes: Vec<PresentSetup>,
}

impl Tour {
    /// A tour of `plan`.
    pub(crate) fn new(plan: TourPlan) -> Tour {
        Tour {
            plan,
            segments: Vec::new(),
            next: 0,
            under_way: None,
            card: None,
            monitor: None,
            monitors_left: 0,
            emulated: None,
            per_monitor: 0,
            started: 0,
            progress: Progress::new(),
            sampler: SetupSampler::new(),
            reference_vsync: None,
            probe_modes: Vec::new(),
        }
    }

    /// The window is up: plan the tour and start its first segment.
    pub(crate) fn start(&mut self, demo: &mut Demo, config: &RunConfig, event_loop: &ActiveEventLoop, now: Nanos) {
        let info = demo.adapter_info();
        let driver = [info.driver.as_str(), info.driver_info.as_str()].join(" ").trim().to_owned();
        self.card = Some(ReportCard {
            created: Some(crate::platform::utc_now()),
            ..ReportCard::new(Machine {
                name: self.plan.name.clone(),
                // A browser may hide the adapter's name: none rather than an empty one.
                adapter: Some(info.name.trim().to_owned()).filter(|name| !name.is_empty()),
                backend: Some(format!("{:?}", info.backend)),
                driver: (!driver.is_empty()).then_some(driver),
                ..Machine::this_build()
            })
        });
        let count = event_loop.available_monitors().count().max(1);
        self.monitors_left = match self.plan.monitors {
            Some(MonitorChoice::All) => count - 1,
            _ => 0,
        };
        self.segments = self.monitor_segments(demo);
        // Each further monitor's segments are planned when the window is on it
        // (its emulated grid may differ); the time left counts them as this one's.
        self.segments.extend(std::iter::repeat_n(Segment::NextMonitor, self.monitors_left));
        self.per_monitor = self.segments.iter().map(|&s| self.length(s) + SETTLE).sum();
        self.started = now;
        self.monitor = Some(self.monitor_card(demo, event_loop));
        self.begin(demo, config, event_loop, now);
    }

    /// The segments on the monitor the window is on.
    fn monitor_segments(&self, demo: &Demo) -> Vec<Segment> {
        self.segments_for(demo.supported_present_modes(), demo.emulated_here().is_some())
    }

    /// The segments on a monitor with these present modes, with or without an emulated grid.
    fn segments_for(&self, supported: &[wgpu::PresentMode], emulating: bool) -> Vec<Segment> {
        let real = |present| PresentSetup { present, emulated: false };
        let mut segments = Vec::new();
        let emulated = PresentSetup { present: PresentModeRequest::Auto.resolve(true), emulated: true };
        if emulating {
            segments.push(Segment::Probe(emulated));
        }
        segments.extend(PROBED_MODES.into_iter().filter(|m| supported.contains(m)).map(|m| Segment::Probe(real(m))));
        let on = if emulating { emulated } else { real(wgpu::PresentMode::Fifo) };
        segments.extend(self.plan.strategies.iter().map(|&strategy| Segment::Run { strategy, vsync: true, setup: on }));
        let off =
            [wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox].into_iter().find(|m| supported.contains(m));
        if let (true, Some(off)) = (self.plan.vsync_off, off) {
            segments.extend(self.plan.strategies.iter().map(|&strategy| Segment::Run {
                strategy,
                vsync: false,
                setup: real(off),
            }));
        }
        segments
    }

    fn monitor_card(&mut self, demo: &Demo, event_loop: &ActiveEventLoop) -> MonitorCard {
        self.emulated = demo.emulated_here();
        self.probe_modes.clear();
        let mut card = MonitorCard { emulated_refresh_hz: self.emulated.map(Rate::hz), ..MonitorCard::default() };
        identify(&mut card, self.plan.monitors, demo, event_loop);
        card
    }

    fn total(&self) -> Nanos {
        let later = self.segments.iter().filter(|s| **s == Segment::NextMonitor).count() as u64;
        self.segments.iter().filter(|s| **s != Segment::NextMonitor).map(|s| self.length(*s) + SETTLE).sum::<Nanos>()
            + later * (MOVE_SETTLE + self.per_monitor)
    }

    fn length(&self, segment: Segment) -> Nanos {
        match segment {
            Segment::Probe(_) => self.plan.probe_length,
            Segment::Run { .. } => self.plan.run_length,
            Segment::NextMonitor | Segment::Moved => MOVE_SETTLE.saturating_sub(SETTLE),
        }
    }

    /// Starts the next segment.
    fn begin(&mut self, demo: &mut Demo, config: &RunConfig, event_loop: &ActiveEventLoop, now: Nanos) {
        let Some(&segment) = self.segments.get(self.next) else { return };
        self.next += 1;
        match segment {
            Segment::Probe(setup) => apply(demo, config, setup, StrategyId::Lockstep, now, false),
            Segment::Run { strategy, setup, vsync } => apply(demo, config, setup, strategy, now, !vsync),
            Segment::NextMonitor | Segment::Moved => demo.next_monitor(event_loop),
        }
        self.progress.show(&self.describe(segment), self.next, self.segments.len(), self.remaining(now));
        self.under_way = Some(UnderWay {
            segment,
            record_at: now + SETTLE,
            recording: false,
            ends: now + SETTLE + self.length(segment),
            last_display: None,
            intervals: Vec::new(),
        });
    }

    fn remaining(&self, now: Nanos) -> Nanos {
        self.total().saturating_sub(now.saturating_sub(self.started))
    }

    fn describe(&self, segment: Segment) -> String {
        let monitor = self.monitor.as_ref().map_or(1, |m| m.index);
        match segment {
            Segment::Probe(setup) => format!("monitor {monitor}: probing {}", setup_label(setup, self.emulated_rate())),
            Segment::Run { strategy, vsync, setup } => format!(
                "monitor {monitor}: {strategy}, vsync {} ({})",
                if vsync { "on" } else { "off" },
                setup_label(setup, self.emulated_rate())
            ),
            Segment::NextMonitor | Segment::Moved => "moving to the next monitor".to_owned(),
        }
    }

    fn emulated_rate(&self) -> Option<f64> {
        self.monitor.as_ref().and_then(|m| m.emulated_refresh_hz)
    }

    /// After each frame: record it, close the segment when its time is up.
    /// Returns true when the tour is over.
    pub(crate) fn after_frame(
        &mut self,
        demo: &mut Demo,
        shown: &[ShownFrame],
        config: &RunConfig,
        event_loop: &ActiveEventLoop,
        now: Nanos,
    ) -> bool {
        let left = self.remaining(now);
        let Some(under_way) = self.under_way.as_mut() else { return true };
        if !under_way.recording {
            if now >= under_way.record_at {
                under_way.recording = true;
                if let Segment::Probe(setup) | Segment::Run { setup, .. } = under_way.segment {
                    // A fresh session: the settling frames are in no figure.
                    let strategy = demo.strategy();
                    let vsync_off_run = matches!(under_way.segment, Segment::Run { vsync: false, .. });
                    apply(demo, config, setup, strategy, now, vsync_off_run);
                    match under_way.segment {
                        Segment::Run { strategy, vsync, .. } => self.sampler.begin_run(strategy.name(), vsync),
                        _ => self.sampler.break_sequence(),
                    }
                }
            }
            return false;
        }
        for &ShownFrame { ref report, display_wait, redraw_wait } in shown {
            let times = FrameTimes { throttled: redraw_wait, ..report.into() };
            match under_way.segment {
                Segment::Probe(setup) if is_reference(setup, self.emulated.is_some()) => {
                    self.sampler.probe_frame(times, display_wait);
                }
                Segment::Run { vsync, .. } => self.sampler.frame(times, display_wait, vsync),
                _ => self.sampler.frame(times, display_wait, false),
            }
            if let Some(previous) = under_way.last_display {
                under_way.intervals.push(report.display_time.saturating_sub(previous));
            }
            under_way.last_display = Some(report.display_time);
        }
        let ends = under_way.ends;
        self.progress.tick(now, left);
        if now < ends {
            return false;
        }
        if let Some(under_way) = self.under_way.take() {
            self.close(under_way, demo, config, event_loop, now);
        }
        if self.next >= self.segments.len() {
            return true;
        }
        self.begin(demo, config, event_loop, now);
        false
    }

    /// The page was hidden from `gap.0` to `gap.1`: the segment under way
    /// (its figures cut by the gap) runs again from its start, and the card
    /// says so.
    pub(crate) fn hidden(
        &mut self,
        demo: &mut Demo,
        gap: (Nanos, Nanos),
        config: &RunConfig,
        event_loop: &ActiveEventLoop,
        now: Nanos,
    ) {
        let Some(under_way) = self.under_way.take() else { return };
        let seconds = crate::report::trim_number((gap.1 - gap.0) as f64 / 1e9, 1);
        let note = format!("{} ran again: the page was hidden {seconds} s during it", self.describe(under_way.segment));
        log::info!("{note}");
        if let Some(m) = self.monitor.as_mut() {
            m.notes.push(note);
        }
        self.sampler.break_sequence();
        self.next -= 1;
        // The time a re-run takes is added to the tour's.
        self.started = self.started.saturating_add(now.saturating_sub(under_way.record_at.min(now)));
        self.begin(demo, config, event_loop, now);
    }

    /// Puts what `under_way` measured on the card.
    fn close(
        &mut self,
        under_way: UnderWay,
        demo: &mut Demo,
        config: &RunConfig,
        event_loop: &ActiveEventLoop,
        now: Nanos,
    ) {
        if let Some(m) = self.monitor.as_mut().filter(|m| m.name.is_none()) {
            // Wayland names a surface's output only once the compositor shows it.
            identify(m, self.plan.monitors, demo, event_loop);
        }
        match under_way.segment {
            Segment::Probe(setup) => self.record_probe(setup, &under_way.intervals, demo, now),
            Segment::Run { vsync, setup, strategy } => {
                self.record_run(strategy, vsync, setup, &under_way.intervals, demo, now);
            }
            Segment::NextMonitor => {
                demo.follow_monitor(now);
                self.finish_monitor(config);
                self.monitor = Some(self.monitor_card(demo, event_loop));
                let segments = self.monitor_segments(demo);
                // In place of the placeholder just run: the time estimate stays whole.
                let at = self.next;
                self.segments.splice(at..at, segments);
                self.segments[at - 1] = Segment::Moved;
            }
            Segment::Moved => {}
        }
    }

    /// Puts a probe's verdict, measured refresh and present intervals on the
    /// monitor's card (and a VRR range, where vsync was in effect).
    fn record_probe(&mut self, setup: PresentSetup, intervals: &[Nanos], demo: &mut Demo, now: Nanos) {
        let emulated = self.emulated_rate();
        let mut verdict = demo.verdict();
        if !crate::platform::VSYNC_CAN_BE_TURNED_OFF && !setup.emulated {
            // A browser presents on the screen's refresh whatever its frames show:
            // a page too slow for its screen made the meter doubt it.
            verdict.vsync = Some(true);
        }
        let seen = demo.vrr_seen().filter(|_| verdict.vsync == Some(true));
        let report = demo.report(now);
        let measured = report.display.as_ref().and_then(|d| d.present_cadence_hz);
        if is_reference(setup, self.emulated.is_some()) {
            self.reference_vsync = verdict.vsync;
        }
        let intervals = IntervalStats::from_intervals(intervals);
        // A page's frame clock tells a slow page from a slow or compositor-paced screen.
        let slow_page = crate::platform::screen_refresh()
            .zip(intervals.as_ref().filter(|_| !setup.emulated))
            .and_then(|(screen, drawn)| crate::app::demo::life::slow_page_verdict(1000.0 / drawn.mean_ms, screen));
        if let Some(m) = self.monitor.as_mut() {
            if let Some(seen) = seen {
                let [min, max] = m.vrr_seen_hz.unwrap_or([seen.min_hz, seen.max_hz]);
                m.vrr_seen_hz = Some([min.min(seen.min_hz), max.max(seen.max_hz)]);
            }
            self.probe_modes.push(setup);
            m.present_modes.push(PresentModeCheck {
                mode: setup_label(setup, emulated),
                present_kind: Some(present_kind(setup)),
                vsync: verdict.vsync,
                verdict: slow_page.unwrap_or(verdict.text),
                present_cadence_hz: measured,
                intervals,
            });
        }
    }

    /// Puts a run's record (and, for the pass's trace, its intervals) on the monitor's card.
    fn record_run(
        &mut self,
        strategy: StrategyId,
        vsync: bool,
        setup: PresentSetup,
        intervals: &[Nanos],
        demo: &mut Demo,
        now: Nanos,
    ) {
        let emulated = self.emulated_rate();
        let report = demo.report(now);
        let stats = IntervalStats::from_intervals(intervals);
        let record = RunRecord {
            vsync_requested: Some(vsync),
            present_mode: Some(setup_label(setup, emulated)),
            display_timing: Some(demo.display_timing()),
            ..RunRecord::from(&report)
        };
        let record = with_interval_stats(record, stats.as_ref());
        if let Some(m) = self.monitor.as_mut() {
            // The trace shows interpolated (the default strategy) with vsync on,
            // else the first strategy of the pass.
            if vsync && (strategy == StrategyId::Interpolated || m.frame_trace.is_none()) {
                m.frame_trace = Some(FrameTrace::from_intervals(
                    format!("{strategy}, vsync on ({})", record.present_mode.as_deref().unwrap_or("?")),
                    intervals,
                ));
            }
            m.runs.push(record);
        }
    }

    /// Adds the predictions to the current monitor's card and files it.
    fn finish_monitor(&mut self, config: &RunConfig) {
        let Some(mut m) = self.monitor.take() else { return };
        // The probes of real present modes (the emulated grid's probe measures the grid, not the monitor).
        let modes = std::mem::take(&mut self.probe_modes);
        let real: Vec<&PresentModeCheck> =
            m.present_modes.iter().zip(&modes).filter(|(_, mode)| !mode.emulated).map(|(p, _)| p).collect();
        // The refresh with vsync in effect: the first probe that found it and measured a rate.
        // A browser's frame clock gives the screen's refresh however many refreshes the page missed.
        let probed = real.iter().filter(|p| p.vsync == Some(true)).find_map(|p| p.present_cadence_hz);
        let drawn = real.first().and_then(|p| p.intervals.clone());
        m.present_cadence_hz = crate::platform::screen_refresh().or(probed);
        if let (Some(screen), Some(drawn)) = (crate::platform::screen_refresh(), drawn)
            && let Some(note) = crate::app::demo::life::missed_refreshes(1000.0 / drawn.mean_ms, screen)
        {
            m.notes.push(note);
        }
        let refresh = self
            .emulated
            .or_else(|| m.present_cadence_hz.and_then(rate_of_hz))
            .or_else(|| m.reported_refresh_hz.and_then(rate_of_hz));
        let sampler = std::mem::take(&mut self.sampler);
        let reference_vsync = self.reference_vsync.take();
        match refresh {
            Some(rate) => {
                let (compositor, mut compositor_note) = compositor_of(&sampler, &m.runs, rate.period());
                let lag = compositor.map_or(0, |c| c.latch + u64::from(c.delay_refreshes) * rate.period());
                m.setup = match reference_vsync {
                    Some(true) => sampler.finish_composited(rate.period(), lag),
                    _ => None,
                };
                if let Some(setup) = m.setup.as_mut() {
                    if let Some(off) = setup.vsync_off.as_mut() {
                        match off.compositor {
                            Some(held) if compositor.is_none() => {
                                compositor_note = held_note(held, rate.period(), fed_back(&m.runs));
                            }
                            // A compositor read from frames that came faster than it repaints holds nothing.
                            _ => off.compositor = None,
                        }
                    }
                    (setup.compositor, setup.compositor_note) = (compositor, Some(compositor_note.clone()));
                }
                m.notes.push(compositor_note);
                if m.setup.is_none() {
                    m.notes.push(SETUP_NOTE.to_owned());
                }
                // The strategies that present every refresh (not those that pace frames themselves).
                let every_refresh: Vec<&str> =
                    self.plan.strategies.iter().filter(|s| !s.paces_itself()).map(|s| s.name()).collect();
                if let Some(note) = m.setup.as_ref().and_then(|s| s.keeping_up(rate.hz(), &every_refresh)) {
                    log::warn!("{note}");
                    m.notes.push(note);
                }
                // Told the rate (reported, or the emulated grid's), or measuring it as it goes.
                // A VRR panel seen: from the lowest rate seen up to the reported (its maximum).
                let vrr = m.vrr_seen_hz.and_then(|[min, max]| {
                    let max = m.reported_refresh_hz.unwrap_or(max).max(max);
                    VrrRange::new(Rate::new(min.floor().max(1.0) as u64, 1).ok()?, rate_of_hz(max.ceil())?).ok()
                });
                // Frames shown at another rate than the display reported (a compositor
                // that misses its own repaints): the prediction's display shows them at
                // the measured rate and tells its strategies what the live ones were told.
                let told = m
                    .reported_refresh_hz
                    .filter(|&hz| self.emulated.is_none() && (hz / rate.hz() - 1.0).abs() > TOLD_APART)
                    .and_then(rate_of_hz);
                let display = PredictedDisplay {
                    refresh: rate,
                    reported: m.reported_refresh_hz.is_some() || m.emulated_refresh_hz.is_some(),
                    vrr,
                    told,
                };
                for vsync in [true, false] {
                    let ran: Vec<StrategyId> = self
                        .plan
                        .strategies
                        .iter()
                        .copied()
                        .filter(|s| m.runs.iter().any(|r| r.strategy == s.name() && r.vsync_requested == Some(vsync)))
                        .collect();
                    if !ran.is_empty() {
                        let (records, ranges) = predict(
                            display,
                            vsync,
                            config.strategy_config,
                            &ran,
                            m.setup.as_ref(),
                            self.plan.run_length,
                            SETTLE,
                        );
                        m.predictions.extend(records);
                        m.prediction_ranges.extend(ranges);
                    }
                }
            }
            None => m.notes.push("no refresh rate was measured or reported: no predictions".to_owned()),
        }
        if let Some(card) = self.card.as_mut() {
            card.monitors.push(m);
        }
    }

    /// Writes the card, the page and the screenshot (with what was measured
    /// so far, and a note, when the tour was cut short); returns the tour's
    /// last line, which says where they are.
    ///
    /// # Errors
    /// [`CliError::Runtime`] naming the file that could not be written.
    pub(crate) fn finish(mut self, demo: &mut Demo, config: &RunConfig) -> Result<String, CliError> {
        self.progress.done();
        let done = self.next - usize::from(self.under_way.is_some());
        if self.next < self.segments.len() || self.under_way.is_some() {
            let note = format!("the tour was cut short: {done} of {} segments ran", self.segments.len());
            log::warn!("{note}");
            if let Some(m) = self.monitor.as_mut() {
                m.notes.push(note);
            }
        }
        self.finish_monitor(config);
        let card = self.card.take().ok_or_else(|| CliError::Runtime("the tour never started".to_owned()))?;
        let runtime = CliError::runtime;
        let path = |extension: &str| self.plan.out.join(card_file_name(&card, extension));
        card.write(&path(OUTPUTS[0])).map_err(runtime)?;
        write_report_html(&card, &path(OUTPUTS[1])).map_err(runtime)?;
        // A browser reads the GPU back by callback, later: the page's card comes without a screenshot.
        let written = if crate::platform::CAN_WAIT_FOR_GPU {
            demo.screenshot(&path(OUTPUTS[2]))?;
            &OUTPUTS[..]
        } else {
            &OUTPUTS[..2]
        };
        match card.to_json() {
            Ok(json) => crate::platform::tour_finished(&json),
            Err(err) => log::warn!("cannot hand the card to the page: {err}"),
        }
        let line = files_line(&self.plan.out, &card_file_stem(&card), written);
        self.progress.end(&line);
        Ok(line)
    }
}

/// The tour's last line: where its files are (`stem` with each of
/// `extensions`, in `dir` natively, the downloads on the page).
fn files_line(dir: &std::path::Path, stem: &str, extensions: &[&str]) -> String {
    let what = |extension: &str| match extension {
        "json" => "the card",
        "html" => "its page",
        _ => "a screenshot",
    };
    let parts: Vec<String> = extensions.iter().map(|e| format!(".{e} ({})", what(e))).collect();
    let list = match parts.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] => format!("{} and {last}", first.join(", ")),
    };
    if crate::platform::FILES_ARE_DOWNLOADS {
        format!("The tour is done: {stem}{list} are in your downloads.")
    } else {
        format!("The tour is done: {}{list}.", dir.join(stem).display())
    }
}

/// What a card says when the tour could not model the setup.
const SETUP_NOTE: &str = "the setup could not be modelled (no probe with vsync in effect, or too few frames): \
                          the predictions use the simulator's desktop model";

/// Whether `setup` is the probe the machine's setup is measured in: the emulated grid
/// when there is one, else Fifo (vsync on every platform).
fn is_reference(setup: PresentSetup, emulating: bool) -> bool {
    if emulating { setup.emulated } else { setup.present == wgpu::PresentMode::Fifo }
}

/// What a card says when the platform has not said which monitor the window is on.
const NO_MONITOR_NOTE: &str = "the platform does not say which monitor the window is on";

/// Names on `card` the monitor the window is on (number, name, size, scale,
/// reported refresh), or says that the platform does not tell; again on each
/// call, as Wayland tells a surface its output only once it has been shown.
fn identify(card: &mut MonitorCard, choice: Option<MonitorChoice>, demo: &Demo, event_loop: &ActiveEventLoop) {
    let monitors: Vec<_> = event_loop.available_monitors().collect();
    let current = demo.current_monitor();
    let index = current.as_ref().and_then(|c| monitors.iter().position(|m| m == c));
    let info = current.as_ref().map(|m| MonitorInfo::of(index.unwrap_or(0), m));
    card.index = index.map_or(1, |i| i as u32 + 1);
    card.name = info.as_ref().map(|i| i.name.clone());
    card.size_px = info.as_ref().map(|i| i.size);
    card.scale_factor = current.as_ref().map(|m| m.scale_factor());
    card.reported_refresh_hz = info.as_ref().and_then(MonitorInfo::refresh_hz);
    let asked = match choice {
        Some(MonitorChoice::One(n)) if index.is_some_and(|i| i + 1 != n) => {
            Some(format!("asked for monitor {n}, but the window is on monitor {}", card.index))
        }
        _ => None,
    };
    card.notes.retain(|n| n != NO_MONITOR_NOTE && !n.starts_with("asked for monitor "));
    card.notes.extend(asked);
    if info.is_none() {
        card.notes.push(NO_MONITOR_NOTE.to_owned());
    }
}

/// Presents with `setup` and starts a fresh session running `strategy` in it. A run
/// of the pass with vsync off (`vsync_off_run`) on a monitor that reports
/// no refresh counts its refreshes at the emulated grid's rate, which
/// stands in for the monitor's in this tour, as a real monitor's reported
/// rate would: the simulator's prediction counts at that rate too.
fn apply(
    demo: &mut Demo,
    config: &RunConfig,
    setup: PresentSetup,
    strategy: StrategyId,
    now: Nanos,
    vsync_off_run: bool,
) {
    let actual = demo.set_present_mode(setup.present);
    if actual != setup.present {
        log::warn!(
            "present mode {} refused; {} in effect",
            present_mode_name(setup.present),
            present_mode_name(actual)
        );
    }
    let stand_in = if vsync_off_run { demo.emulated_here() } else { None };
    demo.restart(strategy, setup.emulated, stand_in, config, now);
}

/// `Fifo`, or `Immediate + emulated 59.94 Hz`.
/// The card's type for `setup`'s presents.
fn present_kind(setup: PresentSetup) -> crate::report_card::PresentKind {
    use crate::report_card::PresentKind;
    match setup.present {
        _ if setup.emulated => PresentKind::EmulatedGrid,
        wgpu::PresentMode::Fifo => PresentKind::Fifo,
        wgpu::PresentMode::FifoRelaxed => PresentKind::FifoRelaxed,
        wgpu::PresentMode::Mailbox => PresentKind::Mailbox,
        wgpu::PresentMode::Immediate => PresentKind::Immediate,
        _ => PresentKind::Other,
    }
}

fn setup_label(setup: PresentSetup, emulated_hz: Option<f64>) -> String {
    let name = crate::render::surface::present_mode_title(setup.present);
    match (setup.emulated, emulated_hz) {
        (true, Some(hz)) => format!("{name} + emulated {} Hz", crate::report::trim_number(hz, 3)),
        (true, None) => format!("{name} + emulated vblank"),
        (false, _) => name.to_owned(),
    }
}

/// An exact rate from a measured rate in Hz, to the millihertz (59.94 snaps to 60000/1001).
pub(crate) fn rate_of_hz(hz: f64) -> Option<Rate> {
    let mhz = (hz * 1000.0).round();
    (mhz >= 1.0 && mhz <= f64::from(u32::MAX)).then(|| refresh_rate_from_millihertz(mhz as u32)).flatten()
}

/// The run's present-interval figures: the report's own where it has them,
/// else the tour's statistics of the same frames.
fn with_interval_stats(mut record: RunRecord, stats: Option<&IntervalStats>) -> RunRecord {
    for (field, value) in [
        (&PRESENT_INTERVAL_MEAN_MS, stats.map(|s| s.mean_ms)),
        (&PRESENT_INTERVAL_STD_MS, stats.map(|s| s.std_ms)),
        (&PRESENT_INTERVAL_P99_MS, stats.map(|s| s.p99_ms)),
    ] {
        let filled = record.figure(field).or(value);
        record.figures.set(field, filled);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_names_the_files_where_they_are() {
        let line = files_line(std::path::Path::new("A"), "report-x-60hz-20261127-2037", &OUTPUTS);
        assert_eq!(
            line,
            "The tour is done: A/report-x-60hz-20261127-2037.json (the card), .html (its page) and .png (a screenshot)."
        );
    }

    #[test]
    fn measured_rates_snap_to_exact_rates() {
        assert_eq!(rate_of_hz(59.9401), Rate::new(60000, 1001).ok(), "59.940 Hz is NTSC's 60000/1001");
        assert_eq!(rate_of_hz(144.0), Some(Rate::from_hz(144)));
        assert_eq!(rate_of_hz(0.0), None);
        assert_eq!(rate_of_hz(f64::NAN), None);
    }

    #[test]
    fn a_run_keeps_its_own_interval_figures_and_fills_missing_ones() {
        let stats = IntervalStats::from_intervals(&[16_000_000, 18_000_000]).expect("two intervals");
        let filled = with_interval_stats(RunRecord::default(), Some(&stats));
        let mean_std = |r: &RunRecord| (r.figure(&PRESENT_INTERVAL_MEAN_MS), r.figure(&PRESENT_INTERVAL_STD_MS));
        assert_eq!(mean_std(&filled), (Some(17.0), Some(1.0)));
        let own = RunRecord::default().with(&PRESENT_INTERVAL_MEAN_MS, 5.0);
        assert_eq!(with_interval_stats(own, Some(&stats)).figure(&PRESENT_INTERVAL_MEAN_MS), Some(5.0));
    }

    #[test]
    fn the_segments_probe_supported_present_modes_then_run_each_strategy_twice() {
        let tour = Tour::new(TourPlan {
            out: PathBuf::from("x"),
            monitors: None,
            strategies: vec![StrategyId::Lockstep, StrategyId::Snapped],
            run_length: NANOS_PER_SEC,
            probe_length: NANOS_PER_SEC,
            vsync_off: true,
            name: None,
        });
        let fifo = PresentSetup { present: wgpu::PresentMode::Fifo, emulated: false };
        let mailbox = PresentSetup { present: wgpu::PresentMode::Mailbox, emulated: false };
        let segments = tour.segments_for(&[wgpu::PresentMode::Mailbox, wgpu::PresentMode::Fifo], false);
        assert_eq!(
            segments,
            [
                Segment::Probe(fifo),
                Segment::Probe(mailbox),
                Segment::Run { strategy: StrategyId::Lockstep, vsync: true, setup: fifo },
                Segment::Run { strategy: StrategyId::Snapped, vsync: true, setup: fifo },
                Segment::Run { strategy: StrategyId::Lockstep, vsync: false, setup: mailbox },
                Segment::Run { strategy: StrategyId::Snapped, vsync: false, setup: mailbox },
            ],
            "Immediate is not supported: the vsync-off pass uses Mailbox"
        );
        let only_fifo = tour.segments_for(&[wgpu::PresentMode::Fifo], true);
        assert_eq!(
            only_fifo.len(),
            4,
            "emulated probe, Fifo probe, two vsync-on runs, no vsync-off pass: {only_fifo:?}"
        );
        assert!(matches!(only_fifo[0], Segment::Probe(PresentSetup { emulated: true, .. })));
    }
}
