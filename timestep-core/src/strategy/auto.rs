//! `auto`: seed 001's conclusion, decided by measurement.
//!
//! Glaiel's advice: lockstep with vsync on a display that runs at the tick
//! rate and a machine that keeps up; interpolation ("unlocked framerate")
//! otherwise. `auto` measures instead of asking: while frame times look like
//! a steady vsync near the tick rate ([`VsyncDetector`]) it runs the fuzzy
//! lockstep timer, otherwise `interpolated`. Until 32 frames have been seen it
//! interpolates, which is never wrong, only one tick late. Every switch resets
//! the branch's timing state (one frame without steps) and is counted;
//! [`Strategy::status`] says which branch runs and why.

use super::fuzzy::{Fuzzy, VsyncDetector, VsyncVerdict};
use super::interpolated::Interpolated;
use super::{FrameContext, Plan, Strategy, StrategyConfig, StrategyId, StrategyInfo};
use crate::time::Rate;
use std::fmt;

/// The branch `auto` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AutoChoice {
    /// Fuzzy lockstep: vsync is the game's clock.
    FuzzyLockstep,
    /// Fixed steps, interpolated picture.
    Interpolated,
}

impl fmt::Display for AutoChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AutoChoice::FuzzyLockstep => "fuzzy lockstep",
            AutoChoice::Interpolated => "interpolated",
        })
    }
}

/// Chooses between fuzzy lockstep and interpolation each frame.
#[derive(Debug, Clone)]
pub struct Auto {
    config: StrategyConfig,
    detector: VsyncDetector,
    choice: AutoChoice,
    fuzzy: Fuzzy,
    interpolated: Interpolated,
    switches: u64,
    reported: Option<Rate>,
}

impl Auto {
    /// A fresh `auto`.
    pub fn new(config: &StrategyConfig) -> Auto {
        let fuzzy_config = StrategyConfig { vsync_detect: false, fuzzy_strict: false, ..*config };
        Auto {
            config: *config,
            detector: VsyncDetector::new(config.tick_rate),
            choice: AutoChoice::Interpolated,
            fuzzy: Fuzzy::new(&fuzzy_config),
            interpolated: Interpolated::new(config),
            switches: 0,
            reported: None,
        }
    }

    /// The branch running now.
    pub fn choice(&self) -> AutoChoice {
        self.choice
    }

    /// What the measurement says.
    pub fn verdict(&self) -> VsyncVerdict {
        self.detector.verdict()
    }
}

impl Strategy for Auto {
    fn info(&self) -> &'static StrategyInfo {
        StrategyId::Auto.info()
    }

    fn reset(&mut self, config: &StrategyConfig) {
        *self = Auto::new(config);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        self.detector.observe(ctx.now);
        self.reported = ctx.refresh;
        let wanted = match self.detector.verdict() {
            VsyncVerdict::Locked { .. } => AutoChoice::FuzzyLockstep,
            _ => AutoChoice::Interpolated,
        };
        if wanted != self.choice {
            self.choice = wanted;
            self.switches += 1;
            let fuzzy_config = StrategyConfig { vsync_detect: false, fuzzy_strict: false, ..self.config };
            match wanted {
                AutoChoice::FuzzyLockstep => self.fuzzy.reset(&fuzzy_config),
                AutoChoice::Interpolated => self.interpolated.reset(&self.config),
            }
        }
        match self.choice {
            AutoChoice::FuzzyLockstep => self.fuzzy.begin(ctx),
            AutoChoice::Interpolated => self.interpolated.begin(ctx),
        }
    }

    fn status(&self) -> String {
        let reported = self.reported.map_or_else(|| "unknown".to_owned(), |r| r.to_string());
        format!(
            "{}: {} (display reports {reported}, tick {}; {} switches)",
            self.choice,
            self.detector.verdict(),
            self.config.tick_rate,
            self.switches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::{Steps, View};
    use crate::time::Nanos;

    fn feed(s: &mut Auto, period: Nanos, frames: usize) -> Plan {
        let mut now = 0;
        let mut plan = s.begin(&FrameContext { now, refresh: None });
        for _ in 0..frames {
            now += period;
            plan = s.begin(&FrameContext { now, refresh: None });
        }
        plan
    }

    #[test]
    fn picks_fuzzy_lockstep_on_a_steady_vsync_near_the_tick_rate() {
        let mut s = Auto::new(&StrategyConfig::default());
        let plan = feed(&mut s, Rate::new(60000, 1001).unwrap().period(), 100);
        assert_eq!(s.choice(), AutoChoice::FuzzyLockstep, "{}", s.status());
        assert_eq!(plan.steps, Steps::Fixed(1));
        assert_eq!(plan.view, View::Latest);
    }

    #[test]
    fn interpolates_on_a_144_hz_display() {
        let mut s = Auto::new(&StrategyConfig::default());
        let plan = feed(&mut s, Rate::from_hz(144).period(), 100);
        assert_eq!(s.choice(), AutoChoice::Interpolated, "{}", s.status());
        assert!(matches!(plan.view, View::Interpolate { .. }));
    }

    #[test]
    fn interpolates_while_it_is_still_measuring() {
        let mut s = Auto::new(&StrategyConfig::default());
        feed(&mut s, 16_666_667, 5);
        assert_eq!(s.choice(), AutoChoice::Interpolated);
        assert!(s.status().contains("measuring"), "{}", s.status());
    }
}
