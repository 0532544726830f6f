//! `auto`'s loop for a VRR display: frames on its own steady schedule below
//! the panel's maximum, each drawn for the time it will be shown, and
//! presented then.
//!
//! A VRR panel shows a frame when it is presented (within its range), so the
//! loop, not a grid, decides when pictures appear. Left uncapped, a fast loop
//! reaches the maximum, where frames queue as under plain vsync and wait
//! about two refreshes longer. Capped (a frame limit) it shows each frame
//! the moment its render ends, and renders take as long as they take: a
//! picture of the frame's start shown at its end moves unevenly, by about
//! √2 × the render time's spread. So this loop:
//!
//! ```text
//!   planned start p        ready (render done)       p + lead: present → shown at once
//!      |~steps~|~~render~~|~~~~~~~~hold~~~~~~~~~~~|
//!      picture of the latest tick moved on to p + lead      next p = p + max(1/cap, lead)
//! ```
//!
//! - plans each frame's display time `p + lead`, where `lead` is the second
//!   longest of the last [`HISTORY`] frames' time to ready (planned start →
//!   render done, sleep overshoot included) plus [`MARGIN`]; it rises at once
//!   and falls only by [`HYSTERESIS`] or more;
//! - steps the fixed ticks due by that time and draws the latest one moved
//!   on to it, at most a tick ahead (`extrapolated`'s picture): each picture
//!   depicts its own display time. Interpolating to it would need the tick
//!   after it, simulated a tick earlier: a tick more latency (measured: 19.0
//!   ms on `glaiel`, against uncapped `interpolated`'s 20.0). The price is
//!   extrapolation's: where a velocity changes within the tick (a bounce,
//!   the player's input), the picture overshoots for that tick;
//! - asks the host to hold the present until then ([`Strategy::present_at`]),
//!   which a VRR panel shows at once: display times are as steady as the
//!   schedule, and each picture depicts its own display time;
//! - starts frames at most every `1/cap` with `cap = max − ` [`CAP_MARGIN_HZ`],
//!   and not before the last frame's display time (a frame that takes longer
//!   than `1/cap` lowers the rate instead of queueing).
//!
//! Measured in the virtual monitor (`vrr:48-144`, 60 Hz ticks, 20 s; the
//! README's VRR table): `glaiel` judder 0.03 ms, latency 11.1 ms against
//! uncapped `interpolated`'s 20.0 ms; `desktop` 0.23 ms and 13.5 ms against
//! 27.1 ms. The margin below the maximum, measured with `interpolated` under a
//! frame limit on `desktop`: latency 22.9 ms capped at 144 Hz (frames still
//! queue), 21.2 at 143.5, 20.4 at 142, 20.3 at 141, 19.8 at 138 (where
//! render spread starts to show: 12 hitches in 20 s); on `glaiel`, whose
//! timing is exact, 0.5 Hz is enough. Held presents are exactly `1/cap`
//! apart, so this loop would need even less; [`CAP_MARGIN_HZ`] is Blur
//! Busters' 3 fps, for real panels whose timing is not exact (0.15 ms of
//! interval at 144 Hz).

use alloc::format;
use alloc::string::String;

use super::fixed_step::{Draw, FixedStep};
use super::{FrameContext, Plan, Strategy, StrategyConfig, Wake};
use crate::time::{Nanos, Rate};
use crate::vrr::VrrRange;

/// Frames the lead looks back over (about a second at 120 Hz).
pub(crate) const HISTORY: usize = 120;

/// Slack above the measured time to ready: a render that takes a little
/// longer than any of the last [`HISTORY`] is still on time.
pub(crate) const MARGIN: Nanos = 1_000_000;

/// How far the lead must be above what the last frames need before it is
/// lowered: each change moves one display interval.
pub(crate) const HYSTERESIS: Nanos = 500_000;

/// How far below the panel's maximum frames are capped, Hz (Blur Busters'
/// G-SYNC 101: at least 2–3 fps below the maximum).
pub(crate) const CAP_MARGIN_HZ: u64 = 3;

/// The lead before any frame was measured: a frame at the cap.
fn first_lead(cap_interval: Nanos) -> Nanos {
    cap_interval
}

/// Fixed ticks extrapolated to each frame's planned display time, presents
/// held to it, frames capped below a VRR panel's maximum.
#[derive(Debug, Clone)]
pub(crate) struct VrrPaced {
    steps: FixedStep,
    range: Option<VrrRange>,
    /// `1/cap`, rounded up.
    cap_interval: Nanos,
    lead: Nanos,
    works: [Nanos; HISTORY],
    filled: usize,
    next: usize,
    /// The planned start of the next frame.
    planned: Option<Nanos>,
    /// The planned start of this frame, and the display time it was drawn for.
    anchor: Nanos,
    target: Option<Nanos>,
}

impl VrrPaced {
    /// A fresh loop for `config`'s ticks on a panel of `range` (uncapped while unknown).
    pub(crate) fn new(config: &StrategyConfig, range: Option<VrrRange>) -> VrrPaced {
        let cap_interval = range.map_or(0, |r| cap(r).tick_time_ceil(1));
        VrrPaced {
            steps: FixedStep::new(config, Draw::Extrapolate),
            range,
            cap_interval,
            lead: first_lead(cap_interval),
            works: [0; HISTORY],
            filled: 0,
            next: 0,
            planned: None,
            anchor: 0,
            target: None,
        }
    }

    /// The lead: planned start to display time.
    #[cfg(test)]
    pub(crate) fn lead(&self) -> Nanos {
        self.lead
    }

    /// The frame rate cap, Hz (`None` while no range is known).
    pub(crate) fn cap(&self) -> Option<Rate> {
        self.range.map(cap)
    }

    /// The second longest recent time to ready, plus [`MARGIN`].
    fn wanted_lead(&self) -> Nanos {
        let (mut first, mut second) = (0, 0);
        for &w in &self.works[..self.filled] {
            if w > first {
                (first, second) = (w, first);
            } else if w > second {
                second = w;
            }
        }
        (if self.filled < 2 { first } else { second }) + MARGIN
    }
}

/// `max − CAP_MARGIN_HZ`, never below the range's minimum.
fn cap(range: VrrRange) -> Rate {
    let max = range.max();
    let margin = CAP_MARGIN_HZ * max.den();
    if max.num() > margin
        && let Ok(capped) = Rate::new(max.num() - margin, max.den())
        && range.contains(capped)
    {
        return capped;
    }
    range.min()
}

impl Strategy for VrrPaced {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = VrrPaced::new(config, self.range);
    }

    fn last_tick(&self) -> Option<Nanos> {
        self.steps.last_tick()
    }

    fn continue_from(&mut self, last_tick: Nanos) {
        self.steps.continue_from(last_tick);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        // On schedule (or late by less than the lead, which a wake's overshoot
        // is): keep the plan; far behind it (a stall): plan from now.
        let start = match self.planned {
            Some(planned) if ctx.now <= planned.saturating_add(self.lead) => planned,
            _ => ctx.now,
        };
        self.anchor = start;
        let target = start.saturating_add(self.lead);
        self.target = Some(target);
        // Fed the target as its clock, extrapolation depicts the target.
        self.steps.begin(&FrameContext { now: target, refresh: ctx.refresh })
    }

    fn rendered(&mut self, now: Nanos) {
        self.works[self.next] = now.saturating_sub(self.anchor);
        self.next = (self.next + 1) % HISTORY;
        self.filled = (self.filled + 1).min(HISTORY);
        let wanted = self.wanted_lead();
        if wanted > self.lead || wanted + HYSTERESIS <= self.lead {
            self.lead = wanted;
        }
    }

    fn present_at(&self) -> Option<Nanos> {
        self.target
    }

    fn end(&mut self, _now: Nanos) -> Wake {
        let next = self.anchor.saturating_add(self.cap_interval.max(self.lead));
        self.planned = Some(next);
        Wake { at: Some(next) }
    }

    fn status(&self) -> String {
        let cap = self.cap().map_or_else(|| "uncapped".into(), |c| format!("capped at {c}"));
        format!("{cap}, each frame presented {:.1} ms after its start, at the time it depicts", self.lead as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::{Order, Steps, View};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn range() -> Option<VrrRange> {
        "vrr:48-144".parse().ok()
    }

    #[test]
    fn the_cap_is_3_hz_below_the_maximum_and_never_below_the_minimum() {
        let s = VrrPaced::new(&StrategyConfig::default(), range());
        assert_eq!(s.cap(), Some(Rate::from_hz(141)));
        assert_eq!(s.cap_interval, 7_092_199, "1/141 s rounded up");
        let narrow = VrrPaced::new(&StrategyConfig::default(), "vrr:59-61".parse().ok());
        assert_eq!(narrow.cap(), Some(Rate::from_hz(59)), "61 − 3 is below the range: its minimum");
    }

    #[test]
    fn a_frame_is_drawn_for_its_planned_display_time_and_presented_then() {
        // 60 Hz ticks, lead 7 092 199 ns (the cap) before any measurement.
        let mut s = VrrPaced::new(&StrategyConfig::default(), range());
        let first = s.begin(&FrameContext { now: 0, refresh: None });
        assert_eq!(first.order, Order::StepsThenRender(Steps::Fixed(0)), "the first frame starts the clock");
        assert_eq!(s.present_at(), Some(7_092_199));
        s.rendered(5_000_000);
        assert_eq!(s.lead(), 6_000_000, "one frame of 5 ms to ready, plus the 1 ms margin");
        assert_eq!(s.end(7_100_000), Wake { at: Some(7_092_199) }, "the next frame 1/141 s after this one's start");
        let second = s.begin(&FrameContext { now: 7_092_199, refresh: None });
        assert_eq!(s.present_at(), Some(13_092_199), "planned start + lead");
        // The ticks' clock is the display time: tick 0 at 7 092 199, the
        // second frame 6 ms past it, no tick due yet: 6 ms ahead of tick 0.
        assert_eq!(second.order, Order::StepsThenRender(Steps::Fixed(0)));
        assert_eq!(second.view, View::Extrapolate { ahead: 6_000_000 });
        assert_eq!(second.content_time, 13_092_199, "it depicts its display time");
    }

    #[test]
    fn a_frame_far_behind_its_plan_is_planned_from_its_start() {
        let mut s = VrrPaced::new(&StrategyConfig::default(), range());
        s.begin(&FrameContext { now: 0, refresh: None });
        s.rendered(2_000_000);
        s.end(2_000_000);
        s.begin(&FrameContext { now: 50_000_000, refresh: None });
        assert_eq!(s.present_at(), Some(50_000_000 + s.lead()), "a stall: the plan starts over");
    }

    #[test]
    fn the_lead_rises_at_once_and_falls_only_past_the_hysteresis() {
        let mut s = VrrPaced::new(&StrategyConfig::default(), range());
        let mut t = 0;
        let mut frame = |s: &mut VrrPaced, work: Nanos| {
            s.begin(&FrameContext { now: t, refresh: None });
            s.rendered(t + work);
            t = s.end(t + work).at.unwrap_or(t);
        };
        for _ in 0..3 {
            frame(&mut s, 8_000_000);
        }
        assert_eq!(s.lead(), 9_000_000);
        for _ in 0..HISTORY {
            frame(&mut s, 7_700_000);
        }
        assert_eq!(s.lead(), 9_000_000, "8.7 ms is within the hysteresis of 9 ms: kept");
        for _ in 0..HISTORY {
            frame(&mut s, 5_000_000);
        }
        assert_eq!(s.lead(), 6_000_000);
        frame(&mut s, 6_500_000);
        assert_eq!(s.lead(), 6_000_000, "one longer frame is a stray");
        frame(&mut s, 6_500_000);
        assert_eq!(s.lead(), 7_500_000, "a second one raises it at once");
    }
}
