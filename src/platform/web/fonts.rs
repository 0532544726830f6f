//! The page's font: Hack (egui's monospace font) for all its text. egui's
//! default fonts add Ubuntu-Light for proportional text, 171 KB of the
//! gzipped wasm (362 KB raw) a phone downloads before it draws anything.

/// Hack for proportional and monospace text alike.
pub(crate) fn fonts() -> Option<egui::FontDefinitions> {
    let mut fonts = egui::FontDefinitions::empty();
    let hack = egui::FontData::from_static(epaint_default_fonts::HACK_REGULAR);
    fonts.font_data.insert("Hack".to_owned(), std::sync::Arc::new(hack));
    for family in [egui::FontFamily::Proportional, egui::FontFamily::Monospace] {
        fonts.families.entry(family).or_default().push("Hack".to_owned());
    }
    Some(fonts)
}
