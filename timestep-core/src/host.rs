//! A frame through a host: one loop shape for a window and the simulator alike.
//!
//! ```text
//! frame:  now ─► strategy.begin ─► [steps] ─► render(view) ─► present ─► [steps] ─► strategy.end ─► wake
//!                                  ^ Order::StepsThenRender              ^ Order::RenderThenSteps (paced)
//! ```
//!
//! [`crate::Pacer::run_host_frame`] runs one such frame: the pacer decides,
//! as it does for a game's own loop; the world ([`Simulation`]) and the
//! platform ([`FrameHost`]) are passed in. A host is what differs between a
//! window and the virtual monitor: a window's host reads the real clock,
//! draws and presents to a surface; the simulator's host reads a
//! manual clock and charges modelled costs to it. Neither the pacer nor the
//! strategies sleep: the caller waits until [`FrameReport::wake`].

use core::time::Duration;

use crate::strategy::{AnyStrategy, FrameContext, Plan, Steps, StrategyConfig, StrategyId, View, Wake};
use crate::time::{Nanos, Rate, TickStep, nanos_as_f64, nanos_to_duration, round_to_nanos};
use crate::vrr::VrrRange;

/// Something that can be advanced by a simulation step.
pub trait Simulation {
    /// Advances the world by `dt` nanoseconds (a tick period for fixed
    /// steps, the measured delta for `variable`).
    fn step(&mut self, dt: Nanos);
}

impl<S: Simulation + ?Sized> Simulation for &mut S {
    fn step(&mut self, dt: Nanos) {
        (**self).step(dt);
    }
}

/// The platform side of a frame.
pub trait FrameHost<W> {
    /// The clock now.
    fn now(&mut self) -> Nanos;

    /// Called after every simulation step (the simulator charges the update's
    /// cost to its clock here).
    fn after_step(&mut self) {}

    /// Draws `world` as `view` says. Must not change the world.
    fn render(&mut self, world: &W, view: View);

    /// Shows the rendered frame; returns the (best known) time it became
    /// visible: the vblank in the simulator, the present's return in the window.
    fn present(&mut self) -> Nanos;

    /// Holds the coming present until `t` on the host's clock: the strategy
    /// drew the picture for that display time (`auto` on a VRR display,
    /// where a frame is shown when it is presented). A host that cannot
    /// hold presents at once.
    fn hold_until(&mut self, _t: Nanos) {}

    /// After [`FrameHost::present`]: the refreshes since the previous present
    /// that showed the previous picture again (a VRR panel's self-refreshes),
    /// where the host knows them. On a refresh grid the metrics count those
    /// from the grid: 0.
    fn repeats(&mut self) -> u32 {
        0
    }
}

/// What happened in one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct FrameReport {
    /// The frame's number, from 1 (what a display's feedback on its present names).
    pub frame: u64,
    /// Clock at the start of the frame.
    pub start: Nanos,
    /// World updates run in this frame.
    pub updates: u32,
    /// Updates whose results first appear in this frame's picture: the ones
    /// run before it was rendered, plus, after a render-first frame (`paced`),
    /// the ones that frame ran after its present. The update pattern counts these.
    pub shown_updates: u32,
    /// What was drawn.
    pub view: View,
    /// The time the drawn picture depicts, in the strategy's game time: for
    /// interpolation at alpha 0.25, the previous tick's time plus a quarter tick.
    pub content_time: Nanos,
    /// When the input behind the drawn picture was read: the clock at the
    /// start of the update that produced the depicted state; for a picture
    /// between ticks k−1 and k at proportion α, `I(k−1) + α·(I(k) − I(k−1))`;
    /// for one drawn beyond tick k (latest, extrapolated), `I(k)`. Before the
    /// first update, the start of the driver's first frame. Latency is
    /// `display_time − input_time`.
    pub input_time: Nanos,
    /// When the frame became visible, as the host reported it.
    pub display_time: Nanos,
    /// Refreshes before it that repeated the previous picture, as the host
    /// reported them ([`FrameHost::repeats`]: a VRR panel's self-refreshes).
    pub repeats: u32,
    /// Clock after the last step of the frame.
    pub end: Nanos,
    /// When the next frame should start.
    pub wake: Wake,
}

/// Game time bookkeeping that survives tick-rate changes without drift:
/// whole ticks at the current rate are converted exactly, earlier rates are
/// folded into `base` once, when the rate changes.
///
/// The sum and the tick period are kept, not computed when asked: the
/// simulator asks for the game time three times a frame and for the period
/// once, each a `u64` division (3 % of a simulated frame's instructions).
/// The time of the next tick comes from the last one's quotient and
/// remainder, without a division (the division was 5 % of a pacer's frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct GameTime {
    base: Nanos,
    rate: Rate,
    ticks_at_rate: u64,
    /// `rate.period()`, and as a `Duration` (every frame of a game hands it out).
    period: Nanos,
    period_duration: Duration,
    /// The remainder of `rate.tick_time(ticks_at_rate)`'s division
    /// (`ticks_at_rate · den · 10⁹ / num`, floored).
    rem: u64,
    /// One tick's `den · 10⁹` and its quotient and remainder by `num`, where
    /// they and the sum of two remainders fit in 64 bits (every supported
    /// rate); `None`: each tick time is divided out.
    step: Option<TickStep>,
    /// `base + rate.tick_time(ticks_at_rate)`. A step of one tick moves it
    /// on as it would the tick time alone (the tick time is not kept: a
    /// game's frame stored it and added `base` again, 5 instructions).
    now: Nanos,
}

impl GameTime {
    fn new(rate: Rate) -> GameTime {
        let step = TickStep::of(rate);
        let period = rate.period();
        let period_duration = nanos_to_duration(period);
        GameTime { base: 0, rate, ticks_at_rate: 0, period, period_duration, rem: 0, step, now: 0 }
    }

    fn now(&self) -> Nanos {
        self.now
    }

    /// `n` more whole ticks at the current rate.
    #[inline(always)] // Out of line (LLVM's choice) it cost a game's frame 20 more instructions.
    fn add_ticks(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.ticks_at_rate = self.ticks_at_rate.saturating_add(n);
        match self.step {
            Some(step) if n == 1 => (self.now, self.rem) = step.next(self.now, self.rem),
            Some(step) => {
                let (at_rate, rem) = step.at(self.ticks_at_rate);
                self.rem = rem;
                self.now = self.base.saturating_add(at_rate);
            }
            None => self.now = self.base.saturating_add(self.rate.tick_time(self.ticks_at_rate)),
        }
    }

    /// A variable step of `dt`.
    fn add(&mut self, dt: Nanos) {
        self.base = self.base.saturating_add(dt);
        self.now = self.now.saturating_add(dt);
    }

    /// Ticks from now on are at `rate`; those so far are folded into `base`.
    fn set_rate(&mut self, rate: Rate) {
        *self = GameTime { base: self.now, ..GameTime::new(rate) };
        self.now = self.base;
    }
}

/// The strategy and its bookkeeping under a [`crate::Pacer`]: game time,
/// update counts, input times, the step limit. The pacer decides when (its
/// clock, time scale and frame limit); the driver keeps what was decided.
#[derive(Clone, Debug)]
pub(crate) struct FrameDriver {
    id: StrategyId,
    config: StrategyConfig,
    strategy: AnyStrategy,
    refresh: Option<Rate>,
    /// The display's VRR range, declared or detected (`None`: a grid, or unknown).
    vrr: Option<VrrRange>,
    /// What strategies are told the refresh is: `refresh`, else a VRR
    /// panel's maximum (what its monitor reports as its mode). Kept, not
    /// derived each frame: the simulator's frames are a few hundred instructions.
    told_refresh: Option<Rate>,
    game: GameTime,
    updates: u64,
    step_limit: Option<u64>,
    /// Updates run after the last present, not yet in any picture.
    unshown: u32,
    /// Input times of the two latest updates: see [`InputTimes`].
    inputs: InputTimes,
}

/// The clock at the start of the two latest updates (when each read its
/// input), for [`FrameReport::input_time`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct InputTimes {
    /// Input time of the state before the latest (what alpha 0 depicts).
    previous: Option<Nanos>,
    /// Input time of the latest state.
    latest: Option<Nanos>,
}

impl InputTimes {
    #[inline]
    fn record(&mut self, at: Nanos) {
        self.previous = self.latest.or(Some(at));
        self.latest = Some(at);
    }

    /// Seeds both with the first frame's start: the initial state counts as
    /// read when the loop began.
    #[inline]
    fn start(&mut self, at: Nanos) {
        if self.latest.is_none() {
            self.previous = Some(at);
            self.latest = Some(at);
        }
    }

    /// The input time of what `view` draws.
    fn of(&self, view: View) -> Nanos {
        let latest = self.latest.unwrap_or(0);
        match view {
            View::Latest | View::Extrapolate { .. } => latest,
            View::Interpolate { alpha } => {
                let previous = self.previous.unwrap_or(latest);
                let span = nanos_as_f64(latest.saturating_sub(previous));
                previous + round_to_nanos(span * alpha.clamp(0.0, 1.0))
            }
        }
    }
}

impl FrameDriver {
    /// A driver running strategy `id`.
    pub(crate) fn new(id: StrategyId, config: StrategyConfig) -> FrameDriver {
        FrameDriver {
            id,
            config,
            strategy: id.build(&config),
            refresh: None,
            vrr: None,
            told_refresh: None,
            game: GameTime::new(config.tick_rate),
            updates: 0,
            step_limit: None,
            unshown: 0,
            inputs: InputTimes::default(),
        }
    }

    /// The active strategy.
    pub(crate) fn strategy_id(&self) -> StrategyId {
        self.id
    }

    /// The active strategy's state machine (for its status line).
    pub(crate) fn strategy(&self) -> &AnyStrategy {
        &self.strategy
    }

    /// The configuration strategies are built from.
    pub(crate) fn config(&self) -> &StrategyConfig {
        &self.config
    }

    /// Switches strategy. The world is untouched, and so is the tick phase:
    /// the new strategy's next tick falls due a period after the old one's
    /// latest, so the switch neither loses nor repeats game time.
    /// The phase kept is within a tick of `now` (the game time of the latest
    /// frame): what the old strategy owed beyond that (a backlog it was
    /// dropping) is not replayed, and what it ran ahead (`paced`) is not
    /// waited out.
    pub(crate) fn set_strategy(&mut self, id: StrategyId, now: Nanos) {
        let last_tick = self.strategy.last_tick();
        self.id = id;
        self.strategy = id.build(&self.config);
        if let Some(last_tick) = last_tick {
            let period = self.game.period;
            self.strategy.continue_from(last_tick.clamp(now.saturating_sub(period), now.saturating_add(period)));
        }
        self.strategy.set_vrr(self.vrr);
    }

    /// Forgets all timing state: the next frame starts the clock afresh.
    pub(crate) fn resync(&mut self) {
        self.strategy.reset(&self.config);
        self.strategy.set_vrr(self.vrr);
    }

    /// Changes the tick rate (resets the strategy's timing state).
    pub(crate) fn set_tick_rate(&mut self, rate: Rate) {
        self.game.set_rate(rate);
        self.config.tick_rate = rate;
        self.strategy.reset(&self.config);
        self.strategy.set_vrr(self.vrr);
    }

    /// Tells strategies the display's refresh rate (or that it is unknown).
    pub(crate) fn set_refresh(&mut self, refresh: Option<Rate>) {
        self.refresh = refresh;
        self.told_refresh = refresh.or(self.vrr.map(|v| v.max()));
    }

    /// The display refresh rate the strategies are told (`None`: unknown).
    pub(crate) fn refresh(&self) -> Option<Rate> {
        self.refresh
    }

    /// Tells strategies the display is a VRR panel with this range (`None`: it is not, or nobody knows).
    pub(crate) fn set_vrr(&mut self, vrr: Option<VrrRange>) {
        if vrr != self.vrr {
            self.vrr = vrr;
            self.told_refresh = self.refresh.or(vrr.map(|v| v.max()));
            self.strategy.set_vrr(vrr);
        }
    }

    /// Whether the strategies were told of a VRR display.
    pub(crate) fn has_vrr(&self) -> bool {
        self.vrr.is_some()
    }

    /// The VRR range the strategies are told.
    pub(crate) fn vrr(&self) -> Option<VrrRange> {
        self.vrr
    }

    /// The frame's picture is rendered at `now` (game time), before any hold.
    pub(crate) fn rendered(&mut self, now: Nanos) {
        self.strategy.rendered(now);
    }

    /// When (game time) the frame's present should go out, if the strategy planned its display time.
    pub(crate) fn present_at(&self) -> Option<Nanos> {
        self.strategy.present_at()
    }

    /// Stops stepping once this many updates have run in total (so a
    /// determinism check can compare worlds at exactly tick N).
    #[cfg(any(test, feature = "monitor"))]
    pub(crate) fn set_step_limit(&mut self, limit: Option<u64>) {
        self.step_limit = limit;
    }

    /// World updates run so far.
    pub(crate) fn updates(&self) -> u64 {
        self.updates
    }

    /// Simulated time so far: fixed steps at their exact tick times plus the
    /// sum of variable steps.
    pub(crate) fn game_time(&self) -> Nanos {
        self.game.now()
    }

    /// The start of a frame at `now` (game time): the strategy's plan.
    #[inline]
    pub(crate) fn begin(&mut self, now: Nanos) -> Plan {
        self.strategy.begin(&FrameContext { now, refresh: self.told_refresh })
    }

    /// The start of a hosted frame at `now`: the first one seeds the input
    /// times ([`FrameReport::input_time`], which only a host's frames report).
    pub(crate) fn start_inputs(&mut self, now: Nanos) {
        self.inputs.start(now);
    }

    /// After a render-first frame's present at `now`: the steps to run now.
    #[inline]
    pub(crate) fn after_render(&mut self, now: Nanos) -> Steps {
        self.strategy.after_render(now)
    }

    /// The end of a frame at `now`: when the next one should start.
    #[inline]
    pub(crate) fn end(&mut self, now: Nanos) -> Wake {
        self.strategy.end(now)
    }

    /// Counts `steps` that a caller runs itself, up to the step limit;
    /// returns the steps it may run. Their input times are not kept: a game
    /// reads its own input, and only a host's frames report it.
    #[inline(always)] // LLVM kept it out of line: 47 instructions a game's frame.
    pub(crate) fn count_steps(&mut self, steps: Steps) -> Steps {
        let steps = match (self.step_limit, steps) {
            (None, steps) => steps,
            (Some(limit), Steps::Fixed(n)) => {
                let allowed = limit.saturating_sub(self.updates);
                Steps::Fixed(u32::try_from(allowed).unwrap_or(u32::MAX).min(n))
            }
            (Some(limit), Steps::Variable(_)) if self.updates >= limit => Steps::Variable(0),
            (Some(_), variable) => variable,
        };
        self.updates += u64::from(steps.count());
        match steps {
            Steps::Fixed(n) => self.game.add_ticks(u64::from(n)),
            Steps::Variable(dt) => self.game.add(dt),
        }
        steps
    }

    /// The length of one fixed step as the world is told it (the rounded period).
    #[inline]
    pub(crate) fn step_duration(&self) -> Duration {
        self.game.period_duration
    }

    /// The input time of what `view` draws (see [`FrameReport::input_time`]).
    pub(crate) fn input_time(&self, view: View) -> Nanos {
        self.inputs.of(view)
    }

    /// Updates run after the last present, not yet in any picture.
    pub(crate) fn unshown(&self) -> u32 {
        self.unshown
    }

    /// Sets the updates not yet in any picture (a frame's updates after its present).
    pub(crate) fn set_unshown(&mut self, updates: u32) {
        self.unshown = updates;
    }

    /// Runs `steps` on `world`, one at a time, each reading its input at the
    /// host's clock and followed by [`FrameHost::after_step`], up to the step
    /// limit; returns how many ran.
    pub(crate) fn run_steps<W: Simulation, H: FrameHost<W>>(
        &mut self,
        steps: Steps,
        world: &mut W,
        host: &mut H,
    ) -> u32 {
        let allowed = |done: u64| self.step_limit.is_none_or(|limit| done < limit);
        match steps {
            Steps::Fixed(n) => {
                let dt = self.game.period;
                let mut ran = 0;
                for _ in 0..n {
                    if !allowed(self.updates) {
                        break;
                    }
                    self.inputs.record(host.now());
                    world.step(dt);
                    self.updates += 1;
                    ran += 1;
                    host.after_step();
                }
                self.game.add_ticks(u64::from(ran));
                ran
            }
            Steps::Variable(0) => 0,
            Steps::Variable(dt) => {
                if !allowed(self.updates) {
                    return 0;
                }
                self.inputs.record(host.now());
                world.step(dt);
                self.updates += 1;
                self.game.add(dt);
                host.after_step();
                1
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pacer;
    use crate::time::{Clock, ManualClock};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// Records what happened, in order; each step and render costs 1 ms.
    #[derive(Default)]
    struct Log {
        steps: Vec<Nanos>,
    }

    impl Simulation for Log {
        fn step(&mut self, dt: Nanos) {
            self.steps.push(dt);
        }
    }

    struct Host {
        clock: ManualClock,
        events: Vec<&'static str>,
    }

    impl FrameHost<Log> for Host {
        fn now(&mut self) -> Nanos {
            self.clock.now()
        }
        fn after_step(&mut self) {
            self.events.push("step");
            self.clock.advance_by(1_000_000);
        }
        fn render(&mut self, _world: &Log, _view: View) {
            self.events.push("render");
            self.clock.advance_by(1_000_000);
        }
        fn present(&mut self) -> Nanos {
            self.events.push("present");
            self.clock.now()
        }
    }

    fn host() -> Host {
        Host { clock: ManualClock::starting_at(0), events: Vec::new() }
    }

    #[test]
    fn game_time_adds_ticks_without_dividing_and_gets_the_divided_times() {
        let rates = [
            Rate::from_hz(60),
            Rate::new(60000, 1001).unwrap(),
            Rate::from_hz(144),
            Rate::from_hz(1),
            Rate::from_hz(1000),
            Rate::new(7, 3).unwrap(),
            Rate::new(999_999_999_999, 1_000_000_001).unwrap(),
            // den · 10⁹ beyond 64 bits: every tick time is divided out.
            Rate::new(2 * 18_446_744_074 + 1, 18_446_744_074).unwrap(),
        ];
        for rate in rates {
            let mut game = GameTime::new(rate);
            let mut ticks = 0;
            for (k, n) in [1, 1, 2, 1, 0, 17, 1, 1, 1, 300, 1].into_iter().cycle().take(2_000).enumerate() {
                game.add_ticks(n);
                ticks += n;
                assert_eq!(game.now(), rate.tick_time(ticks), "{rate}: tick {ticks} (add {k})");
            }
            game.add(5);
            assert_eq!(game.now(), 5 + rate.tick_time(ticks), "{rate}: a variable step adds to the ticks");
            for n in [1, 1, 3, 1] {
                game.add_ticks(n);
                ticks += n;
                assert_eq!(game.now(), 5 + rate.tick_time(ticks), "{rate}: tick {ticks} after the variable step");
            }
        }
    }

    #[test]
    fn steps_run_before_render_for_ordinary_strategies() {
        let mut pacer = Pacer::with_config(StrategyId::CatchUp, StrategyConfig::default());
        let (mut world, mut host) = (Log::default(), host());
        pacer.run_host_frame(&mut world, &mut host);
        host.clock.advance_to(40_000_000);
        host.events.clear();
        let report = pacer.run_host_frame(&mut world, &mut host);
        assert_eq!(report.updates, 2);
        assert_eq!(host.events, ["step", "step", "render", "present"]);
        assert_eq!(world.steps, [16_666_667, 16_666_667], "fixed steps pass the rounded period");
    }

    #[test]
    fn paced_renders_and_presents_before_it_steps() {
        let config = StrategyConfig { tick_rate: Rate::from_hz(200), ..StrategyConfig::default() };
        let mut pacer = Pacer::with_config(StrategyId::Paced, config);
        pacer.set_refresh(Some(Rate::new(125, 2).unwrap()));
        let (mut world, mut host) = (Log::default(), host());
        let report = pacer.run_host_frame(&mut world, &mut host);
        assert_eq!(&host.events[..2], ["render", "present"]);
        assert_eq!(report.updates, 4, "simulates just past the 16 ms frame end");
        assert_eq!(report.shown_updates, 0, "the first picture shows none of them");
        assert_eq!(report.wake.at, Some(16_000_000));
        host.clock.advance_to(16_000_000);
        let report = pacer.run_host_frame(&mut world, &mut host);
        assert_eq!((report.updates, report.shown_updates), (3, 4), "the second picture shows the first four");
    }

    #[test]
    fn input_time_is_when_the_depicted_update_read_its_input() {
        let mut pacer = Pacer::with_config(StrategyId::CatchUp, StrategyConfig::default());
        let (mut world, mut host) = (Log::default(), host());
        let first = pacer.run_host_frame(&mut world, &mut host);
        assert_eq!(first.input_time, 0, "the initial state counts as read at the first frame's start");
        host.clock.advance_to(40_000_000);
        let report = pacer.run_host_frame(&mut world, &mut host);
        assert_eq!(report.updates, 2, "steps at 40 ms and 41 ms (each costs 1 ms)");
        assert_eq!(report.input_time, 41_000_000, "the latest state read its input at 41 ms");
    }

    #[test]
    fn an_interpolated_picture_has_the_interpolated_input_time() {
        let mut pacer = Pacer::with_config(StrategyId::Interpolated, StrategyConfig::default());
        let (mut world, mut host) = (Log::default(), host());
        pacer.run_host_frame(&mut world, &mut host);
        host.clock.advance_to(40_000_000);
        let report = pacer.run_host_frame(&mut world, &mut host);
        // Two ticks due (33.3 ms), 6.67 ms left over: alpha 0.4 between the
        // steps that read input at 40 ms and 41 ms.
        assert_eq!(report.view, View::Interpolate { alpha: 6_666_667.0 / 16_666_667.0 });
        assert_eq!(report.input_time, 40_400_000);
    }

    #[test]
    fn the_step_limit_stops_a_frame_at_exactly_n_updates() {
        let mut pacer = Pacer::with_config(StrategyId::CatchUp, StrategyConfig::default());
        pacer.driver_mut().set_step_limit(Some(3));
        let (mut world, mut host) = (Log::default(), host());
        pacer.run_host_frame(&mut world, &mut host);
        host.clock.advance_to(100_000_000);
        let report = pacer.run_host_frame(&mut world, &mut host);
        assert_eq!(report.updates, 3);
        assert_eq!(pacer.total_updates(), 3);
    }

    #[test]
    fn game_time_survives_tick_rate_changes_without_drift() {
        let mut pacer = Pacer::with_config(StrategyId::Lockstep, StrategyConfig::default());
        let (mut world, mut host) = (Log::default(), host());
        for _ in 0..60 {
            pacer.run_host_frame(&mut world, &mut host);
        }
        pacer.driver_mut().set_tick_rate(Rate::from_hz(144));
        for _ in 0..144 {
            pacer.run_host_frame(&mut world, &mut host);
        }
        assert_eq!(pacer.driver().game_time(), 2_000_000_000, "60 ticks at 60 Hz + 144 at 144 Hz = 2 s exactly");
    }

    #[test]
    fn switching_strategy_keeps_counters_and_game_time() {
        let mut pacer = Pacer::with_config(StrategyId::Lockstep, StrategyConfig::default());
        let (mut world, mut host) = (Log::default(), host());
        pacer.run_host_frame(&mut world, &mut host);
        pacer.set_strategy(StrategyId::Variable);
        assert_eq!(pacer.strategy(), StrategyId::Variable);
        assert_eq!(pacer.total_updates(), 1);
        assert_eq!(pacer.driver().game_time(), 16_666_666);
    }
}
