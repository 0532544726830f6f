//! The GPU context: instance, adapter, device and queue.
//!
//! Adapter selection tries the normal request first and then
//! `force_fallback_adapter`, so the demo also starts on machines without a GPU
//! (Mesa lavapipe / llvmpipe, WARP). The device asks for no features but
//! `TIMESTAMP_QUERY` (where offered, for [`super::gpu_timer`]) and the
//! downlevel default limits (with the adapter's texture size limits so large
//! windows still fit), which every backend wgpu supports can provide.

use super::render_error::RenderError;

/// What to tell a user who has no adapter at all.
const NO_ADAPTER_HINT: &str = "no GPU adapter found (tried the fallback adapter too); on Debian/Ubuntu install \
     mesa-vulkan-drivers (a software Vulkan driver), or run the headless `timestep-lab simulate`";

/// Everything needed to create GPU resources and submit work.
pub struct GpuContext {
    /// The wgpu instance the adapter (and any surface) belongs to.
    pub(crate) instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The logical device.
    pub device: wgpu::Device,
    /// The device's queue.
    pub queue: wgpu::Queue,
}

impl GpuContext {
    /// Requests an adapter (compatible with `surface` if given): `preferred`
    /// when the caller has one (the platform's pick,
    /// `platform::preferred_adapter`), else the normal adapter then
    /// `force_fallback_adapter`; and a device with
    /// downlevel default limits and no features except timestamp queries where offered.
    ///
    /// # Errors
    /// [`RenderError::NoAdapter`] with an install hint, or [`RenderError::Device`].
    pub(crate) async fn new(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'static>>,
        preferred: Option<wgpu::Adapter>,
    ) -> Result<GpuContext, RenderError> {
        let adapter = match preferred {
            Some(adapter) => adapter,
            None => request_adapter(&instance, surface).await?,
        };
        let info = adapter.get_info();
        log::info!(
            "adapter: {} on {:?} ({:?}), driver {} {}",
            info.name,
            info.backend,
            info.device_type,
            info.driver,
            info.driver_info
        );

        // GL (WebGL2 in a browser) guarantees less than the other backends: no compute at all.
        let base = match info.backend {
            wgpu::Backend::Gl => wgpu::Limits::downlevel_webgl2_defaults(),
            _ => wgpu::Limits::downlevel_defaults(),
        };
        let required_limits = base.using_resolution(adapter.limits());
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("timestep-lab device"),
                // Timestamps only where offered: they time the passes for the overlay.
                // Vulkan's display timing where offered: it says when each frame was shown.
                required_features: adapter.features()
                    & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::VULKAN_GOOGLE_DISPLAY_TIMING),
                required_limits,
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|err| RenderError::Device(format!("{err} (adapter {})", info.name)))?;
        device.set_device_lost_callback(|reason, message| {
            log::error!("GPU device lost ({reason:?}): {message}");
        });
        Ok(GpuContext { instance, adapter, device, queue })
    }

    /// One line naming the adapter, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) on Vulkan (Cpu)`.
    pub fn adapter_summary(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} on {:?} ({:?})", info.name, info.backend, info.device_type)
    }
}

/// The normal adapter if there is one, else the fallback (software) adapter.
async fn request_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'static>>,
) -> Result<wgpu::Adapter, RenderError> {
    let mut options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: surface,
        apply_limit_buckets: false,
    };
    let first = match instance.request_adapter(&options).await {
        Ok(adapter) => return Ok(adapter),
        Err(err) => err,
    };
    log::warn!("no adapter from the normal request ({first}); trying the fallback adapter");
    options.force_fallback_adapter = true;
    instance
        .request_adapter(&options)
        .await
        .map_err(|fallback| RenderError::NoAdapter(format!("{NO_ADAPTER_HINT} [{first}; fallback: {fallback}]")))
}
