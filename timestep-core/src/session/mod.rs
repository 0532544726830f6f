//! A [`Session`]: one game loop's frame pacing and everything measured about it.
//!
//! A game (or a test window, or the virtual monitor) owns one session. The
//! session owns the [`Pacer`] with its strategy, the world, the metrics
//! of the whole run and of the current setting, the refresh measurement and
//! the vsync verdict; it assembles a HUD's
//! [`LoopFigures`](crate::hud::LoopFigures) and the one
//! [`RunReport`](crate::report::RunReport) a run writes as JSON.
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
//! order, up to [`FEEDBACK_WAIT`](crate::feedback::FEEDBACK_WAIT) and
//! [`FEEDBACK_WAIT_FRAMES`](crate::feedback::FEEDBACK_WAIT_FRAMES) of later presents: then the frame is
//! settled with the display's time, as discarded (never counted as shown),
//! or, with no word, with its present's return (counted as estimated).
//!
//! ```text
//!   record(7, awaited)  record(8, awaited)  feedback(7 at v)  record(9)   feedback(8 discarded)
//!   awaiting: [7]       [7, 8]              [8] → 7 settled   [8, 9]      [] → 8 discarded, 9 settled
//! ```
//!
//! The rooms: this file keeps the session itself (what it owns, recording a
//! frame, the changes of setting); `display` the facts a host tells it
//! ([`DisplayInfo`], [`PresentModeInfo`], [`PresentOutcome`]); `feedback`
//! the frames held back for the display's word and how each is settled;
//! `figures` what it gives out (the HUD's numbers, the reports).

mod display;
mod feedback;
mod figures;

pub use display::{DisplayInfo, PresentModeInfo, PresentOutcome};
pub use feedback::{AWAIT_SLOTS, FeedbackCounts, Outcome, Settled};

use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

use crate::Pacer;
use crate::feedback::FeedbackFlags;
use crate::host::{FrameHost, FrameReport, Simulation};
use crate::hud::FrameTimeRing;
use crate::metrics::{FrameSample, Metrics, Totals};
use crate::refresh::{Verdict, VerdictFacts};
use crate::strategy::{StrategyConfig, StrategyId, View};
use crate::time::{NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate};
use crate::vrr::VrrRange;

use feedback::Awaiting;
use figures::per_second;

/// How often the HUD's sentences (verdict, status, monitor) are rebuilt:
/// text changes that fast cannot be read anyway, and building it allocates.
pub const HUD_TEXT_INTERVAL: Nanos = 100 * NANOS_PER_MS;

/// The window over which frames and updates per second are counted.
pub(crate) const RATE_INTERVAL: Nanos = NANOS_PER_SEC;

/// What a session's live figures and its report call a monitor no one
/// named: one default for both.
pub const UNKNOWN_MONITOR: &str = "unknown monitor";

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hud::LoopFigures;
    use crate::monitor::{Preset, VirtualDisplay};
    use crate::report::RunReport;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A world that counts its steps.
    #[derive(Default)]
    pub(super) struct Counter(u64);

    impl Simulation for Counter {
        fn step(&mut self, _dt: Nanos) {
            self.0 += 1;
        }
    }

    pub(super) fn display_60() -> DisplayInfo {
        DisplayInfo {
            monitor: Some("test 60".to_owned()),
            reported: Some(Rate::from_hz(60)),
            present_mode_requested: "fifo".to_owned(),
            ..DisplayInfo::default()
        }
    }

    /// Runs `frames` frames on the article's virtual 60 Hz display.
    pub(super) fn run(session: &mut Session<Counter>, display: &mut VirtualDisplay<'_>, frames: u32) {
        for _ in 0..frames {
            let report = session.run_host_frame(display);
            session.record(&report, PresentOutcome::SHOWN);
            if let Some(at) = report.wake.at {
                display.wait_until(at);
            }
            display.busy();
        }
    }

    pub(super) fn glaiel_60() -> VirtualDisplay<'static> {
        VirtualDisplay::new(Preset::Glaiel.model(), Rate::from_hz(60), true, 0, 0, 0)
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
    pub(super) struct Grid16 {
        pub(super) clock: Nanos,
        pub(super) frame: u64,
        pub(super) freeze_at: Option<u64>,
    }

    pub(super) const MS: Nanos = NANOS_PER_MS;

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
}
