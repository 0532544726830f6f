//! What `compare` reads: each file is recognised by its content: a report
//! card (`report.json` of `measure`: an object with `"schema":
//! "timestep-lab/report-card"`), a list of simulator runs (the array
//! `simulate --format json` prints), one run (the object `run --stats-json`
//! writes), or a diagnosis card (`diagnose --out`: its replay through the
//! strategies). Anything else is a one-line error naming the file (exit
//! code 2). A folder stands for the cards in it. Judging what was read is
//! [`super::comparison`]'s.

use super::ReportError;
use super::schema::{FigureError, ReportCard, RunRecord, SCHEMA, check_numbers};
use crate::platform::read_limited::{MAX_JSON_BYTES, read_text_limited};
use crate::report::registry::STRATEGY;
use std::path::Path;

/// What one file holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A report card.
    Card(Box<ReportCard>),
    /// Simulator runs (or one window run).
    Runs(Vec<RunRecord>),
}

/// Why a text is none of the things `compare` reads.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Not JSON at all.
    #[error("not valid JSON: {0}")]
    NotJson(serde_json::Error),
    /// JSON of another kind.
    #[error("neither a report card (measure's report.json) nor simulator runs (simulate --format json)")]
    NotOurs,
    /// `[]`.
    #[error("an empty list of runs")]
    EmptyList,
    /// An item of the list (numbered from 1) without a `"strategy"`.
    #[error("item {0} is not a run (an object with a \"strategy\")")]
    NotARun(usize),
    /// A run (numbered from 1; 0 for a single run) whose fields do not fit.
    #[error("{}: {source}", if *.index == 0 { "not a run".to_owned() } else { format!("run {}", .index) })]
    BadRun {
        /// Which run, from 1; 0 for a file holding one run.
        index: usize,
        /// What serde found.
        source: serde_json::Error,
    },
    /// A run (numbered from 1; 0 for a file holding one run) with a number no field can hold.
    #[error("{}{source}", if *.index == 0 { String::new() } else { format!("run {}: ", .index) })]
    Figure {
        /// Which run, from 1; 0 for a file holding one run.
        index: usize,
        /// Which number, and why.
        source: FigureError,
    },
    /// A report card that this build cannot read.
    #[error(transparent)]
    Card(#[from] super::SchemaError),
}

/// Recognises `text` as a report card, a list of runs or one run, and checks
/// every number in it (the one load path of `compare` and the page's
/// comparison: [`check_numbers`]).
///
/// # Errors
/// A [`SourceError`] saying what is wrong (without the file name).
pub fn parse_source(text: &str) -> Result<Source, SourceError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(SourceError::NotJson)?;
    match &value {
        serde_json::Value::Object(map)
            if map.get("schema").and_then(serde_json::Value::as_str) == Some(super::diagnosis::DIAGNOSIS_SCHEMA) =>
        {
            diagnosis_runs(&value)
        }
        serde_json::Value::Object(map) if map.contains_key("schema") => {
            let schema = map.get("schema").and_then(serde_json::Value::as_str);
            if schema != Some(SCHEMA) {
                return Err(SourceError::NotOurs);
            }
            Ok(Source::Card(Box::new(ReportCard::from_json(text)?)))
        }
        serde_json::Value::Object(map) if map.get(STRATEGY.name).is_some_and(serde_json::Value::is_string) => {
            check_numbers(&value).map_err(|source| SourceError::Figure { index: 0, source })?;
            let run: RunRecord =
                serde_json::from_value(value).map_err(|source| SourceError::BadRun { index: 0, source })?;
            Ok(Source::Runs(vec![run]))
        }
        serde_json::Value::Array(items) => {
            if items.is_empty() {
                return Err(SourceError::EmptyList);
            }
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    if !item.get(STRATEGY.name).is_some_and(serde_json::Value::is_string) {
                        return Err(SourceError::NotARun(i + 1));
                    }
                    check_numbers(item).map_err(|source| SourceError::Figure { index: i + 1, source })?;
                    serde_json::from_value(item.clone()).map_err(|source| SourceError::BadRun { index: i + 1, source })
                })
                .collect::<Result<Vec<RunRecord>, SourceError>>()
                .map(Source::Runs)
        }
        _ => Err(SourceError::NotOurs),
    }
}

/// A diagnosis card (`diagnose --out`) as its replay through the ten
/// strategies: simulator runs, each number checked as any run's.
fn diagnosis_runs(value: &serde_json::Value) -> Result<Source, SourceError> {
    if value.get("version").and_then(serde_json::Value::as_u64) != Some(u64::from(super::diagnosis::DIAGNOSIS_VERSION))
    {
        return Err(SourceError::NotOurs);
    }
    let runs = value.get("strategies").and_then(serde_json::Value::as_array).ok_or(SourceError::NotOurs)?;
    if runs.is_empty() {
        return Err(SourceError::EmptyList);
    }
    runs.iter()
        .enumerate()
        .map(|(i, run)| {
            check_numbers(run).map_err(|source| SourceError::Figure { index: i + 1, source })?;
            serde_json::from_value(run.clone()).map_err(|source| SourceError::BadRun { index: i + 1, source })
        })
        .collect::<Result<Vec<RunRecord>, SourceError>>()
        .map(Source::Runs)
}

/// Reads (at most [`MAX_JSON_BYTES`]) and recognises one file.
///
/// # Errors
/// [`ReportError::Read`] or [`ReportError::Source`], naming the file.
pub fn load(path: &Path) -> Result<Source, ReportError> {
    let text = read_text_limited(path, MAX_JSON_BYTES)?;
    parse_source(&text).map_err(|source| ReportError::Source { path: path.to_owned(), source })
}

/// Reads every file of `paths`; a folder stands for the cards in it (every
/// `report.json` or `report-….json`, [`super::file_name::is_card_file_name`],
/// in name order), as `measure --out DIR` and a downloads folder hold them.
/// Each source comes with the name it is shown by (the path as given, or
/// the folder joined with the file's name).
///
/// # Errors
/// As [`load`]; a folder with no card in it, or one that cannot be listed,
/// is [`ReportError::Folder`], naming it.
pub fn load_all(paths: &[std::path::PathBuf]) -> Result<Vec<(String, Source)>, ReportError> {
    let mut sources = Vec::new();
    for path in paths {
        if path.is_dir() {
            for file in cards_in(path)? {
                sources.push((file.display().to_string(), load(&file)?));
            }
        } else {
            sources.push((path.display().to_string(), load(path)?));
        }
    }
    Ok(sources)
}

/// The card files in `dir`, in name order; none is an error.
fn cards_in(dir: &Path) -> Result<Vec<std::path::PathBuf>, ReportError> {
    let shown = dir.display();
    let files =
        super::file_name::cards_in(dir).map_err(|e| ReportError::Folder(format!("cannot list '{shown}': {e}")))?;
    if files.is_empty() {
        return Err(ReportError::Folder(format!(
            "'{shown}' holds no report card (report-<screen>-<yyyymmdd-hhmm>.json, or report.json)"
        )));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_decides_what_a_file_is() {
        assert!(
            matches!(parse_source(r#"[{"strategy": "fuzzy", "judder_ms": null}]"#), Ok(Source::Runs(r)) if r.len() == 1)
        );
        assert!(matches!(parse_source(r#"{"strategy": "fuzzy", "fps": 60.0}"#), Ok(Source::Runs(_))));
        let card = ReportCard::new(super::super::schema::Machine::this_build()).to_json().unwrap();
        assert!(matches!(parse_source(&card), Ok(Source::Card(_))));
        for (text, says) in [
            ("{\"a\": 1}", "neither a report card"),
            ("{\"schema\": \"other\", \"version\": 1}", "neither a report card"),
            ("[]", "empty list"),
            ("[1]", "item 1 is not a run"),
            ("[{\"strategy\": \"x\", \"judder_ms\": \"high\"}]", "run 1:"),
            ("{", "not valid JSON"),
            ("[{\"strategy\": \"x\"}, {\"strategy\": \"y\", \"refresh_hz\": -1}]", "run 2: refresh_hz is -1 Hz"),
            ("{\"strategy\": \"x\", \"judder_ms\": 1e308}", "judder_ms is 1e308 ms, more than 1e12 ms"),
        ] {
            match parse_source(text) {
                Err(e) => {
                    let e = e.to_string();
                    assert!(e.contains(says) && !e.contains('\n'), "{text}: '{e}' should say '{says}'");
                }
                Ok(s) => panic!("{text} was accepted as {s:?}"),
            }
        }
    }
}
