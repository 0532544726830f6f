//! X11's Present extension: the X server tells every client that selected
//! a window's Present events when each present on it completed, with the
//! completion's `ust` (µs on the server's `CLOCK_MONOTONIC`), `msc` (the
//! vblank counter) and mode (copied, flipped, or skipped for a newer one).
//!
//! ```text
//!   app:      presenting(n) ─ wgpu/Mesa: PresentPixmap(window, serial s) ─ presenting(n+1) ─ …
//!   X server: at vblank msc: CompleteNotify(window, serial s, ust, msc, Flip|Copy|Skip) ─► every selecting client
//!   observer: its own x11rb connection reads it ─► Matcher: the oldest present not yet completed is n
//! ```
//!
//! The events come in the order the presents were made (the server
//! completes one window's presents in order), so the match is first in,
//! first out; a gap in the presenting client's serials (Mesa numbers its
//! presents one by one) is a present whose completion the observer did not
//! see, and its frame stays an estimate. Mesa's DRI3 drivers present through
//! Present; Mesa 22.3's lavapipe draws with PutImage, so its frames raise no
//! event: the observer then hears nothing and the window falls back.

use std::collections::VecDeque;

use timestep_core::feedback::{Feedback, FeedbackFlags};

use super::PresentKinds;
use crate::time::Nanos;

/// How the server completed a present (Present's `CompleteMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Copied into the window.
    Copy,
    /// Flipped: the pixmap scanned out as it is.
    Flip,
    /// Never shown: a later present replaced it first.
    Skip,
    /// Copied, though the client could have flipped with another pixmap.
    SuboptimalCopy,
}

/// One `PresentCompleteNotify` for a pixmap present on the observed window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Complete {
    /// The presenting client's number for the present.
    pub serial: u32,
    /// When it completed: µs on the server's clock (`CLOCK_MONOTONIC` on Linux).
    pub ust_us: u64,
    /// The vblank counter at completion.
    pub msc: u64,
    /// Copied, flipped or skipped.
    pub mode: Mode,
}

/// Frames presented and not yet completed that are kept at most: a second
/// at 60 Hz, far past any swap chain's depth.
const PENDING: usize = 64;

/// Matches completions to the window's presents and turns them into feedback.
#[derive(Clone, Debug, Default)]
pub struct Matcher {
    /// Frames presented, oldest first, not yet completed.
    pending: VecDeque<u64>,
    last_serial: Option<u32>,
    /// The first shown completion since the counter last went back: `(ust µs, msc)`.
    anchor: Option<(u64, u64)>,
    kinds: PresentKinds,
    /// The lab clock's zero on the server's clock, ns.
    zero: Nanos,
}

impl Matcher {
    /// A matcher for a lab clock whose zero is `zero` ns on the server's clock.
    pub fn new(zero: Nanos) -> Matcher {
        Matcher { pending: VecDeque::with_capacity(PENDING), zero, ..Matcher::default() }
    }

    /// Frame `frame` is about to be presented.
    pub fn presenting(&mut self, frame: u64) {
        if self.pending.len() == PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back(frame);
    }

    /// Copy, flip and skip counts so far.
    pub fn kinds(&self) -> PresentKinds {
        self.kinds
    }

    /// The feedback for the present that `c` completed; `None` where no
    /// present of the window's is waiting (another client's present).
    ///
    /// The refresh is the average over the completions since the first:
    /// `(ust - ust₀) / (msc - msc₀)`, exact over time on a steady
    /// display (one pair of Xvfb's fake vblanks is 16 667 µs ± its timer's
    /// lateness). A counter that goes back (another monitor's CRTC) starts
    /// the average over.
    pub fn complete(&mut self, c: Complete) -> Option<Feedback> {
        if let Some(last) = self.last_serial {
            // Presents between the last seen and this one completed unseen: their frames stay estimates.
            let unseen = c.serial.wrapping_sub(last).saturating_sub(1) as usize;
            self.pending.drain(..unseen.min(self.pending.len()));
        }
        self.last_serial = Some(c.serial);
        match c.mode {
            Mode::Copy | Mode::SuboptimalCopy => self.kinds.copy += 1,
            Mode::Flip => self.kinds.flip += 1,
            Mode::Skip => self.kinds.skip += 1,
        }
        let refresh = if c.mode == Mode::Skip { 0 } else { self.refresh_at(c) };
        let frame = self.pending.pop_front()?;
        if c.mode == Mode::Skip {
            return Some(Feedback::discarded(frame));
        }
        let flags = match c.mode {
            Mode::Flip => FeedbackFlags::VSYNC.with(FeedbackFlags::ZERO_COPY),
            _ => FeedbackFlags::VSYNC,
        };
        let at = c.ust_us.saturating_mul(1_000).saturating_sub(self.zero);
        Some(Feedback::displayed(frame, at).with_refresh(refresh).with_flags(flags))
    }

    /// The average refresh since the anchor, ns; 0 where unknown.
    fn refresh_at(&mut self, c: Complete) -> Nanos {
        match self.anchor {
            Some((ust0, msc0)) if c.msc > msc0 && c.ust_us > ust0 => (c.ust_us - ust0) * 1_000 / (c.msc - msc0),
            Some((_, msc0)) if c.msc >= msc0 => 0,
            _ => {
                self.anchor = Some((c.ust_us, c.msc));
                0
            }
        }
    }
}

/// The observer on a connection of its own, and the app's source.
#[cfg(target_os = "linux")]
mod imp {
    use std::time::Duration;

    use timestep_core::feedback::Feedback;
    use winit::raw_window_handle::{HasWindowHandle, RawWindowHandle};
    use winit::window::Window;
    use x11rb::connection::{Connection as _, RequestConnection as _};
    use x11rb::protocol::Event;
    use x11rb::protocol::present::{self, CompleteKind, CompleteMode, ConnectionExt as _, EventMask};
    use x11rb::rust_connection::RustConnection;

    use super::{Complete, Matcher, Mode};
    use crate::platform::display_time::{DisplayTimes, Gives, Gpu, PresentKinds, clock_zero};
    use crate::time::{Nanos, RealClock};

    /// Watches one window's Present completions on a connection of its own:
    /// the server sends them to every client that selected them.
    pub struct PresentObserver {
        conn: RustConnection,
        window: u32,
    }

    impl std::fmt::Debug for PresentObserver {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("PresentObserver").field("window", &self.window).finish_non_exhaustive()
        }
    }

    impl PresentObserver {
        /// Selects `window`'s `PresentCompleteNotify` on a new connection to
        /// `display` (`None`: `$DISPLAY`).
        ///
        /// # Errors
        /// One line: no server, no Present extension, or the window refused.
        pub fn watch(display: Option<&str>, window: u32) -> Result<PresentObserver, String> {
            let (conn, _) = x11rb::connect(display).map_err(|e| format!("the X server: {e}"))?;
            if conn.extension_information(present::X11_EXTENSION_NAME).ok().flatten().is_none() {
                return Err("the X server has no Present extension".to_owned());
            }
            conn.present_query_version(1, 2)
                .map_err(|e| e.to_string())?
                .reply()
                .map_err(|e| format!("Present's version: {e}"))?;
            let eid = conn.generate_id().map_err(|e| e.to_string())?;
            conn.present_select_input(eid, window, EventMask::COMPLETE_NOTIFY)
                .map_err(|e| e.to_string())?
                .check()
                .map_err(|e| format!("selecting the window's Present events: {e}"))?;
            Ok(PresentObserver { conn, window })
        }

        /// The completions of pixmap presents on the window that arrived, in order.
        ///
        /// # Errors
        /// The connection broke.
        pub fn read(&self) -> Result<Vec<Complete>, String> {
            let mut out = Vec::new();
            while let Some(event) = self.conn.poll_for_event().map_err(|e| e.to_string())? {
                if let Some(c) = completion(&event, self.window) {
                    out.push(c);
                }
            }
            Ok(out)
        }

        /// Like [`PresentObserver::read`], waiting up to `timeout` for at least `n` completions.
        ///
        /// # Errors
        /// The connection broke.
        pub fn read_until(&self, n: usize, timeout: Duration) -> Result<Vec<Complete>, String> {
            let end = std::time::Instant::now() + timeout;
            let mut out = self.read()?;
            while out.len() < n && std::time::Instant::now() < end {
                std::thread::sleep(Duration::from_millis(2));
                out.extend(self.read()?);
            }
            Ok(out)
        }
    }

    /// A pixmap present's completion on `window`, from any event.
    pub fn completion(event: &Event, window: u32) -> Option<Complete> {
        let Event::PresentCompleteNotify(e) = event else { return None };
        if e.window != window || e.kind != CompleteKind::PIXMAP {
            return None;
        }
        let mode = match e.mode {
            CompleteMode::FLIP => Mode::Flip,
            CompleteMode::SKIP => Mode::Skip,
            CompleteMode::SUBOPTIMAL_COPY => Mode::SuboptimalCopy,
            _ => Mode::Copy,
        };
        Some(Complete { serial: e.serial, ust_us: e.ust, msc: e.msc, mode })
    }

    /// How far a first completion's ust may lie from this machine's
    /// `CLOCK_MONOTONIC` before the server is taken to be elsewhere (a
    /// remote display, whose clock is not ours): a second.
    const SAME_CLOCK: Nanos = 1_000_000_000;

    /// The app's source: the window's completions, matched to its frames.
    #[derive(Debug)]
    struct X11Present {
        observer: PresentObserver,
        matcher: Matcher,
        /// Why its times cannot be used, found at the first completion.
        foreign: Option<String>,
        checked: bool,
    }

    /// The source for an X11 window.
    ///
    /// # Errors
    /// Not an X11 window, or the server has no Present.
    pub(crate) fn open(window: &Window, clock: &RealClock) -> Result<Box<dyn DisplayTimes>, String> {
        let id = match window.window_handle().map_err(|e| e.to_string())?.as_raw() {
            RawWindowHandle::Xlib(h) => u32::try_from(h.window).map_err(|e| e.to_string())?,
            RawWindowHandle::Xcb(h) => h.window.get(),
            _ => return Err("not an X11 window".to_owned()),
        };
        let observer = PresentObserver::watch(None, id)?;
        let zero = clock_zero(clock, rustix::time::ClockId::Monotonic);
        Ok(Box::new(X11Present { observer, matcher: Matcher::new(zero), foreign: None, checked: false }))
    }

    impl DisplayTimes for X11Present {
        fn name(&self) -> &'static str {
            "x11-present"
        }

        fn gives(&self) -> Gives {
            Gives { display_time: true, refresh: true, skipped: true, copied: true }
        }

        fn presenting(&mut self, frame: u64, _gpu: Gpu<'_>) {
            self.matcher.presenting(frame);
        }

        fn poll(&mut self, _gpu: Gpu<'_>, take: &mut dyn FnMut(Feedback)) -> u64 {
            let completions = match self.observer.read() {
                Ok(c) => c,
                Err(e) => {
                    self.foreign.get_or_insert_with(|| format!("the X connection: {e}"));
                    return 0;
                }
            };
            let mut n = 0;
            for c in completions {
                if !self.checked {
                    self.checked = true;
                    let now = monotonic_now();
                    let ust = c.ust_us.saturating_mul(1_000);
                    if ust.abs_diff(now) > SAME_CLOCK {
                        self.foreign = Some(format!(
                            "Present's ust is {:.1} s from this machine's clock (a remote X server?)",
                            ust.abs_diff(now) as f64 / 1e9
                        ));
                    }
                }
                if self.foreign.is_some() {
                    continue;
                }
                if let Some(feedback) = self.matcher.complete(c) {
                    take(feedback);
                    n += 1;
                }
            }
            n
        }

        fn kinds(&self) -> Option<PresentKinds> {
            Some(self.matcher.kinds())
        }

        fn silence(&self, presents: u64) -> String {
            match &self.foreign {
                Some(why) => why.clone(),
                None => format!(
                    "X11 Present completed none of the window's {presents} presents: the driver draws it another \
                     way (PutImage, as Mesa 22.3's lavapipe does)"
                ),
            }
        }
    }

    /// `CLOCK_MONOTONIC` now, ns.
    fn monotonic_now() -> Nanos {
        let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        let secs = u64::try_from(now.tv_sec).unwrap_or(0);
        secs.saturating_mul(crate::time::NANOS_PER_SEC).saturating_add(u64::try_from(now.tv_nsec).unwrap_or(0))
    }
}

/// Elsewhere there is no X server.
#[cfg(all(not(target_os = "linux"), not(target_arch = "wasm32")))]
mod imp {
    use crate::platform::display_time::DisplayTimes;
    use crate::time::RealClock;
    use winit::window::Window;

    /// No X11 on this platform.
    ///
    /// # Errors
    /// Always.
    pub(crate) fn open(_window: &Window, _clock: &RealClock) -> Result<Box<dyn DisplayTimes>, String> {
        Err("not an X11 platform".to_owned())
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub(crate) use imp::open;
#[cfg(target_os = "linux")]
pub use imp::{PresentObserver, completion};

#[cfg(test)]
mod tests {
    use super::*;

    fn flipped() -> FeedbackFlags {
        FeedbackFlags::VSYNC.with(FeedbackFlags::ZERO_COPY)
    }

    fn done(serial: u32, ust_us: u64, msc: u64, mode: Mode) -> Complete {
        Complete { serial, ust_us, msc, mode }
    }

    /// The lab's zero is 1 s on the server's clock; frames 10 to 13 are presented:
    ///
    /// ```text
    /// serial  ust (µs)   msc  mode  → frame  D (ns)       refresh (ns)
    ///   7     1 016 667  100  Flip     10    16 667 000   unknown (the first)
    ///   8     1 033 334  101  Copy     11    33 334 000   16 667 000  (16 667 µs / 1)
    ///   9     1 066 668  103  Flip     12    66 668 000   16 667 000  (50 001 µs / 3: msc 102 repeated frame 11)
    ///  10     1 066 700  103  Skip     13    discarded
    /// ```
    #[test]
    fn completions_time_the_frames_in_present_order_by_ust_with_a_skipped_refresh_and_a_skip() {
        let mut m = Matcher::new(1_000_000_000);
        for frame in 10..=13 {
            m.presenting(frame);
        }
        let got: Vec<Option<Feedback>> = [
            done(7, 1_016_667, 100, Mode::Flip),
            done(8, 1_033_334, 101, Mode::Copy),
            done(9, 1_066_668, 103, Mode::Flip),
            done(10, 1_066_700, 103, Mode::Skip),
        ]
        .into_iter()
        .map(|c| m.complete(c))
        .collect();
        assert_eq!(
            got[0],
            Some(Feedback::displayed(10, 16_667_000).with_flags(flipped())),
            "the first: no refresh yet"
        );
        assert_eq!(
            got[1],
            Some(Feedback::displayed(11, 33_334_000).with_refresh(16_667_000).with_flags(FeedbackFlags::VSYNC)),
            "copied: on a vblank, not zero-copy"
        );
        assert_eq!(got[2], Some(Feedback::displayed(12, 66_668_000).with_refresh(16_667_000).with_flags(flipped())));
        assert_eq!(got[3], Some(Feedback::discarded(13)), "skipped: never shown");
        assert_eq!(m.kinds(), PresentKinds { copy: 1, flip: 2, skip: 1 });
    }

    #[test]
    fn a_present_completed_unseen_leaves_its_frame_an_estimate_across_the_serials_wrap() {
        let mut m = Matcher::new(0);
        for frame in 30..=33 {
            m.presenting(frame);
        }
        let frames: Vec<Option<u64>> =
            [done(u32::MAX, 1_000, 1, Mode::Flip), done(0, 2_000, 2, Mode::Flip), done(2, 4_000, 4, Mode::Flip)]
                .into_iter()
                .map(|c| m.complete(c).map(|f| f.frame))
                .collect();
        assert_eq!(frames, [Some(30), Some(31), Some(33)], "serial 1 was not seen: frame 32 gets no word");
    }

    #[test]
    fn another_clients_present_times_no_frame_and_a_counter_that_goes_back_restarts_the_refresh() {
        let mut m = Matcher::new(0);
        assert_eq!(m.complete(done(1, 1_000_000, 100, Mode::Copy)), None, "no present of ours waits");
        m.presenting(1);
        m.presenting(2);
        m.presenting(3);
        assert_eq!(m.complete(done(2, 1_016_667, 101, Mode::Copy)).and_then(|f| f.refresh), Some(16_667_000));
        // The window moved to a 144 Hz monitor: its CRTC's counter is elsewhere.
        assert_eq!(m.complete(done(3, 1_100_000, 5, Mode::Copy)).and_then(|f| f.refresh), None, "a new average");
        assert_eq!(m.complete(done(4, 1_106_944, 6, Mode::Copy)).and_then(|f| f.refresh), Some(6_944_000));
    }
}
