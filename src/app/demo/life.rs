//! The window's own life, apart from the monitor's: time it was hidden, a
//! drawing buffer smaller than the window, a page that misses refreshes.
//! Each is said in the overlay's notes, and none is counted as the display's.
//!
//! ```text
//!   hidden ──────────────(5 s)────────────► shown      session.hidden(from, to): a gap, not a frame
//!   window 1170×2532 px, buffer capped to 946×2048     note: "drawing 946×2048 of 1170×2532 px"
//!   the page drew 14.9 fps on a 60 Hz screen           note: "… it missed refreshes"
//! ```

use crate::time::{Nanos, nanos_to_secs};
use crate::vrr::VrrRange;

/// What the window's life added to the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Life {
    /// Hidden since this clock time (no frames meanwhile).
    hidden_since: Option<Nanos>,
    /// Time hidden so far, in gaps that have ended.
    hidden: Nanos,
    /// The window's size and the buffer drawn, where the buffer is smaller.
    capped: Option<([u32; 2], [u32; 2])>,
}

impl Life {
    /// The window was hidden at `now` (`true`) or shown again: returns the
    /// gap `(from, to)` when it ends one.
    pub(super) fn hidden(&mut self, hidden: bool, now: Nanos) -> Option<(Nanos, Nanos)> {
        if hidden {
            self.hidden_since.get_or_insert(now);
            return None;
        }
        let from = self.hidden_since.take()?;
        self.hidden = self.hidden.saturating_add(now.saturating_sub(from));
        Some((from, now))
    }

    /// Whether the window is hidden now.
    pub(super) fn is_hidden(&self) -> bool {
        self.hidden_since.is_some()
    }

    /// The drawing buffer for a window of `window` pixels: the same, unless
    /// it holds more than `max_pixels` or a side exceeds `max_side`; then
    /// smaller at the same shape (remembered for the note).
    pub(super) fn drawing_size(&mut self, window: [u32; 2], max_side: u32, max_pixels: Option<u64>) -> [u32; 2] {
        let drawn = drawing_size(window, max_side, max_pixels);
        self.capped = (drawn != window).then_some((window, drawn));
        drawn
    }

    /// How much smaller than the window the buffer is (1 when it is not).
    pub(super) fn buffer_scale(&self) -> f32 {
        self.capped.map_or(1.0, |(window, drawn)| drawn[0] as f32 / window[0].max(1) as f32)
    }

    /// The overlay's notes: hidden time, a capped buffer, missed refreshes
    /// (`fps` against the screen's refresh, where the platform knows it).
    pub(super) fn notes(&self, fps: f64, screen_hz: Option<f64>, notes: &mut Vec<String>) {
        notes.clear();
        if self.hidden > 0 {
            notes.push(format!("hidden {:.1} s: a gap no figure counts", nanos_to_secs(self.hidden)));
        }
        if let Some((window, drawn)) = self.capped {
            notes.push(format!(
                "drawing {}×{} of the window's {}×{} px (capped for this device)",
                drawn[0], drawn[1], window[0], window[1]
            ));
        }
        if let Some(line) = screen_hz.and_then(|hz| missed_refreshes(fps, hz)) {
            notes.push(line);
        }
    }
}

/// The one decision on a page too slow for its screen, from the figures:
/// the overlay, the tour's card and `compare` all take it from
/// [`crate::report_card::evidence`], so a card never says one thing and its comparison another.
pub(crate) use crate::report_card::evidence::missed_refreshes;

/// "the emulated vrr:48-144 cannot go above this screen's 60.0 Hz: frames come
/// at most every 16.7 ms" when an emulated VRR range reaches past the screen's
/// refresh (a page's gate presents on the screen's refreshes, so its frames
/// come no faster than they do); `None` when the range fits.
pub(crate) fn vrr_ceiling_note(range: VrrRange, screen_hz: f64) -> Option<String> {
    (screen_hz > 0.0 && range.max().hz() > screen_hz * (1.0 + SCREEN_TOLERANCE)).then(|| {
        format!(
            "the emulated {range} cannot go above this screen's {screen_hz:.1} Hz: frames come at most every {:.1} ms",
            1000.0 / screen_hz
        )
    })
}

/// How far above the screen's measured refresh a range's maximum may reach
/// and still fit: the frame clock's measurement is within 1 % (59.88 against 60.00 throttled).
const SCREEN_TOLERANCE: f64 = 0.01;

/// The vsync sentence for a page that drew `fps` of a `screen_hz` screen's
/// refreshes, when it missed some: a browser always presents on the
/// screen's refresh, and a page too slow for it is neither a slow screen nor
/// one the compositor paces. `None` when the page kept up.
pub(crate) fn slow_page_verdict(fps: f64, screen_hz: f64) -> Option<String> {
    missed_refreshes(fps, screen_hz)
        .map(|missed| format!("vsync in effect (a browser presents on the screen's refresh); {missed}"))
}

/// `window` scaled down (same shape, whole pixels, at least 1×1) until no
/// side exceeds `max_side` and it holds at most `max_pixels`.
pub(crate) fn drawing_size(window: [u32; 2], max_side: u32, max_pixels: Option<u64>) -> [u32; 2] {
    let [w, h] = window.map(|side| f64::from(side.max(1)));
    let by_side = f64::from(max_side.max(1)) / w.max(h);
    let by_pixels = max_pixels.map_or(1.0, |max| (max as f64 / (w * h)).sqrt());
    let scale = by_side.min(by_pixels).min(1.0);
    if scale >= 1.0 {
        return window;
    }
    [(w * scale).floor().max(1.0) as u32, (h * scale).floor().max(1.0) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;

    #[test]
    fn an_emulated_vrr_range_above_the_screen_s_refresh_is_said_and_one_inside_it_is_not() {
        let range = |min: u64, max: u64| {
            VrrRange::new(crate::time::Rate::from_hz(min), crate::time::Rate::from_hz(max)).expect("a range")
        };
        assert_eq!(
            vrr_ceiling_note(range(48, 144), 60.0).as_deref(),
            Some("the emulated vrr:48-144 cannot go above this screen's 60.0 Hz: frames come at most every 16.7 ms")
        );
        assert_eq!(vrr_ceiling_note(range(30, 60), 59.88), None, "60 Hz is this screen's 59.88 within 1 %");
        assert_eq!(vrr_ceiling_note(range(30, 60), 120.0), None);
        assert!(vrr_ceiling_note(range(48, 144), 120.0).is_some());
    }

    #[test]
    fn a_phone_s_buffer_keeps_its_shape_under_a_side_limit_and_a_pixel_budget() {
        assert_eq!(drawing_size([1170, 2532], 8192, None), [1170, 2532], "nothing to cap");
        assert_eq!(drawing_size([1170, 2532], 2048, None), [946, 2048], "WebGL2's 2048 px side, same shape");
        let [w, h] = drawing_size([1170, 2532], 8192, Some(1920 * 1080));
        assert!(u64::from(w) * u64::from(h) <= 1920 * 1080, "{w}×{h} within the budget");
        assert!((f64::from(w) / f64::from(h) - 1170.0 / 2532.0).abs() < 0.002, "same shape: {w}×{h}");
        assert_eq!(drawing_size([4000, 4000], 2048, Some(1)), [1, 1], "never empty");
    }

    #[test]
    fn a_hidden_spell_is_one_gap_counted_once_and_said_in_the_notes() {
        let mut life = Life::default();
        assert_eq!(life.hidden(true, NANOS_PER_SEC), None);
        assert_eq!(life.hidden(true, 2 * NANOS_PER_SEC), None, "hidden twice is one spell");
        assert!(life.is_hidden());
        assert_eq!(life.hidden(false, 6 * NANOS_PER_SEC), Some((NANOS_PER_SEC, 6 * NANOS_PER_SEC)));
        assert_eq!(life.hidden(false, 7 * NANOS_PER_SEC), None, "shown twice ends nothing more");
        let mut notes = Vec::new();
        life.notes(60.0, Some(60.0), &mut notes);
        assert_eq!(notes, ["hidden 5.0 s: a gap no figure counts"]);
    }

    #[test]
    fn a_page_that_draws_a_quarter_of_the_refreshes_says_it_missed_them() {
        assert_eq!(
            missed_refreshes(14.94, 60.0).as_deref(),
            Some("the page drew 14.9 fps on a 60.0 Hz screen: it missed refreshes")
        );
        assert_eq!(missed_refreshes(58.0, 60.0), None, "a dropped refresh now and then is keeping up");
        assert_eq!(missed_refreshes(f64::NAN, 60.0), None);
        let verdict = slow_page_verdict(17.2, 60.0).expect("a slow page");
        assert!(verdict.starts_with("vsync in effect") && verdict.ends_with("it missed refreshes"), "{verdict}");
        assert!(!verdict.contains("compositor"), "a slow page is not a compositor's pacing: {verdict}");
    }
}
