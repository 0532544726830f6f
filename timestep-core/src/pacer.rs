//! [`Pacer`]: the front door. A game keeps its own loop and its own state and
//! asks the pacer three things a frame: which steps to run, what to draw, and
//! when to start the next frame.
//!
//! ```text
//!   frame = pacer.advance(now)        steps to run before drawing, the view (alpha / ahead)
//!   for dt in frame.updates()           the game updates its own state
//!   draw(frame.view()), present
//!   for dt in pacer.presented(at)     feeds the refresh measurement; the steps a
//!                                     render-first strategy (`paced`) runs after its present
//!   wake = pacer.finish(now)          when the next frame should start: sleep_until(wake)
//!   ...frames later...
//!   pacer.displayed(feedback)         the display's word on frame `frame.id()`, if it gives one
//! ```
//!
//! Time comes in two ways, the same calls underneath. With `std`, as
//! `Instant`s (`advance`, `presented`, `finish`; `run` for the whole
//! loop): the pacer counts from the first instant it sees. Without
//! it, as the game's own clock in integer nanoseconds ([`Nanos`] since any
//! fixed zero: a timer register, a host's frame clock, a manual clock in a
//! test): [`Pacer::advance_at`], [`Pacer::presented_at`] and
//! [`Pacer::finish_at`], which answer with the wake time on that clock. Use
//! one clock or the other for a pacer's whole life.
//!
//! The crate's own measuring side (the virtual monitor and the `Session`,
//! feature `monitor`) drives a pacer too, through [`Pacer::run_host_frame`],
//! so every figure it measures is about what a game gets from this type. Around the
//! strategies it adds time in and out as [`Duration`]s, a time scale, a
//! frame limit, an explicit [`Pacer::resync`] after a load, and a refresh
//! measurement and vsync verdict from the presents it is told about.
//!
//! The time scale runs the strategy on a game clock that advances `scale`
//! times as fast as the wall clock (0.5: slow motion, half the steps a
//! second). Wake times are converted back to the wall clock, so a frame-paced
//! strategy (`fixed-fps`, `paced`) slows its frames down too; `lockstep` runs
//! one step a frame whatever the scale, as it runs one whatever the clock.

use alloc::format;
use alloc::string::String;
use core::time::Duration;

use crate::feedback::Feedback;
#[cfg(not(any(feature = "std", test)))]
use crate::float::Round as _;
use crate::host::{FrameDriver, FrameHost, FrameReport, Simulation};
use crate::refresh::{Measured, RefreshMeter, Verdict, VerdictFacts, VrrSeen};
use crate::strategy::{Order, Plan, Steps, StrategyConfig, StrategyId, View, Wake};
#[cfg(feature = "std")]
use crate::time::Instant;
use crate::time::{Nanos, Rate, duration_to_nanos, nanos_as_f64, nanos_to_duration};
use crate::vrr::VrrRange;

/// The time scale's fixed-point unit: scales are kept in millionths, exactly.
const SCALE_UNIT: u64 = 1_000_000;

/// How often (in presents) the VRR evidence is looked at while no range is
/// declared: it sorts [`crate::refresh::VRR_WINDOW`] intervals, about 10 µs,
/// so twice a second at 120 Hz.
pub const VRR_CHECK_EVERY: u64 = 64;

/// What to do in one frame, before drawing: the steps and the picture.
/// Dropping it drops the frame's steps: the game would stand still while
/// [`Pacer::total_updates`] counts them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
#[must_use = "a frame's steps must run: `for dt in frame.updates() { update(dt) }`"]
pub struct Frame {
    id: u64,
    steps: Steps,
    tick: Duration,
    view: View,
    render_first: bool,
    present_at: Option<Nanos>,
}

impl Frame {
    /// The frame's number, from 1: what a display's feedback on its present names ([`Pacer::displayed`]).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The world updates to run before drawing, each with its `dt`: a tick
    /// period for fixed steps, the measured frame time for `variable`.
    #[inline]
    pub fn updates(&self) -> Updates {
        Updates::of(self.steps, self.tick)
    }

    /// Which picture to draw.
    pub fn view(&self) -> View {
        self.view
    }

    /// The blend between the previous and the current state to draw: the
    /// interpolation factor, 1 (the current state) for every other view.
    /// An `f64`, as [`Frame::blend`] takes and gives.
    #[inline]
    pub fn alpha(&self) -> f64 {
        match self.view {
            View::Interpolate { alpha } => alpha,
            View::Latest | View::Extrapolate { .. } => 1.0,
        }
    }

    /// How far past the current state to predict the picture (`extrapolated`), else zero.
    pub fn ahead(&self) -> Duration {
        match self.view {
            View::Extrapolate { ahead } => nanos_to_duration(ahead),
            View::Latest | View::Interpolate { .. } => Duration::ZERO,
        }
    }

    /// What this frame's picture shows of a quantity that was `previous` one
    /// tick before its `current` value: the blend by [`Frame::alpha`], the
    /// current value, or the current value moved on by the last tick's
    /// change for [`Frame::ahead`] (`extrapolated`).
    ///
    /// ```
    /// use timestep_core::View;
    /// # use timestep_core::{Pacer, Rate, StrategyId};
    /// # let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(100));
    /// # pacer.advance_at(0);
    /// # pacer.finish_at(0);
    /// let frame = pacer.advance_at(12_500_000);
    /// assert_eq!(frame.view(), View::Interpolate { alpha: 0.25 });
    /// assert_eq!(frame.blend(10.0, 20.0), 12.5);
    /// ```
    #[inline]
    pub fn blend(&self, previous: f64, current: f64) -> f64 {
        let change = current - previous;
        match self.view {
            View::Latest => current,
            View::Interpolate { alpha } => previous + change * alpha,
            View::Extrapolate { ahead } => {
                current + change * (nanos_as_f64(ahead) / nanos_as_f64(duration_to_nanos(self.tick)))
            }
        }
    }

    /// Whether the strategy draws before it steps (`paced`): its steps come
    /// from [`Pacer::presented_at`] (or `presented`), after the present.
    pub fn renders_first(&self) -> bool {
        self.render_first
    }

    /// When to present this frame, on the game's clock in nanoseconds: the
    /// display time its picture was drawn for (`auto` on a VRR display, which
    /// shows a frame when it is presented). Render, tell
    /// [`Pacer::rendered_at`], wait until then, present. `None`: present at once.
    pub fn present_at(&self) -> Option<Nanos> {
        self.present_at
    }
}

/// The `dt` of each world update to run: an iterator over [`Duration`]s.
///
/// Each is counted in [`Pacer::total_updates`] when it is handed out, so dropping
/// one loses game time: under `paced` a loop that drops what
/// [`Pacer::presented_at`] returns runs no update at all. Hence `#[must_use]`,
/// which a loop that denies warnings turns into an error:
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// # use timestep_core::{Pacer, Rate, StrategyId};
/// let mut pacer = Pacer::new(StrategyId::Paced, Rate::from_hz(60));
/// let _first = pacer.advance_at(0);
/// pacer.presented_at(3_000_000, None); // error: unused `Updates` that must be used
/// ```
///
/// The same loop, running them:
///
/// ```
/// #![deny(unused_must_use)]
/// # use timestep_core::{Pacer, Rate, StrategyId};
/// let mut pacer = Pacer::new(StrategyId::Paced, Rate::from_hz(60));
/// let _first = pacer.advance_at(0);
/// let mut ran = 0;
/// pacer.presented_at(3_000_000, None).for_each(|_dt| ran += 1);
/// assert_eq!(ran, pacer.total_updates(), "what the pacer counts, the game ran");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "each update is counted as run: `for dt in updates { update(dt) }`"]
pub struct Updates {
    left: u32,
    dt: Duration,
}

impl Updates {
    /// No updates.
    pub const NONE: Updates = Updates { left: 0, dt: Duration::ZERO };

    #[inline]
    fn of(steps: Steps, tick: Duration) -> Updates {
        match steps {
            Steps::Fixed(n) => Updates { left: n, dt: tick },
            Steps::Variable(0) => Updates::NONE,
            Steps::Variable(dt) => Updates { left: 1, dt: nanos_to_duration(dt) },
        }
    }
}

impl Iterator for Updates {
    type Item = Duration;

    #[inline]
    fn next(&mut self) -> Option<Duration> {
        self.left = self.left.checked_sub(1)?;
        Some(self.dt)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.left).unwrap_or(usize::MAX);
        (left, Some(left))
    }

    /// `for_each` and every other consuming adaptor: a counted loop over
    /// one `dt`. Through `next` LLVM kept the count and the `Option` in
    /// the loop, 27 instructions of a game's frame (two loops, one step).
    #[inline]
    fn fold<B, F: FnMut(B, Duration) -> B>(self, init: B, mut f: F) -> B {
        let mut acc = init;
        for _ in 0..self.left {
            acc = f(acc, self.dt);
        }
        acc
    }
}

impl ExactSizeIterator for Updates {}

/// A frame's present, as the game saw it: when it returned and, if the game
/// measured it, how long it blocked (what tells vsync from a fast loop).
///
/// ```
/// use std::time::Duration;
/// use timestep_core::{Instant, Present};
/// let at = Instant::now();
/// let present = Present::at(at).blocked(Duration::from_millis(14));
/// assert_eq!((present.at, present.blocked), (at, Some(Duration::from_millis(14))));
/// assert_eq!(Present::from(at).blocked, None);
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Present {
    /// When the present returned (the best known time the frame became visible).
    pub at: Instant,
    /// Time spent blocked in acquire + present, when measured.
    pub blocked: Option<Duration>,
}

#[cfg(feature = "std")]
impl Present {
    /// A present that returned at `at`, blocking unmeasured.
    pub fn at(at: Instant) -> Present {
        Present { at, blocked: None }
    }

    /// The same present, which blocked for `blocked`.
    pub fn blocked(self, blocked: Duration) -> Present {
        Present { blocked: Some(blocked), ..self }
    }
}

#[cfg(feature = "std")]
impl From<Instant> for Present {
    #[inline]
    fn from(at: Instant) -> Present {
        Present::at(at)
    }
}

/// Game time runs `num / SCALE_UNIT` times as fast as wall time since `wall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scale {
    num: u64,
    /// Wall time (ns since the pacer's origin) at the last change.
    wall: Nanos,
    /// Game time at the last change.
    game: Nanos,
    /// Scale 1 from zero (`num == SCALE_UNIT`, `wall == game == 0`), a
    /// game's pacer that never scaled time: game time is wall time, without
    /// the comparison and the two saturating steps (a frame converts twice:
    /// 15 instructions of a game's frame, callgrind).
    identity: bool,
}

impl Scale {
    /// Game time `game` at wall time `wall`, running `num / SCALE_UNIT` as fast from then on.
    fn new(num: u64, wall: Nanos, game: Nanos) -> Scale {
        Scale { num, wall, game, identity: num == SCALE_UNIT && wall == 0 && game == 0 }
    }

    /// Game time at wall time `wall` (not before the last change).
    #[inline]
    fn game_at(&self, wall: Nanos) -> Nanos {
        if self.identity {
            // `0 + (wall - 0) · 1`: the sum below, exactly.
            return wall;
        }
        let since = wall.saturating_sub(self.wall);
        // Fast paths, the same exact quotient: a `u128` division is a library
        // call (`__udivti3`), 11 % of a pacer frame, and the scale is 1 in
        // almost every frame and small in the others.
        let scaled = if self.num == SCALE_UNIT {
            since
        } else if let Some(product) = since.checked_mul(self.num) {
            product / SCALE_UNIT
        } else {
            let scaled = u128::from(since) * u128::from(self.num) / u128::from(SCALE_UNIT);
            u64::try_from(scaled).unwrap_or(u64::MAX)
        };
        self.game.saturating_add(scaled)
    }

    /// The first wall time at which game time reaches `game`.
    #[inline]
    fn wall_at(&self, game: Nanos) -> Nanos {
        if self.identity {
            return game;
        }
        let since = game.saturating_sub(self.game);
        let wall = if self.num == SCALE_UNIT {
            since
        } else if let Some(product) = since.checked_mul(SCALE_UNIT) {
            product.div_ceil(self.num)
        } else {
            let wall = (u128::from(since) * u128::from(SCALE_UNIT)).div_ceil(u128::from(self.num));
            u64::try_from(wall).unwrap_or(u64::MAX)
        };
        self.wall.saturating_add(wall)
    }
}

/// Frame pacing for a game's own loop: any strategy (the crate's ten or your own [`crate::strategy::Strategy`]) at any tick
/// rate, on the real clock (`std`) or the game's own in nanoseconds (also
/// without `std`). See the module docs for the frame's calls.
///
/// A game on a fixed 60 Hz tick, its clock moved by hand:
///
/// ```
/// use core::time::Duration;
/// use timestep_core::{Pacer, Rate, StrategyId};
///
/// let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
/// let ms = |n: u64| n * 1_000_000;
/// assert_eq!(pacer.advance_at(ms(0)).updates().len(), 0, "the first frame starts the clock");
/// assert_eq!(pacer.presented_at(ms(2), None).len(), 0, "steps come before the picture");
/// assert_eq!(pacer.finish_at(ms(2)), None, "vsync paces the loop");
///
/// let frame = pacer.advance_at(ms(40));
/// assert_eq!(frame.updates().collect::<Vec<_>>(), [Duration::from_nanos(16_666_667); 2], "ticks at 16.67 and 33.33 ms");
/// assert_eq!(pacer.total_updates(), 2);
/// assert_eq!(pacer.game_time(), Duration::from_nanos(33_333_333), "two ticks at their exact times");
/// ```
#[derive(Clone, Debug)]
pub struct Pacer {
    driver: FrameDriver,
    /// The real clock's zero: the first instant the `Instant` calls saw.
    #[cfg(feature = "std")]
    origin: Option<Instant>,
    /// The last instant converted and its time on the pacer's clock: a frame
    /// that hands one instant to several calls (its present and its finish,
    /// say) converts it once. An `Instant` subtraction is about 55
    /// instructions (std's `Timespec::sub_timespec` and `Duration`'s
    /// normalising), a quarter of a frame's when a frame made three.
    #[cfg(feature = "std")]
    last_instant: Option<(Instant, Nanos)>,
    /// The latest wall time seen (the clock is treated as monotonic).
    wall: Nanos,
    scale: Scale,
    /// Whether the frame in progress draws before it steps.
    render_first: bool,
    /// Wall time the frame in progress started.
    frame_start: Nanos,
    /// Frames start no faster than this when the strategy sets no wake time.
    frame_limit: Option<Rate>,
    meter: RefreshMeter,
    vsync_requested: bool,
    /// A present reported how long it blocked: without that, vsync cannot be told from a fast loop.
    blocking_known: bool,
    /// When the last frame asked to wake (wall).
    last_wake: Option<Nanos>,
    /// Whether the next frame starts unpaced: the last asked no wake, or
    /// one no later than its end. Decided when a frame ends, from the wake
    /// in hand, where the next frame's start compared the kept wake and end
    /// (8 instructions of a game's frame, callgrind).
    next_unpaced: bool,
    /// The frame in progress started without waiting for a wake of its
    /// strategy's: its present's interval is the display's doing, and
    /// measures it. Decided once, when the frame starts.
    unpaced: bool,
    /// Frames started: the id of the frame in progress.
    frames: u64,
    /// Presents until [`Pacer::detect_vrr`] looks next: it counts down from
    /// [`VRR_CHECK_EVERY`] (a decrement and its zero flag, where a count of
    /// presents and its remainder cost a game's frame 3 instructions more).
    presents_to_vrr_check: u64,
}

impl Pacer {
    /// A pacer running `strategy` at `tick_rate` with the defaults every
    /// figure in these docs was measured with: `StrategyConfig::default().with_tick_rate(tick_rate)`.
    pub fn new(strategy: StrategyId, tick_rate: Rate) -> Pacer {
        Pacer::with_config(strategy, StrategyConfig::default().with_tick_rate(tick_rate))
    }

    /// A pacer running `strategy` with every setting of `config`.
    pub fn with_config(strategy: StrategyId, config: StrategyConfig) -> Pacer {
        Pacer {
            driver: FrameDriver::new(strategy, config),
            #[cfg(feature = "std")]
            origin: None,
            #[cfg(feature = "std")]
            last_instant: None,
            wall: 0,
            scale: Scale::new(SCALE_UNIT, 0, 0),
            render_first: false,
            frame_start: 0,
            frame_limit: None,
            meter: RefreshMeter::new(),
            vsync_requested: true,
            blocking_known: false,
            last_wake: None,
            next_unpaced: true,
            unpaced: true,
            frames: 0,
            presents_to_vrr_check: VRR_CHECK_EVERY,
        }
    }

    /// Wall time `now` on the game's clock, never less than the latest (a
    /// clock that runs backwards stands still).
    #[inline]
    fn wall_of(&mut self, now: Nanos) -> Nanos {
        let wall = now.max(self.wall);
        self.wall = wall;
        wall
    }

    /// `at` on the pacer's clock: nanoseconds since the first instant seen,
    /// the last one's again when `at` is the instant converted last (a
    /// frame's present and finish at the frame's `now`).
    #[cfg(feature = "std")]
    #[inline]
    fn nanos_of(&mut self, at: Instant) -> Nanos {
        if let Some((last, nanos)) = self.last_instant
            && last == at
        {
            return nanos;
        }
        self.convert_outlined(at)
    }

    /// [`Pacer::convert`] out of the caller's line: where the instant was
    /// converted already, the caller passes it in registers, where a
    /// conversion in line had the caller keep it in memory for
    /// `saturating_duration_since` (with `advance`'s conversion skipping the
    /// look at the last instant, 6 instructions of a game's frame).
    #[cfg(feature = "std")]
    #[inline(never)]
    fn convert_outlined(&mut self, at: Instant) -> Nanos {
        self.convert(at)
    }

    /// `at` on the pacer's clock, converted (no look at the last one: the
    /// result is the same, so a frame's first instant, new each frame, skips it).
    #[cfg(feature = "std")]
    #[inline]
    fn convert(&mut self, at: Instant) -> Nanos {
        let origin = *self.origin.get_or_insert(at);
        let nanos = duration_to_nanos(at.saturating_duration_since(origin));
        self.last_instant = Some((at, nanos));
        nanos
    }

    /// `at` on the pacer's clock, for [`Pacer::displayed`] on the `Instant`
    /// calls: nanoseconds since the first instant the pacer saw (0 before any).
    #[cfg(feature = "std")]
    pub fn since_start(&self, at: Instant) -> Nanos {
        self.origin.map_or(0, |origin| duration_to_nanos(at.saturating_duration_since(origin)))
    }

    #[cfg(feature = "std")]
    #[inline]
    fn instant_at(&self, wall: Nanos) -> Option<Instant> {
        self.origin.map(|origin| origin + nanos_to_duration(wall))
    }

    /// Starts a frame at `now` on the game's clock (nanoseconds since its
    /// zero): the steps to run before drawing, and what to draw.
    #[inline]
    pub fn advance_at(&mut self, now: Nanos) -> Frame {
        let wall = self.wall_of(now);
        let (plan, _) = self.begin_at(wall);
        let steps = self.driver.count_steps(plan.order.steps_before_render());
        let present_at = self.present_target();
        Frame {
            id: self.frames,
            steps,
            tick: self.tick_period(),
            view: plan.view,
            render_first: self.render_first,
            present_at,
        }
    }

    /// The frame's picture was rendered at `now` on the game's clock, before
    /// holding its present until [`Frame::present_at`]: how long frames take
    /// to render is what that time is planned from. Frames without a
    /// `present_at` need not call it.
    pub fn rendered_at(&mut self, now: Nanos) {
        let wall = self.wall_of(now);
        self.driver.rendered(self.scale.game_at(wall));
    }

    /// The wall time the strategy wants this frame presented at, if any:
    /// only a strategy told of a VRR display plans one.
    #[inline]
    fn present_target(&self) -> Option<Nanos> {
        if !self.driver.has_vrr() {
            return None;
        }
        self.driver.present_at().map(|game| self.scale.wall_at(game))
    }

    /// The frame's picture was presented at `at` on the game's clock, after
    /// blocking for `blocked` nanoseconds if the game measured it (what tells
    /// vsync from a fast loop): measures the refresh, and returns the steps a
    /// render-first strategy runs now (none for the others).
    #[inline]
    pub fn presented_at(&mut self, at: Nanos, blocked: Option<Nanos>) -> Updates {
        let wall = self.wall_of(at);
        self.blocking_known |= blocked.is_some();
        self.measure_present(wall, blocked.unwrap_or(0), 0);
        if !self.render_first {
            return Updates::NONE;
        }
        let steps = self.after_render_at(wall);
        Updates::of(self.driver.count_steps(steps), self.tick_period())
    }

    /// The display's word on an earlier frame, whenever it arrives (frames
    /// later, out of order, or never): when frame [`Frame::id`] was shown (on
    /// the pacer's clock: the game's own, or nanoseconds since the first
    /// `Instant` the pacer saw, `Pacer::since_start`), or that it was
    /// discarded, with the display's refresh and flags. The refresh
    /// measurement and the verdict take it over what the presents' timing
    /// suggests. See [`crate::feedback`] for where it comes from.
    ///
    /// ```
    /// use timestep_core::feedback::{Feedback, FeedbackFlags};
    /// use timestep_core::{Pacer, Rate, StrategyId};
    ///
    /// let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
    /// let period = Rate::from_hz(60).period();
    /// for k in 0..=30 {
    ///     let frame = pacer.advance_at(k * period);
    ///     pacer.presented_at(k * period + 1_000_000, None);
    ///     pacer.finish_at(k * period + 1_000_000);
    ///     // The compositor answers for the frame before: shown a refresh after its present.
    ///     if frame.id() > 1 {
    ///         let shown = Feedback::displayed(frame.id() - 1, k * period).with_refresh(period);
    ///         pacer.displayed(shown.with_flags(FeedbackFlags::VSYNC));
    ///     }
    /// }
    /// assert_eq!(pacer.verdict().vsync, Some(true), "{}", pacer.verdict().text);
    /// assert!(pacer.verdict().text.contains("the compositor showed frames every 16.7 ms (30 of 30 on a vblank)"));
    /// ```
    pub fn displayed(&mut self, feedback: Feedback) {
        self.meter.record_feedback(&feedback);
    }

    /// The one path from a present to the refresh meter, for a game's
    /// presents and a `Session`'s alike: returned at `wall` after
    /// `blocked` ns in acquire + present, `throttled` ns after waiting for a
    /// compositor's go-ahead; measured as the display's interval when the
    /// frame started unpaced.
    #[inline]
    pub(crate) fn measure_present(&mut self, wall: Nanos, blocked: Nanos, throttled: Nanos) {
        self.meter.record_throttled(wall, blocked, throttled, self.unpaced);
        self.detect_vrr();
    }

    /// Ends the frame at `now` on the game's clock: when, on that clock, the
    /// next frame should start (`None`: at once, vsync or the GPU paces the loop).
    #[inline]
    pub fn finish_at(&mut self, now: Nanos) -> Option<Nanos> {
        let wall = self.wall_of(now);
        self.end_at(wall)
    }

    /// [`Pacer::advance_at`] on the real clock: starts a frame at `now`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use timestep_core::{Instant, Pacer, Rate, StrategyId};
    ///
    /// let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
    /// let start = Instant::now();
    /// let ms = |n| start + Duration::from_millis(n);
    /// assert_eq!(pacer.advance(ms(0)).updates().len(), 0, "the first frame starts the clock");
    /// pacer.finish(ms(1));
    /// let frame = pacer.advance(ms(40));
    /// assert_eq!(frame.updates().collect::<Vec<_>>(), [Duration::from_nanos(16_666_667); 2]);
    /// assert_eq!(frame.alpha(), 6_666_667.0 / 16_666_667.0, "6.67 ms into the 16.67 ms of the third tick");
    /// ```
    #[cfg(feature = "std")]
    #[inline]
    pub fn advance(&mut self, now: Instant) -> Frame {
        let now = self.convert(now);
        self.advance_at(now)
    }

    /// [`Pacer::presented_at`] on the real clock: the frame's picture was
    /// presented (an [`Instant`], or a [`Present`] with its blocking time).
    #[cfg(feature = "std")]
    #[inline]
    pub fn presented(&mut self, present: impl Into<Present>) -> Updates {
        let present = present.into();
        let at = self.nanos_of(present.at);
        self.presented_at(at, present.blocked.map(duration_to_nanos))
    }

    /// [`Pacer::finish_at`] on the real clock: ends the frame at `now`, and
    /// says when the next should start. Sleep with [`crate::sleep_until`].
    #[cfg(feature = "std")]
    #[inline]
    pub fn finish(&mut self, now: Instant) -> Option<Instant> {
        let now = self.nanos_of(now);
        self.finish_at(now).and_then(|wall| self.instant_at(wall))
    }

    /// The one path from a time to a frame's decisions, shared by the
    /// calls above and [`Pacer::run_host_frame`]: the start of a
    /// frame at wall time `wall` (nanoseconds since the pacer's origin):
    /// the strategy's plan, and the game time it was made at.
    // Always: LLVM kept it (and `end_at`) out of `run_host_frame`, the plan
    // coming back through memory. With this, the session's copy-free settle
    // and the VRR hold out of line, a simulated frame went from 2595 to 2524
    // instructions (callgrind, auto at 60 Hz).
    #[inline(always)]
    fn begin_at(&mut self, wall: Nanos) -> (Plan, Nanos) {
        self.frame_start = wall;
        self.frames += 1;
        self.unpaced = self.next_unpaced;
        let game = self.scale.game_at(wall);
        let plan = self.driver.begin(game);
        self.render_first = plan.order == Order::RenderThenSteps;
        (plan, game)
    }

    /// After a render-first frame's present at wall time `wall`: the steps to run now.
    fn after_render_at(&mut self, wall: Nanos) -> Steps {
        self.render_first = false;
        self.driver.after_render(self.scale.game_at(wall))
    }

    /// The end of a frame at wall time `wall`: the wall time to wake at, the
    /// strategy's (on the scaled clock), never before the frame limit's next
    /// slot: the limit is a ceiling every strategy keeps.
    #[inline(always)]
    fn end_at(&mut self, wall: Nanos) -> Option<Nanos> {
        let wake = self.driver.end(self.scale.game_at(wall)).at.map(|game| self.scale.wall_at(game));
        let wake = match self.frame_limit {
            None => wake,
            Some(limit) => {
                let slot = limit.tick_time(limit.ticks_in(self.frame_start) + 1);
                Some(wake.map_or(slot, |wake| wake.max(slot)))
            }
        };
        self.next_unpaced = wake.is_none_or(|at| at <= wall);
        self.last_wake = wake;
        wake
    }

    /// One whole frame through a [`FrameHost`], on the host's clock in
    /// nanoseconds: the loop shape of the virtual monitor and of the
    /// `Session` (feature `monitor`), with the world and the platform passed in. The same
    /// decisions as [`Pacer::advance_at`], [`Pacer::presented_at`] and
    /// [`Pacer::finish_at`]; the world steps one update at a time, each after
    /// the host's clock is read (the update's input time), and the host is
    /// told after each. Presents are not measured here: the host knows more
    /// than the present time (the session measures them).
    ///
    /// ```
    /// use timestep_core::host::{FrameHost, Simulation};
    /// use timestep_core::{Nanos, Pacer, Rate, StrategyId, View};
    ///
    /// struct Ticks(u32);
    /// impl Simulation for Ticks {
    ///     fn step(&mut self, _dt: Nanos) { self.0 += 1 }
    /// }
    /// /// A clock moved by hand; drawing and presenting cost nothing.
    /// struct Host(Nanos);
    /// impl FrameHost<Ticks> for Host {
    ///     fn now(&mut self) -> Nanos { self.0 }
    ///     fn render(&mut self, _world: &Ticks, _view: View) {}
    ///     fn present(&mut self) -> Nanos { self.0 }
    /// }
    ///
    /// let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
    /// let (mut world, mut host) = (Ticks(0), Host(0));
    /// pacer.run_host_frame(&mut world, &mut host);
    /// host.0 = 50_000_000;
    /// assert_eq!(pacer.run_host_frame(&mut world, &mut host).updates, 3, "three 60 Hz ticks in 50 ms");
    /// ```
    pub fn run_host_frame<W: Simulation, H: FrameHost<W>>(&mut self, world: &mut W, host: &mut H) -> FrameReport {
        let start = self.host_now(host);
        let (plan, game) = self.begin_at(start);
        self.driver.start_inputs(game);
        let (updates, shown_updates, display_time, input_time);
        match plan.order {
            Order::RenderThenSteps => {
                input_time = self.driver.input_time(plan.view);
                host.render(world, plan.view);
                self.hold(host);
                display_time = host.present();
                shown_updates = self.driver.unshown();
                let now = self.host_now(host);
                let steps = self.after_render_at(now);
                updates = self.driver.run_steps(steps, world, host);
                self.driver.set_unshown(updates);
            }
            Order::StepsThenRender(steps) => {
                updates = self.driver.run_steps(steps, world, host);
                input_time = self.driver.input_time(plan.view);
                host.render(world, plan.view);
                self.hold(host);
                display_time = host.present();
                shown_updates = self.driver.unshown() + updates;
                self.driver.set_unshown(0);
            }
        }
        let repeats = host.repeats();
        let end = self.host_now(host);
        let wake = Wake { at: self.end_at(end) };
        FrameReport {
            frame: self.frames,
            start,
            updates,
            shown_updates,
            view: plan.view,
            content_time: plan.content_time,
            input_time,
            display_time,
            repeats,
            end,
            wake,
        }
    }

    /// After a hosted frame's render: tells the strategy, and holds the
    /// present until the time it planned, if it did. Only a strategy told of
    /// a VRR display plans one (`auto`): on a grid, nothing to ask.
    #[inline]
    fn hold<W, H: FrameHost<W>>(&mut self, host: &mut H) {
        if self.driver.has_vrr() {
            self.hold_for_vrr(host);
        }
    }

    /// [`Pacer::hold`] for a strategy told of a VRR display.
    fn hold_for_vrr<W, H: FrameHost<W>>(&mut self, host: &mut H) {
        let ready = self.host_now(host);
        self.driver.rendered(self.scale.game_at(ready));
        if let Some(at) = self.present_target() {
            host.hold_until(at);
        }
    }

    /// The host's clock, which is the wall clock of a hosted pacer.
    fn host_now<W, H: FrameHost<W>>(&mut self, host: &mut H) -> Nanos {
        let now = host.now();
        self.wall = now;
        now
    }

    /// No wake is pending: the next frame starts unpaced.
    fn forget_wake(&mut self) {
        self.last_wake = None;
        self.next_unpaced = true;
    }

    /// Forgets the backlog and all timing state (after a load, a pause, a
    /// debugger break): the next frame starts the clock afresh and runs no steps.
    pub fn resync(&mut self) {
        self.driver.resync();
        self.meter.break_sequence();
        self.forget_wake();
        self.render_first = false;
    }

    /// Game time runs `scale` times as fast as the wall clock from the last
    /// frame on (0.5: half the steps a second). Kept in millionths, 10⁻⁶–1000;
    /// NaN and anything below are 10⁻⁶ (pause with [`Pacer::resync`] instead).
    pub fn set_time_scale(&mut self, scale: f64) {
        let num = (scale * SCALE_UNIT as f64).round();
        let num = if num >= 1.0 { num.min(1000.0 * SCALE_UNIT as f64) as u64 } else { 1 };
        let wall = self.wall;
        self.scale = Scale::new(num, wall, self.scale.game_at(wall));
    }

    /// The time scale.
    pub fn time_scale(&self) -> f64 {
        self.scale.num as f64 / SCALE_UNIT as f64
    }

    /// Switches strategy; the game's state is its own. The tick phase is
    /// kept: the next tick falls due a period after the last one run, and
    /// the first frame after the switch runs the ticks due by then.
    pub fn set_strategy(&mut self, strategy: StrategyId) {
        self.driver.set_strategy(strategy, self.scale.game_at(self.wall));
        self.render_first = false;
        self.forget_wake();
    }

    /// Changes the tick rate; the other settings stay (the step cap is the
    /// same catch-up time in ticks of the new rate). Timing starts over.
    pub fn set_tick_rate(&mut self, tick_rate: Rate) {
        self.driver.set_tick_rate(tick_rate);
        self.render_first = false;
        self.forget_wake();
    }

    /// Tells the strategies the display's refresh rate (`None`: unknown).
    pub fn set_refresh(&mut self, refresh: Option<Rate>) {
        self.driver.set_refresh(refresh);
    }

    /// Frames start at most `limit` times a second, at most one in each
    /// period of its grid, whatever the strategy: a ceiling every strategy
    /// keeps (`paced`, `fixed-fps` and `auto` wait for the later of their own
    /// wake and the limit's). For a loop that nothing else paces (no vsync,
    /// headless), and below a VRR display's maximum, where frames at the
    /// ceiling queue. `None` (the default): no limit.
    pub fn set_frame_limit(&mut self, limit: Option<Rate>) {
        self.frame_limit = limit;
    }

    /// The frame limit ([`Pacer::set_frame_limit`]).
    pub fn frame_limit(&self) -> Option<Rate> {
        self.frame_limit
    }

    /// Tells the strategies the display is a VRR panel refreshing within
    /// `range` (G-Sync, FreeSync, Adaptive-Sync, ProMotion): a frame is shown
    /// when it is presented. `auto` then paces its own frames below the
    /// range's maximum and draws each for its display time; `fuzzy` steps
    /// strictly. `None`: a fixed refresh, or unknown (the default).
    pub fn set_vrr(&mut self, range: Option<VrrRange>) {
        self.driver.set_vrr(range);
    }

    /// The VRR range the strategies were told ([`Pacer::set_vrr`]).
    pub fn vrr(&self) -> Option<VrrRange> {
        self.driver.vrr()
    }

    /// Whether the game presents with vsync asked for (the default): the verdict's premise.
    pub fn set_vsync_requested(&mut self, requested: bool) {
        self.vsync_requested = requested;
    }

    /// The strategy running.
    pub fn strategy(&self) -> StrategyId {
        self.driver.strategy_id()
    }

    /// The configuration the strategies are built from.
    pub fn config(&self) -> &StrategyConfig {
        self.driver.config()
    }

    /// One fixed step's `dt` (the tick period, rounded to the nanosecond).
    #[inline]
    pub fn tick_period(&self) -> Duration {
        self.driver.step_duration()
    }

    /// Game time so far: the ticks run at their exact times plus variable steps.
    pub fn game_time(&self) -> Duration {
        nanos_to_duration(self.driver.game_time())
    }

    /// World updates handed out so far (the reports' `total_updates`).
    pub fn total_updates(&self) -> u64 {
        self.driver.updates()
    }

    /// One sentence on the strategy's state (`auto`: which branch and why).
    pub fn status(&self) -> String {
        self.driver.strategy().status()
    }

    /// The refresh the presents measure, once enough frames went by unpaced.
    pub fn measured_refresh(&self) -> Option<Measured> {
        self.meter.measure()
    }

    /// The range of frame rates the presents show, if they show a variable
    /// refresh ([`crate::refresh`]'s VRR evidence), on a display reporting the
    /// refresh the strategies are told.
    pub fn vrr_seen(&self) -> Option<VrrSeen> {
        self.meter.vrr_seen(self.driver.refresh().map(Rate::hz))
    }

    /// Every [`VRR_CHECK_EVERY`] presents under vsync on a display that
    /// reports its refresh, while no VRR range was declared: where the
    /// presents show a variable refresh, takes the display as a VRR panel
    /// from the lowest rate seen (whole Hz, floored) to its reported refresh
    /// (a VRR monitor reports its maximum), and tells the strategies. A
    /// display that reports nothing (a page, a virtual X server) is never taken for VRR:
    /// a vsync its driver ignores looks the same.
    #[inline]
    pub(crate) fn detect_vrr(&mut self) {
        self.presents_to_vrr_check -= 1;
        if self.presents_to_vrr_check == 0 {
            self.presents_to_vrr_check = VRR_CHECK_EVERY;
            self.detect_vrr_now();
        }
    }

    /// [`Pacer::detect_vrr`]'s look at the presents, out of the frame's line.
    #[cold]
    fn detect_vrr_now(&mut self) {
        if self.driver.vrr().is_some() || !self.vsync_requested {
            return;
        }
        let Some(max) = self.driver.refresh() else { return };
        let Some(seen) = self.meter.vrr_seen_now(Some(max.hz())) else { return };
        // Truncation floors a positive rate.
        if let Ok(min) = Rate::new(seen.min_hz.clamp(1.0, 1000.0) as u64, 1)
            && let Ok(range) = VrrRange::new(min, max)
        {
            log::info!("the presents show a variable refresh ({range}): the strategies are told");
            self.driver.set_vrr(Some(range));
        }
    }

    /// Whether vsync is in effect: the display's word when it gives one
    /// ([`Pacer::displayed`]), else judged from the presents; "cannot tell"
    /// unless presents report how long they blocked (`presented_at`'s
    /// `blocked`, `Present::blocked`).
    pub fn verdict(&self) -> Verdict {
        let mode = if self.vsync_requested { "vsync" } else { "immediate" };
        let facts = VerdictFacts {
            mode,
            mode_is_vsync: self.vsync_requested,
            emulated: None,
            emulated_vrr: None,
            reported_hz: self.driver.refresh().map(Rate::hz),
        };
        let verdict = self.meter.verdict(&facts);
        if self.blocking_known || !self.vsync_requested || self.meter.display_spoke() {
            return verdict;
        }
        let text =
            format!("{}; present blocking not reported (Present::blocked): vsync cannot be judged", verdict.text);
        Verdict { vsync: None, text }
    }

    /// The driver underneath (the strategy, game time, counters).
    #[cfg(any(test, feature = "monitor"))]
    pub(crate) fn driver(&self) -> &FrameDriver {
        &self.driver
    }

    /// The driver underneath, for the settings a game does not have
    /// (a step limit, a tick rate that keeps the step cap).
    #[cfg(any(test, feature = "monitor"))]
    pub(crate) fn driver_mut(&mut self) -> &mut FrameDriver {
        &mut self.driver
    }

    /// Frames started so far (the id of the latest).
    #[cfg(feature = "monitor")]
    pub(crate) fn frames_started(&self) -> u64 {
        self.frames
    }

    /// When the latest frame asked the next to start (`None`: at once).
    #[cfg(feature = "monitor")]
    pub(crate) fn last_wake(&self) -> Option<Nanos> {
        self.last_wake
    }

    /// What the display's feedback said so far ([`Pacer::displayed`]).
    #[cfg(feature = "monitor")]
    pub(crate) fn compositor_word(&self) -> Option<crate::refresh::CompositorWord> {
        self.meter.compositor_word(&mut alloc::vec::Vec::new())
    }

    /// The refresh meter the presents feed ([`crate::session::Session`]
    /// feeds it what its host measures).
    #[cfg(feature = "monitor")]
    pub(crate) fn meter_mut(&mut self) -> &mut RefreshMeter {
        &mut self.meter
    }

    #[cfg(feature = "monitor")]
    pub(crate) fn meter(&self) -> &RefreshMeter {
        &self.meter
    }
}

/// What the closures of [`run`] get besides the game: the loop's counters
/// and the pacer's settings, so that a game needs no clock or counter of its
/// own to exit, switch strategy, resync after a load, change the time scale
/// or show the vsync verdict (`run` times the present for it).
///
/// ```no_run
/// use std::time::Duration;
/// use timestep_core::{Pacer, Rate, StrategyId, pacer};
///
/// let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
/// let mut position = 0.0_f64;
/// pacer::run(
///     &mut pacer,
///     &mut position,
///     |position, _ctx, dt| *position += dt.as_secs_f64(),
///     |position, ctx, frame| {
///         let _x = frame.blend(*position - 1.0 / 60.0, *position); // draw it
///         if ctx.running_time() >= Duration::from_secs(5) {
///             println!("{}", ctx.pacer().verdict().text);
///             ctx.exit();
///         }
///     },
///     |_position| {}, // present it: under vsync this blocks until the refresh
/// );
/// ```
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
#[derive(Debug)]
pub struct LoopContext<'a> {
    pacer: &'a mut Pacer,
    started: Instant,
    frame_start: Instant,
    last_frame: Duration,
    renders: u64,
    exit: bool,
}

#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
impl LoopContext<'_> {
    /// Wall time since the loop's first frame started.
    pub fn running_time(&self) -> Duration {
        self.frame_start.saturating_duration_since(self.started)
    }

    /// Frames rendered before this one.
    pub fn renders(&self) -> u64 {
        self.renders
    }

    /// How long the previous frame took, from its start to this frame's start.
    pub fn last_frame_time(&self) -> Duration {
        self.last_frame
    }

    /// Ends the loop after this frame: [`run`] returns once it is presented.
    pub fn exit(&mut self) {
        self.exit = true;
    }

    /// Switches strategy, keeping the tick phase ([`Pacer::set_strategy`]).
    pub fn set_strategy(&mut self, strategy: StrategyId) {
        self.pacer.set_strategy(strategy);
    }

    /// Drops the backlog after a load or a pause ([`Pacer::resync`]).
    pub fn resync(&mut self) {
        self.pacer.resync();
    }

    /// Game time runs `scale` times as fast from now on ([`Pacer::set_time_scale`]).
    pub fn set_time_scale(&mut self, scale: f64) {
        self.pacer.set_time_scale(scale);
    }

    /// The pacer, for everything else it says: [`Pacer::total_updates`],
    /// [`Pacer::game_time`], [`Pacer::strategy`], [`Pacer::verdict`], …
    pub fn pacer(&self) -> &Pacer {
        self.pacer
    }
}

/// Runs `game` in a loop on the real clock until a closure calls
/// [`LoopContext::exit`]: each frame steps with `update`, draws with
/// `render`, shows the picture with `present` (whose blocking `run` times
/// and tells the pacer: what its vsync verdict rests on), then sleeps until
/// the wake ([`crate::sleep_until`], spinning the last
/// [`crate::DEFAULT_SPIN`]). `update` and `render` get a [`LoopContext`].
/// Not on wasm32, where the page's requestAnimationFrame owns the loop.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
pub fn run<G>(
    pacer: &mut Pacer,
    game: &mut G,
    update: impl FnMut(&mut G, &mut LoopContext<'_>, Duration),
    render: impl FnMut(&mut G, &mut LoopContext<'_>, &Frame),
    present: impl FnMut(&mut G),
) {
    let wait = |wake| crate::time::sleep_until(wake, crate::time::DEFAULT_SPIN);
    run_on(pacer, game, Instant::now, wait, update, render, present);
}

/// [`run`] on `clock`, waiting with `wait`: a test's manual clock, or the real one.
#[cfg(all(feature = "std", not(target_arch = "wasm32")))]
fn run_on<G>(
    pacer: &mut Pacer,
    game: &mut G,
    mut clock: impl FnMut() -> Instant,
    mut wait: impl FnMut(Instant),
    mut update: impl FnMut(&mut G, &mut LoopContext<'_>, Duration),
    mut render: impl FnMut(&mut G, &mut LoopContext<'_>, &Frame),
    mut present: impl FnMut(&mut G),
) {
    let started = clock();
    let mut ctx =
        LoopContext { pacer, started, frame_start: started, last_frame: Duration::ZERO, renders: 0, exit: false };
    loop {
        let now = clock();
        ctx.last_frame = now.saturating_duration_since(ctx.frame_start);
        ctx.frame_start = now;
        let frame = ctx.pacer.advance(now);
        for dt in frame.updates() {
            update(game, &mut ctx, dt);
        }
        render(game, &mut ctx, &frame);
        ctx.renders += 1;
        let before = clock();
        present(game);
        let after = clock();
        let shown = Present::at(after).blocked(after.saturating_duration_since(before));
        for dt in ctx.pacer.presented(shown) {
            update(game, &mut ctx, dt);
        }
        let wake = ctx.pacer.finish(clock());
        if ctx.exit {
            return;
        }
        if let Some(wake) = wake {
            wait(wake);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{FrameHost, Simulation};
    use crate::time::{Clock, ManualClock, NANOS_PER_SEC};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// What a frame costs on the test machine: each step, and the render.
    const STEP_COST: Nanos = 100_000;
    const RENDER_COST: Nanos = 2_000_000;

    #[test]
    fn consuming_updates_hands_out_what_stepping_them_one_by_one_does() {
        let dt = Duration::from_nanos(16_666_667);
        for n in [0, 1, 2, 3, 9] {
            let updates = Updates { left: n, dt };
            let stepped: alloc::vec::Vec<Duration> = core::iter::from_fn({
                let mut each = updates;
                move || each.next()
            })
            .collect();
            let mut folded = alloc::vec::Vec::new();
            updates.for_each(|dt| folded.push(dt));
            assert_eq!(folded, stepped, "{n} updates: for_each (fold) and next agree");
            assert_eq!(updates.count(), n as usize, "{n} updates counted");
            let mut partly = updates;
            let first = partly.next();
            assert_eq!(partly.fold(0, |k, _| k + 1), n.saturating_sub(1), "{n} updates: the rest after one next");
            assert_eq!(first.is_some(), n > 0, "{n} updates: the first next");
        }
    }

    /// The clock's zero as an instant: tests add manual offsets, never sleep.
    #[cfg(feature = "std")]
    fn at(base: Instant, t: Nanos) -> Instant {
        base + nanos_to_duration(t)
    }

    /// The first refresh boundary of `refresh` after `now`: when a vsynced present returns.
    fn next_vblank(refresh: Rate, now: Nanos) -> Nanos {
        refresh.tick_time_ceil(refresh.ticks_in(now) + 1)
    }

    struct Counter;

    impl Simulation for Counter {
        fn step(&mut self, _dt: Nanos) {}
    }

    /// The lab's host: a manual clock, modelled costs, presents on a vsync grid.
    struct VsyncHost {
        clock: ManualClock,
        refresh: Rate,
    }

    impl FrameHost<Counter> for VsyncHost {
        fn now(&mut self) -> Nanos {
            self.clock.now()
        }
        fn after_step(&mut self) {
            self.clock.advance_by(STEP_COST);
        }
        fn render(&mut self, _world: &Counter, _view: View) {
            self.clock.advance_by(RENDER_COST);
        }
        fn present(&mut self) -> Nanos {
            self.clock.advance_to(next_vblank(self.refresh, self.clock.now()));
            self.clock.now()
        }
    }

    /// A run of frames on a vsync grid: `frames` of them, and before frame
    /// `stall.0` the machine stops for `stall.1` (a load, a suspend).
    #[derive(Clone, Copy)]
    struct Run {
        tick: Rate,
        refresh: Rate,
        frames: usize,
        stall: (usize, Nanos),
    }

    impl Run {
        fn smooth(tick: Rate, refresh: Rate, frames: usize) -> Run {
            Run { tick, refresh, frames, stall: (usize::MAX, 0) }
        }

        fn stall_before(&self, frame: usize) -> Nanos {
            if frame == self.stall.0 { self.stall.1 } else { 0 }
        }
    }

    /// Updates per frame from a pacer built as the lab builds one
    /// (`StrategyConfig::default().with_tick_rate`), driven through a host (the lab's loop).
    fn hosted_updates(id: StrategyId, run: Run) -> Vec<u32> {
        let mut pacer = Pacer::with_config(id, StrategyConfig::default().with_tick_rate(run.tick));
        pacer.set_refresh(Some(run.refresh));
        let mut host = VsyncHost { clock: ManualClock::default(), refresh: run.refresh };
        (0..run.frames)
            .map(|frame| {
                host.clock.advance_by(run.stall_before(frame));
                let report = pacer.run_host_frame(&mut Counter, &mut host);
                if let Some(wake) = report.wake.at {
                    host.clock.advance_to(wake);
                }
                report.updates
            })
            .collect()
    }

    /// Updates per frame from a game's `Pacer::new` in its own loop, with the same costs.
    fn pacer_updates(id: StrategyId, run: Run) -> Vec<u32> {
        let mut pacer = Pacer::new(id, run.tick);
        pacer.set_refresh(Some(run.refresh));
        let mut clock = ManualClock::default();
        (0..run.frames)
            .map(|frame| {
                clock.advance_by(run.stall_before(frame));
                let before = pacer.advance_at(clock.now()).updates().len();
                clock.advance_by(STEP_COST * before as Nanos + RENDER_COST);
                clock.advance_to(next_vblank(run.refresh, clock.now()));
                let after = pacer.presented_at(clock.now(), None).len();
                clock.advance_by(STEP_COST * after as Nanos);
                if let Some(wake) = pacer.finish_at(clock.now()) {
                    clock.advance_to(wake);
                }
                u32::try_from(before + after).unwrap()
            })
            .collect()
    }

    /// [`pacer_updates`] through the `Instant` calls, from an instant some way into the run.
    #[cfg(feature = "std")]
    fn instant_pacer_updates(id: StrategyId, run: Run) -> Vec<u32> {
        let mut pacer = Pacer::new(id, run.tick);
        pacer.set_refresh(Some(run.refresh));
        let (base, mut clock) = (Instant::now(), ManualClock::default());
        (0..run.frames)
            .map(|frame| {
                clock.advance_by(run.stall_before(frame));
                let before = pacer.advance(at(base, clock.now())).updates().len();
                clock.advance_by(STEP_COST * before as Nanos + RENDER_COST);
                clock.advance_to(next_vblank(run.refresh, clock.now()));
                let after = pacer.presented(at(base, clock.now())).len();
                clock.advance_by(STEP_COST * after as Nanos);
                if let Some(wake) = pacer.finish(at(base, clock.now())) {
                    clock.advance_to(duration_to_nanos(wake - base));
                }
                u32::try_from(before + after).unwrap()
            })
            .collect()
    }

    #[test]
    fn every_strategy_steps_through_a_host_as_in_a_games_own_loop_on_60_and_144_hz_vsync() {
        for hz in [60, 144] {
            let run = Run::smooth(Rate::from_hz(60), Rate::from_hz(hz), 2 * hz as usize);
            for id in StrategyId::ALL {
                let lab = hosted_updates(id, run);
                assert_eq!(pacer_updates(id, run), lab, "{id} at {}", run.refresh);
                #[cfg(feature = "std")]
                assert_eq!(instant_pacer_updates(id, run), lab, "{id} at {}, on Instants", run.refresh);
            }
        }
    }

    #[test]
    fn the_lab_and_a_games_pacer_new_run_the_same_steps_through_a_stall_at_2_30_60_and_240_hz_ticks() {
        for hz in [2, 30, 60, 240] {
            // Three seconds of 60 Hz frames with a 4 s stall after the first,
            // then a 250 ms one: beyond every lag limit, then within it.
            let tick = Rate::from_hz(hz);
            let stalled = Run { tick, refresh: Rate::from_hz(60), frames: 180, stall: (60, 4 * NANOS_PER_SEC) };
            let hiccup = Run { stall: (90, 250_000_000), ..stalled };
            for run in [stalled, hiccup] {
                for id in StrategyId::ALL {
                    let lab = hosted_updates(id, run);
                    assert_eq!(pacer_updates(id, run), lab, "{id} at a {tick} tick, stall {:?}", run.stall);
                }
            }
        }
    }

    #[test]
    fn a_4_s_stall_at_a_2_hz_tick_is_dropped_by_the_lab_as_by_a_game() {
        let run =
            Run { tick: Rate::from_hz(2), refresh: Rate::from_hz(60), frames: 70, stall: (60, 4 * NANOS_PER_SEC) };
        let after_stall = hosted_updates(StrategyId::CatchUp, run)[60];
        assert_eq!(after_stall, 0, "the lab no longer replays the stall as 8 ticks in one frame");
        assert_eq!(pacer_updates(StrategyId::CatchUp, run)[60], 0, "and neither does a game");
    }

    #[test]
    fn a_game_on_its_own_nanosecond_clock_runs_60_exact_ticks_in_a_second_at_60_hz() {
        let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
        let mut clock = ManualClock::default();
        let mut dts = Vec::new();
        while clock.now() <= NANOS_PER_SEC {
            dts.extend(pacer.advance_at(clock.now()).updates());
            clock.advance_by(2_000_000);
            assert_eq!(pacer.presented_at(clock.now(), Some(1_000_000)).len(), 0, "catch-up steps before drawing");
            assert_eq!(pacer.finish_at(clock.now()), None, "vsync paces a catch-up loop");
            clock.advance_by(8_000_000);
        }
        assert_eq!(dts, [Duration::from_nanos(16_666_667); 60], "ticks 1 to 60, the last at 1 s exactly");
        assert_eq!((pacer.total_updates(), pacer.game_time()), (60, Duration::from_secs(1)));
    }

    #[test]
    fn fixed_fps_wakes_on_the_60_hz_grid_of_the_game_s_clock() {
        let mut pacer = Pacer::new(StrategyId::FixedFps, Rate::from_hz(60));
        let mut clock = ManualClock::default();
        let wakes: Vec<_> = (0..3)
            .map(|_| {
                let _frame = pacer.advance_at(clock.now());
                clock.advance_by(3_000_000);
                let _updates = pacer.presented_at(clock.now(), None);
                let wake = pacer.finish_at(clock.now()).expect("fixed-fps sets its own wake");
                clock.advance_to(wake);
                wake
            })
            .collect();
        assert_eq!(wakes, [16_666_666, 33_333_333, 50_000_000], "n / 60 s, floored to the nanosecond");
        assert_eq!(pacer.total_updates(), 3, "one tick a frame");
    }

    #[test]
    fn two_seconds_of_60_hz_ticks_are_120_updates_except_for_lockstep_at_144_hz() {
        let total = |id, hz| {
            let run = Run::smooth(Rate::from_hz(60), Rate::from_hz(hz), 2 * hz as usize);
            pacer_updates(id, run).iter().sum::<u32>()
        };
        assert_eq!(total(StrategyId::Lockstep, 60), 120);
        assert_eq!(total(StrategyId::Lockstep, 144), 288, "one tick a frame: 2.4 times too fast");
        assert_eq!(total(StrategyId::Interpolated, 144), 119, "the first frame only starts the clock");
    }

    /// Frames every 1/60 s from 0 to `until` (waiting for a later wake), each
    /// costing nothing; returns the updates of each frame.
    fn frames_until(pacer: &mut Pacer, from: Nanos, until: Nanos) -> Vec<usize> {
        let (mut now, mut steps) = (from, Vec::new());
        let display = Rate::from_hz(60);
        while now <= until {
            let n = pacer.advance_at(now).updates().len() + pacer.presented_at(now, None).len();
            steps.push(n);
            let wake = pacer.finish_at(now).unwrap_or(0);
            now = wake.max(next_vblank(display, now));
        }
        steps
    }

    #[test]
    fn a_4_s_stall_at_2_hz_replays_no_tick_with_any_strategy_but_its_one_step_a_frame() {
        let after_stall = StrategyId::ALL.map(|id| {
            let mut pacer = Pacer::new(id, Rate::from_hz(2));
            frames_until(&mut pacer, 0, NANOS_PER_SEC);
            let stalled = 5 * NANOS_PER_SEC;
            frames_until(&mut pacer, stalled, stalled)[0]
        });
        // Frame-paced strategies run their one step a frame; the accumulators
        // drop the stall whole; `variable` steps one tick instead of 4 s.
        assert_eq!(after_stall, [1, 1, 1, 0, 0, 0, 0, 0, 1, 0], "in the order of StrategyId::ALL");
    }

    #[test]
    fn resync_drops_the_backlog_of_a_load() {
        let run = |resync: bool| {
            let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
            frames_until(&mut pacer, 0, 16_666_667);
            if resync {
                pacer.resync();
            }
            frames_until(&mut pacer, 516_666_667, 550_000_000)
        };
        assert_eq!(run(false), [10, 10, 10], "half a second of load is caught up, 10 ticks a frame");
        assert_eq!(run(true), [0, 1, 1], "after a resync the next frame starts the clock afresh");
    }

    #[test]
    fn a_time_scale_of_one_half_halves_the_steps_over_a_second() {
        let steps_in_a_second = |scale: f64| {
            let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
            pacer.set_time_scale(scale);
            frames_until(&mut pacer, 0, NANOS_PER_SEC).iter().sum::<usize>()
        };
        assert_eq!(steps_in_a_second(1.0), 60);
        assert_eq!(steps_in_a_second(0.5), 30);
        assert_eq!(steps_in_a_second(2.0), 120);
    }

    #[test]
    fn a_scaled_frame_paced_strategy_wakes_on_the_scaled_schedule() {
        let mut pacer = Pacer::new(StrategyId::FixedFps, Rate::from_hz(60));
        pacer.set_time_scale(0.5);
        let _frame = pacer.advance_at(0);
        assert_eq!(pacer.finish_at(0), Some(33_333_332), "tick 1 of game time, 2 × 16_666_666 ns of wall time");
        assert_eq!(pacer.time_scale(), 0.5);
    }

    #[test]
    fn variable_runs_one_update_of_the_frame_time() {
        let mut pacer = Pacer::new(StrategyId::Variable, Rate::from_hz(60));
        assert_eq!(pacer.advance_at(0).updates().len(), 0);
        pacer.finish_at(0);
        let frame = pacer.advance_at(7_000_000);
        assert_eq!(frame.updates().collect::<Vec<_>>(), [Duration::from_millis(7)]);
        assert_eq!((frame.alpha(), frame.ahead()), (1.0, Duration::ZERO), "the latest state, as it is");
        assert_eq!(pacer.game_time(), Duration::from_millis(7));
    }

    #[test]
    fn paced_draws_first_and_steps_after_the_present() {
        let mut pacer = Pacer::new(StrategyId::Paced, Rate::from_hz(200));
        pacer.set_refresh(Some(Rate::new(125, 2).unwrap()));
        let frame = pacer.advance_at(0);
        assert!(frame.renders_first());
        assert_eq!(frame.updates().len(), 0, "nothing before the picture");
        let late = pacer.presented_at(3_000_000, None);
        assert_eq!(late.collect::<Vec<_>>(), [Duration::from_millis(5); 4], "simulates just past the 16 ms frame end");
        assert_eq!(pacer.finish_at(7_000_000), Some(16_000_000));
        assert_eq!(pacer.presented_at(17_000_000, None).len(), 0, "a present without a frame steps nothing");
    }

    #[test]
    fn extrapolated_frames_say_how_far_ahead_to_draw() {
        let mut pacer = Pacer::new(StrategyId::Extrapolated, Rate::from_hz(60));
        let _frame = pacer.advance_at(0);
        pacer.finish_at(0);
        let frame = pacer.advance_at(20_000_000);
        assert_eq!(frame.updates().len(), 1);
        assert_eq!(frame.ahead(), Duration::from_nanos(20_000_000 - 16_666_666));
        assert_eq!(frame.alpha(), 1.0);
        // 3_333_334 ns ahead of a 16_666_667 ns tick: a fifth of the last change, and a hair more.
        assert_eq!(frame.blend(10.0, 20.0), 20.0 + 10.0 * (3_333_334.0 / 16_666_667.0));
    }

    /// A second of presents on a 60 Hz grid, each blocked `blocked` (`None`: not said).
    fn verdict_after_presents(blocked: Option<Nanos>) -> Verdict {
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
        pacer.set_refresh(Some(Rate::from_hz(60)));
        for k in 0..=60 {
            let now = Rate::from_hz(60).tick_time_ceil(k);
            let _frame = pacer.advance_at(now);
            let _updates = pacer.presented_at(now, blocked);
            pacer.finish_at(now);
        }
        pacer.verdict()
    }

    #[cfg(feature = "std")]
    #[test]
    fn presents_as_instants_measure_as_the_same_presents_in_nanoseconds() {
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
        pacer.set_refresh(Some(Rate::from_hz(60)));
        let base = Instant::now();
        for k in 0..=60 {
            let now = at(base, Rate::from_hz(60).tick_time_ceil(k));
            let _frame = pacer.advance(now);
            let _updates = pacer.presented(Present::at(now).blocked(Duration::from_millis(14)));
            pacer.finish(now);
        }
        assert_eq!(pacer.verdict(), verdict_after_presents(Some(14_000_000)));
    }

    #[test]
    fn presents_that_block_at_the_refresh_rate_are_judged_vsync() {
        let verdict = verdict_after_presents(Some(14_000_000));
        assert_eq!(verdict.vsync, Some(true), "{}", verdict.text);
        assert_eq!(
            verdict.text,
            "vsync requested, frames every 16.7 ms (60.0 Hz), monitor reports 60.00 Hz: vsync in effect, every refresh"
        );
    }

    #[test]
    fn without_blocking_times_the_verdict_cannot_tell_vsync_from_a_fast_loop() {
        let verdict = verdict_after_presents(None);
        assert_eq!(verdict.vsync, None, "{}", verdict.text);
        assert!(verdict.text.ends_with("present blocking not reported (Present::blocked): vsync cannot be judged"));
    }

    #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
    #[test]
    fn a_run_loop_s_closures_count_time_and_frames_and_change_the_pacer_without_a_clock_of_their_own() {
        use core::cell::Cell;
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(2));
        pacer.set_frame_limit(Some(Rate::from_hz(10)));
        let (base, now) = (Instant::now(), Cell::new(0));
        let (mut seen, mut ticks) = (Vec::new(), Vec::new());
        run_on(
            &mut pacer,
            &mut ticks,
            || at(base, now.get()),
            |wake| now.set(duration_to_nanos(wake - base)),
            |ticks, ctx, _dt| ticks.push(ctx.running_time().as_millis()),
            |_, ctx, _frame| {
                let ms = |d: Duration| d.as_millis();
                seen.push((
                    ctx.renders(),
                    ms(ctx.running_time()),
                    ms(ctx.last_frame_time()),
                    ctx.pacer().total_updates(),
                ));
                if ctx.running_time() == Duration::from_millis(500) {
                    ctx.set_time_scale(2.0);
                }
                if ctx.running_time() >= Duration::from_secs(1) {
                    ctx.exit();
                }
            },
            |_| {},
        );
        assert_eq!(
            ticks,
            [500, 800, 1000],
            "ticks at 0.5 s, then twice as fast: game time 1 s at 0.75 s, 1.5 s at 1 s"
        );
        assert_eq!(seen.len(), 11, "frames on the 10 Hz limit's grid from 0 to 1 s");
        assert_eq!(seen[0], (0, 0, 0, 0));
        assert_eq!(seen[10], (10, 1000, 100, 3), "the frame that exits: the tenth render, 100 ms after the last");
        assert_eq!((pacer.game_time(), pacer.time_scale()), (Duration::from_millis(1500), 2.0));
    }

    /// The verdict of `frames` frames of [`run_on`] on a manual clock at a
    /// 60 Hz monitor: each render costs [`RENDER_COST`], each present `present`
    /// (given the clock after the render, it returns when the present does).
    #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
    fn verdict_of_a_run(frames: u64, present: impl Fn(Nanos) -> Nanos) -> Verdict {
        use core::cell::Cell;
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
        pacer.set_refresh(Some(Rate::from_hz(60)));
        let (base, now) = (Instant::now(), Cell::new(0));
        run_on(
            &mut pacer,
            &mut (),
            || at(base, now.get()),
            |wake| now.set(duration_to_nanos(wake - base)),
            |(), _ctx, _dt| {},
            |(), ctx, _frame| {
                now.set(now.get() + RENDER_COST);
                if ctx.renders() + 1 == frames {
                    ctx.exit();
                }
            },
            |()| now.set(present(now.get())),
        );
        pacer.verdict()
    }

    #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
    #[test]
    fn a_run_loop_whose_present_blocks_until_the_refresh_is_judged_vsynced() {
        // 90 frames, each drawn in 2 ms and presented at the next 60 Hz
        // vblank: the present blocks 14.67 ms of every 16.67.
        let verdict = verdict_of_a_run(90, |drawn| next_vblank(Rate::from_hz(60), drawn));
        assert_eq!(verdict.vsync, Some(true), "{}", verdict.text);
        assert_eq!(
            verdict.text,
            "vsync requested, frames every 16.7 ms (60.0 Hz), monitor reports 60.00 Hz: vsync in effect, every refresh"
        );
    }

    #[cfg(all(feature = "std", not(target_arch = "wasm32")))]
    #[test]
    fn a_run_loop_whose_present_returns_at_once_is_judged_not_vsynced() {
        // 750 frames of 2 ms each (1.5 s), the present returning at once:
        // a fast loop, not a display's refresh.
        let verdict = verdict_of_a_run(750, |drawn| drawn);
        assert_eq!(verdict.vsync, Some(false), "{}", verdict.text);
        assert_eq!(verdict.text, "vsync requested, frames every 2.0 ms: vsync not in effect");
    }

    #[test]
    fn a_frame_limit_wakes_on_its_grid_and_a_strategy_that_wakes_itself_keeps_it_too() {
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(2));
        pacer.set_frame_limit(Some(Rate::from_hz(10)));
        let _frame = pacer.advance_at(0);
        assert_eq!(pacer.finish_at(1_000_000), Some(100_000_000));
        let _frame = pacer.advance_at(130_000_000);
        assert_eq!(pacer.finish_at(250_000_000), Some(200_000_000), "a late frame: the next starts at once");
        let mut fixed = Pacer::new(StrategyId::FixedFps, Rate::from_hz(60));
        fixed.set_frame_limit(Some(Rate::from_hz(10)));
        let _frame = fixed.advance_at(0);
        assert_eq!(fixed.finish_at(0), Some(100_000_000), "fixed-fps at 60 Hz waits for the 10 Hz limit");
        let mut slow = Pacer::new(StrategyId::FixedFps, Rate::from_hz(5));
        slow.set_frame_limit(Some(Rate::from_hz(10)));
        let _frame = slow.advance_at(0);
        assert_eq!(slow.finish_at(0), Some(200_000_000), "a schedule slower than the limit is its own");
    }

    #[test]
    fn a_vrr_display_the_presents_show_is_taken_as_declared_and_auto_paces_for_it() {
        // A 144 Hz monitor whose frames sweep from 50 to 140 Hz in 3 s, each
        // shown by a VRR panel when ready.
        let range: VrrRange = "vrr:48-144".parse().expect("range");
        let mut panel = crate::vrr::VrrPanel::new(range);
        let mut pacer = Pacer::new(StrategyId::Auto, Rate::from_hz(60));
        pacer.set_refresh(Some(Rate::from_hz(144)));
        let mut t = 0.0;
        while t < 3.0 {
            let start = crate::time::secs_to_nanos(t);
            let _frame = pacer.advance_at(start);
            let shown = panel.show(start + 3_000_000);
            let _updates = pacer.presented_at(shown, Some(100_000));
            pacer.finish_at(shown);
            t += 1.0 / (50.0 + 90.0 * t / 3.0);
        }
        let told = pacer.vrr().expect("VRR detected");
        assert_eq!(told.max(), Rate::from_hz(144), "the reported refresh is the panel's maximum: {told}");
        assert!(told.min().hz() <= 52.0, "{told}");
        let _frame = pacer.advance_at(3 * NANOS_PER_SEC);
        assert!(pacer.status().starts_with("paced for VRR"), "{}", pacer.status());
        assert!(pacer.verdict().text.contains("VRR in effect"), "{}", pacer.verdict().text);
    }

    #[test]
    fn a_display_that_reports_no_refresh_is_never_taken_for_vrr() {
        let mut pacer = Pacer::new(StrategyId::Auto, Rate::from_hz(60));
        for k in 0..600u64 {
            let start = k * 10_000_000;
            let _frame = pacer.advance_at(start);
            let _updates = pacer.presented_at(start + 2_000_000 + (k % 7) * 1_000_000, Some(100_000));
            pacer.finish_at(start + 9_000_000);
        }
        assert_eq!(pacer.vrr(), None, "unreported: a vsync the driver ignores looks the same");
    }

    /// A host without vsync: a present shows at once; a frame costs 1 ms of render.
    struct FreeHost(ManualClock);

    impl FrameHost<Counter> for FreeHost {
        fn now(&mut self) -> Nanos {
            self.0.now()
        }
        fn render(&mut self, _world: &Counter, _view: View) {
            self.0.advance_by(1_000_000);
        }
        fn present(&mut self) -> Nanos {
            self.0.now()
        }
        fn hold_until(&mut self, t: Nanos) {
            self.0.advance_to(t);
        }
    }

    #[test]
    fn no_strategy_starts_frames_faster_than_the_frame_limit() {
        // 100 Hz ticks (fixed-fps would run 100 frames a second, paced 60,
        // the rest as fast as 1 ms renders allow); the limit is 50 Hz.
        let limit = Rate::from_hz(50);
        for id in StrategyId::ALL {
            let mut pacer = Pacer::with_config(id, StrategyConfig::default().with_tick_rate(Rate::from_hz(100)));
            pacer.set_frame_limit(Some(limit));
            let mut host = FreeHost(ManualClock::default());
            let mut starts = Vec::new();
            while host.0.now() < NANOS_PER_SEC {
                let report = pacer.run_host_frame(&mut Counter, &mut host);
                starts.push(report.start);
                if let Some(wake) = report.wake.at {
                    host.0.advance_to(wake);
                }
            }
            for pair in starts.windows(2) {
                let slot = |t: Nanos| limit.ticks_in(t);
                assert!(
                    slot(pair[1]) > slot(pair[0]),
                    "{id}: frames at {} and {} ns share a 20 ms slot",
                    pair[0],
                    pair[1]
                );
            }
            assert_eq!(starts.len(), 50, "{id}: one frame per 20 ms in a second");
        }
    }

    #[test]
    fn a_scale_change_mid_run_keeps_the_game_time_so_far() {
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(60));
        assert_eq!(frames_until(&mut pacer, 0, NANOS_PER_SEC).iter().sum::<usize>(), 60);
        pacer.set_time_scale(0.5);
        let second = frames_until(&mut pacer, 1_016_666_667, 2 * NANOS_PER_SEC);
        assert_eq!(second.iter().sum::<usize>(), 30, "the second second at half speed");
        assert_eq!(pacer.game_time(), Duration::from_millis(1500));
    }

    #[test]
    fn the_scaled_wall_time_of_a_game_time_is_the_first_that_reaches_it() {
        let half = Scale::new(SCALE_UNIT / 2, 10, 100);
        assert_eq!(half.game_at(2010), 1100);
        assert_eq!(half.wall_at(1100), 2010);
        assert_eq!((half.game_at(2011), half.wall_at(1101)), (1100, 2012), "odd nanoseconds round up");
        let third = Scale::new(SCALE_UNIT / 3, 0, 0);
        assert_eq!(third.wall_at(0), 0);
        for game in [1, 2, 3, 333_333, 1_000_000_007] {
            let wall = third.wall_at(game);
            assert!(third.game_at(wall) >= game, "game time {game} is reached at {wall}");
            assert!(third.game_at(wall - 1) < game, "and not a nanosecond before");
        }
    }

    #[test]
    fn the_scales_fast_paths_give_the_128_bit_quotients() {
        let exact_game = |s: &Scale, wall: Nanos| {
            let since = u128::from(wall.saturating_sub(s.wall));
            let scaled = since * u128::from(s.num) / u128::from(SCALE_UNIT);
            s.game.saturating_add(u64::try_from(scaled).unwrap_or(u64::MAX))
        };
        let exact_wall = |s: &Scale, game: Nanos| {
            let since = u128::from(game.saturating_sub(s.game));
            let wall = (since * u128::from(SCALE_UNIT)).div_ceil(u128::from(s.num));
            s.wall.saturating_add(u64::try_from(wall).unwrap_or(u64::MAX))
        };
        let times = [0, 1, 999_999, 1_000_001, 16_666_667, NANOS_PER_SEC, u64::MAX / 1000 + 7, u64::MAX / 3, u64::MAX];
        // From (0, 0) at scale 1: the identity path, which skips the sums.
        for (wall, game) in [(10, 100), (0, 0), (0, 100), (10, 0)] {
            for num in [1, 333_333, SCALE_UNIT / 2, SCALE_UNIT, SCALE_UNIT + 1, 1000 * SCALE_UNIT] {
                let scale = Scale::new(num, wall, game);
                assert_eq!(scale.identity, (num, wall, game) == (SCALE_UNIT, 0, 0));
                for t in times {
                    assert_eq!(scale.game_at(t), exact_game(&scale, t), "game at {t}, scale {num} from {wall}, {game}");
                    assert_eq!(scale.wall_at(t), exact_wall(&scale, t), "wall at {t}, scale {num} from {wall}, {game}");
                }
            }
        }
    }

    #[test]
    fn a_new_tick_rate_brings_its_step_cap_and_keeps_the_other_settings() {
        use crate::strategy::FuzzyVariant;
        let config = StrategyConfig { fuzzy_variant: FuzzyVariant::Fuzzy6062, ..StrategyConfig::default() };
        let mut pacer = Pacer::with_config(StrategyId::Fuzzy, config);
        pacer.set_tick_rate(Rate::from_hz(2));
        assert_eq!(pacer.config().tick_rate, Rate::from_hz(2));
        assert_eq!((pacer.config().step_cap(), pacer.config().lag_limit()), (1, Duration::from_millis(1500)));
        assert_eq!(pacer.config().fuzzy_variant, FuzzyVariant::Fuzzy6062);
        assert_eq!(pacer.tick_period(), Duration::from_millis(500));
    }

    #[test]
    fn switching_strategy_keeps_the_game_time_and_the_tick_phase() {
        let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
        frames_until(&mut pacer, 0, 100_000_000);
        assert_eq!(pacer.total_updates(), 6);
        pacer.set_strategy(StrategyId::Variable);
        assert_eq!(pacer.strategy(), StrategyId::Variable);
        assert_eq!(frames_until(&mut pacer, 200_000_000, 200_000_000), [1], "variable steps from the last tick on");
        assert_eq!(pacer.game_time(), Duration::from_nanos(200_000_000), "six ticks of 60 Hz and 100 ms, exactly");
    }

    /// The times of the frames (every 1/60 s from `from` to `until`) that ran steps, in ms.
    fn stepping_frames_ms(pacer: &mut Pacer, from: u64, until: u64) -> Vec<Nanos> {
        let display = Rate::from_hz(60);
        let mut stepped = Vec::new();
        for k in from..=until {
            let now = display.tick_time_ceil(k);
            let n = pacer.advance_at(now).updates().len() + pacer.presented_at(now, None).len();
            if n > 0 {
                stepped.push(now / 1_000_000);
            }
            let _wake = pacer.finish_at(now);
        }
        stepped
    }

    #[test]
    fn interpolated_to_fuzzy_at_1_005_s_on_a_2_hz_tick_ticks_next_at_1_5_s() {
        let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(2));
        assert_eq!(stepping_frames_ms(&mut pacer, 0, 60), [500, 1000], "60 Hz frames from 0 to 1 s");
        pacer.set_strategy(StrategyId::Fuzzy); // at 1.005 s: between frames, the switch reads no clock
        assert_eq!(stepping_frames_ms(&mut pacer, 61, 120), [1500, 2000], "in phase, not 1.5 s after the switch");
        assert_eq!(pacer.game_time(), Duration::from_secs(2));
    }

    #[test]
    fn the_first_frame_after_a_switch_runs_the_ticks_due() {
        let after_switch = StrategyId::ALL.map(|id| {
            let mut pacer = Pacer::new(StrategyId::Interpolated, Rate::from_hz(2));
            let _first = pacer.advance_at(0);
            let _wake = pacer.finish_at(0);
            assert_eq!(pacer.advance_at(900_000_000).updates().len(), 1, "the tick at 0.5 s");
            let _wake = pacer.finish_at(900_000_000);
            pacer.set_strategy(id);
            let steps = pacer.advance_at(1_200_000_000).updates().len();
            steps + pacer.presented_at(1_200_000_000, None).len()
        });
        // The tick at 1 s is due at 1.2 s: every strategy runs it (`variable`
        // as one step of 0.7 s); before, only those that step every frame did.
        assert_eq!(after_switch, [1; 10], "in the order of StrategyId::ALL");
    }

    #[test]
    fn a_switch_keeps_a_tick_of_phase_at_most_so_lockstep_s_own_clock_neither_bursts_nor_freezes() {
        let display = Rate::from_hz(144);
        let steps_after_switch = |from: StrategyId| {
            let mut pacer = Pacer::new(from, Rate::from_hz(60));
            // A second of 144 Hz frames: lockstep's 144 ticks say 2.4 s.
            for k in 0..=144 {
                let now = display.tick_time_ceil(k);
                let _updates = pacer.advance_at(now).updates().len() + pacer.presented_at(now, None).len();
                let _wake = pacer.finish_at(now);
            }
            pacer.set_strategy(StrategyId::CatchUp);
            (145..=216).map(|k| pacer.advance_at(display.tick_time_ceil(k)).updates().len()).collect::<Vec<_>>()
        };
        for from in [StrategyId::Lockstep, StrategyId::Interpolated, StrategyId::Paced] {
            let steps = steps_after_switch(from);
            let total: usize = steps.iter().sum();
            assert!(steps.iter().all(|&n| n <= 1), "{from} -> catch-up: no burst: {steps:?}");
            assert!(
                (29..=31).contains(&total),
                "{from} -> catch-up: half a second is 30 ticks, not {total}: {steps:?}"
            );
        }
    }

    #[test]
    fn after_a_switch_an_interpolated_picture_moves_on_at_once_instead_of_freezing_a_tick() {
        for to in [StrategyId::Interpolated, StrategyId::Snapped, StrategyId::Paced] {
            let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
            let refresh = Rate::from_hz(60);
            pacer.set_refresh(Some(refresh));
            let mut host = VsyncHost { clock: ManualClock::default(), refresh };
            let mut frame = |pacer: &mut Pacer| {
                let report = pacer.run_host_frame(&mut Counter, &mut host);
                if let Some(wake) = report.wake.at {
                    host.clock.advance_to(wake);
                }
                report.content_time
            };
            for _ in 0..60 {
                frame(&mut pacer);
            }
            pacer.set_strategy(to);
            let shown: Vec<Nanos> = (0..10).map(|_| frame(&mut pacer)).collect();
            let steps: Vec<Nanos> = shown.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(steps.iter().all(|&d| d > 10_000_000), "{to}: every picture a refresh on: {steps:?}");
        }
    }

    #[test]
    fn a_pacer_can_be_cloned_and_debug_printed_inside_a_game_s_state() {
        #[derive(Clone, Debug)]
        struct Game {
            pacer: Pacer,
        }
        let mut game = Game { pacer: Pacer::new(StrategyId::CatchUp, Rate::from_hz(60)) };
        frames_until(&mut game.pacer, 0, 100_000_000);
        let mut copy = game.clone();
        assert!(format!("{game:?}").starts_with("Game { pacer: Pacer {"), "{game:?}");
        let steps = |pacer: &mut Pacer| frames_until(pacer, 150_000_000, 150_000_000);
        assert_eq!(steps(&mut copy.pacer), steps(&mut game.pacer), "the copy decides as the original");
        assert_eq!(copy.pacer.total_updates(), 9);
    }
}
