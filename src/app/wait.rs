//! Precise waiting, as the core's winit recipe waits: the event loop sleeps
//! until a millisecond before the wake, then `sleep_until` finishes the wait.
//!
//! An event loop's timer wakes late (winit's `WaitUntil` can come back a
//! millisecond or more after its deadline, worse under load). A strategy
//! that paces frames itself (vsync off, `fixed-fps`, `paced`, the emulated
//! vblank grid) needs its deadline to the tens of microseconds, so the shell
//! splits every such wait in two, exactly as timestep-core's README tells a
//! game to ("In a winit 0.30 loop"):
//!
//! ```text
//!   now                    wake - EVENT_LOOP_EARLY                    wake
//!    |------ event loop WaitUntil ------|--- sleep ---|~~ DEFAULT_SPIN ~~|
//!         (events still handled)          timestep_core::sleep_until
//! ```
//!
//! The first part goes through winit (`ControlFlow::WaitUntil`), so input and
//! resize events are still handled; the last [`EVENT_LOOP_EARLY`] is the
//! platform's [`crate::platform::wait_until`]: natively the core's
//! `sleep_until(wake, DEFAULT_SPIN)`; a page, which must not block, draws at
//! once.

use timestep_core::EVENT_LOOP_EARLY;

use crate::time::{Nanos, duration_to_nanos};

/// What the event loop should do about a wake time, decided in `about_to_wait`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitSplit {
    /// Draw the next frame now.
    RedrawNow,
    /// Finish the (short) wait for this clock time with the platform's precise wait, then draw.
    WaitThenRedraw(Nanos),
    /// Let the event loop sleep until this clock time, then decide again.
    SleepUntil(Nanos),
}

/// Splits a wait for `wake` (None: as soon as possible) at clock time `now`:
/// the event loop's sleep, the precise finish, or draw now.
pub(crate) fn split_wait(now: Nanos, wake: Option<Nanos>) -> WaitSplit {
    let early = duration_to_nanos(EVENT_LOOP_EARLY);
    match wake {
        None => WaitSplit::RedrawNow,
        Some(at) if at <= now => WaitSplit::RedrawNow,
        Some(at) if at - now <= early => WaitSplit::WaitThenRedraw(at),
        Some(at) => WaitSplit::SleepUntil(at - early),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EARLY: Nanos = 1_000_000;

    #[test]
    fn no_wake_time_means_redraw_now() {
        assert_eq!(split_wait(100, None), WaitSplit::RedrawNow);
        assert_eq!(split_wait(100, Some(100)), WaitSplit::RedrawNow, "a deadline now is due");
        assert_eq!(split_wait(100, Some(50)), WaitSplit::RedrawNow, "a missed deadline is due");
    }

    #[test]
    fn the_event_loop_sleeps_until_a_millisecond_before_the_wake_and_the_rest_is_a_precise_wait() {
        assert_eq!(duration_to_nanos(EVENT_LOOP_EARLY), EARLY, "the recipe's millisecond");
        let t = 1_000_000_000;
        assert_eq!(split_wait(t, Some(t + EARLY)), WaitSplit::WaitThenRedraw(t + EARLY), "within the millisecond");
        assert_eq!(split_wait(t, Some(t + 10)), WaitSplit::WaitThenRedraw(t + 10));
        assert_eq!(split_wait(t, Some(t + EARLY + 1)), WaitSplit::SleepUntil(t + 1), "just beyond it");
        assert_eq!(split_wait(t, Some(t + 16_000_000)), WaitSplit::SleepUntil(t + 15_000_000));
    }
}
