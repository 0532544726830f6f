//! `catch-up`, `interpolated`, `extrapolated`: fixed steps from one exact
//! [`Backlog`], three ways to draw them.
//!
//! The fixed-step loops of Glaiel's article, "Fix Your Timestep!" and deWiTTERS' "Game Loop" step identically (as many whole
//! ticks as the clock owes, at most [`StrategyConfig::step_cap`], a stall dropped); they
//! differ only in which picture they draw between two ticks:
//!
//! ```text
//! tick n-1        tick n          now
//!    |---------------|-------+-------      leftover = now − tick n,  alpha = leftover / period
//!    previous        current |
//! Draw::Latest       current                                     depicts tick n      (catch-up)
//! Draw::Interpolate  previous + alpha·(current − previous)       depicts now − 1 tick (interpolated)
//! Draw::Extrapolate  current + velocity × min(leftover, period)  depicts now          (extrapolated)
//! ```
//!
//! - `catch-up` (Glaiel's naive timer done exactly, deWiTTERS' loop 3): right
//!   speed, but frames that straddle tick boundaries show 0 or 2 updates.
//! - `interpolated` ("Fix Your Timestep!", deWiTTERS' loop 4 with
//!   interpolation): smooth at any refresh and tick rate, at the price of
//!   exactly one tick of latency; every drawn property must be interpolable
//!   (teleports, angle wrap, spawning are the world's hazards).
//! - `extrapolated` (deWiTTERS loop 4 as written): no added latency, but a
//!   prediction: when a bounce, a wall or the player's input changes the
//!   velocity, the ball is briefly drawn inside the wall and snaps back.

use alloc::format;
use alloc::string::String;

use super::backlog::Backlog;
use super::{AnyStrategy, FrameContext, Order, Plan, Startup, Steps, Strategy, StrategyConfig, StrategyRow, View};
use crate::time::Nanos;

/// Which picture a [`FixedStep`] loop draws between ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Draw {
    /// The latest state as it is (`catch-up`).
    Latest,
    /// Between the last two states by `leftover / period` (`interpolated`).
    Interpolate,
    /// The latest state predicted `leftover` ahead, at most one tick (`extrapolated`).
    Extrapolate,
}

/// `catch-up`'s registry row.
pub(super) const CATCH_UP: StrategyRow = StrategyRow::inline(
    "catch-up",
    "fixed steps from an accumulator, latest state drawn: right speed, but 0/2-update frames stutter",
    |config| AnyStrategy::FixedStep(FixedStep::new(config, Draw::Latest)),
)
.with_source("Glaiel's naive timer; the frame-rate answers; deWiTTERS' Game Loop, loop 3")
.with_trades("smooth motion where refresh and tick differ: 0/2-update frames stutter")
.with_startup(Startup::WaitsForFirstTick);

/// `interpolated`'s registry row.
pub(super) const INTERPOLATED: StrategyRow = StrategyRow::inline(
    "interpolated",
    "fixed steps, draws between the last two states by acc/dt: smooth at any refresh, one tick of latency",
    |config| AnyStrategy::FixedStep(FixedStep::new(config, Draw::Interpolate)),
)
.with_source("Fiedler's Fix Your Timestep!; the frame-rate answers; deWiTTERS' Game Loop, loop 4")
.with_trades("one tick of latency")
.with_startup(Startup::WaitsForFirstTick);

/// `extrapolated`'s registry row.
pub(super) const EXTRAPOLATED: StrategyRow = StrategyRow::inline(
    "extrapolated",
    "fixed steps, draws current + velocity × leftover time: no added latency, overshoots at bounces",
    |config| AnyStrategy::FixedStep(FixedStep::new(config, Draw::Extrapolate)),
)
.with_source("the frame-rate answers; deWiTTERS' Game Loop, loop 4")
.with_trades("accuracy at bounces and turns: it overshoots");

/// Fixed steps from an exact backlog, drawn as [`Draw`] says.
#[derive(Debug, Clone)]
pub(crate) struct FixedStep {
    backlog: Backlog,
    draw: Draw,
}

impl FixedStep {
    /// A fresh fixed-step loop drawing `draw`.
    pub(crate) fn new(config: &StrategyConfig, draw: Draw) -> FixedStep {
        FixedStep { backlog: Backlog::new(config), draw }
    }
}

impl Strategy for FixedStep {
    fn reset(&mut self, config: &StrategyConfig) {
        self.backlog = Backlog::new(config);
    }

    fn last_tick(&self) -> Option<Nanos> {
        self.backlog.last_tick()
    }

    fn continue_from(&mut self, last_tick: Nanos) {
        self.backlog.continue_from(last_tick);
    }

    #[inline]
    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let steps = Order::StepsThenRender(Steps::Fixed(self.backlog.advance(ctx.now)));
        let b = &self.backlog;
        let (view, content_time) = match self.draw {
            Draw::Latest => (View::Latest, b.latest_time()),
            Draw::Interpolate => {
                let alpha = b.alpha();
                (View::Interpolate { alpha }, b.time_at(alpha))
            }
            Draw::Extrapolate => {
                // After a capped frame the leftover can exceed a tick; predicting
                // further than one tick only makes the overshoot worse.
                let ahead = b.leftover().min(b.tick().period());
                (View::Extrapolate { ahead }, b.latest_time() + ahead)
            }
        };
        Plan { order: steps, view, content_time }
    }

    fn status(&self) -> String {
        let b = &self.backlog;
        match self.draw {
            Draw::Latest => format!("backlog {:.2} ticks, {} dropped", b.alpha(), b.drops()),
            Draw::Interpolate => format!("alpha {:.2}, {} backlog drops", b.alpha(), b.drops()),
            Draw::Extrapolate => format!("predicting {:.2} ms ahead", b.leftover() as f64 / 1e6),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::StrategyId;
    use crate::time::{Nanos, Rate};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn begin(s: &mut FixedStep, now: Nanos) -> Plan {
        s.begin(&FrameContext { now, refresh: None })
    }

    fn steps(n: u32) -> Order {
        Order::StepsThenRender(Steps::Fixed(n))
    }

    #[test]
    fn each_draw_is_its_own_strategy() {
        for (draw, id) in [
            (Draw::Latest, StrategyId::CatchUp),
            (Draw::Interpolate, StrategyId::Interpolated),
            (Draw::Extrapolate, StrategyId::Extrapolated),
        ] {
            let built = id.build(&StrategyConfig::default());
            assert!(
                matches!(built, AnyStrategy::FixedStep(FixedStep { draw: d, .. }) if d == draw),
                "{id} draws {draw:?}"
            );
        }
    }

    #[test]
    fn first_frame_runs_no_step_and_later_frames_run_due_ticks() {
        let mut s = FixedStep::new(&StrategyConfig::default(), Draw::Latest);
        assert_eq!(begin(&mut s, 1_000).order, steps(0));
        // Exactly one 60 Hz tick later (16_666_666 ns, floored) one step is due.
        assert_eq!(begin(&mut s, 1_000 + 16_666_666).order, steps(1));
        assert_eq!(begin(&mut s, 1_000 + 16_666_666 + 1).order, steps(0));
        // Three ticks: 50_000_000 ns exactly.
        assert_eq!(begin(&mut s, 1_000 + 50_000_000).order, steps(2));
    }

    #[test]
    fn the_three_draws_step_alike() {
        let config = StrategyConfig { max_steps: 3, ..StrategyConfig::default() };
        let clock = [0, 5_000_000, 40_000_000, 41_000_000, 200_000_000, 200_000_000, 90_000_000, 11_000_000_000];
        let run = |draw| {
            let mut s = FixedStep::new(&config, draw);
            clock.map(|now| begin(&mut s, now).order)
        };
        let latest = run(Draw::Latest);
        // 200 ms owes 12 ticks, 3 a frame; 90 ms is a clock gone backwards
        // (read as 200 ms); 11 s is a stall, dropped.
        assert_eq!(latest, [0, 0, 2, 0, 3, 3, 3, 0].map(steps));
        assert_eq!(run(Draw::Interpolate), latest);
        assert_eq!(run(Draw::Extrapolate), latest);
    }

    #[test]
    fn latest_depicts_the_latest_tick() {
        let mut s = FixedStep::new(&StrategyConfig::default(), Draw::Latest);
        begin(&mut s, 7);
        let plan = begin(&mut s, 7 + 40_000_000);
        assert_eq!(plan.order, steps(2));
        assert_eq!(plan.view, View::Latest);
        assert_eq!(plan.content_time, 7 + 33_333_333);
    }

    #[test]
    fn interpolate_draws_the_leftover_fraction_of_a_tick() {
        let config = StrategyConfig { tick_rate: Rate::from_hz(100), ..Default::default() };
        let mut s = FixedStep::new(&config, Draw::Interpolate);
        begin(&mut s, 0);
        let plan = begin(&mut s, 12_500_000);
        assert_eq!(plan.order, steps(1));
        assert_eq!(plan.view, View::Interpolate { alpha: 0.25 });
        assert_eq!(plan.content_time, 2_500_000, "the picture is one tick behind the clock");
    }

    #[test]
    fn interpolate_depicts_the_clock_minus_one_tick() {
        let mut s = FixedStep::new(&StrategyConfig::default(), Draw::Interpolate);
        begin(&mut s, 1_000);
        for now in [1_000 + 20_000_000, 1_000 + 37_000_000, 1_000 + 51_000_000] {
            let plan = begin(&mut s, now);
            let lag = now - plan.content_time;
            assert!(lag.abs_diff(16_666_667) <= 1, "lag {lag} ns at {now}");
        }
    }

    #[test]
    fn extrapolate_predicts_the_picture_to_the_clock() {
        let mut s = FixedStep::new(&StrategyConfig::default(), Draw::Extrapolate);
        begin(&mut s, 0);
        let plan = begin(&mut s, 20_000_000);
        assert_eq!(plan.order, steps(1));
        assert_eq!(plan.view, View::Extrapolate { ahead: 20_000_000 - 16_666_666 });
        assert_eq!(plan.content_time, 20_000_000);
    }

    #[test]
    fn extrapolate_predicts_at_most_one_tick_after_a_capped_frame() {
        let config = StrategyConfig { max_steps: 1, ..StrategyConfig::default() };
        let mut s = FixedStep::new(&config, Draw::Extrapolate);
        begin(&mut s, 0);
        let plan = begin(&mut s, 50_000_000);
        assert_eq!(plan.order, steps(1), "three ticks owed, one allowed");
        assert_eq!(plan.view, View::Extrapolate { ahead: 16_666_667 });
    }
}
