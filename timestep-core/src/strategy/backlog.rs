//! `Backlog`: exact fixed-step accounting, shared by every accumulator strategy.
//!
//! The accumulator is not a float that gains a frame delta and loses a
//! rounded period per step (Glaiel's naive timer): it is the exact
//! difference between the clock and the time of the last tick run,
//! `now - origin - tick_time(done)`, so it can never drift. `catch-up`,
//! `interpolated` and `extrapolated` ([`super::FixedStep`]) and the strict
//! fallbacks of `fuzzy`/`auto` all step from it.
//!
//! ```text
//! ticks:   |---0---|---1---|---2---|---3---|        tick_time(n) = n · period, exact
//! frames:  F0        F1          F2   F3
//! steps:   0         1           1    1       (0/2 patterns appear when frames
//!                                              straddle tick boundaries by noise)
//! ```
//!
//! Two guards keep it alive on a bad machine: at most
//! [`StrategyConfig::step_cap`] steps per frame
//! (the picture still updates), and a backlog beyond the lag limit
//! ([`StrategyConfig::lag_limit`]) is dropped whole (the game slows down
//! instead of freezing: the spiral of death, a suspended laptop).
//!
//! The limit is measured *before* the frame's steps, so it must leave room
//! for one whole frame of due ticks. A fixed 1 s did not: at a 1 Hz tick the
//! backlog reaches 1 s plus a frame just as the first tick falls due, and
//! every tick was dropped (the game froze; 54 % speed at 1.01 Hz).
//!
//! ```text
//! 1 Hz tick, 60 Hz frames, lag limit 1 s:
//! backlog  0 ... 0.983 s   1.000 s   1.017 s → "> 1 s": dropped, the tick never runs
//! lag limit max(1 s, (step cap + 2) ticks) = 12 s: the tick runs at 1.000 s
//! ```

use super::StrategyConfig;
use crate::time::{Nanos, Rate, TickStep, nanos_as_f64, round_to_nanos};

/// Exact fixed-step accounting against a moving origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Backlog {
    tick: Rate,
    max_steps: u32,
    lag_limit: Nanos,
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
    /// The times of the ticks around `done`, always in step with it.
    near: NearTicks,
    /// One tick as a quotient and remainder (`None`: each tick time is
    /// divided out), and the remainder of `near.after`: the tick after it
    /// comes without a division, as a frame that runs one step asks for it.
    step: Option<TickStep>,
    after_rem: u64,
}

/// `tick_time` of the ticks before, at and after a count of ticks run: every
/// frame asks for them (how much is owed, alpha, what the picture depicts),
/// and kept in step with the count they cost one division a frame instead of
/// seven. Every division is a `u64` one (tens of cycles): `Backlog`'s three
/// accessors were 8 % of an `interpolated` simulation's time (perf), 5 % of
/// its instructions; `paced` asks for seven a frame too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NearTicks {
    /// `tick_time(done - 1)` (0 for tick 0).
    pub(crate) before: Nanos,
    /// `tick_time(done)`.
    pub(crate) at: Nanos,
    /// `tick_time(done + 1)`.
    pub(crate) after: Nanos,
}

impl NearTicks {
    /// The times around tick `done` of `tick`.
    pub(crate) fn of(tick: Rate, done: u64) -> NearTicks {
        NearTicks {
            before: tick.tick_time(done.saturating_sub(1)),
            at: tick.tick_time(done),
            after: tick.tick_time(done + 1),
        }
    }

    /// These times, which are around `from`, moved to be around `to`. One
    /// tick on reuses two of them and divides once, for `after`, unless the
    /// caller has it already (`after_to`).
    #[inline]
    pub(crate) fn moved(self, tick: Rate, from: u64, to: u64, after_to: Option<Nanos>) -> NearTicks {
        if to == from {
            self
        } else if to == from + 1 {
            let after = after_to.unwrap_or_else(|| tick.tick_time(to + 1));
            NearTicks { before: self.at, at: self.after, after }
        } else {
            NearTicks::of(tick, to)
        }
    }
}

impl Backlog {
    /// A backlog for `config`'s tick rate and guards.
    pub(crate) fn new(config: &StrategyConfig) -> Backlog {
        Backlog {
            tick: config.tick_rate,
            max_steps: config.step_cap(),
            lag_limit: config.lag_limit_nanos(),
            origin: None,
            done: 0,
            last_now: 0,
            total: 0,
            drops: 0,
            near: NearTicks::of(config.tick_rate, 0),
            step: TickStep::of(config.tick_rate),
            after_rem: TickStep::of(config.tick_rate).map_or(0, |step| step.at(1).1),
        }
    }

    /// Sets the ticks run since `origin`, keeping [`NearTicks`] in step
    /// (`next_after`: the time and remainder of the tick after `near.after`,
    /// which [`Backlog::advance`] computed for a frame of one step).
    // Always: out of line (LLVM's choice) it cost a game's frame 40 instructions.
    #[inline(always)]
    fn set_done(&mut self, done: u64, next_after: Option<(Nanos, u64)>) {
        if done == self.done {
            return;
        }
        match next_after {
            Some((after, rem)) => {
                self.near = NearTicks { before: self.near.at, at: self.near.after, after };
                self.after_rem = rem;
                self.done = done;
            }
            None => self.jump_to(done),
        }
    }

    /// [`Backlog::set_done`] for any other count: a drop, a resync, a rebase.
    #[inline(never)]
    fn jump_to(&mut self, done: u64) {
        self.near = self.near.moved(self.tick, self.done, done, None);
        self.after_rem = self.step.map_or(0, |step| step.at(done + 1).1);
        self.done = done;
    }

    /// `tick_time(done + 2)` and its remainder: the tick after `near.after`.
    #[inline]
    fn after_next(&self) -> (Nanos, u64) {
        match self.step {
            Some(step) => step.next(self.near.after, self.after_rem),
            None => (self.tick.tick_time(self.done + 2), 0),
        }
    }

    /// The tick rate.
    pub(crate) fn tick(&self) -> Rate {
        self.tick
    }

    /// Brings the accounting up to `now` and returns how many ticks to run
    /// (already counted as done). The first call only sets the origin.
    /// A clock that runs backwards is treated as standing still.
    #[inline]
    pub(crate) fn advance(&mut self, now: Nanos) -> u32 {
        let now = now.max(self.last_now);
        self.last_now = now;
        let Some(origin) = self.origin else {
            self.origin = Some(now);
            return 0;
        };
        let elapsed = now - origin;
        // `ticks_in(elapsed) - done` without the division when at most one
        // tick is due (every frame near the tick rate): the next two tick
        // times decide, and the second is the one a step needs next anyway.
        let mut next_after = None;
        let mut due = if elapsed < self.near.after {
            0
        } else {
            let after_next = self.after_next();
            next_after = Some(after_next);
            if elapsed < after_next.0 { 1 } else { self.tick.ticks_in(elapsed).saturating_sub(self.done) }
        };
        let behind = elapsed - self.near.at;
        if behind > self.lag_limit {
            // Drop every whole tick of the backlog, keep the fraction so the
            // picture does not jump back within the current tick.
            let keep = behind - self.tick.tick_time(self.tick.ticks_in(behind));
            self.origin = Some(now - keep);
            self.set_done(0, None);
            self.drops += 1;
            due = 0;
        }
        let steps = due.min(u64::from(self.max_steps)) as u32;
        self.set_done(self.done + u64::from(steps), next_after.filter(|_| steps == 1));
        self.total += u64::from(steps);
        steps
    }

    #[cfg(test)]
    /// Runs exactly `n` more ticks regardless of the clock (fuzzy timers
    /// decide their own counts but keep the exact bookkeeping).
    pub(crate) fn force(&mut self, n: u32) {
        self.set_done(self.done + u64::from(n), None);
        self.total += u64::from(n);
    }

    /// Starts the accounting with the latest tick at `last_tick`: the next
    /// falls due a period later (a switch of strategy keeps the phase). The
    /// tick before it counts as run too, so an interpolated picture goes on
    /// between the two states the world holds instead of freezing on the latest.
    pub(crate) fn continue_from(&mut self, last_tick: Nanos) {
        let (origin, done) = match last_tick.checked_sub(self.tick.tick_time(1)) {
            Some(origin) => (origin, 1),
            None => (last_tick, 0),
        };
        self.origin = Some(origin);
        self.last_now = self.last_now.max(last_tick);
        self.set_done(done, None);
    }

    /// Clock time of the latest tick run; `None` before the first frame.
    pub(crate) fn last_tick(&self) -> Option<Nanos> {
        self.origin.map(|origin| origin + self.near.at)
    }

    /// Restarts the accounting at `now` with nothing owed.
    pub(crate) fn resync(&mut self, now: Nanos) {
        let now = now.max(self.last_now);
        self.last_now = now;
        self.origin = Some(now);
        self.set_done(0, None);
    }

    /// Time since the last tick run, as of the last `advance`. Can exceed a
    /// period when the step cap capped the frame.
    #[inline]
    pub(crate) fn leftover(&self) -> Nanos {
        match self.origin {
            Some(origin) => (self.last_now - origin).saturating_sub(self.near.at),
            None => 0,
        }
    }

    /// `leftover / period`, clamped to [0, 1].
    #[inline]
    pub(crate) fn alpha(&self) -> f64 {
        let period = self.near.after - self.near.at;
        if period == 0 {
            return 1.0;
        }
        // Through `i64`, saturating: one instruction a conversion where
        // `nanos_as_f64`'s two paths became baseline x86-64's six-instruction
        // unsigned one, and a leftover past 2⁶³ ns is more than a period either way.
        let signed = |ns: Nanos| i64::try_from(ns).unwrap_or(i64::MAX) as f64;
        (signed(self.leftover()) / signed(period)).clamp(0.0, 1.0)
    }

    /// Clock time of the latest tick run.
    #[inline]
    pub(crate) fn latest_time(&self) -> Nanos {
        self.origin.unwrap_or(self.last_now) + self.near.at
    }

    /// Clock time of the tick before the latest (what alpha 0 depicts).
    #[inline]
    pub(crate) fn previous_time(&self) -> Nanos {
        self.origin.unwrap_or(self.last_now) + self.near.before
    }

    /// Clock time that `lerp(previous, current, alpha)` depicts for this
    /// `alpha` ([`Backlog::alpha`], which a caller drawing it has already
    /// divided out: a second division was 1 % of an `interpolated` frame).
    #[inline]
    pub(crate) fn time_at(&self, alpha: f64) -> Nanos {
        let prev = self.previous_time();
        let span = self.latest_time() - prev;
        prev + round_to_nanos(nanos_as_f64(span) * alpha)
    }

    #[cfg(test)]
    /// Total ticks run since the last reset.
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// How many times a backlog beyond the lag limit was dropped.
    pub(crate) fn drops(&self) -> u64 {
        self.drops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn backlog(hz: u64) -> Backlog {
        Backlog::new(&StrategyConfig { tick_rate: Rate::from_hz(hz), ..StrategyConfig::default() })
    }

    #[test]
    fn two_60_hz_ticks_fall_due_in_40_ms_and_leave_four_tenths_of_one() {
        let mut backlog = Backlog::new(&StrategyConfig::default());
        backlog.advance(0);
        assert_eq!(backlog.advance(40_000_000), 2, "two 60 Hz ticks in 40 ms");
        assert_eq!(backlog.alpha(), 6_666_667.0 / 16_666_667.0, "6.67 ms into the 16.67 ms from tick 2 to 3");
    }

    #[test]
    fn one_tick_on_the_next_tick_time_comes_from_the_remainder_exactly_as_a_division_gives_it() {
        // 59.94 Hz (16 683 333.3… ns a tick, remainders carrying every third
        // tick) and 144 Hz, one tick a frame and now and then two or a stall.
        for tick in [Rate::new(60000, 1001).unwrap(), Rate::from_hz(144)] {
            let mut b = Backlog::new(&StrategyConfig { tick_rate: tick, ..StrategyConfig::default() });
            b.advance(0);
            let mut now = 0;
            for frame in 1..=3_000_u64 {
                now += match frame % 500 {
                    0 => 2 * NANOS_PER_SEC,
                    250 => 2 * tick.period(),
                    _ => tick.period(),
                };
                b.advance(now);
                assert_eq!(b.near, NearTicks::of(tick, b.done), "{tick}, frame {frame}: the ticks around {}", b.done);
                let exact = TickStep::of(tick).unwrap().at(b.done + 1);
                assert_eq!(
                    (b.near.after, b.after_rem),
                    exact,
                    "{tick}, frame {frame}: the next tick and its remainder"
                );
            }
            assert!(b.drops() >= 5, "{tick}: the stalls were dropped ({} drops)", b.drops());
        }
    }

    #[test]
    fn at_one_hertz_60_hz_frames_run_every_tick_that_falls_due() {
        let mut b = backlog(1);
        let frame = Rate::from_hz(60);
        b.advance(0);
        // Frames 1 ms after each 60 Hz boundary: the first tick falls due in
        // the frame at 1.001 s, the second at 2.001 s.
        let steps: Vec<u32> = (1..=120).map(|n| b.advance(frame.tick_time(n) + 1_000_000)).collect();
        assert_eq!((steps[59], steps[119]), (1, 1), "ticks at 1.001 s and 2.001 s");
        assert_eq!(steps.iter().sum::<u32>(), 2, "two ticks in two seconds");
        assert_eq!(b.drops(), 0, "a backlog of 1.001 s at 1 Hz is one tick owed, not a stall");
    }

    #[test]
    fn at_one_hertz_a_frame_of_max_steps_ticks_runs_them_all() {
        // Ten seconds of catch-up (600 ticks of 60 Hz): a step cap of 10, a lag limit of 12 s.
        let mut b =
            Backlog::new(&StrategyConfig { tick_rate: Rate::from_hz(1), max_steps: 600, ..StrategyConfig::default() });
        b.advance(0);
        // 10.999 s late: 10 ticks owed, 0.999 s left over, within 12 s.
        assert_eq!(b.advance(10 * NANOS_PER_SEC + 999_000_000), 10);
        assert_eq!(b.drops(), 0);
        assert_eq!(b.leftover(), 999_000_000);
    }

    #[test]
    fn at_1000_hz_60_hz_frames_run_all_16_or_17_ticks_they_owe() {
        let mut b = backlog(1000);
        let frame = Rate::from_hz(60);
        b.advance(0);
        let steps: Vec<u32> = (1..=60).map(|n| b.advance(frame.tick_time(n))).collect();
        assert!(steps.iter().all(|&n| n == 16 || n == 17), "{steps:?}");
        assert_eq!(b.total(), 1000, "every tick of the second");
        assert_eq!(b.drops(), 0);
    }

    #[test]
    fn at_1000_hz_a_frame_of_a_sixth_of_a_second_is_caught_up_at_once() {
        let mut b = backlog(1000);
        b.advance(0);
        assert_eq!(b.advance(166_999_999), 166, "the step cap is 167 ticks");
        assert_eq!(b.advance(400_000_000), 167, "233 owed, 167 a frame");
        assert_eq!(b.advance(400_000_000), 67, "the other 67 of 400, no drop");
        assert_eq!(b.drops(), 0);
    }

    #[test]
    fn a_backlog_beyond_the_lag_limit_is_dropped_keeping_the_fraction_of_a_tick() {
        // 1 Hz: lag limit 3 s. 12.25 s late is a stall.
        let mut b = backlog(1);
        b.advance(0);
        assert_eq!(b.advance(12 * NANOS_PER_SEC + 250_000_000), 0, "the stall is dropped, not replayed");
        assert_eq!(b.drops(), 1);
        assert_eq!(b.leftover(), 250_000_000, "the fraction of a tick is kept");
        assert_eq!(b.advance(13 * NANOS_PER_SEC), 1, "the game goes on from there");
    }

    #[test]
    fn a_ten_second_stall_at_60_hz_is_dropped() {
        let mut b = backlog(60);
        b.advance(0);
        b.advance(16_666_667);
        assert_eq!(b.advance(10 * NANOS_PER_SEC + 5_000_000), 0, "the stall is dropped, not replayed");
        assert_eq!(b.drops(), 1);
        assert!(b.leftover() < 16_666_667, "only the fraction of a tick is kept");
    }

    #[test]
    fn a_frame_never_runs_more_than_max_steps_and_the_rest_is_caught_up_later() {
        let config = StrategyConfig { max_steps: 3, ..StrategyConfig::default() };
        let mut b = Backlog::new(&config);
        b.advance(0);
        // 200 ms late: 12 ticks owed, 3 per frame.
        let steps: Vec<u32> = (0..5).map(|_| b.advance(200_000_000)).collect();
        assert_eq!(steps, [3, 3, 3, 3, 0]);
        assert_eq!(b.total(), 12);
    }

    #[test]
    fn the_kept_tick_times_are_always_those_around_the_ticks_run() {
        let mut b = Backlog::new(&StrategyConfig {
            tick_rate: Rate::new(60000, 1001).expect("59.94 Hz"),
            ..StrategyConfig::default()
        });
        let check = |b: &Backlog, what: &str| assert_eq!(b.near, NearTicks::of(b.tick, b.done), "after {what}");
        check(&b, "new");
        b.advance(1_000);
        for (i, now) in
            [16_000_000, 17_000_000, 33_400_000, 90_000_000, 90_000_001, 200_000_000].into_iter().enumerate()
        {
            b.advance(now);
            check(&b, &format!("advance {i} to {now}"));
        }
        b.force(3);
        check(&b, "force 3");
        b.force(1);
        check(&b, "force 1");
        b.advance(20 * NANOS_PER_SEC);
        assert_eq!(b.drops(), 1, "a stall was dropped");
        check(&b, "the drop");
        b.resync(21 * NANOS_PER_SEC);
        check(&b, "resync");
    }

    #[test]
    fn a_backwards_clock_is_treated_as_standing_still() {
        let mut b = backlog(60);
        b.advance(100_000_000);
        b.advance(150_000_000);
        assert_eq!(b.advance(10), 0);
        assert_eq!(b.advance(150_000_000), 0);
    }
}
