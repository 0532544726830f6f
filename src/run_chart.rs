//! `--plot`: an SVG comparing runs side by side.
//!
//! Three panels share one x axis, one bar group per run (strategy @ display):
//! judder (ms), double updates and skipped renders per 1000 refreshes, and
//! drift (speed ratio − 1, in %). A perfect run has no bars at all.

use crate::report::RunReport;

/// Why a plot could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The plotting library failed while drawing.
    #[error("cannot draw a plot: {0}")]
    Draw(String),
    /// The SVG file could not be written.
    #[error("cannot write plot '{}': {message}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl PlotError {
    /// A drawing failure of the plotting library.
    pub(crate) fn draw(e: impl std::fmt::Display) -> PlotError {
        PlotError::Draw(e.to_string())
    }
}
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// Per-mille of refreshes, so runs of different lengths compare.
fn per_mille(count: u64, vsyncs: u64) -> f64 {
    if vsyncs == 0 { 0.0 } else { count as f64 * 1000.0 / vsyncs as f64 }
}

/// A finite value for a bar (NaN, undefined, draws as 0).
fn finite(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// One panel: bars sit at x = 0, 1, …, n − 1; the run labels are drawn by [`label_runs`].
fn panel<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
    y_desc: &str,
    n: usize,
    (lo, hi): (f64, f64),
) -> Result<Chart<'a, 'b>, PlotError> {
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(LABEL_AREA)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), lo..hi)
        .map_err(PlotError::draw)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(WHITE)
        .bold_line_style(BLACK.mix(0.15))
        .x_labels(0)
        .y_desc(y_desc)
        .draw()
        .map_err(PlotError::draw)?;
    Ok(chart)
}

/// Pixels below each panel for the run labels.
const LABEL_AREA: u32 = 120;

/// Writes each run's label under its bar: hanging down, rotated, when there are many.
fn label_runs(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &Chart<'_, '_>,
    labels: &[String],
    lo: f64,
) -> Result<(), PlotError> {
    let rotate = labels.len() > 4;
    for (i, label) in labels.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64, lo));
        let style = ("sans-serif", 12).into_font();
        let style = if rotate {
            style.transform(FontTransform::Rotate90).into_text_style(root).pos(Pos::new(HPos::Left, VPos::Center))
        } else {
            style.into_text_style(root).pos(Pos::new(HPos::Center, VPos::Top))
        };
        root.draw(&Text::new(label.clone(), (x, y + 6), style)).map_err(PlotError::draw)?;
    }
    Ok(())
}

/// A bar from 0 to `v` at run `i`, covering `[i + from, i + to]`.
fn bar(i: usize, from: f64, to: f64, v: f64, color: RGBAColor) -> Rectangle<(f64, f64)> {
    Rectangle::new([(i as f64 + from, 0.0), (i as f64 + to, v)], color.filled())
}

/// Upper (and lower) axis bounds with a little headroom.
fn bounds(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let hi = values.clone().fold(0.0_f64, f64::max);
    let lo = values.fold(0.0_f64, f64::min);
    let span = hi - lo;
    if span < 1e-9 { (0.0, 1.0) } else { (if lo < 0.0 { lo - 0.1 * span } else { 0.0 }, hi + 0.1 * span) }
}

/// Writes the comparison SVG to `path`.
///
/// # Errors
/// The file cannot be written.
pub(crate) fn write_plot(path: &Path, reports: &[RunReport]) -> Result<(), PlotError> {
    let labels: Vec<String> =
        reports.iter().map(|r| format!("{} @ {}", r.strategy, crate::report::trim_number(r.refresh_hz, 3))).collect();
    let width = (160 + 70 * reports.len()).clamp(800, 4000) as u32;
    let root = SVGBackend::new(path, (width, 1200)).into_drawing_area();
    root.fill(&WHITE).map_err(PlotError::draw)?;
    let panels = root.split_evenly((3, 1));

    let judder: Vec<f64> = reports.iter().map(|r| finite(r.stats.judder_ms)).collect();
    let range = bounds(judder.iter().copied());
    let mut chart = panel(&panels[0], "judder (RMS of the per-frame motion error)", "ms", labels.len(), range)?;
    chart
        .draw_series(judder.iter().enumerate().map(|(i, &v)| bar(i, -0.4, 0.4, v, BLUE.mix(0.7))))
        .map_err(PlotError::draw)?;
    label_runs(&root, &chart, &labels, range.0)?;

    let doubles: Vec<f64> = reports.iter().map(|r| per_mille(r.double_updates, r.vsyncs)).collect();
    let skips: Vec<f64> = reports.iter().map(|r| per_mille(r.skipped_renders, r.vsyncs)).collect();
    let range = bounds(doubles.iter().chain(skips.iter()).copied());
    let caption = "double updates (red) and skipped renders (orange)";
    let mut chart = panel(&panels[1], caption, "per 1000 refreshes", labels.len(), range)?;
    chart
        .draw_series(doubles.iter().enumerate().map(|(i, &v)| bar(i, -0.4, 0.0, v, RED.mix(0.8))))
        .map_err(PlotError::draw)?;
    chart
        .draw_series(skips.iter().enumerate().map(|(i, &v)| bar(i, 0.0, 0.4, v, RGBColor(230, 140, 0).mix(0.8))))
        .map_err(PlotError::draw)?;
    label_runs(&root, &chart, &labels, range.0)?;

    let drift: Vec<f64> = reports.iter().map(|r| finite((r.stats.speed_ratio - 1.0) * 100.0)).collect();
    let range = bounds(drift.iter().copied());
    let mut chart = panel(&panels[2], "drift (game speed - real speed)", "%", labels.len(), range)?;
    chart
        .draw_series(drift.iter().enumerate().map(|(i, &v)| bar(i, -0.4, 0.4, v, GREEN.mix(0.7))))
        .map_err(PlotError::draw)?;
    label_runs(&root, &chart, &labels, range.0)?;

    root.present().map_err(|e| PlotError::Write { path: path.to_owned(), message: e.to_string() })
}
