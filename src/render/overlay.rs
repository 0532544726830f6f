//! The live overlay: what the current loop strategy does on this monitor, in numbers and a plot.
//!
//! egui builds the panel from a [`HudData`] each frame, our [`EguiPainter`] draws it over the
//! finished scene in its own render pass (`LoadOp::Load`), and egui-winit feeds it window events. The
//! headless constructor skips egui-winit entirely so tests draw the same panel into an
//! offscreen texture.
//!
//! ```text
//!   app: HudData ──► Overlay::draw ──► egui pass ──► tessellate ──► upload ──► render pass
//!                        │                                                   (Load, over scene)
//!                        └── returns its own CPU cost in ms ──► HudData::overlay_cost_ms
//! ```
//!
//! Two layouts, chosen by the window's size in points ([`LayoutMode::for_screen`]):
//!
//! ```text
//!   ≥ 448 × 680 pt: Full                      smaller (down to 320 × 240 px): Compact
//!   ┌───────────────────┐                     ┌──────────────────────────────┐
//!   │ strategy, source  │                     │ catch-up @ 60.00 Hz          │
//!   │ present, monitor… │                     │ FPS 59.9 · UPS 60.0 · judder │
//!   │ frame-time plot   │                     │ 1111111111 1111121111 1111…  │
//!   │ pattern, 120      │                     │ F1 help · H hide             │
//!   │ metrics grid      │                     └──────────────────────────────┘
//!   │ F1 help · H hide  │
//!   └───────────────────┘
//! ```
//!
//! F1 opens the key table in the top-right corner, in as many columns as the window's height
//! needs. A small label names the runner's lane (the smoothness reference the README's tour
//! points at); like everything else here it goes when `H` hides the overlay, so `H` always
//! leaves the bare picture.
//!
//! Keyboard: egui never sees a key unless one of its text fields is being edited (the overlay
//! has none), so every key reaches the game. Forwarded keys would let Tab move egui's focus to a
//! widget, after which egui-winit reports every key (and the first Esc) as consumed.
//!
//! In lane mode ([`HudData::lanes`] not empty) the panel gives way to one label per lane, in the
//! label column at the lane's left, mapped through the same letterbox as the sprites.

use std::time::{Duration, Instant};

use egui::text::LayoutJob;
use egui::{Align2, Color32, FontId, RichText, TextFormat, Ui};
use egui_plot::{GridInput, GridMark, HLine, Line, LineStyle, Plot, PlotPoint, PlotPoints};

use super::egui_painter::EguiPainter;
use super::gpu_timer::PassTimestamps;
use super::sprites::Letterbox;
use crate::hud::{HudData, LaneLabel, RunnerLane};
use crate::metrics::{FrameStats, PRESENT_BIN_NS, PresentHistogram};
use crate::sim::MoverKind;

/// Width of the panel's content column, in points.
const PANEL_WIDTH: f32 = 400.0;
/// Height of the frame-time plot, in points.
const PLOT_HEIGHT: f32 = 110.0;
/// Update-pattern frames per line in the full panel: 120 frames on three lines, in groups of
/// [`PATTERN_GROUP`].
const PATTERN_LINE: usize = 40;
/// Frames per space-separated group, so positions can be counted at a glance.
const PATTERN_GROUP: usize = 10;
/// Frames of update pattern shown.
const PATTERN_FRAMES: usize = 120;
/// Text size of the pattern, in points.
const PATTERN_SIZE: f32 = 12.0;
/// Text size of captions and secondary lines, in points.
const CAPTION_SIZE: f32 = 11.0;
/// Judder below which the number turns green: a quarter of a 120 Hz refresh period. A colour
/// cue for "small", not a perceptual threshold.
const JUDDER_SMOOTH_MS: f64 = 2.0;
/// Drift from which the number turns to a warning: a second an hour.
const DRIFT_VISIBLE_MS_PER_MIN: f64 = 1000.0 / 60.0;
/// Width of the present-interval histogram beside the frame-time plot, in points.
const HISTOGRAM_WIDTH: f32 = 48.0;
/// Distance of the panels from the window's corners, in points.
const MARGIN: f32 = 8.0;
/// Inner margin of the panels, in points.
const PANEL_PADDING: f32 = 10.0;
/// Inner margin of the compact panel, in points: every point counts at 320 × 240.
const COMPACT_PADDING: f32 = 6.0;
/// The smallest window, in points, that gets the full panel. The full panel with the busiest HUD
/// (`tests/overlay_headless.rs`) measures 422 × 663 points (with the present-interval line); with the margins and room for a
/// summary that wraps onto a second line, 448 × 680. A 1280 × 720 window gets it.
pub const FULL_MIN_POINTS: [f32; 2] = [448.0, 680.0];
/// Compact panels at least this tall (points) show three lines of pattern, smaller ones one.
const COMPACT_TALL_POINTS: f32 = 300.0;
/// Text size of the help table in the full layout, in points.
const HELP_SIZE: f32 = 14.0;
/// The narrowest key table worth putting beside the stats panel, in points; in less room it
/// goes over the panel.
const HELP_MIN_WIDTH: f32 = 320.0;
/// The runner's lane label, long and short.
const RUNNER_LABEL: &str = "runner lane · constant speed: a hitch here is the loop's";
const RUNNER_LABEL_SHORT: &str = "runner lane";

/// Panel background: dark, a hint translucent. egui blends in linear light on sRGB targets, where
/// lower alphas let bright sprites shine through the text.
const PANEL_FILL: Color32 = Color32::from_rgba_premultiplied(11, 13, 17, 246);
const LABEL: Color32 = Color32::from_gray(150);
const VALUE: Color32 = Color32::from_gray(235);
const DIM: Color32 = Color32::from_gray(105);
const ACCENT: Color32 = Color32::from_rgb(110, 190, 255);
const WARN: Color32 = Color32::from_rgb(255, 190, 70);
const BAD: Color32 = Color32::from_rgb(255, 95, 95);
const GOOD: Color32 = Color32::from_rgb(120, 215, 130);
const FRAME_LINE: Color32 = Color32::from_rgb(110, 190, 255);
const REFRESH_LINE: Color32 = Color32::from_rgb(120, 215, 130);
const TICK_LINE: Color32 = Color32::from_rgb(255, 190, 70);
/// The runner's own colour, dimmed: the label reads as belonging to the lane.
const LANE_LABEL: Color32 = Color32::from_rgb(120, 190, 205);

/// The egui overlay: context, wgpu renderer and (for a window) the winit input glue.
pub struct Overlay {
    ctx: egui::Context,
    painter: EguiPainter,
    /// `None` on the headless path.
    winit: Option<egui_winit::State>,
    /// Scale used when there is no window to ask.
    headless_pixels_per_point: f32,
    start: Instant,
    visible: bool,
    /// Plot points, reused across frames.
    points: Vec<PlotPoint>,
    /// Where the render pass writes its GPU timestamps, if timed.
    timestamps: Option<PassTimestamps>,
    /// The last `draw` recorded a render pass (false when hidden or zero-size).
    drew_pass: bool,
    /// What the last draw laid out (`None` before the first, and while hidden).
    layout: Option<OverlayLayout>,
}

/// Which layout the overlay uses; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutMode {
    /// The whole panel: strategy, display, plot, pattern, metrics.
    Full,
    /// A few lines: strategy, FPS, judder, the pattern, the F1 hint.
    Compact,
}

impl LayoutMode {
    /// [`LayoutMode::Full`] when a `size_points` window holds [`FULL_MIN_POINTS`], else compact.
    pub fn for_screen(size_points: [f32; 2]) -> LayoutMode {
        if size_points[0] >= FULL_MIN_POINTS[0] && size_points[1] >= FULL_MIN_POINTS[1] {
            LayoutMode::Full
        } else {
            LayoutMode::Compact
        }
    }
}

/// Where the last draw put things, in target pixels (`min`/`max` corners).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlayLayout {
    /// The layout chosen for the target's size.
    pub mode: LayoutMode,
    /// The stats panel.
    pub panel: egui::Rect,
    /// The F1 key table, when open.
    pub help: Option<egui::Rect>,
    /// The runner's lane label, when there is a lane and room for it.
    pub runner_label: Option<egui::Rect>,
}

/// Whether keyboard input belongs to egui: only while one of its text fields is being edited.
fn egui_takes_keys(ctx: &egui::Context) -> bool {
    ctx.text_edit_focused()
}

fn is_keyboard(event: &winit::event::WindowEvent) -> bool {
    matches!(event, winit::event::WindowEvent::KeyboardInput { .. } | winit::event::WindowEvent::Ime(_))
}

impl Overlay {
    /// An overlay for `window`, drawing into targets of `format`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, window: &winit::window::Window) -> Overlay {
        let ctx = new_context();
        let max_texture_side = device.limits().max_texture_dimension_2d as usize;
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(max_texture_side),
        );
        let mut overlay = Self::with_context(device, format, ctx, window.scale_factor() as f32);
        overlay.winit = Some(state);
        overlay
    }

    /// An overlay without a window, for tests and screenshots: `pixels_per_point` is the scale a
    /// window would report.
    pub fn new_headless(device: &wgpu::Device, format: wgpu::TextureFormat, pixels_per_point: f32) -> Overlay {
        Self::with_context(device, format, new_context(), pixels_per_point)
    }

    fn with_context(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        ctx: egui::Context,
        pixels_per_point: f32,
    ) -> Overlay {
        let painter = EguiPainter::new(device, format);
        let pixels_per_point =
            if pixels_per_point.is_finite() && pixels_per_point > 0.0 { pixels_per_point } else { 1.0 };
        Overlay {
            ctx,
            painter,
            winit: None,
            headless_pixels_per_point: pixels_per_point,
            start: Instant::now(),
            visible: true,
            points: Vec::with_capacity(crate::hud::FRAME_TIME_CAPACITY),
            timestamps: None,
            drew_pass: false,
            layout: None,
        }
    }

    /// Passes a window event to egui. Returns true if egui consumed it (e.g. a click on the
    /// panel), in which case the game should ignore it. Hidden overlays consume nothing, and keys
    /// go to the game unless a text field is being edited (see the module docs).
    pub fn on_window_event(&mut self, window: &winit::window::Window, event: &winit::event::WindowEvent) -> bool {
        match self.winit.as_mut() {
            Some(_) if is_keyboard(event) && !egui_takes_keys(&self.ctx) => false,
            Some(state) if self.visible => state.on_window_event(window, event).consumed,
            _ => false,
        }
    }

    /// Where the last draw put the panels, in target pixels; `None` before the first draw and
    /// while hidden.
    pub fn layout(&self) -> Option<OverlayLayout> {
        self.layout
    }

    /// Runs the egui frame, tessellates, uploads and records a render pass (`LoadOp::Load` over
    /// the scene) into `target`. Returns the CPU time it took in ms (0 when hidden).
    ///
    /// `size_px` must be the size of `target`. On an overlay made by [`Self::new_headless`] this
    /// behaves like [`Self::draw_headless`].
    #[expect(clippy::too_many_arguments, reason = "the app's call site passes each frame resource once")]
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        window: &winit::window::Window,
        size_px: [u32; 2],
        hud: &HudData,
    ) -> f64 {
        self.drew_pass = false;
        if !self.visible {
            self.layout = None;
            return 0.0;
        }
        let started = Instant::now();
        let raw_input = match self.winit.as_mut() {
            Some(state) => window_input(state, window, size_px, self.start),
            None => self.headless_input(size_px),
        };
        let mut full_output = self.run(raw_input, size_px, hud);
        if let Some(state) = self.winit.as_mut() {
            state.handle_platform_output(window, std::mem::take(&mut full_output.platform_output));
        }
        self.paint(device, queue, encoder, target, size_px, full_output);
        elapsed_ms(started)
    }

    /// [`Self::draw`] without a window: input is synthesised from `size_px` and the scale given to
    /// [`Self::new_headless`]. Returns the CPU time it took in ms (0 when hidden).
    pub fn draw_headless(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size_px: [u32; 2],
        hud: &HudData,
    ) -> f64 {
        self.drew_pass = false;
        if !self.visible {
            self.layout = None;
            return 0.0;
        }
        let started = Instant::now();
        let raw_input = self.headless_input(size_px);
        let full_output = self.run(raw_input, size_px, hud);
        self.paint(device, queue, encoder, target, size_px, full_output);
        elapsed_ms(started)
    }

    /// Has every later draw write its render pass's GPU begin/end timestamps
    /// there (`None`: untimed).
    pub fn set_timestamps(&mut self, timestamps: Option<PassTimestamps>) {
        self.timestamps = timestamps;
    }

    /// Whether the last draw recorded a render pass (and so wrote its timestamps).
    pub fn drew_pass(&self) -> bool {
        self.drew_pass
    }

    /// Whether the overlay is drawn.
    pub fn visible(&self) -> bool {
        self.visible
    }

    /// Shows or hides the overlay (`H`).
    pub fn set_visible(&mut self, on: bool) {
        self.visible = on;
    }

    fn headless_input(&self, size_px: [u32; 2]) -> egui::RawInput {
        let ppp = self.headless_pixels_per_point;
        let size_points = egui::vec2(size_px[0] as f32 / ppp, size_px[1] as f32 / ppp);
        let mut raw_input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size_points)),
            time: Some(self.start.elapsed().as_secs_f64()),
            focused: true,
            ..Default::default()
        };
        raw_input.viewports.entry(egui::ViewportId::ROOT).or_default().native_pixels_per_point = Some(ppp);
        raw_input
    }

    fn run(&mut self, raw_input: egui::RawInput, size_px: [u32; 2], hud: &HudData) -> egui::FullOutput {
        let Self { ctx, points, layout, .. } = self;
        let output = ctx.run_ui(raw_input, |ui| {
            let ctx = ui.ctx().clone();
            let screen = ctx.content_rect();
            let mode = LayoutMode::for_screen([screen.width(), screen.height()]);
            let panel = if !hud.lanes.is_empty() {
                lane_labels(&ctx, hud);
                egui::Rect::from_min_size(screen.min, egui::Vec2::ZERO)
            } else {
                match mode {
                    LayoutMode::Full => stats_panel(&ctx, hud, points),
                    LayoutMode::Compact => compact_panel(&ctx, hud, screen),
                }
            };
            let help = hud.show_help.then(|| help_panel(&ctx, hud, mode, screen, panel));
            let runner_label = hud
                .runner_lane
                .filter(|_| hud.lanes.is_empty())
                .and_then(|lane| runner_label(&ctx, lane, size_px, screen, panel));
            *layout = Some(OverlayLayout { mode, panel, help, runner_label });
        });
        // Points to target pixels.
        let ppp = output.pixels_per_point;
        let to_px = |r: egui::Rect| {
            egui::Rect::from_min_max((r.min.to_vec2() * ppp).to_pos2(), (r.max.to_vec2() * ppp).to_pos2())
        };
        if let Some(layout) = layout.as_mut() {
            layout.panel = to_px(layout.panel);
            layout.help = layout.help.map(to_px);
            layout.runner_label = layout.runner_label.map(to_px);
        }
        output
    }

    fn paint(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size_px: [u32; 2],
        full_output: egui::FullOutput,
    ) {
        // Deltas are drained, not iterated: egui asserts in debug builds that none is dropped unapplied.
        let egui::FullOutput { shapes, mut textures_delta, pixels_per_point, .. } = full_output;
        for (id, deltas) in textures_delta.set.drain() {
            for delta in deltas {
                self.painter.update_texture(device, queue, id, &delta);
            }
        }
        // A minimised window has no pixels to draw into; the texture uploads above still count.
        if size_px[0] > 0 && size_px[1] > 0 {
            let primitives = self.ctx.tessellate(shapes, pixels_per_point);
            self.painter.prepare(device, queue, &primitives, size_px, pixels_per_point);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("overlay"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: self.timestamps.as_ref().map(PassTimestamps::writes),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.painter.render(&mut pass);
            self.drew_pass = true;
        }
        for id in textures_delta.free.drain() {
            self.painter.free_texture(&id);
        }
    }
}

impl std::fmt::Debug for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overlay")
            .field("visible", &self.visible)
            .field("windowed", &self.winit.is_some())
            .finish_non_exhaustive()
    }
}

fn new_context() -> egui::Context {
    let ctx = egui::Context::default();
    ctx.set_theme(egui::Theme::Dark);
    ctx.all_styles_mut(|style| {
        style.spacing.item_spacing = egui::vec2(6.0, 3.0);
        style.interaction.selectable_labels = false;
    });
    ctx
}

/// egui-winit's input for this frame, its screen the `size_px` drawn into.
///
/// `State::take_egui_input` would ask the window for its size, an X server round
/// trip every frame that winit 0.30 unwraps: a window destroyed under the app
/// mid-frame panicked there (rust-windowing/winit#3686). The target's size is
/// known and is what egui lays out for anyway.
fn window_input(
    state: &mut egui_winit::State,
    window: &winit::window::Window,
    size_px: [u32; 2],
    start: Instant,
) -> egui::RawInput {
    let native = window.scale_factor() as f32;
    let ppp = native * state.egui_ctx().zoom_factor();
    let input = state.egui_input_mut();
    input.time = Some(start.elapsed().as_secs_f64());
    let points = egui::vec2(size_px[0] as f32 / ppp, size_px[1] as f32 / ppp);
    input.screen_rect = (points.x > 0.0 && points.y > 0.0).then(|| egui::Rect::from_min_size(egui::Pos2::ZERO, points));
    input.viewport_id = egui::ViewportId::ROOT;
    input.viewports.entry(egui::ViewportId::ROOT).or_default().native_pixels_per_point = Some(native);
    input.take()
}

fn elapsed_ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn panel_frame(padding: f32) -> egui::Frame {
    egui::Frame::new()
        .fill(PANEL_FILL)
        .stroke(egui::Stroke::new(1.0, Color32::from_white_alpha(28)))
        .corner_radius(6)
        .inner_margin(padding)
}

/// The fixed, top-left area a panel is drawn in.
fn top_left_area(id: &'static str) -> egui::Area {
    egui::Area::new(egui::Id::unique(id))
        .anchor(Align2::LEFT_TOP, egui::vec2(MARGIN, MARGIN))
        .movable(false)
        // Shown at once: a fresh overlay (the screenshot's) must not be caught half faded in.
        .fade_in(false)
        .order(egui::Order::Foreground)
}

/// The main panel, top-left; returns its rectangle in points.
fn stats_panel(ctx: &egui::Context, hud: &HudData, points: &mut Vec<PlotPoint>) -> egui::Rect {
    top_left_area("timestep_lab_overlay")
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            panel_frame(PANEL_PADDING).show(ui, |ui| {
                ui.set_width(PANEL_WIDTH);
                strategy_section(ui, hud);
                ui.separator();
                display_section(ui, hud);
                ui.separator();
                frame_time_plot(ui, hud, points);
                pattern_section(ui, hud);
                ui.separator();
                metrics_section(ui, hud);
                ui.add_space(2.0);
                ui.label(caption("F1 help · H hide", DIM));
            });
        })
        .response
        .rect
}

/// The compact panel for small windows, top-left: strategy, rates, judder, pattern, hint, each
/// wrapping within the window. Returns its rectangle in points.
fn compact_panel(ctx: &egui::Context, hud: &HudData, screen: egui::Rect) -> egui::Rect {
    let max_width = (screen.width() - 2.0 * MARGIN - 2.0 * COMPACT_PADDING).max(1.0);
    let pattern_lines = if screen.height() >= COMPACT_TALL_POINTS { 3 } else { 1 };
    top_left_area("timestep_lab_overlay_compact")
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            panel_frame(COMPACT_PADDING).show(ui, |ui| {
                ui.set_max_width(max_width);
                ui.spacing_mut().item_spacing = egui::vec2(5.0, 1.0);
                ui.horizontal_wrapped(|ui| {
                    ui.label(RichText::new(or_dash(hud.strategy_name)).monospace().size(13.0).strong().color(ACCENT));
                    ui.label(RichText::new(format!("@ {}", hz(hud.tick_rate_hz))).monospace().color(VALUE));
                    if hud.paused {
                        ui.label(RichText::new("PAUSED").monospace().strong().color(WARN));
                    }
                    if hud.ghosts {
                        ui.label(RichText::new("GHOSTS").monospace().color(ACCENT));
                    }
                });
                ui.horizontal_wrapped(|ui| {
                    compact_value(ui, "FPS", format!("{:.1}", hud.fps), VALUE);
                    compact_value(ui, "UPS", format!("{:.1}", hud.ups), VALUE);
                    let judder = metric_color("judder_ms", &hud.stats);
                    compact_value(ui, "judder_ms", format!("{:.2}", hud.stats.judder_ms), judder);
                    compact_value(ui, "doubles", hud.double_updates.to_string(), count_color(hud.double_updates, BAD));
                    compact_value(
                        ui,
                        "skipped",
                        hud.skipped_renders.to_string(),
                        count_color(hud.skipped_renders, WARN),
                    );
                });
                let digit = ui.fonts_mut(|fonts| fonts.glyph_width(&FontId::monospace(PATTERN_SIZE), '1'));
                let shape = PatternShape::fitting(max_width, digit, pattern_lines);
                if hud.pattern.is_empty() {
                    ui.label(RichText::new("—").monospace().color(DIM));
                } else {
                    ui.label(pattern_job(&hud.pattern, shape));
                }
                ui.label(caption("F1 help · H hide", DIM));
            });
        })
        .response
        .rect
}

/// `label value` for the compact panel's wrapping line.
fn compact_value(ui: &mut Ui, label: &str, value: String, color: Color32) {
    ui.label(RichText::new(label).size(CAPTION_SIZE).color(LABEL));
    ui.label(RichText::new(value).monospace().size(12.0).color(color));
}

/// A small label under the right end of the runner's lane, clear of the stats panel; returns
/// its rectangle in points, or `None` where there is no room for even the short text.
fn runner_label(
    ctx: &egui::Context,
    lane: RunnerLane,
    size_px: [u32; 2],
    screen: egui::Rect,
    panel: egui::Rect,
) -> Option<egui::Rect> {
    let ppp = ctx.pixels_per_point();
    let letterbox = Letterbox::fit(lane.playfield, size_px);
    let half_height = MoverKind::Runner.size()[1] / 2.0;
    let [right, below] = letterbox.to_target([lane.playfield[0], lane.y + half_height]).map(|px| px / ppp);
    let anchor = egui::pos2(right.min(screen.right()) - MARGIN, below + 2.0);
    let font = FontId::proportional(CAPTION_SIZE);
    let room = anchor.x - panel.right().max(screen.left()) - MARGIN;
    let text = [RUNNER_LABEL, RUNNER_LABEL_SHORT].into_iter().find(|text| {
        let width = ctx.fonts_mut(|fonts| fonts.layout_no_wrap((*text).to_owned(), font.clone(), LABEL).size().x);
        width <= room
    })?;
    let painter =
        ctx.layer_painter(egui::LayerId::new(egui::Order::Background, egui::Id::unique("timestep_lab_runner")));
    let rect = painter.text(anchor, Align2::RIGHT_TOP, text, font, LANE_LABEL);
    // Below the panel's bottom edge it could still overlap a tall panel: then leave it out.
    (!rect.intersects(panel)).then_some(rect)
}

/// Lane mode: a label in each lane's label column (strategy, judder, hitches, latency, pattern),
/// the selected lane outlined.
fn lane_labels(ctx: &egui::Context, hud: &HudData) {
    let screen = ctx.content_rect();
    let [pw, ph] = hud.lane_playfield;
    if pw <= 0.0 || ph <= 0.0 {
        return;
    }
    // The sprites' letterbox, in points: the largest centred rectangle of the playfield's aspect.
    let scale = (screen.width() / pw).min(screen.height() / ph);
    let origin = screen.center() - egui::vec2(0.5 * pw * scale, 0.5 * ph * scale);
    let to_screen = |x: f32, y: f32| origin + egui::vec2(x * scale, y * scale);
    for (i, lane) in hud.lanes.iter().enumerate() {
        let [x, y, w, h] = lane.rect;
        let whole = egui::Rect::from_min_max(to_screen(x, y), to_screen(x + w, y + h));
        let column = egui::Rect::from_min_size(whole.min, egui::vec2(lane.label_width * scale, whole.height()));
        egui::Area::new(egui::Id::unique(("timestep_lab_lane", i)))
            .fixed_pos(column.min)
            .movable(false)
            .interactable(false)
            .order(egui::Order::Foreground)
            .show(ctx, |ui| {
                ui.set_clip_rect(column);
                let stroke = if lane.selected { egui::Stroke::new(2.0, ACCENT) } else { egui::Stroke::NONE };
                egui::Frame::new().fill(PANEL_FILL).stroke(stroke).inner_margin(egui::Margin::symmetric(8, 3)).show(
                    ui,
                    |ui| {
                        ui.spacing_mut().item_spacing.y = 1.0;
                        ui.set_width(column.width() - 16.0);
                        ui.set_height(column.height() - 6.0);
                        lane_label(ui, lane);
                    },
                );
            });
        if lane.selected {
            let painter =
                ctx.layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::unique("lane_selection")));
            painter.rect_stroke(whole, 0.0, egui::Stroke::new(2.0, ACCENT), egui::StrokeKind::Inside);
        }
    }
}

fn lane_label(ui: &mut Ui, lane: &LaneLabel) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(or_dash(lane.strategy)).monospace().size(13.0).strong().color(ACCENT));
        if lane.selected && !lane.needs_loop {
            ui.label(caption("selected · Enter runs the loop with it", LABEL));
        }
    });
    if lane.needs_loop {
        ui.label(RichText::new("needs the loop — Enter").monospace().color(WARN));
        ui.label(caption("it decides when frames happen: shown frozen", LABEL));
        return;
    }
    let number = |v: f64, decimals: usize| if v.is_finite() { format!("{v:.decimals$}") } else { "—".to_owned() };
    let hitches = lane.hitches_per_min.map_or_else(|| "—".to_owned(), |h| format!("{h:.1}"));
    // Two short rows rather than one that wraps in the label column at 1280x720.
    let judder = format!("judder {} ms · {hitches} hitches/min", number(lane.judder_ms, 2));
    ui.label(caption(judder, VALUE).monospace());
    ui.label(caption(format!("latency {} ms", number(lane.latency_ms, 1)), VALUE).monospace());
    if lane.pattern.is_empty() {
        ui.label(RichText::new("—").monospace().color(DIM));
    } else {
        let digit = ui.fonts_mut(|fonts| fonts.glyph_width(&FontId::monospace(PATTERN_SIZE), '1'));
        ui.label(pattern_job(&lane.pattern, PatternShape::fitting(ui.available_width(), digit, 1)));
    }
}

/// A panel egui has not seen yet is laid out invisibly to learn its size; asking for a second
/// pass (egui allows two per frame) makes it appear on the frame it is first shown.
fn redo_pass_if_sizing(ui: &Ui) {
    if ui.is_sizing_pass() {
        ui.ctx().request_discard("overlay panel sized");
    }
}

fn strategy_section(ui: &mut Ui, hud: &HudData) {
    ui.horizontal(|ui| {
        ui.label(RichText::new(or_dash(hud.strategy_name)).monospace().size(16.0).strong().color(ACCENT));
        ui.label(RichText::new(format!("@ {}", hz(hud.tick_rate_hz))).monospace().color(VALUE));
        if hud.paused {
            ui.label(RichText::new("PAUSED").monospace().strong().color(WARN));
        }
        if hud.ghosts {
            ui.label(RichText::new("GHOSTS").monospace().color(ACCENT));
        }
    });
    if !hud.strategy_summary.is_empty() {
        ui.label(RichText::new(hud.strategy_summary).color(VALUE));
    }
    if !hud.strategy_source.is_empty() {
        ui.label(caption(format!("seed: {}", hud.strategy_source), LABEL));
    }
    if !hud.strategy_status.is_empty() {
        ui.label(caption(&hud.strategy_status, WARN));
    }
}

fn display_section(ui: &mut Ui, hud: &HudData) {
    egui::Grid::new("overlay_display").num_columns(2).spacing([10.0, 2.0]).show(ui, |ui| {
        key(ui, "present");
        let requested = or_dash(&hud.present_mode_requested);
        let actual = or_dash(&hud.present_mode_actual);
        let matches = requested.eq_ignore_ascii_case(actual) || requested.eq_ignore_ascii_case("auto");
        let color = if matches { VALUE } else { WARN };
        ui.label(RichText::new(format!("asked {requested} · got {actual}")).monospace().color(color));
        ui.end_row();

        key(ui, "monitor");
        ui.label(RichText::new(or_dash(&hud.monitor_name)).monospace().color(VALUE));
        ui.end_row();

        key(ui, "refresh");
        ui.label(
            RichText::new(format!(
                "{} reported · {} measured",
                opt_hz(hud.reported_refresh_hz),
                opt_hz(hud.measured_refresh_hz)
            ))
            .monospace()
            .color(VALUE),
        );
        ui.end_row();

        key(ui, "emulation");
        match hud.emulated_refresh_hz {
            Some(rate) => {
                ui.label(RichText::new(format!("{} virtual vblank", hz(rate))).monospace().color(WARN));
            }
            None => {
                ui.label(RichText::new("off").monospace().color(DIM));
            }
        }
        ui.end_row();
    });
    if !hud.vsync_verdict.is_empty() {
        ui.label(RichText::new(&hud.vsync_verdict).italics().color(VALUE));
    }
}

fn frame_time_plot(ui: &mut Ui, hud: &HudData, points: &mut Vec<PlotPoint>) {
    let ring = &hud.frame_times_ms;
    points.clear();
    let mut age = Duration::ZERO;
    for interval in ring.iter().rev() {
        points.push(PlotPoint::new(-age.as_secs_f64(), interval.as_secs_f64() * 1e3));
        age += interval;
    }
    let window_s = ring.window().as_secs_f64();
    let refresh_ms =
        hud.measured_refresh_hz.or(hud.emulated_refresh_hz).or(hud.reported_refresh_hz).and_then(period_ms);
    let tick_ms = period_ms(hud.tick_rate_hz);
    let max_ms = points.iter().map(|p| p.y).fold(0.0, f64::max);

    ui.horizontal(|ui| {
        ui.label(caption(format!("frame time (ms), last {window_s:.0} s"), LABEL));
        ui.label(caption(format!("max {max_ms:.1}"), FRAME_LINE).monospace());
        if let Some(ms) = refresh_ms {
            ui.label(caption(format!("— refresh {ms:.2}"), REFRESH_LINE).monospace());
        }
        if let Some(ms) = tick_ms {
            ui.label(caption(format!("- - tick {ms:.2}"), TICK_LINE).monospace());
        }
    });

    let top = [max_ms, refresh_ms.unwrap_or(0.0), tick_ms.unwrap_or(0.0)].into_iter().fold(1.0, f64::max) * 1.15;
    let points: &[PlotPoint] = points;
    ui.horizontal(|ui| {
        Plot::new("overlay_frame_times")
            .height(PLOT_HEIGHT)
            .width(PANEL_WIDTH - HISTOGRAM_WIDTH - ui.spacing().item_spacing.x)
            .include_x(-window_s)
            .include_x(0.0)
            .include_y(0.0)
            .include_y(top)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .show_x(false)
            .x_axis_formatter(|mark, _| format!("{:.0}s", mark.value))
            .y_grid_spacer(y_grid_marks)
            .y_axis_formatter(|mark, _| format!("{:.0}", mark.value))
            .show(ui, |plot| {
                if let Some(ms) = refresh_ms {
                    plot.hline(HLine::new("refresh period", ms).color(REFRESH_LINE).width(1.0));
                }
                if let Some(ms) = tick_ms {
                    plot.hline(
                        HLine::new("tick period", ms)
                            .color(TICK_LINE)
                            .width(1.0)
                            .style(LineStyle::Dashed { length: 6.0 }),
                    );
                }
                plot.line(Line::new("frame interval (ms)", PlotPoints::Borrowed(points)).color(FRAME_LINE).width(1.5));
            });
        present_histogram(ui, &hud.present_histogram, top);
    });
    ui.label(caption(present_interval_line(&hud.stats), LABEL).monospace()).on_hover_text(
        "time between presents since the last change: mean, standard deviation, 99th percentile; \
         the bars right of the plot are its histogram",
    );
}

/// Three or four labelled y marks at a round step: egui_plot's default spacer leaves a plot this
/// short with a single label.
fn y_grid_marks(input: GridInput) -> Vec<GridMark> {
    let (low, high) = input.bounds;
    if !(low.is_finite() && high.is_finite() && high > low) {
        return Vec::new();
    }
    let step = round_step((high - low) / 4.0);
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last).map(|k| GridMark { value: k as f64 * step, step_size: step }).collect()
}

/// The smallest 1, 2 or 5 × 10ⁿ at least `raw` (1 for nonsense).
fn round_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let mantissa = raw / magnitude;
    let round = if mantissa <= 1.0 {
        1.0
    } else if mantissa <= 2.0 {
        2.0
    } else if mantissa <= 5.0 {
        5.0
    } else {
        10.0
    };
    round * magnitude
}

fn pattern_section(ui: &mut Ui, hud: &HudData) {
    ui.horizontal(|ui| {
        ui.label(caption(format!("updates per refresh, last {PATTERN_FRAMES}"), LABEL));
        ui.label(caption("0", WARN).monospace());
        ui.label(caption("none", LABEL));
        ui.label(caption("2+", BAD).monospace());
        ui.label(caption("several", LABEL));
    });
    if hud.pattern.is_empty() {
        ui.label(RichText::new("—").monospace().color(DIM));
        return;
    }
    ui.label(pattern_job(&hud.pattern, PatternShape::FULL));
}

/// How the pattern is laid out: frames per line (whole groups of [`PATTERN_GROUP`]) and lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PatternShape {
    per_line: usize,
    lines: usize,
}

impl PatternShape {
    /// The full panel's: [`PATTERN_FRAMES`] on three lines of [`PATTERN_LINE`].
    const FULL: PatternShape = PatternShape { per_line: PATTERN_LINE, lines: PATTERN_FRAMES / PATTERN_LINE };

    /// As many whole groups per line as fit `width` points of digits `digit` points wide (at
    /// least one group, at most the full panel's line), on `lines` lines.
    fn fitting(width: f32, digit: f32, lines: usize) -> PatternShape {
        // A line of g groups is 10g digits and g - 1 spaces, as wide as a digit (monospace).
        let per_group = (PATTERN_GROUP + 1) as f32 * digit;
        let groups = if per_group > 0.0 { ((width + digit) / per_group).floor() as usize } else { 1 };
        let groups = groups.clamp(1, PATTERN_LINE / PATTERN_GROUP);
        PatternShape { per_line: groups * PATTERN_GROUP, lines: lines.max(1) }
    }

    fn frames(self) -> usize {
        self.per_line * self.lines
    }
}

/// The last frames of the pattern that fit `shape`, as coloured monospace runs (`1` dim, `0`
/// amber, `2`–`9` and `+` (ten or more) red), `shape.per_line` frames per line in
/// space-separated groups of [`PATTERN_GROUP`].
fn pattern_job(pattern: &str, shape: PatternShape) -> LayoutJob {
    let font = FontId::monospace(PATTERN_SIZE);
    let mut job = LayoutJob::default();
    let tail_start = pattern.char_indices().rev().nth(shape.frames() - 1).map_or(0, |(i, _)| i);
    let tail = &pattern[tail_start..];
    let mut run_start = 0;
    let mut run_color = None;
    for (frame, (i, c)) in tail.char_indices().enumerate() {
        let color = pattern_color(c);
        let separator = match frame {
            0 => None,
            _ if frame % shape.per_line == 0 => Some("\n"),
            _ if frame % PATTERN_GROUP == 0 => Some(" "),
            _ => None,
        };
        if separator.is_some() || run_color != Some(color) {
            if let Some(color) = run_color {
                job.append(&tail[run_start..i], 0.0, TextFormat::simple(font.clone(), color));
            }
            if let Some(separator) = separator {
                job.append(separator, 0.0, TextFormat::simple(font.clone(), DIM));
            }
            run_start = i;
            run_color = Some(color);
        }
    }
    if let Some(color) = run_color {
        job.append(&tail[run_start..], 0.0, TextFormat::simple(font, color));
    }
    job
}

fn pattern_color(c: char) -> Color32 {
    match c {
        '1' => DIM,
        '0' => WARN,
        '2'..='9' | '+' => BAD,
        _ => LABEL,
    }
}

fn metrics_section(ui: &mut Ui, hud: &HudData) {
    egui::Grid::new("overlay_metrics").num_columns(4).spacing([10.0, 2.0]).show(ui, |ui| {
        key(ui, "FPS");
        value(ui, format!("{:7.1}", hud.fps), VALUE);
        key(ui, "UPS");
        value(ui, format!("{:7.1}", hud.ups), VALUE);
        ui.end_row();

        key(ui, "double updates");
        value(ui, format!("{:7}", hud.double_updates), count_color(hud.double_updates, BAD));
        key(ui, "skipped renders");
        value(ui, format!("{:7}", hud.skipped_renders), count_color(hud.skipped_renders, WARN));
        ui.end_row();

        key(ui, "repeated frames");
        value(ui, format!("{:7}", hud.repeated_frames), count_color(hud.repeated_frames, WARN));
        key(ui, "CPU");
        match hud.cpu_percent {
            Some(p) => value(ui, format!("{p:7.1} %"), VALUE),
            None => value(ui, format!("{:>7}", "—"), DIM),
        }
        ui.end_row();

        // Named as in --stats-json and the simulate table; hovering a name shows its definition.
        for (i, row) in metric_rows(&hud.stats).iter().enumerate() {
            ui.label(RichText::new(row.name).color(LABEL)).on_hover_text(row.legend);
            value(ui, row.value.clone(), metric_color(row.name, &hud.stats));
            if i % 2 == 1 {
                ui.end_row();
            }
        }

        key(ui, "sprites");
        value(ui, format!("{:7}", hud.sprite_count), VALUE);
        key(ui, "load");
        value(ui, hud.load_preset.to_owned(), if hud.load_preset == "none" { VALUE } else { WARN });
        ui.end_row();

        key(ui, "ghost markers");
        value(ui, format!("{:>7}", if hud.ghosts { "on" } else { "off" }), VALUE);
        // CPU time of building, tessellating and uploading the panel; its drawing is in the
        // GPU row below (on a software adapter that is CPU work too, on llvmpipe's threads).
        key(ui, "overlay CPU");
        value(ui, format!("{:7.2} ms", hud.overlay_cost_ms), VALUE);
        ui.end_row();

        // GPU time of the two render passes, from timestamp queries, averaged over a second.
        key(ui, "GPU scene");
        gpu_value(ui, hud.gpu_timing, hud.gpu_scene_ms);
        key(ui, "GPU overlay");
        gpu_value(ui, hud.gpu_timing, hud.gpu_overlay_ms);
        ui.end_row();
    });
}

/// One figure of [`FrameStats`] as the overlay shows it: the report's field
/// name, the value, and the one-line definition shown on hover.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRow {
    /// The field's name in `--stats-json`, CSV and the simulate table.
    pub name: &'static str,
    /// The value as shown (`—` while undefined).
    pub value: String,
    /// One line: what the number means.
    pub legend: &'static str,
}

/// The overlay's rows for smoothness, speed and latency, in the order drawn
/// (two per line), formatted as shown; the present pacing is the line under
/// the frame-time plot ([`present_interval_line`]).
pub fn metric_rows(s: &FrameStats) -> [MetricRow; 6] {
    // The legend is the report's own definition of the field, as in the README.
    let row = |name, value: f64, decimals: usize| MetricRow {
        name,
        value: if value.is_finite() { format!("{value:>8.decimals$}") } else { format!("{:>8}", "—") },
        legend: crate::monitor::definition(name).unwrap_or_default(),
    };
    [
        row("judder_ms", s.judder_ms, 2),
        row("hitches_per_min", s.hitches_per_min, 1),
        row("max_hitch_ms", s.max_hitch_ms, 1),
        row("drift_ms_per_min", s.drift_ms_per_min, 1),
        row("latency_ms", s.latency_ms, 1),
        row("latency_p95_ms", s.latency_p95_ms, 1),
    ]
}

/// The present pacing under the frame-time plot: `present_interval_mean_ms`,
/// `_std_ms` and `_p99_ms` since the setting last changed.
pub fn present_interval_line(s: &FrameStats) -> String {
    let ms = |v: f64| if v.is_finite() { format!("{v:.2}") } else { "—".to_owned() };
    format!(
        "present interval mean {} · σ {} · p99 {} ms",
        ms(s.present_interval_mean_ms),
        ms(s.present_interval_std_ms),
        ms(s.present_interval_p99_ms)
    )
}

/// Green for a smooth judder, warning colours for hitches and drift, plain otherwise.
fn metric_color(name: &str, s: &FrameStats) -> Color32 {
    match name {
        "judder_ms" if s.judder_ms < JUDDER_SMOOTH_MS => GOOD,
        "judder_ms" => WARN,
        "hitches_per_min" | "max_hitch_ms" => count_color(s.hitches, BAD),
        "drift_ms_per_min" if s.drift_ms_per_min.abs() >= DRIFT_VISIBLE_MS_PER_MIN => WARN,
        _ => VALUE,
    }
}

/// The present-interval histogram beside the frame-time plot: intervals on
/// the plot's y axis (0 to `top` ms), one 0.25 ms bin per row, bar length
/// on a log scale so that a single hitch among thousands of frames shows.
fn present_histogram(ui: &mut Ui, histogram: &PresentHistogram, top: f64) {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(HISTOGRAM_WIDTH, PLOT_HEIGHT), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_white_alpha(6));
    let bins = histogram.bins();
    let most = bins.iter().copied().max().unwrap_or(0).max(histogram.overflow());
    if most == 0 || !top.is_finite() || top <= 0.0 {
        return;
    }
    let scale = (1.0 + most as f64).ln();
    let bin_ms = PRESENT_BIN_NS as f64 / 1e6;
    let y_of = |ms: f64| rect.bottom() - (ms / top).clamp(0.0, 1.0) as f32 * rect.height();
    let bar = |low: f64, high: f64, count: u64, color: Color32| {
        let length = ((1.0 + count as f64).ln() / scale) as f32 * rect.width();
        let (y0, y1) = (y_of(high), y_of(low));
        // At least 2 px each way, so a single 0.25 ms bin of one interval shows.
        let bar = egui::Rect::from_min_max(
            egui::pos2(rect.left(), y0.min(y1 - 2.0)),
            egui::pos2(rect.left() + length.max(2.0), y1),
        );
        painter.rect_filled(bar, 0.0, color);
    };
    for (i, &count) in bins.iter().enumerate().filter(|&(_, &c)| c > 0) {
        // Intervals above the plot's range (older than its 5 s) sit at its top edge.
        let low = (i as f64 * bin_ms).min(top - bin_ms);
        bar(low, low + bin_ms, count, FRAME_LINE);
    }
    if histogram.overflow() > 0 {
        // Intervals of 50 ms or more: one bar at the top edge.
        bar(top - bin_ms, top, histogram.overflow(), BAD);
    }
    response.on_hover_text("present intervals since the last change: length ∝ log(count)");
}

/// A GPU pass time, `—` before the first reading, `n/a` without timestamp queries.
fn gpu_value(ui: &mut Ui, supported: bool, ms: Option<f64>) {
    match ms {
        Some(ms) => value(ui, format!("{ms:7.2} ms"), VALUE),
        None => value(ui, format!("{:>7}", if supported { "—" } else { "n/a" }), DIM),
    }
}

/// The F1 key table, top-right: beside the stats panel where there is room, over it where there
/// is not; in as many columns as the window's height needs. Actions too long for their column
/// are cut with `…`; the compact layout shows each action only up to its first `": "` (the help
/// texts read `short: long`). Returns the table's rectangle in points.
fn help_panel(
    ctx: &egui::Context,
    hud: &HudData,
    mode: LayoutMode,
    screen: egui::Rect,
    panel: egui::Rect,
) -> egui::Rect {
    const ROW_GAP: f32 = 2.0;
    const COLUMN_GAP: f32 = 12.0;
    let (size, padding) = match mode {
        LayoutMode::Full => (HELP_SIZE, PANEL_PADDING),
        LayoutMode::Compact => (CAPTION_SIZE, COMPACT_PADDING),
    };
    let action = |text: &'_ str| -> String {
        match mode {
            LayoutMode::Full => text.to_owned(),
            LayoutMode::Compact => text.split_once(": ").map_or(text, |(short, _)| short).to_owned(),
        }
    };
    let (key_font, text_font) = (FontId::monospace(size), FontId::proportional(size));
    let (text_row, key_width) = ctx.fonts_mut(|fonts| {
        let row = fonts.row_height(&text_font).max(fonts.row_height(&key_font));
        let widest = hud
            .help_lines
            .iter()
            .map(|(k, _)| fonts.layout_no_wrap(k.clone(), key_font.clone(), VALUE).size().x)
            .fold(0.0, f32::max);
        (row, widest)
    });
    let row = text_row + ROW_GAP;
    let beside = screen.right() - panel.right() - 2.0 * MARGIN;
    let outer_width = if beside >= HELP_MIN_WIDTH { beside } else { screen.width() - 2.0 * MARGIN };
    let inner_width = (outer_width - 2.0 * padding).max(1.0);
    // The title takes one row; the keys fill columns of the rows that are left.
    let rows = ((screen.height() - 2.0 * (MARGIN + padding)) / row - 1.0).floor().max(1.0) as usize;
    let columns = hud.help_lines.len().div_ceil(rows).max(1);
    let column_width = (inner_width - (columns - 1) as f32 * COLUMN_GAP) / columns as f32;
    let action_width = (column_width - key_width - COLUMN_GAP).max(1.0);
    egui::Area::new(egui::Id::unique("timestep_lab_help"))
        .anchor(Align2::RIGHT_TOP, egui::vec2(-MARGIN, MARGIN))
        .movable(false)
        // Shown at once: a fresh overlay (the screenshot's) must not be caught half faded in.
        .fade_in(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            panel_frame(padding).show(ui, |ui| {
                ui.set_max_width(inner_width);
                ui.spacing_mut().item_spacing.y = ROW_GAP;
                ui.label(RichText::new("Keys").strong().size(size).color(ACCENT));
                ui.horizontal_top(|ui| {
                    ui.spacing_mut().item_spacing.x = COLUMN_GAP;
                    for (column, lines) in hud.help_lines.chunks(rows).enumerate() {
                        egui::Grid::new(("overlay_help", column))
                            .num_columns(2)
                            .spacing([COLUMN_GAP, ROW_GAP])
                            .min_row_height(text_row)
                            .min_col_width(0.0)
                            .max_col_width(action_width.max(key_width))
                            .show(ui, |ui| {
                                for (k, text) in lines {
                                    ui.label(RichText::new(k).font(key_font.clone()).strong().color(VALUE));
                                    ui.label(RichText::new(action(text)).font(text_font.clone()).color(VALUE));
                                    ui.end_row();
                                }
                            });
                    }
                });
            });
        })
        .response
        .rect
}

/// Secondary text: captions, seed, status, hint.
fn caption(text: impl Into<String>, color: Color32) -> RichText {
    RichText::new(text).size(CAPTION_SIZE).color(color)
}

fn key(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).color(LABEL));
}

fn value(ui: &mut Ui, text: String, color: Color32) {
    ui.label(RichText::new(text).monospace().color(color));
}

fn count_color(count: u64, nonzero: Color32) -> Color32 {
    if count == 0 { VALUE } else { nonzero }
}

fn or_dash(text: &str) -> &str {
    if text.is_empty() { "—" } else { text }
}

fn hz(rate: f64) -> String {
    format!("{rate:.2} Hz")
}

fn opt_hz(rate: Option<f64>) -> String {
    rate.map_or_else(|| "—".to_owned(), hz)
}

/// Period in ms of a positive, finite rate.
fn period_ms(rate_hz: f64) -> Option<f64> {
    (rate_hz.is_finite() && rate_hz > 0.0).then(|| 1e3 / rate_hz)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job_text(job: &LayoutJob) -> &str {
        &job.text
    }

    #[test]
    fn pattern_keeps_the_last_120_frames_on_three_lines_of_four_groups() {
        let pattern: String = "2".repeat(30) + &"1".repeat(120);
        let job = pattern_job(&pattern, PatternShape::FULL);
        let text = job_text(&job);
        assert_eq!(text.lines().count(), 3, "120 frames wrap onto three lines: {text:?}");
        for line in text.lines() {
            let groups: Vec<&str> = line.split(' ').collect();
            assert_eq!(groups.len(), 4, "four groups per line: {line:?}");
            assert!(groups.iter().all(|g| g.len() == PATTERN_GROUP), "ten frames per group: {line:?}");
        }
        assert!(!text.contains('2'), "the 30 oldest frames fell off");
    }

    #[test]
    fn a_short_pattern_is_shown_whole() {
        let text = job_text(&pattern_job("111112111110", PatternShape::FULL)).to_owned();
        assert_eq!(text, "1111121111 10");
    }

    #[test]
    fn pattern_colours_highlight_zero_and_double_updates() {
        let job = pattern_job("11021+", PatternShape::FULL);
        let colours: Vec<Color32> = job.sections.iter().map(|s| s.format.color).collect();
        assert_eq!(colours, [DIM, WARN, BAD, DIM, BAD], "one section per run of the same class");
    }

    #[test]
    fn y_marks_are_a_few_round_steps() {
        assert_eq!(round_step(19.2), 20.0);
        assert_eq!(round_step(3.0), 5.0);
        assert_eq!(round_step(0.7), 1.0);
        assert_eq!(round_step(f64::NAN), 1.0);
        let marks = y_grid_marks(GridInput { bounds: (-2.0, 57.5), base_step_size: 0.1 });
        let values: Vec<f64> = marks.iter().map(|m| m.value).collect();
        assert_eq!(values, [0.0, 20.0, 40.0], "frame times up to 57.5 ms get marks every 20 ms");
        assert!(y_grid_marks(GridInput { bounds: (f64::NEG_INFINITY, 1.0), base_step_size: 0.1 }).is_empty());
    }

    #[test]
    fn the_fonts_have_every_glyph_the_panel_uses() {
        let ctx = new_context();
        ctx.run_ui(egui::RawInput::default(), |_| {}).drop_without_applying_deltas();
        let text = "catch-up Fifo 0123456789 +-.,:;%()\"' · — - × – … @";
        for font in [FontId::proportional(CAPTION_SIZE), FontId::monospace(PATTERN_SIZE)] {
            let missing: String = ctx.fonts_mut(|fonts| text.chars().filter(|&c| !fonts.has_glyph(&font, c)).collect());
            assert!(
                missing.is_empty(),
                "{font:?} lacks {missing:?}: egui needs its `default_fonts` feature (Cargo.toml) to draw text"
            );
        }
    }

    /// One egui frame of the overlay's panels at 1280 × 720 points with `events`.
    fn overlay_frame(ctx: &egui::Context, hud: &HudData, events: Vec<egui::Event>) {
        let raw = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0))),
            focused: true,
            events,
            ..Default::default()
        };
        let mut points = Vec::new();
        ctx.run_ui(raw, |ui| {
            stats_panel(ui.ctx(), hud, &mut points);
        })
        .drop_without_applying_deltas();
    }

    fn key(key: egui::Key) -> egui::Event {
        egui::Event::Key { key, physical_key: None, pressed: true, repeat: false, modifiers: egui::Modifiers::NONE }
    }

    #[test]
    fn after_tab_egui_would_take_every_key_but_the_overlay_leaves_them_to_the_game() {
        let ctx = new_context();
        let hud = HudData { pattern: "1111".to_owned(), ..HudData::default() };
        overlay_frame(&ctx, &hud, Vec::new());
        overlay_frame(&ctx, &hud, vec![key(egui::Key::Tab)]);
        overlay_frame(&ctx, &hud, Vec::new());
        // The reason keys are not forwarded: egui-winit reports a key as consumed while any
        // widget has focus, and Tab gives the panel's plot the focus.
        assert!(
            ctx.egui_wants_keyboard_input(),
            "Tab focused a widget of the panel: {:?}",
            ctx.memory(|m| m.focused())
        );
        assert!(!egui_takes_keys(&ctx), "no text field is edited, so the game gets the keys");
    }

    /// Every piece of text one frame of the overlay lays out at `size` points, with where it is.
    fn texts_at(hud: &HudData, size: [f32; 2]) -> Vec<(String, egui::Rect)> {
        let ctx = new_context();
        let mut overlay_points = Vec::new();
        let raw = || egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0], size[1]))),
            focused: true,
            ..Default::default()
        };
        let frame = |ctx: &egui::Context, points: &mut Vec<PlotPoint>| {
            ctx.run_ui(raw(), |ui| {
                let ctx = ui.ctx().clone();
                let screen = ctx.content_rect();
                match LayoutMode::for_screen([screen.width(), screen.height()]) {
                    LayoutMode::Full => stats_panel(&ctx, hud, points),
                    LayoutMode::Compact => compact_panel(&ctx, hud, screen),
                };
            })
        };
        // The second frame, as on screen: egui sizes some things from the frame before.
        frame(&ctx, &mut overlay_points).drop_without_applying_deltas();
        let output = frame(&ctx, &mut overlay_points);
        let mut texts = Vec::new();
        let mut shapes: Vec<egui::Shape> = output.shapes.into_iter().map(|clipped| clipped.shape).collect();
        while let Some(shape) = shapes.pop() {
            match shape {
                egui::Shape::Text(text) => texts.push((text.galley.text().to_owned(), text.visual_bounding_rect())),
                egui::Shape::Vec(inner) => shapes.extend(inner),
                _ => {}
            }
        }
        texts
    }

    #[test]
    fn the_compact_line_shows_fps_strategy_pattern_and_the_f1_hint_inside_a_320x240_or_640x360_window() {
        let hud = HudData {
            strategy_name: "extrapolated",
            fps: 59.9,
            pattern: "1111111111".repeat(12) + "0",
            ..HudData::default()
        };
        for size in [[320.0, 240.0], [640.0, 360.0]] {
            assert_eq!(LayoutMode::for_screen(size), LayoutMode::Compact);
            let texts = texts_at(&hud, size);
            let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(size[0], size[1]));
            for (text, rect) in &texts {
                assert!(screen.contains_rect(*rect), "{size:?}: {text:?} at {rect:?} leaves the window");
            }
            let find = |wanted: &str| texts.iter().any(|(text, _)| text.contains(wanted));
            let all: Vec<&str> = texts.iter().map(|(text, _)| text.as_str()).collect();
            for wanted in ["extrapolated", "FPS", "59.9", "1111111111", "F1 help"] {
                assert!(find(wanted), "{size:?}: the compact panel lacks {wanted:?}; it shows {all:?}");
            }
            // The newest frame of the pattern (the last character) is on screen.
            let pattern_end = texts.iter().any(|(text, _)| text.trim_end().ends_with('0'));
            assert!(pattern_end, "{size:?}: the newest pattern frame is cut off: {all:?}");
        }
    }

    #[test]
    fn the_layout_is_full_from_448_by_680_points_and_compact_below() {
        assert_eq!(LayoutMode::for_screen([1280.0, 720.0]), LayoutMode::Full);
        assert_eq!(LayoutMode::for_screen([448.0, 680.0]), LayoutMode::Full);
        assert_eq!(LayoutMode::for_screen([447.9, 1080.0]), LayoutMode::Compact);
        assert_eq!(LayoutMode::for_screen([1920.0, 679.0]), LayoutMode::Compact);
        assert_eq!(LayoutMode::for_screen([640.0, 360.0]), LayoutMode::Compact);
        assert_eq!(LayoutMode::for_screen([320.0, 240.0]), LayoutMode::Compact);
    }

    #[test]
    fn a_compact_pattern_line_holds_as_many_whole_groups_as_fit() {
        // Digits 7 points wide: a group and its space take 77 points.
        assert_eq!(PatternShape::fitting(300.0, 7.0, 1), PatternShape { per_line: 30, lines: 1 });
        assert_eq!(PatternShape::fitting(224.0, 7.0, 3), PatternShape { per_line: 30, lines: 3 }, "3 × 77 − 7 = 224");
        assert_eq!(PatternShape::fitting(223.0, 7.0, 3), PatternShape { per_line: 20, lines: 3 });
        assert_eq!(PatternShape::fitting(10.0, 7.0, 0), PatternShape { per_line: 10, lines: 1 }, "at least one group");
        assert_eq!(PatternShape::fitting(5000.0, 7.0, 3), PatternShape::FULL, "never more than the full panel's");
        let text = pattern_job(&"1".repeat(100), PatternShape { per_line: 20, lines: 2 }).text;
        assert_eq!(text, "1111111111 1111111111\n1111111111 1111111111", "the newest 40 frames");
    }

    #[test]
    fn period_of_a_rate_ignores_zero_and_nonsense() {
        assert_eq!(period_ms(50.0), Some(20.0));
        assert_eq!(period_ms(0.0), None);
        assert_eq!(period_ms(f64::NAN), None);
    }
}
