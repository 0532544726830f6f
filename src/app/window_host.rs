//! The window's [`FrameHost`]: real clock, wgpu rendering, surface presents.
//!
//! The driver calls `render` then `present` (or the other way round for
//! render-first strategies); this host turns them into
//!
//! ```text
//! render:  [artificial load] ─► world → instances ─► acquire ─► sprites + overlay ─► submit
//! present: [GPU done, wait for the emulated vblank] ─► queue.present ─► display time
//! held:    GPU done ─► spin to the hold target ─► queue.present ─► display time
//! ```
//!
//! A held present (a self-paced strategy in a non-blocking present mode,
//! see `app::hold`) is made at the target the demo gives, once the GPU has
//! drawn the frame, so that presents are as even as the strategy's plan.
//!
//! In lane mode the lanes write their sprites into the instance buffer
//! themselves and [`WindowHost::show_instances`] draws and presents them.
//!
//! What a frame draws with (window, GPU, overlay numbers, sprite buffer,
//! emulated vblank) lives in one [`Screen`] that the demo owns and lends
//! whole to each frame's host: one borrow instead of five, and the demo's
//! session and lanes stay free to run the frame against it.
//!
//! Nothing here may panic or fail the frame loudly: a frame the surface
//! refuses is skipped (and reported in [`HostOutcome`]), the loop goes on.

use crate::app::gfx::Gfx;
use crate::app::window_state::WindowState;
use crate::hold::HeldFrame;
use crate::host::FrameHost;
use crate::hud_data::HudData;
use crate::platform::display_time::Gpu;
use crate::render::overlay::{Input, Target};
use crate::render::surface::{Acquire, SkipReason, SurfaceFrame};
use crate::session::PresentOutcome;
use crate::sim::{Instance, World};
use crate::strategy::View;
use crate::time::{Clock, Nanos, RealClock};
use crate::vblank::{EmulatedVsync, Vblank};

/// What happened to the frame, beyond what the driver reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct HostOutcome {
    /// The frame reached the screen.
    pub(crate) presented: bool,
    /// Why it did not.
    pub(crate) skipped: Option<SkipReason>,
    /// Time spent blocked in acquire + present (vsync shows up here).
    pub(crate) blocked: Nanos,
    /// Of that, the time spent waiting for the display alone (acquire,
    /// present, the emulated vblank), not for the GPU to finish drawing.
    pub(crate) display_wait: Nanos,
    /// The emulated vblank it was shown at.
    pub(crate) vblank: Option<Vblank>,
    /// How late the present call was against the vblank's wake time (emulation accuracy).
    pub(crate) wake_late: Nanos,
    /// CPU time of the overlay, ms.
    pub(crate) overlay_ms: f64,
    /// Sprites drawn.
    pub(crate) sprites: usize,
    /// Draw calls the sprite renderer issued.
    pub(crate) draw_calls: u32,
    /// How a held present went (see `app::hold`).
    pub(crate) held: Option<HeldFrame>,
    /// The display-time source was asked when the frame is shown (see `platform::DisplayTimer`).
    pub(crate) feedback_awaited: bool,
}

impl HostOutcome {
    /// What the session is told about the frame's picture.
    pub(crate) fn presented(&self) -> PresentOutcome {
        let presented = PresentOutcome::default()
            .with_shown(self.presented)
            .with_blocked(self.blocked)
            .with_emulation_late(self.vblank.map(|_| self.wake_late));
        if self.feedback_awaited { presented.with_feedback_awaited() } else { presented }
    }
}

/// How the scene is drawn this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SceneParams {
    /// The playfield size in world units.
    pub(crate) playfield: [f32; 2],
    /// Draw ghost markers at the expected display time.
    pub(crate) ghosts: bool,
    /// Expected delay from render start to display (for ghosts).
    pub(crate) display_lead: Nanos,
    /// Artificial CPU load for this frame.
    pub(crate) load: Nanos,
}

/// What the window's frames draw with; the demo owns it and lends it to
/// each frame's [`WindowHost`].
pub(crate) struct Screen {
    /// The display's word on when frames were shown, where the platform gives
    /// one, else the present's return and why. First: dropped before the
    /// window whose surface it asks about.
    pub(crate) feedback: crate::platform::DisplayTimer,
    /// The window.
    pub(crate) win: WindowState,
    /// The GPU side.
    pub(crate) gfx: Gfx,
    /// What the overlay draws.
    pub(crate) hud: HudData,
    /// The sprites of the frame under way (reused: frames do not allocate).
    pub(crate) instances: Vec<Instance>,
    /// `--emulate-refresh`: presents wait for its vblanks.
    pub(crate) vsync: Option<EmulatedVsync>,
}

/// Everything one frame borrows from the app.
pub(crate) struct WindowHost<'a> {
    clock: &'a RealClock,
    /// The frame's start as the platform stamped it (a page's
    /// requestAnimationFrame timestamp): the first reading of the clock.
    stamp: Option<Nanos>,
    screen: &'a mut Screen,
    scene: SceneParams,
    /// Present once the GPU has drawn the frame and the clock reads this (no
    /// sooner than the frame is ready); `None`: at once. Ignored under an
    /// emulated refresh, whose vblanks decide.
    hold_until: Option<Nanos>,
    /// The display time the strategy drew this frame for
    /// ([`FrameHost::hold_until`]: `auto` on a VRR display): the present
    /// waits for it, also through an emulated VRR gate.
    planned: Option<Nanos>,
    /// The id of the strategy frame being drawn, whose present asks the
    /// compositor for feedback; `None`: a still or lane frame, which does not.
    frame_id: Option<u64>,
    frame: Option<SurfaceFrame>,
    /// Filled in as the frame goes.
    outcome: HostOutcome,
}

impl Screen {
    /// Runs `frame` against a host that draws on this screen as `scene` says
    /// and holds its present until `hold_until` (`app::hold`);
    /// returns what `frame` returned and how the frame went.
    pub(crate) fn draw<R>(
        &mut self,
        clock: &RealClock,
        stamp: Option<Nanos>,
        scene: SceneParams,
        hold_until: Option<Nanos>,
        frame: impl FnOnce(&mut WindowHost<'_>) -> R,
    ) -> (R, HostOutcome) {
        self.draw_frame(clock, stamp, scene, hold_until, None, frame)
    }

    /// [`Screen::draw`] for strategy frame `frame_id`, whose present asks the
    /// compositor when it is shown (where it can say).
    pub(crate) fn draw_frame<R>(
        &mut self,
        clock: &RealClock,
        stamp: Option<Nanos>,
        scene: SceneParams,
        hold_until: Option<Nanos>,
        frame_id: Option<u64>,
        frame: impl FnOnce(&mut WindowHost<'_>) -> R,
    ) -> (R, HostOutcome) {
        let outcome = HostOutcome::default();
        let mut host =
            WindowHost { clock, stamp, screen: self, scene, hold_until, planned: None, frame_id, frame: None, outcome };
        let result = frame(&mut host);
        (result, host.outcome)
    }
}

impl WindowHost<'_> {
    /// Draws and shows `world` as `view` without running the loop (a paused window).
    pub(crate) fn draw_still(&mut self, world: &World, view: View) {
        self.render(world, view);
        self.present();
    }

    /// Lane mode: draws the sprites already in the instance buffer (every lane
    /// appended its own) in one draw, with the overlay, and shows them.
    /// Returns the display time, as [`FrameHost::present`] does.
    pub(crate) fn show_instances(&mut self) -> Nanos {
        self.load();
        self.draw_instances();
        self.show()
    }

    /// Artificial load: the frame's render costs this much more CPU.
    fn load(&self) {
        if self.scene.load > 0 {
            let start = self.clock.now();
            crate::platform::busy_until(self.clock, start.saturating_add(self.scene.load));
        }
    }

    /// Acquires a surface frame and records the sprites of the instance buffer
    /// and the overlay into it; `show` presents it.
    fn draw_instances(&mut self) {
        let before_acquire = self.clock.now();
        let screen = &mut *self.screen;
        let gfx = &mut screen.gfx;
        let acquired = gfx.surface.acquire(&gfx.gpu.adapter, &gfx.gpu.device);
        let acquiring = self.clock.now().saturating_sub(before_acquire);
        self.outcome.blocked += acquiring;
        self.outcome.display_wait += acquiring;
        let frame = match acquired {
            Acquire::Frame(frame) => frame,
            Acquire::Skipped(reason) => {
                self.outcome.skipped = Some(reason);
                return;
            }
        };
        let size = gfx.surface.size();
        let device = &gfx.gpu.device;
        let queue = &gfx.gpu.queue;
        gfx.sprites.prepare(device, queue, &screen.instances, self.scene.playfield, size);
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("window frame") });
        gfx.sprites.draw(&mut encoder, frame.view());
        self.outcome.overlay_ms = gfx.overlay.draw(
            device,
            queue,
            Target::new(&mut encoder, frame.view(), size),
            Input::Window(&screen.win.window),
            &screen.hud,
        );
        if let Some(timer) = gfx.timer.as_mut() {
            // Untimed when every readback slot is still in flight; `submitted` then does nothing.
            timer.resolve(&mut encoder, gfx.overlay.drew_pass());
        }
        queue.submit([encoder.finish()]);
        if let Some(timer) = gfx.timer.as_mut() {
            timer.submitted();
        }
        self.outcome.sprites = screen.instances.len();
        self.outcome.draw_calls = gfx.sprites.draw_calls_last_frame();
        self.frame = Some(frame);
    }

    /// Presents the acquired frame (after the emulated vblank, if any);
    /// returns its display time.
    fn show(&mut self) -> Nanos {
        let Some(frame) = self.frame.take() else {
            return self.clock.now();
        };
        let planned = self.planned.take();
        if self.screen.vsync.is_none()
            && let Some(target) = self.hold_until.or(planned)
        {
            return self.show_held(frame, target);
        }
        self.screen.win.window.pre_present_notify();
        if self.screen.vsync.is_none() {
            self.request_feedback();
        }
        let screen = &mut *self.screen;
        let queue = &screen.gfx.gpu.queue;
        if let Some(vsync) = screen.vsync.as_mut() {
            // A frame is ready when the GPU has drawn it, not when it was
            // submitted; on a software adapter that is most of the frame. Waiting
            // here also keeps the vblank spin from stealing the rasteriser's cores.
            let before = self.clock.now();
            if let Err(err) = screen.gfx.gpu.device.poll(wgpu::PollType::wait_indefinitely()) {
                log::debug!("waiting for the GPU before the emulated vblank failed: {err}");
            }
            let drawn = self.clock.now();
            // A frame drawn for a later display time is not ready before it.
            let vblank = vsync.next(drawn.max(planned.unwrap_or(0)));
            crate::platform::wait_until(self.clock, vblank.wake);
            self.outcome.wake_late = self.clock.now().saturating_sub(vblank.wake);
            frame.present(queue);
            let presented = self.clock.now();
            self.outcome.blocked += presented.saturating_sub(before);
            self.outcome.display_wait += presented.saturating_sub(drawn);
            self.outcome.presented = true;
            self.outcome.vblank = Some(vblank);
            return vblank.time;
        }
        let before = self.clock.now();
        frame.present(queue);
        let after = self.clock.now();
        self.presented_feedback();
        self.outcome.blocked += after.saturating_sub(before);
        self.outcome.display_wait += after.saturating_sub(before);
        // A page's frame whose refresh an earlier present of a burst took stands in for the
        // burst's replaced frame: not shown.
        let shown = crate::platform::display_time(self.clock, after);
        self.outcome.presented = shown.is_some();
        shown.unwrap_or(after)
    }

    /// Waits for the GPU, spins to `target`, presents; returns the display time.
    fn show_held(&mut self, frame: SurfaceFrame, target: Nanos) -> Nanos {
        let before = self.clock.now();
        // Ready means drawn: on a software adapter the present would otherwise
        // start with the rasterising, and end whenever that does.
        if let Err(err) = self.screen.gfx.gpu.device.poll(wgpu::PollType::wait_indefinitely()) {
            log::debug!("waiting for the GPU before a held present failed: {err}");
        }
        let ready = self.clock.now();
        crate::platform::wait_until(self.clock, target);
        self.screen.win.window.pre_present_notify();
        self.request_feedback();
        let call_start = self.clock.now();
        frame.present(&self.screen.gfx.gpu.queue);
        let call_end = self.clock.now();
        self.presented_feedback();
        // The hold is the loop's own wait, not the display's: it is not "blocked".
        self.outcome.blocked += ready.saturating_sub(before) + call_end.saturating_sub(call_start);
        self.outcome.display_wait += call_end.saturating_sub(call_start);
        self.outcome.presented = true;
        self.outcome.held = Some(HeldFrame { ready, call_start, call_end });
        log::trace!(
            "held present: ready {:+.3} ms, call at {:+.3} ms for {:.3} ms (against the target)",
            signed_ms(ready, target),
            signed_ms(call_start, target),
            call_end.saturating_sub(call_start) as f64 / 1e6
        );
        call_end
    }

    /// Asks the compositor when the coming present's commit is shown (a
    /// strategy frame's, once). Under an emulated grid D is its vblank: no question.
    fn request_feedback(&mut self) {
        if let Some(id) = self.frame_id {
            let screen = &mut *self.screen;
            let gpu = Gpu { surface: screen.gfx.surface.raw(), device: &screen.gfx.gpu.device };
            self.outcome.feedback_awaited = screen.feedback.presenting(id, gpu);
        }
    }

    /// Tells the display-time source that the asked-about present returned (DXGI reads its count then).
    fn presented_feedback(&mut self) {
        if let Some(id) = self.frame_id.take() {
            let screen = &mut *self.screen;
            let gpu = Gpu { surface: screen.gfx.surface.raw(), device: &screen.gfx.gpu.device };
            screen.feedback.presented(id, gpu);
        }
    }

    fn expected_display_time(&self, now: Nanos) -> Nanos {
        match &self.screen.vsync {
            Some(vsync) => vsync.peek_time(now),
            None => now.saturating_add(self.scene.display_lead),
        }
    }
}

impl FrameHost<World> for WindowHost<'_> {
    fn now(&mut self) -> Nanos {
        // The frame starts at its stamp; every later reading is the clock's.
        let now = self.clock.now();
        self.stamp.take().map_or(now, |stamp| stamp.min(now))
    }

    fn render(&mut self, world: &World, view: View) {
        // A frame already acquired (a strategy rendering twice) is shown first.
        if let Some(frame) = self.frame.take() {
            frame.present(&self.screen.gfx.gpu.queue);
        }
        self.load();
        self.screen.instances.clear();
        world.write_instances(view, &mut self.screen.instances);
        if self.scene.ghosts {
            let at = self.expected_display_time(self.clock.now());
            world.write_ghosts(at, &mut self.screen.instances);
        }
        self.draw_instances();
    }

    fn present(&mut self) -> Nanos {
        self.show()
    }

    fn hold_until(&mut self, t: Nanos) {
        self.planned = Some(t);
    }

    fn repeats(&mut self) -> u32 {
        self.screen.vsync.as_ref().map_or(0, EmulatedVsync::repeats)
    }
}

/// `t − reference` in milliseconds, negative when `t` is earlier.
fn signed_ms(t: Nanos, reference: Nanos) -> f64 {
    if t >= reference { (t - reference) as f64 / 1e6 } else { -((reference - t) as f64 / 1e6) }
}
