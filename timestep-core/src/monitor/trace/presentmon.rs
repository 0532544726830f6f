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

use super::read::{at, for_each_record, is_decimal_comma, is_na, refuse_semicolons};
use super::{RefreshEstimate, TraceError};
use crate::metrics::{FrameSample, FrameStats, Metrics};
use crate::time::{NANOS_PER_SEC, Nanos, Rate};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::io::Read;
use std::path::Path;

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

/// Computes PresentMon's per-frame metrics of one swap chain's rows (see the module docs).
///
/// ```
/// use timestep_core::monitor::presentmon::{CaptureFrame, SimSource, frame_metrics};
///
/// // 10 ticks per ms: CPU starts 0, 100, 300 ticks; screens 400, 500, 600.
/// let frame = |cpu: i64, screen: i64| CaptureFrame {
///     line: 0, frame_type: "Application".into(), frame_time: None, present_start: None,
///     cpu_start: Some(cpu), screen: Some(screen), sim: Some((cpu, SimSource::CpuStart)),
///     seed: None, dropped: false, tears: false,
/// };
/// let m = frame_metrics(&[frame(0, 400), frame(100, 500), frame(300, 600)]);
/// assert_eq!(m[2].animation_error, Some(100), "the sim moved 200 ticks, the screen 100");
/// assert_eq!(m[0].displayed_time, Some(100));
/// assert_eq!(m[2].displayed_time, None, "the last displayed frame has no successor");
/// ```
pub fn frame_metrics(frames: &[CaptureFrame]) -> Vec<FrameMetrics> {
    let mut out = vec![FrameMetrics::default(); frames.len()];
    let mut previous_screen: Option<(usize, Ticks)> = None;
    for (i, frame) in frames.iter().enumerate() {
        let Some(screen) = frame.screen else { continue };
        out[i].display_latency = frame.cpu_start.map(|c| screen - c);
        if let Some((p, before)) = previous_screen {
            let delta = screen - before;
            out[p].displayed_time = (delta > 0).then_some(delta);
            out[i].display_change = (delta > 0).then_some(delta);
        }
        previous_screen = Some((i, screen));
    }
    // (sim, screen, source) of the previous displayed application frame.
    let mut previous: Option<(Option<(Ticks, SimSource)>, Ticks)> = None;
    for (i, frame) in frames.iter().enumerate() {
        let Some(screen) = frame.screen else { continue };
        if !frame.is_application() {
            continue;
        }
        let before = match previous {
            Some((Some((sim, source)), screen_j)) => Some((sim, source, screen_j)),
            Some((None, _)) => None,
            None => frame.seed.zip(frame.sim).map(|((sim, screen_j), (_, source))| (sim, source, screen_j)),
        };
        if let (Some((sim, source)), Some((sim_j, source_j, screen_j))) = (frame.sim, before) {
            let (ds, dd) = (sim - sim_j, screen - screen_j);
            if source == source_j && ds > 0 && dd > 0 {
                out[i].animation_error = Some(ds - dd);
            }
        }
        previous = Some((frame.sim, screen));
    }
    out
}

/// Reads the capture at `path` for its timestamps.
///
/// # Errors
/// As [`parse_capture`].
pub fn read_capture(path: &Path, max_bytes: u64) -> Result<Capture, TraceError> {
    let file = std::fs::File::open(path).map_err(|e| TraceError::Io(e.to_string()))?;
    parse_capture(file, max_bytes)
}

/// A row's fields by column, parsed as the trace reader does.
struct Row<'a> {
    fields: &'a [&'a str],
    line: u64,
}

impl Row<'_> {
    fn text(&self, column: Option<&(usize, String)>) -> Option<&str> {
        column.and_then(|(i, _)| self.fields.get(*i).copied()).filter(|t| !is_na(t))
    }

    /// A finite number (ms, s or ticks), or `None` for NA / missing.
    fn number(&self, column: Option<&(usize, String)>) -> Result<Option<f64>, TraceError> {
        let Some(text) = self.text(column) else { return Ok(None) };
        let name = column.map_or("", |(_, n)| n.as_str());
        if is_decimal_comma(text) {
            return Err(at(self.line, format!("{name} '{text}' has a decimal comma; write it with a point")));
        }
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(at(self.line, format!("{name} '{text}' is not a number"))),
        }
    }

    /// A QPC value: a non-negative integer.
    fn qpc(&self, column: Option<&(usize, String)>) -> Result<Option<Ticks>, TraceError> {
        let Some(text) = self.text(column) else { return Ok(None) };
        let name = column.map_or("", |(_, n)| n.as_str());
        text.parse::<Ticks>()
            .ok()
            .filter(|&q| q >= 0)
            .map(Some)
            .ok_or_else(|| at(self.line, format!("{name} '{text}' is not a QPC value (a whole number of ticks)")))
    }
}

/// The columns this reader uses, by name (ASCII case-insensitive).
struct Columns {
    app: Option<(usize, String)>,
    pid: Option<(usize, String)>,
    address: Option<(usize, String)>,
    frame_type: Option<(usize, String)>,
    frame_time: Option<(usize, String)>,
    time_in_qpc: Option<(usize, String)>,
    qpc_time: Option<(usize, String)>,
    cpu_start_qpc: Option<(usize, String)>,
    cpu_start_time: Option<(usize, String)>,
    time_in_seconds: Option<(usize, String)>,
    until_displayed: Option<(usize, String)>,
    display_latency: Option<(usize, String)>,
    cpu_busy: Option<(usize, String)>,
    in_present: Option<(usize, String)>,
    between_sim: Option<(usize, String)>,
    between_app_start: Option<(usize, String)>,
    animation_time: Option<(usize, String)>,
    display_change: Option<(usize, String)>,
    dropped: Option<(usize, String)>,
    sync_interval: Option<(usize, String)>,
    allows_tearing: Option<(usize, String)>,
    present_mode: Option<(usize, String)>,
}

impl Columns {
    fn find(header: &[&str]) -> Columns {
        let c = |names: &[&str]| {
            names.iter().find_map(|name| {
                header.iter().position(|h| h.eq_ignore_ascii_case(name)).map(|i| (i, header[i].to_owned()))
            })
        };
        Columns {
            app: c(&["Application"]),
            pid: c(&["ProcessID"]),
            address: c(&["SwapChainAddress"]),
            frame_type: c(&["FrameType"]),
            frame_time: c(&["MsBetweenPresents", "FrameTime", "frame_ms"]),
            time_in_qpc: c(&["TimeInQPC"]),
            qpc_time: c(&["QPCTime"]),
            cpu_start_qpc: c(&["CPUStartQPC"]),
            cpu_start_time: c(&["CPUStartTime"]),
            time_in_seconds: c(&["TimeInSeconds"]),
            until_displayed: c(&["MsUntilDisplayed"]),
            display_latency: c(&["DisplayLatency", "MsDisplayLatency"]),
            cpu_busy: c(&["CPUBusy", "MsCPUBusy"]),
            in_present: c(&["MsInPresentAPI"]),
            between_sim: c(&["MsBetweenSimulationStart"]),
            between_app_start: c(&["MsBetweenAppStart"]),
            animation_time: c(&["AnimationTime"]),
            display_change: c(&["MsBetweenDisplayChange"]),
            dropped: c(&["Dropped"]),
            sync_interval: c(&["SyncInterval"]),
            allows_tearing: c(&["AllowsTearing"]),
            present_mode: c(&["PresentMode"]),
        }
    }

    fn layout(&self) -> CaptureLayout {
        if self.cpu_start_qpc.is_some() && self.display_latency.is_some() {
            CaptureLayout::V2Metrics
        } else if self.time_in_qpc.is_some() && self.cpu_start_qpc.is_some() {
            CaptureLayout::Default2
        } else if self.cpu_start_time.is_some() {
            CaptureLayout::ApiDump
        } else if self.time_in_seconds.is_some() || self.qpc_time.is_some() {
            CaptureLayout::PresentMon1
        } else {
            CaptureLayout::FrameTimes
        }
    }
}

/// A row with its numbers, before the counter's rate is known.
struct Raw {
    line: u64,
    chain: usize,
    frame_type: String,
    frame_time_ms: Option<f64>,
    present_qpc: Option<Ticks>,
    present_s: Option<f64>,
    cpu_qpc: Option<Ticks>,
    cpu_ms: Option<f64>,
    until_displayed_ms: Option<f64>,
    display_latency_ms: Option<f64>,
    cpu_busy_ms: Option<f64>,
    in_present_ms: Option<f64>,
    between_sim_ms: Option<f64>,
    between_app_start_ms: Option<f64>,
    animation_time_ms: Option<f64>,
    display_change_ms: Option<f64>,
    dropped: bool,
    tears: bool,
}

/// Common QPC rates: 10 MHz (Windows 10+), the ACPI PM timer and its multiples, 24 MHz (ARM).
const COMMON_QPC_HZ: [u64; 5] = [10_000_000, 3_579_545, 14_318_180, 24_000_000, 19_200_000];

/// Reads a capture from a stream for its timestamps, every swap chain.
///
/// # Errors
/// The trace reader's one-line errors ([`TraceError`]): an unreadable or
/// oversized stream, a value that is not a number (naming the line), no rows.
pub fn parse_capture<R: Read>(reader: R, max_bytes: u64) -> Result<Capture, TraceError> {
    let mut columns: Option<Columns> = None;
    let mut plain = false;
    let mut chains: Vec<CaptureChain> = Vec::new();
    let mut index: HashMap<(String, String, String), usize> = HashMap::new();
    let mut raws: Vec<Raw> = Vec::new();
    for_each_record(reader, max_bytes, |fields, line| {
        refuse_semicolons(fields, line)?;
        if columns.is_none() && !plain {
            if fields[0].parse::<f64>().is_ok() || fields.len() == 1 {
                plain = true;
                if fields[0].parse::<f64>().is_err() {
                    return Ok(());
                }
            } else {
                columns = Some(Columns::find(fields));
                return Ok(());
            }
        }
        let row = Row { fields, line };
        let plain_column = Some((0, "frame time".to_owned()));
        let Some(c) = &columns else {
            if chains.is_empty() {
                chains.push(CaptureChain {
                    app: String::new(),
                    pid: String::new(),
                    address: String::new(),
                    frames: vec![],
                });
            }
            raws.push(Raw::plain(line, row.number(plain_column.as_ref())?));
            return Ok(());
        };
        let key = (
            row.text(c.app.as_ref()).unwrap_or("").to_owned(),
            row.text(c.pid.as_ref()).unwrap_or("").to_owned(),
            row.text(c.address.as_ref()).unwrap_or("").to_owned(),
        );
        let chain = *index.entry(key.clone()).or_insert_with(|| {
            chains.push(CaptureChain { app: key.0, pid: key.1, address: key.2, frames: Vec::new() });
            chains.len() - 1
        });
        let dropped = match row.text(c.dropped.as_ref()) {
            Some("1") => true,
            Some("0") | None => false,
            Some(other) => return Err(at(line, format!("Dropped is '{other}', expected 0 or 1"))),
        };
        let tears = row.text(c.sync_interval.as_ref()) == Some("0")
            && (row.text(c.allows_tearing.as_ref()) == Some("1")
                || row.text(c.present_mode.as_ref()).is_some_and(|m| m.starts_with("Hardware: Legacy")));
        raws.push(Raw {
            line,
            chain,
            frame_type: row.text(c.frame_type.as_ref()).unwrap_or("Application").to_owned(),
            frame_time_ms: row.number(c.frame_time.as_ref())?,
            present_qpc: match c.time_in_qpc.as_ref() {
                Some(q) => row.qpc(Some(q))?,
                None => row.qpc(c.qpc_time.as_ref())?,
            },
            present_s: row.number(c.time_in_seconds.as_ref())?,
            cpu_qpc: row.qpc(c.cpu_start_qpc.as_ref())?,
            cpu_ms: row.number(c.cpu_start_time.as_ref())?,
            until_displayed_ms: row.number(c.until_displayed.as_ref())?,
            display_latency_ms: row.number(c.display_latency.as_ref())?,
            cpu_busy_ms: row.number(c.cpu_busy.as_ref())?,
            in_present_ms: row.number(c.in_present.as_ref())?,
            between_sim_ms: row.number(c.between_sim.as_ref())?,
            between_app_start_ms: row.number(c.between_app_start.as_ref())?,
            animation_time_ms: row.number(c.animation_time.as_ref())?,
            display_change_ms: row.number(c.display_change.as_ref())?,
            dropped,
            tears,
        });
        Ok(())
    })?;
    if raws.is_empty() {
        return Err(TraceError::Empty);
    }
    let layout = columns.as_ref().map_or(CaptureLayout::FrameTimes, Columns::layout);
    let (hz, qpc) = counter_rate(&raws, layout);
    if layout == CaptureLayout::ApiDump {
        cpu_start_in_ms(&mut raws, chains.len());
    }
    let missing = missing(layout, columns.as_ref());
    let cols = columns.as_ref();
    let has_between_sim = cols.is_some_and(|c| c.between_sim.is_some());
    let mut last_present: Vec<Option<(Ticks, Option<Ticks>)>> = vec![None; chains.len()];
    let mut running: Ticks = 0;
    for raw in &raws {
        let to = |ms: Option<f64>| ms.map(|ms| ms_to_ticks(ms, hz));
        let frame_time = to(raw.frame_time_ms);
        let cpu_start = raw.cpu_qpc.or_else(|| to(raw.cpu_ms));
        let present_start = match layout {
            CaptureLayout::FrameTimes => {
                running += frame_time.unwrap_or(0);
                Some(running)
            }
            // The app capture's TimeInSeconds is not the present start (4 digits, and ahead of it).
            CaptureLayout::V2Metrics | CaptureLayout::ApiDump => cpu_start.zip(to(raw.cpu_busy_ms)).map(|(c, b)| c + b),
            _ => raw
                .present_qpc
                .or_else(|| raw.present_s.map(|s| ms_to_ticks(s * 1000.0, hz)))
                .or_else(|| cpu_start.zip(to(raw.cpu_busy_ms)).map(|(c, b)| c + b)),
        };
        let cpu_start = match layout {
            // PresentMon 2's CPU start without app timing: the previous present's return.
            CaptureLayout::PresentMon1 => last_present[raw.chain].and_then(|(p, in_present)| Some(p + in_present?)),
            _ => cpu_start,
        };
        last_present[raw.chain] = present_start.map(|p| (p, to(raw.in_present_ms)));
        let screen = match layout {
            CaptureLayout::FrameTimes => None,
            _ if raw.dropped => None,
            CaptureLayout::V2Metrics => cpu_start.zip(to(raw.display_latency_ms)).map(|(c, l)| c + l),
            _ => present_start.zip(to(raw.until_displayed_ms)).map(|(p, u)| p + u),
        };
        let app_timing = has_between_sim && raw.between_sim_ms.is_some();
        let sim = match (app_timing, to(raw.animation_time_ms)) {
            (true, Some(t)) => Some((t, SimSource::App)),
            (true, None) => None,
            (false, _) => cpu_start.map(|c| (c, SimSource::CpuStart)),
        };
        let seed = (app_timing && layout == CaptureLayout::Default2)
            .then(|| sim.zip(to(raw.between_sim_ms)).zip(screen.zip(to(raw.display_change_ms))))
            .flatten()
            .map(|((s, ds), (d, dd))| (s.0 - ds, d - dd));
        chains[raw.chain].frames.push(CaptureFrame {
            line: raw.line,
            frame_type: raw.frame_type.clone(),
            frame_time,
            present_start,
            cpu_start,
            screen,
            sim,
            seed,
            dropped: raw.dropped || (layout != CaptureLayout::FrameTimes && screen.is_none()),
            tears: raw.tears,
        });
    }
    if layout == CaptureLayout::V2Metrics {
        for (chain, raw_chain) in chains.iter_mut().enumerate() {
            let times: Vec<Option<Ticks>> = raws
                .iter()
                .filter(|r| r.chain == chain)
                .map(|r| r.animation_time_ms.map(|ms| ms_to_ticks(ms, hz)))
                .collect();
            app_sim_from_animation_time(&mut raw_chain.frames, &times);
        }
    }
    Ok(Capture { layout, hz, qpc, chains, missing })
}

impl Raw {
    fn plain(line: u64, ms: Option<f64>) -> Raw {
        Raw {
            line,
            chain: 0,
            frame_type: "Application".to_owned(),
            frame_time_ms: ms,
            present_qpc: None,
            present_s: None,
            cpu_qpc: None,
            cpu_ms: None,
            until_displayed_ms: None,
            display_latency_ms: None,
            cpu_busy_ms: None,
            in_present_ms: None,
            between_sim_ms: None,
            between_app_start_ms: None,
            animation_time_ms: None,
            display_change_ms: None,
            dropped: false,
            tears: false,
        }
    }
}

/// `--v2_metrics` has no `MsBetweenSimulationStart`: `AnimationTime` is the
/// CPU start since the session's start (a constant offset from
/// `CPUStartQPC`, within a tick of rounding) unless the game's own timing
/// drives it. A swap chain whose displayed application frames' offsets vary
/// by more than 2 ticks takes its sim times from `AnimationTime`.
fn app_sim_from_animation_time(frames: &mut [CaptureFrame], animation: &[Option<Ticks>]) {
    let offsets: Vec<Ticks> = frames
        .iter()
        .zip(animation)
        .filter(|(f, _)| f.is_application() && f.screen.is_some())
        .filter_map(|(f, t)| Some(f.cpu_start? - (*t)?))
        .collect();
    let (Some(lo), Some(hi)) = (offsets.iter().min(), offsets.iter().max()) else { return };
    if hi - lo <= 2 {
        return;
    }
    for (frame, time) in frames.iter_mut().zip(animation) {
        frame.sim = time.map(|t| (t, SimSource::App));
    }
}

/// `CPUStartTime` is in ms in an API dump and in seconds, to 4 significant
/// digits, in the PresentMon app's capture: its deltas against
/// `MsBetweenAppStart` (the next frame's CPU start less this one's) say which.
/// Seconds are replaced by the first CPU start plus the running sum of
/// `MsBetweenAppStart`, which keeps its 0.1 µs.
fn cpu_start_in_ms(raws: &mut [Raw], chains: usize) {
    let (mut moved, mut measured) = (0.0, 0.0);
    let mut last: Vec<Option<(f64, f64)>> = vec![None; chains];
    for raw in raws.iter() {
        if let (Some((before, step)), Some(now)) = (last[raw.chain], raw.cpu_ms) {
            moved += now - before;
            measured += step;
        }
        last[raw.chain] = raw.cpu_ms.zip(raw.between_app_start_ms);
    }
    if measured <= 0.0 || moved / measured > 0.01 {
        return;
    }
    let mut next: Vec<Option<f64>> = vec![None; chains];
    for raw in raws.iter_mut() {
        let start = next[raw.chain].or(raw.cpu_ms.map(|s| s * 1000.0));
        raw.cpu_ms = start;
        next[raw.chain] = start.zip(raw.between_app_start_ms).map(|(s, d)| s + d);
    }
}

/// `ms` as ticks of a `hz` counter, rounded.
fn ms_to_ticks(ms: f64, hz: u64) -> Ticks {
    (ms * hz as f64 / 1000.0).round() as Ticks
}

/// The counter's rate: QPC deltas over the ms column that measures them.
fn counter_rate(raws: &[Raw], layout: CaptureLayout) -> (u64, bool) {
    let mut ticks = 0.0;
    let mut ms = 0.0;
    let mut last: HashMap<usize, (Ticks, Option<f64>)> = HashMap::new();
    for raw in raws {
        let (stamp, forward) = match layout {
            CaptureLayout::V2Metrics => (raw.cpu_qpc, true),
            _ => (raw.present_qpc, false),
        };
        let Some(stamp) = stamp else { continue };
        if let Some((before, before_ms)) = last.insert(raw.chain, (stamp, raw.frame_time_ms)) {
            let delta_ms = if forward { before_ms } else { raw.frame_time_ms };
            if let Some(d) = delta_ms.filter(|&d| d > 0.0 && stamp > before) {
                ticks += (stamp - before) as f64;
                ms += d;
            }
        }
    }
    if ms <= 0.0 {
        return (NANOS_PER_SEC, false);
    }
    let estimate = ticks / ms * 1000.0;
    let hz = COMMON_QPC_HZ.iter().copied().find(|&c| (estimate / c as f64 - 1.0).abs() < 1e-3);
    (hz.unwrap_or(estimate.round().max(1.0) as u64), true)
}

/// What the layout cannot give, and why.
fn missing(layout: CaptureLayout, columns: Option<&Columns>) -> Vec<String> {
    let mut out = Vec::new();
    match layout {
        CaptureLayout::FrameTimes => {
            out.push(
                "DisplayedTime, DisplayLatency and AnimationError: the file has frame times only, not when frames \
                 reached the screen (MsUntilDisplayed or DisplayLatency) nor when the CPU started them"
                    .to_owned(),
            );
        }
        CaptureLayout::PresentMon1 => {
            if columns.is_some_and(|c| c.in_present.is_none()) {
                out.push("AnimationError and DisplayLatency: no MsInPresentAPI, so no CPU start".to_owned());
            }
            out.push(
                "the game's own simulation time: a 1.x capture has no app timing, so AnimationError takes the CPU \
                 start (the previous present's return) as the sim time"
                    .to_owned(),
            );
        }
        _ => {}
    }
    if columns.is_some_and(|c| c.until_displayed.is_none() && c.display_latency.is_none())
        && layout != CaptureLayout::FrameTimes
    {
        out.push("DisplayedTime and AnimationError: no MsUntilDisplayed or DisplayLatency column".to_owned());
    }
    out
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

/// A swap chain's figures in this crate's vocabulary (the registry's).
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureFigures {
    /// Rows of the swap chain.
    pub frames: usize,
    /// Displayed frames.
    pub displayed: usize,
    /// Frames marked not displayed (dropped).
    pub dropped: usize,
    /// Displayed frames a frame generator made.
    pub generated: usize,
    /// Frames that tear.
    pub tearing: usize,
    /// Displayed frames per second over the capture.
    pub fps: Option<f64>,
    /// The display changes' own estimate (none when the frames tear): its
    /// `off_grid` count says how many do not fall on a refresh grid (VRR).
    pub measured: Option<RefreshEstimate>,
    /// The refresh grid the frames were shown on (see [`RefreshEstimate::grid`]).
    pub refresh: Option<Rate>,
    /// Refreshes each displayed frame stayed, in order (with a refresh).
    pub refreshes_per_frame: Vec<u64>,
    /// Display changes more than a quarter refresh off the grid, of those measured.
    pub off_grid: (usize, usize),
    /// The crate's motion, latency and pacing figures: display time = screen,
    /// content = sim time, input = CPU start (so latency = DisplayLatency).
    pub stats: Option<FrameStats>,
    /// Application frames with an AnimationError.
    pub animation_errors: usize,
    /// RMS of the AnimationError, ms.
    pub animation_error_rms_ms: Option<f64>,
    /// The largest |AnimationError|, ms, and its row's line.
    pub animation_error_max: Option<(f64, u64)>,
    /// Mean and population σ of DisplayedTime, ms.
    pub displayed_time_mean_std_ms: Option<(f64, f64)>,
    /// Mean and population σ of the present intervals, ms.
    pub frame_time_mean_std_ms: Option<(f64, f64)>,
    /// Frames queued ahead of a present, mean and max (presented, not yet on screen).
    pub queue_depth: Option<(f64, u64)>,
}

impl CaptureFigures {
    /// The figures of `chain` with its `metrics` ([`frame_metrics`]).
    pub fn of(chain: &CaptureChain, metrics: &[FrameMetrics], hz: u64) -> CaptureFigures {
        let frames = &chain.frames;
        let ms = |t: Ticks| ticks_to_ms(t, hz);
        let displayed: Vec<&CaptureFrame> = frames.iter().filter(|f| f.screen.is_some()).collect();
        let tearing = frames.iter().filter(|f| f.tears).count();
        let intervals: Vec<Nanos> =
            metrics.iter().filter_map(|m| m.display_change).map(|t| ticks_to_nanos(t, hz)).collect();
        let measured = if tearing * 2 > frames.len() { None } else { RefreshEstimate::from_intervals(&intervals) };
        let refresh = measured.and_then(|m| m.grid(&intervals));
        let screens: Vec<Ticks> = displayed.iter().filter_map(|f| f.screen).collect();
        let fps = match (screens.first(), screens.last()) {
            (Some(a), Some(b)) if b > a => Some((screens.len() - 1) as f64 * hz as f64 / (b - a) as f64),
            _ => None,
        };
        let origin = frames.iter().flat_map(|f| [f.cpu_start, f.screen, f.present_start]).flatten().min().unwrap_or(0);
        let refreshes_per_frame = refresh
            .map(|r| {
                let tick = |t: Ticks| r.nearest_tick(ticks_to_nanos(t - origin, hz));
                screens.windows(2).map(|w| tick(w[1]).saturating_sub(tick(w[0]))).collect()
            })
            .unwrap_or_default();
        let errors: Vec<(f64, u64)> =
            frames.iter().zip(metrics).filter_map(|(f, m)| m.animation_error.map(|e| (ms(e), f.line))).collect();
        let rms =
            (!errors.is_empty()).then(|| (errors.iter().map(|(e, _)| e * e).sum::<f64>() / errors.len() as f64).sqrt());
        let max = errors.iter().copied().max_by(|a, b| a.0.abs().total_cmp(&b.0.abs()));
        let mean_std = |values: &[f64]| {
            (!values.is_empty()).then(|| {
                let mean = values.iter().sum::<f64>() / values.len() as f64;
                let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / values.len() as f64;
                (mean, var.sqrt())
            })
        };
        let shown: Vec<f64> = metrics.iter().filter_map(|m| m.displayed_time).map(ms).collect();
        let presented: Vec<f64> = frames.iter().filter_map(|f| f.frame_time).filter(|&t| t > 0).map(ms).collect();
        CaptureFigures {
            frames: frames.len(),
            displayed: displayed.len(),
            dropped: frames.iter().filter(|f| f.dropped).count(),
            generated: displayed.iter().filter(|f| !f.is_application()).count(),
            tearing,
            fps,
            measured,
            refresh,
            refreshes_per_frame,
            off_grid: (
                refresh.map_or(0, |r| {
                    let period = r.period() as f64;
                    intervals
                        .iter()
                        .filter(|&&q| ((q as f64 / period) - (q as f64 / period).round()).abs() > 0.25)
                        .count()
                }),
                intervals.len(),
            ),
            stats: motion_stats(frames, hz, refresh, origin),
            animation_errors: errors.len(),
            animation_error_rms_ms: rms,
            animation_error_max: max,
            displayed_time_mean_std_ms: mean_std(&shown),
            frame_time_mean_std_ms: mean_std(&presented),
            queue_depth: queue_depth(frames),
        }
    }

    /// The display pattern: the shortest repeating cycle of refreshes per
    /// frame that fits 90 % of the frames (`2-3-2-3-2`), else `None`.
    pub fn display_cycle(&self) -> Option<Vec<u64>> {
        display_cycle(&self.refreshes_per_frame)
    }

    /// How many frames stayed each number of refreshes.
    pub fn refresh_counts(&self) -> BTreeMap<u64, usize> {
        let mut counts = BTreeMap::new();
        for &n in &self.refreshes_per_frame {
            *counts.entry(n).or_insert(0) += 1;
        }
        counts
    }
}

/// The shortest cycle (1 to 12 frames) that the sequence repeats on 90 % of its frames.
pub fn display_cycle(sequence: &[u64]) -> Option<Vec<u64>> {
    if sequence.len() < 4 {
        return None;
    }
    (1..=12usize.min(sequence.len() / 2)).find_map(|p| {
        let same = sequence.windows(p + 1).filter(|w| w[0] == w[p]).count();
        (same * 10 >= (sequence.len() - p) * 9).then(|| {
            // The most frequent window of p frames, rotated to start with the
            // lowest count (of such rotations the greatest: 2-3-2-3-2, not
            // 2-2-3-2-3): one reading of the cycle whatever the capture's first frame.
            let mut windows: BTreeMap<Vec<u64>, usize> = BTreeMap::new();
            for w in sequence.windows(p) {
                let mut cycle = w.to_vec();
                let low = cycle.iter().copied().min().unwrap_or(0);
                let start = (0..p).filter(|&i| cycle[i] == low).max_by_key(|&i| {
                    let mut c = cycle.clone();
                    c.rotate_left(i);
                    c
                });
                cycle.rotate_left(start.unwrap_or(0));
                *windows.entry(cycle).or_insert(0) += 1;
            }
            windows
                .into_iter()
                .max_by_key(|(c, n)| (*n, std::cmp::Reverse(c.clone())))
                .map(|(c, _)| c)
                .unwrap_or_default()
        })
    })
}

/// The crate's [`Metrics`] fed the displayed application frames with a sim
/// time: display = screen, content = sim, input = CPU start.
fn motion_stats(frames: &[CaptureFrame], hz: u64, refresh: Option<Rate>, origin: Ticks) -> Option<FrameStats> {
    let sim_origin = frames.iter().filter_map(|f| f.sim.map(|s| s.0)).min()?;
    let mut metrics: Option<Metrics> = None;
    let mut count = 0;
    for frame in frames.iter().filter(|f| f.is_application()) {
        let (Some(screen), Some(cpu), Some((sim, _))) = (frame.screen, frame.cpu_start, frame.sim) else { continue };
        let display_time = ticks_to_nanos(screen - origin, hz);
        let m = metrics.get_or_insert_with(|| Metrics::new(display_time, refresh));
        let content_time = ticks_to_nanos(sim - sim_origin, hz);
        m.record(&FrameSample {
            updates: 1,
            shown_updates: 1,
            content_time,
            input_time: ticks_to_nanos(cpu - origin, hz),
            display_time,
            game_time: content_time,
            repeats: 0,
        });
        count += 1;
    }
    (count >= 2).then(|| metrics.map(|m| m.stats())).flatten()
}

/// At each present, how many earlier displayed frames of the chain were not on screen yet.
fn queue_depth(frames: &[CaptureFrame]) -> Option<(f64, u64)> {
    let mut pending: VecDeque<Ticks> = VecDeque::new();
    let (mut sum, mut max, mut n) = (0u64, 0u64, 0u64);
    for frame in frames {
        let Some(present) = frame.present_start else { continue };
        pending.retain(|&s| s > present);
        if frame.screen.is_some() || n > 0 {
            let depth = pending.len() as u64;
            sum += depth;
            max = max.max(depth);
            n += 1;
        }
        if let Some(screen) = frame.screen {
            pending.push_back(screen);
        }
    }
    (n > 0 && frames.iter().any(|f| f.screen.is_some())).then(|| (sum as f64 / n as f64, max))
}

/// The frames CSV header: PresentMon's names where PresentMon has the column.
pub const FRAMES_HEADER: &str = "Line,Application,ProcessID,SwapChainAddress,FrameType,CPUStartTime,MsBetweenPresents,\
MsBetweenDisplayChange,DisplayedTime,DisplayLatency,AnimationError,AnimationSource";

/// One swap chain's frames as CSV, one row per frame (times in ms; `CPUStartTime`
/// from the chain's first CPU start), NA where a metric has no value.
pub fn frames_csv(chain: &CaptureChain, metrics: &[FrameMetrics], hz: u64) -> String {
    let decimals = if hz <= 10_000_000 { 4 } else { 6 };
    let ms = |t: Option<Ticks>| t.map_or_else(|| "NA".to_owned(), |t| format!("{:.decimals$}", ticks_to_ms(t, hz)));
    let origin = chain.frames.iter().filter_map(|f| f.cpu_start).min();
    let quote = |s: &str| if s.contains([',', '"']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() };
    let mut out = String::with_capacity(64 * (chain.frames.len() + 1));
    out.push_str(FRAMES_HEADER);
    out.push('\n');
    for (frame, m) in chain.frames.iter().zip(metrics) {
        let source = match (frame.sim, m.animation_error) {
            (Some((_, source)), Some(_)) => source.name(),
            _ => "NA",
        };
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            frame.line,
            quote(&chain.app),
            quote(&chain.pid),
            quote(&chain.address),
            quote(&frame.frame_type),
            ms(frame.cpu_start.zip(origin).map(|(c, o)| c - o)),
            ms(frame.frame_time),
            ms(m.display_change),
            ms(m.displayed_time),
            ms(m.display_latency),
            ms(m.animation_error),
            source
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// An application frame at 10 MHz: CPU start and screen in µs.
    fn frame(cpu_us: i64, screen_us: Option<i64>) -> CaptureFrame {
        CaptureFrame {
            line: 0,
            frame_type: "Application".to_owned(),
            frame_time: None,
            present_start: Some(cpu_us * 10),
            cpu_start: Some(cpu_us * 10),
            screen: screen_us.map(|s| s * 10),
            sim: Some((cpu_us * 10, SimSource::CpuStart)),
            seed: None,
            dropped: screen_us.is_none(),
            tears: false,
        }
    }

    fn errors(frames: &[CaptureFrame]) -> Vec<Option<Ticks>> {
        frame_metrics(frames).iter().map(|m| m.animation_error.map(|t| t / 10)).collect()
    }

    #[test]
    fn sixty_fps_on_144_hz_shows_2_3_2_3_2_refreshes_and_an_animation_error_of_a_fraction_of_a_refresh() {
        // Frames every 16 667 µs from 0; each shows at the first 144 Hz vblank
        // (6 944.4 µs apart) at least 10 ms after its CPU start.
        let vblank = |n: i64| (n * 1_000_000 + 72) / 144;
        let frames: Vec<CaptureFrame> = (0..11)
            .map(|i| {
                let cpu = i * 16_667;
                let n = (0..).find(|&n| vblank(n) >= cpu + 10_000).unwrap_or(0);
                frame(cpu, Some(vblank(n)))
            })
            .collect();
        let screens: Vec<i64> = frames.iter().map(|f| f.screen.unwrap_or(0) / 10).collect();
        assert_eq!(&screens[..6], &[13_889, 27_778, 48_611, 62_500, 83_333, 97_222], "vblanks 2, 4, 7, 9, 12, 14");
        // Sim moves 16 667 µs a frame; the screen 2 or 3 refreshes (13 889 or 20 833 µs).
        let (two, three) = (Some(16_667 - 13_889), Some(16_667 - 20_833));
        assert_eq!(
            &errors(&frames)[..6],
            &[None, two, three, two, three, two],
            "+2 778 µs where a frame stayed 2 refreshes, −4 166 µs where it stayed 3"
        );
        let m = frame_metrics(&frames);
        let chain = CaptureChain { app: "game.exe".into(), pid: "1".into(), address: "0x1".into(), frames };
        let figures = CaptureFigures::of(&chain, &m, 10_000_000);
        assert_eq!(figures.display_cycle(), Some(vec![2, 3, 2, 3, 2]), "12 refreshes per 5 frames: {figures:?}");
    }

    #[test]
    fn a_variable_step_timed_by_cpu_start_with_one_50_ms_stall_errs_by_the_stall_then_not_at_all() {
        // 60 Hz, each frame shown 2 refreshes after its CPU start. Frame 3's CPU
        // work takes 50 ms longer: it shows 4 refreshes after frame 2 with a sim
        // one step (16.667 ms) ahead, 50 ms behind the screen; frame 4 starts when
        // frame 3 returns, 66.668 ms after it, and its step (CPU start to CPU
        // start) makes up the 50 ms in one refresh.
        let period = 16_667;
        let cpu = [0, period, 2 * period, 3 * period, 3 * period + 50_000 + period, 3 * period + 50_000 + 2 * period];
        let screens = [2 * period, 3 * period, 4 * period, 8 * period, 9 * period, 10 * period];
        let frames: Vec<CaptureFrame> = cpu.iter().zip(screens).map(|(&c, s)| frame(c, Some(s))).collect();
        assert_eq!(
            errors(&frames),
            vec![None, Some(0), Some(0), Some(-50_001), Some(16_667 + 50_000 - period), Some(0)],
            "the stalled frame moves 1 step in 4 refreshes (−50 ms), the next catches up (+50 ms)"
        );
        let m = frame_metrics(&frames);
        assert_eq!(m[2].displayed_time, Some(4 * period * 10), "frame 2 stays on screen through the stall");
    }

    #[test]
    fn a_fixed_step_without_interpolation_errs_by_a_tick_when_two_updates_land_in_one_frame() {
        // 60 Hz ticks drawn on a 59.94 Hz display: sim advances 1 tick a frame,
        // except frame 3 which runs 2 ticks; every frame shows 1 refresh later.
        let tick = 16_667;
        let refresh = 16_683;
        let sims = [0, tick, 2 * tick, 4 * tick, 5 * tick];
        let frames: Vec<CaptureFrame> = sims
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let mut f = frame(i as i64 * refresh, Some((i as i64 + 1) * refresh));
                f.sim = Some((s * 10, SimSource::App));
                f
            })
            .collect();
        assert_eq!(
            errors(&frames),
            vec![None, Some(tick - refresh), Some(tick - refresh), Some(2 * tick - refresh), Some(tick - refresh)],
            "−16 µs a frame, and +1 tick less 16 µs where two updates land"
        );
    }

    #[test]
    fn dropped_and_generated_frames_have_no_animation_error_and_a_source_switch_is_na() {
        let mut frames = vec![frame(0, Some(20_000)), frame(10_000, None), frame(20_000, Some(40_000))];
        frames.push(CaptureFrame { frame_type: "Intel XeSS-FG".into(), sim: None, ..frame(25_000, Some(45_000)) });
        let mut switched = frame(30_000, Some(60_000));
        switched.sim = Some((5, SimSource::App));
        frames.push(switched);
        frames.push(CaptureFrame { sim: Some((100_005, SimSource::App)), ..frame(40_000, Some(70_000)) });
        let m = frame_metrics(&frames);
        let ae: Vec<Option<Ticks>> = m.iter().map(|x| x.animation_error).collect();
        assert_eq!(ae, vec![None, None, Some(0), None, None, Some(0)], "{m:?}");
        let shown: Vec<Option<Ticks>> = m.iter().map(|x| x.displayed_time.map(|t| t / 10)).collect();
        assert_eq!(shown, vec![Some(20_000), None, Some(5_000), Some(15_000), Some(10_000), None]);
    }

    #[test]
    fn the_counter_rate_is_the_ratio_of_qpc_deltas_to_ms() {
        let csv = "Application,ProcessID,SwapChainAddress,TimeInQPC,CPUStartQPC,MsBetweenPresents,MsUntilDisplayed\n\
                   g.exe,1,0x1,1000000,990000,NA,NA\n\
                   g.exe,1,0x1,1166670,1150000,16.6670,10.0000\n\
                   g.exe,1,0x1,1333340,1320000,16.6670,10.0000\n";
        let capture = parse_capture(csv.as_bytes(), 1 << 20).expect("a capture");
        assert_eq!((capture.hz, capture.qpc, capture.layout), (10_000_000, true, CaptureLayout::Default2));
        let frames = &capture.chains[0].frames;
        assert_eq!(frames[1].screen, Some(1_266_670), "present + 10 ms at 10 MHz");
        let m = frame_metrics(frames);
        assert_eq!(m[2].animation_error, Some(170_000 - 166_670), "sim 17 ms, screen 16.667 ms");
    }

    #[test]
    fn a_1x_capture_takes_the_cpu_start_from_the_previous_present_s_return() {
        let csv = "Application,ProcessID,SwapChainAddress,Dropped,TimeInSeconds,MsBetweenPresents,MsInPresentAPI,MsUntilDisplayed\n\
                   g.exe,1,0x1,0,1.000,16.0,1.0,10.0\n\
                   g.exe,1,0x1,1,1.016,16.0,1.0,0.0\n\
                   g.exe,1,0x1,0,1.032,16.0,1.0,12.0\n";
        let capture = parse_capture(csv.as_bytes(), 1 << 20).expect("a capture");
        assert_eq!((capture.hz, capture.qpc), (NANOS_PER_SEC, false));
        let f = &capture.chains[0].frames;
        assert_eq!(f[2].cpu_start, Some(1_017_000_000), "1.016 s + 1 ms");
        assert_eq!(f[1].screen, None, "dropped");
        assert_eq!(f[2].screen, Some(1_044_000_000));
    }

    #[test]
    fn a_bad_number_names_its_line() {
        let csv = "Application,TimeInSeconds,MsBetweenPresents,MsUntilDisplayed\ng.exe,1.0,16.6,x\n";
        let err = parse_capture(csv.as_bytes(), 1 << 20).expect_err("x is no number");
        assert_eq!(err.to_string(), "line 2: MsUntilDisplayed 'x' is not a number");
    }
}
