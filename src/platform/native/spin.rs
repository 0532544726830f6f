//! Precise waits on the real clock: sleep most of the way, spin the rest
//! (see `app::wait` for how the shell splits a wait).

use crate::app::wait::SPIN_MARGIN;
use crate::time::{Clock, Nanos, RealClock};

/// Blocks until `clock` reads at least `deadline`: native sleep for all but
/// the last [`SPIN_MARGIN`], then a busy spin. The spin does not yield: on a
/// loaded machine a yield hands the core away for a whole timeslice, which
/// made emulated presents ~3 ms late instead of ~0.03 ms. Returns at once for
/// past deadlines.
pub(crate) fn spin_until(clock: &RealClock, deadline: Nanos) {
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
pub(crate) fn busy_until(clock: &RealClock, deadline: Nanos) {
    while clock.now() < deadline {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_until_returns_at_or_after_the_deadline() {
        let clock = RealClock::new();
        let deadline = clock.now() + 2_000_000;
        spin_until(&clock, deadline);
        assert!(clock.now() >= deadline, "woke {} ns early", deadline - clock.now());
        spin_until(&clock, 0);
    }
}
