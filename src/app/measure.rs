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
//! at the end:  DIR/report.json, DIR/report.html, DIR/screenshot.png
//! ```
//!
//! A progress line on stderr says which segment runs and how long is left.
//! Esc, closing the window or Ctrl+C end the tour early: the card is still
//! written with what was measured, and says that it was cut short.

use std::path::PathBuf;

use winit::event_loop::ActiveEventLoop;

use crate::app::config::{PresentModeRequest, RunConfig};
use crate::app::demo::Demo;
use crate::app::demo::ShownFrame;
use crate::app::monitors::{MonitorInfo, refresh_rate_from_millihertz};
use crate::error::CliError;
use crate::render::surface::present_mode_name;
use crate::report::registry::{PRESENT_INTERVAL_MEAN_MS, PRESENT_INTERVAL_P99_MS, PRESENT_INTERVAL_STD_MS};
use crate::report_card::{
    FrameTrace, IntervalStats, Machine, MonitorCard, PredictedDisplay, PresentModeCheck, ReportCard, RunRecord,
    SetupSampler, predict, write_report_html,
};
use crate::strategy::StrategyId;
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate};

/// Time each segment runs before it is recorded: a new present mode
/// reconfigures the surface, and its first frames say nothing about pacing.
pub const SETTLE: Nanos = 300 * NANOS_PER_MS;

/// Time the window gets to arrive on the next monitor before it is measured.
pub const MOVE_SETTLE: Nanos = NANOS_PER_SEC;

/// The files a tour writes into `--out`.
pub const OUTPUTS: [&str; 3] = ["report.json", "report.html", "screenshot.png"];

/// Present modes probed, in this order, where the surface supports them.
const PROBED_MODES: [wgpu::PresentMode; 4] =
    [wgpu::PresentMode::Fifo, wgpu::PresentMode::FifoRelaxed, wgpu::PresentMode::Mailbox, wgpu::PresentMode::Immediate];

/// Which monitors the tour visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MonitorChoice {
    /// Monitor N (numbered from 1).
    One(usize),
    /// Every monitor, in turn.
    All,
}

/// What a tour measures, and where its card goes.
#[derive(Clone, Debug, PartialEq)]
pub struct TourPlan {
    /// Directory for [`OUTPUTS`].
    pub out: PathBuf,
    /// The monitors to visit; `None`: the one the window opens on.
    pub monitors: Option<MonitorChoice>,
    /// Strategies run in each vsync pass, in this order.
    pub strategies: Vec<StrategyId>,
    /// How long each strategy runs in each pass.
    pub run_length: Nanos,
    /// How long each present mode is probed.
    pub probe_length: Nanos,
    /// Whether the pass with vsync off runs.
    pub vsync_off: bool,
    /// The machine's name in the card.
    pub name: Option<String>,
}

/// What a segment runs in: a present mode, with or without the emulated grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mode {
    present: wgpu::PresentMode,
    emulated: bool,
}

/// One timed part of the tour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Lockstep in `mode`: vsync verdict and present intervals.
    Probe(Mode),
    /// `strategy` in `mode`, in the vsync pass `vsync`.
    Run { strategy: StrategyId, vsync: bool, mode: Mode },
    /// Move the window to the next monitor and start its card.
    NextMonitor,
    /// A [`Step::NextMonitor`] done (its monitor's steps follow it).
    Moved,
}

/// The segment under way.
#[derive(Clone, Debug)]
struct Segment {
    step: Step,
    /// When recording starts (after [`SETTLE`]).
    record_at: Nanos,
    recording: bool,
    ends: Nanos,
    last_display: Option<Nanos>,
    intervals: Vec<Nanos>,
}

/// `measure`'s tour: the plan, where it stands, and the card it fills.
pub struct Tour {
    out: PathBuf,
    choice: Option<MonitorChoice>,
    strategies: Vec<StrategyId>,
    run_length: Nanos,
    probe_length: Nanos,
    vsync_off: bool,
    name: Option<String>,
    plan: Vec<Step>,
    next: usize,
    segment: Option<Segment>,
    card: Option<ReportCard>,
    monitor: Option<MonitorCard>,
    /// Which monitors are still to visit after the current one.
    monitors_left: usize,
    /// The emulated grid on the monitor measured now.
    emulated: Option<Rate>,
    /// Time one monitor's steps take.
    per_monitor: Nanos,
    started: Nanos,
    progress: Progress,
    /// The current monitor's frames, for the model of its setup.
    sampler: SetupSampler,
    /// Whether the reference probe (the emulated grid, else Fifo) found vsync in effect.
    reference_vsync: Option<bool>,
    /// The mode of each of the current monitor's probes, in the order of its card's
    /// `present_modes`: which measured a real present mode, and which the emulated grid.
    probe_modes: Vec<Mode>,
}

impl Tour {
    /// A tour of `plan`.
    pub fn new(plan: TourPlan) -> Tour {
        Tour {
            out: plan.out,
            choice: plan.monitors,
            strategies: plan.strategies,
            run_length: plan.run_length,
            probe_length: plan.probe_length,
            vsync_off: plan.vsync_off,
            name: plan.name,
            plan: Vec::new(),
            next: 0,
            segment: None,
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
    pub fn start(&mut self, demo: &mut Demo, config: &RunConfig, event_loop: &ActiveEventLoop, now: Nanos) {
        let info = demo.adapter_info();
        let driver = [info.driver.as_str(), info.driver_info.as_str()].join(" ").trim().to_owned();
        self.card = Some(ReportCard {
            created: Some(crate::platform::utc_now()),
            ..ReportCard::new(Machine {
                name: self.name.clone(),
                // A browser may hide the adapter's name: none rather than an empty one.
                adapter: Some(info.name.trim().to_owned()).filter(|name| !name.is_empty()),
                backend: Some(format!("{:?}", info.backend)),
                driver: (!driver.is_empty()).then_some(driver),
                ..Machine::this_build()
            })
        });
        let count = event_loop.available_monitors().count().max(1);
        self.monitors_left = match self.choice {
            Some(MonitorChoice::All) => count - 1,
            _ => 0,
        };
        self.plan = self.monitor_plan(demo);
        // Each further monitor's steps are planned when the window is on it
        // (its emulated grid may differ); the time left counts them as this one's.
        self.plan.extend(std::iter::repeat_n(Step::NextMonitor, self.monitors_left));
        self.per_monitor = self.plan.iter().map(|&s| self.length(s) + SETTLE).sum();
        self.started = now;
        self.monitor = Some(self.monitor_card(demo, event_loop));
        self.begin(demo, config, event_loop, now);
    }

    /// The steps on the monitor the window is on.
    fn monitor_plan(&self, demo: &Demo) -> Vec<Step> {
        self.plan_for(demo.supported_present_modes(), demo.emulated_here().is_some())
    }

    /// The steps on a monitor with these present modes, with or without an emulated grid.
    fn plan_for(&self, supported: &[wgpu::PresentMode], emulating: bool) -> Vec<Step> {
        let real = |present| Mode { present, emulated: false };
        let mut plan = Vec::new();
        let emulated = Mode { present: PresentModeRequest::Auto.resolve(true), emulated: true };
        if emulating {
            plan.push(Step::Probe(emulated));
        }
        plan.extend(PROBED_MODES.into_iter().filter(|m| supported.contains(m)).map(|m| Step::Probe(real(m))));
        let on = if emulating { emulated } else { real(wgpu::PresentMode::Fifo) };
        plan.extend(self.strategies.iter().map(|&strategy| Step::Run { strategy, vsync: true, mode: on }));
        let off =
            [wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox].into_iter().find(|m| supported.contains(m));
        if let (true, Some(off)) = (self.vsync_off, off) {
            plan.extend(self.strategies.iter().map(|&strategy| Step::Run { strategy, vsync: false, mode: real(off) }));
        }
        plan
    }

    fn monitor_card(&mut self, demo: &Demo, event_loop: &ActiveEventLoop) -> MonitorCard {
        self.emulated = demo.emulated_here();
        self.probe_modes.clear();
        let mut card = MonitorCard { emulated_refresh_hz: self.emulated.map(Rate::hz), ..MonitorCard::default() };
        identify(&mut card, self.choice, demo, event_loop);
        card
    }

    fn total(&self) -> Nanos {
        let later = self.plan.iter().filter(|s| **s == Step::NextMonitor).count() as u64;
        self.plan.iter().filter(|s| **s != Step::NextMonitor).map(|s| self.length(*s) + SETTLE).sum::<Nanos>()
            + later * (MOVE_SETTLE + self.per_monitor)
    }

    fn length(&self, step: Step) -> Nanos {
        match step {
            Step::Probe(_) => self.probe_length,
            Step::Run { .. } => self.run_length,
            Step::NextMonitor | Step::Moved => MOVE_SETTLE.saturating_sub(SETTLE),
        }
    }

    /// Starts the next step.
    fn begin(&mut self, demo: &mut Demo, config: &RunConfig, event_loop: &ActiveEventLoop, now: Nanos) {
        let Some(&step) = self.plan.get(self.next) else { return };
        self.next += 1;
        match step {
            Step::Probe(mode) => apply(demo, config, mode, StrategyId::Lockstep, now, false),
            Step::Run { strategy, mode, vsync } => apply(demo, config, mode, strategy, now, !vsync),
            Step::NextMonitor | Step::Moved => demo.next_monitor(event_loop),
        }
        self.progress.show(&self.describe(step), self.next, self.plan.len(), self.remaining(now));
        self.segment = Some(Segment {
            step,
            record_at: now + SETTLE,
            recording: false,
            ends: now + SETTLE + self.length(step),
            last_display: None,
            intervals: Vec::new(),
        });
    }

    fn remaining(&self, now: Nanos) -> Nanos {
        self.total().saturating_sub(now.saturating_sub(self.started))
    }

    fn describe(&self, step: Step) -> String {
        let monitor = self.monitor.as_ref().map_or(1, |m| m.index);
        match step {
            Step::Probe(mode) => format!("monitor {monitor}: probing {}", mode_label(mode, self.emulated_rate())),
            Step::Run { strategy, vsync, mode } => format!(
                "monitor {monitor}: {strategy}, vsync {} ({})",
                if vsync { "on" } else { "off" },
                mode_label(mode, self.emulated_rate())
            ),
            Step::NextMonitor | Step::Moved => "moving to the next monitor".to_owned(),
        }
    }

    fn emulated_rate(&self) -> Option<f64> {
        self.monitor.as_ref().and_then(|m| m.emulated_refresh_hz)
    }

    /// After each frame: record it, close the segment when its time is up.
    /// Returns true when the tour is over.
    pub fn after_frame(
        &mut self,
        demo: &mut Demo,
        shown: &[ShownFrame],
        config: &RunConfig,
        event_loop: &ActiveEventLoop,
        now: Nanos,
    ) -> bool {
        let left = self.remaining(now);
        let Some(segment) = self.segment.as_mut() else { return true };
        if !segment.recording {
            if now >= segment.record_at {
                segment.recording = true;
                if let Step::Probe(mode) | Step::Run { mode, .. } = segment.step {
                    // A fresh session: the settling frames are in no figure.
                    let strategy = demo.strategy();
                    let vsync_off_run = matches!(segment.step, Step::Run { vsync: false, .. });
                    apply(demo, config, mode, strategy, now, vsync_off_run);
                    self.sampler.break_sequence();
                }
            }
            return false;
        }
        for &ShownFrame { ref report, display_wait } in shown {
            match segment.step {
                Step::Probe(mode) if is_reference(mode, self.emulated.is_some()) => {
                    self.sampler.probe_frame(report.into(), display_wait);
                }
                Step::Run { vsync, .. } => self.sampler.frame(report.into(), display_wait, vsync),
                _ => self.sampler.frame(report.into(), display_wait, false),
            }
            if let Some(previous) = segment.last_display {
                segment.intervals.push(report.display_time.saturating_sub(previous));
            }
            segment.last_display = Some(report.display_time);
        }
        let ends = segment.ends;
        self.progress.tick(now, left);
        if now < ends {
            return false;
        }
        if let Some(segment) = self.segment.take() {
            self.close(segment, demo, config, event_loop, now);
        }
        if self.next >= self.plan.len() {
            return true;
        }
        self.begin(demo, config, event_loop, now);
        false
    }

    /// The page was hidden from `gap.0` to `gap.1`: the segment under way
    /// (its figures cut by the gap) runs again from its start, and the card
    /// says so.
    pub fn hidden(
        &mut self,
        demo: &mut Demo,
        gap: (Nanos, Nanos),
        config: &RunConfig,
        event_loop: &ActiveEventLoop,
        now: Nanos,
    ) {
        let Some(segment) = self.segment.take() else { return };
        let seconds = crate::monitor::trim_number((gap.1 - gap.0) as f64 / 1e9, 1);
        let note = format!("{} ran again: the page was hidden {seconds} s during it", self.describe(segment.step));
        log::info!("{note}");
        if let Some(m) = self.monitor.as_mut() {
            m.notes.push(note);
        }
        self.sampler.break_sequence();
        self.next -= 1;
        // The time a re-run takes is added to the tour's.
        self.started = self.started.saturating_add(now.saturating_sub(segment.record_at.min(now)));
        self.begin(demo, config, event_loop, now);
    }

    /// Puts what `segment` measured on the card.
    fn close(
        &mut self,
        segment: Segment,
        demo: &mut Demo,
        config: &RunConfig,
        event_loop: &ActiveEventLoop,
        now: Nanos,
    ) {
        if let Some(m) = self.monitor.as_mut().filter(|m| m.name.is_none()) {
            // Wayland names a surface's output only once the compositor shows it.
            identify(m, self.choice, demo, event_loop);
        }
        let emulated = self.emulated_rate();
        match segment.step {
            Step::Probe(mode) => {
                let mut verdict = demo.verdict();
                if !crate::platform::VSYNC_CAN_BE_TURNED_OFF && !mode.emulated {
                    // A browser presents on the screen's refresh whatever its frames show:
                    // a page too slow for its screen made the meter doubt it.
                    verdict.vsync = Some(true);
                }
                let report = demo.report(now);
                let measured = report.display.as_ref().and_then(|d| d.measured_refresh_hz);
                if is_reference(mode, self.emulated.is_some()) {
                    self.reference_vsync = verdict.vsync;
                }
                let intervals = IntervalStats::from_intervals(&segment.intervals);
                // A page's frame clock tells a slow page from a slow or compositor-paced screen.
                let slow_page =
                    crate::platform::screen_refresh().zip(intervals.as_ref().filter(|_| !mode.emulated)).and_then(
                        |(screen, drawn)| crate::app::demo::life::slow_page_verdict(1000.0 / drawn.mean_ms, screen),
                    );
                if let Some(m) = self.monitor.as_mut() {
                    self.probe_modes.push(mode);
                    m.present_modes.push(PresentModeCheck {
                        mode: mode_label(mode, emulated),
                        vsync: verdict.vsync,
                        verdict: slow_page.unwrap_or(verdict.text),
                        measured_refresh_hz: measured,
                        intervals,
                    });
                }
            }
            Step::Run { vsync, mode, strategy } => {
                let report = demo.report(now);
                let stats = IntervalStats::from_intervals(&segment.intervals);
                let record = RunRecord {
                    vsync_requested: Some(vsync),
                    present_mode: Some(mode_label(mode, emulated)),
                    ..RunRecord::from(&report)
                };
                let record = with_interval_stats(record, stats.as_ref());
                if let Some(m) = self.monitor.as_mut() {
                    // The trace shows interpolated (the default strategy) with vsync on,
                    // else the first strategy of the pass.
                    if vsync && (strategy == StrategyId::Interpolated || m.frame_trace.is_none()) {
                        m.frame_trace = Some(FrameTrace::from_intervals(
                            format!("{strategy}, vsync on ({})", record.present_mode.as_deref().unwrap_or("?")),
                            &segment.intervals,
                        ));
                    }
                    m.runs.push(record);
                }
            }
            Step::NextMonitor => {
                demo.follow_monitor(now);
                self.finish_monitor(config);
                self.monitor = Some(self.monitor_card(demo, event_loop));
                let steps = self.monitor_plan(demo);
                // In place of the placeholder just run: the time estimate stays whole.
                let at = self.next;
                self.plan.splice(at..at, steps);
                self.plan[at - 1] = Step::Moved;
            }
            Step::Moved => {}
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
        let probed = real.iter().filter(|p| p.vsync == Some(true)).find_map(|p| p.measured_refresh_hz);
        let drawn = real.first().and_then(|p| p.intervals.clone());
        m.measured_refresh_hz = crate::platform::screen_refresh().or(probed);
        if let (Some(screen), Some(drawn)) = (crate::platform::screen_refresh(), drawn)
            && let Some(note) = crate::app::demo::life::missed_refreshes(1000.0 / drawn.mean_ms, screen)
        {
            m.notes.push(note);
        }
        let refresh = self
            .emulated
            .or_else(|| m.measured_refresh_hz.and_then(rate_of_hz))
            .or_else(|| m.reported_refresh_hz.and_then(rate_of_hz));
        let sampler = std::mem::take(&mut self.sampler);
        let reference_vsync = self.reference_vsync.take();
        match refresh {
            Some(rate) => {
                m.setup = match reference_vsync {
                    Some(true) => sampler.finish(rate.period()),
                    _ => None,
                };
                if m.setup.is_none() {
                    m.notes.push(SETUP_NOTE.to_owned());
                }
                // Told the rate (reported, or the emulated grid's), or measuring it as it goes.
                let display = PredictedDisplay {
                    refresh: rate,
                    reported: m.reported_refresh_hz.is_some() || m.emulated_refresh_hz.is_some(),
                };
                for vsync in [true, false] {
                    let ran: Vec<StrategyId> = self
                        .strategies
                        .iter()
                        .copied()
                        .filter(|s| m.runs.iter().any(|r| r.strategy == s.name() && r.vsync_requested == Some(vsync)))
                        .collect();
                    if !ran.is_empty() {
                        let (records, ranges) =
                            predict(display, vsync, config.strategy_config, &ran, m.setup.as_ref(), self.run_length);
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
    /// so far, and a note, when the tour was cut short).
    ///
    /// # Errors
    /// [`CliError::Runtime`] naming the file that could not be written.
    pub fn finish(mut self, demo: &mut Demo, config: &RunConfig) -> Result<(), CliError> {
        self.progress.done();
        let done = self.next - usize::from(self.segment.is_some());
        if self.next < self.plan.len() || self.segment.is_some() {
            let note = format!("the tour was cut short: {done} of {} segments ran", self.plan.len());
            log::warn!("{note}");
            if let Some(m) = self.monitor.as_mut() {
                m.notes.push(note);
            }
        }
        self.finish_monitor(config);
        let card = self.card.take().ok_or_else(|| CliError::Runtime("the tour never started".to_owned()))?;
        let runtime = CliError::runtime;
        card.write(&self.out.join(OUTPUTS[0])).map_err(runtime)?;
        write_report_html(&card, &self.out.join(OUTPUTS[1])).map_err(runtime)?;
        // A browser reads the GPU back by callback, later: the page's card comes without a screenshot.
        let written = if crate::platform::CAN_WAIT_FOR_GPU {
            demo.screenshot(&self.out.join(OUTPUTS[2]))?;
            &OUTPUTS[..]
        } else {
            &OUTPUTS[..2]
        };
        let paths: Vec<String> = written.iter().map(|f| self.out.join(f).display().to_string()).collect();
        log::info!("measure: wrote {}", paths.join(", "));
        crate::platform::tour_finished();
        Ok(())
    }
}

/// What a card says when the tour could not model the setup.
const SETUP_NOTE: &str = "the setup could not be modelled (no probe with vsync in effect, or too few frames): \
                          the predictions use the simulator's desktop model";

/// Whether `mode` is the probe the setup is measured in: the emulated grid
/// when there is one, else Fifo (vsync on every platform).
fn is_reference(mode: Mode, emulating: bool) -> bool {
    if emulating { mode.emulated } else { mode.present == wgpu::PresentMode::Fifo }
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

/// Sets `mode` and starts a fresh session running `strategy` in it. A run
/// of the pass with vsync off (`vsync_off_run`) on a monitor that reports
/// no refresh counts its refreshes at the emulated grid's rate, which
/// stands in for the monitor's in this tour, as a real monitor's reported
/// rate would: the simulator's prediction counts at that rate too.
fn apply(demo: &mut Demo, config: &RunConfig, mode: Mode, strategy: StrategyId, now: Nanos, vsync_off_run: bool) {
    let actual = demo.set_present_mode(mode.present);
    if actual != mode.present {
        log::warn!("present mode {} refused; {} in effect", present_mode_name(mode.present), present_mode_name(actual));
    }
    let stand_in = if vsync_off_run { demo.emulated_here() } else { None };
    demo.restart(strategy, mode.emulated, stand_in, config, now);
}

/// `Fifo`, or `Immediate + emulated 59.94 Hz`.
fn mode_label(mode: Mode, emulated_hz: Option<f64>) -> String {
    let name = crate::render::surface::present_mode_title(mode.present);
    match (mode.emulated, emulated_hz) {
        (true, Some(hz)) => format!("{name} + emulated {} Hz", crate::monitor::trim_number(hz, 3)),
        (true, None) => format!("{name} + emulated vblank"),
        (false, _) => name.to_owned(),
    }
}

/// An exact rate from a measured rate in Hz, to the millihertz (59.94 snaps to 60000/1001).
fn rate_of_hz(hz: f64) -> Option<Rate> {
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

/// The tour's progress line: which segment runs and how long is left, on
/// the command's one progress line ([`crate::output::Progress`]).
struct Progress {
    line: crate::output::Progress,
    shown_at: Nanos,
    segment: String,
}

impl Progress {
    fn new() -> Progress {
        Progress { line: crate::output::Progress::lines_off_terminal(), shown_at: 0, segment: String::new() }
    }

    fn show(&mut self, what: &str, step: usize, steps: usize, left: Nanos) {
        self.segment = format!("[{step}/{steps}] {what}");
        self.print(left);
    }

    /// Refreshes the time left, once a second, where the line is rewritten in place.
    fn tick(&mut self, now: Nanos, left: Nanos) {
        if now.saturating_sub(self.shown_at) >= NANOS_PER_SEC {
            self.shown_at = now;
            let line = self.line_for(left);
            // A page shows it where it is; a terminal line is rewritten in place, a log is not.
            crate::platform::show_progress(Some(&line));
            if self.line.in_place() {
                self.line.show(&line);
            }
        }
    }

    fn line_for(&self, left: Nanos) -> String {
        let secs = left.div_ceil(NANOS_PER_SEC);
        format!("measure {}, {}:{:02} left", self.segment, secs / 60, secs % 60)
    }

    fn print(&mut self, left: Nanos) {
        let line = self.line_for(left);
        crate::platform::show_progress(Some(&line));
        self.line.show(&line);
    }

    fn done(&mut self) {
        crate::platform::show_progress(None);
        self.line.finish(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_plan_probes_supported_modes_then_runs_each_strategy_twice() {
        let tour = Tour::new(TourPlan {
            out: PathBuf::from("x"),
            monitors: None,
            strategies: vec![StrategyId::Lockstep, StrategyId::Snapped],
            run_length: NANOS_PER_SEC,
            probe_length: NANOS_PER_SEC,
            vsync_off: true,
            name: None,
        });
        let fifo = Mode { present: wgpu::PresentMode::Fifo, emulated: false };
        let mailbox = Mode { present: wgpu::PresentMode::Mailbox, emulated: false };
        let plan = tour.plan_for(&[wgpu::PresentMode::Mailbox, wgpu::PresentMode::Fifo], false);
        assert_eq!(
            plan,
            [
                Step::Probe(fifo),
                Step::Probe(mailbox),
                Step::Run { strategy: StrategyId::Lockstep, vsync: true, mode: fifo },
                Step::Run { strategy: StrategyId::Snapped, vsync: true, mode: fifo },
                Step::Run { strategy: StrategyId::Lockstep, vsync: false, mode: mailbox },
                Step::Run { strategy: StrategyId::Snapped, vsync: false, mode: mailbox },
            ],
            "Immediate is not supported: the vsync-off pass uses Mailbox"
        );
        let only_fifo = tour.plan_for(&[wgpu::PresentMode::Fifo], true);
        assert_eq!(
            only_fifo.len(),
            4,
            "emulated probe, Fifo probe, two vsync-on runs, no vsync-off pass: {only_fifo:?}"
        );
        assert!(matches!(only_fifo[0], Step::Probe(Mode { emulated: true, .. })));
    }
}
