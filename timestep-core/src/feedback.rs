//! Presentation feedback: when a frame was really shown, as the display path
//! says it, frames after the present.
//!
//! A present call returns when the swap chain took the image, not when the
//! picture changed: under Fifo with two or three images queued the picture
//! appears one or two refreshes later, a compositor may drop a frame that a
//! newer one replaced, and the call's return cannot tell. Some platforms say
//! what happened, late: the game hands that to [`Pacer::displayed`](crate::Pacer::displayed)
//! (or the lab's `Session::feedback`) as a [`Feedback`] for the frame's id
//! ([`Frame::id`](crate::Frame::id)), whenever it arrives.
//!
//! ```text
//!   frame 7:  advance ─ draw ─ present ───────────────────────────────────────────
//!   frame 8:                         advance ─ draw ─ present ────────────────────
//!   frame 9:                                                 advance ─ draw ─ ...
//!   display:                      |  v  |  v: frame 7 shown  |  v: frame 8 shown
//!   feedback:                                  displayed(7, at v) ───►  displayed(8, at v)
//! ```
//!
//! The pacer's refresh measurement and vsync verdict take the display's own
//! word over what the presents' timing suggests: its refresh, and whether it
//! presented on a vblank. The lab's session keeps each frame's figures back
//! until its feedback arrives, up to [`FEEDBACK_WAIT`] and
//! [`FEEDBACK_WAIT_FRAMES`] of later presents,
//! then settles it with the actual display time, as discarded, or (no word
//! came) with the present's return, counting how often.
//!
//! # Where feedback comes from
//!
//! Each of these gives, per presented image, a display time on a clock the
//! game can read, and the game passes it on with the frame id it kept for
//! that present (the times converted to the pacer's clock by one offset,
//! taken once by reading both clocks):
//!
//! - **Wayland `wp_presentation`**: before the commit that presents the
//!   frame, `feedback(surface)`; the answer is `presented(tv_sec, tv_nsec,
//!   refresh, seq, flags)` on the clock `clock_id` names (`CLOCK_MONOTONIC`
//!   on Weston, Mutter, KWin, Sway), or `discarded`. The time is the
//!   displayed time, the refresh the output's period in ns (0: unknown), the
//!   flags map one to one onto [`FeedbackFlags`].
//! - **`VK_GOOGLE_display_timing`**: a `presentID` chained to each present,
//!   then `vkGetPastPresentationTimingGOOGLE` returns `actualPresentTime`
//!   (on the `CLOCK_MONOTONIC` timeline on Linux) per id, a few frames later;
//!   `vkGetRefreshCycleDurationGOOGLE` gives the refresh. A present missing
//!   from the answers is not known to be discarded: give nothing, the
//!   estimate stays.
//! - **`VK_KHR_present_wait`**: a `presentId` per present; a thread blocked in
//!   `vkWaitForPresentKHR(id)` wakes when the image is visible: read the clock
//!   then and feed that time (it is the wake, not the scanout: a fraction of a
//!   millisecond late).
//! - **DXGI**: `IDXGISwapChain::GetFrameStatistics` gives the last present's
//!   `PresentCount`, `PresentRefreshCount` and `SyncQPCTime` (a
//!   `QueryPerformanceCounter` time); match `PresentCount` against
//!   `GetLastPresentCount` taken after each `Present` to find the frame.
//!   `DwmGetCompositionTimingInfo` gives the refresh period in QPC units.
//! - **Metal**: `MTLDrawable::addPresentedHandler` calls back with the
//!   drawable, whose `presentedTime` (`CFTimeInterval`, mach time in seconds)
//!   is 0 when it was never shown: feed [`Feedback::discarded`] then.
//! - **Android**: `AChoreographer_postVsyncCallback` gives each vsync's
//!   expected presentation times; `eglPresentationTimeANDROID` asks for one
//!   per frame, and `eglGetFrameTimestampsANDROID` (`EGL_DISPLAY_PRESENT_TIME`)
//!   says when it was shown, a few frames later, by the frame's id from
//!   `eglGetNextFrameIdANDROID`.

use alloc::string::String;

use crate::time::Nanos;

/// How long the lab's session waits for a frame's feedback, in presents'
/// time after it: six refreshes at 60 Hz. Wayland answers at the repaint
/// that shows the frame (at most the queue's depth, two or three refreshes
/// later, under Weston 10 one); a frame still unanswered after this is
/// settled with its present's return.
pub const FEEDBACK_WAIT: Nanos = 100_000_000;

/// How many later presents a frame waits for its feedback at least, however
/// slow they are: the answer comes with the repaint after the commit, and a
/// slow loop (a debug build under Weston: 28 frames in 2 s) presented its
/// next frame more than [`FEEDBACK_WAIT`] later while the answer was still
/// unread. Four presents cover a swap chain three images deep.
pub const FEEDBACK_WAIT_FRAMES: u64 = 4;

/// What the display path said about how a frame was shown: Wayland's
/// `wp_presentation` flags (other platforms' equivalents map onto them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FeedbackFlags(u8);

impl FeedbackFlags {
    /// No flag: shown, but not said to be on a vblank.
    pub const NONE: FeedbackFlags = FeedbackFlags(0);
    /// The picture changed on the display's vblank (no tearing).
    pub const VSYNC: FeedbackFlags = FeedbackFlags(1);
    /// The time comes from the display hardware's clock, not a software guess.
    pub const HW_CLOCK: FeedbackFlags = FeedbackFlags(2);
    /// The hardware said when the scanout of this frame began.
    pub const HW_COMPLETION: FeedbackFlags = FeedbackFlags(4);
    /// The frame's buffer went to the screen without a copy (direct scanout).
    pub const ZERO_COPY: FeedbackFlags = FeedbackFlags(8);

    /// The flags, by name, in the order the report lists them.
    const NAMES: [(FeedbackFlags, &'static str); 4] = [
        (FeedbackFlags::VSYNC, "vsync"),
        (FeedbackFlags::HW_CLOCK, "hw-clock"),
        (FeedbackFlags::HW_COMPLETION, "hw-completion"),
        (FeedbackFlags::ZERO_COPY, "zero-copy"),
    ];

    /// Flags from Wayland's bit set (`wp_presentation_feedback.kind`); unknown bits are dropped.
    pub fn from_bits(bits: u32) -> FeedbackFlags {
        FeedbackFlags((bits & 0xf) as u8)
    }

    /// These flags and `other`'s.
    #[must_use]
    pub fn with(self, other: FeedbackFlags) -> FeedbackFlags {
        FeedbackFlags(self.0 | other.0)
    }

    /// Whether every flag of `other` is set.
    pub fn contains(self, other: FeedbackFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The names of the flags set, space-separated (`vsync hw-clock`), or `none`.
    pub fn names(self) -> String {
        let mut out = String::new();
        for (flag, name) in FeedbackFlags::NAMES {
            if self.contains(flag) {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(name);
            }
        }
        if out.is_empty() {
            out.push_str("none");
        }
        out
    }
}

/// The display's word on one presented frame.
///
/// ```
/// use timestep_core::feedback::{Feedback, FeedbackFlags};
/// let shown = Feedback::displayed(7, 33_333_333).with_refresh(16_666_667).with_flags(FeedbackFlags::VSYNC);
/// assert_eq!((shown.frame, shown.displayed_at, shown.refresh), (7, Some(33_333_333), Some(16_666_667)));
/// assert_eq!(Feedback::discarded(8).displayed_at, None, "replaced before it was shown");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Feedback {
    /// The frame's id ([`crate::Frame::id`]).
    pub frame: u64,
    /// When its picture appeared, on the pacer's clock; `None`: discarded, never shown.
    pub displayed_at: Option<Nanos>,
    /// The display's refresh period, when it says (Wayland's `refresh`, 0 there is unknown).
    pub refresh: Option<Nanos>,
    /// How it was shown.
    pub flags: FeedbackFlags,
}

impl Feedback {
    /// Frame `frame` appeared at `at` on the pacer's clock.
    pub fn displayed(frame: u64, at: Nanos) -> Feedback {
        Feedback { frame, displayed_at: Some(at), refresh: None, flags: FeedbackFlags::NONE }
    }

    /// Frame `frame` was never shown: a newer frame replaced it first.
    pub fn discarded(frame: u64) -> Feedback {
        Feedback { frame, displayed_at: None, refresh: None, flags: FeedbackFlags::NONE }
    }

    /// The same feedback, with the display's refresh period in ns (0: unknown).
    #[must_use]
    pub fn with_refresh(self, period: Nanos) -> Feedback {
        Feedback { refresh: (period > 0).then_some(period), ..self }
    }

    /// The same feedback, with its flags.
    #[must_use]
    pub fn with_flags(self, flags: FeedbackFlags) -> Feedback {
        Feedback { flags, ..self }
    }
}

/// Where a run's display times (D) came from: every figure about a real
/// display rests on them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DisplayTimeSource {
    /// The compositor (or the graphics API) said when each frame was shown, with these flags.
    CompositorFeedback(FeedbackFlags),
    /// The moment the present call returned: an estimate that cannot see
    /// queued frames (the picture appears refreshes later) or discarded ones.
    #[default]
    PresentReturn,
    /// The browser's requestAnimationFrame after the present: the refresh
    /// after the frame, as the page is told it.
    AnimationFrame,
    /// The lab's emulated vblank grid: the vblank the present waited for.
    EmulatedVblank,
    /// The virtual monitor's own display: exact by construction.
    Simulated,
}

impl DisplayTimeSource {
    /// Every kind of source, in order (the flags left empty).
    pub const ALL: [DisplayTimeSource; 5] = [
        DisplayTimeSource::CompositorFeedback(FeedbackFlags::NONE),
        DisplayTimeSource::PresentReturn,
        DisplayTimeSource::AnimationFrame,
        DisplayTimeSource::EmulatedVblank,
        DisplayTimeSource::Simulated,
    ];

    /// The source's id, as reports write it (`compositor-feedback`, `present-return`, …).
    pub fn id(self) -> &'static str {
        match self {
            DisplayTimeSource::CompositorFeedback(_) => "compositor-feedback",
            DisplayTimeSource::PresentReturn => "present-return",
            DisplayTimeSource::AnimationFrame => "animation-frame",
            DisplayTimeSource::EmulatedVblank => "emulated-vblank",
            DisplayTimeSource::Simulated => "simulated",
        }
    }

    /// The report's label: the id, and the compositor's flags
    /// (`compositor-feedback (vsync hw-clock)`).
    pub fn label(self) -> String {
        let mut label = String::from(self.id());
        if let DisplayTimeSource::CompositorFeedback(flags) = self {
            label.push_str(" (");
            label.push_str(&flags.names());
            label.push(')');
        }
        label
    }

    /// The source named by a label or an id ([`DisplayTimeSource::label`] read back, flags included).
    pub fn parse(text: &str) -> Option<DisplayTimeSource> {
        let (id, flags) = match text.split_once(" (") {
            Some((id, rest)) => (id, rest.strip_suffix(')')?),
            None => (text, ""),
        };
        let source = DisplayTimeSource::ALL.into_iter().find(|s| s.id() == id)?;
        match source {
            DisplayTimeSource::CompositorFeedback(_) => {
                let mut set = FeedbackFlags::NONE;
                for name in flags.split(' ').filter(|n| !n.is_empty() && *n != "none") {
                    let (flag, _) = FeedbackFlags::NAMES.into_iter().find(|(_, n)| *n == name)?;
                    set = set.with(flag);
                }
                Some(DisplayTimeSource::CompositorFeedback(set))
            }
            other => (flags.is_empty()).then_some(other),
        }
    }

    /// Whether D is a guess about the display rather than its (or a model's) word.
    pub fn is_estimate(self) -> bool {
        matches!(self, DisplayTimeSource::PresentReturn | DisplayTimeSource::AnimationFrame)
    }

    /// What figures resting on this D cannot see, in one sentence; empty for an exact source.
    pub fn blind_spot(self) -> &'static str {
        match self {
            DisplayTimeSource::PresentReturn => {
                "display times are the present call's return, an estimate: frames queued behind it (latency one or \
                 two refreshes short) and frames the compositor discarded cannot be seen"
            }
            DisplayTimeSource::AnimationFrame => {
                "display times are the requestAnimationFrame after the present, an estimate: the browser's own \
                 queueing and discarded frames cannot be seen"
            }
            DisplayTimeSource::CompositorFeedback(_)
            | DisplayTimeSource::EmulatedVblank
            | DisplayTimeSource::Simulated => "",
        }
    }
}

impl core::fmt::Display for DisplayTimeSource {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn wayland_flag_bits_name_themselves_in_the_report_order() {
        let flags = FeedbackFlags::from_bits(0x1 | 0x2 | 0x4 | 0x100);
        assert_eq!(flags.names(), "vsync hw-clock hw-completion", "unknown bits are dropped");
        assert_eq!(FeedbackFlags::NONE.names(), "none");
        assert!(flags.contains(FeedbackFlags::VSYNC.with(FeedbackFlags::HW_CLOCK)));
        assert!(!flags.contains(FeedbackFlags::ZERO_COPY));
    }

    #[test]
    fn every_source_reads_back_from_its_label() {
        let sources = [
            DisplayTimeSource::CompositorFeedback(FeedbackFlags::VSYNC.with(FeedbackFlags::ZERO_COPY)),
            DisplayTimeSource::CompositorFeedback(FeedbackFlags::NONE),
            DisplayTimeSource::PresentReturn,
            DisplayTimeSource::AnimationFrame,
            DisplayTimeSource::EmulatedVblank,
            DisplayTimeSource::Simulated,
        ];
        for source in sources {
            assert_eq!(DisplayTimeSource::parse(&source.label()), Some(source), "{source}");
        }
        assert_eq!(sources[0].label(), "compositor-feedback (vsync zero-copy)");
        assert_eq!(DisplayTimeSource::parse("present-return (vsync)"), None, "only feedback has flags");
        assert_eq!(DisplayTimeSource::parse("guessed"), None);
    }

    #[test]
    fn only_the_estimates_have_a_blind_spot() {
        for source in DisplayTimeSource::ALL {
            assert_eq!(source.is_estimate(), !source.blind_spot().is_empty(), "{source}");
        }
        assert!(DisplayTimeSource::PresentReturn.blind_spot().contains("discarded"));
    }
}
