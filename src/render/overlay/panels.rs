//! The overlay's panels: the stats panel with its sections, the compact line for small windows
//! and the F1 key table.
//!
//! Two layouts, chosen by the window's size in points ([`PanelLayout::for_screen`]):
//!
//! ```text
//!   ≥ 448 × 680 pt: Full                      smaller (down to 320 × 240 px): Compact
//!   ┌───────────────────┐                     ┌──────────────────────────────┐
//!   │ strategy, source  │                     │ catch-up @ 60.00 Hz          │
//!   │ present, monitor… │                     │ FPS 59.9 · UPS 60.0 · judder │
//!   │ frame-time plot   │                     │ 1111111111 1111121111 1111…  │
//!   │ pattern, 120      │                     │ F1 help · H hide             │
//!   │ metrics grid      │                     └──────────────────────────────┘
//!   │ F1 help · H hide  │
//!   └───────────────────┘
//! ```
//!
//! F1 opens the key table in the top-right corner, in as many columns as the window's height
//! needs: beside the stats panel where there is room, over it where there is not.

use egui::{Align2, Color32, FontId, RichText, Ui};
use egui_plot::PlotPoint;

use super::frame_plots::frame_time_plot;
use super::pattern_strip::{PatternShape, pattern_label, pattern_section};
use super::style::{
    ACCENT, BAD, CAPTION_SIZE, COMPACT_PADDING, DIM, GOOD, LABEL, MARGIN, PANEL_PADDING, PANEL_WIDTH, VALUE, WARN,
    caption, count_color, hz, key, opt_hz, or_dash, panel_frame, value,
};
use crate::hud_data::HudData;
use crate::metrics::FrameStats;
use crate::report::Field;
use crate::report::registry::{
    DRIFT_MS_PER_MIN, HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS, LATENCY_P95_MS, MAX_HITCH_MS, STARTUP_MS,
};

/// Judder below which the number turns green: a quarter of a 120 Hz refresh period. A colour
/// cue for "small", not a perceptual threshold.
const JUDDER_SMOOTH_MS: f64 = 2.0;
/// Drift from which the number turns to a warning: a second an hour.
const DRIFT_VISIBLE_MS_PER_MIN: f64 = 1000.0 / 60.0;
/// The smallest window, in points, that gets the full panel. The full panel with the busiest HUD
/// (`tests/render/overlay.rs`) measures 422 × 663 points (with the present-interval line); with the margins and room for a
/// summary that wraps onto a second line, 448 × 680. A 1280 × 720 window gets it.
pub const FULL_MIN_POINTS: [f32; 2] = [448.0, 680.0];
/// Compact panels at least this tall (points) show three lines of pattern, smaller ones one.
const COMPACT_TALL_POINTS: f32 = 300.0;
/// Text size of the help table in the full layout, in points.
const HELP_SIZE: f32 = 14.0;
/// The narrowest key table worth putting beside the stats panel, in points; in less room it
/// goes over the panel.
const HELP_MIN_WIDTH: f32 = 320.0;

/// Which layout the overlay uses; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PanelLayout {
    /// The whole panel: strategy, display, plot, pattern, metrics.
    Full,
    /// A few lines: strategy, FPS, judder, the pattern, the F1 hint.
    Compact,
}

impl PanelLayout {
    /// [`PanelLayout::Full`] when a `size_points` window holds [`FULL_MIN_POINTS`], else compact.
    pub fn for_screen(size_points: [f32; 2]) -> PanelLayout {
        if size_points[0] >= FULL_MIN_POINTS[0] && size_points[1] >= FULL_MIN_POINTS[1] {
            PanelLayout::Full
        } else {
            PanelLayout::Compact
        }
    }
}

/// The fixed, top-left area a panel is drawn in.
fn top_left_area(id: &'static str) -> egui::Area {
    egui::Area::new(egui::Id::unique(id))
        .anchor(Align2::LEFT_TOP, egui::vec2(MARGIN, MARGIN))
        .movable(false)
        // Shown at once: a fresh overlay (the screenshot's) must not be caught half faded in.
        .fade_in(false)
        .order(egui::Order::Foreground)
}

/// The main panel, top-left; returns its rectangle in points.
pub(super) fn stats_panel(ctx: &egui::Context, hud: &HudData, points: &mut Vec<PlotPoint>) -> egui::Rect {
    top_left_area("timestep_lab_overlay")
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            panel_frame(PANEL_PADDING).show(ui, |ui| {
                ui.set_width(PANEL_WIDTH);
                strategy_section(ui, hud);
                notes(ui, hud);
                ui.separator();
                display_section(ui, hud);
                ui.separator();
                frame_time_plot(ui, hud, points);
                pattern_section(ui, hud);
                ui.separator();
                metrics_section(ui, hud);
                ui.add_space(2.0);
                ui.label(caption("F1 help · H hide", DIM));
            });
        })
        .response
        .rect
}

/// The compact panel for small windows, top-left: strategy, rates, judder, pattern, hint, each
/// wrapping within the window. Returns its rectangle in points.
pub(super) fn compact_panel(ctx: &egui::Context, hud: &HudData, screen: egui::Rect) -> egui::Rect {
    let max_width = (screen.width() - 2.0 * MARGIN - 2.0 * COMPACT_PADDING).max(1.0);
    let pattern_lines = if screen.height() >= COMPACT_TALL_POINTS { 3 } else { 1 };
    top_left_area("timestep_lab_overlay_compact")
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            panel_frame(COMPACT_PADDING).show(ui, |ui| {
                ui.set_max_width(max_width);
                ui.spacing_mut().item_spacing = egui::vec2(5.0, 1.0);
                ui.horizontal_wrapped(|ui| strategy_heading(ui, hud, 13.0));
                notes(ui, hud);
                ui.horizontal_wrapped(|ui| {
                    compact_value(ui, "FPS", format!("{:.1}", hud.figures.fps), VALUE);
                    compact_value(ui, "UPS", format!("{:.1}", hud.figures.ups), VALUE);
                    let judder = metric_color(&JUDDER_MS, &hud.figures.stats);
                    compact_value(ui, JUDDER_MS.name, JUDDER_MS.number(hud.figures.stats.judder_ms), judder);
                    compact_value(
                        ui,
                        "doubles",
                        hud.figures.double_updates.to_string(),
                        count_color(hud.figures.double_updates, BAD),
                    );
                    compact_value(
                        ui,
                        "skipped",
                        hud.figures.skipped_renders.to_string(),
                        count_color(hud.figures.skipped_renders, WARN),
                    );
                });
                let shape = PatternShape::fitting_in(ui, max_width, pattern_lines);
                pattern_label(ui, &hud.figures.pattern, shape);
                ui.label(caption("F1 help · H hide", DIM));
            });
        })
        .response
        .rect
}

/// The window's own notes (time hidden, a capped buffer, missed refreshes), one line each.
fn notes(ui: &mut Ui, hud: &HudData) {
    for note in &hud.notes {
        ui.label(caption(note, WARN));
    }
}

/// `label value` for the compact panel's wrapping line.
fn compact_value(ui: &mut Ui, label: &str, value: String, color: Color32) {
    ui.label(RichText::new(label).size(CAPTION_SIZE).color(LABEL));
    ui.label(RichText::new(value).monospace().size(12.0).color(color));
}

/// A panel egui has not seen yet is laid out invisibly to learn its size; asking for a second
/// pass (egui allows two per frame) makes it appear on the frame it is first shown.
fn redo_pass_if_sizing(ui: &Ui) {
    if ui.is_sizing_pass() {
        ui.ctx().request_discard("overlay panel sized");
    }
}

/// The strategy's name (`name_size` points) and tick rate, and whether it is paused or shows
/// ghosts.
fn strategy_heading(ui: &mut Ui, hud: &HudData, name_size: f32) {
    ui.label(RichText::new(or_dash(hud.figures.strategy_name)).monospace().size(name_size).strong().color(ACCENT));
    ui.label(RichText::new(format!("@ {}", hz(hud.figures.tick_rate_hz))).monospace().color(VALUE));
    if hud.figures.paused {
        ui.label(RichText::new("PAUSED").monospace().strong().color(WARN));
    }
    if hud.ghosts {
        ui.label(RichText::new("GHOSTS").monospace().color(ACCENT));
    }
    if let Some(text) = startup_note(&hud.figures.stats) {
        ui.label(caption(text, LABEL)).on_hover_text(STARTUP_MS.definition);
    }
}

/// The start-up beside the strategy's name, once the picture stood still at
/// the start (a loop waiting for its first tick): `startup 500.000 ms`.
pub(crate) fn startup_note(s: &FrameStats) -> Option<String> {
    let startup = STARTUP_MS.stat(s).filter(|ms| *ms > 0.0)?;
    Some(STARTUP_MS.reading(startup))
}

/// The strategy's heading, summary, seed and status.
fn strategy_section(ui: &mut Ui, hud: &HudData) {
    ui.horizontal(|ui| strategy_heading(ui, hud, 16.0));
    if !hud.figures.strategy_summary.is_empty() {
        ui.label(RichText::new(hud.figures.strategy_summary).color(VALUE));
    }
    if !hud.figures.strategy_source.is_empty() {
        ui.label(caption(format!("source: {}", hud.figures.strategy_source), LABEL));
    }
    if !hud.figures.strategy_status.is_empty() {
        ui.label(caption(&hud.figures.strategy_status, WARN));
    }
}

/// Present mode asked and got, monitor, refresh rates, emulation, the vsync verdict.
fn display_section(ui: &mut Ui, hud: &HudData) {
    egui::Grid::new("overlay_display").num_columns(2).spacing([10.0, 2.0]).show(ui, |ui| {
        key(ui, "present");
        let requested = or_dash(&hud.figures.present_mode_requested);
        let actual = or_dash(&hud.figures.present_mode_actual);
        let matches = requested.eq_ignore_ascii_case(actual) || requested.eq_ignore_ascii_case("auto");
        let color = if matches { VALUE } else { WARN };
        ui.label(RichText::new(format!("asked {requested} · got {actual}")).monospace().color(color));
        ui.end_row();

        key(ui, "monitor");
        ui.label(RichText::new(or_dash(&hud.figures.monitor_name)).monospace().color(VALUE));
        ui.end_row();

        key(ui, "refresh");
        ui.label(RichText::new(refresh_row(&hud.figures)).monospace().color(VALUE));
        ui.end_row();

        key(ui, "emulation");
        match hud.figures.emulated_refresh_hz {
            Some(rate) => {
                ui.label(RichText::new(format!("{} virtual vblank", hz(rate))).monospace().color(WARN));
            }
            None => {
                ui.label(RichText::new("off").monospace().color(DIM));
            }
        }
        ui.end_row();

        // Where D comes from: every figure below rests on it; an estimate says what it cannot see.
        key(ui, "display times");
        let source = hud.figures.display_time_source;
        let color = if source.is_estimate() { WARN } else { VALUE };
        let shown = ui.label(RichText::new(source.label()).monospace().color(color));
        if source.is_estimate() {
            shown.on_hover_text(source.blind_spot());
        }
        ui.end_row();

        // Which of the platform's sources timed the frames (copy/flip/skip counts), or why none does.
        if !hud.display_times.is_empty() {
            key(ui, "timed by");
            let color = if hud.display_times_fell_back { WARN } else { VALUE };
            ui.label(RichText::new(&hud.display_times).monospace().color(color));
            ui.end_row();
        }
    });
    if !hud.figures.vsync_verdict.is_empty() {
        ui.label(RichText::new(&hud.figures.vsync_verdict).italics().color(VALUE));
    }
}

/// The grid of figures: rates, counts, CPU, smoothness and latency, load, overlay and GPU costs.
fn metrics_section(ui: &mut Ui, hud: &HudData) {
    egui::Grid::new("overlay_metrics").num_columns(4).spacing([10.0, 2.0]).show(ui, |ui| {
        key(ui, "FPS");
        value(ui, format!("{:7.1}", hud.figures.fps), VALUE);
        key(ui, "UPS");
        value(ui, format!("{:7.1}", hud.figures.ups), VALUE);
        ui.end_row();

        key(ui, "double updates");
        value(ui, format!("{:7}", hud.figures.double_updates), count_color(hud.figures.double_updates, BAD));
        key(ui, "skipped renders");
        value(ui, format!("{:7}", hud.figures.skipped_renders), count_color(hud.figures.skipped_renders, WARN));
        ui.end_row();

        key(ui, "repeated frames");
        value(ui, format!("{:7}", hud.figures.repeated_frames), count_color(hud.figures.repeated_frames, WARN));
        key(ui, "CPU");
        match hud.cpu_percent {
            Some(p) => value(ui, format!("{p:7.1} %"), VALUE),
            None => value(ui, format!("{:>7}", "—"), DIM),
        }
        ui.end_row();

        // Named as in --stats-json and the simulate table; hovering a name shows its definition.
        for (i, row) in metric_rows(&hud.figures.stats).iter().enumerate() {
            ui.label(RichText::new(row.name).color(LABEL)).on_hover_text(row.legend);
            value(ui, row.value.clone(), metric_color(row.field, &hud.figures.stats));
            if i % 2 == 1 {
                ui.end_row();
            }
        }

        key(ui, "sprites");
        value(ui, format!("{:7}", hud.sprite_count), VALUE);
        key(ui, "load");
        value(ui, hud.load_preset.to_owned(), if hud.load_preset == "none" { VALUE } else { WARN });
        ui.end_row();

        key(ui, "ghost markers");
        value(ui, format!("{:>7}", if hud.ghosts { "on" } else { "off" }), VALUE);
        // CPU time of building, tessellating and uploading the panel; its drawing is in the
        // GPU row below (on a software adapter that is CPU work too, on llvmpipe's threads).
        key(ui, "overlay CPU");
        value(ui, format!("{:7.2} ms", hud.overlay_cost_ms), VALUE);
        ui.end_row();

        // GPU time of the two render passes, from timestamp queries, averaged over a second.
        key(ui, "GPU scene");
        gpu_value(ui, hud.gpu_timing, hud.gpu_scene_ms);
        key(ui, "GPU overlay");
        gpu_value(ui, hud.gpu_timing, hud.gpu_overlay_ms);
        ui.end_row();
    });
}

/// The overlay's figures for smoothness, speed and latency, in the order
/// drawn (two per line), each shown with its registry decimals; the present
/// pacing is the line under the frame-time plot
/// ([`present_interval_line`](super::present_interval_line)).
static METRICS: [&Field; 6] =
    [&JUDDER_MS, &HITCHES_PER_MIN, &MAX_HITCH_MS, &DRIFT_MS_PER_MIN, &LATENCY_MS, &LATENCY_P95_MS];

/// One figure of [`FrameStats`] as the overlay shows it: the report's field
/// name, the value, and the one-line definition shown on hover.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRow {
    /// The figure, from the registry.
    pub(crate) field: &'static Field,
    /// The field's name in `--stats-json`, CSV and the simulate table.
    pub name: &'static str,
    /// The value as shown (`—` while undefined).
    pub value: String,
    /// One line: what the number means (the registry's definition, as in the README).
    pub legend: &'static str,
}

/// The overlay's rows ([`METRICS`]), formatted as shown.
pub fn metric_rows(s: &FrameStats) -> [MetricRow; 6] {
    METRICS.map(|field| {
        let value = field.stat(s).unwrap_or(f64::NAN);
        MetricRow {
            field,
            name: field.name,
            value: if value.is_finite() { format!("{:>8}", field.number(value)) } else { format!("{:>8}", "—") },
            legend: field.definition,
        }
    })
}

/// Green for a smooth judder, warning colours for hitches and drift, plain otherwise.
fn metric_color(field: &Field, s: &FrameStats) -> Color32 {
    if *field == JUDDER_MS {
        if s.judder_ms < JUDDER_SMOOTH_MS { GOOD } else { WARN }
    } else if *field == HITCHES_PER_MIN || *field == MAX_HITCH_MS {
        count_color(s.hitches, BAD)
    } else if *field == DRIFT_MS_PER_MIN && s.drift_ms_per_min.abs() >= DRIFT_VISIBLE_MS_PER_MIN {
        WARN
    } else {
        VALUE
    }
}

/// A GPU pass time, `—` before the first reading, `n/a` without timestamp queries.
fn gpu_value(ui: &mut Ui, supported: bool, ms: Option<f64>) {
    match ms {
        Some(ms) => value(ui, format!("{ms:7.2} ms"), VALUE),
        None => value(ui, format!("{:>7}", if supported { "—" } else { "n/a" }), DIM),
    }
}

/// The F1 key table, top-right: beside the stats panel where there is room, over it where there
/// is not; in as many columns as the window's height needs. Actions too long for their column
/// are cut with `…`; the compact layout shows each action only up to its first `": "` (the help
/// texts read `short: long`). Returns the table's rectangle in points.
pub(super) fn help_panel(
    ctx: &egui::Context,
    hud: &HudData,
    layout: PanelLayout,
    screen: egui::Rect,
    panel: egui::Rect,
) -> egui::Rect {
    const ROW_GAP: f32 = 2.0;
    const COLUMN_GAP: f32 = 12.0;
    let (size, padding) = match layout {
        PanelLayout::Full => (HELP_SIZE, PANEL_PADDING),
        PanelLayout::Compact => (CAPTION_SIZE, COMPACT_PADDING),
    };
    let action = |text: &'_ str| -> String {
        match layout {
            PanelLayout::Full => text.to_owned(),
            PanelLayout::Compact => text.split_once(": ").map_or(text, |(short, _)| short).to_owned(),
        }
    };
    let (key_font, text_font) = (FontId::monospace(size), FontId::proportional(size));
    let (text_row, key_width) = ctx.fonts_mut(|fonts| {
        let row = fonts.row_height(&text_font).max(fonts.row_height(&key_font));
        let widest = hud
            .help_lines
            .iter()
            .map(|(k, _)| fonts.layout_no_wrap(k.clone(), key_font.clone(), VALUE).size().x)
            .fold(0.0, f32::max);
        (row, widest)
    });
    let row = text_row + ROW_GAP;
    let beside = screen.right() - panel.right() - 2.0 * MARGIN;
    let outer_width = if beside >= HELP_MIN_WIDTH { beside } else { screen.width() - 2.0 * MARGIN };
    let inner_width = (outer_width - 2.0 * padding).max(1.0);
    // The title takes one row; the keys fill columns of the rows that are left.
    let free = screen.height() - hud.reserved_bottom_points.max(0.0);
    let rows = ((free - 2.0 * (MARGIN + padding)) / row - 1.0).floor().max(1.0) as usize;
    let columns = hud.help_lines.len().div_ceil(rows).max(1);
    let column_width = (inner_width - (columns - 1) as f32 * COLUMN_GAP) / columns as f32;
    let action_width = (column_width - key_width - COLUMN_GAP).max(1.0);
    egui::Area::new(egui::Id::unique("timestep_lab_help"))
        .anchor(Align2::RIGHT_TOP, egui::vec2(-MARGIN, MARGIN))
        .movable(false)
        // Shown at once: a fresh overlay (the screenshot's) must not be caught half faded in.
        .fade_in(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            panel_frame(padding).show(ui, |ui| {
                ui.set_max_width(inner_width);
                ui.spacing_mut().item_spacing.y = ROW_GAP;
                ui.label(RichText::new("Keys").strong().size(size).color(ACCENT));
                ui.horizontal_top(|ui| {
                    ui.spacing_mut().item_spacing.x = COLUMN_GAP;
                    for (column, lines) in hud.help_lines.chunks(rows).enumerate() {
                        egui::Grid::new(("overlay_help", column))
                            .num_columns(2)
                            .spacing([COLUMN_GAP, ROW_GAP])
                            .min_row_height(text_row)
                            .min_col_width(0.0)
                            .max_col_width(action_width.max(key_width))
                            .show(ui, |ui| {
                                for (k, text) in lines {
                                    ui.label(RichText::new(k).font(key_font.clone()).strong().color(VALUE));
                                    ui.label(RichText::new(action(text)).font(text_font.clone()).color(VALUE));
                                    ui.end_row();
                                }
                            });
                    }
                });
            });
        })
        .response
        .rect
}

/// The refresh row: what the monitor reports and the cadence its presents
/// were measured at, each where known; "not yet measured" once when neither is.
fn refresh_row(figures: &crate::hud_data::LoopFigures) -> String {
    let known = |hz: Option<f64>| hz.filter(|hz| hz.is_finite() && *hz > 0.0);
    match (known(figures.reported_refresh_hz), known(figures.present_cadence_hz)) {
        // The present cadence is how often frames were shown, not the panel's
        // refresh (49.4 under Weston's 60 Hz output): it says so.
        (Some(r), Some(m)) => format!("{} reported · frames at {}", opt_hz(Some(r)), opt_hz(Some(m))),
        (Some(r), None) => format!("{} reported", opt_hz(Some(r))),
        (None, Some(m)) => format!("frames at {}", opt_hz(Some(m))),
        (None, None) => opt_hz(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hud_data::LoopFigures;

    #[test]
    fn the_refresh_row_says_not_yet_measured_once_and_never_nan() {
        let row = |reported, measured| {
            refresh_row(&LoopFigures {
                reported_refresh_hz: reported,
                present_cadence_hz: measured,
                ..LoopFigures::default()
            })
        };
        assert_eq!(row(None, None), "not yet measured");
        assert_eq!(row(Some(f64::NAN), Some(f64::INFINITY)), "not yet measured");
        assert_eq!(row(Some(60.0), None), "60.00 Hz reported");
        assert_eq!(row(None, Some(59.94)), "frames at 59.94 Hz");
        assert_eq!(row(Some(60.0), Some(49.4)), "60.00 Hz reported · frames at 49.40 Hz");
    }

    #[test]
    fn the_heading_notes_a_start_up_only_when_the_picture_stood_still() {
        let stats = |startup_ms| FrameStats { startup_ms, ..FrameStats::EMPTY };
        assert_eq!(startup_note(&stats(500.0)).as_deref(), Some("startup 500.000 ms"));
        assert_eq!(startup_note(&stats(0.0)), None, "it moved from the second frame");
        assert_eq!(startup_note(&stats(f64::NAN)), None, "no frames yet");
    }
    use crate::render::overlay::style::new_context;

    /// Every piece of text one frame of the overlay lays out at `size` points, with where it is.
    fn texts_at(hud: &HudData, size: [f32; 2]) -> Vec<(String, egui::Rect)> {
        let ctx = new_context();
        let mut overlay_points = Vec::new();
        let raw = || egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0], size[1]))),
            focused: true,
            ..Default::default()
        };
        let frame = |ctx: &egui::Context, points: &mut Vec<PlotPoint>| {
            ctx.run_ui(raw(), |ui| {
                let ctx = ui.ctx().clone();
                let screen = ctx.content_rect();
                match PanelLayout::for_screen([screen.width(), screen.height()]) {
                    PanelLayout::Full => stats_panel(&ctx, hud, points),
                    PanelLayout::Compact => compact_panel(&ctx, hud, screen),
                };
            })
        };
        // The second frame, as on screen: egui sizes some things from the frame before.
        frame(&ctx, &mut overlay_points).drop_without_applying_deltas();
        let output = frame(&ctx, &mut overlay_points);
        let mut texts = Vec::new();
        let mut shapes: Vec<egui::Shape> = output.shapes.into_iter().map(|clipped| clipped.shape).collect();
        while let Some(shape) = shapes.pop() {
            match shape {
                egui::Shape::Text(text) => texts.push((text.galley.text().to_owned(), text.visual_bounding_rect())),
                egui::Shape::Vec(inner) => shapes.extend(inner),
                _ => {}
            }
        }
        texts
    }

    #[test]
    fn the_compact_line_shows_fps_strategy_pattern_and_the_f1_hint_inside_a_320x240_or_640x360_window() {
        let hud = HudData {
            figures: LoopFigures {
                strategy_name: "extrapolated",
                fps: 59.9,
                pattern: "1111111111".repeat(12) + "0",
                ..LoopFigures::default()
            },
            ..HudData::default()
        };
        for size in [[320.0, 240.0], [640.0, 360.0]] {
            assert_eq!(PanelLayout::for_screen(size), PanelLayout::Compact);
            let texts = texts_at(&hud, size);
            let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0], size[1]));
            for (text, rect) in &texts {
                assert!(screen.contains_rect(*rect), "{size:?}: {text:?} at {rect:?} leaves the window");
            }
            let find = |wanted: &str| texts.iter().any(|(text, _)| text.contains(wanted));
            let all: Vec<&str> = texts.iter().map(|(text, _)| text.as_str()).collect();
            for wanted in ["extrapolated", "FPS", "59.9", "1111111111", "F1 help"] {
                assert!(find(wanted), "{size:?}: the compact panel lacks {wanted:?}; it shows {all:?}");
            }
            // The newest frame of the pattern (the last character) is on screen.
            let pattern_end = texts.iter().any(|(text, _)| text.trim_end().ends_with('0'));
            assert!(pattern_end, "{size:?}: the newest pattern frame is cut off: {all:?}");
        }
    }

    #[test]
    fn the_layout_is_full_from_448_by_680_points_and_compact_below() {
        assert_eq!(PanelLayout::for_screen([1280.0, 720.0]), PanelLayout::Full);
        assert_eq!(PanelLayout::for_screen([448.0, 680.0]), PanelLayout::Full);
        assert_eq!(PanelLayout::for_screen([447.9, 1080.0]), PanelLayout::Compact);
        assert_eq!(PanelLayout::for_screen([1920.0, 679.0]), PanelLayout::Compact);
        assert_eq!(PanelLayout::for_screen([640.0, 360.0]), PanelLayout::Compact);
        assert_eq!(PanelLayout::for_screen([320.0, 240.0]), PanelLayout::Compact);
    }
}
