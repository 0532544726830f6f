//! The web page's command: `run`'s flags as URL query parameters, with the
//! same names, values and ranges (`?strategy=fuzzy&tick-rate=60&lanes=all`),
//! checked by the same parsers, so a bad parameter gets the message the
//! command line would print.
//!
//! ```text
//! ?strategy=fuzzy&tick-rate=59.94&lanes      ──►  --strategy fuzzy --tick-rate 59.94 --lanes
//! ?no-overlay  ?no-overlay=true              ──►  --no-overlay
//! ?no-overlay=false                          ──►  (nothing)
//! ```

use clap::Parser as _;

use crate::commands::run::RunArgs;
use crate::error::CliError;

/// `run`'s flags, parsed as clap parses the command line.
#[derive(clap::Parser, Debug)]
#[command(name = "timestep-lab", no_binary_name = false, disable_help_flag = true, disable_version_flag = true)]
struct Page {
    #[command(flatten)]
    run: RunArgs,
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
    Page::try_parse_from(words).map(|page| page.run).map_err(|err| {
        let CliError::Usage(message) = CliError::from_clap(&err) else { return CliError::from_clap(&err) };
        CliError::Usage(as_parameters(&message))
    })
}

/// `--tick-rate: …` → `tick-rate: …`; `'--quite'` → `'quite'`; `see --help` → `see the README`.
fn as_parameters(message: &str) -> String {
    message.replace("; see --help", "").replace("'--", "'").replace("--", "")
}

/// Opens the demo in the page with the run `query` asks for.
///
/// # Errors
/// As [`run_args`], then as [`crate::commands::run::run`].
pub fn run(query: &str) -> Result<(), CliError> {
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
