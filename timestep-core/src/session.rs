//! A [`Session`]: one game loop's frame pacing and everything measured about it.
//!
//! A game (or a test window, or the virtual monitor) owns one session. The
//! session owns the [`Pacer`] with its strategy, the world, the metrics
//! of the whole run and of the current setting, the refresh measurement and
//! the vsync verdict; it assembles a HUD's [`LoopFigures`] and the one
//! [`RunReport`] a run writes as JSON.
//! The caller keeps only what is platform: the clock, the surface, waiting.
//!
//! ```text
//!   caller (window / virtual monitor / game)            Session
//!   ───────────────────────────────────────             ────────────────────────────────────────
//!   h = FrameHost(clock, renderer, present)
//!   report = session.run_host_frame(&mut h)   ────►     pacer.run_host_frame(world, h)
//!   session.record(&report, presented)        ────►     run + live metrics, refresh meter,
//!                                                        frame-time ring, fps/ups
//!   wait until report.wake                               (the caller sleeps; the session never does)
//!   on a key: session.set_strategy(id, now)   ────►     new strategy, live metrics start over
//!   each frame: session.fill_hud(&mut hud, now)          every number a HUD shows
//!   any time: session.live_report(now)                   the report since the last change
//!   at exit: session.report(now)                         the run's report
//! ```
//!
//! "Live" figures (a HUD's) start over whenever the setting changes:
//! strategy, tick rate, present mode, pause, monitor. "Run" figures cover
//! the whole run; when the refresh rate changes (the window moved to another
//! monitor) the refresh bookkeeping restarts, the counts of the earlier part
//! are kept (folded) and the statistics describe the part since the change.
//! The HUD's speed, judder, hitch, latency and pacing figures are the
//! live [`FrameStats`](crate::metrics::FrameStats): for a run with one setting
//! they are exactly its report's, and [`Session::live_report`] gives them as
//! a report (one strategy's entry of a report card).
//!
//! A host whose display says when frames were really shown (a compositor's
//! presentation feedback, [`crate::feedback`]) marks each present
//! [`PresentOutcome::with_feedback_awaited`] and hands the answers to
//! [`Session::feedback`] as they come. The frame's figures wait for it, in
//! order, up to [`FEEDBACK_WAIT`] and [`FEEDBACK_WAIT_FRAMES`] of later presents: then the frame is
//! settled with the display's time, as discarded (never counted as shown),
//! or, with no word, with its present's return (counted as estimated).
//!
//! ```text
//!   record(7, awaited)  record(8, awaited)  feedback(7 at v)  record(9)   feedback(8 discarded)
//!   awaiting: [7]       [7, 8]              [8] → 7 settled   [8, 9]      [] → 8 discarded, 9 settled
//! ```

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use crate::Pacer;
use crate::feedback::{DisplayTimeSource, FEEDBACK_WAIT, FEEDBACK_WAIT_FRAMES, Feedback, FeedbackFlags};
use crate::host::{FrameHost, FrameReport, Simulation};
use crate::hud::{FrameTimeRing, LoopFigures};
use crate::metrics::{FrameSample, Metrics, Totals};
use crate::refresh::{Verdict, VerdictFacts};
use crate::report::{DisplayFacts, IntervalHistogram, RunReport, VrrInfo};
use crate::strategy::{StrategyConfig, StrategyId, View};
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate, nanos_to_secs};
use crate::vrr::VrrRange;

/// How often the HUD's sentences (verdict, status, monitor) are rebuilt:
/// text changes that fast cannot be read anyway, and building it allocates.
pub const HUD_TEXT_INTERVAL: Nanos = 100 * NANOS_PER_MS;

/// The window over which frames and updates per second are counted.
pub(crate) const RATE_INTERVAL: Nanos = NANOS_PER_SEC;

/// What a session's live figures and its report call a monitor no one
/// named: one default for both.
pub const UNKNOWN_MONITOR: &str = "unknown monitor";

/// What a session knows of the present mode frames go out with: its name,
/// as a HUD gives it, and whether it asks for vsync (a GPU API's own
/// type, such as `wgpu::PresentMode`, is the host's).
///
/// ```
/// use timestep_core::session::PresentModeInfo;
/// let mailbox = PresentModeInfo::new("Mailbox", false);
/// assert_eq!((mailbox.name.as_str(), mailbox.vsync), ("Mailbox", false));
/// assert_eq!(PresentModeInfo::default(), PresentModeInfo::new("Fifo", true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentModeInfo {
    /// `Fifo`, `Mailbox`, `Immediate`… (or `virtual` in the simulator).
    pub name: String,
    /// Whether the mode asks the display to pace presents (vsync).
    pub vsync: bool,
}

impl PresentModeInfo {
    /// The mode called `name`, which asks the display to pace presents when `vsync`.
    pub fn new(name: impl Into<String>, vsync: bool) -> PresentModeInfo {
        PresentModeInfo { name: name.into(), vsync }
    }
}

impl Default for PresentModeInfo {
    fn default() -> Self {
        PresentModeInfo::new("Fifo", true)
    }
}

/// What a session knows about the display its frames go to: nothing by
/// default, and what the `with_` methods add.
///
/// ```
/// use timestep_core::Rate;
/// use timestep_core::session::{DisplayInfo, PresentModeInfo};
///
/// let display = DisplayInfo::default()
///     .with_monitor("DP-1")
///     .with_reported(Some(Rate::from_hz(144)))
///     .with_emulated(Some(Rate::from_hz(60)))
///     .with_present_mode(PresentModeInfo::new("Immediate", false));
/// assert_eq!(display.refresh(), Some(Rate::from_hz(60)), "frames are counted in the emulated grid");
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct DisplayInfo {
    /// The monitor's name, as the HUD and the report give it.
    pub monitor: Option<String>,
    /// The refresh rate the display reports (winit's claim, or the virtual monitor's setting).
    pub reported: Option<Rate>,
    /// An emulated refresh grid that replaces the display's.
    pub emulated: Option<Rate>,
    /// The present mode in effect.
    pub present_mode: PresentModeInfo,
    /// The present mode asked for (`auto`, `fifo`, …).
    pub present_mode_requested: String,
    /// Vsync when known by construction (the virtual monitor's setting);
    /// `None` for a real display, where the verdict decides.
    pub vsync: Option<bool>,
    /// Where the display times the host reports come from (the present's
    /// return unless said otherwise); feedback, once it arrives, overrides it.
    pub display_time_source: DisplayTimeSource,
    /// The display is a VRR panel refreshing within this range: frames are
    /// counted one by one, each repeat the host reports a refresh, not on a
    /// grid ([`DisplayInfo::refresh`] is `None`).
    pub vrr: Option<VrrRange>,
    /// Whether the strategies are told [`DisplayInfo::vrr`] (a display that
    /// reports it, a game that declares it); otherwise they must detect it.
    pub vrr_told: bool,
    /// Whether [`DisplayInfo::vrr`] is an emulated gate (`--emulate-refresh vrr:48-144`).
    pub vrr_emulated: bool,
}

impl DisplayInfo {
    /// The same display, on the monitor called `monitor`.
    pub fn with_monitor(self, monitor: impl Into<String>) -> DisplayInfo {
        DisplayInfo { monitor: Some(monitor.into()), ..self }
    }

    /// The same display, reporting `reported` as its refresh rate.
    pub fn with_reported(self, reported: Option<Rate>) -> DisplayInfo {
        DisplayInfo { reported, ..self }
    }

    /// The same display under an emulated refresh grid (`None`: the display's own).
    pub fn with_emulated(self, emulated: Option<Rate>) -> DisplayInfo {
        DisplayInfo { emulated, ..self }
    }

    /// The same display, presenting in `mode`.
    pub fn with_present_mode(self, mode: PresentModeInfo) -> DisplayInfo {
        DisplayInfo { present_mode: mode, ..self }
    }

    /// The same display, where the present mode asked for was `requested` (`auto`, `fifo`, …).
    pub fn with_present_mode_requested(self, requested: impl Into<String>) -> DisplayInfo {
        DisplayInfo { present_mode_requested: requested.into(), ..self }
    }

    /// The same display, with vsync known by construction (`None`: the verdict decides).
    pub fn with_vsync(self, vsync: Option<bool>) -> DisplayInfo {
        DisplayInfo { vsync, ..self }
    }

    /// The same display, whose host's display times come from `source`.
    pub fn with_display_time_source(self, source: DisplayTimeSource) -> DisplayInfo {
        DisplayInfo { display_time_source: source, ..self }
    }

    /// The same display as a VRR panel refreshing within `range` (`None`: a
    /// fixed grid), its range told to the strategies or not.
    pub fn with_vrr(self, range: Option<VrrRange>, told: bool) -> DisplayInfo {
        DisplayInfo { vrr: range, vrr_told: told && range.is_some(), vrr_emulated: false, ..self }
    }

    /// The same display under an emulated VRR gate of `range` (`None`: none),
    /// which the strategies are told of, as they are of an emulated grid.
    pub fn with_emulated_vrr(self, range: Option<VrrRange>) -> DisplayInfo {
        DisplayInfo { vrr: range, vrr_told: range.is_some(), vrr_emulated: range.is_some(), ..self }
    }

    /// The emulated VRR gate frames go through, if any (not a real VRR panel's range).
    pub fn emulated_vrr(&self) -> Option<VrrRange> {
        self.vrr.filter(|_| self.vrr_emulated)
    }

    /// The refresh rate frames are counted in: the emulated grid when there
    /// is one, else the reported rate; none on a VRR panel (no grid).
    pub fn refresh(&self) -> Option<Rate> {
        match (self.emulated, self.vrr) {
            (None, Some(_)) => None,
            (emulated, _) => emulated.or(self.reported),
        }
    }

    /// The VRR range the strategies are told, if any.
    fn told_vrr(&self) -> Option<VrrRange> {
        self.vrr.filter(|_| self.vrr_told)
    }
}

/// How one frame's picture fared on its way to the screen:
/// [`PresentOutcome::SHOWN`] or [`PresentOutcome::default`] (not shown), and the
/// `with_` methods.
///
/// ```
/// use timestep_core::session::PresentOutcome;
/// let vsynced = PresentOutcome::SHOWN.with_blocked(14_000_000);
/// assert_eq!((vsynced.shown, vsynced.blocked, vsynced.throttled), (true, 14_000_000, 0));
/// assert!(!PresentOutcome::default().shown, "a frame the surface refused");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PresentOutcome {
    /// It reached the screen (a surface may refuse a frame: minimised, lost).
    pub shown: bool,
    /// Time the frame was blocked in acquire + present (vsync shows up here).
    pub blocked: Nanos,
    /// With an emulated refresh: how late the present call was against its wake time.
    pub emulation_late: Option<Nanos>,
    /// Time the frame waited, before it started, for the compositor's go-ahead
    /// to draw (a Wayland frame callback): the compositor's pacing, never rendering cost.
    pub throttled: Nanos,
    /// The display was asked when it shows this frame: its figures wait for [`Session::feedback`].
    pub feedback_awaited: bool,
}

impl PresentOutcome {
    /// A frame that was shown, never blocked (the virtual monitor's frames).
    pub const SHOWN: PresentOutcome =
        PresentOutcome { shown: true, blocked: 0, emulation_late: None, throttled: 0, feedback_awaited: false };

    /// The same frame, shown or not.
    pub fn with_shown(self, shown: bool) -> PresentOutcome {
        PresentOutcome { shown, ..self }
    }

    /// The same frame, blocked `blocked` ns in acquire + present.
    pub fn with_blocked(self, blocked: Nanos) -> PresentOutcome {
        PresentOutcome { blocked, ..self }
    }

    /// The same frame, presented `late` ns after its emulated wake time (`None`: no emulation).
    pub fn with_emulation_late(self, late: Option<Nanos>) -> PresentOutcome {
        PresentOutcome { emulation_late: late, ..self }
    }

    /// The same frame, after waiting `throttled` ns for the compositor's go-ahead.
    pub fn with_throttled(self, throttled: Nanos) -> PresentOutcome {
        PresentOutcome { throttled, ..self }
    }

    /// The same frame, whose display time the display was asked for (see [`Session::feedback`]).
    pub fn with_feedback_awaited(self) -> PresentOutcome {
        PresentOutcome { feedback_awaited: true, ..self }
    }
}

/// Frames the session keeps back for their feedback, at most: 100 ms of
/// presents at 640 fps. A full queue settles its oldest frame at once.
pub const AWAIT_SLOTS: usize = 64;

/// How a frame's picture fared in the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Shown at the report's display time, which the display's feedback gave.
    Displayed,
    /// Shown at the report's display time, the host's estimate (no feedback
    /// was asked for, or none came within [`FEEDBACK_WAIT`]).
    Estimated,
    /// The compositor replaced it before it was shown.
    Discarded,
    /// It never reached the screen (the surface refused it).
    NotShown,
}

/// A frame the session has settled: its report, with the display time its
/// figures used, and how it fared ([`Session::take_settled`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Settled {
    /// The frame's report; `display_time` is the one the figures used.
    pub report: FrameReport,
    /// How its picture fared.
    pub outcome: Outcome,
}

/// Where display times came from, counted over settled frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedbackCounts {
    /// Shown frames whose display time the display's feedback gave.
    pub displayed: u64,
    /// Frames whose feedback was asked for and did not come in time: the estimate stands.
    pub estimated: u64,
    /// Frames the compositor discarded.
    pub discarded: u64,
    /// Feedback that came after its frame was settled, or for no frame the session knew.
    pub late: u64,
}

impl FeedbackCounts {
    fn since(self, origin: FeedbackCounts) -> FeedbackCounts {
        FeedbackCounts {
            displayed: self.displayed.saturating_sub(origin.displayed),
            estimated: self.estimated.saturating_sub(origin.estimated),
            discarded: self.discarded.saturating_sub(origin.discarded),
            late: self.late.saturating_sub(origin.late),
        }
    }
}

/// A recorded frame waiting for its display's word.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Awaiting {
    report: FrameReport,
    /// The pacer's game time after the frame.
    game: Nanos,
    /// `None` while the feedback is due.
    outcome: Option<(Outcome, Nanos)>,
}

/// Raw counts of parts of the run before a refresh-rate change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Folded {
    frames: u64,
    vsyncs: u64,
    double_updates: u64,
    skipped_renders: u64,
    repeated_frames: u64,
    system_time: Nanos,
}

impl Folded {
    fn add(&mut self, t: &Totals) {
        self.frames += t.frames;
        self.vsyncs += t.vsyncs;
        self.double_updates += t.double_updates;
        self.skipped_renders += t.skipped_renders;
        self.repeated_frames += t.repeated_frames;
        self.system_time += t.system_time;
    }
}

/// The metrics a session keeps.
#[derive(Clone, Debug)]
struct Measures {
    /// Since the start, or the last refresh-rate change.
    run: Metrics,
    /// Counts from before the last refresh-rate change.
    folded: Folded,
    /// Since the last change of setting; `None` while that is the whole run
    /// (the virtual monitor never changes its setting, so it records once).
    live: Option<Metrics>,
    /// Where `live` started.
    live_origin: LiveOrigin,
}

/// The session's counters when the live figures last started over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LiveOrigin {
    /// Clock time.
    at: Nanos,
    /// The driver's game time.
    game: Nanos,
    /// The driver's updates.
    updates: u64,
    /// Frames run.
    frames: u64,
    /// Frames presented.
    presented: u64,
    /// Time skipped so far ([`Session::skip`]).
    skipped: Nanos,
    /// The first frame (by id) the live figures count.
    first_frame: u64,
    /// Feedback counts.
    counts: FeedbackCounts,
}

impl Measures {
    fn live(&self) -> &Metrics {
        self.live.as_ref().unwrap_or(&self.run)
    }
}

/// Frames and updates per second over the last [`RATE_INTERVAL`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Rates {
    since: Nanos,
    frames: u64,
    updates: u64,
    fps: f64,
    ups: f64,
}

impl Rates {
    fn record(&mut self, now: Nanos, shown: bool, updates: u32) {
        self.frames += u64::from(shown);
        self.updates += u64::from(updates);
        let wall = now.saturating_sub(self.since);
        if wall >= RATE_INTERVAL {
            self.fps = per_second(self.frames, wall);
            self.ups = per_second(self.updates, wall);
            *self = Rates { since: now, frames: 0, updates: 0, ..*self };
        }
    }
}

/// Emulated presents: how late each present call was against its wake time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Lateness {
    presents: u64,
    total: Nanos,
    worst: Nanos,
}

/// One loop's pacing and measurements. See the module docs.
///
/// ```
/// use timestep_core::host::Simulation;
/// use timestep_core::monitor::{Preset, VirtualDisplay};
/// use timestep_core::session::{DisplayInfo, PresentOutcome, Session};
/// use timestep_core::{Nanos, Rate, StrategyConfig, StrategyId};
///
/// struct NoWorld;
/// impl Simulation for NoWorld {
///     fn step(&mut self, _dt: Nanos) {}
/// }
/// let display = DisplayInfo::default().with_reported(Some(Rate::from_hz(60)));
/// let mut session = Session::new(StrategyId::Lockstep, StrategyConfig::default(), NoWorld, display, 0);
/// let mut monitor = VirtualDisplay::new(Preset::Glaiel.model(), Rate::from_hz(60), true, 0, 0, 0);
/// for _ in 0..60 {
///     let report = session.run_host_frame(&mut monitor);
///     session.record(&report, PresentOutcome::SHOWN);
/// }
/// assert_eq!(session.report(monitor.clock()).total_updates, 60);
/// ```
pub struct Session<W> {
    /// The strategy, its decisions and the refresh meter.
    pacer: Pacer,
    world: W,
    display: DisplayInfo,
    measures: Measures,
    /// When the HUD's sentences are next rebuilt.
    hud_text_at: Nanos,
    start: Nanos,
    frames: u64,
    presented: u64,
    strategies_used: BTreeSet<StrategyId>,
    /// Recorded frames not yet settled, oldest first (at most [`AWAIT_SLOTS`]).
    awaiting: VecDeque<Awaiting>,
    /// The latest present's return and its frame: how long the awaited frames have waited.
    latest_present: Nanos,
    latest_frame: u64,
    /// Settled frames for [`Session::take_settled`], when kept.
    settled: Option<VecDeque<Settled>>,
    counts: FeedbackCounts,
    /// The flags of the latest frame the display's feedback showed.
    feedback_flags: FeedbackFlags,
    last_display: Option<Nanos>,
    last_view: View,
    frame_times: FrameTimeRing,
    rates: Rates,
    lateness: Lateness,
    paused: bool,
    /// When the pause began (its time is skipped when it ends).
    paused_at: Nanos,
    /// Time taken out of the run ([`Session::skip`]): pauses, a hidden page.
    skipped: Nanos,
    /// Of that, the time the display could not be seen ([`Session::hidden`]).
    hidden: Nanos,
    /// Measure the display (refresh meter, frame-time plot, fps): off where
    /// the display is known exactly and only the figures matter.
    measure_display: bool,
}

impl<W: Simulation> Session<W> {
    /// A session running `strategy` on `world` for frames shown on `display`, starting at clock `now`.
    pub fn new(strategy: StrategyId, config: StrategyConfig, world: W, display: DisplayInfo, now: Nanos) -> Self {
        let mut pacer = Pacer::with_config(strategy, config);
        pacer.set_refresh(display.refresh());
        pacer.set_vrr(display.told_vrr());
        let refresh = display.refresh();
        Session {
            pacer,
            world,
            display,
            measures: Measures {
                run: Metrics::new(now, refresh),
                folded: Folded::default(),
                live: None,
                live_origin: LiveOrigin { at: now, ..LiveOrigin::default() },
            },
            hud_text_at: 0,
            start: now,
            frames: 0,
            presented: 0,
            strategies_used: BTreeSet::from([strategy]),
            awaiting: VecDeque::with_capacity(AWAIT_SLOTS),
            latest_present: now,
            latest_frame: 0,
            settled: None,
            counts: FeedbackCounts::default(),
            feedback_flags: FeedbackFlags::NONE,
            last_display: None,
            last_view: View::Latest,
            frame_times: FrameTimeRing::default(),
            rates: Rates { since: now, ..Rates::default() },
            lateness: Lateness::default(),
            paused: false,
            paused_at: now,
            skipped: 0,
            hidden: 0,
            measure_display: true,
        }
    }

    /// Turns the display measurement (refresh meter, frame-time ring, fps) on
    /// or off. The virtual monitor knows its display exactly and turns it off:
    /// the figures stay the same, each frame costs less.
    pub fn measuring_display(mut self, on: bool) -> Self {
        self.measure_display = on;
        self
    }

    /// Stops stepping once this many updates have run in total (determinism
    /// checks compare worlds at exactly tick N).
    pub fn set_step_limit(&mut self, limit: Option<u64>) {
        self.pacer.driver_mut().set_step_limit(limit);
    }

    /// Frames start at most `limit` times a second, whatever the strategy
    /// ([`Pacer::set_frame_limit`]); `None`: no limit.
    pub fn set_frame_limit(&mut self, limit: Option<Rate>) {
        self.pacer.set_frame_limit(limit);
    }

    /// The id the next frame's report will carry ([`FrameReport::frame`]):
    /// what a host asks the display's feedback about before it presents.
    pub fn next_frame_id(&self) -> u64 {
        self.pacer.frames_started() + 1
    }

    /// Runs one frame of the active strategy against `host`. Follow it with [`Session::record`].
    pub fn run_host_frame<H: FrameHost<W>>(&mut self, host: &mut H) -> FrameReport {
        self.pacer.run_host_frame(&mut self.world, host)
    }

    /// Records what a frame did and how its picture fared. A frame whose
    /// feedback is awaited is counted when it arrives (see the module docs);
    /// every other frame at once, unless an awaited one is still before it.
    pub fn record(&mut self, report: &FrameReport, presented: PresentOutcome) {
        self.last_view = report.view;
        self.frames += 1;
        let outcome = if !presented.shown {
            Some((Outcome::NotShown, report.display_time))
        } else {
            if self.measure_display {
                self.measure_present(report, presented);
            }
            self.latest_present = self.latest_present.max(report.display_time);
            self.latest_frame = report.frame;
            (!presented.feedback_awaited).then_some((Outcome::Estimated, report.display_time))
        };
        let game = self.pacer.driver().game_time();
        if let Some((outcome, display_time)) = outcome
            && self.awaiting.is_empty()
        {
            // Nothing awaited before it: settled at once, without the queue
            // or a copy of the report (the simulator's every frame; the
            // queue cost it 2-3 % of a frame, callgrind).
            self.settle_report(report, game, outcome, display_time);
            return;
        }
        let frame = Awaiting { report: *report, game, outcome };
        if self.awaiting.len() == AWAIT_SLOTS {
            self.settle_oldest();
        }
        self.awaiting.push_back(frame);
        self.settle();
    }

    /// The display's word on a frame (frames late, out of order, or never):
    /// the pacer's verdict takes it, and the frame, if it still waits, is
    /// settled with it. See [`crate::feedback`].
    pub fn feedback(&mut self, feedback: Feedback) {
        self.pacer.displayed(feedback);
        let waiting = self.awaiting.iter_mut().find(|a| a.report.frame == feedback.frame && a.outcome.is_none());
        let Some(frame) = waiting else {
            self.counts.late += 1;
            return;
        };
        frame.outcome = Some(match feedback.displayed_at {
            Some(at) => {
                self.feedback_flags = feedback.flags;
                (Outcome::Displayed, at)
            }
            None => (Outcome::Discarded, frame.report.display_time),
        });
        self.settle();
    }

    /// Settles every frame still waiting for its feedback, with its estimate
    /// (at the end of a run, before its report).
    pub fn settle_all(&mut self) {
        while !self.awaiting.is_empty() {
            self.settle_oldest();
        }
    }

    /// Leaves the frames still waiting for their feedback out of every
    /// figure (the run ends before the display could answer): they were
    /// neither counted as shown nor as estimated. Returns how many.
    pub fn forget_awaiting(&mut self) -> usize {
        let mut forgotten = 0;
        while let Some(frame) = self.awaiting.pop_front() {
            if frame.outcome.is_some() {
                // Its outcome is known (shown without feedback, or answered): it counts.
                self.awaiting.push_front(frame);
                self.settle_oldest();
            } else {
                forgotten += 1;
            }
        }
        forgotten
    }

    /// Keeps the settled frames for [`Session::take_settled`] (the last
    /// [`AWAIT_SLOTS`] of them when nobody takes them).
    pub fn keep_settled(&mut self, keep: bool) {
        self.settled = keep.then(|| VecDeque::with_capacity(AWAIT_SLOTS));
    }

    /// The frames settled since the last call, oldest first, when kept ([`Session::keep_settled`]).
    pub fn take_settled(&mut self) -> impl Iterator<Item = Settled> + '_ {
        self.settled.iter_mut().flat_map(|settled| settled.drain(..))
    }

    /// Where display times came from so far.
    pub fn feedback_counts(&self) -> FeedbackCounts {
        self.counts
    }

    /// Where this run's display times come from: the display's feedback
    /// once any frame was shown by it, else an emulated grid's vblanks, else
    /// what the host said.
    pub fn display_time_source(&self) -> DisplayTimeSource {
        if self.counts.displayed > 0 {
            DisplayTimeSource::CompositorFeedback(self.feedback_flags)
        } else {
            self.estimate_source()
        }
    }

    /// Where the host's own display times come from (what a frame without
    /// feedback keeps): an emulated grid's vblanks (or VRR gate's
    /// scanouts), else what the host said.
    pub fn estimate_source(&self) -> DisplayTimeSource {
        if self.display.emulated.is_some() || self.display.vrr_emulated {
            DisplayTimeSource::EmulatedVblank
        } else {
            self.display.display_time_source
        }
    }

    /// Frames recorded and not yet settled (waiting for their feedback).
    pub fn awaiting(&self) -> usize {
        self.awaiting.len()
    }

    /// Settles the frames at the front that have their outcome, or waited
    /// [`FEEDBACK_WAIT`] and [`FEEDBACK_WAIT_FRAMES`] of presents for it.
    fn settle(&mut self) {
        while let Some(front) = self.awaiting.front() {
            let expired = self.latest_present.saturating_sub(front.report.display_time) >= FEEDBACK_WAIT
                && self.latest_frame.saturating_sub(front.report.frame) >= FEEDBACK_WAIT_FRAMES;
            if front.outcome.is_none() && !expired {
                return;
            }
            self.settle_oldest();
        }
    }

    /// Settles the oldest frame waiting: with its outcome, or its estimate.
    fn settle_oldest(&mut self) {
        let Some(frame) = self.awaiting.pop_front() else { return };
        let (outcome, display_time) = frame.outcome.unwrap_or_else(|| {
            self.counts.estimated += 1;
            (Outcome::Estimated, frame.report.display_time)
        });
        self.settle_report(&frame.report, frame.game, outcome, display_time);
    }

    /// Settles the frame of `report`, with the game time after it: shown at
    /// `display_time` (its outcome's, which may not be the report's estimate) or not.
    #[inline]
    fn settle_report(&mut self, report: &FrameReport, game: Nanos, outcome: Outcome, display_time: Nanos) {
        match outcome {
            Outcome::Displayed => self.counts.displayed += 1,
            Outcome::Discarded => self.counts.discarded += 1,
            Outcome::Estimated | Outcome::NotShown => {}
        }
        if let Some(settled) = &mut self.settled {
            if settled.len() == AWAIT_SLOTS {
                settled.pop_front();
            }
            settled.push_back(Settled { report: FrameReport { display_time, ..*report }, outcome });
        }
        let shown = matches!(outcome, Outcome::Displayed | Outcome::Estimated);
        if !shown {
            self.rates.record(report.end, false, report.updates);
            return;
        }
        self.presented += 1;
        if self.measure_display {
            self.rates.record(report.end, true, report.updates);
            if let Some(previous) = self.last_display {
                self.frame_times.push(Duration::from_nanos(display_time.saturating_sub(previous)));
            }
            self.last_display = Some(display_time);
        }
        let sample = FrameSample { display_time, ..FrameSample::from_report(report, game) };
        self.measures.run.record(&sample);
        let origin = self.measures.live_origin;
        if let Some(live) = &mut self.measures.live
            && report.frame >= origin.first_frame
        {
            live.record(&FrameSample { game_time: game.saturating_sub(origin.game), ..sample });
        }
    }

    /// The present's figures the refresh meter and the emulation check take, as it returns.
    fn measure_present(&mut self, report: &FrameReport, presented: PresentOutcome) {
        if let Some(late) = presented.emulation_late {
            let l = &mut self.lateness;
            *l = Lateness { presents: l.presents + 1, total: l.total + late, worst: l.worst.max(late) };
        }
        self.pacer.measure_present(report.display_time, presented.blocked, presented.throttled);
    }

    /// Switches strategy (the world and the tick phase are kept, as
    /// [`Pacer::set_strategy`] keeps them; live figures start over).
    pub fn set_strategy(&mut self, id: StrategyId, now: Nanos) {
        self.pacer.set_strategy(id);
        self.strategies_used.insert(id);
        self.restart_live(now);
    }

    /// Changes the tick rate (timing and live figures start over).
    pub fn set_tick_rate(&mut self, rate: Rate, now: Nanos) {
        self.pacer.set_tick_rate(rate);
        self.restart_live(now);
    }

    /// Pauses or resumes. A resumed strategy starts its timing over, so the
    /// pause is not caught up; the interval across the pause is not measured.
    pub fn set_paused(&mut self, paused: bool, now: Nanos) {
        if self.paused == paused {
            return;
        }
        self.paused = paused;
        if paused {
            self.paused_at = now;
        } else {
            self.skip(self.paused_at, now);
            self.restart_live(now);
        }
    }

    /// Nothing was shown from `from` to `now` and nothing should count it (a
    /// pause, lane mode, a hidden page): the strategy starts its timing over
    /// (the time is not caught up) and the figures go on as if it had not
    /// passed ([`Metrics::skip`]): no hitch, latency or missed refresh of it.
    pub fn skip(&mut self, from: Nanos, now: Nanos) {
        let gap = now.saturating_sub(from);
        self.pacer.resync();
        self.pacer.meter_mut().break_sequence();
        self.measures.run.skip(from, now);
        if let Some(live) = &mut self.measures.live {
            live.skip(from, now);
        }
        self.skipped = self.skipped.saturating_add(gap);
        self.last_display = None;
    }

    /// The display could not be seen from `from` to `now` (a hidden page, a
    /// locked phone): skipped as [`Session::skip`] (a paused session skips it
    /// with the pause), and the report says how long.
    pub fn hidden(&mut self, from: Nanos, now: Nanos) {
        if !self.paused {
            self.skip(from, now);
        }
        self.hidden = self.hidden.saturating_add(now.saturating_sub(from));
    }

    /// The present mode changed: the refresh is measured again, live figures start over.
    pub fn set_present_mode(&mut self, mode: PresentModeInfo, now: Nanos) {
        self.display.present_mode = mode;
        self.pacer.meter_mut().clear();
        self.restart_live(now);
    }

    /// The display changed (another monitor, or its reported rate): a new
    /// refresh rate restarts the refresh bookkeeping of the run too.
    pub fn set_display(&mut self, monitor: Option<String>, reported: Option<Rate>, now: Nanos) {
        let emulated = self.display.emulated;
        self.move_to_display(monitor, reported, emulated, now);
    }

    /// The frames now go to another monitor, with its own reported (and
    /// perhaps emulated) refresh. Another monitor is measured again and the
    /// live figures start over; a new refresh rate also folds the run's
    /// counts and restarts its refresh bookkeeping.
    pub fn move_to_display(
        &mut self,
        monitor: Option<String>,
        reported: Option<Rate>,
        emulated: Option<Rate>,
        now: Nanos,
    ) {
        let old = self.display.refresh();
        let moved = self.display.monitor != monitor;
        self.display.monitor = monitor;
        self.display.reported = reported;
        self.display.emulated = emulated;
        let refresh = self.display.refresh();
        if refresh == old && moved {
            self.pacer.meter_mut().clear();
            self.restart_live(now);
        }
        if refresh != old {
            self.recount(now);
        }
        self.hud_text_at = 0;
    }

    /// The display's refresh changed: the pacer is told, the run's counts so
    /// far are folded, its refresh bookkeeping and the live figures start over.
    fn recount(&mut self, now: Nanos) {
        let refresh = self.display.refresh();
        self.pacer.set_refresh(refresh);
        self.pacer.set_vrr(self.display.told_vrr());
        self.measures.folded.add(&self.measures.run.totals());
        self.measures.run = Metrics::new(now, refresh);
        self.measures.live = None;
        self.pacer.meter_mut().clear();
        self.restart_live(now);
    }

    /// The frames now go through an emulated VRR gate of `range` (`None`:
    /// none; the window moved to a monitor emulated otherwise): as a change
    /// of refresh, the run's counts are folded and the bookkeeping restarts.
    pub fn set_emulated_vrr(&mut self, range: Option<VrrRange>, now: Nanos) {
        if range == self.display.emulated_vrr() {
            return;
        }
        self.display = self.display.clone().with_emulated_vrr(range);
        self.recount(now);
        self.hud_text_at = 0;
    }

    /// Frames stopped for a while (hidden, minimised, resized): the interval
    /// across the gap says nothing about the display.
    pub fn interrupt(&mut self) {
        self.pacer.meter_mut().break_sequence();
    }

    fn restart_live(&mut self, now: Nanos) {
        self.measures.live = Some(Metrics::new(now, self.display.refresh()));
        self.measures.live_origin = LiveOrigin {
            at: now,
            game: self.pacer.driver().game_time(),
            updates: self.pacer.total_updates(),
            frames: self.frames,
            presented: self.presented,
            skipped: self.skipped,
            first_frame: self.pacer.frames_started() + 1,
            counts: self.counts,
        };
        self.frame_times.clear();
        self.last_display = None;
        self.hud_text_at = 0;
    }

    /// The world.
    pub fn world(&self) -> &W {
        &self.world
    }

    /// The world, to apply input or reset it (never to render: that goes through a [`FrameHost`]).
    pub fn world_mut(&mut self) -> &mut W {
        &mut self.world
    }

    /// The pacer (strategy, tick rate, counters).
    pub fn pacer(&self) -> &Pacer {
        &self.pacer
    }

    /// Game time so far, in nanoseconds (the pacer's [`Pacer::game_time`]).
    pub fn game_time(&self) -> Nanos {
        self.pacer.driver().game_time()
    }

    /// What the session knows about the display.
    pub fn display(&self) -> &DisplayInfo {
        &self.display
    }

    /// When the last frame asked the caller to wake (`None`: as soon as possible).
    pub fn wake(&self) -> Option<Nanos> {
        if self.paused { None } else { self.pacer.last_wake() }
    }

    /// What the last frame drew (a paused window keeps drawing it).
    pub fn last_view(&self) -> View {
        self.last_view
    }

    /// Whether the session is paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Frames run, and frames that reached the screen.
    pub fn frame_counts(&self) -> (u64, u64) {
        (self.frames, self.presented)
    }

    /// Metrics of the current setting (the HUD's).
    pub fn live_metrics(&self) -> &Metrics {
        self.measures.live()
    }

    /// Metrics of the run since the last refresh-rate change.
    pub fn run_metrics(&self) -> &Metrics {
        &self.measures.run
    }

    /// The vsync verdict on what has been measured so far (and what the display's feedback said).
    pub fn verdict(&self) -> Verdict {
        let display = &self.display;
        let mode = &display.present_mode;
        self.pacer.meter().verdict(&VerdictFacts {
            mode: &mode.name,
            mode_is_vsync: mode.vsync,
            emulated: display.emulated,
            emulated_vrr: display.emulated_vrr(),
            reported_hz: display.reported.map(Rate::hz),
        })
    }

    /// Fills every number a HUD shows; the sentences at most every [`HUD_TEXT_INTERVAL`].
    pub fn fill_hud(&mut self, hud: &mut LoopFigures, now: Nanos) {
        let live = self.measures.live();
        let totals = live.totals();
        hud.double_updates = totals.double_updates;
        hud.skipped_renders = totals.skipped_renders;
        hud.repeated_frames = totals.repeated_frames;
        hud.stats = totals.stats;
        hud.present_histogram.clone_from(live.present_histogram());
        hud.fps = self.rates.fps;
        hud.ups = self.rates.ups;
        hud.paused = self.paused;
        hud.frame_times_ms.clone_from(&self.frame_times);
        hud.pattern.clear();
        hud.pattern.extend(live.recent_pattern());
        if now < self.hud_text_at {
            return;
        }
        self.hud_text_at = now.saturating_add(HUD_TEXT_INTERVAL);
        let info = self.pacer.strategy().info();
        hud.strategy_name = info.name;
        hud.strategy_summary = info.summary;
        hud.strategy_source = info.source;
        hud.strategy_status = self.pacer.status();
        hud.tick_rate_hz = self.pacer.config().tick_rate.hz();
        hud.present_mode_requested.clone_from(&self.display.present_mode_requested);
        hud.present_mode_actual.clone_from(&self.display.present_mode.name);
        hud.monitor_name = self.display.monitor.clone().unwrap_or_else(|| UNKNOWN_MONITOR.to_owned());
        hud.reported_refresh_hz = self.display.reported.map(Rate::hz);
        hud.emulated_refresh_hz = self.display.emulated.map(Rate::hz);
        hud.present_cadence_hz = self.pacer.meter_mut().measured().map(|m| m.hz());
        hud.vsync_verdict = self.verdict().text;
        hud.display_time_source = self.display_time_source();
    }

    /// The run's report: the figures both front ends write.
    pub fn report(&mut self, now: Nanos) -> RunReport {
        let mut folded = self.measures.folded;
        folded.add(&self.measures.run.totals());
        let whole = LiveOrigin { at: self.start, ..LiveOrigin::default() };
        self.assemble(MetricsRef::Run, folded, whole, now)
    }

    /// A report of the live figures: the part of the run since the setting
    /// (strategy, tick rate, present mode, pause, monitor) last changed, as
    /// a HUD shows it; the entry of one strategy in a comparison. Equal
    /// to [`Session::report`] while the run has had one setting.
    pub fn live_report(&mut self, now: Nanos) -> RunReport {
        let Some(live) = &self.measures.live else { return self.report(now) };
        let mut folded = Folded::default();
        folded.add(&live.totals());
        let origin = self.measures.live_origin;
        self.assemble(MetricsRef::Live, folded, origin, now)
    }

    fn assemble(&mut self, which: MetricsRef, folded: Folded, origin: LiveOrigin, now: Nanos) -> RunReport {
        let game = self.game_time().saturating_sub(origin.game);
        let updates = self.pacer.total_updates().saturating_sub(origin.updates);
        let presented = self.presented.saturating_sub(origin.presented);
        let wall = now.saturating_sub(origin.at);
        // Rates over the time the loop ran: a pause or a hidden page ran no frames.
        let skipped = self.skipped.saturating_sub(origin.skipped);
        let running = wall.saturating_sub(skipped);
        let refresh = self.display.refresh();
        // Vsync known by construction (a virtual display) needs no verdict sentence.
        let (vsync, vsync_verdict) = match self.display.vsync {
            Some(known) => (Some(known), String::new()),
            None => {
                let verdict = self.verdict();
                (verdict.vsync, verdict.text)
            }
        };
        let measured = self.pacer.meter_mut().measured();
        let l = self.lateness;
        let counts = self.counts.since(origin.counts);
        let source = self.display_time_source();
        let word = self.pacer.compositor_word();
        let metrics = match which {
            MetricsRef::Run => &self.measures.run,
            MetricsRef::Live => self.measures.live(),
        };
        RunReport {
            strategy: self.pacer.strategy().name().to_owned(),
            refresh_hz: refresh.map_or(f64::NAN, Rate::hz),
            vsync,
            tick_rate: self.pacer.config().tick_rate.hz(),
            total_updates: updates,
            vsyncs: folded.vsyncs,
            double_updates: folded.double_updates,
            skipped_renders: folded.skipped_renders,
            repeated_frames: folded.repeated_frames,
            game_time_s: nanos_to_secs(game),
            system_time_s: nanos_to_secs(folded.system_time),
            pattern: metrics.pattern_prefix().to_owned(),
            present_interval_histogram: Some(IntervalHistogram::from(metrics.present_histogram())),
            display: Some(DisplayFacts {
                frames: self.frames.saturating_sub(origin.frames),
                presented,
                fps: per_second(presented, running),
                ups: per_second(updates, running),
                wall_time_s: nanos_to_secs(wall),
                present_cadence_hz: measured.map(|m| m.hz()),
                reported_refresh_hz: self.display.reported.map(Rate::hz),
                emulated_refresh_hz: self.display.emulated.map(Rate::hz),
                emulation_late_us_mean: (l.presents > 0).then(|| l.total as f64 / l.presents as f64 / 1000.0),
                emulation_late_us_max: (l.presents > 0).then(|| l.worst as f64 / 1000.0),
                vsync_verdict,
                present_mode_requested: self.display.present_mode_requested.clone(),
                present_mode_actual: self.display.present_mode.name.clone(),
                monitor: self.display.monitor.clone().unwrap_or_else(|| UNKNOWN_MONITOR.to_owned()),
                strategies_used: self.strategies_used.iter().map(|id| id.name().to_owned()).collect(),
                hidden_s: (self.hidden > 0).then(|| nanos_to_secs(self.hidden)),
                feedback_frames: counts.displayed,
                estimated_frames: counts.estimated,
                discarded_frames: counts.discarded,
                compositor_refresh_hz: word.and_then(|w| w.refresh).map(|p| NANOS_PER_SEC as f64 / p.max(1) as f64),
                display_time_blind_spot: source.blind_spot().to_owned(),
            }),
            display_time_source: source.label(),
            stats: metrics.stats(),
            vrr: self.display.vrr.map(VrrInfo::from),
            ..RunReport::default()
        }
    }
}

/// Which of the session's metrics a report is drawn from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MetricsRef {
    /// Since the start (or the last refresh-rate change).
    Run,
    /// Since the setting last changed.
    Live,
}

fn per_second(count: u64, wall: Nanos) -> f64 {
    if wall == 0 { 0.0 } else { count as f64 * NANOS_PER_SEC as f64 / wall as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::{Preset, VirtualDisplay};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A world that counts its steps.
    #[derive(Default)]
    struct Counter(u64);

    impl Simulation for Counter {
        fn step(&mut self, _dt: Nanos) {
            self.0 += 1;
        }
    }

    fn display_60() -> DisplayInfo {
        DisplayInfo {
            monitor: Some("test 60".to_owned()),
            reported: Some(Rate::from_hz(60)),
            present_mode_requested: "fifo".to_owned(),
            ..DisplayInfo::default()
        }
    }

    /// Runs `frames` frames on the article's virtual 60 Hz display.
    fn run(session: &mut Session<Counter>, display: &mut VirtualDisplay<'_>, frames: u32) {
        for _ in 0..frames {
            let report = session.run_host_frame(display);
            session.record(&report, PresentOutcome::SHOWN);
            if let Some(at) = report.wake.at {
                display.wait_until(at);
            }
            display.busy();
        }
    }

    fn glaiel_60() -> VirtualDisplay<'static> {
        VirtualDisplay::new(Preset::Glaiel.model(), Rate::from_hz(60), true, 0, 0, 0)
    }

    #[test]
    fn the_hud_of_a_run_shows_the_figures_its_report_gives() {
        let mut session =
            Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 600);
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, display.clock());
        let report = session.report(display.clock());
        assert_eq!(hud.double_updates, report.double_updates, "doubles");
        assert_eq!(hud.skipped_renders, report.skipped_renders, "skips");
        assert_eq!(hud.repeated_frames, report.repeated_frames, "repeats");
        assert_eq!(hud.stats, report.stats, "one setting: the overlay's figures are the report's");
        let histogram = report.present_interval_histogram.as_ref().expect("a session reports its intervals");
        // The first frame runs no update: the second still shows its picture.
        let startup = report.stats.startup_ms;
        assert!((startup - 1000.0 / 60.0).abs() < 1e-3, "one refresh of start-up: {startup}");
        let intervals = histogram.counts.iter().sum::<u64>() + histogram.overflow;
        assert_eq!(intervals, 597, "600 frames, 599 intervals: from the third frame, the first that moves");
        assert_eq!(hud.present_histogram.total(), 597);
        assert!(report.double_updates > 50, "the article's naive timer double-updates at 60 Hz: {report:?}");
        assert_eq!(hud.strategy_name, "catch-up");
        assert_eq!(hud.reported_refresh_hz, Some(60.0));
        assert_eq!(hud.monitor_name, "test 60");
        let tail: String = report.pattern.chars().rev().take(5).collect();
        assert!(!tail.is_empty() && hud.pattern.len() == 120, "the overlay shows the last 120 digits");
    }

    #[test]
    fn switching_strategy_starts_the_live_figures_over_and_keeps_the_run() {
        let mut session =
            Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 300);
        let before = session.run_metrics().totals().double_updates;
        assert!(before > 0, "catch-up doubles at 60 Hz on the article's model");
        session.set_strategy(StrategyId::Fuzzy, display.clock());
        assert_eq!(session.live_metrics().totals().frames, 0, "the live figures start over");
        run(&mut session, &mut display, 300);
        let live = session.live_metrics().totals();
        assert_eq!(live.frames, 300);
        assert_eq!(session.run_metrics().totals().frames, 600, "the run keeps counting");
        let report = session.report(display.clock());
        assert_eq!(report.strategy, "fuzzy");
        let used = &report.display.as_ref().expect("a session reports its display").strategies_used;
        assert_eq!(used, &["catch-up", "fuzzy"]);
        assert!(report.double_updates >= before, "the run's doubles include catch-up's");
    }

    #[test]
    fn a_new_refresh_rate_folds_the_counts_and_restarts_the_bookkeeping() {
        let mut session =
            Session::new(StrategyId::Lockstep, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 120);
        let first = session.report(display.clock());
        session.set_display(Some("test 144".to_owned()), Some(Rate::from_hz(144)), display.clock());
        assert_eq!(session.run_metrics().totals().frames, 0, "the refresh bookkeeping restarts");
        assert_eq!(session.run_metrics().refresh(), Some(Rate::from_hz(144)));
        let mut display = VirtualDisplay::new(Preset::Glaiel.model(), Rate::from_hz(144), true, 0, display.clock(), 0);
        run(&mut session, &mut display, 144);
        let report = session.report(display.clock());
        assert_eq!(report.vsyncs, first.vsyncs + 144, "vsyncs of both monitors are counted");
        assert_eq!(report.refresh_hz, 144.0);
        assert_eq!(report.display.as_ref().map(|d| d.monitor.as_str()), Some("test 144"));
    }

    #[test]
    fn another_monitor_at_the_same_rate_is_measured_again_and_the_live_figures_start_over() {
        let mut session =
            Session::new(StrategyId::Lockstep, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 120);
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, display.clock());
        assert!(hud.present_cadence_hz.is_some(), "two seconds of frames are measured");
        session.move_to_display(Some("second 60".to_owned()), Some(Rate::from_hz(60)), None, display.clock());
        session.fill_hud(&mut hud, display.clock());
        assert_eq!(hud.present_cadence_hz, None, "the new monitor is measured from scratch");
        assert_eq!(hud.monitor_name, "second 60", "the overlay names the new monitor");
        assert_eq!(session.live_metrics().totals().frames, 0, "the live figures start over");
        assert_eq!(session.run_metrics().totals().frames, 120, "the same rate keeps the run's bookkeeping");
    }

    #[test]
    fn an_emulated_rate_per_monitor_changes_the_refresh_frames_are_counted_in() {
        let mut session =
            Session::new(StrategyId::Lockstep, StrategyConfig::default(), Counter::default(), display_60(), 0);
        run(&mut session, &mut glaiel_60(), 60);
        let ntsc = Rate::new(60000, 1001).expect("59.94");
        session.move_to_display(Some("second".to_owned()), Some(Rate::from_hz(60)), Some(ntsc), 0);
        assert_eq!(session.display().refresh(), Some(ntsc), "the emulated grid replaces the reported rate");
        assert_eq!(session.run_metrics().refresh(), Some(ntsc), "the run is counted in the new grid");
        assert_eq!(session.run_metrics().totals().frames, 0, "a new rate restarts the refresh bookkeeping");
    }

    #[test]
    fn a_paused_session_does_not_catch_up_the_pause() {
        let mut session =
            Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 60);
        let updates = session.pacer().total_updates();
        session.set_paused(true, display.clock());
        assert!(session.paused());
        display.wait_until(display.clock() + 10 * NANOS_PER_SEC);
        session.set_paused(false, display.clock());
        run(&mut session, &mut display, 2);
        assert!(session.pacer().total_updates() - updates <= 2, "ten paused seconds are not replayed");
    }

    #[test]
    fn a_pause_and_a_hidden_display_are_gaps_in_the_run_not_a_frame() {
        for hide in [false, true] {
            let mut session =
                Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
            let mut display = glaiel_60();
            run(&mut session, &mut display, 120);
            let from = display.clock();
            if !hide {
                session.set_paused(true, from);
            }
            display.wait_until(from + 5 * NANOS_PER_SEC);
            match hide {
                true => session.hidden(from, display.clock()),
                false => session.set_paused(false, display.clock()),
            }
            run(&mut session, &mut display, 120);
            let report = session.report(display.clock());
            let (stats, facts) = (report.stats, report.display.expect("a session's display facts"));
            assert!(stats.max_hitch_ms < 20.0, "hide {hide}: no 5 s hitch: {stats:?}");
            // A resynced strategy shows its last state one more frame: three refreshes, not five seconds.
            assert!(stats.latency_max_ms < 60.0, "hide {hide}: no 5 s latency: {stats:?}");
            assert_eq!(report.skipped_renders, 0, "hide {hide}: the gap's refreshes are not missed ones");
            assert!((facts.fps - 60.0).abs() < 1.0, "hide {hide}: fps over the time frames ran: {}", facts.fps);
            assert_eq!(facts.hidden_s, hide.then_some(5.0), "only a hidden display is reported as hidden");
        }
    }

    #[test]
    fn fps_and_ups_count_the_last_second_of_frames() {
        let mut session =
            Session::new(StrategyId::Lockstep, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 130);
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, display.clock());
        assert!((hud.fps - 60.0).abs() < 1.0, "fps {}", hud.fps);
        assert!((hud.ups - 60.0).abs() < 1.0, "ups {}", hud.ups);
        assert!(hud.frame_times_ms.len() >= 120, "the frame-time plot has the intervals");
        assert!(hud.present_cadence_hz.is_some_and(|hz| (hz - 60.0).abs() < 0.5), "{:?}", hud.present_cadence_hz);
    }

    #[test]
    fn a_session_that_does_not_measure_its_display_gives_the_same_figures() {
        let measured = {
            let mut s =
                Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
            run(&mut s, &mut glaiel_60(), 500);
            s.report(0)
        };
        let unmeasured = {
            let mut s =
                Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0)
                    .measuring_display(false);
            run(&mut s, &mut glaiel_60(), 500);
            s.report(0)
        };
        // Only the display facts (and the verdict drawn from them) may differ.
        assert_eq!(RunReport { display: None, vsync: None, ..measured }, RunReport { display: None, ..unmeasured });
    }

    /// A display at exactly 62.5 Hz (16 ms refreshes) on a manual clock:
    /// rendering is free, a present shows at the next refresh after the
    /// clock, and frame `freeze_at` stalls for 100 ms before its present.
    struct Grid16 {
        clock: Nanos,
        frame: u64,
        freeze_at: Option<u64>,
    }

    const MS: Nanos = NANOS_PER_MS;

    impl FrameHost<Counter> for Grid16 {
        fn now(&mut self) -> Nanos {
            self.clock
        }

        fn render(&mut self, _world: &Counter, _view: View) {}

        fn present(&mut self) -> Nanos {
            if self.freeze_at == Some(self.frame) {
                self.clock += 100 * MS;
            }
            self.frame += 1;
            self.clock = (self.clock / (16 * MS) + 1) * 16 * MS;
            self.clock
        }
    }

    /// Lockstep at 62.5 Hz ticks on [`Grid16`] for `frames` frames.
    fn lockstep_16(frames: u64, freeze_at: Option<u64>) -> (LoopFigures, RunReport) {
        let tick = Rate::new(125, 2).expect("62.5 Hz");
        let config = StrategyConfig { tick_rate: tick, ..StrategyConfig::default() };
        let display = DisplayInfo { reported: Some(tick), ..display_60() };
        let mut session = Session::new(StrategyId::Lockstep, config, Counter::default(), display, 0);
        let mut host = Grid16 { clock: 0, frame: 0, freeze_at };
        for _ in 0..frames {
            let report = session.run_host_frame(&mut host);
            session.record(&report, PresentOutcome::SHOWN);
        }
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, host.clock);
        (hud, session.report(host.clock))
    }

    #[test]
    fn lockstep_on_a_matching_grid_has_no_judder_no_hitches_and_one_refresh_of_latency() {
        // Frame k reads its input at 16k ms, depicts tick k (16k ms) and shows
        // at 16(k + 1) ms: ŝ = 1, every j = 0, latency 16 ms, intervals 16 ms.
        let (hud, report) = lockstep_16(600, None);
        let s = report.stats;
        assert_eq!((s.speed_ratio, s.drift_ms_per_min), (1.0, 0.0), "{s:?}");
        assert_eq!((s.judder_ms, s.judder_p99_ms, s.hitches, s.max_hitch_ms), (0.0, 0.0, 0, 0.0), "{s:?}");
        assert_eq!((s.latency_ms, s.latency_p95_ms, s.latency_max_ms), (16.0, 16.0, 16.0), "{s:?}");
        let intervals = (s.present_interval_mean_ms, s.present_interval_std_ms, s.present_interval_p99_ms);
        assert_eq!(intervals, (16.0, 0.0, 16.0), "{s:?}");
        assert_eq!(hud.stats, s, "the overlay shows the report's figures");
        assert_eq!(hud.present_histogram.bins()[64], 599, "599 intervals of 16 ms, all in bin 64");
    }

    #[test]
    fn a_100_ms_freeze_under_lockstep_is_one_hitch_of_96_ms() {
        // Frame 300 reads input at 4800 ms, stalls to 4900 ms and shows at the
        // next refresh, 4912 ms: an interval of 112 ms, 96 over the median,
        // while the picture moves one 16 ms tick: j = 16 − 1·112 = −96 ms
        // (judged by the slope of frames 0..299, exactly 1). Latency 112 ms.
        let (hud, report) = lockstep_16(600, Some(300));
        let s = report.stats;
        assert_eq!(s.hitches, 1, "{s:?}");
        assert!((s.max_hitch_ms - 96.0).abs() < 1e-9, "{s:?}");
        assert_eq!(s.latency_max_ms, 112.0, "{s:?}");
        assert_eq!(s.present_interval_p99_ms, 16.0, "one long interval in 599 is above the p99: {s:?}");
        assert_eq!(report.present_interval_histogram.as_ref().map(|h| h.overflow), Some(1), "112 ms overflows");
        assert!(s.speed_ratio < 1.0, "the game lost 96 ms against the display: {s:?}");
        assert_eq!(hud.stats, s, "the overlay shows the report's figures");
    }

    #[test]
    fn the_live_report_covers_the_part_since_the_last_switch() {
        let mut session =
            Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
        let mut display = glaiel_60();
        run(&mut session, &mut display, 300);
        assert_eq!(session.live_report(display.clock()), session.report(display.clock()), "one setting so far");
        let updates_before = session.pacer().total_updates();
        session.set_strategy(StrategyId::Interpolated, display.clock());
        run(&mut session, &mut display, 200);
        let now = display.clock();
        let live = session.live_report(now);
        let mut hud = LoopFigures::default();
        session.fill_hud(&mut hud, now);
        let whole = session.report(now);
        assert_eq!(live.strategy, "interpolated");
        assert_eq!(live.total_updates, session.pacer().total_updates() - updates_before, "updates since the switch");
        assert_eq!(live.display.as_ref().map(|d| d.presented), Some(200));
        assert_eq!(whole.display.as_ref().map(|d| d.presented), Some(500));
        assert_eq!(live.vsyncs, session.live_metrics().totals().vsyncs);
        assert_eq!(hud.stats, live.stats, "the overlay shows the live report's figures");
        assert_eq!(live.pattern, session.live_metrics().pattern_prefix());
    }

    #[test]
    fn a_session_and_a_games_pacer_agree_on_the_settings_after_a_tick_rate_change() {
        for hz in [2, 30, 60, 240] {
            let rate = Rate::from_hz(hz);
            let mut session =
                Session::new(StrategyId::CatchUp, StrategyConfig::default(), Counter::default(), display_60(), 0);
            session.set_tick_rate(rate, 0);
            let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
            pacer.set_tick_rate(rate);
            assert_eq!(session.pacer().config(), pacer.config(), "{rate}");
            assert_eq!(pacer.config(), Pacer::new(StrategyId::CatchUp, rate).config(), "{rate}: as if built at it");
        }
    }

    /// The display of [`Grid16`] two images deep: a present returns at a
    /// refresh boundary and its picture appears one refresh (16 ms) later.
    const QUEUED: Nanos = 16 * MS;

    /// A lockstep session at 62.5 Hz on [`Grid16`] that keeps its settled frames.
    fn lockstep_on_grid16() -> (Session<Counter>, Grid16) {
        let tick = Rate::new(125, 2).expect("62.5 Hz");
        let config = StrategyConfig { tick_rate: tick, ..StrategyConfig::default() };
        let display = DisplayInfo { reported: Some(tick), ..display_60() };
        let mut session = Session::new(StrategyId::Lockstep, config, Counter::default(), display, 0);
        session.keep_settled(true);
        (session, Grid16 { clock: 0, frame: 0, freeze_at: None })
    }

    /// Lockstep at 62.5 Hz on [`Grid16`] for `frames` frames, each asking
    /// for feedback; `answer(id, frame_just_recorded)` says which frames'
    /// feedback the display sends after each frame (`None`: none), shown at
    /// their present + [`QUEUED`] unless `discard` names them.
    fn with_feedback(
        frames: u64,
        answer: impl Fn(u64) -> Vec<u64>,
        discard: &[u64],
    ) -> (RunReport, Vec<Settled>, FeedbackCounts) {
        let (mut session, mut host) = lockstep_on_grid16();
        let mut presents = Vec::new();
        let mut settled = Vec::new();
        for _ in 0..frames {
            let report = session.run_host_frame(&mut host);
            presents.push(report.display_time);
            session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
            for id in answer(report.frame) {
                let Some(&present) = presents.get(id as usize - 1) else { continue };
                let word = if discard.contains(&id) {
                    Feedback::discarded(id)
                } else {
                    Feedback::displayed(id, present + QUEUED).with_refresh(16 * MS)
                };
                session.feedback(word);
            }
            settled.extend(session.take_settled());
        }
        session.settle_all();
        settled.extend(session.take_settled());
        let counts = session.feedback_counts();
        (session.report(host.clock), settled, counts)
    }

    /// Feedback for every frame, `late` frames after it, the last ones after the run.
    fn late_by(late: u64, frames: u64) -> impl Fn(u64) -> Vec<u64> {
        move |recorded| {
            let mut ids: Vec<u64> = recorded.checked_sub(late).filter(|&id| id > 0).into_iter().collect();
            if recorded == frames {
                ids.extend(recorded.saturating_sub(late) + 1..=frames);
            }
            ids
        }
    }

    #[test]
    fn feedback_one_two_or_three_frames_late_moves_every_frame_a_refresh_later() {
        // Present returns at 16(k + 1) ms, the picture appears at 16(k + 2):
        // latency is two refreshes, not the estimate's one (the test above).
        for late in [1, 2, 3] {
            let (report, settled, counts) = with_feedback(600, late_by(late, 600), &[]);
            let s = report.stats;
            assert_eq!((s.latency_ms, s.latency_p95_ms, s.latency_max_ms), (32.0, 32.0, 32.0), "{late} late: {s:?}");
            assert_eq!((s.judder_ms, s.hitches, s.present_interval_mean_ms), (0.0, 0, 16.0), "{late} late: {s:?}");
            assert_eq!(counts, FeedbackCounts { displayed: 600, ..FeedbackCounts::default() }, "{late} late");
            assert_eq!(report.display_time_source, "compositor-feedback (none)");
            let ids: Vec<u64> = settled.iter().map(|f| f.report.frame).collect();
            assert_eq!(ids, (1..=600).collect::<Vec<_>>(), "{late} late: settled in order, each once");
            assert!(settled.iter().all(|f| f.outcome == Outcome::Displayed));
            assert_eq!(settled[9].report.display_time, 10 * 16 * MS + QUEUED, "frame 10 presents at 160 ms");
            let display = report.display.expect("a session reports its display");
            assert_eq!((display.presented, display.feedback_frames, display.estimated_frames), (600, 600, 0));
            assert_eq!(display.compositor_refresh_hz, Some(62.5));
            assert!(display.display_time_blind_spot.is_empty(), "the display's word has no blind spot");
        }
    }

    #[test]
    fn a_frame_waits_for_its_feedback_and_the_frames_after_it_wait_behind_it() {
        let (mut session, mut host) = lockstep_on_grid16();
        let reports: Vec<FrameReport> = (0..3)
            .map(|_| {
                let report = session.run_host_frame(&mut host);
                session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
                report
            })
            .collect();
        assert_eq!(session.take_settled().count(), 0, "three frames wait for their feedback");
        assert_eq!(session.run_metrics().totals().frames, 0, "and count nowhere yet");
        session.feedback(Feedback::displayed(2, reports[1].display_time + QUEUED));
        assert_eq!(session.take_settled().count(), 0, "frame 2 has its word, frame 1 not yet");
        session.feedback(Feedback::displayed(1, reports[0].display_time + QUEUED));
        let settled: Vec<(u64, Nanos)> =
            session.take_settled().map(|f| (f.report.frame, f.report.display_time)).collect();
        assert_eq!(settled, [(1, 32 * MS), (2, 48 * MS)], "out of order in, in order out");
        assert_eq!(session.run_metrics().totals().frames, 2);
        session.feedback(Feedback::displayed(2, 0));
        assert_eq!(session.feedback_counts().late, 1, "a second word on a settled frame changes nothing");
    }

    #[test]
    fn feedback_out_of_order_gives_the_same_figures_as_in_order() {
        // Each pair answered second first: 2, 1, 4, 3, …
        let swapped = |recorded: u64| if recorded.is_multiple_of(2) { vec![recorded, recorded - 1] } else { vec![] };
        let (report, settled, counts) = with_feedback(600, swapped, &[]);
        let (in_order, _, _) = with_feedback(600, late_by(0, 600), &[]);
        assert_eq!(report.stats, in_order.stats, "the figures do not depend on the order the words came in");
        assert_eq!(counts.displayed, 600);
        assert!(settled.windows(2).all(|w| w[0].report.frame + 1 == w[1].report.frame), "settled in frame order");
    }

    #[test]
    fn feedback_that_never_comes_leaves_the_estimate_after_100_ms_of_presents() {
        let (report, settled, counts) = with_feedback(600, |_| Vec::new(), &[]);
        assert_eq!(counts, FeedbackCounts { estimated: 600, ..FeedbackCounts::default() });
        assert_eq!(report.stats.latency_ms, 16.0, "the present's return, one refresh after the input");
        assert_eq!(report.display_time_source, "present-return", "no word from the display: the host's estimate");
        let display = report.display.expect("display facts");
        assert!(display.display_time_blind_spot.contains("cannot be seen"), "{}", display.display_time_blind_spot);
        // Presents every 16 ms: frame k is settled by frame k + 7's present,
        // the first 112 ms ≥ 100 ms after its own.
        assert!(settled.iter().all(|f| f.outcome == Outcome::Estimated));
        let (_, first_seven, _) = with_feedback(7, |_| Vec::new(), &[]);
        assert_eq!(first_seven.len(), 7, "settle_all settles the rest at the end");
        let (mut session, mut host) = lockstep_on_grid16();
        let mut settled_after = Vec::new();
        for _ in 0..8 {
            let report = session.run_host_frame(&mut host);
            session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
            settled_after.push(session.take_settled().count());
        }
        assert_eq!(settled_after, [0, 0, 0, 0, 0, 0, 0, 1], "frame 1 (present 16 ms) goes at frame 8's (128 ms)");
    }

    #[test]
    fn a_discarded_frame_is_never_counted_as_shown() {
        let (report, settled, counts) = with_feedback(600, late_by(2, 600), &[300]);
        assert_eq!(counts, FeedbackCounts { displayed: 599, discarded: 1, ..FeedbackCounts::default() });
        let display = report.display.as_ref().expect("display facts");
        assert_eq!((display.presented, display.discarded_frames), (599, 1));
        let (all_shown, _, _) = with_feedback(600, late_by(2, 600), &[]);
        assert_eq!(all_shown.skipped_renders, 1, "the first refresh, before the first frame's picture");
        assert_eq!(report.skipped_renders, 2, "and the discarded frame's refresh showed no new frame");
        assert_eq!(settled[299].outcome, Outcome::Discarded);
        assert_eq!(report.stats.hitches, 1, "the picture held for two refreshes, then jumped two ticks");
    }

    #[test]
    fn a_frame_without_feedback_among_answered_ones_is_counted_as_estimated() {
        let skip_ten = |recorded: u64| late_by(1, 600)(recorded).into_iter().filter(|&id| id != 10).collect();
        let (report, settled, counts) = with_feedback(600, skip_ten, &[]);
        assert_eq!(counts, FeedbackCounts { displayed: 599, estimated: 1, ..FeedbackCounts::default() });
        assert_eq!(settled[9].outcome, Outcome::Estimated);
        assert_eq!(settled[9].report.display_time, 10 * 16 * MS, "frame 10 keeps its present's return");
        assert_eq!(report.stats.latency_max_ms, 32.0);
        assert_eq!(report.display.map(|d| d.estimated_frames), Some(1));
    }

    #[test]
    fn a_slow_loop_waits_four_presents_for_feedback_however_long_they_take() {
        let mut session =
            Session::new(StrategyId::Lockstep, StrategyConfig::default(), Counter::default(), display_60(), 0);
        session.keep_settled(true);
        let mut settled_after = Vec::new();
        for k in 1..=6u64 {
            // A frame every 200 ms, twice the time bound.
            let report = FrameReport {
                frame: k,
                start: (k - 1) * 200 * MS,
                updates: 1,
                shown_updates: 1,
                view: View::Latest,
                content_time: k * 200 * MS,
                input_time: (k - 1) * 200 * MS,
                display_time: k * 200 * MS,
                repeats: 0,
                end: k * 200 * MS,
                wake: crate::strategy::Wake { at: None },
            };
            session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
            settled_after.push(session.take_settled().map(|f| f.report.frame).collect::<Vec<_>>());
        }
        assert!(settled_after[..4].iter().all(Vec::is_empty), "800 ms later, but only three presents");
        assert_eq!(settled_after[4], [1], "frame 1 gives up at frame 5's present");
        assert_eq!(session.feedback_counts().estimated, 2);
        assert_eq!(session.forget_awaiting(), 4, "frames 3 to 6, unanswered at the end, are left out");
        assert_eq!(session.frame_counts(), (6, 2), "six frames run, two counted as shown");
    }
}
