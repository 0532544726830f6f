//! WebGL2 for the page: a wgpu back-end of the lab's own, behind wgpu's `custom` feature.
//!
//! wgpu draws on WebGL2 through wgpu-core, wgpu-hal's GL back-end, glow and naga, 0.6 MB of
//! the page's gzipped wasm (the `profile.web` comment in Cargo.toml has the figures). The lab
//! asks little of a GPU on the page: one canvas, buffers written by the queue, two kinds of
//! texture and their samplers, bind groups, four render pipelines and render passes with
//! viewports, scissors and instanced draws. This back-end does that on `web_sys`'s WebGL2
//! and nothing more; its shaders are GLSL ES that naga wrote from the WGSL at build time
//! (`build.rs`), so no shader translator ships.
//!
//! ```text
//! wgpu::Instance::from_custom(WebGl2Instance)
//!   create_surface(canvas) ─► getContext("webgl2")     one context per canvas, shared by all below
//!   request_adapter ─► Adapter ─► request_device ─► Device + Queue
//!   Device: buffers (GL buffers, or bytes when mappable), textures (texStorage2D),
//!           samplers (sampler objects), bind groups (lists), pipelines (linked programs)
//!   CommandEncoder/RenderPass ─► a list of commands ─► Queue::submit plays them on the context
//!   Surface: the canvas's own drawing buffer; present is the browser's (after the frame's task)
//! ```
//!
//! Drawn straight into the canvas's drawing buffer, whose origin is its bottom-left corner:
//! the shaders keep wgpu's clip space (no Y flip: clip-space up is the canvas's top in both),
//! and viewports and scissors are turned over with the target's height. A texture drawn into
//! is stored upside down the same way; the lab never samples one. Anything the lab does not
//! use on the page (compute, queries, bundles, copies, readback) does nothing and says so
//! once on the console: the page must never stop for it. What fails (a shader the browser
//! refuses, a write out of bounds) goes to the device's uncaptured-error handler, as a
//! validation error of wgpu's own back-ends does, and what it would have drawn is skipped.

mod device;
mod pass;
mod shaders;
mod unsupported;

use std::cell::{Cell, RefCell};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;

use wasm_bindgen::JsCast as _;
use web_sys::{HtmlCanvasElement, WebGl2RenderingContext as Gl};
use wgpu::custom::{
    AdapterInterface, DispatchAdapter, DispatchDevice, DispatchQueue, DispatchSurface, DispatchSurfaceOutputDetail,
    DispatchTexture, InstanceInterface, RequestAdapterFuture, RequestDeviceFuture, SurfaceInterface,
    SurfaceOutputDetailInterface,
};

use device::Texture;

/// The wgpu instance of the page's WebGL2 back-end.
pub(crate) fn instance() -> wgpu::Instance {
    wgpu::Instance::from_custom(WebGl2Instance)
}

/// Logs `what` as a warning the first time only: something the page never
/// does was asked of the back-end, which carries on without it.
fn unsupported(what: &'static str) {
    thread_local! {
        static WARNED: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }
    WARNED.with_borrow_mut(|warned| {
        if !warned.contains(&what) {
            warned.push(what);
            log::warn!("WebGL2: {what} is not supported by the page's back-end; ignored");
        }
    });
}

/// `WEBGL_debug_renderer_info`'s name for the GPU's own renderer string.
const UNMASKED_RENDERER_WEBGL: u32 = 0x9246;

/// The WebGL2 context of the canvas, shared by everything made from it.
pub(super) struct Context {
    pub(super) gl: Gl,
    canvas: HtmlCanvasElement,
    /// Where errors go: the device's uncaptured-error handler, as with wgpu's own back-ends.
    errors: RefCell<Option<Arc<dyn wgpu::UncapturedErrorHandler>>>,
    /// Vertex attribute locations enabled on the context, one bit each.
    pub(super) enabled_attributes: Cell<u32>,
    /// Largest texture side (`MAX_TEXTURE_SIZE`).
    max_texture_side: u32,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("canvas", &self.canvas).finish_non_exhaustive()
    }
}

impl Context {
    /// The WebGL2 context of `canvas`, asked for without depth, stencil or
    /// antialiasing (the lab draws none) and opaque.
    fn new(canvas: HtmlCanvasElement) -> Result<Context, String> {
        let options = web_sys::WebGlContextAttributes::new();
        options.set_alpha(false);
        options.set_antialias(false);
        options.set_depth(false);
        options.set_stencil(false);
        options.set_premultiplied_alpha(true);
        options.set_power_preference(web_sys::WebGlPowerPreference::HighPerformance);
        let context = canvas
            .get_context_with_context_options("webgl2", &options)
            .map_err(|e| format!("getContext(\"webgl2\") failed: {e:?}"))?
            .ok_or("the browser has no WebGL2 for this canvas")?;
        let gl: Gl = context.dyn_into().map_err(|_| "getContext(\"webgl2\") gave something else")?;
        let max_texture_side =
            gl.get_parameter(Gl::MAX_TEXTURE_SIZE).ok().and_then(|v| v.as_f64()).map_or(2048, |side| side as u32);
        // The vertex attributes live in one vertex array for the context's whole life.
        let vao = gl.create_vertex_array();
        gl.bind_vertex_array(vao.as_ref());
        gl.pixel_storei(Gl::UNPACK_ALIGNMENT, 1);
        gl.pixel_storei(Gl::PACK_ALIGNMENT, 1);
        Ok(Context { gl, canvas, errors: RefCell::new(None), enabled_attributes: Cell::new(0), max_texture_side })
    }

    /// Hands `description` to the device's uncaptured-error handler as a
    /// validation error (the lab's logs it, at most once a second), or logs it.
    pub(super) fn error(&self, description: String) {
        let handler = self.errors.borrow().clone();
        match handler {
            Some(handler) => handler(wgpu::Error::Validation { source: description.clone().into(), description }),
            None => log::error!("WebGL2: {description}"),
        }
    }

    /// What the context says it renders with (the unmasked renderer where the browser tells it).
    fn renderer(&self) -> String {
        let unmasked = self
            .gl
            .get_extension("WEBGL_debug_renderer_info")
            .ok()
            .flatten()
            .and_then(|_| self.gl.get_parameter(UNMASKED_RENDERER_WEBGL).ok())
            .and_then(|v| v.as_string());
        unmasked
            .or_else(|| self.gl.get_parameter(Gl::RENDERER).ok().and_then(|v| v.as_string()))
            .unwrap_or_else(|| "WebGL2".to_owned())
    }
}

/// The instance: makes surfaces of canvases and adapters of their contexts.
#[derive(Debug)]
struct WebGl2Instance;

impl InstanceInterface for WebGl2Instance {
    fn new(_desc: wgpu::InstanceDescriptor) -> Self {
        WebGl2Instance
    }

    #[expect(unsafe_code, reason = "the trait's method; the canvas's handle is read as wgpu-hal reads it")]
    unsafe fn create_surface(
        &self,
        target: wgpu::SurfaceTargetUnsafe,
    ) -> Result<DispatchSurface, wgpu::CreateSurfaceError> {
        let canvas = match target {
            wgpu::SurfaceTargetUnsafe::RawHandle {
                raw_window_handle: wgpu::rwh::RawWindowHandle::WebCanvas(handle),
                ..
            } => {
                // SAFETY: the caller promises the handle is valid for the surface's
                // creation; a WebCanvas handle points at the canvas's `JsValue`
                // (raw-window-handle's docs), which is cloned here, not kept.
                let value: &wasm_bindgen::JsValue = unsafe { handle.obj.cast().as_ref() };
                value.clone().dyn_into::<HtmlCanvasElement>().ok()
            }
            _ => None,
        };
        // wgpu's error type has no public constructor: a surface without a
        // context is made instead, and no adapter serves it.
        let context = match canvas.map(Context::new) {
            Some(Ok(context)) => Some(Rc::new(context)),
            Some(Err(message)) => {
                log::error!("WebGL2: {message}");
                None
            }
            None => {
                log::error!("WebGL2: a surface needs a canvas");
                None
            }
        };
        Ok(DispatchSurface::custom(Surface { context, config: RefCell::new(None) }))
    }

    fn request_adapter(&self, options: &wgpu::RequestAdapterOptions<'_, '_>) -> Pin<Box<dyn RequestAdapterFuture>> {
        let context = options.compatible_surface.and_then(|s| s.as_custom::<Surface>()).and_then(|s| s.context.clone());
        let result = match context {
            Some(context) => Ok(DispatchAdapter::custom(Adapter { context })),
            None => {
                log::warn!(
                    "WebGL2: an adapter is made for a canvas's surface (compatible_surface), and none was given"
                );
                Err(no_adapter())
            }
        };
        Box::pin(std::future::ready(result))
    }

    fn poll_all_devices(&self, _force_wait: bool) -> bool {
        true
    }

    fn wgsl_language_features(&self) -> wgpu::WgslLanguageFeatures {
        wgpu::WgslLanguageFeatures::empty()
    }

    fn enumerate_adapters(&self, _backends: wgpu::Backends) -> Pin<Box<dyn wgpu::custom::EnumerateAdapterFuture>> {
        Box::pin(std::future::ready(Vec::new()))
    }
}

fn no_adapter() -> wgpu::RequestAdapterError {
    wgpu::RequestAdapterError::NotFound {
        active_backends: wgpu::Backends::GL,
        requested_backends: wgpu::Backends::GL,
        supported_backends: wgpu::Backends::GL,
        no_fallback_backends: wgpu::Backends::empty(),
        no_adapter_backends: wgpu::Backends::GL,
        incompatible_surface_backends: wgpu::Backends::empty(),
    }
}

/// The canvas's context as an adapter.
#[derive(Debug)]
struct Adapter {
    context: Rc<Context>,
}

impl Adapter {
    fn webgl2_limits(&self) -> wgpu::Limits {
        let side = self.context.max_texture_side;
        wgpu::Limits {
            max_texture_dimension_1d: side,
            max_texture_dimension_2d: side,
            ..wgpu::Limits::downlevel_webgl2_defaults()
        }
    }
}

impl AdapterInterface for Adapter {
    fn request_device(&self, desc: &wgpu::DeviceDescriptor<'_>) -> Pin<Box<dyn RequestDeviceFuture>> {
        let result = if desc.required_features.is_empty() {
            let device = device::Device::new(Rc::clone(&self.context), self.get_info(), desc.required_limits.clone());
            let queue = device.queue();
            Ok((DispatchDevice::custom(device), DispatchQueue::custom(queue)))
        } else {
            Err(wgpu::RequestDeviceError::from_message(format!(
                "WebGL2 on this page has no optional features ({:?} asked for)",
                desc.required_features
            )))
        };
        Box::pin(std::future::ready(result))
    }

    fn is_surface_supported(&self, surface: &DispatchSurface) -> bool {
        surface.as_custom::<Surface>().and_then(|s| s.context.as_ref()).is_some_and(|c| Rc::ptr_eq(c, &self.context))
    }

    fn features(&self) -> wgpu::Features {
        wgpu::Features::empty()
    }

    fn limits(&self) -> wgpu::Limits {
        self.webgl2_limits()
    }

    fn downlevel_capabilities(&self) -> wgpu::DownlevelCapabilities {
        wgpu::DownlevelCapabilities {
            flags: wgpu::DownlevelFlags::empty(),
            limits: wgpu::DownlevelLimits::default(),
            shader_model: wgpu::ShaderModel::Sm4,
        }
    }

    fn get_info(&self) -> wgpu::AdapterInfo {
        let name = self.context.renderer();
        let software = ["SwiftShader", "llvmpipe", "softpipe"].iter().any(|s| name.contains(s));
        let device_type = if software { wgpu::DeviceType::Cpu } else { wgpu::DeviceType::Other };
        wgpu::AdapterInfo {
            name,
            driver: "WebGL2 (timestep-lab)".to_owned(),
            ..wgpu::AdapterInfo::new(device_type, wgpu::Backend::Gl)
        }
    }

    fn get_texture_format_features(&self, format: wgpu::TextureFormat) -> wgpu::TextureFormatFeatures {
        let usable = device::gl_format(format).is_some();
        wgpu::TextureFormatFeatures {
            allowed_usages: if usable {
                wgpu::TextureUsages::COPY_DST
                    | wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::RENDER_ATTACHMENT
            } else {
                wgpu::TextureUsages::empty()
            },
            flags: if usable {
                wgpu::TextureFormatFeatureFlags::FILTERABLE
            } else {
                wgpu::TextureFormatFeatureFlags::empty()
            },
        }
    }

    fn get_presentation_timestamp(&self) -> wgpu::PresentationTimestamp {
        wgpu::PresentationTimestamp::INVALID_TIMESTAMP
    }

    fn cooperative_matrix_properties(&self) -> Vec<wgpu::wgt::CooperativeMatrixProperties> {
        Vec::new()
    }
}

/// The canvas as a surface: its drawing buffer is the one frame.
#[derive(Debug)]
struct Surface {
    /// `None` when the browser gave the canvas no WebGL2 context.
    context: Option<Rc<Context>>,
    config: RefCell<Option<(wgpu::TextureFormat, [u32; 2])>>,
}

/// The canvas's drawing buffer is `Rgba8Unorm`, and shown after the frame's task.
const CANVAS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

impl SurfaceInterface for Surface {
    fn get_capabilities(&self, adapter: &DispatchAdapter) -> wgpu::SurfaceCapabilities {
        let ours =
            adapter.as_custom::<Adapter>().zip(self.context.as_ref()).is_some_and(|(a, c)| Rc::ptr_eq(&a.context, c));
        if !ours {
            return wgpu::SurfaceCapabilities::default();
        }
        wgpu::SurfaceCapabilities {
            formats: vec![CANVAS_FORMAT],
            present_modes: vec![wgpu::PresentMode::Fifo],
            alpha_modes: vec![wgpu::CompositeAlphaMode::Opaque],
            usages: wgpu::TextureUsages::RENDER_ATTACHMENT,
            ..wgpu::SurfaceCapabilities::default()
        }
    }

    fn configure(&self, _device: &DispatchDevice, config: &wgpu::SurfaceConfiguration) {
        let Some(context) = &self.context else { return };
        if config.format != CANVAS_FORMAT {
            context.error(format!(
                "the canvas is {CANVAS_FORMAT:?}, not {:?}; drawing as {CANVAS_FORMAT:?}",
                config.format
            ));
        }
        let size = [config.width.max(1), config.height.max(1)];
        // As wgpu's WebGPU back-end does: the canvas's drawing buffer takes the configured size.
        if [context.canvas.width(), context.canvas.height()] != size {
            context.canvas.set_width(size[0]);
            context.canvas.set_height(size[1]);
        }
        *self.config.borrow_mut() = Some((config.format, size));
    }

    fn get_current_texture(&self) -> (Option<DispatchTexture>, wgpu::SurfaceStatus, DispatchSurfaceOutputDetail) {
        let detail = DispatchSurfaceOutputDetail::custom(OutputDetail);
        let (Some(context), Some((_, size))) = (&self.context, *self.config.borrow()) else {
            return (None, wgpu::SurfaceStatus::Validation, detail);
        };
        if context.gl.is_context_lost() {
            return (None, wgpu::SurfaceStatus::Lost, detail);
        }
        let texture = Texture::canvas(Rc::clone(context), size);
        (Some(DispatchTexture::custom(texture)), wgpu::SurfaceStatus::Good, detail)
    }
}

/// Nothing to release: the canvas's buffer is the browser's.
#[derive(Debug)]
struct OutputDetail;

impl SurfaceOutputDetailInterface for OutputDetail {
    fn texture_discard(&self) {}

    fn texture_release(&self) {}
}
