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
//! in the platform's [`crate::platform::spin_until`].

use std::time::Duration;

use crate::time::Nanos;

/// How much of a precise wait is spun instead of slept. Linux timer slack
/// plus scheduler latency under load is well below a millisecond; 1 ms of
/// spinning per frame costs ~6 % of a core at 60 fps.
pub(crate) const SPIN_MARGIN: Duration = Duration::from_millis(1);

/// [`SPIN_MARGIN`] in nanoseconds.
pub(crate) const SPIN_MARGIN_NANOS: Nanos = SPIN_MARGIN.as_nanos() as Nanos;

/// What the event loop should do about a wake time, decided in `about_to_wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitSplit {
    /// Draw the next frame now.
    RedrawNow,
    /// Spin the remaining (short) time, then draw.
    SpinThenRedraw(Nanos),
    /// Let the event loop sleep until this clock time, then decide again.
    SleepUntil(Nanos),
}

/// Splits a wait for `wake` (None: as soon as possible) at clock time `now`: sleep, spin, or draw now.
pub(crate) fn split_wait(now: Nanos, wake: Option<Nanos>) -> WaitSplit {
    match wake {
        None => WaitSplit::RedrawNow,
        Some(at) if at <= now => WaitSplit::RedrawNow,
        Some(at) if at - now <= SPIN_MARGIN_NANOS => WaitSplit::SpinThenRedraw(at),
        Some(at) => WaitSplit::SleepUntil(at - SPIN_MARGIN_NANOS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_wake_time_means_redraw_now() {
        assert_eq!(split_wait(100, None), WaitSplit::RedrawNow);
        assert_eq!(split_wait(100, Some(100)), WaitSplit::RedrawNow, "a deadline now is due");
        assert_eq!(split_wait(100, Some(50)), WaitSplit::RedrawNow, "a missed deadline is due");
    }

    #[test]
    fn short_waits_are_spun_and_long_waits_sleep_until_the_spin_starts() {
        let t = 1_000_000_000;
        assert_eq!(split_wait(t, Some(t + SPIN_MARGIN_NANOS)), WaitSplit::SpinThenRedraw(t + SPIN_MARGIN_NANOS));
        assert_eq!(split_wait(t, Some(t + 10)), WaitSplit::SpinThenRedraw(t + 10));
        assert_eq!(split_wait(t, Some(t + 16_000_000)), WaitSplit::SleepUntil(t + 16_000_000 - SPIN_MARGIN_NANOS));
    }
}
