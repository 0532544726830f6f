//! The plugin's resources: the [`Pacer`] and what it decided this frame.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bevy_ecs::resource::Resource;
use timestep_core::refresh::Measured;
use timestep_core::time::{duration_to_nanos, nanos_to_duration};
use timestep_core::{EVENT_LOOP_EARLY, Frame, Nanos, Pacer, StrategyId, Updates, View};

/// How often, in frames, [`Vsync`] and [`MeasuredRefresh`] are brought up to
/// date: each look sorts the refresh meter's window and writes the verdict's
/// sentence (allocations), which every frame would pay for nothing; 128
/// frames are about a second at 120–144 Hz, half of one at 240.
pub const STATUS_EVERY: u64 = 128;

/// The strategy running: write it to switch (`*strategy = TimestepStrategy(StrategyId::Fuzzy)`).
/// The switch takes effect at the next frame's start; the world, game time
/// and tick phase are kept (the next tick falls due a period after the last
/// one run, as `Pacer::set_strategy` says).
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimestepStrategy(pub StrategyId);

/// The [`Pacer`] the plugin drives, and what it carries from one frame to the next.
///
/// The pacer sits behind a mutex only so that the resource is `Sync` for any
/// strategy (a game's own is `Send`); the plugin's systems reach it through
/// `&mut` without locking.
#[derive(Resource, Debug)]
pub struct Pacing {
    pacer: Mutex<Pacer>,
    /// The updates the last frame's present handed out (a render-first
    /// strategy's): run at the next frame's start, after its picture was drawn.
    pending: Updates,
    /// When the next frame should start, on the pacer's clock (`None`: at once).
    wake: Option<Nanos>,
    /// Frames finished.
    frames: u64,
    /// A frame started and has not ended yet.
    in_frame: bool,
    /// `Time<Virtual>` was paused: the pacer resyncs when it runs again.
    paused: bool,
    /// `Time<Virtual>`'s relative speed the pacer's time scale was last set to.
    speed: f64,
    /// The wake the plugin slept until before this frame (feature `winit`):
    /// the frame started no earlier, whatever instant Bevy's clock took
    /// (the render world's, at the last present).
    slept_until: Option<Nanos>,
    /// How long this frame's present blocked, if the game's renderer measured
    /// it: what tells vsync from a fast loop ([`Vsync`]). Read and cleared at
    /// the frame's end; unknown (`None`) leaves the verdict "cannot tell".
    pub present_blocked: Option<Duration>,
}

impl Pacing {
    /// Drives `pacer`.
    pub fn new(pacer: Pacer) -> Pacing {
        Pacing {
            pacer: Mutex::new(pacer),
            pending: Updates::NONE,
            wake: None,
            frames: 0,
            in_frame: false,
            paused: false,
            speed: 1.0,
            slept_until: None,
            present_blocked: None,
        }
    }

    /// The pacer, to read (its strategy, game time, updates so far, status).
    pub fn pacer(&self) -> MutexGuard<'_, Pacer> {
        self.pacer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pacer, to change its settings: tick rate, frame limit, refresh,
    /// `resync` after a load. Switch strategies with [`TimestepStrategy`]
    /// (the plugin sets the pacer to it each frame, so a `set_strategy` here
    /// is undone) and scale time with `Time<Virtual>`'s relative speed.
    pub fn pacer_mut(&mut self) -> &mut Pacer {
        self.pacer.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// When the next frame should start, as `Time<Real>`'s elapsed time
    /// (`None`: at once: vsync or the GPU paces the loop). Known from the
    /// frame's end (`Last`) on; a runner sleeps until then ([`crate::pacing_runner`]).
    pub fn wake(&self) -> Option<Duration> {
        self.wake.map(nanos_to_duration)
    }

    /// How long an event loop should wait after the start of the frame that
    /// began at `now` (`Time<Real>`'s elapsed time) before it runs the next:
    /// `None` to run it at once (no wake, or one within `EVENT_LOOP_EARLY`),
    /// else up to `EVENT_LOOP_EARLY` before the wake, since the event loop's
    /// timer wakes late (it may round to whole milliseconds) and the frame
    /// finishes the wait with `sleep_until`, as timestep-core's winit recipe does.
    pub fn event_loop_wait(&self, now: Duration) -> Option<Duration> {
        let wake = self.wake()?;
        (wake > now + EVENT_LOOP_EARLY).then(|| wake - now - EVENT_LOOP_EARLY)
    }

    /// The wake on the pacer's clock (nanoseconds of `Time<Real>`'s elapsed time).
    #[cfg_attr(not(feature = "winit"), expect(dead_code, reason = "only the winit systems sleep"))]
    pub(crate) fn wake_nanos(&self) -> Option<Nanos> {
        self.wake
    }

    /// The plugin slept until `wake` before the frame about to start: it
    /// starts no earlier (Bevy's clock may read the last present's instant).
    #[cfg_attr(not(any(feature = "winit", test)), expect(dead_code, reason = "only the winit systems sleep"))]
    pub(crate) fn slept_until(&mut self, wake: Nanos) {
        self.slept_until = Some(wake);
    }

    /// Frames finished so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The pending render-first updates, taken: they run now.
    pub(crate) fn take_pending(&mut self) -> Updates {
        core::mem::replace(&mut self.pending, Updates::NONE)
    }

    /// Bevy's virtual clock is paused: no frame starts, and the pacer
    /// forgets its backlog when it runs again (the pause is not owed in steps).
    pub(crate) fn pause(&mut self) {
        self.paused = true;
        self.in_frame = false;
    }

    /// A frame starts at `now` on the pacer's clock, running `wanted` at
    /// `speed` times the wall clock (`Time<Virtual>`'s relative speed): the
    /// pacer's frame, and one fixed step's `dt`.
    pub(crate) fn start_frame(&mut self, now: Nanos, wanted: Option<StrategyId>, speed: f64) -> (Frame, Duration) {
        let pacer = self.pacer.get_mut().unwrap_or_else(PoisonError::into_inner);
        if self.paused {
            pacer.resync();
            self.paused = false;
        }
        if let Some(strategy) = wanted
            && strategy != pacer.strategy()
        {
            pacer.set_strategy(strategy);
        }
        if speed.to_bits() != self.speed.to_bits() {
            pacer.set_time_scale(speed);
            self.speed = speed;
        }
        self.in_frame = true;
        let now = self.slept_until.take().map_or(now, |wake| now.max(wake));
        (pacer.advance_at(now), pacer.tick_period())
    }

    /// The frame ended at `now`: its present and its finish. Returns the
    /// number of updates the present handed out (kept to run next frame),
    /// `None` where no frame was started (Bevy's virtual clock is paused).
    pub(crate) fn finish_frame(&mut self, now: Nanos) -> Option<u32> {
        if !core::mem::replace(&mut self.in_frame, false) {
            return None;
        }
        let blocked = self.present_blocked.take().map(duration_to_nanos);
        let pacer = self.pacer.get_mut().unwrap_or_else(PoisonError::into_inner);
        let updates = pacer.presented_at(now, blocked);
        self.wake = pacer.finish_at(now);
        self.pending = updates;
        self.frames += 1;
        Some(u32::try_from(updates.len()).unwrap_or(u32::MAX))
    }
}

/// What a frame's picture shows between the last two fixed steps: the
/// blend factor of the frame the pacer started last, for interpolated
/// (`alpha`) and extrapolated (`ahead`) drawing. Every other strategy draws
/// the latest state: alpha 1.
///
/// `Time<Fixed>::overstep_fraction` says the same (the plugin sets the
/// overstep to alpha × the step), so a game that interpolates by it already
/// needs no change; `Blend` also says how far ahead to extrapolate.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct Blend {
    frame: Option<Frame>,
}

impl Blend {
    pub(crate) fn of(frame: Frame) -> Blend {
        Blend { frame: Some(frame) }
    }

    /// The interpolation factor between the previous state (0) and the current one (1).
    pub fn alpha(&self) -> f64 {
        self.frame.as_ref().map_or(1.0, Frame::alpha)
    }

    /// Which picture to draw: the latest state, a blend by `alpha`, or the latest moved `ahead`.
    pub fn view(&self) -> View {
        self.frame.as_ref().map_or(View::Latest, Frame::view)
    }

    /// How far past the current state to predict the picture (`extrapolated`), else zero.
    pub fn ahead(&self) -> Duration {
        self.frame.as_ref().map_or(Duration::ZERO, Frame::ahead)
    }

    /// What the picture shows of a quantity that was `previous` one step
    /// before its `current` value (`Frame::blend`).
    pub fn blend(&self, previous: f64, current: f64) -> f64 {
        self.frame.as_ref().map_or(current, |frame| frame.blend(previous, current))
    }

    /// The pacer's frame itself (`None` before the first).
    pub fn frame(&self) -> Option<&Frame> {
        self.frame.as_ref()
    }
}

/// How many times `FixedMain` runs for this frame: the update pattern.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameSteps {
    before_draw: u32,
    after_present: u32,
}

impl FrameSteps {
    /// Steps run before this frame's picture (all of them but `paced`'s).
    pub fn before_draw(&self) -> u32 {
        self.before_draw
    }

    /// Steps the frame's present handed out (`paced`, which draws first):
    /// known at the frame's end, run at the next frame's start.
    pub fn after_present(&self) -> u32 {
        self.after_present
    }

    /// Both: the frame's updates, as the virtual monitor counts them.
    pub fn total(&self) -> u32 {
        self.before_draw + self.after_present
    }

    pub(crate) fn started(before_draw: u32) -> FrameSteps {
        FrameSteps { before_draw, after_present: 0 }
    }

    pub(crate) fn presented(&mut self, after_present: u32) {
        self.after_present = after_present;
    }
}

/// The pacer's vsync verdict ([`STATUS_EVERY`] frames old at most): whether
/// frames are paced by a refresh, and why. "Cannot tell" unless the game
/// reports how long its presents blocked ([`Pacing::present_blocked`]).
#[derive(Resource, Clone, Debug, PartialEq, Eq)]
pub struct Vsync {
    vsync: Option<bool>,
    text: String,
}

impl Default for Vsync {
    fn default() -> Vsync {
        Vsync { vsync: None, text: String::from("not yet judged") }
    }
}

impl Vsync {
    /// `Some(true)`: frames are paced by a refresh; `Some(false)`: they are not; `None`: cannot tell yet.
    pub fn vsync(&self) -> Option<bool> {
        self.vsync
    }

    /// The verdict in a sentence.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn set(&mut self, vsync: Option<bool>, text: String) {
        self.vsync = vsync;
        self.text = text;
    }
}

/// The refresh the presents measure ([`STATUS_EVERY`] frames old at most),
/// once enough frames went by unpaced.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq)]
pub struct MeasuredRefresh(Option<Measured>);

impl MeasuredRefresh {
    /// The measurement (`None`: not yet measured).
    pub fn measured(&self) -> Option<Measured> {
        self.0
    }

    /// The measured rate in Hz (`None`: not yet measured).
    pub fn hz(&self) -> Option<f64> {
        self.0.map(|m| m.hz())
    }

    pub(crate) fn set(&mut self, measured: Option<Measured>) {
        self.0 = measured;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use timestep_core::Rate;

    const MS: Nanos = 1_000_000;

    /// A pacer under a 100 Hz frame limit after one frame at `at`: its wake is the next 10 ms slot.
    fn pacing_after_frame_at(at: Nanos) -> Pacing {
        let mut pacer = Pacer::new(StrategyId::CatchUp, Rate::from_hz(60));
        pacer.set_frame_limit(Some(Rate::from_hz(100)));
        let mut pacing = Pacing::new(pacer);
        let _ = pacing.start_frame(at, None, 1.0);
        assert_eq!(pacing.finish_frame(at), Some(0));
        pacing
    }

    #[test]
    fn the_event_loop_waits_until_a_millisecond_before_the_wake() {
        // A frame at 2 ms: the limit's next slot is 10 ms; the loop's timer
        // is set for 9 ms, 7 ms after the frame's start.
        let pacing = pacing_after_frame_at(2 * MS);
        assert_eq!(pacing.wake(), Some(Duration::from_millis(10)));
        assert_eq!(pacing.event_loop_wait(Duration::from_millis(2)), Some(Duration::from_millis(7)));
    }

    #[test]
    fn a_wake_within_a_millisecond_or_none_runs_the_next_frame_at_once() {
        // A frame at 9.5 ms: the wake at 10 ms is 0.5 ms away, within EVENT_LOOP_EARLY.
        let pacing = pacing_after_frame_at(9_500_000);
        assert_eq!(pacing.event_loop_wait(Duration::from_micros(9_500)), None);
        // Exactly a millisecond away: not later than now + EVENT_LOOP_EARLY, at once.
        assert_eq!(pacing.event_loop_wait(Duration::from_millis(9)), None);
        let no_limit = Pacing::new(Pacer::new(StrategyId::CatchUp, Rate::from_hz(60)));
        assert_eq!(no_limit.event_loop_wait(Duration::ZERO), None, "no frame, no wake");
    }

    #[test]
    fn a_frame_after_a_sleep_to_its_wake_starts_no_earlier_than_the_wake() {
        // Catch-up at 60 Hz from 0; the loop slept to 40 ms, but Bevy's clock
        // read 30 ms (the last present's instant, from the render world):
        // the ticks at 16.7 and 33.3 ms are due, not only the first.
        let mut pacing = Pacing::new(Pacer::new(StrategyId::CatchUp, Rate::from_hz(60)));
        let _ = pacing.start_frame(0, None, 1.0);
        let _ = pacing.finish_frame(0);
        pacing.slept_until(40 * MS);
        let (frame, _) = pacing.start_frame(30 * MS, None, 1.0);
        assert_eq!(frame.updates().len(), 2, "two ticks by 40 ms");
        let _ = pacing.finish_frame(40 * MS);
        let (frame, _) = pacing.start_frame(45 * MS, None, 1.0);
        assert_eq!(frame.updates().len(), 0, "the sleep counts once: no tick between 40 and 45 ms");
    }
}
