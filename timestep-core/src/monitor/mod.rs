//! The virtual monitor: the real loop driver and strategies against simulated displays.
//!
//! A run is the window's loop with the platform swapped out. The same
//! [`FrameDriver`] runs the same [`crate::strategy`] state machine on the
//! demo world; only the [`FrameHost`](crate::frame::FrameHost) differs: a
//! [`VirtualDisplay`] whose [`ManualClock`](crate::time::ManualClock) moves
//! by modelled costs instead of real time.
//!
//! ```text
//! while not done:
//!     report = driver.run_frame(world, display)     begin → steps → render → present (vsync wait)
//!     metrics.record(report)                        pattern, doubles, skips, motion, latency
//!     if report.wake.at = Some(t): display.wait_until(t)   (+ sleep overshoot)
//!     display.busy()                                the article's busy(): the loop's own work
//! ```
//!
//! The `glaiel` preset is the seed article's monitor simulator (Tyler Glaiel,
//! "How to make your game run at 60 fps"), so its published table can be
//! reproduced: the naive timer double-updates about a quarter of the
//! refreshes at 60 Hz; the 60–62 fuzzy window on a 59.94 Hz display
//! double-updates about every thousand frames. Everything is integer
//! nanoseconds and a seeded PRNG, so a run is reproducible bit for bit.
//!
//! This module reads no real clock and does not sleep; the `timestep-lab`
//! binary is the shell that prints, plots and shows progress.

mod display;
mod model;
mod report;

mod timeline;
mod trace;

pub use display::VirtualDisplay;
pub use model::{Cost, Model, Presentation, Preset, Stall};
pub use report::{FIELDS, RunReport, to_csv, to_json, to_table};

pub use timeline::{Event, Timeline};
pub use trace::{PRESENTMON_COLUMN, parse_trace, read_trace};

use crate::frame::{FrameDriver, Simulation};
use crate::metrics::{FrameSample, Metrics};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{NANOS_PER_SEC, Nanos, Rate, nanos_to_secs};
use std::sync::Arc;

/// The most frames one run may take: a guard against a model in which time
/// barely moves (every cost zero), not a limit any sane run meets.
pub const MAX_FRAMES: u64 = 100_000_000;

/// How many timeline events `--timeline` keeps per run.
pub const TIMELINE_EVENTS: usize = 200;

/// When a run ends (checked at the start of every frame).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Once this many updates have run (the last frame may overshoot, as in the article).
    Updates(u64),
    /// Once this much clock time has passed.
    Duration(Nanos),
    /// At the end of the trace (only meaningful with one).
    TraceEnd,
}

/// Everything that defines one simulated run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// The strategy to run.
    pub strategy: StrategyId,
    /// Its configuration (tick rate, fuzzy variant, vsync detection, …).
    pub config: StrategyConfig,
    /// Machine and display costs.
    pub model: Model,
    /// Display refresh rate (also told to the driver).
    pub refresh: Rate,
    /// Vsync on or off.
    pub vsync: bool,
    /// Noise seed.
    pub seed: u64,
    /// Clock at the start of the run.
    pub start: Nanos,
    /// When to stop.
    pub stop: Stop,
    /// Timeline events to keep (0 = none).
    pub timeline: usize,
    /// Measured frame times to replay instead of the model's costs.
    pub trace: Option<Arc<[Nanos]>>,
    /// Never step the world past this many updates (determinism checks
    /// compare worlds at exactly tick N); `None` lets the last frame overshoot.
    pub step_limit: Option<u64>,
}

impl RunSpec {
    /// `strategy` on `preset` with its default refresh and vsync, 60 Hz
    /// ticks, seed 0, clock from 0, 10 000 updates.
    pub fn new(strategy: StrategyId, preset: Preset) -> RunSpec {
        let model = preset.model();
        RunSpec {
            strategy,
            config: StrategyConfig::default(),
            model,
            refresh: model.default_refresh,
            vsync: model.default_vsync,
            seed: 0,
            start: 0,
            stop: Stop::Updates(10_000),
            timeline: 0,
            trace: None,
            step_limit: None,
        }
    }
}

/// The result of a run.
#[derive(Clone, Debug)]
pub struct RunOutcome {
    /// What was run.
    pub spec: RunSpec,
    /// Every frame's statistics.
    pub metrics: Metrics,
    /// The first events, if asked for.
    pub timeline: Timeline,
    /// Frames run.
    pub frames: u64,
    /// Clock at the end.
    pub end: Nanos,
    /// The run hit [`MAX_FRAMES`] or the clock guard before its stop condition.
    pub truncated: bool,
}

impl RunOutcome {
    /// The report with the contract's field names.
    pub fn report(&self) -> RunReport {
        let t = self.metrics.totals();
        let model = if self.spec.trace.is_some() { "trace" } else { self.spec.model.preset.name() };
        RunReport {
            strategy: self.spec.strategy.name().to_owned(),
            refresh_hz: self.spec.refresh.hz(),
            vsync: self.spec.vsync,
            tick_rate: self.spec.config.tick_rate.hz(),
            model: model.to_owned(),
            seed: self.spec.seed,
            total_updates: t.updates,
            vsyncs: t.vsyncs,
            double_updates: t.double_updates,
            skipped_renders: t.skipped_renders,
            repeated_frames: t.repeated_frames,
            game_time_s: nanos_to_secs(t.game_time),
            system_time_s: nanos_to_secs(t.system_time),
            speed_ratio: t.stats.speed_ratio,
            drift_ms_per_min: t.stats.drift_ms_per_min,
            judder_ms: t.stats.judder_ms,
            judder_p99_ms: t.stats.judder_p99_ms,
            hitches: t.stats.hitches,
            max_hitch_ms: t.stats.max_hitch_ms,
            hitches_per_min: t.stats.hitches_per_min,
            latency_ms: t.stats.latency_ms,
            latency_p95_ms: t.stats.latency_p95_ms,
            latency_max_ms: t.stats.latency_max_ms,
            present_interval_mean_ms: t.stats.present_interval_mean_ms,
            present_interval_std_ms: t.stats.present_interval_std_ms,
            present_interval_p99_ms: t.stats.present_interval_p99_ms,
            pattern: self.metrics.pattern_prefix().to_owned(),
        }
    }
}

/// Runs `spec` on `world` without progress reports.
pub fn simulate<W: Simulation>(spec: &RunSpec, world: &mut W) -> RunOutcome {
    simulate_world(spec, world, &mut |_| {})
}

/// How often (in frames) the progress callback is called.
const PROGRESS_EVERY: u64 = 1 << 14;

/// Runs `spec` on `world` (which keeps its state: tests read its hash after).
/// `progress` is called now and then with the fraction done, in [0, 1].
pub fn simulate_world<W: Simulation>(spec: &RunSpec, world: &mut W, progress: &mut dyn FnMut(f64)) -> RunOutcome {
    let mut driver = FrameDriver::new(spec.strategy, spec.config);
    driver.set_refresh(Some(spec.refresh));
    driver.set_step_limit(spec.step_limit);
    let mut display = VirtualDisplay::new(spec.model, spec.refresh, spec.vsync, spec.seed, spec.start, spec.timeline);
    if let Some(trace) = &spec.trace {
        display = display.with_trace(trace);
    }
    let mut metrics = Metrics::new(spec.start, Some(spec.refresh));
    // The clock guard: twenty times the expected length plus a minute.
    let expected = match spec.stop {
        Stop::Updates(n) => spec.config.tick_rate.tick_time(n),
        Stop::Duration(d) => d,
        Stop::TraceEnd => u64::MAX / 4,
    };
    let clock_limit = spec.start.saturating_add(expected.saturating_mul(20)).saturating_add(60 * NANOS_PER_SEC);
    let tick = spec.config.tick_rate;
    let mut frames = 0;
    let mut truncated = false;
    loop {
        let now = display.clock();
        let done = match spec.stop {
            Stop::Updates(n) => driver.updates() >= n,
            Stop::Duration(d) => now - spec.start >= d,
            Stop::TraceEnd => false,
        };
        if done || display.trace_done() {
            break;
        }
        if frames >= MAX_FRAMES || now >= clock_limit {
            log::warn!(
                "{} on {}: stopped after {frames} frames at clock {:.3} s, before the run's end",
                spec.strategy,
                spec.refresh,
                nanos_to_secs(now)
            );
            truncated = true;
            break;
        }
        display.begin_frame(driver.game_time(), driver.updates(), tick);
        let report = driver.run_frame(world, &mut display);
        let game_time = driver.game_time();
        display.end_frame(game_time);
        metrics.record(&FrameSample::from_report(&report, game_time));
        if let Some(t) = report.wake.at {
            display.wait_until(t);
        }
        display.busy();
        if display.clock() == now {
            display.nudge();
        }
        frames += 1;
        if frames.is_multiple_of(PROGRESS_EVERY) {
            progress(fraction_done(spec.stop, &driver, &display, spec.start));
        }
    }
    progress(1.0);
    let end = display.clock();
    RunOutcome { spec: spec.clone(), metrics, timeline: display.into_timeline(), frames, end, truncated }
}

fn fraction_done(stop: Stop, driver: &FrameDriver, display: &VirtualDisplay<'_>, start: Nanos) -> f64 {
    let f = if let Some((done, len)) = display.trace_progress() {
        done as f64 / len.max(1) as f64
    } else {
        match stop {
            Stop::Updates(n) => driver.updates() as f64 / n.max(1) as f64,
            Stop::Duration(d) => (display.clock() - start) as f64 / d.max(1) as f64,
            Stop::TraceEnd => 0.0,
        }
    };
    f.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A world that only counts its steps: the virtual monitor's figures do
    /// not depend on what the world does.
    #[derive(Default)]
    struct Counter(u64);

    impl Simulation for Counter {
        fn step(&mut self, _dt: Nanos) {
            self.0 += 1;
        }
    }

    #[test]
    fn the_glaiel_catch_up_run_ends_at_the_first_frame_start_with_n_updates() {
        let outcome = simulate(&RunSpec::new(StrategyId::CatchUp, Preset::Glaiel), &mut Counter::default());
        let t = outcome.metrics.totals();
        assert!((10_000..=10_001).contains(&t.updates), "{t:?}");
        assert!(!outcome.truncated);
    }

    #[test]
    fn the_same_seed_gives_the_same_run_and_another_seed_another() {
        let spec = RunSpec { stop: Stop::Updates(2_000), ..RunSpec::new(StrategyId::CatchUp, Preset::Desktop) };
        let a = simulate(&spec, &mut Counter::default()).report();
        let b = simulate(&spec, &mut Counter::default()).report();
        let c = simulate(&RunSpec { seed: 1, ..spec }, &mut Counter::default()).report();
        assert_eq!(a, b);
        assert_ne!(a, c, "another seed, other noise");
    }

    #[test]
    fn a_model_where_nothing_costs_time_still_finishes() {
        let model = Model {
            update: Cost::ZERO,
            render: Cost::ZERO,
            busy: Cost::ZERO,
            present_immediate: Cost::ZERO,
            ..Preset::Seed000.model()
        };
        let spec = RunSpec { model, stop: Stop::Duration(1_000), ..RunSpec::new(StrategyId::CatchUp, Preset::Seed000) };
        let outcome = simulate(&spec, &mut Counter::default());
        assert_eq!(outcome.frames, 1_000, "each empty frame is charged 1 ns");
    }

    #[test]
    fn a_duration_stop_runs_until_that_much_clock_has_passed() {
        let spec = RunSpec {
            stop: Stop::Duration(NANOS_PER_SEC),
            start: 5 * NANOS_PER_SEC,
            ..RunSpec::new(StrategyId::Fuzzy, Preset::Glaiel)
        };
        let outcome = simulate(&spec, &mut Counter::default());
        assert!(outcome.end >= 6 * NANOS_PER_SEC, "ended at {}", outcome.end);
        assert!(outcome.end < 6 * NANOS_PER_SEC + 20_000_000, "ended at {}", outcome.end);
    }

    #[test]
    fn a_trace_runs_each_of_its_frames_once() {
        let trace: Arc<[Nanos]> = vec![16_666_667; 600].into();
        let spec =
            RunSpec { trace: Some(trace), stop: Stop::TraceEnd, ..RunSpec::new(StrategyId::CatchUp, Preset::Glaiel) };
        let outcome = simulate(&spec, &mut Counter::default());
        assert_eq!(outcome.frames, 600);
        let t = outcome.metrics.totals();
        assert!((598..=600).contains(&t.updates), "{t:?}");
    }
}
