//! A report card made entirely by the virtual monitor: for tests, fixtures,
//! screenshots, and to try `compare` without a real display.
//!
//! Each [`SyntheticMonitor`] stands for a monitor: its "measured" runs are
//! simulator runs of the monitor's model and seed, [`SYNTHETIC_RUN_LENGTH`]
//! each (a tour measures a few seconds per strategy; 20 s keeps today's
//! end-of-run speed error under the best-strategy drift bound); its
//! predictions are the real [`predict`] of the `desktop` model. The present
//! modes are "virtual vsync" and "virtual, vsync off", their intervals from
//! a lockstep run (one frame per present, as fast as presents return: what a
//! tour measures), and the frame trace is the display intervals of an
//! interpolated run. A note on each monitor says it was simulated.

use super::predict::{PredictedDisplay, predict};
use super::schema::{FrameTrace, IntervalStats, Machine, MonitorCard, PresentModeCheck, ReportCard, RunRecord};
use crate::monitor::{Preset, RunSpec, Stop, VirtualDisplay};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, duration_to_nanos};
use timestep_core::Pacer;

/// Display time of each "measured" run.
pub(crate) const SYNTHETIC_RUN_LENGTH: Nanos = 20 * NANOS_PER_SEC;

/// Present intervals sampled per present mode.
pub(crate) const SYNTHETIC_INTERVALS: usize = 1200;

/// A simulated monitor.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticMonitor {
    /// Its `--monitor` number.
    pub index: u32,
    /// Its name.
    pub name: String,
    /// Its refresh rate.
    pub refresh: Rate,
    /// The model its "measured" runs use (`spiky` makes a machine with stalls).
    pub preset: Preset,
    /// The noise seed of its "measured" runs.
    pub seed: u64,
}

/// The present mode names of the virtual monitor, vsync on and off.
fn mode_name(vsync: bool) -> &'static str {
    if vsync { "virtual vsync" } else { "virtual, vsync off" }
}

/// A card for `monitors` with every strategy in `strategies` run with vsync on and off.
pub fn synthetic_card(monitors: &[SyntheticMonitor], strategies: &[StrategyId], config: StrategyConfig) -> ReportCard {
    let machine = Machine {
        name: Some("virtual monitor".to_owned()),
        adapter: Some("none (simulated)".to_owned()),
        ..Machine::this_build()
    };
    let mut card = ReportCard::new(machine);
    card.monitors = monitors.iter().map(|m| monitor_card(m, strategies, config)).collect();
    card
}

fn spec(m: &SyntheticMonitor, strategy: StrategyId, vsync: bool, config: StrategyConfig) -> RunSpec {
    RunSpec::new(strategy, m.preset)
        .with_config(config)
        .with_refresh(m.refresh)
        .with_vsync(vsync)
        .with_seed(m.seed)
        .with_stop(Stop::Duration(SYNTHETIC_RUN_LENGTH))
}

fn monitor_card(m: &SyntheticMonitor, strategies: &[StrategyId], config: StrategyConfig) -> MonitorCard {
    let mut card = MonitorCard {
        index: m.index,
        name: Some(m.name.clone()),
        size_px: Some([1920, 1080]),
        scale_factor: Some(1.0),
        reported_refresh_hz: Some(m.refresh.hz()),
        notes: vec![format!(
            "simulated: the \"measured\" runs are the virtual monitor's {} model (seed {}), the predictions its desktop model",
            m.preset, m.seed
        )],
        ..MonitorCard::default()
    };
    for vsync in [true, false] {
        let intervals = display_intervals(&spec(m, StrategyId::Lockstep, vsync, config), SYNTHETIC_INTERVALS);
        let stats = IntervalStats::from_intervals(&intervals);
        let median = stats.as_ref().map(|_| median(&intervals));
        let measured = median.filter(|_| vsync).map(|p| NANOS_PER_SEC as f64 / p as f64);
        let verdict = match median {
            Some(p) => format!(
                "{}: presents every {:.2} ms, vsync {} (simulated)",
                mode_name(vsync),
                p as f64 / 1e6,
                if vsync { "in effect" } else { "off" }
            ),
            None => format!("{}: no frames", mode_name(vsync)),
        };
        if vsync {
            card.present_cadence_hz = measured;
        }
        card.present_modes.push(PresentModeCheck {
            mode: mode_name(vsync).to_owned(),
            present_kind: Some(if vsync { super::PresentKind::Fifo } else { super::PresentKind::Immediate }),
            vsync: Some(vsync),
            verdict,
            present_cadence_hz: measured,
            intervals: stats,
        });
        for &strategy in strategies {
            let outcome = crate::sim::simulate(&spec(m, strategy, vsync, config));
            card.runs.push(RunRecord {
                vsync_requested: Some(vsync),
                present_mode: Some(mode_name(vsync).to_owned()),
                ..RunRecord::from(&outcome.report())
            });
        }
        card.predictions
            .extend(predict(PredictedDisplay::reporting(m.refresh), vsync, config, strategies, None, 0, 0).0);
    }
    let traced = strategies.iter().copied().find(|&s| s == StrategyId::Interpolated).or(strategies.first().copied());
    if let Some(strategy) = traced {
        let intervals = display_intervals(&spec(m, strategy, true, config), super::schema::TRACE_LEN);
        card.frame_trace = Some(FrameTrace::from_intervals(format!("{strategy}, {}", mode_name(true)), &intervals));
    }
    card
}

/// The lower median of non-empty `values`.
fn median(values: &[Nanos]) -> Nanos {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[(sorted.len() - 1) / 2]
}

/// The first `count` intervals between display times of `spec`'s frames on a fresh demo world.
///
/// The virtual monitor's loop (`monitor::simulate_world`) keeps no display
/// times, so this runs the same frame sequence with a pacer directly.
fn display_intervals(spec: &RunSpec, count: usize) -> Vec<Nanos> {
    let mut world = crate::sim::World::new(&crate::sim::WorldConfig::default());
    let mut pacer = Pacer::with_config(spec.strategy, spec.config);
    pacer.set_refresh(spec.refresh.fixed());
    pacer.set_vrr(spec.refresh.vrr());
    let mut display = VirtualDisplay::new(spec.model, spec.refresh.rate(), spec.vsync, spec.seed, spec.start, 0);
    if let Some(range) = spec.refresh.vrr() {
        display = display.with_vrr(range);
    }
    let mut last = None;
    let mut intervals = Vec::with_capacity(count);
    while intervals.len() < count {
        let now = display.clock();
        display.begin_frame(duration_to_nanos(pacer.game_time()), pacer.total_updates(), spec.config.tick_rate);
        let report = pacer.run_host_frame(&mut world, &mut display);
        display.end_frame(duration_to_nanos(pacer.game_time()));
        if let Some(previous) = last {
            intervals.push(report.display_time.saturating_sub(previous));
        }
        last = Some(report.display_time);
        if let Some(t) = report.wake.at {
            display.wait_until(t);
        }
        display.wait_for_repaint();
        display.busy();
        if display.clock() == now {
            display.nudge();
        }
    }
    intervals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lockstep_with_vsync_presents_once_per_refresh() {
        let m = SyntheticMonitor {
            index: 1,
            name: "a".into(),
            refresh: Rate::from_hz(60),
            preset: Preset::Desktop,
            seed: 0,
        };
        let intervals = display_intervals(&spec(&m, StrategyId::Lockstep, true, StrategyConfig::default()), 100);
        assert_eq!(intervals.len(), 100);
        let period = Rate::from_hz(60).period();
        // The vblank grid puts refresh k at the first ns at or after k/60 s: 16 666 666 or 16 666 667 ns apart.
        assert!(intervals[10..].iter().all(|&i| i.abs_diff(period) <= 1), "{:?}", &intervals[..20]);
    }
}
