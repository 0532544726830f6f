//! Offscreen rendering on the real (usually software) adapter: hand-made
//! instances are drawn into an [`Offscreen`] target and read back.
//!
//! Without an adapter the runner reports the tests as ignored, or as failed
//! with `TIMESTEP_LAB_REQUIRE_GPU` set (CI); see `tests/support/harness.rs`.

use crate::harness::gpu_tests;

use timestep_lab::render::{GpuContext, Letterbox, Offscreen, SpriteRenderer};
use timestep_lab::sim::{Instance, SpriteCell};

/// A target plus a renderer for it.
struct Scene {
    gpu: GpuContext,
    target: Offscreen,
    renderer: SpriteRenderer,
}

impl Scene {
    fn new(gpu: GpuContext, width: u32, height: u32) -> Scene {
        let target = Offscreen::new(&gpu.device, width, height);
        let renderer = SpriteRenderer::new(&gpu.device, &gpu.queue, target.format());
        Scene { gpu, target, renderer }
    }

    /// The same GPU and renderer drawing into a new `width × height` target.
    fn with_target(self, width: u32, height: u32) -> Scene {
        let target = Offscreen::new(&self.gpu.device, width, height);
        Scene { target, ..self }
    }

    fn render(&mut self, instances: &[Instance], playfield: [f32; 2]) -> Image {
        self.target.render(&self.gpu.device, &self.gpu.queue, &mut self.renderer, instances, playfield);
        let rgba = self.target.read_rgba(&self.gpu.device, &self.gpu.queue).expect("readback");
        let [width, height] = self.target.size();
        assert_eq!(rgba.len(), (width * height * 4) as usize, "readback is tightly packed");
        Image { rgba, width, height }
    }
}

/// Read-back RGBA8 pixels.
struct Image {
    rgba: Vec<u8>,
    width: u32,
    height: u32,
}

impl Image {
    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2], self.rgba[i + 3]]
    }

    /// Weighted centroid of pixel centres, `weight(pixel)` ≥ 0; `None` if nothing weighs.
    fn centroid(&self, weight: impl Fn([u8; 4]) -> f64) -> Option<[f64; 2]> {
        let (mut sum, mut sx, mut sy) = (0.0, 0.0, 0.0);
        for y in 0..self.height {
            for x in 0..self.width {
                let w = weight(self.pixel(x, y));
                sum += w;
                sx += w * (f64::from(x) + 0.5);
                sy += w * (f64::from(y) + 0.5);
            }
        }
        (sum > 0.0).then(|| [sx / sum, sy / sum])
    }
}

/// How red a pixel is beyond green and blue: picks the ball out of the grey-blue grid.
fn redness(p: [u8; 4]) -> f64 {
    (f64::from(p[0]) - f64::from(p[1].max(p[2]))).max(0.0)
}

/// How white a pixel is: only near-white pixels count (the grid is darker).
fn whiteness(p: [u8; 4]) -> f64 {
    let min = p[0].min(p[1]).min(p[2]);
    if min > 160 { f64::from(min) } else { 0.0 }
}

fn ball_at(position: [f32; 2]) -> Instance {
    Instance {
        position,
        size: [24.0, 24.0],
        rotation: 0.0,
        flags: Instance::FLAG_SDF_CIRCLE,
        color: [1.0, 0.15, 0.1, 1.0],
        atlas: SpriteCell::Ball.atlas_rect(),
    }
}

fn sprite(cell: SpriteCell, position: [f32; 2], size: f32, rotation: f32, color: [f32; 4]) -> Instance {
    Instance { position, size: [size, size], rotation, flags: 0, color, atlas: cell.atlas_rect() }
}

fn lerp(a: [f32; 2], b: [f32; 2], t: f32) -> [f32; 2] {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

fn the_ball_centroid_sits_at_the_lerp_point_for_alpha_0_half_and_1(gpu: GpuContext) {
    let playfield = [320.0, 240.0];
    let mut scene = Scene::new(gpu, 320, 240);
    // Sub-pixel positions on purpose, crossing grid lines at x = 128 and y = 64.
    let previous = [100.3, 90.6];
    let current = [141.8, 57.25];
    let mut centroids = Vec::new();
    for alpha in [0.0, 0.5, 1.0] {
        let expected = lerp(previous, current, alpha);
        let image = scene.render(&[ball_at(expected)], playfield);
        let [cx, cy] = image.centroid(redness).expect("the ball is visible");
        let error = ((cx - f64::from(expected[0])).powi(2) + (cy - f64::from(expected[1])).powi(2)).sqrt();
        eprintln!("alpha {alpha}: expected {expected:?}, centroid [{cx:.3}, {cy:.3}], error {error:.3} px");
        // One pixel is the requirement; a quarter pixel also catches half-pixel offset bugs.
        assert!(error < 0.25, "alpha {alpha}: ball centroid [{cx}, {cy}] is {error} px from {expected:?}");
        centroids.push([cx, cy]);
    }
    assert!(
        (centroids[1][0] - centroids[0][0]).abs() > 10.0 && (centroids[2][0] - centroids[1][0]).abs() > 10.0,
        "the ball moved between alphas: {centroids:?}"
    );
}

fn the_ball_centroid_follows_the_letterbox_mapping_when_the_target_is_larger(gpu: GpuContext) {
    let playfield = [320.0, 240.0];
    let mut scene = Scene::new(gpu, 800, 500);
    let position = [200.4, 70.7];
    let image = scene.render(&[ball_at(position)], playfield);
    let expected = Letterbox::fit(playfield, [800, 500]).to_target(position);
    let [cx, cy] = image.centroid(redness).expect("the ball is visible");
    let error = ((cx - f64::from(expected[0])).powi(2) + (cy - f64::from(expected[1])).powi(2)).sqrt();
    assert!(error < 0.5, "centroid [{cx}, {cy}] is {error} px from the mapped point {expected:?}");
}

/// Which way the arrow's wide head points, from white pixels around the centre.
#[derive(Debug, PartialEq)]
enum Pointing {
    Right,
    Left,
    Up,
    Down,
}

/// The arrow's head is much wider than its shaft: in the half-plane holding the
/// head, white pixels spread far across the arrow's axis; on the shaft side they
/// stay within the shaft's width.
fn pointing(image: &Image, centre: [f64; 2]) -> Pointing {
    // Widest perpendicular spread of white pixels in each half-plane beyond a margin.
    let mut spread = [0.0_f64; 4]; // +x, -x, +y, -y
    for y in 0..image.height {
        for x in 0..image.width {
            if whiteness(image.pixel(x, y)) == 0.0 {
                continue;
            }
            let dx = f64::from(x) + 0.5 - centre[0];
            let dy = f64::from(y) + 0.5 - centre[1];
            let halves = [(dx > 8.0, dy.abs()), (dx < -8.0, dy.abs()), (dy > 8.0, dx.abs()), (dy < -8.0, dx.abs())];
            for (s, (inside, across)) in spread.iter_mut().zip(halves) {
                if inside {
                    *s = s.max(across);
                }
            }
        }
    }
    let horizontal = if spread[0] > spread[1] { Pointing::Right } else { Pointing::Left };
    let vertical = if spread[2] > spread[3] { Pointing::Down } else { Pointing::Up };
    let x_contrast = spread[0].max(spread[1]) / spread[0].min(spread[1]).max(1.0);
    let y_contrast = spread[2].max(spread[3]) / spread[2].min(spread[3]).max(1.0);
    assert!(x_contrast.max(y_contrast) > 2.0, "no clear head side: spreads {spread:?}");
    if x_contrast > y_contrast { horizontal } else { vertical }
}

fn the_spinner_arrow_points_where_its_rotation_says_counter_clockwise_on_screen(gpu: GpuContext) {
    let mut scene = Scene::new(gpu, 128, 128);
    let centre = [64.0, 64.0];
    let cases = [
        (0.0, Pointing::Right),
        (std::f32::consts::FRAC_PI_2, Pointing::Up),
        (std::f32::consts::PI, Pointing::Left),
        (-std::f32::consts::FRAC_PI_2, Pointing::Down),
    ];
    for (rotation, expected) in cases {
        let arrow = sprite(SpriteCell::Spinner, centre, 96.0, rotation, [1.0; 4]);
        let image = scene.render(&[arrow], [128.0, 128.0]);
        assert_eq!(pointing(&image, [64.0, 64.0]), expected, "rotation {rotation} (counter-clockwise, y down)");
        // The heavier head also pulls the mass centre to the tip side.
        let [cx, cy] = image.centroid(whiteness).expect("arrow is visible");
        let (dx, dy) = (cx - 64.0, cy - 64.0);
        let toward_tip = match expected {
            Pointing::Right => dx,
            Pointing::Left => -dx,
            Pointing::Up => -dy,
            Pointing::Down => dy,
        };
        assert!(toward_tip > 1.0, "rotation {rotation}: mass centre offset [{dx}, {dy}] leans to the tip");
    }
}

fn ten_thousand_sprites_take_one_draw_call(gpu: GpuContext) {
    let mut scene = Scene::new(gpu, 1280, 720);
    let playfield = [1280.0, 720.0];
    let cells =
        [SpriteCell::Runner, SpriteCell::Orbiter, SpriteCell::Spinner, SpriteCell::Particle, SpriteCell::Square];
    let sprites: Vec<Instance> = (0..10_000)
        .map(|i| {
            let (col, row) = (i % 125, i / 125);
            let position = [5.0 + col as f32 * 10.24, 5.0 + row as f32 * 9.0];
            sprite(cells[i % cells.len()], position, 8.0, i as f32 * 0.1, [0.2, 0.9, 0.4, 1.0])
        })
        .collect();
    let image = scene.render(&sprites, playfield);
    // No letterbox bars: the clear paints the background, so grid lines + one draw for all sprites.
    assert_eq!(scene.renderer.draw_calls_last_frame(), 2, "grid lines, then one draw call for all sprites");
    assert_eq!(scene.renderer.sprite_count(), 10_000);
    let capacity = scene.renderer.instance_capacity();
    assert!(capacity > 10_000 && capacity.is_power_of_two(), "buffer grew geometrically to {capacity}");

    let green = image.centroid(|p| if p[1] > 150 && p[0] < 120 { 1.0 } else { 0.0 }).expect("sprites are visible");
    assert!((green[0] - 640.0).abs() < 20.0, "sprites cover the whole width: centroid {green:?}");

    scene.render(&sprites[..5_000], playfield);
    assert_eq!(scene.renderer.instance_capacity(), capacity, "a smaller frame reuses the buffer");
    assert_eq!(scene.renderer.draw_calls_last_frame(), 2);
    scene.render(&[], playfield);
    assert_eq!(scene.renderer.draw_calls_last_frame(), 1, "no sprites: only the grid lines");
    // With bars the playfield needs its own fill: one more draw, still one for all sprites.
    let mut scene = scene.with_target(1280, 1000);
    scene.render(&sprites, playfield);
    assert_eq!(scene.renderer.draw_calls_last_frame(), 3, "fill, grid lines, one draw call for all sprites");
}

fn nothing_is_drawn_outside_the_letterboxed_playfield(gpu: GpuContext) {
    let playfield = [400.0, 300.0];
    // A sprite hanging over every edge, one far outside, and one inside.
    let magenta = [1.0, 0.0, 1.0, 1.0];
    let sprites = [
        sprite(SpriteCell::Square, [0.0, 150.0], 120.0, 0.3, magenta),
        sprite(SpriteCell::Square, [400.0, 150.0], 120.0, 0.0, magenta),
        sprite(SpriteCell::Square, [200.0, 0.0], 120.0, 0.0, magenta),
        sprite(SpriteCell::Square, [200.0, 300.0], 120.0, 0.0, magenta),
        sprite(SpriteCell::Square, [-300.0, -200.0], 150.0, 0.0, magenta),
        ball_at([200.0, 150.0]),
    ];
    let mut scene = Scene::new(gpu, 1, 1);
    // Pillarbox (wide target) and letterbox (tall target).
    for (width, height) in [(800, 400), (300, 600)] {
        scene = scene.with_target(width, height);
        let image = scene.render(&sprites, playfield);
        let letterbox = scene.renderer.letterbox();
        assert!(
            letterbox.width < width || letterbox.height < height,
            "{width}×{height}: aspect differs, so there are bars: {letterbox:?}"
        );
        let (mut outside, mut inside_magenta) = (0, 0);
        for y in 0..height {
            for x in 0..width {
                let p = image.pixel(x, y);
                if letterbox.contains(x, y) {
                    inside_magenta += usize::from(p[0] > 200 && p[2] > 200 && p[1] < 60);
                } else {
                    assert_eq!(p, [0, 0, 0, 255], "{width}×{height}: pixel ({x}, {y}) outside {letterbox:?} was drawn");
                    outside += 1;
                }
            }
        }
        assert!(outside > 0, "{width}×{height}: the bars were checked");
        assert!(inside_magenta > 1000, "{width}×{height}: the edge sprites are visible inside ({inside_magenta} px)");
        let corner = image.pixel(letterbox.x + 2, letterbox.y + letterbox.height / 2 - 70);
        assert_ne!(corner, [0, 0, 0, 255], "{width}×{height}: the playfield background is painted");
    }
}

fn a_saved_png_matches_the_readback_and_is_not_blank(gpu: GpuContext) {
    let mut scene = Scene::new(gpu, 256, 192);
    let sprites = [
        ball_at([60.0, 60.0]),
        sprite(SpriteCell::Runner, [150.0, 40.0], 48.0, 0.0, [0.3, 0.8, 1.0, 1.0]),
        sprite(SpriteCell::Orbiter, [200.0, 120.0], 40.0, 0.0, [1.0, 0.8, 0.2, 1.0]),
        sprite(SpriteCell::Player, [100.0, 150.0], 40.0, 0.0, [0.6, 1.0, 0.6, 1.0]),
        Instance { flags: Instance::FLAG_OUTLINE, ..sprite(SpriteCell::Ghost, [150.0, 120.0], 40.0, 0.0, [1.0; 4]) },
        Instance { flags: Instance::FLAG_SDF_CIRCLE | Instance::FLAG_OUTLINE, ..ball_at([60.0, 140.0]) },
    ];
    let image = scene.render(&sprites, [256.0, 192.0]);
    let path = std::env::temp_dir().join(format!("timestep-lab-render-test-{}.png", std::process::id()));
    scene.target.save_png(&scene.gpu.device, &scene.gpu.queue, &path).expect("PNG written");
    let decoded = image::open(&path).expect("PNG decodes").to_rgba8();
    if std::env::var_os("TIMESTEP_LAB_KEEP_PNG").is_none() {
        let _ = std::fs::remove_file(&path);
    }
    assert_eq!(decoded.dimensions(), (256, 192));
    assert_eq!(decoded.as_raw(), &image.rgba, "the PNG holds exactly the rendered pixels");

    let mut colours: Vec<[u8; 4]> = image.rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 50, "the image is not blank: {} distinct colours", colours.len());
}

fn srgb_and_plain_targets_read_back_the_same_colours(gpu: GpuContext) {
    let sprites = [ball_at([40.0, 48.0]), sprite(SpriteCell::Square, [120.0, 48.0], 48.0, 0.0, [0.25, 0.5, 0.75, 1.0])];
    let mut images = Vec::new();
    for format in [wgpu::TextureFormat::Rgba8Unorm, wgpu::TextureFormat::Rgba8UnormSrgb] {
        let target = Offscreen::with_format(&gpu.device, 160, 96, format);
        assert_eq!(target.format(), format);
        let mut renderer = SpriteRenderer::new(&gpu.device, &gpu.queue, format);
        target.render(&gpu.device, &gpu.queue, &mut renderer, &sprites, [160.0, 96.0]);
        images.push(target.read_rgba(&gpu.device, &gpu.queue).expect("readback"));
    }
    let pixel = |image: &[u8], x: usize, y: usize| -> [u8; 4] {
        let i = (y * 160 + x) * 4;
        [image[i], image[i + 1], image[i + 2], image[i + 3]]
    };
    // Inside the ball, inside the square, and on the background between them.
    for (x, y) in [(40, 48), (120, 48), (80, 10)] {
        let (plain, srgb) = (pixel(&images[0], x, y), pixel(&images[1], x, y));
        let close = plain.iter().zip(&srgb).all(|(a, b)| a.abs_diff(*b) <= 1);
        assert!(close, "pixel ({x}, {y}): Rgba8Unorm {plain:?} vs Rgba8UnormSrgb {srgb:?}");
    }
    let square = pixel(&images[0], 120, 48);
    assert!(square[0].abs_diff(64) <= 1 && square[1].abs_diff(128) <= 1 && square[2].abs_diff(191) <= 1, "{square:?}");
}

fn grid_lines_sit_on_multiples_of_the_spacing_two_target_pixels_wide_at_any_scale(gpu: GpuContext) {
    let spacing = timestep_lab::render::sprites::GRID_SPACING as u32;
    let mut scene = Scene::new(gpu, 320, 192);
    for scale in [1, 2] {
        scene = scene.with_target(320 * scale, 192 * scale);
        let image = scene.render(&[], [320.0, 192.0]);
        let line = spacing * scale;
        let background = image.pixel(line / 2, line / 2);
        // A line on the boundary between two pixels covers each half.
        for (a, b) in [((line - 1, line / 2), (line, line / 2)), ((line / 2, line - 1), (line / 2, line))] {
            let (pa, pb) = (image.pixel(a.0, a.1), image.pixel(b.0, b.1));
            assert!(within_one(pa, pb), "scale {scale}: symmetric about the line: {pa:?} vs {pb:?}");
            assert!(image.pixel(a.0, a.1)[1] > background[1] + 5, "scale {scale}: line at {a:?} is visible");
        }
        // Two pixels away there is no line.
        for x in [line - 3, line + 2, 2, 320 * scale - 3] {
            assert!(within_one(image.pixel(x, line / 2), background), "scale {scale}: no line at x = {x}");
        }
        // The border is brighter than a grid line and fades within two target pixels.
        let border = image.pixel(0, line / 2);
        assert!(border[1] > image.pixel(line, line / 2)[1], "scale {scale}: border {border:?}");
        assert!(image.pixel(320 * scale - 1, line / 2)[1] > background[1] + 5, "scale {scale}: right border");
    }
}

/// Equal up to one step per channel (rounding in interpolation and blending).
fn within_one(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= 1)
}

fn the_background_is_the_same_colour_whether_the_clear_or_the_fill_paints_it(gpu: GpuContext) {
    for format in [wgpu::TextureFormat::Rgba8Unorm, wgpu::TextureFormat::Rgba8UnormSrgb] {
        let mut renderer = SpriteRenderer::new(&gpu.device, &gpu.queue, format);
        let mut background = Vec::new();
        // 320×192 fills its target (the clear paints it); 320×240 has bars above and below (the fill does).
        for (height, y) in [(192, 32), (240, 56)] {
            let target = Offscreen::with_format(&gpu.device, 320, height, format);
            target.render(&gpu.device, &gpu.queue, &mut renderer, &[], [320.0, 192.0]);
            let draws = renderer.draw_calls_last_frame();
            let rgba = target.read_rgba(&gpu.device, &gpu.queue).expect("readback");
            let i = ((y * 320 + 32) * 4) as usize;
            background.push((draws, [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]));
        }
        assert_eq!(background[0].0, 1, "{format:?}: no bars, no fill draw");
        assert_eq!(background[1].0, 2, "{format:?}: bars, so a fill draw");
        assert!(within_one(background[0].1, background[1].1), "{format:?}: {background:?}");
    }
}

/// This module's trials, for the binary's `main`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    gpu_tests![
        the_ball_centroid_sits_at_the_lerp_point_for_alpha_0_half_and_1,
        the_ball_centroid_follows_the_letterbox_mapping_when_the_target_is_larger,
        the_spinner_arrow_points_where_its_rotation_says_counter_clockwise_on_screen,
        ten_thousand_sprites_take_one_draw_call,
        nothing_is_drawn_outside_the_letterboxed_playfield,
        a_saved_png_matches_the_readback_and_is_not_blank,
        srgb_and_plain_targets_read_back_the_same_colours,
        grid_lines_sit_on_multiples_of_the_spacing_two_target_pixels_wide_at_any_scale,
        the_background_is_the_same_colour_whether_the_clear_or_the_fill_paints_it,
    ]
}
