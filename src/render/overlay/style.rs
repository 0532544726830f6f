//! The overlay's look: sizes, colours, the egui context's theme and the small text helpers every
//! panel uses.
//!
//! One place for these so that the panels, the plot and the pattern strip agree: a value reads
//! in [`VALUE`] monospace wherever it stands, and a warning is [`WARN`] everywhere.

use egui::{Color32, RichText, Ui};

/// Width of the panel's content column, in points.
pub(super) const PANEL_WIDTH: f32 = 400.0;
/// Text size of captions and secondary lines, in points.
pub(super) const CAPTION_SIZE: f32 = 11.0;
/// Distance of the panels from the window's corners, in points.
pub(super) const MARGIN: f32 = 8.0;
/// Inner margin of the panels, in points.
pub(super) const PANEL_PADDING: f32 = 10.0;
/// Inner margin of the compact panel, in points: every point counts at 320 × 240.
pub(super) const COMPACT_PADDING: f32 = 6.0;

/// Panel background: dark, a hint translucent. egui blends in linear light on sRGB targets, where
/// lower alphas let bright sprites shine through the text.
pub(super) const PANEL_FILL: Color32 = Color32::from_rgba_premultiplied(11, 13, 17, 246);
/// Names of figures and captions.
pub(super) const LABEL: Color32 = Color32::from_gray(150);
/// Figures and plain text.
pub(super) const VALUE: Color32 = Color32::from_gray(235);
/// What recedes: hints, dashes, the `1`s of the pattern.
pub(super) const DIM: Color32 = Color32::from_gray(105);
/// The strategy's name, titles, the selected lane.
pub(super) const ACCENT: Color32 = Color32::from_rgb(110, 190, 255);
/// Worth a look: skipped renders, drift, a present mode not granted.
pub(super) const WARN: Color32 = Color32::from_rgb(255, 190, 70);
/// Hitches and double updates.
pub(super) const BAD: Color32 = Color32::from_rgb(255, 95, 95);
/// A smooth judder.
pub(super) const GOOD: Color32 = Color32::from_rgb(120, 215, 130);
/// The frame-time plot's line and the histogram's bars.
pub(super) const FRAME_LINE: Color32 = Color32::from_rgb(110, 190, 255);
/// The refresh period's line in the frame-time plot.
pub(super) const REFRESH_LINE: Color32 = Color32::from_rgb(120, 215, 130);
/// The tick period's line in the frame-time plot.
pub(super) const TICK_LINE: Color32 = Color32::from_rgb(255, 190, 70);
/// The runner's own colour, dimmed: the label reads as belonging to the lane.
pub(super) const LANE_LABEL: Color32 = Color32::from_rgb(120, 190, 205);

/// The overlay's fonts: egui's defaults where the build has them (natively,
/// Ubuntu-Light and Hack); where it has none, [`page_fonts`]. The page is
/// built without egui's `default_fonts`: Ubuntu-Light is 171 KB of the gzipped
/// wasm (362 KB raw) a phone downloads before it draws anything.
fn fonts() -> Option<egui::FontDefinitions> {
    if !egui::FontDefinitions::default().font_data.is_empty() {
        return None;
    }
    Some(page_fonts())
}

/// The page's one font for all text: Hack, cut to the glyphs the page draws
/// (`scripts/subset-hack.sh`, licence beside it): 42 KB of the gzipped wasm
/// where the whole Hack was 148 KB.
fn page_fonts() -> egui::FontDefinitions {
    const HACK_SUBSET: &[u8] = include_bytes!("../../../assets/fonts/Hack-Regular-subset.ttf");
    let mut fonts = egui::FontDefinitions::empty();
    let hack = egui::FontData::from_static(HACK_SUBSET);
    fonts.font_data.insert("Hack".to_owned(), std::sync::Arc::new(hack));
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts.families.entry(family).or_default().push("Hack".to_owned());
    }
    fonts
}

/// A dark egui context with the overlay's spacing; labels cannot be selected (no text focus).
pub(super) fn new_context() -> egui::Context {
    let ctx = egui::Context::default();
    if let Some(fonts) = fonts() {
        ctx.set_fonts(fonts);
    }
    ctx.set_theme(egui::Theme::Dark);
    ctx.all_styles_mut(|style| {
        style.spacing.item_spacing = egui::vec2(6.0, 3.0);
        style.interaction.selectable_labels = false;
    });
    ctx
}

/// The panels' frame: [`PANEL_FILL`], a faint border, rounded corners, `padding` inside.
pub(super) fn panel_frame(padding: f32) -> egui::Frame {
    egui::Frame::new()
        .fill(PANEL_FILL)
        .stroke(egui::Stroke::new(1.0, Color32::from_white_alpha(28)))
        .corner_radius(6)
        .inner_margin(padding)
}

/// Secondary text: captions, seed, status, hint.
pub(super) fn caption(text: impl Into<String>, color: Color32) -> RichText {
    RichText::new(text).size(CAPTION_SIZE).color(color)
}

/// A figure's name in a grid.
pub(super) fn key(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).color(LABEL));
}

/// A figure in a grid, monospace.
pub(super) fn value(ui: &mut Ui, text: String, color: Color32) {
    ui.label(RichText::new(text).monospace().color(color));
}

/// Plain for zero, `nonzero` otherwise.
pub(super) fn count_color(count: u64, nonzero: Color32) -> Color32 {
    if count == 0 { VALUE } else { nonzero }
}

/// `—` for an empty text.
pub(super) fn or_dash(text: &str) -> &str {
    if text.is_empty() { "—" } else { text }
}

/// A rate with two decimals: `59.94 Hz`; "not yet measured" when it is not known (or not finite).
pub(super) fn hz(rate: f64) -> String {
    opt_hz(Some(rate))
}

/// [`hz`] of a rate that may be unknown.
pub(super) fn opt_hz(rate: Option<f64>) -> String {
    match rate.filter(|r| r.is_finite() && *r > 0.0) {
        Some(rate) => format!("{rate:.2} Hz"),
        None => crate::report::NOT_YET_MEASURED.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use egui::FontId;

    use super::*;
    use crate::render::overlay::pattern_strip::PATTERN_SIZE;

    #[test]
    fn an_unknown_rate_reads_not_yet_measured_never_nan() {
        for rate in [f64::NAN, f64::INFINITY, 0.0] {
            assert_eq!(hz(rate), "not yet measured", "{rate}");
        }
        assert_eq!(opt_hz(None), "not yet measured");
        assert_eq!(hz(59.94), "59.94 Hz");
    }

    #[test]
    fn the_fonts_have_every_glyph_the_panel_uses() {
        let ctx = new_context();
        ctx.run_ui(egui::RawInput::default(), |_| {}).drop_without_applying_deltas();
        let text = "catch-up Fifo 0123456789 +-.,:;%()\"' · — - × – … @";
        for font in [FontId::proportional(CAPTION_SIZE), FontId::monospace(PATTERN_SIZE)] {
            let missing: String = ctx.fonts_mut(|fonts| text.chars().filter(|&c| !fonts.has_glyph(&font, c)).collect());
            assert!(
                missing.is_empty(),
                "{font:?} lacks {missing:?}: egui needs its `default_fonts` feature (Cargo.toml) to draw text"
            );
        }
    }

    /// Every character the sources write outside comments (the overlay's
    /// text among them) that the whole Hack has, the page's subset has too:
    /// the page would draw a box for one it lacks.
    #[test]
    fn the_page_font_has_every_glyph_of_hack_the_sources_write() {
        let hack = egui::FontDefinitions::default().font_data.get("Hack").cloned();
        let Some(hack) = hack else {
            return; // built without egui's default fonts: no whole Hack to compare with
        };
        let mut whole = egui::FontDefinitions::empty();
        whole.font_data.insert("Hack".to_owned(), hack);
        whole.families.insert(egui::FontFamily::Monospace, vec!["Hack".to_owned()]);
        let [whole, subset] = [whole, page_fonts()].map(|definitions| {
            let ctx = egui::Context::default();
            ctx.set_fonts(definitions);
            ctx.run_ui(egui::RawInput::default(), |_| {}).drop_without_applying_deltas();
            ctx
        });
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut chars = std::collections::BTreeSet::new();
        let mut dirs = vec![root.join("src"), root.join("timestep-core").join("src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the sources are readable").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).expect("a source is UTF-8");
                    let code = text.lines().filter(|l| !l.trim_start().starts_with("//"));
                    chars.extend(code.flat_map(str::chars).filter(|c| !c.is_ascii()));
                }
            }
        }
        assert!(chars.contains(&'σ'), "the sources were read: {chars:?}");
        let font = FontId::monospace(CAPTION_SIZE);
        let has = |ctx: &egui::Context, c: char| ctx.fonts_mut(|fonts| fonts.has_glyph(&font, c));
        let missing: String = chars.iter().filter(|&&c| has(&whole, c) && !has(&subset, c)).collect();
        assert!(missing.is_empty(), "add {missing:?} to scripts/subset-hack.sh's ranges and rerun it");
    }
}
