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
//!
//! In trace mode the costs are replaced by a [`Trace`]'s frames: frame `i` is
//! presented its measured present interval after it started (later only if
//! the strategy's wake asks for it), and shown
//!
//! - for a synced capture, when the capture showed it: its display-change
//!   interval in whole refreshes after the previous frame's, the first at the
//!   refresh nearest its present + captured latency. A frame the replay
//!   presents `d` later than the capture's cadence (a strategy's wait) shows
//!   at the first refresh at or after its captured display + `d`, and after
//!   the previous frame's:
//!
//! ```text
//! capture    |  F0  |  F1  |      |  F2  |     display changes of 1, 2 refreshes
//! replay     |  F0  |  F1  |      |  F2  |     same presents: the same refreshes (1 skipped)
//! held back  |  F0  |      |  F1  |      |  F2 F1 presented d late misses its refresh
//! ```
//!
//! - for a tearing capture, at its present + captured latency (vsync off);
//! - without display-change times, on this display: at the refresh nearest
//!   the present (vsync on; a later frame may replace an earlier one in the
//!   same refresh), or at the present (vsync off).
//!
//! A VRR display ([`VirtualDisplay::with_vrr`]) has no grid: a [`VrrPanel`]
//! starts each frame's scanout when it is presented, no sooner than `1/max`
//! after the last scanout and never during a self-refresh (see
//! [`crate::vrr`]). The presentation models keep their meaning with its
//! scanouts in place of the grid's refreshes: `glaiel`'s present blocks until
//! its frame's scanout starts; a queue of 2 returns at once while one frame
//! may wait. With vsync off a frame is shown when presented, as on a grid.
//! The self-refreshes before each frame are its [`FrameHost::repeats`].
//!
//! ```text
//! vrr:48-144   |F0 ·····|F1 ···········|r ·····|F2|F3 …     shown when presented, 1/max apart at least,
//!              ^ present  ^ present      1/48 s: repeat      a repeat after 1/min without a frame
//! ```
//!
//! Through a compositor ([`VirtualDisplay::with_composition`]; the model is
//! [`super::compositor`]'s) a frame is shown at the vblank whose repaint
//! latched it, or the compositor's delay later. With vsync on the compositor
//! takes one present a repaint and a present that blocks wakes when its
//! predecessor is latched, at a repaint; with vsync off present never waits,
//! the newest frame before each repaint wins ([`VirtualDisplay::replaced_previous`])
//! and nothing tears. On a VRR panel the compositor repaints when a frame
//! arrives, `latch` before the scanout it asks the panel for. A replayed
//! capture that a compositor showed keeps its refreshes; a frame the replay
//! holds back still makes the repaint that latched it if it is committed
//! before that repaint began. A list of frame times replayed through a
//! compositor shows the newest frame before each repaint, vsync on or off (a
//! replay never blocks).

use super::compositor::{Composition, Compositor, CompositorStage};
use super::model::{Model, Presentation};
use super::timeline::Timeline;
use super::trace::{Trace, TraceDisplay};
use crate::hold::{HeldFrame, PresentHold};
use crate::host::FrameHost;
use crate::rng::SplitMix64;
use crate::strategy::View;
use crate::time::{Clock, ManualClock, Nanos, Rate};
use crate::vblank::VblankGrid;
use crate::vrr::{VrrPanel, VrrRange};
use std::collections::VecDeque;

/// The virtual machine + display that the simulator's frames run on.
///
/// ```
/// use timestep_core::host::FrameHost;
/// use timestep_core::monitor::{Preset, VirtualDisplay};
/// use timestep_core::Rate;
///
/// // The frame-pacing answer's machine: no noise, exact sleeps, a 62.5 Hz display.
/// let mut display = VirtualDisplay::new(Preset::PacingAnswer.model(), Rate::new(125, 2).unwrap(), true, 0, 0, 0);
/// display.wait_until(5_000_000);
/// assert_eq!(display.clock(), 5_000_000);
/// let shown = FrameHost::<()>::present(&mut display);
/// assert_eq!(shown, 16_000_000, "a vsynced present shows at the next 16 ms refresh");
/// ```
#[derive(Debug, Clone)]
pub struct VirtualDisplay<'t> {
    clock: ManualClock,
    rng: SplitMix64,
    model: Model,
    grid: VblankGrid,
    /// The VRR panel that replaces the grid, on a VRR display.
    vrr: Option<VrrPanel>,
    vsync: bool,
    /// Presented frames not yet on screen (queued presentation): their vblank
    /// indices on the grid, their scanout times on a VRR panel.
    queue: VecDeque<u64>,
    /// The vblank of the latest presented frame.
    last_vblank: Option<u64>,
    next_stall: Option<Nanos>,
    /// When the next late wake-up is due ([`Model::late_wake`]).
    next_late_wake: Option<Nanos>,
    trace: Option<&'t Trace>,
    trace_pos: usize,
    /// Where the capture's cadence puts the latest replayed present.
    trace_cadence: Option<Nanos>,
    /// The refresh the capture showed the latest replayed frame at.
    trace_captured_vblank: Option<u64>,
    frame_start: Nanos,
    timeline: Timeline,
    /// The compositor between the window and the panel, on a grid; `None`: direct.
    stage: Option<CompositorStage>,
    /// The compositor on a VRR panel (it repaints when a frame arrives).
    vrr_compositor: Option<Compositor>,
    /// On a VRR panel with a compositor and vsync off: the scanout the newest
    /// buffer waits for, which a buffer committed before its repaint replaces.
    vrr_pending_scan: Option<Nanos>,
    /// Buffers the compositor replaced on a VRR panel (a grid's stage counts its own).
    vrr_replaced: u64,
    /// Whether the latest present replaced the buffer before it (never shown).
    replaced_previous: bool,
    /// With vsync off through a compositor that holds the window: the repaint
    /// that latched the latest frame, which the next one waits for.
    held_until: Option<Nanos>,
    /// The seed of each vblank's own jitter draw ([`VirtualDisplay::vblank_time`]).
    jitter_seed: u64,
    /// A trace, a VRR panel or a compositor: anything but the direct grid.
    /// One check on the direct path's present instead of one per kind.
    special: bool,
    /// With vsync off, the lead at which a self-paced frame's present is held
    /// ([`crate::hold`], the window's own, so that the prediction holds as the window did).
    present_hold: PresentHold,
    /// The strategy's last wake: the next frame's planned start.
    next_planned: Option<Nanos>,
    /// The frame under way's planned start, where its present is held.
    planned: Option<Nanos>,
    /// When the frame under way's present is made.
    hold_target: Option<Nanos>,
    /// How the frame under way's held present went.
    held_present: Option<HeldFrame>,
}

impl<'t> VirtualDisplay<'t> {
    /// A display of `refresh` with vsync on or off, running `model` with
    /// noise from `seed`, its clock reading `start`. Keeps the first
    /// `timeline` events.
    pub fn new(model: Model, refresh: Rate, vsync: bool, seed: u64, start: Nanos, timeline: usize) -> Self {
        let mut rng = SplitMix64::new(seed);
        let next_stall = model.stall.map(|s| start.saturating_add(s.every.sample(&mut rng)));
        let next_late_wake = model.late_wake.map(|s| start.saturating_add(s.every.sample(&mut rng)));
        let depth = match model.presentation {
            Presentation::Queued { depth } => depth.max(1) as usize,
            Presentation::BlockToBoundary => 1,
        };
        VirtualDisplay {
            clock: ManualClock::starting_at(start),
            rng,
            model,
            grid: VblankGrid::new(refresh, 0),
            vrr: None,
            vsync,
            queue: VecDeque::with_capacity(depth + 1),
            last_vblank: None,
            next_stall,
            next_late_wake,
            trace: None,
            trace_pos: 0,
            trace_cadence: None,
            trace_captured_vblank: None,
            frame_start: start,
            timeline: Timeline::with_capacity(timeline),
            stage: None,
            vrr_compositor: None,
            vrr_pending_scan: None,
            vrr_replaced: 0,
            replaced_previous: false,
            held_until: None,
            jitter_seed: seed,
            special: false,
            present_hold: PresentHold::lead_only(),
            next_planned: None,
            planned: None,
            hold_target: None,
            held_present: None,
        }
    }

    /// The same display as a VRR panel refreshing within `range` instead of on its grid.
    ///
    /// ```
    /// use timestep_core::host::FrameHost;
    /// use timestep_core::monitor::{Preset, VirtualDisplay};
    /// use timestep_core::Rate;
    ///
    /// let range = "vrr:48-144".parse().unwrap();
    /// let model = Preset::PacingAnswer.model();
    /// let mut display = VirtualDisplay::new(model, Rate::from_hz(144), true, 0, 0, 0).with_vrr(range);
    /// display.wait_until(5_000_000);
    /// assert_eq!(FrameHost::<()>::present(&mut display), 5_000_000, "shown when presented");
    /// display.wait_until(40_000_000);
    /// assert_eq!(FrameHost::<()>::present(&mut display), 40_000_000);
    /// assert_eq!(FrameHost::<()>::repeats(&mut display), 1, "a self-refresh 1/48 s after the first frame");
    /// ```
    pub fn with_vrr(mut self, range: VrrRange) -> Self {
        self.vrr = Some(VrrPanel::new(range));
        self.special = true;
        let composition = self.composition();
        self.with_composition(composition)
    }

    /// Replays `trace`'s frames instead of the model's costs (see the module docs).
    pub fn with_trace(mut self, trace: &'t Trace) -> Self {
        self.trace = Some(trace);
        self.special = true;
        self
    }

    /// The same display with `composition` between the window and the panel
    /// (see the module docs and the compositor module).
    ///
    /// ```
    /// use timestep_core::host::FrameHost;
    /// use timestep_core::monitor::{Composition, Compositor, Preset, VirtualDisplay};
    /// use timestep_core::Rate;
    ///
    /// let weston = Composition::Composited(Compositor::new(7_000_000, 0));
    /// let model = Preset::PacingAnswer.model();
    /// let mut display = VirtualDisplay::new(model, Rate::from_hz(60), false, 0, 0, 0).with_composition(weston);
    /// display.wait_until(10_000_000);
    /// assert_eq!(FrameHost::<()>::present(&mut display), 33_333_334, "vsync off, after repaint 1 began: vblank 2");
    /// ```
    pub fn with_composition(mut self, composition: Composition) -> Self {
        let compositor = composition.compositor();
        let on_grid = self.vrr.is_none();
        self.stage = compositor.filter(|_| on_grid).map(|c| CompositorStage::new(c, self.grid));
        self.vrr_compositor = compositor.filter(|_| !on_grid);
        self.special |= compositor.is_some();
        self
    }

    /// What stands between the window and the panel.
    pub fn composition(&self) -> Composition {
        match self.stage.map(|s| s.compositor()).or(self.vrr_compositor) {
            Some(c) => Composition::Composited(c),
            None => Composition::Direct,
        }
    }

    /// Buffers the compositor replaced before they were shown (vsync off), so far.
    pub fn replaced(&self) -> u64 {
        self.stage.map_or(self.vrr_replaced, |s| s.replaced())
    }

    /// Whether the latest present replaced the buffer presented before it,
    /// which is then never shown (a compositor with vsync off).
    pub fn replaced_previous(&self) -> bool {
        self.replaced_previous
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
        self.trace.is_some_and(|t| self.trace_pos >= t.frames().len())
    }

    /// Frames of the trace replayed so far, and its length (`None` without a trace).
    pub(crate) fn trace_progress(&self) -> Option<(usize, usize)> {
        self.trace.map(|t| (self.trace_pos, t.frames().len()))
    }

    /// Where a replay's refresh count starts: the refresh before the one its
    /// first frame shows at. A capture starts mid-stream, so the refreshes
    /// between the clock's start and its first frame say nothing about it.
    /// Call it before the first frame (it replays that frame on a copy);
    /// `None` without a trace, and on a VRR panel (no grid to count on).
    pub(crate) fn trace_origin(&self) -> Option<Nanos> {
        let trace = self.trace?;
        if self.vrr.is_some() {
            return None;
        }
        let mut probe = self.clone();
        probe.frame_start = probe.clock.now();
        let first = probe.present_trace(trace);
        Some(self.grid.time_of(self.grid.nearest(first).saturating_sub(1)))
    }

    /// The recorded timeline.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// Takes the recorded timeline out.
    pub(crate) fn into_timeline(self) -> Timeline {
        self.timeline
    }

    /// A frame starts; the world stands at `game_time` after `updates` updates of `tick`.
    ///
    /// With vsync off, a frame whose strategy planned its start (it slept
    /// until then: `fixed-fps`, `paced`) has its present held to a lead after
    /// that start, as the window holds it ([`crate::hold`]: without the hold a
    /// present went out whenever rendering ended, and the prediction of
    /// `fixed-fps` with vsync off at 240 Hz had 2 ms of judder where the held
    /// window measured 0.55).
    pub fn begin_frame(&mut self, game_time: Nanos, updates: u64, tick: Rate) {
        // A hold is measuring only after a planned frame (`record`), so a
        // loop that never sleeps (`variable`, `catch-up`) pays two checks.
        if !self.vsync && self.trace.is_none() && (self.planned.is_some() || self.next_planned.is_some()) {
            self.plan_present();
        }
        self.frame_start = self.clock.now();
        self.timeline.begin_frame(game_time, updates, tick);
    }

    /// With vsync off, before a frame: the hold learns how the last held
    /// present went, and this frame's present is held if its start was planned.
    fn plan_present(&mut self) {
        if let (Some(planned), Some(held)) = (self.planned.take(), self.held_present.take()) {
            self.present_hold.record(planned, self.frame_start, held);
        }
        let planned = self.next_planned.take();
        if planned.is_none() && self.present_hold.measuring() {
            self.present_hold.reset();
        }
        self.hold_target = planned.map(|at| self.present_hold.target(at));
        self.planned = planned;
    }

    /// The frame ended with the world at `game_time`.
    pub fn end_frame(&mut self, game_time: Nanos) {
        self.timeline.end_frame(game_time);
    }

    /// Sleeps until `t` (the strategy's wake), overshooting as the model says.
    /// A wake in the past does not sleep.
    pub fn wait_until(&mut self, t: Nanos) {
        self.next_planned = Some(t);
        self.timeline.wait(t);
        if t > self.clock.now() {
            self.clock.advance_to(t);
            if self.trace.is_none() {
                self.clock.advance_by(self.model.sleep_overshoot.sample(&mut self.rng));
            }
        }
    }

    /// Before the next frame, after the strategy's sleep: a window that the
    /// compositor holds ([`Compositor::throttles`]) waits for the repaint that
    /// latched its last frame; a repaint that came during the sleep holds
    /// nothing. The hold is the platform's, outside the frame: on Wayland
    /// winit's redraw request waits for the frame callback, so a strategy
    /// does not see it in its frame time (`paced` measured 2 ms frames and
    /// kept its interval at the refresh; with the hold in the present it grew
    /// the interval by a fifth). The frame starts as the repaint begins: the
    /// callback comes over a local socket, and what the redraw's dispatch
    /// adds is in the measured compositor's figures (start to display).
    pub fn wait_for_repaint(&mut self) {
        if let Some(repaint) = self.held_until.take() {
            self.clock.advance_to(repaint.max(self.clock.now()));
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
    /// A due late wake-up ([`Model::late_wake`]) adds its length.
    fn wake_at_vblank(&mut self, vblank: Nanos) {
        let mut offset = self.model.vblank_wake.offset(&mut self.rng);
        if let (Some(late), Some(at)) = (self.model.late_wake, self.next_late_wake)
            && vblank >= at
        {
            offset = offset.saturating_add(late.length_of_one(&mut self.rng).offset(&mut self.rng));
            self.next_late_wake = Some(vblank.saturating_add(late.every.sample(&mut self.rng)));
        }
        self.clock.advance_to(vblank.saturating_add_signed(offset));
    }

    fn present_blocking(&mut self) -> Nanos {
        let (k, boundary) = self.grid.first_at_or_after(self.clock.now());
        if self.model.display_jitter.is_some() {
            return self.present_blocking_jittered(k);
        }
        self.wake_at_vblank(boundary);
        // The wake noise may land on either side of the boundary: the frame
        // belongs to the refresh nearest to the wake (Glaiel's bookkeeping),
        // nearly always the boundary's own (its time is known: one division less).
        let v = self.grid.nearest(self.clock.now());
        self.last_vblank = Some(v);
        if v == k { boundary } else { self.grid.time_of(v) }
    }

    /// [`VirtualDisplay::present_blocking`] on vblanks that stray from the
    /// grid: the present waits for the first vblank `k` or later whose
    /// jittered time has not passed, and shows there.
    #[cold]
    fn present_blocking_jittered(&mut self, mut k: u64) -> Nanos {
        let now = self.clock.now();
        if self.vblank_time(k) < now {
            k += 1;
        }
        let shown = self.vblank_time(k);
        self.wake_at_vblank(shown);
        self.last_vblank = Some(k);
        shown
    }

    /// Presents the next trace frame; returns its display time (module docs).
    fn present_trace(&mut self, trace: &Trace) -> Nanos {
        let frame = trace.frames().get(self.trace_pos).copied().unwrap_or_default();
        self.trace_pos += 1;
        self.clock.advance_to(self.frame_start.saturating_add(frame.present));
        let presented = self.clock.now();
        let cadence = self.trace_cadence.map_or(presented, |c| c.saturating_add(frame.present));
        self.trace_cadence = Some(cadence);
        let latency = frame.until_displayed.unwrap_or(0);
        match trace.display() {
            TraceDisplay::Synced(_) => {
                let captured = match (self.trace_captured_vblank, frame.display_change) {
                    (Some(previous), Some(interval)) => previous + self.grid.rate().nearest_tick(interval).max(1),
                    // The first frame, or an unknown interval: the refresh nearest the captured latency.
                    (previous, _) => {
                        let k = self.grid.nearest(cadence.saturating_add(latency)).max(self.grid.at_or_after(cadence));
                        previous.map_or(k, |p| k.max(p + 1))
                    }
                };
                self.trace_captured_vblank = Some(captured);
                let held_back = presented.saturating_sub(cadence);
                let earliest = match self.stage {
                    // A composed frame presented late still makes the repaint
                    // that latched it, if it is committed before that repaint
                    // began; else the first repaint after its commit shows it.
                    Some(stage) if held_back > 0 => {
                        let delay = u64::from(stage.compositor().delay_refreshes);
                        let latched = captured.saturating_sub(delay);
                        let k = stage.compositor().repaint_for(&self.grid, presented).max(latched);
                        k.saturating_add(delay)
                    }
                    Some(_) => captured,
                    None => self.grid.at_or_after(self.grid.time_of(captured).saturating_add(held_back)),
                };
                let k = self.last_vblank.map_or(earliest, |last| earliest.max(last + 1));
                self.last_vblank = Some(k);
                self.grid.time_of(k)
            }
            TraceDisplay::Tearing => presented.saturating_add(latency),
            // A plain list's frame times are start-to-start intervals rounded by
            // the tool that wrote them (16.666667 ms for 60 Hz): on a vsync grid
            // its present stands for the refresh it is nearest to, as Glaiel's
            // wake does; `at_or_after` would push every third frame of a steady
            // 60 Hz list one refresh late by the rounding's nanosecond.
            // Through a compositor the newest buffer before each repaint wins,
            // vsync on or off (a replay never blocks).
            TraceDisplay::Virtual if self.special && self.composition() != Composition::Direct => {
                self.replaced_previous = false;
                match &mut self.stage {
                    Some(stage) => {
                        let (shown, replaced) = stage.newest(presented);
                        self.replaced_previous = replaced;
                        shown
                    }
                    None => self.composite_newest_vrr(presented),
                }
            }
            TraceDisplay::Virtual if self.vsync => match &mut self.vrr {
                Some(panel) => panel.show(presented),
                None => self.grid.time_of(self.grid.nearest(presented)),
            },
            TraceDisplay::Virtual => match &mut self.vrr {
                Some(panel) => panel.tear(presented),
                None => presented,
            },
        }
    }

    fn present_queued(&mut self, depth: u32) -> Nanos {
        let now = self.clock.now();
        while self.queue.front().is_some_and(|&k| self.vblank_time(k) <= now) {
            self.queue.pop_front();
        }
        let mut k = self.grid.at_or_after(now);
        if let Some(last) = self.last_vblank {
            k = k.max(last + 1);
        }
        if self.vblank_time(k) < now {
            // Jitter drew this vblank before the present: the next one shows it.
            k += 1;
        }
        self.last_vblank = Some(k);
        self.queue.push_back(k);
        while self.queue.len() >= depth.max(1) as usize {
            let Some(oldest) = self.queue.pop_front() else { break };
            self.wake_at_vblank(self.vblank_time(oldest));
        }
        self.vblank_time(k)
    }

    /// Vblank `k`'s time: on the grid, moved by the model's display jitter
    /// ([`Model::display_jitter`]) where it has one, a draw of vblank `k`'s
    /// own (the same whenever it is asked, and no draw from the run's noise).
    #[inline]
    fn vblank_time(&self, k: u64) -> Nanos {
        self.jittered(self.grid.time_of(k), k)
    }

    /// `on_grid`, a time of refresh `k` (its vblank, or its repaint), moved by
    /// that refresh's own jitter draw.
    fn jittered(&self, on_grid: Nanos, k: u64) -> Nanos {
        match self.model.display_jitter {
            None => on_grid,
            Some(jitter) => {
                let mut rng = SplitMix64::for_index(self.jitter_seed, k);
                on_grid.saturating_add_signed(jitter.offset(&mut rng))
            }
        }
    }

    /// A present on anything but the direct grid: a replay, a compositor, a
    /// VRR panel. Out of line, so the direct grid's present stays small.
    #[cold]
    #[inline(never)]
    fn present_special(&mut self) -> Nanos {
        if let Some(trace) = self.trace {
            return self.present_trace(trace);
        }
        if self.stage.is_some() || self.vrr_compositor.is_some() {
            return self.present_composited();
        }
        self.present_vrr()
    }

    /// A present through the compositor ([`super::compositor`]): the
    /// picture's display time. Vsync off never waits and the newest buffer
    /// wins; vsync on (FIFO) takes one present a repaint, and a present that
    /// blocks wakes when its predecessor is latched, at a repaint. A
    /// compositor that throttles the window ([`Compositor::throttles`]) holds
    /// it, vsync off too, until the repaint that latched its buffer
    /// ([`VirtualDisplay::wait_for_repaint`], before the next frame).
    fn present_composited(&mut self) -> Nanos {
        self.replaced_previous = false;
        if !self.vsync {
            self.clock.advance_by(self.model.present_immediate.sample(&mut self.rng));
        }
        let now = self.clock.now();
        let Some(mut stage) = self.stage else { return self.present_composited_vrr(now) };
        let shown = if !self.vsync {
            let (shown, replaced) = stage.newest(now);
            self.replaced_previous = replaced;
            let compositor = stage.compositor();
            if compositor.throttles {
                return self.held_for(stage, compositor.repaint_for(&self.grid, now));
            }
            shown
        } else if stage.compositor().throttles {
            // FIFO through a compositor that holds the window: the present
            // returns at once, one present a repaint.
            let k = stage.queue(now);
            self.last_vblank = Some(k);
            return self.held_for(stage, k);
        } else {
            match self.model.presentation {
                Presentation::BlockToBoundary => {
                    let compositor = stage.compositor();
                    let k = compositor.repaint_for(&self.grid, now);
                    self.wake_at_vblank(stage.repaint_time(k));
                    // As on a direct grid, the wake noise decides: the frame
                    // belongs to the repaint nearest the wake.
                    let k = self.grid.nearest(self.clock.now().saturating_add(compositor.latch));
                    self.last_vblank = Some(k);
                    stage.shown_time(k)
                }
                Presentation::Queued { depth } => {
                    while self.queue.front().is_some_and(|&k| stage.repaint_time(k) <= now) {
                        self.queue.pop_front();
                    }
                    let k = stage.queue(now);
                    self.last_vblank = Some(k);
                    self.queue.push_back(k);
                    while self.queue.len() >= depth.max(1) as usize {
                        let Some(oldest) = self.queue.pop_front() else { break };
                        self.wake_at_vblank(stage.repaint_time(oldest));
                    }
                    stage.shown_time(k)
                }
            }
        };
        self.stage = Some(stage);
        shown
    }

    /// A frame latched at repaint `k` of a compositor that holds the window:
    /// the next frame waits for that repaint ([`VirtualDisplay::wait_for_repaint`]).
    /// Returns when the frame is shown. A repaint moves with its refresh's
    /// jitter, and the picture with that of the vblank that shows it.
    fn held_for(&mut self, stage: CompositorStage, k: u64) -> Nanos {
        self.held_until = Some(self.jittered(stage.repaint_time(k), k));
        self.stage = Some(stage);
        self.jittered(stage.shown_time(k), k + u64::from(stage.compositor().delay_refreshes))
    }

    /// A present through a compositor on a VRR panel: the compositor repaints
    /// when a buffer arrives, `latch` before the scanout it asks the panel
    /// for; its delay is in the panel's shortest refreshes (`1/max`).
    fn present_composited_vrr(&mut self, now: Nanos) -> Nanos {
        if !self.vsync {
            return self.composite_newest_vrr(now);
        }
        let (Some(compositor), Some(panel)) = (self.vrr_compositor, &mut self.vrr) else { return now };
        let delay = u64::from(compositor.delay_refreshes).saturating_mul(panel.range().min_interval());
        let scan = panel.show(now.saturating_add(compositor.latch));
        self.wait_for_slot(now, scan.saturating_sub(compositor.latch));
        scan.saturating_add(delay)
    }

    /// A buffer committed at `now` through a compositor on a VRR panel, the
    /// newest winning: one committed before the pending scanout's repaint
    /// began takes that scanout's place. Returns its display time.
    fn composite_newest_vrr(&mut self, now: Nanos) -> Nanos {
        let (Some(compositor), Some(panel)) = (self.vrr_compositor, &mut self.vrr) else { return now };
        let delay = u64::from(compositor.delay_refreshes).saturating_mul(panel.range().min_interval());
        let ready = now.saturating_add(compositor.latch);
        if let Some(scan) = self.vrr_pending_scan
            && ready <= scan
        {
            self.vrr_replaced += 1;
            self.replaced_previous = true;
            return scan.saturating_add(delay);
        }
        let scan = panel.show(ready);
        self.vrr_pending_scan = Some(scan);
        scan.saturating_add(delay)
    }

    /// A present on the VRR panel (module docs): the frame's scanout start.
    fn present_vrr(&mut self) -> Nanos {
        if !self.vsync {
            self.clock.advance_by(self.model.present_immediate.sample(&mut self.rng));
        }
        let now = self.clock.now();
        let Some(panel) = &mut self.vrr else { return now };
        if !self.vsync {
            return panel.tear(now);
        }
        let scan = panel.show(now);
        self.wait_for_slot(now, scan);
        scan
    }

    /// On a VRR panel, a vsynced present at `now` whose frame leaves the
    /// swap chain at `frees`: `glaiel`'s blocks until then; a queue returns
    /// at once while a slot is free, else blocks until the oldest frame leaves.
    fn wait_for_slot(&mut self, now: Nanos, frees: Nanos) {
        match self.model.presentation {
            Presentation::BlockToBoundary => self.wake_at_vblank(frees),
            Presentation::Queued { depth } => {
                while self.queue.front().is_some_and(|&at| at <= now) {
                    self.queue.pop_front();
                }
                self.queue.push_back(frees);
                while self.queue.len() >= depth.max(1) as usize {
                    let Some(oldest) = self.queue.pop_front() else { break };
                    self.wake_at_vblank(oldest);
                }
            }
        }
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
            cost = cost.saturating_add(stall.length_of_one(&mut self.rng).sample(&mut self.rng));
            self.next_stall = Some(now.saturating_add(stall.every.sample(&mut self.rng)));
        }
        self.clock.advance_by(cost);
    }

    fn present(&mut self) -> Nanos {
        let Some(target) = self.hold_target.take() else { return self.present_now() };
        let ready = self.clock.now();
        if target > ready {
            self.timeline.wait(target);
            self.clock.advance_to(target);
        }
        let call_start = self.clock.now();
        let shown = self.present_now();
        self.held_present = Some(HeldFrame { ready, call_start, call_end: self.clock.now() });
        shown
    }

    /// Holds the present until `t`: a spin, exact (no sleep overshoot).
    fn hold_until(&mut self, t: Nanos) {
        if t > self.clock.now() {
            self.timeline.wait(t);
            self.clock.advance_to(t);
        }
    }

    fn repeats(&mut self) -> u32 {
        self.vrr.as_ref().map_or(0, VrrPanel::repeats)
    }
}

impl VirtualDisplay<'_> {
    /// The present itself, once any hold is over.
    fn present_now(&mut self) -> Nanos {
        if self.special {
            return self.present_special();
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
    use super::super::model::{Cost, Preset, Stall};
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

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
    fn a_jittered_vblank_moves_the_picture_and_the_go_ahead_together_within_its_bounds() {
        let hz = Rate::from_hz(60);
        let jitter =
            Model { display_jitter: Some(Cost::around(0, 1_000_000)), ..quiet(Presentation::Queued { depth: 2 }) };
        let run = || {
            let mut d = VirtualDisplay::new(jitter, hz, true, 7, 0, 0);
            let first = present(&mut d);
            assert_eq!(d.clock(), 2_000_000, "the first present returns at once");
            let mut shown = vec![first];
            for _ in 0..100 {
                shown.push(present(&mut d));
                assert_eq!(
                    d.clock(),
                    shown[shown.len() - 2],
                    "a blocked present goes ahead when its predecessor is shown"
                );
            }
            shown
        };
        let shown = run();
        assert_eq!(shown, run(), "each vblank's draw is its own: the same run twice is the same");
        for (k, &t) in shown.iter().enumerate() {
            let on_grid = hz.tick_time_ceil(k as u64 + 1);
            assert!(t.abs_diff(on_grid) <= 1_000_000, "vblank {}: {t} within 1 ms of {on_grid}", k + 1);
        }
        assert!(
            shown.iter().enumerate().filter(|&(k, &t)| t != hz.tick_time_ceil(k as u64 + 1)).count() > 90,
            "the jitter moves nearly every vblank"
        );
        let mut d = VirtualDisplay::new(quiet(Presentation::Queued { depth: 2 }), hz, true, 7, 0, 0);
        assert_eq!(present(&mut d), hz.tick_time_ceil(1), "without jitter the grid's own time");
    }

    #[test]
    fn vsync_off_shows_the_frame_when_present_returns() {
        let model = Model { present_immediate: Cost::fixed(100), ..quiet(Presentation::Queued { depth: 2 }) };
        let mut d = VirtualDisplay::new(model, Rate::from_hz(60), false, 0, 0, 0);
        assert_eq!(present(&mut d), 2_000_100);
    }

    #[test]
    fn a_steady_60_hz_list_shows_one_frame_per_refresh_despite_its_rounding() {
        // 16.666667 ms is 1/3 ns longer than a 60 Hz refresh: frame 3 presents
        // at 50 000 001 ns, 1 ns after refresh 3 (50 000 000), and still shows on it.
        let trace = Trace::from_frame_times(&[16_666_667; 6]);
        let mut d = VirtualDisplay::new(Preset::Glaiel.model(), Rate::from_hz(60), true, 0, 0, 0).with_trace(&trace);
        let grid = VblankGrid::new(Rate::from_hz(60), 0);
        for k in 1..=6 {
            d.begin_frame(0, 0, Rate::from_hz(60));
            assert_eq!(present(&mut d), grid.time_of(k), "frame {k} on refresh {k}");
        }
    }

    #[test]
    fn a_trace_frame_lasts_its_measured_time_unless_the_wake_is_later() {
        let trace = Trace::from_frame_times(&[10_000_000, 20_000_000]);
        let mut d = VirtualDisplay::new(Preset::Desktop.model(), Rate::from_hz(60), false, 0, 0, 0).with_trace(&trace);
        d.begin_frame(0, 0, Rate::from_hz(60));
        assert_eq!(present(&mut d), 10_000_000, "vsync off: shown at its present");
        d.wait_until(15_000_000);
        d.begin_frame(0, 0, Rate::from_hz(60));
        assert_eq!(present(&mut d), 35_000_000);
        assert!(d.trace_done());
    }

    #[test]
    fn a_plain_trace_with_vsync_shows_each_frame_at_the_next_refresh() {
        let hz = Rate::from_hz(60);
        let trace = Trace::from_frame_times(&[10_000_000, 20_000_000, 3_000_000]);
        let mut d = VirtualDisplay::new(Preset::Desktop.model(), hz, true, 0, 0, 0).with_trace(&trace);
        assert_eq!(d.trace_origin(), Some(0), "refresh 0, the one before the first frame's");
        let mut shown = Vec::new();
        for _ in 0..3 {
            d.begin_frame(0, 0, hz);
            shown.push(present(&mut d));
        }
        // Presents at 10, 30 and 33 ms: refreshes 1, 2 and 2 (the third replaces the second).
        assert_eq!(shown, [hz.tick_time_ceil(1), hz.tick_time_ceil(2), hz.tick_time_ceil(2)]);
    }

    fn weston() -> Composition {
        Composition::Composited(Compositor::new(7_000_000, 0))
    }

    #[test]
    fn through_a_compositor_a_blocking_present_wakes_at_the_repaint_and_shows_at_its_vblank() {
        // Renders of 2 ms from 0: the first commit at 2 ms makes repaint 1
        // (9 666 667); the next, at 11 666 667, misses it and waits for repaint 2.
        let hz = Rate::from_hz(60);
        let mut d =
            VirtualDisplay::new(quiet(Presentation::BlockToBoundary), hz, true, 0, 0, 0).with_composition(weston());
        assert_eq!(present(&mut d), 16_666_667);
        assert_eq!(d.clock(), 9_666_667, "woke as the repaint began, 7 ms before the vblank");
        assert_eq!(present(&mut d), 33_333_334);
        assert_eq!(d.clock(), 26_333_334);
    }

    #[test]
    fn through_a_compositor_a_queue_of_two_blocks_until_its_predecessor_is_latched() {
        let hz = Rate::from_hz(60);
        let mut d =
            VirtualDisplay::new(quiet(Presentation::Queued { depth: 2 }), hz, true, 0, 0, 0).with_composition(weston());
        assert_eq!(present(&mut d), 16_666_667, "committed at 2 ms: repaint 1");
        assert_eq!(d.clock(), 2_000_000, "returned at once");
        assert_eq!(present(&mut d), 33_333_334, "committed at 4 ms: one present a repaint, so repaint 2");
        assert_eq!(d.clock(), 9_666_667, "blocked until the first was latched at repaint 1");
        assert_eq!(present(&mut d), 50_000_000);
        assert_eq!(d.clock(), 26_333_334);
        assert!(!d.replaced_previous() && d.replaced() == 0, "FIFO replaces nothing");
    }

    #[test]
    fn through_a_compositor_vsync_off_at_twice_the_refresh_shows_the_newest_frame_each_refresh() {
        // Worked example 3 of the compositor module, on the display: renders of
        // 8 333 333 ns from 2 ms commit at 10 333 333, 18 666 666, … ns.
        let model = Model {
            render: Cost::fixed(8_333_333),
            present_immediate: Cost::ZERO,
            ..quiet(Presentation::Queued { depth: 2 })
        };
        let mut d = VirtualDisplay::new(model, Rate::from_hz(60), false, 0, 2_000_000, 0).with_composition(weston());
        let fates: Vec<(Nanos, Nanos, bool)> = (0..5)
            .map(|_| {
                let shown = present(&mut d);
                (d.clock(), shown, d.replaced_previous())
            })
            .collect();
        assert_eq!(
            fates,
            [
                (10_333_333, 33_333_334, false),
                (18_666_666, 33_333_334, true),
                (26_999_999, 50_000_000, false),
                (35_333_332, 50_000_000, true),
                (43_666_665, 66_666_667, false),
            ],
            "(commit, shown, replaced the one before): present never waits, and never tears"
        );
        assert_eq!(d.replaced(), 2);
    }

    #[test]
    fn a_compositor_that_throttles_the_window_holds_it_with_vsync_off_until_the_repaint_that_latched_its_frame() {
        // Worked example 3's 8 333 333 ns renders from 2 ms, through Weston (60
        // Hz, latch 7 ms: repaints at 9 666 667, 26 333 334, 43 000 000 ns) with
        // Wayland's frame callback: the first commits at 10 333 333, after
        // repaint 1 began, so repaint 2 latches it (shown at 33 333 334) and
        // the window draws again at 26 333 334; that frame commits at 34 666 667,
        // repaint 3 latches it (shown at 50 000 000), and so on: a frame a
        // repaint, none replaced, each after the first shown 23 666 666 ns
        // after its start (unthrottled, the window would draw every 8 333 333
        // ns and half its frames would be replaced: worked example 3).
        let model = Model {
            render: Cost::fixed(8_333_333),
            present_immediate: Cost::ZERO,
            sleep_overshoot: Cost::ZERO,
            ..quiet(Presentation::Queued { depth: 2 })
        };
        let throttling = Composition::Composited(Compositor::new(7_000_000, 0).throttling());
        let mut d = VirtualDisplay::new(model, Rate::from_hz(60), false, 0, 2_000_000, 0).with_composition(throttling);
        let fates: Vec<(Nanos, Nanos, bool)> = (0..3)
            .map(|_| {
                let shown = present(&mut d);
                let replaced = d.replaced_previous();
                d.wait_for_repaint();
                (shown, d.clock(), replaced)
            })
            .collect();
        assert_eq!(
            fates,
            [(33_333_334, 26_333_334, false), (50_000_000, 43_000_000, false), (66_666_667, 59_666_667, false)],
            "(shown, the window drawing again at the repaint that latched it, replaced): one frame a repaint"
        );
        assert_eq!(d.replaced(), 0);
        assert_eq!(50_000_000 - 26_333_334, 23_666_666, "start to display of the second frame");
        // The hold comes before the next frame, after the strategy's sleep: a
        // sleep past the repaint holds nothing, one before it ends at it.
        present(&mut d);
        assert_eq!(d.clock(), 59_666_667 + 8_333_333, "the fourth frame committed at 68 000 000");
        d.wait_until(80_000_000);
        d.wait_for_repaint();
        assert_eq!(d.clock(), 80_000_000, "repaint 5 (76 333 334) came during the sleep");
        present(&mut d);
        d.wait_until(90_000_000);
        d.wait_for_repaint();
        assert_eq!(d.clock(), 93_000_000, "slept to 90 ms, then held for repaint 6")
    }

    #[test]
    fn a_list_of_frame_times_through_a_compositor_shows_the_newest_frame_before_each_repaint() {
        // Presents every 6 ms from 6 ms; repaints at 9 666 667, 26 333 334 and 43 000 000 ns.
        let trace = Trace::from_frame_times(&[6_000_000; 7]);
        let hz = Rate::from_hz(60);
        let mut d = VirtualDisplay::new(Preset::Desktop.model(), hz, true, 0, 0, 0)
            .with_trace(&trace)
            .with_composition(weston());
        let fates: Vec<(Nanos, bool)> = (0..7)
            .map(|_| {
                d.begin_frame(0, 0, hz);
                (present(&mut d), d.replaced_previous())
            })
            .collect();
        let v = |k| VblankGrid::new(hz, 0).time_of(k);
        assert_eq!(
            fates,
            [(v(1), false), (v(2), false), (v(2), true), (v(2), true), (v(3), false), (v(3), true), (v(3), true)],
            "6, 12, 18, 24, 30, 36 and 42 ms: repaints 1, 2, 2, 2, 3, 3, 3"
        );
        assert_eq!(d.replaced(), 4);
    }

    #[test]
    fn without_a_compositor_the_display_is_the_direct_one() {
        let d = VirtualDisplay::new(quiet(Presentation::Queued { depth: 2 }), Rate::from_hz(60), true, 0, 0, 0);
        assert_eq!(d.composition(), Composition::Direct);
        let vrr = d.with_composition(weston()).with_vrr("vrr:48-144".parse().expect("range"));
        assert_eq!(vrr.composition(), weston(), "the compositor moves onto the VRR panel");
    }

    #[test]
    fn through_a_compositor_on_a_vrr_panel_a_frame_is_scanned_out_its_latch_after_its_commit() {
        let model = Model { render: Cost::fixed(5_000_000), ..quiet(Presentation::Queued { depth: 2 }) };
        let two_ms = Composition::Composited(Compositor::new(2_000_000, 0));
        let range = "vrr:48-144".parse().expect("range");
        let mut on =
            VirtualDisplay::new(model, Rate::from_hz(144), true, 0, 0, 0).with_vrr(range).with_composition(two_ms);
        assert_eq!(present(&mut on), 7_000_000, "committed at 5 ms, composed for 2 ms, shown when ready");
        assert_eq!(present(&mut on), 13_944_445, "committed at 10 ms: no sooner than 1/144 s after the last");
        let fast = Model { render: Cost::fixed(1_000_000), present_immediate: Cost::ZERO, ..model };
        let mut off =
            VirtualDisplay::new(fast, Rate::from_hz(144), false, 0, 0, 0).with_vrr(range).with_composition(two_ms);
        assert_eq!(present(&mut off), 3_000_000, "committed at 1 ms");
        assert!(!off.replaced_previous());
        assert_eq!(present(&mut off), 9_944_445, "committed at 2 ms: waits for the panel");
        assert_eq!(present(&mut off), 9_944_445, "committed at 3 ms, before that scanout's repaint: replaces it");
        assert!(off.replaced_previous());
        assert_eq!(off.replaced(), 1);
    }

    #[test]
    fn a_late_wake_up_returns_its_length_after_the_vblank_due_and_the_frame_keeps_its_refresh() {
        // 2 ms frames on a 60 Hz grid, blocking; a 3 ms late wake-up every 40 ms from 0:
        // the vblanks at 16.7 and 33.3 ms come before it is due, the one at 50 ms is late.
        let late = Stall::new(Cost::fixed(40_000_000), Cost::fixed(3_000_000));
        let model = Model { late_wake: Some(late), ..quiet(Presentation::BlockToBoundary) };
        let hz = Rate::from_hz(60);
        let mut d = VirtualDisplay::new(model, hz, true, 0, 0, 0);
        let mut woke = Vec::new();
        let mut shown = Vec::new();
        for _ in 0..4 {
            shown.push(present(&mut d));
            woke.push(d.clock());
        }
        assert_eq!(shown, (1..=4).map(|k| hz.tick_time_ceil(k)).collect::<Vec<_>>(), "every frame on its refresh");
        assert_eq!(
            woke,
            [hz.tick_time_ceil(1), hz.tick_time_ceil(2), 53_000_000, hz.tick_time_ceil(4)],
            "the wake at 50 ms is 3 ms late; the next is due 40 ms after it"
        );
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

    #[test]
    fn with_vsync_off_a_self_paced_frame_s_present_is_held_to_a_lead_after_its_planned_start() {
        // Frames planned every 10 ms (the strategy slept until each), 1.5 to
        // 2.5 ms to render, 0.5 ms to present. The window holds each present
        // to a lead after the planned start (`hold`): from the fourth frame
        // the lead is the second-longest time to ready + 1 ms, at most 3.5 ms,
        // and it rises (seldom) only when a frame comes within half a
        // millisecond of it. Between changes every frame is shown exactly lead
        // + 0.5 ms after its planned start, whatever its render took: here
        // 2.89 ms from the 4th frame, then 3.40 ms to the end (seed 7).
        let model = Model {
            render: Cost::between(1_500_000, 2_500_000),
            present_immediate: Cost::fixed(500_000),
            sleep_overshoot: Cost::ZERO,
            ..quiet(Presentation::Queued { depth: 1 })
        };
        let hz = Rate::from_hz(60);
        let shown_after = |vsync: bool| {
            let mut d = VirtualDisplay::new(model, hz, vsync, 7, 0, 0);
            let shown: Vec<Nanos> = (1..=200u64)
                .map(|k| {
                    let planned = k * 10_000_000;
                    d.wait_until(planned);
                    d.begin_frame(0, 0, hz);
                    present(&mut d) - planned
                })
                .collect();
            (shown, d.present_hold.lead())
        };
        let (held, lead) = shown_after(false);
        assert!((3_000_000..=3_500_000).contains(&lead), "lead {lead}");
        let mut after_planned: Vec<Nanos> = held[3..].to_vec();
        after_planned.dedup();
        assert_eq!(after_planned, [2_889_830 + 500_000, lead + 500_000], "two leads, each exact");
        assert!(held[100..].iter().all(|&s| s == lead + 500_000));
        let first: Vec<Nanos> = held[..3].to_vec();
        assert!(
            first.iter().all(|&s| (2_000_000..=3_000_000).contains(&s)),
            "no lead yet: shown when ready, {first:?}"
        );
        // With vsync on the display paces the frames: nothing is held.
        let (_, lead) = shown_after(true);
        assert_eq!(lead, 0);
    }
}
