//! The report card's plots as inline SVG strings (plotters' SVG backend).
//!
//! Three kinds: a present-interval histogram, a frame-time trace, and
//! horizontal bars per strategy for judder, hitches per minute and latency
//! (one panel each, one bar per series, an optional marker per bar for the
//! simulator's prediction). Each function returns one `<svg>` element ready
//! to paste into HTML: no size attributes (the page's CSS scales it), no
//! namespace URL (inline SVG in HTML needs none, and the page then holds no
//! `http` reference at all).
//!
//! A bar axis ends at three times the 75th percentile of its values, so one
//! absurd figure (lockstep's speed at 144 Hz) does not flatten every other
//! bar; a bar past the end is drawn to the edge with its value written on it.

use super::judge::Metric;
use super::markup::escape;
use super::schema::{FrameTrace, IntervalStats};
use crate::report::trim_number;
use crate::run_chart::PlotError;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Text colour.
pub(crate) const INK: RGBColor = RGBColor(31, 41, 55);
/// Grid lines.
const GRID: RGBColor = RGBColor(229, 231, 235);
/// Axis lines.
const AXIS: RGBColor = RGBColor(156, 163, 175);
/// The refresh period's reference line.
pub(crate) const REFERENCE: RGBColor = RGBColor(220, 38, 38);
/// Measured bars (report.html).
pub(crate) const MEASURED: RGBColor = RGBColor(37, 99, 235);
/// Predicted bars (report.html).
pub(crate) const PREDICTED: RGBColor = RGBColor(245, 158, 11);
/// Series colours for `compare` (Tableau 10, readable with the common colour-vision deficiencies).
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(89, 161, 79),
    RGBColor(225, 87, 89),
    RGBColor(176, 122, 161),
    RGBColor(118, 183, 178),
    RGBColor(237, 201, 72),
    RGBColor(156, 117, 95),
];

const FONT: &str = "sans-serif";

/// Width of every plot, px (the page is 1100 px wide; the SVG scales down with it).
pub(crate) const WIDTH: u32 = 1060;

fn err(e: impl std::fmt::Display) -> PlotError {
    PlotError::draw(e)
}

/// The backend's document as an inline `<svg>`: no width/height (CSS sizes it), no namespace URL.
fn inline(svg: &str, label: &str) -> String {
    let Some(open_end) = svg.find('>') else { return svg.to_owned() };
    let view_box =
        svg[..open_end].split("viewBox=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or("0 0 100 100");
    format!(
        "<svg class=\"plot\" viewBox=\"{view_box}\" role=\"img\" aria-label=\"{}\">{}",
        escape(label),
        &svg[open_end + 1..]
    )
}

fn text_style(size: u32, color: &'static RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).color(color).pos(Pos::new(h, v))
}

/// A histogram of present intervals, with the refresh period marked.
///
/// # Errors
/// Only if plotters fails to draw (it does not on a string backend).
pub(crate) fn histogram_svg(stats: &IntervalStats, refresh_hz: Option<f64>, label: &str) -> Result<String, PlotError> {
    let h = &stats.histogram;
    let bins = h.counts.len().max(1) as f64;
    let x_end = h.start_ms + bins * h.bin_ms;
    let y_max = h.counts.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.12;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (520, 250)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(38)
            .y_label_area_size(48)
            .build_cartesian_2d(h.start_ms..x_end, 0.0..y_max)
            .map_err(err)?;
        let fmt_x = |v: &f64| trim_number(*v, 2);
        let fmt_y = |v: &f64| format!("{v:.0}");
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .axis_style(AXIS)
            .x_labels(8)
            .y_labels(5)
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .x_desc("present interval (ms)")
            .y_desc("presents")
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_desc_style((FONT, 12).into_font().color(&INK))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(h.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(k, &c)| {
                let x0 = h.start_ms + k as f64 * h.bin_ms;
                Rectangle::new([(x0, 0.0), (x0 + h.bin_ms, c as f64)], MEASURED.filled())
            }))
            .map_err(err)?;
        if let Some(period) = refresh_hz.filter(|hz| *hz > 0.0).map(|hz| 1000.0 / hz)
            && (h.start_ms..=x_end).contains(&period)
        {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    [(period, 0.0), (period, y_max)],
                    REFERENCE.stroke_width(1),
                )))
                .map_err(err)?;
            let (px, py) = chart.backend_coord(&(period, y_max));
            let right_half = period > h.start_ms + (x_end - h.start_ms) * 0.6;
            let (hpos, dx) = if right_half { (HPos::Right, -4) } else { (HPos::Left, 4) };
            root.draw(&Text::new(
                format!("refresh period {} ms", trim_number(period, 2)),
                (px + dx, py + 2),
                text_style(12, &REFERENCE, hpos, VPos::Top),
            ))
            .map_err(err)?;
        }
        if h.above > 0 {
            let (px, py) = chart.backend_coord(&(x_end, y_max));
            root.draw(&Text::new(
                format!("+{} past {} ms", h.above, trim_number(x_end, 1)),
                (px - 4, py + 18),
                text_style(12, &INK, HPos::Right, VPos::Top),
            ))
            .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(inline(&buf, label))
}

/// Display intervals frame by frame, with the refresh period as a reference line.
///
/// # Errors
/// Only if plotters fails to draw.
pub(crate) fn trace_svg(trace: &FrameTrace, refresh_hz: Option<f64>, label: &str) -> Result<String, PlotError> {
    let period = refresh_hz.filter(|hz| *hz > 0.0).map(|hz| 1000.0 / hz);
    let max = trace.intervals_ms.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
    let y_max = (max.max(period.unwrap_or(0.0) * 2.0) * 1.1).max(1.0);
    let n = trace.intervals_ms.len().max(2) as f64;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, 260)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(10)
            .margin_right(20)
            .x_label_area_size(38)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..(n - 1.0), 0.0..y_max)
            .map_err(err)?;
        let fmt_x = |v: &f64| format!("{v:.0}");
        let fmt_y = |v: &f64| trim_number(*v, 1);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .axis_style(AXIS)
            .x_labels(12)
            .y_labels(6)
            .x_label_formatter(&fmt_x)
            .y_label_formatter(&fmt_y)
            .x_desc("frame")
            .y_desc("display interval (ms)")
            .label_style((FONT, 12).into_font().color(&INK))
            .axis_desc_style((FONT, 12).into_font().color(&INK))
            .draw()
            .map_err(err)?;
        if let Some(p) = period {
            chart
                .draw_series(std::iter::once(PathElement::new([(0.0, p), (n - 1.0, p)], REFERENCE.stroke_width(1))))
                .map_err(err)?;
            let (px, py) = chart.backend_coord(&(n - 1.0, p));
            root.draw(&Text::new(
                format!("refresh period {} ms", trim_number(p, 2)),
                (px - 4, py - 4),
                text_style(12, &REFERENCE, HPos::Right, VPos::Bottom),
            ))
            .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(
                trace.intervals_ms.iter().enumerate().map(|(i, &v)| (i as f64, v)),
                MEASURED.stroke_width(1),
            ))
            .map_err(err)?;
        chart
            .draw_series(
                trace.intervals_ms.iter().enumerate().map(|(i, &v)| Circle::new((i as f64, v), 2, MEASURED.filled())),
            )
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(inline(&buf, label))
}

/// One series of bars: a colour, a name and, per row, the three metrics'
/// values (in [`Metric::ALL`] order) and optional prediction markers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BarSeries {
    /// Legend name.
    pub(crate) name: String,
    /// Bar colour.
    pub(crate) color: RGBColor,
    /// Per row: judder, hitches/min, latency.
    pub(crate) values: Vec<[Option<f64>; 3]>,
    /// Per row: the predicted values, drawn as a black tick on the bar; empty for none.
    pub(crate) markers: Vec<[Option<f64>; 3]>,
}

/// Bars per strategy (rows) and series, one panel per metric.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BarChart {
    /// Row names (strategies), top to bottom.
    pub(crate) rows: Vec<String>,
    /// The series, drawn top to bottom within each row.
    pub(crate) series: Vec<BarSeries>,
    /// The marker's legend entry (`simulator's prediction`), if any series has markers.
    pub(crate) marker_name: Option<String>,
}

/// The axis bounds for a panel: from the smallest to the largest value
/// (always including 0), each side capped at three times the 75th
/// percentile of the values' sizes.
fn bar_axis(values: &[f64]) -> (f64, f64) {
    let mut sizes: Vec<f64> = values.iter().map(|v| v.abs()).filter(|v| *v > 0.0).collect();
    if sizes.is_empty() {
        return (0.0, 1.0);
    }
    sizes.sort_by(f64::total_cmp);
    let q = sizes[(sizes.len() * 3 / 4).min(sizes.len() - 1)];
    let cap = (3.0 * q).max(sizes[0]);
    let hi = values.iter().copied().fold(0.0, f64::max).min(cap);
    let lo = values.iter().copied().fold(0.0, f64::min).max(-cap);
    let pad = 0.08 * (hi - lo).max(1e-9);
    (if lo < 0.0 { lo - pad } else { 0.0 }, if hi > 0.0 { hi + pad } else { 1.0 })
}

/// Pixel height of one row for `series` bars.
fn row_height(series: usize) -> u32 {
    (12 + 14 * series as u32).max(26)
}

/// Pixel widths and heights of the bar chart's parts.
const BAR_NAMES: u32 = 120;
const BAR_AXIS_AREA: u32 = 34;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type BarPanel<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws the chart.
///
/// # Errors
/// Only if plotters fails to draw.
pub(crate) fn bars_svg(chart: &BarChart, label: &str) -> Result<String, PlotError> {
    const LEGEND: u32 = 34;
    const CAPTION: u32 = 24;
    let n = chart.rows.len();
    let k = chart.series.len().max(1);
    let height = LEGEND + CAPTION + BAR_AXIS_AREA + 16 + row_height(k) * n.max(1) as u32;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (legend, body) = root.split_vertically(LEGEND);
        draw_legend(&legend, chart)?;
        let (names, panels) = body.split_horizontally(BAR_NAMES);
        let panels = panels.split_evenly((1, 3));
        for (m, (metric, area)) in Metric::ALL.iter().zip(&panels).enumerate() {
            bar_panel(chart, m, *metric, area, (m == 0).then_some(&names))?;
        }
        root.present().map_err(err)?;
    }
    Ok(inline(&buf, label))
}

/// One metric's panel: every series' bars and markers per row, and the row
/// names into `names` when given (the first panel).
fn bar_panel(
    chart: &BarChart,
    m: usize,
    metric: Metric,
    area: &Area<'_>,
    names: Option<&Area<'_>>,
) -> Result<(), PlotError> {
    let n = chart.rows.len();
    let mut all: Vec<f64> = Vec::new();
    for s in &chart.series {
        all.extend(s.values.iter().filter_map(|v| v[m]));
        all.extend(s.markers.iter().filter_map(|v| v[m]));
    }
    let (lo, hi) = bar_axis(&all);
    let mut c = ChartBuilder::on(area)
        .margin_left(6)
        .margin_right(18)
        .margin_bottom(8)
        .caption(metric.label(), (FONT, 15).into_font().color(&INK))
        .x_label_area_size(BAR_AXIS_AREA)
        .build_cartesian_2d(lo..hi, -0.5..(n.max(1) as f64 - 0.5))
        .map_err(err)?;
    let fmt_x = |v: &f64| trim_number(*v, 2);
    c.configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .axis_style(AXIS)
        .x_labels(5)
        .x_label_formatter(&fmt_x)
        .label_style((FONT, 12).into_font().color(&INK))
        .draw()
        .map_err(err)?;
    if all.is_empty() {
        let at = c.backend_coord(&((lo + hi) / 2.0, (n as f64 - 1.0) / 2.0));
        draw_text(area, "not measured", at, text_style(13, &AXIS, HPos::Center, VPos::Center))?;
    }
    // Row i sits at y = n − 1 − i, so the first row is on top.
    let band = 0.8 / chart.series.len().max(1) as f64;
    for (j, s) in chart.series.iter().enumerate() {
        for (i, row) in s.values.iter().enumerate().take(n) {
            let top = (n - 1 - i) as f64 + 0.4 - j as f64 * band;
            let bottom = top - band * 0.86;
            draw_bar(&mut c, area, (lo, hi), metric, s.color, row[m], (bottom, top), !all.is_empty())?;
            if let Some(p) = s.markers.get(i).and_then(|mk| mk[m]).filter(|p| (lo..=hi).contains(p)) {
                c.draw_series(std::iter::once(PathElement::new(
                    [(p, bottom - band * 0.1), (p, top + band * 0.1)],
                    BLACK.stroke_width(3),
                )))
                .map_err(err)?;
            }
        }
    }
    if let Some(names) = names {
        for (i, name) in chart.rows.iter().enumerate() {
            let (_, py) = c.backend_coord(&(lo, (n - 1 - i) as f64));
            let x = BAR_NAMES as i32 - 8 + names.get_base_pixel().0;
            draw_text(names, name, (x, py), text_style(13, &INK, HPos::Right, VPos::Center))?;
        }
    }
    Ok(())
}

/// One bar from 0 to `value` between `bottom` and `top`, clamped to the axis
/// with its true value written on it; `n/a` where a value is missing among measured ones.
#[expect(clippy::too_many_arguments, reason = "one bar's geometry and data, drawn in place")]
fn draw_bar(
    c: &mut BarPanel<'_, '_>,
    area: &Area<'_>,
    (lo, hi): (f64, f64),
    metric: Metric,
    color: RGBColor,
    value: Option<f64>,
    (bottom, top): (f64, f64),
    measured: bool,
) -> Result<(), PlotError> {
    match value {
        Some(v) => {
            let shown = v.clamp(lo, hi);
            c.draw_series(std::iter::once(Rectangle::new([(0.0, bottom), (shown, top)], color.filled())))
                .map_err(err)?;
            if shown != v {
                let (px, py) = c.backend_coord(&(shown, (top + bottom) / 2.0));
                let (hpos, dx) = if v > 0.0 { (HPos::Right, -3) } else { (HPos::Left, 3) };
                let text = format!("{} ▸", metric.format(Some(v)));
                draw_text(area, &text, (px + dx, py), text_style(11, &WHITE, hpos, VPos::Center))?;
            }
        }
        None if measured => {
            let (px, py) = c.backend_coord(&(0.0, (top + bottom) / 2.0));
            draw_text(area, "n/a", (px + 3, py), text_style(11, &AXIS, HPos::Left, VPos::Center))?;
        }
        None => {}
    }
    Ok(())
}

/// Text at backend pixel `(x, y)`, drawn into `area` (whose own origin is subtracted).
fn draw_text(area: &Area<'_>, text: &str, (x, y): (i32, i32), style: TextStyle<'_>) -> Result<(), PlotError> {
    let (bx, by) = area.get_base_pixel();
    area.draw(&Text::new(text.to_owned(), (x - bx, y - by), style)).map_err(err)
}

fn draw_legend(area: &DrawingArea<SVGBackend<'_>, Shift>, chart: &BarChart) -> Result<(), PlotError> {
    let mut x = 120;
    let y = 17;
    for s in &chart.series {
        area.draw(&Rectangle::new([(x, y - 6), (x + 14, y + 6)], s.color.filled())).map_err(err)?;
        area.draw(&Text::new(s.name.clone(), (x + 20, y), text_style(13, &INK, HPos::Left, VPos::Center)))
            .map_err(err)?;
        x += 40 + (s.name.chars().count() as i32) * 7;
    }
    if let Some(name) = &chart.marker_name {
        area.draw(&PathElement::new([(x + 6, y - 8), (x + 6, y + 8)], BLACK.stroke_width(3))).map_err(err)?;
        area.draw(&Text::new(name.clone(), (x + 16, y), text_style(13, &INK, HPos::Left, VPos::Center)))
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_absurd_value_does_not_set_the_axis() {
        let (lo, hi) = bar_axis(&[0.2, 0.3, 0.4, 0.5, 7000.0]);
        assert_eq!(lo, 0.0);
        // 75th percentile of five sizes is the fourth, 0.5: the axis ends at 1.5 plus 8 % padding.
        assert!((hi - 1.5 * 1.08).abs() < 1e-12, "{hi}");
    }

    #[test]
    fn negative_values_extend_the_axis_below_zero() {
        let (lo, hi) = bar_axis(&[-2.0, 1.0, 1.0, 1.0]);
        assert!(lo < -2.0 && hi > 1.0, "{lo} {hi}");
    }

    #[test]
    fn the_inline_svg_has_no_namespace_url_and_no_fixed_size() {
        let svg = inline(
            "<svg width=\"10\" height=\"5\" viewBox=\"0 0 10 5\" xmlns=\"http://www.w3.org/2000/svg\">\n<rect/></svg>",
            "a & b",
        );
        assert_eq!(
            svg,
            "<svg class=\"plot\" viewBox=\"0 0 10 5\" role=\"img\" aria-label=\"a &amp; b\">\n<rect/></svg>"
        );
    }
}
