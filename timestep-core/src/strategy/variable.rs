//! `variable`: one world step of the measured frame time.
//!
//! `update(now - previous)` (Glaiel's article, the frame-rate answers, deWiTTERS' "Game Loop" loop 2). Smooth on any
//! display and no added latency, but the simulation now depends on the frame
//! rate: collisions are found at different moments, float error accumulates
//! differently (deWiTTERS' drift demo: 10.000000000000075 vs 9.9999999999998312), so
//! replays and lockstep multiplayer break. The world integrates the ball in
//! closed form so that at least free flight is frame-rate independent.
//!
//! Absurd deltas are guarded as the frame-rate answers say: a clock that did not move (or
//! ran backwards) runs no step; a delta beyond `max_variable_dt` (a suspended
//! machine, a debugger break) is replaced by one tick period.

use alloc::format;
use alloc::string::String;

use super::{AnyStrategy, FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyRow, View};
use crate::time::{Nanos, Rate, duration_to_nanos};

/// `variable`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "variable",
    "one step of the measured frame time (clamped): smooth, but physics and replays depend on frame rate",
    |config| AnyStrategy::Variable(Variable::new(config)),
)
.with_source("Glaiel's article; the frame-rate answers; deWiTTERS' Game Loop, loop 2")
.with_trades("a fixed step: physics and replays change with the frame rate")
.with_fixed_step(false);

/// One step per frame of the measured delta.
#[derive(Debug, Clone)]
pub(crate) struct Variable {
    tick: Rate,
    max_dt: Nanos,
    last_now: Option<Nanos>,
    /// Deltas replaced because they were absurd.
    guarded: u64,
}

impl Variable {
    /// A fresh `variable`.
    pub(crate) fn new(config: &StrategyConfig) -> Variable {
        Variable {
            tick: config.tick_rate,
            max_dt: duration_to_nanos(config.max_variable_dt).max(1),
            last_now: None,
            guarded: 0,
        }
    }
}

impl Strategy for Variable {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = Variable::new(config);
    }

    /// The world is stepped up to the latest frame's start.
    fn last_tick(&self) -> Option<Nanos> {
        self.last_now
    }

    fn continue_from(&mut self, last_tick: Nanos) {
        self.last_now = Some(last_tick);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let dt = match self.last_now {
            None => 0,
            Some(last) if ctx.now <= last => {
                if ctx.now < last {
                    self.guarded += 1;
                }
                0
            }
            Some(last) if ctx.now - last > self.max_dt => {
                self.guarded += 1;
                self.tick.period()
            }
            Some(last) => ctx.now - last,
        };
        let now = self.last_now.map_or(ctx.now, |l| l.max(ctx.now));
        self.last_now = Some(now);
        Plan { order: Order::StepsThenRender(Steps::Variable(dt)), view: View::Latest, content_time: now }
    }

    fn status(&self) -> String {
        format!("{} absurd deltas guarded", self.guarded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn steps(s: &mut Variable, now: Nanos) -> Steps {
        s.begin(&FrameContext { now, refresh: None }).order.steps_before_render()
    }

    #[test]
    fn each_frame_steps_by_the_measured_delta() {
        let mut s = Variable::new(&StrategyConfig::default());
        assert_eq!(steps(&mut s, 100), Steps::Variable(0));
        assert_eq!(steps(&mut s, 7_000_100), Steps::Variable(7_000_000));
        assert_eq!(steps(&mut s, 7_000_101), Steps::Variable(1));
    }

    #[test]
    fn zero_backwards_and_absurd_deltas_are_guarded() {
        let mut s = Variable::new(&StrategyConfig::default());
        steps(&mut s, 5 * NANOS_PER_SEC);
        assert_eq!(steps(&mut s, 5 * NANOS_PER_SEC), Steps::Variable(0), "zero delta");
        assert_eq!(steps(&mut s, NANOS_PER_SEC), Steps::Variable(0), "clock ran backwards");
        assert_eq!(steps(&mut s, 5 * NANOS_PER_SEC + 10_000_000), Steps::Variable(10_000_000));
        assert_eq!(steps(&mut s, 3_600 * NANOS_PER_SEC), Steps::Variable(16_666_667), "an hour becomes one tick");
        assert_eq!(s.guarded, 2);
    }
}
