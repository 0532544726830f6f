//! `timestep-lab measure`: its flags, their checks, and the tour in the
//! window ([`crate::app::tour`]) that writes the report card.

use std::path::PathBuf;

use crate::app::config::{DEFAULT_SPRITES, Emulation, MAX_JITTER_US, PresentModeRequest, RunConfig};
use crate::app::tour::{MonitorChoice, OUTPUTS, Tour, TourPlan};
use crate::cli::{self, Bounds, EmulatedRefresh, StrategyList, Unit};
use crate::error::CliError;
use crate::strategy::{FuzzyVariant, StrategyConfig};
use crate::time::{Nanos, Rate};

/// `--seconds-per-strategy` and `--probe-seconds`: more than 0, at most 10 minutes.
pub(crate) const SEGMENT_SECONDS: Bounds = Bounds { min: 0.0, min_inclusive: false, max: 600.0, unit: Unit::Seconds };

fn parse_monitor(text: &str) -> Result<MonitorChoice, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(MonitorChoice::All);
    }
    cli::whole(1, u64::from(u32::MAX))(text)
        .map(|n| MonitorChoice::One(usize::try_from(n).unwrap_or(usize::MAX)))
        .map_err(|e| format!("{e}, or 'all'"))
}

/// Arguments of `timestep-lab measure`.
///
/// Runs a scripted tour in the window: each supported present mode is
/// checked for vsync and its present intervals, then every strategy runs a
/// few seconds with vsync on and again with vsync off. Writes the report card
/// (report-<screen>-<yyyymmdd-hhmm>.json), its page (.html) and a screenshot
/// (.png) into --out.
#[derive(clap::Args, Debug, Clone)]
pub struct MeasureArgs {
    /// Directory for the card, its page and a screenshot, named report-<screen>-<yyyymmdd-hhmm>.json,
    /// .html and .png (created if missing). With --send and no --out: report-cards.
    #[arg(long, value_name = "DIR", value_parser = cli::file_name, required_unless_present_any = ["card", "send"])]
    pub(crate) out: Option<PathBuf>,

    /// Also send the card to a `timestep-lab serve`: the address it printed, with its ?token=.
    #[arg(long, value_name = "URL")]
    pub(crate) send: Option<String>,

    /// Send this card file (one measured before) to --send's server instead of measuring.
    #[arg(long, value_name = "FILE", value_parser = cli::file_name, requires = "send", conflicts_with = "out")]
    pub(crate) card: Option<PathBuf>,

    /// The monitor to measure (numbered from 1), or `all` to visit each in turn.
    /// Default: the one the window opens on.
    #[arg(long, value_name = "N|all", value_parser = parse_monitor)]
    pub(crate) monitor: Option<MonitorChoice>,

    /// How long each strategy runs in each vsync pass, seconds.
    #[arg(long, value_name = "S", default_value = "3", value_parser = SEGMENT_SECONDS.nanos())]
    pub(crate) seconds_per_strategy: Nanos,

    /// How long each present mode is probed, seconds.
    #[arg(long, value_name = "S", default_value = "2", value_parser = SEGMENT_SECONDS.nanos())]
    pub(crate) probe_seconds: Nanos,

    /// Strategies to run: `all`, or ids separated by commas (`interpolated,snapped`).
    #[arg(long, value_name = "IDS|all", default_value = "all", value_parser = cli::strategy_list)]
    pub(crate) strategies: StrategyList,

    /// Skip the pass with vsync off.
    #[arg(long)]
    pub(crate) no_vsync_off: bool,

    /// Simulation tick rate, Hz (e.g. 60, 59.94, 60000/1001).
    #[arg(long, allow_hyphen_values = true, value_name = "HZ", default_value = "60", value_parser = cli::rate)]
    pub(crate) tick_rate: Rate,

    /// Fuzzy timer variant.
    #[arg(long, allow_hyphen_values = true, ignore_case = true, value_name = "VARIANT", default_value = "final",
          value_parser = cli::one_of(&FuzzyVariant::ALL, FuzzyVariant::name))]
    pub(crate) fuzzy_variant: FuzzyVariant,

    /// Pace vsync-on presents to a virtual vblank grid at HZ, or per monitor as
    /// 1=59.94,2=144 (see `run --emulate-refresh`).
    #[arg(long, allow_hyphen_values = true, value_name = "HZ|N=HZ,…", value_parser = cli::emulated_refresh)]
    pub(crate) emulate_refresh: Option<EmulatedRefresh>,

    /// Wake-up jitter of the emulated vblank, µs (needs --emulate-refresh).
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = cli::whole(0, MAX_JITTER_US))]
    pub(crate) emulate_jitter_us: Option<u64>,

    /// A name for this machine in the report (the host name is not read).
    #[arg(long, value_name = "TEXT")]
    pub(crate) name: Option<String>,

    /// Time frames by the present call's return (an estimate) even where the compositor says when
    /// they were shown (see `run --no-presentation-feedback`).
    #[arg(long)]
    pub(crate) no_presentation_feedback: bool,

    /// Fullscreen on the measured monitor (borderless).
    #[arg(long)]
    pub(crate) fullscreen: bool,

    /// Window size in logical pixels (`WIDTHxHEIGHT`), as `run --window-size`: the OS's scale
    /// factor multiplies it into the physical pixels the card's `size_px` records.
    #[arg(long, allow_hyphen_values = true, value_name = "WxH", default_value = "1280x720",
          value_parser = cli::size)]
    pub(crate) window_size: [u32; 2],

    /// Leave the overlay out (it costs frame time on a slow adapter).
    #[arg(long)]
    pub(crate) no_overlay: bool,

    /// Noise seed (emulated jitter).
    #[arg(long, allow_hyphen_values = true, value_name = "N", default_value = "1", value_parser = cli::whole(0, u64::MAX))]
    pub(crate) seed: u64,
}

fn usage(flag: &str, message: impl std::fmt::Display) -> CliError {
    CliError::Usage(format!("--{flag}: {message}"))
}

/// Runs `timestep-lab measure`.
///
/// # Errors
/// [`CliError::Usage`] for bad flags or an `--out` that cannot be written
/// (checked before the window opens); [`CliError::Runtime`] as for `run`.
pub fn run(args: &MeasureArgs) -> Result<(), CliError> {
    if let (Some(card), Some(url)) = (&args.card, &args.send) {
        return send(card, url);
    }
    let (config, tour) = config(args)?;
    let out = out_dir(args);
    crate::app::run_app(config, Some(tour))?;
    match (&args.send, out) {
        (Some(url), Some(out)) => send(&newest_card(&out)?, url),
        _ => Ok(()),
    }
}

/// Where `measure --send URL` keeps its card without `--out`: beside where it
/// runs, apart from `serve`'s own `cards/` (which reads its directory only at
/// start, so a card measured into it would be kept twice after a restart).
pub(crate) const SEND_DIR: &str = "report-cards";

/// `--out`, or [`SEND_DIR`] for `--send` without it.
fn out_dir(args: &MeasureArgs) -> Option<PathBuf> {
    args.out.clone().or_else(|| args.send.as_ref().map(|_| PathBuf::from(SEND_DIR)))
}

/// The card the tour just wrote in `dir`: the newest card file there.
///
/// # Errors
/// [`CliError::Runtime`] when `dir` holds no card.
fn newest_card(dir: &std::path::Path) -> Result<PathBuf, CliError> {
    let cards = crate::report_card::file_name::cards_in(dir).map_err(|e| CliError::Runtime(format!("--send: {e}")))?;
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    cards
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .max_by_key(modified)
        .ok_or_else(|| CliError::Runtime(format!("--send: no card in {} to send", dir.display())))
}

/// Posts the card at `path` to `serve`'s `url` and says where it was kept.
///
/// # Errors
/// [`CliError::Usage`] for a file that is not a card; [`CliError::Runtime`]
/// when the server cannot be reached or refuses the card (its reason).
fn send(path: &std::path::Path, url: &str) -> Result<(), CliError> {
    use crate::platform::read_limited::{MAX_JSON_BYTES, read_text_limited};
    use std::io::Write as _;
    let text = read_text_limited(path, MAX_JSON_BYTES).map_err(|e| usage("card", e))?;
    crate::report_card::comparison::parse_source(&text)
        .map_err(|e| usage("card", format!("{}: {e}", path.display())))?;
    let id = crate::platform::post_card(url, &text).map_err(|e| CliError::Runtime(format!("--send: {e}")))?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "measure: sent {} to the gallery as {id}", path.display())
        .map_err(|e| CliError::Runtime(format!("cannot write output: {e}")))
}

/// The window run and the tour `args` ask for, checked.
///
/// # Errors
/// As [`run`], before the window opens.
pub(crate) fn config(args: &MeasureArgs) -> Result<(RunConfig, Tour), CliError> {
    let emulation = match (&args.emulate_refresh, args.emulate_jitter_us) {
        (None, Some(_)) => return Err(usage("emulate-jitter-us", "needs --emulate-refresh HZ")),
        (None, None) => None,
        (Some(rates), jitter_us) => Some(Emulation { rates: rates.clone(), jitter: jitter_us.unwrap_or(0) * 1000 }),
    };
    let out = out_dir(args).ok_or_else(|| usage("out", "give a directory for the card"))?;
    if args.out.is_none() {
        log::info!("measure: no --out: the card is kept in {SEND_DIR}/ and sent");
    }
    crate::platform::prepare_output_dir(&out).map_err(|e| usage("out", e))?;
    // The files are named for the card (its screen and time), known only at
    // the end: a file of the same kind stands in for them now.
    for extension in OUTPUTS {
        let probe = format!("{}-check.{extension}", crate::report_card::file_name::PREFIX);
        cli::check_writable(&out.join(probe)).map_err(|e| usage("out", e))?;
    }
    let first = args.strategies.0.first().copied().ok_or_else(|| usage("strategies", "no strategy given"))?;
    let config = RunConfig {
        strategy: first,
        strategy_config: StrategyConfig::default()
            .with_tick_rate(args.tick_rate)
            .with_fuzzy_variant(args.fuzzy_variant),
        present_mode: PresentModeRequest::Auto,
        sprites: DEFAULT_SPRITES,
        monitor: match args.monitor {
            Some(MonitorChoice::One(n)) => Some(n - 1),
            Some(MonitorChoice::All) => Some(0),
            None => None,
        },
        fullscreen: args.fullscreen,
        window_size: args.window_size,
        fill_window: false,
        exit_after: None,
        stats_json: None,
        screenshot: None,
        emulation,
        no_overlay: args.no_overlay,
        seed: args.seed,
        lanes: StrategyList::default(),
        start_in_lanes: false,
        frame_log: None,
        frame_limit: None,
        presentation_feedback: !args.no_presentation_feedback,
    };
    let tour = Tour::new(TourPlan {
        out,
        monitors: args.monitor,
        strategies: args.strategies.0.clone(),
        run_length: args.seconds_per_strategy,
        probe_length: args.probe_seconds,
        vsync_off: !args.no_vsync_off,
        name: args.name.clone(),
    });
    Ok((config, tour))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser, Debug)]
    struct Measure {
        #[command(flatten)]
        args: MeasureArgs,
    }

    fn parse(words: &[&str]) -> Result<MeasureArgs, clap::Error> {
        use clap::Parser as _;
        Measure::try_parse_from(std::iter::once("measure").chain(words.iter().copied())).map(|m| m.args)
    }

    #[test]
    fn send_without_out_keeps_the_card_in_report_cards_and_out_alone_is_still_needed_without_send() {
        let args = parse(&["--send", "http://127.0.0.1:8000/?token=ab"]).expect("--send alone is enough");
        assert_eq!(out_dir(&args), Some(PathBuf::from("report-cards")));
        let args = parse(&["--send", "http://127.0.0.1:8000/?token=ab", "--out", "desk"]).expect("both");
        assert_eq!(out_dir(&args), Some(PathBuf::from("desk")), "--out wins");
        let err = parse(&[]).expect_err("neither");
        assert!(err.to_string().contains("--out <DIR>"), "{err}");
    }

    #[test]
    fn a_monitor_is_a_number_from_one_or_all() {
        assert_eq!(parse_monitor("2"), Ok(MonitorChoice::One(2)));
        assert_eq!(parse_monitor("ALL"), Ok(MonitorChoice::All));
        let err = parse_monitor("0").unwrap_err();
        assert!(err.contains("out of range") && err.ends_with("or 'all'"), "{err}");
    }
}
