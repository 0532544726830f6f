//! What a host tells its [`Session`](super::Session) about the display its frames go to and how
//! each present fared: facts given in, never measured here.

use crate::feedback::DisplayTimeSource;
use crate::time::{Nanos, Rate};
use crate::vrr::VrrRange;

/// What a session knows of the present mode frames go out with: its name,
/// as a HUD gives it, and whether it asks for vsync (a GPU API's own
/// type, such as `wgpu::PresentMode`, is the host's).
///
/// ```
/// use timestep_core::session::PresentModeInfo;
/// let mailbox = PresentModeInfo::new("Mailbox", false);
/// assert_eq!((mailbox.name.as_str(), mailbox.vsync), ("Mailbox", false));
/// assert_eq!(PresentModeInfo::default(), PresentModeInfo::new("Fifo", true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentModeInfo {
    /// `Fifo`, `Mailbox`, `Immediate`… (or `virtual` in the simulator).
    pub name: String,
    /// Whether the mode asks the display to pace presents (vsync).
    pub vsync: bool,
}

impl PresentModeInfo {
    /// The mode called `name`, which asks the display to pace presents when `vsync`.
    pub fn new(name: impl Into<String>, vsync: bool) -> PresentModeInfo {
        PresentModeInfo { name: name.into(), vsync }
    }
}

impl Default for PresentModeInfo {
    fn default() -> Self {
        PresentModeInfo::new("Fifo", true)
    }
}

/// What a session knows about the display its frames go to: nothing by
/// default, and what the `with_` methods add.
///
/// ```
/// use timestep_core::Rate;
/// use timestep_core::session::{DisplayInfo, PresentModeInfo};
///
/// let display = DisplayInfo::default()
///     .with_monitor("DP-1")
///     .with_reported(Some(Rate::from_hz(144)))
///     .with_emulated(Some(Rate::from_hz(60)))
///     .with_present_mode(PresentModeInfo::new("Immediate", false));
/// assert_eq!(display.refresh(), Some(Rate::from_hz(60)), "frames are counted in the emulated grid");
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
#[non_exhaustive]
pub struct DisplayInfo {
    /// The monitor's name, as the HUD and the report give it.
    pub monitor: Option<String>,
    /// The refresh rate the display reports (winit's claim, or the virtual monitor's setting).
    pub reported: Option<Rate>,
    /// An emulated refresh grid that replaces the display's.
    pub emulated: Option<Rate>,
    /// The present mode in effect.
    pub present_mode: PresentModeInfo,
    /// The present mode asked for (`auto`, `fifo`, …).
    pub present_mode_requested: String,
    /// Vsync when known by construction (the virtual monitor's setting);
    /// `None` for a real display, where the verdict decides.
    pub vsync: Option<bool>,
    /// Where the display times the host reports come from (the present's
    /// return unless said otherwise); feedback, once it arrives, overrides it.
    pub display_time_source: DisplayTimeSource,
    /// The display is a VRR panel refreshing within this range: frames are
    /// counted one by one, each repeat the host reports a refresh, not on a
    /// grid ([`DisplayInfo::refresh`] is `None`).
    pub vrr: Option<VrrRange>,
    /// Whether the strategies are told [`DisplayInfo::vrr`] (a display that
    /// reports it, a game that declares it); otherwise they must detect it.
    pub vrr_told: bool,
    /// Whether [`DisplayInfo::vrr`] is an emulated gate (`--emulate-refresh vrr:48-144`).
    pub vrr_emulated: bool,
}

impl DisplayInfo {
    /// The same display, on the monitor called `monitor`.
    pub fn with_monitor(self, monitor: impl Into<String>) -> DisplayInfo {
        DisplayInfo { monitor: Some(monitor.into()), ..self }
    }

    /// The same display, reporting `reported` as its refresh rate.
    pub fn with_reported(self, reported: Option<Rate>) -> DisplayInfo {
        DisplayInfo { reported, ..self }
    }

    /// The same display under an emulated refresh grid (`None`: the display's own).
    pub fn with_emulated(self, emulated: Option<Rate>) -> DisplayInfo {
        DisplayInfo { emulated, ..self }
    }

    /// The same display, presenting in `mode`.
    pub fn with_present_mode(self, mode: PresentModeInfo) -> DisplayInfo {
        DisplayInfo { present_mode: mode, ..self }
    }

    /// The same display, where the present mode asked for was `requested` (`auto`, `fifo`, …).
    pub fn with_present_mode_requested(self, requested: impl Into<String>) -> DisplayInfo {
        DisplayInfo { present_mode_requested: requested.into(), ..self }
    }

    /// The same display, with vsync known by construction (`None`: the verdict decides).
    pub fn with_vsync(self, vsync: Option<bool>) -> DisplayInfo {
        DisplayInfo { vsync, ..self }
    }

    /// The same display, whose host's display times come from `source`.
    pub fn with_display_time_source(self, source: DisplayTimeSource) -> DisplayInfo {
        DisplayInfo { display_time_source: source, ..self }
    }

    /// The same display as a VRR panel refreshing within `range` (`None`: a
    /// fixed grid), its range told to the strategies or not.
    pub fn with_vrr(self, range: Option<VrrRange>, told: bool) -> DisplayInfo {
        DisplayInfo { vrr: range, vrr_told: told && range.is_some(), vrr_emulated: false, ..self }
    }

    /// The same display under an emulated VRR gate of `range` (`None`: none),
    /// which the strategies are told of, as they are of an emulated grid.
    pub fn with_emulated_vrr(self, range: Option<VrrRange>) -> DisplayInfo {
        DisplayInfo { vrr: range, vrr_told: range.is_some(), vrr_emulated: range.is_some(), ..self }
    }

    /// The emulated VRR gate frames go through, if any (not a real VRR panel's range).
    pub fn emulated_vrr(&self) -> Option<VrrRange> {
        self.vrr.filter(|_| self.vrr_emulated)
    }

    /// The refresh rate frames are counted in: the emulated grid when there
    /// is one, else the reported rate; none on a VRR panel (no grid).
    pub fn refresh(&self) -> Option<Rate> {
        match (self.emulated, self.vrr) {
            (None, Some(_)) => None,
            (emulated, _) => emulated.or(self.reported),
        }
    }

    /// The VRR range the strategies are told, if any.
    pub(super) fn told_vrr(&self) -> Option<VrrRange> {
        self.vrr.filter(|_| self.vrr_told)
    }
}

/// How one frame's picture fared on its way to the screen:
/// [`PresentOutcome::SHOWN`] or [`PresentOutcome::default`] (not shown), and the
/// `with_` methods.
///
/// ```
/// use timestep_core::session::PresentOutcome;
/// let vsynced = PresentOutcome::SHOWN.with_blocked(14_000_000);
/// assert_eq!((vsynced.shown, vsynced.blocked, vsynced.throttled), (true, 14_000_000, 0));
/// assert!(!PresentOutcome::default().shown, "a frame the surface refused");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PresentOutcome {
    /// It reached the screen (a surface may refuse a frame: minimised, lost).
    pub shown: bool,
    /// Time the frame was blocked in acquire + present (vsync shows up here).
    pub blocked: Nanos,
    /// With an emulated refresh: how late the present call was against its wake time.
    pub emulation_late: Option<Nanos>,
    /// Time the frame waited, before it started, for the compositor's go-ahead
    /// to draw (a Wayland frame callback): the compositor's pacing, never rendering cost.
    pub throttled: Nanos,
    /// The display was asked when it shows this frame: its figures wait for [`Session::feedback`](super::Session::feedback).
    pub feedback_awaited: bool,
}

impl PresentOutcome {
    /// A frame that was shown, never blocked (the virtual monitor's frames).
    pub const SHOWN: PresentOutcome =
        PresentOutcome { shown: true, blocked: 0, emulation_late: None, throttled: 0, feedback_awaited: false };

    /// The same frame, shown or not.
    pub fn with_shown(self, shown: bool) -> PresentOutcome {
        PresentOutcome { shown, ..self }
    }

    /// The same frame, blocked `blocked` ns in acquire + present.
    pub fn with_blocked(self, blocked: Nanos) -> PresentOutcome {
        PresentOutcome { blocked, ..self }
    }

    /// The same frame, presented `late` ns after its emulated wake time (`None`: no emulation).
    pub fn with_emulation_late(self, late: Option<Nanos>) -> PresentOutcome {
        PresentOutcome { emulation_late: late, ..self }
    }

    /// The same frame, after waiting `throttled` ns for the compositor's go-ahead.
    pub fn with_throttled(self, throttled: Nanos) -> PresentOutcome {
        PresentOutcome { throttled, ..self }
    }

    /// The same frame, whose display time the display was asked for (see [`Session::feedback`](super::Session::feedback)).
    pub fn with_feedback_awaited(self) -> PresentOutcome {
        PresentOutcome { feedback_awaited: true, ..self }
    }
}
