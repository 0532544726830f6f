//! The file's own figure beside the one `diagnose` recomputed from the raw
//! columns, frame by frame, and where they differ beyond rounding.
//!
//! Which figures have a counterpart in the file (PresentMon's metric
//! definitions, README-ConsoleApplication / README-CaptureApplication):
//!
//! | figure | the file's column | the same quantity? |
//! |---|---|---|
//! | displayed time | `DisplayedTime` (`--v2_metrics`), else `MsBetweenDisplayChange` (2.x, 1.x, FrameView) | yes: how long a frame was on screen; `MsBetweenDisplayChange` is the previous frame's, so it pairs with the interval since the previous display change |
//! | animation error | `MsAnimationError` / `AnimationError` | yes |
//! | latency | `DisplayLatency` (`--v2_metrics`) | yes: CPU start to screen |
//! | latency | `MsPCLatency`, `MsClickToPhotonLatency` | no: from the game's simulation start (Reflex markers) or a mouse click, not the CPU start |
//! | queue depth | FrameView's `Render Queue Depth` | no: the driver's render queue, not the presents waiting for the screen |
//!
//! `MsUntilDisplayed` has no figure of its own here: the screen time is built
//! from it (present + `MsUntilDisplayed`), so it cannot disagree.
//!
//! The pairs are compared frame by frame. Both sides come from columns the
//! file rounds to 3 or 4 decimals of a ms (FrameView and 1.x: 3; their
//! `TimeInSeconds`, 1 µs), so a recomputed interval can differ from the
//! file's by two roundings of each end and one of its own, 2.5 µs at most:
//! under [`ROUNDING_MS`]. Measured: 0.002 ms at most on every 1.x, OCAT,
//! CapFrameX and FrameView capture of the corpus, 0.000 on the gold files.

use timestep_core::monitor::presentmon::{CaptureChain, FrameMetrics, Reported, Ticks, ticks_to_ms};

use crate::report::trim_number;

/// How far a recomputed value may be from the file's own for rounding alone, ms (see the module docs).
pub(crate) const ROUNDING_MS: f64 = 0.003;

/// A figure recomputed beside the file's own column, over the frames that have both.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Beside {
    /// The file's column.
    pub(crate) column: &'static str,
    /// Frames with both values.
    pub(crate) frames: usize,
    /// The recomputed figure and the file's over those frames (mean, or RMS), ms.
    pub(crate) ours_ms: f64,
    pub(crate) theirs_ms: f64,
    /// Frames more than [`ROUNDING_MS`] apart, and the first of them: (line, ours, theirs).
    pub(crate) apart: usize,
    pub(crate) first_apart: Option<(u64, f64, f64)>,
    /// The largest difference, ms.
    pub(crate) largest_ms: f64,
    /// Rows whose own value is longer than the capture, left out, and the first: (line, value).
    pub(crate) impossible: usize,
    pub(crate) first_impossible: Option<(u64, f64)>,
}

/// A frame's line, the recomputed value and the file's, ms.
pub(crate) type Pair = (u64, f64, f64);

/// Whether a figure is a mean or an RMS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Summary {
    Mean,
    Rms,
}

fn summarise(values: impl Iterator<Item = f64> + Clone, how: Summary) -> f64 {
    let n = values.clone().count().max(1) as f64;
    match how {
        Summary::Mean => values.sum::<f64>() / n,
        Summary::Rms => (values.map(|v| v * v).sum::<f64>() / n).sqrt(),
    }
}

/// The pairs (line, ours, theirs) in ms, as a [`Beside`]; `None` where no frame has both.
/// A value of the file's longer than `span_ms` (the capture) is impossible:
/// counted, and left out (the PresentMon app writes −1 844 674 407 370 945 ms,
/// an unsigned wrap-around, as some frames' `MsAnimationError`).
pub(crate) fn beside(column: &'static str, pairs: &[(u64, f64, f64)], how: Summary, span_ms: f64) -> Option<Beside> {
    let (pairs, impossible): (Vec<Pair>, Vec<Pair>) = pairs.iter().partition(|(_, _, theirs)| theirs.abs() <= span_ms);
    if pairs.is_empty() {
        return None;
    }
    let apart: Vec<&(u64, f64, f64)> = pairs.iter().filter(|(_, a, b)| (a - b).abs() > ROUNDING_MS).collect();
    Some(Beside {
        column,
        frames: pairs.len(),
        ours_ms: summarise(pairs.iter().map(|p| p.1), how),
        theirs_ms: summarise(pairs.iter().map(|p| p.2), how),
        apart: apart.len(),
        first_apart: apart.first().map(|&&p| p),
        largest_ms: pairs.iter().map(|(_, a, b)| (a - b).abs()).fold(0.0, f64::max),
        impossible: impossible.len(),
        first_impossible: impossible.first().map(|&(line, _, theirs)| (line, theirs)),
    })
}

impl Beside {
    /// `the file's DisplayedTime: 16.68 ms mean over the same 1 000 frames, each within 0.003 ms`;
    /// where those frames are not all of the figure's (`figure_ms`), the recomputed value over them too.
    pub(crate) fn words(&self, how: Summary, figure_ms: f64) -> String {
        let what = match how {
            Summary::Mean => "mean",
            Summary::Rms => "RMS",
        };
        let frames = if trim_number(self.ours_ms, 2) == trim_number(figure_ms, 2) {
            format!("over the same {} frames", self.frames)
        } else {
            format!("over {} of these frames (recomputed there: {} ms)", self.frames, trim_number(self.ours_ms, 2))
        };
        let agreement = match self.first_apart {
            None => format!("each within {ROUNDING_MS} ms"),
            Some((line, ours, theirs)) => format!(
                "differs beyond rounding on {} of them, by up to {} ms (first at line {line}: {} ms, recomputed {} ms)",
                self.apart,
                trim_number(self.largest_ms, 3),
                trim_number(theirs, 3),
                trim_number(ours, 3)
            ),
        };
        let impossible = self.first_impossible.map_or_else(String::new, |(line, value)| {
            // A value past the tick counter's range reads as its limit: no number then.
            let value = if value.abs() < 1e12 { format!(": {} ms", trim_number(value, 1)) } else { String::new() };
            format!(
                "; {} longer than the capture, left out (first at line {line}{value})",
                if self.impossible == 1 {
                    "1 row writes a value".to_owned()
                } else {
                    format!("{} rows write values", self.impossible)
                }
            )
        });
        format!(
            "the file's {}: {} ms {what} {frames}, {agreement}{impossible}",
            self.column,
            trim_number(self.theirs_ms, 2)
        )
    }
}

/// The chain's figures beside the file's own: displayed time, animation
/// error and latency (see the module docs for which columns pair with which).
pub(crate) struct FileFigures {
    pub(crate) displayed_time: Option<Beside>,
    pub(crate) animation_error: Option<Beside>,
    pub(crate) display_latency: Option<Beside>,
    /// Means of the file's other latencies, ms, over the frames that have one: (column, mean, frames, from what).
    pub(crate) other_latency: Vec<(&'static str, f64, usize, &'static str)>,
    /// FrameView's `Render Queue Depth`, mean over the rows that have it.
    pub(crate) render_queue: Option<(f64, usize)>,
}

/// What the file itself says of `chain`'s frames, beside `metrics` (recomputed at `hz`).
pub(crate) fn file_figures(chain: &CaptureChain, metrics: &[FrameMetrics], hz: u64) -> FileFigures {
    let ms = |t: Ticks| ticks_to_ms(t, hz);
    let stamps = || chain.frames.iter().flat_map(|f| [f.cpu_start, f.present_start, f.screen]).flatten();
    let span_ms = match (stamps().min(), stamps().max()) {
        (Some(lo), Some(hi)) => ms(hi - lo),
        _ => 0.0,
    };
    let pairs_of = |application_only: bool,
                    ours: &dyn Fn(&FrameMetrics) -> Option<Ticks>,
                    theirs: &dyn Fn(&Reported) -> Option<Ticks>| {
        chain
            .frames
            .iter()
            .zip(metrics)
            .filter(|(f, _)| !application_only || f.is_application())
            .filter_map(|(f, m)| Some((f.line, ms(ours(m)?), ms(theirs(&f.reported)?))))
            .collect::<Vec<_>>()
    };
    let pairs = |ours: &dyn Fn(&FrameMetrics) -> Option<Ticks>, theirs: &dyn Fn(&Reported) -> Option<Ticks>| {
        pairs_of(false, ours, theirs)
    };
    let shown = pairs(&|m| m.displayed_time, &|r| r.displayed_time);
    let displayed_time = if shown.is_empty() {
        // MsBetweenDisplayChange: the previous displayed frame's time on screen (0 or NA where none).
        let changes = pairs(&|m| m.display_change, &|r| r.display_change.filter(|&t| t > 0));
        beside("MsBetweenDisplayChange", &changes, Summary::Mean, span_ms)
    } else {
        beside("DisplayedTime", &shown, Summary::Mean, span_ms)
    };
    let mean_of = |column: &'static str, from: &'static str, get: &dyn Fn(&Reported) -> Option<Ticks>| {
        let values: Vec<f64> = chain
            .frames
            .iter()
            .filter_map(|f| get(&f.reported))
            .filter(|&t| t > 0)
            .map(ms)
            .filter(|&v| v <= span_ms)
            .collect();
        (!values.is_empty()).then(|| (column, values.iter().sum::<f64>() / values.len() as f64, values.len(), from))
    };
    let queue: Vec<f64> =
        chain.frames.iter().filter_map(|f| f.reported.queue_depth_milli).map(|q| f64::from(q) / 1000.0).collect();
    FileFigures {
        displayed_time,
        animation_error: beside(
            "MsAnimationError",
            &pairs(&|m| m.animation_error, &|r| r.animation_error),
            Summary::Rms,
            span_ms,
        ),
        // The latency figure is the game's own frames' (the application frames).
        display_latency: beside(
            "DisplayLatency",
            &pairs_of(true, &|m| m.display_latency, &|r| r.display_latency),
            Summary::Mean,
            span_ms,
        ),
        other_latency: [
            mean_of("MsPCLatency", "from the game's simulation start (its Reflex markers)", &|r| r.pc_latency),
            mean_of("MsClickToPhotonLatency", "from a mouse click", &|r| r.click_to_photon),
        ]
        .into_iter()
        .flatten()
        .collect(),
        render_queue: (!queue.is_empty()).then(|| (queue.iter().sum::<f64>() / queue.len() as f64, queue.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_that_agrees_within_rounding_says_so_and_one_that_does_not_names_its_first_line() {
        // Three frames: 16.667/16.6667 (0.0003 apart), 16.668/16.6672, 33.334/33.3339.
        let pairs = [(2, 16.667, 16.6667), (3, 16.668, 16.6672), (4, 33.334, 33.3339)];
        let agree = beside("DisplayedTime", &pairs, Summary::Mean, 1000.0).expect("pairs");
        assert_eq!(
            agree.words(Summary::Mean, 22.223),
            "the file's DisplayedTime: 22.22 ms mean over the same 3 frames, each within 0.003 ms"
        );
        // An animation error off by 2 ms on line 3: RMS of 1, 3 against 1, 1;
        // line 4 writes an unsigned wrap-around and line 5 1.5 s, longer than the 1 s capture.
        let pairs = [(2, 1.0, 1.0), (3, 3.0, 1.0), (4, 1.0, -1_844_674_407_370_945.5), (5, 1.0, 1500.0)];
        let differ = beside("MsAnimationError", &pairs, Summary::Rms, 1000.0).expect("pairs");
        assert_eq!((differ.apart, differ.largest_ms, differ.impossible), (1, 2.0, 2));
        assert_eq!(
            differ.words(Summary::Rms, 5.0_f64.sqrt()),
            "the file's MsAnimationError: 1 ms RMS over the same 2 frames, differs beyond rounding on 1 of them, by up \
             to 2 ms (first at line 3: 1 ms, recomputed 3 ms); 2 rows write values longer than the capture, left out \
             (first at line 4)"
        );
        assert_eq!(beside("DisplayLatency", &[], Summary::Mean, 1000.0), None, "no frame with both: nothing to show");
    }
}
