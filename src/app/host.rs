//! The window's [`FrameHost`]: real clock, wgpu rendering, surface presents.
//!
//! The driver calls `render` then `present` (or the other way round for
//! render-first strategies); this host turns them into
//!
//! ```text
//! render:  [artificial load] ─► world → instances ─► acquire ─► sprites + overlay ─► submit
//! present: [GPU done, wait for the emulated vblank] ─► queue.present ─► display time
//! ```
//!
//! Nothing here may panic or fail the frame loudly: a frame the surface
//! refuses is skipped (and reported in [`HostOutcome`]), the loop goes on.

use winit::window::Window;

use crate::app::hud::HudData;
use crate::app::wait;
use crate::frame::FrameHost;
use crate::render::gpu_timer::GpuTimer;
use crate::render::overlay::Overlay;
use crate::render::surface::{Acquire, SkipReason, SurfaceFrame, WindowSurface};
use crate::render::{GpuContext, SpriteRenderer};
use crate::sim::{Instance, World};
use crate::strategy::View;
use crate::time::{Clock, Nanos, RealClock};
use crate::vblank::{EmulatedVsync, Vblank};

/// What happened to the frame, beyond what the driver reports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HostOutcome {
    /// The frame reached the screen.
    pub presented: bool,
    /// Why it did not.
    pub skipped: Option<SkipReason>,
    /// Time spent blocked in acquire + present (vsync shows up here).
    pub blocked: Nanos,
    /// The emulated vblank it was shown at.
    pub vblank: Option<Vblank>,
    /// How late the present call was against the vblank's wake time (emulation accuracy).
    pub wake_late: Nanos,
    /// CPU time of the overlay, ms.
    pub overlay_ms: f64,
    /// Sprites drawn.
    pub sprites: usize,
    /// Draw calls the sprite renderer issued.
    pub draw_calls: u32,
}

/// Everything one frame borrows from the app.
pub struct WindowHost<'a> {
    /// The shell's clock.
    pub clock: &'a RealClock,
    /// Device and queue.
    pub gpu: &'a GpuContext,
    /// Where frames go.
    pub surface: &'a mut WindowSurface,
    /// The world's sprites.
    pub sprites: &'a mut SpriteRenderer,
    /// The numbers on top.
    pub overlay: &'a mut Overlay,
    /// Times the scene and overlay passes on the GPU, where the adapter can.
    pub timer: Option<&'a mut GpuTimer>,
    /// The window (egui reads its scale and input from it).
    pub window: &'a Window,
    /// What the overlay shows this frame.
    pub hud: &'a HudData,
    /// Reused instance buffer.
    pub instances: &'a mut Vec<Instance>,
    /// The playfield size in world units.
    pub playfield: [f32; 2],
    /// Draw ghost markers at the expected display time.
    pub ghosts: bool,
    /// Expected delay from render start to display (for ghosts).
    pub display_lead: Nanos,
    /// Artificial CPU load for this frame.
    pub load: Nanos,
    /// The emulated vblank grid, when emulating.
    pub grid: Option<&'a mut EmulatedVsync>,
    /// The acquired frame between `render` and `present`.
    pub frame: Option<SurfaceFrame>,
    /// Filled in as the frame goes.
    pub outcome: HostOutcome,
}

impl WindowHost<'_> {
    fn expected_display_time(&self, now: Nanos) -> Nanos {
        match &self.grid {
            Some(vsync) => vsync.grid().time_of(vsync.peek(now)),
            None => now.saturating_add(self.display_lead),
        }
    }
}

impl FrameHost<World> for WindowHost<'_> {
    fn now(&mut self) -> Nanos {
        self.clock.now()
    }

    fn render(&mut self, world: &World, view: View) {
        // A frame already acquired (a strategy rendering twice) is shown first.
        if let Some(frame) = self.frame.take() {
            frame.present(&self.gpu.queue);
        }
        let start = self.clock.now();
        if self.load > 0 {
            wait::busy_until(self.clock, start.saturating_add(self.load));
        }
        self.instances.clear();
        world.write_instances(view, self.instances);
        if self.ghosts {
            let at = self.expected_display_time(self.clock.now());
            world.write_ghosts(at, self.instances);
        }
        let before_acquire = self.clock.now();
        let acquired = self.surface.acquire(&self.gpu.adapter, &self.gpu.device);
        self.outcome.blocked += self.clock.now().saturating_sub(before_acquire);
        let frame = match acquired {
            Acquire::Frame(frame) => frame,
            Acquire::Skipped(reason) => {
                self.outcome.skipped = Some(reason);
                return;
            }
        };
        let size = self.surface.size();
        let device = &self.gpu.device;
        let queue = &self.gpu.queue;
        self.sprites.prepare(device, queue, self.instances, self.playfield, size);
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("window frame") });
        self.sprites.draw(&mut encoder, frame.view());
        self.outcome.overlay_ms =
            self.overlay.draw(device, queue, &mut encoder, frame.view(), self.window, size, self.hud);
        if let Some(timer) = self.timer.as_deref_mut() {
            // Untimed when every readback slot is still in flight; `submitted` then does nothing.
            timer.resolve(&mut encoder, self.overlay.drew_pass());
        }
        queue.submit([encoder.finish()]);
        if let Some(timer) = self.timer.as_deref_mut() {
            timer.submitted();
        }
        self.outcome.sprites = self.instances.len();
        self.outcome.draw_calls = self.sprites.draw_calls_last_frame();
        self.frame = Some(frame);
    }

    fn present(&mut self) -> Nanos {
        let Some(frame) = self.frame.take() else {
            return self.clock.now();
        };
        self.window.pre_present_notify();
        if let Some(grid) = self.grid.as_deref_mut() {
            // A frame is ready when the GPU has drawn it, not when it was
            // submitted; on a software adapter that is most of the frame. Waiting
            // here also keeps the vblank spin from stealing the rasteriser's cores.
            let before = self.clock.now();
            if let Err(err) = self.gpu.device.poll(wgpu::PollType::wait_indefinitely()) {
                log::debug!("waiting for the GPU before the emulated vblank failed: {err}");
            }
            let vblank = grid.next(self.clock.now());
            wait::spin_until(self.clock, vblank.wake);
            self.outcome.wake_late = self.clock.now().saturating_sub(vblank.wake);
            frame.present(&self.gpu.queue);
            self.outcome.blocked += self.clock.now().saturating_sub(before);
            self.outcome.presented = true;
            self.outcome.vblank = Some(vblank);
            return vblank.time;
        }
        let before = self.clock.now();
        frame.present(&self.gpu.queue);
        let after = self.clock.now();
        self.outcome.blocked += after.saturating_sub(before);
        self.outcome.presented = true;
        after
    }
}
