//! Command encoders and render passes record commands; [`play`] runs them on
//! the context when their command buffer is submitted.
//!
//! ```text
//! BeginPass   framebuffer, full viewport and scissor, clear (colour mask all on first)
//! SetPipeline program, blend, colour mask, culling
//! SetBindGroup / SetVertexBuffer / SetIndexBuffer   remembered, bound before the next draw
//! Viewport / Scissor   turned over: the framebuffer's origin is its bottom-left corner
//! Draw / DrawIndexed   instanced (base vertex and first instance 0: WebGL2 has neither)
//! ```

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use web_sys::WebGl2RenderingContext as Gl;
use wgpu::custom::{
    CommandBufferInterface, CommandEncoderInterface, DispatchBindGroup, DispatchBuffer, DispatchCommandBuffer,
    DispatchComputePass, DispatchQuerySet, DispatchRenderBundle, DispatchRenderPass, DispatchRenderPipeline,
    DispatchTexture, RenderPassInterface,
};

use super::device::{BindGroup, Buffer, RenderPipeline, Resource, TextureInner, TextureView};
use super::{Context, unsupported};

/// Bind groups a pipeline may use (the fixed slots leave room for three).
const MAX_GROUPS: usize = 3;
/// Vertex buffer slots.
const MAX_VERTEX_BUFFERS: usize = 8;

/// One recorded command.
#[derive(Debug)]
pub(super) enum Command {
    BeginPass { target: Rc<TextureInner>, clear: Option<wgpu::Color> },
    SetPipeline(DispatchRenderPipeline),
    SetBindGroup(u32, Option<DispatchBindGroup>),
    SetVertexBuffer(u32, Option<DispatchBuffer>, u64),
    SetIndexBuffer(DispatchBuffer, wgpu::IndexFormat, u64),
    Viewport([f32; 4], [f32; 2]),
    Scissor([u32; 4]),
    Draw { vertices: Range<u32>, instances: Range<u32> },
    DrawIndexed { indices: Range<u32>, base_vertex: i32, instances: Range<u32> },
}

type Commands = Rc<RefCell<Vec<Command>>>;

/// A command encoder: its passes record into its list.
#[derive(Debug, Default)]
pub(super) struct CommandEncoder {
    commands: Commands,
}

impl CommandEncoderInterface for CommandEncoder {
    fn copy_buffer_to_buffer(
        &self,
        _source: &DispatchBuffer,
        _source_offset: u64,
        _destination: &DispatchBuffer,
        _destination_offset: u64,
        _copy_size: Option<u64>,
    ) {
        unsupported("copies between buffers");
    }

    fn copy_buffer_to_texture(
        &self,
        _source: wgpu::TexelCopyBufferInfo<'_>,
        _destination: wgpu::TexelCopyTextureInfo<'_>,
        _copy_size: wgpu::Extent3d,
    ) {
        unsupported("copies from buffers to textures");
    }

    fn copy_texture_to_buffer(
        &self,
        _source: wgpu::TexelCopyTextureInfo<'_>,
        _destination: wgpu::TexelCopyBufferInfo<'_>,
        _copy_size: wgpu::Extent3d,
    ) {
        unsupported("reading textures back");
    }

    fn copy_texture_to_texture(
        &self,
        _source: wgpu::TexelCopyTextureInfo<'_>,
        _destination: wgpu::TexelCopyTextureInfo<'_>,
        _copy_size: wgpu::Extent3d,
    ) {
        unsupported("copies between textures");
    }

    fn begin_compute_pass(&self, _desc: &wgpu::ComputePassDescriptor<'_>) -> DispatchComputePass {
        unsupported("compute");
        DispatchComputePass::custom(super::unsupported::ComputePass)
    }

    fn begin_render_pass(&self, desc: &wgpu::RenderPassDescriptor<'_>) -> DispatchRenderPass {
        let attachment = desc.color_attachments.first().and_then(Option::as_ref);
        let target = attachment.and_then(|a| a.view.as_custom::<TextureView>()).map(|v| Rc::clone(&v.texture));
        if desc.color_attachments.len() > 1 || desc.depth_stencil_attachment.is_some() {
            unsupported("more than one colour attachment, and depth or stencil attachments");
        }
        if desc.timestamp_writes.is_some() || desc.occlusion_query_set.is_some() {
            unsupported("queries");
        }
        let active = match (target, attachment) {
            (Some(target), Some(attachment)) => {
                let clear = match attachment.ops.load {
                    wgpu::LoadOp::Clear(color) => Some(color),
                    _ => None,
                };
                self.commands.borrow_mut().push(Command::BeginPass { target, clear });
                true
            }
            _ => {
                unsupported("render passes without a colour attachment of this back-end (they draw nothing)");
                false
            }
        };
        DispatchRenderPass::custom(RenderPass { commands: Rc::clone(&self.commands), active })
    }

    fn finish(&mut self) -> DispatchCommandBuffer {
        DispatchCommandBuffer::custom(CommandBuffer { commands: RefCell::new(self.commands.take()) })
    }

    fn clear_texture(&self, _texture: &DispatchTexture, _subresource_range: &wgpu::ImageSubresourceRange) {
        unsupported("clearing textures outside a render pass");
    }

    fn clear_buffer(&self, _buffer: &DispatchBuffer, _offset: u64, _size: Option<u64>) {
        unsupported("clearing buffers");
    }

    fn insert_debug_marker(&self, _label: &str) {}

    fn push_debug_group(&self, _label: &str) {}

    fn pop_debug_group(&self) {}

    fn write_timestamp(&self, _query_set: &DispatchQuerySet, _query_index: u32) {
        unsupported("queries");
    }

    fn resolve_query_set(
        &self,
        _query_set: &DispatchQuerySet,
        _first_query: u32,
        _query_count: u32,
        _destination: &DispatchBuffer,
        _destination_offset: u64,
    ) {
        unsupported("queries");
    }

    fn mark_acceleration_structures_built<'a>(
        &self,
        _blas: &mut dyn Iterator<Item = &'a wgpu::Blas>,
        _tlas: &mut dyn Iterator<Item = &'a wgpu::Tlas>,
    ) {
        unsupported("acceleration structures");
    }

    fn build_acceleration_structures<'a>(
        &self,
        _blas: &mut dyn Iterator<Item = &'a wgpu::BlasBuildEntry<'a>>,
        _tlas: &mut dyn Iterator<Item = &'a wgpu::Tlas>,
    ) {
        unsupported("acceleration structures");
    }

    fn transition_resources<'a>(
        &mut self,
        _buffer_transitions: &mut dyn Iterator<Item = wgpu::wgt::BufferTransition<&'a DispatchBuffer>>,
        _texture_transitions: &mut dyn Iterator<Item = wgpu::wgt::TextureTransition<&'a DispatchTexture>>,
    ) {
    }
}

/// A finished encoder's commands, until submitted.
#[derive(Debug)]
pub(super) struct CommandBuffer {
    commands: RefCell<Vec<Command>>,
}

impl CommandBuffer {
    /// The commands, taken out (a command buffer is submitted once).
    pub(super) fn take(&self) -> Vec<Command> {
        self.commands.take()
    }
}

impl CommandBufferInterface for CommandBuffer {}

/// A render pass: records into its encoder's list (nothing when it has no target).
#[derive(Debug)]
struct RenderPass {
    commands: Commands,
    active: bool,
}

impl RenderPass {
    fn push(&self, command: Command) {
        if self.active {
            self.commands.borrow_mut().push(command);
        }
    }
}

impl Drop for RenderPass {
    fn drop(&mut self) {}
}

impl RenderPassInterface for RenderPass {
    fn set_pipeline(&mut self, pipeline: &DispatchRenderPipeline) {
        self.push(Command::SetPipeline(pipeline.clone()));
    }

    fn set_bind_group(&mut self, index: u32, bind_group: Option<&DispatchBindGroup>, offsets: &[u32]) {
        if !offsets.is_empty() {
            unsupported("dynamic offsets");
        }
        self.push(Command::SetBindGroup(index, bind_group.cloned()));
    }

    fn set_index_buffer(
        &mut self,
        buffer: &DispatchBuffer,
        index_format: wgpu::IndexFormat,
        offset: u64,
        _size: Option<wgpu::BufferSize>,
    ) {
        self.push(Command::SetIndexBuffer(buffer.clone(), index_format, offset));
    }

    fn set_vertex_buffer(
        &mut self,
        slot: u32,
        buffer: Option<&DispatchBuffer>,
        offset: u64,
        _size: Option<wgpu::BufferSize>,
    ) {
        self.push(Command::SetVertexBuffer(slot, buffer.cloned(), offset));
    }

    fn set_immediates(&mut self, _offset: u32, _data: &[u8]) {
        unsupported("immediates");
    }

    fn set_blend_constant(&mut self, _color: wgpu::Color) {
        unsupported("blend constants");
    }

    fn set_scissor_rect(&mut self, x: u32, y: u32, width: u32, height: u32) {
        self.push(Command::Scissor([x, y, width, height]));
    }

    fn set_viewport(&mut self, x: f32, y: f32, width: f32, height: f32, min_depth: f32, max_depth: f32) {
        self.push(Command::Viewport([x, y, width, height], [min_depth, max_depth]));
    }

    fn set_stencil_reference(&mut self, _reference: u32) {}

    fn draw(&mut self, vertices: Range<u32>, instances: Range<u32>) {
        self.push(Command::Draw { vertices, instances });
    }

    fn draw_indexed(&mut self, indices: Range<u32>, base_vertex: i32, instances: Range<u32>) {
        self.push(Command::DrawIndexed { indices, base_vertex, instances });
    }

    fn draw_mesh_tasks(&mut self, _group_count_x: u32, _group_count_y: u32, _group_count_z: u32) {
        unsupported("mesh shaders");
    }

    fn draw_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64) {
        unsupported("indirect draws");
    }

    fn draw_indexed_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64) {
        unsupported("indirect draws");
    }

    fn draw_mesh_tasks_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64) {
        unsupported("mesh shaders");
    }

    fn multi_draw_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64, _count: u32) {
        unsupported("indirect draws");
    }

    fn multi_draw_indexed_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64, _count: u32) {
        unsupported("indirect draws");
    }

    fn multi_draw_indirect_count(
        &mut self,
        _indirect_buffer: &DispatchBuffer,
        _indirect_offset: u64,
        _count_buffer: &DispatchBuffer,
        _count_buffer_offset: u64,
        _max_count: u32,
    ) {
        unsupported("indirect draws");
    }

    fn multi_draw_mesh_tasks_indirect(
        &mut self,
        _indirect_buffer: &DispatchBuffer,
        _indirect_offset: u64,
        _count: u32,
    ) {
        unsupported("mesh shaders");
    }

    fn multi_draw_indexed_indirect_count(
        &mut self,
        _indirect_buffer: &DispatchBuffer,
        _indirect_offset: u64,
        _count_buffer: &DispatchBuffer,
        _count_buffer_offset: u64,
        _max_count: u32,
    ) {
        unsupported("indirect draws");
    }

    fn multi_draw_mesh_tasks_indirect_count(
        &mut self,
        _indirect_buffer: &DispatchBuffer,
        _indirect_offset: u64,
        _count_buffer: &DispatchBuffer,
        _count_buffer_offset: u64,
        _max_count: u32,
    ) {
        unsupported("mesh shaders");
    }

    fn insert_debug_marker(&mut self, _label: &str) {}

    fn push_debug_group(&mut self, _group_label: &str) {}

    fn pop_debug_group(&mut self) {}

    fn write_timestamp(&mut self, _query_set: &DispatchQuerySet, _query_index: u32) {
        unsupported("queries");
    }

    fn begin_occlusion_query(&mut self, _query_index: u32) {
        unsupported("queries");
    }

    fn end_occlusion_query(&mut self) {}

    fn begin_pipeline_statistics_query(&mut self, _query_set: &DispatchQuerySet, _query_index: u32) {
        unsupported("queries");
    }

    fn end_pipeline_statistics_query(&mut self) {}

    fn execute_bundles(&mut self, _render_bundles: &mut dyn Iterator<Item = &DispatchRenderBundle>) {
        unsupported("render bundles");
    }
}

/// What a pass has set, bound to the context just before each draw.
#[derive(Default)]
struct PassState {
    /// The target's height, to turn rectangles over.
    height: u32,
    pipeline: Option<DispatchRenderPipeline>,
    groups: [Option<DispatchBindGroup>; MAX_GROUPS],
    vertex_buffers: [Option<(DispatchBuffer, u64)>; MAX_VERTEX_BUFFERS],
    index: Option<(DispatchBuffer, wgpu::IndexFormat, u64)>,
}

/// Runs `commands` on `context`.
pub(super) fn play(context: &Context, commands: Vec<Command>) {
    let gl = &context.gl;
    let mut state = PassState::default();
    for command in commands {
        match command {
            Command::BeginPass { target, clear } => {
                target.bind_framebuffer();
                let [width, height] = target.size;
                state = PassState { height, ..PassState::default() };
                gl.viewport(0, 0, width as i32, height as i32);
                gl.depth_range(0.0, 1.0);
                gl.disable(Gl::SCISSOR_TEST);
                if let Some(c) = clear {
                    gl.color_mask(true, true, true, true);
                    gl.clear_color(c.r as f32, c.g as f32, c.b as f32, c.a as f32);
                    gl.clear(Gl::COLOR_BUFFER_BIT);
                }
                gl.enable(Gl::SCISSOR_TEST);
                gl.scissor(0, 0, width as i32, height as i32);
            }
            Command::SetPipeline(pipeline) => {
                if let Some(p) = pipeline.as_custom::<RenderPipeline>() {
                    set_pipeline(gl, p);
                }
                state.pipeline = Some(pipeline);
            }
            Command::SetBindGroup(index, group) => {
                if let Some(slot) = state.groups.get_mut(index as usize) {
                    *slot = group;
                } else {
                    unsupported("more than three bind groups");
                }
            }
            Command::SetVertexBuffer(slot, buffer, offset) => {
                if let Some(entry) = state.vertex_buffers.get_mut(slot as usize) {
                    *entry = buffer.map(|b| (b, offset));
                }
            }
            Command::SetIndexBuffer(buffer, format, offset) => state.index = Some((buffer, format, offset)),
            Command::Viewport([x, y, width, height], [near, far]) => {
                let bottom = state.height as f32 - y - height;
                gl.viewport(x.round() as i32, bottom.round() as i32, width.round() as i32, height.round() as i32);
                gl.depth_range(near, far);
            }
            Command::Scissor([x, y, width, height]) => {
                let bottom = state.height.saturating_sub(y.saturating_add(height));
                gl.scissor(x as i32, bottom as i32, width as i32, height as i32);
            }
            Command::Draw { vertices, instances } => {
                if instances.start != 0 {
                    unsupported("a first instance other than 0");
                } else if let Some(pipeline) = state.ready(context) {
                    let count = vertices.end.saturating_sub(vertices.start) as i32;
                    let instances = instances.end as i32;
                    gl.draw_arrays_instanced(pipeline.topology, vertices.start as i32, count, instances);
                }
            }
            Command::DrawIndexed { indices, base_vertex, instances } => {
                if base_vertex != 0 || instances.start != 0 {
                    unsupported("a base vertex or first instance other than 0");
                } else {
                    let Some((buffer, format, offset)) = state.index.clone() else {
                        context.error("an indexed draw without an index buffer; skipped".to_owned());
                        continue;
                    };
                    let (Some(buffer), Some(pipeline)) = (buffer.as_custom::<Buffer>(), state.ready(context)) else {
                        continue;
                    };
                    let (kind, size) = match format {
                        wgpu::IndexFormat::Uint16 => (Gl::UNSIGNED_SHORT, 2),
                        wgpu::IndexFormat::Uint32 => (Gl::UNSIGNED_INT, 4),
                    };
                    gl.bind_buffer(Gl::ELEMENT_ARRAY_BUFFER, buffer.inner.raw.as_ref());
                    let count = indices.end.saturating_sub(indices.start) as i32;
                    let start = (offset + u64::from(indices.start) * size) as i32;
                    gl.draw_elements_instanced_with_i32(pipeline.topology, count, kind, start, instances.end as i32);
                }
            }
        }
    }
}

/// The fixed-function state of `pipeline`, and its program.
fn set_pipeline(gl: &Gl, pipeline: &RenderPipeline) {
    gl.use_program(pipeline.program.as_ref().map(|p| &p.raw));
    match pipeline.blend {
        Some(blend) => {
            gl.enable(Gl::BLEND);
            gl.blend_equation_separate(blend_operation(blend.color.operation), blend_operation(blend.alpha.operation));
            gl.blend_func_separate(
                blend_factor(blend.color.src_factor),
                blend_factor(blend.color.dst_factor),
                blend_factor(blend.alpha.src_factor),
                blend_factor(blend.alpha.dst_factor),
            );
        }
        None => gl.disable(Gl::BLEND),
    }
    let mask = pipeline.write_mask;
    gl.color_mask(
        mask.contains(wgpu::ColorWrites::RED),
        mask.contains(wgpu::ColorWrites::GREEN),
        mask.contains(wgpu::ColorWrites::BLUE),
        mask.contains(wgpu::ColorWrites::ALPHA),
    );
    match pipeline.cull {
        Some(face) => {
            gl.enable(Gl::CULL_FACE);
            gl.cull_face(face);
        }
        None => gl.disable(Gl::CULL_FACE),
    }
    gl.front_face(pipeline.front_face);
}

impl PassState {
    /// Binds the bind groups and vertex buffers for a draw with the pipeline
    /// set; the pipeline, or `None` when there is none to draw with.
    fn ready(&self, context: &Context) -> Option<&RenderPipeline> {
        let gl = &context.gl;
        let pipeline = self.pipeline.as_ref()?.as_custom::<RenderPipeline>()?;
        let program = pipeline.program.as_ref()?;
        for (group, bind_group) in self.groups.iter().enumerate() {
            let Some(bind_group) = bind_group.as_ref().and_then(|g| g.as_custom::<BindGroup>()) else { continue };
            for (binding, resource) in &bind_group.entries {
                let slot = super::shaders::Slot { group: group as u32, binding: *binding }.gl_index();
                match resource {
                    Resource::Buffer { buffer, offset, size } => gl.bind_buffer_range_with_i32_and_i32(
                        Gl::UNIFORM_BUFFER,
                        slot,
                        buffer.raw.as_ref(),
                        *offset as i32,
                        *size as i32,
                    ),
                    Resource::Texture(texture) => {
                        gl.active_texture(Gl::TEXTURE0 + slot);
                        gl.bind_texture(Gl::TEXTURE_2D, texture.raw.as_ref());
                    }
                    Resource::Sampler(_) => {}
                }
            }
        }
        for &(unit, sampler) in &program.samplers {
            let group = self.groups.get(sampler.group as usize).and_then(Option::as_ref);
            let resource = group.and_then(|g| g.as_custom::<BindGroup>()).and_then(|g| g.get(sampler.binding));
            if let Some(Resource::Sampler(raw)) = resource {
                gl.bind_sampler(unit, raw.as_ref().as_ref());
            }
        }
        let mut enabled = 0u32;
        for (layout, bound) in pipeline.vertex_buffers.iter().zip(&self.vertex_buffers) {
            let (Some(layout), Some((buffer, offset))) = (layout, bound) else { continue };
            let Some(buffer) = buffer.as_custom::<Buffer>() else { continue };
            gl.bind_buffer(Gl::ARRAY_BUFFER, buffer.inner.raw.as_ref());
            for attribute in &layout.attributes {
                let location = attribute.shader_location;
                let at = (*offset + attribute.offset) as i32;
                if !vertex_attribute(gl, location, attribute.format, layout.stride, at) {
                    continue;
                }
                gl.vertex_attrib_divisor(location, u32::from(layout.per_instance));
                enabled |= 1 << location;
            }
        }
        // WebGL checks every enabled array against the draw: none is left on from an earlier one.
        let before = context.enabled_attributes.replace(enabled);
        for location in 0..32 {
            let bit = 1 << location;
            if enabled & bit != 0 && before & bit == 0 {
                gl.enable_vertex_attrib_array(location);
            } else if enabled & bit == 0 && before & bit != 0 {
                gl.disable_vertex_attrib_array(location);
            }
        }
        Some(pipeline)
    }
}

/// Points attribute `location` at `offset` bytes into the bound array buffer;
/// false for a format the back-end does not know.
fn vertex_attribute(gl: &Gl, location: u32, format: wgpu::VertexFormat, stride: i32, offset: i32) -> bool {
    use wgpu::VertexFormat as F;
    let (size, kind, float, normalized) = match format {
        F::Float32 => (1, Gl::FLOAT, true, false),
        F::Float32x2 => (2, Gl::FLOAT, true, false),
        F::Float32x3 => (3, Gl::FLOAT, true, false),
        F::Float32x4 => (4, Gl::FLOAT, true, false),
        F::Uint32 => (1, Gl::UNSIGNED_INT, false, false),
        F::Uint32x2 => (2, Gl::UNSIGNED_INT, false, false),
        F::Uint32x3 => (3, Gl::UNSIGNED_INT, false, false),
        F::Uint32x4 => (4, Gl::UNSIGNED_INT, false, false),
        F::Sint32 => (1, Gl::INT, false, false),
        F::Sint32x2 => (2, Gl::INT, false, false),
        F::Sint32x3 => (3, Gl::INT, false, false),
        F::Sint32x4 => (4, Gl::INT, false, false),
        F::Unorm8x4 => (4, Gl::UNSIGNED_BYTE, true, true),
        F::Uint8x4 => (4, Gl::UNSIGNED_BYTE, false, false),
        _ => {
            unsupported("vertex formats other than 32-bit ones and 8x4 ones");
            return false;
        }
    };
    if float {
        gl.vertex_attrib_pointer_with_i32(location, size, kind, normalized, stride, offset);
    } else {
        gl.vertex_attrib_i_pointer_with_i32(location, size, kind, stride, offset);
    }
    true
}

fn blend_factor(factor: wgpu::BlendFactor) -> u32 {
    use wgpu::BlendFactor as B;
    match factor {
        B::Zero => Gl::ZERO,
        B::One => Gl::ONE,
        B::Src => Gl::SRC_COLOR,
        B::OneMinusSrc => Gl::ONE_MINUS_SRC_COLOR,
        B::SrcAlpha => Gl::SRC_ALPHA,
        B::OneMinusSrcAlpha => Gl::ONE_MINUS_SRC_ALPHA,
        B::Dst => Gl::DST_COLOR,
        B::OneMinusDst => Gl::ONE_MINUS_DST_COLOR,
        B::DstAlpha => Gl::DST_ALPHA,
        B::OneMinusDstAlpha => Gl::ONE_MINUS_DST_ALPHA,
        B::SrcAlphaSaturated => Gl::SRC_ALPHA_SATURATE,
        B::Constant => Gl::CONSTANT_COLOR,
        B::OneMinusConstant => Gl::ONE_MINUS_CONSTANT_COLOR,
        _ => {
            unsupported("dual-source blending");
            Gl::ONE
        }
    }
}

fn blend_operation(operation: wgpu::BlendOperation) -> u32 {
    match operation {
        wgpu::BlendOperation::Add => Gl::FUNC_ADD,
        wgpu::BlendOperation::Subtract => Gl::FUNC_SUBTRACT,
        wgpu::BlendOperation::ReverseSubtract => Gl::FUNC_REVERSE_SUBTRACT,
        wgpu::BlendOperation::Min => Gl::MIN,
        wgpu::BlendOperation::Max => Gl::MAX,
    }
}
