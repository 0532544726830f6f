//! Whether a window is on screen, where winit cannot say: on X11 without a
//! window manager nothing minimises a window; it is unmapped instead, and
//! winit sends no event for that (the demo kept rendering at ~80 % CPU).

/// X11: whether the window is viewable. Without a window manager nothing
/// minimises a window; it is unmapped instead, and winit sends no event for that.
#[cfg(target_os = "linux")]
mod imp {
    use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
    use winit::window::Window;
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{ConnectionExt as _, MapState};
    use x11rb::rust_connection::RustConnection;

    /// A second, pure-Rust connection to the X server that asks about one window.
    pub(crate) struct WindowMapping {
        conn: RustConnection,
        window: u32,
    }

    impl WindowMapping {
        /// For an X11 window; `None` elsewhere (Wayland) or when the server cannot be reached.
        pub(crate) fn of(window: &Window) -> Option<WindowMapping> {
            let id = match window.window_handle().ok()?.as_raw() {
                RawWindowHandle::Xlib(h) => u32::try_from(h.window).ok()?,
                RawWindowHandle::Xcb(h) => h.window.get(),
                _ => return None,
            };
            let (conn, _screen) = x11rb::connect(None).ok()?;
            Some(WindowMapping { conn, window: id })
        }

        /// Whether the window and its ancestors are mapped (true when the server cannot say).
        pub(crate) fn viewable(&self) -> bool {
            let reply = self.conn.get_window_attributes(self.window).ok().and_then(|c| c.reply().ok());
            let _ = self.conn.flush();
            reply.is_none_or(|attributes| attributes.map_state == MapState::VIEWABLE)
        }
    }
}

/// Other platforms report visibility through winit.
#[cfg(not(target_os = "linux"))]
mod imp {
    pub(crate) use crate::platform::window_mapping::WindowMapping;
}

pub(crate) use imp::WindowMapping;
