//! PresentMon's own per-frame metrics, recomputed from a capture's raw timing
//! columns: `DisplayedTime`, `AnimationError` and `DisplayLatency`.
//!
//! The replay (the trace reader) keeps what the virtual monitor needs (present
//! intervals, display changes). A diagnosis of the captured game needs the
//! frames' own timestamps: when the CPU started each frame, when it reached
//! the screen, and which simulation time it showed. This module reads those
//! (every swap chain, rows in file order) and computes, per swap chain
//! (`ProcessID` + `SwapChainAddress`):
//!
//! - **DisplayedTime** of a displayed frame i: `screen(k) − screen(i)`, k the
//!   next displayed frame of any frame type; none when ≤ 0, and none for the
//!   last displayed frame of a swap chain (its successor is not in the file).
//! - **AnimationError** of a displayed application frame i, j the previous
//!   displayed application frame: `(sim(i) − sim(j)) − (screen(i) − screen(j))`;
//!   none without j, when sim or screen does not advance, and on the frame
//!   where the sim source switches. sim is the frame's CPU start, or the
//!   game's own simulation start where the capture carries app timing.
//! - **DisplayLatency**: `screen − CPU start`.
//!
//! Time is integer ticks of the capture's counter. Where the timestamps come
//! from, per layout (ms columns are turned into ticks at the counter's rate):
//!
//! | layout | present start | CPU start | screen | app sim start |
//! |---|---|---|---|---|
//! | 2.x default | `TimeInQPC` | `CPUStartQPC` | present + `MsUntilDisplayed` | `AnimationTime` where `MsBetweenSimulationStart` ≠ NA |
//! | `--v2_metrics` | CPU start + `CPUBusy` | `CPUStartQPC` | CPU start + `DisplayLatency` | `AnimationTime` where it does not move with CPU start |
//! | API dump, PresentMon app | CPU start + `MsCPUBusy` | `CPUStartTime` (ms; the app's, in s, from `MsBetweenAppStart`) | present + `MsUntilDisplayed` | as 2.x default |
//! | 1.x, OCAT, CapFrameX | `TimeInSeconds` (or `QPCTime`) | the previous present + its `MsInPresentAPI` | present + `MsUntilDisplayed` (`Dropped` = 1: none) | none |
//! | frame times only | their running sum | none | none | none |
//!
//! The 1.x CPU start is PresentMon 2's own definition without app timing: a
//! frame's CPU work starts when the previous present returned.
//!
//! The counter's rate is inferred from the file: the ratio of QPC deltas to
//! the ms column that measures them (`TimeInQPC` to `MsBetweenPresents`,
//! `CPUStartQPC` to `FrameTime`, `QPCTime` to `msBetweenPresents`), snapped
//! to a common QPC rate (10 MHz on every Windows 10+ machine) within 0.1 %.
//! A file without QPC columns is read in nanoseconds.
//!
//! In the 2.x default layout the first displayed application frame of a swap
//! chain with app timing takes its predecessor from its own
//! `MsBetweenSimulationStart` and `MsBetweenDisplayChange`: PresentMon saw
//! that predecessor before the file starts, and wrote these deltas to it.

mod metrics;
mod parse;
mod write;

pub use metrics::{CaptureFigures, display_cycle, frame_metrics};
pub use parse::{
    CaptureFile, parse_capture, parse_capture_file, parse_capture_of, read_capture, read_capture_file, read_capture_of,
};
pub(in crate::monitor::trace) use parse::{ChainKey, Columns, Raw, parse_for_replay};
pub use write::{FRAMES_HEADER, frames_csv};

use crate::time::{NANOS_PER_SEC, Nanos};
use std::fmt;

/// A time or a duration in ticks of the capture's counter.
pub type Ticks = i64;

/// Which of PresentMon's CSV layouts a capture is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureLayout {
    /// PresentMon 2.x default columns (`TimeInQPC`, `CPUStartQPC`, `MsAnimationError`).
    Default2,
    /// PresentMon 2.x `--v2_metrics` (`CPUStartQPC`, `DisplayLatency`, `DisplayedTime`).
    V2Metrics,
    /// A PresentMon API frame-query dump or the PresentMon app's capture (`CPUStartTime` in ms).
    ApiDump,
    /// PresentMon 1.x, OCAT or CapFrameX (`TimeInSeconds`, `Dropped`).
    PresentMon1,
    /// Frame times only: a plain list, or a capture without timestamps.
    FrameTimes,
}

impl fmt::Display for CaptureLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaptureLayout::Default2 => "PresentMon 2.x (default columns)",
            CaptureLayout::V2Metrics => "PresentMon 2.x (--v2_metrics)",
            CaptureLayout::ApiDump => "PresentMon API / app capture",
            CaptureLayout::PresentMon1 => "PresentMon 1.x / OCAT / CapFrameX",
            CaptureLayout::FrameTimes => "frame times only",
        })
    }
}

/// Where a frame's simulation time comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimSource {
    /// The frame's CPU start (PresentMon's default).
    CpuStart,
    /// The game's own simulation start (app timing: `AnimationTime`).
    App,
}

impl SimSource {
    /// `CPUStart` or `App`, as the frames CSV writes it.
    pub fn name(self) -> &'static str {
        match self {
            SimSource::CpuStart => "CPUStart",
            SimSource::App => "App",
        }
    }
}

/// One row of a swap chain, as timestamps in ticks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureFrame {
    /// The line of the file.
    pub line: u64,
    /// `Application`, or a generated frame's type (`Intel XeSS-FG`).
    pub frame_type: String,
    /// The file's present interval (`MsBetweenPresents` or `FrameTime`), when written.
    pub frame_time: Option<Ticks>,
    /// When the present call started.
    pub present_start: Option<Ticks>,
    /// When the CPU started the frame.
    pub cpu_start: Option<Ticks>,
    /// When it reached the screen; `None`: not displayed (or not known).
    pub screen: Option<Ticks>,
    /// The simulation time it shows, and where that comes from.
    pub sim: Option<(Ticks, SimSource)>,
    /// The previous displayed application frame's (sim, screen) from the
    /// file's deltas, where that frame is not in the file (see the module docs).
    pub seed: Option<(Ticks, Ticks)>,
    /// Whether the frame was marked as not displayed (`Dropped` = 1, or no display time).
    pub dropped: bool,
    /// `SyncInterval` = 0 with `AllowsTearing` = 1 or a legacy flip.
    pub tears: bool,
    /// What the frame cost the CPU and GPU, where the file says.
    pub costs: FrameCosts,
    /// The file's own figures for the frame, where it writes them.
    pub reported: Reported,
}

/// A frame's figures as the file itself wrote them (`None`: no column, or
/// NA), to show beside the figures recomputed from the raw timestamps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reported {
    /// `DisplayedTime` (`--v2_metrics`): how long this frame was displayed.
    pub displayed_time: Option<Ticks>,
    /// `MsBetweenDisplayChange`: how long the previous displayed frame was.
    pub display_change: Option<Ticks>,
    /// `MsAnimationError` / `AnimationError`.
    pub animation_error: Option<Ticks>,
    /// `DisplayLatency` (`--v2_metrics`): CPU start to screen.
    pub display_latency: Option<Ticks>,
    /// `MsPCLatency`: the game's simulation start to photons (its Reflex markers).
    pub pc_latency: Option<Ticks>,
    /// `MsClickToPhotonLatency` / `ClickToPhotonLatency`.
    pub click_to_photon: Option<Ticks>,
    /// FrameView's `Render Queue Depth`, in thousandths of a frame.
    pub queue_depth_milli: Option<u32>,
}

/// What a frame cost the CPU and the GPU, where the file says (`None`: no
/// column, NA, or 0 where a tool writes 0 for "not measured").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameCosts {
    /// `CPUBusy` / `MsCPUBusy`: CPU start to the present call.
    pub cpu_busy: Option<Ticks>,
    /// `GPUBusy` / `MsGPUBusy`: time the GPU worked on the frame.
    pub gpu_busy: Option<Ticks>,
    /// GPU utilisation, per mille (`GPU0Util(%)`, `GPUUtilization`).
    pub gpu_util_permille: Option<u32>,
}

impl CaptureFrame {
    /// An application frame (not one a frame generator made).
    pub fn is_application(&self) -> bool {
        self.frame_type.eq_ignore_ascii_case("Application")
    }
}

/// One swap chain's rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureChain {
    /// `Application` (empty when the file has none).
    pub app: String,
    /// `ProcessID`.
    pub pid: String,
    /// `SwapChainAddress`.
    pub address: String,
    /// Its rows in file order.
    pub frames: Vec<CaptureFrame>,
}

impl CaptureChain {
    /// `game.exe (pid 42, swap chain 0x1)`.
    pub fn name(&self) -> String {
        let app = if self.app.is_empty() { "(no name)" } else { &self.app };
        if self.pid.is_empty() && self.address.is_empty() {
            app.to_owned()
        } else {
            format!("{app} (pid {}, swap chain {})", self.pid, self.address)
        }
    }

    /// Displayed frames.
    pub fn displayed(&self) -> usize {
        self.frames.iter().filter(|f| f.screen.is_some()).count()
    }
}

/// A capture read for its timestamps: every swap chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    /// The layout.
    pub layout: CaptureLayout,
    /// Ticks per second of its timestamps.
    pub hz: u64,
    /// Whether `hz` was inferred from QPC columns (else the file is read in ns).
    pub qpc: bool,
    /// Swap chains in order of first appearance.
    pub chains: Vec<CaptureChain>,
    /// Metrics the capture cannot give, each with the reason.
    pub missing: Vec<String>,
    /// Whether the file says when frames reached the screen (`MsUntilDisplayed`,
    /// `DisplayLatency` or `Dropped`): without it no frame is displayed or
    /// dropped, each is unknown.
    pub display_known: bool,
    /// Whether the file says which frames tear (`SyncInterval` and `AllowsTearing`).
    pub tearing_known: bool,
    /// Whether the file has a `FrameType` column (which frames a frame generator made).
    pub frame_type_known: bool,
    /// The application whose rows gave the counter's rate (`None`: the whole file, or no QPC columns).
    pub clock_app: Option<String>,
}

/// Processes that present but are not games: the compositor, capture tools
/// and on-screen displays, and the browsers, editors and terminals beside a
/// game. An
/// entry ending in `*` is a prefix (`PresentMon-2.3.0-x64.exe`).
pub const NOT_GAMES: [&str; 27] = [
    "dwm.exe",
    "PresentMon*",
    "CapFrameX*",
    "FrameView*",
    "OCAT*",
    "RTSS*",
    "MSIAfterburner.exe",
    "GameBar*",
    "XboxGameBar*",
    "NVIDIA Overlay.exe",
    "NVIDIA Share.exe",
    "GameOverlayUI.exe",
    "EpicWebHelper.exe",
    "explorer.exe",
    "ApplicationFrameHost.exe",
    "devenv.exe",
    "Code.exe",
    "chrome.exe",
    "msedge.exe",
    "msedgewebview2.exe",
    "firefox.exe",
    "WindowsTerminal.exe",
    "steamwebhelper.exe",
    "Discord.exe",
    "obs64.exe",
    "TextInputHost.exe",
    "SearchHost.exe",
];

/// Whether `app` is in [`NOT_GAMES`] (ASCII case-insensitive).
///
/// ```
/// use timestep_core::monitor::presentmon::is_tool;
/// assert!(is_tool("PresentMon-2.3.0-x64.exe") && is_tool("DWM.EXE"));
/// assert!(!is_tool("F1_24.exe"));
/// ```
pub fn is_tool(app: &str) -> bool {
    let app = app.to_ascii_lowercase();
    NOT_GAMES.iter().any(|n| {
        let n = n.to_ascii_lowercase();
        match n.strip_suffix('*') {
            Some(prefix) => app.starts_with(prefix),
            None => app == n,
        }
    })
}

/// PresentMon's per-frame metrics of one row, in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameMetrics {
    /// `DisplayedTime`: until the next displayed frame reached the screen.
    pub displayed_time: Option<Ticks>,
    /// `MsBetweenDisplayChange`: since the previous displayed frame reached the screen.
    pub display_change: Option<Ticks>,
    /// `AnimationError`.
    pub animation_error: Option<Ticks>,
    /// `DisplayLatency`: CPU start to screen.
    pub display_latency: Option<Ticks>,
}

/// Ticks of a `hz` counter as ns.
pub fn ticks_to_nanos(ticks: Ticks, hz: u64) -> Nanos {
    let ticks = u128::try_from(ticks).unwrap_or(0);
    let ns = (ticks * u128::from(NANOS_PER_SEC) + u128::from(hz) / 2) / u128::from(hz.max(1));
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Ticks of a `hz` counter as ms, for output.
pub fn ticks_to_ms(ticks: Ticks, hz: u64) -> f64 {
    ticks as f64 * 1000.0 / hz.max(1) as f64
}
