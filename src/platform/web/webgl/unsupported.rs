//! What the page never asks of a GPU, answered without stopping it: each
//! does nothing, and the first use of each says so on the console.

use std::pin::Pin;

use wgpu::custom::{
    BlasInterface, ComputePassInterface, ComputePipelineInterface, DispatchBindGroup, DispatchBindGroupLayout,
    DispatchBuffer, DispatchComputePipeline, DispatchQuerySet, DispatchRenderBundle, DispatchRenderPipeline,
    ExternalTextureInterface, PipelineCacheInterface, QuerySetInterface, QueueWriteBufferInterface,
    RenderBundleEncoderInterface, RenderBundleInterface, ShaderCompilationInfoFuture, ShaderModuleInterface,
    TlasInterface,
};

use super::unsupported;

/// A resource the back-end never makes: compute pipelines, pipeline caches,
/// query sets, acceleration structures, external textures, render bundles.
#[derive(Debug)]
pub(super) struct Nothing;

impl ComputePipelineInterface for Nothing {
    fn get_bind_group_layout(&self, _index: u32) -> DispatchBindGroupLayout {
        DispatchBindGroupLayout::custom(super::device::BindGroupLayout)
    }
}

impl PipelineCacheInterface for Nothing {
    fn get_data(&self) -> Option<Vec<u8>> {
        None
    }
}

impl QuerySetInterface for Nothing {
    fn destroy(&self) {}
}

impl BlasInterface for Nothing {
    fn prepare_compact_async(&self, _callback: wgpu::custom::BlasCompactCallback) {
        unsupported("acceleration structures");
    }

    fn ready_for_compaction(&self) -> bool {
        false
    }
}

impl TlasInterface for Nothing {}

impl ExternalTextureInterface for Nothing {
    fn destroy(&self) {}
}

impl RenderBundleInterface for Nothing {}

/// A shader module's compilation messages: none (its GLSL was checked at build time).
impl ShaderModuleInterface for super::device::ShaderModule {
    fn get_compilation_info(&self) -> Pin<Box<dyn ShaderCompilationInfoFuture>> {
        Box::pin(std::future::ready(wgpu::CompilationInfo { messages: Vec::new() }))
    }
}

/// A compute pass: WebGL2 has no compute.
#[derive(Debug)]
pub(super) struct ComputePass;

impl Drop for ComputePass {
    fn drop(&mut self) {}
}

impl ComputePassInterface for ComputePass {
    fn set_pipeline(&mut self, _pipeline: &DispatchComputePipeline) {}

    fn set_bind_group(&mut self, _index: u32, _bind_group: Option<&DispatchBindGroup>, _offsets: &[u32]) {}

    fn set_immediates(&mut self, _offset: u32, _data: &[u8]) {}

    fn insert_debug_marker(&mut self, _label: &str) {}

    fn push_debug_group(&mut self, _group_label: &str) {}

    fn pop_debug_group(&mut self) {}

    fn write_timestamp(&mut self, _query_set: &DispatchQuerySet, _query_index: u32) {}

    fn begin_pipeline_statistics_query(&mut self, _query_set: &DispatchQuerySet, _query_index: u32) {}

    fn end_pipeline_statistics_query(&mut self) {}

    fn dispatch_workgroups(&mut self, _x: u32, _y: u32, _z: u32) {
        unsupported("compute");
    }

    fn dispatch_workgroups_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64) {
        unsupported("compute");
    }

    fn transition_resources<'a>(
        &mut self,
        _buffer_transitions: &mut dyn Iterator<Item = wgpu::wgt::BufferTransition<&'a DispatchBuffer>>,
        _texture_transitions: &mut dyn Iterator<
            Item = wgpu::wgt::TextureTransition<&'a wgpu::custom::DispatchTextureView>,
        >,
    ) {
    }
}

/// A render bundle encoder: records nothing, finishes into an empty bundle.
#[derive(Debug)]
pub(super) struct RenderBundleEncoder;

impl RenderBundleEncoderInterface for RenderBundleEncoder {
    fn set_pipeline(&mut self, _pipeline: &DispatchRenderPipeline) {}

    fn set_bind_group(&mut self, _index: u32, _bind_group: Option<&DispatchBindGroup>, _offsets: &[u32]) {}

    fn set_index_buffer(
        &mut self,
        _buffer: &DispatchBuffer,
        _index_format: wgpu::IndexFormat,
        _offset: u64,
        _size: Option<wgpu::BufferSize>,
    ) {
    }

    fn set_vertex_buffer(
        &mut self,
        _slot: u32,
        _buffer: Option<&DispatchBuffer>,
        _offset: u64,
        _size: Option<wgpu::BufferSize>,
    ) {
    }

    fn set_immediates(&mut self, _offset: u32, _data: &[u8]) {}

    fn draw(&mut self, _vertices: std::ops::Range<u32>, _instances: std::ops::Range<u32>) {
        unsupported("render bundles");
    }

    fn draw_indexed(&mut self, _indices: std::ops::Range<u32>, _base_vertex: i32, _instances: std::ops::Range<u32>) {
        unsupported("render bundles");
    }

    fn draw_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64) {
        unsupported("render bundles");
    }

    fn draw_indexed_indirect(&mut self, _indirect_buffer: &DispatchBuffer, _indirect_offset: u64) {
        unsupported("render bundles");
    }

    fn finish(self, _desc: &wgpu::RenderBundleDescriptor<'_>) -> DispatchRenderBundle {
        DispatchRenderBundle::custom(Nothing)
    }

    fn finish_boxed(self: Box<Self>, desc: &wgpu::RenderBundleDescriptor<'_>) -> DispatchRenderBundle {
        (*self).finish(desc)
    }
}

/// Bytes a caller writes before they go to a buffer (`Queue::write_buffer_with`).
#[derive(Debug)]
pub(super) struct Bytes(pub(super) Vec<u8>);

impl QueueWriteBufferInterface for Bytes {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[expect(unsafe_code, reason = "the trait's method; plain bytes, no mapping behind them")]
    unsafe fn write_slice(&mut self) -> wgpu::WriteOnly<'_, [u8]> {
        wgpu::WriteOnly::from(&mut self.0[..])
    }
}
