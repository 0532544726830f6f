//! What the commands print besides their data: a progress line on stderr.
//! Numbers are formatted by the core's one formatter
//! ([`crate::report::trim_number`]) and tables written by its one table
//! writer ([`crate::report::Table`]).
//!
//! ```text
//! Progress (stderr a terminal):  \r[###########       ]  37% catch-up @ 60   (rewritten in place)
//! Progress (stderr a file):      measure [3/24] fuzzy, vsync on, 0:41 left   (one line per update,
//!                                                                               only if asked for)
//! ```

use std::io::{IsTerminal as _, Write as _};

/// A progress line on stderr, for a command whose work takes a while.
///
/// On a terminal the line is rewritten in place; elsewhere (a log file, a
/// test's captured output) each update is a line of its own if the command
/// asked for that ([`Progress::lines_off_terminal`]), or nothing is shown.
/// Progress is the command's output, not a diagnostic: it bypasses the log.
#[derive(Debug)]
pub(crate) struct Progress {
    terminal: bool,
    off_terminal: bool,
    shown: bool,
}

impl Progress {
    /// Shown on a terminal only.
    pub(crate) fn terminal_only() -> Progress {
        Progress { terminal: std::io::stderr().is_terminal(), off_terminal: false, shown: false }
    }

    /// Shown on a terminal, and as one line per update elsewhere.
    pub(crate) fn lines_off_terminal() -> Progress {
        Progress { off_terminal: true, ..Progress::terminal_only() }
    }

    /// Whether updates are written anywhere.
    pub(crate) fn enabled(&self) -> bool {
        self.terminal || self.off_terminal
    }

    /// Whether the line is rewritten in place (stderr is a terminal).
    pub(crate) fn in_place(&self) -> bool {
        self.terminal
    }

    /// Shows `text` as the current line.
    pub(crate) fn show(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r\x1b[2K{text}")
        } else if self.off_terminal {
            writeln!(err, "{text}")
        } else {
            return;
        };
        let _ = err.flush();
        self.shown = true;
    }

    /// Ends the progress: on a terminal, the line is erased (`keep: false`)
    /// or kept with a line break after it (`keep: true`).
    pub(crate) fn finish(&mut self, keep: bool) {
        if !(self.terminal && self.shown) {
            return;
        }
        let mut err = std::io::stderr().lock();
        let _ = if keep { writeln!(err) } else { write!(err, "\r\x1b[2K") };
        let _ = err.flush();
        self.shown = false;
    }
}

/// `[########          ]` for `fraction` (0–1) of `width` characters.
pub(crate) fn bar(fraction: f64, width: usize) -> String {
    let filled = ((fraction.clamp(0.0, 1.0) * width as f64) as usize).min(width);
    format!("[{}{}]", "#".repeat(filled), " ".repeat(width - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_fills_its_fraction_and_clamps_the_rest() {
        assert_eq!(bar(0.5, 4), "[##  ]");
        assert_eq!(bar(1.7, 2), "[##]");
        assert_eq!(bar(-1.0, 2), "[  ]");
    }
}
