//! When each frame reached the screen, from whatever the platform says: one
//! seam, one file per source.
//!
//! ```text
//!   frame n:  render ─ presenting(n) ─ queue.present ─ presented(n)
//!   later:    poll() ─► Feedback { frame n, D, refresh, flags } ─► session
//!   silent:   no answer to the first FIRST_ANSWER presents, or none for
//!             SILENT_FOR presents after some ─► present-return, said once
//! ```
//!
//! | source | file | gives | platform |
//! |---|---|---|---|
//! | `wp-presentation` | `wayland.rs` | D, refresh, vsync/hw-clock/zero-copy, discarded | Wayland |
//! | `x11-present` | `x11_present.rs` | D (ust), refresh (from msc), copy/flip/skip | X11 with DRI3/Present |
//! | `dxgi-frame-statistics` | `dxgi.rs` | D (QPC), refresh, refreshes skipped, never shown | Windows, DX12 |
//! | `vk-google-display-timing` | `vk_display_timing.rs` | D, refresh | Vulkan drivers with the extension |
//! | `present-return` | `present_return.rs` | nothing: the present call's return stays the estimate | everywhere |
//!
//! A source implements [`DisplayTimes`]; [`DisplayTimer`] asks each that the
//! platform has, in order, keeps the first that opens, watches it, and falls
//! back to `present-return` when it stays silent, with the reason, once (the
//! log, the overlay's line and the card's `display_time_fallback`). The
//! conversions from each platform's counters to display times are pure
//! functions that build everywhere, so their tests run on any machine.

#[cfg_attr(all(not(windows), not(test)), expect(dead_code, reason = "read on Windows; its tests run everywhere"))]
pub(crate) mod dxgi;
mod present_return;
#[cfg_attr(
    all(not(target_os = "linux"), not(test)),
    expect(dead_code, reason = "read on Linux; its tests run everywhere")
)]
pub(crate) mod vk_display_timing;
#[cfg(not(target_arch = "wasm32"))]
mod wayland;
pub mod x11_present;

use timestep_core::feedback::Feedback;

/// What a source says about each frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gives {
    /// When the frame was shown, on the lab's clock.
    pub(crate) display_time: bool,
    /// The display's refresh period.
    pub(crate) refresh: bool,
    /// That a frame was never shown (skipped, discarded).
    pub(crate) skipped: bool,
    /// Whether the frame was copied or flipped to the screen.
    pub(crate) copied: bool,
}

impl Gives {
    /// What it gives, in words: `display time, refresh, skipped`.
    pub(crate) fn words(self) -> String {
        let named = [
            (self.display_time, "display time"),
            (self.refresh, "refresh"),
            (self.skipped, "skipped"),
            (self.copied, "copied or flipped"),
        ];
        let words: Vec<&str> = named.into_iter().filter_map(|(given, word)| given.then_some(word)).collect();
        words.join(", ")
    }
}

/// How a source's frames reached the screen: X11 Present's completion modes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PresentKinds {
    /// Copied into the window (`Copy`, `SuboptimalCopy`).
    pub copy: u64,
    /// Flipped: the frame's buffer scanned out as it is.
    pub flip: u64,
    /// Never shown: a later present replaced it first.
    pub skip: u64,
}

/// What a source may read around a present: the window's surface and the
/// device (DXGI's swap chain and Vulkan's are behind them, through wgpu's `as_hal`).
#[derive(Clone, Copy)]
pub(crate) struct Gpu<'a> {
    /// The window's surface.
    #[cfg_attr(
        not(any(windows, target_os = "linux")),
        expect(dead_code, reason = "read by DXGI (Windows) and Vulkan's display timing (Linux)")
    )]
    pub(crate) surface: &'a wgpu::Surface<'static>,
    /// The device that presents on it.
    #[cfg_attr(not(target_os = "linux"), expect(dead_code, reason = "read by Vulkan's display timing (Linux)"))]
    pub(crate) device: &'a wgpu::Device,
}

/// One source of display times: a new platform is one more implementation.
pub(crate) trait DisplayTimes {
    /// Its name on the card (`display_time_api`) and the overlay: `x11-present`, …
    fn name(&self) -> &'static str;
    /// What it says about each frame.
    fn gives(&self) -> Gives;
    /// Frame `frame` is about to be presented (the next present call is its).
    fn presenting(&mut self, frame: u64, gpu: Gpu<'_>);
    /// Frame `frame`'s present call returned.
    fn presented(&mut self, _frame: u64, _gpu: Gpu<'_>) {}
    /// Hands every answer that arrived to `take`, on the lab's clock; the count handed.
    fn poll(&mut self, gpu: Gpu<'_>, take: &mut dyn FnMut(Feedback)) -> u64;
    /// Copy, flip and skip counts, where the source tells them.
    fn kinds(&self) -> Option<PresentKinds> {
        None
    }
    /// Why it never answered, in a few words (the fallback's reason).
    fn silence(&self, presents: u64) -> String {
        format!("{} answered none of the window's {presents} presents", self.name())
    }
}

/// Presents a source may leave unanswered at the start before it is taken
/// for silent: a second at 60 Hz. Present and `wp_presentation` answer at
/// the next vblank, DXGI within a few, `VK_GOOGLE_display_timing` within the
/// swap chain's depth.
pub(crate) const FIRST_ANSWER: u64 = 60;

/// Presents in a row without an answer, once a source has answered, before it
/// is taken for silent: two seconds at 60 Hz (a window hidden for longer
/// stops presenting under Fifo, so it is not counted).
pub(crate) const SILENT_FOR: u64 = 120;

/// Whether a source still answers: counts presents since its last answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Watch {
    asked: u64,
    answered: u64,
    since_answer: u64,
}

/// Why a source was given up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Silence {
    /// It answered none of the first presents.
    Never(u64),
    /// It answered `answered`, then nothing for `since` presents.
    Stopped { answered: u64, since: u64 },
}

impl Watch {
    /// One more present asked about; `Some` when the source is now taken for silent.
    pub(crate) fn asked(&mut self) -> Option<Silence> {
        self.asked += 1;
        self.since_answer += 1;
        if self.answered == 0 {
            (self.asked >= FIRST_ANSWER).then_some(Silence::Never(self.asked))
        } else {
            (self.since_answer >= SILENT_FOR)
                .then_some(Silence::Stopped { answered: self.answered, since: self.since_answer })
        }
    }

    /// `n` answers arrived.
    pub(crate) fn answered(&mut self, n: u64) {
        if n > 0 {
            self.answered += n;
            self.since_answer = 0;
        }
    }
}

/// The window's display times: the source in use, or the present's return
/// and why.
pub(crate) struct DisplayTimer {
    source: Option<Box<dyn DisplayTimes>>,
    watch: Watch,
    /// The name of the source that times the frames now.
    name: &'static str,
    /// Why the frames are timed by their present's return, where a source was tried.
    fallback: Option<String>,
    /// Copy/flip/skip counts of the source, kept after a fallback.
    kinds: Option<PresentKinds>,
    /// A source was in use and was given up (not: none opened).
    gave_up: bool,
}

impl std::fmt::Debug for DisplayTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DisplayTimer").field("name", &self.name).field("fallback", &self.fallback).finish()
    }
}

impl DisplayTimer {
    /// Times frames with `source`, or by their present's return and `why` not.
    pub(crate) fn new(source: Result<Box<dyn DisplayTimes>, String>) -> DisplayTimer {
        match source {
            Ok(source) => {
                let gives = source.gives();
                log::info!("display times: {} (gives {})", source.name(), gives.words());
                DisplayTimer {
                    name: source.name(),
                    source: Some(source),
                    watch: Watch::default(),
                    fallback: None,
                    kinds: None,
                    gave_up: false,
                }
            }
            Err(why) => {
                log::info!("display times: {} ({why})", present_return::NAME);
                DisplayTimer {
                    name: present_return::NAME,
                    source: None,
                    watch: Watch::default(),
                    fallback: Some(why),
                    kinds: None,
                    gave_up: false,
                }
            }
        }
    }

    /// Frame `frame` is about to be presented; whether an answer about it is awaited.
    pub(crate) fn presenting(&mut self, frame: u64, gpu: Gpu<'_>) -> bool {
        let Some(source) = self.source.as_mut() else { return false };
        source.presenting(frame, gpu);
        self.still_heard()
    }

    /// Counts one present asked about; `false`, and the fallback, once the source is taken for silent.
    fn still_heard(&mut self) -> bool {
        let Some(source) = self.source.as_ref() else { return false };
        let Some(silence) = self.watch.asked() else { return true };
        let why = match silence {
            Silence::Never(presents) => source.silence(presents),
            Silence::Stopped { answered, since } => {
                format!("{} answered {answered} presents, then none of {since}", source.name())
            }
        };
        self.fall_back(why);
        false
    }

    /// Frame `frame`'s present call returned.
    pub(crate) fn presented(&mut self, frame: u64, gpu: Gpu<'_>) {
        if let Some(source) = self.source.as_mut() {
            source.presented(frame, gpu);
        }
    }

    /// Hands every answer that arrived to `take`.
    pub(crate) fn poll(&mut self, gpu: Gpu<'_>, mut take: impl FnMut(Feedback)) {
        if let Some(source) = self.source.as_mut() {
            let n = source.poll(gpu, &mut take);
            self.watch.answered(n);
            self.kinds = source.kinds();
        }
    }

    /// Gives the source up: the present's return times the frames from now on, said once.
    fn fall_back(&mut self, why: String) {
        log::warn!("display times fell back to {}: {why}", present_return::NAME);
        if let Some(source) = self.source.take() {
            self.kinds = source.kinds();
        }
        self.name = present_return::NAME;
        self.fallback = Some(why);
        self.gave_up = true;
    }

    /// The name of the source that times the frames now (`x11-present`, `present-return`).
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// Why the frames are timed by their present's return, where a source was tried or given up.
    pub(crate) fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// Copy, flip and skip counts, where the source tells them.
    pub(crate) fn kinds(&self) -> Option<PresentKinds> {
        self.kinds
    }

    /// The overlay's line: the source and its counts (`x11-present: 58 flip, 2 copy, 0 skip`).
    pub(crate) fn line(&self) -> String {
        match self.kinds {
            Some(k) => format!("{}: {} flip, {} copy, {} skip", self.name, k.flip, k.copy, k.skip),
            None => self.name.to_owned(),
        }
    }

    /// The overlay's note where a source was given up: the present's return times the frames, and why.
    pub(crate) fn fallback_note(&self) -> Option<String> {
        let why = self.fallback.as_ref().filter(|_| self.gave_up)?;
        Some(format!("display times fell back to {}: {why}", present_return::NAME))
    }
}

/// Opens the platform's display-time source for `window`, in order of
/// preference; `Err` with every source's reason where none opens.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn open(
    window: &winit::window::Window,
    gpu: Gpu<'_>,
    clock: &crate::time::RealClock,
) -> Result<Box<dyn DisplayTimes>, String> {
    let mut why = Vec::new();
    match wayland::PresentationFeedback::new(window, clock) {
        Ok(source) => return Ok(Box::new(source)),
        Err(e) => why.push(format!("wp-presentation: {e}")),
    }
    match x11_present::open(window, clock) {
        Ok(source) => return Ok(source),
        Err(e) => why.push(format!("x11-present: {e}")),
    }
    match dxgi::open(gpu, clock) {
        Ok(source) => return Ok(source),
        Err(e) => why.push(format!("dxgi-frame-statistics: {e}")),
    }
    match vk_display_timing::open(gpu, clock) {
        Ok(source) => return Ok(source),
        Err(e) => why.push(format!("vk-google-display-timing: {e}")),
    }
    Err(why.join("; "))
}

/// A page has no display-time source: its times are requestAnimationFrame's.
#[cfg(target_arch = "wasm32")]
pub(crate) fn open(
    _window: &winit::window::Window,
    _gpu: Gpu<'_>,
    _clock: &crate::time::RealClock,
) -> Result<Box<dyn DisplayTimes>, String> {
    Err("a browser gives no presentation feedback".to_owned())
}

/// The lab clock's zero on `other`, a clock of the machine's (the
/// compositor's, the X server's): read between two readings of the lab
/// clock (they are a few tens of ns apart).
#[cfg(target_os = "linux")]
fn clock_zero(clock: &crate::time::RealClock, other: rustix::time::ClockId) -> crate::time::Nanos {
    use crate::time::Clock as _;
    let before = clock.now();
    let now = rustix::time::clock_gettime(other);
    let after = clock.now();
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(now.tv_nsec).unwrap_or(0);
    let other_now = secs.saturating_mul(crate::time::NANOS_PER_SEC).saturating_add(nanos);
    other_now.saturating_sub(before + (after - before) / 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that answers the frames the test says.
    struct Scripted {
        answers: u64,
    }

    impl DisplayTimes for Scripted {
        fn name(&self) -> &'static str {
            "scripted"
        }
        fn gives(&self) -> Gives {
            Gives { display_time: true, refresh: false, skipped: false, copied: false }
        }
        fn presenting(&mut self, _frame: u64, _gpu: Gpu<'_>) {}
        fn poll(&mut self, _gpu: Gpu<'_>, take: &mut dyn FnMut(Feedback)) -> u64 {
            for frame in 0..self.answers {
                take(Feedback::displayed(frame, 1_000 * frame));
            }
            std::mem::take(&mut self.answers)
        }
    }

    #[test]
    fn a_source_that_never_answers_is_given_up_at_the_sixtieth_present_and_says_so_once() {
        let mut timer = DisplayTimer::new(Ok(Box::new(Scripted { answers: 0 })));
        let awaited: Vec<bool> = (0..FIRST_ANSWER + 5).map(|_| timer.still_heard()).collect();
        assert!(awaited[..59].iter().all(|a| *a), "the first 59 presents await an answer");
        assert!(awaited[59..].iter().all(|a| !*a), "from the 60th on nothing is awaited");
        assert_eq!(timer.name(), "present-return");
        assert_eq!(timer.fallback(), Some("scripted answered none of the window's 60 presents"));
        assert_eq!(
            timer.fallback_note().as_deref(),
            Some("display times fell back to present-return: scripted answered none of the window's 60 presents")
        );
    }

    #[test]
    fn a_source_that_answers_then_stops_is_given_up_after_120_silent_presents() {
        let mut watch = Watch::default();
        assert_eq!(watch.asked(), None);
        watch.answered(1);
        for _ in 1..SILENT_FOR {
            assert_eq!(watch.asked(), None, "under 120 presents without an answer");
        }
        assert_eq!(watch.asked(), Some(Silence::Stopped { answered: 1, since: 120 }));
    }

    #[test]
    fn a_source_answering_every_fiftieth_present_is_kept() {
        let mut watch = Watch::default();
        for present in 1..=1000 {
            assert_eq!(watch.asked(), None, "present {present}");
            if present % 50 == 0 {
                watch.answered(1);
            }
        }
    }

    #[test]
    fn what_a_source_gives_reads_as_words() {
        let gives = Gives { display_time: true, refresh: true, skipped: false, copied: true };
        assert_eq!(gives.words(), "display time, refresh, copied or flipped");
    }

    #[test]
    fn no_source_says_why_from_the_start() {
        let timer = DisplayTimer::new(Err("x11-present: not an X11 window".to_owned()));
        assert_eq!(timer.line(), "present-return");
        assert_eq!(timer.fallback(), Some("x11-present: not an X11 window"), "for the log and the card");
        assert_eq!(timer.fallback_note(), None, "the overlay's estimate row says enough");
    }
}
