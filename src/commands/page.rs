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
//!                                                 (report-….json and .html as downloads)
//! ?strategy=a&strategy=b                     ──►  "strategy is given twice …"
//! ?monitor=2  ?out=dir  ?fullscreen …        ──►  refused, saying why a page cannot ([`REFUSED`])
//! ```
//!
//! The command also tells the page where its links go ([`crate::platform::set_links`]):
//! "Measure this screen" to the tour with the parameters a tour takes, "Start
//! again" to this run without what ends it, and the Controls panel the parameters it takes.

use clap::Parser as _;

use crate::app::RunConfig;
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

/// `run`'s and `measure`'s flags that mean nothing on a page, and why: each
/// is refused with its reason rather than accepted and ignored.
pub(crate) const REFUSED: [(&str, &str); 8] = [
    ("monitor", "a page is drawn on the screen its browser window is on: there is no monitor to choose"),
    ("fullscreen", "a browser goes fullscreen only on a tap or a key: use Controls' fullscreen, or F"),
    ("present-mode", "a browser always presents in step with the screen (Fifo): V moves the frames to timers instead"),
    ("out", "a page cannot write to a folder: its files are downloads"),
    ("send", "a page served by timestep-lab serve sends its card itself when its tour ends"),
    ("card", "a page measures its own screen: Compare cards puts card files side by side"),
    (
        "screenshot",
        "a page cannot read back its own picture in time: use the browser's screenshot (F12, Capture screenshot)",
    ),
    (
        "no-presentation-feedback",
        "a browser gives no presentation feedback: a page's display times are requestAnimationFrame's",
    ),
];

/// The parameters that end a run on their own: "Start again" leaves them out.
const ENDING: [&str; 2] = ["exit-after", "screenshot"];

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
    use crate::report_card::comparison::{self, parse_source};
    use crate::report_card::judge::MAX_DRIFT_MS_PER_MIN;
    if files.is_empty() {
        return Err(CliError::Usage(
            "pick one or more report cards (report-….json) or simulator JSON files to compare".to_owned(),
        ));
    }
    let sources = files
        .iter()
        .map(|(name, text)| {
            parse_source(text).map(|s| (name.clone(), s)).map_err(|e| CliError::Usage(format!("{name}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    comparison::compare_html(&sources, MAX_DRIFT_MS_PER_MIN).map_err(CliError::runtime)
}

/// The command-line words a query string stands for.
pub(crate) fn query_words(query: &str) -> Vec<String> {
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

/// The first parameter given twice, or one a page cannot take, as the one line saying so.
fn check_parameters(query: &str) -> Result<(), CliError> {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut seen: Vec<String> = Vec::new();
    for (name, _) in form_urlencoded::parse(query.as_bytes()) {
        if seen.iter().any(|s| *s == name) {
            return Err(CliError::Usage(format!("{name} is given twice: give each parameter once")));
        }
        if let Some((_, why)) = REFUSED.iter().find(|(refused, _)| *refused == name) {
            return Err(CliError::Usage(format!("{name}: not on a page: {why}")));
        }
        seen.push(name.into_owned());
    }
    Ok(())
}

/// The run a query string asks for.
///
/// # Errors
/// [`CliError::Usage`]: the one line the command line would print for the
/// same flags (`--tick-rate: 5000 is outside 1–1000 Hz`), with `?name=`
/// in place of `--name` so that it reads as the page's address; a repeated
/// parameter, or one a page cannot take ([`REFUSED`]), says so.
pub(crate) fn run_args(query: &str) -> Result<RunArgs, CliError> {
    check_parameters(query)?;
    let words = std::iter::once("timestep-lab".to_owned()).chain(query_words(query));
    Page::try_parse_from(words).map(|page| page.run).map_err(|err| parameter_error(&err))
}

/// The tour a `?measure` query asks for; its files go to the page's downloads.
///
/// # Errors
/// As [`run_args`], with `measure`'s flags.
pub(crate) fn measure_args(query: &str) -> Result<MeasureArgs, CliError> {
    check_parameters(query)?;
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
pub(crate) fn measure_query(query: &str) -> String {
    let shared = kept(query, &page_parameters::<PageMeasure>(), &[]);
    if shared.is_empty() { "?measure".to_owned() } else { format!("?measure&{shared}") }
}

/// The query that opens this page's run again without what ends it: no tour
/// (`?measure&tick-rate=30&seconds-per-strategy=2` → `?tick-rate=30`), no
/// `exit-after` or `screenshot`. "Start again" and a finished tour's address.
pub(crate) fn again_query(query: &str) -> String {
    format!("?{}", kept(query, &page_parameters::<Page>(), &ENDING))
}

/// `query`'s parameters that are in `takes` and not in `drop`, re-encoded.
fn kept(query: &str, takes: &[String], drop: &[&str]) -> String {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        if takes.iter().any(|t| *t == name) && !drop.contains(&name.as_ref()) {
            out.append_pair(&name, &value);
        }
    }
    out.finish()
}

/// The parameters a page takes for command `C` (`run`'s or `measure`'s
/// flags, less [`REFUSED`]), in the order `--help` lists them.
fn page_parameters<C: clap::CommandFactory>() -> Vec<String> {
    C::command()
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|name| !REFUSED.iter().any(|(refused, _)| refused == name))
        .map(str::to_owned)
        .collect()
}

/// The parameters the page takes for a run, and for `?measure`'s tour (the
/// README's list and the F1 help's are these).
pub(crate) fn parameters() -> (Vec<String>, Vec<String>) {
    (page_parameters::<Page>(), page_parameters::<PageMeasure>())
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
    let (run, tour) = parameters();
    let taken = format!("run: {}; ?measure: {}", run.join(", "), tour.join(", "));
    crate::platform::set_links(&measure_query(query), &again_query(query), &taken);
    // Without `?window-size=` the canvas fills the page and follows it.
    let fill = !query_words(query).iter().any(|w| w == "--window-size");
    if query_words(query).iter().any(|w| w == MEASURE) {
        let (config, tour) = crate::commands::measure::config(&measure_args(query)?)?;
        return crate::app::run_app(RunConfig { fill_window: fill, ..config }, Some(tour));
    }
    let config = crate::commands::run::config(&run_args(query)?)?;
    crate::app::run_app(RunConfig { fill_window: fill, ..config }, None)
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
        assert_eq!(args.out, Some(std::path::PathBuf::from(".")), "files go where downloads go");
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
            ("?strategy=fuzzy&strategy=auto", "strategy is given twice: give each parameter once"),
            ("?monitor=1", "monitor: not on a page: a page is drawn on the screen"),
            ("?fullscreen", "fullscreen: not on a page: a browser goes fullscreen only on a tap"),
            ("?present-mode=mailbox", "present-mode: not on a page: a browser always presents"),
            ("?screenshot=x.png&exit-after=2", "screenshot: not on a page: a page cannot read back"),
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

    #[test]
    fn the_page_s_compare_checks_cards_on_the_path_the_command_line_reads_them_by() {
        use crate::report_card::comparison::parse_source;
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card/60hz.json");
        let good = std::fs::read_to_string(fixture).expect("the fixture");
        for bad in [good.replacen("\"schema\": \"", "\"schema\": \"not-", 1), good.replacen('{', "[", 1)] {
            let expected = parse_source(&bad).err().map(|e| format!("card.json: {e}"));
            let page = compare_html(&[("card.json".to_owned(), bad)]).err().map(|e| e.to_string());
            assert!(expected.is_some(), "a broken card is refused");
            assert_eq!(page, expected, "the page refuses it with compare's own words");
        }
    }

    #[test]
    fn a_tour_refuses_what_a_page_cannot_do_and_the_out_it_is_given_is_its_own() {
        let err = measure_args("?measure&out=/etc").expect_err("a folder");
        assert_eq!(err.to_string(), "out: not on a page: a page cannot write to a folder: its files are downloads");
        let err = measure_args("?measure&tick-rate=30&tick-rate=60").expect_err("twice");
        assert!(err.to_string().starts_with("tick-rate is given twice"), "{err}");
        assert!(measure_args("?measure").is_ok(), "the downloads' own out is not the user's");
    }

    #[test]
    fn start_again_keeps_the_run_s_parameters_and_drops_what_ends_it() {
        assert_eq!(again_query("?strategy=fuzzy&exit-after=2&tick-rate=30"), "?strategy=fuzzy&tick-rate=30");
        assert_eq!(
            again_query("?measure&strategies=fuzzy&seconds-per-strategy=2&window-size=480x270&name=x"),
            "?window-size=480x270",
            "a tour's own parameters are no run's"
        );
        assert_eq!(again_query(""), "?");
        assert!(run_args(&again_query("?measure&tick-rate=30&probe-seconds=1")).is_ok(), "the run takes them all");
    }

    #[test]
    fn the_page_takes_run_s_and_measure_s_flags_less_the_refused_ones() {
        let (run, tour) = parameters();
        for name in ["strategy", "tick-rate", "window-size", "exit-after", "lanes", "stats-json"] {
            assert!(run.iter().any(|p| p == name), "run takes {name}: {run:?}");
        }
        for name in ["strategies", "seconds-per-strategy", "name", "emulate-refresh"] {
            assert!(tour.iter().any(|p| p == name), "a tour takes {name}: {tour:?}");
        }
        for (refused, _) in REFUSED {
            assert!(!run.iter().chain(&tour).any(|p| p == refused), "{refused} is refused");
        }
    }

    #[test]
    fn the_manual_lists_the_parameters_the_page_takes() {
        let page = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/web-page.md");
        let readme = std::fs::read_to_string(page).expect("the manual's page on the web page");
        let (run, tour) = parameters();
        let line = |label: &str, names: &[String]| {
            format!("{label}: {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
        };
        for expected in [line("- the run", &run), line("- `?measure`'s tour", &tour)] {
            assert!(readme.contains(&expected), "docs/web-page.md should have the line\n{expected}");
        }
        let refused = REFUSED.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        assert!(readme.contains(&format!("- refused, with the reason: {refused}")), "{refused}");
    }
}
