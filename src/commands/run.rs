//! `timestep-lab run` (the default command): its flags, their checks into an
//! [`RunConfig`], and the window.
//!
//! clap parses every value into its type ([`crate::cli`]'s parsers), so a
//! bad value is clap's error, printed by `main` as one line naming the flag
//! with exit code 2. [`config`] adds the checks that span flags or touch the
//! file system (output files are checked before the window opens).

use std::path::PathBuf;

use clap::builder::TypedValueParser;

use crate::app::config::{DEFAULT_SPRITES, Emulation, MAX_JITTER_US, MAX_SPRITES, PresentModeRequest, RunConfig};
use crate::cli::{self, Bounds, EmulatedRefresh, StrategyList, Unit};
use crate::error::CliError;
use crate::strategy::{FuzzyVariant, StrategyConfig, StrategyId};
use crate::time::{Nanos, Rate};

/// `--exit-after`: more than 0 and at most 10⁷ s (116 days; a scripted run
/// of months is a typo, and the real clock's u64 nanoseconds reach 584 years).
pub(crate) const EXIT_AFTER: Bounds = Bounds { min: 0.0, min_inclusive: false, max: 1e7, unit: Unit::Seconds };

/// Arguments of `timestep-lab run` (the default command).
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Loop strategy at start (each strategy's key switches later: F1 lists them)
    #[arg(long, allow_hyphen_values = true, ignore_case = true, value_name = "ID", default_value = "interpolated",
          value_parser = cli::one_strategy())]
    pub(crate) strategy: StrategyId,

    /// Simulation tick rate in Hz.
    #[arg(long, allow_hyphen_values = true, value_name = "HZ", default_value = "60", value_parser = cli::rate,
          help = cli::rate_help("Simulation tick rate", " (e.g. 60, 59.94, 60000/1001)"))]
    pub(crate) tick_rate: Rate,

    /// Present mode at start; auto is fifo, or a non-blocking mode when
    /// --emulate-refresh is on (fifo is also spelled vsync)
    #[arg(long, allow_hyphen_values = true, ignore_case = true, value_name = "MODE", default_value = "auto")]
    pub(crate) present_mode: PresentModeRequest,

    /// Extra load sprites on top of the demo's movers
    #[arg(long, allow_hyphen_values = true, value_name = "N", default_value_t = DEFAULT_SPRITES,
          value_parser = cli::whole(0, u64::from(MAX_SPRITES)).map(|n| u32::try_from(n).unwrap_or(MAX_SPRITES)))]
    pub(crate) sprites: u32,

    /// Open the window on monitor N (1-based, as listed in the log at startup)
    #[arg(long, allow_hyphen_values = true, value_name = "N",
          value_parser = cli::whole(1, u64::from(u32::MAX)).map(|n| usize::try_from(n).unwrap_or(usize::MAX)))]
    pub(crate) monitor: Option<usize>,

    /// Initial window size in logical pixels, e.g. 1280x720, as `measure --window-size` (the OS's
    /// scale factor multiplies it; the software adapter's frame time grows with the pixel count)
    #[arg(long, allow_hyphen_values = true, value_name = "WxH", default_value = "1280x720", value_parser = cli::size)]
    pub(crate) window_size: [u32; 2],

    /// Start in borderless fullscreen (on --monitor N, else the current monitor)
    #[arg(long)]
    pub(crate) fullscreen: bool,

    /// Quit after this many seconds, at most 10000000 (for scripted runs and tests)
    #[arg(long, allow_hyphen_values = true, value_name = "SECONDS", value_parser = EXIT_AFTER.nanos())]
    pub(crate) exit_after: Option<Nanos>,

    /// Write run statistics as JSON to FILE at exit (field names as `simulate --format json`);
    /// checked before the window opens, an existing file is replaced
    #[arg(long, value_name = "FILE", value_parser = cli::file_name)]
    pub(crate) stats_json: Option<PathBuf>,

    /// At exit, draw the last frame again, overlay included unless hidden, at the window's size and
    /// save it as a PNG (the name must end in .png)
    #[arg(long, value_name = "FILE.png", value_parser = cli::png_file_name)]
    pub(crate) screenshot: Option<PathBuf>,

    /// Pace presents to a virtual vblank grid at HZ over a non-blocking present mode.
    #[arg(long, allow_hyphen_values = true, value_name = "HZ|N=HZ,…", value_parser = cli::emulated_refresh,
          help = cli::rate_help(
              "Pace presents to a virtual vblank grid at HZ",
              " (e.g. 59.94, 144), over a non-blocking present mode, to study vsync on displays without it, or \
               through a VRR gate (vrr:48-144: each frame shown when ready, within the range); per monitor as \
               1=59.94,2=vrr:48-144 (numbered as in the startup log; others keep their real refresh)"))]
    pub(crate) emulate_refresh: Option<EmulatedRefresh>,

    /// The pacer's frame limit: frames start at most this often, whatever the strategy.
    #[arg(long, allow_hyphen_values = true, value_name = "HZ", value_parser = cli::rate,
          help = cli::rate_help(
              "The pacer's frame limit: frames start at most this often, whatever the strategy (a few Hz below a \
               VRR display's maximum keeps frames from queueing at its ceiling); the page takes ?frame-limit=HZ",
              ""))]
    pub(crate) frame_limit: Option<Rate>,

    /// Random wake-up jitter of the emulated vblank, ± N microseconds, at most 100000 (needs --emulate-refresh)
    #[arg(long, allow_hyphen_values = true, value_name = "N", value_parser = cli::whole(0, MAX_JITTER_US))]
    pub(crate) emulate_jitter_us: Option<u64>,

    /// Variant of the fuzzy timer
    #[arg(long, allow_hyphen_values = true, ignore_case = true, value_name = "VARIANT", default_value = "final",
          value_parser = cli::one_of(&FuzzyVariant::ALL, FuzzyVariant::name))]
    pub(crate) fuzzy_variant: FuzzyVariant,

    /// Turn off fuzzy's vsync detection (the article's raw timer)
    #[arg(long)]
    pub(crate) no_vsync_detect: bool,

    /// Start with the overlay hidden (H shows it)
    #[arg(long)]
    pub(crate) no_overlay: bool,

    /// Seed of the emulated jitter and the random load spikes
    #[arg(long, allow_hyphen_values = true, value_name = "N", default_value = "1", value_parser = cli::whole(0, u64::MAX))]
    pub(crate) seed: u64,

    /// Start in lane mode: a lane per strategy, fed the same frames (C toggles); `--lanes` alone
    /// is every strategy, or give comma-separated ids (the lanes C opens, top to bottom)
    #[arg(long, value_name = "IDS|all", num_args = 0..=1, default_missing_value = "all", value_parser = cli::strategy_list)]
    pub(crate) lanes: Option<StrategyList>,

    /// Write each loop frame's start-to-start interval (ms, whole nanoseconds) to FILE, the CSV
    /// `simulate --trace` replays, with when its picture was shown and by whose word (display_ms,
    /// display_source); checked before the window opens
    #[arg(long, value_name = "FILE", value_parser = cli::file_name)]
    pub(crate) frame_log: Option<PathBuf>,

    /// Time frames by the present call's return (an estimate) even where the compositor says
    /// when they were shown (Wayland's wp_presentation): to compare the two
    #[arg(long)]
    pub(crate) no_presentation_feedback: bool,
}

fn usage(flag: &str, message: impl std::fmt::Display) -> CliError {
    CliError::Usage(format!("--{flag}: {message}"))
}

/// Checks what spans flags, and that the output files can be written
/// (before the window opens, so a long run cannot lose its results).
///
/// # Errors
/// [`CliError::Usage`] naming the first bad flag.
pub(crate) fn config(args: &RunArgs) -> Result<RunConfig, CliError> {
    let strategy_config = StrategyConfig::default()
        .with_tick_rate(args.tick_rate)
        .with_fuzzy_variant(args.fuzzy_variant)
        .with_vsync_detect(!args.no_vsync_detect);
    let emulation = match (&args.emulate_refresh, args.emulate_jitter_us) {
        (None, Some(_)) => return Err(usage("emulate-jitter-us", "needs --emulate-refresh HZ")),
        (None, None) => None,
        (Some(rates), jitter_us) => Some(Emulation { rates: rates.clone(), jitter: jitter_us.unwrap_or(0) * 1000 }),
    };
    let outputs = [("stats-json", &args.stats_json), ("screenshot", &args.screenshot), ("frame-log", &args.frame_log)];
    for (flag, path) in outputs {
        if let Some(path) = path {
            cli::check_writable(path).map_err(|e| usage(flag, e))?;
        }
    }
    Ok(RunConfig {
        strategy: args.strategy,
        strategy_config,
        present_mode: args.present_mode,
        sprites: args.sprites,
        monitor: args.monitor.map(|n| n - 1),
        fullscreen: args.fullscreen,
        window_size: args.window_size,
        fill_window: false,
        exit_after: args.exit_after,
        stats_json: args.stats_json.clone(),
        screenshot: args.screenshot.clone(),
        emulation,
        no_overlay: args.no_overlay,
        seed: args.seed,
        lanes: args.lanes.clone().unwrap_or_default(),
        start_in_lanes: args.lanes.is_some(),
        presentation_feedback: !args.no_presentation_feedback,
        frame_log: args.frame_log.clone(),
        frame_limit: args.frame_limit,
    })
}

/// Opens the demo window and runs until `Esc`, the window is closed, or `--exit-after`.
///
/// # Errors
/// [`CliError::Usage`] for bad flags or unwritable output files;
/// [`CliError::Runtime`] when there is no display, no GPU adapter, the device
/// is lost, or output files cannot be written at the end.
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    crate::app::run_app(config(args)?, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: RunArgs,
    }

    fn parse(list: &[&str]) -> Result<RunArgs, clap::Error> {
        Wrapper::try_parse_from(std::iter::once("run").chain(list.iter().copied())).map(|w| w.args)
    }

    fn checked(list: &[&str]) -> RunConfig {
        config(&parse(list).expect("valid flags")).expect("a valid config")
    }

    #[test]
    fn defaults_are_valid() {
        let config = checked(&[]);
        assert_eq!(config.strategy, StrategyId::Interpolated);
        assert_eq!(config.strategy_config.tick_rate, Rate::from_hz(60));
        assert_eq!(config.present_mode, PresentModeRequest::Auto);
        assert_eq!(config.sprites, DEFAULT_SPRITES);
        assert_eq!(config.window_size, [1280, 720]);
        assert_eq!(config.emulation, None);
        assert_eq!(config.seed, 1);
        assert_eq!(config.frame_limit, None);
        assert_eq!(checked(&["--frame-limit", "141"]).frame_limit, Some(Rate::from_hz(141)));
    }

    #[test]
    fn emulation_parses_ntsc_rates_and_jitter() {
        let config = checked(&["--emulate-refresh", "59.94", "--emulate-jitter-us", "250"]);
        let rates = EmulatedRefresh::All(Rate::new(60000, 1001).unwrap().into());
        assert_eq!(config.emulation, Some(Emulation { rates, jitter: 250_000 }));
        let per_monitor = checked(&["--emulate-refresh", "1=59.94,2=144"]).emulation.expect("emulation");
        assert_eq!(per_monitor.rates.rate_on(1), Some(Rate::from_hz(144)), "monitor 2 at 144 Hz");
        let vrr = checked(&["--emulate-refresh", "1=vrr:48-144,2=60"]).emulation.expect("emulation");
        assert_eq!(vrr.rates.vrr_on(0).map(|r| r.to_string()), Some("vrr:48-144".to_owned()), "monitor 1 a VRR gate");
        assert_eq!((vrr.rates.rate_on(0), vrr.rates.vrr_on(1)), (None, None), "a gate has no grid, a grid no range");
        let all = checked(&["--emulate-refresh", "vrr:48-144"]).emulation.expect("emulation");
        assert!(all.rates.vrr_on(3).is_some(), "every monitor");
    }

    #[test]
    fn names_keep_their_spellings_aliases_and_any_case() {
        assert_eq!(
            checked(&["--present-mode", "vsync"]).present_mode,
            PresentModeRequest::Mode(wgpu::PresentMode::Fifo)
        );
        let relaxed = PresentModeRequest::Mode(wgpu::PresentMode::FifoRelaxed);
        assert_eq!(checked(&["--present-mode", "FiFoRelaxed"]).present_mode, relaxed);
        assert_eq!(checked(&["--present-mode", "fifo-relaxed"]).present_mode, relaxed);
        assert_eq!(checked(&["--strategy", "Catch-Up"]).strategy, StrategyId::CatchUp);
        assert_eq!(checked(&["--fuzzy-variant", "60-62"]).strategy_config.fuzzy_variant, FuzzyVariant::Fuzzy6062);
        assert_eq!(checked(&["--monitor", "1"]).monitor, Some(0), "monitors are numbered from 1");
        assert_eq!(checked(&["--exit-after", "1e7"]).exit_after, Some(10_000_000_000_000_000));
    }

    #[test]
    fn bad_values_are_one_line_usage_errors_naming_the_flag() {
        let cases: &[(&[&str], &str)] = &[
            (&["--strategy", "warp"], "--strategy: 'warp' is not one of lockstep, fixed-fps"),
            (&["--tick-rate", "0"], "--tick-rate: 0 is not a positive"),
            (&["--tick-rate", "2000"], "--tick-rate: 2000 is outside 1–1000 Hz"),
            (&["--tick-rate", "99999999999999999999"], "--tick-rate: 99999999999999999999 is outside 1–1000 Hz"),
            (&["--present-mode", "tearing"], "--present-mode: 'tearing' is not one of fifo, mailbox"),
            (&["--sprites", "-3"], "--sprites: '-3' is not a whole number 0–1000000"),
            (&["--sprites", "1000001"], "--sprites: 1000001 is out of range"),
            (&["--monitor", "0"], "--monitor: 0 is out of range: it must be 1–"),
            (&["--exit-after", "soon"], "--exit-after: 'soon' is not a number of s"),
            (&["--exit-after", "-1"], "--exit-after: -1 s is out of range"),
            (
                &["--exit-after", "1e8"],
                "--exit-after: 1e8 s is out of range: it must be more than 0 and at most 10000000 s",
            ),
            (&["--emulate-refresh", "fast"], "--emulate-refresh: 'fast' is not a rate"),
            (&["--emulate-refresh", "1001"], "--emulate-refresh: 1001 is outside 1–1000 Hz"),
            (&["--emulate-refresh", "1=60,1=144"], "--emulate-refresh: '1=144': monitor 1 is given twice"),
            (&["--emulate-refresh", "0=60"], "--emulate-refresh: '0=60': '0' is not a monitor number"),
            (
                &["--emulate-jitter-us", "100001", "--emulate-refresh", "60"],
                "--emulate-jitter-us: 100001 is out of range",
            ),
            (&["--fuzzy-variant", "61-63"], "--fuzzy-variant: '61-63' is not one of 60-62, 59-61, final"),
            (&["--window-size", "big"], "--window-size: 'big' is not WIDTHxHEIGHT"),
            (&["--window-size", "0x10"], "--window-size: 0x10: each side must be 1–16384"),
            (&["--screenshot", "shot.jpg"], "--screenshot: 'shot.jpg' is not a .png name"),
            (&["--stats-json", ""], "--stats-json: the file name is empty"),
            (&["--frame-log", ""], "--frame-log: the file name is empty"),
            (&["--lanes", "warp"], "--lanes: unknown strategy 'warp' (expected one of: lockstep, fixed-fps"),
            (&["--lanes", "paced,,auto"], "--lanes: 'paced,,auto' has an empty item"),
            (&["--lanes", "auto,Auto"], "--lanes: auto is listed twice"),
        ];
        for (list, expected) in cases {
            let msg = match parse(list) {
                Err(err) => CliError::from_clap(&err).to_string(),
                Ok(args) => match config(&args) {
                    Err(CliError::Usage(msg)) => msg,
                    other => panic!("{list:?}: expected a usage error, got {other:?}"),
                },
            };
            assert!(msg.starts_with(expected), "{list:?}: '{msg}' should start with '{expected}'");
            assert!(!msg.contains('\n'), "{list:?}: '{msg}' is one line");
        }
        let jitter_alone = config(&parse(&["--emulate-jitter-us", "5"]).expect("parses"));
        assert!(
            matches!(&jitter_alone, Err(CliError::Usage(m)) if m == "--emulate-jitter-us: needs --emulate-refresh HZ"),
            "{jitter_alone:?}"
        );
    }

    #[test]
    fn output_files_are_checked_before_the_run() {
        let dir = std::env::temp_dir();
        let dir = dir.to_str().expect("utf-8 temp dir");
        let cases = [
            ("--stats-json", "/proc/x.json"),
            ("--stats-json", dir),
            ("--screenshot", "/proc/x.png"),
            ("--frame-log", "/proc/frames.csv"),
        ];
        for (flag, path) in cases {
            match config(&parse(&[flag, path]).expect("parses")) {
                Err(CliError::Usage(msg)) => assert!(msg.starts_with(flag), "'{msg}' names {flag}"),
                other => panic!("{flag} {path}: expected a usage error, got {other:?}"),
            }
        }
    }

    #[test]
    fn lanes_alone_are_all_ten_and_a_list_keeps_its_order() {
        let off = checked(&[]);
        assert!(!off.start_in_lanes, "no lane mode without --lanes");
        assert_eq!(off.lanes, StrategyList(StrategyId::ALL.to_vec()), "C opens all ten lanes");
        for list in [&["--lanes"][..], &["--lanes", "all"], &["--lanes", "ALL"], &["--lanes", "--exit-after", "3"]] {
            let config = checked(list);
            assert!(config.start_in_lanes, "{list:?} starts in lane mode");
            assert_eq!(config.lanes.0, StrategyId::ALL, "{list:?}: all ten lanes");
        }
        let two = checked(&["--lanes", "Interpolated,catch-up"]);
        assert_eq!(two.lanes.0, [StrategyId::Interpolated, StrategyId::CatchUp], "the order given, top to bottom");
        assert_eq!(checked(&["--frame-log", "frames.csv"]).frame_log, Some(PathBuf::from("frames.csv")));
    }
}
