//! Render benchmarks on whatever adapter exists (lavapipe on CI machines).
//!
//! - `offscreen_frame_1280x720/N`: one full frame of the demo world with N
//!   load sprites (6 px squares) on top of its movers, as `--sprites N` shows
//!   it: interpolate, prepare (upload), draw (grid, then all sprites in one
//!   draw call), submit and wait for the GPU, into a 1280×720 offscreen
//!   target of the window's format. Target: 10k sprites ≤ 16.7 ms (60 fps).
//! - `fill_stress_1280x720/N`: N synthetic 16 px sprites of every kind, rotated:
//!   on a software rasteriser mostly fill (10k × 256 px is three screens of
//!   overdraw). A stress case beside the target, not the target.
//! - `overlay_1280x720/{off,on}`: the demo world with 1k load sprites, without
//!   and with the overlay: the difference is the overlay's whole cost.
//! - `lanes_1280x720/ten`: lane mode with all ten strategies: every lane runs
//!   its frame, the sprites of all lanes are drawn in one draw call and the ten
//!   lane labels over them, submitted and waited for. Target: ≤ 16.7 ms (lane
//!   mode at 60 fps on the 2-core software adapter).
//! - `cpu_prep/100000`: `SpriteRenderer::prepare` alone for 100k sprites, and
//!   `cpu_prep/interpolate_and_upload/100000`: the whole CPU side of a frame
//!   (world interpolation into the reused buffer + upload). Target: ≤ 2 ms.
//!   The GPU work they queue is flushed outside the timed section.
//!
//! Sample counts are small because a software rasteriser is slow. Run with
//! `cargo bench --bench render -- --warm-up-time 1 --measurement-time 5`.
//! `RENDER_BENCH_SPRITES` replaces the sprite counts of the first two groups
//! (comma-separated, default `1000,10000,100000`): a real GPU also runs
//! `RENDER_BENCH_SPRITES=1000,10000,100000,1000000`, which lavapipe would
//! take minutes a sample over.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::{Duration, Instant};
use timestep_lab::app::lanes::Lanes;
use timestep_lab::hud_data::{HudData, LoopFigures};
use timestep_lab::render::overlay::{Input, Overlay, Target};
use timestep_lab::render::{GpuContext, Offscreen, SpriteRenderer};
use timestep_lab::rng::SplitMix64;
use timestep_lab::session::DisplayInfo;
use timestep_lab::sim::{Instance, SpriteCell, World, WorldConfig};
use timestep_lab::strategy::{StrategyConfig, StrategyId, View};
use timestep_lab::time::Rate;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;
const PLAYFIELD: [f32; 2] = [WIDTH as f32, HEIGHT as f32];
/// Sprite edge length in playfield pixels: small "load" sprites.
const SPRITE_SIZE: f32 = 16.0;

/// `n` sprites scattered deterministically over the playfield, every cell and
/// rotation represented, one in a hundred an SDF ball.
fn sprites(n: usize) -> Vec<Instance> {
    let cells = [
        SpriteCell::Runner,
        SpriteCell::Orbiter,
        SpriteCell::Spinner,
        SpriteCell::Wrapper,
        SpriteCell::Particle,
        SpriteCell::Player,
        SpriteCell::Square,
    ];
    let mut rng = SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_f64() as f32;
    (0..n)
        .map(|i| Instance {
            position: [next() * PLAYFIELD[0], next() * PLAYFIELD[1]],
            size: [SPRITE_SIZE, SPRITE_SIZE],
            rotation: next() * std::f32::consts::TAU,
            flags: if i % 100 == 0 { Instance::FLAG_SDF_CIRCLE } else { 0 },
            color: [0.3 + 0.7 * next(), 0.3 + 0.7 * next(), 0.3 + 0.7 * next(), 1.0],
            atlas: cells[i % cells.len()].atlas_rect(),
        })
        .collect()
}

fn gpu() -> Option<GpuContext> {
    // As `main` does: keep lavapipe's freed per-frame memory (see render/heap.rs).
    timestep_lab::platform::keep_freed_heap_memory();
    match timestep_lab::platform::headless_gpu() {
        Ok(gpu) => {
            log::info!("benchmarking on {}", gpu.adapter_summary());
            Some(gpu)
        }
        Err(err) => {
            eprintln!("SKIPPED render benches: no GPU adapter ({err})");
            None
        }
    }
}

/// The sprite counts of `offscreen_frame` and `fill_stress`: `RENDER_BENCH_SPRITES`, or 1k, 10k and 100k.
fn sprite_counts() -> Vec<usize> {
    const DEFAULT: [usize; 3] = [1_000, 10_000, 100_000];
    let Ok(list) = std::env::var("RENDER_BENCH_SPRITES") else { return DEFAULT.to_vec() };
    let counts: Result<Vec<usize>, _> = list.split(',').map(|n| n.trim().parse::<usize>()).collect();
    match counts {
        Ok(counts) if !counts.is_empty() && counts.iter().all(|&n| (1..=10_000_000).contains(&n)) => counts,
        _ => {
            eprintln!("RENDER_BENCH_SPRITES={list:?}: expected comma-separated sprite counts from 1 to 10000000");
            std::process::exit(2)
        }
    }
}

/// The adapter, a 1280×720 offscreen target and a sprite renderer for it.
fn setup() -> Option<(GpuContext, Offscreen, SpriteRenderer)> {
    let gpu = gpu()?;
    let target = Offscreen::new(&gpu.device, WIDTH, HEIGHT);
    let renderer = SpriteRenderer::new(&gpu.device, &gpu.queue, target.format());
    Some((gpu, target, renderer))
}

fn wait(gpu: &GpuContext, submission: Option<wgpu::SubmissionIndex>) {
    if let Err(err) = gpu.device.poll(wgpu::PollType::Wait { submission_index: submission, timeout: None }) {
        log::error!("waiting for the GPU failed: {err}");
    }
}

/// Times `work` `iterations` times; after each run (outside the timed part)
/// flushes the upload it staged, so staging memory does not pile up.
fn timed_then_flushed(gpu: &GpuContext, iterations: u64, mut work: impl FnMut()) -> Duration {
    let mut timed = Duration::ZERO;
    for _ in 0..iterations {
        let start = Instant::now();
        work();
        timed += start.elapsed();
        let submission = gpu.queue.submit([]);
        wait(gpu, Some(submission));
    }
    timed
}

/// Checked after each benchmark that ran (a name filter skips some).
fn assert_one_sprite_draw(renderer: &SpriteRenderer) {
    let sprites = renderer.sprite_count();
    // The target is the playfield's size, so the clear paints the background (no fill draw).
    assert_eq!(renderer.draw_calls_last_frame(), 2, "grid lines, then all {sprites} sprites in one draw call");
}

fn fill_stress(c: &mut Criterion) {
    let Some((gpu, target, mut renderer)) = setup() else { return };
    let mut group = c.benchmark_group("fill_stress_1280x720");
    group.sample_size(10);
    for n in sprite_counts() {
        let instances = sprites(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &instances, |b, instances| {
            b.iter(|| {
                let submission = target.render(&gpu.device, &gpu.queue, &mut renderer, instances, PLAYFIELD);
                wait(&gpu, Some(submission));
            });
            assert_one_sprite_draw(&renderer);
        });
    }
    group.finish();
}

/// The demo world itself with `n` load sprites (6 px squares) on top of its
/// movers: what `--sprites n` costs per frame, interpolation included.
fn offscreen_frame(c: &mut Criterion) {
    let Some((gpu, target, mut renderer)) = setup() else { return };
    let mut group = c.benchmark_group("offscreen_frame_1280x720");
    group.sample_size(10);
    for n in sprite_counts() {
        let world = World::new(&WorldConfig { extra_sprites: n, ..WorldConfig::default() });
        let mut instances = Vec::with_capacity(world.max_instances());
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                world.write_instances(View::Interpolate { alpha: 0.5 }, &mut instances);
                let submission = target.render(&gpu.device, &gpu.queue, &mut renderer, &instances, PLAYFIELD);
                wait(&gpu, Some(submission));
            });
            assert_one_sprite_draw(&renderer);
        });
    }
    group.finish();
}

/// A panel as busy as the demo's: a full frame-time plot, a full pattern.
fn busy_hud() -> HudData {
    let mut hud = HudData {
        figures: LoopFigures {
            strategy_name: "catch-up",
            strategy_summary: "Fixed updates; render once after catching up with wall time.",
            vsync_verdict: "Fifo requested, frames every 16.68 ms: vsync in effect".to_owned(),
            present_cadence_hz: Some(59.94),
            fps: 59.9,
            ups: 60.0,
            pattern: "1111111112".repeat(12),
            ..LoopFigures::default()
        },
        sprite_count: 1000,
        ..HudData::default()
    };
    for i in 0..300u64 {
        hud.figures.frame_times_ms.push(Duration::from_micros(if i % 60 == 0 { 33_367 } else { 16_683 }));
    }
    hud
}

/// The overlay's whole cost (build, tessellate, upload and rasterise) on top
/// of the demo world with 1k load sprites: `off` and `on` differ only in the
/// overlay. (The overlay shows its CPU part, and its pass's GPU time where the
/// adapter has timestamp queries.)
fn overlay(c: &mut Criterion) {
    let Some((gpu, target, mut renderer)) = setup() else { return };
    let mut overlay = Overlay::new_headless(&gpu.device, target.format(), 1.0);
    let hud = busy_hud();
    let world = World::new(&WorldConfig { extra_sprites: 1_000, ..WorldConfig::default() });
    let mut instances = Vec::with_capacity(world.max_instances());
    let mut group = c.benchmark_group("overlay_1280x720");
    group.sample_size(10);
    for on in [false, true] {
        group.bench_function(if on { "on" } else { "off" }, |b| {
            b.iter(|| {
                world.write_instances(View::Interpolate { alpha: 0.5 }, &mut instances);
                renderer.prepare(&gpu.device, &gpu.queue, &instances, PLAYFIELD, [WIDTH, HEIGHT]);
                let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
                renderer.draw(&mut encoder, target.view());
                if on {
                    let into = Target::new(&mut encoder, target.view(), [WIDTH, HEIGHT]);
                    overlay.draw(&gpu.device, &gpu.queue, into, Input::Headless, &hud);
                }
                let submission = gpu.queue.submit([encoder.finish()]);
                wait(&gpu, Some(submission));
            });
        });
    }
    group.finish();
}

/// Lane mode with every strategy: ten lanes' frames, their sprites in one
/// draw, the ten labels over them. A frame per refresh of a 60 Hz display.
fn lanes(c: &mut Criterion) {
    let Some((gpu, target, mut renderer)) = setup() else { return };
    let mut overlay = Overlay::new_headless(&gpu.device, target.format(), 1.0);
    let display = DisplayInfo::default().with_emulated(Some(Rate::from_hz(60)));
    let mut lanes = Lanes::new(&StrategyId::ALL, StrategyConfig::default(), &display, PLAYFIELD, 0);
    let mut instances = Vec::with_capacity(lanes.max_instances());
    let mut hud = HudData { lane_playfield: PLAYFIELD, ..HudData::default() };
    let period = Rate::from_hz(60).period();
    let mut start = 0;
    let mut frame = |instances: &mut Vec<Instance>, hud: &mut HudData| {
        instances.clear();
        lanes.run_lane_frames(start, instances);
        start += period;
        lanes.record(start, true);
        lanes.fill_labels(&mut hud.lanes, start);
    };
    // Two seconds of frames first, so every label shows a full pattern.
    for _ in 0..120 {
        frame(&mut instances, &mut hud);
    }
    let mut group = c.benchmark_group("lanes_1280x720");
    group.sample_size(10);
    group.bench_function("ten", |b| {
        b.iter(|| {
            frame(&mut instances, &mut hud);
            renderer.prepare(&gpu.device, &gpu.queue, &instances, PLAYFIELD, [WIDTH, HEIGHT]);
            let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
            renderer.draw(&mut encoder, target.view());
            let into = Target::new(&mut encoder, target.view(), [WIDTH, HEIGHT]);
            overlay.draw(&gpu.device, &gpu.queue, into, Input::Headless, &hud);
            let submission = gpu.queue.submit([encoder.finish()]);
            wait(&gpu, Some(submission));
        });
        assert_one_sprite_draw(&renderer);
        assert_eq!(renderer.sprite_count(), 20, "two sprites per lane");
    });
    group.finish();
}

fn cpu_prep(c: &mut Criterion) {
    let Some((gpu, _target, mut renderer)) = setup() else { return };
    let n = 100_000;
    let instances = sprites(n);
    // Grow the buffer once so the steady state is measured.
    renderer.prepare(&gpu.device, &gpu.queue, &instances, PLAYFIELD, [WIDTH, HEIGHT]);
    let mut group = c.benchmark_group("cpu_prep");
    group.sample_size(20);
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(BenchmarkId::from_parameter(n), |b| {
        b.iter_custom(|iterations| {
            timed_then_flushed(&gpu, iterations, || {
                renderer.prepare(&gpu.device, &gpu.queue, &instances, PLAYFIELD, [WIDTH, HEIGHT]);
            })
        });
    });
    // The whole CPU side of a frame: interpolate the world into the reused
    // buffer, then upload it.
    let world = World::new(&WorldConfig { extra_sprites: n, ..WorldConfig::default() });
    let mut buffer = Vec::with_capacity(world.max_instances());
    world.write_instances(View::Interpolate { alpha: 0.5 }, &mut buffer);
    renderer.prepare(&gpu.device, &gpu.queue, &buffer, PLAYFIELD, [WIDTH, HEIGHT]);
    group.bench_function(BenchmarkId::new("interpolate_and_upload", n), |b| {
        b.iter_custom(|iterations| {
            timed_then_flushed(&gpu, iterations, || {
                world.write_instances(View::Interpolate { alpha: 0.5 }, &mut buffer);
                renderer.prepare(&gpu.device, &gpu.queue, &buffer, PLAYFIELD, [WIDTH, HEIGHT]);
            })
        });
    });
    group.finish();
}

criterion_group!(benches, offscreen_frame, fill_stress, overlay, lanes, cpu_prep);
criterion_main!(benches);
