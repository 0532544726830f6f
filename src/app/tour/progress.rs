//! The tour's progress line on stderr (and the page's): which segment runs
//! and how long is left, then the tour's last line.

use crate::time::{NANOS_PER_SEC, Nanos};

/// The tour's progress line: which segment runs and how long is left, on
/// the command's one progress line ([`crate::output::Progress`]).
pub(super) struct Progress {
    line: crate::output::Progress,
    shown_at: Nanos,
    segment: String,
}

impl Progress {
    pub(super) fn new() -> Progress {
        Progress { line: crate::output::Progress::lines_off_terminal(), shown_at: 0, segment: String::new() }
    }

    pub(super) fn show(&mut self, what: &str, segment: usize, segments: usize, left: Nanos) {
        self.segment = format!("[{segment}/{segments}] {what}");
        self.print(left);
    }

    /// Refreshes the time left, once a second, where the line is rewritten in place.
    pub(super) fn tick(&mut self, now: Nanos, left: Nanos) {
        if now.saturating_sub(self.shown_at) >= NANOS_PER_SEC {
            self.shown_at = now;
            let line = self.line_for(left);
            // A page shows it where it is; a terminal line is rewritten in place, a log is not.
            crate::platform::show_progress(Some(&line));
            if self.line.in_place() {
                self.line.show(&line);
            }
        }
    }

    fn line_for(&self, left: Nanos) -> String {
        let secs = left.div_ceil(NANOS_PER_SEC);
        format!("measure {}, {}:{:02} left", self.segment, secs / 60, secs % 60)
    }

    fn print(&mut self, left: Nanos) {
        let line = self.line_for(left);
        crate::platform::show_progress(Some(&line));
        self.line.show(&line);
    }

    pub(super) fn done(&mut self) {
        crate::platform::show_progress(None);
        self.line.finish(true);
    }

    /// The tour's last line, after its progress: where its files are.
    pub(super) fn end(&mut self, line: &str) {
        self.line.show(line);
        self.line.finish(true);
    }
}
