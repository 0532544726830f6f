//! Robustness of every strategy against broken clocks (property tests).
//!
//! Random frame-time sequences with zero deltas, backwards jumps and
//! hour-long stalls are fed to each strategy through the same call order the
//! loop driver uses. Case count: 100 000 in release builds (CI runs this file
//! with `--release`), 2 000 in debug builds so `cargo test` stays quick;
//! `PROPTEST_CASES` overrides both.

use proptest::prelude::*;
use timestep_lab::strategy::{FrameContext, Plan, Steps, StrategyConfig, StrategyId, View};
use timestep_lab::time::{NANOS_PER_SEC, Nanos, Rate};

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
    steps: Steps,
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
        let after = if plan.render_first { s.after_render(now) } else { Steps::NONE };
        let wake = s.end(now);
        out.push(Decision {
            steps: plan.steps,
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
        for steps in [d.steps, d.after] {
            match steps {
                Steps::Fixed(n) => prop_assert!(n <= config.max_steps, "{n} steps > max_steps"),
                Steps::Variable(dt) => prop_assert!(dt <= config.max_variable_dt, "variable dt {dt}"),
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
}

/// Frames of `period` for `seconds`, then one stall, then frames again;
/// returns the updates run after the stall.
fn updates_after_stall(id: StrategyId, config: &StrategyConfig, stall: Nanos, after: Nanos) -> u64 {
    let mut s = id.build(config);
    let period = Rate::from_hz(60).period();
    let mut now = 0;
    let mut frame = |now: Nanos| {
        let plan = s.begin(&FrameContext { now, refresh: Some(Rate::from_hz(60)) });
        let mut n = u64::from(plan.steps.count());
        if plan.render_first {
            n += u64::from(s.after_render(now).count());
        }
        s.end(now);
        n
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
fn after_a_ten_second_stall_no_strategy_catches_up_more_than_max_lag() {
    let config = StrategyConfig::default();
    let one_second_of_ticks = config.tick_rate.ticks_in(NANOS_PER_SEC);
    let max_lag_ticks = config.tick_rate.ticks_in(config.max_lag);
    for id in StrategyId::ALL {
        let updates = updates_after_stall(id, &config, 10 * NANOS_PER_SEC, NANOS_PER_SEC);
        // One second of frames may run one second of ticks (plus a frame of
        // rounding); anything beyond max_lag on top would be replaying the stall.
        assert!(
            updates <= one_second_of_ticks + max_lag_ticks + 2,
            "{id}: {updates} updates in the second after a 10 s stall"
        );
        assert!(updates >= 30, "{id}: the game must keep running after a stall ({updates} updates)");
    }
}
