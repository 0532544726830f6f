//! Frame pacing under `bevy_winit`'s runner (feature `winit`): the pacer's
//! wake as the event loop's wait, as timestep-core's winit recipe does it.
//!
//! ```text
//!   Last   after the frame's finish: WinitSettings::focused_mode is
//!          Reactive { wait } up to EVENT_LOOP_EARLY before the wake (bevy_winit
//!          counts the wait from the frame's start), Continuous without one
//!   ...    winit's timer (it may round to whole milliseconds)
//!   First  before Bevy's time_system: sleep_until(wake), the precise finish;
//!          the frame starts no earlier than the wake on the pacer's clock
//! ```
//!
//! The last point matters under Bevy's renderer: `Time<Real>` then takes the
//! instant the render world sent at the last present, before the wait.

use bevy_ecs::system::{Res, ResMut};
use bevy_time::{Real, Time, TimeUpdateStrategy};
use bevy_winit::{UpdateMode, WinitSettings};
use timestep_core::time::nanos_to_duration;
use timestep_core::{DEFAULT_SPIN, sleep_until};

use crate::pacing::Pacing;

/// In `Last`, after the frame's finish: how long `bevy_winit` waits before the next frame.
pub(crate) fn schedule_next_frame(real: Res<Time<Real>>, pacing: Res<Pacing>, settings: Option<ResMut<WinitSettings>>) {
    let Some(mut settings) = settings else { return };
    let mode = pacing.event_loop_wait(real.elapsed()).map_or(UpdateMode::Continuous, UpdateMode::reactive);
    if settings.focused_mode != mode {
        settings.focused_mode = mode;
    }
}

/// In `First`, before Bevy reads the clock: the rest of the wait, to the
/// wake, on the real clock only (a manual clock's wake is no real time).
pub(crate) fn finish_wait(real: Res<Time<Real>>, strategy: Res<TimeUpdateStrategy>, mut pacing: ResMut<Pacing>) {
    if !matches!(*strategy, TimeUpdateStrategy::Automatic) {
        return;
    }
    let (Some(first), Some(wake)) = (real.first_update(), pacing.wake_nanos()) else { return };
    sleep_until(first + nanos_to_duration(wake), DEFAULT_SPIN);
    pacing.slept_until(wake);
}
