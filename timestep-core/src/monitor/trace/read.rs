//! Reading a trace file: formats, columns, limits and errors.
//!
//! The file is read once, by the one reader of a capture
//! ([`super::presentmon::CaptureFile`]: one column mapping and one row type
//! for every layout), and the replay's rules below judge its rows; the
//! diagnosis takes its timestamps from the same rows. The file is read as a
//! stream through the `csv` crate (quotes, CRLF, a UTF-8 byte-order mark,
//! short rows), with lines starting with `/` skipped (CapFrameX's
//! `//Key=Value` header). The first other line decides the shape:
//!
//! - a number: a plain list without a header, one frame time (ms) per line;
//! - a header with a frame-time column: a capture, read by column name
//!   (ASCII case-insensitive; 1.7+ writes `msBetweenPresents` and reorders);
//! - any other one-column header: a plain list with a header.
//!
//! | meaning | column, in order of precedence | formats |
//! |---|---|---|
//! | present interval | `MsBetweenPresents`, else `FrameTime`, else `frame_ms` | 1.x, 2.4+ / 2.0–2.3 / a frame log's |
//! | not displayed | `Dropped` = 1, else `MsUntilDisplayed` = NA, else `DisplayedTime` = NA | 1.x / 2.4+ / 2.0–2.3 |
//! | display-change interval | `MsBetweenDisplayChange`; else the previous displayed frame's `DisplayedTime` (2.0–2.3 writes it forward-looking) | |
//! | present to display | `MsUntilDisplayed`, else `DisplayLatency − FrameTime` | |
//! | swap chain | `Application`, `ProcessID`, `SwapChainAddress` (raw strings; a missing column is empty) | |
//! | tearing | `SyncInterval` = 0 and (`AllowsTearing` = 1 or `PresentMode` starting `Hardware: Legacy`) | |
//! | composed | `PresentMode` starting `Composed` (`Composed: Flip`) for most displayed frames | |
//!
//! `MsBetweenDisplayChange` = NA is not "not displayed": 2.4+ also writes NA
//! for the first displayed frame of a swap chain. A 0 or NA interval is
//! unknown. OCAT's and other extra columns are ignored; rows may be shorter
//! than the header as long as the columns used are there.
//!
//! Ambiguous input is an error naming its line: a decimal comma (`16,683`), a
//! header-less line with several fields (an index column, or a decimal
//! comma), semicolon-separated values (not supported: export with commas), a
//! frame time that is not a finite number of ms in [0, [`MAX_FRAME_MS`]], a
//! trace whose frame times are all 0, and files past [`MAX_TRACE_BYTES`] or
//! with a line past [`MAX_LINE_BYTES`] (`/dev/zero` stops at once).
//! Values out of range are checked in the replayed swap chain only: an idle
//! background window presenting every 20 s does not make a capture unusable.

use super::presentmon::{CaptureFile, ChainKey, Columns, Raw, parse_for_replay};
use super::{Choice, RefreshEstimate, SwapChain, Trace, TraceDisplay, TraceFrame};
use crate::time::{NANOS_PER_MS, Nanos, ms_to_nanos};
use std::io::{self, Read};
use std::path::Path;

/// The largest trace file read: 256 MiB, about 1.2 million rows of
/// PresentMon's 220-byte lines (an hour of a 300 fps game with dwm.exe).
pub(crate) const MAX_TRACE_BYTES: u64 = 256 << 20;

/// The longest line read: 64 KiB. A PresentMon row is under 1 KiB, OCAT's
/// first row with the system columns about 600 bytes.
pub(crate) const MAX_LINE_BYTES: u64 = 64 << 10;

/// The longest frame time, display-change interval or display latency
/// replayed, ms: a 10 s frame is a paused or stalled capture, not a frame.
pub(crate) const MAX_FRAME_MS: f64 = 10_000.0;

/// [`MAX_FRAME_MS`] in nanoseconds.
const MAX_FRAME_NS: Nanos = 10_000 * NANOS_PER_MS;

/// How to read a trace: [`TraceOptions::default`] reads the capture's
/// largest swap chain from a file of at most 256 MiB.
///
/// ```
/// use timestep_core::monitor::{TraceOptions, parse_trace};
///
/// let options = TraceOptions::default().with_app("game.exe");
/// let csv = "Application,SwapChainAddress,msBetweenPresents\ngame.exe,0x1,16.7\ngame.exe,0x1,16.6\n";
/// assert_eq!(parse_trace(csv.as_bytes(), &options).map(|t| t.frames().len()).ok(), Some(2));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TraceOptions {
    /// Replay this application's swap chain (with the most frames if it has
    /// several) instead of the capture's largest one. ASCII case-insensitive.
    pub app: Option<String>,
    /// Refuse files larger than this many bytes.
    pub max_bytes: u64,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions { app: None, max_bytes: MAX_TRACE_BYTES }
    }
}

impl TraceOptions {
    /// Replays `app`'s swap chain (ASCII case-insensitive).
    pub fn with_app(self, app: impl Into<String>) -> TraceOptions {
        TraceOptions { app: Some(app.into()), ..self }
    }

    /// Refuses files larger than `max_bytes`.
    pub fn with_max_bytes(self, max_bytes: u64) -> TraceOptions {
        TraceOptions { max_bytes, ..self }
    }
}

/// Why a trace cannot be replayed. Every message is one line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file cannot be opened or read.
    #[error("cannot read trace: {0}")]
    Io(String),
    /// Past [`TraceOptions::max_bytes`].
    #[error(
        "line {line}: the trace is larger than the {} limit; cut it, or capture one process (PresentMon --process_name)",
        size(*limit)
    )]
    TooLarge {
        /// The line being read when the limit was reached.
        line: u64,
        /// The limit, bytes.
        limit: u64,
    },
    /// A line past 64 KiB.
    #[error("line {line} is longer than {}: not a CSV of frame times", size(MAX_LINE_BYTES))]
    LineTooLong {
        /// The line.
        line: u64,
    },
    /// A bad line; the message says what and the fix.
    #[error("line {line}: {message}")]
    Line {
        /// The 1-based line.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// Nothing but headers, comments and blank lines.
    #[error("the trace holds no frame times")]
    Empty,
    /// The chosen swap chain never reached the display.
    #[error("{0}: none of its frames was displayed")]
    NothingDisplayed(String),
    /// Every replayed frame time is 0.
    #[error("lines {first}-{last}: every frame time is 0 ms, there is nothing to replay")]
    AllZero {
        /// First line of the replayed frames.
        first: u64,
        /// Last line of the replayed frames.
        last: u64,
    },
    /// The application asked for is not in the capture.
    #[error("'{name}' is not in the capture; its applications: {present}")]
    UnknownApp {
        /// The name asked for.
        name: String,
        /// The applications present with their frame counts.
        present: String,
    },
}

/// `256 MiB`, `64 KiB`, `100 bytes`.
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

pub(super) fn at(line: u64, message: impl Into<String>) -> TraceError {
    TraceError::Line { line, message: message.into() }
}

/// Reads the trace at `path`.
///
/// # Errors
/// The file cannot be read, or see [`parse_trace`].
pub fn read_trace(path: &Path, options: &TraceOptions) -> Result<Trace, TraceError> {
    let file = std::fs::File::open(path).map_err(|e| TraceError::Io(e.to_string()))?;
    parse_trace(file, options)
}

/// Reads a trace from a stream: a plain list of frame times in ms or a
/// capture (see the module docs), and picks the swap chain to replay.
///
/// # Errors
/// A [`TraceError`] naming the line and the fix for ambiguous or
/// out-of-range input, an unknown [`TraceOptions::app`], or a stream past
/// [`TraceOptions::max_bytes`].
pub fn parse_trace<R: Read>(reader: R, options: &TraceOptions) -> Result<Trace, TraceError> {
    parse_for_replay(reader, options.max_bytes).trace(options.app.as_deref())
}

/// Reads `reader` as a capture's CSV (no header row assumed, rows of any
/// length, `//` comments, fields trimmed; at most `max_bytes`) and hands
/// `each` every row that is not blank: its fields, the first without a
/// byte-order mark, and its line. The one record loop of the trace reader
/// and PresentMon's.
///
/// # Errors
/// What `each` returns, an oversized stream, or CSV the reader cannot parse.
pub(super) fn for_each_record<R: Read>(
    reader: R,
    max_bytes: u64,
    mut each: impl FnMut(&[&str], u64) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    // Records end at `\n` alone: [`Limited`] hands on no other line end.
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'/'))
        .trim(csv::Trim::All)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_reader(Limited::new(reader, max_bytes));
    let mut record = csv::StringRecord::new();
    loop {
        match csv.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(e) => return Err(csv.get_ref().error().unwrap_or_else(|| csv_error(&e))),
        }
        let line = record.position().map_or(0, csv::Position::line);
        let fields: Vec<&str> = record.iter().enumerate().map(|(i, f)| if i == 0 { strip_bom(f) } else { f }).collect();
        if !fields.iter().all(|f| f.is_empty()) {
            each(&fields, line)?;
        }
    }
}

pub(super) fn strip_bom(field: &str) -> &str {
    field.trim_start_matches('\u{feff}').trim_start()
}

pub(super) fn csv_error(e: &csv::Error) -> TraceError {
    match e.kind() {
        csv::ErrorKind::Utf8 { pos, .. } => {
            at(pos.as_ref().map_or(0, csv::Position::line), "not UTF-8 text; save the trace as UTF-8 CSV")
        }
        csv::ErrorKind::Io(io) => TraceError::Io(io.to_string()),
        _ => TraceError::Io(e.to_string()),
    }
}

/// A reader that stops at a byte limit and at a line-length limit, so a
/// stream that never ends (`/dev/zero`) or a binary file fails early and
/// with the line, instead of filling memory; and that hands the parser lines
/// it counts as a person does: every line ends with `\n` alone (`\r\n` and
/// a lone `\r` become `\n`) and a blank line holds one space. The CSV
/// parser's own count (`Position::line`) skips blank lines and, with its
/// `\r\n` handling, every line of a CRLF file after the first
/// (BurntSushi/rust-csv#395, open); the diagnosis cites lines. The space is
/// trimmed off, and a row of empty fields is skipped.
pub(super) struct Limited<R> {
    inner: R,
    max_bytes: u64,
    read: u64,
    /// Completed lines so far (the current one is `line + 1`).
    line: u64,
    line_len: u64,
    hit: Option<TraceError>,
    /// Bytes read from `inner` and not yet handed on: `raw[at..len]`.
    raw: Box<[u8]>,
    at: usize,
    len: usize,
    /// The last byte read was a `\r`, handed on as `\n`: a `\n` next is its pair, and dropped.
    after_cr: bool,
    /// A byte to hand on before the next one read (a blank line's `\n`, after its space).
    owed: Option<u8>,
}

impl<R> Limited<R> {
    pub(super) fn new(inner: R, max_bytes: u64) -> Limited<R> {
        Limited {
            inner,
            max_bytes,
            read: 0,
            line: 0,
            line_len: 0,
            hit: None,
            raw: vec![0; 8 * 1024].into_boxed_slice(),
            at: 0,
            len: 0,
            after_cr: false,
            owed: None,
        }
    }

    pub(super) fn error(&self) -> Option<TraceError> {
        self.hit.clone()
    }
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut kept = 0;
        while kept < buf.len() {
            if let Some(byte) = self.owed.take() {
                buf[kept] = byte;
                kept += 1;
                continue;
            }
            if self.hit.is_some() {
                return Err(io::Error::other("trace limit reached"));
            }
            if self.at == self.len {
                if kept > 0 {
                    break;
                }
                // One byte past the limit is enough to know it was passed.
                let room = self.max_bytes.saturating_sub(self.read).saturating_add(1);
                let want = self.raw.len().min(usize::try_from(room).unwrap_or(usize::MAX));
                let n = self.inner.read(&mut self.raw[..want])?;
                if n == 0 {
                    break;
                }
                (self.at, self.len) = (0, n);
            }
            let byte = self.raw[self.at];
            self.at += 1;
            self.read += 1;
            let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
            if self.read > self.max_bytes {
                self.hit = Some(TraceError::TooLarge { line: self.line + 1, limit: self.max_bytes });
            } else if byte == b'\n' && after_cr {
                // The `\n` of a `\r\n`: its line already ended.
            } else if byte == b'\n' || byte == b'\r' {
                let blank = self.line_len == 0;
                self.line += 1;
                self.line_len = 0;
                if blank {
                    buf[kept] = b' ';
                    self.owed = Some(b'\n');
                } else {
                    buf[kept] = b'\n';
                }
                kept += 1;
            } else {
                self.line_len += 1;
                if self.line_len > MAX_LINE_BYTES {
                    self.hit = Some(TraceError::LineTooLong { line: self.line + 1 });
                } else {
                    buf[kept] = byte;
                    kept += 1;
                }
            }
        }
        Ok(kept)
    }
}

pub(super) fn refuse_semicolons(fields: &[&str], line: u64) -> Result<(), TraceError> {
    if fields.iter().any(|f| f.contains(';')) {
        return Err(at(line, "semicolon-separated values are not supported; export the trace as comma-separated CSV"));
    }
    Ok(())
}

/// `16,683`: digits, one comma, digits.
pub(super) fn is_decimal_comma(text: &str) -> bool {
    text.split_once(',').is_some_and(|(int, frac)| {
        !int.is_empty()
            && !frac.is_empty()
            && int.bytes().all(|b| b.is_ascii_digit())
            && frac.bytes().all(|b| b.is_ascii_digit())
    })
}

pub(super) fn decimal_comma(line: u64, what: &str, text: &str) -> TraceError {
    at(line, format!("{what} '{text}' has a decimal comma; write it with a point ({})", text.replacen(',', ".", 1)))
}

/// The frame time of a plain list's line: one field (trailing empty ones allowed).
fn plain_value(fields: &[&str], line: u64) -> Result<Nanos, TraceError> {
    refuse_semicolons(fields, line)?;
    let used: Vec<&str> = fields.iter().copied().rev().skip_while(|f| f.is_empty()).collect();
    match used.as_slice() {
        [value] => parse_ms(value, line, "frame time"),
        [frac, int] if is_decimal_comma(&format!("{int},{frac}")) => {
            Err(decimal_comma(line, "frame time", &format!("{int},{frac}")))
        }
        _ => Err(at(
            line,
            format!(
                "{} fields in a trace without a header; a plain trace has one frame time in ms per line, \
                 and a file with several columns needs a header naming MsBetweenPresents",
                used.len()
            ),
        )),
    }
}

/// A number of milliseconds, finite and not negative; not range-checked
/// (see [`within_range`]).
fn parse_ms(text: &str, line: u64, what: &str) -> Result<Nanos, TraceError> {
    if is_decimal_comma(text) {
        return Err(decimal_comma(line, what, text));
    }
    let ms: f64 = text.parse().map_err(|_| at(line, format!("{what} '{text}' is not a number of milliseconds")))?;
    if !ms.is_finite() || ms < 0.0 {
        return Err(at(line, format!("{what} {text} ms must be a finite, non-negative number")));
    }
    Ok(ms_to_nanos(ms))
}

fn within_range(ns: Nanos, line: u64, what: &str) -> Result<Nanos, TraceError> {
    if ns > MAX_FRAME_NS {
        return Err(at(
            line,
            format!(
                "{what} {} ms is above the {MAX_FRAME_MS} ms limit (a paused or stalled capture); cut the trace before it",
                ns as f64 / NANOS_PER_MS as f64
            ),
        ));
    }
    Ok(ns)
}

pub(super) fn is_na(text: &str) -> bool {
    text.is_empty() || text.eq_ignore_ascii_case("NA")
}

/// Why a row of `file` cannot be replayed, by the replay's rules (the
/// diagnosis's are in [`super::presentmon`]): a plain list's line is one
/// frame time; a capture's row has every column the replay reads, a frame
/// time that is a number of ms (not NA), `Dropped` 0 or 1, and display
/// times in ms or NA.
pub(super) fn replay_row_error(file: &CaptureFile, fields: &[&str], line: u64) -> Result<(), TraceError> {
    let Some(c) = &file.columns else { return plain_value(fields, line).map(drop) };
    let get = |column: &(usize, String)| {
        fields.get(column.0).copied().ok_or_else(|| {
            at(line, format!("no {} value (the row has {} fields, the header {})", column.1, fields.len(), c.width))
        })
    };
    let optional = |column: Option<&(usize, String)>| column.map(get).transpose();
    let ms_or_na = |column: Option<&(usize, String)>| match (column, optional(column)?) {
        (Some(column), Some(text)) if !is_na(text) => parse_ms(text, line, &column.1).map(drop),
        _ => Ok(()),
    };
    optional(c.app.as_ref())?;
    optional(c.pid.as_ref())?;
    optional(c.address.as_ref())?;
    if let Some(frame_time) = &c.frame_time {
        let text = get(frame_time)?;
        if is_na(text) {
            return Err(at(line, format!("{} is NA; the replay needs every frame's present interval", frame_time.1)));
        }
        parse_ms(text, line, &frame_time.1)?;
    }
    if let Some(dropped) = &c.dropped {
        let value = get(dropped)?;
        if value != "0" && value != "1" {
            return Err(at(line, format!("{} is '{value}', expected 0 or 1", dropped.1)));
        }
    } else if c.until_displayed.is_some() {
        optional(c.until_displayed.as_ref())?;
    } else {
        optional(c.displayed_time.as_ref())?;
    }
    ms_or_na(if c.display_change.is_some() { c.display_change.as_ref() } else { c.displayed_time.as_ref() })?;
    if c.until_displayed.is_some() {
        ms_or_na(c.until_displayed.as_ref())?;
    } else {
        ms_or_na(c.replay_latency())?;
    }
    optional(c.sync_interval.as_ref())?;
    optional(c.allows_tearing.as_ref())?;
    optional(c.present_mode.as_ref())?;
    Ok(())
}

/// A row's present interval as replayed (checked by [`replay_row_error`]).
fn present(row: &Raw) -> Nanos {
    ms_to_nanos(row.frame_time_ms.unwrap_or(0.0))
}

/// The replay's reading of `file` (see [`CaptureFile::trace`]).
pub(super) fn trace_of(file: &CaptureFile, app: Option<&str>) -> Result<Trace, TraceError> {
    if let Some(e) = &file.replay_error {
        return Err(e.clone());
    }
    match &file.columns {
        None => plain_trace(&file.rows, app),
        Some(columns) => capture_trace(file, columns, app),
    }
}

fn plain_trace(rows: &[Raw], app: Option<&str>) -> Result<Trace, TraceError> {
    if rows.is_empty() {
        return Err(TraceError::Empty);
    }
    if let Some(name) = app {
        return Err(TraceError::UnknownApp {
            name: name.to_owned(),
            present: "none (a plain list of frame times)".to_owned(),
        });
    }
    let mut times = Vec::with_capacity(rows.len());
    for row in rows {
        times.push(within_range(present(row), row.line, "frame time")?);
    }
    refuse_all_zero(rows)?;
    Ok(Trace::from_frame_times(&times))
}

/// One swap chain of a capture as the replay counts it.
struct Chain<'a> {
    key: &'a ChainKey,
    frames: u64,
    not_displayed: u64,
}

impl Chain<'_> {
    fn summary(&self) -> SwapChain {
        SwapChain {
            app: self.key.app.clone(),
            pid: self.key.pid.clone(),
            address: self.key.address.clone(),
            frames: self.frames,
            not_displayed: self.not_displayed,
        }
    }
}

fn capture_trace(file: &CaptureFile, columns: &Columns, app: Option<&str>) -> Result<Trace, TraceError> {
    if file.chains.is_empty() {
        return Err(TraceError::Empty);
    }
    let mut chains: Vec<Chain<'_>> = file.chains.iter().map(|key| Chain { key, frames: 0, not_displayed: 0 }).collect();
    for row in &file.rows {
        chains[row.chain].frames += 1;
        chains[row.chain].not_displayed += u64::from(!row.displayed);
    }
    let matches = |c: &Chain<'_>| app.is_none_or(|name| c.key.app.eq_ignore_ascii_case(name));
    // The most frames; on a tie the first in file order (max_by_key keeps the last).
    let chosen = chains
        .iter()
        .enumerate()
        .filter(|(_, c)| matches(c))
        .min_by_key(|&(i, c)| (std::cmp::Reverse(c.frames), i))
        .map(|(i, _)| i);
    let Some(chosen) = chosen else {
        return Err(TraceError::UnknownApp { name: app.unwrap_or("").to_owned(), present: app_list(&chains) });
    };
    let others: Vec<SwapChain> =
        chains.iter().enumerate().filter(|&(i, _)| i != chosen).map(|(_, c)| c.summary()).collect();
    let rows: Vec<&Raw> = file.rows.iter().filter(|r| r.chain == chosen).collect();
    let (frames, dropped, tearing) = merge(&rows, columns)?;
    let composed = rows.iter().filter(|r| r.displayed && r.composed).count();
    if frames.is_empty() {
        return Err(TraceError::NothingDisplayed(chains[chosen].summary().to_string()));
    }
    refuse_all_zero(&rows)?;
    let intervals: Vec<Nanos> = frames.iter().filter_map(|f| f.display_change).collect();
    let display = if tearing {
        TraceDisplay::Tearing
    } else {
        // The replay's refresh is the diagnosis's grid: 80 fps on 120 Hz
        // alternates one and two refreshes, whose median reads 77.6 Hz.
        RefreshEstimate::from_intervals(&intervals).map_or(TraceDisplay::Virtual, |estimate| {
            let rate = estimate.grid(&intervals).unwrap_or(estimate.rate);
            TraceDisplay::Synced(estimate.on(rate, &intervals))
        })
    };
    let choice = match app {
        Some(name) => Choice::App(name.to_owned()),
        None => Choice::MostFrames,
    };
    let composed = composed * 2 > frames.len();
    Ok(Trace { frames, dropped, display, chosen: chains[chosen].summary(), others, choice, composed })
}

/// `dwm.exe 210 frames, Presenter.exe 169 frames` (per application, file order).
fn app_list(chains: &[Chain<'_>]) -> String {
    let mut apps: Vec<(&str, u64)> = Vec::new();
    for chain in chains {
        match apps.iter_mut().find(|(name, _)| *name == chain.key.app) {
            Some((_, frames)) => *frames += chain.frames,
            None => apps.push((&chain.key.app, chain.frames)),
        }
    }
    let names: Vec<String> = apps
        .iter()
        .map(|(name, frames)| format!("{} {frames} frames", if name.is_empty() { "(no name)" } else { name }))
        .collect();
    names.join(", ")
}

fn refuse_all_zero<R: std::borrow::Borrow<Raw>>(rows: &[R]) -> Result<(), TraceError> {
    if rows.iter().all(|r| present(r.borrow()) == 0) {
        let first = rows.first().map_or(0, |r| r.borrow().line);
        let last = rows.last().map_or(0, |r| r.borrow().line);
        return Err(TraceError::AllZero { first, last });
    }
    Ok(())
}

/// One swap chain's rows to displayed frames: each not-displayed frame's
/// present interval is added to the next displayed frame; ones after the
/// last displayed frame are counted but not replayed. Returns the frames,
/// the not-displayed count, and whether most displayed frames tear.
///
/// The display-change interval is `MsBetweenDisplayChange`, else (2.0–2.3)
/// the previous displayed frame's `DisplayedTime`, which that layout writes
/// forward-looking; present to display is `MsUntilDisplayed`, else 2.0–2.3's
/// `DisplayLatency − FrameTime`.
fn merge(rows: &[&Raw], columns: &Columns) -> Result<(Vec<TraceFrame>, u64, bool), TraceError> {
    let forward = columns.display_change.is_none() && columns.displayed_time.is_some();
    let mut frames = Vec::with_capacity(rows.len());
    let mut pending: Nanos = 0;
    let mut dropped = 0;
    let mut tearing = 0usize;
    // 2.0–2.3: the previous displayed frame's time on screen.
    let mut previous_on_screen: Option<Nanos> = None;
    for row in rows {
        let own = present(row);
        let present = within_range(own, row.line, "frame time")?;
        pending = pending.saturating_add(present);
        if !row.displayed {
            dropped += 1;
            continue;
        }
        let interval = if columns.display_change.is_some() { row.display_change_ms } else { row.displayed_time_ms };
        let interval =
            interval.map(|q| within_range(ms_to_nanos(q), row.line, "display-change interval")).transpose()?;
        let display_change = if forward { std::mem::replace(&mut previous_on_screen, interval) } else { interval };
        let until_displayed = if columns.until_displayed.is_some() {
            row.until_displayed_ms.map(ms_to_nanos)
        } else if columns.replay_latency().is_some() {
            row.display_latency_ms.map(|latency| ms_to_nanos(latency).saturating_sub(own))
        } else {
            None
        };
        let until_displayed =
            until_displayed.map(|u| within_range(u, row.line, "present-to-display time")).transpose()?;
        tearing += usize::from(row.tears);
        frames.push(TraceFrame {
            present: pending,
            display_change: display_change.filter(|&q| q > 0),
            until_displayed,
        });
        pending = 0;
    }
    let tears = tearing * 2 > frames.len();
    Ok((frames, dropped, tears))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{NANOS_PER_SEC, Rate};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const MS: Nanos = NANOS_PER_MS;

    fn parse(text: &str) -> Result<Trace, TraceError> {
        parse_trace(text.as_bytes(), &TraceOptions::default())
    }

    fn times(text: &str) -> Vec<Nanos> {
        parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}")).frames().iter().map(|f| f.present).collect()
    }

    fn line_of(err: &TraceError) -> Option<u64> {
        match err {
            TraceError::Line { line, .. } | TraceError::TooLarge { line, .. } | TraceError::LineTooLong { line } => {
                Some(*line)
            }
            _ => None,
        }
    }

    /// A PresentMon 1.x header and rows `app,pid,address,dropped,ms_between_presents,ms_between_display_change,ms_until_displayed`.
    fn presentmon(rows: &[&str]) -> String {
        let mut text = String::from(
            "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,PresentMode,\
             Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,MsUntilRenderComplete,MsUntilDisplayed\n",
        );
        for row in rows {
            let f: Vec<&str> = row.split(',').collect();
            text.push_str(&format!(
                "{},{},{},DXGI,1,0,0,Hardware: Legacy Flip,{},0.0,{},{},0.1,1.0,{}\n",
                f[0], f[1], f[2], f[3], f[4], f[5], f[6]
            ));
        }
        text
    }

    #[test]
    fn a_plain_list_parses_with_or_without_a_header() {
        assert_eq!(times("16.5\n17\n"), [16_500_000, 17_000_000]);
        assert_eq!(times("frame_ms\n16.5\n\n17\n"), [16_500_000, 17_000_000]);
    }

    #[test]
    fn a_byte_order_mark_is_stripped_with_or_without_a_header() {
        assert_eq!(times("\u{feff}16.5\n17\n"), [16_500_000, 17_000_000], "the first frame is kept");
        assert_eq!(times("\u{feff}frame_ms\n16.5\n17\n"), [16_500_000, 17_000_000]);
        let capture = format!("\u{feff}{}", presentmon(&["a.exe,1,0x1,0,16.0,16.7,20.0"]));
        assert_eq!(parse(&capture).expect("BOM capture").chosen().app, "a.exe", "the first column is found");
    }

    #[test]
    fn crlf_line_endings_read_like_lf() {
        assert_eq!(times("frame_ms\r\n16.5\r\n17\r\n"), [16_500_000, 17_000_000]);
        let crlf = presentmon(&["a.exe,1,0x1,0,16.0,16.7,20.0", "a.exe,1,0x1,0,17.0,16.7,20.0"]).replace('\n', "\r\n");
        assert_eq!(parse(&crlf).expect("CRLF capture").frames().len(), 2);
    }

    /// Line 4 of a CRLF file holds the bad value, as it does in the same file
    /// with LF: the error names line 4 in both (the csv crate's own count said 3).
    #[test]
    fn a_crlf_file_s_lines_are_counted_as_an_lf_file_s() {
        let lf = "frame_ms\n16.5\n17\n-1\n";
        let crlf = lf.replace('\n', "\r\n");
        for text in [lf, crlf.as_str()] {
            let err = parse(text).expect_err("a negative frame time");
            assert_eq!(line_of(&err), Some(4), "{text:?}: {err}");
        }
        let mut rows = Vec::new();
        for_each_record("a,b\r\n1,2\r\n\r\n3,\"x\"\r\n".as_bytes(), u64::MAX, |fields, line| {
            rows.push((fields.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>(), line));
            Ok(())
        })
        .expect("three rows");
        let lines: Vec<u64> = rows.iter().map(|(_, line)| *line).collect();
        assert_eq!(lines, [1, 2, 4], "the blank line 3 is skipped and counted");
        assert_eq!(rows[2].0, ["3", "x"], "no carriage return is left in a field");
        // A file of lone `\r` (classic Mac OS) reads the same.
        assert_eq!(times("frame_ms\r16.5\r17\r"), [16_500_000, 17_000_000]);
        assert_eq!(line_of(&parse("frame_ms\r16.5\r\r-1\r").expect_err("negative")), Some(4));
    }

    /// `\r\n` split across two reads, a read of the `\n` alone and a blank
    /// line: each line ends once, a blank one holds a space, and no read
    /// returns 0 before the end.
    #[test]
    fn a_crlf_split_between_reads_ends_one_line() {
        struct OneByte<'a>(&'a [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let Some((&first, rest)) = self.0.split_first() else { return Ok(0) };
                buf[0] = first;
                self.0 = rest;
                Ok(1)
            }
        }
        let mut out = String::new();
        Limited::new(OneByte(b"a\r\nb\rc\n\r\nd"), u64::MAX).read_to_string(&mut out).expect("no limit");
        assert_eq!(out, "a\nb\nc\n \nd");
        let mut out = String::new();
        Limited::new(&b"\n\na\r\n\r\n"[..], u64::MAX).read_to_string(&mut out).expect("no limit");
        assert_eq!(out, " \n \na\n \n");
    }

    #[test]
    fn a_quoted_field_with_a_comma_does_not_shift_the_columns() {
        let text = "Application,ProcessID,SwapChainAddress,MsBetweenPresents\n\"Game, The\",1,0x1,16.5\n\"Game, The\",1,0x1,17\n";
        let trace = parse(text).expect("quoted comma");
        assert_eq!(trace.chosen().app, "Game, The");
        assert_eq!(trace.frames().iter().map(|f| f.present).collect::<Vec<_>>(), [16_500_000, 17_000_000]);
    }

    #[test]
    fn a_decimal_comma_is_an_error_naming_the_line_and_the_fix() {
        for (text, line) in [("16.5\n16,683\n", 2), ("frame_ms\n\"16,683\"\n", 2), ("\"16,683\"\n", 1)] {
            let err = parse(text).expect_err(text);
            assert_eq!(line_of(&err), Some(line), "{text:?}: {err}");
            assert!(err.to_string().contains("16.683"), "the fix is named: {err}");
        }
    }

    #[test]
    fn a_two_column_file_without_a_header_is_an_error() {
        let err = parse("1,16.7\n2,16.6\n").expect_err("index and frame time without a header");
        assert_eq!(line_of(&err), Some(1), "{err}");
        assert!(err.to_string().contains("header naming MsBetweenPresents"), "{err}");
        assert_eq!(times("16.5,\n17,\n"), [16_500_000, 17_000_000], "a trailing comma is not a second column");
    }

    #[test]
    fn semicolon_separated_values_are_refused() {
        for text in ["frame_ms;app\n16,5;a\n", "16,5;17,1\n"] {
            let err = parse(text).expect_err(text);
            assert!(err.to_string().contains("semicolon"), "{text:?}: {err}");
        }
    }

    #[test]
    fn capframex_comment_lines_are_skipped_and_counted_in_line_numbers() {
        let text = "//GameName=x.exe\n//Comment=a, \"quoted\" note\nframe_ms\n16.5\nslow\n";
        let err = parse(text).expect_err("slow");
        assert_eq!(line_of(&err), Some(5), "{err}");
        assert_eq!(times("//GameName=x.exe\nframe_ms\n16.5\n"), [16_500_000]);
    }

    #[test]
    fn columns_are_found_by_name_in_any_case_and_order() {
        let text = "Dropped,msBetweenPresents,application,PROCESSID,swapchainaddress,msBetweenDisplayChange\n\
                    0,16.5,a.exe,1,0x1,16.6\n0,17,a.exe,1,0x1,16.8\n";
        let trace = parse(text).expect("lower-case columns");
        assert_eq!(trace.chosen().app, "a.exe");
        assert_eq!(
            trace.frames()[1],
            TraceFrame { present: 17 * MS, display_change: Some(16_800_000), until_displayed: None }
        );
    }

    #[test]
    fn dropped_frames_merge_into_the_next_displayed_frame() {
        let text = presentmon(&[
            "a.exe,1,0x1,1,10.0,0.000,0.000",
            "a.exe,1,0x1,0,6.7,16.667,20.0",
            "a.exe,1,0x1,0,16.6,33.333,21.0",
            "a.exe,1,0x1,1,16.7,0.000,0.000",
        ]);
        let trace = parse(&text).expect("capture");
        assert_eq!(
            trace.frames(),
            [
                TraceFrame { present: 16_700_000, display_change: Some(16_667_000), until_displayed: Some(20 * MS) },
                TraceFrame { present: 16_600_000, display_change: Some(33_333_000), until_displayed: Some(21 * MS) },
            ],
            "the module docs' worked example"
        );
        assert_eq!(trace.dropped(), 2, "the trailing dropped frame is counted too");
    }

    #[test]
    fn presentmon_2_na_cells_mark_frames_that_were_never_displayed() {
        // 2.4+: MsUntilDisplayed NA = not displayed; MsBetweenDisplayChange NA on a displayed frame = unknown.
        let text = "Application,ProcessID,SwapChainAddress,MsBetweenPresents,MsBetweenDisplayChange,MsUntilDisplayed\n\
                    a.exe,1,0x1,5.0,NA,12.0\na.exe,1,0x1,8.0,NA,NA\na.exe,1,0x1,9.0,16.6,10.0\n";
        let trace = parse(text).expect("2.4 capture");
        assert_eq!(trace.dropped(), 1);
        assert_eq!(
            trace.frames(),
            [
                TraceFrame { present: 5 * MS, display_change: None, until_displayed: Some(12 * MS) },
                TraceFrame { present: 17 * MS, display_change: Some(16_600_000), until_displayed: Some(10 * MS) },
            ]
        );
    }

    #[test]
    fn presentmon_2_0_displayed_time_is_shifted_to_the_next_displayed_frame() {
        // DisplayedTime is how long a frame stayed on screen: frame 1's 33.3 is frame 3's display-change interval.
        let text = "\u{feff}Application,ProcessID,SwapChainAddress,FrameTime,DisplayLatency,DisplayedTime\n\
                    a.exe,1,0x1,16.0,30.0,33.3\na.exe,1,0x1,16.0,NA,NA\na.exe,1,0x1,17.0,40.0,16.7\n";
        let trace = parse(text).expect("2.0 capture");
        assert_eq!(trace.dropped(), 1);
        assert_eq!(
            trace.frames(),
            [
                TraceFrame { present: 16 * MS, display_change: None, until_displayed: Some(14 * MS) },
                TraceFrame { present: 33 * MS, display_change: Some(33_300_000), until_displayed: Some(23 * MS) },
            ],
            "until displayed = DisplayLatency − FrameTime"
        );
    }

    #[test]
    fn ocat_rows_shorter_than_the_header_are_read() {
        let text = "Application,ProcessID,SwapChainAddress,Dropped,MsBetweenPresents,MsBetweenDisplayChange,Motherboard,Comment\n\
                    m.exe,1,0x1,0,10.0,10.2,\"Board, Rev 2\",Test\nm.exe,1,0x1,0,11.0,10.8\n";
        assert_eq!(parse(text).expect("OCAT").frames().len(), 2);
        let cut = "Application,ProcessID,SwapChainAddress,Dropped,MsBetweenPresents\nm.exe,1,0x1,0\n";
        let err = parse(cut).expect_err("row without the frame time");
        assert!(err.to_string().starts_with("line 2: no MsBetweenPresents value"), "{err}");
    }

    #[test]
    fn the_swap_chain_with_the_most_frames_is_replayed_and_the_first_wins_a_tie() {
        let text = presentmon(&[
            "dwm.exe,9,0xA,0,16.7,16.7,5.0",
            "game.exe,1,0x1,0,16.7,16.7,5.0",
            "game.exe,1,0x0,0,16.7,16.7,5.0",
            "game.exe,1,0x1,0,16.7,16.7,5.0",
            "dwm.exe,9,0xA,0,16.7,16.7,5.0",
        ]);
        let trace = parse(&text).expect("capture");
        assert_eq!(
            (trace.chosen().app.as_str(), trace.chosen().address.as_str()),
            ("dwm.exe", "0xA"),
            "tie: dwm.exe comes first"
        );
        assert_eq!(trace.others().len(), 2);
        let notice = trace.selection_notice().expect("a capture names its choice");
        assert!(!notice.contains('\n'), "{notice}");
        assert!(notice.contains("game.exe (pid 1, swap chain 0x1, 2 frames)"), "{notice}");
        let game =
            parse_trace(text.as_bytes(), &TraceOptions { app: Some("GAME.EXE".into()), ..TraceOptions::default() })
                .expect("--trace-app");
        assert_eq!(
            (game.chosen().app.as_str(), game.chosen().address.as_str()),
            ("game.exe", "0x1"),
            "its larger chain"
        );
        assert!(game.selection_notice().expect("notice").contains("the swap chain of 'GAME.EXE' with the most frames"));
    }

    #[test]
    fn an_unknown_app_lists_the_applications_present() {
        let text = presentmon(&["dwm.exe,9,0xA,0,16.7,16.7,5.0", "game.exe,1,0x1,0,16.7,16.7,5.0"]);
        let err =
            parse_trace(text.as_bytes(), &TraceOptions { app: Some("doom.exe".into()), ..TraceOptions::default() })
                .expect_err("unknown app");
        assert_eq!(
            err.to_string(),
            "'doom.exe' is not in the capture; its applications: dwm.exe 1 frames, game.exe 1 frames"
        );
    }

    #[test]
    fn a_synced_capture_measures_its_refresh_and_a_tearing_one_does_not() {
        let synced =
            parse(&presentmon(&["a.exe,1,0x1,0,16.0,16.6,9.0", "a.exe,1,0x1,0,16.0,16.8,9.0"])).expect("synced");
        let TraceDisplay::Synced(estimate) = synced.display() else { panic!("{:?}", synced.display()) };
        assert_eq!(estimate.rate, Rate::new(NANOS_PER_SEC, 16_700_000).expect("rate"));
        assert_eq!(synced.refresh(), Some(estimate.rate));
        let tearing = presentmon(&["a.exe,1,0x1,0,9.0,9.5,9.0", "a.exe,1,0x1,0,9.0,9.7,9.0"])
            .replace("DXGI,1,0,0,", "DXGI,0,0,1,");
        let tearing = parse(&tearing).expect("tearing");
        assert_eq!(tearing.display(), TraceDisplay::Tearing);
        assert_eq!((tearing.refresh(), tearing.vsync()), (None, Some(false)));
        let plain = parse("16\n17\n").expect("plain");
        assert_eq!(plain.display(), TraceDisplay::Virtual);
    }

    #[test]
    fn bad_values_name_their_line() {
        for (text, line) in [
            ("16\nabc\n", 2),
            ("ms\n16\n-1\n", 3),
            ("NaN\n", 1),
            ("16\ninf\n", 2),
            ("16\n10000.001\n", 2),
            ("16\n1e300\n", 2),
        ] {
            let err = parse(text).expect_err(text);
            assert_eq!(line_of(&err), Some(line), "{text:?}: {err}");
        }
        assert_eq!(times("16\n10000\n"), [16 * MS, 10 * NANOS_PER_SEC], "10 s itself is allowed");
    }

    #[test]
    fn huge_values_are_refused_only_in_the_replayed_swap_chain() {
        let idle = presentmon(&[
            "game.exe,1,0x1,0,16.7,16.7,5.0",
            "idle.exe,2,0x2,0,20000.0,20000.0,5.0",
            "game.exe,1,0x1,0,16.7,16.7,5.0",
        ]);
        assert_eq!(parse(&idle).expect("an idle window elsewhere").chosen().app, "game.exe");
        let err =
            parse_trace(idle.as_bytes(), &TraceOptions { app: Some("idle.exe".into()), ..TraceOptions::default() })
                .expect_err("replaying the idle window");
        assert_eq!(line_of(&err), Some(3), "{err}");
        assert!(err.to_string().contains("above the 10000 ms limit"), "{err}");
    }

    #[test]
    fn a_trace_of_zeros_is_refused() {
        assert_eq!(parse("0\n0\n0\n").expect_err("zeros"), TraceError::AllZero { first: 1, last: 3 });
        assert_eq!(times("0\n16\n"), [0, 16 * MS], "one zero among real frames is fine");
    }

    #[test]
    fn an_empty_trace_and_a_header_without_a_frame_time_column_are_errors() {
        assert_eq!(parse("").expect_err("empty"), TraceError::Empty);
        assert_eq!(parse("MsBetweenPresents\n").expect_err("header only"), TraceError::Empty);
        assert_eq!(parse("//only\n\n").expect_err("comments only"), TraceError::Empty);
        let err = parse("a,b\n1,2\n").expect_err("two columns, no MsBetweenPresents");
        assert_eq!(line_of(&err), Some(1), "{err}");
    }

    #[test]
    fn a_swap_chain_that_was_never_displayed_is_an_error() {
        let err = parse(&presentmon(&["a.exe,1,0x1,1,16.0,0,0"])).expect_err("all dropped");
        assert!(err.to_string().contains("none of its frames was displayed"), "{err}");
    }

    #[test]
    fn the_size_limit_stops_the_stream_and_names_the_line() {
        let options = TraceOptions { app: None, max_bytes: 10 };
        let err = parse_trace("16.5\n17.5\n18.5\n".as_bytes(), &options).expect_err("15 bytes > 10");
        assert_eq!(err, TraceError::TooLarge { line: 3, limit: 10 });
        assert!(err.to_string().contains("10 bytes limit"), "{err}");
        assert_eq!(parse_trace("16.5\n17.5\n".as_bytes(), &options).map(|t| t.frames().len()), Ok(2), "10 bytes fit");
    }

    #[test]
    fn an_endless_line_stops_at_the_line_limit() {
        let zeros = std::io::repeat(0).take(10 * MAX_LINE_BYTES);
        assert_eq!(
            parse_trace(zeros, &TraceOptions::default()).expect_err("/dev/zero"),
            TraceError::LineTooLong { line: 1 }
        );
    }

    #[test]
    fn invalid_utf8_is_an_error_naming_the_line() {
        let err = parse_trace(&b"16\n\xff\xfe\n"[..], &TraceOptions::default()).expect_err("not UTF-8");
        assert_eq!(line_of(&err), Some(2), "{err}");
    }
}
