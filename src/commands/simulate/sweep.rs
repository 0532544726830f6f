//! `simulate --phases N`: the runs of each strategy × refresh folded into one
//! row of means and ranges, printed as a table, CSV or JSON.

use crate::monitor::{FIELDS, RunReport, TABLE_FIELDS, Table, trim_number};
use crate::time::{Nanos, nanos_to_ms};

/// The columns that name a group of a sweep: the same in each of its runs.
const GROUP_COLUMNS: [&str; 6] = ["strategy", "refresh_hz", "vsync", "tick_rate", "model", "seed"];

/// Mean, least and greatest value of one column over the runs of a sweep;
/// `None` (JSON `null`) where no run defines it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Spread {
    /// Arithmetic mean.
    pub mean: Option<f64>,
    /// Least value.
    pub min: Option<f64>,
    /// Greatest value.
    pub max: Option<f64>,
}

impl Spread {
    /// Over the defined (finite) values.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Spread {
        let values: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
        if values.is_empty() {
            return Spread { mean: None, min: None, max: None };
        }
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Spread { mean: Some(mean), min: Some(min), max: Some(max) }
    }
}

/// One strategy × refresh of a `--phases N` sweep: the group columns of
/// its runs, then `phases` (N), `phase_ms` (the start phases) and every
/// other numeric report column as a [`Spread`], in report order. The pattern
/// (a string) is left out.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// `(column, value)` of [`GROUP_COLUMNS`], as the report's JSON has them.
    pub group: Vec<(&'static str, serde_json::Value)>,
    /// Runs in the group.
    pub phases: usize,
    /// `(column, spread)`, `phase_ms` first.
    pub spreads: Vec<(&'static str, Spread)>,
}

impl SweepRow {
    /// Folds the reports of one group (all of one strategy × refresh).
    pub fn of(reports: &[RunReport], start_phases: &[Nanos]) -> SweepRow {
        let objects: Vec<serde_json::Value> =
            reports.iter().map(|r| serde_json::to_value(r).unwrap_or_default()).collect();
        let first = objects.first().cloned().unwrap_or_default();
        let group = GROUP_COLUMNS.iter().map(|&c| (c, first[c].clone())).collect();
        let mut spreads = vec![("phase_ms", Spread::of(start_phases.iter().map(|&p| nanos_to_ms(p))))];
        for column in FIELDS.iter().filter(|c| !GROUP_COLUMNS.contains(c)) {
            // Numbers only; undefined values (NaN) are `null` in the report's JSON.
            if first[*column].is_number() || first[*column].is_null() {
                spreads.push((column, Spread::of(objects.iter().map(|o| o[*column].as_f64().unwrap_or(f64::NAN)))));
            }
        }
        SweepRow { group, phases: reports.len(), spreads }
    }

    pub(super) fn json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        for (column, value) in &self.group {
            object.insert((*column).to_owned(), value.clone());
        }
        object.insert("phases".to_owned(), self.phases.into());
        for (column, spread) in &self.spreads {
            object.insert((*column).to_owned(), serde_json::to_value(spread).unwrap_or_default());
        }
        serde_json::Value::Object(object)
    }
}

/// A group value as a table or CSV cell (`catch-up`, `59.94`, `on`).
fn group_cell(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Bool(b) => if *b { "on" } else { "off" }.to_owned(),
        serde_json::Value::Number(n) => trim_number(n.as_f64().unwrap_or(f64::NAN), 3),
        other => other.to_string(),
    }
}

/// Decimals a column is printed with: as the run table (counts whole,
/// `speed_ratio` 5, per-minute rates 2, the rest 3); a mean of counts gets 1.
fn decimals(column: &str, whole: bool) -> usize {
    match column {
        _ if whole => 0,
        "speed_ratio" => 5,
        "drift_ms_per_min" | "hitches_per_min" => 2,
        _ => 3,
    }
}

fn number(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "NaN".to_owned(), |v| format!("{v:.decimals$}"))
}

/// Whether the sweep table shows `column`: the start phase and the run
/// table's numeric columns ([`TABLE_FIELDS`]); CSV and JSON carry them all.
fn in_sweep_table(column: &str) -> bool {
    column == "phase_ms" || TABLE_FIELDS.contains(&column)
}

/// The sweep as a table: one row per strategy × refresh, `mean [min–max]` per numeric column.
pub(super) fn sweep_table(rows: &[SweepRow], whole_columns: &[&str]) -> String {
    let Some(first) = rows.first() else { return String::new() };
    let mut header: Vec<String> = first.group.iter().map(|(c, _)| (*c).to_owned()).collect();
    header.push("phases".to_owned());
    header.extend(first.spreads.iter().filter(|(c, _)| in_sweep_table(c)).map(|(c, _)| (*c).to_owned()));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let mut line: Vec<String> = row.group.iter().map(|(_, v)| group_cell(v)).collect();
            line.push(row.phases.to_string());
            for (column, spread) in row.spreads.iter().filter(|(c, _)| in_sweep_table(c)) {
                let whole = whole_columns.contains(column);
                let (mean_decimals, range_decimals) =
                    if whole { (1, 0) } else { (decimals(column, false), decimals(column, false)) };
                line.push(format!(
                    "{} [{}–{}]",
                    number(spread.mean, mean_decimals),
                    number(spread.min, range_decimals),
                    number(spread.max, range_decimals)
                ));
            }
            line
        })
        .collect();
    // Names left-aligned (strategy, model), numbers right-aligned, as the run table.
    let left: Vec<usize> =
        header.iter().enumerate().filter(|(_, c)| matches!(c.as_str(), "strategy" | "model")).map(|(i, _)| i).collect();
    let mut table = Table::new(header).left(&left);
    for line in cells {
        table.push(line);
    }
    table.to_string()
}

/// The sweep as CSV: the group columns, `phases`, then `<column>_mean`,
/// `<column>_min`, `<column>_max` per numeric column (empty where undefined).
pub(super) fn sweep_csv(rows: &[SweepRow]) -> String {
    let Some(first) = rows.first() else { return String::new() };
    let mut header: Vec<String> = first.group.iter().map(|(c, _)| (*c).to_owned()).collect();
    header.push("phases".to_owned());
    for (column, _) in &first.spreads {
        header.extend(["mean", "min", "max"].map(|s| format!("{column}_{s}")));
    }
    let mut out = header.join(",");
    out.push('\n');
    for row in rows {
        let mut line: Vec<String> = row.group.iter().map(|(_, v)| group_cell(v)).collect();
        line.push(row.phases.to_string());
        for (_, spread) in &row.spreads {
            line.extend([spread.mean, spread.min, spread.max].map(|v| v.map(|v| v.to_string()).unwrap_or_default()));
        }
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// Counts in the report (integers in its JSON): their means get one decimal, their ranges none.
pub(super) fn whole_columns(reports: &[RunReport]) -> Vec<&'static str> {
    let Some(first) = reports.first().and_then(|r| serde_json::to_value(r).ok()) else { return Vec::new() };
    FIELDS.iter().copied().filter(|c| first[*c].is_u64() || first[*c].is_i64()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(strategy: &str, doubles: u64, judder: f64) -> RunReport {
        RunReport {
            strategy: strategy.into(),
            refresh_hz: 60.0,
            vsync: Some(true),
            tick_rate: 60.0,
            model: "glaiel".into(),
            seed: 0,
            total_updates: 600,
            vsyncs: 600,
            double_updates: doubles,
            skipped_renders: doubles,
            repeated_frames: 0,
            game_time_s: 10.0,
            system_time_s: 10.0,
            speed_ratio: 1.0,
            judder_ms: judder,
            hitches: doubles * 2,
            latency_ms: f64::NAN,
            pattern: "1111".into(),
            ..RunReport::default()
        }
    }

    #[test]
    fn a_sweep_row_holds_the_mean_and_range_of_every_numeric_column() {
        let row = SweepRow::of(
            &[report("catch-up", 0, 1.0), report("catch-up", 150, 4.0), report("catch-up", 30, 1.0)],
            &[0, 1_000_000, 8_000_000],
        );
        assert_eq!(row.phases, 3);
        assert_eq!(row.group[0], ("strategy", serde_json::json!("catch-up")));
        let spread = |c: &str| row.spreads.iter().find(|(name, _)| *name == c).map(|(_, s)| *s).expect(c);
        assert_eq!(spread("phase_ms"), Spread { mean: Some(3.0), min: Some(0.0), max: Some(8.0) });
        assert_eq!(spread("double_updates"), Spread { mean: Some(60.0), min: Some(0.0), max: Some(150.0) });
        assert_eq!(spread("judder_ms"), Spread { mean: Some(2.0), min: Some(1.0), max: Some(4.0) });
        assert_eq!(spread("latency_ms"), Spread { mean: None, min: None, max: None }, "undefined in every run");
        assert!(row.spreads.iter().all(|(c, _)| *c != "pattern" && *c != "seed"), "{row:?}");
        let table = sweep_table(std::slice::from_ref(&row), &whole_columns(&[report("x", 0, 0.0)]));
        assert!(table.contains("60.0 [0–150]"), "{table}");
        assert!(table.contains("2.000 [1.000–4.000]"), "{table}");
        let csv = sweep_csv(&[row]);
        assert!(
            csv.lines().next().is_some_and(|h| h.contains("double_updates_mean,double_updates_min,double_updates_max")),
            "{csv}"
        );
        assert!(csv.lines().nth(1).is_some_and(|l| l.starts_with("catch-up,60,on,60,glaiel,0,3,3,0,8,")), "{csv}");
    }
}
