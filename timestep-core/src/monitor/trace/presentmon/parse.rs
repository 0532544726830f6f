//! The one reader of a capture file, every layout in the module docs and
//! the trace reader's plain lists: the file is read once into rows
//! ([`CaptureFile`]) through one column mapping ([`Columns`]) and one row
//! type ([`Raw`]). The diagnosis's timestamps ([`CaptureFile::capture`]) and
//! the replay's displayed frames ([`CaptureFile::trace`]) both come from
//! those rows, each with its own rules for bad input: the replay refuses
//! more (a negative or NA frame time, a row shorter than a column it reads),
//! and each keeps the first error it meets in file order, as if it had read
//! the file alone.

use super::{Capture, CaptureChain, CaptureFrame, CaptureLayout, FrameCosts, Reported, SimSource, Ticks};
use crate::monitor::trace::read::{
    self, at, for_each_record, is_decimal_comma, is_na, refuse_semicolons, replay_row_error,
};
use crate::monitor::trace::{Trace, TraceError};
use crate::time::NANOS_PER_SEC;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// Reads the capture at `path` for its timestamps.
///
/// # Errors
/// As [`parse_capture`].
pub fn read_capture(path: &Path, max_bytes: u64) -> Result<Capture, TraceError> {
    read_capture_of(path, max_bytes, None)
}

/// Reads the capture at `path` with the counter's rate from `app`'s rows (see [`parse_capture_of`]).
///
/// # Errors
/// As [`parse_capture`].
pub fn read_capture_of(path: &Path, max_bytes: u64, app: Option<&str>) -> Result<Capture, TraceError> {
    read_capture_file(path, max_bytes)?.capture(app)
}

/// Reads the file at `path` once, for both the diagnosis and the replay.
///
/// # Errors
/// The file cannot be opened ([`TraceError::Io`]); what its rows hold is
/// judged by [`CaptureFile::capture`] and [`CaptureFile::trace`].
pub fn read_capture_file(path: &Path, max_bytes: u64) -> Result<CaptureFile, TraceError> {
    let file = std::fs::File::open(path).map_err(|e| TraceError::Io(e.to_string()))?;
    Ok(parse_capture_file(file, max_bytes))
}

/// Reads a capture or a plain list of frame times from a stream once (at
/// most `max_bytes`), for both the diagnosis and the replay.
///
/// ```
/// use timestep_core::monitor::presentmon::parse_capture_file;
///
/// let csv = "Application,ProcessID,SwapChainAddress,TimeInSeconds,MsBetweenPresents,MsUntilDisplayed\n\
///            game.exe,1,0x1,1.000,16.7,5.0\ngame.exe,1,0x1,1.0167,16.7,5.0\n";
/// let file = parse_capture_file(csv.as_bytes(), 1 << 20);
/// let capture = file.capture(None).expect("the diagnosis's timestamps");
/// let trace = file.trace(Some("game.exe")).expect("the replay's frames");
/// assert_eq!((capture.chains[0].frames.len(), trace.frames().len()), (2, 2));
/// ```
pub fn parse_capture_file<R: Read>(reader: R, max_bytes: u64) -> CaptureFile {
    read_rows(reader, max_bytes, None)
}

/// Reads the file for the replay alone ([`crate::monitor::parse_trace`]):
/// the diagnosis's rules are not applied, and reading stops at the replay's
/// first error.
pub(in crate::monitor::trace) fn parse_for_replay<R: Read>(reader: R, max_bytes: u64) -> CaptureFile {
    read_rows(reader, max_bytes, Some(TraceError::Io("the file was read for the replay alone".to_owned())))
}

/// The one record loop: `capture_error` set from the start reads the rows for the replay alone.
fn read_rows<R: Read>(reader: R, max_bytes: u64, capture_error: Option<TraceError>) -> CaptureFile {
    let mut file =
        CaptureFile { columns: None, chains: Vec::new(), rows: Vec::new(), capture_error, replay_error: None };
    let mut detected = false;
    let mut index: HashMap<ChainKey, usize> = HashMap::new();
    let result = for_each_record(reader, max_bytes, |fields, line| {
        if !detected {
            detected = true;
            if let Err(e) = refuse_semicolons(fields, line) {
                file.capture_error.get_or_insert_with(|| e.clone());
                file.replay_error.get_or_insert(e);
                return Err(at(line, "stop"));
            }
            if fields[0].parse::<f64>().is_err() {
                file.header(fields, line);
                return Ok(());
            }
        }
        file.push(fields, line, &mut index);
        if file.capture_error.is_some() && file.replay_error.is_some() {
            // Both readings have their error: the rest of the file cannot change them.
            return Err(at(line, "stop"));
        }
        Ok(())
    });
    if let Err(e) = result {
        file.capture_error.get_or_insert_with(|| e.clone());
        file.replay_error.get_or_insert(e);
    }
    file
}

/// Reads a capture from a stream for its timestamps, every swap chain.
///
/// # Errors
/// The trace reader's one-line errors ([`TraceError`]): an unreadable or
/// oversized stream, a value that is not a number (naming the line), no rows.
pub fn parse_capture<R: Read>(reader: R, max_bytes: u64) -> Result<Capture, TraceError> {
    parse_capture_of(reader, max_bytes, None)
}

/// Reads a capture with the counter's rate inferred from one application's
/// rows: `app`, else the application with the most measured rows that is not
/// a tool ([`super::is_tool`]), else the busiest. Other processes' rows (a
/// browser, an IDE) can disagree with their own ms columns and would skew it.
///
/// # Errors
/// As [`parse_capture`].
pub fn parse_capture_of<R: Read>(reader: R, max_bytes: u64, app: Option<&str>) -> Result<Capture, TraceError> {
    parse_capture_file(reader, max_bytes).capture(app)
}

/// A row's fields by column, parsed as the trace reader does.
struct Row<'a> {
    fields: &'a [&'a str],
    line: u64,
    /// A value that is not a number reads as missing instead of an error
    /// (the diagnosis already refused the row; the replay judges it alone).
    lenient: bool,
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
            return self.refuse(at(self.line, format!("{name} '{text}' has a decimal comma; write it with a point")));
        }
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => self.refuse(at(self.line, format!("{name} '{text}' is not a number"))),
        }
    }

    /// A QPC value: a non-negative integer.
    fn qpc(&self, column: Option<&(usize, String)>) -> Result<Option<Ticks>, TraceError> {
        let Some(text) = self.text(column) else { return Ok(None) };
        let name = column.map_or("", |(_, n)| n.as_str());
        match text.parse::<Ticks>().ok().filter(|&q| q >= 0) {
            Some(q) => Ok(Some(q)),
            None => self.refuse(at(self.line, format!("{name} '{text}' is not a QPC value (a whole number of ticks)"))),
        }
    }

    fn refuse<T>(&self, error: TraceError) -> Result<Option<T>, TraceError> {
        if self.lenient { Ok(None) } else { Err(error) }
    }
}

/// The columns of a capture, by name (ASCII case-insensitive): the one
/// mapping of every layout, for the diagnosis and the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::monitor::trace) struct Columns {
    /// Fields in the header.
    pub(in crate::monitor::trace) width: usize,
    pub(in crate::monitor::trace) app: Option<(usize, String)>,
    pub(in crate::monitor::trace) pid: Option<(usize, String)>,
    pub(in crate::monitor::trace) address: Option<(usize, String)>,
    frame_type: Option<(usize, String)>,
    /// `MsBetweenPresents`, else `FrameTime` (2.0–2.3, `--v2_metrics`), else `frame_ms` (a frame log of frame starts).
    pub(in crate::monitor::trace) frame_time: Option<(usize, String)>,
    time_in_qpc: Option<(usize, String)>,
    qpc_time: Option<(usize, String)>,
    cpu_start_qpc: Option<(usize, String)>,
    cpu_start_time: Option<(usize, String)>,
    time_in_seconds: Option<(usize, String)>,
    pub(in crate::monitor::trace) until_displayed: Option<(usize, String)>,
    pub(in crate::monitor::trace) display_latency: Option<(usize, String)>,
    /// `DisplayedTime`: how long the frame stayed on screen (2.0–2.3, `--v2_metrics`).
    pub(in crate::monitor::trace) displayed_time: Option<(usize, String)>,
    cpu_busy: Option<(usize, String)>,
    gpu_busy: Option<(usize, String)>,
    gpu_util: Option<(usize, String)>,
    in_present: Option<(usize, String)>,
    between_sim: Option<(usize, String)>,
    between_app_start: Option<(usize, String)>,
    animation_time: Option<(usize, String)>,
    pub(in crate::monitor::trace) display_change: Option<(usize, String)>,
    pub(in crate::monitor::trace) dropped: Option<(usize, String)>,
    pub(in crate::monitor::trace) sync_interval: Option<(usize, String)>,
    pub(in crate::monitor::trace) allows_tearing: Option<(usize, String)>,
    pub(in crate::monitor::trace) present_mode: Option<(usize, String)>,
    /// The file's own figures, shown beside the diagnosis's (see [`Reported`]).
    animation_error: Option<(usize, String)>,
    pc_latency: Option<(usize, String)>,
    click_to_photon: Option<(usize, String)>,
    queue_depth: Option<(usize, String)>,
    /// A column only `--v2_metrics` writes (`DisplayedTime`, `CPUBusy`, `FrameTime`).
    v2_names: bool,
}

impl Columns {
    fn find(header: &[&str]) -> Columns {
        let c = |names: &[&str]| {
            names.iter().find_map(|name| {
                header.iter().position(|h| h.eq_ignore_ascii_case(name)).map(|i| (i, header[i].to_owned()))
            })
        };
        Columns {
            width: header.len(),
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
            displayed_time: c(&["DisplayedTime"]),
            cpu_busy: c(&["CPUBusy", "MsCPUBusy"]),
            gpu_busy: c(&["GPUBusy", "MsGPUBusy"]),
            gpu_util: c(&["GPU0Util(%)", "GPUUtilization"]),
            in_present: c(&["MsInPresentAPI"]),
            between_sim: c(&["MsBetweenSimulationStart"]),
            between_app_start: c(&["MsBetweenAppStart"]),
            animation_time: c(&["AnimationTime"]),
            display_change: c(&["MsBetweenDisplayChange"]),
            dropped: c(&["Dropped"]),
            sync_interval: c(&["SyncInterval"]),
            allows_tearing: c(&["AllowsTearing"]),
            present_mode: c(&["PresentMode"]),
            animation_error: c(&["MsAnimationError", "AnimationError"]),
            pc_latency: c(&["MsPCLatency", "PCLatency"]),
            click_to_photon: c(&["MsClickToPhotonLatency", "ClickToPhotonLatency"]),
            queue_depth: c(&["Render Queue Depth"]),
            v2_names: c(&["DisplayedTime", "CPUBusy", "FrameTime"]).is_some(),
        }
    }

    fn layout(&self) -> CaptureLayout {
        if self.cpu_start_qpc.is_some() && (self.display_latency.is_some() || self.v2_names) {
            CaptureLayout::V2Metrics
        } else if self.time_in_qpc.is_some() && self.cpu_start_qpc.is_some() {
            CaptureLayout::Default2
        } else if self.cpu_start_time.is_some() {
            CaptureLayout::ApiDump
        } else if self.time_in_seconds.is_some() || self.qpc_time.is_some() || self.time_in_qpc.is_some() {
            CaptureLayout::PresentMon1
        } else {
            CaptureLayout::FrameTimes
        }
    }

    /// The frame time is 2.0–2.3's `FrameTime` (its `DisplayLatency` is from the present's start).
    pub(in crate::monitor::trace) fn frame_time_is_2_0(&self) -> bool {
        self.frame_time.as_ref().is_some_and(|(_, name)| name.eq_ignore_ascii_case("FrameTime"))
    }

    /// The latency column the replay reads: `DisplayLatency` itself, with a `FrameTime`.
    pub(in crate::monitor::trace) fn replay_latency(&self) -> Option<&(usize, String)> {
        self.display_latency
            .as_ref()
            .filter(|(_, name)| self.frame_time_is_2_0() && name.eq_ignore_ascii_case("DisplayLatency"))
    }
}

/// One row of the file with its numbers, before the counter's rate is
/// known: the one row type of the diagnosis and the replay.
#[derive(Clone, Debug)]
pub(in crate::monitor::trace) struct Raw {
    pub(in crate::monitor::trace) line: u64,
    /// Its swap chain, an index into [`CaptureFile`]'s chains.
    pub(in crate::monitor::trace) chain: usize,
    frame_type: String,
    pub(in crate::monitor::trace) frame_time_ms: Option<f64>,
    present_qpc: Option<Ticks>,
    present_s: Option<f64>,
    cpu_qpc: Option<Ticks>,
    cpu_ms: Option<f64>,
    pub(in crate::monitor::trace) until_displayed_ms: Option<f64>,
    pub(in crate::monitor::trace) display_latency_ms: Option<f64>,
    pub(in crate::monitor::trace) displayed_time_ms: Option<f64>,
    cpu_busy_ms: Option<f64>,
    gpu_busy_ms: Option<f64>,
    gpu_util_pct: Option<f64>,
    in_present_ms: Option<f64>,
    between_sim_ms: Option<f64>,
    between_app_start_ms: Option<f64>,
    animation_time_ms: Option<f64>,
    pub(in crate::monitor::trace) display_change_ms: Option<f64>,
    /// `Dropped` = 1.
    dropped: bool,
    /// The file says it reached the screen: `Dropped` = 0, else `MsUntilDisplayed`
    /// is not NA, else `DisplayedTime` is not NA (true without any of them).
    pub(in crate::monitor::trace) displayed: bool,
    pub(in crate::monitor::trace) tears: bool,
    /// `PresentMode` says the compositor composed it (`Composed: …`; never
    /// `Hardware Composed: Independent Flip`).
    pub(in crate::monitor::trace) composed: bool,
    /// The file's own AnimationError, PCLatency, ClickToPhoton (ms) and Render Queue Depth.
    own: [Option<f64>; 4],
}

/// A swap chain's name: (`Application`, `ProcessID`, `SwapChainAddress`) as written.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(in crate::monitor::trace) struct ChainKey {
    pub(in crate::monitor::trace) app: String,
    pub(in crate::monitor::trace) pid: String,
    pub(in crate::monitor::trace) address: String,
}

/// A capture file read once: its rows, for the diagnosis's timestamps
/// ([`CaptureFile::capture`]) and the replay's frames ([`CaptureFile::trace`]).
#[derive(Clone, Debug)]
pub struct CaptureFile {
    /// The header's columns; `None`: a plain list of frame times (the
    /// diagnosis also reads a one-column header as a plain list's).
    pub(in crate::monitor::trace) columns: Option<Columns>,
    /// Swap chains in order of first appearance (one without a name for a plain list).
    pub(in crate::monitor::trace) chains: Vec<ChainKey>,
    pub(in crate::monitor::trace) rows: Vec<Raw>,
    /// The first row (or stream) error by the diagnosis's rules.
    capture_error: Option<TraceError>,
    /// The first row (or stream) error by the replay's rules.
    pub(in crate::monitor::trace) replay_error: Option<TraceError>,
}

impl CaptureFile {
    /// The first line when it is not a number: a header. The diagnosis takes
    /// one field as a plain list's header; the replay takes a header naming a
    /// frame-time column as a capture's (a one-column one too), one field and
    /// empty ones as a plain list's, and refuses the rest.
    fn header(&mut self, fields: &[&str], line: u64) {
        let columns = Columns::find(fields);
        let first = fields[0];
        let replay = if is_decimal_comma(first) {
            Err(read::decimal_comma(line, "frame time", first))
        } else if columns.frame_time.is_some() {
            Ok(false)
        } else if fields[1..].iter().all(|f| f.is_empty()) {
            Ok(true)
        } else {
            Err(at(
                line,
                "the header has no MsBetweenPresents or FrameTime column; a plain trace has one column of frame times in ms",
            ))
        };
        match replay {
            // A header the replay reads as a plain list's is one to the diagnosis too.
            Ok(true) => {}
            Ok(false) => self.columns = Some(columns),
            Err(e) => {
                self.replay_error = Some(e);
                if fields.len() > 1 {
                    self.columns = Some(columns);
                }
            }
        }
    }

    /// Whether the diagnosis reads the file as a plain list.
    fn capture_plain(&self) -> bool {
        self.columns.as_ref().is_none_or(|c| c.width == 1)
    }

    /// Reads one data row by both sets of rules.
    fn push(&mut self, fields: &[&str], line: u64, index: &mut HashMap<ChainKey, usize>) {
        if self.capture_error.is_none()
            && let Err(e) = refuse_semicolons(fields, line)
        {
            self.capture_error = Some(e);
        }
        if self.replay_error.is_none()
            && let Err(e) = replay_row_error(self, fields, line)
        {
            self.replay_error = Some(e);
        }
        let capture_plain = self.capture_plain();
        let Some(c) = self.columns.as_ref().filter(|_| !capture_plain) else {
            // A plain list: one swap chain without a name; its frame time is the first field.
            if self.chains.is_empty() {
                self.chains.push(ChainKey::default());
            }
            let column = Some((0, "frame time".to_owned()));
            let ms = match (Row { fields, line, lenient: self.capture_error.is_some() }).number(column.as_ref()) {
                Ok(ms) => ms,
                Err(e) => {
                    self.capture_error = Some(e);
                    None
                }
            };
            self.rows.push(Raw::plain(line, ms));
            return;
        };
        let key = ChainKey {
            app: text(fields, c.app.as_ref()).to_owned(),
            pid: text(fields, c.pid.as_ref()).to_owned(),
            address: text(fields, c.address.as_ref()).to_owned(),
        };
        let chain = *index.entry(key.clone()).or_insert_with(|| {
            self.chains.push(key);
            self.chains.len() - 1
        });
        let lenient = self.capture_error.is_some();
        let raw = match Raw::read(&Row { fields, line, lenient }, c, chain) {
            Ok(raw) => raw,
            Err(e) => {
                self.capture_error = Some(e);
                // Read again for the replay, whose rules judge the row alone.
                Raw::read(&Row { fields, line, lenient: true }, c, chain)
                    .unwrap_or_else(|_| Raw { chain, ..Raw::plain(line, None) })
            }
        };
        self.rows.push(raw);
    }

    /// The diagnosis's reading: every swap chain's timestamps, with the
    /// counter's rate from `app`'s rows (see [`parse_capture_of`]).
    ///
    /// # Errors
    /// The first error of the file by the diagnosis's rules: an unreadable or
    /// oversized stream, a value that is not a number (naming the line), no rows.
    pub fn capture(&self, app: Option<&str>) -> Result<Capture, TraceError> {
        if let Some(e) = &self.capture_error {
            return Err(e.clone());
        }
        let raws = &self.rows;
        if raws.is_empty() {
            return Err(TraceError::Empty);
        }
        let columns = self.columns.as_ref().filter(|_| !self.capture_plain());
        let mut chains: Vec<CaptureChain> = self
            .chains
            .iter()
            .map(|k| CaptureChain {
                app: k.app.clone(),
                pid: k.pid.clone(),
                address: k.address.clone(),
                frames: vec![],
            })
            .collect();
        let layout = columns.map_or(CaptureLayout::FrameTimes, Columns::layout);
        let apps: Vec<&str> = chains.iter().map(|c| c.app.as_str()).collect();
        let (hz, qpc, clock_app) = counter_rate(raws, layout, &apps, app);
        let cpu_ms: Vec<Option<f64>> = if layout == CaptureLayout::ApiDump {
            cpu_start_in_ms(raws, chains.len())
        } else {
            raws.iter().map(|r| r.cpu_ms).collect()
        };
        let missing = missing(layout, columns);
        let cols = columns;
        let has_between_sim = cols.is_some_and(|c| c.between_sim.is_some());
        let mut last_present: Vec<Option<(Ticks, Option<Ticks>)>> = vec![None; chains.len()];
        let mut running: Ticks = 0;
        for (raw, &cpu_ms) in raws.iter().zip(&cpu_ms) {
            let to = |ms: Option<f64>| ms.map(|ms| ms_to_ticks(ms, hz));
            let frame_time = to(raw.frame_time_ms);
            let cpu_start = raw.cpu_qpc.or_else(|| to(cpu_ms));
            let present_start = match layout {
                CaptureLayout::FrameTimes => {
                    running += frame_time.unwrap_or(0);
                    Some(running)
                }
                // The app capture's TimeInSeconds is not the present start (4 digits, and ahead of it).
                CaptureLayout::V2Metrics | CaptureLayout::ApiDump => {
                    cpu_start.zip(to(raw.cpu_busy_ms)).map(|(c, b)| c + b)
                }
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
                reported: Reported {
                    displayed_time: to(raw.displayed_time_ms),
                    display_change: to(raw.display_change_ms),
                    animation_error: to(raw.own[0]),
                    display_latency: to(raw.display_latency_ms),
                    pc_latency: to(raw.own[1]),
                    click_to_photon: to(raw.own[2]),
                    queue_depth_milli: raw.own[3].filter(|&q| q >= 0.0).map(|q| (q * 1000.0).round() as u32),
                },
                costs: FrameCosts {
                    cpu_busy: to(raw.cpu_busy_ms).filter(|&t| t > 0),
                    gpu_busy: to(raw.gpu_busy_ms).filter(|&t| t > 0),
                    gpu_util_permille: raw
                        .gpu_util_pct
                        .filter(|&u| u > 0.0 && u <= 100.0)
                        .map(|u| (u * 10.0).round() as u32),
                },
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
        let display_known =
            cols.is_some_and(|c| c.until_displayed.is_some() || c.display_latency.is_some() || c.dropped.is_some());
        if !display_known {
            for frame in chains.iter_mut().flat_map(|c| c.frames.iter_mut()) {
                frame.dropped = false;
            }
        }
        let tearing_known = cols.is_some_and(|c| c.sync_interval.is_some() && c.allows_tearing.is_some());
        let frame_type_known = cols.is_some_and(|c| c.frame_type.is_some());
        Ok(Capture { layout, hz, qpc, chains, missing, display_known, tearing_known, frame_type_known, clock_app })
    }

    /// The replay's reading: one swap chain's displayed frames (`app`'s with
    /// the most frames, else the capture's largest), as [`crate::monitor::parse_trace`] reads them.
    ///
    /// # Errors
    /// The first error of the file by the replay's rules, then those of the
    /// chosen swap chain (see [`crate::monitor::TraceError`]).
    pub fn trace(&self, app: Option<&str>) -> Result<Trace, TraceError> {
        read::trace_of(self, app)
    }
}

/// A field as written, empty where the row or the header lacks it.
fn text<'a>(fields: &[&'a str], column: Option<&(usize, String)>) -> &'a str {
    column.and_then(|(i, _)| fields.get(*i).copied()).unwrap_or("")
}

impl Raw {
    /// The row's numbers by the diagnosis's rules.
    fn read(row: &Row<'_>, c: &Columns, chain: usize) -> Result<Raw, TraceError> {
        let line = row.line;
        let dropped = match row.text(c.dropped.as_ref()) {
            Some("1") => true,
            Some("0") | None => false,
            Some(_) if row.lenient => false,
            Some(other) => return Err(at(line, format!("Dropped is '{other}', expected 0 or 1"))),
        };
        let tears = row.text(c.sync_interval.as_ref()) == Some("0")
            && (row.text(c.allows_tearing.as_ref()) == Some("1")
                || row.text(c.present_mode.as_ref()).is_some_and(|m| m.starts_with("Hardware: Legacy")));
        let composed = row.text(c.present_mode.as_ref()).is_some_and(|m| m.starts_with("Composed"));
        let displayed = if c.dropped.is_some() {
            text(row.fields, c.dropped.as_ref()) == "0"
        } else if c.until_displayed.is_some() {
            !is_na(text(row.fields, c.until_displayed.as_ref()))
        } else if c.displayed_time.is_some() {
            !is_na(text(row.fields, c.displayed_time.as_ref()))
        } else {
            true
        };
        let lenient = Row { lenient: true, ..*row };
        Ok(Raw {
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
            // The diagnosis does not read it: the replay's rules judge it.
            displayed_time_ms: lenient.number(c.displayed_time.as_ref())?,
            cpu_busy_ms: row.number(c.cpu_busy.as_ref())?,
            gpu_busy_ms: row.number(c.gpu_busy.as_ref())?,
            gpu_util_pct: row.number(c.gpu_util.as_ref())?,
            in_present_ms: row.number(c.in_present.as_ref())?,
            between_sim_ms: row.number(c.between_sim.as_ref())?,
            between_app_start_ms: row.number(c.between_app_start.as_ref())?,
            animation_time_ms: row.number(c.animation_time.as_ref())?,
            display_change_ms: row.number(c.display_change.as_ref())?,
            dropped,
            displayed,
            tears,
            composed,
            // Shown beside the diagnosis's figures, never judged: a bad value is no value.
            own: [
                lenient.number(c.animation_error.as_ref())?,
                lenient.number(c.pc_latency.as_ref())?,
                lenient.number(c.click_to_photon.as_ref())?,
                lenient.number(c.queue_depth.as_ref())?,
            ],
        })
    }

    /// A plain list's row: a frame time, displayed.
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
            displayed_time_ms: None,
            cpu_busy_ms: None,
            gpu_busy_ms: None,
            gpu_util_pct: None,
            in_present_ms: None,
            between_sim_ms: None,
            between_app_start_ms: None,
            animation_time_ms: None,
            display_change_ms: None,
            dropped: false,
            displayed: true,
            tears: false,
            composed: false,
            own: [None; 4],
        }
    }
}

/// Common QPC rates: 10 MHz (Windows 10+), the ACPI PM timer and its multiples, 24 MHz (ARM).
const COMMON_QPC_HZ: [u64; 5] = [10_000_000, 3_579_545, 14_318_180, 24_000_000, 19_200_000];

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
/// `MsBetweenAppStart`, which keeps its 0.1 µs. Returns each row's CPU start, ms.
fn cpu_start_in_ms(raws: &[Raw], chains: usize) -> Vec<Option<f64>> {
    let (mut moved, mut measured) = (0.0, 0.0);
    let mut last: Vec<Option<(f64, f64)>> = vec![None; chains];
    for raw in raws {
        if let (Some((before, step)), Some(now)) = (last[raw.chain], raw.cpu_ms) {
            moved += now - before;
            measured += step;
        }
        last[raw.chain] = raw.cpu_ms.zip(raw.between_app_start_ms);
    }
    if measured <= 0.0 || moved / measured > 0.01 {
        return raws.iter().map(|r| r.cpu_ms).collect();
    }
    let mut next: Vec<Option<f64>> = vec![None; chains];
    let mut out = Vec::with_capacity(raws.len());
    for raw in raws {
        let start = next[raw.chain].or(raw.cpu_ms.map(|s| s * 1000.0));
        out.push(start);
        next[raw.chain] = start.zip(raw.between_app_start_ms).map(|(s, d)| s + d);
    }
    out
}

/// `ms` as ticks of a `hz` counter, rounded.
fn ms_to_ticks(ms: f64, hz: u64) -> Ticks {
    (ms * hz as f64 / 1000.0).round() as Ticks
}

/// The counter's rate: QPC deltas over the ms column that measures them,
/// from one application's rows (see [`parse_capture_of`]); the application
/// whose rows gave it.
fn counter_rate(raws: &[Raw], layout: CaptureLayout, apps: &[&str], app: Option<&str>) -> (u64, bool, Option<String>) {
    // Per application: QPC ticks, ms, and measured rows.
    let mut sums: Vec<(String, f64, f64, usize)> = Vec::new();
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
                let name = apps.get(raw.chain).copied().unwrap_or("");
                let i = match sums.iter().position(|s| s.0.eq_ignore_ascii_case(name)) {
                    Some(i) => i,
                    None => {
                        sums.push((name.to_owned(), 0.0, 0.0, 0));
                        sums.len() - 1
                    }
                };
                sums[i].1 += (stamp - before) as f64;
                sums[i].2 += d;
                sums[i].3 += 1;
            }
        }
    }
    let chosen = match app {
        Some(app) => sums.iter().find(|s| s.0.eq_ignore_ascii_case(app)),
        None => sums
            .iter()
            .filter(|s| !super::is_tool(&s.0))
            .max_by_key(|s| s.3)
            .or_else(|| sums.iter().max_by_key(|s| s.3)),
    };
    let Some((name, ticks, ms, _)) = chosen.filter(|s| s.2 > 0.0) else {
        return (NANOS_PER_SEC, false, None);
    };
    let estimate = ticks / ms * 1000.0;
    let hz = COMMON_QPC_HZ.iter().copied().find(|&c| (estimate / c as f64 - 1.0).abs() < 1e-3);
    (hz.unwrap_or(estimate.round().max(1.0) as u64), true, Some(name.clone()))
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
    if columns.is_some_and(|c| c.frame_type.is_none()) {
        out.push(
            "frame generation: no FrameType column, so a frame generator's frames cannot be told from the game's \
             (they would read as the game's own, and in its queue)"
                .to_owned(),
        );
    }
    if columns.is_some_and(|c| c.until_displayed.is_none() && c.display_latency.is_none() && c.dropped.is_none())
        && layout != CaptureLayout::FrameTimes
    {
        out.push(
            "which frames were displayed, DisplayedTime, DisplayLatency and AnimationError: no MsUntilDisplayed or \
             DisplayLatency column"
                .to_owned(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::frame_metrics;
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn one_read_gives_the_diagnosis_and_the_replay_the_same_rows() {
        // Rows 2 and 4 are the game's, row 3 a dropped one merged into row 4 by the replay.
        let csv = "Application,ProcessID,SwapChainAddress,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,MsUntilDisplayed\n\
                   g.exe,1,0x1,0,1.000,16.0,16.7,1.0,10.0\n\
                   g.exe,1,0x1,1,1.016,16.0,0.000,1.0,0.0\n\
                   g.exe,1,0x1,0,1.032,16.0,33.4,1.0,12.0\n\
                   dwm.exe,2,0x2,0,1.033,16.7,16.7,0.1,1.0\n";
        let file = parse_capture_file(csv.as_bytes(), 1 << 20);
        let capture = file.capture(None).expect("the diagnosis's reading");
        let trace = file.trace(Some("g.exe")).expect("the replay's reading");
        assert_eq!(capture.chains.iter().map(|c| c.frames.len()).collect::<Vec<_>>(), [3, 1]);
        assert_eq!(capture.chains[0].frames[2].screen, Some(1_044_000_000), "1.032 s + 12 ms");
        let presents: Vec<u64> = trace.frames().iter().map(|f| f.present).collect();
        assert_eq!((presents, trace.dropped()), (vec![16_000_000, 32_000_000], 1), "16 + 16 ms merged");
        assert_eq!(trace.others().len(), 1, "dwm.exe named beside the game");
    }

    #[test]
    fn each_reading_keeps_the_first_error_its_own_rules_find() {
        // Line 3: a negative frame time (the replay's error); line 4: a CPU cost that is no number (the diagnosis's).
        let csv = "Application,MsBetweenPresents,MsCPUBusy,MsUntilDisplayed\n\
                   g.exe,16.7,5.0,10\ng.exe,-16.7,5.0,10\ng.exe,16.7,x,10\n";
        let file = parse_capture_file(csv.as_bytes(), 1 << 20);
        let capture = file.capture(None).expect_err("x is no number");
        assert_eq!(capture.to_string(), "line 4: MsCPUBusy 'x' is not a number");
        let trace = file.trace(None).expect_err("a negative frame time");
        assert_eq!(trace.to_string(), "line 3: MsBetweenPresents -16.7 ms must be a finite, non-negative number");
    }

    #[test]
    fn a_header_the_replay_reads_as_a_plain_list_s_is_one_to_the_diagnosis_too() {
        // `ms,,`: one name and empty fields, as a spreadsheet exports a column of frame times.
        let file = parse_capture_file("ms,,\n16.5,,\n17,,\n".as_bytes(), 1 << 20);
        let capture = file.capture(None).expect("a plain list");
        assert_eq!(capture.layout, CaptureLayout::FrameTimes);
        let frame_times: Vec<Option<Ticks>> = capture.chains[0].frames.iter().map(|f| f.frame_time).collect();
        assert_eq!(frame_times, [Some(16_500_000), Some(17_000_000)], "in ns: no QPC columns");
        assert_eq!(file.trace(None).map(|t| t.frames().len()), Ok(2));
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

    #[test]
    fn the_counter_rate_comes_from_the_game_s_rows_not_a_browser_s() {
        // The game's QPC moves 166 670 ticks in 16.667 ms (10 MHz); the
        // browser's rows, 400 000 ticks in 2 ms (200 MHz: a process whose ms
        // column disagrees with its QPC deltas). Over all rows the ratio would
        // be 1 133 340 ticks in 37.334 ms, 30.4 MHz; the game's alone, 10 MHz.
        let mut csv = String::from(
            "Application,ProcessID,SwapChainAddress,TimeInQPC,CPUStartQPC,MsBetweenPresents,MsUntilDisplayed\n",
        );
        for i in 0..3 {
            csv.push_str(&format!("game.exe,1,0x1,{},0,16.667,5\n", 1_000_000 + i * 166_670));
            csv.push_str(&format!("chrome.exe,2,0x2,{},0,2.0,5\n", 1_000_000 + i * 400_000));
        }
        let capture = parse_capture(csv.as_bytes(), 1 << 20).expect("a capture");
        assert_eq!((capture.hz, capture.clock_app.as_deref()), (10_000_000, Some("game.exe")));
        let browser = parse_capture_of(csv.as_bytes(), 1 << 20, Some("chrome.exe")).expect("a capture");
        assert_eq!(browser.hz, 200_000_000, "400 000 ticks in 2 ms");
    }

    #[test]
    fn a_file_without_a_display_column_says_no_frame_was_dropped_and_none_displayed() {
        let csv = "Application,ProcessID,SwapChainAddress,TimeInQPC,CPUStartQPC,MsBetweenPresents,Renamed\n\
                   g.exe,1,0x1,1000000,990000,NA,10\n\
                   g.exe,1,0x1,1166670,1150000,16.6670,10\n";
        let capture = parse_capture(csv.as_bytes(), 1 << 20).expect("a capture");
        assert!(!capture.display_known);
        let frames = &capture.chains[0].frames;
        assert!(frames.iter().all(|f| f.screen.is_none() && !f.dropped), "{frames:?}");
        assert!(capture.missing.iter().any(|m| m.starts_with("which frames were displayed")), "{:?}", capture.missing);
    }
}
