//! `paced`: the adaptive render interval of a frame-pacing answer (render first, grow the interval ×1.2 on a miss).
//!
//! Render first, at a steady interval, a picture interpolated to the moment
//! the frame starts; then simulate until the simulation is just past the
//! *next* frame's start, then wait for it:
//!
//! ```text
//! render 3 ms, update 1 ms, step 5 ms, interval 16 ms (the answer's timeline):
//! ms   0  3 4 5 6 7        16 19 20 21 22     32
//!      R0 U5 U10 U15 U20 W16 R16 U25 U30 U35 W32 R32
//! at R16: previous = 15, current = 20 → proportion (16 − 15) / (20 − 15) = 0.2
//! ```
//!
//! If a frame's work outgrows the interval, the interval becomes 1.2 × the
//! frame time (the answer's rule); with lots of slack (work under half the
//! interval) it shrinks by 1 % per frame, never below the display's refresh
//! period (or 1/60 s when the refresh is unknown: no point presenting faster
//! than anybody can see). The answer also re-checks the clock after every
//! update; a strategy cannot read the clock, so that check happens once, in
//! [`Strategy::end`], and affects the next frame.
//!
//! Caveat from the answer: simulating ahead means input read during a frame is
//! applied to ticks the picture shows only later.

use alloc::format;
use alloc::string::String;

use super::backlog::NearTicks;
use super::{AnyStrategy, FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyRow, View, Wake};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, nanos_as_f64, round_to_nanos};

/// The interval when the display's refresh is unknown (the answer's "nice
/// high starting interval", 1/60 s).
const DEFAULT_INTERVAL: Nanos = NANOS_PER_SEC / 60;

/// `paced`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "paced",
    "render at a steady adaptive interval, simulate just past the next frame's time, then wait",
    |config| AnyStrategy::Paced(Paced::new(config)),
)
.with_source("a frame-pacing answer (the adaptive render interval)")
.with_trades("frame rate for an even rhythm: it slows its frames when they miss")
.with_paces_itself(true);

/// The adaptive render interval: render first, grow the interval ×1.2 on a miss, step to the frame's end, wait.
#[derive(Debug, Clone)]
pub(crate) struct Paced {
    tick: Rate,
    max_steps: u32,
    lag_limit: Nanos,
    /// Clock time of simulation tick 0; `None` before the first frame.
    origin: Option<Nanos>,
    /// Ticks simulated since `origin`: `currentTime = origin + tick_time(ticks)`.
    ticks: u64,
    /// The tick times around `ticks`, always in step with it.
    near: NearTicks,
    interval: Nanos,
    floor: Nanos,
    frame_start: Nanos,
    frame_end: Nanos,
    proportion: f64,
    grown: u64,
    /// Whether a frame has begun since the last reset (the interval starts
    /// at the refresh period then).
    started: bool,
}

impl Paced {
    /// A fresh `paced`.
    pub(crate) fn new(config: &StrategyConfig) -> Paced {
        Paced {
            tick: config.tick_rate,
            max_steps: config.step_cap(),
            lag_limit: config.lag_limit_nanos(),
            origin: None,
            ticks: 0,
            near: NearTicks::of(config.tick_rate, 0),
            interval: DEFAULT_INTERVAL,
            floor: DEFAULT_INTERVAL,
            frame_start: 0,
            frame_end: 0,
            proportion: 1.0,
            grown: 0,
            started: false,
        }
    }

    #[cfg(test)]
    /// The current render interval.
    pub(crate) fn interval(&self) -> Nanos {
        self.interval
    }

    fn current_time(&self, origin: Nanos) -> Nanos {
        origin.saturating_add(self.near.at)
    }

    fn previous_time(&self, origin: Nanos) -> Nanos {
        origin.saturating_add(self.near.before)
    }

    /// Sets the ticks simulated, keeping [`NearTicks`] in step.
    fn set_ticks(&mut self, ticks: u64) {
        self.near = self.near.moved(self.tick, self.ticks, ticks, None);
        self.ticks = ticks;
    }
}

impl Strategy for Paced {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = Paced::new(config);
    }

    /// The simulation's latest tick (ahead of the clock by up to a frame).
    fn last_tick(&self) -> Option<Nanos> {
        self.origin.map(|origin| self.current_time(origin))
    }

    /// As the backlog's: the tick before `last_tick` counts as simulated, the
    /// picture goes on between the two.
    fn continue_from(&mut self, last_tick: Nanos) {
        match last_tick.checked_sub(self.tick.tick_time(1)) {
            Some(origin) => {
                self.origin = Some(origin);
                self.set_ticks(1);
            }
            None => self.origin = Some(last_tick),
        }
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let now = ctx.now.max(self.frame_start);
        if !self.started {
            self.started = true;
            if let Some(refresh) = ctx.refresh {
                self.floor = refresh.period();
                self.interval = self.floor;
            }
        }
        let origin = *self.origin.get_or_insert(now);
        self.frame_start = now;
        let prev = self.previous_time(origin);
        let cur = self.current_time(origin);
        let content = prev + round_to_nanos(nanos_as_f64(cur - prev) * self.proportion);
        Plan {
            order: Order::RenderThenSteps,
            view: View::Interpolate { alpha: self.proportion },
            content_time: content,
        }
    }

    fn after_render(&mut self, now: Nanos) -> Steps {
        let Some(mut origin) = self.origin else {
            return Steps::NONE;
        };
        let frame_time = now.saturating_sub(self.frame_start);
        if frame_time > self.interval {
            self.interval = frame_time / 5 * 6;
            self.grown += 1;
        }
        self.frame_end = self.frame_start.saturating_add(self.interval);
        // A simulation hopelessly behind (a stall) is moved up, not replayed.
        if self.frame_end.saturating_sub(self.current_time(origin)) > self.lag_limit {
            origin = self.frame_start.saturating_sub(self.tick.period());
            self.origin = Some(origin);
            self.set_ticks(0);
        }
        // Simulate until currentTime >= expectedFrameEnd: to the first tick
        // at or after the target, which the kept tick times tell without a
        // division when it is this tick or the next (nearly every frame).
        let target = self.frame_end.saturating_sub(origin);
        let needed = if target <= self.near.at {
            self.ticks
        } else if target <= self.near.after {
            self.ticks + 1
        } else {
            let n = self.tick.ticks_in(target);
            if self.tick.tick_time(n) < target { n + 1 } else { n }
        };
        let steps = needed.saturating_sub(self.ticks).min(u64::from(self.max_steps)) as u32;
        self.set_ticks(self.ticks + u64::from(steps));
        Steps::Fixed(steps)
    }

    fn end(&mut self, now: Nanos) -> Wake {
        let Some(origin) = self.origin else {
            return Wake::default();
        };
        let work = now.saturating_sub(self.frame_start);
        if work > self.interval {
            self.interval = work / 5 * 6;
            self.frame_end = self.frame_start.saturating_add(self.interval);
            self.grown += 1;
        } else if work < self.interval / 2 {
            self.interval = (self.interval - self.interval / 100).max(self.floor);
        }
        let prev = self.previous_time(origin);
        let cur = self.current_time(origin);
        self.proportion = if cur > prev {
            (nanos_as_f64(self.frame_end.saturating_sub(prev)) / nanos_as_f64(cur - prev)).clamp(0.0, 1.0)
        } else {
            1.0
        };
        Wake { at: Some(self.frame_end) }
    }

    fn status(&self) -> String {
        format!("render interval {:.2} ms (grown {} times)", self.interval as f64 / 1e6, self.grown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_MS;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn reproduces_the_seed_timeline_and_its_proportion() {
        let config = StrategyConfig { tick_rate: Rate::from_hz(200), ..Default::default() };
        let mut s = Paced::new(&config);
        let refresh = Some(Rate::new(125, 2).unwrap()); // 16 ms
        let ms = NANOS_PER_MS;

        let plan = s.begin(&FrameContext { now: 0, refresh });
        assert_eq!(plan.order, Order::RenderThenSteps);
        assert_eq!(plan.view, View::Interpolate { alpha: 1.0 });
        assert_eq!(s.after_render(3 * ms), Steps::Fixed(4), "U5 U10 U15 U20");
        assert_eq!(s.end(7 * ms), Wake { at: Some(16 * ms) }, "W16");

        let plan = s.begin(&FrameContext { now: 16 * ms, refresh });
        assert_eq!(plan.view, View::Interpolate { alpha: 0.2 }, "proportion at R16");
        assert_eq!(plan.content_time, 16 * ms, "the picture depicts the frame's start");
        assert_eq!(s.after_render(19 * ms), Steps::Fixed(3), "U25 U30 U35");
        assert_eq!(s.end(22 * ms), Wake { at: Some(32 * ms) }, "W32");
    }

    #[test]
    fn the_kept_tick_times_follow_the_ticks_through_steady_frames_a_spurt_and_a_stall() {
        let tick = Rate::new(60000, 1001).expect("59.94 Hz");
        let mut s = Paced::new(&StrategyConfig { tick_rate: tick, ..StrategyConfig::default() });
        let refresh = Some(Rate::from_hz(144));
        let mut now = 1_000;
        // 144 Hz frames with 0 or 1 ticks each, a 40 ms frame (several), a 5 s stall (moved up).
        for (i, work) in [1, 1, 1, 1, 1, 40, 1, 1, 5_000, 1, 1].into_iter().enumerate() {
            s.begin(&FrameContext { now, refresh });
            s.after_render(now + work * NANOS_PER_MS);
            assert_eq!(s.near, NearTicks::of(tick, s.ticks), "frame {i}: tick times around tick {}", s.ticks);
            now = s.end(now + (work + 1) * NANOS_PER_MS).at.expect("a wake");
        }
    }

    #[test]
    fn a_frame_longer_than_the_interval_grows_it_by_a_fifth() {
        let mut s = Paced::new(&StrategyConfig::default());
        s.begin(&FrameContext { now: 0, refresh: Some(Rate::from_hz(60)) });
        s.after_render(30 * NANOS_PER_MS);
        assert_eq!(s.interval(), 36 * NANOS_PER_MS);
    }

    #[test]
    fn slack_shrinks_the_interval_but_never_below_the_refresh_period() {
        let mut s = Paced::new(&StrategyConfig::default());
        let refresh = Some(Rate::from_hz(60));
        s.begin(&FrameContext { now: 0, refresh });
        s.after_render(30 * NANOS_PER_MS);
        let mut now = 0;
        for _ in 0..2_000 {
            let wake = s.end(now + NANOS_PER_MS).at.unwrap();
            now = wake;
            s.begin(&FrameContext { now, refresh });
            s.after_render(now + NANOS_PER_MS);
        }
        assert_eq!(s.interval(), Rate::from_hz(60).period());
    }
}
