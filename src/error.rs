//! The error every command returns to `main`, and the one-line form of
//! clap's errors.

use clap::error::{ContextKind, ErrorKind};

/// A command's failure, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user's input is wrong (exit code 2): a bad flag value, a missing
    /// or malformed file. The message names what and where.
    #[error("{0}")]
    Usage(String),
    /// Something outside the user's input failed (exit code 1): no GPU
    /// adapter, no display, an I/O error while writing output.
    #[error("{0}")]
    Runtime(String),
}

impl CliError {
    /// A usage error (exit code 2) with `err`'s one-line message.
    pub(crate) fn usage(err: impl std::fmt::Display) -> CliError {
        CliError::Usage(err.to_string())
    }

    /// A runtime error (exit code 1) with `err`'s one-line message.
    pub(crate) fn runtime(err: impl std::fmt::Display) -> CliError {
        CliError::Runtime(err.to_string())
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Runtime(_) => 1,
        }
    }

    /// A command-line error clap found, as one line naming the flag
    /// (`--tick-rate: 5000 is outside 1–1000 Hz`). clap's own rendering adds
    /// a usage block and a hint over several lines.
    ///
    /// Not for `--help` and `--version` (clap reports them as errors too):
    /// print those with [`clap::Error::print`].
    pub fn from_clap(err: &clap::Error) -> CliError {
        let context = |kind| err.get(kind).map(ToString::to_string).unwrap_or_default();
        // "--tick-rate <HZ>" → "--tick-rate"; lists stay lists ("--a <A>, --b" → "--a, --b").
        let names = |kind| {
            let text = context(kind);
            text.split(", ").map(|arg| arg.split(' ').next().unwrap_or_default()).collect::<Vec<_>>().join(", ")
        };
        let flag = || names(ContextKind::InvalidArg);
        let suggestion = |kind| match err.get(kind) {
            Some(s) => format!(" (did you mean '{s}'?)"),
            None => String::new(),
        };
        let message = match err.kind() {
            ErrorKind::ValueValidation => {
                let source = std::error::Error::source(err).map(ToString::to_string).unwrap_or_default();
                format!("{}: {source}", flag())
            }
            ErrorKind::InvalidValue => {
                let value = context(ContextKind::InvalidValue);
                let valid = context(ContextKind::ValidValue);
                let hint = suggestion(ContextKind::SuggestedValue);
                if value.is_empty() {
                    format!("{}: needs a value, one of {valid}", flag())
                } else {
                    format!("{}: '{value}' is not one of {valid}{hint}", flag())
                }
            }
            ErrorKind::UnknownArgument => {
                let hint = suggestion(ContextKind::SuggestedArg);
                format!("unexpected argument '{}'{hint}; see --help", context(ContextKind::InvalidArg))
            }
            ErrorKind::InvalidSubcommand => {
                let hint = suggestion(ContextKind::SuggestedSubcommand);
                format!("unknown subcommand '{}'{hint}; see --help", context(ContextKind::InvalidSubcommand))
            }
            ErrorKind::ArgumentConflict => {
                format!("{} cannot be used with {}", flag(), names(ContextKind::PriorArg))
            }
            ErrorKind::MissingRequiredArgument => format!("missing {}", context(ContextKind::InvalidArg)),
            // Anything else: clap's first line without its "error: " prefix.
            _ => {
                let text = err.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                first.strip_prefix("error: ").unwrap_or(first).to_owned()
            }
        };
        CliError::Usage(message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction, Command};

    fn command() -> Command {
        let rate = |text: &str| crate::cli::rate(text);
        Command::new("t")
            .arg(Arg::new("rate").long("tick-rate").value_name("HZ").value_parser(rate))
            .arg(Arg::new("format").long("format").value_parser(["table", "json"]))
            .arg(Arg::new("updates").long("updates").conflicts_with("seconds"))
            .arg(Arg::new("seconds").long("seconds"))
            .arg(Arg::new("quiet").long("quiet").action(ArgAction::SetTrue))
    }

    fn line(args: &[&str]) -> String {
        let err = command().try_get_matches_from(std::iter::once("t").chain(args.iter().copied())).unwrap_err();
        match CliError::from_clap(&err) {
            CliError::Usage(msg) => msg,
            other => panic!("{other:?} should be a usage error"),
        }
    }

    #[test]
    fn clap_errors_become_one_line_naming_the_flag() {
        assert_eq!(line(&["--tick-rate", "5000"]), "--tick-rate: 5000 is outside 1–1000 Hz");
        assert_eq!(line(&["--format", "xml"]), "--format: 'xml' is not one of table, json");
        assert_eq!(line(&["--format", "jsn"]), "--format: 'jsn' is not one of table, json (did you mean 'json'?)");
        assert_eq!(line(&["--quite"]), "unexpected argument '--quite' (did you mean '--quiet'?); see --help");
        assert_eq!(line(&["--updates", "5", "--seconds", "1"]), "--updates cannot be used with --seconds");
        for args in [&["--tick-rate"][..], &["--quiet=yes"], &["stray"]] {
            let msg = line(args);
            assert!(!msg.is_empty() && !msg.contains('\n'), "{args:?}: '{msg}'");
        }
    }
}
