//! The web page's command: `run`'s flags as URL query parameters, with the
//! same names, values and ranges (`?strategy=fuzzy&tick-rate=60&lanes=all`),
//! checked by the same parsers, so a bad parameter gets the message the
//! command line would print.
//!
//! ```text
//! ?strategy=fuzzy&tick-rate=59.94&lanes      ──►  --strategy fuzzy --tick-rate 59.94 --lanes
//! ?no-overlay  ?no-overlay=true              ──►  --no-overlay
//! ?no-overlay=false                          ──►  (nothing)
//! ?measure&strategies=fuzzy,interpolated     ──►  measure --strategies fuzzy,interpolated
//!                                                 (report.json and report.html as downloads)
//! ```

use clap::Parser as _;

use crate::commands::measure::MeasureArgs;
use crate::commands::run::RunArgs;
use crate::error::CliError;

/// `run`'s flags, parsed as clap parses the command line.
#[derive(clap::Parser, Debug)]
#[command(name = "timestep-lab", no_binary_name = false, disable_help_flag = true, disable_version_flag = true)]
struct Page {
    #[command(flatten)]
    run: RunArgs,
}

/// `measure`'s flags, for `?measure`: the tour's files become downloads.
#[derive(clap::Parser, Debug)]
#[command(name = "timestep-lab", disable_help_flag = true, disable_version_flag = true)]
struct PageMeasure {
    #[command(flatten)]
    measure: MeasureArgs,
}

/// The parameter that turns the page into `measure`'s tour.
const MEASURE: &str = "--measure";

/// The parameter that turns the page into `compare` of the cards the user picks.
const COMPARE: &str = "--compare";

/// Whether the page compares cards (`?compare`) instead of opening the demo.
pub fn is_compare(query: &str) -> bool {
    query_words(query).iter().any(|w| w == COMPARE)
}

/// `compare` of files the user picked in the page (name, content), as the
/// page `compare --html` writes: what a user with only a phone compares with.
///
/// # Errors
/// [`CliError::Usage`] naming the first file that is not a card or runs.
pub fn compare_html(files: &[(String, String)]) -> Result<String, CliError> {
    use crate::report_card::compare::{compare, parse_source};
    use crate::report_card::judge::MAX_DRIFT_MS_PER_MIN;
    if files.is_empty() {
        return Err(CliError::Usage("pick one or more report.json files (or simulator JSON) to compare".to_owned()));
    }
    let sources = files
        .iter()
        .map(|(name, text)| {
            parse_source(text).map(|s| (name.clone(), s)).map_err(|e| CliError::Usage(format!("{name}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    compare(&sources, MAX_DRIFT_MS_PER_MIN).to_html().map_err(CliError::runtime)
}

/// The command-line words a query string stands for.
pub fn query_words(query: &str) -> Vec<String> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut words = Vec::new();
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        match value.as_ref() {
            "" | "true" => words.push(format!("--{name}")),
            "false" => {}
            _ => {
                words.push(format!("--{name}"));
                words.push(value.into_owned());
            }
        }
    }
    words
}

/// The run a query string asks for.
///
/// # Errors
/// [`CliError::Usage`]: the one line the command line would print for the
/// same flags (`--tick-rate: 5000 is outside 1–1000 Hz`), with `?name=`
/// in place of `--name` so that it reads as the page's address.
pub fn run_args(query: &str) -> Result<RunArgs, CliError> {
    let words = std::iter::once("timestep-lab".to_owned()).chain(query_words(query));
    Page::try_parse_from(words).map(|page| page.run).map_err(|err| parameter_error(&err))
}

/// The tour a `?measure` query asks for; its files go to the page's downloads.
///
/// # Errors
/// As [`run_args`], with `measure`'s flags.
pub fn measure_args(query: &str) -> Result<MeasureArgs, CliError> {
    let mut words: Vec<String> = query_words(query).into_iter().filter(|w| w != MEASURE).collect();
    if !words.iter().any(|w| w == "--out") {
        words.extend(["--out".to_owned(), ".".to_owned()]);
    }
    let words = std::iter::once("timestep-lab".to_owned()).chain(words);
    PageMeasure::try_parse_from(words).map(|page| page.measure).map_err(|err| parameter_error(&err))
}

/// The query of the tour a running page starts (the page's tour key): `?measure`
/// and the run's parameters that `measure` takes too, by its own flags
/// (`?strategy=fuzzy&tick-rate=30` → `?measure&tick-rate=30`: a tour has
/// no `strategy`, and would refuse it).
pub fn measure_query(query: &str) -> String {
    use clap::CommandFactory as _;
    let tour = PageMeasure::command();
    let takes = |name: &str| tour.get_arguments().any(|a| a.get_long() == Some(name));
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        if takes(&name) {
            out.append_pair(&name, &value);
        }
    }
    let shared = out.finish();
    if shared.is_empty() { "?measure".to_owned() } else { format!("?measure&{shared}") }
}

/// clap's one line, with `name` for `--name`.
fn parameter_error(err: &clap::Error) -> CliError {
    match CliError::from_clap(err) {
        CliError::Usage(message) => CliError::Usage(as_parameters(&message)),
        other => other,
    }
}

/// `--tick-rate: …` → `tick-rate: …`; `'--quite'` → `'quite'`; `see --help` → `see the README`.
fn as_parameters(message: &str) -> String {
    message.replace("; see --help", "").replace("'--", "'").replace("--", "")
}

/// Opens the demo in the page with the run `query` asks for, or `measure`'s
/// tour with `?measure`.
///
/// # Errors
/// As [`run_args`] or [`measure_args`], then as the command.
pub fn run(query: &str) -> Result<(), CliError> {
    if query_words(query).iter().any(|w| w == MEASURE) {
        return crate::commands::measure::run(&measure_args(query)?);
    }
    crate::commands::run::run(&run_args(query)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::StrategyId;
    use crate::time::Rate;

    #[test]
    fn parameters_become_the_flags_of_run() {
        assert_eq!(
            query_words("?strategy=fuzzy&tick-rate=59.94&lanes&no-overlay=true&fullscreen=false"),
            ["--strategy", "fuzzy", "--tick-rate", "59.94", "--lanes", "--no-overlay"]
        );
        assert_eq!(query_words("lanes=catch-up%2Cfuzzy"), ["--lanes", "catch-up,fuzzy"]);
        assert!(query_words("").is_empty());
    }

    #[test]
    fn a_query_is_checked_with_run_s_ranges() {
        let args = run_args("?strategy=Catch-Up&tick-rate=30&lanes=all").expect("valid");
        assert_eq!(args.strategy, StrategyId::CatchUp);
        assert_eq!(args.tick_rate, Rate::from_hz(30));
        assert!(args.lanes.is_some());
        assert_eq!(run_args("").expect("defaults").strategy, StrategyId::Interpolated);
        assert_eq!(run_args("?frame-limit=57").expect("valid").frame_limit, Some(Rate::from_hz(57)));
    }

    #[test]
    fn measure_takes_its_own_parameters_and_writes_to_downloads() {
        let args = measure_args("?measure&strategies=fuzzy,interpolated&seconds-per-strategy=1").expect("valid");
        assert_eq!(args.strategies.0, [StrategyId::Fuzzy, StrategyId::Interpolated]);
        assert_eq!(args.out, std::path::PathBuf::from("."), "files go where downloads go");
        let err = measure_args("?measure&seconds-per-strategy=0").expect_err("out of range");
        assert!(err.to_string().starts_with("seconds-per-strategy: 0 s is out of range"), "{err}");
    }

    #[test]
    fn the_tour_key_keeps_the_parameters_a_tour_takes() {
        assert_eq!(measure_query(""), "?measure");
        assert_eq!(measure_query("?strategy=fuzzy&lanes=all"), "?measure");
        let query = measure_query("?strategy=fuzzy&tick-rate=30&emulate-refresh=30&no-overlay");
        assert_eq!(query, "?measure&tick-rate=30&emulate-refresh=30&no-overlay=");
        let args = measure_args(&query).expect("a tour takes every parameter kept");
        assert_eq!(args.tick_rate, Rate::from_hz(30));
        assert!(args.no_overlay);
    }

    #[test]
    fn picked_cards_become_the_compare_page_and_a_wrong_file_is_named() {
        let card = |name: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card").join(name);
            (name.to_owned(), std::fs::read_to_string(path).expect("the fixture"))
        };
        let page = compare_html(&[card("60hz.json"), card("144hz.json")]).expect("two cards compare");
        assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg"), "the compare page");
        let err = compare_html(&[card("60hz.json"), ("notes.txt".to_owned(), "hello".to_owned())]).expect_err("bad");
        assert!(err.to_string().starts_with("notes.txt: not valid JSON"), "{err}");
        assert!(compare_html(&[]).is_err(), "nothing picked");
        assert!(is_compare("?compare") && !is_compare("?strategy=fuzzy"));
    }

    #[test]
    fn a_bad_parameter_is_one_line_naming_it_as_a_parameter() {
        let cases = [
            ("?tick-rate=5000", "tick-rate: 5000 is outside 1–1000 Hz"),
            ("?strategy=warp", "strategy: 'warp' is not one of lockstep, fixed-fps"),
            ("?lanes=auto,auto", "lanes: auto is listed twice"),
            ("?no-overlays", "unexpected argument 'no-overlays' (did you mean 'no-overlay'?)"),
        ];
        for (query, expected) in cases {
            let message = match run_args(query) {
                Err(CliError::Usage(message)) => message,
                other => panic!("{query}: expected a usage error, got {other:?}"),
            };
            assert!(message.starts_with(expected), "{query}: '{message}' should start with '{expected}'");
            assert!(!message.contains('\n') && !message.contains("--"), "{query}: '{message}'");
        }
    }
}
