//! `lockstep`: one fixed step per rendered frame.
//!
//! The oldest loop there is (`update(); render(); display();`). With vsync on
//! a display whose refresh equals the tick rate it is perfect: every refresh
//! shows exactly one new tick. Anywhere else the game speed is the display
//! rate: 2.4× too fast at 144 Hz, 17 % slow at 50 Hz, as fast as the GPU can
//! go with vsync off. The picture it shows is always the latest state.

use super::{AnyStrategy, FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyRow, View};
use crate::time::{Nanos, Rate};

/// `lockstep`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "lockstep",
    "one fixed step per rendered frame: perfectly smooth at refresh == tick rate, wrong speed anywhere else",
    |config| AnyStrategy::Lockstep(Lockstep::new(config)),
)
.with_source("Glaiel's article; the frame-rate answers; deWiTTERS' Game Loop")
.with_trades("the right speed wherever the refresh differs from the tick rate");

/// One step per frame.
#[derive(Debug, Clone)]
pub(crate) struct Lockstep {
    tick: Rate,
    origin: Option<Nanos>,
    done: u64,
    /// The start of the latest frame: its world is as of then, whatever
    /// `done` ticks say (they follow the frames, not the clock).
    last_now: Option<Nanos>,
}

impl Lockstep {
    /// A fresh `lockstep`.
    pub(crate) fn new(config: &StrategyConfig) -> Lockstep {
        Lockstep { tick: config.tick_rate, origin: None, done: 0, last_now: None }
    }
}

impl Strategy for Lockstep {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = Lockstep::new(config);
    }

    /// The latest frame's start: lockstep's own tick times run at the
    /// display's pace (2.4 times the clock's at 144 Hz), so they are no phase.
    fn last_tick(&self) -> Option<Nanos> {
        self.last_now
    }

    fn continue_from(&mut self, last_tick: Nanos) {
        (self.origin, self.done, self.last_now) = (Some(last_tick), 0, Some(last_tick));
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let origin = *self.origin.get_or_insert(ctx.now);
        self.done += 1;
        self.last_now = Some(self.last_now.map_or(ctx.now, |last| last.max(ctx.now)));
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(1)),
            view: View::Latest,
            // The game believes tick n happens at n periods after its start,
            // whatever the clock says; metrics show the drift.
            content_time: origin.saturating_add(self.tick.tick_time(self.done)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn every_frame_runs_exactly_one_step_whatever_the_clock_says() {
        let mut s = Lockstep::new(&StrategyConfig::default());
        for now in [0, 1, 1, 500_000_000, 3, 10_000_000_000] {
            assert_eq!(s.begin(&FrameContext { now, refresh: None }).order, Order::StepsThenRender(Steps::Fixed(1)));
        }
    }
}
