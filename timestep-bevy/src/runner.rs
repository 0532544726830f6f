//! A headless runner that waits for the pacer's wake between frames.

use bevy_app::{App, AppExit, PluginsState};
use bevy_time::{Real, Time};
use timestep_core::{DEFAULT_SPIN, sleep_until};

use crate::pacing::Pacing;

/// `App::set_runner(pacing_runner)`: Bevy's `ScheduleRunnerPlugin` loop,
/// waiting for the pacer's wake ([`Pacing::wake`]) after each frame with
/// timestep-core's `sleep_until` (a sleep, then a spin of `DEFAULT_SPIN`).
/// A frame without a wake starts at once. For a headless app or a server on
/// the real clock (`TimeUpdateStrategy::Automatic`): on a manual clock the
/// wake is not a real time.
pub fn pacing_runner(mut app: App) -> AppExit {
    if app.plugins_state() != PluginsState::Cleaned {
        while app.plugins_state() == PluginsState::Adding {
            std::thread::yield_now();
        }
        app.finish();
        app.cleanup();
    }
    loop {
        app.update();
        if let Some(exit) = app.should_exit() {
            return exit;
        }
        let world = app.world();
        let first = world.get_resource::<Time<Real>>().and_then(Time::first_update);
        let wake = world.get_resource::<Pacing>().and_then(Pacing::wake);
        if let (Some(first), Some(wake)) = (first, wake) {
            sleep_until(first + wake, DEFAULT_SPIN);
        }
    }
}
