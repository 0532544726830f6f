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

use alloc::format;
use alloc::string::String;

use super::backlog::NearTicks;
use super::{AnyStrategy, FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyRow, View};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, nanos_as_f64, round_to_nanos};

/// Deltas this close to a multiple of the refresh period are snapped to it.
pub const SNAP_TOLERANCE: Nanos = 200_000;

/// Frames averaged.
pub const HISTORY: usize = 4;

/// `snapped`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "snapped",
    "integer deltas snapped to the refresh and averaged, then interpolated: robust against timer noise",
    |config| AnyStrategy::Snapped(Snapped::new(config)),
)
.with_source("Glaiel's later frame timer; Godot's delta smoothing")
.with_trades("up to a tick of latency (it interpolates) for steadiness against timer noise");

/// The snapped, averaged, interpolated timer.
#[derive(Debug, Clone)]
pub(crate) struct Snapped {
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
    /// The tick times around `ticks`, always in step with it.
    near: NearTicks,
    /// The refresh period snapped to and the refresh it is of (`None`: the
    /// 1/60 s default), kept: a division every frame otherwise.
    vsync: (Option<Rate>, Nanos),
    resyncs: u64,
    snapped_frames: u64,
}

/// `v as f64` through `i64` where it fits (see [`nanos_as_f64`]): `u128 as
/// f64` is a library call, and alpha takes two a frame (2 % of a simulated
/// frame's instructions, callgrind).
fn u128_as_f64(v: u128) -> f64 {
    match i64::try_from(v) {
        Ok(signed) => signed as f64,
        Err(_) => v as f64,
    }
}

impl Snapped {
    /// A fresh `snapped`.
    pub(crate) fn new(config: &StrategyConfig) -> Snapped {
        let period = config.tick_rate.period();
        Snapped {
            tick: config.tick_rate,
            max_steps: config.step_cap(),
            lag_limit: config.lag_limit_nanos(),
            period,
            history: [period; HISTORY],
            next: 0,
            residual: 0,
            acc: 0,
            last_now: None,
            origin: 0,
            ticks: 0,
            near: NearTicks::of(config.tick_rate, 0),
            vsync: (None, NANOS_PER_SEC / 60),
            resyncs: 0,
            snapped_frames: 0,
        }
    }

    fn one_tick(&self) -> u128 {
        u128::from(self.tick.den()) * u128::from(NANOS_PER_SEC)
    }

    fn alpha(&self) -> f64 {
        (u128_as_f64(self.acc) / u128_as_f64(self.one_tick())).clamp(0.0, 1.0)
    }

    fn clean(&mut self, raw: Nanos, refresh: Option<Rate>) -> Nanos {
        let mut delta = if raw > self.lag_limit { self.period } else { raw };
        if refresh != self.vsync.0 {
            self.vsync = (refresh, refresh.map_or(NANOS_PER_SEC / 60, Rate::period));
        }
        let vsync = self.vsync.1;
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
    fn reset(&mut self, config: &StrategyConfig) {
        *self = Snapped::new(config);
    }

    /// The clock less the accumulator (snapped and averaged deltas drift
    /// from the tick grid by design).
    fn last_tick(&self) -> Option<Nanos> {
        let acc = self.acc / u128::from(self.tick.num());
        Some(self.last_now?.saturating_sub(u64::try_from(acc).unwrap_or(u64::MAX)))
    }

    /// As the backlog's: the tick before `last_tick` counts as run, the
    /// picture goes on between the two.
    fn continue_from(&mut self, last_tick: Nanos) {
        self.last_now = Some(last_tick);
        self.origin = last_tick;
        if let Some(origin) = last_tick.checked_sub(self.tick.tick_time(1)) {
            self.origin = origin;
            self.near = self.near.moved(self.tick, self.ticks, 1, None);
            self.ticks = 1;
        }
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
        self.near = self.near.moved(self.tick, self.ticks, self.ticks + u64::from(steps), None);
        self.ticks += u64::from(steps);
        let alpha = self.alpha();
        let prev = self.origin.saturating_add(self.near.before);
        let cur = self.origin.saturating_add(self.near.at);
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(steps)),
            view: View::Interpolate { alpha },
            content_time: prev + round_to_nanos(nanos_as_f64(cur - prev) * alpha),
        }
    }

    fn status(&self) -> String {
        format!("{} deltas snapped, {} resyncs, alpha {:.2}", self.snapped_frames, self.resyncs, self.alpha())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

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
    fn a_change_of_refresh_changes_the_period_snapped_to() {
        let mut s = Snapped::new(&StrategyConfig::default());
        let (hz60, hz144) = (Some(Rate::from_hz(60)), Some(Rate::from_hz(144)));
        assert_eq!(s.clean(16_666_000, hz60), 16_666_667, "snapped to the 60 Hz refresh");
        assert_eq!(s.vsync, (hz60, 16_666_667), "60 Hz kept");
        s.clean(6_944_000, hz144);
        assert_eq!(s.vsync, (hz144, 6_944_444), "144 Hz kept after the switch");
        s.clean(16_666_000, None);
        assert_eq!(s.vsync, (None, NANOS_PER_SEC / 60), "unknown: 1/60 s");
    }

    #[test]
    fn wide_accumulators_convert_as_the_plain_conversion_does() {
        for v in [0, 1, u128::from(u64::MAX), (1 << 63) - 1, 1 << 63, u128::MAX] {
            assert_eq!(u128_as_f64(v).to_bits(), (v as f64).to_bits(), "{v}");
        }
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
