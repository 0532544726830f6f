//! `timestep-lab simulate`: the shell around the virtual monitor.
//!
//! clap parses the flags into their types ([`crate::cli`]); [`SimulateArgs::invocation`]
//! builds one run per strategy × refresh (× start phase in a `--phases`
//! sweep) and refuses, before any work, runs over the frame budget and
//! output files that cannot be written. Every run is then simulated and
//! printed as a table, CSV or JSON; optionally a timeline per run, an SVG
//! plot, and a progress bar on stderr for runs that take more than a second.
//! The virtual monitor itself lives in `timestep-core`; this shell looks at
//! the real clock only to decide whether to show progress.
//!
//! Start phase: where the first frame starts relative to the display's
//! refresh grid. `--start-time` sets the clock's reading (a machine up for
//! 30 days), `--start-phase` the offset from a vblank; the run starts at the
//! first instant at or after `--start-time` that lies that far after a vblank
//! ([`start_after_vblank`]):
//!
//! ```text
//! vblanks        |·········|·········|·········|
//! --start-time        ^
//! vblank (default)         ^ first frame
//! 0.004                    |-4 ms-^ first frame
//! ```

mod sweep;
mod trace;

use crate::cli::{self, Bounds, StrategyList, Unit};
use crate::error::CliError;
use crate::monitor::{
    Composition, KnownCompositor, MAX_FRAMES, Preset, RunOutcome, RunSpec, Stop, TIMELINE_EVENTS, Trace,
    start_after_vblank,
};
use crate::output::{Progress, bar};
use crate::report::{
    COMPOSITOR_FIELDS, COMPOSITOR_TABLE_FIELDS, FIELDS, Field, RunReport, TRACE_FIELDS, VRR_FIELDS, table_fields,
    to_csv, to_json, to_table, trim_number,
};
use crate::rng::SplitMix64;
use crate::strategy::{FuzzyVariant, StrategyConfig, StrategyId};
use crate::time::Instant;
use crate::time::{Nanos, Rate};
use crate::vrr::Refresh;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use sweep::{SweepRow, sweep_csv, sweep_table};
use trace::{load_trace, trace_composition, trace_display};

/// `--render-ms` / `--update-ms`: ten seconds per step is a stalled machine, not a model.
pub(crate) const COST_MS: Bounds = Bounds { min: 0.0, min_inclusive: true, max: 10_000.0, unit: Unit::Millis };
/// `--start-time`: about 31 years (u64 nanoseconds reach 584).
pub(crate) const START_TIME: Bounds = Bounds { min: 0.0, min_inclusive: true, max: 1e9, unit: Unit::Seconds };
/// `--seconds`: a simulated year at most; the frame budget
/// ([`crate::monitor::MAX_FRAMES`]) is the tighter limit on most models.
pub(crate) const SECONDS: Bounds =
    Bounds { min: 0.0, min_inclusive: false, max: 365.0 * 86_400.0, unit: Unit::Seconds };
/// `--start-phase SECONDS`: up to a whole period of the slowest display (1 Hz).
pub(crate) const PHASE: Bounds = Bounds { min: 0.0, min_inclusive: true, max: 1.0, unit: Unit::Seconds };
/// Most start phases in a sweep: 1000 draws pin a mean to a few tenths of a percent of its range.
pub(crate) const MAX_PHASES: u64 = 1000;
/// Updates when neither `--updates` nor `--seconds` is given (and no trace).
pub(crate) const DEFAULT_UPDATES: u64 = 10_000;

/// Salt of the stream the random start phases are drawn from: the model's
/// noise (seeded by the same `--seed`) stays the same whatever the phase.
const PHASE_STREAM: u64 = 0x5048_4153_4553; // "PHASES"

/// Arguments of `timestep-lab simulate`.
///
/// Runs loop strategies against virtual displays and reports, per run:
/// updates per refresh (the pattern), double updates, skipped renders,
/// repeated frames, game vs system time, speed, judder, hitches, latency and present pacing.
#[derive(clap::Args, Debug, Clone)]
#[command(after_long_help = model_help())]
pub struct SimulateArgs {
    /// Strategies to run: comma-separated ids or `all`.
    #[arg(long, value_name = "ID[,ID…]|all", allow_hyphen_values = true, default_value = "catch-up",
          value_parser = cli::strategy_list, help = strategies_help())]
    pub(crate) strategy: StrategyList,

    /// Display refresh rates, comma-separated.
    #[arg(long, value_name = "HZ|vrr:MIN-MAX[,…]", allow_hyphen_values = true, value_delimiter = ',',
          value_parser = cli::refresh, help = cli::rate_help(
              "Display refreshes, comma-separated: fixed rates or VRR ranges (vrr:48-144: a frame is shown when \
               it is presented, at most MAX and at least MIN times a second; :no-lfc turns off low-framerate \
               compensation)",
              " (59.94 is the exact 60000/1001). Default: the model's (60; pacing-answer: 62.5)"))]
    pub(crate) refresh: Option<Vec<Refresh>>,

    /// The pacer's frame limit: frames start at most this often, whatever the strategy.
    #[arg(long, value_name = "HZ", allow_hyphen_values = true, value_parser = cli::rate,
          help = cli::rate_help(
              "The pacer's frame limit: frames start at most this often, whatever the strategy (below a VRR \
               display's maximum, where frames queue)", ". Default: none"))]
    pub(crate) frame_limit: Option<Rate>,

    /// Vsync on or off. Default: the model's (on; pacing-answer: off).
    #[arg(long, value_name = "on|off", allow_hyphen_values = true, ignore_case = true)]
    pub(crate) vsync: Option<Vsync>,

    /// Simulation tick rate.
    #[arg(long, value_name = "HZ", allow_hyphen_values = true, default_value = "60", value_parser = cli::rate,
          help = cli::rate_help("Simulation tick rate", ""))]
    pub(crate) tick_rate: Rate,

    /// Machine and display model (see below).
    #[arg(long, value_name = "MODEL", allow_hyphen_values = true, ignore_case = true, default_value = "glaiel",
          value_parser = preset())]
    pub(crate) model: Preset,

    /// Stop once this many updates have run (checked at frame start).
    #[arg(long, value_name = "N", allow_hyphen_values = true, conflicts_with = "seconds",
          value_parser = cli::whole(1, u64::MAX), help = updates_help())]
    pub(crate) updates: Option<u64>,

    /// Stop once this much simulated clock time has passed, instead of --updates.
    #[arg(long, value_name = "S", allow_hyphen_values = true, value_parser = SECONDS.nanos(), help = seconds_help())]
    pub(crate) seconds: Option<Nanos>,

    /// Seed of the model's noise (and of random start phases); the same seed gives the same run, bit for bit.
    #[arg(long, value_name = "N", allow_hyphen_values = true, default_value = "0", value_parser = cli::whole(0, u64::MAX))]
    pub(crate) seed: u64,

    /// Clock reading at the start, seconds (e.g. 2592000 for a machine up for 30 days);
    /// the run starts at the first instant from here that has the --start-phase.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true, default_value = "0",
          value_parser = START_TIME.nanos())]
    pub(crate) start_time: Nanos,

    /// Where the first frame starts relative to the refresh grid: on a `vblank` (the article's
    /// setting), at a `random` point of the period drawn from --seed, or SECONDS (0–1) after a vblank.
    #[arg(long, value_name = "vblank|random|SECONDS", allow_hyphen_values = true, default_value = "vblank",
          value_parser = parse_start_phase)]
    pub(crate) start_phase: StartPhase,

    /// Run each strategy × refresh at N random start phases (1–1000, drawn from --seed; the model's
    /// noise stays the same) and report the mean and the range [min–max] of every numeric column.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = cli::whole(1, MAX_PHASES),
          conflicts_with_all = ["start_phase", "timeline", "plot"])]
    pub(crate) phases: Option<u64>,

    /// Render cost, ms (0–10000): centres the model's render cost here, keeping its noise.
    #[arg(long, value_name = "X", allow_hyphen_values = true, value_parser = COST_MS.nanos())]
    pub(crate) render_ms: Option<Nanos>,

    /// Update cost, ms (0–10000): centres the model's update cost here, keeping its noise.
    #[arg(long, value_name = "X", allow_hyphen_values = true, value_parser = COST_MS.nanos())]
    pub(crate) update_ms: Option<Nanos>,

    /// Which of Glaiel's fuzzy timers `fuzzy` runs.
    #[arg(long, value_name = "V", allow_hyphen_values = true, ignore_case = true, default_value = "final",
          value_parser = cli::one_of(&FuzzyVariant::ALL, FuzzyVariant::name))]
    pub(crate) fuzzy_variant: FuzzyVariant,

    /// Turn off `fuzzy`'s vsync detection (the article's raw timer: never falls back to strict stepping).
    #[arg(long)]
    pub(crate) no_vsync_detect: bool,

    /// Output: `table` (for people, with pattern lines), `json` (an array of objects) or `csv`.
    #[arg(
        long,
        value_name = "table|json|csv",
        allow_hyphen_values = true,
        ignore_case = true,
        default_value = "table"
    )]
    pub(crate) format: Format,

    /// Print every report field's definition (a Markdown table) and exit.
    #[arg(long)]
    pub(crate) fields: bool,

    /// Print each run's first 200 events in the frame-pacing answer's notation (R render, U update, W wait; ms).
    /// With json/csv the timelines go to stderr.
    #[arg(long)]
    pub(crate) timeline: bool,

    /// Write an SVG comparing judder, doubles/skips and drift of all runs
    /// (checked before the runs; an existing file is replaced).
    #[arg(long, value_name = "FILE.svg", value_parser = cli::file_name)]
    pub(crate) plot: Option<PathBuf>,

    /// Replay a frame-time capture instead of the model, once through: PresentMon 1.x/2.x, OCAT or
    /// CapFrameX CSV (one swap chain's displayed frames, shown when the capture showed them, at the
    /// refresh measured from its display changes), or one frame time in ms per line (header optional).
    #[arg(long, value_name = "FILE.csv")]
    pub(crate) trace: Option<PathBuf>,

    /// Replay this application's swap chain (its largest) instead of the capture's largest one.
    #[arg(long, value_name = "NAME", requires = "trace")]
    pub(crate) trace_app: Option<String>,

    /// A compositor between the window and the panel (see below): none, a known one's name, or LATCH_MS[:DELAY], +held.
    #[arg(long, value_name = "none|NAME|LATCH_MS[:DELAY][+held]", allow_hyphen_values = true,
          value_parser = Composition::parse, help = compositor_help())]
    pub(crate) compositor: Option<Composition>,

    /// A measured report card (report-….json): its first monitor's refresh
    /// (unless --refresh) and the machine its tour measured, each strategy's
    /// own costs (the desktop model where it measured none), in place of --model.
    #[arg(long, value_name = "FILE", conflicts_with = "trace", value_parser = cli::file_name)]
    pub(crate) card: Option<PathBuf>,
}

fn compositor_help() -> String {
    "A compositor between the window and the panel: `none` (direct scanout, the default; a composed --trace \
     capture: dwm), a known compositor's name, or LATCH_MS[:DELAY]: its repaint begins LATCH_MS (0-1000) before \
     each vblank, a frame committed later waits a refresh more, and what it latched is shown DELAY (0-8) refreshes \
     later. Vsync off through a compositor never tears: the newest frame before each repaint is shown, the ones \
     it replaced never are (frames_replaced). With +held (weston+held, 7:0+held) the compositor also holds the \
     window until it repaints, as Wayland's frame callback holds a winit window's redraw: with vsync off a frame \
     a repaint, each shown a repaint after it started"
        .to_owned()
}

/// The `--help` lines on the known compositors, from the core's table of them.
fn known_compositors_help() -> String {
    let mut out = String::from("Compositors (--compositor):\n");
    for known in KnownCompositor::ALL {
        let figures = match known.compositor() {
            Ok(c) => format!("latch {} ms, delay {}", trim_number(c.latch as f64 / 1e6, 3), c.delay_refreshes),
            Err(why) => format!("refused: {why}"),
        };
        let text = format!("{figures}. Source: {}.", known.source());
        let mut lines = wrap(&text, HELP_WIDTH - 15).lines().map(str::to_owned).collect::<Vec<_>>().into_iter();
        out.push_str(&format!("  {:<13}{}\n", known.name(), lines.next().unwrap_or_default()));
        for line in lines {
            out.push_str(&format!("{:15}{line}\n", ""));
        }
    }
    out.push_str(&format!("  {:<13}{}", "none", "No compositor: fullscreen with direct scanout (the default)."));
    out
}

/// `--model`: a preset's name or one of its aliases (`seed000`), in any case.
fn preset() -> impl clap::builder::TypedValueParser<Value = Preset> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    let values = Preset::ALL.map(|p| PossibleValue::new(p.name()).aliases(p.aliases().iter().copied()));
    PossibleValuesParser::new(values).try_map(|text: String| Preset::parse(&text))
}

fn strategies_help() -> String {
    let names: Vec<&str> = crate::registry::all().iter().map(|s| s.name()).collect();
    format!("Strategies to run: comma-separated ids or `all` ({})", names.join(", "))
}

fn updates_help() -> String {
    format!(
        "Stop once this many updates have run (checked at frame start). Default {DEFAULT_UPDATES}. A run may take at \
         most {MAX_FRAMES} frames: longer runs are refused before they start, naming the most that fit"
    )
}

fn seconds_help() -> String {
    // The longest run of the default setting (glaiel, catch-up @ 60 Hz), as an example.
    let fps = RunSpec::new(StrategyId::CatchUp, Preset::Glaiel).frame_rate_bound();
    format!(
        "Stop once this much simulated clock time has passed, instead of --updates: at most {} s and {MAX_FRAMES} \
         frames (about {:.0} days at 60 Hz)",
        SECONDS.max,
        MAX_FRAMES as f64 / fps / 86_400.0
    )
}

/// `--help`'s text after the flags: the models, the fields (from the core's registry) and examples.
fn model_help() -> String {
    MODEL_HELP.replace("{FIELDS}", &fields_help()).replace("{COMPOSITORS}", &known_compositors_help())
}

/// The fields every run reports, from the registry, wrapped for a terminal.
fn fields_help() -> String {
    let names = |fields: &[&Field]| fields.iter().map(|f| f.name).collect::<Vec<_>>().join(", ");
    let text = format!(
        "Every run reports: {}. The table shows the first columns people read ({}); csv and json carry all of them, \
         and json adds present_interval_histogram (0.25 ms bins). A --trace run adds {}. A run on a VRR display \
         (--refresh vrr:48-144) adds {}; its refresh_hz column shows the range (null in json), each self-refresh \
         is a 0 in the pattern, and P is the median display interval. A run through a compositor (--compositor) \
         adds {} (the table: {}). Definitions: timestep-lab simulate --fields.",
        names(&FIELDS),
        names(&table_fields().collect::<Vec<_>>()),
        names(&TRACE_FIELDS),
        names(&VRR_FIELDS),
        names(&COMPOSITOR_FIELDS),
        names(&COMPOSITOR_TABLE_FIELDS)
    );
    wrap(&text, HELP_WIDTH)
}

/// The width `--help`'s own paragraphs are wrapped to.
const HELP_WIDTH: usize = 92;

/// `text` broken at spaces into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> String {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines.join("\n")
}

const MODEL_HELP: &str = "\
Models (--model):
  glaiel         The monitor simulator of Tyler Glaiel's \"How to make your game run at
                 60fps\", to reproduce its table. Clock from 0; noise f = (1/60)*0.005 s;
                 update 10 us +- f*0.01, render 5 ms +- f*0.01; vsync: wait to the next
                 refresh boundary +- f; no vsync: present 1 us +- f; busy 1 us +- f*1e-5
                 after display. Default refresh 60 Hz, vsync on.
  desktop        Present queue of 2 (returns at once while one frame may wait; frames shown
                 at successive vblanks, wake 0-100 us late); sleeps overshoot 50-1000 us;
                 update 0.1-0.5 ms; render 2-8 ms; no-vsync present 50-200 us. 60 Hz, vsync on.
  slow           desktop with render 20-25 ms: longer than a 60 Hz refresh.
  spiky          desktop plus a 30-100 ms stall every 1.5-2.5 s (seeded).
  pacing-answer  The worked timeline of the frame-pacing answer whose adaptive render
                 interval `paced` implements (also accepted as seed000): render 3 ms,
                 update 1 ms, no noise, exact sleeps, present 0, vsync off, refresh 62.5 Hz
                 (a 16 ms interval for `paced`).

{COMPOSITORS}

{FIELDS}

Examples:
  timestep-lab simulate --strategy catch-up --refresh 60
  timestep-lab simulate --strategy fuzzy --fuzzy-variant 60-62 --refresh 59.94 --no-vsync-detect
  timestep-lab simulate --strategy all --refresh 60,59.94,144 --model desktop --plot runs.svg
  timestep-lab simulate --strategy paced --model pacing-answer --tick-rate 200 --timeline
  timestep-lab simulate --strategy catch-up,fuzzy --refresh 60,59.94 --phases 20
  timestep-lab simulate --strategy all --refresh 144,vrr:48-144 --frame-limit 141 --model desktop
  timestep-lab simulate --strategy all --refresh 60,144 --model desktop --compositor weston";

/// Output format of `simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Aligned table plus pattern lines.
    Table,
    /// A JSON array of report objects.
    Json,
    /// Header plus one row per run.
    Csv,
}

/// `--vsync on|off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Vsync {
    /// Present waits for the display.
    On,
    /// Present shows the frame at once.
    Off,
}

/// `--start-phase`: where a run starts relative to the display's refresh grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StartPhase {
    /// On a vblank (the article's runs).
    Vblank,
    /// At a point of the refresh period drawn from the seed.
    Random,
    /// This long after a vblank.
    After(Nanos),
}

fn parse_start_phase(text: &str) -> Result<StartPhase, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "vblank" => Ok(StartPhase::Vblank),
        "random" => Ok(StartPhase::Random),
        _ => PHASE.nanos()(text)
            .map(StartPhase::After)
            .map_err(|e| format!("expected vblank, random or a number of seconds: {e}")),
    }
}

/// The `i`-th random start phase of `seed` at `refresh`: a point drawn
/// uniformly from one refresh period. The i-th draw is the same fraction of
/// the period at every refresh rate, so runs of a sweep compare at equal phases.
pub fn random_phase(seed: u64, i: u64, refresh: Rate) -> Nanos {
    let mut rng = SplitMix64::new(seed ^ PHASE_STREAM);
    let u = (0..=i).map(|_| rng.next_f64()).last().unwrap_or(0.0);
    (u * refresh.period() as f64) as Nanos
}

/// A validated `simulate` invocation.
#[derive(Clone, Debug)]
pub(crate) struct Invocation {
    /// One spec per strategy × refresh (× phase), in the order given.
    pub(crate) runs: Vec<RunSpec>,
    /// In a `--phases N` sweep, N: the runs come in groups of N phases of one strategy × refresh.
    pub(crate) phases: Option<usize>,
    /// The start phase of each run after its vblank, ns (parallel to `runs`).
    pub(crate) start_phases: Vec<Nanos>,
    /// How to print.
    pub(crate) format: Format,
    /// Print timelines.
    pub(crate) timeline: bool,
    /// Where to write the SVG.
    pub(crate) plot: Option<PathBuf>,
    /// One-line notices for stderr (which swap chain a trace replays, its refresh).
    pub(crate) notices: Vec<String>,
}

fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

impl Default for SimulateArgs {
    /// `simulate` with no flags: the values clap's `default_value`s give
    /// (a test holds the two equal), for callers that build runs through the
    /// simulator's API instead of a command line.
    fn default() -> SimulateArgs {
        SimulateArgs {
            strategy: StrategyList(vec![StrategyId::CatchUp]),
            refresh: None,
            frame_limit: None,
            vsync: None,
            tick_rate: Rate::from_hz(60),
            model: Preset::Glaiel,
            updates: None,
            seconds: None,
            seed: 0,
            start_time: 0,
            start_phase: StartPhase::Vblank,
            phases: None,
            render_ms: None,
            update_ms: None,
            fuzzy_variant: FuzzyVariant::Final,
            no_vsync_detect: false,
            format: Format::Table,
            fields: false,
            timeline: false,
            plot: None,
            trace: None,
            trace_app: None,
            compositor: None,
            card: None,
        }
    }
}

/// What a replay of a trace already read needs besides the trace: the
/// display it is shown on. [`ReplayOptions::default`] is `simulate --trace
/// FILE --strategy all`'s: the refresh the capture measured, else the model's.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ReplayOptions {
    /// The display, as `--refresh` gives it (`None`: the capture's or the model's).
    pub(crate) refresh: Option<Refresh>,
}

/// A trace already read, through every strategy with `simulate`'s defaults
/// on the display `options` names: the replay's entry point for `diagnose`,
/// which hands over the frames it read. No command line is built or parsed.
///
/// # Errors
/// As [`SimulateArgs::invocation`]: a display the trace contradicts.
pub(crate) fn replay(trace: Trace, options: &ReplayOptions) -> Result<Vec<RunSpec>, CliError> {
    let args = SimulateArgs {
        strategy: StrategyList::default(),
        refresh: options.refresh.map(|refresh| vec![refresh]),
        ..SimulateArgs::default()
    };
    Ok(args.invocation_of(Some(Arc::new(trace)))?.runs)
}

impl SimulateArgs {
    /// Builds the runs, and checks before any work what spans flags: that
    /// each run fits the frame budget and that the plot can be written.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the first bad flag (or trace row).
    pub(crate) fn invocation(&self) -> Result<Invocation, CliError> {
        let trace = match &self.trace {
            Some(path) => Some(Arc::new(load_trace(path, self.trace_app.clone())?)),
            None => None,
        };
        self.invocation_of(trace)
    }

    /// As [`Self::invocation`], on a trace already read in place of `--trace`'s file.
    ///
    /// # Errors
    /// As [`Self::invocation`].
    pub(crate) fn invocation_of(&self, trace: Option<Arc<Trace>>) -> Result<Invocation, CliError> {
        let card = match &self.card {
            Some(path) => Some(CardSetup::load(path)?),
            None => None,
        };
        let mut model = card.as_ref().map_or_else(|| self.model.model(), |_| CARD_MODEL.model());
        let (refreshes, vsync, mut notices) = match trace.as_deref() {
            Some(trace) => trace_display(trace, self.refresh.as_deref(), self.vsync, &model)?,
            None => (
                self.refresh.clone().unwrap_or_else(|| {
                    vec![Refresh::Fixed(card.as_ref().map_or(model.default_refresh, |card| card.refresh))]
                }),
                self.vsync.map_or(model.default_vsync, |v| v == Vsync::On),
                Vec::new(),
            ),
        };
        let composition = match trace.as_deref() {
            Some(trace) => {
                let (composition, notice) = trace_composition(trace, self.compositor)?;
                notices.extend(notice);
                composition
            }
            None => self.compositor.or_else(|| card.as_ref().and_then(CardSetup::composition)).unwrap_or_default(),
        };
        if let Some(ns) = self.render_ms {
            model = model.with_render(ns);
        }
        if let Some(ns) = self.update_ms {
            model = model.with_update(ns);
        }
        let (stop, stop_flag) = match (self.updates, self.seconds) {
            (Some(n), _) => (Stop::Updates(n), "--updates"),
            (None, Some(0)) => return Err(usage("--seconds: must be at least 1 ns")),
            (None, Some(d)) => (Stop::Duration(d), "--seconds"),
            (None, None) if trace.is_some() => (Stop::TraceEnd, "--trace"),
            (None, None) => (Stop::Updates(DEFAULT_UPDATES), "--updates"),
        };
        let config = StrategyConfig::default()
            .with_tick_rate(self.tick_rate)
            .with_fuzzy_variant(self.fuzzy_variant)
            .with_vsync_detect(!self.no_vsync_detect);
        let phases = self.phases.map(|n| n as usize);
        let mut runs = Vec::new();
        let mut start_phases = Vec::new();
        for &strategy in &self.strategy.0 {
            for &refresh in &refreshes {
                let rate = refresh.rate();
                let phase_list: Vec<Nanos> = match (phases, self.start_phase) {
                    (Some(n), _) => (0..n as u64).map(|i| random_phase(self.seed, i, rate)).collect(),
                    (None, StartPhase::Vblank) => vec![0],
                    (None, StartPhase::Random) => vec![random_phase(self.seed, 0, rate)],
                    (None, StartPhase::After(p)) => vec![p],
                };
                for phase in phase_list {
                    // A VRR panel has no grid: the phase is from --start-time.
                    let start = match refresh {
                        Refresh::Fixed(rate) => start_after_vblank(rate, self.start_time, phase),
                        Refresh::Vrr(_) => self.start_time.saturating_add(phase),
                    };
                    let model = match card.as_ref().and_then(|card| card.setup.as_ref()) {
                        Some(setup) => setup.model_for(strategy.name(), rate, vsync),
                        None => model,
                    };
                    let spec = RunSpec::new(strategy, if card.is_some() { CARD_MODEL } else { self.model })
                        .with_config(config)
                        .with_model(model)
                        .with_refresh(refresh)
                        .with_frame_limit(self.frame_limit)
                        .with_vsync(vsync)
                        .with_seed(self.seed)
                        .with_start(start)
                        .with_stop(stop)
                        .with_timeline(if self.timeline { TIMELINE_EVENTS } else { 0 })
                        .with_trace(trace.clone())
                        .with_composition(composition);
                    spec.check_budget().map_err(|e| usage(format!("{stop_flag}: {e}")))?;
                    runs.push(spec);
                    start_phases.push(phase);
                }
            }
        }
        if let Some(path) = &self.plot {
            cli::check_writable(path).map_err(|e| usage(format!("--plot: {e}")))?;
        }
        Ok(Invocation {
            runs,
            phases,
            start_phases,
            format: self.format,
            timeline: self.timeline,
            plot: self.plot.clone(),
            notices,
        })
    }
}

/// The model of a card whose tour measured no setup: the report card's own
/// prediction model (a typical desktop).
const CARD_MODEL: Preset = crate::report_card::predict::PREDICTION_MODEL;

/// What `--card` takes from a report card: its first monitor's refresh and measured setup.
#[derive(Clone, Debug)]
struct CardSetup {
    /// The refresh the tour ran on: an emulated grid's, else the presents' cadence, else the reported rate.
    refresh: Rate,
    /// The machine the tour measured, if it did.
    setup: Option<crate::report_card::setup::MeasuredSetup>,
}

impl CardSetup {
    /// Reads the card at `path`.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming `--card` for an unreadable card or one without a refresh rate.
    fn load(path: &std::path::Path) -> Result<CardSetup, CliError> {
        let card = crate::report_card::ReportCard::read(path).map_err(|e| usage(format!("--card: {e}")))?;
        let monitor = card
            .monitors
            .into_iter()
            .next()
            .ok_or_else(|| usage(format!("--card: {} measured no monitor", path.display())))?;
        let hz = monitor.emulated_refresh_hz.or(monitor.present_cadence_hz).or(monitor.reported_refresh_hz);
        let refresh = hz.and_then(crate::app::tour::rate_of_hz).ok_or_else(|| {
            usage(format!("--card: {}'s monitor has no refresh rate: give one with --refresh", path.display()))
        })?;
        Ok(CardSetup { refresh, setup: monitor.setup })
    }

    /// The compositor the tour measured between the window and the panel, if any.
    fn composition(&self) -> Option<Composition> {
        let setup = self.setup.as_ref()?;
        let held = setup.vsync_off.as_ref().and_then(|off| off.compositor);
        setup.compositor.or(held).map(Composition::Composited)
    }
}

/// Runs one spec on a fresh demo world, with a progress bar on a terminal
/// once it has taken more than a second.
fn run_one(spec: &RunSpec) -> RunOutcome {
    const DELAY: Duration = Duration::from_secs(1);
    let started = Instant::now();
    let mut progress = Progress::terminal_only();
    let label = format!("{} @ {}", spec.strategy, spec.refresh);
    let outcome = crate::sim::simulate_with_progress(spec, &mut |fraction| {
        if progress.enabled() && started.elapsed() >= DELAY {
            progress.show(&format!("{} {:3.0}% {label}", bar(fraction, 30), fraction * 100.0));
        }
    });
    progress.finish(false);
    outcome
}

/// Renders the invocation's output (stdout text, stderr text).
fn render_output(invocation: &Invocation, outcomes: &[RunOutcome]) -> Result<(String, String), CliError> {
    let reports: Vec<RunReport> = outcomes.iter().map(RunOutcome::report).collect();
    let json_error = |e: serde_json::Error| CliError::Runtime(format!("cannot write JSON: {e}"));
    let mut out = match (invocation.phases, invocation.format) {
        (None, Format::Table) => to_table(&reports),
        (None, Format::Csv) => to_csv(&reports),
        (None, Format::Json) => to_json(&reports).map_err(json_error)?,
        (Some(n), format) => {
            let rows: Vec<SweepRow> = reports
                .chunks(n)
                .zip(invocation.start_phases.chunks(n))
                .map(|(group, phases)| SweepRow::of(group, phases))
                .collect();
            match format {
                Format::Table => sweep_table(&rows),
                Format::Csv => sweep_csv(&rows),
                Format::Json => {
                    let array = serde_json::Value::Array(rows.iter().map(SweepRow::json).collect());
                    let mut text = serde_json::to_string_pretty(&array).map_err(json_error)?;
                    text.push('\n');
                    text
                }
            }
        }
    };
    let mut err = String::new();
    if invocation.timeline {
        let target = if invocation.format == Format::Table { &mut out } else { &mut err };
        target.push('\n');
        for (report, outcome) in reports.iter().zip(outcomes) {
            target.push_str(&format!("timeline {}: {}\n", report.label(), outcome.timeline));
        }
    }
    for outcome in outcomes {
        if let Some(reason) = outcome.truncated {
            err.push_str(&format!(
                "timestep-lab: warning: {} @ {} stopped early after {} frames: {reason}\n",
                outcome.spec.strategy, outcome.spec.refresh, outcome.frames
            ));
        }
    }
    Ok((out, err))
}

/// Writes `text` to stdout through `io::Write`, not `print!`: a closed pipe
/// (`| head`) is an error to report, not a panic.
fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::Runtime(format!("cannot write output: {e}")))
}

/// What `simulate` prints on stdout for `args` (the table, CSV or JSON):
/// what a program that runs its own strategies through the simulator
/// prints beside the lab's (see `examples/your_loop.rs`).
///
/// # Errors
/// As [`run`]: bad flags, an unusable trace or card, a run over the frame budget.
pub fn output(args: &SimulateArgs) -> Result<String, CliError> {
    if args.fields {
        return Ok(crate::report::definitions_markdown());
    }
    let invocation = args.invocation()?;
    let outcomes: Vec<RunOutcome> = invocation.runs.iter().map(run_one).collect();
    render_output(&invocation, &outcomes).map(|(out, _)| out)
}

/// Runs `simulate`.
///
/// Bad flags and unwritable outputs are refused before the first run. After
/// the runs, everything that can be written is: the table (or CSV, JSON) is
/// printed even when the plot then fails.
///
/// # Errors
/// [`CliError::Usage`] for bad flags, an unusable trace, a run over the
/// frame budget or an unwritable plot path; [`CliError::Runtime`] when the
/// output or the plot cannot be written after the runs.
pub fn run(args: &SimulateArgs) -> Result<(), CliError> {
    if args.fields {
        return write_stdout(&crate::report::definitions_markdown());
    }
    let invocation = args.invocation()?;
    for notice in &invocation.notices {
        log::info!("{notice}");
    }
    log::debug!("simulate: {} run(s)", invocation.runs.len());
    let outcomes: Vec<RunOutcome> = invocation.runs.iter().map(run_one).collect();
    let (out, err) = render_output(&invocation, &outcomes)?;
    let printed = write_stdout(&out);
    if !err.is_empty() {
        let _ = std::io::stderr().write_all(err.as_bytes());
    }
    let plotted = match &invocation.plot {
        Some(path) => {
            let reports: Vec<RunReport> = outcomes.iter().map(RunOutcome::report).collect();
            crate::run_chart::write_plot(path, &reports).map_err(CliError::runtime)
        }
        None => Ok(()),
    };
    printed.and(plotted)
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

    fn parse(list: &[&str]) -> Result<SimulateArgs, clap::Error> {
        Wrapper::try_parse_from(std::iter::once("simulate").chain(list.iter().copied())).map(|w| w.args)
    }

    fn invocation(list: &[&str]) -> Invocation {
        parse(list).expect("valid flags").invocation().expect("a valid invocation")
    }

    /// The one-line message of a bad command line, whether clap or `invocation` finds it.
    fn usage_message(list: &[&str]) -> String {
        match parse(list) {
            Err(err) => CliError::from_clap(&err).to_string(),
            Ok(args) => match args.invocation() {
                Err(CliError::Usage(msg)) => msg,
                other => panic!("{list:?} should be a usage error, got {other:?}"),
            },
        }
    }

    #[test]
    fn the_default_arguments_are_the_ones_clap_gives_a_command_line_without_flags() {
        let clap = parse(&[]).expect("no flags");
        assert_eq!(format!("{:?}", SimulateArgs::default()), format!("{clap:?}"));
    }

    #[test]
    fn a_replay_runs_every_strategy_on_the_display_it_is_given_without_a_command_line() {
        let trace = Trace::from_frame_times(&[16_666_667; 30]);
        let runs = replay(trace.clone(), &ReplayOptions::default()).expect("runs");
        assert_eq!(runs.len(), crate::registry::all().len(), "--strategy all");
        assert!(runs.iter().all(|r| r.refresh == Refresh::Fixed(Rate::from_hz(60))), "the model's 60 Hz");
        let vrr: Refresh = "vrr:29-31".parse().expect("a VRR range");
        let runs = replay(trace, &ReplayOptions { refresh: Some(vrr) }).expect("runs");
        assert!(runs.iter().all(|r| r.refresh == vrr), "the display asked for");
    }

    #[test]
    fn a_card_gives_its_monitor_s_refresh_and_the_desktop_model_where_it_measured_no_setup() {
        let card = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report_card/144hz.json");
        let inv = invocation(&["--card", card, "--strategy", "catch-up,fuzzy"]);
        let runs: Vec<_> = inv.runs.iter().map(|r| (r.strategy, r.refresh.to_string(), r.model.preset)).collect();
        assert_eq!(
            runs,
            [
                (StrategyId::CatchUp, "144 Hz".to_owned(), Preset::Desktop),
                (StrategyId::Fuzzy, "144 Hz".to_owned(), Preset::Desktop)
            ]
        );
        let given = invocation(&["--card", card, "--refresh", "60"]);
        assert_eq!(given.runs[0].refresh.to_string(), "60 Hz", "--refresh wins over the card's");
        let missing = usage_message(&["--card", "/nonexistent/report.json"]);
        assert!(missing.starts_with("--card: "), "{missing}");
    }

    #[test]
    fn defaults_are_catch_up_on_the_glaiel_model_for_ten_thousand_updates() {
        let inv = invocation(&[]);
        assert_eq!(inv.runs.len(), 1);
        let run = &inv.runs[0];
        assert_eq!(run.strategy, StrategyId::CatchUp);
        assert_eq!(run.model.preset, Preset::Glaiel);
        assert_eq!(run.stop, Stop::Updates(10_000));
        assert!(run.vsync);
        assert_eq!(run.refresh, Refresh::Fixed(Rate::from_hz(60)));
        assert_eq!(run.frame_limit, None);
        assert_eq!(run.config.tick_rate, Rate::from_hz(60));
        assert_eq!(run.start, 0, "on vblank 0, as the article");
        assert_eq!(inv.format, Format::Table);
        assert_eq!(inv.phases, None);
    }

    #[test]
    fn strategies_times_refreshes_give_one_run_each() {
        let inv = invocation(&["--strategy", "catch-up,fuzzy", "--refresh", "60,59.94,144"]);
        assert_eq!(inv.runs.len(), 6);
        assert_eq!(inv.runs[1].refresh, Refresh::Fixed(Rate::new(60000, 1001).unwrap()));
        assert_eq!(invocation(&["--strategy", "all"]).runs.len(), 10);
    }

    #[test]
    fn a_vrr_range_is_one_more_refresh_in_the_list_and_starts_at_the_start_time() {
        let inv = invocation(&["--refresh", "60,vrr:48-144", "--frame-limit", "141", "--start-time", "0.005"]);
        assert_eq!(inv.runs.len(), 2);
        assert_eq!(inv.runs[1].refresh.to_string(), "vrr:48-144");
        assert_eq!(inv.runs[1].start, 5_000_000, "no grid to wait for");
        assert_eq!(inv.runs[0].start, 16_666_667, "the next 60 Hz vblank");
        assert!(inv.runs.iter().all(|r| r.frame_limit == Some(Rate::from_hz(141))));
    }

    #[test]
    fn a_bad_vrr_range_is_one_line_naming_the_flag() {
        assert_eq!(
            usage_message(&["--refresh", "60,vrr:144-48"]),
            "--refresh: vrr:144-48: the lowest refresh (144 Hz) must be below the highest (48 Hz)"
        );
        assert!(usage_message(&["--refresh", "vrr:48"]).contains("is not a VRR range"));
        assert!(usage_message(&["--frame-limit", "0"]).starts_with("--frame-limit: 0 is not"));
    }

    #[test]
    fn the_pacing_answer_defaults_to_vsync_off_at_62_5_hz_under_its_name_and_its_old_one() {
        for name in ["pacing-answer", "seed000", "SEED000"] {
            let run = invocation(&["--model", name]).runs.remove(0);
            assert_eq!(run.model.preset, Preset::PacingAnswer, "{name}");
            assert!(!run.vsync, "{name}");
            assert_eq!(run.refresh.rate().period(), 16_000_000, "{name}");
        }
    }

    #[test]
    fn closed_sets_keep_their_spellings_in_any_case() {
        let inv = invocation(&["--vsync", "OFF", "--format", "Json", "--model", "Desktop", "--fuzzy-variant", "59-61"]);
        assert!(!inv.runs[0].vsync);
        assert_eq!(inv.format, Format::Json);
        assert_eq!(inv.runs[0].model.preset, Preset::Desktop);
        assert_eq!(inv.runs[0].config.fuzzy_variant, FuzzyVariant::Fuzzy5961);
    }

    #[test]
    fn bad_values_are_one_line_usage_errors_naming_the_flag() {
        let cases: &[(&[&str], &str)] = &[
            (&["--tick-rate", "0"], "--tick-rate: 0 is not a positive"),
            (&["--tick-rate", "-60"], "--tick-rate: -60 is not a positive"),
            (&["--tick-rate", "NaN"], "--tick-rate: NaN is not a positive"),
            (&["--tick-rate", "inf"], "--tick-rate: inf is not a positive"),
            (&["--tick-rate", "5000"], "--tick-rate: 5000 is outside 1–1000 Hz"),
            (&["--tick-rate", "99999999999999999999"], "--tick-rate: 99999999999999999999 is outside 1–1000 Hz"),
            (&["--refresh", "0"], "--refresh: 0 is not a positive"),
            (&["--refresh", "60,abc"], "--refresh: 'abc' is not a rate"),
            (&["--refresh", "1001"], "--refresh: 1001 is outside 1–1000 Hz"),
            (&["--strategy", "warp"], "--strategy: unknown strategy 'warp'"),
            (&["--model", "laptop"], "--model: 'laptop' is not one of glaiel, desktop, slow, spiky, pacing-answer"),
            (&["--updates", "0"], "--updates: 0 is out of range"),
            (&["--updates", "-3"], "--updates: '-3' is not a whole number"),
            (&["--seconds", "0"], "--seconds: 0 s is out of range"),
            (&["--seconds", "-1"], "--seconds: -1 s is out of range"),
            (&["--seconds", "NaN"], "--seconds: NaN s is out of range"),
            (&["--seconds", "1e-10"], "--seconds: must be at least 1 ns"),
            (&["--render-ms", "-1"], "--render-ms: -1 ms is out of range"),
            (&["--render-ms", "inf"], "--render-ms: inf ms is out of range"),
            (&["--update-ms", "abc"], "--update-ms: 'abc' is not a number of ms"),
            (&["--vsync", "maybe"], "--vsync: 'maybe' is not one of on, off"),
            (&["--format", "xml"], "--format: 'xml' is not one of table, json, csv"),
            (&["--fuzzy-variant", "61-63"], "--fuzzy-variant: '61-63' is not one of 60-62, 59-61, final"),
            (&["--seed", "-1"], "--seed: '-1' is not a whole number 0–18446744073709551615"),
            (&["--start-time", "-5"], "--start-time: -5 s is out of range"),
            (&["--start-phase", "late"], "--start-phase: expected vblank, random or a number of seconds"),
            (&["--start-phase", "2"], "--start-phase: expected vblank, random or a number of seconds: 2 s is out"),
            (&["--phases", "0"], "--phases: 0 is out of range: it must be 1–1000"),
            (&["--phases", "3", "--start-phase", "random"], "--phases cannot be used with --start-phase"),
            (&["--phases", "3", "--timeline"], "--phases cannot be used with --timeline"),
            (&["--updates", "5", "--seconds", "1"], "--updates cannot be used with --seconds"),
            (&["--compositor", "-1"], "--compositor: latch -1 ms is out of range: it must be 0–1000 ms"),
            (&["--compositor", "7:9"], "--compositor: delay '9' is not a whole number of refreshes 0–8"),
            (&["--compositor", "7:"], "--compositor: delay '' is not a whole number"),
            (&["--compositor", ""], "--compositor: '' is not a latch in ms"),
            (&["--compositor", "picom"], "--compositor: 'picom' is not a compositor (expected none, LATCH_MS[:DELAY]"),
            (&["--compositor", "kwin"], "--compositor: kwin: KWin schedules its repaint from an estimate"),
        ];
        for (list, expected) in cases {
            let msg = usage_message(list);
            assert!(msg.starts_with(expected), "{list:?}: '{msg}' should start with '{expected}'");
            assert!(!msg.contains('\n'), "{list:?}: '{msg}' is one line");
        }
    }

    #[test]
    fn a_run_over_the_frame_budget_is_refused_with_the_longest_that_fits() {
        let msg = usage_message(&["--seconds", "31536000"]);
        assert!(msg.starts_with("--seconds: catch-up @ 60 Hz would take about 1.9e9 frames"), "{msg}");
        assert!(msg.contains(&format!("over the limit of {} frames per run", crate::monitor::MAX_FRAMES)), "{msg}");
        let msg = usage_message(&["--updates", "18446744073709551615", "--strategy", "lockstep"]);
        assert!(msg.starts_with("--updates: lockstep @ 60 Hz would take about"), "{msg}");
        assert!(msg.contains("updates fit)"), "names the most updates that fit: {msg}");
    }

    #[test]
    fn start_phases_set_where_the_first_frame_starts() {
        let start = |list: &[&str]| invocation(list).runs[0].start;
        assert_eq!(start(&["--start-phase", "vblank"]), 0);
        assert_eq!(start(&["--start-phase", "0.005"]), 5_000_000);
        assert_eq!(start(&["--start-time", "0.005"]), 16_666_667, "the next vblank after the clock's start");
        assert_eq!(start(&["--start-time", "0.005", "--start-phase", "0.005"]), 5_000_000);
        assert_eq!(start(&["--start-time", "0.0051", "--start-phase", "0.005"]), 21_666_667);
        let random = start(&["--start-phase", "random", "--seed", "7"]);
        assert_eq!(random, random_phase(7, 0, Rate::from_hz(60)), "drawn from the seed");
        assert!(random < 16_666_667, "within one period: {random}");
        assert_ne!(random, start(&["--start-phase", "random", "--seed", "8"]), "another seed, another phase");
    }

    #[test]
    fn no_compositor_is_the_default_and_a_name_or_latch_sets_one_for_every_run() {
        assert!(invocation(&["--strategy", "all"]).runs.iter().all(|r| r.composition == Composition::Direct));
        assert_eq!(invocation(&["--compositor", "none"]).runs[0].composition, Composition::Direct);
        let weston = invocation(&["--compositor", "WESTON", "--refresh", "60,144"]);
        let latches: Vec<Option<Nanos>> =
            weston.runs.iter().map(|r| r.composition.compositor().map(|c| c.latch)).collect();
        assert_eq!(latches, [Some(7_000_000), Some(7_000_000)]);
        let given = invocation(&["--compositor", "2.5:1"]).runs.remove(0).composition.compositor();
        assert_eq!(given.map(|c| (c.latch, c.delay_refreshes)), Some((2_500_000, 1)));
    }

    #[test]
    fn the_help_names_each_known_compositor_with_its_figures_or_why_it_has_none() {
        let help = known_compositors_help();
        assert!(help.contains("weston       latch 7 ms, delay 0. Source: weston.ini(5)"), "{help}");
        assert!(help.contains("dwm          latch 0 ms, delay 1."), "{help}");
        assert!(help.contains("windowserver refused: Apple publishes neither"), "{help}");
        assert!(help.lines().all(|l| l.chars().count() <= HELP_WIDTH), "{help}");
    }

    #[test]
    fn a_sweep_runs_each_strategy_and_refresh_at_n_phases() {
        let inv = invocation(&["--strategy", "catch-up,fuzzy", "--refresh", "60,144", "--phases", "3"]);
        assert_eq!(inv.runs.len(), 12, "2 strategies × 2 refreshes × 3 phases");
        assert_eq!(inv.phases, Some(3));
        let phases: Vec<Nanos> = inv.start_phases[..3].to_vec();
        assert_eq!(inv.start_phases[6..9], phases, "fuzzy @ 60 runs at catch-up @ 60's phases");
        assert!(phases.iter().all(|&p| p < 16_666_667), "{phases:?}");
        assert!(phases[0] != phases[1] && phases[1] != phases[2], "{phases:?}");
        assert!(inv.runs.iter().all(|r| r.seed == 0), "the model's noise stays the same");
    }
}
