//! `snapped`: Glaiel's later frame timer (and Godot's delta smoothing idea).
//!
//! Timer noise, not the loop, is what makes a vsynced accumulator stutter.
//! This timer cleans the measured delta before it reaches the accumulator:
//!
//! ```text
//! delta = now − previous                       integer nanoseconds
//! delta > lag limit → 1 tick;  delta < 0 → 0   (stalls, broken clocks)
//! |delta − k·refresh| < 0.2 ms → k·refresh     (k = 1, 2, 3, 4 and ½)
//! delta = (sum of the last 4 deltas + carried remainder) / 4, remainder carried
//! acc += delta; acc > lag limit → resync (acc = 0)
//! while acc >= 1 tick: step; acc −= 1 tick
//! draw lerp(previous, current, acc / tick)
//! ```
//!
//! Glaiel's timer calls anything over 8 ticks a stall. His ticks are display
//! frames (1/60 s, so 133 ms); ours go up to 1000 Hz, where 8 ticks are 8 ms
//! and every 60 Hz frame counted as a stall (the game ran at 6 % speed). A
//! stall is wall time, so this timer uses the lag limit every strategy shares
//! ([`StrategyConfig::lag_limit`]: 1 s, or the step cap + 2 ticks if longer).
//!
//! The refresh period is the display's when known, else 1/60 s (Glaiel's
//! choice). The accumulator is kept in units of `1 / (1e9 · num)` s so that
//! `acc −= 1 tick` is exact for any rational tick rate: no rounded period is
//! ever subtracted.

use super::{FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyId, StrategyInfo, View};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, round_to_nanos};

/// Deltas this close to a multiple of the refresh period are snapped to it.
pub const SNAP_TOLERANCE: Nanos = 200_000;

/// Frames averaged.
pub const HISTORY: usize = 4;

/// The snapped, averaged, interpolated timer.
#[derive(Debug, Clone)]
pub struct Snapped {
    tick: Rate,
    max_steps: u32,
    /// Deltas and backlogs beyond this are stalls.
    lag_limit: Nanos,
    period: Nanos,
    history: [Nanos; HISTORY],
    next: usize,
    residual: Nanos,
    /// Accumulated time, in ns × `tick.num()`; one tick is `tick.den() · 1e9`.
    acc: u128,
    last_now: Option<Nanos>,
    origin: Nanos,
    ticks: u64,
    resyncs: u64,
    snapped_frames: u64,
}

impl Snapped {
    /// A fresh `snapped`.
    pub fn new(config: &StrategyConfig) -> Snapped {
        let period = config.tick_rate.period();
        Snapped {
            tick: config.tick_rate,
            max_steps: config.step_cap(),
            lag_limit: config.lag_limit(),
            period,
            history: [period; HISTORY],
            next: 0,
            residual: 0,
            acc: 0,
            last_now: None,
            origin: 0,
            ticks: 0,
            resyncs: 0,
            snapped_frames: 0,
        }
    }

    fn one_tick(&self) -> u128 {
        u128::from(self.tick.den()) * u128::from(NANOS_PER_SEC)
    }

    fn alpha(&self) -> f32 {
        (self.acc as f64 / self.one_tick() as f64).clamp(0.0, 1.0) as f32
    }

    fn clean(&mut self, raw: Nanos, refresh: Option<Rate>) -> Nanos {
        let mut delta = if raw > self.lag_limit { self.period } else { raw };
        let vsync = refresh.map_or(NANOS_PER_SEC / 60, Rate::period);
        let candidates = [vsync, vsync * 2, vsync * 3, vsync * 4, vsync.div_ceil(2)];
        if let Some(&snap) = candidates.iter().find(|&&c| delta.abs_diff(c) < SNAP_TOLERANCE) {
            if snap != delta {
                self.snapped_frames += 1;
            }
            delta = snap;
        }
        self.history[self.next] = delta;
        self.next = (self.next + 1) % HISTORY;
        let sum: Nanos = self.history.iter().sum::<Nanos>() + self.residual;
        self.residual = sum % HISTORY as Nanos;
        sum / HISTORY as Nanos
    }
}

impl Strategy for Snapped {
    fn info(&self) -> &'static StrategyInfo {
        StrategyId::Snapped.info()
    }

    fn reset(&mut self, config: &StrategyConfig) {
        *self = Snapped::new(config);
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let raw = match self.last_now {
            None => {
                self.origin = ctx.now;
                0
            }
            Some(last) => ctx.now.saturating_sub(last),
        };
        self.last_now = Some(self.last_now.map_or(ctx.now, |l| l.max(ctx.now)));
        let mut steps = 0;
        if raw > 0 || self.ticks > 0 {
            let delta = self.clean(raw, ctx.refresh);
            self.acc += u128::from(delta) * u128::from(self.tick.num());
            if self.acc > u128::from(self.lag_limit) * u128::from(self.tick.num()) {
                self.acc = 0;
                self.resyncs += 1;
            }
            while steps < self.max_steps && self.acc >= self.one_tick() {
                self.acc -= self.one_tick();
                steps += 1;
            }
        }
        self.ticks += u64::from(steps);
        let alpha = self.alpha();
        let prev = self.origin.saturating_add(self.tick.tick_time(self.ticks.saturating_sub(1)));
        let cur = self.origin.saturating_add(self.tick.tick_time(self.ticks));
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(steps)),
            view: View::Interpolate { alpha },
            content_time: prev + round_to_nanos((cur - prev) as f64 * f64::from(alpha)),
        }
    }

    fn status(&self) -> String {
        format!("{} deltas snapped, {} resyncs, alpha {:.2}", self.snapped_frames, self.resyncs, self.alpha())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(deltas: &[Nanos], refresh: Option<Rate>) -> Vec<u32> {
        let mut s = Snapped::new(&StrategyConfig::default());
        let mut now = 50;
        let mut out = vec![s.begin(&FrameContext { now, refresh }).order.steps_before_render().count()];
        for d in deltas {
            now += d;
            out.push(s.begin(&FrameContext { now, refresh }).order.steps_before_render().count());
        }
        out
    }

    #[test]
    fn noisy_vsync_deltas_give_exactly_one_update_per_frame() {
        // ±150 µs of noise around 60 Hz: a strict accumulator would double-update.
        let deltas: Vec<Nanos> =
            (0..600).map(|i| if i % 2 == 0 { 16_666_667 + 150_000 } else { 16_666_667 - 150_000 }).collect();
        let counts = run(&deltas, Some(Rate::from_hz(60)));
        let after_warmup = &counts[2..];
        assert!(after_warmup.iter().all(|&c| c == 1), "{after_warmup:?}");
    }

    #[test]
    fn a_long_stall_resyncs_instead_of_catching_up() {
        let counts = run(&[16_666_667, 16_666_667, 5_000_000_000, 16_666_667], None);
        assert!(counts.iter().all(|&c| c <= 2), "{counts:?}");
    }

    #[test]
    fn over_a_long_run_the_game_keeps_wall_time_exactly() {
        // 144 Hz frames, 60 Hz ticks: nothing snaps, averaging keeps every nanosecond.
        let period = Rate::from_hz(144).period();
        let counts = run(&vec![period; 144 * 60], Some(Rate::from_hz(144)));
        let updates: u32 = counts.iter().sum();
        let wall = period * 144 * 60;
        let expected = Rate::from_hz(60).ticks_in(wall) as u32;
        assert!(updates.abs_diff(expected) <= 1, "{updates} updates for {expected} ticks of wall time");
    }
}
