//! GPU pass timing with timestamp queries, on the real (usually software) adapter.
//!
//! Without an adapter the runner reports the tests as ignored (failed with
//! `TIMESTEP_LAB_REQUIRE_GPU`); an adapter without timestamp queries is
//! reported as ignored either way: not every GPU has them (lavapipe does).

use crate::harness;
use libtest_mimic::{Completion, Failed, Trial};

use std::time::{Duration, Instant};
use timestep_lab::hud_data::HudData;
use timestep_lab::render::gpu_timer::{GpuTimer, GpuTimes};
use timestep_lab::render::overlay::{Input, Overlay, Target};
use timestep_lab::render::{GpuContext, Offscreen, SpriteRenderer};
use timestep_lab::sim::{World, WorldConfig};
use timestep_lab::strategy::View;

struct Frame {
    gpu: GpuContext,
    target: Offscreen,
    sprites: SpriteRenderer,
    overlay: Overlay,
    timer: GpuTimer,
    world: World,
    instances: Vec<timestep_lab::sim::Instance>,
}

impl Frame {
    /// `None` when the adapter has no timestamp queries.
    fn new(gpu: GpuContext) -> Option<Frame> {
        let timer = GpuTimer::new(&gpu.device, &gpu.queue)?;
        let target = Offscreen::new(&gpu.device, 640, 360);
        let mut sprites = SpriteRenderer::new(&gpu.device, &gpu.queue, target.format());
        let mut overlay = Overlay::new_headless(&gpu.device, target.format(), 1.0);
        sprites.set_timestamps(Some(timer.scene()));
        overlay.set_timestamps(Some(timer.overlay()));
        let world = World::new(&WorldConfig { extra_sprites: 2_000, ..WorldConfig::default() });
        let instances = Vec::with_capacity(world.max_instances());
        Some(Frame { gpu, target, sprites, overlay, timer, world, instances })
    }

    /// Records, resolves and submits one frame; returns whether it was timed
    /// and the wall time from recording to the GPU being done.
    fn render(&mut self) -> (bool, Duration) {
        let started = Instant::now();
        let (device, queue) = (&self.gpu.device, &self.gpu.queue);
        self.world.write_instances(View::Interpolate { alpha: 0.5 }, &mut self.instances);
        self.sprites.prepare(device, queue, &self.instances, [1280.0, 720.0], self.target.size());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("timed") });
        self.sprites.draw(&mut encoder, self.target.view());
        let target = Target::new(&mut encoder, self.target.view(), self.target.size());
        self.overlay.draw(device, queue, target, Input::Headless, &HudData::default());
        let timed = self.timer.resolve(&mut encoder, self.overlay.drew_pass());
        let submission = queue.submit([encoder.finish()]);
        if timed {
            self.timer.submitted();
        }
        device.poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: None }).expect("GPU done");
        (timed, started.elapsed())
    }

    /// Lets pending readbacks finish, then collects.
    fn collect(&mut self) -> Option<GpuTimes> {
        self.gpu.device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        self.timer.collect()
    }
}

fn both_passes_are_timed_and_fit_inside_the_wall_time(mut frame: Frame) {
    let (timed, wall) = frame.render();
    assert!(timed, "a fresh timer has free slots");
    let times = frame.collect().expect("the frame's times are read back");
    let overlay = times.overlay_ms.expect("the overlay drew, so it was timed");
    let wall_ms = wall.as_secs_f64() * 1e3;
    eprintln!("scene {:.2} ms, overlay {overlay:.2} ms, wall {wall_ms:.2} ms", times.scene_ms);
    assert!(times.scene_ms > 0.0 && overlay > 0.0, "{times:?}");
    assert!(
        times.scene_ms + overlay <= wall_ms + 0.5,
        "GPU time {times:?} cannot exceed the wall time {wall_ms:.2} ms"
    );
    assert_eq!(frame.timer.collect(), None, "each reading is delivered once");
}

fn a_hidden_overlay_has_no_time_and_a_full_ring_skips_frames(mut frame: Frame) {
    frame.overlay.set_visible(false);
    frame.render();
    let times = frame.collect().expect("read back");
    assert_eq!(times.overlay_ms, None, "no overlay pass, no overlay time: {times:?}");
    assert!(times.scene_ms > 0.0);

    // Nobody collects: after four frames in flight the fifth is not timed.
    let timed: Vec<bool> = (0..5).map(|_| frame.render().0).collect();
    assert_eq!(timed, [true, true, true, true, false]);
    assert!(frame.collect().is_some(), "collecting frees the ring");
    assert!(frame.render().0, "and timing resumes");
}

/// A test that needs timestamp queries: ignored on an adapter without them.
fn timed_test(name: &'static str, test: fn(Frame)) -> Trial {
    harness::gpu_trial(harness::name(module_path!(), name), move |gpu| {
        let adapter = gpu.adapter_summary();
        let Some(frame) = Frame::new(gpu) else {
            return Ok(Completion::ignored_with(format!("{adapter} has no timestamp queries")));
        };
        test(frame);
        Ok::<_, Failed>(Completion::Completed)
    })
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    vec![
        timed_test(
            "both_passes_are_timed_and_fit_inside_the_wall_time",
            both_passes_are_timed_and_fit_inside_the_wall_time,
        ),
        timed_test(
            "a_hidden_overlay_has_no_time_and_a_full_ring_skips_frames",
            a_hidden_overlay_has_no_time_and_a_full_ring_skips_frames,
        ),
    ]
}
