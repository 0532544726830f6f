//! What a scripted run measured: `--stats-json` at exit, `--frame-log` as it goes.
//!
//! The run's figures are the core's [`RunReport`] (the same type and field
//! names `timestep-lab simulate --format json` writes, assembled by the
//! session), flattened into one object with what only the window knows:
//! the adapter, the surface's acquire outcomes and the GPU pass times; lane
//! mode adds one report per lane (`lanes`).
//!
//! The frame log holds each loop frame's start-to-start interval, the column
//! `simulate --trace` reads, so the simulator can replay the run's frame
//! starts exactly; beside it, when the frame's picture was shown (D, on the
//! run's clock) and where that time came from (the display-time source that
//! timed it, `wp-presentation` or `x11-present` say; else `present-return`,
//! `emulated-vblank`, `animation-frame`; `discarded` when the compositor
//! dropped it). Where the display-time source was given up, the first row
//! written after it says so in `display_note` (the reason, once; the rows
//! after it say `present-return`). A row is written once its display is known,
//! which with feedback is frames later:
//!
//! ```text
//!   frame starts   s0        s1          s2        s3 (last)      end of run
//!                  |---------|-----------|---------|--------------|
//!   frame_ms         s1-s0      s2-s1      s3-s2      end-s3        one row per frame run
//! ```
//!
//! Six decimals of a millisecond are whole nanoseconds, so the replayed starts
//! are the measured ones to the nanosecond (`s_i − s_0`).

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use crate::app::lanes::LaneReport;
use crate::error::CliError;
use crate::render::surface::AcquireCounts;
use crate::report::RunReport;
use crate::time::{NANOS_PER_MS, Nanos};

/// The JSON document `--stats-json` writes.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StatsJson {
    /// The run's figures and what the session saw of the display.
    #[serde(flatten)]
    pub(crate) run: RunReport,
    /// The adapter that rendered.
    pub(crate) adapter: String,
    /// Surface acquire outcomes, for robustness runs.
    pub(crate) surface: AcquireCounts,
    /// Frames whose GPU pass times were read back (0 without timestamp queries).
    pub(crate) gpu_timed_frames: u64,
    /// Mean GPU time of the scene pass (background + sprites), ms.
    pub(crate) gpu_scene_ms: Option<f64>,
    /// Mean GPU time of the overlay pass over the frames that drew it, ms.
    pub(crate) gpu_overlay_ms: Option<f64>,
    /// Lane mode: one report per lane, top to bottom (the last lane mode of
    /// the run, to its end or until it was left); empty without lane mode.
    pub(crate) lanes: Vec<LaneReport>,
    /// The screen's refresh from the browser's frame clock (requestAnimationFrame's
    /// timestamps), however many refreshes the page missed, Hz; absent natively.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) screen_refresh_hz: Option<f64>,
    /// What the overlay notes about the window's own life (time hidden, a
    /// capped buffer, missed refreshes); absent when there is nothing to say.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) notes: Vec<String>,
    /// How the frames were timed: the display-time source, or the fallback and why.
    pub(crate) display_timing: crate::report_card::DisplayTiming,
}

impl StatsJson {
    /// Writes the JSON (pretty-printed) to `path`.
    ///
    /// # Errors
    /// [`CliError::Runtime`] if the file cannot be written.
    pub(crate) fn write(&self, path: &Path) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| CliError::Runtime(format!("could not encode the stats: {e}")))?;
        crate::platform::write_file(path, text + "\n").map_err(CliError::Runtime)
    }
}

/// The header of a frame log: `simulate --trace` reads the `frame_ms` column under it.
pub(crate) const FRAME_LOG_HEADER: &str = "frame_ms,display_ms,display_source,display_note";

/// One loop frame of the log, until its interval and its display are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Row {
    /// The strategy frame's id, whose display is settled later; `None`: a
    /// still or lane frame, which has no display of its own in the log.
    frame: Option<u64>,
    start: Nanos,
    interval: Option<Nanos>,
    /// `None` until known; then when it was shown (if it was) and where that time came from.
    display: Option<(Option<Nanos>, &'static str)>,
}

/// `--frame-log`: one row per loop frame, its start-to-start interval in ms,
/// and when its picture was shown (D, on the run's clock, in ms) and where
/// that time came from. See the module docs.
#[derive(Debug)]
pub(crate) struct FrameLog<W: Write> {
    out: W,
    /// Rows waiting for their interval (the next frame's start) or their display (its feedback).
    rows: std::collections::VecDeque<Row>,
    written: u64,
    /// The first write error: logging stops there, and the run's end reports it.
    failed: Option<std::io::Error>,
    /// A note for the next row written (a fallback's reason), and whether one was taken.
    note: Option<String>,
    noted: bool,
}

impl FrameLog<std::io::BufWriter<crate::platform::OutputFile>> {
    /// Creates (or truncates) `path` and writes the header.
    ///
    /// # Errors
    /// [`CliError::Usage`] naming `--frame-log` when the file cannot be created.
    pub(crate) fn create(path: &Path) -> Result<Self, CliError> {
        let file = crate::platform::create_file(path)
            .map_err(|e| CliError::Usage(format!("--frame-log: cannot create {} ({e})", path.display())))?;
        FrameLog::new(std::io::BufWriter::new(file))
            .map_err(|e| CliError::Usage(format!("--frame-log: cannot write {} ({e})", path.display())))
    }
}

impl<W: Write> FrameLog<W> {
    /// A log writing to `out`, header first.
    ///
    /// # Errors
    /// The header could not be written.
    pub(crate) fn new(mut out: W) -> std::io::Result<Self> {
        writeln!(out, "{FRAME_LOG_HEADER}")?;
        Ok(FrameLog {
            out,
            rows: std::collections::VecDeque::with_capacity(64),
            written: 0,
            failed: None,
            note: None,
            noted: false,
        })
    }

    /// A loop frame started at `start`: strategy frame `frame` (its display
    /// comes with [`FrameLog::displayed`]), or a frame without one (`None`).
    pub(crate) fn frame_started(&mut self, start: Nanos, frame: Option<u64>) {
        if let Some(previous) = self.rows.back_mut() {
            previous.interval = Some(start.saturating_sub(previous.start));
        }
        let display = if frame.is_none() { Some((None, "")) } else { None };
        self.rows.push_back(Row { frame, start, interval: None, display });
        self.flush_ready();
    }

    /// Strategy frame `frame` was shown at `at` (`None`: it was not), by `source`'s word.
    pub(crate) fn displayed(&mut self, frame: u64, at: Option<Nanos>, source: &'static str) {
        if let Some(row) = self.rows.iter_mut().find(|r| r.frame == Some(frame) && r.display.is_none()) {
            row.display = Some((at, source));
        }
        self.flush_ready();
    }

    /// The display-time source was given up for `why`: the next row written
    /// says so in its `display_note`, once for the run (later calls are no-ops).
    pub(crate) fn fell_back(&mut self, why: &str) {
        if !self.noted {
            self.noted = true;
            self.note = Some(format!("display times fell back to present-return: {why}"));
        }
    }

    /// The frames still waiting for their display will not get one (their
    /// session ended): they are written with an empty display.
    pub(crate) fn forget_pending(&mut self) {
        for row in &mut self.rows {
            row.display.get_or_insert((None, ""));
        }
        self.flush_ready();
    }

    /// Rows written so far.
    #[cfg(test)]
    pub(crate) fn rows(&self) -> u64 {
        self.written
    }

    /// Writes the rows at the front whose interval and display are known.
    fn flush_ready(&mut self) {
        while let Some(&Row { interval: Some(interval), display: Some(display), .. }) = self.rows.front() {
            self.rows.pop_front();
            self.row(interval, display);
        }
    }

    fn row(&mut self, interval: Nanos, (at, source): (Option<Nanos>, &str)) {
        if self.failed.is_some() {
            return;
        }
        let note = self.note.take().map(|n| Quoted(n).to_string()).unwrap_or_default();
        let written = match at {
            Some(at) => writeln!(self.out, "{},{},{source},{note}", Ms(interval), Ms(at)),
            None => writeln!(self.out, "{},,{source},{note}", Ms(interval)),
        };
        match written {
            Ok(()) => self.written += 1,
            Err(err) => {
                log::error!("--frame-log: writing failed ({err}); no more frames are logged");
                self.failed = Some(err);
            }
        }
    }

    /// The run ended at `end`: the last frame's interval (to `end`) is
    /// written, rows still without a display get an empty one, and the log is flushed.
    ///
    /// # Errors
    /// [`CliError::Runtime`] when a row or the flush failed.
    pub(crate) fn finish(&mut self, end: Nanos) -> Result<(), CliError> {
        if let Some(last) = self.rows.back_mut() {
            last.interval = Some(end.saturating_sub(last.start));
        }
        self.forget_pending();
        if self.failed.is_none()
            && let Err(err) = self.out.flush()
        {
            self.failed = Some(err);
        }
        match &self.failed {
            Some(err) => Err(CliError::Runtime(format!("--frame-log: the log is incomplete ({err})"))),
            None => Ok(()),
        }
    }

    /// The writer, for tests.
    #[cfg(test)]
    pub(crate) fn get_ref(&self) -> &W {
        &self.out
    }
}

/// A CSV field in double quotes, its quotes doubled (RFC 4180): a reason
/// may hold commas.
struct Quoted(String);

impl std::fmt::Display for Quoted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "\"{}\"", self.0.replace('"', "\"\""))
    }
}

/// Nanoseconds as milliseconds with six decimals: whole nanoseconds, exactly.
struct Ms(Nanos);

impl std::fmt::Display for Ms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:06}", self.0 / NANOS_PER_MS, self.0 % NANOS_PER_MS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::{TraceOptions, parse_trace};

    #[test]
    fn a_frame_waits_in_the_log_until_its_display_is_known() {
        let mut log = FrameLog::new(Vec::new()).expect("header");
        log.frame_started(0, Some(1));
        log.frame_started(16_000_000, Some(2));
        log.frame_started(32_000_000, Some(3));
        assert_eq!(log.rows(), 0, "frame 1's feedback has not come");
        log.displayed(2, None, "discarded");
        log.displayed(1, Some(33_000_001), "compositor-feedback");
        assert_eq!(log.rows(), 2, "frames 1 and 2 are known, frame 3 has no interval yet");
        log.finish(40_000_000).expect("a Vec never fails");
        let text = String::from_utf8(log.get_ref().clone()).expect("ASCII");
        let rows = "16.000000,33.000001,compositor-feedback,\n16.000000,,discarded,\n8.000000,,,\n";
        assert_eq!(text, format!("{FRAME_LOG_HEADER}\n{rows}"), "frame 3 never heard of: an empty display");
    }

    #[test]
    fn each_frame_is_one_row_of_whole_nanoseconds_that_the_trace_reader_reads_back_exactly() {
        let starts: [Nanos; 5] = [5_000_000_000, 5_016_683_350, 5_033_366_701, 5_083_416_752, 5_083_416_753];
        let mut log = FrameLog::new(Vec::new()).expect("a Vec takes the header");
        for start in starts {
            log.frame_started(start, None);
        }
        log.finish(6_000_000_000).expect("a Vec never fails");
        let text = String::from_utf8(log.get_ref().clone()).expect("ASCII");
        let rows = "16.683350,,,\n16.683351,,,\n50.050051,,,\n0.000001,,,\n916.583247,,,\n";
        assert_eq!(text, format!("{FRAME_LOG_HEADER}\n{rows}"));
        let replayed = parse_trace(text.as_bytes(), &TraceOptions::default()).expect("the trace reader takes it");
        let mut at = starts[0];
        let mut replayed_starts = Vec::new();
        for frame in replayed.frames() {
            replayed_starts.push(at);
            at += frame.present;
        }
        assert_eq!(replayed_starts, starts, "the replay starts every frame where it started");
        assert_eq!(at, 6_000_000_000, "and the last row reaches the end of the run");
        assert_eq!(log.rows(), 5, "one row per frame");
    }

    /// X11 Present answered none of the window's first presents: the source
    /// is given up while frames 1 and 2 are written and frame 3 waits. The
    /// next row written (frame 3's) carries the reason, quoted for its
    /// commas; the trace reader still reads every interval.
    #[test]
    fn a_fallback_s_reason_is_in_the_row_after_it_once() {
        let mut log = FrameLog::new(Vec::new()).expect("header");
        for (i, start) in [0, 16_000_000, 32_000_000, 48_000_000].into_iter().enumerate() {
            log.frame_started(start, Some(i as u64 + 1));
        }
        log.displayed(1, Some(10_000_000), "present-return");
        log.displayed(2, Some(26_000_000), "present-return");
        let why = "X11 Present completed none of the window's 60 presents: the driver draws it another way (PutImage, \"as\" lavapipe)";
        log.fell_back(why);
        log.fell_back("a second reason is not written");
        log.displayed(3, Some(42_000_000), "present-return");
        log.displayed(4, Some(58_000_000), "present-return");
        log.finish(64_000_000).expect("a Vec never fails");
        let text = String::from_utf8(log.get_ref().clone()).expect("UTF-8");
        let rows = "16.000000,10.000000,present-return,\n16.000000,26.000000,present-return,\n16.000000,42.000000,\
                    present-return,\"display times fell back to present-return: X11 Present completed none of the \
                    window's 60 presents: the driver draws it another way (PutImage, \"\"as\"\" lavapipe)\"\n\
                    16.000000,58.000000,present-return,\n";
        assert_eq!(text, format!("{FRAME_LOG_HEADER}\n{rows}"));
        let replayed = parse_trace(text.as_bytes(), &TraceOptions::default()).expect("the trace reader takes it");
        assert_eq!(replayed.frames().len(), 4, "every row read, the note's commas inside its quotes");
    }

    #[test]
    fn a_log_without_frames_has_only_its_header() {
        let mut log = FrameLog::new(Vec::new()).expect("header");
        log.finish(42).expect("flush");
        assert_eq!(log.get_ref().as_slice(), format!("{FRAME_LOG_HEADER}\n").as_bytes());
    }

    /// A writer that takes `room` bytes, then fails.
    struct Failing {
        room: usize,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.room {
                return Err(std::io::Error::other("disk full"));
            }
            self.room -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_write_error_stops_the_log_and_is_reported_at_the_end() {
        // Room for the header and one row ("0.010000,,,\n"): the second row fails.
        let mut log = FrameLog::new(Failing { room: FRAME_LOG_HEADER.len() + 1 + 12 }).expect("header");
        for start in [0, 10_000, 20_000, 30_000, 40_000] {
            log.frame_started(start, None);
        }
        assert_eq!(log.rows(), 1, "the second row failed");
        let err = log.finish(50).expect_err("the failure is reported");
        assert!(err.to_string().contains("--frame-log") && err.to_string().contains("disk full"), "{err}");
    }
}
