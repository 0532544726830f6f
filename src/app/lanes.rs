//! Lane mode: every strategy side by side, fed the same real frames.
//!
//! To compare strategies one at a time you switch and remember; in lane mode
//! (`C`, `--lanes`) the eye sees the difference at once, as in TestUFO. The
//! playfield splits into horizontal lanes, one per strategy, each with its own
//! strategy instance and world (one [`Session`]`<`[`LaneWorld`]`>` per lane)
//! and a label with the strategy's live pattern, judder, hitches and latency,
//! read from that lane's session by the metrics' own definitions.
//!
//! ```text
//!   loop frame (display-paced: wake None)
//!   start = clock.now()
//!   for each lane:  session.run_host_frame(ReplayHost { now: start })   steps cost no clock time;
//!                                                                   render appends the lane's
//!                                                                   sprites into the one buffer
//!   window host:    one sprite draw for all lanes + overlay ─► present ─► display time D
//!   for each lane:  report.display_time = D; session.record(report)
//! ```
//!
//! Every lane is told the same start and the same display time, so a lane
//! shows exactly the frames its strategy would have shown in a loop whose
//! frames started at those times: replaying the loop's frame starts
//! (`--frame-log`) through `timestep-lab simulate --trace` gives each lane's
//! update count to the update.
//!
//! # Honesty: lanes that need the loop
//!
//! A lane never shows what its strategy would not have shown. `fixed-fps` and
//! `paced` decide *when* frames happen (they return a wake time: the core's
//! `StrategyId::paces_itself`): fed frames at someone else's times they would
//! be a different loop. Emulating them (running each at the first shared
//! frame after its wake) was rejected: that shifts every frame by up to a
//! refresh, which changes exactly the doubles and skips the lane is there to
//! show. So their lanes do not run: the label says `needs the loop — Enter`,
//! the content stands still, dimmed, and Enter on that lane leaves lane mode
//! with its strategy running the loop.
//! `lockstep` is faithful here: one step per frame is what it does in any
//! display-paced loop, and the lane loop is one.

use serde::Serialize;

use crate::host::{FrameHost, FrameReport};
use crate::hud_data::LaneLabel;
use crate::metrics::Metrics;
use crate::render::Letterbox;
use crate::report::RunOrigin;
use crate::report::RunReport;
use crate::session::{DisplayInfo, HUD_TEXT_INTERVAL, PresentModeInfo, PresentOutcome, Session};
use crate::sim::{Instance, LANE_INSTANCES, LaneWorld, Look};
use crate::strategy::{StrategyConfig, StrategyId, View};
use crate::time::{Nanos, Rate};

/// Share of the playfield's width the label column at each lane's left takes.
pub(crate) const LABEL_COLUMN: f32 = 0.27;

/// Space between two lanes, playfield pixels.
pub(crate) const LANE_GAP: f32 = 2.0;

/// Pattern digits a lane label shows: about the label column's width in a 11-point monospace font.
pub(crate) const LABEL_PATTERN: usize = 40;

/// A rectangle of the playfield, playfield pixels, origin top-left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Strip {
    /// Left edge.
    pub(crate) x: f32,
    /// Top edge.
    pub(crate) y: f32,
    /// Width.
    pub(crate) width: f32,
    /// Height.
    pub(crate) height: f32,
}

impl Strip {
    /// The top-left corner.
    pub(crate) fn origin(&self) -> [f32; 2] {
        [self.x, self.y]
    }

    /// Width and height.
    pub(crate) fn size(&self) -> [f32; 2] {
        [self.width, self.height]
    }

    /// Whether `point` lies inside (left and top edges included).
    pub(crate) fn contains(&self, point: [f32; 2]) -> bool {
        (self.x..self.x + self.width).contains(&point[0]) && (self.y..self.y + self.height).contains(&point[1])
    }
}

/// Where N lanes go on the playfield: equal horizontal strips top to bottom,
/// [`LANE_GAP`] apart, each a label column ([`LABEL_COLUMN`] of the width) and
/// the motion area right of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LaneLayout {
    playfield: [f32; 2],
    count: usize,
}

impl LaneLayout {
    /// `count` lanes (at least 1) on a `playfield` of `[width, height]`.
    pub(crate) fn new(count: usize, playfield: [f32; 2]) -> LaneLayout {
        LaneLayout { playfield, count: count.max(1) }
    }

    /// Width of the label column, playfield pixels.
    pub(crate) fn label_width(&self) -> f32 {
        (LABEL_COLUMN * self.playfield[0]).round()
    }

    /// Lane `i` (from the top), label column included.
    pub(crate) fn lane(&self, i: usize) -> Strip {
        let [width, height] = self.playfield;
        let edge = |k: usize| height * k as f32 / self.count as f32;
        let top = edge(i);
        Strip { x: 0.0, y: top, width, height: (edge(i + 1) - top - LANE_GAP).max(1.0) }
    }

    /// Where lane `i`'s world moves: the lane right of the label column.
    pub(crate) fn motion(&self, i: usize) -> Strip {
        let lane = self.lane(i);
        let label = self.label_width();
        Strip { x: label, width: (lane.width - label).max(1.0), ..lane }
    }

    /// The lane under a playfield point, if any.
    pub(crate) fn lane_at(&self, point: [f32; 2]) -> Option<usize> {
        (0..self.count).find(|&i| self.lane(i).contains(point))
    }
}

/// The playfield point under a window pixel, through the letterbox the
/// sprites are drawn with (`None` on the bars).
pub(crate) fn playfield_point(letterbox: &Letterbox, pixel: [f32; 2]) -> Option<[f32; 2]> {
    let [sx, sy] = letterbox.scale();
    if sx <= 0.0 || sy <= 0.0 {
        return None;
    }
    let point = [(pixel[0] - letterbox.x as f32) / sx, (pixel[1] - letterbox.y as f32) / sy];
    let [w, h] = letterbox.playfield;
    ((0.0..w).contains(&point[0]) && (0.0..h).contains(&point[1])).then_some(point)
}

/// The host a lane's frame runs against: the loop frame's start is its clock
/// (a lane's steps cost no clock time), rendering appends the lane's sprites
/// to the shared buffer, and the display time is patched in after the real
/// present ([`Lanes::record`]).
struct ReplayHost<'a> {
    start: Nanos,
    origin: [f32; 2],
    out: &'a mut Vec<Instance>,
}

impl FrameHost<LaneWorld> for ReplayHost<'_> {
    fn now(&mut self) -> Nanos {
        self.start
    }

    fn render(&mut self, world: &LaneWorld, view: View) {
        world.write_instances(view, self.origin, Look::Live, self.out);
    }

    fn present(&mut self) -> Nanos {
        self.start
    }
}

/// One lane: a strategy's own session on its own world.
struct Lane {
    id: StrategyId,
    session: Session<LaneWorld>,
    needs_loop: bool,
    /// This frame's report, waiting for the display time.
    pending: Option<FrameReport>,
}

/// What `--stats-json` writes per lane: the lane session's report.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct LaneReport {
    /// The lane's figures, with the report's field names (`model` is `lanes`).
    #[serde(flatten)]
    pub(crate) run: RunReport,
    /// The strategy decides when frames happen, so the lane did not run (its counts are 0).
    pub(crate) needs_loop: bool,
}

/// Every lane's session, the layout, and which lane is selected.
pub struct Lanes {
    lanes: Vec<Lane>,
    layout: LaneLayout,
    selected: usize,
    /// When the labels' numbers are next refreshed.
    numbers_at: Nanos,
}

impl Lanes {
    /// One lane per strategy of `ids` (in that order), each built from
    /// `config`, for frames shown on `display`, starting at clock `now`.
    pub fn new(
        ids: &[StrategyId],
        config: StrategyConfig,
        display: &DisplayInfo,
        playfield: [f32; 2],
        now: Nanos,
    ) -> Lanes {
        let layout = LaneLayout::new(ids.len(), playfield);
        let lanes = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| {
                let world = LaneWorld::new(layout.motion(i).size());
                Lane {
                    id,
                    session: Session::new(id, config, world, display.clone(), now).measuring_display(false),
                    needs_loop: id.paces_itself(),
                    pending: None,
                }
            })
            .collect();
        Lanes { lanes, layout, selected: 0, numbers_at: 0 }
    }

    /// Each lane's strategy and the updates its world has run, top to bottom.
    pub fn updates(&self) -> Vec<(StrategyId, u64)> {
        self.lanes.iter().map(|lane| (lane.id, lane.session.pacer().total_updates())).collect()
    }

    /// Lanes.
    pub(crate) fn len(&self) -> usize {
        self.lanes.len()
    }

    /// Where the lanes are.
    #[cfg(test)]
    pub(crate) fn layout(&self) -> &LaneLayout {
        &self.layout
    }

    /// The most instances one frame appends: reserve this and lane frames never allocate.
    pub fn max_instances(&self) -> usize {
        self.lanes.len() * LANE_INSTANCES
    }

    /// Lane `i`'s strategy and session (`None` past the last lane).
    #[cfg(test)]
    pub(crate) fn session(&self, i: usize) -> Option<(StrategyId, &Session<LaneWorld>)> {
        self.lanes.get(i).map(|lane| (lane.id, &lane.session))
    }

    /// Whether lane `i` runs (its strategy does not need the loop).
    #[cfg(test)]
    pub(crate) fn runs(&self, i: usize) -> bool {
        self.lanes.get(i).is_some_and(|lane| !lane.needs_loop)
    }

    /// Runs every lane's frame at the loop frame's `start` and appends every
    /// lane's sprites to `out`: a running lane's as its strategy draws them, a
    /// lane that needs the loop its last picture, dimmed. Follow with [`Lanes::record`].
    pub fn run_lane_frames(&mut self, start: Nanos, out: &mut Vec<Instance>) {
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            let origin = self.layout.motion(i).origin();
            if lane.needs_loop {
                lane.session.world().write_instances(lane.session.last_view(), origin, Look::Dimmed, out);
                continue;
            }
            let report = lane.session.run_host_frame(&mut ReplayHost { start, origin, out });
            if report.wake.at.is_some() {
                log::warn!("lane {}: the strategy asked for a wake time; its lane is not faithful", lane.id);
            }
            lane.pending = Some(report);
        }
    }

    /// Records the frame [`Lanes::run_lane_frames`] ran: it became visible at
    /// `display_time` (or did not reach the screen: `shown` false).
    pub fn record(&mut self, display_time: Nanos, shown: bool) {
        for lane in &mut self.lanes {
            if let Some(mut report) = lane.pending.take() {
                report.display_time = display_time;
                lane.session.record(&report, PresentOutcome::SHOWN.with_shown(shown));
            }
        }
    }

    /// The selected lane's strategy, and whether its lane runs.
    pub(crate) fn selected(&self) -> Option<StrategyId> {
        self.lanes.get(self.selected).map(|lane| lane.id)
    }

    /// Selects the lane below the selected one (wrapping to the top).
    pub(crate) fn select_next(&mut self) {
        self.selected = (self.selected + 1) % self.lanes.len().max(1);
    }

    /// Selects the lane above the selected one (wrapping to the bottom).
    pub(crate) fn select_previous(&mut self) {
        let n = self.lanes.len().max(1);
        self.selected = (self.selected + n - 1) % n;
    }

    /// Selects the lane of strategy `id`; false when no lane shows it.
    pub(crate) fn select_strategy(&mut self, id: StrategyId) -> bool {
        match self.lanes.iter().position(|lane| lane.id == id) {
            Some(i) => {
                self.selected = i;
                true
            }
            None => false,
        }
    }

    /// Selects the lane under a playfield point; false when there is none.
    pub(crate) fn select_at(&mut self, point: [f32; 2]) -> bool {
        match self.layout.lane_at(point) {
            Some(i) if i < self.lanes.len() => {
                self.selected = i;
                true
            }
            _ => false,
        }
    }

    /// Brings `labels` up to date at clock `now`, one per lane, reusing their
    /// strings: the pattern strip every frame, the numbers at most every
    /// [`HUD_TEXT_INTERVAL`] (as the demo's overlay: figures that change every
    /// frame cannot be read, and ten lanes' recent statistics are not free).
    pub fn fill_labels(&mut self, labels: &mut Vec<LaneLabel>, now: Nanos) {
        let fresh = labels.len() != self.lanes.len();
        labels.resize_with(self.lanes.len(), LaneLabel::default);
        let numbers = fresh || now >= self.numbers_at;
        if numbers {
            self.numbers_at = now.saturating_add(HUD_TEXT_INTERVAL);
        }
        let label_width = self.layout.label_width();
        for (i, (lane, label)) in self.lanes.iter().zip(labels.iter_mut()).enumerate() {
            let live = lane.session.live_metrics();
            let strip = self.layout.lane(i);
            label.strategy = lane.id.name();
            label.rect = [strip.x, strip.y, strip.width, strip.height];
            label.label_width = label_width;
            label.needs_loop = lane.needs_loop;
            label.selected = i == self.selected;
            if numbers {
                let figures = LabelFigures::of(live);
                label.judder_ms = figures.judder_ms;
                label.hitches_per_min = figures.hitches_per_min;
                label.latency_ms = figures.latency_ms;
                label.drift_ms_per_min = figures.drift_ms_per_min;
            }
            let digits = live.recent_pattern().count();
            label.pattern.clear();
            label.pattern.extend(live.recent_pattern().skip(digits.saturating_sub(LABEL_PATTERN)));
        }
    }

    /// Every lane's report at clock `now`, top to bottom.
    pub(crate) fn reports(&mut self, now: Nanos, seed: u64) -> Vec<LaneReport> {
        self.lanes
            .iter_mut()
            .map(|lane| {
                let mut run = lane.session.report(now);
                run.model = RunOrigin::Lanes;
                run.seed = seed;
                LaneReport { run, needs_loop: lane.needs_loop }
            })
            .collect()
    }

    /// Changes every lane's tick rate (their timing and live figures start over).
    pub(crate) fn set_tick_rate(&mut self, rate: Rate, now: Nanos) {
        for lane in &mut self.lanes {
            lane.session.set_tick_rate(rate, now);
        }
    }

    /// The present mode changed.
    pub(crate) fn set_present_mode(&mut self, mode: &PresentModeInfo, now: Nanos) {
        for lane in &mut self.lanes {
            lane.session.set_present_mode(mode.clone(), now);
        }
    }

    /// The window moved to another display (with its own emulated grid, if any).
    pub(crate) fn move_to_display(
        &mut self,
        monitor: Option<&str>,
        reported: Option<Rate>,
        emulated: Option<Rate>,
        now: Nanos,
    ) {
        for lane in &mut self.lanes {
            lane.session.move_to_display(monitor.map(str::to_owned), reported, emulated, now);
        }
    }

    /// The display could not be seen from `from` to `to`: a gap in every lane's run, not a frame.
    pub(crate) fn hidden(&mut self, from: Nanos, to: Nanos) {
        for lane in &mut self.lanes {
            lane.session.hidden(from, to);
        }
    }

    /// Frames stopped for a while (hidden, resized).
    pub(crate) fn interrupt(&mut self) {
        for lane in &mut self.lanes {
            lane.session.interrupt();
        }
    }

    /// Puts every lane's world back to its start (the strategies keep their timing).
    pub(crate) fn reset_worlds(&mut self) {
        for lane in &mut self.lanes {
            lane.session.world_mut().reset();
        }
    }
}

/// The numbers of a lane label: the lane's live statistics over its recent
/// frames, by the metrics' own definitions (NaN / `None` while undefined).
#[derive(Clone, Copy, Debug, PartialEq)]
struct LabelFigures {
    judder_ms: f64,
    hitches_per_min: Option<f64>,
    latency_ms: f64,
    drift_ms_per_min: f64,
}

impl LabelFigures {
    fn of(live: &Metrics) -> LabelFigures {
        // One pass over the recent frames gives all four.
        let recent = live.recent();
        LabelFigures {
            judder_ms: finite_or_nan(recent.judder_ms),
            hitches_per_min: Some(recent.hitches_per_min).filter(|h| h.is_finite()),
            latency_ms: finite_or_nan(recent.latency_ms),
            drift_ms_per_min: finite_or_nan(recent.drift_ms_per_min),
        }
    }
}

fn finite_or_nan(v: f64) -> f64 {
    if v.is_finite() { v } else { f64::NAN }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::{Preset, RunSpec, Stop, Trace};
    use crate::rng::SplitMix64;
    use crate::time::{Clock, ManualClock, NANOS_PER_SEC};
    use std::sync::Arc;

    const PLAYFIELD: [f32; 2] = [1280.0, 720.0];

    fn hz_59_94() -> Rate {
        Rate::new(60_000, 1001).expect("a valid rate")
    }

    fn display() -> DisplayInfo {
        DisplayInfo::default().with_monitor("test").with_emulated(Some(hz_59_94())).with_present_mode_requested("auto")
    }

    /// Frame intervals of a display-paced loop on a 59.94 Hz grid: mostly one
    /// refresh with start jitter, now and then two or three refreshes (a slow frame).
    fn intervals(n: usize, seed: u64) -> Vec<Nanos> {
        let period = hz_59_94().period();
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                let refreshes = match rng.next_u64() % 40 {
                    0 => 3,
                    1..=3 => 2,
                    _ => 1,
                };
                let jitter = rng.next_u64() % 400_000;
                (refreshes * period + jitter).saturating_sub(200_000)
            })
            .collect()
    }

    /// Feeds `lanes` one frame per interval on a manual clock; display time = the next start.
    fn feed(lanes: &mut Lanes, clock: &mut ManualClock, intervals: &[Nanos]) -> Vec<Instance> {
        let mut out = Vec::with_capacity(lanes.max_instances());
        for &dt in intervals {
            out.clear();
            lanes.run_lane_frames(clock.now(), &mut out);
            clock.advance_by(dt);
            lanes.record(clock.now(), true);
        }
        out
    }

    #[test]
    fn ten_lanes_fed_the_same_frames_update_exactly_as_the_simulator_replaying_them() {
        let start = 5 * NANOS_PER_SEC;
        let mut clock = ManualClock::starting_at(start);
        let mut lanes = Lanes::new(&StrategyId::ALL, StrategyConfig::default(), &display(), PLAYFIELD, start);
        let trace = intervals(900, 7);
        let out = feed(&mut lanes, &mut clock, &trace);
        assert_eq!(out.len(), 10 * LANE_INSTANCES, "every lane drew, running or not");
        let trace = Arc::new(Trace::from_frame_times(&trace));
        for (i, id) in StrategyId::ALL.into_iter().enumerate() {
            let (lane_id, session) = lanes.session(i).expect("ten lanes");
            assert_eq!(lane_id, id);
            if id.paces_itself() {
                assert_eq!(session.pacer().total_updates(), 0, "{id}: a lane that needs the loop does not run");
                continue;
            }
            let spec = RunSpec::new(id, Preset::Glaiel)
                .with_refresh(hz_59_94())
                .with_trace(Some(Arc::clone(&trace)))
                .with_stop(Stop::TraceEnd);
            let simulated = crate::sim::simulate(&spec);
            assert_eq!(simulated.frames, 900);
            assert_eq!(
                session.pacer().total_updates(),
                simulated.report().total_updates,
                "{id}: the lane ran the updates its strategy runs in a loop with these frame starts"
            );
            // At least a step a frame after the first (whose delta is 0 for `variable`).
            assert!(
                session.pacer().total_updates() >= 899,
                "{id}: 900 frames ran {} updates",
                session.pacer().total_updates()
            );
        }
    }

    #[test]
    fn exactly_the_strategies_that_pace_themselves_ask_for_a_wake_time() {
        for id in StrategyId::ALL {
            let mut session = Session::new(id, StrategyConfig::default(), LaneWorld::new([900.0, 70.0]), display(), 0);
            let mut out = Vec::new();
            let mut asked = false;
            let mut now = 0;
            for dt in intervals(200, 3) {
                let report = session.run_host_frame(&mut ReplayHost { start: now, origin: [0.0, 0.0], out: &mut out });
                asked |= report.wake.at.is_some();
                now += dt;
            }
            assert_eq!(
                asked,
                id.paces_itself(),
                "{id}: returns a wake time = paces itself (and a lane of it needs the loop)"
            );
        }
    }

    #[test]
    fn lanes_that_need_the_loop_stand_still_dimmed_and_say_so() {
        let mut clock = ManualClock::starting_at(0);
        let ids = [StrategyId::Interpolated, StrategyId::FixedFps, StrategyId::Paced];
        let mut lanes = Lanes::new(&ids, StrategyConfig::default(), &display(), PLAYFIELD, 0);
        let first = feed(&mut lanes, &mut clock, &intervals(1, 1));
        let last = feed(&mut lanes, &mut clock, &intervals(120, 1));
        assert_ne!(first[0].position, last[0].position, "interpolated's runner moves");
        for i in [2, 4] {
            assert_eq!(first[i].position, last[i].position, "lane {}: stands still", i / 2);
            assert!(last[i].color[3] < 1.0, "and is dimmed");
        }
        let mut labels = Vec::new();
        lanes.fill_labels(&mut labels, clock.now());
        let flags: Vec<bool> = labels.iter().map(|l| l.needs_loop).collect();
        assert_eq!(flags, [false, true, true]);
        assert!((0..3).map(|i| lanes.runs(i)).eq([true, false, false]));
        assert!(labels[0].pattern.len() == LABEL_PATTERN && labels[2].pattern.is_empty(), "{labels:?}");
        let reports = lanes.reports(clock.now(), 1);
        assert_eq!(reports[1].run.total_updates, 0);
        assert!(reports[1].needs_loop && !reports[0].needs_loop);
        assert_eq!(reports[0].run.model, RunOrigin::Lanes);
    }

    #[test]
    fn label_patterns_follow_every_frame_and_their_numbers_every_tenth_of_a_second() {
        let mut clock = ManualClock::starting_at(0);
        let mut lanes = Lanes::new(&[StrategyId::CatchUp], StrategyConfig::default(), &display(), PLAYFIELD, 0);
        let mut labels = Vec::new();
        feed(&mut lanes, &mut clock, &intervals(60, 9));
        lanes.fill_labels(&mut labels, clock.now());
        let (pattern, judder) = (labels[0].pattern.clone(), labels[0].judder_ms);
        assert!(judder.is_finite(), "a second of frames has a judder: {:?}", labels[0]);
        // A 2-update frame: catch-up's judder changes at once, the label's number a little later.
        let period = hz_59_94().period();
        feed(&mut lanes, &mut clock, &[2 * period, period / 8]);
        lanes.fill_labels(&mut labels, clock.now());
        assert_ne!(labels[0].pattern, pattern, "the strip shows the new frames at once");
        assert_eq!(labels[0].judder_ms, judder, "the number waits for its interval");
        clock.advance_by(HUD_TEXT_INTERVAL);
        lanes.fill_labels(&mut labels, clock.now());
        let live = LabelFigures::of(lanes.session(0).expect("one lane").1.live_metrics());
        assert_eq!(labels[0].judder_ms, live.judder_ms, "a tenth of a second later it is the lane's own figure");
        assert_ne!(labels[0].judder_ms, judder, "which the frames changed");
        assert_eq!(labels[0].hitches_per_min, live.hitches_per_min);
        assert!(labels[0].hitches_per_min.is_some_and(|h| h > 0.0), "the stalled frame is a hitch: {:?}", labels[0]);
    }

    #[test]
    fn each_lane_draws_inside_its_own_strip() {
        let mut clock = ManualClock::starting_at(0);
        let mut lanes = Lanes::new(&StrategyId::ALL, StrategyConfig::default(), &display(), PLAYFIELD, 0);
        let out = feed(&mut lanes, &mut clock, &intervals(300, 5));
        for (i, pair) in out.chunks(LANE_INSTANCES).enumerate() {
            let lane = lanes.layout().lane(i);
            for sprite in pair {
                let y = sprite.position[1];
                assert!(lane.y <= y && y <= lane.y + lane.height, "lane {i}: {sprite:?} outside {lane:?}");
            }
        }
    }

    #[test]
    fn n_lanes_are_n_non_overlapping_strips_covering_the_playfield_in_order() {
        for n in 1..=10 {
            let layout = LaneLayout::new(n, PLAYFIELD);
            let mut bottom = 0.0;
            for i in 0..n {
                let (lane, motion) = (layout.lane(i), layout.motion(i));
                assert!(lane.y >= bottom, "{n} lanes: lane {i} starts at {} above the last one's end {bottom}", lane.y);
                assert!(lane.height > 0.0 && lane.y + lane.height <= PLAYFIELD[1], "{n} lanes: lane {i} {lane:?}");
                assert_eq!(lane.width, PLAYFIELD[0]);
                assert_eq!(motion.x + motion.width, PLAYFIELD[0], "the motion area reaches the right edge");
                assert_eq!(motion.x, layout.label_width());
                assert_eq!((motion.y, motion.height), (lane.y, lane.height));
                bottom = lane.y + lane.height;
                let centre = [0.5 * PLAYFIELD[0], lane.y + 0.5 * lane.height];
                assert_eq!(layout.lane_at(centre), Some(i));
            }
            assert!(PLAYFIELD[1] - bottom <= LANE_GAP + 1e-3, "{n} lanes fill the height: {bottom}");
        }
        assert_eq!(LaneLayout::new(10, PLAYFIELD).lane(3).height, 70.0, "ten lanes of 72 px less the gap");
        assert_eq!(LaneLayout::new(10, PLAYFIELD).lane_at([10.0, 71.0]), None, "the gap belongs to no lane");
    }

    #[test]
    fn window_pixels_map_through_the_letterbox_to_the_lane_under_them() {
        let letterbox = Letterbox::fit(PLAYFIELD, [1920, 1200]);
        let layout = LaneLayout::new(10, PLAYFIELD);
        // 1920 x 1200: scale 1.5, bars of 60 px at the top and bottom.
        assert_eq!(playfield_point(&letterbox, [3.0, 30.0]), None, "on the bar");
        let point = playfield_point(&letterbox, [960.0, 60.0 + 1.5 * 400.0]).expect("inside");
        assert_eq!(point, [640.0, 400.0]);
        assert_eq!(layout.lane_at(point), Some(5), "400 px down is the sixth of ten 72-px lanes");
    }

    #[test]
    fn selection_moves_wraps_and_follows_clicks_and_strategy_keys() {
        let mut lanes = Lanes::new(
            &[StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Paced],
            StrategyConfig::default(),
            &display(),
            PLAYFIELD,
            0,
        );
        assert_eq!(lanes.selected(), Some(StrategyId::CatchUp));
        lanes.select_previous();
        assert_eq!(lanes.selected(), Some(StrategyId::Paced), "up from the top wraps to the bottom");
        lanes.select_next();
        lanes.select_next();
        assert_eq!(lanes.selected(), Some(StrategyId::Interpolated));
        assert!(lanes.select_at([700.0, 500.0]), "the bottom third");
        assert_eq!(lanes.selected(), Some(StrategyId::Paced));
        assert!(!lanes.select_strategy(StrategyId::Lockstep), "no lockstep lane");
        assert!(lanes.select_strategy(StrategyId::CatchUp));
        assert_eq!(lanes.selected(), Some(StrategyId::CatchUp));
    }
}
