//! Labels over the scene rather than in a panel: the runner's lane and, in lane mode, one label
//! per lane.
//!
//! A small label names the runner's lane (the smoothness reference the README's tour points
//! at); like everything else in the overlay it goes when `H` hides the overlay, so `H` always
//! leaves the bare picture.
//!
//! In lane mode ([`HudData::lanes`] not empty) the panel gives way to one label per lane, in the
//! label column at the lane's left, mapped through the same letterbox as the sprites.

use egui::{Align2, FontId, RichText, Ui};

use super::pattern_strip::{PatternShape, pattern_label};
use super::style::{ACCENT, CAPTION_SIZE, LABEL, LANE_LABEL, MARGIN, PANEL_FILL, VALUE, WARN, caption, or_dash};
use crate::hud_data::{HudData, LaneLabel, RunnerLane};
use crate::render::sprites::Letterbox;
use crate::report::Field;
use crate::report::registry::{DRIFT_MS_PER_MIN, HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS};
use crate::sim::MoverKind;

/// The runner's lane label.
const RUNNER_LABEL: &str = "runner lane · constant speed: a hitch here is the loop's";
/// The runner's lane label where the long one does not fit.
const RUNNER_LABEL_SHORT: &str = "runner lane";

/// A small label under the right end of the runner's lane, clear of the stats panel; returns
/// its rectangle in points, or `None` where there is no room for even the short text.
pub(super) fn runner_label(
    ctx: &egui::Context,
    lane: RunnerLane,
    size_px: [u32; 2],
    screen: egui::Rect,
    panel: egui::Rect,
) -> Option<egui::Rect> {
    let ppp = ctx.pixels_per_point();
    let letterbox = Letterbox::fit(lane.playfield, size_px);
    let half_height = MoverKind::Runner.size()[1] / 2.0;
    let [right, below] = letterbox.to_target([lane.playfield[0], lane.y + half_height]).map(|px| px / ppp);
    let anchor = egui::pos2(right.min(screen.right()) - MARGIN, below + 2.0);
    let font = FontId::proportional(CAPTION_SIZE);
    let room = anchor.x - panel.right().max(screen.left()) - MARGIN;
    let text = [RUNNER_LABEL, RUNNER_LABEL_SHORT].into_iter().find(|text| {
        let width = ctx.fonts_mut(|fonts| fonts.layout_no_wrap((*text).to_owned(), font.clone(), LABEL).size().x);
        width <= room
    })?;
    let painter =
        ctx.layer_painter(egui::LayerId::new(egui::Order::Background, egui::Id::unique("timestep_lab_runner")));
    let rect = painter.text(anchor, Align2::RIGHT_TOP, text, font, LANE_LABEL);
    // Below the panel's bottom edge it could still overlap a tall panel: then leave it out.
    (!rect.intersects(panel)).then_some(rect)
}

/// Lane mode: a label in each lane's label column (strategy, judder, hitches, latency, pattern),
/// the selected lane outlined.
pub(super) fn lane_labels(ctx: &egui::Context, hud: &HudData) {
    let screen = ctx.content_rect();
    let [pw, ph] = hud.lane_playfield;
    if pw <= 0.0 || ph <= 0.0 {
        return;
    }
    // The sprites' letterbox, in points: the largest centred rectangle of the playfield's aspect.
    let scale = (screen.width() / pw).min(screen.height() / ph);
    let origin = screen.center() - egui::vec2(0.5 * pw * scale, 0.5 * ph * scale);
    let to_screen = |x: f32, y: f32| origin + egui::vec2(x * scale, y * scale);
    for (i, lane) in hud.lanes.iter().enumerate() {
        let [x, y, w, h] = lane.rect;
        let whole = egui::Rect::from_min_max(to_screen(x, y), to_screen(x + w, y + h));
        let column = egui::Rect::from_min_size(whole.min, egui::vec2(lane.label_width * scale, whole.height()));
        egui::Area::new(egui::Id::unique(("timestep_lab_lane", i)))
            .fixed_pos(column.min)
            .movable(false)
            .interactable(false)
            .order(egui::Order::Foreground)
            .show(ctx, |ui| {
                ui.set_clip_rect(column);
                let stroke = if lane.selected { egui::Stroke::new(2.0, ACCENT) } else { egui::Stroke::NONE };
                egui::Frame::new().fill(PANEL_FILL).stroke(stroke).inner_margin(egui::Margin::symmetric(8, 3)).show(
                    ui,
                    |ui| {
                        ui.spacing_mut().item_spacing.y = 1.0;
                        ui.set_width(column.width() - 16.0);
                        ui.set_height(column.height() - 6.0);
                        lane_label(ui, lane);
                    },
                );
            });
        if lane.selected {
            let painter =
                ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::unique("lane_selection")));
            painter.rect_stroke(whole, 0.0, egui::Stroke::new(2.0, ACCENT), egui::StrokeKind::Inside);
        }
    }
}

/// One lane's label: strategy, judder and hitches, latency, pattern; or why it is frozen.
/// A lane whose game runs off speed says so, as `compare` marks it with `!`:
/// smooth motion at the wrong pace is not smooth play.
fn speed_note(drift_ms_per_min: f64) -> Option<String> {
    let bound = DRIFT_MS_PER_MIN.bound?;
    let sign = if drift_ms_per_min > 0.0 { "+" } else { "" };
    (drift_ms_per_min.abs() > bound).then(|| {
        format!(
            "! speed {}",
            DRIFT_MS_PER_MIN.with_unit(&format!("{sign}{}", DRIFT_MS_PER_MIN.number(drift_ms_per_min)))
        )
    })
}

fn lane_label(ui: &mut Ui, lane: &LaneLabel) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(or_dash(lane.strategy)).monospace().size(13.0).strong().color(ACCENT));
        if lane.selected && !lane.needs_loop {
            ui.label(caption("selected · Enter runs the loop with it", LABEL));
        }
    });
    if lane.needs_loop {
        ui.label(RichText::new("needs the loop — Enter").monospace().color(WARN));
        ui.label(caption("it decides when frames happen: shown frozen", LABEL));
        return;
    }
    // The registry's words, decimals and unit; a dash while a figure is undefined.
    let reading = |field: &Field, v: Option<f64>| match v.filter(|v| v.is_finite()) {
        Some(v) => field.reading(v),
        None => format!("{} —", field.words()),
    };
    // Two short rows rather than one that wraps in the label column at 1280x720.
    let judder =
        format!("{} · {}", reading(&JUDDER_MS, Some(lane.judder_ms)), reading(&HITCHES_PER_MIN, lane.hitches_per_min));
    ui.label(caption(judder, VALUE).monospace());
    let latency = caption(reading(&LATENCY_MS, Some(lane.latency_ms)), VALUE).monospace();
    match speed_note(lane.drift_ms_per_min) {
        None => {
            ui.label(latency);
        }
        // The note shares the latency row (the column has room for four rows), at the row's
        // text height rather than a widget row's.
        Some(note) => {
            ui.horizontal(|ui| {
                ui.spacing_mut().interact_size.y = 0.0;
                ui.label(latency);
                ui.label(caption(note, WARN).monospace());
            });
        }
    }
    let shape = PatternShape::fitting_in(ui, ui.available_width(), 1);
    pattern_label(ui, &lane.pattern, shape);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lane_off_speed_by_more_than_compare_allows_says_so() {
        assert_eq!(speed_note(3212.4).as_deref(), Some("! speed +3212.40 ms/min"), "lockstep at 144 Hz");
        assert_eq!(speed_note(-130.0).as_deref(), Some("! speed -130.00 ms/min"));
        assert_eq!(speed_note(60.0), None, "59.94 Hz lockstep's 0.1 % is within the bound");
        assert_eq!(speed_note(f64::NAN), None, "no frames yet");
    }
}
