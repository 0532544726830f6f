//! The window's GPU side: device, surface, renderers, pass timing, and the
//! errors wgpu reports from its own threads.
//!
//! ```text
//!   Gfx::new: instance ─► surface ─► adapter + device ─► present mode ─► sprites, overlay, timer
//!   per frame: WindowHost borrows sprites/overlay/surface/timer ─► collect_times()
//!   at exit:  screenshot() (scene + overlay, tiled readback), stats (adapter, surface counts, GPU means)
//! ```

use crate::time::Instant;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use crate::app::config::RunConfig;
use crate::error::CliError;
use crate::hud_data::HudData;
use crate::render::gpu_timer::{GpuTimer, GpuTimes};
use crate::render::overlay::Overlay;
use crate::render::surface::{WindowSurface, is_vsync_mode, present_mode_name, present_mode_title};
use crate::render::{GpuContext, Screenshot, SpriteRenderer};
use crate::session::PresentModeInfo;
use crate::sim::{Instance, World};
use crate::strategy::View;

/// Errors wgpu reports from callbacks, which may run on other threads.
#[derive(Default)]
struct GpuAlarms {
    device_lost: Option<String>,
    uncaptured: u64,
    /// When an uncaptured error was last logged, and how many were not logged since.
    last_logged: Option<Instant>,
    suppressed: u64,
}

impl GpuAlarms {
    /// Logs a wgpu error, at most once a second: a broken pipeline fails
    /// every frame, and one line per frame would bury everything else.
    fn uncaptured_error(&mut self, error: &wgpu::Error) {
        self.uncaptured += 1;
        let now = Instant::now();
        if self.last_logged.is_some_and(|at| now.duration_since(at) < Duration::from_secs(1)) {
            self.suppressed += 1;
            return;
        }
        if self.suppressed > 0 {
            log::error!("wgpu error (and {} more in the last second): {error}", self.suppressed);
        } else {
            log::error!("wgpu error: {error}");
        }
        self.last_logged = Some(now);
        self.suppressed = 0;
    }
}

fn lock(alarms: &Mutex<GpuAlarms>) -> MutexGuard<'_, GpuAlarms> {
    alarms.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sums of GPU pass times, for means over a run or a stretch of it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct GpuTimeTotals {
    /// Frames timed.
    pub(crate) frames: u64,
    scene_ms: f64,
    overlay_frames: u64,
    overlay_ms: f64,
}

impl GpuTimeTotals {
    /// Adds one frame's times.
    pub(crate) fn add(&mut self, times: &GpuTimes) {
        self.frames += 1;
        self.scene_ms += times.scene_ms;
        if let Some(overlay) = times.overlay_ms {
            self.overlay_frames += 1;
            self.overlay_ms += overlay;
        }
    }

    /// Mean scene-pass time, ms (`None` before the first frame).
    pub(crate) fn scene_mean_ms(&self) -> Option<f64> {
        (self.frames > 0).then(|| self.scene_ms / self.frames as f64)
    }

    /// Mean overlay-pass time over the frames that drew the overlay, ms.
    pub(crate) fn overlay_mean_ms(&self) -> Option<f64> {
        (self.overlay_frames > 0).then(|| self.overlay_ms / self.overlay_frames as f64)
    }
}

/// What [`Gfx::request`] hands to [`Gfx::new`].
pub(crate) type GpuStart = Result<GpuParts, CliError>;

/// The GPU and the window's surface, before the surface is configured.
pub(crate) struct GpuParts {
    gpu: GpuContext,
    surface: wgpu::Surface<'static>,
}

impl std::fmt::Debug for GpuParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuParts").field("adapter", &self.gpu.adapter_summary()).finish_non_exhaustive()
    }
}

/// Everything on the GPU side of the window.
pub(crate) struct Gfx {
    /// Instance, adapter, device, queue.
    pub(crate) gpu: GpuContext,
    /// Where frames go.
    pub(crate) surface: WindowSurface,
    /// The world's sprites.
    pub(crate) sprites: SpriteRenderer,
    /// The numbers on top.
    pub(crate) overlay: Overlay,
    /// Times the render passes, where the adapter has timestamp queries.
    pub(crate) timer: Option<GpuTimer>,
    /// GPU pass times over the whole run.
    pub(crate) run_times: GpuTimeTotals,
    /// GPU pass times since the overlay last showed them.
    pub(crate) recent_times: GpuTimeTotals,
    alarms: Arc<Mutex<GpuAlarms>>,
}

impl Gfx {
    /// The first half of the GPU's start-up, asynchronous (a browser hands
    /// out adapters by promise): the instance, `window`'s surface, an
    /// adapter and a device. Natively the platform waits for it at once.
    pub(crate) fn request(
        event_loop: &ActiveEventLoop,
        window: &Arc<Window>,
    ) -> impl Future<Output = GpuStart> + 'static {
        let display = event_loop.owned_display_handle();
        let window = Arc::clone(window);
        async move {
            let runtime = |e: &dyn std::fmt::Display| CliError::Runtime(e.to_string());
            let instance = crate::platform::gpu_instance(display).await;
            let surface = WindowSurface::create(&instance, window).map_err(|e| runtime(&e))?;
            let preferred = crate::platform::preferred_adapter(&instance, Some(&surface)).await;
            let gpu = GpuContext::new(instance, Some(&surface), preferred).await.map_err(|e| runtime(&e))?;
            Ok(GpuParts { gpu, surface })
        }
    }

    /// The second half: the surface configured in the present mode `config`
    /// asks for, the renderers, the overlay and the GPU timer.
    ///
    /// # Errors
    /// [`CliError::Runtime`] when [`Gfx::request`] found no usable adapter or surface.
    pub(crate) fn new(start: GpuStart, window: &Arc<Window>, config: &RunConfig) -> Result<Gfx, CliError> {
        let runtime = |e: &dyn std::fmt::Display| CliError::Runtime(e.to_string());
        let GpuParts { gpu, surface: raw_surface } = start?;
        log::info!("rendering on {}", gpu.adapter_summary());
        let alarms = Arc::new(Mutex::new(GpuAlarms::default()));
        let lost = Arc::clone(&alarms);
        gpu.device.set_device_lost_callback(move |reason, message| {
            log::error!("GPU device lost ({reason:?}): {message}");
            lock(&lost).device_lost = Some(format!("{reason:?}: {message}"));
        });
        let uncaptured = Arc::clone(&alarms);
        gpu.device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| lock(&uncaptured).uncaptured_error(&error)));
        let emulating = config.emulation.is_some();
        let mode = config.present_mode.resolve(emulating);
        let surface =
            WindowSurface::new(&gpu.instance, Arc::clone(window), raw_surface, &gpu.adapter, &gpu.device, mode)
                .map_err(|e| runtime(&e))?;
        if surface.present_mode() != mode {
            let (asked, got) = (present_mode_name(mode), present_mode_name(surface.present_mode()));
            log::warn!("present mode {asked} is not supported here; using {got}");
        }
        if emulating && is_vsync_mode(surface.present_mode()) {
            log::warn!("emulating a refresh over a blocking present mode: the real vsync will beat against the grid");
        }
        let mut sprites = SpriteRenderer::new(&gpu.device, &gpu.queue, surface.format());
        let mut overlay = Overlay::new(&gpu.device, surface.format(), window);
        let timer = GpuTimer::new(&gpu.device, &gpu.queue);
        match &timer {
            Some(timer) => {
                sprites.set_timestamps(Some(timer.scene()));
                overlay.set_timestamps(Some(timer.overlay()));
            }
            None => log::info!("the adapter has no timestamp queries: GPU pass times are not measured"),
        }
        overlay.set_visible(!config.no_overlay);
        Ok(Gfx {
            gpu,
            surface,
            sprites,
            overlay,
            timer,
            run_times: GpuTimeTotals::default(),
            recent_times: GpuTimeTotals::default(),
            alarms,
        })
    }

    /// Why the device was lost, once it has been.
    pub(crate) fn device_lost(&self) -> Option<String> {
        lock(&self.alarms).device_lost.clone()
    }

    /// wgpu errors reported during the run.
    pub(crate) fn uncaptured_errors(&self) -> u64 {
        lock(&self.alarms).uncaptured
    }

    /// The present mode in effect, as the session names it.
    pub(crate) fn present_mode(&self) -> PresentModeInfo {
        let mode = self.surface.present_mode();
        PresentModeInfo::new(present_mode_title(mode), is_vsync_mode(mode))
    }

    /// Switches to the next present mode the surface supports; returns the one in effect.
    pub(crate) fn cycle_present_mode(&mut self) -> PresentModeInfo {
        let next = self.surface.next_present_mode();
        let actual = self.surface.set_present_mode(&self.gpu.device, next);
        log::info!("present mode: {}", present_mode_name(actual));
        self.present_mode()
    }

    /// Reads back the GPU pass times of a finished frame, if one is ready.
    pub(crate) fn collect_times(&mut self) {
        if let Some(times) = self.timer.as_mut().and_then(GpuTimer::collect) {
            self.run_times.add(&times);
            self.recent_times.add(&times);
        }
    }

    /// Draws `world` as `view` once more offscreen at the window's size, the
    /// overlay included when it is shown, and saves a PNG (see [`Screenshot`]).
    ///
    /// # Errors
    /// [`CliError::Runtime`] when the image cannot be read back or written.
    pub(crate) fn screenshot(&self, shot: ScreenshotScene<'_>, path: &std::path::Path) -> Result<(), CliError> {
        let mut instances: Vec<Instance> = Vec::with_capacity(shot.world.max_instances());
        shot.world.write_instances(shot.view, &mut instances);
        let picture = Screenshot {
            instances: &instances,
            playfield: shot.playfield,
            size: self.surface.size(),
            hud: self.overlay.visible().then_some(shot.hud),
            pixels_per_point: shot.pixels_per_point,
        };
        picture.save_png(&self.gpu.device, &self.gpu.queue, path).map_err(|e| CliError::Runtime(e.to_string()))
    }

    /// [`Gfx::screenshot`] of sprites already written (lane mode's last frame: every lane's).
    ///
    /// # Errors
    /// [`CliError::Runtime`] when the image cannot be read back or written.
    pub(crate) fn screenshot_instances(
        &self,
        instances: &[Instance],
        shot: ScreenshotScene<'_>,
        path: &std::path::Path,
    ) -> Result<(), CliError> {
        let picture = Screenshot {
            instances,
            playfield: shot.playfield,
            size: self.surface.size(),
            hud: self.overlay.visible().then_some(shot.hud),
            pixels_per_point: shot.pixels_per_point,
        };
        picture.save_png(&self.gpu.device, &self.gpu.queue, path).map_err(|e| CliError::Runtime(e.to_string()))
    }
}

/// What the window showed last, for [`Gfx::screenshot`].
#[derive(Clone, Copy)]
pub(crate) struct ScreenshotScene<'a> {
    /// The world.
    pub(crate) world: &'a World,
    /// The view of it the last frame drew.
    pub(crate) view: View,
    /// The playfield the world is laid out in.
    pub(crate) playfield: [f32; 2],
    /// The overlay's numbers.
    pub(crate) hud: &'a HudData,
    /// The window's scale factor.
    pub(crate) pixels_per_point: f32,
}
