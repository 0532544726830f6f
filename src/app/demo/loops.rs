//! The loops the window runs: the demo's own session, and in lane mode every
//! strategy of the lane list side by side ([`crate::app::lanes`]).
//!
//! ```text
//!   single mode ──C──► lane mode (LaneMode) ──C / Enter (adopt the lane's strategy)──► single mode
//!                      the demo's session pauses            it resumes; the lanes' reports are kept
//! ```
//!
//! Every change reaches [`Loops`] once, and it passes the change on to the
//! loops it concerns: the demo's session, and the lanes while lane mode is
//! on (present mode, tick rate, another monitor, a gap). So `Demo` neither
//! tells two recipients of one change nor asks "lane mode?" in every method;
//! [`LaneMode`] does what only lane mode does (its frame, its keys).

use crate::app::bindings::Action;
use crate::app::lanes::{LaneReport, Lanes, playfield_point};
use crate::app::window_host::{HostOutcome, SceneParams, Screen};
use crate::app::window_state::OnMonitor;
use crate::hud_data::LaneLabel;
use crate::render::Letterbox;
use crate::session::{PresentModeInfo, Session};
use crate::sim::World;
use crate::strategy::StrategyId;
use crate::time::{Nanos, Rate, RealClock};

/// What the window runs: the demo's session, and the lanes in lane mode.
pub(super) struct Loops {
    /// The demo's own session: it runs the loop in single mode and waits,
    /// paused, in lane mode.
    pub(super) session: Session<World>,
    /// Lane mode, while it is on.
    pub(super) lanes: Option<LaneMode>,
    /// The strategies lane mode shows, in lane order.
    lane_ids: Vec<StrategyId>,
    /// The reports of the last lane mode, kept for `--stats-json` when it ends.
    last_reports: Vec<LaneReport>,
}

impl Loops {
    /// Single mode: `session` runs the loop; lane mode will show `lane_ids`.
    pub(super) fn new(session: Session<World>, lane_ids: Vec<StrategyId>) -> Loops {
        Loops { session, lanes: None, lane_ids, last_reports: Vec::new() }
    }

    /// Frames stopped for a while (hidden, minimised, resized).
    pub(super) fn interrupt(&mut self) {
        self.session.interrupt();
        if let Some(mode) = &mut self.lanes {
            mode.lanes.interrupt();
        }
    }

    /// The display could not be seen from `from` to `to`: a gap in every loop's run.
    pub(super) fn hidden(&mut self, from: Nanos, to: Nanos) {
        self.session.hidden(from, to);
        if let Some(mode) = &mut self.lanes {
            mode.lanes.hidden(from, to);
        }
    }

    /// The window is on `monitor` now, with the emulated refresh `emulated`.
    pub(super) fn move_to_display(&mut self, monitor: OnMonitor, emulated: Option<Rate>, now: Nanos) {
        if let Some(mode) = &mut self.lanes {
            mode.lanes.move_to_display(Some(&monitor.label), monitor.reported, emulated, now);
        }
        self.session.move_to_display(Some(monitor.label), monitor.reported, emulated, now);
    }

    /// Frames go out in `present` now.
    pub(super) fn set_present_mode(&mut self, present: PresentModeInfo, now: Nanos) {
        if let Some(mode) = &mut self.lanes {
            mode.lanes.set_present_mode(&present, now);
        }
        self.session.set_present_mode(present, now);
    }

    /// The tick rate is `rate` now.
    pub(super) fn set_tick_rate(&mut self, rate: Rate, now: Nanos) {
        if let Some(mode) = &mut self.lanes {
            mode.lanes.set_tick_rate(rate, now);
        }
        self.session.set_tick_rate(rate, now);
    }

    /// Brings the lane labels up to date (none outside lane mode).
    pub(super) fn fill_labels(&mut self, labels: &mut Vec<LaneLabel>, now: Nanos) {
        match &mut self.lanes {
            None => labels.clear(),
            Some(mode) => mode.lanes.fill_labels(labels, now),
        }
    }

    /// Every lane's report at `now` in lane mode, else those of the last
    /// lane mode (none if there was none).
    pub(super) fn lane_reports(&mut self, now: Nanos, seed: u64) -> Vec<LaneReport> {
        match &mut self.lanes {
            Some(mode) => mode.lanes.reports(now, seed),
            None => self.last_reports.clone(),
        }
    }

    /// Turns lane mode on (see [`LaneMode::enter`]); returns the most
    /// sprites a lane frame draws, or `None` when lane mode was on already.
    pub(super) fn enter_lanes(&mut self, playfield: [f32; 2], now: Nanos) -> Option<usize> {
        if self.lanes.is_some() {
            return None;
        }
        let mode = LaneMode::enter(&self.lane_ids, &mut self.session, playfield, now);
        let max_instances = mode.lanes.max_instances();
        self.lanes = Some(mode);
        Some(max_instances)
    }

    /// Turns lane mode off (see [`LaneMode::leave`]), keeping the lanes'
    /// reports at `now` for [`Loops::lane_reports`]; false when lane mode was off.
    pub(super) fn leave_lanes(&mut self, adopt: Option<StrategyId>, seed: u64, now: Nanos) -> bool {
        let Some(mode) = self.lanes.take() else { return false };
        self.last_reports = mode.leave(&mut self.session, adopt, seed, now);
        true
    }
}

/// What a key does in lane mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LaneKey {
    /// Done: the lanes took it.
    Done,
    /// Leave lane mode, the demo's loop running this strategy when given.
    Leave(Option<StrategyId>),
    /// Not a lane key: it acts as outside lane mode (window, overlay, vsync, tick rate, load).
    Usual,
}

/// Lane mode while it is on.
pub(super) struct LaneMode {
    lanes: Lanes,
    /// Whether the demo's own session was paused before (it is paused meanwhile).
    demo_was_paused: bool,
}

impl LaneMode {
    /// A lane per strategy of `ids`, each a fresh session and world from `now`,
    /// on `session`'s display and settings, the lane of `session`'s strategy
    /// selected; `session` pauses.
    pub(super) fn enter(ids: &[StrategyId], session: &mut Session<World>, playfield: [f32; 2], now: Nanos) -> LaneMode {
        let config = *session.pacer().config();
        let mut lanes = Lanes::new(ids, config, session.display(), playfield, now);
        lanes.select_strategy(session.pacer().strategy());
        let demo_was_paused = session.paused();
        session.set_paused(true, now);
        log::info!("lane mode: {} lanes", lanes.len());
        LaneMode { lanes, demo_was_paused }
    }

    /// Ends lane mode: `session` resumes (timing reset), with `adopt`'s
    /// strategy when given. Returns the lanes' reports at `now`.
    pub(super) fn leave(
        mut self,
        session: &mut Session<World>,
        adopt: Option<StrategyId>,
        seed: u64,
        now: Nanos,
    ) -> Vec<LaneReport> {
        let reports = self.lanes.reports(now, seed);
        if let Some(id) = adopt {
            session.set_strategy(id, now);
            log::info!("lane mode off: the loop runs {id}");
        } else {
            log::info!("lane mode off");
        }
        session.set_paused(self.demo_was_paused && adopt.is_none(), now);
        reports
    }

    /// One lane-mode frame from `start`: every lane runs at that start, one
    /// draw on `screen` shows them all, every lane records the same display time.
    pub(super) fn frame(
        &mut self,
        start: Nanos,
        clock: &RealClock,
        screen: &mut Screen,
        scene: SceneParams,
    ) -> HostOutcome {
        screen.instances.clear();
        self.lanes.run_lane_frames(start, &mut screen.instances);
        let (display_time, outcome) = screen.draw(clock, None, scene, None, |host| host.show_instances());
        screen.gfx.collect_times();
        self.lanes.record(display_time, outcome.presented);
        outcome
    }

    /// The keys that act differently in lane mode.
    pub(super) fn act(&mut self, action: Action) -> LaneKey {
        match action {
            Action::ToggleLanes => return LaneKey::Leave(None),
            Action::AdoptLane => return LaneKey::Leave(self.lanes.selected()),
            Action::NextLane => self.lanes.select_next(),
            Action::PreviousLane => self.lanes.select_previous(),
            Action::Strategy(id) => {
                if !self.lanes.select_strategy(id) {
                    log::info!("no lane shows {id}");
                }
            }
            Action::ResetWorld => self.lanes.reset_worlds(),
            Action::TogglePause | Action::ToggleGhosts => log::info!("{}: not in lane mode", action.help()),
            _ => return LaneKey::Usual,
        }
        LaneKey::Done
    }

    /// Selects the lane under window pixel `pixel` of a window drawn through
    /// `letterbox`; false when there is none.
    pub(super) fn click(&mut self, letterbox: &Letterbox, pixel: [f32; 2]) -> bool {
        playfield_point(letterbox, pixel).is_some_and(|point| self.lanes.select_at(point))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::DisplayInfo;
    use crate::sim::WorldConfig;
    use crate::strategy::StrategyConfig;

    const PLAYFIELD: [f32; 2] = [1280.0, 720.0];
    const IDS: [StrategyId; 3] = [StrategyId::CatchUp, StrategyId::Interpolated, StrategyId::Paced];

    fn demo_session(strategy: StrategyId) -> Session<World> {
        let world = World::new(&WorldConfig::default());
        Session::new(strategy, StrategyConfig::default(), world, DisplayInfo::default(), 0)
    }

    #[test]
    fn lanes_pause_the_demo_and_enter_on_a_lane_resumes_it_running_that_lane() {
        let mut demo = demo_session(StrategyId::Interpolated);
        let mut mode = LaneMode::enter(&IDS, &mut demo, PLAYFIELD, 0);
        assert!(demo.paused(), "the demo's session waits while the lanes run");
        assert_eq!(mode.act(Action::NextLane), LaneKey::Done, "from interpolated's lane (selected) to paced's");
        assert_eq!(mode.act(Action::AdoptLane), LaneKey::Leave(Some(StrategyId::Paced)));
        let reports = mode.leave(&mut demo, Some(StrategyId::Paced), 7, 0);
        assert_eq!(reports.len(), IDS.len(), "a report per lane for --stats-json");
        assert!(!demo.paused(), "the adopted strategy runs");
        assert_eq!(demo.pacer().strategy(), StrategyId::Paced);
    }

    #[test]
    fn leaving_lanes_without_adopting_leaves_a_paused_demo_paused() {
        let mut demo = demo_session(StrategyId::CatchUp);
        demo.set_paused(true, 0);
        let mut mode = LaneMode::enter(&IDS, &mut demo, PLAYFIELD, 0);
        assert_eq!(mode.act(Action::ToggleLanes), LaneKey::Leave(None));
        mode.leave(&mut demo, None, 7, 0);
        assert!(demo.paused(), "paused before lane mode, paused after");
        assert_eq!(demo.pacer().strategy(), StrategyId::CatchUp);
    }

    #[test]
    fn lanes_take_the_selection_keys_and_leave_window_and_display_keys_as_usual() {
        let mut mode = LaneMode::enter(&IDS, &mut demo_session(StrategyId::CatchUp), PLAYFIELD, 0);
        let taken =
            [Action::NextLane, Action::PreviousLane, Action::ResetWorld, Action::TogglePause, Action::ToggleGhosts];
        for action in taken.into_iter().chain([Action::Strategy(StrategyId::Lockstep)]) {
            assert_eq!(mode.act(action), LaneKey::Done, "{action:?} is a lane key");
        }
        let usual = [
            Action::CyclePresentMode,
            Action::TickRateUp,
            Action::CycleLoad,
            Action::ToggleFullscreen,
            Action::NextMonitor,
            Action::ToggleOverlay,
            Action::ToggleHelp,
            Action::Quit,
        ];
        for action in usual {
            assert_eq!(mode.act(action), LaneKey::Usual, "{action:?} acts as outside lane mode");
        }
    }

    #[test]
    fn only_lane_mode_has_lane_labels_and_lane_reports() {
        let mut labels = vec![LaneLabel::default()];
        let mut loops = Loops::new(demo_session(StrategyId::CatchUp), IDS.to_vec());
        loops.fill_labels(&mut labels, 0);
        assert!(labels.is_empty(), "one strategy: no lane labels");
        assert!(loops.lane_reports(0, 7).is_empty(), "no lane mode yet: no lane reports");
        assert!(loops.enter_lanes(PLAYFIELD, 0).is_some(), "lane mode starts");
        assert!(loops.enter_lanes(PLAYFIELD, 0).is_none(), "and is on already");
        loops.fill_labels(&mut labels, 0);
        assert_eq!(labels.len(), IDS.len(), "a label per lane");
        assert_eq!(loops.lane_reports(0, 7).len(), IDS.len());
        assert!(loops.leave_lanes(None, 7, 0), "lane mode ends");
        assert!(loops.lanes.is_none(), "single mode again");
        assert_eq!(loops.lane_reports(0, 7).len(), IDS.len(), "the last lane mode's reports are kept");
    }

    #[test]
    fn a_change_reaches_the_demo_session_and_every_lane() {
        let mut loops = Loops::new(demo_session(StrategyId::CatchUp), IDS.to_vec());
        loops.enter_lanes(PLAYFIELD, 0);
        loops.set_tick_rate(Rate::from_hz(120), 0);
        assert_eq!(loops.session.pacer().config().tick_rate, Rate::from_hz(120), "the paused demo's session");
        let lanes = loops.lanes.as_ref().map(|mode| {
            let sessions = (0..mode.lanes.len()).filter_map(|i| mode.lanes.session(i));
            sessions.map(|(_, session)| session.pacer().config().tick_rate).collect::<Vec<_>>()
        });
        assert_eq!(lanes, Some(vec![Rate::from_hz(120); IDS.len()]), "every lane");
    }
}
