//! `catch-up`: fixed steps from an accumulator, the latest state drawn.
//!
//! The accumulator is not a float that gains a frame delta and loses a
//! rounded period per step (seed 001's naive timer): it is the exact
//! difference between the clock and the time of the last tick run,
//! `now - origin - tick_time(done)`, so it can never drift. Everything that
//! follows from it lives in [`Backlog`], which `interpolated`, `extrapolated`
//! and the strict fallbacks of `fuzzy`/`auto` share.
//!
//! ```text
//! ticks:   |---0---|---1---|---2---|---3---|        tick_time(n) = n · period, exact
//! frames:  F0        F1          F2   F3
//! steps:   0         1           1    1       (0/2 patterns appear when frames
//!                                              straddle tick boundaries by noise)
//! ```
//!
//! Two guards keep it alive on a bad machine: at most `max_steps` per frame
//! (the picture still updates), and a backlog older than `max_lag` is dropped
//! whole (the game slows down instead of freezing: the spiral of death).

use super::{FrameContext, Plan, Steps, Strategy, StrategyConfig, StrategyId, StrategyInfo, View};
use crate::time::{Nanos, Rate};

/// Exact fixed-step accounting against a moving origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backlog {
    tick: Rate,
    max_steps: u32,
    max_lag: Nanos,
    /// Clock time of tick 0; `None` until the first frame.
    origin: Option<Nanos>,
    /// Ticks run since `origin`.
    done: u64,
    /// The latest clock value seen (the clock is treated as monotonic).
    last_now: Nanos,
    /// Total ticks run since the last reset, across rebases.
    total: u64,
    /// Times the backlog was dropped.
    drops: u64,
}

impl Backlog {
    /// A backlog for `config`'s tick rate and guards.
    pub fn new(config: &StrategyConfig) -> Backlog {
        Backlog {
            tick: config.tick_rate,
            max_steps: config.max_steps.max(1),
            max_lag: config.max_lag,
            origin: None,
            done: 0,
            last_now: 0,
            total: 0,
            drops: 0,
        }
    }

    /// The tick rate.
    pub fn tick(&self) -> Rate {
        self.tick
    }

    /// Brings the accounting up to `now` and returns how many ticks to run
    /// (already counted as done). The first call only sets the origin.
    /// A clock that runs backwards is treated as standing still.
    pub fn advance(&mut self, now: Nanos) -> u32 {
        let now = now.max(self.last_now);
        self.last_now = now;
        let Some(origin) = self.origin else {
            self.origin = Some(now);
            return 0;
        };
        let elapsed = now - origin;
        let mut due = self.tick.ticks_in(elapsed).saturating_sub(self.done);
        let behind = elapsed - self.tick.tick_time(self.done);
        if behind > self.max_lag {
            // Drop every whole tick of the backlog, keep the fraction so the
            // picture does not jump back within the current tick.
            let keep = behind - self.tick.tick_time(self.tick.ticks_in(behind));
            self.origin = Some(now - keep);
            self.done = 0;
            self.drops += 1;
            due = 0;
        }
        let steps = due.min(u64::from(self.max_steps)) as u32;
        self.done += u64::from(steps);
        self.total += u64::from(steps);
        steps
    }

    /// Runs exactly `n` more ticks regardless of the clock (fuzzy timers
    /// decide their own counts but keep the exact bookkeeping).
    pub fn force(&mut self, n: u32) {
        self.done += u64::from(n);
        self.total += u64::from(n);
    }

    /// Restarts the accounting at `now` with nothing owed.
    pub fn resync(&mut self, now: Nanos) {
        let now = now.max(self.last_now);
        self.last_now = now;
        self.origin = Some(now);
        self.done = 0;
    }

    /// Time since the last tick run, as of the last `advance`. Can exceed a
    /// period when `max_steps` capped the frame.
    pub fn leftover(&self) -> Nanos {
        match self.origin {
            Some(origin) => (self.last_now - origin).saturating_sub(self.tick.tick_time(self.done)),
            None => 0,
        }
    }

    /// `leftover / period`, clamped to [0, 1].
    pub fn alpha(&self) -> f32 {
        let period = self.tick.tick_time(self.done + 1) - self.tick.tick_time(self.done);
        if period == 0 {
            return 1.0;
        }
        (self.leftover() as f64 / period as f64).clamp(0.0, 1.0) as f32
    }

    /// Clock time of the latest tick run.
    pub fn latest_time(&self) -> Nanos {
        self.origin.unwrap_or(self.last_now) + self.tick.tick_time(self.done)
    }

    /// Clock time of the tick before the latest (what alpha 0 depicts).
    pub fn previous_time(&self) -> Nanos {
        self.origin.unwrap_or(self.last_now) + self.tick.tick_time(self.done.saturating_sub(1))
    }

    /// Clock time that `lerp(previous, current, alpha)` depicts.
    pub fn interpolated_time(&self) -> Nanos {
        let prev = self.previous_time();
        let span = self.latest_time() - prev;
        prev + (span as f64 * f64::from(self.alpha())).round() as Nanos
    }

    /// Total ticks run since the last reset.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// How many times a backlog older than `max_lag` was dropped.
    pub fn drops(&self) -> u64 {
        self.drops
    }
}

/// The naive fixed-step loop, done exactly.
#[derive(Debug, Clone)]
pub struct CatchUp {
    backlog: Backlog,
}

impl CatchUp {
    /// A fresh `catch-up`.
    pub fn new(config: &StrategyConfig) -> CatchUp {
        CatchUp { backlog: Backlog::new(config) }
    }
}

impl Strategy for CatchUp {
    fn info(&self) -> &'static StrategyInfo {
        StrategyId::CatchUp.info()
    }

    fn reset(&mut self, config: &StrategyConfig) {
        self.backlog = Backlog::new(config);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let steps = self.backlog.advance(ctx.now);
        Plan {
            steps: Steps::Fixed(steps),
            view: View::Latest,
            render_first: false,
            content_time: self.backlog.latest_time(),
        }
    }

    fn status(&self) -> String {
        format!("backlog {:.2} ticks, {} dropped", self.backlog.alpha(), self.backlog.drops())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;

    fn ctx(now: Nanos) -> FrameContext {
        FrameContext { now, refresh: None }
    }

    #[test]
    fn first_frame_runs_no_step_and_later_frames_run_due_ticks() {
        let mut s = CatchUp::new(&StrategyConfig::default());
        assert_eq!(s.begin(&ctx(1_000)).steps, Steps::Fixed(0));
        // Exactly one 60 Hz tick later (16_666_666 ns, floored) one step is due.
        assert_eq!(s.begin(&ctx(1_000 + 16_666_666)).steps, Steps::Fixed(1));
        assert_eq!(s.begin(&ctx(1_000 + 16_666_666 + 1)).steps, Steps::Fixed(0));
        // Three ticks: 50_000_000 ns exactly.
        assert_eq!(s.begin(&ctx(1_000 + 50_000_000)).steps, Steps::Fixed(2));
    }

    #[test]
    fn a_frame_never_runs_more_than_max_steps_and_the_rest_is_caught_up_later() {
        let config = StrategyConfig { max_steps: 3, ..StrategyConfig::default() };
        let mut s = CatchUp::new(&config);
        s.begin(&ctx(0));
        // 200 ms late: 12 ticks owed, 3 per frame.
        let now = 200_000_000;
        let mut total = 0;
        for _ in 0..4 {
            let Steps::Fixed(n) = s.begin(&ctx(now)).steps else { panic!("fixed steps expected") };
            assert!(n <= 3, "frame ran {n} steps");
            total += n;
        }
        assert_eq!(total, 12);
    }

    #[test]
    fn a_ten_second_stall_drops_the_backlog_instead_of_replaying_it() {
        let mut s = CatchUp::new(&StrategyConfig::default());
        s.begin(&ctx(0));
        s.begin(&ctx(16_666_667));
        let plan = s.begin(&ctx(10 * NANOS_PER_SEC + 5_000_000));
        assert_eq!(plan.steps, Steps::Fixed(0), "the stall is dropped, not replayed");
        assert_eq!(s.backlog.drops(), 1);
        assert!(s.backlog.leftover() < 16_666_667, "only the fraction of a tick is kept");
    }

    #[test]
    fn a_backwards_clock_is_treated_as_standing_still() {
        let mut s = CatchUp::new(&StrategyConfig::default());
        s.begin(&ctx(100_000_000));
        s.begin(&ctx(150_000_000));
        assert_eq!(s.begin(&ctx(10)).steps, Steps::Fixed(0));
        assert_eq!(s.begin(&ctx(150_000_000)).steps, Steps::Fixed(0));
    }

    #[test]
    fn content_time_is_the_latest_tick() {
        let mut s = CatchUp::new(&StrategyConfig::default());
        s.begin(&ctx(7));
        let plan = s.begin(&ctx(7 + 40_000_000));
        assert_eq!(plan.steps, Steps::Fixed(2));
        assert_eq!(plan.content_time, 7 + 33_333_333);
    }
}
