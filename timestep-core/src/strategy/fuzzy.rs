//! `fuzzy`: Glaiel's vsync-snapped accumulator ("How to make your game run at 60fps", after Slick Entertainment).
//!
//! A strict accumulator double-updates whenever vsync noise puts a frame a
//! hair under one tick. The fuzzy timer accepts anything *near* a tick as a
//! tick, so with vsync the display becomes the game's clock:
//!
//! ```text
//! variant  step while            subtract   then                       (60 Hz ticks)
//! 60-62    acc >  1/62 s         1/60 s     acc < 0 → 0
//! 59-61    acc >  1/61 s         1/59 s     acc < 0 → 0
//! final    acc >= 1/61 s         1/60 s     acc < 1/59 − 1/60 → 0
//! ```
//!
//! The windows scale with the tick rate (62/60 of it, and so on). The price:
//! the game runs at the display's speed when that is near the tick rate
//! (59.94 Hz → 0.1 % slow) and drifts badly with vsync off. So, as the article
//! did for *The End is Nigh*, frame times are measured ([`VsyncDetector`]) and
//! the timer falls back to strict stepping unless they look like a vsync near
//! the tick rate. [`StrategyConfig::vsync_detect`] off gives the article's raw timer.
//!
//! Measuring takes [`VSYNC_WINDOW`] frames. Until then the timer trusts the
//! display's reported refresh ([`FrameContext::refresh`]): fuzzy when it is
//! near the tick rate, strict when it is not or nobody knows. Starting strict
//! on a 60 Hz vsync cost 6 double updates in the first half second (the
//! glaiel model); starting fuzzy with vsync off costs nothing the
//! measurement does not fix 32 frames later.

use super::backlog::Backlog;
use super::{AnyStrategy, FrameContext, Order, Plan, Startup, Steps, Strategy, StrategyConfig, StrategyRow, View};
use crate::sorted_window::SortedWindow;
use crate::time::{Nanos, Rate};
use crate::vrr::VrrRange;
use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

/// Which of Glaiel's fuzzy timers to run.
///
/// ```
/// use timestep_core::strategy::FuzzyVariant;
/// let variant: FuzzyVariant = "60-62".parse().unwrap();
/// assert_eq!((variant, variant.to_string()), (FuzzyVariant::Fuzzy6062, "60-62".to_owned()));
/// assert_eq!(FuzzyVariant::default(), FuzzyVariant::Final);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum FuzzyVariant {
    /// `while (acc > 1/62) { update; acc -= 1/60; if (acc < 0) acc = 0; }`
    Fuzzy6062,
    /// `while (acc > 1/61) { update; acc -= 1/59; if (acc < 0) acc = 0; }`
    Fuzzy5961,
    /// `while (acc >= 1/61) { update; acc -= 1/60; if (acc < 1/59 - 1/60) acc = 0; }`
    #[default]
    Final,
}

impl FuzzyVariant {
    /// All variants, for help text.
    pub const ALL: [FuzzyVariant; 3] = [FuzzyVariant::Fuzzy6062, FuzzyVariant::Fuzzy5961, FuzzyVariant::Final];

    /// The name it parses from and prints as (`60-62`, `59-61`, `final`).
    pub fn name(self) -> &'static str {
        match self {
            FuzzyVariant::Fuzzy6062 => "60-62",
            FuzzyVariant::Fuzzy5961 => "59-61",
            FuzzyVariant::Final => "final",
        }
    }

    /// Parses a name: `60-62`, `59-61` or `final`.
    ///
    /// # Errors
    /// Anything but `60-62`, `59-61`, `final`.
    pub fn parse(text: &str) -> Result<FuzzyVariant, String> {
        FuzzyVariant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| format!("unknown fuzzy variant '{text}' (expected 60-62, 59-61 or final)"))
    }
}

impl core::str::FromStr for FuzzyVariant {
    type Err = String;

    /// As [`FuzzyVariant::parse`].
    fn from_str(text: &str) -> Result<FuzzyVariant, String> {
        FuzzyVariant::parse(text)
    }
}

impl fmt::Display for FuzzyVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The accumulator thresholds of one variant at one tick rate, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    /// Step while `acc > threshold` (or `>=` for `final`).
    threshold: i64,
    inclusive: bool,
    /// Subtracted per step.
    cost: i64,
    /// After a step, `acc` below this becomes 0.
    floor: i64,
}

impl Window {
    fn new(variant: FuzzyVariant, tick: Rate) -> Window {
        let period = |mul, div| tick.scaled(mul, div).period() as i64;
        let p = tick.period() as i64;
        match variant {
            FuzzyVariant::Fuzzy6062 => Window { threshold: period(62, 60), inclusive: false, cost: p, floor: 0 },
            FuzzyVariant::Fuzzy5961 => {
                Window { threshold: period(61, 60), inclusive: false, cost: period(59, 60), floor: 0 }
            }
            FuzzyVariant::Final => {
                Window { threshold: period(61, 60), inclusive: true, cost: p, floor: period(59, 60) - p }
            }
        }
    }

    fn due(&self, acc: i64) -> bool {
        if self.inclusive { acc >= self.threshold } else { acc > self.threshold }
    }
}

/// Frames the detector looks at.
pub const VSYNC_WINDOW: usize = 32;

/// What the frame times say about vsync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VsyncVerdict {
    /// Fewer than `VSYNC_WINDOW` frames seen since the last reset.
    Unknown,
    /// Frame times are steady at this median period, near the tick rate.
    Locked {
        /// The median frame time.
        period: Nanos,
    },
    /// Frame times are steady, but not near the tick rate (144 Hz, 50 Hz).
    OtherRate {
        /// The median frame time.
        period: Nanos,
    },
    /// Frame times scatter: vsync is not in effect (or the machine is too slow).
    Unsteady {
        /// The median frame time.
        period: Nanos,
    },
}

impl fmt::Display for VsyncVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |p: &Nanos| *p as f64 / 1e6;
        match self {
            VsyncVerdict::Unknown => write!(f, "measuring frame times"),
            VsyncVerdict::Locked { period } => {
                write!(f, "vsync near the tick rate (frames every {:.3} ms)", ms(period))
            }
            VsyncVerdict::OtherRate { period } => {
                write!(f, "steady frames every {:.3} ms, not near the tick rate", ms(period))
            }
            VsyncVerdict::Unsteady { period } => {
                write!(f, "frame times scatter (median {:.3} ms): no vsync", ms(period))
            }
        }
    }
}

/// The verdict is re-evaluated every this many frames (a quarter window):
/// often enough to follow a change within a few frames, rarely enough that
/// the simulator's millions of frames per second are not spent on medians.
pub const VSYNC_REEVALUATE: usize = VSYNC_WINDOW / 4;

/// Decides from recent frame times whether vsync paces the loop near the
/// tick rate: the median must lie within 58–62 Hz (scaled to the tick rate)
/// and 7 of 8 frames within ±3 % of the median (at least ±0.25 ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VsyncDetector {
    /// The frame periods near the tick rate, fastest to slowest: kept, as
    /// each end is a scaled rate (a 128-bit gcd) and its period, and every
    /// verdict asks (1.5 % of a simulated `fuzzy` frame's instructions).
    near_tick: (Nanos, Nanos),
    /// The last frame times, kept sorted for the median.
    deltas: SortedWindow<VSYNC_WINDOW>,
    /// Frame times seen since the last reset.
    seen: u64,
    last_now: Option<Nanos>,
    verdict: VsyncVerdict,
}

impl VsyncDetector {
    /// A detector for this tick rate.
    pub(crate) fn new(tick: Rate) -> VsyncDetector {
        VsyncDetector {
            near_tick: (tick.scaled(62, 60).period(), tick.scaled(58, 60).period()),
            deltas: SortedWindow::new(),
            seen: 0,
            last_now: None,
            verdict: VsyncVerdict::Unknown,
        }
    }

    /// Records the start of a frame.
    pub(crate) fn observe(&mut self, now: Nanos) {
        if let Some(last) = self.last_now {
            self.deltas.push(now.saturating_sub(last));
            self.seen += 1;
            if self.seen >= VSYNC_WINDOW as u64 && self.seen.is_multiple_of(VSYNC_REEVALUATE as u64) {
                self.verdict = self.evaluate();
            }
        }
        self.last_now = Some(self.last_now.map_or(now, |l| l.max(now)));
    }

    /// The current verdict (as of the last re-evaluation).
    pub(crate) fn verdict(&self) -> VsyncVerdict {
        self.verdict
    }

    /// Whether frames every `period` are near the tick rate: 58–62 Hz for a
    /// 60 Hz tick, scaled with it.
    pub(crate) fn is_near_tick(&self, period: Nanos) -> bool {
        let (fastest, slowest) = self.near_tick;
        (fastest..=slowest).contains(&period)
    }

    /// Whether to treat the display as a vsync near the tick rate: the
    /// measured verdict once there is one; until then, whether the display's
    /// reported `refresh` is near the tick rate (unknown: no).
    pub(crate) fn expects_vsync_near_tick(&self, refresh: Option<Rate>) -> bool {
        match self.verdict {
            VsyncVerdict::Locked { .. } => true,
            VsyncVerdict::Unknown => refresh.is_some_and(|r| self.is_near_tick(r.period())),
            VsyncVerdict::OtherRate { .. } | VsyncVerdict::Unsteady { .. } => false,
        }
    }

    fn evaluate(&self) -> VsyncVerdict {
        let sorted = self.deltas.sorted();
        let median = sorted[VSYNC_WINDOW / 2];
        let tolerance = (median * 3 / 100).max(250_000);
        // Those within the tolerance of the median: a run of the sorted values.
        let low = sorted.partition_point(|&d| d < median.saturating_sub(tolerance));
        let high = sorted.partition_point(|&d| d <= median.saturating_add(tolerance));
        let steady = high - low;
        if steady * 8 < VSYNC_WINDOW * 7 {
            return VsyncVerdict::Unsteady { period: median };
        }
        if self.is_near_tick(median) {
            VsyncVerdict::Locked { period: median }
        } else {
            VsyncVerdict::OtherRate { period: median }
        }
    }
}

/// `fuzzy`'s registry row.
pub(super) const ROW: StrategyRow = StrategyRow::inline(
    "fuzzy",
    "accumulator that accepts frames near one tick as one tick: vsync-smooth, but drifts without vsync",
    |config| AnyStrategy::Fuzzy(Fuzzy::new(config)),
)
.with_source("Glaiel's article (Slick Entertainment's fuzzy timer)")
.with_trades("the right speed without vsync: it drifts")
.with_startup(Startup::WaitsForFirstTick);

/// The fuzzy timer with optional vsync detection.
#[derive(Debug, Clone)]
pub(crate) struct Fuzzy {
    variant: FuzzyVariant,
    window: Window,
    detect: bool,
    strict_only: bool,
    max_steps: u32,
    lag_limit: i64,
    tick: Rate,
    detector: VsyncDetector,
    /// The fuzzy accumulator (ns), used while fuzzing.
    acc: i64,
    /// Exact accounting, used while strict.
    strict: Backlog,
    fuzzing: bool,
    last_now: Option<Nanos>,
    origin: Nanos,
    ticks: u64,
    /// The display's refresh as last reported, for the status line.
    reported: Option<Rate>,
    /// The display's VRR range, when it has one: no vsync to snap to.
    vrr: Option<VrrRange>,
}

impl Fuzzy {
    /// A fresh `fuzzy` from the config's variant and detection switch.
    pub(crate) fn new(config: &StrategyConfig) -> Fuzzy {
        Fuzzy {
            variant: config.fuzzy_variant,
            window: Window::new(config.fuzzy_variant, config.tick_rate),
            detect: config.vsync_detect,
            strict_only: config.fuzzy_strict,
            max_steps: config.step_cap(),
            lag_limit: i64::try_from(config.lag_limit_nanos()).unwrap_or(i64::MAX),
            tick: config.tick_rate,
            detector: VsyncDetector::new(config.tick_rate),
            acc: 0,
            strict: Backlog::new(config),
            fuzzing: false,
            last_now: None,
            origin: 0,
            ticks: 0,
            reported: None,
            vrr: None,
        }
    }

    #[cfg(test)]
    /// Whether the last frame used the fuzzy window (else strict stepping).
    pub(crate) fn is_fuzzing(&self) -> bool {
        self.fuzzing
    }

    #[cfg(test)]
    /// What vsync detection currently concludes.
    pub(crate) fn verdict(&self) -> VsyncVerdict {
        self.detector.verdict()
    }

    fn wants_fuzz(&self, refresh: Option<Rate>) -> bool {
        if self.strict_only {
            return false;
        }
        // A VRR panel shows frames when they come: their intervals are the
        // loop's own, and snapping them to ticks would run the game at its frame rate.
        !self.detect || (self.vrr.is_none() && self.detector.expects_vsync_near_tick(refresh))
    }

    fn fuzzy_steps(&mut self, delta: Nanos) -> u32 {
        self.acc = self.acc.saturating_add(i64::try_from(delta).unwrap_or(i64::MAX));
        if self.acc > self.lag_limit {
            self.acc = 0;
        }
        let mut steps = 0;
        while steps < self.max_steps && self.window.due(self.acc) {
            steps += 1;
            self.acc -= self.window.cost;
            if self.acc < self.window.floor {
                self.acc = 0;
            }
        }
        steps
    }
}

impl Strategy for Fuzzy {
    fn reset(&mut self, config: &StrategyConfig) {
        *self = Fuzzy::new(config);
    }

    /// Fuzzing, the clock less the accumulator (the game follows vsync, not
    /// the tick grid: its ticks' own times drift from the clock); strict, the
    /// exact accounting's.
    fn last_tick(&self) -> Option<Nanos> {
        let last_now = self.last_now?;
        if self.fuzzing {
            Some(last_now.saturating_sub(u64::try_from(self.acc.max(0)).unwrap_or(0)))
        } else {
            self.strict.last_tick()
        }
    }

    fn continue_from(&mut self, last_tick: Nanos) {
        (self.origin, self.last_now) = (last_tick, Some(last_tick));
        self.strict.continue_from(last_tick);
    }

    fn set_vrr(&mut self, vrr: Option<VrrRange>) {
        self.vrr = vrr;
    }

    fn begin(&mut self, ctx: &FrameContext) -> Plan {
        let now = self.last_now.map_or(ctx.now, |l| l.max(ctx.now));
        let delta = self.last_now.map_or(0, |l| now - l);
        if self.last_now.is_none() {
            self.origin = now;
            self.strict.advance(now);
        }
        self.last_now = Some(now);
        self.detector.observe(now);
        self.reported = ctx.refresh;
        let fuzz = self.wants_fuzz(ctx.refresh);
        let steps = if fuzz {
            if !self.fuzzing {
                // Start the fuzzy window in phase with this frame: carrying the
                // strict leftover over would make the switch itself a double
                // update, and once vsync is the clock the fraction means nothing.
                self.acc = 0;
            }
            self.fuzzy_steps(delta)
        } else {
            if self.fuzzing {
                // Hand the fuzzy remainder to the exact accounting.
                self.strict.resync(now.saturating_sub(u64::try_from(self.acc.max(0)).unwrap_or(0)));
                self.strict.advance(now)
            } else {
                self.strict.advance(now)
            }
        };
        self.fuzzing = fuzz;
        self.ticks += u64::from(steps);
        Plan {
            order: Order::StepsThenRender(Steps::Fixed(steps)),
            view: View::Latest,
            content_time: self.origin.saturating_add(self.tick.tick_time(self.ticks)),
        }
    }

    fn status(&self) -> String {
        let mode = if self.fuzzing { format!("fuzzy {}", self.variant) } else { "strict".to_owned() };
        if self.strict_only {
            format!("{mode} (forced strict)")
        } else if let Some(vrr) = self.vrr.filter(|_| self.detect) {
            format!("{mode}: {} display, frames are shown when ready: no vsync to snap to", vrr.label())
        } else if self.detect {
            let reported = self.reported.map_or_else(|| "unknown".to_owned(), |r| r.to_string());
            format!("{mode}: {} (display reports {reported})", self.detector.verdict())
        } else {
            format!("{mode} (vsync detection off)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn run(config: &StrategyConfig, deltas: impl IntoIterator<Item = Nanos>) -> (Fuzzy, Vec<u32>) {
        run_on(None, config, deltas)
    }

    /// Frames `deltas` apart on a display that reports `refresh`; updates per frame.
    fn run_on(
        refresh: Option<Rate>,
        config: &StrategyConfig,
        deltas: impl IntoIterator<Item = Nanos>,
    ) -> (Fuzzy, Vec<u32>) {
        let mut s = Fuzzy::new(config);
        let mut now = 1_000_000;
        let mut counts = vec![s.begin(&FrameContext { now, refresh }).order.steps_before_render().count()];
        for d in deltas {
            now += d;
            counts.push(s.begin(&FrameContext { now, refresh }).order.steps_before_render().count());
        }
        (s, counts)
    }

    /// 60 Hz vsync with ±0.2 ms of wake-up noise: a strict accumulator
    /// double-updates on it, a fuzzy one never does.
    fn noisy_60_hz(frames: usize) -> impl Iterator<Item = Nanos> {
        [16_466_667, 16_866_667].into_iter().cycle().take(frames)
    }

    #[test]
    fn a_display_reporting_a_refresh_near_the_tick_rate_is_fuzzy_from_the_first_frame() {
        for hz in [Rate::from_hz(60), Rate::new(60000, 1001).unwrap()] {
            let (s, counts) = run_on(Some(hz), &StrategyConfig::default(), noisy_60_hz(VSYNC_WINDOW - 1));
            assert_eq!(counts[0], 0, "the first frame sets the origin");
            assert!(counts[1..].iter().all(|&c| c == 1), "{hz}: {counts:?}");
            assert!(s.is_fuzzing());
            assert_eq!(s.verdict(), VsyncVerdict::Unknown, "still measuring: the display's word is taken");
        }
    }

    #[test]
    fn the_measurement_confirms_a_reported_60_hz_without_a_double_update() {
        let (s, counts) = run_on(Some(Rate::from_hz(60)), &StrategyConfig::default(), noisy_60_hz(4 * VSYNC_WINDOW));
        assert!(counts[1..].iter().all(|&c| c == 1), "{counts:?}");
        assert!(s.is_fuzzing());
        assert!(matches!(s.verdict(), VsyncVerdict::Locked { .. }), "{:?}", s.verdict());
    }

    /// Counts steps: the virtual monitor's figures do not depend on the world.
    #[cfg(feature = "monitor")]
    struct StepCounter(u64);

    #[cfg(feature = "monitor")]
    impl crate::host::Simulation for StepCounter {
        fn step(&mut self, _dt: Nanos) {
            self.0 += 1;
        }
    }

    #[cfg(feature = "monitor")]
    #[test]
    fn the_warm_up_on_the_glaiel_60_hz_display_has_no_double_update() {
        use crate::monitor::{Preset, RunSpec, Stop, simulate};
        // 96 updates: the 32-frame warm-up, its verdict and two more windows.
        // Starting strict, fuzzy doubled 6 times in the warm-up, and auto
        // (interpolated until measured) 6 times and once more at its switch.
        for strategy in [crate::StrategyId::Fuzzy, crate::StrategyId::Auto] {
            let spec = RunSpec { stop: Stop::Updates(96), ..RunSpec::new(strategy, Preset::Glaiel) };
            let t = simulate(&spec, &mut StepCounter(0)).metrics.totals();
            assert!(t.updates >= 96, "{strategy}: {t:?}");
            assert_eq!(t.double_updates, 0, "{strategy}: {t:?}");
            assert_eq!(t.repeated_frames, 0, "{strategy}: {t:?}");
        }
    }

    #[test]
    fn without_a_reported_refresh_the_warm_up_is_strict_and_double_updates() {
        let (_, counts) = run(&StrategyConfig::default(), noisy_60_hz(VSYNC_WINDOW));
        assert!(counts.contains(&2), "a strict accumulator on vsync noise: {counts:?}");
    }

    #[test]
    fn a_display_reporting_144_hz_is_stepped_strictly_from_the_first_frame() {
        let refresh = Rate::from_hz(144);
        let (s, counts) = run_on(Some(refresh), &StrategyConfig::default(), std::iter::repeat_n(refresh.period(), 144));
        assert!(!s.is_fuzzing());
        // 144 floored periods are 64 ns short of a second: exact stepping runs 59 ticks.
        let elapsed = refresh.period() * 144;
        assert_eq!(u64::from(counts.iter().sum::<u32>()), Rate::from_hz(60).ticks_in(elapsed), "every whole tick");
    }

    #[test]
    fn a_display_reporting_60_hz_without_vsync_falls_back_to_strict_once_measured() {
        let (s, counts) = run_on(Some(Rate::from_hz(60)), &StrategyConfig::default(), [5_000_000; 601]);
        assert!(!s.is_fuzzing(), "{}", s.status());
        assert!(matches!(s.verdict(), VsyncVerdict::OtherRate { .. }), "{:?}", s.verdict());
        // Fuzzy on 5 ms frames steps about every 16.67 ms of accumulator and
        // hands its remainder to the exact accounting. Its window may zero
        // under 0.3 ms a step in the warm-up (9 steps), well under the 5 ms
        // that 3.005 s lie past tick 180: no whole tick is lost.
        assert_eq!(counts.iter().sum::<u32>(), 180, "601 frames of 5 ms are 3.005 s, 180 ticks");
    }

    #[test]
    fn a_frame_slightly_shorter_than_a_tick_still_runs_one_update() {
        let config =
            StrategyConfig { vsync_detect: false, fuzzy_variant: FuzzyVariant::Fuzzy6062, ..Default::default() };
        // 16.5 ms frames: a strict timer would run 0 updates now and then.
        let (_, counts) = run(&config, [16_500_000; 100]);
        assert!(counts[1..].iter().all(|&c| c == 1), "pattern {counts:?}");
    }

    #[test]
    fn the_59_61_window_absorbs_a_59_94_hz_display() {
        let config =
            StrategyConfig { vsync_detect: false, fuzzy_variant: FuzzyVariant::Fuzzy5961, ..Default::default() };
        let period = Rate::new(60000, 1001).unwrap().period();
        let (_, counts) = run(&config, std::iter::repeat_n(period, 5000));
        assert!(counts[1..].iter().all(|&c| c == 1), "a double update slipped through");
    }

    #[test]
    fn the_60_62_window_double_updates_about_every_thousand_frames_at_59_94_hz() {
        let config =
            StrategyConfig { vsync_detect: false, fuzzy_variant: FuzzyVariant::Fuzzy6062, ..Default::default() };
        let period = Rate::new(60000, 1001).unwrap().period();
        let (_, counts) = run(&config, std::iter::repeat_n(period, 10_000));
        let doubles = counts.iter().filter(|&&c| c > 1).count();
        assert!((8..=12).contains(&doubles), "{doubles} doubles");
    }

    #[test]
    fn detection_falls_back_to_strict_when_frames_are_far_from_the_tick() {
        let config = StrategyConfig::default();
        let (s, counts) = run(&config, [5_000_000; 600]);
        assert!(!s.is_fuzzing());
        assert!(matches!(s.verdict(), VsyncVerdict::OtherRate { .. }), "{:?}", s.verdict());
        let updates: u32 = counts.iter().sum();
        assert_eq!(updates, 180, "600 frames of 5 ms = 3 s = 180 ticks exactly");
    }

    #[test]
    fn detection_locks_on_a_steady_60_hz_vsync() {
        let (s, _) = run(&StrategyConfig::default(), [16_666_667; 100]);
        assert!(s.is_fuzzing(), "{}", s.status());
    }

    #[test]
    fn the_strict_switch_never_fuzzes() {
        let config = StrategyConfig { fuzzy_strict: true, ..Default::default() };
        let (s, _) = run(&config, [16_666_667; 100]);
        assert!(!s.is_fuzzing());
    }

    #[test]
    fn the_verdict_is_the_one_of_the_median_by_selection_on_every_window() {
        // The definition, computed from scratch on the last 32 frame times.
        let reference = |d: &VsyncDetector, window: &[Nanos]| {
            let mut sorted = window.to_vec();
            let (_, &mut median, _) = sorted.select_nth_unstable(VSYNC_WINDOW / 2);
            let tolerance = (median * 3 / 100).max(250_000);
            let steady = window.iter().filter(|x| x.abs_diff(median) <= tolerance).count();
            if steady * 8 < VSYNC_WINDOW * 7 {
                VsyncVerdict::Unsteady { period: median }
            } else if d.is_near_tick(median) {
                VsyncVerdict::Locked { period: median }
            } else {
                VsyncVerdict::OtherRate { period: median }
            }
        };
        let mut rng = crate::rng::SplitMix64::new(3);
        let mut d = VsyncDetector::new(Rate::from_hz(60));
        let (mut now, mut times) = (0, Vec::new());
        let mut seen = [0; 3];
        d.observe(now);
        for i in 0..4_000 {
            // Phases of steady 60 Hz, steady 144 Hz and scatter, with noise and outliers.
            let base: Nanos = [16_666_667, 6_944_444, 12_000_000][i / 200 % 3];
            let noise = rng.range_i64(-400_000, 400_000) * i64::from(i % 7 == 0) + rng.range_i64(-90_000, 90_000);
            let spread = if i / 200 % 3 == 2 { rng.range_i64(0, 10_000_000) } else { 0 };
            let delta = base.saturating_add_signed(noise + spread);
            now += delta;
            times.push(delta);
            d.observe(now);
            if times.len() >= VSYNC_WINDOW && times.len().is_multiple_of(VSYNC_REEVALUATE) {
                let expected = reference(&d, &times[times.len() - VSYNC_WINDOW..]);
                assert_eq!(d.verdict(), expected, "after {} frames", times.len());
                seen[match expected {
                    VsyncVerdict::Locked { .. } => 0,
                    VsyncVerdict::OtherRate { .. } => 1,
                    _ => 2,
                }] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n > 20), "every verdict was reached: {seen:?}");
    }

    #[test]
    fn variant_names_round_trip() {
        for v in FuzzyVariant::ALL {
            assert_eq!(FuzzyVariant::parse(v.name()), Ok(v));
        }
        assert!(FuzzyVariant::parse("61-63").is_err());
    }
}
