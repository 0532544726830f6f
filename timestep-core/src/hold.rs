//! Holding a self-paced frame's present to an even beat.
//!
//! A strategy that paces itself (`fixed-fps`, `paced`) says when its next
//! frame starts. With a blocking present (Fifo) the display evens the
//! presents out; with a non-blocking one (Immediate, Mailbox) a present went
//! out whenever rendering happened to end, and on a software adapter that
//! varies by milliseconds. So the host holds each such present to a fixed
//! lead after the frame's planned start: it renders, waits for the GPU, spins
//! to the target, then presents.
//!
//! ```text
//!   planned         ready                target = planned + lead
//!      |~wake~|steps|render|GPU|~~hold~~~~|present|
//!      |<------------- lead ------------->|
//!   planned + interval                           next frame, same lead
//! ```
//!
//! The frame's time to ready (planned start → GPU done) decides the lead:
//! the second largest of the last [`HISTORY`] frames (a p99, so that one
//! stray stall does not move every later present) plus [`MARGIN`]. Each
//! change of the lead moves one interval by the change, so it changes
//! rarely: up at once when frames come within half the margin of it, down
//! only when the last [`HISTORY`] frames leave [`HYSTERESIS`] to spare and
//! the lead has held for [`LOWER_AFTER`] frames. A frame ready
//! after its target is presented at once, as is every frame of a loop
//! running behind its plan.
//!
//! The hold must not change what the strategy decides, and `paced` decides
//! from its measured work (render to the end of its steps), which now
//! includes the hold: it grows its interval when the work exceeds it, and
//! shrinks it while the work is under half of it. So the lead is capped:
//!
//! ```text
//!   steady schedule:    lead ≤ interval     − p99 present call − MARGIN   (no growth from the hold)
//!   changing interval:  lead ≤ interval / 2 − p99 present call − MARGIN   (the slack stays visible)
//! ```
//!
//! A schedule is steady while the planned start is the same interval after
//! either the last planned start (a grid: `fixed-fps`) or the last actual
//! start (a relative schedule: `paced`, whose interval then sits at its floor,
//! where shrinking is moot). Without the second cap a held `paced` never saw
//! slack again after one growth and grew at every later stall (measured: its
//! interval went from 16.7 ms to 480 ms within 10 s).
//!
//! Measured on a software rasteriser (Mesa's lavapipe, an X server without
//! a GPU, 1280×720, `fixed-fps`, Immediate, 2 busy cores): planned start →
//! GPU done 6–16 ms, spread ±3 ms; the present call itself (the rasteriser's
//! blit and the X server's image copy) 1–5 ms after the GPU is done.
//!
//! The virtual monitor holds a self-paced frame's present the same way with
//! vsync off (`monitor`'s display), so that its predictions of such a
//! window hold as the window did.

use crate::time::Nanos;

/// Frames the lead looks back over (two seconds at 60 Hz).
pub const HISTORY: usize = 120;

/// Slack above the measured time to ready: lavapipe's render time moves by
/// this much from one frame to the next without any outside load.
pub const MARGIN: Nanos = 1_000_000;

/// How far the lead must be above what the last [`HISTORY`] frames needed
/// before it is lowered: smaller changes are not worth an uneven interval.
pub const HYSTERESIS: Nanos = 1_000_000;

/// Frames the lead must have held before it comes down (8 s at 60 Hz): a
/// lower lead saves a millisecond or two of latency, each change costs an
/// uneven interval, and lowering after every quiet 2 s (one [`HISTORY`]) made
/// the lead go down and up again within a 10 s run under a varying load.
pub const LOWER_AFTER: usize = 4 * HISTORY;

/// Two intervals this close are the same (a 60 Hz tick grid alternates
/// 16 666 667 and 16 666 666 ns).
const SAME_INTERVAL: Nanos = 1_000;

/// How one held frame went, as clock times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldFrame {
    /// When the frame was ready: rendered and drawn by the GPU.
    pub ready: Nanos,
    /// When the present call started (the target, or `ready` when later).
    pub call_start: Nanos,
    /// When the present call returned.
    pub call_end: Nanos,
}

/// The last [`HISTORY`] values of one duration, with its largest values
/// kept as values come and go: the virtual monitor asks for the second
/// largest every held frame, and a scan of the history each time was 8 % of
/// a `simulate --vsync off` (callgrind, all strategies at 60 and 144 Hz).
#[derive(Clone, Debug)]
struct History {
    values: [Nanos; HISTORY],
    len: usize,
    next: usize,
    /// The largest value and how many times it is there, then the next
    /// smaller one and its count (0 and 0 where there is none).
    top: [(Nanos, usize); 2],
}

impl History {
    fn new() -> History {
        History { values: [0; HISTORY], len: 0, next: 0, top: [(0, 0); 2] }
    }

    /// Forgets every value.
    fn clear(&mut self) {
        self.len = 0;
        self.next = 0;
        self.top = [(0, 0); 2];
    }

    fn push(&mut self, value: Nanos) {
        let evicted = (self.len == HISTORY).then(|| self.values[self.next]);
        self.values[self.next] = value;
        self.next += 1;
        if self.next == HISTORY {
            self.next = 0;
        }
        if self.len < HISTORY {
            self.len += 1;
        }
        let [(first, n1), (second, n2)] = &mut self.top;
        let gone = match evicted {
            Some(e) if e == *first => {
                *n1 -= 1;
                *n1 == 0
            }
            Some(e) if e == *second => {
                *n2 -= 1;
                *n2 == 0
            }
            _ => false,
        };
        if gone {
            // One of the two largest left for good: look again (the new value is in).
            self.top = Self::largest(self.recent());
        } else if value > *first {
            self.top = [(value, 1), (*first, *n1)];
        } else if value == *first {
            *n1 += 1;
        } else if value > *second {
            self.top[1] = (value, 1);
        } else if value == *second {
            *n2 += 1;
        }
    }

    fn recent(&self) -> &[Nanos] {
        &self.values[..self.len]
    }

    /// The largest of `values` and the next smaller one, each with its count.
    fn largest(values: &[Nanos]) -> [(Nanos, usize); 2] {
        let mut top = [(0, 0); 2];
        for &v in values {
            if v > top[0].0 {
                top = [(v, 1), top[0]];
            } else if v == top[0].0 {
                top[0].1 += 1;
            } else if v > top[1].0 {
                top[1] = (v, 1);
            } else if v == top[1].0 {
                top[1].1 += 1;
            }
        }
        top
    }

    /// The second largest value, counting a repeated largest twice (the
    /// largest while there is only one value).
    fn second_max(&self) -> Nanos {
        let [(first, n1), (second, _)] = self.top;
        if self.len < 2 || n1 >= 2 { first } else { second }
    }
}

/// Where a planned start lies against the frame before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spacing {
    /// After the last planned start.
    grid: Nanos,
    /// After the last actual start.
    relative: Nanos,
}

impl Spacing {
    /// The same schedule as `before`: on the same grid, or the same interval after each start.
    fn same_as(self, before: Spacing) -> bool {
        self.grid.abs_diff(before.grid) <= SAME_INTERVAL || self.relative.abs_diff(before.relative) <= SAME_INTERVAL
    }
}

/// The lead of held presents over their frames' planned starts. See the module docs.
#[derive(Clone, Debug)]
pub struct PresentHold {
    lead: Nanos,
    to_ready: History,
    calls: History,
    /// Intervals between the present calls of consecutive held frames.
    call_intervals: History,
    last_call: Option<Nanos>,
    /// The last frame's planned and actual start.
    last: Option<(Nanos, Nanos)>,
    spacing: Option<Spacing>,
    /// Frames since the lead last changed.
    since_change: usize,
    changes: u64,
    /// Since the last reset: intervals between present calls, and the calls' durations.
    run_intervals: Spread,
    run_calls: Spread,
    /// Whether the call figures above (the window's HUD and run summary) are kept.
    summaries: bool,
}

/// Count, mean and population σ of a series, kept online (Welford).
#[derive(Clone, Copy, Debug, Default)]
struct Spread {
    count: u64,
    mean: f64,
    m2: f64,
}

impl Spread {
    fn push(&mut self, value: Nanos) {
        let x = value as f64 / 1e6;
        self.count += 1;
        let delta = x - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// Mean and population σ, ms; `None` before two values.
    fn get(&self) -> Option<(f64, f64)> {
        (self.count >= 2).then(|| (self.mean, (self.m2 / self.count as f64).sqrt()))
    }
}

impl Default for PresentHold {
    fn default() -> Self {
        PresentHold::new()
    }
}

impl PresentHold {
    /// No lead yet: the first frames present as soon as they are ready and are measured.
    pub fn new() -> PresentHold {
        PresentHold { summaries: true, ..PresentHold::lead_only() }
    }

    /// The same hold without the figures of its present calls
    /// ([`PresentHold::call_spread_ms`], [`PresentHold::run_summary`] are
    /// `None`): the virtual monitor asks only for the lead, and keeping the
    /// calls' intervals and spreads was 5 % of `simulate --strategy fixed-fps
    /// --vsync off` (callgrind).
    pub fn lead_only() -> PresentHold {
        PresentHold {
            lead: 0,
            to_ready: History::new(),
            calls: History::new(),
            call_intervals: History::new(),
            last_call: None,
            last: None,
            spacing: None,
            since_change: 0,
            changes: 0,
            run_intervals: Spread::default(),
            run_calls: Spread::default(),
            summaries: false,
        }
    }

    /// Forgets everything (another strategy, present mode or size: other render times).
    pub fn reset(&mut self) {
        // In place: the virtual monitor resets it whenever a frame was not
        // planned, and a new one is three histories of 120 values to write.
        // (Every field is named, so that a new one cannot be missed.)
        let PresentHold {
            lead,
            to_ready,
            calls,
            call_intervals,
            last_call,
            last,
            spacing,
            since_change,
            changes,
            run_intervals,
            run_calls,
            summaries: _,
        } = self;
        *lead = 0;
        to_ready.clear();
        calls.clear();
        call_intervals.clear();
        *last_call = None;
        *last = None;
        *spacing = None;
        *since_change = 0;
        *changes = 0;
        *run_intervals = Spread::default();
        *run_calls = Spread::default();
    }

    /// When the present of the frame planned to start at `planned` should be made.
    pub fn target(&self, planned: Nanos) -> Nanos {
        planned.saturating_add(self.lead)
    }

    /// The current lead.
    pub fn lead(&self) -> Nanos {
        self.lead
    }

    /// Whether frames are being held and measured (since the last reset).
    pub fn measuring(&self) -> bool {
        self.last.is_some()
    }

    /// Standard deviation of the intervals between the last [`HISTORY`]
    /// present calls, ms: how evenly the hold hands frames over, before the
    /// present call's own time (with a software rasteriser, the image copy) adds its spread.
    pub fn call_spread_ms(&self) -> Option<f64> {
        let mut spread = Spread::default();
        for &interval in self.call_intervals.recent() {
            spread.push(interval);
        }
        spread.get().map(|(_, sd)| sd)
    }

    /// Since the last reset: the present calls' count, interval mean and σ,
    /// and the calls' own mean duration and σ, ms. The first pair is the
    /// loop's pacing; the second is what the present path (driver, window
    /// system) adds to it before the picture is out.
    pub fn run_summary(&self) -> Option<String> {
        let (mean, sd) = self.run_intervals.get()?;
        let (call_mean, call_sd) = self.run_calls.get()?;
        Some(format!(
            "{} held presents: call intervals mean {mean:.3} ms σ {sd:.3} ms; present calls took {call_mean:.3} ms σ {call_sd:.3} ms",
            self.run_calls.count
        ))
    }

    /// How often the lead has changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Takes in how the frame planned to start at `planned`, which started at
    /// `started`, went; adjusts the lead.
    pub fn record(&mut self, planned: Nanos, started: Nanos, frame: HeldFrame) {
        let spacing = self.last.map(|(last_planned, last_started)| Spacing {
            grid: planned.saturating_sub(last_planned),
            relative: planned.saturating_sub(last_started),
        });
        let before = std::mem::replace(&mut self.spacing, spacing);
        self.last = Some((planned, started));
        let call = frame.call_end.saturating_sub(frame.call_start);
        self.calls.push(call);
        if self.summaries {
            self.run_calls.push(call);
            if let Some(last) = self.last_call.replace(frame.call_start) {
                self.call_intervals.push(frame.call_start.saturating_sub(last));
                self.run_intervals.push(frame.call_start.saturating_sub(last));
            }
        }
        self.since_change = self.since_change.saturating_add(1);
        // The shorter of the last two intervals: a schedule that restarted
        // (`fixed-fps` after a stall) has one long interval, which is no room.
        let budget = spacing.zip(before).map(|(now, before)| (now.grid.min(before.grid), now.same_as(before)));
        let Some((interval, steady)) = budget.filter(|(interval, _)| *interval > 0) else {
            self.to_ready.push(frame.ready.saturating_sub(planned));
            return;
        };
        // A loop running behind its plan is ready long after it: that says
        // nothing about rendering, and no lead within the interval would help.
        self.to_ready.push(frame.ready.saturating_sub(planned).min(interval));
        let room = if steady { interval } else { interval / 2 };
        let cap = room.saturating_sub(self.calls.second_max().saturating_add(MARGIN));
        let wanted = self.to_ready.second_max().saturating_add(MARGIN).min(cap);
        let must_fit = self.lead > cap.saturating_add(SAME_INTERVAL);
        let near_misses = wanted > self.lead.saturating_add(MARGIN / 2);
        let room_to_spare = self.since_change >= LOWER_AFTER && wanted.saturating_add(HYSTERESIS) < self.lead;
        if must_fit || near_misses || room_to_spare {
            log::debug!("present hold lead {:.2} ms → {:.2} ms", self.lead as f64 / 1e6, wanted as f64 / 1e6);
            self.lead = wanted;
            self.since_change = 0;
            self.changes += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const MS: Nanos = 1_000_000;
    const PERIOD: Nanos = 16_666_667;

    /// A frame planned at `planned`, ready `to_ready` later, presented at its
    /// target (or when ready) with a call of `call`.
    fn frame(hold: &PresentHold, planned: Nanos, to_ready: Nanos, call: Nanos) -> HeldFrame {
        let ready = planned + to_ready;
        let call_start = hold.target(planned).max(ready);
        HeldFrame { ready, call_start, call_end: call_start + call }
    }

    /// Runs `n` frames at 60 Hz from frame `from`, each started as planned
    /// and ready `to_ready(k)` after its planned start.
    fn run(hold: &mut PresentHold, from: u64, n: u64, to_ready: impl Fn(u64) -> Nanos) -> Vec<Nanos> {
        (from..from + n)
            .map(|k| {
                let planned = k * PERIOD;
                let f = frame(hold, planned, to_ready(k), 2 * MS);
                hold.record(planned, planned, f);
                f.call_start
            })
            .collect()
    }

    #[test]
    fn the_history_s_second_largest_is_a_scan_s_as_values_come_and_go() {
        let mut history = History::new();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for k in 0..(5 * HISTORY as u64) {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            // Runs of equal values and of falling ones, and a few large.
            let value = match k % 7 {
                0 => 5 * MS,
                1 => (state >> 40) % (10 * MS),
                _ => (state >> 33) % (3 * MS) + k % 3,
            };
            history.push(value);
            let mut sorted = history.recent().to_vec();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let scanned = sorted.get(1).or(sorted.first()).copied().unwrap_or(0);
            assert_eq!(history.second_max(), scanned, "after {} values", k + 1);
        }
    }

    #[test]
    fn the_lead_is_the_p99_time_to_ready_plus_the_margin_and_then_presents_are_exactly_even() {
        let mut hold = PresentHold::new();
        // 6 ms to ready, 9 ms every 10th frame: after the second 9 ms frame the lead is 10 ms.
        let starts = run(&mut hold, 0, 240, |k| if k % 10 == 5 { 9 * MS } else { 6 * MS });
        assert_eq!(hold.lead(), 10 * MS, "second largest (9 ms) + 1 ms margin");
        let settled = &starts[20..];
        assert!(
            settled.windows(2).all(|w| w[1] - w[0] == PERIOD || w[1] - w[0] == PERIOD + 1),
            "every present on the 60 Hz grid + 10 ms: {settled:?}"
        );
        assert_eq!(hold.changes(), 2, "set at the third frame (two intervals known), raised at the second 9 ms frame");
        assert_eq!(hold.call_spread_ms(), Some(0.0), "the last 120 calls are on the grid (±1 ns)");
    }

    #[test]
    fn a_lead_only_hold_holds_as_the_full_one_without_its_call_figures() {
        let (mut full, mut lean) = (PresentHold::new(), PresentHold::lead_only());
        let to_ready = |k: u64| if k % 10 == 5 { 9 * MS } else { 6 * MS } + k % 3 * MS / 4;
        assert_eq!(run(&mut full, 0, 600, to_ready), run(&mut lean, 0, 600, to_ready));
        assert_eq!((full.lead(), full.changes()), (lean.lead(), lean.changes()));
        assert!(full.call_spread_ms().is_some() && full.run_summary().is_some());
        assert_eq!((lean.call_spread_ms(), lean.run_summary()), (None, None));
    }

    #[test]
    fn the_run_summary_separates_the_call_spacing_from_the_calls_own_time() {
        let mut hold = PresentHold::new();
        assert_eq!(hold.run_summary(), None, "nothing held yet");
        // Calls at 0, 10 and 30 ms (intervals 10 and 20: mean 15, σ 5) taking
        // 1, 2 and 3 ms (mean 2, σ √(2/3) = 0.816).
        for (k, (start, call)) in [(0, 1), (10, 2), (30, 3)].into_iter().enumerate() {
            let planned = k as Nanos * PERIOD;
            let call_start = 100 * MS + start * MS;
            hold.record(planned, planned, HeldFrame { ready: planned, call_start, call_end: call_start + call * MS });
        }
        assert_eq!(
            hold.run_summary().as_deref(),
            Some("3 held presents: call intervals mean 15.000 ms σ 5.000 ms; present calls took 2.000 ms σ 0.816 ms")
        );
        hold.reset();
        assert_eq!(hold.run_summary(), None, "a reset starts the figures over");
    }

    #[test]
    fn one_stall_does_not_move_the_lead() {
        let mut hold = PresentHold::new();
        run(&mut hold, 0, 60, |_| 5 * MS);
        assert_eq!(hold.lead(), 6 * MS);
        let changes = hold.changes();
        let starts = run(&mut hold, 60, 60, |k| if k == 90 { 12 * MS } else { 5 * MS });
        assert_eq!(hold.lead(), 6 * MS, "a single 12 ms frame is above the p99");
        assert_eq!(hold.changes(), changes);
        assert_eq!(starts[30], 90 * PERIOD + 12 * MS, "the stalled frame is presented when ready");
        assert_eq!(starts[31], 91 * PERIOD + 6 * MS, "the next one is back on the beat");
    }

    #[test]
    fn the_lead_comes_down_only_with_room_to_spare_and_after_it_has_held_for_a_while() {
        let mut hold = PresentHold::new();
        run(&mut hold, 0, 10, |_| 9 * MS);
        assert_eq!(hold.lead(), 10 * MS, "set at frame 2");
        run(&mut hold, 10, 100, |_| 4 * MS);
        assert_eq!(hold.lead(), 10 * MS, "the 9 ms frames are still in the history");
        run(&mut hold, 110, 372, |_| 4 * MS);
        assert_eq!(hold.lead(), 10 * MS, "frame 481: only 479 frames since the lead was set");
        run(&mut hold, 482, 1, |_| 4 * MS);
        assert_eq!(hold.lead(), 5 * MS, "frame 482, 480 frames later: 4 + 1 ms");
        let changes = hold.changes();
        run(&mut hold, 483, 60, |k| if k % 2 == 0 { 4 * MS } else { 4 * MS + 400_000 });
        assert_eq!((hold.lead(), hold.changes()), (5 * MS, changes), "4.4 ms frames leave 0.6 ms: kept");
        run(&mut hold, 543, LOWER_AFTER as u64 * 2, |k| if k % 2 == 0 { 4 * MS } else { 4 * MS + 600_000 });
        assert_eq!(hold.lead(), 5 * MS + 600_000, "4.6 ms frames are within half the margin: raised");
        assert_eq!(hold.changes(), changes + 1, "and not lowered again within the hysteresis");
    }

    #[test]
    fn the_lead_never_leaves_too_little_of_the_interval_for_the_present_call() {
        let mut hold = PresentHold::new();
        run(&mut hold, 0, 30, |_| 20 * MS);
        // Interval 16.67 ms, present call 2 ms, margin 1 ms.
        assert_eq!(hold.lead(), PERIOD - 3 * MS, "capped below the interval");
        let mut hold = PresentHold::new();
        run(&mut hold, 0, 2, |_| 5 * MS);
        assert_eq!(hold.lead(), 0, "fewer than two intervals: the first frames only measure");
    }

    #[test]
    fn a_loop_running_behind_or_restarting_its_schedule_does_not_stretch_the_lead() {
        let mut hold = PresentHold::new();
        run(&mut hold, 0, 30, |_| 5 * MS);
        assert_eq!(hold.lead(), 6 * MS);
        // Frames 30..40 start ever later behind their plan, then the schedule
        // restarts a second later (as `fixed-fps` does after a stall).
        run(&mut hold, 30, 10, |k| (k - 29) * 20 * MS);
        assert_eq!(hold.lead(), PERIOD - 3 * MS, "as far as the interval allows, no further");
        let restart = 40 * PERIOD + 1_000_000_000;
        let f = frame(&hold, restart, 5 * MS, 2 * MS);
        hold.record(restart, restart, f);
        assert_eq!(
            hold.lead(),
            PERIOD / 2 - 3 * MS,
            "a restarted schedule is a changed one: half the shorter interval"
        );
    }

    /// A relative schedule, as `paced` keeps: frame k starts `late(k)` after
    /// its planned start, is ready `render` after it started, and the next
    /// is planned `interval(k)` after that start. Returns the next planned start.
    fn run_relative(
        hold: &mut PresentHold,
        mut planned: Nanos,
        frames: std::ops::Range<u64>,
        render: Nanos,
        interval: impl Fn(u64) -> Nanos,
        late: impl Fn(u64) -> Nanos,
    ) -> Nanos {
        for k in frames {
            let started = planned + late(k);
            let f = frame(hold, planned, late(k) + render, 2 * MS);
            hold.record(planned, started, f);
            planned = started + interval(k);
        }
        planned
    }

    #[test]
    fn a_relative_schedule_at_its_floor_is_steady_whatever_the_wake_up_lateness() {
        let mut hold = PresentHold::new();
        run_relative(&mut hold, 0, 0..60, 8 * MS, |_| PERIOD, |k| (k % 7) * 50_000);
        // Set at the third frame (8 ms + 0.05 ms late + 1 ms margin) and kept:
        // later wakes up to 0.3 ms late stay within half the margin.
        assert_eq!(hold.lead(), 9_050_000, "more than half the interval: the schedule counts as steady");
    }

    #[test]
    fn while_a_relative_schedule_changes_its_interval_the_hold_stays_within_half_of_it() {
        let mut hold = PresentHold::new();
        let planned = run_relative(&mut hold, 0, 0..60, 9 * MS, |_| PERIOD, |_| 0);
        assert_eq!(hold.lead(), 10 * MS, "steady: 9 ms to ready + margin, within the whole interval");
        // A stall grew the interval to 20 ms; it shrinks by 1 % a frame, as `paced` does.
        let grown = |k: u64| if k == 60 { 20 * MS } else { 19_800_000 };
        let planned = run_relative(&mut hold, planned, 60..62, 9 * MS, grown, |_| 0);
        assert_eq!(hold.lead(), PERIOD / 2 - 3 * MS, "half the shorter interval, less the call and the margin");
        run_relative(&mut hold, planned, 62..63, 9 * MS, grown, |_| 0);
        assert_eq!(hold.lead(), 19_800_000 / 2 - 3 * MS, "follows the shrinking interval: work stays under half");
    }

    #[test]
    fn reset_forgets_the_lead_and_the_history() {
        let mut hold = PresentHold::new();
        run(&mut hold, 0, 10, |_| 9 * MS);
        hold.reset();
        assert_eq!((hold.lead(), hold.changes()), (0, 0));
        assert_eq!(hold.target(PERIOD), PERIOD);
    }
}
