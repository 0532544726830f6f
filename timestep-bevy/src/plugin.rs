//! [`TimestepPlugin`]: the systems that run `FixedMain` as the pacer says.

use bevy_app::{App, FixedMain, Last, Plugin, RunFixedMainLoop, RunFixedMainLoopSystems};
use bevy_ecs::schedule::{IntoScheduleConfigs, ScheduleCleanupPolicy, SystemSet};
use bevy_ecs::system::{Res, ResMut};
use bevy_ecs::world::World;
use bevy_time::{Fixed, Real, Time, TimePlugin, Virtual, run_fixed_main_schedule};
use timestep_core::time::duration_to_nanos;
use timestep_core::{Nanos, Pacer, Rate, StrategyId};

use crate::pacing::{Blend, FrameSteps, MeasuredRefresh, Pacing, STATUS_EVERY, TimestepStrategy, Vsync};

/// Runs Bevy's `FixedMain` (`FixedUpdate` and its neighbours) by a
/// timestep-core strategy at a tick rate, in place of Bevy's accumulator.
///
/// Add it after Bevy's `TimePlugin` (`MinimalPlugins`, `DefaultPlugins`);
/// alone, it adds `TimePlugin` itself.
///
/// ```
/// use bevy_app::App;
/// use timestep_bevy::{Rate, StrategyId, TimestepPlugin};
///
/// App::new().add_plugins(TimestepPlugin { strategy: StrategyId::Interpolated, rate: Rate::from_hz(60) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimestepPlugin {
    /// The strategy to start with ([`TimestepStrategy`] switches it later).
    pub strategy: StrategyId,
    /// The tick rate: `FixedMain` runs with a delta of one period (exact:
    /// 60 Hz is 16 666 667 ns a step, and the ticks fall on the exact grid).
    pub rate: Rate,
}

/// The plugin's two systems, to order a game's own against.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimestepSystems {
    /// In `RunFixedMainLoop` (in Bevy's `RunFixedMainLoopSystems::FixedMainLoop`):
    /// the frame's start, its `FixedMain` runs and [`Blend`].
    Steps,
    /// In `Last`: the frame's present and finish ([`Pacing::wake`], [`FrameSteps::after_present`]).
    Present,
}

impl Plugin for TimestepPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<TimePlugin>() {
            app.add_plugins(TimePlugin);
        }
        let pacer = Pacer::new(self.strategy, self.rate);
        let step = pacer.tick_period();
        if !step.is_zero() {
            app.world_mut().resource_mut::<Time<Fixed>>().set_timestep(step);
        }
        app.insert_resource(Pacing::new(pacer))
            .insert_resource(TimestepStrategy(self.strategy))
            .init_resource::<Blend>()
            .init_resource::<FrameSteps>()
            .init_resource::<Vsync>()
            .init_resource::<MeasuredRefresh>();
        remove_bevy_fixed_loop(app);
        app.add_systems(
            RunFixedMainLoop,
            start_frame.in_set(RunFixedMainLoopSystems::FixedMainLoop).in_set(TimestepSystems::Steps),
        )
        .add_systems(Last, end_frame.in_set(TimestepSystems::Present));
        #[cfg(feature = "winit")]
        app.add_systems(Last, crate::winit::schedule_next_frame.after(TimestepSystems::Present))
            .add_systems(bevy_app::First, crate::winit::finish_wait.before(bevy_time::TimeSystems));
    }

    /// Again once every plugin is built: a `TimePlugin` added after this one
    /// (which Bevy refuses anyway) would have put its runner back.
    fn finish(&self, app: &mut App) {
        remove_bevy_fixed_loop(app);
    }
}

/// Takes Bevy's accumulator out of `RunFixedMainLoop`: the plugin's
/// `start_frame` runs `FixedMain` instead, and two runners would double the steps.
fn remove_bevy_fixed_loop(app: &mut App) {
    // `Err` where it is gone already: nothing to do.
    let _ =
        app.remove_systems_in_set(RunFixedMainLoop, run_fixed_main_schedule, ScheduleCleanupPolicy::RemoveSystemsOnly);
}

/// The pacer's clock: `Time<Real>`'s elapsed time in nanoseconds (0 at Bevy's first frame).
fn now(world: &World) -> Option<Nanos> {
    world.get_resource::<Time<Real>>().map(|real| duration_to_nanos(real.elapsed()))
}

/// The frame's start: what the last present left (`paced`), a strategy
/// switch, Bevy's pause and speed, then the frame's steps and its blend.
fn start_frame(world: &mut World) {
    let Some(now) = now(world) else { return };
    let (paused, speed) = world
        .get_resource::<Time<Virtual>>()
        .map_or((false, 1.0), |virt| (virt.is_paused(), virt.relative_speed_f64()));
    let wanted = world.get_resource::<TimestepStrategy>().map(|s| s.0);
    let Some(mut pacing) = world.get_resource_mut::<Pacing>() else { return };
    let pending = pacing.take_pending();
    if paused {
        pacing.pause();
        run_steps(world, pending);
        if let Some(mut frame_steps) = world.get_resource_mut::<FrameSteps>() {
            *frame_steps = FrameSteps::default();
        }
        return;
    }
    let (frame, tick) = pacing.start_frame(now, wanted, speed);
    run_steps(world, pending.chain(frame.updates()));
    let steps = u32::try_from(frame.updates().len()).unwrap_or(u32::MAX);
    if let Some(mut fixed) = world.get_resource_mut::<Time<Fixed>>() {
        if !tick.is_zero() && tick != fixed.timestep() {
            fixed.set_timestep(tick);
        }
        // Bevy's interpolation reads overstep_fraction: the pacer's alpha.
        let overstep = fixed.overstep();
        fixed.discard_overstep(overstep);
        let timestep = fixed.timestep();
        fixed.accumulate_overstep(timestep.mul_f64(frame.alpha()));
    }
    if let Some(mut blend) = world.get_resource_mut::<Blend>() {
        *blend = Blend::of(frame);
    }
    if let Some(mut frame_steps) = world.get_resource_mut::<FrameSteps>() {
        *frame_steps = FrameSteps::started(steps);
    }
}

/// Runs `FixedMain` once for each update, `Time<Fixed>` (and `Time` within)
/// advanced by its `dt`; `Time` is `Time<Virtual>`'s again after, as Bevy leaves it.
fn run_steps(world: &mut World, updates: impl Iterator<Item = core::time::Duration>) {
    let _ = world.try_schedule_scope(FixedMain, |world, schedule| {
        for dt in updates {
            let Some(mut fixed) = world.get_resource_mut::<Time<Fixed>>() else { return };
            fixed.advance_by(dt);
            let generic = fixed.as_generic();
            if let Some(mut time) = world.get_resource_mut::<Time>() {
                *time = generic;
            }
            schedule.run(world);
        }
    });
    let Some(generic) = world.get_resource::<Time<Virtual>>().map(Time::as_generic) else { return };
    if let Some(mut time) = world.get_resource_mut::<Time>() {
        *time = generic;
    }
}

/// The frame's end, at its own instant on Bevy's clock: its present (the
/// steps a render-first strategy runs after it, kept for the next frame's
/// start) and its finish (the wake); now and then the verdict and refresh.
fn end_frame(
    real: Res<Time<Real>>,
    mut pacing: ResMut<Pacing>,
    mut steps: ResMut<FrameSteps>,
    mut vsync: ResMut<Vsync>,
    mut refresh: ResMut<MeasuredRefresh>,
) {
    let Some(after_present) = pacing.finish_frame(duration_to_nanos(real.elapsed())) else { return };
    steps.presented(after_present);
    if pacing.frames().is_multiple_of(STATUS_EVERY) {
        let pacer = pacing.pacer_mut();
        let verdict = pacer.verdict();
        refresh.set(pacer.measured_refresh());
        vsync.set(verdict.vsync, verdict.text);
    }
}
