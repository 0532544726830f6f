//! The demo world drawn by the real renderer (offscreen, software adapter):
//! the interpolation hazards are handled in pixels, not only in numbers.
//!
//! Without an adapter the runner reports the tests as ignored, or as failed
//! with `TIMESTEP_LAB_REQUIRE_GPU` set (CI); see `tests/support/harness.rs`.

use crate::harness::gpu_tests;

use timestep_lab::host::Simulation;
use timestep_lab::render::{GpuContext, Letterbox, Offscreen, SpriteRenderer};
use timestep_lab::sim::{Instance, MoverKind, SpriteCell, World, WorldConfig, lerp_angle};
use timestep_lab::strategy::View;
use timestep_lab::time::{Nanos, Rate};

const W: u32 = 640;
const H: u32 = 360;

struct Scene {
    gpu: GpuContext,
    target: Offscreen,
    renderer: SpriteRenderer,
    background: Vec<u8>,
    playfield: [f32; 2],
}

impl Scene {
    fn new(gpu: GpuContext, playfield: [f32; 2]) -> Scene {
        let target = Offscreen::new(&gpu.device, W, H);
        let renderer = SpriteRenderer::new(&gpu.device, &gpu.queue, target.format());
        let mut scene = Scene { gpu, target, renderer, background: Vec::new(), playfield };
        scene.background = scene.render(&[]);
        scene
    }

    fn render(&mut self, instances: &[Instance]) -> Vec<u8> {
        self.target.render(&self.gpu.device, &self.gpu.queue, &mut self.renderer, instances, self.playfield);
        self.target.read_rgba(&self.gpu.device, &self.gpu.queue).expect("readback")
    }

    /// Centroid (target pixels) of everything that differs from the empty background.
    fn drawn_centroid(&mut self, instances: &[Instance]) -> Option<[f64; 2]> {
        let rgba = self.render(instances);
        let (mut n, mut sx, mut sy) = (0.0, 0.0, 0.0);
        for (i, (a, b)) in rgba.chunks_exact(4).zip(self.background.chunks_exact(4)).enumerate() {
            let diff: u32 = a.iter().zip(b).map(|(x, y)| u32::from(x.abs_diff(*y))).sum();
            if diff > 60 {
                let (x, y) = ((i as u32 % W) as f64 + 0.5, (i as u32 / W) as f64 + 0.5);
                n += 1.0;
                sx += x;
                sy += y;
            }
        }
        (n > 0.0).then(|| [sx / n, sy / n])
    }

    /// The farthest drawn pixel from `centre` (target pixels), `None` if nothing is drawn.
    fn farthest_drawn_from(&mut self, instances: &[Instance], centre: [f64; 2]) -> Option<f64> {
        let rgba = self.render(instances);
        let mut farthest: Option<f64> = None;
        for (i, (a, b)) in rgba.chunks_exact(4).zip(self.background.chunks_exact(4)).enumerate() {
            let diff: u32 = a.iter().zip(b).map(|(x, y)| u32::from(x.abs_diff(*y))).sum();
            if diff > 60 {
                let (x, y) = ((i as u32 % W) as f64 + 0.5, (i as u32 / W) as f64 + 0.5);
                let d = (x - centre[0]).hypot(y - centre[1]);
                farthest = Some(farthest.map_or(d, |f: f64| f.max(d)));
            }
        }
        farthest
    }

    fn to_target(&self, p: [f64; 2]) -> [f64; 2] {
        let t = Letterbox::fit(self.playfield, [W, H]).to_target([p[0] as f32, p[1] as f32]);
        [f64::from(t[0]), f64::from(t[1])]
    }

    /// How many pixels differ between two renders.
    fn differing_pixels(a: &[u8], b: &[u8]) -> usize {
        a.chunks_exact(4)
            .zip(b.chunks_exact(4))
            .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 40))
            .count()
    }
}

fn only(world: &World, view: View, pick: impl Fn(&Instance) -> bool) -> Vec<Instance> {
    let mut all = Vec::new();
    world.write_instances(view, &mut all);
    all.into_iter().filter(|i| pick(i)).collect()
}

fn cell_is(cell: SpriteCell) -> impl Fn(&Instance) -> bool {
    move |i: &Instance| i.atlas == cell.atlas_rect() && i.flags & Instance::FLAG_OUTLINE == 0
}

fn tick() -> Nanos {
    Rate::from_hz(60).period()
}

fn the_ball_is_drawn_at_the_lerp_point_at_alpha_0_half_and_1(gpu: GpuContext) {
    let config = WorldConfig::default();
    let mut scene = Scene::new(gpu, [config.width, config.height]);
    let mut world = World::new(&config);
    // Find a tick where the ball flies well away from the walls.
    let margin = 60.0;
    for _ in 0..10_000 {
        world.step(tick());
        let (p, c) = (world.previous_ball().pos, world.ball().pos);
        let inside = |q: [f64; 2]| {
            q[0] > margin
                && q[0] < f64::from(config.width) - margin
                && q[1] > margin
                && q[1] < f64::from(config.height) - margin
        };
        if inside(p) && inside(c) && (c[0] - p[0]).hypot(c[1] - p[1]) > 4.0 {
            break;
        }
    }
    let (p, c) = (world.previous_ball().pos, world.ball().pos);
    for alpha in [0.0, 0.5, 1.0] {
        let ball = only(&world, View::Interpolate { alpha }, |i| i.flags & Instance::FLAG_SDF_CIRCLE != 0);
        assert_eq!(ball.len(), 1, "one ball");
        let a = alpha;
        let expected = scene.to_target([p[0] + (c[0] - p[0]) * a, p[1] + (c[1] - p[1]) * a]);
        let got = scene.drawn_centroid(&ball).expect("the ball is drawn");
        let err = (got[0] - expected[0]).hypot(got[1] - expected[1]);
        assert!(err <= 1.0, "alpha {alpha}: ball drawn at {got:?}, lerp point {expected:?} ({err:.3} px off)");
    }
}

fn the_wrapping_sprite_never_appears_mid_screen_at_any_alpha(gpu: GpuContext) {
    let config = WorldConfig::default();
    let mut scene = Scene::new(gpu, [config.width, config.height]);
    let mut world = World::new(&config);
    let (mut wraps, mut drawn) = (0, 0);
    for _ in 0..2_000 {
        world.step(tick());
        let state = world.mover(MoverKind::Wrapper);
        if !state.teleported {
            continue;
        }
        wraps += 1;
        let current = scene.to_target(state.current.pos);
        for alpha in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let sprite = only(&world, View::Interpolate { alpha }, cell_is(SpriteCell::Wrapper));
            assert_eq!(sprite.len(), 1, "one wrapper");
            // Right after a wrap the sprite sits on an edge, partly (or wholly)
            // clipped. Every pixel it does draw must lie within the sprite's
            // own half-diagonal (40 px at scale 0.5 → 14 px) of where it is.
            if let Some(d) = scene.farthest_drawn_from(&sprite, current) {
                drawn += 1;
                assert!(
                    d < 16.0,
                    "wrap {wraps}, alpha {alpha}: a pixel {d:.1} px from {current:?} — smeared across the screen"
                );
            }
        }
        // Control: the naive lerp across the wrap would be caught by this check.
        let mut smeared = only(&world, View::Latest, cell_is(SpriteCell::Wrapper));
        let (p, c) = (state.previous.pos, state.current.pos);
        smeared[0].position = [((p[0] + c[0]) / 2.0) as f32, ((p[1] + c[1]) / 2.0) as f32];
        let d = scene.farthest_drawn_from(&smeared, current).expect("a mid-screen sprite is drawn");
        assert!(d >= 16.0, "the smear control was not detected ({d:.1} px)");
        if wraps == 3 {
            break;
        }
    }
    assert!(wraps >= 1, "the wrapper never wrapped in 2000 ticks");
    assert!(drawn >= 1, "the wrapper was never visible right after a wrap, so nothing was checked");
}

fn the_spinner_turns_the_short_way_across_180_degrees(gpu: GpuContext) {
    let config = WorldConfig::default();
    let mut scene = Scene::new(gpu, [config.width, config.height]);
    let mut world = World::new(&config);
    for _ in 0..5_000 {
        world.step(tick());
        let s = world.mover(MoverKind::Spinner);
        // The step crossed ±π: previous and current have opposite signs near π.
        if s.previous.rot.abs() > 2.5 && s.current.rot.abs() > 2.5 && s.previous.rot.signum() != s.current.rot.signum()
        {
            break;
        }
    }
    let s = world.mover(MoverKind::Spinner);
    assert!(s.previous.rot.signum() != s.current.rot.signum(), "no ±180° crossing found: {s:?}");
    let drawn = only(&world, View::Interpolate { alpha: 0.5 }, cell_is(SpriteCell::Spinner));
    assert_eq!(drawn.len(), 1, "one spinner");
    let got = scene.render(&drawn);
    let with_rotation = |rot: f64| {
        let mut i = drawn[0];
        i.rotation = rot as f32;
        i
    };
    let short = lerp_angle(s.previous.rot, s.current.rot, 0.5);
    let long = (s.previous.rot + s.current.rot) / 2.0;
    let short_img = scene.render(&[with_rotation(short)]);
    let long_img = scene.render(&[with_rotation(long)]);
    let to_short = Scene::differing_pixels(&got, &short_img);
    let to_long = Scene::differing_pixels(&got, &long_img);
    assert!(to_short <= 5, "drawn spinner differs from the short-way pose in {to_short} pixels");
    assert!(to_long > 100, "the long way round would look different ({to_long} pixels), so the check means something");
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    gpu_tests![
        the_ball_is_drawn_at_the_lerp_point_at_alpha_0_half_and_1,
        the_wrapping_sprite_never_appears_mid_screen_at_any_alpha,
        the_spinner_turns_the_short_way_across_180_degrees,
    ]
}
