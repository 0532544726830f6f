//! `timestep-lab compare FILE…`: report cards and simulator runs side by side.
//!
//! The files are read by [`super::load`] (a card, simulator runs, one run or
//! a diagnosis card, by content); this module judges them.
//!
//! Every monitor of a card is a column (`monitor 1 (59.94 Hz)`); simulator
//! runs are grouped into columns by model, refresh and tick rate
//! (`sim 144 Hz (desktop)`). When two columns would carry the same label,
//! every label gets its file's name in front. There is one table per vsync
//! pass (on, off), rows are strategies, and a cell holds four figures,
//! labelled and printed with the registry's words, units and decimals:
//!
//! ```text
//! vsync on: judder ms, hitches/min, latency ms, shown fps; * best in column, ! |drift| > 120 ms/min
//! strategy     | monitor 1 (60 Hz)           | sim 144 Hz (desktop)
//! -------------+-----------------------------+-----------------------------
//! lockstep     | 0.000   0.00 15.512 60.0    | 0.000   0.00  6.944 144.0 !
//! fixed-fps    | 0.000   0.00 15.431 60.0 *  | 2.640 120.00 21.318  60.0
//! variable     | 0.500   0.00 33.300 60.0    | 0.500   0.00 13.600 144.0 *
//! monitor 1 (60 Hz): best fixed-fps, predicted fixed-fps; the simulator agrees on 9 of 10 strategies; …
//! sim 144 Hz (desktop): best variable
//! ```
//!
//! The best strategy per column follows [`super::judge`]'s rule; below the
//! table, every column from a report card gets a line saying whether its
//! measurements agree with the simulator's predictions (the tolerances are
//! [`super::judge`]'s too). `--html FILE` writes the same as a page with a
//! bar chart per pass. Without `--html` no file is written: a command that
//! prints a table should not leave files behind unasked.

use super::evidence::{self, Evidence, MachineMisses};
use super::html::{self, pass_label, passes, strategy_order};
use super::judge::{self, Metric};
pub use super::load::{Source, SourceError, load, load_all, parse_source};
use super::markup::escape;
use super::plots::{self, BarChart, BarSeries};
use super::reasons;
use super::schema::{MonitorCard, PredictionRange, ReportCard, RunRecord};
use crate::report::RunOrigin;
use crate::report::registry::{HITCHES_PER_MIN, SHOWN_FPS, STRATEGY};
use crate::report::trim_number;
use crate::run_chart::PlotError;
use std::fmt::Write as _;
use std::path::Path;

/// The comparison of `sources` as one self-contained page: what
/// `compare --html` writes and the page's `?compare` shows.
///
/// # Errors
/// Only if a plot cannot be drawn.
pub fn compare_html(sources: &[(String, Source)], max_drift: f64) -> Result<String, PlotError> {
    compare(sources, max_drift).to_html()
}

/// The comparison of `sources` as a fragment of a page (no `<html>`, no
/// style): for a page of its own that shows it, such as `serve`'s gallery,
/// which wraps it with [`html::page`] (or its own head and [`html::CSS`]).
///
/// # Errors
/// Only if a plot cannot be drawn.
pub fn compare_body_html(sources: &[(String, Source)], max_drift: f64) -> Result<String, PlotError> {
    compare(sources, max_drift).body_html()
}

/// One column: a monitor of a card, or a group of simulator runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Column {
    /// Its header (`monitor 1 (59.94 Hz)`, `sim 144 Hz (desktop)`).
    pub(crate) label: String,
    /// The refresh rate its runs count in, Hz.
    pub(crate) refresh_hz: Option<f64>,
    /// Its runs in this table's vsync pass.
    pub(crate) runs: Vec<RunRecord>,
    /// The simulator's predictions for them (report cards only).
    pub(crate) predictions: Vec<RunRecord>,
    /// How far those predictions spread (report cards with a measured setup).
    pub(crate) prediction_ranges: Vec<PredictionRange>,
    /// What the column rests on, and whether it supports a verdict.
    pub(crate) evidence: Evidence,
}

impl Column {
    /// The run of `strategy`, if any.
    pub(crate) fn run(&self, strategy: &str) -> Option<&RunRecord> {
        self.runs.iter().find(|r| r.strategy == strategy)
    }

    /// The best run's strategy under `max_drift`; none where the column's evidence cannot support one.
    pub(crate) fn best(&self, max_drift: f64) -> Option<&str> {
        self.best_run(max_drift).map(|r| r.strategy.as_str())
    }

    fn best_run(&self, max_drift: f64) -> Option<&RunRecord> {
        self.choice(max_drift).map(|(runs, choice)| runs[choice.best])
    }

    /// The rule's choice among the runs, the machine's own misses as the hitches' floor;
    /// none where the evidence cannot support one.
    pub(crate) fn choice(&self, max_drift: f64) -> Option<(Vec<&RunRecord>, crate::report_card::choice::Choice)> {
        if !self.evidence.supports_verdict() {
            return None;
        }
        judge::choose(&self.runs, max_drift, self.refresh_hz, self.evidence.machine.and_then(MachineMisses::floor))
    }

    /// "machine: this machine missed 2.5 % of refreshes before any strategy ran (216/min): variable's 220/min are
    /// the machine's, not the loop's", for the runs whose hitches are at or within noise of that floor.
    pub(crate) fn machine_line(&self) -> Option<String> {
        let misses = self.evidence.machine?;
        if misses.floor().is_none() {
            return Some(
                "machine: this machine missed none of its refreshes before any strategy ran: every hitch below is the \
                 loop's own"
                    .to_owned(),
            );
        }
        let theirs: Vec<String> = self
            .runs
            .iter()
            .filter_map(|r| {
                let h = Metric::Hitches.value(r)?;
                let tol = judge::tolerance_for(Metric::Hitches, self.refresh_hz, r);
                (h <= misses.per_min || judge::within(h, misses.per_min, tol))
                    .then(|| format!("{}'s {}", r.strategy, HITCHES_PER_MIN.with_unit(&trim_number(h, 0))))
            })
            .collect();
        let before = format!(
            "machine: this machine missed {} % of refreshes before any strategy ran ({})",
            trim_number(misses.share * 100.0, 1),
            HITCHES_PER_MIN.with_unit(&trim_number(misses.per_min, 0))
        );
        Some(match theirs.len() {
            0 => format!("{before}: every run's hitches are beyond it, the loops' own"),
            n if n == self.runs.len() && n > 1 => {
                format!("{before}: every strategy's hitches are the machine's, within the counting noise of it")
            }
            1 => format!("{before}: {} are the machine's, not the loop's", reasons::and_list(&theirs)),
            _ => format!("{before}: {} are the machine's, not the loops'", reasons::and_list(&theirs)),
        })
    }

    /// The column's evidence and reasons, one line each, indented under its verdict:
    /// notes, frames and seconds per strategy, a contradicted refresh, then why
    /// the best won and why each other run missed.
    pub(crate) fn reason_lines(&self, max_drift: f64) -> Vec<String> {
        let e = &self.evidence;
        let mut lines: Vec<String> = e.notes.iter().map(|n| format!("note: {n}")).collect();
        if !e.footing.is_empty() {
            lines.push(format!("frames: {}", e.footing_line()));
        }
        lines.extend(e.refresh_conflict.iter().map(|c| format!("refresh: {c}")));
        lines.extend(self.machine_line());
        if let Some(chosen) = self.choice(max_drift) {
            lines.extend(reasons::column_lines(&self.runs, &chosen, self.refresh_hz, max_drift));
        }
        lines
    }

    /// One line: `monitor 1 (60 Hz): best snapped (predicted: snapped); the simulator agrees on …`,
    /// or `…: no verdict: <why>` where the evidence cannot support one.
    pub(crate) fn verdict(&self, best: Option<&str>, max_drift: f64) -> String {
        if !self.evidence.supports_verdict() {
            return format!("{}: no verdict: {}", self.label, self.evidence.doubts.join("; "));
        }
        let best = best.unwrap_or("none (every run is off speed or unmeasured)");
        let verdict = match self.agreement(max_drift) {
            Some(a) => {
                let predicted = a.best_predicted.as_deref().unwrap_or("none");
                format!("{}: best {best}, predicted {predicted}; {}", self.label, a.sentence())
            }
            None => format!("{}: best {best}", self.label),
        };
        verdict + &self.display_times_clause()
    }

    /// "; display times: present-return (an estimate)" for measured runs that
    /// say where their D came from; empty for the simulator's and older files.
    fn display_times_clause(&self) -> String {
        use crate::feedback::DisplayTimeSource;
        match self.runs.iter().find_map(RunRecord::display_times) {
            None | Some(DisplayTimeSource::Simulated) => String::new(),
            Some(source) if source.is_estimate() => format!("; display times: {source} (an estimate)"),
            Some(source) => format!("; display times: {source}"),
        }
    }

    /// How the runs agree with the predictions; `None` without predictions.
    pub(crate) fn agreement(&self, max_drift: f64) -> Option<judge::Agreement> {
        if self.predictions.is_empty() || self.runs.is_empty() || !self.evidence.supports_verdict() {
            return None;
        }
        let m: Vec<&RunRecord> = self.runs.iter().collect();
        let p: Vec<&RunRecord> = self.predictions.iter().collect();
        let ranges: Vec<&PredictionRange> = self.prediction_ranges.iter().collect();
        Some(judge::agreement(&m, &p, &ranges, self.refresh_hz, max_drift))
    }
}

/// One vsync pass: strategies × columns.
#[derive(Clone, Debug, PartialEq)]
pub struct PassTable {
    /// The pass (`None`: runs whose vsync is unknown).
    pub(crate) pass: Option<bool>,
    /// Strategies, in key order.
    pub(crate) rows: Vec<String>,
    /// Columns that ran in this pass.
    pub(crate) columns: Vec<Column>,
}

/// Everything `compare` shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// One line per file: what it held and which columns it gave.
    pub(crate) files: Vec<String>,
    /// One table per vsync pass, on before off.
    pub tables: Vec<PassTable>,
    /// The drift bound of the best-strategy rule, ms per minute.
    pub(crate) max_drift: f64,
    /// Things the reader should know (a strategy twice in a column: the first is shown).
    pub(crate) warnings: Vec<String>,
}

/// A column before it is split by pass.
struct Group {
    file: String,
    /// The card and monitor the column comes from (none for simulator runs).
    card: Option<(Box<ReportCard>, MonitorCard)>,
    label: String,
    refresh_hz: Option<f64>,
    runs: Vec<RunRecord>,
    predictions: Vec<RunRecord>,
    prediction_ranges: Vec<PredictionRange>,
}

fn hz_label(hz: Option<f64>) -> String {
    crate::report::hz_text(hz, 2)
}

/// `vrr 48–144 Hz` for a VRR range, else [`hz_label`] of the fixed rate.
fn refresh_label(hz: Option<f64>, vrr: Option<[f64; 2]>) -> String {
    match vrr {
        Some([min, max]) => format!("vrr {}–{} Hz", trim_number(min, 2), trim_number(max, 2)),
        None => hz_label(hz),
    }
}

fn groups_of(file: &str, source: &Source) -> Vec<Group> {
    match source {
        Source::Card(card) => card
            .monitors
            .iter()
            .map(|m| {
                let emulated = if m.emulated_refresh_hz.is_some() { " emulated" } else { "" };
                // A VRR monitor: the range seen, up to the refresh it reports; not
                // where a page's own pace made the spread (the evidence says so).
                let pages_own = card.machine.browser.is_some() && evidence::vrr_conflict(m).is_some();
                let vrr = m
                    .vrr_seen_hz
                    .filter(|_| !pages_own)
                    .map(|[min, max]| [min, m.reported_refresh_hz.unwrap_or(max).max(max)]);
                let monitor = format!("monitor {} ({}{emulated})", m.index, refresh_label(m.refresh_hz(), vrr));
                // Cards are told apart by name, else by browser and device, else by adapter and system.
                // A native card without --name: the monitor's own name (its connector or model, as the
                // platform gives it) beside the adapter, so that two screens of one machine differ.
                let native_unnamed = card.machine.name.is_none() && card.machine.browser.is_none();
                let monitor = match m.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
                    Some(name) if native_unnamed => format!("{monitor} \"{name}\""),
                    _ => monitor,
                };
                let label = format!("{} · {monitor}", card.machine.in_words());
                Group {
                    file: file.to_owned(),
                    card: Some((card.clone(), m.clone())),
                    label,
                    refresh_hz: m.refresh_hz(),
                    runs: m.runs.clone(),
                    predictions: m.predictions.clone(),
                    prediction_ranges: m.prediction_ranges.clone(),
                }
            })
            .collect(),
        Source::Runs(runs) => {
            let mut groups: Vec<Group> = Vec::new();
            for run in runs {
                let tick =
                    run.tick_rate.filter(|t| (t - 60.0).abs() > 1e-9).map(|t| format!(", tick {}", hz_label(Some(t))));
                let vrr = run.vrr_min_hz.zip(run.vrr_max_hz).map(|(min, max)| [min, max]);
                let refresh = refresh_label(run.refresh_hz, vrr);
                let label = match &run.model {
                    // A measured run: the window, or one of its lanes.
                    Some(model) if model.is_measured() => format!("{model} {refresh}"),
                    model => format!(
                        "sim {refresh} ({}{})",
                        model.as_ref().map_or("unknown model", RunOrigin::name),
                        tick.unwrap_or_default()
                    ),
                };
                match groups.iter_mut().find(|g| g.label == label) {
                    Some(g) => g.runs.push(run.clone()),
                    None => groups.push(Group {
                        file: file.to_owned(),
                        card: None,
                        label,
                        refresh_hz: run.refresh_hz,
                        runs: vec![run.clone()],
                        predictions: Vec::new(),
                        prediction_ranges: Vec::new(),
                    }),
                }
            }
            groups
        }
    }
}

fn file_stem(file: &str) -> String {
    Path::new(file).file_stem().map_or_else(|| file.to_owned(), |s| s.to_string_lossy().into_owned())
}

fn describe(file: &str, source: &Source, labels: &[String]) -> String {
    let what = match source {
        Source::Card(card) => {
            let name = card.machine.name.as_deref().map(|n| format!(" of \"{n}\"")).unwrap_or_default();
            format!("report card{name}, {} monitor(s)", card.monitors.len())
        }
        Source::Runs(runs) => format!("{} simulator run(s)", runs.len()),
    };
    format!("{file}: {what} -> {}", if labels.is_empty() { "no columns".to_owned() } else { labels.join(", ") })
}

/// Builds the comparison of `sources` (file name as given, content).
pub fn compare(sources: &[(String, Source)], max_drift: f64) -> Comparison {
    let mut groups: Vec<Group> = sources.iter().flat_map(|(file, source)| groups_of(file, source)).collect();
    let duplicate =
        |groups: &[Group]| groups.iter().enumerate().any(|(i, g)| groups[..i].iter().any(|h| h.label == g.label));
    if duplicate(&groups) {
        for g in &mut groups {
            g.label = format!("{}: {}", file_stem(&g.file), g.label);
        }
    }
    if duplicate(&groups) {
        for g in &mut groups {
            g.label = format!("{} [{}]", g.label, g.file);
        }
    }
    let mut warnings = Vec::new();
    for g in &groups {
        for (i, r) in g.runs.iter().enumerate() {
            if g.runs[..i].iter().any(|o| o.strategy == r.strategy && o.vsync_pass() == r.vsync_pass()) {
                warnings.push(format!(
                    "{}: {} runs twice with {} in column '{}'; the first is shown",
                    g.file,
                    r.strategy,
                    pass_label(r.vsync_pass()),
                    g.label
                ));
            }
        }
    }
    let files = sources
        .iter()
        .map(|(file, source)| {
            let labels: Vec<String> = groups.iter().filter(|g| &g.file == file).map(|g| g.label.clone()).collect();
            describe(file, source, &labels)
        })
        .collect();
    let tables = passes(groups.iter().flat_map(|g| &g.runs))
        .into_iter()
        .map(|pass| {
            let columns: Vec<Column> = groups
                .iter()
                .map(|g| {
                    let runs: Vec<RunRecord> = g.runs.iter().filter(|r| r.vsync_pass() == pass).cloned().collect();
                    let evidence = match &g.card {
                        Some((card, monitor)) => Evidence::of_monitor(card, monitor, &runs),
                        None => Evidence::of_runs(&runs),
                    };
                    (g, runs, evidence)
                })
                .map(|(g, runs, evidence)| Column {
                    label: g.label.clone(),
                    refresh_hz: g.refresh_hz,
                    runs,
                    evidence,
                    predictions: g.predictions.iter().filter(|r| r.vsync_pass() == pass).cloned().collect(),
                    prediction_ranges: g
                        .prediction_ranges
                        .iter()
                        .filter(|r| r.vsync_requested == pass)
                        .cloned()
                        .collect(),
                })
                .filter(|c| !c.runs.is_empty())
                .collect();
            let rows = strategy_order(columns.iter().flat_map(|c| c.runs.iter().map(|r| r.strategy.as_str())));
            PassTable { pass, rows, columns }
        })
        .collect();
    Comparison { files, tables, max_drift, warnings }
}

/// The cell's four figures, formatted: the judged three and the shown frame rate.
fn cell_figures(run: &RunRecord) -> [String; 4] {
    let [j, h, l] = Metric::ALL.map(|m| m.format(m.value(run)));
    [j, h, l, run.value(&SHOWN_FPS).map_or_else(|| "n/a".to_owned(), |v| SHOWN_FPS.number(v))]
}

/// `*` for the column's best, `!` for a run too far off speed, blank otherwise.
fn mark(run: &RunRecord, best: Option<&str>, max_drift: f64) -> &'static str {
    if best == Some(run.strategy.as_str()) {
        "*"
    } else if !judge::eligible(run, max_drift) {
        "!"
    } else {
        " "
    }
}

/// The four figures of a cell, by their labels: `judder ms, hitches/min, latency ms, shown fps`.
fn cell_labels() -> String {
    let mut labels = Metric::ALL.map(Metric::label).to_vec();
    labels.push(SHOWN_FPS.label());
    labels.join(", ")
}

/// The rule and tolerances, one line each.
fn rule_lines(max_drift: f64) -> [String; 2] {
    [format!("best (*): {}", judge::best_rule(max_drift)), format!("agreement: {}", judge::agreement_rule())]
}

impl Comparison {
    /// "Ship this": the one strategy for every screen of each vsync pass whose
    /// column supports a verdict ([`reasons::ship_lines`]), the vsync-on pass first;
    /// a pass no screen ran says so.
    pub fn ship_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for table in &self.tables {
            let screens: Vec<reasons::Screen<'_>> = table
                .columns
                .iter()
                .filter(|c| c.evidence.supports_verdict())
                .map(|c| reasons::Screen {
                    label: &c.label,
                    runs: &c.runs,
                    refresh_hz: c.refresh_hz,
                    floor: c.evidence.machine.and_then(MachineMisses::floor),
                })
                .collect();
            let pass = pass_label(table.pass);
            lines.extend(reasons::ship_lines(pass, &table.rows, &screens, table.columns.len(), self.max_drift));
        }
        for (pass, label) in [(Some(true), pass_label(Some(true))), (Some(false), pass_label(Some(false)))] {
            if !self.tables.is_empty() && !self.tables.iter().any(|t| t.pass == pass) {
                lines.push(format!("ship this ({label}): no pick: no screen ran with {label}"));
            }
        }
        lines
    }

    /// The terminal tables.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in &self.files {
            let _ = writeln!(out, "{line}");
        }
        for table in &self.tables {
            let _ = writeln!(
                out,
                "\n{}: {}; * best in column, ! {}",
                pass_label(table.pass),
                cell_labels(),
                judge::drift_rule(">", self.max_drift)
            );
            let name_width = table.rows.iter().map(|r| r.chars().count()).chain([8]).max().unwrap_or(8);
            // Each figure right-aligned to the widest of its kind in the table.
            let mut figure_widths = [4_usize; 4];
            for c in &table.columns {
                for r in &c.runs {
                    for (w, f) in figure_widths.iter_mut().zip(cell_figures(r)) {
                        *w = (*w).max(f.chars().count());
                    }
                }
            }
            let [wj, wh, wl, ws] = figure_widths;
            let cell_width = wj + wh + wl + ws + 5;
            let widths: Vec<usize> = table.columns.iter().map(|c| c.label.chars().count().max(cell_width)).collect();
            let mut header = format!("{:<name_width$}", STRATEGY.name);
            for (c, w) in table.columns.iter().zip(&widths) {
                let _ = write!(header, " | {:<w$}", c.label);
            }
            let _ = writeln!(out, "{}", header.trim_end());
            let _ = write!(out, "{}", "-".repeat(name_width));
            for w in &widths {
                let _ = write!(out, "-+-{}", "-".repeat(*w));
            }
            out.push('\n');
            let bests: Vec<Option<&str>> = table.columns.iter().map(|c| c.best(self.max_drift)).collect();
            for row in &table.rows {
                let mut line = format!("{row:<name_width$}");
                for ((c, w), best) in table.columns.iter().zip(&widths).zip(&bests) {
                    let cell = match c.run(row) {
                        Some(r) => {
                            let [j, h, l, f] = cell_figures(r);
                            format!("{j:>wj$} {h:>wh$} {l:>wl$} {f:>ws$} {}", mark(r, *best, self.max_drift))
                        }
                        None => format!("{:>wj$}", "-"),
                    };
                    let _ = write!(line, " | {cell:<w$}");
                }
                let _ = writeln!(out, "{}", line.trim_end());
            }
            for (c, best) in table.columns.iter().zip(&bests) {
                let _ = writeln!(out, "{}", c.verdict(*best, self.max_drift));
                for line in c.reason_lines(self.max_drift) {
                    let _ = writeln!(out, "  {line}");
                }
            }
        }
        out.push('\n');
        for line in self.ship_lines() {
            let _ = writeln!(out, "{line}");
        }
        for line in rule_lines(self.max_drift) {
            let _ = writeln!(out, "{line}");
        }
        out
    }

    /// The comparison as a self-contained HTML page: [`Comparison::body_html`] in [`html::page`].
    ///
    /// # Errors
    /// Only if a plot cannot be drawn.
    pub fn to_html(&self) -> Result<String, PlotError> {
        Ok(html::page("timestep-lab compare", &self.body_html()?))
    }

    /// The comparison as the body of a page (styled by [`html::CSS`]).
    ///
    /// # Errors
    /// Only if a plot cannot be drawn.
    pub fn body_html(&self) -> Result<String, PlotError> {
        let mut body = String::new();
        body.push_str("<h1>timestep-lab compare</h1>\n<ul class=\"sub\">");
        for line in &self.files {
            let _ = write!(body, "<li>{}</li>", escape(line));
        }
        body.push_str("</ul>\n");
        let _ = writeln!(
            body,
            "<section class=\"card legend\"><h3 style=\"margin-top:0\">How to read this page</h3>\
             <p>One table per vsync pass: a row per strategy, a column per monitor (from report cards) or simulated \
             display (from <code>simulate --format json</code>). Each cell gives {}; the best strategy of each \
             column is highlighted, a ! marks a run whose game speed is off: {}. In the charts, shorter bars are \
             better; the black tick on a monitor's bar is the simulator's prediction for it.</p>{}</section>",
            escape(&cell_labels()),
            escape(&judge::drift_rule(">", self.max_drift)),
            html::legend_html(self.max_drift)
        );
        let ship = self.ship_lines();
        if !self.tables.is_empty() {
            body.push_str("<section class=\"card\"><h2>Ship this</h2><ul>");
            for line in &ship {
                let _ = write!(body, "<li><b>{}</b></li>", escape(line));
            }
            body.push_str("</ul></section>\n");
        }
        for table in &self.tables {
            self.table_html(&mut body, table)?;
        }
        if self.tables.is_empty() {
            body.push_str("<section class=\"card\"><p>No runs to compare.</p></section>\n");
        }
        Ok(body)
    }

    fn table_html(&self, body: &mut String, table: &PassTable) -> Result<(), PlotError> {
        let _ = writeln!(body, "<section class=\"card\"><h2>{}</h2>", pass_label(table.pass));
        body.push_str("<div class=\"tablewrap\"><table><tr><th class=\"l\">strategy</th>");
        for c in &table.columns {
            let _ = write!(body, "<th class=\"grp s\" colspan=\"4\">{}</th>", escape(&c.label));
        }
        body.push_str("</tr>\n<tr><th></th>");
        for _ in &table.columns {
            for (k, metric) in Metric::ALL.iter().enumerate() {
                let class = if k == 0 { " class=\"s\"" } else { "" };
                let field = metric.field();
                let _ =
                    write!(body, "<th{class} title=\"{}\">{}</th>", escape(field.definition), escape(&field.label()));
            }
            let _ = write!(body, "<th title=\"{}\">{}</th>", escape(SHOWN_FPS.definition), escape(&SHOWN_FPS.label()));
        }
        body.push_str("</tr>\n");
        let bests: Vec<Option<&str>> = table.columns.iter().map(|c| c.best(self.max_drift)).collect();
        for row in &table.rows {
            let _ = write!(body, "<tr><td class=\"l\"><b>{}</b></td>", escape(row));
            for (c, best) in table.columns.iter().zip(&bests) {
                match c.run(row) {
                    Some(r) => {
                        let m = mark(r, *best, self.max_drift);
                        for (k, metric) in Metric::ALL.iter().enumerate() {
                            let class = match (k, m) {
                                (0, "*") => " class=\"best s\"",
                                (_, "*") => " class=\"best\"",
                                (0, _) => " class=\"s\"",
                                _ => "",
                            };
                            let mut text = metric.format(metric.value(r));
                            if text == "n/a" {
                                text = "<span class=\"na\">n/a</span>".to_owned();
                            }
                            let suffix = match (k, m) {
                                (2, "*") => " ★",
                                (2, "!") => " <span class=\"no\">!</span>",
                                _ => "",
                            };
                            let _ = write!(body, "<td{class}>{text}{suffix}</td>");
                        }
                        let [.., shown] = cell_figures(r);
                        let _ = write!(body, "<td>{shown}</td>");
                    }
                    None => body.push_str("<td class=\"s\" colspan=\"4\"><span class=\"na\">–</span></td>"),
                }
            }
            body.push_str("</tr>\n");
        }
        body.push_str("</table></div>\n<ul>");
        for (c, best) in table.columns.iter().zip(&bests) {
            let class = if c.evidence.supports_verdict() { "" } else { " class=\"no\"" };
            let _ = write!(body, "<li><span{class}>{}</span><ul>", escape(&c.verdict(*best, self.max_drift)));
            for line in c.reason_lines(self.max_drift) {
                let _ = write!(body, "<li>{}</li>", escape(&line));
            }
            body.push_str("</ul></li>");
        }
        body.push_str("</ul>\n");
        let series = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| BarSeries {
                name: c.label.clone(),
                color: plots::PALETTE[i % plots::PALETTE.len()],
                values: table.rows.iter().map(|r| html::bar_values(c.run(r))).collect(),
                markers: table
                    .rows
                    .iter()
                    .map(|r| html::bar_values(c.predictions.iter().find(|p| &p.strategy == r)))
                    .collect(),
            })
            .collect::<Vec<_>>();
        let marker_name = table.columns.iter().any(|c| !c.predictions.is_empty()).then(|| "prediction".to_owned());
        let chart = BarChart { rows: table.rows.clone(), series, marker_name };
        let svg = plots::bars_svg(&chart, &format!("{} per strategy, {}", Metric::names(), pass_label(table.pass)))?;
        let _ = writeln!(body, "<figure>{svg}</figure></section>");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::registry::{JUDDER_MS, LATENCY_MS, SPEED_RATIO};
    use crate::report_card::judge::MAX_DRIFT_MS_PER_MIN;

    fn sim(strategy: &str, hz: f64, vsync: bool, judder: f64) -> RunRecord {
        RunRecord {
            strategy: strategy.to_owned(),
            refresh_hz: Some(hz),
            vsync: Some(vsync),
            model: Some(RunOrigin::Preset(crate::monitor::Preset::Desktop)),
            tick_rate: Some(60.0),
            ..RunRecord::default()
        }
        .with(&SPEED_RATIO, 1.0)
        .with(&JUDDER_MS, judder)
        .with(&LATENCY_MS, 20.0)
    }

    #[test]
    fn a_vrr_display_is_a_column_of_its_own_named_by_its_range() {
        let vrr = |s| RunRecord {
            refresh_hz: None,
            vrr_min_hz: Some(48.0),
            vrr_max_hz: Some(144.0),
            ..sim(s, 0.0, true, 0.2)
        };
        let runs = vec![sim("auto", 144.0, true, 0.1), vrr("auto"), vrr("interpolated")];
        let c = compare(&[("runs.json".to_owned(), Source::Runs(runs))], 120.0);
        let labels: Vec<&str> = c.tables[0].columns.iter().map(|col| col.label.as_str()).collect();
        assert_eq!(labels, ["sim 144 Hz (desktop)", "sim vrr 48–144 Hz (desktop)"]);
        assert_eq!(c.tables[0].columns[1].runs.len(), 2);
    }

    #[test]
    fn simulator_runs_group_into_one_column_per_display_and_one_table_per_pass() {
        let runs = vec![
            sim("snapped", 144.0, true, 0.3),
            sim("catch-up", 144.0, true, 4.8),
            sim("snapped", 60.0, true, 0.9),
            sim("snapped", 60.0, false, 2.0),
        ];
        let c = compare(&[("runs.json".to_owned(), Source::Runs(runs))], MAX_DRIFT_MS_PER_MIN);
        assert_eq!(c.tables.len(), 2);
        let on = &c.tables[0];
        assert_eq!(on.pass, Some(true));
        let labels: Vec<&str> = on.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["sim 144 Hz (desktop)", "sim 60 Hz (desktop)"]);
        assert_eq!(on.rows, ["catch-up", "snapped"]);
        assert_eq!(on.columns[0].best(MAX_DRIFT_MS_PER_MIN), Some("snapped"));
        assert_eq!(c.tables[1].columns.len(), 1, "only 60 Hz ran with vsync off");
        let text = c.to_text();
        assert!(text.contains("catch-up | 4.800  n/a 20.000  n/a"), "{text}");
        assert!(text.contains("snapped  | 0.300  n/a 20.000  n/a *"), "{text}");
        assert!(text.contains(
            "vsync on: judder ms, hitches/min, latency ms, shown fps; * best in column, ! |drift| > 120 ms/min"
        ));
    }

    #[test]
    fn measured_runs_are_labelled_by_their_model_not_as_simulated() {
        let measured = |model| RunRecord { model: Some(model), ..sim("snapped", 60.0, true, 0.3) };
        let runs = vec![measured(RunOrigin::Window), measured(RunOrigin::Lanes), measured(RunOrigin::Trace)];
        let c = compare(&[("runs.json".to_owned(), Source::Runs(runs))], MAX_DRIFT_MS_PER_MIN);
        let labels: Vec<&str> = c.tables[0].columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["window 60 Hz", "lanes 60 Hz", "sim 60 Hz (trace)"],
            "a lane is measured, a trace simulated"
        );
    }

    #[test]
    fn equal_labels_from_two_files_get_the_file_names() {
        let a = ("a/laptop.json".to_owned(), Source::Runs(vec![sim("snapped", 60.0, true, 0.3)]));
        let b = ("b/desk.json".to_owned(), Source::Runs(vec![sim("snapped", 60.0, true, 0.5)]));
        let c = compare(&[a, b], MAX_DRIFT_MS_PER_MIN);
        let labels: Vec<&str> = c.tables[0].columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["laptop: sim 60 Hz (desktop)", "desk: sim 60 Hz (desktop)"]);
    }

    #[test]
    fn a_strategy_twice_in_a_column_is_a_warning() {
        let runs = vec![sim("snapped", 60.0, true, 0.3), sim("snapped", 60.0, true, 0.5)];
        let c = compare(&[("r.json".to_owned(), Source::Runs(runs))], MAX_DRIFT_MS_PER_MIN);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert_eq!(
            c.tables[0].columns[0].run("snapped").and_then(|r| r.figure(&JUDDER_MS)),
            Some(0.3),
            "the first is shown"
        );
    }

    /// The phone of issue 32, on the page's own code path where it has one:
    /// the committed page card (Chrome, 60 Hz, 3 s a strategy) made into a
    /// phone's that drew 21.5 fps (its note from the page's own
    /// [`evidence::missed_refreshes`]), stored its Fifo verdict unfinished,
    /// could not model its setup, held 23 frames a strategy and saw its own
    /// frames spread 11.98–59.17 Hz.
    fn slow_phone_card() -> ReportCard {
        use crate::report::IntervalHistogram;
        let text = include_str!("../../docs/web/chromium-report.json");
        let mut card = ReportCard::from_json(text).expect("the committed page card loads");
        card.machine.browser = Some(
            "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 \
             Mobile Safari/537.36"
                .to_owned(),
        );
        let m = &mut card.monitors[0];
        m.present_cadence_hz = Some(60.0);
        m.vrr_seen_hz = Some([11.98, 59.17]);
        m.setup = None;
        m.notes.extend(evidence::missed_refreshes(21.5, 60.0));
        m.notes.push("the setup could not be modelled: the predictions use the simulator's desktop model".to_owned());
        let probe = &mut m.present_modes[0];
        probe.vsync = None;
        probe.verdict = "Fifo requested: measuring… (19/30 frames)".to_owned();
        probe.intervals = super::super::stats::IntervalStats::from_intervals(&[46_511_628; 19]);
        for run in &mut m.runs {
            run.present_interval_histogram = Some(IntervalHistogram { bin_ms: 0.25, counts: vec![22], overflow: 0 });
        }
        card
    }

    #[test]
    fn a_slow_phone_with_an_unfinished_verdict_gets_the_reasons_and_no_best() {
        let fixture = |name: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report_card").join(name);
            (name.to_owned(), load(&path).expect("a fixture"))
        };
        let phone = ("phone.json".to_owned(), Source::Card(Box::new(slow_phone_card())));
        let c = compare(&[fixture("60hz.json"), fixture("144hz.json"), phone], MAX_DRIFT_MS_PER_MIN);
        let on = &c.tables[0];
        let column = &on.columns[2];
        assert_eq!(column.label, "Chrome 156 on Android 15 · monitor 1 (60 Hz)", "the card's own refresh, no vrr");
        assert_eq!(column.best(MAX_DRIFT_MS_PER_MIN), None, "no best from evidence the card rejects");
        assert!(column.agreement(MAX_DRIFT_MS_PER_MIN).is_none(), "no agreement count either");
        let text = c.to_text();
        let verdict =
            text.lines().find(|l| l.starts_with("Chrome 156 on Android 15 · monitor 1 (60 Hz):")).expect("a verdict");
        assert_eq!(
            verdict,
            "Chrome 156 on Android 15 · monitor 1 (60 Hz): no verdict: too few frames: lockstep 23, fixed-fps 23, \
             variable 23, catch-up 23, interpolated 23, extrapolated 23, fuzzy 23, snapped 23, paced 23, auto 23 (a \
             verdict needs 31 a strategy, the 30 intervals the vsync meter waits for); the page drew 21.5 fps on a \
             60.0 Hz screen: it missed refreshes; no model of the setup: the predictions are the simulator's desktop \
             model, not this screen's; the vsync verdict was unfinished: \"Fifo requested: measuring… (19/30 frames)\""
        );
        assert!(!text.contains("vrr 11.98"), "no VRR header from the page's own pace: {text}");
        assert!(text.contains("  refresh: frames spread 11.98–59.17 Hz on a 60 Hz screen"), "{text}");
        assert!(text.contains("  frames: lockstep 23 (3 s),"), "frames and seconds per strategy: {text}");
        assert!(text.contains("  note: the page drew 21.5 fps on a 60.0 Hz screen: it missed refreshes"), "{text}");
        assert_eq!(text.matches("agrees on").count(), 4, "the two simulated cards' columns, two passes: {text}");
        let ship = text.lines().find(|l| l.starts_with("ship this (vsync on):")).expect("a ship line");
        assert!(ship.contains("the best on the 2 of 3 screens that support a verdict"), "not the phone: {ship}");
        let html = c.to_html().expect("the page renders");
        assert!(html.contains("no verdict: too few frames") && html.contains("Ship this"), "the page says it too");
    }

    #[test]
    fn a_columns_verdict_names_where_its_display_times_came_from_unless_simulated() {
        let with_source = |source: &str| Column {
            label: "monitor 1 (60 Hz)".to_owned(),
            refresh_hz: Some(60.0),
            runs: vec![RunRecord { display_time_source: Some(source.to_owned()), ..sim("lockstep", 60.0, true, 0.0) }],
            predictions: Vec::new(),
            prediction_ranges: Vec::new(),
            evidence: Evidence::default(),
        };
        let verdict = |source: &str| with_source(source).verdict(Some("lockstep"), 120.0);
        assert_eq!(
            verdict("present-return"),
            "monitor 1 (60 Hz): best lockstep; display times: present-return (an estimate)"
        );
        assert_eq!(
            verdict("compositor-feedback (vsync)"),
            "monitor 1 (60 Hz): best lockstep; display times: compositor-feedback (vsync)"
        );
        assert_eq!(verdict("simulated"), "monitor 1 (60 Hz): best lockstep", "the simulator's own need no word");
    }

    /// A column of `runs` at `hz` whose probe missed `misses`, and nothing else known.
    fn machine_column(hz: f64, runs: Vec<RunRecord>, misses: evidence::MachineMisses) -> Column {
        Column {
            label: format!("{hz} Hz"),
            refresh_hz: Some(hz),
            runs,
            predictions: Vec::new(),
            prediction_ranges: Vec::new(),
            evidence: Evidence { machine: Some(misses), ..Evidence::default() },
        }
    }

    /// The issue's 144 Hz card: the probe missed 2.5 % of refreshes before any
    /// strategy ran, 216 a minute. Variable's 11 hitches in 3 s (220/min) and
    /// auto's 13 (260/min) are within the counting noise of 216 (20 +
    /// √(54² + 131.5²) = 162.1): both are the machine's, they tie, and the
    /// column says so in words.
    #[test]
    fn hitches_within_noise_of_the_probes_misses_are_the_machines() {
        use crate::report::registry::{HITCHES, HITCHES_PER_MIN, SYSTEM_TIME_S};
        let run = |name: &str, hitches: f64, latency: f64| {
            RunRecord { vsync_requested: Some(true), ..sim(name, 144.0, true, 0.1) }
                .with(&HITCHES, hitches)
                .with(&HITCHES_PER_MIN, hitches * 20.0)
                .with(&SYSTEM_TIME_S, 3.0)
                .with(&LATENCY_MS, latency)
        };
        let runs = vec![run("variable", 11.0, 12.0), run("auto", 13.0, 13.0)];
        let misses = evidence::MachineMisses { share: 0.025, per_min: 216.0 };
        let column = machine_column(144.0, runs, misses);
        assert_eq!(
            column.machine_line().as_deref(),
            Some(
                "machine: this machine missed 2.5 % of refreshes before any strategy ran (216/min): every strategy's \
                 hitches are the machine's, within the counting noise of it"
            )
        );
        let lines = column.reason_lines(MAX_DRIFT_MS_PER_MIN);
        assert!(
            lines
                .iter()
                .any(|l| l
                    .starts_with("tie: variable and auto tie: 11 and 13 hitches in 3 s, within the counting noise")),
            "{lines:?}"
        );
        let one = Column { runs: vec![run("variable", 11.0, 12.0), run("catch-up", 60.0, 12.0)], ..column };
        assert_eq!(
            one.machine_line().as_deref(),
            Some(
                "machine: this machine missed 2.5 % of refreshes before any strategy ran (216/min): variable's 220/min \
                 are the machine's, not the loop's"
            )
        );
    }

    /// A probe that missed nothing sets no floor: one hitch in 3 s (20/min)
    /// is within the counting noise of 0, but the machine missed none, so
    /// it is the loop's, and the ship line does not call it the machine's.
    #[test]
    fn a_probe_that_missed_nothing_gives_no_hitch_to_the_machine() {
        use crate::report::registry::{HITCHES, HITCHES_PER_MIN, SYSTEM_TIME_S};
        let run = |name: &str, hitches: f64| {
            RunRecord { vsync_requested: Some(true), ..sim(name, 60.0, true, 0.1) }
                .with(&HITCHES, hitches)
                .with(&HITCHES_PER_MIN, hitches * 20.0)
                .with(&SYSTEM_TIME_S, 3.0)
                .with(&LATENCY_MS, 14.0)
        };
        let misses = evidence::MachineMisses { share: 0.0, per_min: 0.0 };
        assert_eq!(misses.floor(), None);
        let column = machine_column(60.0, vec![run("variable", 0.0), run("fixed-fps", 1.0)], misses);
        assert_eq!(
            column.machine_line().as_deref(),
            Some(
                "machine: this machine missed none of its refreshes before any strategy ran: every hitch below is the loop's own"
            )
        );
        let screens =
            [reasons::Screen { label: "60 Hz", runs: &column.runs, refresh_hz: Some(60.0), floor: misses.floor() }];
        let order = ["variable".to_owned(), "fixed-fps".to_owned()];
        let ship = reasons::ship_lines("vsync on", &order, &screens, 1, MAX_DRIFT_MS_PER_MIN).join("\n");
        assert!(!ship.contains("machine's own"), "{ship}");
    }
}
