//! Precise waiting: sleep most of the way, spin the rest.
//!
//! The OS sleeps in coarse, late steps (a `WaitUntil` of the event loop can
//! come back a millisecond or more after the deadline, worse under load). A
//! strategy that paces frames itself (vsync off, `fixed-fps`, `paced`, the
//! emulated vblank grid) needs its deadline to the tens of microseconds, so
//! the shell splits every such wait in two:
//!
//! ```text
//!   now                         deadline - SPIN_MARGIN     deadline
//!    |------ event loop WaitUntil ------|~~~~ spin ~~~~~~~~~|
//!         (events still handled)          (spin_sleep: busy spin)
//! ```
//!
//! The first part goes through winit (`ControlFlow::WaitUntil`), so input and
//! resize events are still handled; only the last [`SPIN_MARGIN`] is spent
//! in [`spin_until`].

use std::time::Duration;

use crate::time::{Clock, Nanos, RealClock};

/// How much of a precise wait is spun instead of slept. Linux timer slack
/// plus scheduler latency under load is well below a millisecond; 1 ms of
/// spinning per frame costs ~6 % of a core at 60 fps.
pub const SPIN_MARGIN: Duration = Duration::from_millis(1);

/// [`SPIN_MARGIN`] in nanoseconds.
pub const SPIN_MARGIN_NANOS: Nanos = SPIN_MARGIN.as_nanos() as Nanos;

/// Blocks until `clock` reads at least `deadline`: native sleep for all but
/// the last [`SPIN_MARGIN`], then a busy spin. The spin does not yield: on a
/// loaded machine a yield hands the core away for a whole timeslice, which
/// made emulated presents ~3 ms late instead of ~0.03 ms. Returns at once for
/// past deadlines.
pub fn spin_until(clock: &RealClock, deadline: Nanos) {
    let now = clock.now();
    if deadline <= now {
        return;
    }
    let native_accuracy = u32::try_from(SPIN_MARGIN.as_nanos()).unwrap_or(u32::MAX);
    spin_sleep::SpinSleeper::new(native_accuracy)
        .with_spin_strategy(spin_sleep::SpinStrategy::SpinLoopHint)
        .sleep_until(clock.instant_at(deadline));
}

/// Burns the CPU until `clock` reads `deadline` (artificial load must use the
/// core, not sleep, or it would not be load).
pub fn busy_until(clock: &RealClock, deadline: Nanos) {
    while clock.now() < deadline {
        std::hint::spin_loop();
    }
}

/// What the event loop should do about a wake time, decided in `about_to_wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakePlan {
    /// Draw the next frame now.
    RedrawNow,
    /// Spin the remaining (short) time, then draw.
    SpinThenRedraw(Nanos),
    /// Let the event loop sleep until this clock time, then decide again.
    SleepUntil(Nanos),
}

/// Splits a wait for `wake` (None: as soon as possible) at clock time `now`.
pub fn plan_wake(now: Nanos, wake: Option<Nanos>) -> WakePlan {
    match wake {
        None => WakePlan::RedrawNow,
        Some(at) if at <= now => WakePlan::RedrawNow,
        Some(at) if at - now <= SPIN_MARGIN_NANOS => WakePlan::SpinThenRedraw(at),
        Some(at) => WakePlan::SleepUntil(at - SPIN_MARGIN_NANOS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_wake_time_means_redraw_now() {
        assert_eq!(plan_wake(100, None), WakePlan::RedrawNow);
        assert_eq!(plan_wake(100, Some(100)), WakePlan::RedrawNow, "a deadline now is due");
        assert_eq!(plan_wake(100, Some(50)), WakePlan::RedrawNow, "a missed deadline is due");
    }

    #[test]
    fn short_waits_are_spun_and_long_waits_sleep_until_the_spin_starts() {
        let t = 1_000_000_000;
        assert_eq!(plan_wake(t, Some(t + SPIN_MARGIN_NANOS)), WakePlan::SpinThenRedraw(t + SPIN_MARGIN_NANOS));
        assert_eq!(plan_wake(t, Some(t + 10)), WakePlan::SpinThenRedraw(t + 10));
        assert_eq!(plan_wake(t, Some(t + 16_000_000)), WakePlan::SleepUntil(t + 16_000_000 - SPIN_MARGIN_NANOS));
    }

    #[test]
    fn spin_until_returns_at_or_after_the_deadline() {
        let clock = RealClock::new();
        let deadline = clock.now() + 2_000_000;
        spin_until(&clock, deadline);
        assert!(clock.now() >= deadline, "woke {} ns early", deadline - clock.now());
        spin_until(&clock, 0);
    }
}
