//! Measuring the refresh rate the frames really get, and saying whether vsync works.
//!
//! winit's reported refresh (`MonitorHandle::refresh_rate_millihertz`) is
//! what the monitor claims; it is `None` on a virtual X server and says
//! nothing about whether the driver honours a Fifo present. So the loop also measures:
//! the median interval between presents over the last 120 frames that
//! the loop started without waiting (a strategy that sleeps between frames
//! measures its own pacing, not the display's), and how long each frame was
//! blocked in acquire + present. Vsync is *in effect* when the present blocks
//! for a good part of a steady interval that is a whole number of reported
//! refreshes (or, without a report, a plausible display rate ≤ 250 Hz):
//!
//! ```text
//!   vsync:     |render|~~~~~~blocked in present~~~~~~|render|~~~~~~...   every 16.7 ms
//!   no vsync:  |render|p|render|p|render|p|...                           every 2.0 ms
//! ```

//!
//! A compositor (Wayland) paces a Fifo client by when it hands out the
//! go-ahead to draw the next frame (a frame callback), at its own repaint
//! rate: a busy compositor repaints slower and less evenly than the monitor
//! refreshes (a Wayland compositor on a loaded 2-core machine: ~21 ms,
//! spread 0.3, on a 60 Hz output). The game measures that wait (redraw
//! asked → redraw given) apart from present blocking, and a wait of at least
//! a fifth of the interval is taken as vsync in effect at the
//! compositor's pace, whatever the spread. The wait cannot be rendering cost:
//! a software adapter's rasterising shows up inside present instead (11 of a
//! 15 ms frame with Immediate on a virtual X server), and X11 gives a redraw at once.
//!
//! ```text
//!   compositor-paced:  |render|present|~~~~wait for frame callback~~~~|render|present|~~~~...
//! ```
//!
//! A display path that says when each frame was shown (Wayland's
//! `wp_presentation`, a game's own Vulkan, DXGI, Metal or Android feedback:
//! [`crate::feedback`]) beats all of that: its refresh and its vsync flag
//! are the display's word, not an inference from the presents' timing, and
//! the judge that reads them comes before the ones that infer.
//!
//! A VRR display (G-Sync, FreeSync, Adaptive-Sync) shows a frame when it is
//! presented: under a vsync mode its intervals spread between the panel's
//! bounds instead of clustering at whole multiples of one period, and a
//! fixed display that misses frames still clusters:
//!
//! ```text
//!   fixed 60 Hz, missed frames:  16.7 16.7 33.3 16.7 33.3 16.7 …   on multiples of 16.7 ms: a grid
//!   VRR 48–144, sweeping:        19.8 18.1 15.2 12.9 10.3 8.6 7.2 …   spread, none under 1/max: VRR
//! ```
//!
//! So the meter also keeps the last [`VRR_WINDOW`] unpaced intervals (a
//! sweep through the range takes seconds) and calls the frames VRR when,
//! under a vsync mode, their 1st to 99th percentile spread by at least
//! [`MIN_VRR_SPREAD`], fewer than [`MAX_ON_GRID_SHARE`] of them lie on
//! multiples of one period (the reported one, else the shortest), and none is
//! shorter than a reported refresh allows; the range seen is those
//! percentiles' rates. The verdict says VRR when, besides, presents return
//! promptly (a panel takes a frame when it comes; a software rasteriser
//! blocks in present, a compositor holds the go-ahead: neither is VRR).
//! From intervals alone, a vsync the driver ignores at a frame rate below
//! the display's looks the same: the verdict says VRR.
//!
//! A display whose own feedback states a refresh period is never taken for
//! VRR, whatever its intervals: Wayland's presentation-time protocol reports
//! a refresh of zero for an output without a constant rate, so a stated
//! period is the compositor's word that the rate is fixed. Intervals off its
//! grid are then a compositor that misses its own repaints (Weston's x11 and
//! headless outputs here, whose repaint is a timer restarted at each frame:
//! 60 Hz outputs showing frames every 17 to 32 ms), not a panel that follows
//! the game.
//!
//! A verdict settles within a second of frames: a mode without vsync needs
//! no measurement at all; an emulated grid is known; and a vsync mode whose
//! strategy paces its own frames (no unpaced intervals to measure) is judged
//! from how long its presents block once a second of frames has gone by.

use alloc::boxed::Box;
use alloc::vec::Vec;

use crate::feedback::{Feedback, FeedbackFlags};
#[cfg(not(any(feature = "std", test)))]
use crate::float::Round as _;
use crate::time::{NANOS_PER_SEC, Nanos};

/// Frames the measurement looks back over (two seconds at 60 Hz).
pub(crate) const WINDOW: usize = 120;

/// Unpaced intervals after which the measurement is taken without waiting longer.
pub const MIN_SAMPLES: usize = 30;

/// Unpaced intervals that suffice once [`SETTLE_SPAN`] of presents has gone by
/// (a slow machine at 10 fps has ten in a second).
pub(crate) const MIN_SETTLE_SAMPLES: usize = 5;

/// How much present time a verdict may wait for: one second of frames.
pub(crate) const SETTLE_SPAN: Nanos = NANOS_PER_SEC;

/// Intervals shorter than this (faster than 250 Hz) are not a display's vsync.
pub(crate) const MIN_VSYNC_PERIOD: Nanos = 4_000_000;

/// Unpaced intervals the VRR evidence looks back over (4 s at 128 Hz): a
/// sweep through a panel's range takes seconds, and 512 of them cost 4 KB.
pub const VRR_WINDOW: usize = 512;

/// Smallest ratio of the 99th to the 1st percentile interval taken as a
/// spread of frame rates rather than a steady rate with jitter and the odd hitch.
pub const MIN_VRR_SPREAD: f64 = 1.2;

/// Share of intervals within [`ON_GRID_TOLERANCE`] of a whole multiple of one
/// period at or above which the frames are paced by a fixed grid.
pub const MAX_ON_GRID_SHARE: f64 = 0.5;

/// How close (relative) to a whole multiple of the period an interval must
/// be to count as on the grid: real vsync jitters by a few percent.
pub const ON_GRID_TOLERANCE: f64 = 0.03;

/// What the presents show of a variable refresh: the range of frame rates
/// seen (the 1st to 99th percentile intervals' rates).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct VrrSeen {
    /// The lowest rate seen, Hz.
    pub min_hz: f64,
    /// The highest rate seen, Hz.
    pub max_hz: f64,
}

/// The VRR evidence in `sorted` unpaced intervals (see the module docs):
/// `None` when they are too few, steady, on one grid, or faster than the
/// reported refresh.
fn vrr_evidence(sorted: &[Nanos], reported_hz: Option<f64>) -> Option<VrrSeen> {
    let n = sorted.len();
    if n < MIN_SAMPLES {
        return None;
    }
    let (fast, slow) = (sorted[n / 100], sorted[n - 1 - n / 100]);
    if fast < MIN_VSYNC_PERIOD || (slow as f64) < fast as f64 * MIN_VRR_SPREAD {
        return None;
    }
    let period = match reported_hz {
        Some(hz) if hz > 0.0 => NANOS_PER_SEC as f64 / hz,
        _ => fast as f64,
    };
    if (fast as f64) < period * (1.0 - ON_GRID_TOLERANCE) {
        return None;
    }
    let on_grid = sorted
        .iter()
        .filter(|&&d| {
            let multiple = (d as f64 / period).round().max(1.0);
            (d as f64 - multiple * period).abs() <= ON_GRID_TOLERANCE * period
        })
        .count();
    if on_grid as f64 >= MAX_ON_GRID_SHARE * n as f64 {
        return None;
    }
    let hz = |d: Nanos| NANOS_PER_SEC as f64 / d as f64;
    Some(VrrSeen { min_hz: hz(slow), max_hz: hz(fast) })
}

/// What the measurement found.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Measured {
    /// Median interval between unpaced presents.
    pub period: Nanos,
    /// Median time a frame spent blocked in acquire + present.
    pub blocked: Nanos,
    /// Median time a frame waited for the compositor's go-ahead before it started.
    pub throttled: Nanos,
    /// Interquartile range of the intervals divided by their median.
    pub spread: f64,
    /// Intervals the medians are taken over.
    pub samples: usize,
}

impl Measured {
    /// The measured rate in Hz.
    pub fn hz(&self) -> f64 {
        if self.period == 0 { 0.0 } else { NANOS_PER_SEC as f64 / self.period as f64 }
    }
}

/// Collects present timestamps and blocking times.
#[derive(Clone, Debug)]
pub(crate) struct RefreshMeter {
    /// The last [`VRR_WINDOW`] unpaced presents: the newest [`WINDOW`]
    /// measure the refresh, all of them are the evidence for a variable
    /// refresh. One ring, where four (intervals, blocking, throttling and the
    /// VRR window) were 49 of a pacer frame's 464 instructions.
    unpaced: Recent<Unpaced, VRR_WINDOW, VRR_WINDOW>,
    /// Blocking of every present, paced or not (the evidence for self-paced strategies).
    blocked_all: Window<Nanos>,
    last_present: Option<Nanos>,
    /// The first present since the last clear: how long the meter has been listening.
    first_present: Option<Nanos>,
    #[cfg_attr(not(feature = "monitor"), allow(dead_code, reason = "only the lab's Session clears and re-measures"))]
    scratch: Vec<Nanos>,
    /// What the display's own feedback said.
    word: Word,
}

/// The display's feedback, tallied: counts, the latest refresh and flags,
/// and the intervals between frames it showed one after another.
#[derive(Clone, Debug)]
struct Word {
    shown: u64,
    vsync: u64,
    discarded: u64,
    refresh: Option<Nanos>,
    flags: FeedbackFlags,
    /// The latest frame shown: its id and display time.
    last: Option<(u64, Nanos)>,
    intervals: Window<Nanos>,
}

impl Word {
    fn new() -> Word {
        Word {
            shown: 0,
            vsync: 0,
            discarded: 0,
            refresh: None,
            flags: FeedbackFlags::NONE,
            last: None,
            intervals: Recent::new(),
        }
    }

    #[cfg_attr(not(feature = "monitor"), allow(dead_code, reason = "only the lab's Session clears and re-measures"))]
    fn clear(&mut self) {
        let Word { shown, vsync, discarded, refresh, flags, last, intervals } = self;
        (*shown, *vsync, *discarded, *refresh, *flags, *last) = (0, 0, 0, None, FeedbackFlags::NONE, None);
        intervals.clear();
    }

    fn record(&mut self, feedback: &Feedback) {
        self.refresh = feedback.refresh.or(self.refresh);
        let Some(at) = feedback.displayed_at else {
            self.discarded += 1;
            return;
        };
        self.shown += 1;
        self.vsync += u64::from(feedback.flags.contains(FeedbackFlags::VSYNC));
        self.flags = feedback.flags;
        // Only a later frame shown later makes an interval: feedback out of
        // order, or across a discarded frame's gap, still counts a display change.
        if let Some((frame, last)) = self.last
            && feedback.frame > frame
            && at > last
        {
            self.intervals.push(at - last);
        }
        if self.last.is_none_or(|(frame, _)| feedback.frame > frame) {
            self.last = Some((feedback.frame, at));
        }
    }
}

/// What the display's own feedback said about the recent frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompositorWord {
    /// Frames it showed.
    pub shown: u64,
    /// Of those, frames it showed on a vblank (the vsync flag).
    pub vsync: u64,
    /// Frames it discarded (replaced before they were shown).
    pub discarded: u64,
    /// The refresh period it reported last, ns.
    pub refresh: Option<Nanos>,
    /// The flags of the latest frame it showed.
    pub flags: FeedbackFlags,
    /// Median interval between frames it showed one after another, ns.
    pub interval: Option<Nanos>,
    /// Intervals that median is taken over.
    pub samples: usize,
}

/// The latest `KEEP` values, in no particular order: the meter only takes
/// medians and quartiles of them. The oldest slot is overwritten in place;
/// four `VecDeque`s' pops and pushes were a quarter of the instructions of a
/// pacer's frame.
///
/// The slots are a ring of `SLOTS`, a power of two at least `KEEP`, indexed
/// by the count of values pushed: a push is a store and an increment, with
/// neither a bounds check nor a wrap (a `Vec` filled up to `KEEP` and a slot
/// index wrapped by comparison were 25 of a pacer frame's instructions for
/// its two rings, 12 this way). A window shorter than its ring (120 of 128)
/// reads only its newest `KEEP`.
#[derive(Clone, Debug)]
struct Recent<T, const KEEP: usize, const SLOTS: usize> {
    slots: Box<[T; SLOTS]>,
    /// Values pushed since the last clear: the next goes to slot `pushed % SLOTS`.
    /// 64 bits on every target: it never wraps (2⁶⁴ presents).
    pushed: u64,
}

/// [`RefreshMeter`]'s refresh window of [`WINDOW`] values, in a ring of 128.
type Window<T> = Recent<T, WINDOW, 128>;

/// One unpaced present: the interval since the present before, and how long
/// it blocked in acquire + present and waited for a compositor's go-ahead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Unpaced {
    interval: Nanos,
    blocked: Nanos,
    throttled: Nanos,
}

impl<T: Copy + Default, const KEEP: usize, const SLOTS: usize> Recent<T, KEEP, SLOTS> {
    fn new() -> Recent<T, KEEP, SLOTS> {
        const { assert!(SLOTS.is_power_of_two() && KEEP <= SLOTS, "a ring of a power of two slots, at least KEEP") };
        Recent { slots: Box::new([T::default(); SLOTS]), pushed: 0 }
    }

    /// The newest `n` values (all of them when fewer), in no particular order.
    fn newest(&self, n: usize) -> impl Iterator<Item = &T> {
        let n = n.min(self.len());
        // Slots before the next one are the newest (all the values before
        // the ring is full), those from it on the oldest.
        let filled = usize::try_from(self.pushed).unwrap_or(usize::MAX).min(SLOTS);
        let (newer, older) = self.slots[..filled].split_at(self.next().min(filled));
        let from_newer = n.min(newer.len());
        let from_older = (n - from_newer).min(older.len());
        newer[newer.len() - from_newer..].iter().chain(&older[older.len() - from_older..])
    }

    /// Every value kept: the newest `KEEP`.
    fn all(&self) -> impl Iterator<Item = &T> {
        self.newest(KEEP)
    }

    /// The slot the next value goes to.
    #[inline]
    fn next(&self) -> usize {
        // Below `SLOTS`, a `usize`: the cast keeps it whole.
        (self.pushed % SLOTS as u64) as usize
    }

    #[inline]
    fn push(&mut self, value: T) {
        let next = self.next();
        self.slots[next] = value;
        self.pushed += 1;
    }

    #[cfg_attr(not(feature = "monitor"), allow(dead_code, reason = "only the lab's Session clears and re-measures"))]
    fn clear(&mut self) {
        self.pushed = 0;
    }

    /// How many values are kept: those pushed, at most `KEEP`.
    fn len(&self) -> usize {
        usize::try_from(self.pushed).unwrap_or(usize::MAX).min(KEEP)
    }
}

impl Default for RefreshMeter {
    fn default() -> Self {
        RefreshMeter::new()
    }
}

impl RefreshMeter {
    /// An empty meter (allocates its fixed storage once).
    pub fn new() -> RefreshMeter {
        RefreshMeter {
            unpaced: Recent::new(),
            blocked_all: Recent::new(),
            last_present: None,
            first_present: None,
            scratch: Vec::with_capacity(VRR_WINDOW),
            word: Word::new(),
        }
    }

    /// Forgets everything (after a present-mode change, a move to another monitor).
    #[cfg_attr(not(feature = "monitor"), allow(dead_code, reason = "only the lab's Session clears and re-measures"))]
    pub fn clear(&mut self) {
        self.unpaced.clear();
        self.blocked_all.clear();
        self.last_present = None;
        self.first_present = None;
        self.word.clear();
    }

    /// Records a present that returned at `at` after `blocked` ns in acquire +
    /// present. `unpaced`: the frame started as soon as the loop allowed (no
    /// strategy wait before it), so its interval is the display's doing.
    #[cfg(test)]
    pub fn record(&mut self, at: Nanos, blocked: Nanos, unpaced: bool) {
        self.record_throttled(at, blocked, 0, unpaced);
    }

    /// As [`RefreshMeter::record`], for a frame that first waited `throttled`
    /// ns for the compositor's go-ahead to draw (a Wayland frame callback).
    #[inline]
    pub fn record_throttled(&mut self, at: Nanos, blocked: Nanos, throttled: Nanos, unpaced: bool) {
        if let Some(prev) = self.last_present
            && unpaced
            && at > prev
        {
            self.unpaced.push(Unpaced { interval: at - prev, blocked, throttled });
        }
        self.blocked_all.push(blocked);
        self.first_present.get_or_insert(at);
        self.last_present = Some(at);
    }

    /// Forgets the last present so the next interval (after a pause, a
    /// minimised stretch) is not counted.
    pub fn break_sequence(&mut self) {
        self.last_present = None;
        self.word.last = None;
    }

    /// Takes the display's word on a frame (see [`crate::feedback`]).
    pub fn record_feedback(&mut self, feedback: &Feedback) {
        self.word.record(feedback);
    }

    /// Whether the display's feedback showed enough frames for the verdict to rest on it.
    pub fn display_spoke(&self) -> bool {
        self.word.intervals.len() >= MIN_SETTLE_SAMPLES
    }

    /// What the display's feedback said so far; `None` when it said nothing.
    pub fn compositor_word(&self, scratch: &mut Vec<Nanos>) -> Option<CompositorWord> {
        let w = &self.word;
        if w.shown == 0 && w.discarded == 0 {
            return None;
        }
        Some(CompositorWord {
            shown: w.shown,
            vsync: w.vsync,
            discarded: w.discarded,
            refresh: w.refresh,
            flags: w.flags,
            interval: median(scratch, &w.intervals),
            samples: w.intervals.len(),
        })
    }

    /// How long the meter has been listening: from the first to the latest present since the last clear.
    pub fn span(&self) -> Nanos {
        match (self.first_present, self.last_present) {
            (Some(first), Some(last)) => last.saturating_sub(first),
            _ => 0,
        }
    }

    /// Whether a second of presents has gone by since the last clear.
    pub fn settled(&self) -> bool {
        self.span() >= SETTLE_SPAN
    }

    #[cfg(test)]
    /// Median time a present blocked, over every recent present (paced or not).
    pub fn median_blocked(&mut self) -> Option<Nanos> {
        median(&mut self.scratch, &self.blocked_all)
    }

    /// The medians, once [`MIN_SAMPLES`] intervals were seen (or
    /// [`MIN_SETTLE_SAMPLES`] after a second of presents).
    #[cfg_attr(not(feature = "monitor"), allow(dead_code, reason = "only the lab's Session clears and re-measures"))]
    pub fn measured(&mut self) -> Option<Measured> {
        let mut scratch = core::mem::take(&mut self.scratch);
        let measured = self.measure_with(&mut scratch);
        self.scratch = scratch;
        measured
    }

    /// As [`RefreshMeter::measured`], without the kept scratch space: for
    /// callers that only read (a verdict asked a few times a second).
    pub fn measure(&self) -> Option<Measured> {
        self.measure_with(&mut Vec::with_capacity(WINDOW))
    }

    fn measure_with(&self, scratch: &mut Vec<Nanos>) -> Option<Measured> {
        let n = self.samples();
        let enough = n >= MIN_SAMPLES || (n >= MIN_SETTLE_SAMPLES && self.settled());
        if !enough {
            return None;
        }
        let sorted = |scratch: &mut Vec<Nanos>, of: fn(&Unpaced) -> Nanos| {
            scratch.clear();
            scratch.extend(self.unpaced.newest(WINDOW).map(of));
            scratch.sort_unstable();
        };
        sorted(scratch, |u| u.interval);
        let period = scratch[n / 2];
        let iqr = scratch[(3 * n) / 4] - scratch[n / 4];
        sorted(scratch, |u| u.blocked);
        let blocked = scratch[n / 2];
        sorted(scratch, |u| u.throttled);
        let throttled = scratch[n / 2];
        let spread = if period == 0 { f64::INFINITY } else { iqr as f64 / period as f64 };
        Some(Measured { period, blocked, throttled, spread, samples: n })
    }

    /// The vsync verdict on what this meter has measured, for frames
    /// presented on the display that `facts` describe.
    pub fn verdict(&self, facts: &VerdictFacts<'_>) -> Verdict {
        let mut scratch = Vec::with_capacity(WINDOW);
        verdict(&VerdictInput {
            facts: *facts,
            measured: self.measure_with(&mut scratch),
            samples: self.samples(),
            settled: self.settled(),
            median_blocked: median(&mut scratch, &self.blocked_all),
            vrr: self.vrr_seen(facts.reported_hz),
            word: self.compositor_word(&mut scratch),
        })
    }

    /// What the unpaced intervals show of a variable refresh (module docs),
    /// on a display that reports `reported_hz` (its maximum, for a VRR panel);
    /// `None` where the display's feedback stated a constant refresh.
    pub fn vrr_seen(&self, reported_hz: Option<f64>) -> Option<VrrSeen> {
        self.vrr_seen_with(&mut Vec::with_capacity(VRR_WINDOW), reported_hz)
    }

    /// As [`RefreshMeter::vrr_seen`], in the kept scratch space: for a loop's
    /// own look at the evidence now and then, which must not allocate.
    pub fn vrr_seen_now(&mut self, reported_hz: Option<f64>) -> Option<VrrSeen> {
        let mut scratch = core::mem::take(&mut self.scratch);
        let seen = self.vrr_seen_with(&mut scratch, reported_hz);
        self.scratch = scratch;
        seen
    }

    fn vrr_seen_with(&self, sorted: &mut Vec<Nanos>, reported_hz: Option<f64>) -> Option<VrrSeen> {
        if self.word.refresh.is_some() {
            return None;
        }
        sorted.clear();
        sorted.extend(self.unpaced.all().map(|u| u.interval));
        sorted.sort_unstable();
        vrr_evidence(sorted, reported_hz)
    }

    /// Intervals collected so far.
    pub fn samples(&self) -> usize {
        self.unpaced.len().min(WINDOW)
    }
}

fn median(scratch: &mut Vec<Nanos>, values: &Window<Nanos>) -> Option<Nanos> {
    if values.len() == 0 {
        return None;
    }
    scratch.clear();
    scratch.extend(values.all());
    scratch.sort_unstable();
    Some(scratch[scratch.len() / 2])
}

mod verdict;

pub use verdict::Verdict;
pub(crate) use verdict::{VerdictFacts, VerdictInput, verdict};

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::borrow::ToOwned;
    use verdict::MAX_SPREAD;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn meter_with(period: Nanos, blocked: Nanos, frames: u64) -> RefreshMeter {
        let mut meter = RefreshMeter::new();
        for k in 0..=frames {
            meter.record(k * period, blocked, true);
        }
        meter
    }

    fn facts(mode: &str, vsync: bool, reported_hz: Option<f64>) -> VerdictFacts<'_> {
        VerdictFacts { mode, mode_is_vsync: vsync, emulated: None, emulated_vrr: None, reported_hz }
    }

    fn input<'a>(mode: &'a str, vsync: bool, reported_hz: Option<f64>, measured: Option<Measured>) -> VerdictInput<'a> {
        VerdictInput {
            facts: facts(mode, vsync, reported_hz),
            measured,
            samples: 120,
            settled: true,
            median_blocked: None,
            vrr: None,
            word: None,
        }
    }

    #[test]
    fn thirty_presents_blocked_14_ms_on_a_60_hz_grid_measure_16_67_ms_and_vsync() {
        let mut meter = RefreshMeter::new();
        for k in 0..=30 {
            meter.record(k * 16_666_667, 14_000_000, true);
        }
        assert_eq!(meter.measure().map(|m| m.period), Some(16_666_667));
        assert_eq!(meter.verdict(&facts("Fifo", true, Some(60.0))).vsync, Some(true));
    }

    #[test]
    fn the_recent_values_are_the_last_window_of_them_in_some_order() {
        let mut recent = Window::<Nanos>::new();
        for v in 0..(WINDOW as Nanos + 5) {
            recent.push(v);
        }
        let mut values: Vec<Nanos> = recent.all().copied().collect();
        values.sort_unstable();
        assert_eq!(values, (5..WINDOW as Nanos + 5).collect::<Vec<_>>(), "the first five are not kept");
        assert_eq!(recent.len(), WINDOW);
        // Past the ring's 128 slots too: the newest 120.
        for v in (WINDOW as Nanos + 5)..1000 {
            recent.push(v);
        }
        let mut values: Vec<Nanos> = recent.all().copied().collect();
        values.sort_unstable();
        assert_eq!(values, (1000 - WINDOW as Nanos..1000).collect::<Vec<_>>(), "the newest window after wrapping");
        recent.clear();
        recent.push(7);
        assert_eq!(recent.all().copied().collect::<Vec<_>>(), [7]);
    }

    #[test]
    fn the_newest_values_of_a_ring_are_the_last_pushed_before_and_after_it_wraps() {
        fn newest<const KEEP: usize>(recent: &Recent<Nanos, KEEP, 8>, n: usize) -> Vec<Nanos> {
            let mut values: Vec<Nanos> = recent.newest(n).copied().collect();
            values.sort_unstable();
            values
        }
        // Five kept in a ring of eight slots, and eight in eight.
        let mut five = Recent::<Nanos, 5, 8>::new();
        let mut eight = Recent::<Nanos, 8, 8>::new();
        for v in 0..3 {
            five.push(v);
            eight.push(v);
        }
        assert_eq!(newest(&five, 2), [1, 2], "before it is full");
        assert_eq!(newest(&five, 9), [0, 1, 2], "all of them when fewer");
        assert_eq!(newest(&eight, 9), [0, 1, 2]);
        for v in 3..11 {
            five.push(v);
            eight.push(v);
        }
        // Slots now hold 8 9 10 3 4 5 6 7: the newest wrap around the end.
        assert_eq!(eight.slots[..], [8, 9, 10, 3, 4, 5, 6, 7]);
        assert_eq!(newest(&eight, 4), [7, 8, 9, 10]);
        assert_eq!(newest(&eight, 2), [9, 10]);
        assert_eq!(newest(&eight, 9), [3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(newest(&five, 4), [7, 8, 9, 10]);
        assert_eq!(newest(&five, 9), [6, 7, 8, 9, 10], "at most the five kept");
        assert_eq!((five.len(), eight.len()), (5, 8));
    }

    #[test]
    fn the_refresh_is_measured_over_the_newest_window_of_the_longer_vrr_ring() {
        let mut meter = RefreshMeter::new();
        let mut t = 0;
        // 600 intervals of 20 ms, then a window's worth of 10 ms: the ring
        // has wrapped, the measurement sees only the newest window, the VRR
        // evidence the last VRR_WINDOW.
        for k in 0..(600 + WINDOW) {
            t += if k < 600 { 20_000_000 } else { 10_000_000 };
            meter.record(t, 0, true);
        }
        let m = meter.measured().expect("enough samples");
        assert_eq!((m.period, m.samples), (10_000_000, WINDOW));
        assert_eq!(meter.unpaced.len(), VRR_WINDOW);
        let twenty = meter.unpaced.all().filter(|u| u.interval == 20_000_000).count();
        assert_eq!(twenty, VRR_WINDOW - WINDOW, "the VRR window holds the newest 392 of the 20 ms intervals too");
    }

    #[test]
    fn the_median_interval_ignores_occasional_hitches() {
        let mut meter = RefreshMeter::new();
        let mut t = 0;
        for k in 0..200 {
            t += if k % 10 == 0 { 50_000_000 } else { 16_666_667 };
            meter.record(t, 15_000_000, true);
        }
        let m = meter.measured().expect("enough samples");
        assert_eq!(m.period, 16_666_667);
        assert_eq!(m.samples, WINDOW, "only the last {WINDOW} intervals are kept");
    }

    #[test]
    fn paced_frames_do_not_count() {
        let mut meter = RefreshMeter::new();
        for k in 0..100 {
            meter.record(k * 16_666_667, 0, false);
        }
        assert_eq!(meter.samples(), 0, "a strategy's own waits say nothing about the display");
        assert!(meter.measured().is_none());
    }

    #[test]
    fn fifo_without_blocking_at_2_ms_is_called_out_as_no_vsync() {
        let m = meter_with(2_000_000, 100_000, 120).measured();
        let v = verdict(&input("Fifo", true, None, m));
        assert_eq!(v.vsync, Some(false));
        assert_eq!(v.text, "Fifo requested, frames every 2.0 ms: vsync not in effect");
    }

    #[test]
    fn fifo_blocking_at_the_reported_rate_is_vsync() {
        let m = meter_with(16_683_350, 14_000_000, 120).measured();
        let v = verdict(&input("Fifo", true, Some(59.94), m));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert!(v.text.ends_with("vsync in effect, every refresh"), "{}", v.text);
    }

    #[test]
    fn a_slow_frame_under_vsync_is_every_second_refresh() {
        let m = meter_with(33_333_333, 10_000_000, 120).measured();
        let v = verdict(&input("Fifo", true, Some(60.0), m));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert!(v.text.contains("every 2nd refresh"), "{}", v.text);
    }

    #[test]
    fn immediate_mode_never_claims_vsync() {
        let m = meter_with(16_666_667, 14_000_000, 120).measured();
        let v = verdict(&input("Immediate", false, Some(60.0), m));
        assert_eq!(v.vsync, Some(false));
    }

    #[test]
    fn steady_blocking_without_a_reported_rate_is_vsync_only_at_a_display_rate() {
        let at_60 = meter_with(16_666_667, 14_000_000, 120).measured();
        let v = verdict(&input("Fifo", true, None, at_60));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        let at_83 = meter_with(12_000_000, 11_000_000, 120).measured();
        let v = verdict(&input("Fifo", true, None, at_83));
        assert_eq!(v.vsync, None, "a slow renderer at 83 Hz is not proof of vsync: {}", v.text);
    }

    fn throttled_meter(period: Nanos, blocked: Nanos, throttled: Nanos, jitter: Nanos) -> RefreshMeter {
        let mut meter = RefreshMeter::new();
        let mut t = 0;
        for k in 0..=120u64 {
            // Every other interval late by `jitter`: an uneven compositor.
            t += period + if k % 2 == 0 { jitter } else { 0 };
            meter.record_throttled(t, blocked, throttled, true);
        }
        meter
    }

    #[test]
    fn fifo_waiting_for_a_busy_compositor_is_vsync_at_the_compositors_pace() {
        // weston under load: 21.4 ms frames, uneven, 14 ms of each waiting for the frame callback.
        let m = throttled_meter(19_000_000, 1_400_000, 14_000_000, 5_000_000).measured().expect("measured");
        assert!(m.spread > MAX_SPREAD, "the compositor's pace is uneven: {m:?}");
        assert_eq!(m.throttled, 14_000_000);
        let v = verdict(&input("Fifo", true, Some(60.0), Some(m)));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert!(v.text.contains("paced by the compositor (each frame waits 14.0 ms"), "{}", v.text);
    }

    #[test]
    fn present_blocked_by_software_rendering_alone_is_not_compositor_pacing() {
        // lavapipe with no vsync: rasterising inside present, no wait for the compositor.
        let m = throttled_meter(15_000_000, 11_000_000, 0, 8_000_000).measured().expect("measured");
        let v = verdict(&input("Fifo", true, None, Some(m)));
        assert_eq!(v.vsync, Some(false), "{}", v.text);
        assert!(v.text.ends_with("vsync not in effect"), "{}", v.text);
    }

    #[test]
    fn a_compositor_at_the_monitors_rate_is_vsync_every_refresh() {
        let m = throttled_meter(16_666_667, 500_000, 12_000_000, 0).measured().expect("measured");
        let v = verdict(&input("Fifo", true, Some(60.0), Some(m)));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert!(v.text.ends_with("vsync in effect, every refresh"), "{}", v.text);
    }

    #[test]
    fn too_few_frames_give_no_verdict_yet() {
        let v = verdict(&VerdictInput { samples: 3, settled: false, ..input("Fifo", true, None, None) });
        assert_eq!(v.vsync, None);
        assert!(v.text.contains("measuring"), "{}", v.text);
    }

    #[test]
    fn a_mode_without_vsync_is_called_out_at_once_whatever_paces_the_frames() {
        let v = verdict(&VerdictInput { samples: 4, settled: false, ..input("Immediate", false, None, None) });
        assert_eq!(v, Verdict { vsync: Some(false), text: "Immediate requested (no vsync)".to_owned() });
    }

    #[test]
    fn a_self_paced_strategy_under_fifo_settles_after_a_second_of_frames() {
        let mut meter = RefreshMeter::new();
        for k in 0..=61u64 {
            meter.record(k * 16_666_667, 9_000_000, false);
        }
        assert!(meter.measured().is_none(), "paced frames give no interval to measure");
        assert!(meter.settled(), "61 frames at 60 fps are more than a second");
        let blocked = meter.median_blocked();
        let v = verdict(&VerdictInput { samples: 0, median_blocked: blocked, ..input("Fifo", true, None, None) });
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert!(v.text.contains("present blocks 9.0 ms"), "{}", v.text);
        let v = verdict(&VerdictInput { samples: 0, median_blocked: Some(50_000), ..input("Fifo", true, None, None) });
        assert_eq!(v.vsync, None, "{}", v.text);
        assert!(!v.text.contains("measuring"), "a settled verdict stops measuring: {}", v.text);
    }

    /// A meter fed the display times of frames ready at `readies`, shown by `show`.
    fn shown(readies: &[Nanos], mut show: impl FnMut(Nanos) -> Nanos) -> RefreshMeter {
        let mut meter = RefreshMeter::new();
        for &t in readies {
            meter.record(show(t), 500_000, true);
        }
        meter
    }

    /// A loop whose frame rate sweeps from 50 to 140 Hz, linearly in rate, in 3 s: when each frame is ready.
    fn sweep() -> Vec<Nanos> {
        let (mut t, mut readies) = (0.0, Vec::new());
        while t < 3.0 {
            readies.push(crate::time::secs_to_nanos(t) + 5_000_000);
            t += 1.0 / (50.0 + 90.0 * t / 3.0);
        }
        readies
    }

    #[test]
    fn a_vrr_sweep_from_50_to_140_hz_is_vrr_and_its_range_is_seen_within_2_hz() {
        let mut panel = crate::vrr::VrrPanel::new("vrr:48-144".parse().expect("range"));
        let meter = shown(&sweep(), |t| panel.show(t));
        for reported in [None, Some(144.0)] {
            let seen = meter.vrr_seen(reported).expect("VRR");
            assert!((seen.min_hz - 50.0).abs() <= 2.0 && (seen.max_hz - 140.0).abs() <= 2.0, "{seen:?}");
            let v = meter.verdict(&facts("Fifo", true, reported));
            assert_eq!(v.vsync, Some(true), "{}", v.text);
            assert!(v.text.contains("VRR in effect: frames shown when ready, seen 5"), "{}", v.text);
        }
    }

    #[test]
    fn fixed_60_and_144_hz_displays_missing_frames_are_not_vrr() {
        // The same sweep on fixed grids: each frame waits for the next
        // refresh, so the intervals are whole numbers of refreshes.
        for hz in [60, 144] {
            let grid = crate::vblank::VblankGrid::new(crate::time::Rate::from_hz(hz), 0);
            let mut last = None;
            let meter = shown(&sweep(), |t| {
                let k = last.map_or(grid.at_or_after(t), |l: u64| grid.at_or_after(t).max(l + 1));
                last = Some(k);
                grid.time_of(k)
            });
            for reported in [None, Some(hz as f64)] {
                assert_eq!(meter.vrr_seen(reported), None, "{hz} Hz, reported {reported:?}");
                let v = meter.verdict(&facts("Fifo", true, reported));
                assert!(!v.text.contains("VRR"), "{hz} Hz: {}", v.text);
            }
        }
    }

    #[test]
    fn a_compositor_that_states_its_refresh_is_never_taken_for_vrr() {
        // Weston's x11 output at load: a 60 Hz repaint timer restarted at each
        // frame shows the frames every 17 to 32 ms, spread like a VRR sweep.
        // Its feedback states the period: the rate is fixed, frames missed it.
        let spread = |k: u64| [16_900_000, 26_800_000, 32_300_000, 21_000_000][(k % 4) as usize];
        let mut meter = RefreshMeter::new();
        let mut at = 0;
        for k in 0..300u64 {
            at += spread(k);
            meter.record(at, 500_000, true);
        }
        assert!(meter.vrr_seen(Some(60.0)).is_some(), "without the display's word the spread reads as VRR");
        meter.record_feedback(&Feedback::displayed(300, at).with_refresh(16_666_667));
        assert_eq!(meter.vrr_seen(Some(60.0)), None, "a stated refresh period is a fixed rate");
        assert_eq!(meter.vrr_seen_now(Some(60.0)), None, "the loop's own look agrees");
    }

    #[test]
    fn frames_faster_than_the_reported_refresh_or_steady_are_not_vrr() {
        let steady = meter_with(7_092_199, 0, 200);
        assert_eq!(steady.vrr_seen(Some(144.0)), None, "a steady 141 Hz shows no range");
        let free = shown(&sweep(), |t| t);
        assert!(free.vrr_seen(None).is_some(), "unreported, a free-running sweep looks like VRR");
        assert_eq!(free.vrr_seen(Some(100.0)), None, "frames at 140 Hz on a 100 Hz display: no vsync");
        let immediate = free.verdict(&facts("Immediate", false, Some(144.0)));
        assert_eq!(immediate.vsync, Some(false), "a mode without vsync is judged first: {}", immediate.text);
    }

    #[test]
    fn a_slow_machine_is_measured_from_a_few_intervals_after_a_second() {
        let mut meter = RefreshMeter::new();
        for k in 0..=6u64 {
            meter.record(k * 200_000_000, 150_000_000, true);
        }
        let m = meter.measured().expect("six intervals over 1.2 s are enough");
        assert_eq!(m.period, 200_000_000);
    }

    /// A meter whose presents return every `period` unblocked (the inference
    /// says no vsync), and whose display says it showed each frame
    /// `shown(k)` with `flags` and `refresh`.
    fn meter_with_word(
        period: Nanos,
        shown: impl Fn(u64) -> Option<Nanos>,
        flags: FeedbackFlags,
        refresh: Nanos,
    ) -> RefreshMeter {
        let mut meter = meter_with(period, 100_000, 120);
        for k in 1..=120u64 {
            let word = match shown(k) {
                Some(at) => Feedback::displayed(k, at),
                None => Feedback::discarded(k),
            };
            meter.record_feedback(&word.with_refresh(refresh).with_flags(flags));
        }
        meter
    }

    #[test]
    fn the_compositors_vsync_flag_beats_presents_that_do_not_block() {
        let meter = meter_with_word(16_666_667, |k| Some(k * 16_666_667 + 5_000_000), FeedbackFlags::VSYNC, 16_666_667);
        let v = meter.verdict(&facts("Fifo", true, Some(60.0)));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert_eq!(
            v.text,
            "Fifo requested, the compositor showed frames every 16.7 ms (120 of 120 on a vblank), refresh 60.00 Hz: \
             vsync in effect, every refresh"
        );
        let inferred = meter_with(16_666_667, 100_000, 120).verdict(&facts("Fifo", true, Some(60.0)));
        assert_eq!(inferred.vsync, Some(false), "without the display's word: {}", inferred.text);
    }

    #[test]
    fn a_compositor_without_vblank_sync_paces_on_its_repaint_and_counts_discards() {
        // Weston's x11 backend: a 60 Hz repaint timer, no vsync flag; every
        // 10th frame replaced before the repaint, the next shown a refresh later.
        let repaint = 16_666_667;
        let shown = |k: u64| (!k.is_multiple_of(10)).then_some(k * repaint + k / 10 * repaint);
        let meter = meter_with_word(repaint, shown, FeedbackFlags::NONE, repaint);
        let word = meter.compositor_word(&mut Vec::new()).expect("the display spoke");
        assert_eq!((word.shown, word.vsync, word.discarded, word.interval), (108, 0, 12, Some(repaint)));
        let v = meter.verdict(&facts("Fifo", true, Some(60.0)));
        assert_eq!(v.vsync, Some(true), "{}", v.text);
        assert_eq!(
            v.text,
            "Fifo requested, the compositor showed frames every 16.7 ms (0 of 108 on a vblank, 12 discarded), \
             refresh 60.00 Hz: paced by the compositor's repaint, every refresh (it reports no vblank sync)"
        );
    }

    #[test]
    fn a_display_that_gives_neither_flag_nor_refresh_leaves_the_verdict_to_the_presents_and_says_what_it_showed() {
        let meter = meter_with_word(2_000_000, |k| Some(k * 2_000_000), FeedbackFlags::NONE, 0);
        let v = meter.verdict(&facts("Fifo", true, None));
        assert_eq!(
            v.text,
            "Fifo requested, frames every 2.0 ms: vsync not in effect; the compositor showed frames every 2.0 ms \
             (0 of 120 on a vblank, 0 discarded)"
        );
    }

    #[test]
    fn frames_shown_off_the_refresh_without_a_vsync_flag_leave_the_pacing_to_the_inference() {
        // Weston's x11 backend under a slow client: each commit shown when it
        // comes, every 28 ms, against a nominal 60 Hz refresh.
        let meter = meter_with_word(28_000_000, |k| Some(k * 28_000_000), FeedbackFlags::NONE, 16_666_667);
        let v = meter.verdict(&facts("Fifo", true, Some(60.0)));
        assert_eq!(v.vsync, Some(false), "the presents neither block nor wait: {}", v.text);
        assert!(v.text.starts_with("Fifo requested, frames every 28.0 ms: vsync not in effect; "), "{}", v.text);
        assert!(
            v.text.ends_with(
                "the compositor showed frames every 28.0 ms (0 of 120 on a vblank, 0 discarded), \
             refresh 60.00 Hz"
            ),
            "{}",
            v.text
        );
    }

    #[test]
    fn a_cleared_meter_forgets_the_displays_word() {
        let mut meter = meter_with_word(16_666_667, |k| Some(k * 16_666_667), FeedbackFlags::VSYNC, 16_666_667);
        meter.clear();
        assert_eq!(meter.compositor_word(&mut Vec::new()), None);
    }
}
