//! Waits on the real clock: the precise one a game makes (timestep-core's
//! `sleep_until`), and the busy one artificial load makes.

use timestep_core::{DEFAULT_SPIN, sleep_until};

use crate::time::{Clock, Nanos, RealClock};

/// Blocks until `clock` reads at least `deadline`, as the core tells a game
/// to wait: `sleep_until(deadline, DEFAULT_SPIN)`, a native sleep for all but
/// the last 250 µs, then a spin that does not yield (on a loaded machine a
/// yield hands the core away for a whole timeslice). Returns at once for
/// past deadlines.
pub(crate) fn wait_until(clock: &RealClock, deadline: Nanos) {
    sleep_until(clock.instant_at(deadline), DEFAULT_SPIN);
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
    fn wait_until_returns_at_or_after_the_deadline() {
        let clock = RealClock::new();
        let deadline = clock.now() + 2_000_000;
        wait_until(&clock, deadline);
        assert!(clock.now() >= deadline, "woke {} ns early", deadline - clock.now());
        wait_until(&clock, 0);
    }
}
