//! Flag values shared by the commands: clap value parsers that return typed
//! values (rates, strategy lists, sizes, numbers with a unit), and the checks
//! on output files made before any work. The commands themselves are in
//! [`crate::commands`]; the web page reads its query parameters through the
//! same parsers.
//!
//! Each parser returns the value's type (a [`Rate`], [`Nanos`], a name from a
//! closed set, a path) or a message that does not repeat the flag: clap puts
//! the flag in the error and `main` prints it as one line
//! ([`crate::error::CliError::from_clap`]):
//!
//! ```text
//! timestep-lab --tick-rate 5000
//!   └ cli::rate("5000") = Err("5000 is outside 1–1000 Hz")
//!     └ clap: ValueValidation { arg: "--tick-rate <HZ>", source }
//!       └ main: "timestep-lab: --tick-rate: 5000 is outside 1–1000 Hz", exit code 2
//! ```

use crate::strategy::StrategyId;
use crate::time::{Nanos, Rate, RateError, SUPPORTED_RATES, ms_to_nanos, secs_to_nanos};
use crate::vrr::{Refresh, RefreshError, VrrRange};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use std::path::PathBuf;

/// A tick or refresh rate within [`SUPPORTED_RATES`] (`60`, `59.94`, `60000/1001`).
///
/// # Errors
/// Malformed text or a rate outside the range.
pub(crate) fn rate(text: &str) -> Result<Rate, RateError> {
    Rate::parse(text)
}

/// A display's refresh: a rate (`60`, `59.94`) or a VRR range (`vrr:48-144`,
/// `vrr:48-144:no-lfc`), its ends within [`SUPPORTED_RATES`] and in order.
///
/// # Errors
/// Malformed text, a rate outside the range, a range whose ends are not in order.
pub(crate) fn refresh(text: &str) -> Result<Refresh, RefreshError> {
    text.parse()
}

/// `--emulate-refresh`: one refresh for every monitor, or one per monitor;
/// each a rate (a vblank grid) or a VRR range (a VRR gate).
///
/// ```text
/// --emulate-refresh 59.94          every monitor: a 60000/1001 Hz grid
/// --emulate-refresh 1=59.94,2=144  monitor 1 (as the startup log numbers them) at 59.94 Hz,
///                                  monitor 2 at 144 Hz, any other at its real refresh
/// --emulate-refresh 1=vrr:48-144   monitor 1 a 48–144 Hz VRR panel: frames shown when ready
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum EmulatedRefresh {
    /// The same refresh on every monitor.
    All(Refresh),
    /// `(monitor index, 0-based; refresh)`, in the order given, each monitor once.
    PerMonitor(Vec<(usize, Refresh)>),
}

impl EmulatedRefresh {
    /// The emulated refresh on monitor `index` (0-based), or `None` for its real refresh.
    pub(crate) fn refresh_on(&self, index: usize) -> Option<Refresh> {
        match self {
            EmulatedRefresh::All(refresh) => Some(*refresh),
            EmulatedRefresh::PerMonitor(list) => list.iter().find(|(i, _)| *i == index).map(|(_, r)| *r),
        }
    }

    /// The emulated grid's rate on monitor `index` (0-based): `None` for its
    /// real refresh, and for a VRR gate ([`EmulatedRefresh::vrr_on`]).
    pub(crate) fn rate_on(&self, index: usize) -> Option<Rate> {
        self.refresh_on(index).and_then(|r| r.fixed())
    }

    /// The emulated VRR gate's range on monitor `index` (0-based), if it has one.
    pub(crate) fn vrr_on(&self, index: usize) -> Option<VrrRange> {
        self.refresh_on(index).and_then(|r| r.vrr())
    }

    /// The highest monitor number (1-based) the list names, to check against the monitors found.
    pub(crate) fn highest_monitor(&self) -> Option<usize> {
        match self {
            EmulatedRefresh::All(_) => None,
            EmulatedRefresh::PerMonitor(list) => list.iter().map(|(i, _)| i + 1).max(),
        }
    }
}

/// `--emulate-refresh`: `HZ`, or `N=HZ[,N=HZ…]` with monitors numbered from 1.
///
/// # Errors
/// A malformed entry, a monitor 0, a monitor named twice, or a rate outside
/// [`SUPPORTED_RATES`]; the message quotes the entry.
pub(crate) fn emulated_refresh(text: &str) -> Result<EmulatedRefresh, String> {
    if !text.contains('=') {
        return refresh(text).map(EmulatedRefresh::All).map_err(|e| e.to_string());
    }
    let mut list: Vec<(usize, Refresh)> = Vec::new();
    for entry in text.split(',') {
        let (monitor, hz) = entry.split_once('=').ok_or_else(|| {
            format!("'{entry}' is not MONITOR=HZ: give one rate for all monitors (59.94) or a list (1=59.94,2=144)")
        })?;
        let n: usize = match monitor.trim().parse() {
            Ok(n) if n >= 1 => n,
            _ => {
                return Err(format!(
                    "'{entry}': '{}' is not a monitor number (1, 2, … as the startup log lists them)",
                    monitor.trim()
                ));
            }
        };
        let rate = refresh(hz).map_err(|e| format!("'{entry}': {e}"))?;
        if list.iter().any(|(i, _)| *i == n - 1) {
            return Err(format!("'{entry}': monitor {n} is given twice"));
        }
        list.push((n - 1, rate));
    }
    Ok(EmulatedRefresh::PerMonitor(list))
}

/// Help for a rate flag: `what`, the supported range, and `more`.
pub(crate) fn rate_help(what: &str, more: &str) -> String {
    format!("{what}, {SUPPORTED_RATES}{more}")
}

/// A decimal number of `unit` above `min` (or at least `min` when
/// `min_inclusive`) and at most `max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bounds {
    /// The lower end.
    pub(crate) min: f64,
    /// Whether `min` itself is allowed.
    pub(crate) min_inclusive: bool,
    /// The upper end, included.
    pub(crate) max: f64,
    /// What the number counts.
    pub(crate) unit: Unit,
}

/// The unit of a [`Bounds`] flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Seconds (`s`).
    Seconds,
    /// Milliseconds (`ms`).
    Millis,
    /// Milliseconds of speed error per minute (`ms per minute`).
    MillisPerMinute,
}

impl Unit {
    /// How messages name the unit.
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            Unit::Seconds => "s",
            Unit::Millis => "ms",
            Unit::MillisPerMinute => "ms per minute",
        }
    }
}

impl Bounds {
    /// Parses `text` as a finite number within the bounds.
    ///
    /// # Errors
    /// Text that is no number, NaN, infinite, or out of bounds; the message
    /// states the bounds.
    pub(crate) fn parse(&self, text: &str) -> Result<f64, String> {
        let Bounds { min, min_inclusive, max, unit } = *self;
        let unit = unit.symbol();
        let value: f64 = text.trim().parse().map_err(|_| format!("'{text}' is not a number of {unit}"))?;
        let above = if min_inclusive { value >= min } else { value > min };
        if value.is_finite() && above && value <= max {
            return Ok(value);
        }
        let low = if min_inclusive { "at least" } else { "more than" };
        Err(format!("{text} {unit} is out of range: it must be {low} {min} and at most {max} {unit}"))
    }

    /// A value parser giving nanoseconds, for a flag in seconds or milliseconds.
    pub(crate) fn nanos(self) -> impl Fn(&str) -> Result<Nanos, String> + Clone + Send + Sync + 'static {
        let to_nanos = if self.unit == Unit::Millis { ms_to_nanos } else { secs_to_nanos };
        move |text| self.parse(text).map(to_nanos)
    }
}

/// Largest window side accepted, logical pixels.
pub(crate) const MAX_WINDOW_SIDE: u32 = 16_384;

/// `WIDTHxHEIGHT`, each side 1–[`MAX_WINDOW_SIDE`].
///
/// # Errors
/// Text of another shape, or a side out of range.
pub(crate) fn size(text: &str) -> Result<[u32; 2], String> {
    let bad = || format!("'{text}' is not WIDTHxHEIGHT (e.g. 1280x720)");
    let (w, h) = text.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=MAX_WINDOW_SIDE).contains(&w) || !(1..=MAX_WINDOW_SIDE).contains(&h) {
        return Err(format!("{w}x{h}: each side must be 1–{MAX_WINDOW_SIDE}"));
    }
    Ok([w, h])
}

/// Strategies named on the command line, in the order given, each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StrategyList(pub(crate) Vec<StrategyId>);

impl Default for StrategyList {
    /// Every strategy, in key order.
    fn default() -> StrategyList {
        StrategyList(crate::registry::all())
    }
}

/// `all`, or strategy ids separated by commas, in any case, each at most
/// once (a repeat is a typo; a repeated run or lane would show nothing new).
///
/// # Errors
/// An unknown id (the message lists the valid ones), an empty item or a repeated id.
pub(crate) fn strategy_list(text: &str) -> Result<StrategyList, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(StrategyList::default());
    }
    let mut ids = Vec::new();
    for name in text.split(',') {
        if name.trim().is_empty() {
            return Err(format!("'{text}' has an empty item: give strategy ids separated by commas, or all"));
        }
        let id = crate::registry::parse(name).map_err(|e| e.to_string())?;
        if ids.contains(&id) {
            return Err(format!("{id} is listed twice: give each strategy once"));
        }
        ids.push(id);
    }
    Ok(StrategyList(ids))
}

/// A value parser for a whole number in `min..=max`.
pub(crate) fn whole(min: u64, max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text| match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(n) => Err(format!("{n} is out of range: it must be {min}–{max}")),
        Err(_) => Err(format!("'{text}' is not a whole number {min}–{max}")),
    }
}

/// A value parser for one of `all`, named by `name` (case-insensitive).
/// clap lists the names in `--help` and in the error for any other text.
pub(crate) fn one_of<T>(all: &'static [T], name: fn(T) -> &'static str) -> impl TypedValueParser<Value = T>
where
    T: Copy + Send + Sync + 'static,
{
    PossibleValuesParser::new(all.iter().map(|&v| name(v))).try_map(move |text: String| {
        // PossibleValuesParser let only the names (in any case, with `ignore_case`) through.
        all.iter().copied().find(|&v| name(v).eq_ignore_ascii_case(&text)).ok_or_else(|| format!("'{text}' is unknown"))
    })
}

/// A value parser for one strategy of the lab ([`crate::registry::all`],
/// read when the command line is built), named in any case; clap lists
/// the names in `--help` and in the error for any other text.
pub(crate) fn one_strategy() -> impl TypedValueParser<Value = StrategyId> {
    let all = crate::registry::all();
    PossibleValuesParser::new(all.iter().map(|id| id.name())).try_map(move |text: String| {
        all.iter()
            .copied()
            .find(|id| id.name().eq_ignore_ascii_case(&text))
            .ok_or_else(|| format!("'{text}' is unknown"))
    })
}

/// A non-empty file name.
///
/// # Errors
/// The empty string.
pub(crate) fn file_name(text: &str) -> Result<PathBuf, String> {
    if text.is_empty() { Err("the file name is empty".to_owned()) } else { Ok(PathBuf::from(text)) }
}

/// A non-empty file name ending in `.png` (any case): the screenshot is
/// always PNG, and PNG bytes under another name mislead every viewer.
///
/// # Errors
/// The empty string or another extension; the message names the fix.
pub(crate) fn png_file_name(text: &str) -> Result<PathBuf, String> {
    let path = file_name(text)?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
        return Ok(path);
    }
    Err(format!(
        "'{text}' is not a .png name: the screenshot is saved as PNG (write {})",
        path.with_extension("png").display()
    ))
}

pub(crate) use crate::platform::check_writable;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_state_the_range_in_the_message() {
        let b = Bounds { min: 0.0, min_inclusive: false, max: 1e7, unit: Unit::Seconds };
        assert_eq!(b.parse("1e7"), Ok(1e7));
        assert_eq!(b.parse("1e8").unwrap_err(), "1e8 s is out of range: it must be more than 0 and at most 10000000 s");
        assert_eq!(b.parse("0").unwrap_err(), "0 s is out of range: it must be more than 0 and at most 10000000 s");
        assert_eq!(b.parse("soon").unwrap_err(), "'soon' is not a number of s");
        for bad in ["NaN", "inf", "-inf"] {
            assert!(b.parse(bad).is_err(), "{bad} is refused");
        }
    }

    #[test]
    fn one_emulated_rate_applies_to_every_monitor() {
        let all = emulated_refresh("59.94").expect("a rate");
        assert_eq!(all, EmulatedRefresh::All(Rate::new(60000, 1001).expect("rate").into()));
        assert_eq!(all.rate_on(0), all.rate_on(7), "every monitor gets the same grid");
        assert_eq!(all.highest_monitor(), None);
    }

    #[test]
    fn a_list_gives_each_named_monitor_its_rate_and_the_others_none() {
        let list = emulated_refresh("1=59.94, 2=144").expect("a list");
        assert_eq!(list.rate_on(0), Some(Rate::new(60000, 1001).expect("rate")), "monitor 1");
        assert_eq!(list.rate_on(1), Some(Rate::from_hz(144)), "monitor 2");
        assert_eq!(list.rate_on(2), None, "monitor 3 keeps its real refresh");
        assert_eq!(list.highest_monitor(), Some(2));
    }

    #[test]
    fn bad_emulation_lists_say_which_entry_is_wrong() {
        let cases = [
            ("1=60,59.94", "'59.94' is not MONITOR=HZ"),
            ("0=60", "'0=60': '0' is not a monitor number"),
            ("x=60", "'x=60': 'x' is not a monitor number"),
            ("1=fast", "'1=fast': 'fast' is not a rate"),
            ("1=2000", "'1=2000': 2000 is outside 1–1000 Hz"),
            ("2=60,2=144", "'2=144': monitor 2 is given twice"),
            ("1=vrr:144-48", "'1=vrr:144-48': vrr:144-48: the lowest refresh (144 Hz) must be below the highest"),
            ("fast", "'fast' is not a rate"),
        ];
        for (text, expected) in cases {
            let err = emulated_refresh(text).expect_err(text);
            assert!(err.starts_with(expected), "{text}: '{err}' should start with '{expected}'");
        }
    }

    #[test]
    fn a_strategy_list_is_all_or_ids_in_order_each_once() {
        assert_eq!(strategy_list("ALL"), Ok(StrategyList::default()));
        assert_eq!(
            strategy_list("Snapped, interpolated"),
            Ok(StrategyList(vec![StrategyId::Snapped, StrategyId::Interpolated]))
        );
        assert!(strategy_list("warp").unwrap_err().starts_with("unknown strategy 'warp'"));
        assert!(strategy_list("paced,,auto").unwrap_err().contains("has an empty item"));
        assert_eq!(strategy_list("auto,Auto").unwrap_err(), "auto is listed twice: give each strategy once");
    }

    #[test]
    fn a_size_is_width_x_height_within_the_side_limit() {
        assert_eq!(size("640X360"), Ok([640, 360]));
        assert!(size("big").unwrap_err().contains("is not WIDTHxHEIGHT"));
        assert_eq!(size("0x10").unwrap_err(), "0x10: each side must be 1–16384");
    }

    #[test]
    fn milliseconds_become_nanoseconds() {
        let ms = Bounds { min: 0.0, min_inclusive: true, max: 10.0, unit: Unit::Millis }.nanos();
        assert_eq!(ms("2.5"), Ok(2_500_000));
        assert_eq!(ms("0"), Ok(0));
    }

    #[test]
    fn whole_numbers_are_checked_against_their_range() {
        let n = whole(1, 100);
        assert_eq!(n("100"), Ok(100));
        assert_eq!(n("0").unwrap_err(), "0 is out of range: it must be 1–100");
        assert_eq!(n("-3").unwrap_err(), "'-3' is not a whole number 1–100");
    }

    #[test]
    fn a_screenshot_must_be_named_png_in_any_case() {
        assert_eq!(png_file_name("shot.PNG"), Ok(PathBuf::from("shot.PNG")));
        let err = png_file_name("dir/shot.jpg").unwrap_err();
        assert!(err.contains("write dir/shot.png"), "{err}");
        assert!(png_file_name("shot").is_err());
        assert!(png_file_name("").is_err());
    }
}
