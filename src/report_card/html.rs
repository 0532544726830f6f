//! `report.html`: a report card as one self-contained page.
//!
//! No script, no stylesheet or font to fetch, no image file: the CSS is in
//! a `<style>` element and every plot is an inline `<svg>` (see
//! [`super::plots`]), so the page can be mailed, attached to an issue or
//! opened years later offline. One light theme throughout.
//!
//! ```text
//! header      machine, OS, adapter, version, date; how to read; the legend
//! per monitor reported / measured / emulated refresh, notes
//!             vsync per present mode (table), one present-interval histogram per mode
//!             the frame-time trace
//!             per vsync pass: best strategy, agreement with the simulator,
//!                             judder | hitches/min | latency bars (measured blue,
//!                             predicted amber, a black tick for the prediction)
//!             every figure (table; measured row, predicted row beneath), patterns
//! ```

use super::ReportError;
use super::judge::{self, MAX_DRIFT_MS_PER_MIN, Metric};
use super::markup::escape;
use super::plots::{self, BarChart, BarSeries};
use super::schema::{Figures, MonitorCard, PredictionRange, ReportCard, RunRecord};
use super::setup::MeasuredSetup;
use crate::report::registry::{DRIFT_MS_PER_MIN, HITCHES, HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS, NOTATION};
use crate::report::{Field, RunOrigin, trim_number};
use crate::run_chart::PlotError;
use std::fmt::Write as _;
use std::path::Path;

/// The page's style sheet (shared with `compare.html`).
pub(crate) const CSS: &str = r#"
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f3f4f6; color: #1f2937;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 20px 48px; }
h1 { font-size: 26px; margin: 0 0 2px; letter-spacing: -0.01em; }
h2 { font-size: 20px; margin: 0 0 6px; }
h3 { font-size: 15px; margin: 22px 0 8px; color: #374151; }
p { margin: 6px 0; }
.sub { color: #6b7280; }
section.card { background: #fff; border: 1px solid #e5e7eb; border-radius: 10px; padding: 18px 22px 20px;
  margin: 18px 0; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.04); }
.facts { display: flex; flex-wrap: wrap; gap: 6px 34px; margin: 10px 0 6px; }
.fact span { display: block; color: #6b7280; font-size: 11.5px; text-transform: uppercase; letter-spacing: 0.05em; }
.fact b { font-size: 21px; font-weight: 600; font-variant-numeric: tabular-nums; }
.note { color: #6b7280; font-size: 13px; }
.verdict { background: #f0f7ff; border-left: 3px solid #2563eb; padding: 6px 10px; border-radius: 4px; }
.tablewrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 4px 7px; border-bottom: 1px solid #eef0f3; text-align: right; white-space: nowrap; }
th { font-weight: 600; color: #4b5563; background: #f9fafb; border-bottom: 1px solid #e5e7eb; }
th.l, td.l { text-align: left; }
td.wrap { white-space: normal; text-align: left; }
th.wrap { white-space: normal; min-width: 4.5em; }
th.grp { text-align: center; }
th.s, td.s { border-left: 1px solid #e5e7eb; }
table.figures th, table.figures td { padding: 4px 6px; }
tr.group th { background: #eef2f7; text-align: left; color: #1f2937; }
tr.pred td { color: #92400e; background: #fffbeb; font-size: 12px; }
tr.pred td.l { padding-left: 18px; }
td.best { font-weight: 700; background: #ecfdf5; }
.na { color: #9ca3af; }
.yes { color: #15803d; font-weight: 600; }
.no { color: #b91c1c; font-weight: 600; }
.unknown { color: #6b7280; font-weight: 600; }
svg.plot { width: 100%; height: auto; display: block; }
svg.plot text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(430px, 1fr)); gap: 10px 18px; }
figure { margin: 0; }
figcaption { font-size: 12.5px; color: #6b7280; margin: 0 0 4px; }
.legend dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 8px 0 0; }
.legend dt { font-weight: 600; }
.legend dd { margin: 0; }
code, .mono { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, monospace; font-size: 12px; }
details { margin-top: 10px; }
summary { cursor: pointer; color: #374151; }
nav a { color: #2563eb; margin-right: 14px; text-decoration: none; }
"#;

/// A whole page around `body`.
pub(crate) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// A figure or `n/a`, with `decimals` decimals.
pub(crate) fn num(value: Option<f64>, decimals: usize) -> String {
    match value.filter(|v| v.is_finite()) {
        Some(v) => format!("{v:.decimals$}"),
        None => "<span class=\"na\">n/a</span>".to_owned(),
    }
}

/// A count or `n/a`.
pub(crate) fn count(value: Option<u64>) -> String {
    value.map_or_else(|| "<span class=\"na\">n/a</span>".to_owned(), |v| v.to_string())
}

/// `60 Hz`, `59.94 Hz` or `n/a`.
pub(crate) fn hz(value: Option<f64>) -> String {
    match value.filter(|v| v.is_finite()) {
        Some(v) => format!("{} Hz", trim_number(v, 2)),
        None => "<span class=\"na\">n/a</span>".to_owned(),
    }
}

/// The fields the legend defines: the judged figures, what hitches per minute counts, and drift.
const LEGEND_FIELDS: [&Field; 5] = [&JUDDER_MS, &HITCHES, &HITCHES_PER_MIN, &LATENCY_MS, &DRIFT_MS_PER_MIN];

/// The legend: the registry's definition of each figure shown, and how the verdicts are reached.
pub(crate) fn legend_html(max_drift: f64) -> String {
    let mut out = String::from("<dl>");
    for field in LEGEND_FIELDS {
        let _ = write!(out, "<dt>{}</dt><dd>{}.</dd>", escape(&field.label()), escape(field.definition));
    }
    let _ = write!(
        out,
        "<dt>where</dt><dd>{}.</dd>\
         <dt>present interval</dt><dd>time between presents; one sharp spike at the refresh period means the \
         display paces the frames (vsync in effect).</dd>\
         <dt>best</dt><dd>{}.</dd><dt>agrees</dt><dd>{}.</dd>\
         <dt>n/a</dt><dd>not measured, or undefined (no frames).</dd></dl>",
        escape(NOTATION),
        escape(&judge::best_rule(max_drift).replace("<=", "≤")),
        escape(&judge::agreement_rule().replace("+-", "±")),
    );
    out
}

/// The vsync passes present in `runs`, in the order on, off, unknown.
pub(crate) fn passes<'a>(runs: impl IntoIterator<Item = &'a RunRecord>) -> Vec<Option<bool>> {
    let found: Vec<Option<bool>> = runs.into_iter().map(RunRecord::vsync_pass).collect();
    [Some(true), Some(false), None].into_iter().filter(|p| found.contains(p)).collect()
}

/// `vsync on`, `vsync off`, `vsync unknown`.
pub(crate) fn pass_label(pass: Option<bool>) -> &'static str {
    match pass {
        Some(true) => "vsync on",
        Some(false) => "vsync off",
        None => "vsync unknown",
    }
}

/// Strategy names in registry (key) order, then any unknown ones in order of appearance.
pub(crate) fn strategy_order<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let names: Vec<&str> = names.into_iter().collect();
    let mut order: Vec<String> = crate::strategy::StrategyId::ALL
        .iter()
        .map(|id| id.name())
        .filter(|n| names.contains(n))
        .map(str::to_owned)
        .collect();
    for n in names {
        if !order.iter().any(|o| o == n) {
            order.push(n.to_owned());
        }
    }
    order
}

/// The three bar values of a run.
pub(crate) fn bar_values(run: Option<&RunRecord>) -> [Option<f64>; 3] {
    Metric::ALL.map(|m| run.and_then(|r| m.value(r)))
}

/// The HTML of `card`.
///
/// # Errors
/// Only if a plot cannot be drawn.
pub fn report_html(card: &ReportCard) -> Result<String, PlotError> {
    let mut body = String::new();
    let m = &card.machine;
    let _ = writeln!(body, "<h1>timestep-lab report card</h1>");
    let mut sub = vec![m.name.clone().unwrap_or_else(|| "unnamed machine".to_owned())];
    // A page's card names the browser and device; a native one its OS.
    sub.push(m.browser.as_deref().map_or_else(|| m.os.clone(), super::agent::in_words));
    let adapter = m.adapter.as_deref().map(str::trim).filter(|a| !a.is_empty()).unwrap_or("unnamed adapter");
    let gpu = [Some(adapter), m.backend.as_deref(), m.driver.as_deref()]
        .into_iter()
        .flatten()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    sub.push(gpu);
    let screens: Vec<String> = card
        .monitors
        .iter()
        .filter_map(|mon| mon.present_cadence_hz.filter(|hz| hz.is_finite()))
        .map(|hz| format!("screen {} Hz", crate::report::trim_number(hz, 2)))
        .collect();
    sub.extend(screens);
    sub.push(format!("timestep-lab {}", m.app_version));
    if let Some(created) = &card.created {
        sub.push(created.clone());
    }
    let sub: Vec<String> = sub.iter().map(|s| escape(s)).collect();
    let _ = writeln!(body, "<p class=\"sub\">{}</p>", sub.join(" · "));
    if card.monitors.len() > 1 {
        body.push_str("<nav>");
        for mon in &card.monitors {
            let _ = write!(body, "<a href=\"#monitor-{}\">{}</a>", mon.index, escape(&monitor_title(mon)));
        }
        body.push_str("</nav>\n");
    }
    let _ = writeln!(
        body,
        "<section class=\"card legend\"><h3 style=\"margin-top:0\">How to read this card</h3>\
         <p>For each monitor: what the display does (its refresh, whether vsync is in effect in each present mode, \
         how evenly frames are presented), then how every loop strategy fared on it. Bars are <b>measured</b> \
         (blue) beside the simulator's <b>prediction</b> at the same refresh (amber; the black tick on each blue \
         bar), made on a model of the setup the tour measured (its frame work, how many presents queue, how late \
         the loop wakes after a vblank, its stalls; cards from before this was measured: a typical desktop). \
         Shorter is better in every panel; ★ marks the best strategy.</p>{}</section>",
        legend_html(MAX_DRIFT_MS_PER_MIN)
    );
    if card.monitors.is_empty() {
        body.push_str("<section class=\"card\"><p>No monitor was measured.</p></section>\n");
    }
    for mon in &card.monitors {
        monitor_html(&mut body, mon)?;
    }
    Ok(page("timestep-lab report card", &body))
}

/// Writes `card` as a self-contained HTML page to `path`.
///
/// # Errors
/// [`ReportError::Plot`] if a plot cannot be drawn, [`ReportError::Write`]
/// naming the file when it cannot be written.
pub fn write_report_html(card: &ReportCard, path: &Path) -> Result<(), ReportError> {
    let html = report_html(card)?;
    crate::platform::write_file(path, html).map_err(ReportError::Write)
}

/// `text` with its first letter upper-case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn monitor_title(mon: &MonitorCard) -> String {
    match &mon.name {
        Some(name) => format!("Monitor {} · {name}", mon.index),
        None => format!("Monitor {}", mon.index),
    }
}

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "<span class=\"yes\">yes</span>",
        Some(false) => "<span class=\"no\">no</span>",
        None => "<span class=\"unknown\">cannot tell</span>",
    }
}

/// One line on the measured setup the predictions model.
pub(crate) fn setup_sentence(setup: &MeasuredSetup) -> String {
    let range = |[lo, hi]: [f64; 2]| format!("{}–{} ms", trim_number(lo, 3), trim_number(hi, 3));
    let mut s = format!(
        "Predictions model the setup measured here: frames work {}, presents wait {} deep, the loop wakes {} after a vblank",
        range(setup.work_ms),
        setup.queue_depth,
        range(setup.wake_ms)
    );
    if let Some(late) = setup.sleep_late_ms {
        let _ = write!(s, ", sleeps end {} late", range(late));
    }
    match (setup.stall_every_ms, setup.stall_ms) {
        (Some(every), Some(length)) => {
            let _ = write!(s, ", a stall of {} every {} s", range(length), trim_number(every / 1000.0, 1));
        }
        _ => s.push_str(", no stall"),
    }
    let _ = write!(s, " ({} probe frames).", setup.frames);
    if let Some(runs) = own_costs_sentence(setup) {
        s.push(' ');
        s.push_str(&runs);
    }
    s
}

/// Where the card kept each run's own costs ([`MeasuredSetup::runs`]): a
/// sentence saying each prediction draws them, with the spread of their
/// stalls (a machine busy in bursts meets them in some runs and not others).
fn own_costs_sentence(setup: &MeasuredSetup) -> Option<String> {
    if setup.runs.is_empty() {
        return None;
    }
    let mut s = format!(
        "Each strategy's prediction draws the costs its own run met ({} runs): its frames' work, its slow frames \
         (beyond the 90th percentile of its work, or a refresh long) and its sleeps, and with vsync off its frames",
        setup.runs.len()
    );
    let by_stalls =
        setup.runs.iter().filter(|r| r.vsync).map(|r| (r.stall_every_ms.unwrap_or(f64::INFINITY), r.strategy.as_str()));
    let most = by_stalls.clone().min_by(|a, b| a.0.total_cmp(&b.0));
    let least = by_stalls.max_by(|a, b| a.0.total_cmp(&b.0));
    let said = |(every, strategy): (f64, &str)| {
        if every.is_finite() {
            format!("one every {} s in {strategy}'s", trim_number(every / 1000.0, 2))
        } else {
            format!("none in {strategy}'s")
        }
    };
    if let (Some(most), Some(least)) = (most, least)
        && most.0 < least.0
    {
        let _ = write!(s, "; with vsync on, slow frames came {} and {}", said(most), said(least));
    }
    s.push('.');
    Some(s)
}

fn monitor_html(body: &mut String, mon: &MonitorCard) -> Result<(), PlotError> {
    let _ = writeln!(body, "<section class=\"card\" id=\"monitor-{}\">", mon.index);
    let _ = writeln!(body, "<h2>{}</h2>", escape(&monitor_title(mon)));
    body.push_str("<div class=\"facts\">");
    let fact = |body: &mut String, name: &str, value: String| {
        let _ = write!(body, "<div class=\"fact\"><span>{name}</span><b>{value}</b></div>");
    };
    fact(body, "reported refresh", hz(mon.reported_refresh_hz));
    fact(body, "present cadence", hz(mon.present_cadence_hz));
    if mon.emulated_refresh_hz.is_some() {
        fact(body, "emulated refresh", hz(mon.emulated_refresh_hz));
    }
    if let Some([w, h]) = mon.size_px {
        let scale = mon.scale_factor.map(|s| format!(" @ {}×", trim_number(s, 2))).unwrap_or_default();
        fact(body, "size", format!("{w}×{h}{scale}"));
    }
    let source = mon.runs.iter().find_map(RunRecord::display_times);
    if let Some(source) = source {
        fact(body, "display times", escape(&source.label()));
    }
    body.push_str("</div>\n");
    if let Some(source) = source.filter(|s| s.is_estimate()) {
        // A card on estimated D says what its figures cannot see.
        let _ = writeln!(body, "<p class=\"note\">{}.</p>", escape(&capitalised(source.blind_spot())));
    }
    if let Some(setup) = &mon.setup {
        let _ = writeln!(body, "<p class=\"note\">{}</p>", escape(&setup_sentence(setup)));
    }
    for note in &mon.notes {
        let _ = writeln!(body, "<p class=\"note\">{}</p>", escape(note));
    }
    present_modes_html(body, mon)?;
    frame_trace_html(body, mon)?;
    let all_runs = mon.runs.iter().chain(&mon.predictions);
    let passes = passes(all_runs);
    if passes.is_empty() {
        body.push_str("<h3>Strategies</h3><p class=\"note\">No strategy was run.</p>\n");
    }
    for &pass in &passes {
        strategies_html(body, mon, pass)?;
    }
    if !passes.is_empty() {
        figures_table(body, mon, &passes);
    }
    body.push_str("</section>\n");
    Ok(())
}

/// The vsync verdict and present-interval statistics of each present mode, with their histograms.
fn present_modes_html(body: &mut String, mon: &MonitorCard) -> Result<(), PlotError> {
    let _ = writeln!(body, "<h3>Vsync by present mode</h3>");
    if mon.present_modes.is_empty() {
        body.push_str("<p class=\"note\">No present mode was checked.</p>\n");
    } else {
        body.push_str(
            "<div class=\"tablewrap\"><table><tr><th class=\"l\">present mode</th><th>vsync in effect</th>\
             <th>present cadence</th><th>presents</th><th>interval mean ms</th><th>σ ms</th><th>p99 ms</th>\
             <th class=\"l\">verdict</th></tr>\n",
        );
        for pm in &mon.present_modes {
            let s = pm.intervals.as_ref();
            let _ = writeln!(
                body,
                "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td class=\"wrap\">{}</td></tr>",
                escape(&pm.mode),
                yes_no(pm.vsync),
                hz(pm.present_cadence_hz),
                count(s.map(|s| s.count)),
                num(s.map(|s| s.mean_ms), 3),
                num(s.map(|s| s.std_ms), 3),
                num(s.map(|s| s.p99_ms), 3),
                escape(&pm.verdict)
            );
        }
        body.push_str("</table></div>\n<div class=\"grid2\">\n");
        for pm in &mon.present_modes {
            match &pm.intervals {
                Some(stats) => {
                    let label = format!("{}: present-interval histogram", pm.mode);
                    let svg = plots::histogram_svg(stats, mon.refresh_hz(), &label)?;
                    let _ = writeln!(
                        body,
                        "<figure><figcaption>{}: present intervals ({} presents)</figcaption>{svg}</figure>",
                        escape(&pm.mode),
                        stats.count
                    );
                }
                None => {
                    let _ = writeln!(
                        body,
                        "<figure><figcaption>{}: no presents measured</figcaption></figure>",
                        escape(&pm.mode)
                    );
                }
            }
        }
        body.push_str("</div>\n");
    }
    Ok(())
}

/// The frame-time trace of the tour's run, when it has one.
fn frame_trace_html(body: &mut String, mon: &MonitorCard) -> Result<(), PlotError> {
    if let Some(trace) = mon.frame_trace.as_ref().filter(|t| !t.intervals_ms.is_empty()) {
        let _ = writeln!(body, "<h3>Frame times</h3>");
        let svg = plots::trace_svg(trace, mon.refresh_hz(), &format!("display intervals of {}", trace.label))?;
        let _ = writeln!(
            body,
            "<figure><figcaption>Display interval of each frame, {} ({} frames); red: the refresh period.\
             </figcaption>{svg}</figure>",
            escape(&trace.label),
            trace.intervals_ms.len()
        );
    }
    Ok(())
}

fn in_pass(runs: &[RunRecord], pass: Option<bool>) -> Vec<&RunRecord> {
    runs.iter().filter(|r| r.vsync_pass() == pass).collect()
}

fn find<'a>(runs: &[&'a RunRecord], strategy: &str) -> Option<&'a RunRecord> {
    runs.iter().copied().find(|r| r.strategy == strategy)
}

fn strategies_html(body: &mut String, mon: &MonitorCard, pass: Option<bool>) -> Result<(), PlotError> {
    let measured = in_pass(&mon.runs, pass);
    let predicted = in_pass(&mon.predictions, pass);
    let rows = strategy_order(measured.iter().chain(&predicted).map(|r| r.strategy.as_str()));
    let ranges: Vec<&PredictionRange> = mon.prediction_ranges.iter().filter(|r| r.vsync_requested == pass).collect();
    let agreement = judge::agreement(&measured, &predicted, &ranges, mon.refresh_hz(), MAX_DRIFT_MS_PER_MIN);
    let _ = writeln!(body, "<h3>Strategies, {}</h3>", pass_label(pass));
    let best = agreement.best_measured.clone();
    let mut verdict = match &best {
        Some(b) => format!("Best here: <b>{}</b>.", escape(b)),
        None if measured.is_empty() => "No measured runs.".to_owned(),
        None => "No measured run keeps the right speed, so none is best.".to_owned(),
    };
    if !predicted.is_empty() && !measured.is_empty() {
        let predicted_best = agreement.best_predicted.as_deref().unwrap_or("none");
        let _ = write!(
            verdict,
            " The simulator predicts <b>{}</b>; {}.",
            escape(predicted_best),
            escape(&agreement.sentence().replacen("the simulator ", "it ", 1))
        );
    }
    let _ = writeln!(body, "<p class=\"verdict\">{verdict}</p>");
    let names: Vec<String> =
        rows.iter().map(|r| if best.as_deref() == Some(r.as_str()) { format!("{r} ★") } else { r.clone() }).collect();
    let mut series = Vec::new();
    if !measured.is_empty() {
        series.push(BarSeries {
            name: "measured".to_owned(),
            color: plots::MEASURED,
            values: rows.iter().map(|r| bar_values(find(&measured, r))).collect(),
            markers: rows.iter().map(|r| bar_values(find(&predicted, r))).collect(),
        });
    }
    if !predicted.is_empty() {
        series.push(BarSeries {
            name: format!(
                "predicted (simulator, {} model)",
                predicted.first().and_then(|p| p.model.as_ref()).map_or("desktop", RunOrigin::name)
            ),
            color: plots::PREDICTED,
            values: rows.iter().map(|r| bar_values(find(&predicted, r))).collect(),
            markers: Vec::new(),
        });
    }
    let marker_name = (!measured.is_empty() && !predicted.is_empty()).then(|| "prediction".to_owned());
    let chart = BarChart { rows: names, series, marker_name };
    let svg = plots::bars_svg(&chart, &format!("{} per strategy, {}", Metric::names(), pass_label(pass)))?;
    let _ = writeln!(body, "<figure>{svg}</figure>");
    Ok(())
}

/// One cell per figure of a run, in registry order ([`Figures::fields`]), with the field's decimals.
fn figure_cells(r: &RunRecord) -> String {
    let mut out = String::new();
    for field in Figures::fields() {
        let _ = write!(out, "<td>{}</td>", num(r.value(field), field.decimals));
    }
    out
}

fn figures_table(body: &mut String, mon: &MonitorCard, passes: &[Option<bool>]) {
    let _ = writeln!(body, "<h3>All figures</h3>");
    // Every figure the registry defines, headed by its label, its definition on hover.
    body.push_str("<div class=\"tablewrap\"><table class=\"figures\"><tr><th class=\"l\">strategy</th>");
    for field in Figures::fields() {
        let _ =
            write!(body, "<th class=\"wrap\" title=\"{}\">{}</th>", escape(field.definition), escape(&field.label()));
    }
    body.push_str("</tr>\n");
    let width = 1 + Figures::fields().count();
    let mut patterns = String::new();
    for &pass in passes {
        let measured = in_pass(&mon.runs, pass);
        let predicted = in_pass(&mon.predictions, pass);
        let best = judge::best(measured.iter().copied(), MAX_DRIFT_MS_PER_MIN).map(|r| r.strategy.clone());
        let mut modes: Vec<&str> = measured.iter().filter_map(|r| r.present_mode.as_deref()).collect();
        modes.dedup();
        let modes = if modes.is_empty() { String::new() } else { format!(" · {}", escape(&modes.join(", "))) };
        let _ = writeln!(body, "<tr class=\"group\"><th colspan=\"{width}\">{}{modes}</th></tr>", pass_label(pass));
        for name in strategy_order(measured.iter().chain(&predicted).map(|r| r.strategy.as_str())) {
            let star = if best.as_deref() == Some(name.as_str()) { " ★" } else { "" };
            if let Some(r) = find(&measured, &name) {
                let _ =
                    writeln!(body, "<tr><td class=\"l\"><b>{}</b>{star}</td>{}</tr>", escape(&name), figure_cells(r));
                if let Some(p) = r.pattern.as_deref().filter(|p| !p.is_empty()) {
                    let _ = writeln!(patterns, "{:<14} {:<10} {}", escape(&name), pass_label(pass), escape(p));
                }
            }
            if let Some(p) = find(&predicted, &name) {
                let label = if find(&measured, &name).is_some() {
                    "predicted".to_owned()
                } else {
                    format!("{} (predicted)", escape(&name))
                };
                let _ = writeln!(body, "<tr class=\"pred\"><td class=\"l\">{label}</td>{}</tr>", figure_cells(p));
            }
        }
    }
    body.push_str("</table></div>\n");
    if !patterns.is_empty() {
        let _ = writeln!(
            body,
            "<details><summary>Update patterns of the measured runs (updates shown per refresh, first 200 refreshes)\
             </summary><pre class=\"mono\">{patterns}</pre></details>"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_with_each_run_s_costs_says_so_and_how_far_its_slow_frames_spread() {
        let run = |strategy: &str, vsync: bool, every: Option<f64>| super::super::setup::RunCosts {
            strategy: strategy.to_owned(),
            vsync,
            frames: 480,
            stall_every_ms: every,
            ..Default::default()
        };
        let mut setup = MeasuredSetup::default();
        assert_eq!(own_costs_sentence(&setup), None, "an older card: the tour's costs");
        setup.runs = vec![
            run("lockstep", true, Some(498.8)),
            run("snapped", true, None),
            run("extrapolated", true, Some(166.3)),
            run("lockstep", false, Some(1.0)),
        ];
        assert_eq!(
            own_costs_sentence(&setup).as_deref(),
            Some(
                "Each strategy's prediction draws the costs its own run met (4 runs): its frames' work, its slow \
                 frames (beyond the 90th percentile of its work, or a refresh long) and its sleeps, and with vsync \
                 off its frames; with vsync on, slow frames came one every 0.17 s in extrapolated's and none in \
                 snapped's."
            )
        );
        setup.runs.truncate(1);
        assert!(own_costs_sentence(&setup).is_some_and(|s| s.ends_with("its frames.")), "one run: no spread");
    }

    #[test]
    fn strategies_come_in_key_order_then_unknown_ones() {
        let order = strategy_order(["snapped", "warp", "lockstep", "snapped"]);
        assert_eq!(order, ["lockstep", "snapped", "warp"]);
    }

    #[test]
    fn an_empty_card_still_makes_a_page() {
        let html = report_html(&ReportCard::new(super::super::schema::Machine::this_build())).unwrap();
        assert!(html.contains("No monitor was measured."));
        assert!(!html.contains("<svg"));
    }

    /// A card of one monitor with one measured run whose D came from `source`.
    fn card_with_display_times(source: &str) -> String {
        let run = RunRecord {
            strategy: "interpolated".to_owned(),
            vsync_requested: Some(true),
            model: Some(RunOrigin::Window),
            display_time_source: Some(source.to_owned()),
            ..RunRecord::default()
        };
        let monitor = MonitorCard { index: 1, runs: vec![run], ..MonitorCard::default() };
        let mut card = ReportCard::new(super::super::schema::Machine::this_build());
        card.monitors.push(monitor);
        report_html(&card).expect("a page")
    }

    #[test]
    fn a_card_on_estimated_display_times_says_what_it_cannot_see() {
        let estimated = card_with_display_times("present-return");
        assert!(estimated.contains("<span>display times</span><b>present-return</b>"), "the fact");
        assert!(estimated.contains("Display times are the present call&#39;s return, an estimate"), "the note");
        assert!(estimated.contains("discarded cannot be seen"), "what it cannot see");
        let fed = card_with_display_times("compositor-feedback (vsync hw-clock)");
        assert!(fed.contains("<b>compositor-feedback (vsync hw-clock)</b>"), "the compositor's flags");
        assert!(!fed.contains("cannot be seen"), "the compositor's word has no blind spot");
    }
}
