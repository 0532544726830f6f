//! The virtual monitor: the real loop driver and strategies against simulated displays.
//!
//! A run is a game's loop with the platform swapped out. The same
//! [`Pacer`] runs the same [`crate::strategy`] state machine on a
//! world; only the [`FrameHost`](crate::host::FrameHost) differs: a
//! [`VirtualDisplay`] whose [`ManualClock`](crate::time::ManualClock) moves
//! by modelled costs instead of real time.
//!
//! ```text
//! while not done:
//!     report = pacer.run_host_frame(world, display) begin → steps → render → present (vsync wait)
//!     metrics.record(report)                        pattern, doubles, skips, motion, latency
//!     if report.wake.at = Some(t): display.wait_until(t)   (+ sleep overshoot)
//!     display.busy()                                the article's busy(): the loop's own work
//! ```
//!
//! The `glaiel` preset is the monitor simulator of Tyler Glaiel's article
//! ("How to make your game run at 60 fps"), so its published table can be
//! reproduced: the naive timer double-updates about a quarter of the
//! refreshes at 60 Hz; the 60–62 fuzzy window on a 59.94 Hz display
//! double-updates about every thousand frames. Everything is integer
//! nanoseconds and a seeded PRNG, so a run is reproducible bit for bit.
//!
//! This module reads no real clock, does not sleep and prints nothing: a
//! caller prints, plots and shows progress.

mod compositor;
mod display;
mod model;

mod timeline;
mod trace;

pub use compositor::{
    Composition, Compositor, CompositorSource, CompositorStage, KnownCompositor, MAX_DELAY_REFRESHES, MAX_LATCH,
};
pub use display::VirtualDisplay;
pub use model::{Cost, Model, Presentation, Preset, Stall};
pub use timeline::{Event, Timeline};
pub use trace::{Choice, NOMINAL_TOLERANCE, RefreshEstimate, SwapChain, Trace, TraceDisplay, TraceFrame};
#[cfg(feature = "trace")]
pub use trace::{TraceError, TraceOptions, parse_trace, presentmon, read_trace};

use crate::Pacer;
use crate::host::{FrameReport, Simulation};
use crate::metrics::Metrics;
use crate::report::{CompositorInfo, RunOrigin, RunReport};
use crate::session::{DisplayInfo, PresentModeInfo, PresentOutcome, Session};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate, nanos_to_secs};
use crate::vrr::Refresh;
use std::fmt;
use std::sync::Arc;

/// The most frames one run may take.
///
/// Runs are checked against it before they start ([`RunSpec::check_budget`]),
/// so a run either fits and runs to its stop condition, or is refused with
/// the longest run that fits.
///
/// 10⁸ frames are 19 days of a 60 Hz display: weeks of drift, far beyond
/// any figure that settles within minutes. The largest run accepted on the
/// default setting (1 639 349.743 s: catch-up, glaiel, 60 Hz, 98.4 M
/// frames) took 44.5 s of CPU in release on a 2-core machine, in 6 MB; per
/// frame the strategies range from lockstep (0.40 µs) to auto (0.65 µs), so
/// a run ends within about a minute and one of each strategy within ten.
pub const MAX_FRAMES: u64 = 100_000_000;

/// How far behind the clock the game may fall before a run is given up:
/// a run for N updates ends by `20 ×` its expected clock span, plus a minute.
const CLOCK_GUARD_FACTOR: u64 = 20;

/// How many timeline events a run keeps at most ([`RunSpec::timeline`]).
pub const TIMELINE_EVENTS: usize = 200;

/// When a run ends (checked at the start of every frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stop {
    /// Once this many updates have run (the last frame may overshoot, as in the article).
    Updates(u64),
    /// Once this much clock time has passed.
    Duration(Nanos),
    /// At the end of the trace (only meaningful with one).
    TraceEnd,
}

/// Everything that defines one simulated run: [`RunSpec::new`] and the
/// `with_` methods, or its fields.
///
/// ```
/// use timestep_core::host::Simulation;
/// use timestep_core::monitor::{Preset, RunSpec, Stop, simulate};
/// use timestep_core::vrr::Refresh;
/// use timestep_core::{Nanos, StrategyId};
///
/// struct NoWorld;
/// impl Simulation for NoWorld {
///     fn step(&mut self, _dt: Nanos) {}
/// }
/// let spec = RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
///     .with_refresh("59.94".parse::<Refresh>().unwrap())
///     .with_stop(Stop::Updates(600));
/// assert_eq!(simulate(&spec, &mut NoWorld).report().double_updates, 0, "Glaiel's final fuzzy timer");
/// let vrr = spec.with_refresh("vrr:48-144".parse::<Refresh>().unwrap());
/// assert_eq!(simulate(&vrr, &mut NoWorld).report().skipped_renders, 0, "every refresh a new frame");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RunSpec {
    /// The strategy to run.
    pub strategy: StrategyId,
    /// Its configuration (tick rate, fuzzy variant, vsync detection, …).
    pub config: StrategyConfig,
    /// Machine and display costs.
    pub model: Model,
    /// Display refresh: a fixed rate or a VRR range (also told to the driver,
    /// when the display reports it).
    pub refresh: Refresh,
    /// Whether the display reports its refresh rate (and a VRR range) to the
    /// game (true by default). A browser page, and a window on a virtual X
    /// server, learn none: the strategies that want it (fuzzy, auto) start without it and measure it.
    pub reports_refresh: bool,
    /// The rate the display reports where it is not the rate it shows frames
    /// at (`None`: it reports `refresh`). A compositor that misses its own
    /// repaints reports its output's rate and shows frames slower: Weston's
    /// timer-driven outputs here report 60 Hz and show frames at 37 to 58 Hz,
    /// and the strategies are told 60.
    pub reported_rate: Option<Rate>,
    /// The pacer's frame limit: frames start at most this often, whatever
    /// the strategy ([`Pacer::set_frame_limit`]). `None`: no limit.
    pub frame_limit: Option<Rate>,
    /// Vsync on or off.
    pub vsync: bool,
    /// Noise seed.
    pub seed: u64,
    /// Clock at the start of the run.
    pub start: Nanos,
    /// When to stop.
    pub stop: Stop,
    /// Timeline events to keep (0 = none).
    pub timeline: usize,
    /// A capture or list of frame times to replay instead of the model's
    /// costs. A capture that fixes vsync ([`Trace::vsync`]) overrides
    /// `vsync`; the refresh stays `refresh` (set it to the capture's
    /// measured one, [`Trace::refresh`]).
    pub trace: Option<Arc<Trace>>,
    /// Never step the world past this many updates (determinism checks
    /// compare worlds at exactly tick N); `None` lets the last frame overshoot.
    pub step_limit: Option<u64>,
    /// Display time the strategy runs before the run's figures start (0:
    /// none): a fresh session then takes over the display as it stands, with
    /// the presents still queued, as a measured tour's run starts after its
    /// settle. A run from an idle display starts with an empty queue, and its
    /// first frames, whose presents do not block, come in a burst that a
    /// measured run never shows.
    pub settle: Nanos,
    /// What stands between the window and the panel: nothing (direct, the
    /// default) or a compositor ([`Compositor`]).
    pub composition: Composition,
}

impl RunSpec {
    /// `strategy` on `preset` with its default refresh and vsync, 60 Hz
    /// ticks, seed 0, clock from 0, 10 000 updates.
    pub fn new(strategy: StrategyId, preset: Preset) -> RunSpec {
        let model = preset.model();
        RunSpec {
            strategy,
            config: StrategyConfig::default(),
            model,
            refresh: Refresh::Fixed(model.default_refresh),
            reports_refresh: true,
            reported_rate: None,
            frame_limit: None,
            vsync: model.default_vsync,
            seed: 0,
            start: 0,
            stop: Stop::Updates(10_000),
            timeline: 0,
            trace: None,
            step_limit: None,
            settle: 0,
            composition: Composition::Direct,
        }
    }

    /// The same run with strategy configuration `config`.
    pub fn with_config(self, config: StrategyConfig) -> RunSpec {
        RunSpec { config, ..self }
    }

    /// The same run on machine and display costs `model`.
    pub fn with_model(self, model: Model) -> RunSpec {
        RunSpec { model, ..self }
    }

    /// The same run at display refresh `refresh`: a [`Rate`] or a [`Refresh`] (a VRR range).
    pub fn with_refresh(self, refresh: impl Into<Refresh>) -> RunSpec {
        RunSpec { refresh: refresh.into(), ..self }
    }

    /// The same run with the pacer's frame limit at `limit` (`None`: none).
    pub fn with_frame_limit(self, limit: Option<Rate>) -> RunSpec {
        RunSpec { frame_limit: limit, ..self }
    }

    /// The same run on a display that reports its refresh rate, or not.
    pub fn with_reported_refresh(self, reports_refresh: bool) -> RunSpec {
        RunSpec { reports_refresh, ..self }
    }

    /// The same run on a display that reports `rate` while it shows frames
    /// at `refresh` ([`RunSpec::reported_rate`]).
    pub fn with_reported_rate(self, rate: Rate) -> RunSpec {
        RunSpec { reported_rate: Some(rate), ..self }
    }

    /// The same run, its figures starting after `settle` of display time ([`RunSpec::settle`]).
    pub fn with_settle(self, settle: Nanos) -> RunSpec {
        RunSpec { settle, ..self }
    }

    /// The same run with vsync on or off.
    pub fn with_vsync(self, vsync: bool) -> RunSpec {
        RunSpec { vsync, ..self }
    }

    /// The same run with noise seed `seed`.
    pub fn with_seed(self, seed: u64) -> RunSpec {
        RunSpec { seed, ..self }
    }

    /// The same run with its clock starting at `start`.
    pub fn with_start(self, start: Nanos) -> RunSpec {
        RunSpec { start, ..self }
    }

    /// The same run, stopping at `stop`.
    pub fn with_stop(self, stop: Stop) -> RunSpec {
        RunSpec { stop, ..self }
    }

    /// The same run, keeping its first `events` timeline events.
    pub fn with_timeline(self, events: usize) -> RunSpec {
        RunSpec { timeline: events, ..self }
    }

    /// The same run, replaying `trace` instead of the model's costs (`None`: the model's).
    pub fn with_trace(self, trace: Option<Arc<Trace>>) -> RunSpec {
        RunSpec { trace, ..self }
    }

    /// The same run, never stepping past `limit` updates.
    pub fn with_step_limit(self, limit: Option<u64>) -> RunSpec {
        RunSpec { step_limit: limit, ..self }
    }

    /// The same run with `composition` between the window and the panel.
    pub fn with_composition(self, composition: Composition) -> RunSpec {
        RunSpec { composition, ..self }
    }

    /// At most how many frames of clock per second this run shows, on
    /// average: the model's mean cost of a frame without updates (render,
    /// present with vsync off, busy; at least the 1 ns an empty frame is
    /// charged) bounds it, and with vsync on so does the refresh, plus the
    /// frames that fit in a wake before the boundary (glaiel's ±83 µs).
    /// Waits, stalls and update costs only lower it.
    pub fn frame_rate_bound(&self) -> f64 {
        let m = &self.model;
        let present = if self.vsync { 0.0 } else { mean_cost(m.present_immediate) };
        let work = (mean_cost(m.render) + mean_cost(m.busy) + present).max(1.0);
        let free_running = NANOS_PER_SEC as f64 / work;
        if !self.vsync {
            return free_running;
        }
        let early = (-m.vblank_wake.lo).max(0) as f64;
        (self.refresh.rate().hz() * (1.0 + early / work)).min(free_running)
    }

    /// An estimate of the frames this run takes that errs high:
    /// `seconds × frame_rate_bound` for a duration; for N updates, one frame
    /// per update (the most any strategy needs when the game lags) plus the
    /// frames of a game at the right speed, `tick_time(N) × frame_rate_bound`;
    /// the trace's length when one is replayed.
    pub fn estimated_frames(&self) -> f64 {
        if let Some(trace) = &self.trace {
            return trace.frames().len() as f64;
        }
        let fps = self.frame_rate_bound();
        match self.stop {
            Stop::Updates(n) => n as f64 + nanos_to_secs(self.config.tick_rate.tick_time(n)) * fps,
            Stop::Duration(d) => nanos_to_secs(d) * fps,
            // Without a trace a run has no end: nothing fits.
            Stop::TraceEnd => f64::INFINITY,
        }
    }

    /// Checks that the run fits in [`MAX_FRAMES`].
    ///
    /// # Errors
    /// [`OverBudget`] with the longest stop of the same kind that fits.
    pub fn check_budget(&self) -> Result<(), OverBudget> {
        let estimate = self.estimated_frames();
        if estimate <= MAX_FRAMES as f64 {
            return Ok(());
        }
        let budget = MAX_FRAMES as f64;
        let fps = self.frame_rate_bound();
        let fits = match self.stop {
            Stop::Updates(_) => Stop::Updates((budget / (1.0 + fps / self.config.tick_rate.hz())).floor() as u64),
            // Whole milliseconds, as the message prints them.
            Stop::Duration(_) => Stop::Duration((budget / fps * 1e3).floor() as u64 * 1_000_000),
            Stop::TraceEnd => Stop::TraceEnd,
        };
        Err(OverBudget { strategy: self.strategy, refresh: self.refresh, estimate, fits })
    }

    /// The clock span a game at the right speed needs for N updates, or
    /// longer when its updates (or frames) cost more than a tick; a duration
    /// stop's own span. Unbounded for a trace.
    fn expected_span(&self) -> Nanos {
        match self.stop {
            Stop::Updates(n) => {
                let frame = NANOS_PER_SEC as f64 / self.frame_rate_bound();
                let slow = n as f64 * (mean_cost(self.model.update) + frame);
                let slow = if slow >= u64::MAX as f64 { u64::MAX } else { slow as u64 };
                self.config.tick_rate.tick_time(n).max(slow)
            }
            Stop::Duration(d) => d,
            Stop::TraceEnd => u64::MAX / 4,
        }
    }
}

/// The first instant at or after `not_before` that lies `phase` after a
/// vblank of `refresh` (vblank k at `refresh.tick_time_ceil(k)`, the virtual
/// display's grid): where a run starts that should begin `phase` into a refresh.
///
/// ```text
/// vblanks    |·········|·········|·········|
/// not_before      ^
/// phase 0              ^ start                 (the article's runs: on a vblank)
/// phase p              |--p--^ start
/// ```
pub fn start_after_vblank(refresh: Rate, not_before: Nanos, phase: Nanos) -> Nanos {
    let Some(t) = not_before.checked_sub(phase) else { return phase };
    let k = refresh.ticks_in(t);
    let k = if refresh.tick_time_ceil(k) >= t { k } else { k + 1 };
    refresh.tick_time_ceil(k).saturating_add(phase)
}

/// The mean of `max(0, U(lo, hi))`, ns: a cost's expected charge to the clock.
fn mean_cost(cost: Cost) -> f64 {
    let (lo, hi) = (cost.lo as f64, cost.hi as f64);
    if lo >= 0.0 {
        (lo + hi) / 2.0
    } else if hi <= 0.0 {
        0.0
    } else {
        // The part above zero: probability hi/(hi−lo), mean hi/2.
        hi * hi / (2.0 * (hi - lo))
    }
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// What was run.
    pub spec: RunSpec,
    /// Every frame's statistics (the session's run metrics).
    pub metrics: Metrics,
    /// The first events, if asked for.
    pub timeline: Timeline,
    /// Frames run.
    pub frames: u64,
    /// Clock at the end.
    pub end: Nanos,
    /// Why the run stopped before its stop condition, if it did.
    pub truncated: Option<Truncation>,
    /// The run's figures, as the session reported them at the end.
    report: RunReport,
}

/// Why a run stopped before its stop condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Truncation {
    /// Most frames cost nothing on the model's clock, so it crept forward by
    /// the 1 ns charged to an empty frame until [`MAX_FRAMES`] ran out.
    TimeBarelyMoves {
        /// Frames that cost no time.
        free_frames: u64,
        /// Frames run.
        frames: u64,
    },
    /// [`MAX_FRAMES`] ran out although the estimate fitted.
    FrameBudget {
        /// The up-front estimate ([`RunSpec::estimated_frames`]).
        estimate: u64,
    },
    /// The game fell so far behind the clock (20 times the span the updates
    /// should take, plus a minute) that the updates asked for would never come.
    GameFellBehind {
        /// Updates run.
        updates: u64,
        /// Updates asked for.
        wanted: u64,
        /// Clock time passed since the start.
        elapsed: Nanos,
    },
}

impl fmt::Display for Truncation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Truncation::TimeBarelyMoves { free_frames, frames } => write!(
                f,
                "time barely moves in this model: {free_frames} of {frames} frames cost nothing on its clock \
                 (give it render or update costs)"
            ),
            Truncation::FrameBudget { estimate } => write!(
                f,
                "reached the {MAX_FRAMES}-frame limit of a run, although it was estimated at {estimate} frames"
            ),
            Truncation::GameFellBehind { updates, wanted, elapsed } => write!(
                f,
                "the game fell over {CLOCK_GUARD_FACTOR}× behind the clock: {updates} of {wanted} updates after \
                 {:.3} s",
                nanos_to_secs(elapsed)
            ),
        }
    }
}

/// A run that would take more than [`MAX_FRAMES`] frames.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{strategy} @ {refresh} would take about {estimate:.1e} frames, over the limit of {MAX_FRAMES} frames per run \
     (at most {fits} fit)"
)]
#[non_exhaustive]
pub struct OverBudget {
    /// The strategy of the run.
    pub strategy: StrategyId,
    /// Its refresh.
    pub refresh: Refresh,
    /// Frames it would take ([`RunSpec::estimated_frames`]).
    pub estimate: f64,
    /// The longest stop of the same kind that fits.
    pub fits: Stop,
}

impl fmt::Display for Stop {
    /// `10000 updates`, `60 s`, `the end of the trace`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Stop::Updates(n) => write!(f, "{n} updates"),
            Stop::Duration(d) => {
                let secs = format!("{:.3}", nanos_to_secs(d));
                write!(f, "{} s", secs.trim_end_matches('0').trim_end_matches('.'))
            }
            Stop::TraceEnd => f.write_str("the end of the trace"),
        }
    }
}

impl RunOutcome {
    /// The report with the contract's field names.
    pub fn report(&self) -> RunReport {
        self.report.clone()
    }
}

/// Runs `spec` on `world` without progress reports.
pub fn simulate<W: Simulation>(spec: &RunSpec, world: &mut W) -> RunOutcome {
    simulate_world(spec, world, &mut |_| {})
}

/// How often (in frames) the progress callback is called.
const PROGRESS_EVERY: u64 = 1 << 14;

/// Runs `spec` on `world` (which keeps its state: tests read its hash after).
/// `progress` is called now and then with the fraction done, in [0, 1].
pub fn simulate_world<W: Simulation>(spec: &RunSpec, world: &mut W, progress: &mut dyn FnMut(f64)) -> RunOutcome {
    let asked = spec;
    let mut display = spec.display();
    let settled;
    let spec = if spec.settle > 0 && spec.trace.is_none() {
        let settle = RunSpec { stop: Stop::Duration(spec.settle), settle: 0, timeline: 0, ..spec.clone() };
        let mut session = Session::new(spec.strategy, spec.config, &mut *world, virtual_display(spec), spec.start)
            .measuring_display(false);
        session.set_frame_limit(spec.frame_limit);
        run_frames(&settle, &mut session, &mut display, &mut |_| {});
        settled = RunSpec { start: display.clock(), settle: 0, ..spec.clone() };
        &settled
    } else {
        spec
    };
    // A replay counts refreshes from the one before its first frame's: a
    // capture starts mid-stream, the refreshes before it say nothing.
    let count_from = display.trace_origin().unwrap_or(spec.start);
    let mut session =
        Session::new(spec.strategy, spec.config, world, virtual_display(spec), count_from).measuring_display(false);
    session.set_step_limit(spec.step_limit);
    session.set_frame_limit(spec.frame_limit);
    let FramesRun { frames, end, truncated } = run_frames(spec, &mut session, &mut display, progress);
    let mut report = session.report(end);
    report.model = if spec.trace.is_some() { RunOrigin::Trace } else { RunOrigin::Preset(spec.model.preset) };
    report.seed = spec.seed;
    report.display = None;
    report.trace = spec.trace.as_ref().map(|t| t.info());
    report.compositor = spec.composition.compositor().map(|c| CompositorInfo {
        // `weston+held` names a compositor that holds the window, as `--compositor` takes it.
        name: if c.throttles { format!("{}+held", c.source.name()) } else { c.source.name().to_owned() },
        latch_ms: c.latch as f64 / NANOS_PER_MS as f64,
        delay_refreshes: c.delay_refreshes,
        frames_replaced: display.replaced(),
    });
    let metrics = session.run_metrics().clone();
    RunOutcome { spec: asked.clone(), metrics, timeline: display.into_timeline(), frames, end, truncated, report }
}

impl RunSpec {
    /// The virtual display this spec describes: its model, refresh (a VRR
    /// panel's range), vsync, seed and start, replaying its trace if it has
    /// one, through its compositor if it has one.
    pub fn display(&self) -> VirtualDisplay<'_> {
        let mut display =
            VirtualDisplay::new(self.model, self.refresh.rate(), self.vsync, self.seed, self.start, self.timeline);
        if let Some(range) = self.refresh.vrr() {
            display = display.with_vrr(range);
        }
        if let Some(trace) = &self.trace {
            display = display.with_trace(trace);
        }
        display.with_composition(self.composition)
    }
}

/// How [`run_frames`] ended: the frames it ran, the display's clock at the
/// end, and why it stopped before `spec`'s stop, if it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FramesRun {
    /// Frames run.
    pub frames: u64,
    /// The display's clock when the run ended.
    pub end: Nanos,
    /// Why the run stopped early, if it did.
    pub truncated: Option<Truncation>,
}

/// The virtual monitor's frame loop, the one [`simulate_world`] runs: until
/// `spec`'s stop (or a [`Truncation`]), a frame of `session`'s pacer on
/// `display`, recorded as shown, then the strategy's wait and the loop's own
/// work on the display's clock. Public so that a caller's own [`Session`]
/// (one that measures its display as a window's does, and fills a HUD) runs
/// the very frames the simulator does. `progress` as in [`simulate_world`].
pub fn run_frames<W: Simulation>(
    spec: &RunSpec,
    session: &mut Session<W>,
    display: &mut VirtualDisplay<'_>,
    progress: &mut dyn FnMut(f64),
) -> FramesRun {
    // The direct run's loop is compiled without the compositor's check.
    let (frames, truncated) = if spec.composition == Composition::Direct {
        frames_loop::<_, false>(spec, session, display, progress)
    } else {
        frames_loop::<_, true>(spec, session, display, progress)
    };
    progress(1.0);
    FramesRun { frames, end: display.clock(), truncated }
}

/// Runs `spec`'s frames on `display` until its stop, or until it must stop
/// early (returned with the frames run). `COMPOSITED` holds each frame's
/// record back one present, when its fate through the compositor is known.
fn frames_loop<S: Simulation, const COMPOSITED: bool>(
    spec: &RunSpec,
    session: &mut Session<S>,
    display: &mut VirtualDisplay<'_>,
    progress: &mut dyn FnMut(f64),
) -> (u64, Option<Truncation>) {
    let clock_limit = spec
        .start
        .saturating_add(spec.expected_span().saturating_mul(CLOCK_GUARD_FACTOR))
        .saturating_add(60 * NANOS_PER_SEC);
    let tick = spec.config.tick_rate;
    let mut frames = 0;
    let mut free_frames = 0;
    let mut truncated = None;
    // Through a compositor a frame's fate is known one present later: the
    // next buffer may replace it before its repaint (vsync off).
    let mut held: Option<FrameReport> = None;
    loop {
        let now = display.clock();
        let done = match spec.stop {
            Stop::Updates(n) => session.pacer().total_updates() >= n,
            Stop::Duration(d) => now - spec.start >= d,
            Stop::TraceEnd => false,
        };
        if done || display.trace_done() {
            break;
        }
        truncated = if frames >= MAX_FRAMES && free_frames * 2 > frames {
            Some(Truncation::TimeBarelyMoves { free_frames, frames })
        } else if frames >= MAX_FRAMES {
            Some(Truncation::FrameBudget { estimate: spec.estimated_frames().min(u64::MAX as f64) as u64 })
        } else if now >= clock_limit {
            let wanted = if let Stop::Updates(n) = spec.stop { n } else { 0 };
            Some(Truncation::GameFellBehind {
                updates: session.pacer().total_updates(),
                wanted,
                elapsed: now - spec.start,
            })
        } else {
            None
        };
        if let Some(reason) = truncated {
            log::debug!("{} on {}: stopped after {frames} frames: {reason}", spec.strategy, spec.refresh);
            break;
        }
        display.begin_frame(session.game_time(), session.pacer().total_updates(), tick);
        let report = session.run_host_frame(display);
        display.end_frame(session.game_time());
        if COMPOSITED {
            held = Some(settle_composited(session, held, report, display.replaced_previous()));
        } else {
            session.record(&report, PresentOutcome::SHOWN);
        }
        if let Some(t) = report.wake.at {
            display.wait_until(t);
        }
        display.wait_for_repaint();
        display.busy();
        if display.clock() == now {
            display.nudge();
            free_frames += 1;
        }
        frames += 1;
        if frames.is_multiple_of(PROGRESS_EVERY) {
            progress(fraction_done(spec.stop, session.pacer(), display, spec.start));
        }
    }
    if let Some(last) = held {
        session.record(&last, PresentOutcome::SHOWN);
    }
    (frames, truncated)
}

/// Records the frame `held` back one present, now that `latest` says its
/// fate: shown, or replaced by `latest` before its repaint (never shown; its
/// updates count towards the picture that replaced it). Returns the frame to
/// hold next.
fn settle_composited<W: Simulation>(
    session: &mut Session<W>,
    held: Option<FrameReport>,
    latest: FrameReport,
    replaced: bool,
) -> FrameReport {
    let Some(previous) = held else { return latest };
    if !replaced {
        session.record(&previous, PresentOutcome::SHOWN);
        return latest;
    }
    session.record(&previous, PresentOutcome::default());
    FrameReport {
        updates: latest.updates.saturating_add(previous.updates),
        shown_updates: latest.shown_updates.saturating_add(previous.shown_updates),
        ..latest
    }
}

/// What the session is told about a virtual display: its exact rate (a VRR
/// panel's maximum, as its monitor reports it, and its range) and vsync
/// setting (a replayed capture's own, when it fixes one). A VRR display that
/// reports nothing still counts its frames without a grid.
fn virtual_display(spec: &RunSpec) -> DisplayInfo {
    let vsync = spec.trace.as_ref().and_then(|t| t.vsync()).unwrap_or(spec.vsync);
    let mode = if vsync { "virtual vsync" } else { "virtual, vsync off" };
    let vrr = spec.refresh.vrr();
    DisplayInfo::default()
        .with_monitor(format!("virtual {}", spec.refresh))
        .with_reported(spec.reports_refresh.then(|| spec.reported_rate.unwrap_or(spec.refresh.rate())))
        .with_vrr(vrr, spec.reports_refresh)
        .with_present_mode(PresentModeInfo { name: mode.to_owned(), vsync })
        .with_present_mode_requested(mode)
        .with_vsync(Some(vsync))
        .with_display_time_source(crate::feedback::DisplayTimeSource::Simulated)
}

fn fraction_done(stop: Stop, pacer: &Pacer, display: &VirtualDisplay<'_>, start: Nanos) -> f64 {
    let f = if let Some((done, len)) = display.trace_progress() {
        done as f64 / len.max(1) as f64
    } else {
        match stop {
            Stop::Updates(n) => pacer.total_updates() as f64 / n.max(1) as f64,
            Stop::Duration(d) => (display.clock() - start) as f64 / d.max(1) as f64,
            Stop::TraceEnd => 0.0,
        }
    };
    f.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A world that only counts its steps: the virtual monitor's figures do
    /// not depend on what the world does.
    #[derive(Default)]
    struct Counter(u64);

    impl Simulation for Counter {
        fn step(&mut self, _dt: Nanos) {
            self.0 += 1;
        }
    }

    #[test]
    fn a_settled_run_starts_on_a_full_queue_without_the_idle_displays_burst() {
        // Variable on a queue two deep at 60 Hz, 2 ms frames: from an idle
        // display the first two presents return at once, so the first frames
        // step 2 ms of game time for 16.7 ms of display (a hitch at the
        // start); after 300 ms of settling a fresh session takes over a full
        // queue, as a measured tour's run does, and every frame steps a refresh.
        let model = Model {
            update: Cost::ZERO,
            render: Cost::fixed(2_000_000),
            vblank_wake: Cost::ZERO,
            busy: Cost::ZERO,
            sleep_overshoot: Cost::ZERO,
            presentation: Presentation::Queued { depth: 2 },
            ..Preset::Desktop.model()
        };
        let spec = RunSpec::new(StrategyId::Variable, Preset::Desktop)
            .with_model(model)
            .with_refresh(Rate::from_hz(60))
            .with_stop(Stop::Duration(2 * NANOS_PER_SEC));
        let idle = simulate(&spec, &mut Counter::default());
        let settled = simulate(&spec.clone().with_settle(300 * NANOS_PER_MS), &mut Counter::default());
        assert!(
            idle.report().stats.hitches >= 1,
            "from an idle display the start hitches: {}",
            idle.report().stats.hitches
        );
        assert_eq!(settled.report().stats.hitches, 0, "a settled run starts as it goes on");
        assert!(
            settled.report().stats.judder_ms < idle.report().stats.judder_ms / 10.0,
            "{} vs {}",
            settled.report().stats.judder_ms,
            idle.report().stats.judder_ms
        );
        assert_eq!(settled.spec, spec.clone().with_settle(300 * NANOS_PER_MS), "the outcome names the run asked for");
        assert_eq!(settled.end - idle.end, 300 * NANOS_PER_MS, "the run's 2 s begin after the settle");
    }

    #[test]
    fn the_glaiel_catch_up_run_ends_at_the_first_frame_start_with_n_updates() {
        let outcome = simulate(&RunSpec::new(StrategyId::CatchUp, Preset::Glaiel), &mut Counter::default());
        let t = outcome.metrics.totals();
        assert!((10_000..=10_001).contains(&t.updates), "{t:?}");
        assert_eq!(outcome.truncated, None);
    }

    #[test]
    fn the_same_seed_gives_the_same_run_and_another_seed_another() {
        let spec = RunSpec { stop: Stop::Updates(2_000), ..RunSpec::new(StrategyId::CatchUp, Preset::Desktop) };
        let a = simulate(&spec, &mut Counter::default()).report();
        let b = simulate(&spec, &mut Counter::default()).report();
        let c = simulate(&RunSpec { seed: 1, ..spec }, &mut Counter::default()).report();
        assert_eq!(a, b);
        assert_ne!(a, c, "another seed, other noise");
    }

    #[test]
    fn a_model_where_nothing_costs_time_still_finishes() {
        let model = Model {
            update: Cost::ZERO,
            render: Cost::ZERO,
            busy: Cost::ZERO,
            present_immediate: Cost::ZERO,
            ..Preset::PacingAnswer.model()
        };
        let spec =
            RunSpec { model, stop: Stop::Duration(1_000), ..RunSpec::new(StrategyId::CatchUp, Preset::PacingAnswer) };
        let outcome = simulate(&spec, &mut Counter::default());
        assert_eq!(outcome.frames, 1_000, "each empty frame is charged 1 ns");
    }

    #[test]
    fn fuzzy_on_a_display_that_keeps_its_refresh_to_itself_starts_strict_then_snaps() {
        // A 60 Hz tick on a 60.006 Hz display, the first frame on a vblank:
        // told the rate, fuzzy snaps from the first frame; not told (a browser
        // page), it starts strict, as catch-up, and updates 0 or 2 times a
        // frame until it has measured the refresh from its frames.
        let spec = RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
            .with_refresh(Rate::new(60006, 1000).expect("a valid rate"))
            .with_vsync(true)
            .with_stop(Stop::Duration(3 * NANOS_PER_SEC));
        let told = simulate(&spec, &mut Counter::default()).report();
        let untold = simulate(&spec.clone().with_reported_refresh(false), &mut Counter::default()).report();
        assert_eq!(told.double_updates, 0, "{}", told.pattern);
        assert!(untold.double_updates > 0, "{}", untold.pattern);
        let (warm_up, after) = untold.pattern.split_at(60);
        assert!(warm_up.contains('2'), "{warm_up}");
        assert!(after.chars().all(|c| c == '1'), "snapped after the first second: {after}");
    }

    #[test]
    fn a_duration_stop_runs_until_that_much_clock_has_passed() {
        let spec = RunSpec {
            stop: Stop::Duration(NANOS_PER_SEC),
            start: 5 * NANOS_PER_SEC,
            ..RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
        };
        let outcome = simulate(&spec, &mut Counter::default());
        assert!(outcome.end >= 6 * NANOS_PER_SEC, "ended at {}", outcome.end);
        assert!(outcome.end < 6 * NANOS_PER_SEC + 20_000_000, "ended at {}", outcome.end);
    }

    #[test]
    fn a_year_at_60_hz_is_over_the_budget_and_the_longest_run_that_fits_is_not() {
        let year = RunSpec {
            stop: Stop::Duration(365 * 86_400 * NANOS_PER_SEC),
            ..RunSpec::new(StrategyId::CatchUp, Preset::Glaiel)
        };
        // glaiel wakes up to 83 333 ns before a vblank; a 5 ms render: 60 × (1 + 83 333 / 5 001 000) frames/s.
        let fps = 60.0 * (1.0 + 83_333.0 / (5_000_000.0 + 1_000.0));
        assert!((year.frame_rate_bound() - fps).abs() < 1e-9, "{}", year.frame_rate_bound());
        let err = year.check_budget().expect_err("a year is 1.9e9 frames");
        let Stop::Duration(fits) = err.fits else { panic!("a duration fits: {err:?}") };
        assert_eq!(fits, (MAX_FRAMES as f64 / fps * 1e3).floor() as u64 * 1_000_000);
        assert_eq!(RunSpec { stop: Stop::Duration(fits), ..year.clone() }.check_budget(), Ok(()));
        assert!(RunSpec { stop: Stop::Duration(fits + NANOS_PER_SEC), ..year.clone() }.check_budget().is_err());
        let many = RunSpec { stop: Stop::Updates(u64::MAX), ..year };
        let Err(OverBudget { fits: Stop::Updates(n), .. }) = many.check_budget() else { panic!("updates fit") };
        assert_eq!(RunSpec { stop: Stop::Updates(n), ..many.clone() }.check_budget(), Ok(()));
        assert!(RunSpec { stop: Stop::Updates(n + 1000), ..many }.check_budget().is_err());
    }

    #[test]
    fn a_model_whose_frames_cost_nothing_is_charged_1_ns_a_frame_in_the_estimate() {
        let model = Model {
            render: Cost::ZERO,
            busy: Cost::ZERO,
            present_immediate: Cost::ZERO,
            ..Preset::PacingAnswer.model()
        };
        let spec = RunSpec {
            model,
            stop: Stop::Duration(NANOS_PER_SEC),
            ..RunSpec::new(StrategyId::CatchUp, Preset::PacingAnswer)
        };
        assert_eq!(spec.estimated_frames(), 1e9);
        assert!(spec.check_budget().is_err(), "a second of 1 ns frames is 1e9 frames");
    }

    #[test]
    fn the_expected_cost_of_a_clamped_draw_counts_only_its_positive_part() {
        assert_eq!(mean_cost(Cost::between(2, 8)), 5.0);
        assert_eq!(mean_cost(Cost::between(-10, 0)), 0.0);
        // U(-1, 3) clamped at 0: P(> 0) = 3/4, mean of the positive part 1.5.
        assert_eq!(mean_cost(Cost::between(-1, 3)), 1.125);
    }

    #[test]
    fn slow_updates_finish_instead_of_tripping_the_clock_guard() {
        let model = Preset::Glaiel.model().with_update(10 * NANOS_PER_SEC);
        let spec = RunSpec { model, stop: Stop::Updates(100), ..RunSpec::new(StrategyId::CatchUp, Preset::Glaiel) };
        let outcome = simulate(&spec, &mut Counter::default());
        assert_eq!(outcome.truncated, None, "ended after {} s", nanos_to_secs(outcome.end));
        assert!(outcome.metrics.totals().updates >= 100);
    }

    #[test]
    fn each_truncation_reason_says_what_happened() {
        let barely = Truncation::TimeBarelyMoves { free_frames: 90, frames: 100 };
        assert!(barely.to_string().starts_with("time barely moves in this model: 90 of 100 frames cost nothing"));
        let budget = Truncation::FrameBudget { estimate: 5 };
        assert_eq!(
            budget.to_string(),
            "reached the 100000000-frame limit of a run, although it was estimated at 5 frames"
        );
        let behind = Truncation::GameFellBehind { updates: 3, wanted: 10, elapsed: 1_500_000_000 };
        assert_eq!(behind.to_string(), "the game fell over 20× behind the clock: 3 of 10 updates after 1.500 s");
    }

    #[test]
    fn a_phase_start_is_the_first_instant_that_far_after_a_vblank() {
        let hz = Rate::from_hz(60); // vblanks at 0, 16_666_667, 33_333_334, 50_000_000 (ceiled)
        assert_eq!(start_after_vblank(hz, 0, 0), 0, "the article's runs start on vblank 0");
        assert_eq!(start_after_vblank(hz, 5_000_000, 0), 16_666_667, "the next vblank");
        assert_eq!(start_after_vblank(hz, 16_666_667, 0), 16_666_667, "on a vblank already");
        assert_eq!(start_after_vblank(hz, 0, 5_000_000), 5_000_000);
        assert_eq!(start_after_vblank(hz, 5_000_001, 5_000_000), 21_666_667);
        assert_eq!(start_after_vblank(hz, 40_000_000, 1), 50_000_001);
        let month = 2_592_000 * NANOS_PER_SEC;
        assert_eq!(start_after_vblank(hz, month, 0), month, "30 days is a whole number of 60 Hz periods");
        let ntsc = Rate::new(60000, 1001).unwrap();
        // vblank 155_364_635 of 60000/1001 Hz falls 6.08 ms before the month, vblank …636 10.6 ms after.
        assert_eq!(start_after_vblank(ntsc, month, 0), 2_592_000_010_600_000, "59.94 Hz: the next vblank");
    }

    #[cfg(feature = "trace")]
    #[test]
    fn a_synced_capture_counts_refreshes_from_the_one_before_its_first_frame() {
        // 60 Hz, presents 16 ms apart, shown 20 ms after the first present, then
        // 1 and 2 refreshes later: refreshes 2, 3 and 5, counted from refresh 1.
        let text = "Application,ProcessID,SwapChainAddress,SyncInterval,AllowsTearing,Dropped,MsBetweenPresents,\
                    MsBetweenDisplayChange,MsUntilDisplayed\n\
                    g.exe,1,0x1,1,0,0,16.0,16.667,20.0\n\
                    g.exe,1,0x1,1,0,0,16.0,16.667,20.0\n\
                    g.exe,1,0x1,1,0,0,16.0,33.333,20.0\n";
        let trace = Arc::new(parse_trace(text.as_bytes(), &TraceOptions::default()).expect("capture"));
        let spec = RunSpec {
            vsync: false,
            trace: Some(trace),
            stop: Stop::TraceEnd,
            ..RunSpec::new(StrategyId::CatchUp, Preset::Glaiel)
        };
        let report = simulate(&spec, &mut Counter::default()).report();
        assert_eq!((report.vsyncs, report.skipped_renders), (4, 1), "refreshes 2, 3, (4), 5 after refresh 1");
        assert_eq!(report.vsync, Some(true), "the capture's frames were synced, whatever the spec said");
        let info = report.trace.expect("trace fields");
        assert_eq!((info.app.as_deref(), info.frames, info.dropped), (Some("g.exe"), 3, 0));
    }

    #[test]
    fn a_composited_window_with_vsync_off_shows_the_newest_frame_once_a_refresh_and_counts_the_rest_replaced() {
        // The pacing answer's machine (4 ms frames, no noise) at 62.5 Hz, vsync
        // off: direct, every frame shows at its present, 4 ms apart; through
        // Weston's 7 ms repaint window, one frame a 16 ms refresh, the rest replaced.
        let spec = RunSpec::new(StrategyId::Variable, Preset::PacingAnswer).with_stop(Stop::Duration(NANOS_PER_SEC));
        let direct = simulate(&spec, &mut Counter::default());
        let weston = Composition::Composited(Compositor::new(7_000_000, 0));
        let composited = simulate(&spec.clone().with_composition(weston), &mut Counter::default());
        let (d, c) = (direct.report(), composited.report());
        assert_eq!(d.compositor, None, "a direct run reports no compositor");
        let info = c.compositor.as_ref().expect("a composited run reports its compositor");
        assert_eq!((info.name.as_str(), info.latch_ms, info.delay_refreshes), ("given", 7.0, 0));
        assert!((d.stats.present_interval_mean_ms - 4.0).abs() < 1e-9, "{}", d.stats.present_interval_mean_ms);
        assert!((c.stats.present_interval_mean_ms - 16.0).abs() < 1e-9, "{}", c.stats.present_interval_mean_ms);
        assert_eq!(c.skipped_renders, 0, "every refresh shows a new frame: {}", c.pattern);
        assert_eq!(info.frames_replaced + c.vsyncs, composited.frames, "each frame shown once or replaced");
        assert!(
            c.stats.latency_ms > d.stats.latency_ms + 7.0,
            "the compositor's repaint window costs latency: {} against {} ms",
            c.stats.latency_ms,
            d.stats.latency_ms
        );
        assert_eq!(c.total_updates, d.total_updates, "replaced frames' updates still count");
    }

    #[test]
    fn a_frame_limit_composes_with_the_compositor() {
        // Frames limited to 31.25 Hz, every other 16 ms refresh: nothing is replaced.
        let spec = RunSpec::new(StrategyId::Variable, Preset::PacingAnswer)
            .with_stop(Stop::Duration(NANOS_PER_SEC))
            .with_frame_limit(Some(Rate::new(125, 4).expect("31.25 Hz")))
            .with_composition(Composition::Composited(Compositor::new(7_000_000, 1)));
        let outcome = simulate(&spec, &mut Counter::default());
        let report = outcome.report();
        assert_eq!(report.compositor.map(|c| c.frames_replaced), Some(0));
        assert!(
            (report.stats.present_interval_mean_ms - 32.0).abs() < 1e-9,
            "{}",
            report.stats.present_interval_mean_ms
        );
        assert!(report.pattern.contains("0"), "a refresh between frames: {}", report.pattern);
    }

    #[test]
    fn a_trace_runs_each_of_its_frames_once() {
        let trace = Arc::new(Trace::from_frame_times(&[16_666_667; 600]));
        let spec =
            RunSpec { trace: Some(trace), stop: Stop::TraceEnd, ..RunSpec::new(StrategyId::CatchUp, Preset::Glaiel) };
        let outcome = simulate(&spec, &mut Counter::default());
        assert_eq!(outcome.frames, 600);
        let t = outcome.metrics.totals();
        assert!((598..=600).contains(&t.updates), "{t:?}");
    }
}
