//! The same numbers as the virtual monitor: the plugin on Bevy's manual clock and the
//! core's virtual monitor on the same frame times give the same updates
//! between pictures and the same blend factor, frame by frame, for every
//! strategy.
//!
//! The monitor's machine costs nothing to update, draw or present, so a
//! frame is one instant (as a frame is on Bevy's clock: `Time<Real>` reads
//! once, at its start); vsync is off and the pacer's frame limit is the
//! display's 144 Hz, so frames start at the limit's slots or the strategy's
//! own later wake, each sleep overshooting by up to half a millisecond of
//! seeded noise. The frames' instants are the monitor's timeline renders;
//! Bevy's manual clock replays them (`TimeUpdateStrategy::ManualInstant`).

use std::time::{Duration, Instant};

use bevy_app::App;
use bevy_time::TimeUpdateStrategy;
use timestep_bevy::{Blend, FrameSteps, Pacing, Rate, StrategyId, TimestepPlugin};
use timestep_core::host::Simulation;
use timestep_core::monitor::{Cost, Event, Preset, RunSpec, Stop, simulate};
use timestep_core::vrr::Refresh;
use timestep_core::{Nanos, View};

const TICK: Rate = Rate::from_hz(60);
const DISPLAY: Rate = Rate::from_hz(144);
/// Timeline events kept: about 3 a frame (a render, a wait, updates).
const EVENTS: usize = 6_000;

struct NoWorld;
impl Simulation for NoWorld {
    fn step(&mut self, _dt: Nanos) {}
}

/// One picture of the monitor's run: when it was drawn, what it showed, and
/// how many updates ran since the picture before.
#[derive(Debug, PartialEq)]
struct Picture {
    at: Nanos,
    view: View,
    updates_since: u64,
}

/// The monitor's pictures for `strategy` (the first 2 s, or as many as the
/// timeline kept), the last one left out: the run, or the timeline, may end
/// before the updates after it are all in.
fn monitor_pictures(strategy: StrategyId, seed: u64) -> Vec<Picture> {
    let mut model = Preset::PacingAnswer.model();
    model.update = Cost::ZERO;
    model.render = Cost::ZERO;
    model.present_immediate = Cost::ZERO;
    model.busy = Cost::ZERO;
    model.sleep_overshoot = Cost::between(0, 500_000);
    let spec = RunSpec::new(strategy, Preset::PacingAnswer)
        .with_model(model)
        .with_refresh(Refresh::Fixed(DISPLAY))
        .with_vsync(false)
        .with_frame_limit(Some(DISPLAY))
        .with_settle(0)
        .with_seed(seed)
        .with_stop(Stop::Duration(2_000_000_000))
        .with_timeline(EVENTS);
    let outcome = simulate(&spec, &mut NoWorld);
    let mut pictures: Vec<Picture> = Vec::new();
    let mut updates = 0;
    for event in outcome.timeline.events() {
        match *event {
            Event::Render { at, view } => {
                pictures.push(Picture { at, view, updates_since: updates });
                updates = 0;
            }
            Event::Update { .. } => updates += 1,
            _ => {}
        }
    }
    pictures.pop();
    pictures
}

#[test]
fn the_plugin_and_the_virtual_monitor_give_the_same_updates_and_blend_frame_by_frame_for_every_strategy() {
    for strategy in StrategyId::ALL {
        for seed in [1, 2] {
            let pictures = monitor_pictures(strategy, seed);
            assert!(pictures.len() > 100, "{strategy}: {} frames to compare", pictures.len());
            assert_eq!(pictures[0].at, 0, "{strategy}: the run starts at 0, as Bevy's elapsed time does");

            let mut app = App::new();
            app.add_plugins(TimestepPlugin { strategy, rate: TICK });
            {
                // What the monitor's game was told: the display's refresh, the frame limit.
                let mut pacing = app.world_mut().resource_mut::<Pacing>();
                pacing.pacer_mut().set_refresh(Some(DISPLAY));
                pacing.pacer_mut().set_frame_limit(Some(DISPLAY));
            }
            let start = Instant::now();
            // The updates since the last picture: the last frame's after its present, this one's before its own.
            let mut after_last_present = 0;
            let mut mismatches = Vec::new();
            let mut total = 0;
            for (k, picture) in pictures.iter().enumerate() {
                app.insert_resource(TimeUpdateStrategy::ManualInstant(start + Duration::from_nanos(picture.at)));
                app.update();
                let world = app.world();
                let steps = *world.resource::<FrameSteps>();
                let view = world.resource::<Blend>().view();
                let updates_since = after_last_present + u64::from(steps.before_draw());
                after_last_present = u64::from(steps.after_present());
                total += updates_since;
                if updates_since != picture.updates_since || view != picture.view {
                    mismatches.push(format!(
                        "frame {k} at {} ns: plugin {updates_since} updates, {view:?}; monitor {} updates, {:?}",
                        picture.at, picture.updates_since, picture.view
                    ));
                }
            }
            assert!(mismatches.is_empty(), "{strategy}, seed {seed}: {}", mismatches.join("\n"));
            assert!(total > 100, "{strategy}: the run stepped ({total} updates)");
        }
    }
}
