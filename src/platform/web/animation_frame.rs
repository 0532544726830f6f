//! requestAnimationFrame: the browser's frame clock.
//!
//! winit does not hand the app requestAnimationFrame's timestamp, so a hook
//! of our own runs in every animation frame (registered before winit's
//! callback, it runs first) and gives the stamps to a [`FrameClock`]. From
//! them come a frame's start (the stamp, not when the callback runs), the
//! display time of a present (the next stamp after it), and the screen's
//! refresh (what the stamps are multiples of, however many refreshes the
//! page missed).
//!
//! The hook's closure is owned here and the frame it asked for is cancelled
//! when it is dropped. A failed request is logged and shown: the display
//! times fall back to the present's own time, and the page says so.

use std::cell::{Cell, RefCell};

use wasm_bindgen::JsCast as _;
use wasm_bindgen::closure::Closure;

use super::dom::describe;
use super::message_box::notify;
use crate::platform::frame_clock::{FrameClock, STALE_MS};
use crate::time::{Clock as _, Instant, Nanos, RealClock};

/// The requestAnimationFrame chain: its closure and the frame it asked for.
struct FrameHook {
    callback: Closure<dyn FnMut(f64)>,
    requested: Cell<Option<i32>>,
}

impl FrameHook {
    /// Asks for the next animation frame; false (logged and shown) when the browser refuses.
    fn request(&self) -> bool {
        let Some(window) = web_sys::window() else { return false };
        match window.request_animation_frame(self.callback.as_ref().unchecked_ref()) {
            Ok(id) => {
                self.requested.set(Some(id));
                true
            }
            Err(err) => {
                self.requested.set(None);
                notify(&format!(
                    "requestAnimationFrame failed ({}): display times are the presents' own from now on",
                    describe(&err)
                ));
                false
            }
        }
    }
}

impl Drop for FrameHook {
    fn drop(&mut self) {
        if let (Some(window), Some(id)) = (web_sys::window(), self.requested.take())
            && let Err(err) = window.cancel_animation_frame(id)
        {
            log::warn!("cannot cancel the frame hook's animation frame: {}", describe(&err));
        }
    }
}

thread_local! {
    static HOOK: RefCell<Option<FrameHook>> = const { RefCell::new(None) };
    /// Whether the chain broke (a refused request): estimates stop, said once.
    static BROKEN: Cell<bool> = const { Cell::new(false) };
    static CLOCK: RefCell<FrameClock> = RefCell::new(FrameClock::default());
    /// The display time last handed out and the requestAnimationFrame stamp
    /// of the frame it went to (`None` for a frame on a timer), on the app clock's scale.
    static LAST_DISPLAY: Cell<Option<(Nanos, Option<Nanos>)>> = const { Cell::new(None) };
    /// `performance.now()` at a clock's zero (its `instant_at(0)`), ms, read
    /// once for that clock: see [`on_clock`].
    static ZERO_MS: Cell<Option<(Instant, f64)>> = const { Cell::new(None) };
}

/// Starts the hook (once): the page calls it as its event loop starts, so
/// the stamps of the frames while the GPU starts (an idle page) count too.
pub(super) fn ensure_hook() {
    if BROKEN.get() || HOOK.with(|h| h.borrow().is_some()) {
        return;
    }
    let callback = Closure::<dyn FnMut(f64)>::new(|stamp: f64| {
        CLOCK.with(|c| c.borrow_mut().record(stamp));
        let again = HOOK.with(|h| h.borrow().as_ref().is_some_and(FrameHook::request));
        if !again {
            BROKEN.set(true);
        }
    });
    let hook = FrameHook { callback, requested: Cell::new(None) };
    if hook.request() {
        HOOK.with(|h| *h.borrow_mut() = Some(hook));
    } else {
        BROKEN.set(true);
    }
}

/// The page's `performance.now()`, ms (logged once when there is none).
fn page_now_ms() -> Option<f64> {
    let performance = web_sys::window().and_then(|w| w.performance());
    if performance.is_none() {
        thread_local!(static SAID: Cell<bool> = const { Cell::new(false) });
        if !SAID.replace(true) {
            log::warn!("no window.performance: frames are timed without the browser's frame clock");
        }
    }
    Some(performance?.now())
}

/// Page time `ms` (`performance.now()`'s scale) on `clock`'s, 0 before its
/// zero: one subtraction of the clock's zero, read once. A frame's start
/// was `clock.now()` less the stamp's age (`performance.now()` minus the
/// stamp): two reads of a clock the browser coarsens (to 5 µs when cross-origin
/// isolated, 100 µs when not) and jitters, whose difference moved every
/// frame's start by microseconds. At a tick rate a hair off the screen's,
/// catch-up's frames sit on a tick boundary after a switch, and that noise
/// flipped them between 0 and 2 steps. In the web test `measure_in_the_page`
/// (2 s a strategy, the model predicting 1 hitch, up to 3 over its start
/// phases), 5 of 9 tours had 5 hitches before, and one of 8 more than 3
/// after (3, 2, 1, 1, 1, 0, 0, 4): the stamps themselves still jitter.
fn on_clock(clock: &RealClock, ms: f64) -> Option<Nanos> {
    let zero = clock.instant_at(0);
    let zero_ms = match ZERO_MS.get() {
        Some((at, zero_ms)) if at == zero => zero_ms,
        _ => {
            let zero_ms = page_now_ms()? - clock.now() as f64 / 1e6;
            ZERO_MS.set(Some((zero, zero_ms)));
            zero_ms
        }
    };
    let ns = (ms - zero_ms) * 1e6;
    // Truncation floors a positive time; NaN and times before the zero are 0.
    Some(if ns > 0.0 { ns as Nanos } else { 0 })
}

/// Where the page's display times come from: the requestAnimationFrame after the present.
pub(crate) const DISPLAY_TIME_SOURCE: timestep_core::feedback::DisplayTimeSource =
    timestep_core::feedback::DisplayTimeSource::AnimationFrame;

/// The screen's refresh rate in Hz, from requestAnimationFrame's stamps
/// (however many refreshes the page itself missed); `None` until enough
/// frames agree on one.
pub(crate) fn screen_refresh() -> Option<f64> {
    ensure_hook();
    CLOCK.with(|c| c.borrow().refresh_hz())
}

/// The display time of a frame presented at `presented_at`: the browser
/// shows it no earlier than the next requestAnimationFrame time after the
/// present (whether or not this frame's callback has run yet: our callback
/// and winit's take turns being first), and at most one frame a refresh, so
/// a second present before that refresh (a frame on a timer, or a second one
/// in the same callback) is shown the refresh after the last one's;
/// `presented_at` until the stamps say anything.
///
/// A frame of a new callback is shown at its own next refresh. Where an
/// estimate of the burst before it already took that refresh, one frame of
/// the burst was replaced, not shown: `None` (this frame stands in for it,
/// so the count of frames shown is right and no two share a refresh). The
/// estimates were once carried a refresh further instead, and a lead that
/// one burst gave them never drained: an idle tour modelled the page four deep.
pub(crate) fn display_time(clock: &RealClock, presented_at: Nanos) -> Option<Nanos> {
    let Some((next, period)) = next_refresh(clock) else {
        LAST_DISPLAY.set(None);
        return Some(presented_at);
    };
    let stamp = frame_timestamp(clock);
    let taken = |last: Nanos| next < last.saturating_add(period / 2);
    let shown = match LAST_DISPLAY.get() {
        Some((last, last_stamp)) if taken(last) && new_callback(stamp, last_stamp, period) => {
            LAST_DISPLAY.set(Some((last, stamp)));
            return None;
        }
        Some((last, _)) if taken(last) => last.saturating_add(period),
        _ => next,
    };
    LAST_DISPLAY.set(Some((shown, stamp)));
    Some(shown)
}

/// Whether a frame stamped `stamp` runs in a later requestAnimationFrame
/// callback than the last frame (stamped `last`): more than half a refresh
/// after it. A frame on a timer has no stamp and never is.
fn new_callback(stamp: Option<Nanos>, last: Option<Nanos>, period: Nanos) -> bool {
    match (stamp, last) {
        (Some(stamp), Some(last)) => stamp > last.saturating_add(period / 2),
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// The next requestAnimationFrame time after now on `clock`'s scale, and
/// the screen's refresh period (the last interval until the period is
/// known); `None` before two frames, after a gap (a hidden page, a stall)
/// or once requestAnimationFrame failed.
pub(crate) fn next_refresh(clock: &RealClock) -> Option<(Nanos, Nanos)> {
    ensure_hook();
    if BROKEN.get() {
        return None;
    }
    let (last, interval) =
        CLOCK.with(|c| c.borrow().last_stamp().zip(c.borrow().period_ms().or(c.borrow().last_interval())))?;
    let now_ms = page_now_ms()?;
    if now_ms - last > STALE_MS {
        return None;
    }
    let next_ms = last + interval * (((now_ms - last) / interval).floor() + 1.0).max(1.0);
    Some((on_clock(clock, next_ms)?, (interval * 1e6) as Nanos))
}

/// The start of the frame that requestAnimationFrame is running, on
/// `clock`'s scale: the callback's timestamp, which is the page's
/// `document.timeline.currentTime` in every callback of that frame (measured in
/// headless Chromium: 0.0 ms apart in 120 of 120 frames, with both a callback
/// of ours and one of winit's). A browser game reads it as its frame time: the
/// callback itself runs 0.5 to 4 ms after it, by how busy the page is, and that
/// jitter would reach every strategy that reads the clock. `None` outside a
/// frame (a timer) or when the timeline is stale or absent.
pub(crate) fn frame_timestamp(clock: &RealClock) -> Option<Nanos> {
    let window = web_sys::window()?;
    let stamp = window.document()?.timeline().current_time()?;
    let age_ms = page_now_ms()? - stamp;
    if !(age_ms.is_finite() && (0.0..STALE_MS).contains(&age_ms)) {
        return None;
    }
    on_clock(clock, stamp)
}
