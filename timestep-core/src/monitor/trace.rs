//! `--trace`: measured frame times to replay instead of the cost model.
//!
//! Two shapes are accepted as they are:
//!
//! ```text
//! plain CSV (header optional)      PresentMon capture
//! frame_ms                         Application,ProcessID,…,MsBetweenPresents,…
//! 16.7                             game.exe,1234,…,16.6821,…
//! 16.6                             game.exe,1234,…,16.7010,…
//! ```
//!
//! A plain file uses its first column; a header with a `MsBetweenPresents`
//! column selects that column. Every error names its 1-based line.

use crate::time::{Nanos, ms_to_nanos};
use std::path::Path;

/// The column PresentMon writes the frame-to-frame time into.
pub const PRESENTMON_COLUMN: &str = "MsBetweenPresents";

/// Reads a trace file into frame times.
///
/// # Errors
/// The file cannot be read, or see [`parse_trace`].
pub fn read_trace(path: &Path) -> Result<Vec<Nanos>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read trace '{}': {e}", path.display()))?;
    parse_trace(&text).map_err(|e| format!("trace '{}': {e}", path.display()))
}

/// Parses frame times in milliseconds, one frame per row.
///
/// # Errors
/// No frames; a value that is not a finite, non-negative number (naming the
/// line); a header without a usable column.
pub fn parse_trace(text: &str) -> Result<Vec<Nanos>, String> {
    let mut column = None;
    let mut frames = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(|f| f.trim().trim_matches('"')).collect();
        let col = match column {
            Some(c) => c,
            None => {
                let first = fields.first().copied().unwrap_or("");
                if first.parse::<f64>().is_err() && frames.is_empty() {
                    // A header row: pick the PresentMon column, or the first one.
                    let c = fields.iter().position(|f| f.eq_ignore_ascii_case(PRESENTMON_COLUMN));
                    if c.is_none() && fields.len() > 1 {
                        return Err(format!(
                            "line {line_no}: header has no '{PRESENTMON_COLUMN}' column (a plain trace has one column of frame times in ms)"
                        ));
                    }
                    column = Some(c.unwrap_or(0));
                    continue;
                }
                column = Some(0);
                0
            }
        };
        let Some(field) = fields.get(col) else {
            return Err(format!("line {line_no}: missing column {}", col + 1));
        };
        let ms: f64 =
            field.parse().map_err(|_| format!("line {line_no}: '{field}' is not a frame time in milliseconds"))?;
        if !ms.is_finite() || ms < 0.0 {
            return Err(format!("line {line_no}: frame time {field} ms must be a finite, non-negative number"));
        }
        frames.push(ms_to_nanos(ms));
    }
    if frames.is_empty() {
        return Err("the trace holds no frame times".to_owned());
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_list_of_milliseconds_parses_with_or_without_a_header() {
        assert_eq!(parse_trace("16.5\n17\n"), Ok(vec![16_500_000, 17_000_000]));
        assert_eq!(parse_trace("frame_ms\n16.5\n\n17\n"), Ok(vec![16_500_000, 17_000_000]));
    }

    #[test]
    fn a_presentmon_capture_uses_its_ms_between_presents_column() {
        let text =
            "Application,ProcessID,MsBetweenPresents,MsUntilDisplayed\ngame.exe,42,16.6821,20.1\ngame.exe,42,16.7,19\n";
        assert_eq!(parse_trace(text), Ok(vec![16_682_100, 16_700_000]));
    }

    #[test]
    fn bad_values_name_their_line() {
        for (text, line) in
            [("16\nabc\n", "line 2"), ("ms\n16\n-1\n", "line 3"), ("NaN\n", "line 1"), ("16\ninf\n", "line 2")]
        {
            let err = parse_trace(text).expect_err(text);
            assert!(err.starts_with(line), "'{err}' should name {line}");
        }
    }

    #[test]
    fn an_empty_trace_is_an_error() {
        assert!(parse_trace("").is_err());
        assert!(parse_trace("MsBetweenPresents\n").is_err());
    }

    #[test]
    fn a_header_without_the_presentmon_column_is_an_error() {
        let err = parse_trace("a,b\n1,2\n").expect_err("two columns, no MsBetweenPresents");
        assert!(err.contains("line 1"), "{err}");
    }
}
