//! Where winit itself tells whether a window can be seen (every platform but
//! X11 without a window manager, see `native/x11.rs`): nothing to ask.

/// Nothing to ask: winit's occlusion and minimise events say it all.
pub(crate) struct WindowMapping;

impl WindowMapping {
    /// Always `None`: there is nothing to ask besides winit.
    pub(crate) fn of(_window: &winit::window::Window) -> Option<WindowMapping> {
        None
    }

    /// Never called: [`WindowMapping::of`] gives none.
    pub(crate) fn viewable(&self) -> bool {
        true
    }
}
