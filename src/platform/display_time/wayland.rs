//! When the window's frames were really shown, from the compositor: Wayland's
//! `wp_presentation` feedback on the window's own surface.
//!
//! ```text
//!   frame n:  render ─ request(n): wp_presentation.feedback(surface) ─ present (Mesa: attach, commit)
//!   compositor, at the repaint that shows it:  presented(sec, nsec, refresh, seq, flags)  or  discarded
//!   each frame: poll() reads the answers ─► Feedback { frame n, D, refresh, flags } ─► session
//! ```
//!
//! Mesa's Wayland WSI presents on winit's own `wl_surface`, through the app's
//! own connection, from the thread that calls present (`WAYLAND_DEBUG=client`
//! under Weston 10: one attach, damage, frame and commit on that surface per
//! present), so a feedback request made on that surface just before the
//! present belongs to that present's commit. The answers come on a queue of
//! our own on winit's connection, so winit's and Mesa's events stay theirs.
//!
//! Times are on the clock `wp_presentation.clock_id` names (`CLOCK_MONOTONIC`,
//! or `CLOCK_MONOTONIC_RAW` under Weston); the lab reads that clock and
//! converts by one offset taken at start-up, so a D here is the compositor's time exactly,
//! less that offset. A compositor without the protocol, or on another clock,
//! gets no feedback: the present's return stays the estimate, and the run says so.

/// Wayland on Linux: the protocol through winit's connection.
#[cfg(target_os = "linux")]
mod imp {
    use timestep_core::feedback::{Feedback, FeedbackFlags};
    use wayland_backend::client::{Backend, ObjectId};
    use wayland_client::globals::{GlobalListContents, registry_queue_init};
    use wayland_client::protocol::{wl_registry, wl_surface::WlSurface};
    use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle, WEnum};
    use wayland_protocols::wp::presentation_time::client::wp_presentation::{self, WpPresentation};
    use wayland_protocols::wp::presentation_time::client::wp_presentation_feedback::{self, WpPresentationFeedback};
    use winit::raw_window_handle::{HasDisplayHandle, HasWindowHandle, RawDisplayHandle, RawWindowHandle};
    use winit::window::Window;

    use rustix::time::ClockId;

    use super::super::{DisplayTimes, Gives, Gpu, clock_zero};
    use crate::time::{NANOS_PER_SEC, Nanos, RealClock};

    /// The clocks a compositor may name in `wp_presentation.clock_id`, by
    /// their Linux ids: Weston 10 picks `CLOCK_MONOTONIC_RAW` (4) when the
    /// kernel has it (measured here), Mutter, KWin and Sway `CLOCK_MONOTONIC` (1).
    fn clock_of(id: u32) -> Option<ClockId> {
        match id {
            1 => Some(ClockId::Monotonic),
            4 => Some(ClockId::MonotonicRaw),
            _ => None,
        }
    }

    /// Answers kept between two polls at most: a second of frames at 1000 fps
    /// (Weston answers every commit at its next repaint).
    const ANSWERS: usize = 1024;

    /// What the compositor said about one frame: `(ns on its clock, refresh ns, flags)`, or discarded.
    type Answer = (u64, Option<(Nanos, u32, u32)>);

    /// What the event handlers fill in.
    #[derive(Debug, Default)]
    struct State {
        clock_id: Option<u32>,
        answers: Vec<Answer>,
    }

    /// Feedback requests on the window's surface and their answers.
    pub(crate) struct PresentationFeedback {
        // Requests and events go through winit's own connection (a guest
        // backend: dropping it closes nothing).
        _conn: Connection,
        queue: EventQueue<State>,
        handle: QueueHandle<State>,
        presentation: WpPresentation,
        surface: WlSurface,
        state: State,
        /// The lab clock's zero on the compositor's clock, ns.
        zero: Nanos,
    }

    impl std::fmt::Debug for PresentationFeedback {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("PresentationFeedback").field("zero", &self.zero).finish_non_exhaustive()
        }
    }

    /// winit's `wl_display` and the window's `wl_surface` as objects of a
    /// connection of ours.
    ///
    /// The one `unsafe` of the app: winit 0.30 gives the surface out only as
    /// a raw pointer, and a `wl_surface` belongs to one connection, so no
    /// second connection can ask about it. The presents happen on it (see
    /// the module docs: 93 commits on winit's surface in 2 s under Weston
    /// 10), so the request must go on it too.
    #[expect(
        unsafe_code,
        reason = "wayland-backend's from_foreign_display and ObjectId::from_ptr take winit's raw pointers: the only \
                  way to the surface Mesa commits on (measured: every present commits on it under Weston 10)"
    )]
    fn connect(window: &Window) -> Result<(Connection, ObjectId), String> {
        let display = match window.display_handle().map_err(|e| e.to_string())?.as_raw() {
            RawDisplayHandle::Wayland(handle) => handle.display,
            _ => return Err("not a Wayland window".to_owned()),
        };
        let surface = match window.window_handle().map_err(|e| e.to_string())?.as_raw() {
            RawWindowHandle::Wayland(handle) => handle.surface,
            _ => return Err("not a Wayland window".to_owned()),
        };
        // SAFETY: winit's display lives as long as its event loop, which
        // outlives every window and this object (dropped before the window:
        // it is the first field of the app's screen). The backend is a
        // guest: it never closes the display.
        let backend = unsafe { Backend::from_foreign_display(display.as_ptr().cast()) };
        // SAFETY: the pointer is the window's live `wl_proxy` for a
        // `wl_surface` (raw-window-handle's contract for a Wayland window
        // handle); the interface is checked by `from_ptr`.
        let surface = unsafe { ObjectId::from_ptr(WlSurface::interface(), surface.as_ptr().cast()) }
            .map_err(|e| format!("the window's surface: {e}"))?;
        Ok((Connection::from_backend(backend), surface))
    }

    impl PresentationFeedback {
        /// Feedback for `window`'s presents, its times on `clock`; an error
        /// saying why not (not Wayland, no `wp_presentation`, another clock).
        ///
        /// # Errors
        /// One line: why the compositor's feedback is not available.
        pub(crate) fn new(window: &Window, clock: &RealClock) -> Result<PresentationFeedback, String> {
            let (conn, surface) = connect(window)?;
            let surface = WlSurface::from_id(&conn, surface).map_err(|e| format!("the window's surface: {e}"))?;
            let (globals, mut queue) =
                registry_queue_init::<State>(&conn).map_err(|e| format!("the compositor's globals: {e}"))?;
            let handle = queue.handle();
            let presentation: WpPresentation = globals
                .bind(&handle, 1..=1, ())
                .map_err(|_| "the compositor has no wp_presentation (presentation-time protocol)".to_owned())?;
            let mut state = State { clock_id: None, answers: Vec::with_capacity(ANSWERS) };
            queue.roundtrip(&mut state).map_err(|e| format!("wp_presentation's clock: {e}"))?;
            let id = state.clock_id.ok_or("the compositor named no clock for wp_presentation")?;
            let compositor_clock = clock_of(id)
                .ok_or_else(|| format!("the compositor's clock ({id}) is neither MONOTONIC nor MONOTONIC_RAW"))?;
            let zero = clock_zero(clock, compositor_clock);
            Ok(PresentationFeedback { _conn: conn, queue, handle, presentation, surface, state, zero })
        }
    }

    impl DisplayTimes for PresentationFeedback {
        fn name(&self) -> &'static str {
            "wp-presentation"
        }

        fn gives(&self) -> Gives {
            Gives { display_time: true, refresh: true, skipped: true, copied: true }
        }

        /// Asks when the next commit on the surface (frame `frame`'s present) is shown.
        fn presenting(&mut self, frame: u64, _gpu: Gpu<'_>) {
            self.presentation.feedback(&self.surface, &self.handle, frame);
        }

        /// Hands every answer that arrived to `take`, on the lab's clock.
        ///
        /// Reads nothing from the socket itself: winit's loop and Mesa's
        /// present read it (every Fifo present waits for a frame callback),
        /// and libwayland queues our answers on our queue. A read of our own
        /// blocks until every other reader has read, and winit holds a
        /// prepared read while it dispatches some events: the run hung at
        /// exit (2 s run, Weston 10) until that read was taken out.
        fn poll(&mut self, _gpu: Gpu<'_>, take: &mut dyn FnMut(Feedback)) -> u64 {
            if let Err(e) = self.queue.dispatch_pending(&mut self.state) {
                log::debug!("presentation feedback: {e}");
            }
            let mut n = 0;
            for (frame, presented) in self.state.answers.drain(..) {
                n += 1;
                take(match presented {
                    Some((at, refresh, flags)) => Feedback::displayed(frame, at.saturating_sub(self.zero))
                        .with_refresh(Nanos::from(refresh))
                        .with_flags(FeedbackFlags::from_bits(flags)),
                    None => Feedback::discarded(frame),
                });
            }
            n
        }
    }

    fn timespec_nanos(secs: u64, nanos: u64) -> Nanos {
        secs.saturating_mul(NANOS_PER_SEC).saturating_add(nanos)
    }

    impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for State {
        fn event(
            _: &mut State,
            _: &wl_registry::WlRegistry,
            _: wl_registry::Event,
            _: &GlobalListContents,
            _: &Connection,
            _: &QueueHandle<State>,
        ) {
        }
    }

    impl Dispatch<WpPresentation, ()> for State {
        fn event(
            state: &mut State,
            _: &WpPresentation,
            event: wp_presentation::Event,
            _: &(),
            _: &Connection,
            _: &QueueHandle<State>,
        ) {
            if let wp_presentation::Event::ClockId { clk_id } = event {
                state.clock_id = Some(clk_id);
            }
        }
    }

    impl Dispatch<WpPresentationFeedback, u64> for State {
        fn event(
            state: &mut State,
            _: &WpPresentationFeedback,
            event: wp_presentation_feedback::Event,
            frame: &u64,
            _: &Connection,
            _: &QueueHandle<State>,
        ) {
            let answer = match event {
                wp_presentation_feedback::Event::Presented {
                    tv_sec_hi, tv_sec_lo, tv_nsec, refresh, flags, ..
                } => {
                    let secs = (u64::from(tv_sec_hi) << 32) | u64::from(tv_sec_lo);
                    let flags = match flags {
                        WEnum::Value(kind) => kind.bits(),
                        WEnum::Unknown(bits) => bits,
                    };
                    Some((timespec_nanos(secs, u64::from(tv_nsec)), refresh, flags))
                }
                wp_presentation_feedback::Event::Discarded => None,
                _ => return,
            };
            if state.answers.len() < ANSWERS {
                state.answers.push((*frame, answer));
            }
        }
    }
}

/// Elsewhere there is no Wayland.
#[cfg(not(target_os = "linux"))]
mod imp {
    use winit::window::Window;

    use crate::time::RealClock;

    /// No Wayland on this platform.
    #[derive(Debug)]
    pub(crate) enum PresentationFeedback {}

    impl PresentationFeedback {
        /// Never available here.
        ///
        /// # Errors
        /// Always: this platform has no Wayland.
        pub(crate) fn new(_window: &Window, _clock: &RealClock) -> Result<PresentationFeedback, String> {
            Err("not a Wayland platform".to_owned())
        }
    }

    impl super::super::DisplayTimes for PresentationFeedback {
        fn name(&self) -> &'static str {
            match *self {}
        }
        fn gives(&self) -> super::super::Gives {
            match *self {}
        }
        fn presenting(&mut self, _frame: u64, _gpu: super::super::Gpu<'_>) {
            match *self {}
        }
        fn poll(
            &mut self,
            _gpu: super::super::Gpu<'_>,
            _take: &mut dyn FnMut(timestep_core::feedback::Feedback),
        ) -> u64 {
            match *self {}
        }
    }
}

pub(crate) use imp::PresentationFeedback;
