//! `timestep-lab simulate`: the shell around the virtual monitor.
//!
//! Parses and validates the flags (every bad value is a one-line
//! [`CliError::Usage`], exit code 2), runs every strategy × refresh
//! combination, and prints a table, CSV or JSON; optionally a timeline per
//! run, an SVG plot, and a progress bar on stderr for runs that take more
//! than a second. The virtual monitor itself lives in `timestep-core`; this
//! shell looks at the real clock only to decide whether to show progress.

use crate::error::CliError;
use crate::monitor::{
    Preset, RunOutcome, RunReport, RunSpec, Stop, TIMELINE_EVENTS, simulate_world, to_csv, to_json, to_table,
};
use crate::strategy::{FuzzyVariant, StrategyConfig, StrategyId};
use crate::time::{Rate, ms_to_nanos, secs_to_nanos};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Lowest tick and refresh rate accepted, Hz.
pub const MIN_HZ: f64 = 1.0;
/// Highest tick and refresh rate accepted, Hz.
pub const MAX_HZ: f64 = 1000.0;
/// Largest `--render-ms` / `--update-ms`: ten seconds per step is a stalled
/// machine, not a model.
pub const MAX_COST_MS: f64 = 10_000.0;
/// Largest `--start-time`, s (about 31 years; u64 nanoseconds reach 584).
pub const MAX_START_S: f64 = 1e9;
/// Largest `--seconds`: a simulated year.
pub const MAX_SECONDS: f64 = 365.0 * 86_400.0;

/// Arguments of `timestep-lab simulate`.
///
/// Runs loop strategies against virtual displays and reports, per run:
/// updates per refresh (the pattern), double updates, skipped renders,
/// repeated frames, game vs system time, speed, judder, hitches, latency and present pacing.
#[derive(clap::Args, Debug, Clone)]
#[command(after_long_help = MODEL_HELP)]
pub struct SimulateArgs {
    /// Strategies to run: comma-separated ids or `all`
    /// (lockstep, fixed-fps, variable, catch-up, interpolated, extrapolated, fuzzy, snapped, paced, auto).
    #[arg(long, value_name = "ID[,ID…]|all", allow_hyphen_values = true, default_value = "catch-up")]
    pub strategy: String,

    /// Display refresh rates, comma-separated (59.94 is the exact 60000/1001);
    /// 1–1000 Hz. Default: the model's (60; seed000: 62.5).
    #[arg(long, value_name = "HZ[,HZ…]", allow_hyphen_values = true)]
    pub refresh: Option<String>,

    /// Vsync on or off. Default: the model's (on; seed000: off).
    #[arg(long, value_name = "on|off", allow_hyphen_values = true)]
    pub vsync: Option<String>,

    /// Simulation tick rate, 1–1000 Hz.
    #[arg(long, value_name = "HZ", allow_hyphen_values = true, default_value = "60")]
    pub tick_rate: String,

    /// Machine and display model: glaiel, desktop, slow, spiky or seed000 (see below).
    #[arg(long, value_name = "MODEL", allow_hyphen_values = true, default_value = "glaiel")]
    pub model: String,

    /// Stop once this many updates have run (checked at frame start). Default 10000.
    #[arg(long, value_name = "N", allow_hyphen_values = true, conflicts_with = "seconds")]
    pub updates: Option<String>,

    /// Stop once this much simulated clock time has passed, instead of --updates.
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub seconds: Option<String>,

    /// Seed of the model's noise; the same seed gives the same run, bit for bit.
    #[arg(long, value_name = "N", allow_hyphen_values = true, default_value = "0")]
    pub seed: String,

    /// Clock reading at the start, seconds (e.g. 2592000 for a machine up for 30 days).
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true, default_value = "0")]
    pub start_time: String,

    /// Render cost, ms: centres the model's render cost here, keeping its noise.
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub render_ms: Option<String>,

    /// Update cost, ms: centres the model's update cost here, keeping its noise.
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub update_ms: Option<String>,

    /// Which of Glaiel's fuzzy timers `fuzzy` runs: 60-62, 59-61 or final.
    #[arg(long, value_name = "V", allow_hyphen_values = true, default_value = "final")]
    pub fuzzy_variant: String,

    /// Turn off `fuzzy`'s vsync detection (the article's raw timer: never falls back to strict stepping).
    #[arg(long)]
    pub no_vsync_detect: bool,

    /// Output: `table` (for people, with pattern lines), `json` (an array of objects) or `csv`.
    #[arg(long, value_name = "table|json|csv", allow_hyphen_values = true, default_value = "table")]
    pub format: String,

    /// Print each run's first 200 events in seed 000's notation (R render, U update, W wait; ms).
    /// With json/csv the timelines go to stderr.
    #[arg(long)]
    pub timeline: bool,

    /// Write an SVG comparing judder, doubles/skips and drift of all runs.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Replay measured frame times instead of the model: one frame time in ms per row
    /// (header optional), or a PresentMon CSV (its MsBetweenPresents column). Runs through it once.
    #[arg(long, value_name = "FILE.csv")]
    pub trace: Option<PathBuf>,
}

const MODEL_HELP: &str = "\
Models (--model):
  glaiel   The seed article's monitor simulator, to reproduce its table. Clock from 0;
           noise f = (1/60)*0.005 s; update 10 us +- f*0.01, render 5 ms +- f*0.01;
           vsync: wait to the next refresh boundary +- f; no vsync: present 1 us +- f;
           busy 1 us +- f*1e-5 after display. Default refresh 60 Hz, vsync on.
  desktop  Present queue of 2 (returns at once while one frame may wait; frames shown at
           successive vblanks, wake 0-100 us late); sleeps overshoot 50-1000 us;
           update 0.1-0.5 ms; render 2-8 ms; no-vsync present 50-200 us. 60 Hz, vsync on.
  slow     desktop with render 20-25 ms: longer than a 60 Hz refresh.
  spiky    desktop plus a 30-100 ms stall every 1.5-2.5 s (seeded).
  seed000  Seed 000's worked example: render 3 ms, update 1 ms, no noise, exact sleeps,
           present 0, vsync off, refresh 62.5 Hz (a 16 ms interval for `paced`).

Every run reports: strategy, refresh_hz, vsync, tick_rate, model, seed, total_updates,
vsyncs, double_updates, skipped_renders, repeated_frames, game_time_s, system_time_s,
speed_ratio, drift_ms_per_min, judder_ms, judder_p99_ms, hitches, max_hitch_ms,
hitches_per_min, latency_ms, latency_p95_ms, latency_max_ms, present_interval_mean_ms,
present_interval_std_ms, present_interval_p99_ms, pattern (first 200 characters).
The table shows the first columns people read; csv and json carry all of them.

Examples:
  timestep-lab simulate --strategy catch-up --refresh 60
  timestep-lab simulate --strategy fuzzy --fuzzy-variant 60-62 --refresh 59.94 --no-vsync-detect
  timestep-lab simulate --strategy all --refresh 60,59.94,144 --model desktop --plot runs.svg
  timestep-lab simulate --strategy paced --model seed000 --tick-rate 200 --timeline";

/// Output format of `simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned table plus pattern lines.
    Table,
    /// A JSON array of report objects.
    Json,
    /// Header plus one row per run.
    Csv,
}

/// A validated `simulate` invocation.
#[derive(Clone, Debug)]
pub struct Invocation {
    /// One spec per strategy × refresh, in the order given.
    pub runs: Vec<RunSpec>,
    /// How to print.
    pub format: Format,
    /// Print timelines.
    pub timeline: bool,
    /// Where to write the SVG.
    pub plot: Option<PathBuf>,
}

fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// A rate within [`MIN_HZ`, `MAX_HZ`].
fn parse_hz(flag: &str, text: &str) -> Result<Rate, CliError> {
    let rate = Rate::parse(text).map_err(|e| usage(format!("--{flag}: {e}")))?;
    if !(MIN_HZ..=MAX_HZ).contains(&rate.hz()) {
        return Err(usage(format!("--{flag}: {} is outside {MIN_HZ}–{MAX_HZ} Hz", text.trim())));
    }
    Ok(rate)
}

/// A finite number within `lo..=hi`, for flag `flag`.
fn parse_number(flag: &str, text: &str, lo: f64, hi: f64, lo_inclusive: bool) -> Result<f64, CliError> {
    let value: f64 = text.trim().parse().map_err(|_| usage(format!("--{flag}: '{text}' is not a number")))?;
    let above_lo = if lo_inclusive { value >= lo } else { value > lo };
    if !value.is_finite() || !above_lo || value > hi {
        let low = if lo_inclusive { format!("at least {lo}") } else { format!("more than {lo}") };
        return Err(usage(format!("--{flag}: {text} must be a finite number, {low} and at most {hi}")));
    }
    Ok(value)
}

fn parse_strategies(text: &str) -> Result<Vec<StrategyId>, CliError> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(StrategyId::ALL.to_vec());
    }
    let ids = text
        .split(',')
        .map(|name| StrategyId::parse(name).map_err(|e| usage(format!("--strategy: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ids)
}

impl SimulateArgs {
    /// Validates every flag and builds the runs.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the first bad flag (or trace row).
    pub fn invocation(&self) -> Result<Invocation, CliError> {
        let strategies = parse_strategies(&self.strategy)?;
        let preset = Preset::parse(&self.model).map_err(|e| usage(format!("--model: {e}")))?;
        let mut model = preset.model();
        let refreshes = match &self.refresh {
            Some(list) => list.split(',').map(|hz| parse_hz("refresh", hz)).collect::<Result<Vec<_>, _>>()?,
            None => vec![model.default_refresh],
        };
        let vsync = match self.vsync.as_deref().map(str::trim) {
            None => model.default_vsync,
            Some(v) if v.eq_ignore_ascii_case("on") => true,
            Some(v) if v.eq_ignore_ascii_case("off") => false,
            Some(v) => return Err(usage(format!("--vsync: '{v}' is not on or off"))),
        };
        let tick_rate = parse_hz("tick-rate", &self.tick_rate)?;
        let fuzzy_variant =
            FuzzyVariant::parse(&self.fuzzy_variant).map_err(|e| usage(format!("--fuzzy-variant: {e}")))?;
        let seed: u64 = self
            .seed
            .trim()
            .parse()
            .map_err(|_| usage(format!("--seed: '{}' is not a whole number 0–{}", self.seed, u64::MAX)))?;
        let start = secs_to_nanos(parse_number("start-time", &self.start_time, 0.0, MAX_START_S, true)?);
        if let Some(ms) = &self.render_ms {
            model = model.with_render(ms_to_nanos(parse_number("render-ms", ms, 0.0, MAX_COST_MS, true)?));
        }
        if let Some(ms) = &self.update_ms {
            model = model.with_update(ms_to_nanos(parse_number("update-ms", ms, 0.0, MAX_COST_MS, true)?));
        }
        let trace = match &self.trace {
            Some(path) => Some(Arc::<[u64]>::from(crate::monitor::read_trace(path).map_err(usage)?)),
            None => None,
        };
        let stop = match (&self.updates, &self.seconds) {
            (Some(n), _) => {
                let n: u64 = n
                    .trim()
                    .parse()
                    .map_err(|_| usage(format!("--updates: '{n}' is not a whole number of updates")))?;
                if n == 0 {
                    return Err(usage("--updates: must be at least 1"));
                }
                Stop::Updates(n)
            }
            (None, Some(s)) => Stop::Duration(secs_to_nanos(parse_number("seconds", s, 0.0, MAX_SECONDS, false)?)),
            (None, None) if trace.is_some() => Stop::TraceEnd,
            (None, None) => Stop::Updates(10_000),
        };
        if stop == Stop::Duration(0) {
            return Err(usage("--seconds: must be at least 1 ns"));
        }
        let format = match self.format.trim().to_ascii_lowercase().as_str() {
            "table" => Format::Table,
            "json" => Format::Json,
            "csv" => Format::Csv,
            other => return Err(usage(format!("--format: '{other}' is not table, json or csv"))),
        };
        let config = StrategyConfig {
            tick_rate,
            fuzzy_variant,
            vsync_detect: !self.no_vsync_detect,
            ..StrategyConfig::default()
        };
        let runs = strategies
            .iter()
            .flat_map(|&strategy| {
                let trace = trace.clone();
                refreshes.iter().map(move |&refresh| RunSpec {
                    strategy,
                    config,
                    model,
                    refresh,
                    vsync,
                    seed,
                    start,
                    stop,
                    timeline: if self.timeline { TIMELINE_EVENTS } else { 0 },
                    trace: trace.clone(),
                    step_limit: None,
                })
            })
            .collect();
        Ok(Invocation { runs, format, timeline: self.timeline, plot: self.plot.clone() })
    }
}

/// A hand-drawn `\r[####    ] 42%` on stderr, shown only once a run has
/// taken more than a second and only when stderr is a terminal.
struct Progress {
    started: Instant,
    enabled: bool,
    shown: bool,
    label: String,
}

impl Progress {
    const WIDTH: usize = 30;
    const DELAY: Duration = Duration::from_secs(1);

    fn new(label: String) -> Progress {
        Progress { started: Instant::now(), enabled: std::io::stderr().is_terminal(), shown: false, label }
    }

    fn update(&mut self, fraction: f64) {
        if !self.enabled || self.started.elapsed() < Self::DELAY {
            return;
        }
        self.shown = true;
        let filled = ((fraction * Self::WIDTH as f64) as usize).min(Self::WIDTH);
        let bar = format!("{}{}", "#".repeat(filled), " ".repeat(Self::WIDTH - filled));
        eprint!("\r[{bar}] {:3.0}% {}", fraction * 100.0, self.label);
    }

    fn finish(&mut self) {
        if self.shown {
            eprint!("\r{}\r", " ".repeat(Self::WIDTH + 8 + self.label.chars().count()));
            self.shown = false;
        }
    }
}

/// Runs `spec` on a fresh demo world (`World::new(&WorldConfig::default())`).
pub fn simulate(spec: &RunSpec) -> RunOutcome {
    let mut world = crate::sim::World::new(&crate::sim::WorldConfig::default());
    crate::monitor::simulate(spec, &mut world)
}

/// Runs one spec on a fresh demo world, with a progress bar if it is slow.
fn run_one(spec: &RunSpec) -> RunOutcome {
    let mut world = crate::sim::World::new(&crate::sim::WorldConfig::default());
    let mut progress = Progress::new(format!("{} @ {}", spec.strategy, spec.refresh));
    let outcome = simulate_world(spec, &mut world, &mut |f| progress.update(f));
    progress.finish();
    outcome
}

/// Renders the invocation's output (stdout text, stderr text).
fn render_output(invocation: &Invocation, outcomes: &[RunOutcome]) -> Result<(String, String), CliError> {
    let reports: Vec<RunReport> = outcomes.iter().map(RunOutcome::report).collect();
    let mut out = match invocation.format {
        Format::Table => to_table(&reports),
        Format::Csv => to_csv(&reports),
        Format::Json => to_json(&reports).map_err(|e| CliError::Runtime(format!("cannot write JSON: {e}")))?,
    };
    let mut err = String::new();
    if invocation.timeline {
        let target = if invocation.format == Format::Table { &mut out } else { &mut err };
        target.push('\n');
        for (report, outcome) in reports.iter().zip(outcomes) {
            target.push_str(&format!("timeline {}: {}\n", report.label(), outcome.timeline));
        }
    }
    for outcome in outcomes.iter().filter(|o| o.truncated) {
        err.push_str(&format!(
            "timestep-lab: warning: {} @ {} stopped early after {} frames (time barely moves in this model)\n",
            outcome.spec.strategy, outcome.spec.refresh, outcome.frames
        ));
    }
    Ok((out, err))
}

/// Runs `simulate`.
///
/// # Errors
/// [`CliError::Usage`] for bad flags or an unusable trace; [`CliError::Runtime`]
/// when the output or the plot cannot be written.
pub fn run_simulate(args: &SimulateArgs) -> Result<(), CliError> {
    let invocation = args.invocation()?;
    log::info!("simulate: {} run(s)", invocation.runs.len());
    let outcomes: Vec<RunOutcome> = invocation.runs.iter().map(run_one).collect();
    let (out, err) = render_output(&invocation, &outcomes)?;
    if let Some(path) = &invocation.plot {
        let reports: Vec<RunReport> = outcomes.iter().map(RunOutcome::report).collect();
        crate::plot::write_plot(path, &reports).map_err(CliError::Runtime)?;
    }
    // Written through `io::Write`, not `print!`: a closed pipe (`| head`) is
    // an error to report, not a panic.
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::Runtime(format!("cannot write output: {e}")))?;
    if !err.is_empty() {
        let _ = std::io::stderr().write_all(err.as_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: SimulateArgs,
    }

    fn args(list: &[&str]) -> SimulateArgs {
        Wrapper::parse_from(std::iter::once("simulate").chain(list.iter().copied())).args
    }

    #[test]
    fn defaults_are_catch_up_on_the_glaiel_model_for_ten_thousand_updates() {
        let inv = args(&[]).invocation().unwrap();
        assert_eq!(inv.runs.len(), 1);
        let run = &inv.runs[0];
        assert_eq!(run.strategy, StrategyId::CatchUp);
        assert_eq!(run.model.preset, Preset::Glaiel);
        assert_eq!(run.stop, Stop::Updates(10_000));
        assert!(run.vsync);
        assert_eq!(run.refresh, Rate::from_hz(60));
        assert_eq!(run.config.tick_rate, Rate::from_hz(60));
        assert_eq!(inv.format, Format::Table);
    }

    #[test]
    fn strategies_times_refreshes_give_one_run_each() {
        let inv = args(&["--strategy", "catch-up,fuzzy", "--refresh", "60,59.94,144"]).invocation().unwrap();
        assert_eq!(inv.runs.len(), 6);
        assert_eq!(inv.runs[1].refresh, Rate::new(60000, 1001).unwrap());
        assert_eq!(args(&["--strategy", "all"]).invocation().unwrap().runs.len(), 10);
    }

    #[test]
    fn seed000_defaults_to_vsync_off_at_62_5_hz() {
        let run = args(&["--model", "seed000"]).invocation().unwrap().runs.remove(0);
        assert!(!run.vsync);
        assert_eq!(run.refresh.period(), 16_000_000);
    }

    #[test]
    fn bad_values_are_usage_errors() {
        let cases: &[&[&str]] = &[
            &["--tick-rate", "0"],
            &["--tick-rate", "-60"],
            &["--tick-rate", "NaN"],
            &["--tick-rate", "inf"],
            &["--tick-rate", "5000"],
            &["--refresh", "0"],
            &["--refresh", "60,abc"],
            &["--refresh", "1001"],
            &["--strategy", "warp"],
            &["--model", "laptop"],
            &["--updates", "0"],
            &["--updates", "-3"],
            &["--seconds", "0"],
            &["--seconds", "-1"],
            &["--seconds", "NaN"],
            &["--render-ms", "-1"],
            &["--render-ms", "inf"],
            &["--update-ms", "abc"],
            &["--vsync", "maybe"],
            &["--format", "xml"],
            &["--fuzzy-variant", "61-63"],
            &["--seed", "-1"],
            &["--start-time", "-5"],
        ];
        for case in cases {
            match args(case).invocation() {
                Err(CliError::Usage(msg)) => assert!(!msg.contains('\n'), "{case:?}: multi-line message {msg}"),
                other => panic!("{case:?} should be a usage error, got {other:?}"),
            }
        }
    }
}
