//! The frames a [`Session`] holds back for the display's word on them
//! ([`crate::feedback`]), and how each is settled in the end: with the
//! display's time, as discarded, or with its estimate. The module docs of
//! [`crate::session`] draw the queue.

use std::collections::VecDeque;

use crate::feedback::{DisplayTimeSource, FEEDBACK_WAIT, FEEDBACK_WAIT_FRAMES, Feedback};
use crate::host::{FrameReport, Simulation};
use crate::time::Nanos;

use super::Session;

/// Frames the session keeps back for their feedback, at most: 100 ms of
/// presents at 640 fps. A full queue settles its oldest frame at once.
pub const AWAIT_SLOTS: usize = 64;

/// How a frame's picture fared in the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Shown at the report's display time, which the display's feedback gave.
    Displayed,
    /// Shown at the report's display time, the host's estimate (no feedback
    /// was asked for, or none came within [`FEEDBACK_WAIT`]).
    Estimated,
    /// The compositor replaced it before it was shown.
    Discarded,
    /// It never reached the screen (the surface refused it).
    NotShown,
}

/// A frame the session has settled: its report, with the display time its
/// figures used, and how it fared ([`Session::take_settled`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Settled {
    /// The frame's report; `display_time` is the one the figures used.
    pub report: FrameReport,
    /// How its picture fared.
    pub outcome: Outcome,
}

/// Where display times came from, counted over settled frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeedbackCounts {
    /// Shown frames whose display time the display's feedback gave.
    pub displayed: u64,
    /// Frames whose feedback was asked for and did not come in time: the estimate stands.
    pub estimated: u64,
    /// Frames the compositor discarded.
    pub discarded: u64,
    /// Feedback that came after its frame was settled, or for no frame the session knew.
    pub late: u64,
}

impl FeedbackCounts {
    pub(super) fn since(self, origin: FeedbackCounts) -> FeedbackCounts {
        FeedbackCounts {
            displayed: self.displayed.saturating_sub(origin.displayed),
            estimated: self.estimated.saturating_sub(origin.estimated),
            discarded: self.discarded.saturating_sub(origin.discarded),
            late: self.late.saturating_sub(origin.late),
        }
    }
}

/// A recorded frame waiting for its display's word.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Awaiting {
    pub(super) report: FrameReport,
    /// The pacer's game time after the frame.
    pub(super) game: Nanos,
    /// `None` while the feedback is due.
    pub(super) outcome: Option<(Outcome, Nanos)>,
}

impl<W: Simulation> Session<W> {
    /// The display's word on a frame (frames late, out of order, or never):
    /// the pacer's verdict takes it, and the frame, if it still waits, is
    /// settled with it. See [`crate::feedback`].
    pub fn feedback(&mut self, feedback: Feedback) {
        self.pacer.displayed(feedback);
        let waiting = self.awaiting.iter_mut().find(|a| a.report.frame == feedback.frame && a.outcome.is_none());
        let Some(frame) = waiting else {
            self.counts.late += 1;
            return;
        };
        frame.outcome = Some(match feedback.displayed_at {
            Some(at) => {
                self.feedback_flags = feedback.flags;
                (Outcome::Displayed, at)
            }
            None => (Outcome::Discarded, frame.report.display_time),
        });
        self.settle();
    }

    /// Settles every frame still waiting for its feedback, with its estimate
    /// (at the end of a run, before its report).
    pub fn settle_all(&mut self) {
        while !self.awaiting.is_empty() {
            self.settle_oldest();
        }
    }

    /// Leaves the frames still waiting for their feedback out of every
    /// figure (the run ends before the display could answer): they were
    /// neither counted as shown nor as estimated. Returns how many.
    pub fn forget_awaiting(&mut self) -> usize {
        let mut forgotten = 0;
        while let Some(frame) = self.awaiting.pop_front() {
            if frame.outcome.is_some() {
                // Its outcome is known (shown without feedback, or answered): it counts.
                self.awaiting.push_front(frame);
                self.settle_oldest();
            } else {
                forgotten += 1;
            }
        }
        forgotten
    }

    /// Keeps the settled frames for [`Session::take_settled`] (the last
    /// [`AWAIT_SLOTS`] of them when nobody takes them).
    pub fn keep_settled(&mut self, keep: bool) {
        self.settled = keep.then(|| VecDeque::with_capacity(AWAIT_SLOTS));
    }

    /// The frames settled since the last call, oldest first, when kept ([`Session::keep_settled`]).
    pub fn take_settled(&mut self) -> impl Iterator<Item = Settled> + '_ {
        self.settled.iter_mut().flat_map(|settled| settled.drain(..))
    }

    /// Where display times came from so far.
    pub fn feedback_counts(&self) -> FeedbackCounts {
        self.counts
    }

    /// Where this run's display times come from: the display's feedback
    /// once any frame was shown by it, else an emulated grid's vblanks, else
    /// what the host said.
    pub fn display_time_source(&self) -> DisplayTimeSource {
        if self.counts.displayed > 0 {
            DisplayTimeSource::CompositorFeedback(self.feedback_flags)
        } else {
            self.estimate_source()
        }
    }

    /// Where the host's own display times come from (what a frame without
    /// feedback keeps): an emulated grid's vblanks (or VRR gate's
    /// scanouts), else what the host said.
    pub fn estimate_source(&self) -> DisplayTimeSource {
        if self.display.emulated.is_some() || self.display.vrr_emulated {
            DisplayTimeSource::EmulatedVblank
        } else {
            self.display.display_time_source
        }
    }

    /// Frames recorded and not yet settled (waiting for their feedback).
    pub fn awaiting(&self) -> usize {
        self.awaiting.len()
    }

    /// Settles the frames at the front that have their outcome, or waited
    /// [`FEEDBACK_WAIT`] and [`FEEDBACK_WAIT_FRAMES`] of presents for it.
    pub(super) fn settle(&mut self) {
        while let Some(front) = self.awaiting.front() {
            let expired = self.latest_present.saturating_sub(front.report.display_time) >= FEEDBACK_WAIT
                && self.latest_frame.saturating_sub(front.report.frame) >= FEEDBACK_WAIT_FRAMES;
            if front.outcome.is_none() && !expired {
                return;
            }
            self.settle_oldest();
        }
    }

    /// Settles the oldest frame waiting: with its outcome, or its estimate.
    pub(super) fn settle_oldest(&mut self) {
        let Some(frame) = self.awaiting.pop_front() else { return };
        let (outcome, display_time) = frame.outcome.unwrap_or_else(|| {
            self.counts.estimated += 1;
            (Outcome::Estimated, frame.report.display_time)
        });
        self.settle_report(&frame.report, frame.game, outcome, display_time);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RunReport;
    use crate::session::tests::{Counter, Grid16, MS, display_60};
    use crate::session::{DisplayInfo, PresentOutcome};
    use crate::{Rate, StrategyConfig, StrategyId, View};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// The display of [`Grid16`] two images deep: a present returns at a
    /// refresh boundary and its picture appears one refresh (16 ms) later.
    const QUEUED: Nanos = 16 * MS;

    /// A lockstep session at 62.5 Hz on [`Grid16`] that keeps its settled frames.
    fn lockstep_on_grid16() -> (Session<Counter>, Grid16) {
        let tick = Rate::new(125, 2).expect("62.5 Hz");
        let config = StrategyConfig { tick_rate: tick, ..StrategyConfig::default() };
        let display = DisplayInfo { reported: Some(tick), ..display_60() };
        let mut session = Session::new(StrategyId::Lockstep, config, Counter::default(), display, 0);
        session.keep_settled(true);
        (session, Grid16 { clock: 0, frame: 0, freeze_at: None })
    }

    /// Lockstep at 62.5 Hz on [`Grid16`] for `frames` frames, each asking
    /// for feedback; `answer(id, frame_just_recorded)` says which frames'
    /// feedback the display sends after each frame (`None`: none), shown at
    /// their present + [`QUEUED`] unless `discard` names them.
    fn with_feedback(
        frames: u64,
        answer: impl Fn(u64) -> Vec<u64>,
        discard: &[u64],
    ) -> (RunReport, Vec<Settled>, FeedbackCounts) {
        let (mut session, mut host) = lockstep_on_grid16();
        let mut presents = Vec::new();
        let mut settled = Vec::new();
        for _ in 0..frames {
            let report = session.run_host_frame(&mut host);
            presents.push(report.display_time);
            session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
            for id in answer(report.frame) {
                let Some(&present) = presents.get(id as usize - 1) else { continue };
                let word = if discard.contains(&id) {
                    Feedback::discarded(id)
                } else {
                    Feedback::displayed(id, present + QUEUED).with_refresh(16 * MS)
                };
                session.feedback(word);
            }
            settled.extend(session.take_settled());
        }
        session.settle_all();
        settled.extend(session.take_settled());
        let counts = session.feedback_counts();
        (session.report(host.clock), settled, counts)
    }

    /// Feedback for every frame, `late` frames after it, the last ones after the run.
    fn late_by(late: u64, frames: u64) -> impl Fn(u64) -> Vec<u64> {
        move |recorded| {
            let mut ids: Vec<u64> = recorded.checked_sub(late).filter(|&id| id > 0).into_iter().collect();
            if recorded == frames {
                ids.extend(recorded.saturating_sub(late) + 1..=frames);
            }
            ids
        }
    }

    #[test]
    fn feedback_one_two_or_three_frames_late_moves_every_frame_a_refresh_later() {
        // Present returns at 16(k + 1) ms, the picture appears at 16(k + 2):
        // latency is two refreshes, not the estimate's one (the test above).
        for late in [1, 2, 3] {
            let (report, settled, counts) = with_feedback(600, late_by(late, 600), &[]);
            let s = report.stats;
            assert_eq!((s.latency_ms, s.latency_p95_ms, s.latency_max_ms), (32.0, 32.0, 32.0), "{late} late: {s:?}");
            assert_eq!((s.judder_ms, s.hitches, s.present_interval_mean_ms), (0.0, 0, 16.0), "{late} late: {s:?}");
            assert_eq!(counts, FeedbackCounts { displayed: 600, ..FeedbackCounts::default() }, "{late} late");
            assert_eq!(report.display_time_source, "compositor-feedback (none)");
            let ids: Vec<u64> = settled.iter().map(|f| f.report.frame).collect();
            assert_eq!(ids, (1..=600).collect::<Vec<_>>(), "{late} late: settled in order, each once");
            assert!(settled.iter().all(|f| f.outcome == Outcome::Displayed));
            assert_eq!(settled[9].report.display_time, 10 * 16 * MS + QUEUED, "frame 10 presents at 160 ms");
            let display = report.display.expect("a session reports its display");
            assert_eq!((display.presented, display.feedback_frames, display.estimated_frames), (600, 600, 0));
            assert_eq!(display.compositor_refresh_hz, Some(62.5));
            assert!(display.display_time_blind_spot.is_empty(), "the display's word has no blind spot");
        }
    }

    #[test]
    fn a_frame_waits_for_its_feedback_and_the_frames_after_it_wait_behind_it() {
        let (mut session, mut host) = lockstep_on_grid16();
        let reports: Vec<FrameReport> = (0..3)
            .map(|_| {
                let report = session.run_host_frame(&mut host);
                session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
                report
            })
            .collect();
        assert_eq!(session.take_settled().count(), 0, "three frames wait for their feedback");
        assert_eq!(session.run_metrics().totals().frames, 0, "and count nowhere yet");
        session.feedback(Feedback::displayed(2, reports[1].display_time + QUEUED));
        assert_eq!(session.take_settled().count(), 0, "frame 2 has its word, frame 1 not yet");
        session.feedback(Feedback::displayed(1, reports[0].display_time + QUEUED));
        let settled: Vec<(u64, Nanos)> =
            session.take_settled().map(|f| (f.report.frame, f.report.display_time)).collect();
        assert_eq!(settled, [(1, 32 * MS), (2, 48 * MS)], "out of order in, in order out");
        assert_eq!(session.run_metrics().totals().frames, 2);
        session.feedback(Feedback::displayed(2, 0));
        assert_eq!(session.feedback_counts().late, 1, "a second word on a settled frame changes nothing");
    }

    #[test]
    fn feedback_out_of_order_gives_the_same_figures_as_in_order() {
        // Each pair answered second first: 2, 1, 4, 3, …
        let swapped = |recorded: u64| if recorded.is_multiple_of(2) { vec![recorded, recorded - 1] } else { vec![] };
        let (report, settled, counts) = with_feedback(600, swapped, &[]);
        let (in_order, _, _) = with_feedback(600, late_by(0, 600), &[]);
        assert_eq!(report.stats, in_order.stats, "the figures do not depend on the order the words came in");
        assert_eq!(counts.displayed, 600);
        assert!(settled.windows(2).all(|w| w[0].report.frame + 1 == w[1].report.frame), "settled in frame order");
    }

    #[test]
    fn feedback_that_never_comes_leaves_the_estimate_after_100_ms_of_presents() {
        let (report, settled, counts) = with_feedback(600, |_| Vec::new(), &[]);
        assert_eq!(counts, FeedbackCounts { estimated: 600, ..FeedbackCounts::default() });
        assert_eq!(report.stats.latency_ms, 16.0, "the present's return, one refresh after the input");
        assert_eq!(report.display_time_source, "present-return", "no word from the display: the host's estimate");
        let display = report.display.expect("display facts");
        assert!(display.display_time_blind_spot.contains("cannot be seen"), "{}", display.display_time_blind_spot);
        // Presents every 16 ms: frame k is settled by frame k + 7's present,
        // the first 112 ms ≥ 100 ms after its own.
        assert!(settled.iter().all(|f| f.outcome == Outcome::Estimated));
        let (_, first_seven, _) = with_feedback(7, |_| Vec::new(), &[]);
        assert_eq!(first_seven.len(), 7, "settle_all settles the rest at the end");
        let (mut session, mut host) = lockstep_on_grid16();
        let mut settled_after = Vec::new();
        for _ in 0..8 {
            let report = session.run_host_frame(&mut host);
            session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
            settled_after.push(session.take_settled().count());
        }
        assert_eq!(settled_after, [0, 0, 0, 0, 0, 0, 0, 1], "frame 1 (present 16 ms) goes at frame 8's (128 ms)");
    }

    #[test]
    fn a_discarded_frame_is_never_counted_as_shown() {
        let (report, settled, counts) = with_feedback(600, late_by(2, 600), &[300]);
        assert_eq!(counts, FeedbackCounts { displayed: 599, discarded: 1, ..FeedbackCounts::default() });
        let display = report.display.as_ref().expect("display facts");
        assert_eq!((display.presented, display.discarded_frames), (599, 1));
        let (all_shown, _, _) = with_feedback(600, late_by(2, 600), &[]);
        assert_eq!(all_shown.skipped_renders, 1, "the first refresh, before the first frame's picture");
        assert_eq!(report.skipped_renders, 2, "and the discarded frame's refresh showed no new frame");
        assert_eq!(settled[299].outcome, Outcome::Discarded);
        assert_eq!(report.stats.hitches, 1, "the picture held for two refreshes, then jumped two ticks");
    }

    #[test]
    fn a_frame_without_feedback_among_answered_ones_is_counted_as_estimated() {
        let skip_ten = |recorded: u64| late_by(1, 600)(recorded).into_iter().filter(|&id| id != 10).collect();
        let (report, settled, counts) = with_feedback(600, skip_ten, &[]);
        assert_eq!(counts, FeedbackCounts { displayed: 599, estimated: 1, ..FeedbackCounts::default() });
        assert_eq!(settled[9].outcome, Outcome::Estimated);
        assert_eq!(settled[9].report.display_time, 10 * 16 * MS, "frame 10 keeps its present's return");
        assert_eq!(report.stats.latency_max_ms, 32.0);
        assert_eq!(report.display.map(|d| d.estimated_frames), Some(1));
    }

    #[test]
    fn a_slow_loop_waits_four_presents_for_feedback_however_long_they_take() {
        let mut session =
            Session::new(StrategyId::Lockstep, StrategyConfig::default(), Counter::default(), display_60(), 0);
        session.keep_settled(true);
        let mut settled_after = Vec::new();
        for k in 1..=6u64 {
            // A frame every 200 ms, twice the time bound.
            let report = FrameReport {
                frame: k,
                start: (k - 1) * 200 * MS,
                updates: 1,
                shown_updates: 1,
                view: View::Latest,
                content_time: k * 200 * MS,
                input_time: (k - 1) * 200 * MS,
                display_time: k * 200 * MS,
                repeats: 0,
                end: k * 200 * MS,
                wake: crate::strategy::Wake { at: None },
            };
            session.record(&report, PresentOutcome::SHOWN.with_feedback_awaited());
            settled_after.push(session.take_settled().map(|f| f.report.frame).collect::<Vec<_>>());
        }
        assert!(settled_after[..4].iter().all(Vec::is_empty), "800 ms later, but only three presents");
        assert_eq!(settled_after[4], [1], "frame 1 gives up at frame 5's present");
        assert_eq!(session.feedback_counts().estimated, 2);
        assert_eq!(session.forget_awaiting(), 4, "frames 3 to 6, unanswered at the end, are left out");
        assert_eq!(session.frame_counts(), (6, 2), "six frames run, two counted as shown");
    }
}
