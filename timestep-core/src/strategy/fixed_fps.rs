//! `fixed-fps`: step, render, then sleep until the next tick.
//!
//! deWiTTERS' "Game Loop", loop 1:
//!
//! ```text
//! next_tick = now
//! loop { update(); display(); next_tick += period; sleep(next_tick - now) }
//! ```
//!
//! The frame rate *is* the tick rate. On a fast machine the spare time is
//! slept away (no vsync needed); on a slow one the sleep is negative, frames
//! run back to back and the game runs behind (it catches up only as fast as
//! frames can go). `next_tick` is `origin + tick_time(n)`, so the schedule does
//! not drift. A frame that starts or ends later than the lag limit
//! ([`StrategyConfig::lag_limit`]) behind its tick restarts the schedule at
//! the clock: a stall between frames is dropped, not replayed frame by frame.

use alloc::format;
use alloc::string::String;

use super::{AnyStrategy, FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyRow, View, Wake};
use crate::time::{Nanos, Rate};

/// `fixed-fps`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "fixed-fps",
    "step, render, then sleep until the next tick: right speed on fast machines, slows down on slow ones",
    |config| AnyStrategy::FixedFps(FixedFps::new(config)),
)
.with_source("deWiTTERS' Game Loop, loop 1")
.with_trades("the right speed when a frame misses its tick, and the display's own rhythm")
.with_paces_itself(true);

/// One step per frame, frames scheduled on the tick grid.
#[derive(Debug, Clone)]
pub(crate) struct FixedFps {
    tick: Rate,
    lag_limit: Nanos,
    origin: Option<Nanos>,
    /// Ticks scheduled since `origin`.
    n: u64,
    late_frames: u64,
}

impl FixedFps {
    /// A fresh `fixed-fps`.
    pub(crate) fn new(config: &StrategyConfig) -> FixedFps {
        FixedFps { tick: config.tick_rate, lag_limit: config.lag_limit_nanos(), origin: None, n: 0, late_frames: 0 }
    }
}

impl Strategy for FixedFps {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = FixedFps::new(config);
    }

    /// The state of the step the last frame ran: `n` ticks after the origin
    /// (a frame runs the step to its next tick when it starts).
    fn last_tick(&self) -> Option<Nanos> {
        self.origin.map(|origin| origin.saturating_add(self.tick.tick_time(self.n)))
    }

    fn continue_from(&mut self, last_tick: Nanos) {
        (self.origin, self.n) = (Some(last_tick), 0);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let mut origin = *self.origin.get_or_insert(ctx.now);
        // Measured from the tick this frame was due at: judged only at the
        // frame's end against the next tick, a stall could exceed the lag
        // limit by up to a tick and still be replayed.
        if ctx.now.saturating_sub(origin.saturating_add(self.tick.tick_time(self.n))) > self.lag_limit {
            self.late_frames += 1;
            origin = ctx.now;
            self.origin = Some(origin);
            self.n = 0;
        }
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(1)),
            view: View::Latest,
            content_time: origin.saturating_add(self.tick.tick_time(self.n + 1)),
        }
    }

    fn end(&mut self, now: Nanos) -> Wake {
        let Some(origin) = self.origin else {
            return Wake::default();
        };
        self.n += 1;
        let next = origin.saturating_add(self.tick.tick_time(self.n));
        if now > next {
            self.late_frames += 1;
            if now - next > self.lag_limit {
                self.origin = Some(now);
                self.n = 0;
                return Wake { at: Some(now) };
            }
        }
        Wake { at: Some(next) }
    }

    fn status(&self) -> String {
        format!("{} frames ran late", self.late_frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn frames_are_scheduled_on_the_exact_tick_grid() {
        let mut s = FixedFps::new(&StrategyConfig::default());
        let mut now = 3;
        for n in 1..=180u64 {
            assert_eq!(s.begin(&FrameContext { now, refresh: None }).order, Order::StepsThenRender(Steps::Fixed(1)));
            let wake = s.end(now + 2_000_000).at.unwrap();
            assert_eq!(wake, 3 + Rate::from_hz(60).tick_time(n), "tick {n}");
            now = wake;
        }
        assert_eq!(now, 3 + 3_000_000_000, "180 ticks at 60 Hz are exactly 3 s");
    }

    #[test]
    fn a_late_frame_wakes_immediately_and_runs_behind() {
        let mut s = FixedFps::new(&StrategyConfig::default());
        s.begin(&FrameContext { now: 0, refresh: None });
        let wake = s.end(40_000_000).at.unwrap();
        assert_eq!(wake, 16_666_666, "the schedule is kept, the frame is late");
        assert_eq!(s.late_frames, 1);
    }

    #[test]
    fn a_stall_just_over_the_lag_limit_restarts_the_schedule_at_the_next_frame() {
        // 1 Hz, max_steps 1: lag limit 3 s. The frame due at 1 s starts at 4 s + 1 ns.
        let config = StrategyConfig { tick_rate: Rate::from_hz(1), max_steps: 1, ..StrategyConfig::default() };
        let mut s = FixedFps::new(&config);
        s.begin(&FrameContext { now: 0, refresh: None });
        assert_eq!(s.end(500_000_000).at, Some(1_000_000_000));
        let late = 4_000_000_001;
        let plan = s.begin(&FrameContext { now: late, refresh: None });
        assert_eq!(plan.content_time, late + 1_000_000_000, "tick 1 of the new schedule");
        assert_eq!(s.end(late + 500_000_000).at, Some(late + 1_000_000_000), "no replay of the 3 s");
        assert_eq!(s.late_frames, 1);
    }

    #[test]
    fn a_stall_of_exactly_the_lag_limit_is_kept_and_run_behind() {
        let config = StrategyConfig { tick_rate: Rate::from_hz(1), max_steps: 1, ..StrategyConfig::default() };
        let mut s = FixedFps::new(&config);
        s.begin(&FrameContext { now: 0, refresh: None });
        s.end(500_000_000);
        s.begin(&FrameContext { now: 4_000_000_000, refresh: None });
        assert_eq!(s.end(4_500_000_000).at, Some(2_000_000_000), "the schedule is kept, the frame is late");
    }
}
