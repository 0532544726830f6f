//! `auto`: the conclusion of Glaiel's "How to make your game run at 60fps", decided by measurement.
//!
//! Glaiel's advice: lockstep with vsync on a display that runs at the tick
//! rate and a machine that keeps up; interpolation ("unlocked framerate")
//! otherwise. `auto` measures instead of asking: while frame times look like
//! a steady vsync near the tick rate ([`VsyncDetector`]) it runs the fuzzy
//! lockstep timer, otherwise `interpolated`. Until 32 frames have been
//! measured it goes by the display's reported refresh: fuzzy lockstep when
//! that is near the tick rate, interpolation (never wrong, only one tick
//! late) when it is not or is unknown. Starting with interpolation on a 60 Hz
//! vsync cost a strict accumulator's double updates for the first half second
//! (7 in the glaiel model) and a switch. Every switch resets the branch's
//! timing state (one frame without steps) and is counted;
//! [`Strategy::status`] says which branch runs and why.
//!
//! On a VRR display (declared with [`crate::Pacer::set_vrr`], reported by
//! the display, or detected by the refresh meter) there is no vsync to lock
//! to and no grid to interpolate against: a frame is shown when it is
//! presented. `auto` then runs [`VrrPaced`]: frames capped 3 Hz below the
//! panel's maximum, each drawn for the time it is planned to be shown and
//! presented then. Measured on `vrr:48-144` (the README's VRR table):
//! judder 0.03 ms (`glaiel`) and 0.23 ms (`desktop`), latency 11.1 and
//! 13.5 ms against uncapped `interpolated`'s 20.0 and 27.1 ms, which at the
//! panel's ceiling queues its frames.

use super::fixed_step::{Draw, FixedStep};
use super::fuzzy::{Fuzzy, VsyncDetector};
use super::vrr_paced::VrrPaced;
use super::{AnyStrategy, FrameContext, Plan, Startup, Strategy, StrategyConfig, StrategyRow, Wake};
use crate::time::{Nanos, Rate};
use crate::vrr::VrrRange;
use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

/// The branch `auto` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AutoChoice {
    /// Fuzzy lockstep: vsync is the game's clock.
    FuzzyLockstep,
    /// Fixed steps, interpolated picture.
    Interpolated,
    /// A VRR display: capped frames, each presented at the time it depicts.
    VrrPaced,
}

impl fmt::Display for AutoChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AutoChoice::FuzzyLockstep => "fuzzy lockstep",
            AutoChoice::Interpolated => "interpolated",
            AutoChoice::VrrPaced => "paced for VRR",
        })
    }
}

/// `auto`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "auto",
    "fuzzy lockstep when vsync is measured near the tick rate, interpolation otherwise; says why",
    |config| AnyStrategy::Auto(Auto::new(config)),
)
.with_source("Glaiel's conclusion")
.with_trades("a measuring start, then the cost of fuzzy or interpolated, whichever it picked")
.with_startup(Startup::WaitsForFirstTick);

/// Chooses between fuzzy lockstep and interpolation each frame.
#[derive(Debug, Clone)]
pub(crate) struct Auto {
    config: StrategyConfig,
    detector: VsyncDetector,
    /// The branch running; `None` before the first frame.
    choice: Option<AutoChoice>,
    fuzzy: Fuzzy,
    interpolated: FixedStep,
    vrr_paced: VrrPaced,
    switches: u64,
    reported: Option<Rate>,
    /// The display's VRR range, when it has one.
    vrr: Option<VrrRange>,
}

impl Auto {
    /// A fresh `auto`.
    pub(crate) fn new(config: &StrategyConfig) -> Auto {
        let fuzzy_config = StrategyConfig { vsync_detect: false, fuzzy_strict: false, ..*config };
        Auto {
            config: *config,
            detector: VsyncDetector::new(config.tick_rate),
            choice: None,
            fuzzy: Fuzzy::new(&fuzzy_config),
            interpolated: FixedStep::new(config, Draw::Interpolate),
            vrr_paced: VrrPaced::new(config, None),
            switches: 0,
            reported: None,
            vrr: None,
        }
    }

    /// The branch running now (interpolated before the first frame).
    pub(crate) fn choice(&self) -> AutoChoice {
        self.choice.unwrap_or(AutoChoice::Interpolated)
    }
}

impl Strategy for Auto {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = Auto::new(config);
    }

    fn last_tick(&self) -> Option<Nanos> {
        match self.choice? {
            AutoChoice::FuzzyLockstep => self.fuzzy.last_tick(),
            AutoChoice::Interpolated => self.interpolated.last_tick(),
            AutoChoice::VrrPaced => self.vrr_paced.last_tick(),
        }
    }

    /// Any branch may run first: all start in phase.
    fn continue_from(&mut self, last_tick: Nanos) {
        self.fuzzy.continue_from(last_tick);
        self.interpolated.continue_from(last_tick);
        self.vrr_paced.continue_from(last_tick);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        self.detector.observe(ctx.now);
        self.reported = ctx.refresh;
        let wanted = if self.vrr.is_some() {
            AutoChoice::VrrPaced
        } else if self.detector.expects_vsync_near_tick(ctx.refresh) {
            AutoChoice::FuzzyLockstep
        } else {
            AutoChoice::Interpolated
        };
        // The first frame starts the branch afresh: nothing to switch from.
        if self.choice.replace(wanted).is_some_and(|was| was != wanted) {
            self.switches += 1;
            let fuzzy_config = StrategyConfig { vsync_detect: false, fuzzy_strict: false, ..self.config };
            match wanted {
                AutoChoice::FuzzyLockstep => self.fuzzy.reset(&fuzzy_config),
                AutoChoice::Interpolated => self.interpolated.reset(&self.config),
                AutoChoice::VrrPaced => self.vrr_paced = VrrPaced::new(&self.config, self.vrr),
            }
        }
        match wanted {
            AutoChoice::FuzzyLockstep => self.fuzzy.begin(ctx),
            AutoChoice::Interpolated => self.interpolated.begin(ctx),
            AutoChoice::VrrPaced => self.vrr_paced.begin(ctx),
        }
    }

    fn set_vrr(&mut self, vrr: Option<VrrRange>) {
        if vrr != self.vrr {
            self.vrr = vrr;
            self.vrr_paced = VrrPaced::new(&self.config, vrr);
        }
    }

    fn rendered(&mut self, now: Nanos) {
        if self.choice == Some(AutoChoice::VrrPaced) {
            self.vrr_paced.rendered(now);
        }
    }

    fn present_at(&self) -> Option<Nanos> {
        (self.choice == Some(AutoChoice::VrrPaced)).then(|| self.vrr_paced.present_at()).flatten()
    }

    fn end(&mut self, now: Nanos) -> Wake {
        match self.choice {
            Some(AutoChoice::VrrPaced) => self.vrr_paced.end(now),
            _ => Wake::default(),
        }
    }

    fn status(&self) -> String {
        if let (Some(AutoChoice::VrrPaced), Some(vrr)) = (self.choice, self.vrr) {
            return format!(
                "{}: {} display, frames shown when presented: {} ({} switches)",
                AutoChoice::VrrPaced,
                vrr.label(),
                self.vrr_paced.status(),
                self.switches
            );
        }
        let reported = self.reported.map_or_else(|| "unknown".to_owned(), |r| r.to_string());
        format!(
            "{}: {} (display reports {reported}, tick {}; {} switches)",
            self.choice(),
            self.detector.verdict(),
            self.config.tick_rate,
            self.switches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::{Order, Steps, View};
    use crate::time::Nanos;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn feed(s: &mut Auto, period: Nanos, frames: usize) -> Plan {
        feed_on(None, s, period, frames)
    }

    /// The first frame at 0, then `frames` more `period` apart, on a display reporting `refresh`.
    fn feed_on(refresh: Option<Rate>, s: &mut Auto, period: Nanos, frames: usize) -> Plan {
        let mut now = 0;
        let mut plan = s.begin(&FrameContext { now, refresh });
        for _ in 0..frames {
            now += period;
            plan = s.begin(&FrameContext { now, refresh });
        }
        plan
    }

    #[test]
    fn picks_fuzzy_lockstep_on_a_steady_vsync_near_the_tick_rate() {
        let mut s = Auto::new(&StrategyConfig::default());
        let plan = feed(&mut s, Rate::new(60000, 1001).unwrap().period(), 100);
        assert_eq!(s.choice(), AutoChoice::FuzzyLockstep, "{}", s.status());
        assert_eq!(plan.order, Order::StepsThenRender(Steps::Fixed(1)));
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
    fn interpolates_while_it_is_still_measuring_an_unknown_display() {
        let mut s = Auto::new(&StrategyConfig::default());
        feed(&mut s, 16_666_667, 5);
        assert_eq!(s.choice(), AutoChoice::Interpolated);
        assert!(s.status().contains("measuring"), "{}", s.status());
    }

    #[test]
    fn a_display_reporting_60_hz_starts_in_fuzzy_lockstep_without_a_switch() {
        let mut s = Auto::new(&StrategyConfig::default());
        let plan = feed_on(Some(Rate::from_hz(60)), &mut s, 16_666_667, 100);
        assert_eq!(s.choice(), AutoChoice::FuzzyLockstep, "{}", s.status());
        assert_eq!(plan.order, Order::StepsThenRender(Steps::Fixed(1)));
        assert_eq!(s.switches, 0, "the measurement confirmed what the display said");
    }

    #[test]
    fn a_display_reporting_60_hz_without_vsync_switches_to_interpolation_once_measured() {
        let mut s = Auto::new(&StrategyConfig::default());
        let refresh = Some(Rate::from_hz(60));
        let choices: Vec<AutoChoice> = (0..=40u64)
            .map(|n| {
                s.begin(&FrameContext { now: n * 5_000_000, refresh });
                s.choice()
            })
            .collect();
        assert_eq!(choices[31], AutoChoice::FuzzyLockstep, "31 frame times measured: the display's word");
        assert_eq!(choices[32], AutoChoice::Interpolated, "32 measured: 5 ms frames are no 60 Hz vsync");
        assert_eq!(choices[40], AutoChoice::Interpolated);
        assert_eq!(s.switches, 1);
    }
}
