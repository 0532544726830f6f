//! Whether the page can be seen, and when it goes away.
//!
//! ```text
//! visibilitychange → hidden   a background tab, a locked phone, a minimised window:
//!                             the handler is told, the run counts the time as a gap
//! visibilitychange → visible  the handler is told again; frames resume
//! pagehide                    the tab closes, reloads or navigates away: the run ends as with Esc
//! ```
//!
//! winit reports the same change as `Occluded`; this says it with the
//! document's own words and on the same event, so the run can tell a hidden
//! page (a gap in time) from a canvas scrolled out of view.

use super::dom::{Listener, keep};

/// A page is visible or hidden as the document says, through winit's occlusion events.
pub(crate) use crate::platform::window_mapping::WindowMapping;

/// `pagehide` (the tab closes, reloads or navigates away) calls `end`, which
/// ends the run the way `Esc` does.
pub(crate) fn on_end_signal(mut end: impl FnMut() -> bool + 'static) {
    let Some(window) = web_sys::window() else { return };
    let listener = Listener::add(&window, "pagehide", move |_| {
        if !end() {
            log::warn!("the page went away before the run could end: its outputs are lost");
        }
    });
    if listener.is_none() {
        log::warn!("closing the page ends the run without its outputs");
    }
    keep("pagehide", listener);
}

/// Calls `changed(hidden)` whenever the page is hidden or shown again.
pub(crate) fn on_visibility(mut changed: impl FnMut(bool) + 'static) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let target = document.clone();
    let listener = Listener::add(&target, "visibilitychange", move |_| {
        changed(document.visibility_state() == web_sys::VisibilityState::Hidden);
    });
    if listener.is_none() {
        log::warn!("time while the page is hidden will count as one long frame");
    }
    keep("visibilitychange", listener);
}
