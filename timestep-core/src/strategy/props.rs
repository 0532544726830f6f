//! Property tests of every strategy: broken clocks, real-time speed, stalls.
//!
//! Random frame-time sequences are fed to each strategy through the same
//! call order the pacer uses. Case count: 100 000 in release builds (CI runs
//! `cargo test --release -p timestep-core --lib strategy::props`), 2 000 in
//! debug builds so `cargo test` stays quick; `PROPTEST_CASES` overrides both.
//!
//! Real-time speed and stalls are checked at the tick rates where a fixed
//! lag limit went wrong (1 Hz, 1.01 Hz: a single tick is longer than the old
//! 1 s backlog limit) and at the fastest (1000 Hz, where a 60 Hz frame owes
//! more than `max_steps` ticks), with frames of any length a machine that
//! keeps up can produce: up to the step cap (`StrategyConfig::step_cap`).

use super::{FrameContext, Order, Plan, Steps, StrategyConfig, StrategyId, View};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, duration_to_nanos};
use proptest::prelude::*;

const HOUR: Nanos = 3_600 * NANOS_PER_SEC;
const THIRTY_DAYS: Nanos = 30 * 24 * HOUR;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(if cfg!(debug_assertions) {
        2_000
    } else {
        100_000
    })
}

/// One clock event between frames.
#[derive(Clone, Copy, Debug)]
enum Jump {
    Zero,
    Forward(Nanos),
    Backward(Nanos),
    Stall(Nanos),
}

fn jump() -> impl Strategy<Value = Jump> {
    prop_oneof![
        1 => Just(Jump::Zero),
        8 => (0..50_000_000u64).prop_map(Jump::Forward),
        1 => (1..NANOS_PER_SEC).prop_map(Jump::Backward),
        1 => (NANOS_PER_SEC..=HOUR).prop_map(Jump::Stall),
    ]
}

fn apply(now: Nanos, j: Jump) -> Nanos {
    match j {
        Jump::Zero => now,
        Jump::Forward(d) | Jump::Stall(d) => now + d,
        Jump::Backward(d) => now.saturating_sub(d),
    }
}

/// What a frame decided, without absolute times (for start-time invariance).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decision {
    order: Order,
    after: Steps,
    view: View,
    wake_in: Option<i128>,
}

fn run(id: StrategyId, config: &StrategyConfig, start: Nanos, jumps: &[Jump], refresh: Option<Rate>) -> Vec<Decision> {
    let mut s = id.build(config);
    let mut now = start;
    let mut out = Vec::with_capacity(jumps.len() + 1);
    let mut frame = |now: Nanos, out: &mut Vec<Decision>| {
        let plan: Plan = s.begin(&FrameContext { now, refresh });
        let after = match plan.order {
            Order::RenderThenSteps => s.after_render(now),
            Order::StepsThenRender(_) => Steps::NONE,
        };
        let wake = s.end(now);
        out.push(Decision {
            order: plan.order,
            after,
            view: plan.view,
            wake_in: wake.at.map(|t| i128::from(t) - i128::from(now)),
        });
    };
    frame(now, &mut out);
    for &j in jumps {
        now = apply(now, j);
        frame(now, &mut out);
    }
    out
}

fn check_limits(config: &StrategyConfig, decisions: &[Decision]) -> Result<(), TestCaseError> {
    for d in decisions {
        for steps in [d.order.steps_before_render(), d.after] {
            match steps {
                Steps::Fixed(n) => prop_assert!(n <= config.step_cap(), "{n} steps > the step cap"),
                Steps::Variable(dt) => {
                    prop_assert!(dt <= duration_to_nanos(config.max_variable_dt), "variable dt {dt}")
                }
            }
        }
        match d.view {
            View::Interpolate { alpha } => prop_assert!((0.0..=1.0).contains(&alpha), "alpha {alpha}"),
            View::Extrapolate { ahead } => prop_assert!(ahead <= config.tick_rate.period(), "ahead {ahead}"),
            View::Latest => {}
        }
    }
    Ok(())
}

/// The tick rates of the real-time and stall properties: 1 Hz (the lowest
/// allowed), 1.01 Hz and 1.1 Hz (a tick just under the old 1 s limit), 60 Hz
/// and 1000 Hz (the highest).
fn tick_rate() -> impl Strategy<Value = Rate> {
    prop::sample::select(vec![(1, 1), (101, 100), (11, 10), (60, 1), (1000, 1)])
        .prop_map(|(num, den)| Rate::new(num, den).expect("a valid rate"))
}

/// What a run of frames did, as a host that honours wake-ups sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    /// Fixed steps run.
    ticks: u64,
    /// Nanoseconds of variable steps run.
    variable: Nanos,
    /// Frames run.
    frames: u64,
    /// Clock at the start of the first and the last frame.
    first: Nanos,
    last: Nanos,
}

/// Drives one strategy like a host that renders at once and then works for
/// a while (steps, present, the rest of the frame): a frame starts at `t`,
/// ends at `t + work`, and the next starts then or at the strategy's
/// wake-up, whichever is later.
struct Host {
    strategy: super::AnyStrategy,
    refresh: Option<Rate>,
    now: Nanos,
    totals: Totals,
}

impl Host {
    fn new(id: StrategyId, config: &StrategyConfig, refresh: Option<Rate>) -> Host {
        Host { strategy: id.build(config), refresh, now: 0, totals: Totals::default() }
    }

    fn frame(&mut self, work: Nanos) {
        let t = self.now;
        if self.totals.frames == 0 {
            self.totals.first = t;
        }
        self.totals.frames += 1;
        self.totals.last = t;
        let plan = self.strategy.begin(&FrameContext { now: t, refresh: self.refresh });
        let steps = match plan.order {
            Order::StepsThenRender(steps) => steps,
            Order::RenderThenSteps => self.strategy.after_render(t),
        };
        match steps {
            Steps::Fixed(n) => self.totals.ticks += u64::from(n),
            Steps::Variable(dt) => self.totals.variable += dt,
        }
        let end = t + work;
        let wake = self.strategy.end(end);
        self.now = end.max(wake.at.unwrap_or(end));
    }

    /// The machine stops for `d` before the next frame (suspend, debugger).
    fn stall(&mut self, d: Nanos) {
        self.now += d;
    }
}

/// `paced` picks its own render interval: at least the display's refresh
/// period (1/60 s when unknown), at most 6/5 of the longest frame.
const PACED_FLOOR: Nanos = NANOS_PER_SEC / 60;

/// The longest frame work with which `id` can keep real time, and the
/// `max_steps` it needs for it (at least `max_steps`).
///
/// - fixed-step strategies run up to the step cap a frame: frames up to
///   that many ticks;
/// - `variable` steps any delta up to `max_variable_dt`;
/// - `fixed-fps` runs one step a frame: frames up to one tick;
/// - `paced` renders every interval and simulates one interval ahead; a
///   frame of work `w` makes the interval 6/5 w, and after it grew the frame
///   simulates the old and the new interval: up to 12/5 w + the floor must
///   fit in the step cap (which is at least `max_steps`).
fn envelope(id: StrategyId, config: &StrategyConfig) -> (Nanos, u32) {
    let tick = config.tick_rate;
    let cap = config.step_cap();
    let ticks = |n: u32| tick.tick_time(u64::from(n));
    match id {
        StrategyId::Variable => (duration_to_nanos(config.max_variable_dt).min(ticks(cap)), config.max_steps),
        StrategyId::FixedFps => (tick.tick_time(1), config.max_steps),
        StrategyId::Paced => {
            let floor_ticks = u32::try_from(tick.ticks_in(PACED_FLOOR) + 1).expect("a few ticks");
            (ticks(cap) * 5 / 12, cap + floor_ticks)
        }
        _ => (ticks(cap), config.max_steps),
    }
}

/// Asserts that `id` kept real time over `t`. Every strategy but `lockstep`
/// (whose speed is the frame rate by design) makes a claim:
fn check_real_time(id: StrategyId, config: &StrategyConfig, t: &Totals, work_max: Nanos) -> Result<(), TestCaseError> {
    let tick = config.tick_rate;
    let elapsed = t.last - t.first;
    let real_ticks = tick.ticks_in(elapsed);
    let game = tick.tick_time(t.ticks);
    match id {
        // Exact accounting: every whole tick of the clock, none more. With no
        // refresh reported and random frame times, fuzzy and auto never see a
        // steady vsync and step strictly.
        StrategyId::CatchUp
        | StrategyId::Interpolated
        | StrategyId::Extrapolated
        | StrategyId::Fuzzy
        | StrategyId::Auto => {
            prop_assert_eq!(t.ticks, real_ticks, "{}: {} ticks in {} ns", id, t.ticks, elapsed);
        }
        StrategyId::Variable => prop_assert_eq!(t.variable, elapsed, "{}: variable steps sum to the clock", id),
        // One step per frame, frames on the tick grid: the last frame runs tick n + 1.
        StrategyId::FixedFps => {
            prop_assert_eq!(t.ticks, real_ticks + 1, "{}: {} ticks in {} ns", id, t.ticks, elapsed);
        }
        // Simulated to just past the end of the current interval: never behind
        // the clock, ahead by at most the interval and one tick.
        StrategyId::Paced => {
            let interval = PACED_FLOOR.max(work_max / 5 * 6);
            prop_assert!(t.ticks >= real_ticks, "{id}: {} ticks behind {real_ticks} in {elapsed} ns", t.ticks);
            prop_assert!(
                t.ticks <= tick.ticks_in(elapsed + interval) + 1,
                "{id}: {} ticks, more than an interval ahead of {real_ticks}",
                t.ticks
            );
        }
        // Deltas averaged over 4 frames: up to 3/2 of a frame is still in the
        // average at the end, 3/2 ticks of the initial history were credited
        // at the start; each delta may be snapped by up to 0.2 ms to a
        // multiple of the refresh.
        StrategyId::Snapped => {
            let snapping = 200_000 * t.frames;
            let period = tick.period();
            prop_assert!(
                game + period + work_max * 3 / 2 + snapping + 4 >= elapsed,
                "{id}: game {game} ns fell behind the clock {elapsed} ns"
            );
            prop_assert!(
                game <= elapsed + period * 3 / 2 + snapping + 4,
                "{id}: game {game} ns ran ahead of the clock {elapsed} ns"
            );
        }
        // Speed is the frame rate: one step per frame, whatever the clock says.
        StrategyId::Lockstep => prop_assert_eq!(t.ticks, t.frames, "{}: one step per frame", id),
        // Only the ten run here; a custom strategy makes its own claims.
        StrategyId::Custom(_) => {}
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn broken_clocks_never_break_a_strategy(
        jumps in prop::collection::vec(jump(), 1..48),
        tick in prop::sample::select(vec![1u64, 5, 30, 60, 144, 1000]),
        max_steps in 1u32..=12,
        refresh in prop::option::of(prop::sample::select(vec![50u64, 60, 144, 240])),
    ) {
        let config = StrategyConfig { tick_rate: Rate::from_hz(tick), max_steps, ..StrategyConfig::default() };
        let refresh = refresh.map(Rate::from_hz);
        for id in StrategyId::ALL {
            let decisions = run(id, &config, 0, &jumps, refresh);
            check_limits(&config, &decisions)?;
        }
    }

    #[test]
    fn a_clock_starting_at_thirty_days_decides_exactly_like_one_starting_at_zero(
        jumps in prop::collection::vec(jump(), 1..32),
    ) {
        // Backward jumps saturate at 0 for the early clock, so keep them away from it.
        let config = StrategyConfig::default();
        for id in StrategyId::ALL {
            let early = run(id, &config, HOUR * 10, &jumps, Some(Rate::from_hz(60)));
            let late = run(id, &config, HOUR * 10 + THIRTY_DAYS, &jumps, Some(Rate::from_hz(60)));
            prop_assert_eq!(early, late, "{} depends on the clock's origin", id);
        }
    }

    #[test]
    fn every_strategy_keeps_real_time_while_frames_fit_in_the_step_cap(
        tick in tick_rate(),
        max_steps in 1u32..=12,
        // Each frame's work as a fraction of the longest the strategy keeps up with.
        works in prop::collection::vec(0u64..=1_000_000, 1..64),
    ) {
        for id in StrategyId::ALL {
            let config = StrategyConfig { tick_rate: tick, max_steps, ..StrategyConfig::default() };
            let (work_max, max_steps) = envelope(id, &config);
            let config = StrategyConfig { max_steps, ..config };
            let mut host = Host::new(id, &config, None);
            for &w in &works {
                let work = u128::from(work_max) * u128::from(w) / 1_000_000;
                host.frame(Nanos::try_from(work).expect("at most work_max"));
            }
            check_real_time(id, &config, &host.totals, work_max)?;
        }
    }

    #[test]
    fn a_stall_longer_than_the_lag_limit_is_dropped_not_replayed(
        tick in tick_rate(),
        max_steps in 1u32..=12,
        before in 1usize..40,
        beyond in 1..=HOUR,
    ) {
        for id in StrategyId::ALL {
            let config = StrategyConfig { tick_rate: tick, max_steps, ..StrategyConfig::default() };
            let period = tick.period();
            let mut host = Host::new(id, &config, None);
            for _ in 0..before {
                host.frame(period);
            }
            let ticks_before = host.totals.ticks + host.totals.variable / period;
            host.stall(config.lag_limit_nanos() + beyond);
            // Short frames after the stall: a strategy that replayed it would
            // run up to the step cap in each.
            let stall_start = host.now;
            for _ in 0..16 {
                host.frame(period / 2);
            }
            let real = host.totals.last - stall_start;
            let gained = host.totals.ticks + host.totals.variable / period - ticks_before;
            let allowed = match id {
                // Never looks at the clock: one step per frame.
                StrategyId::Lockstep => 16,
                // The tick the stall frame runs (or the one a variable step
                // is replaced by), the fraction of a tick kept, rounding; and
                // paced's lead of one render interval.
                StrategyId::Paced => tick.ticks_in(real + PACED_FLOOR.max(period / 5 * 6)) + 3,
                _ => tick.ticks_in(real) + 3,
            };
            prop_assert!(
                gained <= allowed,
                "{}: {} ticks in the {} ns after a stall of {} ns (at most {})",
                id, gained, real, config.lag_limit_nanos() + beyond, allowed
            );
        }
    }
}

/// Frames of `period` for `seconds`, then one stall, then frames again;
/// returns the updates run after the stall.
fn updates_after_stall(id: StrategyId, config: &StrategyConfig, stall: Nanos, after: Nanos) -> u64 {
    let mut s = id.build(config);
    let period = Rate::from_hz(60).period();
    let mut now = 0;
    let mut frame = |now: Nanos| {
        let plan = s.begin(&FrameContext { now, refresh: Some(Rate::from_hz(60)) });
        let steps = match plan.order {
            Order::StepsThenRender(steps) => steps,
            Order::RenderThenSteps => s.after_render(now),
        };
        s.end(now);
        u64::from(steps.count())
    };
    while now < NANOS_PER_SEC {
        frame(now);
        now += period;
    }
    now += stall;
    let end = now + after;
    let mut total = 0;
    while now <= end {
        total += frame(now);
        now += period;
    }
    total
}

#[test]
fn after_a_ten_second_stall_no_strategy_catches_up_more_than_the_lag_limit() {
    let config = StrategyConfig::default();
    let one_second_of_ticks = config.tick_rate.ticks_in(NANOS_PER_SEC);
    let lag_limit_ticks = config.tick_rate.ticks_in(config.lag_limit_nanos());
    for id in StrategyId::ALL {
        let updates = updates_after_stall(id, &config, 10 * NANOS_PER_SEC, NANOS_PER_SEC);
        // One second of frames may run one second of ticks (plus a frame of
        // rounding); anything beyond the lag limit on top would be replaying the stall.
        assert!(
            updates <= one_second_of_ticks + lag_limit_ticks + 2,
            "{id}: {updates} updates in the second after a 10 s stall"
        );
        assert!(updates >= 30, "{id}: the game must keep running after a stall ({updates} updates)");
    }
}
