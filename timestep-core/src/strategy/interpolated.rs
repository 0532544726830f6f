//! `interpolated`: fixed steps, the picture drawn between the last two states.
//!
//! "Fix Your Timestep" (seed 001), seed 002's decoupled loop, deWiTTERS loop 4
//! done with interpolation instead of prediction. Steps come from the same
//! exact [`Backlog`] as `catch-up`; the renderer draws
//! `lerp(previous, current, alpha)` with `alpha = leftover / period`:
//!
//! ```text
//! tick n-1        tick n          now
//!    |---------------|-------+-------      alpha = (now - tick n) / period
//!    previous        current |
//!                    drawn: previous + alpha·(current - previous)  = state at now − 1 tick
//! ```
//!
//! Smooth at any refresh rate and any tick rate, at the price of exactly one
//! tick of added latency, and every drawn property must be interpolable
//! (teleports, angle wrap, spawning are the world's hazards).

use super::catch_up::Backlog;
use super::{FrameContext, Plan, Steps, Strategy, StrategyConfig, StrategyId, StrategyInfo, View};

/// Fixed steps with an interpolated picture.
#[derive(Debug, Clone)]
pub struct Interpolated {
    backlog: Backlog,
}

impl Interpolated {
    /// A fresh `interpolated`.
    pub fn new(config: &StrategyConfig) -> Interpolated {
        Interpolated { backlog: Backlog::new(config) }
    }
}

impl Strategy for Interpolated {
    fn info(&self) -> &'static StrategyInfo {
        StrategyId::Interpolated.info()
    }

    fn reset(&mut self, config: &StrategyConfig) {
        self.backlog = Backlog::new(config);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let steps = self.backlog.advance(ctx.now);
        Plan {
            steps: Steps::Fixed(steps),
            view: View::Interpolate { alpha: self.backlog.alpha() },
            render_first: false,
            content_time: self.backlog.interpolated_time(),
        }
    }

    fn status(&self) -> String {
        format!("alpha {:.2}, {} backlog drops", self.backlog.alpha(), self.backlog.drops())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Nanos;

    fn begin(s: &mut Interpolated, now: Nanos) -> Plan {
        s.begin(&FrameContext { now, refresh: None })
    }

    #[test]
    fn alpha_is_the_leftover_fraction_of_a_tick() {
        let config = StrategyConfig { tick_rate: crate::time::Rate::from_hz(100), ..Default::default() };
        let mut s = Interpolated::new(&config);
        begin(&mut s, 0);
        let plan = begin(&mut s, 12_500_000);
        assert_eq!(plan.steps, Steps::Fixed(1));
        assert_eq!(plan.view, View::Interpolate { alpha: 0.25 });
        assert_eq!(plan.content_time, 2_500_000, "the picture is one tick behind the clock");
    }

    #[test]
    fn the_picture_depicts_the_clock_minus_one_tick() {
        let mut s = Interpolated::new(&StrategyConfig::default());
        begin(&mut s, 1_000);
        for now in [1_000 + 20_000_000, 1_000 + 37_000_000, 1_000 + 51_000_000] {
            let plan = begin(&mut s, now);
            let lag = now - plan.content_time;
            assert!(lag.abs_diff(16_666_667) <= 1, "lag {lag} ns at {now}");
        }
    }
}
