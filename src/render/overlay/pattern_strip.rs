//! The update pattern: how many simulation updates each of the last refreshes ran, one digit a
//! frame, in groups of ten so positions can be counted at a glance.
//!
//! ```text
//!   1111111111 1111121111 1111111111 1111111111     1 dim: one update, the steady state
//!   1111011111 1111111111 1111111111 1111111111     0 amber: a refresh without an update
//!   1111111111 1111111111 1111111111 1111111112     2-9, + red: several updates in one refresh
//! ```
//!
//! The full panel shows the last 120 frames on three lines; the compact panel and the lane
//! labels fit as many whole groups as their width holds ([`PatternShape::fitting`]).

use egui::text::LayoutJob;
use egui::{Color32, FontId, RichText, TextFormat, Ui};

use super::style::{BAD, DIM, LABEL, WARN, caption};
use crate::hud_data::HudData;

/// Update-pattern frames per line in the full panel: 120 frames on three lines, in groups of
/// [`PATTERN_GROUP`].
const PATTERN_LINE: usize = 40;
/// Frames per space-separated group, so positions can be counted at a glance.
const PATTERN_GROUP: usize = 10;
/// Frames of update pattern shown.
const PATTERN_FRAMES: usize = 120;
/// Text size of the pattern, in points.
pub(super) const PATTERN_SIZE: f32 = 12.0;

/// The full panel's pattern: a legend line, then the last [`PATTERN_FRAMES`] frames.
pub(super) fn pattern_section(ui: &mut Ui, hud: &HudData) {
    ui.horizontal(|ui| {
        ui.label(caption(format!("updates per refresh, last {PATTERN_FRAMES}"), LABEL));
        ui.label(caption("0", WARN).monospace());
        ui.label(caption("none", LABEL));
        ui.label(caption("2+", BAD).monospace());
        ui.label(caption("several", LABEL));
    });
    pattern_label(ui, &hud.figures.pattern, PatternShape::FULL);
}

/// The last frames of `pattern` that fit `shape`, or `—` while there are none.
pub(super) fn pattern_label(ui: &mut Ui, pattern: &str, shape: PatternShape) {
    if pattern.is_empty() {
        ui.label(RichText::new("—").monospace().color(DIM));
    } else {
        ui.label(pattern_job(pattern, shape));
    }
}

/// How the pattern is laid out: frames per line (whole groups of [`PATTERN_GROUP`]) and lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PatternShape {
    per_line: usize,
    lines: usize,
}

impl PatternShape {
    /// The full panel's: [`PATTERN_FRAMES`] on three lines of [`PATTERN_LINE`].
    pub(super) const FULL: PatternShape = PatternShape { per_line: PATTERN_LINE, lines: PATTERN_FRAMES / PATTERN_LINE };

    /// As many whole groups per line as fit `width` points of digits `digit` points wide (at
    /// least one group, at most the full panel's line), on `lines` lines.
    fn fitting(width: f32, digit: f32, lines: usize) -> PatternShape {
        // A line of g groups is 10g digits and g - 1 spaces, as wide as a digit (monospace).
        let per_group = (PATTERN_GROUP + 1) as f32 * digit;
        let groups = if per_group > 0.0 { ((width + digit) / per_group).floor() as usize } else { 1 };
        let groups = groups.clamp(1, PATTERN_LINE / PATTERN_GROUP);
        PatternShape { per_line: groups * PATTERN_GROUP, lines: lines.max(1) }
    }

    /// [`Self::fitting`] `width` points of the pattern's digits as `ui` draws them.
    pub(super) fn fitting_in(ui: &Ui, width: f32, lines: usize) -> PatternShape {
        let digit = ui.fonts_mut(|fonts| fonts.glyph_width(&FontId::monospace(PATTERN_SIZE), '1'));
        PatternShape::fitting(width, digit, lines)
    }

    /// Frames shown: the newest this many.
    fn frames(self) -> usize {
        self.per_line * self.lines
    }
}

/// The last frames of the pattern that fit `shape`, as coloured monospace runs (`1` dim, `0`
/// amber, `2`–`9` and `+` (ten or more) red), `shape.per_line` frames per line in
/// space-separated groups of [`PATTERN_GROUP`].
fn pattern_job(pattern: &str, shape: PatternShape) -> LayoutJob {
    let font = FontId::monospace(PATTERN_SIZE);
    let mut job = LayoutJob::default();
    let tail_start = pattern.char_indices().rev().nth(shape.frames() - 1).map_or(0, |(i, _)| i);
    let tail = &pattern[tail_start..];
    let mut run_start = 0;
    let mut run_color = None;
    for (frame, (i, c)) in tail.char_indices().enumerate() {
        let color = pattern_color(c);
        let separator = match frame {
            0 => None,
            _ if frame % shape.per_line == 0 => Some("\n"),
            _ if frame % PATTERN_GROUP == 0 => Some(" "),
            _ => None,
        };
        if separator.is_some() || run_color != Some(color) {
            if let Some(color) = run_color {
                job.append(&tail[run_start..i], 0.0, TextFormat::simple(font.clone(), color));
            }
            if let Some(separator) = separator {
                job.append(separator, 0.0, TextFormat::simple(font.clone(), DIM));
            }
            run_start = i;
            run_color = Some(color);
        }
    }
    if let Some(color) = run_color {
        job.append(&tail[run_start..], 0.0, TextFormat::simple(font, color));
    }
    job
}

/// The colour of one frame's digit (see the module docs).
fn pattern_color(c: char) -> Color32 {
    match c {
        '1' => DIM,
        '0' => WARN,
        '2'..='9' | '+' => BAD,
        _ => LABEL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job_text(job: &LayoutJob) -> &str {
        &job.text
    }

    #[test]
    fn pattern_keeps_the_last_120_frames_on_three_lines_of_four_groups() {
        let pattern: String = "2".repeat(30) + &"1".repeat(120);
        let job = pattern_job(&pattern, PatternShape::FULL);
        let text = job_text(&job);
        assert_eq!(text.lines().count(), 3, "120 frames wrap onto three lines: {text:?}");
        for line in text.lines() {
            let groups: Vec<&str> = line.split(' ').collect();
            assert_eq!(groups.len(), 4, "four groups per line: {line:?}");
            assert!(groups.iter().all(|g| g.len() == PATTERN_GROUP), "ten frames per group: {line:?}");
        }
        assert!(!text.contains('2'), "the 30 oldest frames fell off");
    }

    #[test]
    fn a_short_pattern_is_shown_whole() {
        let text = job_text(&pattern_job("111112111110", PatternShape::FULL)).to_owned();
        assert_eq!(text, "1111121111 10");
    }

    #[test]
    fn pattern_colours_highlight_zero_and_double_updates() {
        let job = pattern_job("11021+", PatternShape::FULL);
        let colours: Vec<Color32> = job.sections.iter().map(|s| s.format.color).collect();
        assert_eq!(colours, [DIM, WARN, BAD, DIM, BAD], "one section per run of the same class");
    }

    #[test]
    fn a_compact_pattern_line_holds_as_many_whole_groups_as_fit() {
        // Digits 7 points wide: a group and its space take 77 points.
        assert_eq!(PatternShape::fitting(300.0, 7.0, 1), PatternShape { per_line: 30, lines: 1 });
        assert_eq!(PatternShape::fitting(224.0, 7.0, 3), PatternShape { per_line: 30, lines: 3 }, "3 × 77 − 7 = 224");
        assert_eq!(PatternShape::fitting(223.0, 7.0, 3), PatternShape { per_line: 20, lines: 3 });
        assert_eq!(PatternShape::fitting(10.0, 7.0, 0), PatternShape { per_line: 10, lines: 1 }, "at least one group");
        assert_eq!(PatternShape::fitting(5000.0, 7.0, 3), PatternShape::FULL, "never more than the full panel's");
        let text = pattern_job(&"1".repeat(100), PatternShape { per_line: 20, lines: 2 }).text;
        assert_eq!(text, "1111111111 1111111111\n1111111111 1111111111", "the newest 40 frames");
    }
}
