//! `timestep-lab compare FILE|DIR…`: its flags, and the comparison of
//! [`crate::report_card::comparison`] printed as a table (and a page with `--html`).

use std::io::Write as _;
use std::path::PathBuf;

use crate::cli::{self, Bounds, Unit};
use crate::error::CliError;
use crate::report_card::comparison::{compare, load_all};
use crate::report_card::judge::MAX_DRIFT_MS_PER_MIN;

/// Arguments of `timestep-lab compare`.
///
/// Puts report cards (`report.json` from `measure`) and simulator runs
/// (`simulate --format json`) side by side: a table per vsync pass with one
/// column per monitor or simulated display, the best strategy of each
/// column, and whether measurements agree with the simulator's predictions.
#[derive(clap::Args, Debug, Clone)]
pub struct CompareArgs {
    /// Report cards and simulator JSON files, in any mix and order; a folder
    /// stands for the cards in it (what `measure --out DIR` wrote).
    #[arg(value_name = "FILE|DIR", required = true, value_parser = cli::file_name)]
    pub(crate) files: Vec<PathBuf>,

    /// Also write the comparison as a self-contained HTML page (inline SVG charts).
    #[arg(long, value_name = "FILE.html", value_parser = cli::file_name)]
    pub(crate) html: Option<PathBuf>,

    /// The largest speed error (|drift|, ms per minute) a best strategy may have.
    #[arg(long, value_name = "MS", default_value_t = MAX_DRIFT_MS_PER_MIN, allow_hyphen_values = true,
          value_parser = parse_max_drift)]
    pub(crate) max_drift: f64,
}

/// `--max-drift`: 0 to 60 000 ms per minute (all of it).
pub(crate) const MAX_DRIFT_BOUNDS: Bounds =
    Bounds { min: 0.0, min_inclusive: true, max: 60_000.0, unit: Unit::MillisPerMinute };

/// `--max-drift`: a finite number of ms per minute within [`MAX_DRIFT_BOUNDS`].
fn parse_max_drift(text: &str) -> Result<f64, String> {
    MAX_DRIFT_BOUNDS.parse(text)
}

/// Runs `compare`.
///
/// # Errors
/// [`CliError::Usage`] for a file that cannot be read or recognised;
/// [`CliError::Runtime`] when the output or the HTML cannot be written.
pub fn run(args: &CompareArgs) -> Result<(), CliError> {
    if let Some(path) = &args.html {
        cli::check_writable(path).map_err(|e| CliError::Usage(format!("--html: {e}")))?;
    }
    let sources = load_all(&args.files).map_err(CliError::usage)?;
    let comparison = compare(&sources, args.max_drift);
    if let Some(path) = &args.html {
        let page = comparison.to_html().map_err(CliError::runtime)?;
        crate::platform::write_file(path, page).map_err(CliError::Runtime)?;
        log::info!("compare: wrote {}", path.display());
    }
    for w in &comparison.warnings {
        log::warn!("{w}");
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(comparison.to_text().as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| CliError::Runtime(format!("cannot write output: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_drift_accepts_only_non_negative_finite_numbers() {
        assert_eq!(parse_max_drift("60"), Ok(60.0));
        for bad in ["-1", "NaN", "inf", "fast"] {
            assert!(parse_max_drift(bad).is_err(), "{bad}");
        }
    }
}
