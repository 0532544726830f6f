//! The device and its queue, and what they make: buffers, textures, views,
//! samplers, bind groups and render pipelines.

use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;

use web_sys::{WebGl2RenderingContext as Gl, WebGlBuffer, WebGlFramebuffer, WebGlSampler, WebGlTexture};
use wgpu::custom::{
    BindGroupInterface, BindGroupLayoutInterface, BufferInterface, BufferMappedRangeInterface, DeviceInterface,
    DispatchBindGroup, DispatchBindGroupLayout, DispatchBlas, DispatchBuffer, DispatchBufferMappedRange,
    DispatchCommandBuffer, DispatchCommandEncoder, DispatchComputePipeline, DispatchExternalTexture,
    DispatchPipelineCache, DispatchPipelineLayout, DispatchQuerySet, DispatchQueueWriteBuffer,
    DispatchRenderBundleEncoder, DispatchRenderPipeline, DispatchSampler, DispatchShaderModule, DispatchTexture,
    DispatchTextureView, DispatchTlas, PipelineLayoutInterface, PopErrorScopeFuture, QueueInterface,
    RenderPipelineInterface, SamplerInterface, TextureInterface, TextureViewInterface,
};

use super::shaders::{self, Program};
use super::unsupported::{Bytes, Nothing, RenderBundleEncoder};
use super::{Context, unsupported};

/// The device: makes resources on the canvas's context.
#[derive(Debug)]
pub(super) struct Device {
    context: Rc<Context>,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    /// Error scopes pushed and not yet popped (every pop finds no error).
    scopes: Cell<u32>,
}

impl Device {
    pub(super) fn new(context: Rc<Context>, info: wgpu::AdapterInfo, limits: wgpu::Limits) -> Device {
        Device { context, info, limits, scopes: Cell::new(0) }
    }

    pub(super) fn queue(&self) -> Queue {
        Queue { context: Rc::clone(&self.context), submissions: Cell::new(0) }
    }
}

impl DeviceInterface for Device {
    fn features(&self) -> wgpu::Features {
        wgpu::Features::empty()
    }

    fn limits(&self) -> wgpu::Limits {
        self.limits.clone()
    }

    fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.info.clone()
    }

    fn create_shader_module(
        &self,
        desc: wgpu::ShaderModuleDescriptor<'_>,
        _shader_bound_checks: wgpu::ShaderRuntimeChecks,
    ) -> DispatchShaderModule {
        let label = desc.label.unwrap_or("unnamed").to_owned();
        let key = match &desc.source {
            wgpu::ShaderSource::Wgsl(source) => Some(shaders::wgsl_key(source)),
            _ => None,
        };
        let module = key.and_then(shaders::module);
        if module.is_none() {
            self.context.error(format!(
                "shader module {label} was not translated at build time (build.rs); what it draws is skipped"
            ));
        }
        DispatchShaderModule::custom(ShaderModule { label, module })
    }

    #[expect(unsafe_code, reason = "the trait's method; it only declines")]
    unsafe fn create_shader_module_passthrough(
        &self,
        desc: &wgpu::ShaderModuleDescriptorPassthrough<'_>,
    ) -> DispatchShaderModule {
        unsupported("pass-through shaders");
        DispatchShaderModule::custom(ShaderModule { label: desc.label.unwrap_or("unnamed").to_owned(), module: None })
    }

    fn create_bind_group_layout(&self, _desc: &wgpu::BindGroupLayoutDescriptor<'_>) -> DispatchBindGroupLayout {
        DispatchBindGroupLayout::custom(BindGroupLayout)
    }

    fn create_bind_group(&self, desc: &wgpu::BindGroupDescriptor<'_>) -> DispatchBindGroup {
        let entries = desc
            .entries
            .iter()
            .filter_map(|entry| {
                let resource = match &entry.resource {
                    wgpu::BindingResource::Buffer(binding) => {
                        let buffer = binding.buffer.as_custom::<Buffer>()?;
                        let size = binding.size.map_or(buffer.inner.size.saturating_sub(binding.offset), |s| s.get());
                        Resource::Buffer { buffer: Rc::clone(&buffer.inner), offset: binding.offset, size }
                    }
                    wgpu::BindingResource::TextureView(view) => {
                        Resource::Texture(Rc::clone(&view.as_custom::<TextureView>()?.texture))
                    }
                    wgpu::BindingResource::Sampler(sampler) => {
                        Resource::Sampler(Rc::clone(&sampler.as_custom::<Sampler>()?.raw))
                    }
                    _ => {
                        unsupported("binding arrays, acceleration structures and external textures");
                        return None;
                    }
                };
                Some((entry.binding, resource))
            })
            .collect();
        DispatchBindGroup::custom(BindGroup { entries })
    }

    fn create_pipeline_layout(&self, _desc: &wgpu::PipelineLayoutDescriptor<'_>) -> DispatchPipelineLayout {
        DispatchPipelineLayout::custom(PipelineLayout)
    }

    fn create_render_pipeline(&self, desc: &wgpu::RenderPipelineDescriptor<'_>) -> DispatchRenderPipeline {
        DispatchRenderPipeline::custom(RenderPipeline::new(&self.context, desc))
    }

    fn create_mesh_pipeline(&self, _desc: &wgpu::MeshPipelineDescriptor<'_>) -> DispatchRenderPipeline {
        unsupported("mesh shaders");
        DispatchRenderPipeline::custom(RenderPipeline::none())
    }

    fn create_compute_pipeline(&self, _desc: &wgpu::ComputePipelineDescriptor<'_>) -> DispatchComputePipeline {
        unsupported("compute");
        DispatchComputePipeline::custom(Nothing)
    }

    #[expect(unsafe_code, reason = "the trait's method; it makes nothing")]
    unsafe fn create_pipeline_cache(&self, _desc: &wgpu::PipelineCacheDescriptor<'_>) -> DispatchPipelineCache {
        DispatchPipelineCache::custom(Nothing)
    }

    fn create_buffer(&self, desc: &wgpu::BufferDescriptor<'_>) -> DispatchBuffer {
        DispatchBuffer::custom(Buffer::new(&self.context, desc))
    }

    fn create_texture(&self, desc: &wgpu::TextureDescriptor<'_>) -> DispatchTexture {
        DispatchTexture::custom(Texture::new(&self.context, desc))
    }

    fn create_external_texture(
        &self,
        _desc: &wgpu::ExternalTextureDescriptor<'_>,
        _planes: &[&wgpu::TextureView],
    ) -> DispatchExternalTexture {
        unsupported("external textures");
        DispatchExternalTexture::custom(Nothing)
    }

    fn create_blas(
        &self,
        _desc: &wgpu::CreateBlasDescriptor<'_>,
        _sizes: wgpu::BlasGeometrySizeDescriptors,
    ) -> (Option<u64>, DispatchBlas) {
        unsupported("acceleration structures");
        (None, DispatchBlas::custom(Nothing))
    }

    fn create_tlas(&self, _desc: &wgpu::CreateTlasDescriptor<'_>) -> DispatchTlas {
        unsupported("acceleration structures");
        DispatchTlas::custom(Nothing)
    }

    fn create_sampler(&self, desc: &wgpu::SamplerDescriptor<'_>) -> DispatchSampler {
        DispatchSampler::custom(Sampler::new(&self.context.gl, desc))
    }

    fn create_query_set(&self, _desc: &wgpu::QuerySetDescriptor<'_>) -> DispatchQuerySet {
        unsupported("query sets");
        DispatchQuerySet::custom(Nothing)
    }

    fn create_command_encoder(&self, _desc: &wgpu::CommandEncoderDescriptor<'_>) -> DispatchCommandEncoder {
        DispatchCommandEncoder::custom(super::pass::CommandEncoder::default())
    }

    fn create_render_bundle_encoder(
        &self,
        _desc: &wgpu::RenderBundleEncoderDescriptor<'_>,
    ) -> DispatchRenderBundleEncoder {
        unsupported("render bundles");
        DispatchRenderBundleEncoder::custom(RenderBundleEncoder)
    }

    fn set_device_lost_callback(&self, _device_lost_callback: wgpu::custom::BoxDeviceLostCallback) {
        // A lost WebGL context shows as a lost surface (`get_current_texture`).
    }

    fn on_uncaptured_error(&self, handler: Arc<dyn wgpu::UncapturedErrorHandler>) {
        *self.context.errors.borrow_mut() = Some(handler);
    }

    fn push_error_scope(&self, _filter: wgpu::ErrorFilter) -> u32 {
        let index = self.scopes.get();
        self.scopes.set(index + 1);
        index
    }

    fn pop_error_scope(&self, _index: u32) -> Pin<Box<dyn PopErrorScopeFuture>> {
        self.scopes.set(self.scopes.get().saturating_sub(1));
        Box::pin(std::future::ready(None))
    }

    #[expect(unsafe_code, reason = "the trait's method; it does nothing")]
    unsafe fn start_graphics_debugger_capture(&self) {}

    #[expect(unsafe_code, reason = "the trait's method; it does nothing")]
    unsafe fn stop_graphics_debugger_capture(&self) {}

    fn poll(&self, _poll_type: wgpu::wgt::PollType<u64>) -> Result<wgpu::PollStatus, wgpu::PollError> {
        Ok(wgpu::PollStatus::QueueEmpty)
    }

    fn get_internal_counters(&self) -> wgpu::InternalCounters {
        wgpu::InternalCounters::default()
    }

    fn generate_allocator_report(&self) -> Option<wgpu::AllocatorReport> {
        None
    }

    fn destroy(&self) {}
}

/// The queue: writes go to the context at once, command buffers play on it when submitted.
#[derive(Debug)]
pub(super) struct Queue {
    context: Rc<Context>,
    submissions: Cell<u64>,
}

impl QueueInterface for Queue {
    fn write_buffer(&self, buffer: &DispatchBuffer, offset: wgpu::BufferAddress, data: &[u8]) {
        if let Some(buffer) = buffer.as_custom::<Buffer>() {
            buffer.inner.write(offset, data);
        }
    }

    fn create_staging_buffer(&self, size: wgpu::BufferSize) -> Option<DispatchQueueWriteBuffer> {
        let len = usize::try_from(size.get()).ok()?;
        Some(DispatchQueueWriteBuffer::custom(Bytes(vec![0; len])))
    }

    fn validate_write_buffer(
        &self,
        buffer: &DispatchBuffer,
        offset: wgpu::BufferAddress,
        size: wgpu::BufferSize,
    ) -> Option<()> {
        let buffer = buffer.as_custom::<Buffer>()?;
        (offset.checked_add(size.get())? <= buffer.inner.size).then_some(())
    }

    fn write_staging_buffer(
        &self,
        buffer: &DispatchBuffer,
        offset: wgpu::BufferAddress,
        staging_buffer: &DispatchQueueWriteBuffer,
    ) {
        if let (Some(buffer), Some(bytes)) = (buffer.as_custom::<Buffer>(), staging_buffer.as_custom::<Bytes>()) {
            buffer.inner.write(offset, &bytes.0);
        }
    }

    fn write_texture(
        &self,
        texture: wgpu::TexelCopyTextureInfo<'_>,
        data: &[u8],
        data_layout: wgpu::TexelCopyBufferLayout,
        size: wgpu::Extent3d,
    ) {
        if let Some(target) = texture.texture.as_custom::<Texture>() {
            target.inner.write(texture.mip_level, texture.origin, data, data_layout, size);
        }
    }

    fn copy_external_image_to_texture(
        &self,
        _source: &wgpu::CopyExternalImageSourceInfo,
        _dest: wgpu::CopyExternalImageDestInfo<&wgpu::Texture>,
        _size: wgpu::Extent3d,
    ) {
        unsupported("copies from external images");
    }

    fn submit(&self, command_buffers: &mut dyn Iterator<Item = DispatchCommandBuffer>) -> u64 {
        for buffer in command_buffers {
            if let Some(buffer) = buffer.as_custom::<super::pass::CommandBuffer>() {
                super::pass::play(&self.context, buffer.take());
            }
        }
        let index = self.submissions.get() + 1;
        self.submissions.set(index);
        index
    }

    fn get_timestamp_period(&self) -> f32 {
        1.0
    }

    fn on_submitted_work_done(&self, callback: wgpu::custom::BoxSubmittedWorkDoneCallback) {
        // The context runs commands in order: from the page's side, the work is done.
        callback();
    }

    fn compact_blas(&self, _blas: &DispatchBlas) -> (Option<u64>, DispatchBlas) {
        unsupported("acceleration structures");
        (None, DispatchBlas::custom(Nothing))
    }

    fn present(&self, _detail: &wgpu::custom::DispatchSurfaceOutputDetail) {
        // The browser shows the canvas's drawing buffer once the frame's task returns.
    }
}

/// A shader module: its stages' GLSL as build.rs wrote them (`None`: not translated).
#[derive(Debug)]
pub(super) struct ShaderModule {
    label: String,
    module: Option<&'static [shaders::ShaderStage]>,
}

/// Bind group layouts and pipeline layouts carry nothing: every binding has a
/// fixed GL slot ([`shaders::Slot`]).
#[derive(Debug)]
pub(super) struct BindGroupLayout;

impl BindGroupLayoutInterface for BindGroupLayout {}

#[derive(Debug)]
struct PipelineLayout;

impl PipelineLayoutInterface for PipelineLayout {}

/// What one binding of a bind group holds.
#[derive(Debug)]
pub(super) enum Resource {
    Buffer { buffer: Rc<BufferInner>, offset: u64, size: u64 },
    Texture(Rc<TextureInner>),
    Sampler(Rc<Option<WebGlSampler>>),
}

/// A bind group: its resources by binding number.
#[derive(Debug)]
pub(super) struct BindGroup {
    pub(super) entries: Vec<(u32, Resource)>,
}

impl BindGroupInterface for BindGroup {}

impl BindGroup {
    pub(super) fn get(&self, binding: u32) -> Option<&Resource> {
        self.entries.iter().find(|(b, _)| *b == binding).map(|(_, r)| r)
    }
}

/// A buffer: a GL buffer where the GPU reads it, bytes here where the page maps it.
#[derive(Debug)]
pub(super) struct Buffer {
    pub(super) inner: Rc<BufferInner>,
}

#[derive(Debug)]
pub(super) struct BufferInner {
    context: Rc<Context>,
    /// `None` for a buffer only mapped (no GL use), or when GL made none.
    pub(super) raw: Option<WebGlBuffer>,
    /// The GL target it is bound to; WebGL keeps index buffers on their own.
    target: u32,
    pub(super) size: u64,
    /// The bytes of a mappable buffer, or of one mapped at creation until it is unmapped.
    shadow: RefCell<Vec<u8>>,
}

impl Buffer {
    fn new(context: &Rc<Context>, desc: &wgpu::BufferDescriptor<'_>) -> Buffer {
        let usage = desc.usage;
        let gl_use = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::INDEX | wgpu::BufferUsages::UNIFORM;
        let target = if usage.contains(wgpu::BufferUsages::INDEX) {
            Gl::ELEMENT_ARRAY_BUFFER
        } else if usage.contains(wgpu::BufferUsages::UNIFORM) {
            Gl::UNIFORM_BUFFER
        } else {
            Gl::ARRAY_BUFFER
        };
        let size = i32::try_from(desc.size).unwrap_or(i32::MAX);
        let raw = usage.intersects(gl_use).then(|| context.gl.create_buffer()).flatten();
        if let Some(raw) = &raw {
            context.gl.bind_buffer(target, Some(raw));
            context.gl.buffer_data_with_i32(target, size, Gl::DYNAMIC_DRAW);
        }
        let mappable = usage.intersects(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE);
        let shadow = if mappable || desc.mapped_at_creation { vec![0; size as usize] } else { Vec::new() };
        Buffer {
            inner: Rc::new(BufferInner {
                context: Rc::clone(context),
                raw,
                target,
                size: desc.size,
                shadow: RefCell::new(shadow),
            }),
        }
    }
}

impl BufferInner {
    /// Writes `data` at `offset`, to the GL buffer and to the bytes kept here.
    fn write(&self, offset: u64, data: &[u8]) {
        let end = offset.saturating_add(data.len() as u64);
        if end > self.size {
            let (len, size) = (data.len(), self.size);
            self.context.error(format!("a write of {len} bytes at {offset} overruns a buffer of {size}; skipped"));
            return;
        }
        if let Some(raw) = &self.raw {
            let gl = &self.context.gl;
            gl.bind_buffer(self.target, Some(raw));
            gl.buffer_sub_data_with_i32_and_u8_array(self.target, offset as i32, data);
        }
        let mut shadow = self.shadow.borrow_mut();
        if let Some(bytes) = shadow.get_mut(offset as usize..end as usize) {
            bytes.copy_from_slice(data);
        }
    }
}

impl BufferInterface for Buffer {
    fn map_async(
        &self,
        mode: wgpu::MapMode,
        range: Range<wgpu::BufferAddress>,
        callback: wgpu::custom::BufferMapCallback,
    ) {
        let kept = self.inner.shadow.borrow().len() as u64;
        let result = if range.end <= kept {
            Ok(())
        } else {
            log::warn!("WebGL2: mapping ({mode:?}) a buffer made without MAP_READ or MAP_WRITE");
            Err(wgpu::BufferAsyncError)
        };
        callback(result);
    }

    fn get_mapped_range(
        &self,
        sub_range: Range<wgpu::BufferAddress>,
    ) -> Result<DispatchBufferMappedRange, wgpu::MapRangeError> {
        let shadow = self.inner.shadow.borrow();
        let bytes = shadow.get(sub_range.start as usize..sub_range.end as usize).unwrap_or_default().to_vec();
        Ok(DispatchBufferMappedRange::custom(MappedRange {
            buffer: Rc::clone(&self.inner),
            offset: sub_range.start,
            #[cfg(feature = "webgpu")]
            array: js_sys::Uint8Array::from(&bytes[..]),
            bytes,
            written: false,
        }))
    }

    fn unmap(&self) {
        // A buffer mapped at creation hands what was written to the GL buffer.
        if let Some(raw) = &self.inner.raw {
            let shadow = self.inner.shadow.borrow();
            if !shadow.is_empty() {
                let gl = &self.inner.context.gl;
                gl.bind_buffer(self.inner.target, Some(raw));
                gl.buffer_sub_data_with_i32_and_u8_array(self.inner.target, 0, &shadow);
            }
        }
    }

    fn destroy(&self) {}
}

impl Drop for BufferInner {
    fn drop(&mut self) {
        self.context.gl.delete_buffer(self.raw.as_ref());
    }
}

/// A mapped range: a copy of the buffer's bytes, written back when dropped if written.
#[derive(Debug)]
struct MappedRange {
    buffer: Rc<BufferInner>,
    offset: u64,
    bytes: Vec<u8>,
    written: bool,
    /// What wgpu asks of a mapped range when it has its WebGPU back-end too.
    #[cfg(feature = "webgpu")]
    array: js_sys::Uint8Array,
}

impl BufferMappedRangeInterface for MappedRange {
    fn len(&self) -> usize {
        self.bytes.len()
    }

    #[expect(unsafe_code, reason = "the trait's method; plain bytes, no mapping behind them")]
    unsafe fn read_slice(&self) -> &[u8] {
        &self.bytes
    }

    #[expect(unsafe_code, reason = "the trait's method; plain bytes, no mapping behind them")]
    unsafe fn write_slice(&mut self) -> wgpu::WriteOnly<'_, [u8]> {
        self.written = true;
        wgpu::WriteOnly::from(&mut self.bytes[..])
    }

    #[cfg(feature = "webgpu")]
    fn as_uint8array(&self) -> &js_sys::Uint8Array {
        &self.array
    }
}

impl Drop for MappedRange {
    fn drop(&mut self) {
        if !self.written {
            return;
        }
        let start = self.offset as usize;
        if let Some(bytes) = self.buffer.shadow.borrow_mut().get_mut(start..start + self.bytes.len()) {
            bytes.copy_from_slice(&self.bytes);
        }
    }
}

/// A texture format's GL internal format, format and type (`None`: not here).
pub(super) fn gl_format(format: wgpu::TextureFormat) -> Option<(u32, u32, u32)> {
    match format {
        wgpu::TextureFormat::R8Unorm => Some((Gl::R8, Gl::RED, Gl::UNSIGNED_BYTE)),
        wgpu::TextureFormat::Rg8Unorm => Some((Gl::RG8, Gl::RG, Gl::UNSIGNED_BYTE)),
        wgpu::TextureFormat::Rgba8Unorm => Some((Gl::RGBA8, Gl::RGBA, Gl::UNSIGNED_BYTE)),
        wgpu::TextureFormat::Rgba8UnormSrgb => Some((Gl::SRGB8_ALPHA8, Gl::RGBA, Gl::UNSIGNED_BYTE)),
        _ => None,
    }
}

/// A texture: a GL texture, or the canvas's drawing buffer.
#[derive(Debug)]
pub(super) struct Texture {
    inner: Rc<TextureInner>,
}

#[derive(Debug)]
pub(super) struct TextureInner {
    context: Rc<Context>,
    /// `None` for the canvas.
    pub(super) raw: Option<WebGlTexture>,
    pub(super) size: [u32; 2],
    /// Bytes per texel, and the GL format and type of uploads.
    texel: (u32, u32, u32),
    /// The framebuffer that draws into it, made when first drawn into.
    framebuffer: RefCell<Option<WebGlFramebuffer>>,
}

impl Texture {
    fn new(context: &Rc<Context>, desc: &wgpu::TextureDescriptor<'_>) -> Texture {
        let gl = &context.gl;
        if desc.dimension != wgpu::TextureDimension::D2
            || desc.size.depth_or_array_layers != 1
            || desc.sample_count != 1
        {
            unsupported("textures other than single-sampled 2D ones");
        }
        let (internal, format, kind) = gl_format(desc.format).unwrap_or_else(|| {
            unsupported("texture formats other than R8, RG8 and RGBA8 (made as RGBA8)");
            (Gl::RGBA8, Gl::RGBA, Gl::UNSIGNED_BYTE)
        });
        let bytes = match format {
            Gl::RED => 1,
            Gl::RG => 2,
            _ => 4,
        };
        let size = [desc.size.width.max(1), desc.size.height.max(1)];
        let raw = gl.create_texture();
        if let Some(raw) = &raw {
            gl.bind_texture(Gl::TEXTURE_2D, Some(raw));
            let levels = desc.mip_level_count.max(1) as i32;
            gl.tex_storage_2d(Gl::TEXTURE_2D, levels, internal, size[0] as i32, size[1] as i32);
        }
        Texture {
            inner: Rc::new(TextureInner {
                context: Rc::clone(context),
                raw,
                size,
                texel: (bytes, format, kind),
                framebuffer: RefCell::new(None),
            }),
        }
    }

    /// The canvas's drawing buffer, `size` pixels, as a texture to draw into.
    pub(super) fn canvas(context: Rc<Context>, size: [u32; 2]) -> Texture {
        let texel = (4, Gl::RGBA, Gl::UNSIGNED_BYTE);
        Texture { inner: Rc::new(TextureInner { context, raw: None, size, texel, framebuffer: RefCell::new(None) }) }
    }
}

impl TextureInner {
    /// Uploads `data` (rows `layout.bytes_per_row` apart) into `size` texels of
    /// mip level `level` at `origin`.
    fn write(
        &self,
        level: u32,
        origin: wgpu::Origin3d,
        data: &[u8],
        layout: wgpu::TexelCopyBufferLayout,
        size: wgpu::Extent3d,
    ) {
        let Some(raw) = &self.raw else {
            unsupported("writing into the canvas");
            return;
        };
        let (bytes, format, kind) = self.texel;
        let row = layout.bytes_per_row.unwrap_or(size.width * bytes);
        let needed = u64::from(row) * u64::from(size.height.saturating_sub(1)) + u64::from(size.width * bytes);
        let Some(data) = data.get(layout.offset as usize..).filter(|d| d.len() as u64 >= needed) else {
            let (width, height) = (size.width, size.height);
            self.context.error(format!("texture data shorter than its {width}x{height} texels; skipped"));
            return;
        };
        let gl = &self.context.gl;
        gl.active_texture(Gl::TEXTURE0);
        gl.bind_texture(Gl::TEXTURE_2D, Some(raw));
        gl.pixel_storei(Gl::UNPACK_ROW_LENGTH, (row / bytes) as i32);
        let written = gl.tex_sub_image_2d_with_i32_and_i32_and_u32_and_type_and_opt_u8_array(
            Gl::TEXTURE_2D,
            level as i32,
            origin.x as i32,
            origin.y as i32,
            size.width as i32,
            size.height as i32,
            format,
            kind,
            Some(data),
        );
        gl.pixel_storei(Gl::UNPACK_ROW_LENGTH, 0);
        if let Err(err) = written {
            self.context.error(format!("texSubImage2D failed: {err:?}"));
        }
    }

    /// Binds the framebuffer that draws into this texture (the canvas's own for the canvas).
    pub(super) fn bind_framebuffer(&self) {
        let gl = &self.context.gl;
        let Some(raw) = &self.raw else {
            gl.bind_framebuffer(Gl::FRAMEBUFFER, None);
            return;
        };
        let mut framebuffer = self.framebuffer.borrow_mut();
        if framebuffer.is_none() {
            *framebuffer = gl.create_framebuffer();
            gl.bind_framebuffer(Gl::FRAMEBUFFER, framebuffer.as_ref());
            gl.framebuffer_texture_2d(Gl::FRAMEBUFFER, Gl::COLOR_ATTACHMENT0, Gl::TEXTURE_2D, Some(raw), 0);
        } else {
            gl.bind_framebuffer(Gl::FRAMEBUFFER, framebuffer.as_ref());
        }
    }
}

impl Drop for TextureInner {
    fn drop(&mut self) {
        let gl = &self.context.gl;
        gl.delete_framebuffer(self.framebuffer.get_mut().as_ref());
        gl.delete_texture(self.raw.as_ref());
    }
}

impl TextureInterface for Texture {
    fn create_view(&self, desc: &wgpu::TextureViewDescriptor<'_>) -> DispatchTextureView {
        if desc.base_mip_level != 0 || desc.mip_level_count.is_some() || desc.base_array_layer != 0 {
            unsupported("texture views of part of a texture (the whole texture is used)");
        }
        DispatchTextureView::custom(TextureView { texture: Rc::clone(&self.inner) })
    }

    fn destroy(&self) {}
}

/// A view: the whole texture.
#[derive(Debug)]
pub(super) struct TextureView {
    pub(super) texture: Rc<TextureInner>,
}

impl TextureViewInterface for TextureView {}

/// A sampler object.
#[derive(Debug)]
pub(super) struct Sampler {
    raw: Rc<Option<WebGlSampler>>,
}

impl Sampler {
    fn new(gl: &Gl, desc: &wgpu::SamplerDescriptor<'_>) -> Sampler {
        let raw = gl.create_sampler();
        if let Some(sampler) = &raw {
            let filter = |mode| match mode {
                wgpu::FilterMode::Nearest => Gl::NEAREST,
                wgpu::FilterMode::Linear => Gl::LINEAR,
            };
            let min = match (desc.min_filter, desc.mipmap_filter) {
                (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Nearest) => Gl::NEAREST_MIPMAP_NEAREST,
                (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Nearest) => Gl::LINEAR_MIPMAP_NEAREST,
                (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Linear) => Gl::NEAREST_MIPMAP_LINEAR,
                (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Linear) => Gl::LINEAR_MIPMAP_LINEAR,
            };
            let wrap = |mode| match mode {
                wgpu::AddressMode::Repeat => Gl::REPEAT,
                wgpu::AddressMode::MirrorRepeat => Gl::MIRRORED_REPEAT,
                wgpu::AddressMode::ClampToEdge => Gl::CLAMP_TO_EDGE,
                _ => {
                    unsupported("border colours (clamped to the edge instead)");
                    Gl::CLAMP_TO_EDGE
                }
            };
            gl.sampler_parameteri(sampler, Gl::TEXTURE_MIN_FILTER, min as i32);
            gl.sampler_parameteri(sampler, Gl::TEXTURE_MAG_FILTER, filter(desc.mag_filter) as i32);
            gl.sampler_parameteri(sampler, Gl::TEXTURE_WRAP_S, wrap(desc.address_mode_u) as i32);
            gl.sampler_parameteri(sampler, Gl::TEXTURE_WRAP_T, wrap(desc.address_mode_v) as i32);
            gl.sampler_parameteri(sampler, Gl::TEXTURE_WRAP_R, wrap(desc.address_mode_w) as i32);
            gl.sampler_parameterf(sampler, Gl::TEXTURE_MIN_LOD, desc.lod_min_clamp);
            gl.sampler_parameterf(sampler, Gl::TEXTURE_MAX_LOD, desc.lod_max_clamp);
            if desc.compare.is_some() || desc.anisotropy_clamp > 1 {
                unsupported("comparison and anisotropic samplers");
            }
        }
        Sampler { raw: Rc::new(raw) }
    }
}

impl SamplerInterface for Sampler {}

/// A render pipeline: a linked program and the fixed-function state to draw with it.
#[derive(Debug)]
pub(super) struct RenderPipeline {
    /// `None` when its shaders were not translated or did not link: its draws are skipped.
    pub(super) program: Option<Program>,
    pub(super) vertex_buffers: Vec<Option<VertexBuffer>>,
    pub(super) topology: u32,
    pub(super) blend: Option<wgpu::BlendState>,
    pub(super) write_mask: wgpu::ColorWrites,
    /// The face culled, if any, and which winding is the front.
    pub(super) cull: Option<u32>,
    pub(super) front_face: u32,
}

/// One vertex buffer slot of a pipeline.
#[derive(Debug)]
pub(super) struct VertexBuffer {
    pub(super) stride: i32,
    pub(super) per_instance: bool,
    pub(super) attributes: Vec<wgpu::VertexAttribute>,
}

impl RenderPipeline {
    fn new(context: &Context, desc: &wgpu::RenderPipelineDescriptor<'_>) -> RenderPipeline {
        let label = desc.label.unwrap_or("unnamed");
        let target = desc.fragment.as_ref().and_then(|f| f.targets.first().cloned().flatten());
        if desc.depth_stencil.is_some() || desc.multisample.count > 1 {
            unsupported("depth, stencil and multisampling");
        }
        let stage =
            |module: &wgpu::ShaderModule, entry: Option<&str>, options: &wgpu::PipelineCompilationOptions<'_>, kind| {
                let module = module.as_custom::<ShaderModule>()?;
                let found = shaders::stage(module.module?, kind, entry, options.constants);
                if found.is_none() {
                    let name = &module.label;
                    context.error(format!("{label}: no {kind:?} stage {entry:?} in {name} with its constants"));
                }
                found
            };
        let vertex = &desc.vertex;
        let vertex = stage(vertex.module, vertex.entry_point, &vertex.compilation_options, shaders::Stage::Vertex);
        let fragment = desc
            .fragment
            .as_ref()
            .and_then(|f| stage(f.module, f.entry_point, &f.compilation_options, shaders::Stage::Fragment));
        let program = match (vertex, fragment) {
            (Some(vertex), Some(fragment)) => {
                Program::link(&context.gl, vertex, fragment).map_err(|e| context.error(format!("{label}: {e}"))).ok()
            }
            _ => None,
        };
        let vertex_buffers = desc
            .vertex
            .buffers
            .iter()
            .map(|layout| {
                layout.as_ref().map(|layout| VertexBuffer {
                    stride: layout.array_stride as i32,
                    per_instance: layout.step_mode == wgpu::VertexStepMode::Instance,
                    attributes: layout.attributes.to_vec(),
                })
            })
            .collect();
        RenderPipeline {
            program,
            vertex_buffers,
            topology: match desc.primitive.topology {
                wgpu::PrimitiveTopology::PointList => Gl::POINTS,
                wgpu::PrimitiveTopology::LineList => Gl::LINES,
                wgpu::PrimitiveTopology::LineStrip => Gl::LINE_STRIP,
                wgpu::PrimitiveTopology::TriangleList => Gl::TRIANGLES,
                wgpu::PrimitiveTopology::TriangleStrip => Gl::TRIANGLE_STRIP,
            },
            blend: target.as_ref().and_then(|t| t.blend),
            write_mask: target.map_or(wgpu::ColorWrites::ALL, |t| t.write_mask),
            cull: desc.primitive.cull_mode.map(|face| match face {
                wgpu::Face::Front => Gl::FRONT,
                wgpu::Face::Back => Gl::BACK,
            }),
            front_face: match desc.primitive.front_face {
                wgpu::FrontFace::Ccw => Gl::CCW,
                wgpu::FrontFace::Cw => Gl::CW,
            },
        }
    }

    /// A pipeline that draws nothing.
    fn none() -> RenderPipeline {
        RenderPipeline {
            program: None,
            vertex_buffers: Vec::new(),
            topology: Gl::TRIANGLES,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
            cull: None,
            front_face: Gl::CCW,
        }
    }
}

impl RenderPipelineInterface for RenderPipeline {
    fn get_bind_group_layout(&self, _index: u32) -> DispatchBindGroupLayout {
        DispatchBindGroupLayout::custom(BindGroupLayout)
    }
}
