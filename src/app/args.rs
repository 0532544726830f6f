//! `timestep-lab run`: the command line, and its validation into a [`RunConfig`].
//!
//! Values are taken as text and checked here rather than by clap's typed
//! parsers, so every bad value ends the process the same way: one line on
//! stderr naming the flag, exit code 2.

use std::path::PathBuf;

use crate::error::CliError;
use crate::strategy::{FuzzyVariant, StrategyConfig, StrategyId};
use crate::time::{Nanos, Rate, secs_to_nanos};

/// Extra load sprites when `--sprites` is not given: enough to make the
/// renderer do some work, few enough for a software adapter at 60 fps.
pub const DEFAULT_SPRITES: u32 = 100;

/// Most extra sprites accepted (the renderer's benchmarks go to 100k).
pub const MAX_SPRITES: u32 = 1_000_000;

/// Tick rates accepted, in Hz.
pub const TICK_RATE_RANGE: std::ops::RangeInclusive<f64> = 1.0..=1000.0;

/// Largest emulated vblank jitter: a tenth of a second is already absurd.
pub const MAX_JITTER_US: u64 = 100_000;

/// Arguments of `timestep-lab run` (the default command).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RunArgs {
    /// Loop strategy at start: lockstep, fixed-fps, variable, catch-up,
    /// interpolated, extrapolated, fuzzy, snapped, paced, auto (keys 1–0 switch later)
    #[arg(long, allow_hyphen_values = true, value_name = "ID", default_value = "interpolated")]
    pub strategy: String,

    /// Simulation tick rate in Hz, 1–1000 (e.g. 60, 59.94, 60000/1001)
    #[arg(long, allow_hyphen_values = true, value_name = "HZ", default_value = "60")]
    pub tick_rate: String,

    /// Present mode at start: fifo (vsync), mailbox, immediate, fifo-relaxed,
    /// or auto (fifo; a non-blocking mode when --emulate-refresh is on)
    #[arg(long, allow_hyphen_values = true, value_name = "MODE", default_value = "auto")]
    pub present_mode: String,

    /// Extra load sprites on top of the demo's movers
    #[arg(long, allow_hyphen_values = true, value_name = "N", default_value_t = DEFAULT_SPRITES.to_string())]
    pub sprites: String,

    /// Open the window on monitor N (1-based, as listed in the log at startup)
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub monitor: Option<String>,

    /// Initial window size in logical pixels, e.g. 1280x720 (the software
    /// adapter's frame time grows with the pixel count)
    #[arg(long, allow_hyphen_values = true, value_name = "WxH", default_value = "1280x720")]
    pub window_size: String,

    /// Start in borderless fullscreen (on --monitor N, else the current monitor)
    #[arg(long)]
    pub fullscreen: bool,

    /// Quit after this many seconds (for scripted runs and tests)
    #[arg(long, allow_hyphen_values = true, value_name = "SECONDS")]
    pub exit_after: Option<String>,

    /// Write run statistics as JSON to FILE at exit (field names as `simulate --format json`)
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,

    /// Render the world offscreen at exit and save it as a PNG
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,

    /// Pace presents to a virtual vblank grid at HZ (e.g. 59.94, 144) over a
    /// non-blocking present mode, to study vsync on displays without it
    #[arg(long, allow_hyphen_values = true, value_name = "HZ")]
    pub emulate_refresh: Option<String>,

    /// Random wake-up jitter of the emulated vblank, ± N microseconds (needs --emulate-refresh)
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub emulate_jitter_us: Option<String>,

    /// Variant of the fuzzy timer: 60-62, 59-61 or final
    #[arg(long, allow_hyphen_values = true, value_name = "VARIANT", default_value = "final")]
    pub fuzzy_variant: String,

    /// Turn off fuzzy's vsync detection (the article's raw timer)
    #[arg(long)]
    pub no_vsync_detect: bool,

    /// Start with the overlay hidden (H shows it)
    #[arg(long)]
    pub no_overlay: bool,

    /// Seed of the emulated jitter and the random load spikes
    #[arg(long, allow_hyphen_values = true, value_name = "N", default_value = "1")]
    pub seed: String,
}

/// The present mode asked for on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresentModeRequest {
    /// Fifo, or a non-blocking mode under emulation.
    Auto,
    /// This exact mode (or the closest supported one).
    Mode(wgpu::PresentMode),
}

impl PresentModeRequest {
    /// Parses `fifo|mailbox|immediate|fifo-relaxed|auto`.
    ///
    /// # Errors
    /// Any other text.
    pub fn parse(text: &str) -> Result<PresentModeRequest, CliError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(PresentModeRequest::Auto),
            "fifo" | "vsync" => Ok(PresentModeRequest::Mode(wgpu::PresentMode::Fifo)),
            "mailbox" => Ok(PresentModeRequest::Mode(wgpu::PresentMode::Mailbox)),
            "immediate" => Ok(PresentModeRequest::Mode(wgpu::PresentMode::Immediate)),
            "fifo-relaxed" | "fiforelaxed" => Ok(PresentModeRequest::Mode(wgpu::PresentMode::FifoRelaxed)),
            other => Err(CliError::Usage(format!(
                "--present-mode: unknown mode '{other}' (expected fifo, mailbox, immediate, fifo-relaxed or auto)"
            ))),
        }
    }

    /// The concrete mode to ask the surface for. Emulation needs presents
    /// that do not block on a real vblank, or the two grids would beat.
    pub fn resolve(self, emulating: bool) -> wgpu::PresentMode {
        match (self, emulating) {
            (PresentModeRequest::Mode(mode), _) => mode,
            (PresentModeRequest::Auto, false) => wgpu::PresentMode::Fifo,
            (PresentModeRequest::Auto, true) => wgpu::PresentMode::Immediate,
        }
    }

    /// How the overlay names the request.
    pub fn label(self) -> &'static str {
        match self {
            PresentModeRequest::Auto => "auto",
            PresentModeRequest::Mode(mode) => crate::render::surface::present_mode_name(mode),
        }
    }
}

/// The emulated display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emulation {
    /// The virtual refresh rate.
    pub rate: Rate,
    /// Wake-up jitter bound.
    pub jitter: Nanos,
}

/// Validated settings of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Strategy at start.
    pub strategy: StrategyId,
    /// What strategies are built from (tick rate, fuzzy variant, …).
    pub strategy_config: StrategyConfig,
    /// Present mode asked for.
    pub present_mode: PresentModeRequest,
    /// Extra load sprites.
    pub sprites: u32,
    /// Monitor index (0-based) to open on.
    pub monitor: Option<usize>,
    /// Start in fullscreen.
    pub fullscreen: bool,
    /// Initial inner size of the window, logical pixels.
    pub window_size: [u32; 2],
    /// Quit after this long.
    pub exit_after: Option<Nanos>,
    /// Where to write the stats.
    pub stats_json: Option<PathBuf>,
    /// Where to write the screenshot.
    pub screenshot: Option<PathBuf>,
    /// The emulated display, if any.
    pub emulation: Option<Emulation>,
    /// Start with the overlay hidden.
    pub no_overlay: bool,
    /// Seed for jitter and load spikes.
    pub seed: u64,
}

fn usage(flag: &str, message: impl std::fmt::Display) -> CliError {
    CliError::Usage(format!("--{flag}: {message}"))
}

fn parse_u64(flag: &str, text: &str) -> Result<u64, CliError> {
    text.trim().parse().map_err(|_| usage(flag, format!("'{text}' is not a whole number")))
}

/// Largest window side accepted, logical pixels.
const MAX_WINDOW_SIDE: u32 = 16_384;

fn parse_size(text: &str) -> Result<[u32; 2], CliError> {
    let bad = || usage("window-size", format!("'{text}' is not WIDTHxHEIGHT (e.g. 1280x720)"));
    let (w, h) = text.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=MAX_WINDOW_SIDE).contains(&w) || !(1..=MAX_WINDOW_SIDE).contains(&h) {
        return Err(usage("window-size", format!("{w}x{h}: each side must be 1–{MAX_WINDOW_SIDE}")));
    }
    Ok([w, h])
}

impl RunConfig {
    /// Checks every value.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming the first bad flag.
    pub fn from_args(args: &RunArgs) -> Result<RunConfig, CliError> {
        let strategy = StrategyId::parse(&args.strategy).map_err(|e| usage("strategy", e))?;
        let tick_rate = Rate::parse(&args.tick_rate).map_err(|e| usage("tick-rate", e))?;
        if !TICK_RATE_RANGE.contains(&tick_rate.hz()) {
            return Err(usage("tick-rate", format!("{tick_rate} is outside 1–1000 Hz")));
        }
        let fuzzy_variant = FuzzyVariant::parse(&args.fuzzy_variant).map_err(|e| usage("fuzzy-variant", e))?;
        let strategy_config = StrategyConfig {
            tick_rate,
            fuzzy_variant,
            vsync_detect: !args.no_vsync_detect,
            ..StrategyConfig::default()
        };
        let present_mode = PresentModeRequest::parse(&args.present_mode)?;
        let sprites = parse_u64("sprites", &args.sprites)?;
        if sprites > u64::from(MAX_SPRITES) {
            return Err(usage("sprites", format!("{sprites} is more than {MAX_SPRITES}")));
        }
        let monitor = match &args.monitor {
            None => None,
            Some(text) => match parse_u64("monitor", text)? {
                0 => return Err(usage("monitor", "monitors are numbered from 1")),
                n => Some(usize::try_from(n - 1).unwrap_or(usize::MAX)),
            },
        };
        let exit_after = match &args.exit_after {
            None => None,
            Some(text) => {
                let secs: f64 = text
                    .trim()
                    .parse()
                    .map_err(|_| usage("exit-after", format!("'{text}' is not a number of seconds")))?;
                if !secs.is_finite() || secs <= 0.0 || secs > 1e7 {
                    return Err(usage("exit-after", format!("{text} must be a positive number of seconds")));
                }
                Some(secs_to_nanos(secs))
            }
        };
        let jitter_us = match &args.emulate_jitter_us {
            None => 0,
            Some(text) => parse_u64("emulate-jitter-us", text)?,
        };
        if jitter_us > MAX_JITTER_US {
            return Err(usage("emulate-jitter-us", format!("{jitter_us} µs is more than {MAX_JITTER_US} µs")));
        }
        let emulation = match &args.emulate_refresh {
            None if args.emulate_jitter_us.is_some() => {
                return Err(usage("emulate-jitter-us", "needs --emulate-refresh HZ"));
            }
            None => None,
            Some(text) => {
                let rate = Rate::parse(text).map_err(|e| usage("emulate-refresh", e))?;
                if !(1.0..=1000.0).contains(&rate.hz()) {
                    return Err(usage("emulate-refresh", format!("{rate} is outside 1–1000 Hz")));
                }
                Some(Emulation { rate, jitter: jitter_us * 1000 })
            }
        };
        for (flag, path) in [("stats-json", &args.stats_json), ("screenshot", &args.screenshot)] {
            if let Some(path) = path
                && path.as_os_str().is_empty()
            {
                return Err(usage(flag, "the file name is empty"));
            }
        }
        Ok(RunConfig {
            strategy,
            strategy_config,
            present_mode,
            sprites: u32::try_from(sprites).unwrap_or(MAX_SPRITES),
            monitor,
            fullscreen: args.fullscreen,
            window_size: parse_size(&args.window_size)?,
            exit_after,
            stats_json: args.stats_json.clone(),
            screenshot: args.screenshot.clone(),
            emulation,
            no_overlay: args.no_overlay,
            seed: parse_u64("seed", &args.seed)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args() -> RunArgs {
        RunArgs {
            strategy: "interpolated".into(),
            tick_rate: "60".into(),
            present_mode: "auto".into(),
            sprites: "100".into(),
            fuzzy_variant: "final".into(),
            seed: "1".into(),
            window_size: "1280x720".into(),
            ..RunArgs::default()
        }
    }

    fn usage_message(args: &RunArgs) -> String {
        match RunConfig::from_args(args) {
            Err(CliError::Usage(msg)) => msg,
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_valid() {
        let config = RunConfig::from_args(&args()).expect("defaults parse");
        assert_eq!(config.strategy, StrategyId::Interpolated);
        assert_eq!(config.strategy_config.tick_rate, Rate::from_hz(60));
        assert_eq!(config.present_mode, PresentModeRequest::Auto);
        assert_eq!(config.emulation, None);
    }

    #[test]
    fn emulation_parses_ntsc_rates_and_jitter() {
        let a = RunArgs { emulate_refresh: Some("59.94".into()), emulate_jitter_us: Some("250".into()), ..args() };
        let config = RunConfig::from_args(&a).expect("valid");
        assert_eq!(config.emulation, Some(Emulation { rate: Rate::new(60000, 1001).unwrap(), jitter: 250_000 }));
    }

    #[test]
    fn bad_values_are_one_line_usage_errors_naming_the_flag() {
        let cases = [
            (RunArgs { strategy: "warp".into(), ..args() }, "--strategy"),
            (RunArgs { tick_rate: "0".into(), ..args() }, "--tick-rate"),
            (RunArgs { tick_rate: "2000".into(), ..args() }, "--tick-rate"),
            (RunArgs { present_mode: "tearing".into(), ..args() }, "--present-mode"),
            (RunArgs { sprites: "-3".into(), ..args() }, "--sprites"),
            (RunArgs { monitor: Some("0".into()), ..args() }, "--monitor"),
            (RunArgs { exit_after: Some("soon".into()), ..args() }, "--exit-after"),
            (RunArgs { exit_after: Some("-1".into()), ..args() }, "--exit-after"),
            (RunArgs { emulate_refresh: Some("fast".into()), ..args() }, "--emulate-refresh"),
            (RunArgs { emulate_jitter_us: Some("5".into()), ..args() }, "--emulate-jitter-us"),
            (RunArgs { fuzzy_variant: "61-63".into(), ..args() }, "--fuzzy-variant"),
            (RunArgs { window_size: "big".into(), ..args() }, "--window-size"),
            (RunArgs { window_size: "0x10".into(), ..args() }, "--window-size"),
        ];
        for (a, flag) in cases {
            let msg = usage_message(&a);
            assert!(msg.starts_with(flag), "'{msg}' should name {flag}");
            assert!(!msg.contains('\n'), "'{msg}' is one line");
        }
    }

    #[test]
    fn auto_present_mode_avoids_blocking_under_emulation() {
        assert_eq!(PresentModeRequest::Auto.resolve(false), wgpu::PresentMode::Fifo);
        assert_eq!(PresentModeRequest::Auto.resolve(true), wgpu::PresentMode::Immediate);
    }
}
