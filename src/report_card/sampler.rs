//! The sampler: the tour's frames, as they happen, into a [`MeasuredSetup`]
//! (see [`super::setup`] for what a setup holds and the model it makes).
//!
//! What is sampled, all in integer nanoseconds:
//!
//! ```text
//! lockstep probe with vsync in effect (emulated grid, or Fifo):
//!   work   = end − start − display wait         (updates, render, submit)
//!   depth  = display − start, in refreshes       (median, rounded; ≥ 1), or more when
//!            frames start before the one before them is shown (1 + that, in refreshes)
//!   wake   = next start − display                (how long after a vblank the loop runs)
//! every run, each frame after one whose strategy slept until t:
//!   late   = start − t                           (how precisely a sleep ends)
//! the probe and every run with vsync on (all the tour's vsynced frames):
//!   stall  = a frame whose own work took a refresh or more (it cannot make
//!            its vblank, whatever the strategy), or lay beyond the 90th
//!            percentile (the tail the middle 80 % leaves out): work − the
//!            median work long, one every (time covered / stalls)
//! ```
//!
//! Stalls are counted over every vsynced frame of the tour, not the probe
//! alone: a machine busy with something else for a moment stalls in bursts,
//! and two seconds of probe either miss the burst or see nothing else.
//!
use super::setup::*;
use super::stats::{micros_as_ms, percentile};
use crate::host::FrameReport;
use crate::monitor::{Compositor, CompositorSource};
use crate::time::Nanos;

/// A run's frame that woke this many refreshes or more after its vblank
/// stopped for another reason than a late wake-up: it is no sample.
const LATE_WAKE_REFRESHES: u64 = 8;

/// The display jitter the probe's display intervals show on a display of
/// `period` ([`MeasuredSetup::display_jitter_ms`]): from the intervals of one
/// refresh (within half a refresh of it; a missed vblank is a stall, not
/// jitter), their standard deviation σ, and a = σ·√1.5; `None` under
/// [`MIN_JITTER_MS`] or with fewer than [`MIN_FRAMES`] intervals.
fn display_jitter_ms(intervals: &[Nanos], period: Nanos) -> Option<f64> {
    let one: Vec<f64> =
        intervals.iter().filter(|&&i| i.abs_diff(period) < period / 2).map(|&i| i as f64 / 1e6).collect();
    if one.len() < MIN_FRAMES {
        return None;
    }
    let n = one.len() as f64;
    let mean = one.iter().sum::<f64>() / n;
    let variance = one.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / n;
    let a = (variance * 1.5).sqrt();
    (a >= MIN_JITTER_MS).then_some(a)
}

/// The 10th and 90th percentile of `values` (in any order), ms: the middle
/// 80 % that a model draws uniformly.
fn middle_ms(values: &[Nanos]) -> [f64; 2] {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    [micros_as_ms(percentile(&sorted, 10)), micros_as_ms(percentile(&sorted, 90))]
}

/// How late each sleep ended, from `(late, held)` samples: where the
/// compositor held the window (`holding`), a sleep that then waited for the
/// repaint is late by its lateness less that wait, which is the hold.
fn sleep_lateness(samples: &[(Nanos, Nanos)], holding: Option<Compositor>) -> Vec<Nanos> {
    samples.iter().map(|&(late, held)| if holding.is_some() { late.saturating_sub(held) } else { late }).collect()
}

/// The least, the 10th, 20th … 90th percentile and the most of `sorted`,
/// ms, unless it is empty.
fn deciles_ms(sorted: &[Nanos]) -> Option<[f64; 11]> {
    let (&least, &most) = (sorted.first()?, sorted.last()?);
    let mut deciles = [micros_as_ms(least); 11];
    for (k, d) in deciles.iter_mut().enumerate().skip(1).take(9) {
        *d = micros_as_ms(percentile(sorted, 10 * k as u64));
    }
    deciles[10] = micros_as_ms(most);
    Some(deciles)
}

/// A frame's own work: start to end, less the wait for the display.
fn own_work(report: FrameTimes, display_wait: Nanos) -> Nanos {
    report.end.saturating_sub(report.start).saturating_sub(display_wait)
}

/// The values of `sorted` beyond its 90th percentile, as their excess over its median.
fn beyond_p90(sorted: &[Nanos]) -> Vec<Nanos> {
    beyond_p90_or(sorted, Nanos::MAX)
}

/// The values of `sorted` beyond its 90th percentile or at least `deadline`
/// (the stalls of a frame's work), in order, as their excess over its median, or 0
/// where a value at the deadline is under the median (a machine that does
/// not keep up: its usual work already misses the deadline).
fn beyond_p90_or(sorted: &[Nanos], deadline: Nanos) -> Vec<Nanos> {
    let (p50, p90) = (percentile(sorted, 50), percentile(sorted, 90));
    sorted.iter().filter(|&&v| v > p90 || v >= deadline).map(|&v| v.saturating_sub(p50)).collect()
}

/// `a − b`, signed.
fn signed(a: Nanos, b: Nanos) -> i64 {
    if a >= b { i64::try_from(a - b).unwrap_or(i64::MAX) } else { i64::try_from(b - a).map_or(i64::MIN, |d| -d) }
}

/// What the sampler reads of a frame: when it started and ended, when it
/// was shown, and when its strategy asked to wake (`None`: at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrameTimes {
    /// Clock at the start of the frame.
    pub(crate) start: Nanos,
    /// Clock after its last step.
    pub(crate) end: Nanos,
    /// When its picture became visible.
    pub(crate) display: Nanos,
    /// The frame's wake ([`crate::strategy::Wake`]'s `at`): when the next frame
    /// should start, if the strategy sleeps until then.
    pub(crate) wake: Option<Nanos>,
    /// How long its redraw waited to arrive before it started (on Wayland,
    /// for the compositor's frame callback); 0 where not known.
    pub(crate) throttled: Nanos,
}

impl From<&FrameReport> for FrameTimes {
    fn from(r: &FrameReport) -> FrameTimes {
        FrameTimes { start: r.start, end: r.end, display: r.display_time, wake: r.wake.at, throttled: 0 }
    }
}

/// The frame before, as the sampler needs it.
#[derive(Clone, Copy, Debug)]
struct Previous {
    display: Nanos,
    wake: Option<Nanos>,
    end: Nanos,
    /// A probe frame (the next one's wake-up is sampled).
    probe: bool,
    start: Nanos,
    /// Its wait for the display (with vsync off: the present call).
    display_wait: Nanos,
    /// A frame of the pass with vsync on (or the probe).
    vsynced: bool,
}

/// A frame with vsync off that followed one that did not sleep, as
/// [`SetupSampler`] keeps it.
#[derive(Clone, Copy, Debug)]
struct Unpaced {
    /// Start of the one before to its start.
    frame: Nanos,
    /// The present call of the one before.
    present: Nanos,
    /// How long its redraw waited for the platform before it started.
    held: Nanos,
    /// Its start to its display.
    shown: Nanos,
}

/// One measured run's frames, as [`SetupSampler`] keeps them for its [`RunCosts`].
#[derive(Clone, Debug, Default)]
struct RunSample {
    strategy: String,
    vsync: bool,
    /// Every frame's own work.
    work: Vec<Nanos>,
    /// Start to next start of its frames.
    time: Nanos,
    /// With vsync on, each frame that followed one that did not sleep: its
    /// start less the display of the one before, as the probe's `wake`.
    wake: Vec<i64>,
    /// As [`SetupSampler`]'s.
    sleep_late: Vec<(Nanos, Nanos)>,
    /// As [`SetupSampler`]'s.
    unpaced: Vec<Unpaced>,
}

/// Collects a tour's frames into a [`MeasuredSetup`].
#[derive(Clone, Debug, Default)]
pub(crate) struct SetupSampler {
    work: Vec<Nanos>,
    latency: Vec<Nanos>,
    /// `start − display of the frame before`, signed (negative in a deeper queue).
    wake: Vec<i64>,
    /// Frames that slept: how late each started after its wake, and how
    /// long its redraw then waited for the platform (left out where the
    /// compositor held the window: that wait is its hold).
    sleep_late: Vec<(Nanos, Nanos)>,
    /// The own work of every vsynced frame (probe and runs with vsync on).
    vsynced_work: Vec<Nanos>,
    /// Time those frames covered: start to next start, within a segment.
    vsynced_time: Nanos,
    /// Time the probe's frames covered, start to next start.
    probe_time: Nanos,
    /// Display to display of consecutive probe frames.
    probe_intervals: Vec<Nanos>,
    /// Frames with vsync off that followed one that did not sleep.
    unpaced: Vec<Unpaced>,
    /// Where each segment's samples begin in `unpaced`.
    unpaced_segments: Vec<usize>,
    /// With vsync off, each shown frame's display time less the end of its
    /// present (its commit): what the compositor added.
    commit_to_display: Vec<Nanos>,
    previous: Option<Previous>,
    /// Each measured run's own frames, and the one under way.
    runs: Vec<RunSample>,
    current: Option<usize>,
}

impl SetupSampler {
    /// An empty sampler.
    pub(crate) fn new() -> SetupSampler {
        SetupSampler::default()
    }

    /// A new segment starts: the next frame follows none, and belongs to no run.
    pub(crate) fn break_sequence(&mut self) {
        self.previous = None;
        self.current = None;
        if self.unpaced_segments.last() != Some(&self.unpaced.len()) {
            self.unpaced_segments.push(self.unpaced.len());
        }
    }

    /// A new segment starts that is `strategy`'s run with vsync on or off:
    /// its frames are also kept as that run's (a run that ran again, after
    /// the page was hidden, keeps only its new frames).
    pub(crate) fn begin_run(&mut self, strategy: &str, vsync: bool) {
        self.break_sequence();
        self.runs.retain(|r| r.strategy != strategy || r.vsync != vsync);
        self.runs.push(RunSample { strategy: strategy.to_owned(), vsync, ..RunSample::default() });
        self.current = Some(self.runs.len() - 1);
    }

    /// The run under way, if any.
    fn run(&mut self) -> Option<&mut RunSample> {
        self.current.and_then(|i| self.runs.get_mut(i))
    }

    /// A presented frame of any run: how late it started after a sleep,
    /// and, in a pass with vsync on (`vsynced`), its own work; `display_wait`
    /// is the time it spent waiting for the display (blocked in acquire or
    /// present, or for the emulated vblank).
    pub(crate) fn frame(&mut self, report: FrameTimes, display_wait: Nanos, vsynced: bool) {
        if let Some(p) = self.previous {
            if let Some(t) = p.wake
                && t > p.end
                && report.start >= t
            {
                let late = (report.start - t, report.throttled);
                self.sleep_late.push(late);
                if let Some(run) = self.run() {
                    run.sleep_late.push(late);
                }
            }
            let covered = report.start.saturating_sub(p.start);
            if vsynced {
                self.vsynced_time += covered;
            }
            if let Some(run) = self.run() {
                run.time += covered;
            }
            let slept = p.wake.is_some_and(|t| t > p.end);
            if vsynced
                && p.vsynced
                && !slept
                && let Some(run) = self.run()
            {
                run.wake.push(signed(report.start, p.display));
            }
            if !vsynced && report.display >= report.end {
                self.commit_to_display.push(report.display - report.end);
            }
            if !vsynced && !p.vsynced && !slept {
                let unpaced = Unpaced {
                    frame: covered,
                    present: p.display_wait,
                    held: report.throttled,
                    shown: report.display.saturating_sub(report.start),
                };
                self.unpaced.push(unpaced);
                if let Some(run) = self.run() {
                    run.unpaced.push(unpaced);
                }
            }
        }
        let work = own_work(report, display_wait);
        if vsynced {
            self.vsynced_work.push(work);
        }
        if let Some(run) = self.run() {
            run.work.push(work);
        }
        self.previous = Some(Previous {
            display: report.display,
            wake: report.wake,
            end: report.end,
            probe: false,
            start: report.start,
            display_wait,
            vsynced,
        });
    }

    /// A presented frame of the lockstep probe with vsync in effect (see [`SetupSampler::frame`]).
    pub(crate) fn probe_frame(&mut self, report: FrameTimes, display_wait: Nanos) {
        if let Some(p) = self.previous
            && p.probe
        {
            self.wake.push(signed(report.start, p.display));
            self.probe_time += report.start.saturating_sub(p.start);
            self.probe_intervals.push(report.display.saturating_sub(p.display));
        }
        self.work.push(own_work(report, display_wait));
        self.latency.push(report.display.saturating_sub(report.start));
        self.frame(report, display_wait, true);
        if let Some(p) = self.previous.as_mut() {
            p.probe = true;
        }
    }

    /// The setup measured so far on a display of `period`, or `None` with
    /// fewer than [`MIN_FRAMES`] probe frames.
    ///
    /// In a queue `depth` deep a present returns when the frame `depth − 1`
    /// before it is shown, a vblank `(depth − 1)` refreshes before the
    /// last frame's: the wake-up is measured from there. A frame that
    /// started a whole refresh or more after that missed a vblank: it says
    /// nothing about how promptly the loop wakes.
    #[cfg(test)]
    pub(crate) fn finish(&self, period: Nanos) -> Option<MeasuredSetup> {
        self.finish_composited(period, 0)
    }

    /// [`SetupSampler::finish`] behind a compositor that shows a frame `lag`
    /// (latch + delay refreshes) after it latched it: each frame counts as
    /// shown when it was latched, and the compositor stage of the prediction
    /// adds the lag back (a blocked present wakes at a repaint, not at the vblank).
    pub(crate) fn finish_composited(&self, period: Nanos, lag: Nanos) -> Option<MeasuredSetup> {
        if self.work.len() < MIN_FRAMES || period == 0 {
            return None;
        }
        let mut latency: Vec<Nanos> = self.latency.iter().map(|&l| l.saturating_sub(lag)).collect();
        latency.sort_unstable();
        let lag_signed = i64::try_from(lag).unwrap_or(i64::MAX);
        let median = percentile(&latency, 50);
        let shown_late = u32::try_from((median + period / 2) / period).unwrap_or(MAX_DEPTH);
        // A frame that starts before the one before it is shown is queued
        // behind it: the compositor's own display times (feedback) show it,
        // a present's return never does (Weston 10, Fifo: the median frame
        // started about 10 ms before its predecessor was shown, 45 ms after its
        // own start against 35 ms frames: one deep by the rounding alone).
        let mut wakes: Vec<i64> = self.wake.iter().map(|&w| w.saturating_add(lag_signed)).collect();
        wakes.sort_unstable();
        let median_wake = wakes.get(wakes.len() / 2).copied().unwrap_or(0);
        // Within a quarter refresh of its predecessor's display a frame is not
        // behind it, and a wake that early is at the vblank: a page's frame
        // stamp and its guess of the next refresh are two estimates of one
        // instant, microseconds either side of it (the page's tours were
        // modelled two deep, every wake filtered out, when the median came out 1 µs early).
        let slack = period / 4;
        let early = median_wake.min(0).unsigned_abs().saturating_sub(slack);
        let behind = u32::try_from(early.div_ceil(period)).unwrap_or(MAX_DEPTH);
        let depth = shown_late.max(behind.saturating_add(1)).clamp(1, MAX_DEPTH);
        let unblocked = i64::from(depth - 1) * i64::try_from(period).unwrap_or(i64::MAX);
        let slack = i64::try_from(slack).unwrap_or(i64::MAX);
        // A wake-up as the model reads it: from the vblank the present
        // waited for, none earlier than the slack, within a few refreshes (a
        // longer gap is the loop stopped, not a late wake-up).
        let read_wake = |w: i64| -> Option<Nanos> {
            let w = w.saturating_add(lag_signed).saturating_add(unblocked);
            if w < -slack {
                return None;
            }
            let w = u64::try_from(w).unwrap_or(0);
            (w < LATE_WAKE_REFRESHES * period).then_some(w)
        };
        let wake: Vec<Nanos> = self.wake.iter().filter_map(|&w| read_wake(w)).filter(|&w| w < period).collect();
        if wake.len() < MIN_FRAMES {
            log::info!(
                "setup: {} of {} probe frames woke within a refresh of their vblank ({} ms, queue depth {depth}): \
                 too few to model",
                wake.len(),
                self.wake.len(),
                micros_as_ms(period)
            );
            return None;
        }
        let mut wake = wake;
        wake.sort_unstable();
        let usual_wake = percentile(&wake, 50);
        let late = beyond_p90(&wake);
        let mut work = self.vsynced_work.clone();
        work.sort_unstable();
        // A frame that, begun at the usual wake-up, ends after the next vblank
        // misses it whatever the strategy; one beyond the 90th percentile is
        // the tail that the middle 80 % leaves out.
        let deadline = period.saturating_sub(usual_wake);
        let stalls = beyond_p90_or(&work, deadline);
        let covered = self.vsynced_time;
        let every =
            |time: Nanos, events: &[Nanos]| (!events.is_empty()).then(|| micros_as_ms(time / events.len() as u64));
        let lengths = |events: &[Nanos]| (!events.is_empty()).then(|| middle_ms(events));
        let missed = self.probe_intervals.iter().filter(|&&i| i > period + period / 2).count();
        // Where the compositor held the window, a frame that slept then waited
        // for the repaint: that wait is the hold, not a late wake-up (Weston,
        // repaint-window 15 ms: 0.4 to 7.1 ms "late" with it, and `paced`
        // predicted to miss its repaints from it).
        let holding = self.holding_compositor(period);
        let sleep_late = sleep_lateness(&self.sleep_late, holding);
        Some(MeasuredSetup {
            frames: self.work.len() as u64,
            queue_depth: depth,
            work_ms: middle_ms(&self.work),
            wake_ms: middle_ms(&wake),
            sleep_late_ms: (!sleep_late.is_empty()).then(|| middle_ms(&sleep_late)),
            stall_every_ms: every(covered, &stalls),
            stall_ms: lengths(&stalls),
            stall_deciles_ms: deciles_ms(&stalls),
            late_wake_every_ms: every(self.probe_time, &late),
            late_wake_ms: lengths(&late),
            late_wake_deciles_ms: deciles_ms(&late),
            missed_share: (!self.probe_intervals.is_empty()).then(|| missed as f64 / self.probe_intervals.len() as f64),
            display_jitter_ms: display_jitter_ms(&self.probe_intervals, period),
            vsync_off: self.unpaced(holding),
            compositor: None,
            compositor_note: None,
            runs: self.runs.iter().filter_map(|run| run_costs(run, deadline, holding, &read_wake)).collect(),
        })
    }

    /// The compositor the frames with vsync off show, on a display of
    /// `period` whose display times are the compositor's own (Wayland's
    /// presentation feedback), or why not: fewer than [`MIN_FRAMES`], or
    /// frames that came no faster than the refresh.
    ///
    /// With vsync off frames come faster than the refresh and commit at
    /// every point of it, so the shortest commit-to-display is a commit just
    /// before a repaint began: latch + delay refreshes (the 2nd percentile,
    /// not the least: a present's return is a few µs after its commit).
    ///
    /// ```text
    /// commit-to-display, 2nd percentile 3.1 ms on 60 Hz → delay 0, latch 3.1 ms
    ///                                  19.9 ms          → delay 1, latch 3.2 ms
    /// ```
    pub(crate) fn measured_compositor(&self, period: Nanos) -> Result<Compositor, &'static str> {
        if self.commit_to_display.len() < MIN_FRAMES || period == 0 {
            return Err("too few frames with vsync off were shown to read its latch");
        }
        let mut frames: Vec<Nanos> = self.unpaced.iter().map(|u| u.frame).collect();
        frames.sort_unstable();
        if percentile(&frames, 50) > period / 2 {
            // Weston 10's headless backend under Mesa's Mailbox: frames every
            // 25.2 ms, one a repaint, each committed just after the last repaint.
            return Err("the frames with vsync off came once a repaint (the compositor paced them), so their commits \
                        did not fall at every point of the refresh and cannot show where its repaint begins");
        }
        let mut lags = self.commit_to_display.clone();
        lags.sort_unstable();
        let shortest = percentile(&lags, 2);
        let delay = u32::try_from(shortest / period).unwrap_or(u32::MAX).min(crate::monitor::MAX_DELAY_REFRESHES);
        let latch = shortest.saturating_sub(u64::from(delay) * period).min(crate::monitor::MAX_LATCH);
        Ok(Compositor::new(latch, delay).with_source(CompositorSource::Measured))
    }

    /// The frames of the pass with vsync off, modelled; `None` with fewer than [`MIN_FRAMES`].
    ///
    /// Their frame times are close to a bell (Xvfb, 144 Hz: mean 2.39 ms,
    /// σ 0.44 ms), and with vsync off a frame 0.21 of the mean away from it is
    /// a hitch at 144 Hz (half a refresh of motion at lockstep's 6.9 × speed),
    /// 0.5 at 60 Hz, 0.125 at 240 Hz: the shape of the spread decides the
    /// hitches. Work and present are drawn each uniformly, half as wide as the
    /// bell's σ·√6, so their sum is a triangle with the measured median and σ
    /// (σ from the 10th to 90th percentile, 2.563 σ on a bell); the frames
    /// beyond the triangle's reach come as slow frames at their measured rate.
    /// The spread is each frame's distance from its own run's median: the
    /// strategies' own differences are the simulator's to make, and a machine
    /// whose load drifts between runs would otherwise widen every run's bell
    /// (a 60 Hz tour at load 15: lockstep predicted 5703 hitches a minute from
    /// the pooled frames, measured 60).
    ///
    /// Where the compositor held each frame's redraw for its repaint
    /// ([`SetupSampler::holding_compositor`]), a frame is its start-to-start
    /// less that wait: the prediction waits for the repaint itself.
    fn unpaced(&self, holding: Option<Compositor>) -> Option<UnpacedSetup> {
        unpaced_setup(&self.unpaced, &self.unpaced_segments, holding)
    }

    /// The compositor that held the window with vsync off, on a display of
    /// `period`: where the median frame's redraw waited a quarter refresh or
    /// more for the platform (Wayland's frame callback comes when the
    /// compositor repaints), each frame started as a repaint began and was
    /// shown after the next: `latch + delay · period` is the median
    /// start-to-display less a refresh. `None` with fewer than [`MIN_FRAMES`]
    /// or a window that was not held (X11, Xvfb: redraws come at once).
    ///
    /// ```text
    /// Weston 10 headless, repaint-window 15 ms, frames at 58.2 Hz (17.17 ms):
    /// redraws held 14.5 ms, start to display 33.06 ms
    ///   → 33.06 − 17.17 = 15.89 ms: delay 0, latch 15.89 ms (weston.ini: 15)
    /// ```
    fn holding_compositor(&self, period: Nanos) -> Option<Compositor> {
        if period == 0 || self.unpaced.len() < MIN_FRAMES {
            return None;
        }
        let mut waits: Vec<Nanos> = self.unpaced.iter().map(|u| u.held).collect();
        waits.sort_unstable();
        if percentile(&waits, 50) < period / 4 {
            return None;
        }
        let mut shown: Vec<Nanos> = self.unpaced.iter().map(|u| u.shown).collect();
        shown.sort_unstable();
        let lag = percentile(&shown, 50).saturating_sub(period);
        let delay = u32::try_from(lag / period).unwrap_or(u32::MAX).min(crate::monitor::MAX_DELAY_REFRESHES);
        let latch = lag.saturating_sub(u64::from(delay) * period).min(crate::monitor::MAX_LATCH);
        Some(Compositor::new(latch, delay).with_source(CompositorSource::Measured).throttling())
    }
}

/// The costs `run` met ([`RunCosts`]), or `None` with fewer than
/// [`MIN_FRAMES`] frames: a frame of the pass with vsync on whose own work
/// reached `deadline` stalled; `holding`, the compositor that held the
/// window, if one did (its wait is no sleep's lateness); `read_wake`, a
/// frame's start less the display before it as a wake-up, if it is one.
fn run_costs(
    run: &RunSample,
    deadline: Nanos,
    holding: Option<Compositor>,
    read_wake: &dyn Fn(i64) -> Option<Nanos>,
) -> Option<RunCosts> {
    if run.work.len() < MIN_FRAMES {
        return None;
    }
    let late = sleep_lateness(&run.sleep_late, holding);
    let mut costs = RunCosts {
        strategy: run.strategy.clone(),
        vsync: run.vsync,
        frames: run.work.len() as u64,
        sleep_late_ms: (late.len() >= MIN_FRAMES).then(|| middle_ms(&late)),
        ..RunCosts::default()
    };
    if run.vsync {
        let mut work = run.work.clone();
        work.sort_unstable();
        let stalls = beyond_p90_or(&work, deadline);
        costs.work_ms = Some(middle_ms(&work));
        costs.stall_every_ms = (!stalls.is_empty()).then(|| micros_as_ms(run.time / stalls.len() as u64));
        costs.stall_ms = (!stalls.is_empty()).then(|| middle_ms(&stalls));
        costs.stall_deciles_ms = deciles_ms(&stalls);
        let mut wake: Vec<Nanos> = run.wake.iter().filter_map(|&w| read_wake(w)).collect();
        if wake.len() >= MIN_FRAMES {
            wake.sort_unstable();
            let late = beyond_p90(&wake);
            costs.wake_ms = Some(middle_ms(&wake));
            costs.late_wake_every_ms = (!late.is_empty()).then(|| micros_as_ms(run.time / late.len() as u64));
            costs.late_wake_ms = (!late.is_empty()).then(|| middle_ms(&late));
            costs.late_wake_deciles_ms = deciles_ms(&late);
        }
    } else {
        // A run whose frames all slept (fixed-fps, paced) has none of its own
        // here: its present was held to a lead after its planned start, and
        // its frame to the present includes that hold. It keeps the pass's.
        costs.vsync_off =
            unpaced_setup(&run.unpaced, &[0], holding).map(|off| UnpacedSetup { compositor: None, ..off });
    }
    Some(costs)
}

/// [`SetupSampler::unpaced`] of `unpaced`, whose segments begin at `segments`.
fn unpaced_setup(unpaced: &[Unpaced], segments: &[usize], holding: Option<Compositor>) -> Option<UnpacedSetup> {
    if unpaced.len() < MIN_FRAMES {
        return None;
    }
    let covered: Nanos = unpaced.iter().map(|u| u.frame).sum();
    let mut frames: Vec<Nanos> =
        unpaced.iter().map(|u| if holding.is_some() { u.frame.saturating_sub(u.held) } else { u.frame }).collect();
    let mut bounds = segments.to_vec();
    bounds.push(frames.len());
    let mut deviations: Vec<i64> = Vec::with_capacity(frames.len());
    let mut from = 0;
    for &to in bounds.iter().filter(|&&b| b > 0) {
        let mut run = frames[from.min(to)..to].to_vec();
        run.sort_unstable();
        let median = percentile(&run, 50);
        deviations.extend(run.iter().map(|&f| signed(f, median)));
        from = to;
    }
    deviations.sort_unstable();
    frames.sort_unstable();
    let mut present: Vec<Nanos> = unpaced.iter().map(|u| u.present).collect();
    present.sort_unstable();
    let median = percentile(&frames, 50);
    let spread = |p| crate::metrics::percentile(&deviations, p).unwrap_or(0);
    let sigma = spread(90).saturating_sub(spread(10)).max(0) as f64 / 2.563;
    // Each of the two uniform draws spans ±a: their sum's σ is a·√(2/3).
    let a = (sigma * 1.5_f64.sqrt()).round() as Nanos;
    let usual_present = percentile(&present, 50);
    let usual_work = median.saturating_sub(usual_present);
    let span = |centre: Nanos| [micros_as_ms(centre.saturating_sub(a)), micros_as_ms(centre + a)];
    let reach = i64::try_from(2 * a).unwrap_or(i64::MAX);
    let slow: Vec<Nanos> = deviations.iter().filter(|&&d| d > reach).map(|&d| u64::try_from(d).unwrap_or(0)).collect();
    Some(UnpacedSetup {
        frames: unpaced.len() as u64,
        work_ms: span(usual_work),
        present_ms: span(usual_present),
        slow_every_ms: (!slow.is_empty()).then(|| micros_as_ms(covered / slow.len() as u64)),
        slow_ms: (!slow.is_empty()).then(|| middle_ms(&slow)),
        slow_deciles_ms: deciles_ms(&slow),
        compositor: holding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::{Cost, Presentation, Preset, Stall};
    use crate::time::Rate;

    fn frame(start: Nanos, work: Nanos, display: Nanos, wake: Option<Nanos>) -> FrameTimes {
        FrameTimes { start, end: start + work, display, wake, throttled: 0 }
    }

    const PERIOD: Nanos = 16_666_667;

    #[test]
    fn display_jitter_is_the_spread_of_one_refresh_intervals_as_a_uniform_draw() {
        // 40 intervals alternating 0.6 ms either side of 16.667 ms: σ = 0.6 ms,
        // a = 0.6 · √1.5 = 0.7348 ms. Two missed vblanks (33.3 ms) are left out.
        let period = 16_666_667;
        let mut intervals: Vec<Nanos> =
            (0..40).map(|k| if k % 2 == 0 { period - 600_000 } else { period + 600_000 }).collect();
        intervals.extend([2 * period, 2 * period]);
        let a = display_jitter_ms(&intervals, period).expect("jitter");
        assert!((a - 0.6 * 1.5f64.sqrt()).abs() < 1e-9, "{a}");
        assert_eq!(display_jitter_ms(&[period; 40], period), None, "a steady grid has none");
        let tiny: Vec<Nanos> = (0..40).map(|k| period + k % 2 * 100_000).collect();
        assert_eq!(display_jitter_ms(&tiny, period), None, "0.05 ms σ: a panel's own, under 0.1 ms");
        assert_eq!(display_jitter_ms(&intervals[..20], period), None, "too few intervals");
    }

    #[test]
    fn a_sixty_hertz_grid_with_four_ms_of_work_is_one_deep() {
        let mut s = SetupSampler::new();
        for n in 0..60u64 {
            let vblank = n * PERIOD;
            let start = vblank + 200_000;
            // Blocked from the end of the work to the next vblank.
            s.probe_frame(frame(start, PERIOD, vblank + PERIOD, None), PERIOD - 4_000_000);
        }
        let setup = s.finish(PERIOD).expect("60 frames are enough");
        assert_eq!(setup.frames, 60);
        assert_eq!(setup.queue_depth, 1);
        assert_eq!(setup.work_ms, [4.0, 4.0]);
        assert_eq!(setup.wake_ms, [0.2, 0.2]);
        assert_eq!(setup.sleep_late_ms, None);
        assert_eq!((setup.stall_every_ms, setup.stall_ms), (None, None));
        let model = setup.model(Rate::from_hz(60), true);
        assert_eq!(model.stall, None);
        assert_eq!(model.presentation, Presentation::Queued { depth: 1 });
        assert_eq!(model.render, Cost::fixed(4_000_000));
        assert_eq!(model.vblank_wake, Cost::fixed(200_000));
        assert_eq!(model.update, Cost::ZERO);
    }

    #[test]
    fn frames_shown_two_refreshes_after_they_start_are_two_deep() {
        let mut s = SetupSampler::new();
        for n in 0..40u64 {
            let start = n * PERIOD + 50_000;
            s.probe_frame(frame(start, 3_000_000, (n + 2) * PERIOD, None), 0);
        }
        let setup = s.finish(PERIOD).expect("enough frames");
        assert_eq!(setup.queue_depth, 2);
        // Each present returned at the vblank showing the frame before last.
        assert_eq!(setup.wake_ms, [0.05, 0.05]);
    }

    #[test]
    fn a_frame_whose_work_takes_a_refresh_is_a_stall() {
        // 60 probe frames of 2 ms work, one a second apart; then a run whose
        // 31st frame works 27 ms: 25 ms more than the usual 2 ms.
        let mut s = SetupSampler::new();
        for n in 0..60u64 {
            s.probe_frame(frame(n * PERIOD + 100_000, 2_000_000, (n + 1) * PERIOD, None), 0);
        }
        s.break_sequence();
        for n in 0..61u64 {
            let work = if n == 30 { 27_000_000 } else { 2_000_000 };
            s.frame(frame(n * PERIOD + 100_000, work, (n + 1) * PERIOD, None), 0, true);
        }
        // A frame of the pass with vsync off counts for nothing here.
        s.frame(frame(70 * PERIOD, 40_000_000, 71 * PERIOD, None), 0, false);
        let setup = s.finish(PERIOD).expect("enough frames");
        assert_eq!(setup.stall_ms, Some([25.0, 25.0]));
        assert_eq!(setup.stall_deciles_ms, Some([25.0; 11]));
        // Covered: 59 + 60 frame-to-frame gaps of a refresh (the break and the vsync-off frame add none).
        assert_eq!(setup.stall_every_ms, Some(micros_as_ms(119 * PERIOD)));
        let model = setup.model(Rate::from_hz(60), true);
        let every = ms_to_ns(micros_as_ms(119 * PERIOD));
        assert_eq!(
            model.stall,
            Some(Stall::skewed(Cost::between(every / 2, every + every / 2), Cost::fixed(25_000_000), [25_000_000; 9]))
        );
    }

    #[test]
    fn work_at_the_deadline_under_the_median_is_a_stall_of_nothing_more() {
        // A machine that does not keep up: ten frames of 3.0 to 3.9 ms, the
        // deadline 2.9 ms (240 Hz less a 1.3 ms wake-up). Every frame is a
        // stall, as its excess over the median (3.4 ms, nearest rank): the
        // five at or under it none (a run's stalls once subtracted the median
        // and overflowed).
        let work: Vec<Nanos> = (0..10).map(|k| 3_000_000 + k * 100_000).collect();
        assert_eq!(percentile(&work, 50), 3_400_000);
        assert_eq!(beyond_p90_or(&work, 2_900_000), [0, 0, 0, 0, 0, 100_000, 200_000, 300_000, 400_000, 500_000]);
        assert_eq!(beyond_p90_or(&work, Nanos::MAX), [500_000], "without a deadline: the 90th percentile's tail");
    }

    #[test]
    fn a_run_s_work_beyond_its_90th_percentile_is_drawn_as_stalls() {
        // At 144 Hz (6.944 ms), a probe of 60 frames of 2 ms; then variable's
        // run: 61 frames waking 0.1 ms after their vblank, every tenth from
        // the 5th working 6 ms, the rest 2 ms. None reaches the deadline
        // (6.944 − 0.1 ms), but the six of 6 ms lie beyond the 90th
        // percentile (2 ms): six stalls of 4 ms over the median in its 60
        // refreshes, one every 10. The middle 80 % alone is 2 ms, so before
        // they were stalls its prediction never drew a frame of more than
        // 2.1 ms from start to end, where the run had six of 6.1.
        const P144: Nanos = 6_944_444;
        let mut s = SetupSampler::new();
        for n in 0..60u64 {
            s.probe_frame(frame(n * P144 + 100_000, 2_000_000, (n + 1) * P144, None), 0);
        }
        s.begin_run("variable", true);
        for n in 0..61u64 {
            let work = if n % 10 == 4 { 6_000_000 } else { 2_000_000 };
            s.frame(frame(n * P144 + 100_000, work, (n + 1) * P144, None), 0, true);
        }
        let setup = s.finish(P144).expect("enough frames");
        let [run] = &setup.runs[..] else { panic!("one run: {:?}", setup.runs) };
        assert_eq!(run.work_ms, Some([2.0, 2.0]));
        assert_eq!(run.stall_every_ms, Some(micros_as_ms(10 * P144)));
        assert_eq!((run.stall_ms, run.stall_deciles_ms), (Some([4.0, 4.0]), Some([4.0; 11])));
        let model = setup.model_for("variable", Rate::from_hz(144), true);
        let every = ms_to_ns(micros_as_ms(10 * P144));
        assert_eq!(
            (model.render, model.stall),
            (
                Cost::fixed(2_000_000),
                Some(Stall::skewed(
                    Cost::between(every / 2, every + every / 2),
                    Cost::fixed(4_000_000),
                    [4_000_000; 9]
                ))
            )
        );
    }

    #[test]
    fn each_run_s_prediction_draws_the_costs_that_run_met() {
        // A probe of 60 frames of 2 ms. Then lockstep's run: 61 frames of 2 ms
        // but its 31st works 27 ms (25 ms over), in 60 refreshes; snapped's: 61
        // frames of 3 ms in 61 refreshes, no stall; a vsync-off run of fixed-fps: every frame
        // slept, so it keeps the pass's frames. The tour's stall (one in 180
        // refreshes) is lockstep's alone: snapped is predicted without it, and
        // lockstep with it at its own rate, one in 60 refreshes. Snapped's
        // frames start 0.3 ms after their vblank, the others' 0.1 ms, but its
        // 41st wakes 17 ms late, past the next vblank: a late wake-up of
        // 16.7 ms over the median in its 61 refreshes. Each run's prediction
        // wakes, and wakes late, as its run did (snapped 0.3 ms after its vblank).
        let mut s = SetupSampler::new();
        for n in 0..60u64 {
            s.probe_frame(frame(n * PERIOD + 100_000, 2_000_000, (n + 1) * PERIOD, None), 0);
        }
        s.begin_run("lockstep", true);
        for n in 0..61u64 {
            let work = if n == 30 { 27_000_000 } else { 2_000_000 };
            s.frame(frame(n * PERIOD + 100_000, work, (n + 1) * PERIOD, None), 0, true);
        }
        s.begin_run("snapped", true);
        for n in 0..61u64 {
            let (vblank, wake, display) = match n {
                0..40 => (n * PERIOD, 300_000, (n + 1) * PERIOD),
                40 => (40 * PERIOD, 17_000_000, 42 * PERIOD),
                _ => ((n + 1) * PERIOD, 300_000, (n + 2) * PERIOD),
            };
            s.frame(frame(vblank + wake, 3_000_000, display, None), 0, true);
        }
        s.begin_run("fixed-fps", false);
        for n in 0..61u64 {
            let start = n * PERIOD + 50_000;
            s.frame(frame(start, 2_000_000, start + 2_000_000, Some((n + 1) * PERIOD)), 500_000, false);
        }
        let setup = s.finish(PERIOD).expect("enough frames");
        assert_eq!(setup.stall_every_ms, Some(micros_as_ms(180 * PERIOD)), "the tour's: 59 + 60 + 61 refreshes");
        let [lockstep, snapped, fixed] = &setup.runs[..] else { panic!("three runs: {:?}", setup.runs) };
        assert_eq!((lockstep.strategy.as_str(), lockstep.vsync, lockstep.frames), ("lockstep", true, 61));
        assert_eq!(lockstep.work_ms, Some([2.0, 2.0]));
        assert_eq!((lockstep.stall_every_ms, lockstep.stall_ms), (Some(micros_as_ms(60 * PERIOD)), Some([25.0, 25.0])));
        assert_eq!((snapped.work_ms, snapped.stall_every_ms, snapped.stall_ms), (Some([3.0, 3.0]), None, None));
        assert_eq!((lockstep.wake_ms, snapped.wake_ms), (Some([0.1, 0.1]), Some([0.3, 0.3])));
        assert_eq!(
            (lockstep.late_wake_every_ms, lockstep.late_wake_ms),
            (None, None),
            "none beyond the 90th percentile"
        );
        assert_eq!(
            (snapped.late_wake_every_ms, snapped.late_wake_ms),
            (Some(micros_as_ms(61 * PERIOD)), Some([16.7, 16.7]))
        );
        assert_eq!((fixed.vsync, fixed.work_ms, fixed.vsync_off.as_ref()), (false, None, None));
        assert_eq!(fixed.sleep_late_ms, Some([0.05, 0.05]), "each frame started 50 µs after its wake");
        let hz = Rate::from_hz(60);
        let every = ms_to_ns(micros_as_ms(60 * PERIOD));
        let own = setup.model_for("lockstep", hz, true);
        assert_eq!(
            own.stall,
            Some(Stall::skewed(Cost::between(every / 2, every + every / 2), Cost::fixed(25_000_000), [25_000_000; 9]))
        );
        let quiet = setup.model_for("snapped", hz, true);
        assert_eq!((quiet.render, quiet.stall), (Cost::fixed(3_000_000), None));
        let every = ms_to_ns(micros_as_ms(61 * PERIOD));
        assert_eq!(
            (quiet.vblank_wake, quiet.late_wake),
            (
                Cost::fixed(300_000),
                Some(Stall::skewed(
                    Cost::between(every / 2, every + every / 2),
                    Cost::fixed(16_700_000),
                    [16_700_000; 9]
                ))
            )
        );
        assert_eq!(setup.model_for("fuzzy", hz, true), setup.model(hz, true), "no run of its own: the tour's");
        assert_eq!(setup.model_for("snapped", hz, false), setup.model(hz, false), "not run with vsync off");
        let slept = setup.model_for("fixed-fps", hz, false);
        assert_eq!(slept.sleep_overshoot, Cost::fixed(50_000));
        assert_eq!(slept.render, setup.model(hz, false).render, "its frames slept: the pass's work");
        // A run that ran again (the page was hidden) keeps only its new frames.
        s.begin_run("snapped", true);
        for n in 0..40u64 {
            s.frame(frame(n * PERIOD + 100_000, 4_000_000, (n + 1) * PERIOD, None), 0, true);
        }
        let again = s.finish(PERIOD).expect("enough frames");
        let snapped = again.runs.iter().find(|r| r.strategy == "snapped").expect("snapped ran");
        assert_eq!((again.runs.len(), snapped.frames, snapped.work_ms), (3, 40, Some([4.0, 4.0])));
    }

    #[test]
    fn wake_ups_beyond_the_ninetieth_percentile_come_as_late_wake_ups_at_their_rate() {
        // 61 probe frames on a 60 Hz grid, 4 ms of work each: every tenth wakes
        // 3.2 ms after its vblank, the others 0.2 ms. Of the 60 wake-ups, the
        // 90th percentile (rank 54) is 0.2 ms: the six at 3.2 ms lie beyond it,
        // 3 ms past the median, in the 1003.00002 ms the probe covered.
        let mut s = SetupSampler::new();
        for n in 0..61u64 {
            let wake = if n > 0 && n % 10 == 0 { 3_200_000 } else { 200_000 };
            let start = n * PERIOD + wake;
            s.probe_frame(frame(start, 4_000_000, (n + 1) * PERIOD, None), 0);
        }
        let setup = s.finish(PERIOD).expect("enough frames");
        assert_eq!(setup.wake_ms, [0.2, 0.2], "the middle 80 % wake 0.2 ms after their vblank");
        assert_eq!(setup.late_wake_ms, Some([3.0, 3.0]));
        let covered = 60 * PERIOD + 3_000_000;
        assert_eq!(setup.late_wake_every_ms, Some(micros_as_ms(covered / 6)));
        assert_eq!(setup.missed_share, Some(0.0), "every frame made the vblank after its start");
        let every = ms_to_ns(micros_as_ms(covered / 6));
        let model = setup.model(Rate::from_hz(60), true);
        assert_eq!(
            model.late_wake,
            Some(Stall::skewed(Cost::between(every / 2, every + every / 2), Cost::fixed(3_000_000), [3_000_000; 9]))
        );
        assert_eq!(model.vblank_wake, Cost::fixed(200_000));
    }

    #[test]
    fn the_pass_with_vsync_off_is_modelled_from_its_own_frames() {
        // 102 frames that do not sleep, each presenting in 0.5 ms: 40 take 2 ms
        // start to start, 20 take 2.5, 40 take 3 and two take 6.5. The 10th
        // to 90th percentile span 2–3 ms: σ = 1 / 2.563 = 0.390168 ms, and each
        // of the two draws spans ±σ·√1.5 = ±0.477856 ms around its median
        // (work 2.0, present 0.5). The sum reaches 2.5 + 0.955712 ms: the two
        // 6.5 ms frames lie beyond, 4 ms past the median, in 263 ms.
        let mut s = SetupSampler::new();
        let mut intervals = vec![2_000_000; 40];
        intervals.extend([2_500_000; 20]);
        intervals.extend([3_000_000; 40]);
        intervals.extend([6_500_000; 2]);
        let mut start = 0;
        for interval in intervals.iter().copied().chain([2_000_000]) {
            s.frame(frame(start, 1_500_000, start + 1_500_000, None), 500_000, false);
            start += interval;
        }
        let off = s.unpaced(s.holding_compositor(PERIOD)).expect("102 frames are enough");
        assert_eq!(off.frames, 102);
        assert_eq!(off.work_ms, [1.522, 2.478]);
        assert_eq!(off.present_ms, [0.022, 0.978]);
        assert_eq!((off.slow_every_ms, off.slow_ms), (Some(131.5), Some([4.0, 4.0])));
        assert_eq!(off.slow_deciles_ms, Some([4.0; 11]));
        let setup = MeasuredSetup { vsync_off: Some(off), ..MeasuredSetup::default() };
        let model = setup.model(Rate::from_hz(144), false);
        assert_eq!(model.render, Cost::between(1_522_000, 2_478_000));
        assert_eq!(model.present_immediate, Cost::between(22_000, 978_000));
        let every = 131_500_000;
        assert_eq!(
            model.stall,
            Some(Stall::skewed(Cost::between(every / 2, every + every / 2), Cost::fixed(4_000_000), [4_000_000; 9]))
        );
        let on = setup.model(Rate::from_hz(144), true);
        assert_eq!(on.present_immediate, Preset::Desktop.model().present_immediate, "vsync on keeps the rest");
    }

    #[test]
    fn frames_held_for_the_compositor_s_repaint_read_as_their_own_work_and_a_compositor_that_throttles() {
        // Weston's headless backend with a 15 ms repaint window, in round
        // figures: repaints every 17 ms; each frame's redraw waits 14 ms for the
        // frame callback, the frame then takes 3 ms (2.5 of work, 0.5 of
        // present) and is shown 33 ms after its start: latch + delay = 33 − 17
        // = 16 ms, delay 0, latch 16 ms. The model's frames are the 3 ms, not the 17.
        const REPAINT: Nanos = 17_000_000;
        // 61 frames a repaint apart, each taking 3 ms and shown `shown` after
        // its start; every redraw after the first waited `held`.
        let sampled = |shown: Nanos, held: Nanos| {
            let mut s = SetupSampler::new();
            for n in 0..61u64 {
                let start = n * REPAINT;
                let throttled = if n == 0 { 0 } else { held };
                s.frame(
                    FrameTimes { start, end: start + 3_000_000, display: start + shown, wake: None, throttled },
                    500_000,
                    false,
                );
            }
            s
        };
        let s = sampled(33_000_000, 14_000_000);
        let off = s.unpaced(s.holding_compositor(REPAINT)).expect("60 frames are enough");
        assert_eq!(off.work_ms, [2.5, 2.5], "17 ms a frame, less the 14 ms held and the 0.5 ms present");
        assert_eq!(off.present_ms, [0.5, 0.5]);
        let held = off.compositor.expect("held 14 of 17 ms: more than a quarter refresh");
        assert_eq!((held.latch, held.delay_refreshes, held.throttles), (16_000_000, 0, true));
        assert_eq!(held.source, CompositorSource::Measured);
        let quick = sampled(4_000_000, 4_000_000);
        let off = quick.unpaced(quick.holding_compositor(REPAINT)).expect("60 frames are enough");
        assert_eq!(off.compositor, None, "redraws held 4 ms of 17, under a quarter: not held for a repaint");
        assert_eq!(off.work_ms, [16.5, 16.5], "a window not held keeps its whole frame");
    }

    #[test]
    fn where_the_compositor_held_the_window_a_sleep_s_lateness_leaves_the_hold_out() {
        // A 60 Hz probe; then, with vsync off, 61 frames each held 14 ms for
        // the repaint (the window is held); then 20 frames that sleep a refresh:
        // each wakes 0.3 ms late and its redraw then waits 5 ms for the
        // repaint. Their lateness is 0.3 ms, not 5.3: the 5 ms is the hold.
        let run = |held: Nanos| {
            let mut s = SetupSampler::new();
            for n in 0..60u64 {
                let vblank = n * PERIOD;
                s.probe_frame(frame(vblank + 200_000, 4_000_000, vblank + PERIOD, None), PERIOD - 4_000_000);
            }
            s.break_sequence();
            let mut start = 100 * PERIOD;
            for _ in 0..61 {
                let times = FrameTimes {
                    start,
                    end: start + 2_000_000,
                    display: start + 2 * PERIOD,
                    wake: None,
                    throttled: held,
                };
                s.frame(times, 500_000, false);
                start += PERIOD;
            }
            let mut throttled = held;
            for _ in 0..21 {
                let wake = start + PERIOD;
                let end = start + 2_000_000;
                s.frame(
                    FrameTimes { start, end, display: start + 2 * PERIOD, wake: Some(wake), throttled },
                    500_000,
                    false,
                );
                throttled = 5_000_000;
                start = wake + 300_000 + throttled;
            }
            s.finish(PERIOD).expect("60 probe frames are enough")
        };
        let held = run(14_000_000);
        assert!(held.vsync_off.as_ref().and_then(|off| off.compositor).is_some(), "held 14 ms of 16.7");
        assert_eq!(held.sleep_late_ms, Some([0.3, 0.3]), "the 5 ms hold is not lateness");
        let free = run(0);
        assert_eq!(free.vsync_off.as_ref().and_then(|off| off.compositor), None);
        assert_eq!(free.sleep_late_ms, Some([5.3, 5.3]), "a window not held keeps its whole wait");
    }

    #[test]
    fn two_steady_runs_at_two_speeds_are_two_steady_runs_not_one_spread() {
        // One run's frames take 2 ms each, the next run's 4 ms (another
        // strategy, or the machine got busier): each is steady, so is the model.
        let mut s = SetupSampler::new();
        for interval in [2_000_000, 4_000_000] {
            s.break_sequence();
            for n in 0..61u64 {
                s.frame(frame(n * interval, 1_000_000, n * interval + 1_000_000, None), 500_000, false);
            }
        }
        let off = s.unpaced(s.holding_compositor(PERIOD)).expect("120 frames are enough");
        assert_eq!(off.frames, 120);
        // The median frame of both (rank 60 of 120) is 2 ms, less the 0.5 ms present.
        assert_eq!((off.work_ms, off.present_ms), ([1.5, 1.5], [0.5, 0.5]), "no spread within either run");
        assert_eq!(off.slow_every_ms, None);
    }

    #[test]
    fn the_shortest_commit_to_display_with_vsync_off_is_the_compositor_s_latch_and_delay() {
        // 100 frames with vsync off on 60 Hz, shown 3.1 ms + k · 0.166 ms after
        // their commit (k = 0..99: every phase of the refresh). The 2nd
        // percentile (rank 2) is 3.266 ms: delay 0, latch 3.266 ms. The same
        // frames a refresh later read as delay 1, the same latch.
        for (extra, delay) in [(0, 0), (PERIOD, 1)] {
            let mut s = SetupSampler::new();
            for k in 0..101u64 {
                let start = k * 2_000_000;
                let end = start + 1_000_000;
                let display = end + 3_100_000 + k.saturating_sub(1) * 166_000 + extra;
                s.frame(FrameTimes { start, end, display, wake: None, throttled: 0 }, 100_000, false);
            }
            let c = s.measured_compositor(PERIOD).expect("100 frames, 2 ms apart, are enough");
            assert_eq!((c.latch, c.delay_refreshes, c.source), (3_266_000, delay, CompositorSource::Measured));
        }
        assert!(SetupSampler::new().measured_compositor(PERIOD).is_err(), "no frames, no compositor");
        // Frames a refresh apart commit at one point of it: no latch to read.
        let mut paced = SetupSampler::new();
        for k in 0..61u64 {
            let start = k * PERIOD;
            paced.frame(
                FrameTimes { start, end: start + 1_000_000, display: start + 2 * PERIOD, wake: None, throttled: 0 },
                0,
                false,
            );
        }
        assert!(paced.measured_compositor(PERIOD).is_err(), "frames once a refresh show no latch");
    }

    #[test]
    fn sleep_lateness_counts_only_frames_after_a_real_sleep() {
        let mut s = SetupSampler::new();
        // Slept until 10 ms (after its end at 2 ms), started at 10.3 ms: 0.3 ms late.
        s.frame(frame(0, 2_000_000, 1_000_000, Some(10_000_000)), 0, false);
        s.frame(frame(10_300_000, 2_000_000, 11_000_000, Some(1_000_000)), 0, false);
        // Its wake (1 ms) was before its end (12.3 ms): no sleep, nothing sampled.
        s.frame(frame(12_400_000, 1_000_000, 13_000_000, None), 0, false);
        assert_eq!(s.sleep_late, vec![(300_000, 0)]);
        s.break_sequence();
        s.frame(frame(20_000_000, 1_000_000, 21_000_000, None), 0, false);
        assert_eq!(s.sleep_late.len(), 1, "a new segment follows no sleep");
    }

    #[test]
    fn too_few_frames_make_no_model() {
        let mut s = SetupSampler::new();
        for n in 0..(MIN_FRAMES as u64) {
            s.probe_frame(frame(n * PERIOD, 1_000_000, (n + 1) * PERIOD, None), 0);
        }
        // The first frame has no vblank before it: one wake short.
        assert_eq!(s.finish(PERIOD), None);
        s.probe_frame(frame(30 * PERIOD, 1_000_000, 31 * PERIOD, None), 0);
        assert!(s.finish(PERIOD).is_some());
    }

    #[test]
    fn frames_that_start_before_their_predecessor_is_shown_are_queued_behind_it() {
        // The compositor's times: frames start every 35 ms and are shown 45 ms
        // after they start, 10 ms after the next one started.
        let period = 35_000_000;
        let mut s = SetupSampler::new();
        for n in 0..60u64 {
            let start = n * period;
            s.probe_frame(frame(start, 2_000_000, start + 45_000_000, None), 0);
        }
        let setup = s.finish(period).expect("60 frames are enough");
        assert_eq!(setup.queue_depth, 2, "45 / 35 rounds to one refresh, but each frame waits behind the last");
        assert_eq!(setup.wake_ms, [25.0, 25.0], "35 ms after the predecessor's unblocking, less the 10 ms");
    }

    #[test]
    fn a_frame_that_starts_microseconds_before_its_predecessor_is_shown_is_not_queued_behind_it() {
        // A page: each frame starts at the refresh its predecessor is shown
        // at, by two estimates that land 3 µs either side, the median early.
        let mut s = SetupSampler::new();
        for n in 1..=61u64 {
            let start = (n * PERIOD).saturating_add_signed(if n % 3 == 0 { 3_000 } else { -3_000 });
            s.probe_frame(frame(start, 4_000_000, (n + 1) * PERIOD, None), 0);
        }
        let setup = s.finish(PERIOD).expect("every frame woke at its vblank");
        assert_eq!(setup.queue_depth, 1, "shown at the next refresh, behind no one");
        assert_eq!(setup.frames, 61);
    }
}
