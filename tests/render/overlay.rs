//! The overlay drawn headless on the real (usually software) adapter: over a cleared
//! [`Offscreen`] target, read back and compared with the background alone.
//!
//! Without an adapter the runner reports the tests as ignored, or as failed
//! with `TIMESTEP_LAB_REQUIRE_GPU` set (CI); see `tests/support/harness.rs`.
//!
//! `overlay_png_is_written_for_review` leaves the pictures in
//! `$TMPDIR/timestep-lab-overlay-WxH.png` (1280×720, 640×360, 320×240, help open) for a human to
//! look at.

use crate::harness::{gpu_tests, tests};

use std::time::Duration;

use timestep_lab::host::Simulation;
use timestep_lab::hud_data::{HudData, LoopFigures, RunnerLane};
use timestep_lab::metrics::FrameStats;
use timestep_lab::monitor::{Preset, RunSpec, Stop, Trace, run_frames, simulate};
use timestep_lab::render::overlay::{
    Input, Overlay, OverlayLayout, PanelLayout, Target, metric_rows, present_interval_line,
};
use timestep_lab::render::{GpuContext, Letterbox, Offscreen};
use timestep_lab::report::RunReport;
use timestep_lab::session::{DisplayInfo, PresentModeInfo, Session};
use timestep_lab::sim::{MoverKind, World, WorldConfig};
use timestep_lab::strategy::StrategyId;
use timestep_lab::time::{Nanos, Rate};

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;

/// A busy HUD: a 59.94 Hz monitor with a hitch, double updates and the help open.
fn sample_hud() -> HudData {
    let mut hud = HudData {
        figures: LoopFigures {
            strategy_name: "catch-up",
            strategy_summary: "Fixed 60 Hz updates; render once after catching up with wall time.",
            strategy_source: "Fiedler, \"Fix Your Timestep!\" (2004)",
            strategy_status: "accumulator 3.2 ms".to_owned(),
            tick_rate_hz: 60.0,
            present_mode_requested: "Fifo".to_owned(),
            present_mode_actual: "Fifo".to_owned(),
            monitor_name: "Virtual-1 (Xvfb)".to_owned(),
            reported_refresh_hz: Some(60.0),
            present_cadence_hz: Some(59.94),
            vsync_verdict: "Fifo requested, frames every 16.68 ms: vsync in effect".to_owned(),
            emulated_refresh_hz: Some(59.94),
            fps: 59.9,
            ups: 60.0,
            pattern: "1111111111111111111111111111111111111111111111111112111111111111\
                  11111111111111111011111111111111111111111111111111111111"
                .to_owned(),
            double_updates: 3,
            skipped_renders: 0,
            repeated_frames: 1,
            stats: FrameStats {
                startup_ms: 0.0,
                speed_ratio: 0.99999,
                drift_ms_per_min: -0.4,
                judder_ms: 1.27,
                judder_p99_ms: 16.7,
                hitches: 3,
                max_hitch_ms: 33.4,
                hitches_per_min: 2.5,
                latency_ms: 19.8,
                latency_p95_ms: 21.2,
                latency_max_ms: 36.1,
                present_interval_mean_ms: 16.9,
                present_interval_std_ms: 2.1,
                present_interval_p99_ms: 33.4,
            },
            paused: false,
            ..LoopFigures::default()
        },
        cpu_percent: Some(14.5),
        sprite_count: 1000,
        load_preset: "none",
        ghosts: true,
        overlay_cost_ms: 0.42,
        help_lines: vec![
            ("1–0".to_owned(), "select strategy".to_owned()),
            ("V".to_owned(), "cycle present mode".to_owned()),
            ("Up / Down".to_owned(), "tick rate".to_owned()),
            ("F1".to_owned(), "this help".to_owned()),
            ("H".to_owned(), "hide the overlay".to_owned()),
            ("Esc".to_owned(), "quit".to_owned()),
        ],
        show_help: false,
        ..HudData::default()
    };
    for i in 0..300u64 {
        let micros = match i {
            150 => 50_000,
            _ if i % 60 == 0 => 33_367,
            _ => 16_683,
        };
        hud.figures.frame_times_ms.push(Duration::from_micros(micros));
        hud.figures.present_histogram.add(micros * 1000);
    }
    hud
}

/// The "scene" behind the overlay: a clear to the demo's dark blue-grey. The sprite renderer is
/// left out so these tests fail only for the overlay's own faults.
const BACKGROUND: wgpu::Color = wgpu::Color { r: 0.02, g: 0.03, b: 0.05, a: 1.0 };

fn clear(encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("test background"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: target,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations { load: wgpu::LoadOp::Clear(BACKGROUND), store: wgpu::StoreOp::Store },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
}

struct Bench {
    gpu: GpuContext,
    target: Offscreen,
    overlay: Overlay,
}

impl Bench {
    fn new(gpu: GpuContext) -> Bench {
        Bench::with_format(gpu, wgpu::TextureFormat::Rgba8Unorm)
    }

    fn with_format(gpu: GpuContext, format: wgpu::TextureFormat) -> Bench {
        let target = Offscreen::with_format(&gpu.device, WIDTH, HEIGHT, format);
        let overlay = Overlay::new_headless(&gpu.device, target.format(), 1.0);
        Bench { gpu, target, overlay }
    }

    fn scene_only(&mut self) -> Vec<u8> {
        let device = &self.gpu.device;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("scene") });
        clear(&mut encoder, self.target.view());
        self.gpu.queue.submit([encoder.finish()]);
        self.target.read_rgba(device, &self.gpu.queue).expect("readback of the scene")
    }

    /// Scene, then the overlay on top; returns the pixels and the overlay's reported cost.
    fn with_overlay(&mut self, hud: &HudData) -> (Vec<u8>, f64) {
        let device = &self.gpu.device;
        let queue = &self.gpu.queue;
        let mut encoder =
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("overlay test") });
        clear(&mut encoder, self.target.view());
        let cost = self.overlay.draw(
            device,
            queue,
            Target::new(&mut encoder, self.target.view(), self.target.size()),
            Input::Headless,
            hud,
        );
        queue.submit([encoder.finish()]);
        let rgba = self.target.read_rgba(device, queue).expect("readback of scene + overlay");
        (rgba, cost)
    }
}

fn pixel(rgba: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * WIDTH + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

/// Pixels that differ between two images inside `[x0, x1) × [y0, y1)`.
fn changed_in(a: &[u8], b: &[u8], (x0, y0, x1, y1): (u32, u32, u32, u32)) -> usize {
    (y0..y1).flat_map(|y| (x0..x1).map(move |x| (x, y))).filter(|&(x, y)| pixel(a, x, y) != pixel(b, x, y)).count()
}

const TOP_LEFT: (u32, u32, u32, u32) = (0, 0, WIDTH / 2, HEIGHT);
const TOP_RIGHT: (u32, u32, u32, u32) = (WIDTH * 3 / 4, 0, WIDTH, HEIGHT / 3);

fn the_overlay_draws_a_panel_over_the_scene_and_can_draw_again(gpu: GpuContext) {
    let mut bench = Bench::new(gpu);
    let scene = bench.scene_only();
    let hud = sample_hud();

    let (first, cost) = bench.with_overlay(&hud);
    let panel = changed_in(&scene, &first, TOP_LEFT);
    eprintln!("first frame: {panel} pixels changed in the left half, cost {cost:.2} ms");
    assert!(cost > 0.0 && cost.is_finite(), "the overlay reports its own cost, got {cost}");
    assert!(panel > 0, "the panel shows on the very first frame, not after a hidden sizing frame");

    let (second, _) = bench.with_overlay(&hud);
    let panel = changed_in(&scene, &second, TOP_LEFT);
    let total = (WIDTH / 2 * HEIGHT) as usize;
    assert!(panel > total / 10, "the panel covers a good part of the left half: {panel} of {total} pixels changed");
    assert_eq!(changed_in(&scene, &second, TOP_RIGHT), 0, "without F1 the top-right corner is untouched");
    assert_eq!(
        pixel(&second, WIDTH - 1, HEIGHT - 1),
        pixel(&scene, WIDTH - 1, HEIGHT - 1),
        "the overlay loads the scene instead of clearing it"
    );
}

fn an_srgb_target_shows_the_same_panel_colours(gpu: GpuContext) {
    let hud = sample_hud();
    let mut plain = Bench::new(gpu);
    plain.with_overlay(&hud);
    let (plain_pixels, _) = plain.with_overlay(&hud);
    let gpu = timestep_lab::platform::headless_gpu().expect("a second context on the adapter the probe found");
    let mut srgb = Bench::with_format(gpu, wgpu::TextureFormat::Rgba8UnormSrgb);
    srgb.with_overlay(&hud);
    let (srgb_pixels, _) = srgb.with_overlay(&hud);
    // The panel's flat fill, away from text. The fill lets 4 % of the scene through, and the two
    // targets blend in different spaces over differently encoded clears, so a few steps of
    // difference are expected; a missing conversion would read about 60 instead of about 11.
    let (a, b) = (pixel(&plain_pixels, 300, 600), pixel(&srgb_pixels, 300, 600));
    assert_ne!(a, pixel(&plain.scene_only(), 300, 600), "(300, 600) lies on the panel");
    assert!(a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= 5), "Rgba8Unorm {a:?} vs Rgba8UnormSrgb {b:?}");
}

fn f1_opens_the_help_table_in_the_top_right_corner(gpu: GpuContext) {
    let mut bench = Bench::new(gpu);
    let scene = bench.scene_only();
    bench.with_overlay(&sample_hud());
    let hud = HudData { show_help: true, ..sample_hud() };
    let (with_help, _) = bench.with_overlay(&hud);
    let help = changed_in(&scene, &with_help, TOP_RIGHT);
    assert!(help > 1000, "the help table shows up top-right on the frame F1 opens it: {help} pixels changed");
}

fn a_hidden_overlay_draws_nothing_and_costs_nothing(gpu: GpuContext) {
    let mut bench = Bench::new(gpu);
    let scene = bench.scene_only();
    bench.overlay.set_visible(false);
    assert!(!bench.overlay.visible());
    let (hidden, cost) = bench.with_overlay(&sample_hud());
    assert_eq!(cost, 0.0, "hidden overlay reports no cost");
    assert_eq!(changed_in(&scene, &hidden, (0, 0, WIDTH, HEIGHT)), 0, "hidden overlay leaves the scene as is");
}

fn an_empty_hud_and_a_zero_size_target_do_not_panic(gpu: GpuContext) {
    let mut bench = Bench::new(gpu);
    let device = &bench.gpu.device;
    let queue = &bench.gpu.queue;
    for size in [[0, 0], [WIDTH, HEIGHT], [0, HEIGHT]] {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("empty hud") });
        bench.overlay.draw(
            device,
            queue,
            Target::new(&mut encoder, bench.target.view(), size),
            Input::Headless,
            &HudData::default(),
        );
        queue.submit([encoder.finish()]);
    }
    device.poll(wgpu::PollType::wait_indefinitely()).expect("the GPU finishes");
}

/// The demo's playfield and its runner's lane, as the shell reports them.
fn runner_lane() -> RunnerLane {
    let config = WorldConfig::default();
    let y = World::new(&config).mover(MoverKind::Runner).current.pos[1] as f32;
    RunnerLane { playfield: [config.width, config.height], y }
}

/// The busy HUD with the real key table (the long one) and the runner's lane.
fn window_hud(show_help: bool) -> HudData {
    HudData {
        help_lines: timestep_lab::app::bindings::help_lines(),
        show_help,
        runner_lane: Some(runner_lane()),
        ..sample_hud()
    }
}

/// Draws `hud` twice (the second frame is the steady state) over a `width × height` target;
/// returns the overlay's layout and the target with the picture in it.
fn draw_at(gpu: &GpuContext, width: u32, height: u32, hud: &HudData) -> (OverlayLayout, Offscreen) {
    let target = Offscreen::new(&gpu.device, width, height);
    let mut overlay = Overlay::new_headless(&gpu.device, target.format(), 1.0);
    for _ in 0..2 {
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("sized") });
        clear(&mut encoder, target.view());
        overlay.draw(
            &gpu.device,
            &gpu.queue,
            Target::new(&mut encoder, target.view(), target.size()),
            Input::Headless,
            hud,
        );
        gpu.queue.submit([encoder.finish()]);
    }
    let layout = overlay.layout().expect("a visible overlay reports its layout");
    (layout, target)
}

fn inside(rect: egui::Rect, width: u32, height: u32) -> bool {
    rect.min.x >= 0.0 && rect.min.y >= 0.0 && rect.max.x <= width as f32 && rect.max.y <= height as f32
}

fn every_panel_fits_the_window_from_320x240_up_and_small_windows_get_the_compact_line(gpu: GpuContext) {
    let sizes = [(1920, 1080, PanelLayout::Full), (1280, 720, PanelLayout::Full), (1024, 600, PanelLayout::Compact)];
    let small = [(640, 360, PanelLayout::Compact), (480, 270, PanelLayout::Compact), (320, 240, PanelLayout::Compact)];
    for (width, height, kind) in sizes.into_iter().chain(small) {
        for show_help in [false, true] {
            let (layout, _) = draw_at(&gpu, width, height, &window_hud(show_help));
            eprintln!("{width}×{height}, help {show_help}: {layout:?}");
            assert_eq!(layout.kind, kind, "{width}×{height}: layout");
            assert!(
                inside(layout.panel, width, height),
                "{width}×{height}: panel {:?} leaves the window",
                layout.panel
            );
            if show_help {
                let help = layout.help.expect("F1 shows the key table");
                assert!(inside(help, width, height), "{width}×{height}: key table {help:?} leaves the window");
            }
        }
    }
}

fn the_full_panel_fits_at_the_smallest_size_that_gets_it(gpu: GpuContext) {
    let [w, h] = timestep_lab::render::overlay::FULL_MIN_POINTS.map(|p| p.ceil() as u32);
    assert_eq!(PanelLayout::for_screen([w as f32, h as f32]), PanelLayout::Full);
    assert_eq!(PanelLayout::for_screen([w as f32 - 1.0, h as f32]), PanelLayout::Compact);
    assert_eq!(PanelLayout::for_screen([w as f32, h as f32 - 1.0]), PanelLayout::Compact);
    // The busiest HUD, with a status line and a summary long enough to wrap.
    let hud = HudData {
        figures: LoopFigures {
            strategy_summary: "Fixed-rate updates, rendered with the state between the last two ticks blended by alpha.",
            ..LoopFigures::default()
        },
        ..window_hud(false)
    };
    let (layout, _) = draw_at(&gpu, w, h, &hud);
    assert_eq!(layout.kind, PanelLayout::Full);
    assert!(inside(layout.panel, w, h), "{w}×{h}: the full panel {:?} does not fit", layout.panel);
}

fn the_compact_line_keeps_fps_strategy_pattern_and_the_f1_hint_at_320x240(gpu: GpuContext) {
    let (layout, target) = draw_at(&gpu, 320, 240, &window_hud(false));
    assert_eq!(layout.kind, PanelLayout::Compact);
    // Everything the compact panel shows is laid out inside the panel, and the panel leaves most
    // of the scene visible.
    let area = layout.panel.width() * layout.panel.height();
    assert!(area < 0.5 * 320.0 * 240.0, "the compact panel {:?} covers half the window", layout.panel);
    let rgba = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
    let lit = |x0: f32, y0: f32, x1: f32, y1: f32| {
        let mut n = 0;
        for y in y0 as u32..y1 as u32 {
            for x in x0 as u32..x1 as u32 {
                let i = ((y * 320 + x) * 4) as usize;
                n += usize::from(rgba[i].max(rgba[i + 1]).max(rgba[i + 2]) > 80);
            }
        }
        n
    };
    // Text sits in every quarter of the panel's height: strategy, numbers, pattern, hint.
    let p = layout.panel;
    for k in 0..4 {
        let (y0, y1) = (p.min.y + p.height() * k as f32 / 4.0, p.min.y + p.height() * (k + 1) as f32 / 4.0);
        assert!(lit(p.min.x, y0, p.max.x, y1) > 20, "quarter {k} of the compact panel {p:?} has no text");
    }
}

fn the_runner_lane_is_labelled_beside_the_lane_and_clear_of_the_panel(gpu: GpuContext) {
    let lane = runner_lane();
    for (width, height) in [(1280, 720), (640, 360)] {
        let (layout, _) = draw_at(&gpu, width, height, &window_hud(false));
        let label = layout.runner_label.unwrap_or_else(|| panic!("{width}×{height}: no runner label"));
        let letterbox = Letterbox::fit(lane.playfield, [width, height]);
        let [right, lane_y] = letterbox.to_target([lane.playfield[0], lane.y]);
        let lane_bottom = letterbox.to_target([0.0, lane.y + MoverKind::Runner.size()[1] / 2.0])[1];
        assert!(
            label.max.x <= right && label.max.x > right - 20.0,
            "{width}×{height}: label {label:?} ends at the lane's right end {right}"
        );
        assert!(
            label.min.y >= lane_bottom && label.min.y < lane_bottom + 10.0,
            "{width}×{height}: label {label:?} just under the lane (y {lane_y})"
        );
        assert!(
            !label.intersects(layout.panel),
            "{width}×{height}: label {label:?} under the panel {:?}",
            layout.panel
        );
    }
    // No lane, no label.
    let (layout, _) = draw_at(&gpu, 1280, 720, &HudData { runner_lane: None, ..window_hud(false) });
    assert_eq!(layout.runner_label, None);
}

fn overlay_png_is_written_for_review(gpu: GpuContext) {
    for (width, height, show_help) in [
        (1280, 720, false),
        (1280, 720, true),
        (640, 360, false),
        (640, 360, true),
        (320, 240, false),
        (320, 240, true),
    ] {
        let (_, target) = draw_at(&gpu, width, height, &window_hud(show_help));
        let help = if show_help { "-help" } else { "" };
        let path = std::env::temp_dir().join(format!("timestep-lab-overlay-{width}x{height}{help}.png"));
        target.save_png(&gpu.device, &gpu.queue, &path).expect("PNG written");
        eprintln!("overlay picture: {}", path.display());
    }
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let mut trials = gpu_tests![
        the_overlay_draws_a_panel_over_the_scene_and_can_draw_again,
        an_srgb_target_shows_the_same_panel_colours,
        f1_opens_the_help_table_in_the_top_right_corner,
        a_hidden_overlay_draws_nothing_and_costs_nothing,
        an_empty_hud_and_a_zero_size_target_do_not_panic,
        every_panel_fits_the_window_from_320x240_up_and_small_windows_get_the_compact_line,
        the_full_panel_fits_at_the_smallest_size_that_gets_it,
        the_compact_line_keeps_fps_strategy_pattern_and_the_f1_hint_at_320x240,
        the_runner_lane_is_labelled_beside_the_lane_and_clear_of_the_panel,
        overlay_png_is_written_for_review,
        a_sessions_hud_draws_with_its_histogram,
    ];
    // The overlay path's figures need no GPU: a Session's HudData against the simulator's report.
    trials.extend(tests![
        the_overlay_of_fuzzy_on_59_94_hz_shows_the_simulators_smooth_run_and_its_bounded_latency,
        the_overlay_of_catch_up_on_59_94_hz_shows_the_simulators_one_frame_hitches,
        the_overlay_of_a_100_ms_freeze_shows_the_simulators_freeze_and_jump,
    ]);
    trials
}

/// The figures do not depend on what the world does: a world that only counts.
#[derive(Default)]
struct Counter(u64);

impl Simulation for Counter {
    fn step(&mut self, _dt: Nanos) {
        self.0 += 1;
    }
}

fn ntsc() -> Rate {
    Rate::new(60000, 1001).expect("59.94 Hz")
}

/// The overlay's path: a [`Session`] that measures its display as the window's
/// does, run through the simulator's own frame loop ([`run_frames`]) on
/// `spec`'s virtual display, then its [`HudData`]; beside it the simulator's
/// report of the same run (`simulate` builds a session of its own, told the
/// display rather than measuring it, and returns no `HudData`).
fn hud_and_simulated_report(spec: &RunSpec) -> (HudData, RunReport) {
    let display_info = DisplayInfo::default()
        .with_monitor("virtual")
        .with_reported(Some(spec.refresh.rate()))
        .with_present_mode(PresentModeInfo::new("virtual vsync", spec.vsync))
        .with_vsync(Some(spec.vsync));
    let mut session = Session::new(spec.strategy, spec.config, Counter::default(), display_info, spec.start);
    let mut display = spec.display();
    let end = run_frames(spec, &mut session, &mut display, &mut |_| {}).end;
    let mut hud = HudData::default();
    session.fill_hud(&mut hud.figures, end);
    (hud, simulate(spec, &mut Counter::default()).report())
}

fn glaiel(strategy: StrategyId, refresh: Rate, updates: u64) -> RunSpec {
    RunSpec::new(strategy, Preset::Glaiel).with_refresh(refresh).with_stop(Stop::Updates(updates))
}

/// Asserts that the overlay shows what the report says, row for row.
fn assert_overlay_shows_the_report(hud: &HudData, report: &RunReport, what: &str) {
    assert_eq!(hud.figures.stats, report.stats, "{what}: the overlay's figures are the simulator's");
    assert_eq!(metric_rows(&hud.figures.stats), metric_rows(&report.stats), "{what}");
    assert_eq!(present_interval_line(&hud.figures.stats), present_interval_line(&report.stats), "{what}");
    let histogram = report.present_interval_histogram.as_ref().expect("the report has the histogram");
    let bins = hud.figures.present_histogram.bins();
    assert_eq!(&bins[..histogram.counts.len()], histogram.counts.as_slice(), "{what}: the same histogram");
    for row in metric_rows(&hud.figures.stats) {
        assert_eq!(
            Some(row.legend),
            timestep_lab::report::definition(row.name),
            "{what}: the legend is the definition"
        );
        let field = serde_json::to_value(report).expect("JSON")[row.name].as_f64().expect("a number");
        let shown: f64 = row.value.trim().parse().expect("a number is shown");
        let decimals = row.value.trim().split('.').nth(1).map_or(0, str::len) as i32;
        assert!(
            (shown - field).abs() <= 0.5 * 10f64.powi(-decimals) + 1e-9,
            "{what}: {} shows {shown}, report {field}",
            row.name
        );
    }
}

fn the_overlay_of_fuzzy_on_59_94_hz_shows_the_simulators_smooth_run_and_its_bounded_latency() {
    // One 60 Hz tick per 59.94 Hz refresh: judder 0, no hitch, latency about
    // one refresh (16–20 ms) whether the run is 500 or 100 000 updates long.
    let mut latencies = Vec::new();
    for updates in [500, 100_000] {
        let (hud, report) = hud_and_simulated_report(&glaiel(StrategyId::Fuzzy, ntsc(), updates));
        assert_overlay_shows_the_report(&hud, &report, &format!("fuzzy, {updates} updates"));
        let s = hud.figures.stats;
        assert!(s.judder_ms < 0.01 && s.hitches == 0, "{updates} updates: {s:?}");
        assert!((16.0..=20.0).contains(&s.latency_ms), "{updates} updates: {s:?}");
        latencies.push(s.latency_ms);
    }
    assert!((latencies[1] / latencies[0] - 1.0).abs() < 0.02, "latency within 2 %: {latencies:?}");
}

fn the_overlay_of_catch_up_on_59_94_hz_shows_the_simulators_one_frame_hitches() {
    let (hud, report) = hud_and_simulated_report(&glaiel(StrategyId::CatchUp, ntsc(), 10_000));
    assert_overlay_shows_the_report(&hud, &report, "catch-up @ 59.94");
    let s = hud.figures.stats;
    assert_eq!(s.hitches, report.double_updates + report.repeated_frames, "every double and repeat: {s:?}");
    assert!((20..=40).contains(&s.hitches), "{s:?}");
    assert!((s.max_hitch_ms - 16.683).abs() < 0.01, "one 59.94 Hz frame: {s:?}");
}

fn the_overlay_of_a_100_ms_freeze_shows_the_simulators_freeze_and_jump() {
    // 600 replayed 60 Hz frames, frame 300 shown 100 ms after frame 299: the
    // picture froze (100 − 16.7 = 83.3 ms over the median interval), then
    // catch-up's next frame jumped by six ticks (j = 83.3 ms).
    let mut times = vec![16_666_667; 600];
    times[300] = 100_000_000;
    let spec = RunSpec::new(StrategyId::CatchUp, Preset::Glaiel)
        .with_trace(Some(std::sync::Arc::new(Trace::from_frame_times(&times))))
        .with_stop(Stop::TraceEnd);
    let (hud, report) = hud_and_simulated_report(&spec);
    assert_overlay_shows_the_report(&hud, &report, "a 100 ms freeze");
    let s = hud.figures.stats;
    assert_eq!(s.hitches, 2, "{s:?}");
    assert!((s.max_hitch_ms - (100.0 - 50.0 / 3.0)).abs() < 0.01, "{s:?}");
    assert_eq!(hud.figures.present_histogram.overflow(), 1, "the 100 ms interval is in the overflow bin");
}

fn a_sessions_hud_draws_with_its_histogram(gpu: GpuContext) {
    let (mut hud, _) = hud_and_simulated_report(&glaiel(StrategyId::CatchUp, ntsc(), 2_000));
    let empty = HudData {
        figures: LoopFigures { frame_times_ms: hud.figures.frame_times_ms.clone(), ..LoopFigures::default() },
        ..HudData::default()
    };
    let mut bench = Bench::new(gpu);
    let scene = bench.scene_only();
    bench.with_overlay(&hud);
    let (with_histogram, _) = bench.with_overlay(&hud);
    hud.figures.present_histogram = empty.figures.present_histogram.clone();
    let (without, _) = bench.with_overlay(&hud);
    assert!(changed_in(&scene, &with_histogram, TOP_LEFT) > 0, "the panel is drawn");
    assert!(changed_in(&without, &with_histogram, TOP_LEFT) > 0, "the histogram's bars show");
}
