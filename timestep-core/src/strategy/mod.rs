//! Loop strategies: plain state machines that turn time into decisions.
//!
//! A strategy never reads a clock and never sleeps. The loop driver
//! ([`crate::host`]) feeds it the time at three points of a frame and carries
//! out what it returns:
//!
//! ```text
//!   now ──► begin() ──► Plan { order, view, content_time }
//!             │
//!             ├─ Order::StepsThenRender(steps):  run steps ─► render(view) ─► present
//!             └─ Order::RenderThenSteps:         render(view) ─► present ─► after_render(now) ─► run steps
//!   now ──► end() ──► Wake { at }     (a game sleeps / WaitUntil; the simulator jumps its clock)
//! ```
//!
//! The same state machine runs in a game's loop and in the virtual monitor, so
//! a simulated figure is a figure about the code a game runs. Switching
//! strategy at run time keeps the world and the tick phase; only the
//! strategy's own timing state is new.

mod auto;
mod backlog;
mod fixed_fps;
mod fixed_step;
mod fuzzy;
mod lockstep;
mod paced;
// proptest does not build for wasm32 (its getrandom has no wasm_js there).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod props;
mod row;
mod snapped;
mod startup;
mod variable;
mod vrr_paced;

pub use fuzzy::FuzzyVariant;
pub use row::{StrategyInfo, StrategyRow};
pub use startup::Startup;

use auto::Auto;
use fixed_fps::FixedFps;
use fixed_step::FixedStep;
use fuzzy::Fuzzy;
use lockstep::Lockstep;
use paced::Paced;
use snapped::Snapped;
use variable::Variable;

use crate::time::{Nanos, Rate, duration_to_nanos, nanos_to_duration};
use crate::vrr::VrrRange;
use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::time::Duration;

/// The built-in strategies, in key order (`1`–`9`, `0`, then `Shift+1`…): the
/// registry. Each strategy's name, summary, trades and traits are a `const`
/// row in its own file; this list and [`StrategyId::row`] are the only places
/// that name them. A new strategy is its file, its `mod` line above and one
/// line here: `StrategyId::Custom(&its_file::ROW),`.
pub const REGISTRY: &[StrategyId] = &[
    StrategyId::Lockstep,
    StrategyId::FixedFps,
    StrategyId::Variable,
    StrategyId::CatchUp,
    StrategyId::Interpolated,
    StrategyId::Extrapolated,
    StrategyId::Fuzzy,
    StrategyId::Snapped,
    StrategyId::Paced,
    StrategyId::Auto,
];

/// The stable ids of the strategies: the ten built in, in key order
/// (`1`–`0`), and [`StrategyId::Custom`] for any other, such as a game's own
/// loop (a [`Strategy`] and its [`StrategyRow`]).
///
/// ```
/// use timestep_core::StrategyId;
/// let id: StrategyId = "catch-up".parse().unwrap();
/// assert_eq!((id, id.to_string()), (StrategyId::CatchUp, "catch-up".to_owned()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StrategyId {
    /// One fixed step per rendered frame.
    Lockstep,
    /// Step + render, then wait for the next tick (deWiTTERS loop 1).
    FixedFps,
    /// One step of the measured frame delta.
    Variable,
    /// Accumulator with fixed steps, renders the latest state.
    CatchUp,
    /// Accumulator with fixed steps, renders lerp(previous, current, alpha).
    Interpolated,
    /// Accumulator with fixed steps, renders current + velocity × leftover.
    Extrapolated,
    /// Glaiel's vsync-snapped fuzzy accumulator.
    Fuzzy,
    /// Integer deltas snapped to the refresh, averaged, interpolated.
    Snapped,
    /// An adaptive render interval: render first, then step to just past the frame's end, then wait.
    Paced,
    /// Picks fuzzy lockstep or interpolation from what it measures.
    Auto,
    /// Any other strategy: its row says its name and builds it. Ids compare,
    /// order and hash by name.
    Custom(&'static StrategyRow),
}

/// The first ten of a list, for [`StrategyId::ALL`].
const fn first_ten(list: &[StrategyId]) -> [StrategyId; 10] {
    let mut ten = [StrategyId::Lockstep; 10];
    let mut i = 0;
    while i < ten.len() {
        ten[i] = list[i];
        i += 1;
    }
    ten
}

impl StrategyId {
    /// The ten built in, in key order: the registry's first ten.
    pub const ALL: [StrategyId; 10] = first_ten(REGISTRY);

    /// The strategy's row: its name, summary, trades and how it is built.
    pub fn row(self) -> &'static StrategyRow {
        match self {
            StrategyId::Lockstep => &lockstep::ROW,
            StrategyId::FixedFps => &fixed_fps::ROW,
            StrategyId::Variable => &variable::ROW,
            StrategyId::CatchUp => &fixed_step::CATCH_UP,
            StrategyId::Interpolated => &fixed_step::INTERPOLATED,
            StrategyId::Extrapolated => &fixed_step::EXTRAPOLATED,
            StrategyId::Fuzzy => &fuzzy::ROW,
            StrategyId::Snapped => &snapped::ROW,
            StrategyId::Paced => &paced::ROW,
            StrategyId::Auto => &auto::ROW,
            StrategyId::Custom(row) => row,
        }
    }

    /// Whether the world advances in fixed steps of the tick (physics and
    /// replays the same at any frame rate): all but `variable`, which steps
    /// by the measured frame time.
    pub fn keeps_a_fixed_step(self) -> bool {
        self.row().keeps_a_fixed_step
    }

    /// Name, summary and source: the strategy's row.
    pub fn info(self) -> &'static StrategyInfo {
        self.row()
    }

    /// The stable name (`catch-up`).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Whether the strategy paces itself: it decides when frames start (its
    /// frames return a wake time) instead of taking them as the display
    /// gives them. A host that starts frames on its own schedule (lanes fed
    /// another loop's frames) cannot show such a strategy faithfully.
    ///
    /// ```
    /// use timestep_core::StrategyId;
    /// assert!(StrategyId::FixedFps.paces_itself() && StrategyId::Paced.paces_itself());
    /// assert!(!StrategyId::Interpolated.paces_itself());
    /// ```
    pub fn paces_itself(self) -> bool {
        self.row().paces_itself
    }

    /// Whether the picture moves from the first frames or waits for the first tick.
    pub fn startup(self) -> Startup {
        self.row().startup
    }

    /// Looks a strategy of the [`REGISTRY`] up by its name.
    ///
    /// # Errors
    /// An unknown name; the message lists the valid ones.
    pub fn parse(name: &str) -> Result<StrategyId, UnknownStrategy> {
        StrategyId::parse_among(REGISTRY, name)
    }

    /// Looks a strategy of `known` up by its name (case and blanks around it do not matter).
    ///
    /// # Errors
    /// An unknown name; the message lists the names of `known`.
    pub fn parse_among(known: &[StrategyId], name: &str) -> Result<StrategyId, UnknownStrategy> {
        let name = name.trim();
        known.iter().copied().find(|id| id.name().eq_ignore_ascii_case(name)).ok_or_else(|| UnknownStrategy {
            name: name.to_owned(),
            expected: known.iter().map(|id| id.name()).collect::<Vec<_>>().join(", "),
        })
    }

    /// A fresh strategy of this kind.
    pub(crate) fn build(self, config: &StrategyConfig) -> AnyStrategy {
        self.row().build(config)
    }
}

impl fmt::Display for StrategyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for StrategyId {
    type Err = UnknownStrategy;

    /// As [`StrategyId::parse`]: `"catch-up".parse()`.
    fn from_str(name: &str) -> Result<StrategyId, UnknownStrategy> {
        StrategyId::parse(name)
    }
}

/// An unknown strategy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("unknown strategy '{name}' (expected one of: {expected})")]
pub struct UnknownStrategy {
    /// The name asked for.
    pub name: String,
    /// The known names, comma-separated.
    pub expected: String,
}

/// The default longest catch-up of one frame, in ticks of
/// [`MAX_STEPS_REFERENCE`] (deWiTTERS' `MAX_FRAMESKIP` at 60 Hz): 1/6 s.
/// The picture may drop to 6 fps before the game slows down, at every tick
/// rate: 10 steps at 60 Hz, 5 at 30 Hz, 167 at 1000 Hz, one at 6 Hz and
/// below. See [`StrategyConfig::step_cap`].
pub const DEFAULT_MAX_STEPS: u32 = 10;

/// The tick rate `max_steps` is counted in: `max_steps` ticks of 60 Hz are
/// the longest frame the game keeps its speed through, whatever the tick rate.
pub const MAX_STEPS_REFERENCE: Rate = Rate::from_hz(60);

/// The default oldest backlog kept: the frame-rate answers drop everything older than a
/// second (a suspended laptop, a debugger break) instead of replaying it.
/// Below 3 Hz ticks the lag limit is longer (3 ticks): see [`StrategyConfig::lag_limit`].
pub const DEFAULT_MAX_LAG: Duration = Duration::from_secs(1);

/// Ticks the lag limit keeps beyond the step cap: before a frame's steps the
/// backlog holds the leftover of the last tick (under one) plus the frame's
/// own time (up to [`StrategyConfig::step_cap`] ticks on a machine that keeps
/// up); one more spares a frame that overran by under a tick, which later
/// frames catch up.
pub(crate) const LAG_LIMIT_SPARE_TICKS: u64 = 2;

/// The default largest variable step; the frame-rate answers treat anything over a second
/// as absurd (and so does `variable`, which then steps one tick period).
pub const DEFAULT_MAX_VARIABLE_DT: Duration = Duration::from_secs(1);

/// Settings every strategy is built from. Strategies read what they need.
/// Built from [`StrategyConfig::default`] and the `with_` methods; the
/// fields say what is set. There is one default: a game's
/// `Pacer::new(id, rate)` runs `StrategyConfig::default().with_tick_rate(rate)`,
/// as the virtual monitor does, at every tick rate.
///
/// ```
/// use std::time::Duration;
/// use timestep_core::strategy::FuzzyVariant;
/// use timestep_core::{Rate, StrategyConfig};
///
/// let config = StrategyConfig::default()
///     .with_tick_rate(Rate::from_hz(120))
///     .with_fuzzy_variant(FuzzyVariant::Fuzzy5961)
///     .with_max_lag(Duration::from_millis(250));
/// assert_eq!((config.tick_rate, config.step_cap()), (Rate::from_hz(120), 20), "1/6 s of 120 Hz ticks");
/// assert_eq!(config.lag_limit(), Duration::from_millis(250), "more than 22 ticks of 120 Hz");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StrategyConfig {
    /// The fixed simulation rate (default 60 Hz).
    pub tick_rate: Rate,
    /// The longest catch-up of one frame, in ticks of 60 Hz (10: 1/6 s):
    /// see [`StrategyConfig::step_cap`] for it in ticks of `tick_rate`.
    pub max_steps: u32,
    /// Backlog older than this is dropped (the game slows down instead of
    /// freezing), but never one frame's due ticks: see [`StrategyConfig::lag_limit`].
    pub max_lag: Duration,
    /// `variable`: deltas above this are replaced by one tick period.
    pub max_variable_dt: Duration,
    /// `fuzzy` (and `auto`'s fuzzy branch): which of Glaiel's timers.
    pub fuzzy_variant: FuzzyVariant,
    /// `fuzzy`: measure frame times and fall back to strict stepping when
    /// they do not look like a vsync near the tick rate. Off reproduces the
    /// article's raw timer.
    pub vsync_detect: bool,
    /// `fuzzy`: never fuzz, always strict (the speedrunners' switch).
    pub fuzzy_strict: bool,
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig {
            tick_rate: Rate::from_hz(60),
            max_steps: DEFAULT_MAX_STEPS,
            max_lag: DEFAULT_MAX_LAG,
            max_variable_dt: DEFAULT_MAX_VARIABLE_DT,
            fuzzy_variant: FuzzyVariant::Final,
            vsync_detect: true,
            fuzzy_strict: false,
        }
    }
}

impl StrategyConfig {
    /// The same settings at `tick_rate`: the step cap follows, as the same
    /// catch-up time in ticks of the new rate ([`StrategyConfig::step_cap`]).
    ///
    /// ```
    /// use timestep_core::{Rate, StrategyConfig};
    /// let config = StrategyConfig::default().with_tick_rate(Rate::from_hz(2));
    /// assert_eq!((config.step_cap(), config.lag_limit().as_millis()), (1, 1500), "a 4 s stall is dropped, not replayed");
    /// ```
    pub fn with_tick_rate(self, tick_rate: Rate) -> StrategyConfig {
        StrategyConfig { tick_rate, ..self }
    }

    /// A frame catches up at most `max_steps` ticks of 60 Hz (in ticks of the tick rate, at least one).
    pub fn with_max_steps(self, max_steps: u32) -> StrategyConfig {
        StrategyConfig { max_steps, ..self }
    }

    /// A backlog older than `max_lag` is dropped (but never one frame's due ticks).
    pub fn with_max_lag(self, max_lag: Duration) -> StrategyConfig {
        StrategyConfig { max_lag, ..self }
    }

    /// `variable`: a frame time above `max_dt` steps one tick period instead.
    pub fn with_max_variable_dt(self, max_dt: Duration) -> StrategyConfig {
        StrategyConfig { max_variable_dt: max_dt, ..self }
    }

    /// `fuzzy` (and `auto`'s fuzzy branch): which of Glaiel's timers.
    pub fn with_fuzzy_variant(self, fuzzy_variant: FuzzyVariant) -> StrategyConfig {
        StrategyConfig { fuzzy_variant, ..self }
    }

    /// `fuzzy`: measure frame times and fall back to strict stepping without
    /// a vsync near the tick rate (on by default; off is the article's raw timer).
    pub fn with_vsync_detect(self, vsync_detect: bool) -> StrategyConfig {
        StrategyConfig { vsync_detect, ..self }
    }

    /// `fuzzy`: never fuzz, always strict.
    pub fn with_fuzzy_strict(self, fuzzy_strict: bool) -> StrategyConfig {
        StrategyConfig { fuzzy_strict, ..self }
    }

    /// The most fixed steps a frame runs: as many ticks as `max_steps` ticks
    /// of [`MAX_STEPS_REFERENCE`] last, rounded up, and at least one. By
    /// default a frame catches up at most 1/6 s at any tick rate: 10 steps
    /// at 60 Hz, 5 at 30 Hz, 167 at 1000 Hz (a cap of 10 there ran the game
    /// at 60 % speed on a machine with time to spare), one at 2 Hz (a cap of
    /// 10 there replayed a 4 s stall as 8 ticks in one frame).
    pub fn step_cap(&self) -> u32 {
        let steps = u128::from(self.max_steps);
        let (tick, reference) = (self.tick_rate, MAX_STEPS_REFERENCE);
        let num = steps * u128::from(tick.num()) * u128::from(reference.den());
        let den = u128::from(tick.den()) * u128::from(reference.num());
        u32::try_from(num.div_ceil(den)).unwrap_or(u32::MAX).max(1)
    }

    /// The backlog beyond which every strategy treats lost time as a stall
    /// and drops it instead of replaying it: `max_lag`, but at least
    /// `step_cap + 2` tick periods, so that no tick a keeping-up machine owes
    /// is ever dropped (1 s at 3 Hz and up by default; 3 s at 1 Hz).
    pub fn lag_limit(&self) -> Duration {
        nanos_to_duration(self.lag_limit_nanos())
    }

    /// [`StrategyConfig::lag_limit`] in the strategies' nanoseconds.
    pub(crate) fn lag_limit_nanos(&self) -> Nanos {
        let ticks = u64::from(self.step_cap()) + LAG_LIMIT_SPARE_TICKS;
        duration_to_nanos(self.max_lag).max(self.tick_rate.tick_time(ticks))
    }
}

/// What the strategy is told at the start of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FrameContext {
    /// The clock at the start of the frame.
    pub now: Nanos,
    /// The display refresh rate, if anybody knows it (winit's report, the
    /// virtual monitor's setting). `None` where the platform reports none.
    pub refresh: Option<Rate>,
}

impl FrameContext {
    /// The start of a frame at `now`, on a display of `refresh` if known.
    pub fn new(now: Nanos, refresh: Option<Rate>) -> FrameContext {
        FrameContext { now, refresh }
    }
}

/// How many simulation steps to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steps {
    /// `n` steps of one tick period each.
    Fixed(u32),
    /// One step of this many nanoseconds (`variable`).
    Variable(Nanos),
}

impl Steps {
    /// No steps.
    pub const NONE: Steps = Steps::Fixed(0);

    /// How many world updates this is (a variable step counts as one).
    pub fn count(self) -> u32 {
        match self {
            Steps::Fixed(n) => n,
            Steps::Variable(0) => 0,
            Steps::Variable(_) => 1,
        }
    }
}

/// Which picture of the world to draw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum View {
    /// The current state as it is.
    Latest,
    /// `lerp(previous, current, alpha)`, `alpha` in [0, 1].
    Interpolate {
        /// The fraction of a tick between the previous and current state.
        alpha: f64,
    },
    /// `current + velocity × ahead` (prediction).
    Extrapolate {
        /// How far past the current state to predict.
        ahead: Nanos,
    },
}

/// In which order a frame steps and renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Run these steps, then render and present (every strategy but `paced`).
    StepsThenRender(Steps),
    /// Render and present first, then run the steps that
    /// [`Strategy::after_render`] decides from the clock after the present (`paced`).
    RenderThenSteps,
}

impl Order {
    /// The steps run before the render: none for [`Order::RenderThenSteps`].
    pub fn steps_before_render(self) -> Steps {
        match self {
            Order::StepsThenRender(steps) => steps,
            Order::RenderThenSteps => Steps::NONE,
        }
    }
}

/// The decision taken at the start of a frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Step then render, or render then step.
    pub order: Order,
    /// What to draw.
    pub view: View,
    /// The clock time the drawn picture depicts, in the strategy's idea of
    /// time: e.g. interpolation at alpha 0.25 depicts the previous tick's
    /// time plus a quarter tick. Metrics compare it with the display time.
    pub content_time: Nanos,
}

/// When the next frame should start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Wake {
    /// `None`: as soon as the present returns (vsync or the GPU paces the loop).
    pub at: Option<Nanos>,
}

impl Wake {
    /// The next frame starts at `at` on the strategy's clock, or as soon as
    /// the present returns (`None`).
    pub fn at(at: Option<Nanos>) -> Wake {
        Wake { at }
    }
}

/// A loop strategy: a state machine fed the time at three points of a
/// frame (see the module docs for the call order). The ten of the crate
/// implement it, and so can a game's own loop outside this crate: give it a
/// [`StrategyRow`] and run [`StrategyId::Custom`] of that row anywhere a
/// strategy id goes (a [`crate::Pacer`], the virtual monitor, a trace's
/// replay). Only [`Strategy::begin`] and [`Strategy::reset`] are required.
/// A strategy is `Clone` (a [`crate::Pacer`] is), which gives it
/// [`CloneStrategy`].
///
/// ```
/// use timestep_core::strategy::{FrameContext, Order, Plan, Steps, Strategy, StrategyRow};
/// use timestep_core::{Pacer, Rate, StrategyConfig, StrategyId, View};
///
/// /// One step per frame, the latest state drawn: `lockstep`, written by a game.
/// #[derive(Clone, Debug)]
/// struct EveryFrame { tick: u64, ticks: u64 }
///
/// impl Strategy for EveryFrame {
///     fn begin(&mut self, ctx: &FrameContext) -> Plan {
///         self.ticks += 1;
///         Plan { order: Order::StepsThenRender(Steps::Fixed(1)), view: View::Latest, content_time: self.ticks * self.tick }
///     }
///     fn reset(&mut self, config: &StrategyConfig) {
///         *self = EveryFrame { tick: config.tick_rate.period(), ticks: 0 };
///     }
/// }
///
/// const EVERY_FRAME: StrategyRow = StrategyRow::new("every-frame", "one step per frame", |config| {
///     Box::new(EveryFrame { tick: config.tick_rate.period(), ticks: 0 })
/// });
/// let mut pacer = Pacer::new(StrategyId::Custom(&EVERY_FRAME), Rate::from_hz(60));
/// assert_eq!(pacer.strategy().name(), "every-frame");
/// assert_eq!(pacer.advance_at(0).updates().len(), 1);
/// ```
pub trait Strategy: Send + fmt::Debug + CloneStrategy {
    /// Forgets all timing state; the next `begin` is treated as the first
    /// frame. Called on a resync and when the tick rate changes (with the new config).
    fn reset(&mut self, config: &StrategyConfig);

    /// The clock time of the latest tick the world has run, the tick phase
    /// a switch of strategy keeps (`None` before the first frame). For a
    /// timer that keeps a remainder (`fuzzy`, `snapped`): the clock less it.
    fn last_tick(&self) -> Option<Nanos> {
        None
    }

    /// Starts a fresh strategy in phase with the one it replaces, whose
    /// latest tick was at `last_tick`: the next falls due a period later,
    /// and the first frame runs the ticks due by then.
    fn continue_from(&mut self, _last_tick: Nanos) {}

    /// The start of a frame: how many steps, and what to draw.
    fn begin(&mut self, ctx: &FrameContext) -> Plan;

    /// Called only after an [`Order::RenderThenSteps`] plan: the steps to run
    /// after rendering, given the clock after render and present.
    fn after_render(&mut self, _now: Nanos) -> Steps {
        Steps::NONE
    }

    /// The end of a frame: when the next one should start.
    fn end(&mut self, _now: Nanos) -> Wake {
        Wake::default()
    }

    /// The display is a VRR panel with this range (`None`: a fixed grid, or
    /// unknown). Called after every build and reset, and when it changes.
    fn set_vrr(&mut self, _vrr: Option<VrrRange>) {}

    /// The frame's picture was rendered at `now`, before any hold of its present.
    fn rendered(&mut self, _now: Nanos) {}

    /// When this frame's present should go out: the display time its picture
    /// was drawn for, on a display that shows a frame when it is presented
    /// (VRR). `None`: at once.
    fn present_at(&self) -> Option<Nanos> {
        None
    }

    /// A short human sentence about the current internal state, for a HUD
    /// (e.g. `auto`: "interpolated: no vsync measured (frames every 2.0 ms)").
    fn status(&self) -> String {
        String::new()
    }
}

/// A boxed copy of a strategy, for a `Clone` [`crate::Pacer`]: every
/// `Strategy + Clone` has it.
pub trait CloneStrategy {
    /// A copy of this strategy, state and all.
    fn clone_strategy(&self) -> Box<dyn Strategy>;
}

impl<T: Strategy + Clone + 'static> CloneStrategy for T {
    fn clone_strategy(&self) -> Box<dyn Strategy> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Strategy> {
    fn clone(&self) -> Self {
        (**self).clone_strategy()
    }
}

/// One strategy, held by value when it is one of the ten: a `Pacer` is
/// `Clone` and `Debug`, switching allocates nothing, and each call is a
/// `match` the compiler can inline, not a call through a vtable. Any other
/// ([`StrategyId::Custom`]) is boxed.
#[derive(Clone, Debug)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per pacer, never moved per frame: `auto`'s two branches inline (1.6 kB) cost no allocation on a switch"
)]
pub(crate) enum AnyStrategy {
    Lockstep(Lockstep),
    FixedFps(FixedFps),
    Variable(Variable),
    /// `catch-up`, `interpolated` and `extrapolated`.
    FixedStep(FixedStep),
    Fuzzy(Fuzzy),
    Snapped(Snapped),
    Paced(Paced),
    Auto(Auto),
    /// A strategy outside the ten.
    Custom(Box<dyn Strategy>),
}

/// `$body` with `$s` bound to the strategy inside `$any`.
macro_rules! dispatch {
    ($any:expr, $s:ident => $body:expr) => {
        match $any {
            AnyStrategy::Lockstep($s) => $body,
            AnyStrategy::FixedFps($s) => $body,
            AnyStrategy::Variable($s) => $body,
            AnyStrategy::FixedStep($s) => $body,
            AnyStrategy::Fuzzy($s) => $body,
            AnyStrategy::Snapped($s) => $body,
            AnyStrategy::Paced($s) => $body,
            AnyStrategy::Auto($s) => $body,
            AnyStrategy::Custom($s) => $body,
        }
    };
}

impl AnyStrategy {
    /// See [`Strategy::reset`].
    pub(crate) fn reset(&mut self, config: &StrategyConfig) {
        dispatch!(self, s => s.reset(config));
    }

    /// See [`Strategy::last_tick`].
    pub(crate) fn last_tick(&self) -> Option<Nanos> {
        dispatch!(self, s => s.last_tick())
    }

    /// See [`Strategy::continue_from`].
    pub(crate) fn continue_from(&mut self, last_tick: Nanos) {
        dispatch!(self, s => s.continue_from(last_tick));
    }

    /// See [`Strategy::begin`].
    // Always: out of line, the dispatch and the plan's copy through it cost
    // the simulator 15 instructions a frame (callgrind, fixed-fps and auto),
    // which a `Box<dyn Strategy>`'s virtual call had not.
    //
    // Each strategy gets its own copy of the context: with one for all, it
    // was built in memory before the dispatch (the out-of-line strategies
    // take its address): 11 instructions of a game's frame (callgrind),
    // whose strategy, inline, reads only `now`.
    #[inline(always)]
    pub(crate) fn begin(&mut self, ctx: &FrameContext) -> Plan {
        dispatch!(self, s => s.begin(&{ *ctx }))
    }

    /// See [`Strategy::after_render`].
    #[inline]
    pub(crate) fn after_render(&mut self, now: Nanos) -> Steps {
        dispatch!(self, s => s.after_render(now))
    }

    /// See [`Strategy::end`].
    #[inline]
    pub(crate) fn end(&mut self, now: Nanos) -> Wake {
        dispatch!(self, s => s.end(now))
    }

    /// See [`Strategy::set_vrr`].
    pub(crate) fn set_vrr(&mut self, vrr: Option<VrrRange>) {
        dispatch!(self, s => s.set_vrr(vrr));
    }

    /// See [`Strategy::rendered`].
    pub(crate) fn rendered(&mut self, now: Nanos) {
        dispatch!(self, s => s.rendered(now));
    }

    /// See [`Strategy::present_at`].
    pub(crate) fn present_at(&self) -> Option<Nanos> {
        dispatch!(self, s => s.present_at())
    }

    /// See [`Strategy::status`].
    pub(crate) fn status(&self) -> String {
        dispatch!(self, s => s.status())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NANOS_PER_SEC;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn lag_limit(tick_rate: Rate, max_steps: u32) -> Nanos {
        StrategyConfig { tick_rate, max_steps, ..StrategyConfig::default() }.lag_limit_nanos()
    }

    #[test]
    fn the_lag_limit_is_max_lag_unless_the_step_cap_plus_two_ticks_are_longer() {
        assert_eq!(lag_limit(Rate::from_hz(60), 10), NANOS_PER_SEC, "12 ticks are 0.2 s: 1 s");
        assert_eq!(lag_limit(Rate::from_hz(1000), 10), NANOS_PER_SEC, "169 ticks are 0.169 s: 1 s");
        assert_eq!(lag_limit(Rate::from_hz(3), 10), NANOS_PER_SEC, "3 ticks are exactly 1 s");
        assert_eq!(lag_limit(Rate::from_hz(2), 10), 1_500_000_000, "one step a frame and two spare: 1.5 s");
        assert_eq!(lag_limit(Rate::from_hz(1), 10), 3 * NANOS_PER_SEC);
        assert_eq!(lag_limit(Rate::from_hz(1), 600), 12 * NANOS_PER_SEC, "10 s of catch-up and two spare ticks");
        let hz_1_01 = Rate::new(101, 100).unwrap();
        assert_eq!(lag_limit(hz_1_01, 10), 2_970_297_029, "3 ticks of 1.01 Hz, floored");
        assert_eq!(lag_limit(Rate::from_hz(1), 0), 3 * NANOS_PER_SEC, "max_steps 0 runs one step like 1");
    }

    fn step_cap(tick_rate: Rate, max_steps: u32) -> u32 {
        StrategyConfig { tick_rate, max_steps, ..StrategyConfig::default() }.step_cap()
    }

    #[test]
    fn the_step_cap_is_a_sixth_of_a_second_of_ticks_at_every_rate_and_at_least_one() {
        assert_eq!(step_cap(Rate::from_hz(1), 10), 1);
        assert_eq!(step_cap(Rate::from_hz(2), 10), 1, "a third of a tick, rounded up");
        assert_eq!(step_cap(Rate::from_hz(12), 10), 2);
        assert_eq!(step_cap(Rate::from_hz(30), 10), 5, "5 ticks of 30 Hz are 1/6 s");
        assert_eq!(step_cap(Rate::from_hz(60), 10), 10);
        assert_eq!(step_cap(Rate::new(60000, 1001).unwrap(), 10), 10, "9.99 ticks of 59.94 Hz round up to 10");
        assert_eq!(step_cap(Rate::from_hz(61), 10), 11, "10 · 61/60 = 10.17, rounded up");
        assert_eq!(step_cap(Rate::from_hz(120), 10), 20);
        assert_eq!(step_cap(Rate::from_hz(240), 10), 40);
        assert_eq!(step_cap(Rate::from_hz(1000), 10), 167, "10 · 1000/60 = 166.67, rounded up");
        assert_eq!(step_cap(Rate::from_hz(1000), 1), 17, "one 60 Hz frame of 1000 Hz ticks");
        assert_eq!(step_cap(Rate::from_hz(60), 0), 1, "max_steps 0 runs one step like 1");
        assert_eq!(step_cap(Rate::from_hz(1), 600), 10, "ten seconds of 1 Hz ticks");
    }

    #[test]
    fn the_default_at_a_tick_rate_is_one_config_however_it_is_built() {
        for hz in [1, 2, 30, 60, 240, 1000] {
            let rate = Rate::from_hz(hz);
            let built = StrategyConfig::default().with_tick_rate(rate);
            let literal = StrategyConfig { tick_rate: rate, ..StrategyConfig::default() };
            assert_eq!(built, literal, "{rate}");
            let back = built.with_tick_rate(Rate::from_hz(7)).with_tick_rate(rate);
            assert_eq!(back, built, "{rate}: changing the rate and back changes nothing");
        }
    }

    #[test]
    fn every_strategy_id_parses_back_from_its_display() {
        for id in StrategyId::ALL {
            assert_eq!(id.to_string().parse::<StrategyId>(), Ok(id), "{id}");
        }
        assert_eq!(" Catch-Up ".parse::<StrategyId>(), Ok(StrategyId::CatchUp), "case and blanks do not matter");
        let unknown = "catchup".parse::<StrategyId>().expect_err("no such strategy");
        assert_eq!(unknown.name, "catchup");
        assert_eq!(
            unknown.to_string(),
            "unknown strategy 'catchup' (expected one of: lockstep, fixed-fps, variable, catch-up, interpolated, \
             extrapolated, fuzzy, snapped, paced, auto)"
        );
    }

    /// Two steps on every frame, the latest state drawn: a strategy from outside the ten.
    #[derive(Clone, Debug)]
    struct Twice {
        frames: u64,
    }

    impl Strategy for Twice {
        fn begin(&mut self, ctx: &FrameContext) -> Plan {
            self.frames += 1;
            Plan { order: Order::StepsThenRender(Steps::Fixed(2)), view: View::Latest, content_time: ctx.now }
        }

        fn reset(&mut self, _config: &StrategyConfig) {
            self.frames = 0;
        }

        fn status(&self) -> String {
            alloc::format!("{} frames", self.frames)
        }
    }

    const TWICE: StrategyRow = StrategyRow::new("twice", "two steps a frame", |_| Box::new(Twice { frames: 0 }))
        .with_trades("the right speed")
        .with_startup(Startup::Moves);

    #[test]
    fn a_custom_strategy_runs_in_a_pacer_clones_with_it_and_is_switched_to_as_the_ten_are() {
        let id = StrategyId::Custom(&TWICE);
        assert_eq!(
            (id.name(), id.info().trades, id.paces_itself(), id.keeps_a_fixed_step()),
            ("twice", "the right speed", false, true)
        );
        assert_eq!(StrategyId::parse_among(&[StrategyId::CatchUp, id], "TWICE"), Ok(id));
        assert!(StrategyId::parse("twice").is_err(), "the registry does not know it");
        let mut pacer = crate::Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
        assert_eq!(pacer.advance_at(0).updates().len(), 0, "catch-up runs none on its first frame");
        pacer.set_strategy(id);
        assert_eq!(pacer.strategy(), id);
        assert_eq!(pacer.advance_at(1_000).updates().len(), 2);
        let mut copy = pacer.clone();
        assert_eq!(
            (pacer.status(), copy.status()),
            ("1 frames".to_owned(), "1 frames".to_owned()),
            "the copy keeps its state"
        );
        assert_eq!(copy.advance_at(2_000).updates().len(), 2);
        assert_eq!((pacer.status(), copy.status()), ("1 frames".to_owned(), "2 frames".to_owned()), "and is its own");
        assert_eq!(copy.total_updates(), 4, "catch-up's first frame ran none, then two and two");
    }

    #[test]
    fn only_render_then_steps_runs_no_steps_before_the_render() {
        assert_eq!(Order::StepsThenRender(Steps::Fixed(2)).steps_before_render(), Steps::Fixed(2));
        assert_eq!(Order::RenderThenSteps.steps_before_render(), Steps::NONE);
    }
}
