//! An eleventh strategy that lives only in this file: registered at run
//! time, it runs in the simulator, in lane mode and on a key (Shift+1), and
//! it is in `--help` and the overlay's help, with no edit anywhere else.
//!
//! `every-other` runs one fixed step on every second frame and draws the
//! latest state: a game at half the display's rate. Worked by hand on the
//! glaiel model's 60 Hz display with vsync: frame k starts on vblank k (k from
//! 0) and steps when k is odd, so its 100th update is on frame 199, which
//! the simulator stops at: 200 frames, 100 updates, 200 vblanks; the game
//! runs 100 ticks (1.667 s) in 200 refreshes (3.333 s): half speed, a drift
//! of −30 s a minute (the simulator fits it over noisy frame starts: −29.998).

use std::sync::Once;

use clap::{CommandFactory, Parser};
use timestep_lab::app::bindings::{help_lines, strategy_for_key, strategy_keys};
use timestep_lab::app::lanes::Lanes;
use timestep_lab::commands::run::RunArgs;
use timestep_lab::commands::simulate::{SimulateArgs, output};
use timestep_lab::registry;
use timestep_lab::session::DisplayInfo;
use timestep_lab::strategy::{
    FrameContext, Order, Plan, Steps, Strategy, StrategyConfig, StrategyId, StrategyRow, View,
};
use timestep_lab::time::{NANOS_PER_SEC, Nanos};
use winit::keyboard::{KeyCode, ModifiersState};

/// One step on every second frame.
#[derive(Clone, Debug)]
struct EveryOther {
    period: Nanos,
    frames: u64,
    origin: Option<Nanos>,
}

impl Strategy for EveryOther {
    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let origin = *self.origin.get_or_insert(ctx.now);
        self.frames += 1;
        let step = u32::from(self.frames.is_multiple_of(2));
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(step)),
            view: View::Latest,
            content_time: origin + self.frames / 2 * self.period,
        }
    }

    fn reset(&mut self, config: &StrategyConfig) {
        *self = EveryOther { period: config.tick_rate.period(), frames: 0, origin: None };
    }
}

const EVERY_OTHER: StrategyRow =
    StrategyRow::new("every-other", "one fixed step every second frame: half speed, smooth", |config| {
        Box::new(EveryOther { period: config.tick_rate.period(), frames: 0, origin: None })
    });

/// The eleventh strategy, registered once for every test of this file.
fn eleventh() -> StrategyId {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| registry::register(StrategyId::Custom(&EVERY_OTHER)).expect("a new name"));
    StrategyId::Custom(&EVERY_OTHER)
}

#[derive(Parser)]
struct Simulate {
    #[command(flatten)]
    args: SimulateArgs,
}

#[derive(Parser)]
#[command(name = "timestep-lab")]
struct Run {
    #[command(flatten)]
    args: RunArgs,
}

#[test]
fn the_eleventh_is_the_last_of_the_registry_and_parses_by_name() {
    let id = eleventh();
    assert_eq!(registry::count(), 11);
    assert_eq!(registry::all().last(), Some(&id));
    assert_eq!(registry::parse("Every-Other"), Ok(id));
    assert_eq!(registry::count_in_words(), "eleven");
}

#[test]
fn the_eleventh_runs_in_the_simulator_at_half_speed_as_worked_by_hand() {
    eleventh();
    let args = ["simulate", "--strategy", "every-other", "--refresh", "60", "--updates", "100"];
    let table = output(&Simulate::try_parse_from(args).expect("every-other is a --strategy value").args)
        .expect("the simulator runs it");
    let row: Vec<&str> = table.lines().nth(1).expect("a row").split_whitespace().collect();
    // strategy refresh vsync model total_updates vsyncs double skipped game_s system_s startup
    assert_eq!(row[..11], ["every-other", "60", "on", "glaiel", "100", "200", "0", "0", "1.667", "3.333", "0.000"]);
    // The drift is a fitted slope over the glaiel model's noisy frame starts: −30 s a minute to the second.
    let drift_s_per_min: f64 = row[11].parse::<f64>().expect("drift_ms_per_min") / 1000.0;
    assert_eq!(drift_s_per_min.round(), -30.0, "{}", row[11]);
}

#[test]
fn the_eleventh_has_a_lane_that_runs_beside_the_ten() {
    let id = eleventh();
    let all = registry::all();
    let display = DisplayInfo::default().with_monitor("test");
    let mut lanes = Lanes::new(&all, StrategyConfig::default(), &display, [1280.0, 720.0], 0);
    let mut out = Vec::with_capacity(lanes.max_instances());
    let period = NANOS_PER_SEC / 60;
    for frame in 0..60 {
        out.clear();
        lanes.run_lane_frames(frame * period, &mut out);
        lanes.record((frame + 1) * period, true);
    }
    let updates = lanes.updates();
    assert_eq!(updates.len(), 11);
    assert_eq!(updates[10], (id, 30), "one step on every second of 60 frames");
    assert_eq!(updates[0], (StrategyId::Lockstep, 60), "lockstep beside it: one a frame");
}

#[test]
fn the_eleventh_is_on_shift_1_and_in_the_overlay_s_help() {
    let id = eleventh();
    assert_eq!(strategy_for_key(KeyCode::Digit1, ModifiersState::SHIFT), Some(id));
    assert_eq!(strategy_for_key(KeyCode::Digit1, ModifiersState::empty()), Some(StrategyId::Lockstep));
    assert_eq!(strategy_keys().last(), Some(&("Shift+1".to_owned(), id)));
    let line = help_lines().into_iter().find(|(key, _)| key == "Shift+1");
    let expected = "strategy every-other: one fixed step every second frame: half speed, smooth";
    assert_eq!(line, Some(("Shift+1".to_owned(), expected.to_owned())));
}

#[test]
fn the_eleventh_is_in_help_and_a_value_of_strategy() {
    eleventh();
    let run_help = Run::command().render_long_help().to_string();
    assert!(run_help.contains("every-other"), "{run_help}");
    let simulate_help = Simulate::command().render_long_help().to_string();
    assert!(simulate_help.contains("auto, every-other)"), "{simulate_help}");
    let run = Run::try_parse_from(["timestep-lab", "--strategy", "every-other"]);
    assert!(run.is_ok(), "run --strategy every-other parses");
}
