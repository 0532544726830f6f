//! What a report card says of the compositor between the window and the
//! screen: measured from its presentation feedback, read from frames it held,
//! or assumed none, with the reason.

use crate::report_card::{RunRecord, SetupSampler};
use crate::time::Nanos;

/// What a card says of the compositor where the platform does not say when a frame was shown.
const COMPOSITOR_ASSUMED: &str = "compositor: assumed none (direct), as the platform does not say when a frame was \
                                  shown, so no repaint can be seen (X11 without a compositor and Xvfb have none; \
                                  DWM's and WindowServer's figures are not published: docs/compositors.md names the \
                                  presets, weston 7 ms, dwm 0 ms and a refresh, for simulate --compositor)";

/// What a page's card says of the compositor: the browser's own, which a page cannot see.
const COMPOSITOR_OF_THE_BROWSER: &str = "compositor: the browser's own, which the page cannot see: a page learns when \
                                         a frame was shown only from requestAnimationFrame's clock, not from the \
                                         browser's or the system's compositor, so the predictions assume none (direct)";

/// The card's sentence on an assumed compositor: the page's where the tour ran in a browser.
fn compositor_assumed(in_a_browser: bool) -> &'static str {
    if in_a_browser { COMPOSITOR_OF_THE_BROWSER } else { COMPOSITOR_ASSUMED }
}

/// The compositor the tour's frames with vsync off show where the compositor
/// timed them (Wayland's presentation feedback), and the card's sentence on it;
/// elsewhere none, and the sentence says it is assumed and why.
pub(super) fn compositor_of(
    sampler: &SetupSampler,
    runs: &[RunRecord],
    period: Nanos,
) -> (Option<crate::monitor::Compositor>, String) {
    if !fed_back(runs) {
        return (None, compositor_assumed(crate::platform::browser().is_some()).to_owned());
    }
    match sampler.measured_compositor(period) {
        Ok(c) => {
            let ms = |ns: Nanos| crate::report::trim_number(ns as f64 / 1e6, 3);
            let note = format!(
                "compositor: measured from its presentation feedback, the shortest commit-to-display of the frames \
                 with vsync off (2nd percentile): latch {} ms, delay {} refreshes; the predictions repaint with it",
                ms(c.latch),
                c.delay_refreshes
            );
            (Some(c), note)
        }
        Err(why) => (
            None,
            format!(
                "compositor: its presentation feedback came, but {why}: the predictions assume none (direct), and \
                 the setup's queue depth carries what the compositor adds"
            ),
        ),
    }
}

/// Whether the compositor timed the frames with vsync off (Wayland's presentation feedback).
pub(super) fn fed_back(runs: &[RunRecord]) -> bool {
    runs.iter().any(|r| {
        r.vsync_requested == Some(false)
            && r.display_time_source.as_deref().is_some_and(|s| s.starts_with("compositor-feedback"))
    })
}

/// What a card says of a compositor that held the window's frames with vsync
/// off until it repainted (`fed_back`: its display times are its own word, else the present's estimate).
pub(super) fn held_note(held: crate::monitor::Compositor, period: Nanos, fed_back: bool) -> String {
    let ms = |ns: Nanos| crate::report::trim_number(ns as f64 / 1e6, 3);
    let shown_by = if fed_back { "its presentation feedback" } else { "the present's estimate (no feedback)" };
    format!(
        "compositor: with vsync off each frame waited for the compositor's repaint before it started (the \
         platform held its redraw: Wayland's frame callback), so no commit shows where the repaint begins; by \
         {shown_by} a frame was shown {} ms after the repaint that latched it, the one after it started, which \
         the predictions model as latch {} ms, delay {} refreshes, their frames waiting for each repaint too, \
         vsync on and off",
        ms(held.latch + u64::from(held.delay_refreshes) * period),
        ms(held.latch),
        held.delay_refreshes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pages_compositor_note_is_the_browsers_and_never_names_x11_or_xvfb() {
        let page = compositor_assumed(true);
        assert!(page.contains("the browser's own") && page.contains("requestAnimationFrame"), "{page}");
        for word in ["X11", "Xvfb", "DWM", "WindowServer"] {
            assert!(!page.contains(word), "a page's note names {word}: {page}");
        }
        assert!(compositor_assumed(false).contains("Xvfb"), "the window's note keeps the platforms' reasons");
    }
}
