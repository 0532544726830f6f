//! `extrapolated`: fixed steps, the picture predicted past the latest state.
//!
//! deWiTTERS loop 4 as written (seed 004) and seed 002's alternative: draw
//! `current + velocity × leftover`. No tick of latency like interpolation,
//! but a prediction: when a bounce, a wall or the player's input changes the
//! velocity, the picture shows the ball briefly inside the wall and then
//! snaps back.

use super::catch_up::Backlog;
use super::{FrameContext, Plan, Steps, Strategy, StrategyConfig, StrategyId, StrategyInfo, View};

/// Fixed steps with a predicted picture.
#[derive(Debug, Clone)]
pub struct Extrapolated {
    backlog: Backlog,
}

impl Extrapolated {
    /// A fresh `extrapolated`.
    pub fn new(config: &StrategyConfig) -> Extrapolated {
        Extrapolated { backlog: Backlog::new(config) }
    }
}

impl Strategy for Extrapolated {
    fn info(&self) -> &'static StrategyInfo {
        StrategyId::Extrapolated.info()
    }

    fn reset(&mut self, config: &StrategyConfig) {
        self.backlog = Backlog::new(config);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let steps = self.backlog.advance(ctx.now);
        // After a capped frame the leftover can exceed a tick; predicting
        // further than one tick only makes the overshoot worse.
        let period = self.backlog.tick().period();
        let ahead = self.backlog.leftover().min(period);
        Plan {
            steps: Steps::Fixed(steps),
            view: View::Extrapolate { ahead },
            render_first: false,
            content_time: self.backlog.latest_time() + ahead,
        }
    }

    fn status(&self) -> String {
        format!("predicting {:.2} ms ahead", self.backlog.leftover() as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_is_predicted_to_the_clock() {
        let mut s = Extrapolated::new(&StrategyConfig::default());
        s.begin(&FrameContext { now: 0, refresh: None });
        let plan = s.begin(&FrameContext { now: 20_000_000, refresh: None });
        assert_eq!(plan.steps, Steps::Fixed(1));
        assert_eq!(plan.view, View::Extrapolate { ahead: 20_000_000 - 16_666_666 });
        assert_eq!(plan.content_time, 20_000_000);
    }
}
