//! The frame-time plot and the present-interval histogram beside it: the last seconds of frame
//! intervals against the refresh and tick periods, and how presents have been spaced since the
//! last change.
//!
//! ```text
//!   frame time (ms), last 5 s  max 33.4  — refresh 16.68  - - tick 16.67
//!   ┌─────────────────────────────────────┐ ┌─────┐
//!   │      /\        frame intervals      │ │██   │ ◄ one bar per 0.25 ms bin,
//!   │──────────────── refresh period ─────│ │█████│   length ∝ log(count)
//!   │- - - - - - - -  tick period  - - - -│ │     │
//!   └─────────────────────────────────────┘ └─────┘
//!   present interval mean 16.68 · σ 0.42 · p99 17.10 ms
//! ```

use std::time::Duration;

use egui::{Color32, Ui};
use egui_plot::{GridInput, GridMark, HLine, Line, LineStyle, Plot, PlotPoint, PlotPoints};

use super::style::{BAD, FRAME_LINE, LABEL, PANEL_WIDTH, REFRESH_LINE, TICK_LINE, caption};
use crate::hud_data::HudData;
use crate::metrics::{FrameStats, PRESENT_BIN_NS, PresentHistogram};
use crate::report::Field;
use crate::report::registry::{PRESENT_INTERVAL_MEAN_MS, PRESENT_INTERVAL_P99_MS, PRESENT_INTERVAL_STD_MS};

/// Height of the frame-time plot, in points.
const PLOT_HEIGHT: f32 = 110.0;
/// Width of the present-interval histogram beside the frame-time plot, in points.
const HISTOGRAM_WIDTH: f32 = 48.0;

/// The frame-time plot with its caption line, the histogram at its right and the present
/// pacing line under it; `points` is reused across frames.
pub(super) fn frame_time_plot(ui: &mut Ui, hud: &HudData, points: &mut Vec<PlotPoint>) {
    let ring = &hud.figures.frame_times_ms;
    points.clear();
    let mut age = Duration::ZERO;
    for interval in ring.iter().rev() {
        points.push(PlotPoint::new(-age.as_secs_f64(), interval.as_secs_f64() * 1e3));
        age += interval;
    }
    let window_s = ring.window().as_secs_f64();
    let refresh_ms = hud
        .figures
        .present_cadence_hz
        .or(hud.figures.emulated_refresh_hz)
        .or(hud.figures.reported_refresh_hz)
        .and_then(period_ms);
    let tick_ms = period_ms(hud.figures.tick_rate_hz);
    let max_ms = points.iter().map(|p| p.y).fold(0.0, f64::max);

    ui.horizontal(|ui| {
        ui.label(caption(format!("frame time (ms), last {window_s:.0} s"), LABEL));
        ui.label(caption(format!("max {max_ms:.1}"), FRAME_LINE).monospace());
        if let Some(ms) = refresh_ms {
            ui.label(caption(format!("— refresh {ms:.2}"), REFRESH_LINE).monospace());
        }
        if let Some(ms) = tick_ms {
            ui.label(caption(format!("- - tick {ms:.2}"), TICK_LINE).monospace());
        }
    });

    let top = [max_ms, refresh_ms.unwrap_or(0.0), tick_ms.unwrap_or(0.0)].into_iter().fold(1.0, f64::max) * 1.15;
    let points: &[PlotPoint] = points;
    ui.horizontal(|ui| {
        Plot::new("overlay_frame_times")
            .height(PLOT_HEIGHT)
            .width(PANEL_WIDTH - HISTOGRAM_WIDTH - ui.spacing().item_spacing.x)
            .include_x(-window_s)
            .include_x(0.0)
            .include_y(0.0)
            .include_y(top)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .show_x(false)
            .x_axis_formatter(|mark, _| format!("{:.0}s", mark.value))
            .y_grid_spacer(y_grid_marks)
            .y_axis_formatter(|mark, _| format!("{:.0}", mark.value))
            .show(ui, |plot| {
                if let Some(ms) = refresh_ms {
                    plot.hline(HLine::new("refresh period", ms).color(REFRESH_LINE).width(1.0));
                }
                if let Some(ms) = tick_ms {
                    plot.hline(
                        HLine::new("tick period", ms)
                            .color(TICK_LINE)
                            .width(1.0)
                            .style(LineStyle::Dashed { length: 6.0 }),
                    );
                }
                plot.line(Line::new("frame interval (ms)", PlotPoints::Borrowed(points)).color(FRAME_LINE).width(1.5));
            });
        present_histogram(ui, &hud.figures.present_histogram, top);
    });
    ui.label(caption(present_interval_line(&hud.figures.stats), LABEL).monospace()).on_hover_text(
        "time between presents since the last change: mean, standard deviation, 99th percentile; \
         the bars right of the plot are its histogram",
    );
}

/// Three or four labelled y marks at a round step: egui_plot's default spacer leaves a plot this
/// short with a single label.
fn y_grid_marks(input: GridInput) -> Vec<GridMark> {
    let (low, high) = input.bounds;
    if !(low.is_finite() && high.is_finite() && high > low) {
        return Vec::new();
    }
    let step = round_step((high - low) / 4.0);
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last).map(|k| GridMark { value: k as f64 * step, step_size: step }).collect()
}

/// The smallest 1, 2 or 5 × 10ⁿ at least `raw` (1 for nonsense).
fn round_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let mantissa = raw / magnitude;
    let round = if mantissa <= 1.0 {
        1.0
    } else if mantissa <= 2.0 {
        2.0
    } else if mantissa <= 5.0 {
        5.0
    } else {
        10.0
    };
    round * magnitude
}

/// The present pacing under the frame-time plot: `present_interval_mean_ms`,
/// `_std_ms` and `_p99_ms` since the setting last changed, with the registry's decimals.
pub fn present_interval_line(s: &FrameStats) -> String {
    let shown = |field: &Field| match field.stat(s).filter(|v| v.is_finite()) {
        Some(v) => field.number(v),
        None => "—".to_owned(),
    };
    format!(
        "present interval mean {} · σ {} · p99 {}",
        shown(&PRESENT_INTERVAL_MEAN_MS),
        shown(&PRESENT_INTERVAL_STD_MS),
        PRESENT_INTERVAL_P99_MS.with_unit(&shown(&PRESENT_INTERVAL_P99_MS))
    )
}

/// The present-interval histogram beside the frame-time plot: intervals on
/// the plot's y axis (0 to `top` ms), one 0.25 ms bin per row, bar length
/// on a log scale so that a single hitch among thousands of frames shows.
fn present_histogram(ui: &mut Ui, histogram: &PresentHistogram, top: f64) {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(HISTOGRAM_WIDTH, PLOT_HEIGHT), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_white_alpha(6));
    let bins = histogram.bins();
    let most = bins.iter().copied().max().unwrap_or(0).max(histogram.overflow());
    if most == 0 || !top.is_finite() || top <= 0.0 {
        return;
    }
    let scale = (1.0 + most as f64).ln();
    let bin_ms = PRESENT_BIN_NS as f64 / 1e6;
    let y_of = |ms: f64| rect.bottom() - (ms / top).clamp(0.0, 1.0) as f32 * rect.height();
    let bar = |low: f64, high: f64, count: u64, color: Color32| {
        let length = ((1.0 + count as f64).ln() / scale) as f32 * rect.width();
        let (y0, y1) = (y_of(high), y_of(low));
        // At least 2 px each way, so a single 0.25 ms bin of one interval shows.
        let bar = egui::Rect::from_min_max(
            egui::pos2(rect.left(), y0.min(y1 - 2.0)),
            egui::pos2(rect.left() + length.max(2.0), y1),
        );
        painter.rect_filled(bar, 0.0, color);
    };
    for (i, &count) in bins.iter().enumerate().filter(|&(_, &c)| c > 0) {
        // Intervals above the plot's range (older than its 5 s) sit at its top edge.
        let low = (i as f64 * bin_ms).min(top - bin_ms);
        bar(low, low + bin_ms, count, FRAME_LINE);
    }
    if histogram.overflow() > 0 {
        // Intervals of 50 ms or more: one bar at the top edge.
        bar(top - bin_ms, top, histogram.overflow(), BAD);
    }
    response.on_hover_text("present intervals since the last change: length ∝ log(count)");
}

/// Period in ms of a positive, finite rate.
fn period_ms(rate_hz: f64) -> Option<f64> {
    (rate_hz.is_finite() && rate_hz > 0.0).then(|| 1e3 / rate_hz)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn y_marks_are_a_few_round_steps() {
        assert_eq!(round_step(19.2), 20.0);
        assert_eq!(round_step(3.0), 5.0);
        assert_eq!(round_step(0.7), 1.0);
        assert_eq!(round_step(f64::NAN), 1.0);
        let marks = y_grid_marks(GridInput { bounds: (-2.0, 57.5), base_step_size: 0.1 });
        let values: Vec<f64> = marks.iter().map(|m| m.value).collect();
        assert_eq!(values, [0.0, 20.0, 40.0], "frame times up to 57.5 ms get marks every 20 ms");
        assert!(y_grid_marks(GridInput { bounds: (f64::NEG_INFINITY, 1.0), base_step_size: 0.1 }).is_empty());
    }

    #[test]
    fn period_of_a_rate_ignores_zero_and_nonsense() {
        assert_eq!(period_ms(50.0), Some(20.0));
        assert_eq!(period_ms(0.0), None);
        assert_eq!(period_ms(f64::NAN), None);
    }
}
