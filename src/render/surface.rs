//! The window's swapchain: configure, pick present modes, acquire frames.
//!
//! A surface can refuse a frame for many reasons, and a game loop must shrug
//! every one of them off. [`WindowSurface::acquire`] matches each outcome of
//! [`wgpu::Surface::get_current_texture`] explicitly and turns it into
//! "here is a frame" or "skip this frame, here is why":
//!
//! ```text
//! Success      ─► frame
//! Suboptimal   ─► frame, reconfigure before the next acquire (the texture must be gone first)
//! Outdated     ─► reconfigure now, skip
//! Lost         ─► create a new surface from the window, configure, skip
//! Timeout      ─► skip (try again next frame)
//! Occluded     ─► skip (the shell stops rendering until the window is visible)
//! Validation   ─► log, skip
//! zero size    ─► skip without touching wgpu (configure would panic)
//! ```
//!
//! Sizes are clamped to `1..=max_texture_dimension_2d` when configuring;
//! a zero-sized (minimised) window is remembered as such and never
//! configured. The present mode is always one the surface reports as
//! supported, so the mode shown to the user is the mode in effect.

use std::sync::Arc;

use winit::window::Window;

/// The present modes the demo offers, in the order `V` cycles through them.
pub(crate) const CYCLE_ORDER: [wgpu::PresentMode; 4] =
    [wgpu::PresentMode::Fifo, wgpu::PresentMode::Mailbox, wgpu::PresentMode::Immediate, wgpu::PresentMode::FifoRelaxed];

/// Each present mode's two spellings: the flag's and the stats' (`fifo-relaxed`),
/// and the title the overlay, the vsync verdict and the report card show (`FifoRelaxed`).
const PRESENT_MODE_NAMES: [(wgpu::PresentMode, &str, &str); 6] = [
    (wgpu::PresentMode::Fifo, "fifo", "Fifo"),
    (wgpu::PresentMode::FifoRelaxed, "fifo-relaxed", "FifoRelaxed"),
    (wgpu::PresentMode::Mailbox, "mailbox", "Mailbox"),
    (wgpu::PresentMode::Immediate, "immediate", "Immediate"),
    (wgpu::PresentMode::AutoVsync, "auto-vsync", "AutoVsync"),
    (wgpu::PresentMode::AutoNoVsync, "auto-no-vsync", "AutoNoVsync"),
];

fn present_mode_names(mode: wgpu::PresentMode) -> (&'static str, &'static str) {
    PRESENT_MODE_NAMES.iter().find(|(m, _, _)| *m == mode).map_or(("?", "?"), |&(_, name, title)| (name, title))
}

/// Short lowercase name of a present mode (`fifo`), as the CLI and stats spell it.
pub(crate) fn present_mode_name(mode: wgpu::PresentMode) -> &'static str {
    present_mode_names(mode).0
}

/// `Fifo`, `Mailbox`…: how the overlay, the verdict and the report name a mode.
pub(crate) fn present_mode_title(mode: wgpu::PresentMode) -> &'static str {
    present_mode_names(mode).1
}

/// Whether a present mode asks the display to pace presents (vsync).
pub(crate) fn is_vsync_mode(mode: wgpu::PresentMode) -> bool {
    matches!(mode, wgpu::PresentMode::Fifo | wgpu::PresentMode::FifoRelaxed | wgpu::PresentMode::AutoVsync)
}

/// Why no frame was acquired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SkipReason {
    /// The window has no area (minimised); nothing was asked of wgpu.
    ZeroSize,
    /// Acquire timed out.
    Timeout,
    /// The window is hidden.
    Occluded,
    /// The surface changed under us; it has been reconfigured.
    Outdated,
    /// The surface was lost; it has been recreated (or recreation failed, see the log).
    Lost,
    /// wgpu raised a validation error while acquiring.
    Validation,
}

/// How often each acquire outcome happened (for the overlay and the log).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct AcquireCounts {
    /// Frames acquired (including suboptimal ones).
    pub(crate) frames: u64,
    /// `Suboptimal` frames.
    pub(crate) suboptimal: u64,
    /// Skips because the window had zero size.
    pub(crate) zero_size: u64,
    /// `Timeout` skips.
    pub(crate) timeout: u64,
    /// `Occluded` skips.
    pub(crate) occluded: u64,
    /// `Outdated` skips.
    pub(crate) outdated: u64,
    /// `Lost` skips (surface recreated).
    pub(crate) lost: u64,
    /// `Validation` skips.
    pub(crate) validation: u64,
    /// Times the surface was (re)configured.
    pub(crate) configures: u64,
}

/// An acquired swapchain image; present it with [`SurfaceFrame::present`].
pub(crate) struct SurfaceFrame {
    texture: wgpu::SurfaceTexture,
    view: wgpu::TextureView,
}

impl SurfaceFrame {
    /// The view to render into.
    pub(crate) fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Schedules the image for display (after its work was submitted).
    pub(crate) fn present(self, queue: &wgpu::Queue) {
        drop(self.view);
        queue.present(self.texture);
    }
}

/// The result of [`WindowSurface::acquire`].
pub(crate) enum Acquire {
    /// A frame to draw into.
    Frame(SurfaceFrame),
    /// No frame this time.
    Skipped(SkipReason),
}

/// Why the surface could not be created at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SurfaceError {
    /// wgpu could not create a surface for the window.
    #[error(
        "could not create a wgpu surface for the window ({0}); no GPU driver serves this window system: \
         install a Vulkan driver (Debian/Ubuntu: mesa-vulkan-drivers) or run `timestep-lab simulate`"
    )]
    Create(#[from] wgpu::CreateSurfaceError),
    /// The adapter cannot present to this surface.
    #[error("the GPU adapter cannot present to this window (no surface formats or present modes)")]
    Unsupported,
}

/// The window's surface, its configuration and the present modes it supports.
pub(crate) struct WindowSurface {
    instance: wgpu::Instance,
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    supported: Vec<wgpu::PresentMode>,
    max_dimension: u32,
    zero_size: bool,
    needs_configure: bool,
    counts: AcquireCounts,
}

impl WindowSurface {
    /// The wgpu surface, for a display-time source that reads the platform's swap chain (DXGI).
    pub(crate) fn raw(&self) -> &wgpu::Surface<'static> {
        &self.surface
    }

    /// Creates a surface for `window`. It is configured by [`WindowSurface::configure`]
    /// (after the device exists), so the adapter can be chosen compatible with it.
    ///
    /// # Errors
    /// If wgpu cannot create a surface for this window.
    pub(crate) fn create(
        instance: &wgpu::Instance,
        window: Arc<Window>,
    ) -> Result<wgpu::Surface<'static>, SurfaceError> {
        Ok(instance.create_surface(window)?)
    }

    /// Wraps a created surface; chooses an 8-bit non-sRGB format and `mode` (or the
    /// closest supported mode), and configures it at the window's size.
    ///
    /// # Errors
    /// If the adapter reports no formats for this surface.
    pub(crate) fn new(
        instance: &wgpu::Instance,
        window: Arc<Window>,
        surface: wgpu::Surface<'static>,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        mode: wgpu::PresentMode,
    ) -> Result<WindowSurface, SurfaceError> {
        let caps = surface.get_capabilities(adapter);
        // The overlay and the sprites blend in gamma space, as egui's colours
        // are, so a non-sRGB target is preferred (as eframe picks); both shaders
        // also compile for sRGB targets where nothing else is offered.
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| matches!(f, wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Rgba8Unorm))
            .or_else(|| caps.formats.first().copied())
            .ok_or(SurfaceError::Unsupported)?;
        let supported: Vec<wgpu::PresentMode> =
            CYCLE_ORDER.into_iter().filter(|m| caps.present_modes.contains(m)).collect();
        if supported.is_empty() {
            return Err(SurfaceError::Unsupported);
        }
        let size = window.inner_size();
        let alpha_mode = caps.alpha_modes.first().copied().unwrap_or(wgpu::CompositeAlphaMode::Auto);
        let config = wgpu::SurfaceConfiguration {
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            desired_maximum_frame_latency: 2,
            present_mode: supported[0],
            alpha_mode,
            view_formats: vec![],
        };
        log::info!(
            "surface: format {format:?}, present modes supported: {}",
            supported.iter().map(|m| present_mode_name(*m)).collect::<Vec<_>>().join(", ")
        );
        let mut this = WindowSurface {
            instance: instance.clone(),
            window,
            surface,
            config,
            supported,
            max_dimension: device.limits().max_texture_dimension_2d.max(1),
            zero_size: size.width == 0 || size.height == 0,
            needs_configure: true,
            counts: AcquireCounts::default(),
        };
        this.config.present_mode = this.closest_supported(mode);
        this.configure(device);
        Ok(this)
    }

    /// The texture format frames are rendered in.
    pub(crate) fn format(&self) -> wgpu::TextureFormat {
        self.config.format
    }

    /// The size frames are rendered at, in pixels (never 0).
    pub(crate) fn size(&self) -> [u32; 2] {
        [self.config.width, self.config.height]
    }

    /// True while the window has no area; nothing is rendered then.
    pub(crate) fn is_zero_size(&self) -> bool {
        self.zero_size
    }

    /// The present mode in effect.
    pub(crate) fn present_mode(&self) -> wgpu::PresentMode {
        self.config.present_mode
    }

    /// The modes of [`CYCLE_ORDER`] the surface supports, in that order.
    pub(crate) fn supported_present_modes(&self) -> &[wgpu::PresentMode] {
        &self.supported
    }

    /// Acquire outcomes so far.
    pub(crate) fn counts(&self) -> AcquireCounts {
        self.counts
    }

    /// `mode` if supported, else the first supported mode that paces the
    /// same way (vsync or not), else the first supported mode.
    pub(crate) fn closest_supported(&self, mode: wgpu::PresentMode) -> wgpu::PresentMode {
        let wanted = match mode {
            wgpu::PresentMode::AutoVsync => wgpu::PresentMode::Fifo,
            wgpu::PresentMode::AutoNoVsync => wgpu::PresentMode::Immediate,
            other => other,
        };
        if self.supported.contains(&wanted) {
            return wanted;
        }
        let fallback: &[wgpu::PresentMode] = if is_vsync_mode(wanted) {
            &[wgpu::PresentMode::Fifo, wgpu::PresentMode::FifoRelaxed]
        } else {
            &[wgpu::PresentMode::Immediate, wgpu::PresentMode::Mailbox]
        };
        fallback.iter().copied().find(|m| self.supported.contains(m)).unwrap_or(self.supported[0])
    }

    /// Switches to `mode` (or the closest supported one); returns the mode in effect.
    pub(crate) fn set_present_mode(&mut self, device: &wgpu::Device, mode: wgpu::PresentMode) -> wgpu::PresentMode {
        let mode = self.closest_supported(mode);
        if mode != self.config.present_mode {
            self.config.present_mode = mode;
            self.needs_configure = true;
            self.configure(device);
        }
        mode
    }

    /// The supported mode after the current one in [`CYCLE_ORDER`].
    pub(crate) fn next_present_mode(&self) -> wgpu::PresentMode {
        let i = self.supported.iter().position(|m| *m == self.config.present_mode).unwrap_or(0);
        self.supported[(i + 1) % self.supported.len()]
    }

    /// Records a new window size; a zero dimension pauses rendering. The
    /// surface is reconfigured at the next acquire, so a storm of resize
    /// events costs one configure, not one each.
    pub(crate) fn resize(&mut self, width: u32, height: u32) {
        self.zero_size = width == 0 || height == 0;
        if self.zero_size {
            return;
        }
        let (w, h) = (width.clamp(1, self.max_dimension), height.clamp(1, self.max_dimension));
        if (w, h) != (self.config.width, self.config.height) {
            self.config.width = w;
            self.config.height = h;
            self.needs_configure = true;
        }
    }

    /// Applies the configuration if anything changed. Must not be called
    /// while a [`SurfaceFrame`] is alive (wgpu panics then), which is why
    /// frames are presented or dropped before the next acquire.
    pub(crate) fn configure(&mut self, device: &wgpu::Device) {
        if !self.needs_configure || self.zero_size {
            return;
        }
        self.surface.configure(device, &self.config);
        self.needs_configure = false;
        self.counts.configures += 1;
        log::debug!(
            "surface configured: {}x{} {}",
            self.config.width,
            self.config.height,
            present_mode_name(self.config.present_mode)
        );
    }

    /// Gets the next frame, or says why there is none this time (having
    /// already done what that outcome needs: reconfigure, recreate).
    pub(crate) fn acquire(&mut self, adapter: &wgpu::Adapter, device: &wgpu::Device) -> Acquire {
        if self.zero_size {
            self.counts.zero_size += 1;
            return Acquire::Skipped(SkipReason::ZeroSize);
        }
        self.configure(device);
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(texture) => texture,
            wgpu::CurrentSurfaceTexture::Suboptimal(texture) => {
                // Reconfiguring now would panic: the texture is alive until presented.
                self.counts.suboptimal += 1;
                self.needs_configure = true;
                log::debug!("surface suboptimal; reconfiguring after this frame");
                texture
            }
            wgpu::CurrentSurfaceTexture::Timeout => {
                self.counts.timeout += 1;
                log::debug!("surface acquire timed out; skipping the frame");
                return Acquire::Skipped(SkipReason::Timeout);
            }
            wgpu::CurrentSurfaceTexture::Occluded => {
                self.counts.occluded += 1;
                log::trace!("surface occluded; skipping the frame");
                return Acquire::Skipped(SkipReason::Occluded);
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.counts.outdated += 1;
                log::debug!("surface outdated; reconfiguring");
                self.sync_size_with_window();
                self.needs_configure = true;
                self.configure(device);
                return Acquire::Skipped(SkipReason::Outdated);
            }
            wgpu::CurrentSurfaceTexture::Lost => {
                self.counts.lost += 1;
                log::warn!("surface lost; creating a new one");
                self.recreate(adapter, device);
                return Acquire::Skipped(SkipReason::Lost);
            }
            wgpu::CurrentSurfaceTexture::Validation => {
                self.counts.validation += 1;
                log::warn!("validation error while acquiring a surface texture; skipping the frame");
                return Acquire::Skipped(SkipReason::Validation);
            }
        };
        self.counts.frames += 1;
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor::default());
        Acquire::Frame(SurfaceFrame { texture, view })
    }

    fn sync_size_with_window(&mut self) {
        let size = self.window.inner_size();
        self.zero_size = size.width == 0 || size.height == 0;
        if !self.zero_size {
            self.config.width = size.width.clamp(1, self.max_dimension);
            self.config.height = size.height.clamp(1, self.max_dimension);
        }
    }

    fn recreate(&mut self, adapter: &wgpu::Adapter, device: &wgpu::Device) {
        match self.instance.create_surface(Arc::clone(&self.window)) {
            Ok(surface) => {
                let caps = surface.get_capabilities(adapter);
                if caps.formats.is_empty() {
                    // What a destroyed window looks like: nothing can be presented to it any more.
                    log::warn!("the lost surface's window offers no formats (is it closing?); keeping the old surface");
                    return;
                }
                if !caps.formats.contains(&self.config.format) {
                    log::error!("recreated surface no longer supports {:?}; keeping the old one", self.config.format);
                    return;
                }
                self.surface = surface;
                self.sync_size_with_window();
                self.needs_configure = true;
                self.configure(device);
            }
            Err(err) => log::error!("could not recreate the lost surface: {err}"),
        }
    }
}
