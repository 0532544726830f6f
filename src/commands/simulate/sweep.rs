//! `simulate --phases N`: the runs of each strategy × refresh folded into one
//! row of means and ranges, printed as a table, CSV or JSON.

use crate::report::{COMPOSITOR_FIELDS, COMPOSITOR_TABLE_FIELDS, FIELDS, Field, RunReport, Section, Table};
use crate::time::{Nanos, nanos_to_ms};

/// The start phase's column: the one column of a sweep that is not a report field.
const PHASE_COLUMN: &str = "phase_ms";
/// Decimals of [`PHASE_COLUMN`].
const PHASE_DECIMALS: usize = 3;

/// Mean, least and greatest value of one column over the runs of a sweep;
/// `None` (JSON `null`) where no run defines it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub(crate) struct Spread {
    /// Arithmetic mean.
    pub(crate) mean: Option<f64>,
    /// Least value.
    pub(crate) min: Option<f64>,
    /// Greatest value.
    pub(crate) max: Option<f64>,
}

impl Spread {
    /// Over the defined (finite) values.
    pub(crate) fn of(values: impl IntoIterator<Item = f64>) -> Spread {
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

/// One strategy × refresh of a `--phases N` sweep: the settings of its
/// runs (the report's [`Section::Setting`] fields), then `phases` (N),
/// `phase_ms` (the start phases) and every other numeric report field as a
/// [`Spread`], in report order. The pattern (a string) is left out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SweepRow {
    /// `(field, cell, JSON value)` of each setting, as the group's first run has it.
    pub(crate) group: Vec<(&'static Field, String, serde_json::Value)>,
    /// Runs in the group.
    pub(crate) phases: usize,
    /// The figure's field (`None` for `phase_ms`) and its spread, `phase_ms` first.
    pub(crate) spreads: Vec<(Option<&'static Field>, Spread)>,
}

impl SweepRow {
    /// Folds the reports of one group (all of one strategy × refresh).
    pub(crate) fn of(reports: &[RunReport], start_phases: &[Nanos]) -> SweepRow {
        let first = reports.first().cloned().unwrap_or_default();
        // A composited sweep names its compositor and spreads its figures (frames_replaced).
        let compositor: &[&'static Field] = if first.compositor.is_some() { &COMPOSITOR_FIELDS } else { &[] };
        let group = settings()
            .chain(compositor.iter().copied().filter(|f| f.is_text()))
            .map(|f| (f, f.format(&first), serde_json::to_value(f.cell(&first)).unwrap_or_default()))
            .collect();
        let mut spreads = vec![(None, Spread::of(start_phases.iter().map(|&p| nanos_to_ms(p))))];
        let figures = FIELDS.iter().copied().filter(|f| f.section != Section::Setting);
        for field in figures.chain(compositor.iter().copied().filter(|f| !f.is_text())) {
            // Numbers only; undefined values (NaN) are left out of the spread.
            if field.cell(&first).number().is_some() {
                let values = reports.iter().map(|r| field.cell(r).number().unwrap_or(f64::NAN));
                spreads.push((Some(field), Spread::of(values)));
            }
        }
        SweepRow { group, phases: reports.len(), spreads }
    }

    pub(super) fn json(&self) -> serde_json::Value {
        let mut object = serde_json::Map::new();
        for (field, _, value) in &self.group {
            object.insert(field.name.to_owned(), value.clone());
        }
        object.insert("phases".to_owned(), self.phases.into());
        for (field, spread) in &self.spreads {
            object.insert(column_name(*field).to_owned(), serde_json::to_value(spread).unwrap_or_default());
        }
        serde_json::Value::Object(object)
    }
}

/// The fields that name a group of a sweep: the same in each of its runs.
fn settings() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().copied().filter(|f| f.section == Section::Setting)
}

fn column_name(field: Option<&Field>) -> &'static str {
    field.map_or(PHASE_COLUMN, |f| f.name)
}

fn number(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "NaN".to_owned(), |v| format!("{v:.decimals$}"))
}

/// Whether the sweep table shows a column: the start phase and the run
/// table's numeric columns (a composited run's `frames_replaced` among
/// them); CSV and JSON carry them all.
fn in_sweep_table(field: Option<&Field>) -> bool {
    field.is_none_or(|f| f.in_table || COMPOSITOR_TABLE_FIELDS.contains(&f))
}

/// The sweep as a table: one row per strategy × refresh, `mean [min–max]`
/// per numeric column, with the run table's decimals; a mean of counts gets
/// one decimal, their range none.
pub(super) fn sweep_table(rows: &[SweepRow]) -> String {
    let Some(first) = rows.first() else { return String::new() };
    let mut header: Vec<String> = first.group.iter().map(|(f, _, _)| f.name.to_owned()).collect();
    header.push("phases".to_owned());
    header.extend(first.spreads.iter().filter(|(f, _)| in_sweep_table(*f)).map(|(f, _)| column_name(*f).to_owned()));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            let mut line: Vec<String> = row.group.iter().map(|(_, cell, _)| cell.clone()).collect();
            line.push(row.phases.to_string());
            for (field, spread) in row.spreads.iter().filter(|(f, _)| in_sweep_table(*f)) {
                let (mean_decimals, range_decimals) = match field {
                    Some(f) if f.is_count() => (1, 0),
                    Some(f) => (f.decimals, f.decimals),
                    None => (PHASE_DECIMALS, PHASE_DECIMALS),
                };
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
        first.group.iter().enumerate().filter(|(_, (f, _, _))| f.is_text()).map(|(i, _)| i).collect();
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
    let mut header: Vec<String> = first.group.iter().map(|(f, _, _)| f.name.to_owned()).collect();
    header.push("phases".to_owned());
    for (field, _) in &first.spreads {
        header.extend(["mean", "min", "max"].map(|s| format!("{}_{s}", column_name(*field))));
    }
    let mut out = header.join(",");
    out.push('\n');
    for row in rows {
        let mut line: Vec<String> = row.group.iter().map(|(_, cell, _)| cell.clone()).collect();
        line.push(row.phases.to_string());
        for (_, spread) in &row.spreads {
            line.extend([spread.mean, spread.min, spread.max].map(|v| v.map(|v| v.to_string()).unwrap_or_default()));
        }
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::FrameStats;
    use crate::report::registry::{DOUBLE_UPDATES, JUDDER_MS, LATENCY_MS, PATTERN, SEED, STRATEGY};

    fn report(strategy: &str, doubles: u64, judder: f64) -> RunReport {
        RunReport {
            strategy: strategy.into(),
            refresh_hz: 60.0,
            vsync: Some(true),
            tick_rate: 60.0,
            model: crate::report::RunOrigin::Preset(crate::monitor::Preset::Glaiel),
            seed: 0,
            total_updates: 600,
            vsyncs: 600,
            double_updates: doubles,
            skipped_renders: doubles,
            repeated_frames: 0,
            game_time_s: 10.0,
            system_time_s: 10.0,
            stats: FrameStats { speed_ratio: 1.0, judder_ms: judder, hitches: doubles * 2, ..FrameStats::EMPTY },
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
        assert_eq!((row.group[0].0, row.group[0].1.as_str()), (&STRATEGY, "catch-up"));
        assert_eq!(row.group[0].2, serde_json::json!("catch-up"));
        let spread = |f: Option<&Field>| row.spreads.iter().find(|(c, _)| *c == f).map(|(_, s)| *s).expect("a column");
        assert_eq!(spread(None), Spread { mean: Some(3.0), min: Some(0.0), max: Some(8.0) }, "phase_ms");
        assert_eq!(spread(Some(&DOUBLE_UPDATES)), Spread { mean: Some(60.0), min: Some(0.0), max: Some(150.0) });
        assert_eq!(spread(Some(&JUDDER_MS)), Spread { mean: Some(2.0), min: Some(1.0), max: Some(4.0) });
        let undefined = Spread { mean: None, min: None, max: None };
        assert_eq!(spread(Some(&LATENCY_MS)), undefined, "undefined in every run");
        assert!(row.spreads.iter().all(|(c, _)| *c != Some(&PATTERN) && *c != Some(&SEED)), "{row:?}");
        let table = sweep_table(std::slice::from_ref(&row));
        assert!(table.contains("60.0 [0–150]"), "{table}");
        assert!(table.contains("2.000 [1.000–4.000]"), "{table}");
        let csv = sweep_csv(&[row]);
        let doubles = ["mean", "min", "max"].map(|s| format!("{}_{s}", DOUBLE_UPDATES.name)).join(",");
        assert!(csv.lines().next().is_some_and(|h| h.contains(&doubles)), "{csv}");
        assert!(csv.lines().nth(1).is_some_and(|l| l.starts_with("catch-up,60,on,60,glaiel,0,,3,3,0,8,")), "{csv}");
        assert!(!csv.contains("compositor"), "a direct sweep has no compositor columns: {csv}");
    }

    #[test]
    fn a_composited_sweep_names_its_compositor_and_spreads_the_frames_it_replaced() {
        let through = |replaced| {
            let info = crate::report::CompositorInfo {
                name: "weston".into(),
                latch_ms: 7.0,
                delay_refreshes: 0,
                frames_replaced: replaced,
            };
            RunReport { compositor: Some(info), ..report("variable", 0, 1.0) }
        };
        let row = SweepRow::of(&[through(10), through(30)], &[0, 1_000_000]);
        assert!(row.group.iter().any(|(f, cell, _)| f.name == "compositor" && cell == "weston"), "{row:?}");
        let table = sweep_table(std::slice::from_ref(&row));
        let header = table.lines().next().unwrap_or_default();
        assert!(header.contains("compositor") && header.trim_end().ends_with("frames_replaced"), "{table}");
        assert!(table.contains("20.0 [10–30]"), "frames_replaced's mean and range: {table}");
    }
}
