//! `--screenshot` drawn offscreen on the real (usually software) adapter: any window size is
//! read back (in tiles when one buffer cannot hold it) and the overlay is in the picture.
//!
//! Without an adapter the runner reports the tests as ignored, or as failed with
//! `TIMESTEP_LAB_REQUIRE_GPU` set (CI); see `tests/support/harness.rs`. `the_saved_png_…` leaves
//! `$TMPDIR/timestep-lab-screenshot.png` for a human to look at.

use crate::harness::gpu_tests;

use timestep_lab::hud_data::{HudData, LoopFigures, RunnerLane};
use timestep_lab::render::overlay::{Input, Overlay, Target};
use timestep_lab::render::{GpuContext, Offscreen, Screenshot, SpriteRenderer};
use timestep_lab::sim::{Instance, MoverKind, World, WorldConfig};
use timestep_lab::strategy::View;

/// A buffer limit small enough that a 640 × 360 picture (921 600 bytes) needs two bands.
const SMALL_BUFFERS: u64 = 512 * 1024;

fn world_instances() -> (Vec<Instance>, [f32; 2], RunnerLane) {
    let config = WorldConfig { extra_sprites: 200, ..WorldConfig::default() };
    let world = World::new(&config);
    let mut instances = Vec::new();
    world.write_instances(View::Latest, &mut instances);
    let playfield = [config.width, config.height];
    let lane = RunnerLane { playfield, y: world.mover(MoverKind::Runner).current.pos[1] as f32 };
    (instances, playfield, lane)
}

fn hud(lane: RunnerLane) -> HudData {
    HudData {
        figures: LoopFigures {
            strategy_name: "interpolated",
            tick_rate_hz: 60.0,
            fps: 60.0,
            ups: 60.0,
            pattern: "1111111111".repeat(12),
            ..LoopFigures::default()
        },
        runner_lane: Some(lane),
        ..HudData::default()
    }
}

/// A second device on the same adapter whose buffers may not exceed [`SMALL_BUFFERS`].
fn small_buffer_device(gpu: &GpuContext) -> (wgpu::Device, wgpu::Queue) {
    let limits = wgpu::Limits { max_buffer_size: SMALL_BUFFERS, ..wgpu::Limits::downlevel_defaults() }
        .using_resolution(gpu.adapter.limits());
    pollster::block_on(gpu.adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("small buffers"),
        required_limits: limits,
        ..wgpu::DeviceDescriptor::default()
    }))
    .expect("a device with a lower buffer limit than the adapter's")
}

fn a_picture_larger_than_one_buffer_reads_back_in_bands_identical_to_one_copy(gpu: GpuContext) {
    let (instances, playfield, lane) = world_instances();
    let hud = hud(lane);
    let shot =
        Screenshot { instances: &instances, playfield, size: [640, 360], hud: Some(&hud), pixels_per_point: 1.0 };
    let (device, queue) = small_buffer_device(&gpu);
    assert_eq!(device.limits().max_buffer_size, SMALL_BUFFERS, "the lower limit is in force");
    let bytes = 640 * 360 * 4;
    assert!(bytes > SMALL_BUFFERS, "the picture ({bytes} bytes) does not fit one buffer");
    let banded = shot.render(&device, &queue).read_rgba(&device, &queue).expect("banded readback");
    let whole = shot.render(&gpu.device, &gpu.queue).read_rgba(&gpu.device, &gpu.queue).expect("one-copy readback");
    assert_eq!(banded.len(), whole.len(), "the same size");
    assert!(banded == whole, "the banded readback differs from the single copy");
}

fn the_picture_shows_the_overlay_when_it_is_visible_and_not_when_hidden(gpu: GpuContext) {
    let (instances, playfield, lane) = world_instances();
    let hud = hud(lane);
    let size = [1280, 720];
    let picture = |hud: Option<&HudData>| {
        let shot = Screenshot { instances: &instances, playfield, size, hud, pixels_per_point: 1.0 };
        shot.render(&gpu.device, &gpu.queue).read_rgba(&gpu.device, &gpu.queue).expect("readback")
    };
    let (with, without) = (picture(Some(&hud)), picture(None));

    // The same frame drawn as the window draws it: scene, then the overlay, twice so egui has
    // settled. Its layout says where the panel is.
    let target = Offscreen::new(&gpu.device, size[0], size[1]);
    let mut sprites = SpriteRenderer::new(&gpu.device, &gpu.queue, target.format());
    let mut overlay = Overlay::new_headless(&gpu.device, target.format(), 1.0);
    for _ in 0..2 {
        sprites.prepare(&gpu.device, &gpu.queue, &instances, playfield, size);
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("live") });
        sprites.draw(&mut encoder, target.view());
        overlay.draw(&gpu.device, &gpu.queue, Target::new(&mut encoder, target.view(), size), Input::Headless, &hud);
        gpu.queue.submit([encoder.finish()]);
    }
    let live = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
    let panel = overlay.layout().expect("the overlay drew").panel;

    let differ = |a: &[u8], b: &[u8], rect: egui::Rect| {
        let mut n = 0;
        for y in rect.min.y as usize..rect.max.y as usize {
            for x in rect.min.x as usize..rect.max.x as usize {
                let i = (y * size[0] as usize + x) * 4;
                n += usize::from(a[i..i + 4] != b[i..i + 4]);
            }
        }
        n
    };
    let panel_pixels = (panel.width() * panel.height()) as usize;
    let shown = differ(&with, &without, panel);
    assert!(
        shown > panel_pixels / 2,
        "the panel {panel:?} is in the picture: {shown} of {panel_pixels} pixels changed"
    );
    assert_eq!(differ(&with, &live, panel), 0, "the picture's panel is the window's, from the first frame");
    let corner = egui::Rect::from_min_max(egui::pos2(640.0, 400.0), egui::pos2(1280.0, 720.0));
    assert_eq!(differ(&with, &without, corner), 0, "away from the overlay the scene is untouched");
}

fn a_tiny_or_huge_window_is_pictured_at_a_size_the_device_can_draw(gpu: GpuContext) {
    let shot = |size| Screenshot { instances: &[], playfield: [1280.0, 720.0], size, hud: None, pixels_per_point: 1.0 };
    assert_eq!(shot([1, 1]).picture_size(&gpu.device), [1280, 720], "a 1 × 1 window shows nothing");
    assert_eq!(shot([640, 8]).picture_size(&gpu.device), [1280, 720], "under 16 px on one side");
    assert_eq!(shot([640, 360]).picture_size(&gpu.device), [640, 360]);
    let max = gpu.device.limits().max_texture_dimension_2d;
    assert_eq!(shot([max + 1, 720]).picture_size(&gpu.device), [max, 720], "at most the largest texture");
}

fn the_saved_png_is_the_rendered_picture(gpu: GpuContext) {
    let (instances, playfield, lane) = world_instances();
    let hud = HudData { show_help: true, help_lines: timestep_lab::app::bindings::help_lines(), ..hud(lane) };
    let shot =
        Screenshot { instances: &instances, playfield, size: [1280, 720], hud: Some(&hud), pixels_per_point: 1.0 };
    let path = std::env::temp_dir().join("timestep-lab-screenshot.png");
    shot.save_png(&gpu.device, &gpu.queue, &path).expect("PNG written");
    let decoded = image::open(&path).expect("the PNG decodes").to_rgba8();
    let rendered = shot.render(&gpu.device, &gpu.queue).read_rgba(&gpu.device, &gpu.queue).expect("readback");
    assert_eq!(decoded.dimensions(), (1280, 720));
    assert!(decoded.as_raw() == &rendered, "the PNG holds exactly the rendered pixels");
    eprintln!("screenshot: {}", path.display());
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    gpu_tests![
        a_picture_larger_than_one_buffer_reads_back_in_bands_identical_to_one_copy,
        the_picture_shows_the_overlay_when_it_is_visible_and_not_when_hidden,
        a_tiny_or_huge_window_is_pictured_at_a_size_the_device_can_draw,
        the_saved_png_is_the_rendered_picture,
    ]
}
