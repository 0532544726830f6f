//! The plugin's resources: the [`Pacer`] and what it decided this frame.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bevy_ecs::resource::Resource;
use timestep_core::refresh::Measured;
use timestep_core::time::{duration_to_nanos, nanos_to_duration};
use timestep_core::{Frame, Nanos, Pacer, StrategyId, Updates, View};

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
            present_blocked: None,
        }
    }

    /// The pacer, to read (its strategy, game time, updates so far, status).
    pub fn pacer(&self) -> MutexGuard<'_, Pacer> {
        self.pacer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pacer, to change its settings: tick rate, frame limit, refresh,
    /// time scale, `resync` after a load. Switch strategies with [`TimestepStrategy`].
    pub fn pacer_mut(&mut self) -> &mut Pacer {
        self.pacer.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// When the next frame should start, as `Time<Real>`'s elapsed time
    /// (`None`: at once: vsync or the GPU paces the loop). Known from the
    /// frame's end (`Last`) on; a runner sleeps until then ([`crate::pacing_runner`]).
    pub fn wake(&self) -> Option<Duration> {
        self.wake.map(nanos_to_duration)
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
