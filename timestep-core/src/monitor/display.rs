//! The virtual display: a [`FrameHost`] over a [`ManualClock`].
//!
//! Every step of a frame charges its modelled cost to the clock, so the
//! strategy sees exactly the times a real machine of that model would show
//! it. With vsync on, present waits for the display:
//!
//! ```text
//! refresh   |·········|·········|·········|       the refreshes of a [`VblankGrid`] from clock 0
//! glaiel    [U][R]────wait────▶|±f          block to the next boundary, wake ±83 µs around it
//! queued    [U][R]▶ (returns)  |shown       depth 2: returns at once while one frame may wait;
//!              [U][R]──wait───▶|  shown     the next present blocks until its predecessor is shown
//! ```
//!
//! With vsync off a present costs a little and the frame is visible at once.
//! In trace mode the costs are replaced by measured frame times: frame `i`
//! is presented `trace[i]` after it started (later only if the strategy's
//! wake asks for it).

use super::model::{Model, Presentation};
use super::timeline::Timeline;
use crate::frame::FrameHost;
use crate::rng::SplitMix64;
use crate::strategy::View;
use crate::time::{Clock, ManualClock, Nanos, Rate};
use crate::vblank::VblankGrid;
use std::collections::VecDeque;

/// The virtual machine + display that the simulator's frames run on.
#[derive(Debug, Clone)]
pub struct VirtualDisplay<'t> {
    clock: ManualClock,
    rng: SplitMix64,
    model: Model,
    grid: VblankGrid,
    vsync: bool,
    /// Vblank indices of presented frames not yet on screen (queued presentation).
    queue: VecDeque<u64>,
    /// The vblank of the latest presented frame.
    last_vblank: Option<u64>,
    next_stall: Option<Nanos>,
    trace: Option<&'t [Nanos]>,
    trace_pos: usize,
    frame_start: Nanos,
    timeline: Timeline,
}

impl<'t> VirtualDisplay<'t> {
    /// A display of `refresh` with vsync on or off, running `model` with
    /// noise from `seed`, its clock reading `start`. Keeps the first
    /// `timeline` events.
    pub fn new(model: Model, refresh: Rate, vsync: bool, seed: u64, start: Nanos, timeline: usize) -> Self {
        let mut rng = SplitMix64::new(seed);
        let next_stall = model.stall.map(|s| start.saturating_add(s.every.sample(&mut rng)));
        let depth = match model.presentation {
            Presentation::Queued { depth } => depth.max(1) as usize,
            Presentation::BlockToBoundary => 1,
        };
        VirtualDisplay {
            clock: ManualClock::starting_at(start),
            rng,
            model,
            grid: VblankGrid::new(refresh, 0),
            vsync,
            queue: VecDeque::with_capacity(depth + 1),
            last_vblank: None,
            next_stall,
            trace: None,
            trace_pos: 0,
            frame_start: start,
            timeline: Timeline::with_capacity(timeline),
        }
    }

    /// Replays measured frame times (ns, start to start) instead of the model's costs.
    pub fn with_trace(mut self, trace: &'t [Nanos]) -> Self {
        self.trace = Some(trace);
        self
    }

    /// The clock now.
    pub fn clock(&self) -> Nanos {
        self.clock.now()
    }

    /// The refresh rate.
    pub fn refresh(&self) -> Rate {
        self.grid.rate()
    }

    /// Whether a trace is replayed and every frame of it has run.
    pub fn trace_done(&self) -> bool {
        self.trace.is_some_and(|t| self.trace_pos >= t.len())
    }

    /// Frames of the trace replayed so far, and its length (`None` without a trace).
    pub fn trace_progress(&self) -> Option<(usize, usize)> {
        self.trace.map(|t| (self.trace_pos, t.len()))
    }

    /// The recorded timeline.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Takes the recorded timeline out.
    pub fn into_timeline(self) -> Timeline {
        self.timeline
    }

    /// A frame starts; the world stands at `game_time` after `updates` updates of `tick`.
    pub fn begin_frame(&mut self, game_time: Nanos, updates: u64, tick: Rate) {
        self.frame_start = self.clock.now();
        self.timeline.begin_frame(game_time, updates, tick);
    }

    /// The frame ended with the world at `game_time`.
    pub fn end_frame(&mut self, game_time: Nanos) {
        self.timeline.end_frame(game_time);
    }

    /// Sleeps until `t` (the strategy's wake), overshooting as the model says.
    /// A wake in the past does not sleep.
    pub fn wait_until(&mut self, t: Nanos) {
        self.timeline.wait(t);
        if t > self.clock.now() {
            self.clock.advance_to(t);
            if self.trace.is_none() {
                self.clock.advance_by(self.model.sleep_overshoot.sample(&mut self.rng));
            }
        }
    }

    /// The loop's own work between frames (the article's `busy()`).
    pub fn busy(&mut self) {
        if self.trace.is_none() {
            self.clock.advance_by(self.model.busy.sample(&mut self.rng));
        }
    }

    /// Moves the clock by 1 ns: charged to a frame that cost nothing, so a
    /// zero-cost model cannot spin forever at one instant.
    pub fn nudge(&mut self) {
        self.clock.advance_by(1);
    }

    /// Wakes at `vblank` plus the model's signed wake offset, never earlier than now.
    fn wake_at_vblank(&mut self, vblank: Nanos) {
        let offset = self.model.vblank_wake.offset(&mut self.rng);
        self.clock.advance_to(vblank.saturating_add_signed(offset));
    }

    fn present_blocking(&mut self) -> Nanos {
        let boundary = self.grid.time_of(self.grid.at_or_after(self.clock.now()));
        self.wake_at_vblank(boundary);
        // The wake noise may land on either side of the boundary: the frame
        // belongs to the refresh nearest to the wake (Glaiel's bookkeeping).
        let v = self.grid.nearest(self.clock.now());
        self.last_vblank = Some(v);
        self.grid.time_of(v)
    }

    fn present_queued(&mut self, depth: u32) -> Nanos {
        let now = self.clock.now();
        while self.queue.front().is_some_and(|&k| self.grid.time_of(k) <= now) {
            self.queue.pop_front();
        }
        let mut k = self.grid.at_or_after(now);
        if let Some(last) = self.last_vblank {
            k = k.max(last + 1);
        }
        self.last_vblank = Some(k);
        self.queue.push_back(k);
        while self.queue.len() >= depth.max(1) as usize {
            let Some(oldest) = self.queue.pop_front() else { break };
            self.wake_at_vblank(self.grid.time_of(oldest));
        }
        self.grid.time_of(k)
    }
}

impl<W> FrameHost<W> for VirtualDisplay<'_> {
    fn now(&mut self) -> Nanos {
        self.clock.now()
    }

    fn after_step(&mut self) {
        if self.trace.is_none() {
            self.clock.advance_by(self.model.update.sample(&mut self.rng));
        }
        self.timeline.update(self.clock.now());
    }

    fn render(&mut self, _world: &W, view: View) {
        let now = self.clock.now();
        self.timeline.render(now, view);
        if self.trace.is_some() {
            return;
        }
        let mut cost = self.model.render.sample(&mut self.rng);
        if let (Some(stall), Some(at)) = (self.model.stall, self.next_stall)
            && now >= at
        {
            cost = cost.saturating_add(stall.length.sample(&mut self.rng));
            self.next_stall = Some(now.saturating_add(stall.every.sample(&mut self.rng)));
        }
        self.clock.advance_by(cost);
    }

    fn present(&mut self) -> Nanos {
        if let Some(trace) = self.trace {
            let length = trace.get(self.trace_pos).copied().unwrap_or(0);
            self.trace_pos += 1;
            self.clock.advance_to(self.frame_start.saturating_add(length));
            return self.clock.now();
        }
        if !self.vsync {
            self.clock.advance_by(self.model.present_immediate.sample(&mut self.rng));
            return self.clock.now();
        }
        match self.model.presentation {
            Presentation::BlockToBoundary => self.present_blocking(),
            Presentation::Queued { depth } => self.present_queued(depth),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{Cost, Preset};
    use super::*;

    fn quiet(presentation: Presentation) -> Model {
        Model {
            update: Cost::ZERO,
            render: Cost::fixed(2_000_000),
            vblank_wake: Cost::ZERO,
            busy: Cost::ZERO,
            presentation,
            ..Preset::Desktop.model()
        }
    }

    fn present(d: &mut VirtualDisplay<'_>) -> Nanos {
        FrameHost::<()>::render(d, &(), View::Latest);
        FrameHost::<()>::present(d)
    }

    #[test]
    fn a_blocking_present_waits_for_the_next_boundary_and_shows_there() {
        let hz = Rate::from_hz(60);
        let mut d = VirtualDisplay::new(quiet(Presentation::BlockToBoundary), hz, true, 0, 0, 0);
        assert_eq!(present(&mut d), hz.tick_time_ceil(1));
        assert_eq!(d.clock(), hz.tick_time_ceil(1), "woke exactly at the boundary without noise");
        assert_eq!(present(&mut d), hz.tick_time_ceil(2));
    }

    #[test]
    fn a_present_exactly_on_a_boundary_waits_nothing() {
        let hz = Rate::from_hz(50);
        let model = Model { render: Cost::ZERO, ..quiet(Presentation::BlockToBoundary) };
        let mut d = VirtualDisplay::new(model, hz, true, 0, 20_000_000, 0);
        assert_eq!(present(&mut d), 20_000_000);
        assert_eq!(d.clock(), 20_000_000);
    }

    #[test]
    fn a_queue_of_two_returns_at_once_then_blocks_on_the_predecessor() {
        let hz = Rate::from_hz(60);
        let mut d = VirtualDisplay::new(quiet(Presentation::Queued { depth: 2 }), hz, true, 0, 0, 0);
        assert_eq!(present(&mut d), hz.tick_time_ceil(1), "first frame shown at vblank 1");
        assert_eq!(d.clock(), 2_000_000, "and present returned at once");
        assert_eq!(present(&mut d), hz.tick_time_ceil(2), "second frame shown one vblank later");
        assert_eq!(d.clock(), hz.tick_time_ceil(1), "present blocked until the first was shown");
        assert_eq!(present(&mut d), hz.tick_time_ceil(3));
        assert_eq!(d.clock(), hz.tick_time_ceil(2));
    }

    #[test]
    fn vsync_off_shows_the_frame_when_present_returns() {
        let model = Model { present_immediate: Cost::fixed(100), ..quiet(Presentation::Queued { depth: 2 }) };
        let mut d = VirtualDisplay::new(model, Rate::from_hz(60), false, 0, 0, 0);
        assert_eq!(present(&mut d), 2_000_100);
    }

    #[test]
    fn a_trace_frame_lasts_its_measured_time_unless_the_wake_is_later() {
        let trace = [10_000_000, 20_000_000];
        let mut d = VirtualDisplay::new(Preset::Desktop.model(), Rate::from_hz(60), true, 0, 0, 0).with_trace(&trace);
        d.begin_frame(0, 0, Rate::from_hz(60));
        assert_eq!(present(&mut d), 10_000_000);
        d.wait_until(15_000_000);
        d.begin_frame(0, 0, Rate::from_hz(60));
        assert_eq!(present(&mut d), 35_000_000);
        assert!(d.trace_done());
    }

    #[test]
    fn sleeps_overshoot_by_the_models_amount_and_past_wakes_do_not_sleep() {
        let model = Model { sleep_overshoot: Cost::fixed(500_000), ..quiet(Presentation::Queued { depth: 2 }) };
        let mut d = VirtualDisplay::new(model, Rate::from_hz(60), false, 0, 1_000_000, 0);
        d.wait_until(500_000);
        assert_eq!(d.clock(), 1_000_000);
        d.wait_until(4_000_000);
        assert_eq!(d.clock(), 4_500_000);
    }
}
