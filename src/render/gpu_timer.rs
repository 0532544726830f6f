//! GPU time of a frame's two render passes (scene, overlay), from timestamp queries.
//!
//! CPU timers around `draw` calls only measure recording; the work itself runs
//! later on the GPU, or on a software adapter on the driver's own threads. So
//! each pass writes a timestamp at its start and end, the frame's encoder
//! resolves them into a small ring of readback buffers, and the numbers arrive
//! a frame or two later without anyone waiting:
//!
//! ```text
//!   scene pass [0 … 1]   overlay pass [2 … 3]   resolve → copy → slot k ─map_async─▶ collect()
//! ```
//!
//! Adapters without `TIMESTAMP_QUERY` get no timer ([`GpuTimer::new`] returns
//! `None`) and the overlay says so. A frame finding every slot still in flight
//! is simply not timed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Timestamps per frame: scene begin/end, overlay begin/end.
const QUERIES: u32 = 4;
/// Bytes of one resolved timestamp.
const TIMESTAMP_SIZE: u64 = std::mem::size_of::<u64>() as u64;
/// Readback buffers in the ring: frames that may be in flight at once.
const SLOTS: usize = 4;

/// Slot states, shared with the `map_async` callback.
const FREE: u8 = 0;
const MAPPING: u8 = 1;
const READY: u8 = 2;
const FAILED: u8 = 3;

/// Where one render pass writes its begin and end timestamps.
#[derive(Clone, Debug)]
pub struct PassTimestamps {
    query_set: wgpu::QuerySet,
    begin: u32,
}

impl PassTimestamps {
    /// For `RenderPassDescriptor::timestamp_writes`.
    pub(crate) fn writes(&self) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.query_set,
            beginning_of_pass_write_index: Some(self.begin),
            end_of_pass_write_index: Some(self.begin + 1),
        }
    }
}

/// GPU milliseconds of one frame's passes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuTimes {
    /// The scene pass (background and sprites).
    pub scene_ms: f64,
    /// The overlay pass; `None` when the overlay was not drawn.
    pub overlay_ms: Option<f64>,
}

struct Slot {
    buffer: wgpu::Buffer,
    state: Arc<AtomicU8>,
    /// The overlay's timestamps were resolved into this slot.
    overlay: bool,
    /// Which resolve filled it (slots are reused in any order).
    sequence: u64,
}

/// Times the scene and overlay passes; see the module docs.
pub struct GpuTimer {
    query_set: wgpu::QuerySet,
    resolve_buffer: wgpu::Buffer,
    slots: Vec<Slot>,
    /// The slot the current encoder copies into, until [`submitted`](Self::submitted).
    pending: Option<usize>,
    /// Nanoseconds per timestamp tick.
    period_ns: f64,
    /// Resolves so far.
    sequence: u64,
}

impl GpuTimer {
    /// A timer, if `device` was created with `TIMESTAMP_QUERY`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<GpuTimer> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let query_set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("frame pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: QUERIES,
        });
        let size = u64::from(QUERIES) * TIMESTAMP_SIZE;
        let resolve_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamp resolve"),
            size,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let slots = (0..SLOTS)
            .map(|_| Slot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamp readback"),
                    size,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: Arc::new(AtomicU8::new(FREE)),
                overlay: false,
                sequence: 0,
            })
            .collect();
        Some(GpuTimer {
            query_set,
            resolve_buffer,
            slots,
            pending: None,
            period_ns: f64::from(queue.get_timestamp_period()),
            sequence: 0,
        })
    }

    /// Where the scene pass writes its timestamps.
    pub fn scene(&self) -> PassTimestamps {
        PassTimestamps { query_set: self.query_set.clone(), begin: 0 }
    }

    /// Where the overlay pass writes its timestamps.
    pub fn overlay(&self) -> PassTimestamps {
        PassTimestamps { query_set: self.query_set.clone(), begin: 2 }
    }

    /// Resolves this frame's timestamps into a free slot, after both passes
    /// were recorded into `encoder`. `overlay_drawn` says whether the overlay
    /// pass ran (unwritten queries must not be resolved). Returns false when
    /// every slot is still in flight: this frame is not timed.
    pub fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder, overlay_drawn: bool) -> bool {
        let Some(index) = self.slots.iter().position(|s| s.state.load(Ordering::Acquire) == FREE) else {
            return false;
        };
        let count = if overlay_drawn { QUERIES } else { 2 };
        encoder.resolve_query_set(&self.query_set, 0..count, &self.resolve_buffer, 0);
        let slot = &mut self.slots[index];
        encoder.copy_buffer_to_buffer(&self.resolve_buffer, 0, &slot.buffer, 0, u64::from(count) * TIMESTAMP_SIZE);
        slot.overlay = overlay_drawn;
        self.sequence += 1;
        slot.sequence = self.sequence;
        slot.state.store(MAPPING, Ordering::Release);
        self.pending = Some(index);
        true
    }

    /// Call right after submitting the encoder [`resolve`](Self::resolve)
    /// wrote into: starts reading the slot back.
    pub fn submitted(&mut self) {
        let Some(index) = self.pending.take() else { return };
        let state = Arc::clone(&self.slots[index].state);
        self.slots[index].buffer.slice(..).map_async(wgpu::MapMode::Read, move |result| {
            state.store(if result.is_ok() { READY } else { FAILED }, Ordering::Release);
        });
    }

    /// The newest frame read back since the last call, if any; frees its slot
    /// and any older ones. Never waits (mapping completes as the device is
    /// polled, which every submit does).
    pub fn collect(&mut self) -> Option<GpuTimes> {
        let mut newest: Option<(u64, GpuTimes)> = None;
        for slot in &mut self.slots {
            match slot.state.load(Ordering::Acquire) {
                READY => {
                    let times = read_slot(slot, self.period_ns);
                    slot.buffer.unmap();
                    slot.state.store(FREE, Ordering::Release);
                    if let Some(times) = times
                        && newest.is_none_or(|(sequence, _)| slot.sequence > sequence)
                    {
                        newest = Some((slot.sequence, times));
                    }
                }
                FAILED => {
                    log::debug!("reading back GPU timestamps failed; that frame is not timed");
                    slot.state.store(FREE, Ordering::Release);
                }
                _ => {}
            }
        }
        newest.map(|(_, times)| times)
    }
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer").field("period_ns", &self.period_ns).finish_non_exhaustive()
    }
}

/// The times in a mapped slot; `None` when the timestamps make no sense
/// (an end before its begin, as after a GPU clock reset).
fn read_slot(slot: &Slot, period_ns: f64) -> Option<GpuTimes> {
    let count = if slot.overlay { QUERIES as usize } else { 2 };
    let view = slot.buffer.slice(..u64::try_from(count).ok()? * TIMESTAMP_SIZE).get_mapped_range().ok()?;
    let mut ticks = [0_u64; QUERIES as usize];
    for (tick, bytes) in ticks.iter_mut().zip(view.chunks_exact(8)) {
        *tick = u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
    }
    let ticks = &ticks[..count];
    let span = |begin: usize| -> Option<f64> {
        let (start, end) = (*ticks.get(begin)?, *ticks.get(begin + 1)?);
        (end >= start).then(|| (end - start) as f64 * period_ns / 1e6)
    };
    Some(GpuTimes { scene_ms: span(0)?, overlay_ms: if slot.overlay { span(2) } else { None } })
}
