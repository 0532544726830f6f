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
//! The panel is laid out for a 400-point column in the top-left corner; F1 opens the key table in
//! the top-right corner. In lane mode ([`HudData::lanes`] not empty) the panel gives way to one
//! label per lane, in the label column at the lane's left, mapped through the same letterbox as
//! the sprites.

use std::time::{Duration, Instant};

use egui::text::LayoutJob;
use egui::{Align2, Color32, FontId, RichText, TextFormat, Ui};
use egui_plot::{GridInput, GridMark, HLine, Line, LineStyle, Plot, PlotPoint, PlotPoints};

use super::egui_painter::EguiPainter;
use super::gpu_timer::PassTimestamps;
use crate::hud::{HudData, LaneLabel};

/// Width of the panel's content column, in points.
const PANEL_WIDTH: f32 = 400.0;
/// Height of the frame-time plot, in points.
const PLOT_HEIGHT: f32 = 110.0;
/// Update-pattern frames per line: 120 frames on three lines, in groups of [`PATTERN_GROUP`].
const PATTERN_LINE: usize = 40;
/// Frames per space-separated group, so positions can be counted at a glance.
const PATTERN_GROUP: usize = 10;
/// Frames of update pattern shown.
const PATTERN_FRAMES: usize = 120;
/// Text size of captions and secondary lines, in points.
const CAPTION_SIZE: f32 = 11.0;
/// Judder below which the number turns green: a quarter of a 120 Hz refresh period. A colour
/// cue for "small", not a perceptual threshold.
const JUDDER_SMOOTH_MS: f64 = 2.0;
/// Distance of the panels from the window's corners, in points.
const MARGIN: f32 = 8.0;

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
        }
    }

    /// Passes a window event to egui. Returns true if egui consumed it (e.g. a click on the
    /// panel), in which case the game should ignore it. Hidden overlays consume nothing.
    pub fn on_window_event(&mut self, window: &winit::window::Window, event: &winit::event::WindowEvent) -> bool {
        match self.winit.as_mut() {
            Some(state) if self.visible => state.on_window_event(window, event).consumed,
            _ => false,
        }
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
            return 0.0;
        }
        let started = Instant::now();
        let raw_input = match self.winit.as_mut() {
            Some(state) => state.take_egui_input(window),
            None => self.headless_input(size_px),
        };
        let mut full_output = self.run(raw_input, hud);
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
            return 0.0;
        }
        let started = Instant::now();
        let raw_input = self.headless_input(size_px);
        let full_output = self.run(raw_input, hud);
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

    fn run(&mut self, raw_input: egui::RawInput, hud: &HudData) -> egui::FullOutput {
        let Self { ctx, points, .. } = self;
        ctx.run_ui(raw_input, |ui| {
            let ctx = ui.ctx().clone();
            if hud.lanes.is_empty() {
                stats_panel(&ctx, hud, points);
            } else {
                lane_labels(&ctx, hud);
            }
            if hud.show_help {
                help_panel(&ctx, hud);
            }
        })
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

fn elapsed_ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn panel_frame() -> egui::Frame {
    egui::Frame::new()
        .fill(PANEL_FILL)
        .stroke(egui::Stroke::new(1.0, Color32::from_white_alpha(28)))
        .corner_radius(6)
        .inner_margin(10)
}

/// The main panel, top-left.
fn stats_panel(ctx: &egui::Context, hud: &HudData, points: &mut Vec<PlotPoint>) {
    egui::Area::new(egui::Id::unique("timestep_lab_overlay"))
        .anchor(Align2::LEFT_TOP, egui::vec2(MARGIN, MARGIN))
        .movable(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            panel_frame().show(ui, |ui| {
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
        });
}

/// Lane mode: a label in each lane's label column (strategy, judder, hitches, latency, pattern),
/// the selected lane outlined.
fn lane_labels(ctx: &egui::Context, hud: &HudData) {
    let screen = ctx.viewport_rect();
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
    let number = |v: f64, unit: &str| if v.is_finite() { format!("{v:.2} {unit}") } else { "—".to_owned() };
    let hitches = lane.hitches_per_min.map_or_else(|| "—".to_owned(), |h| format!("{h:.1}"));
    ui.label(
        caption(
            format!(
                "judder {} · hitches {hitches}/min · latency {}",
                number(lane.judder_ms, "ms"),
                number(lane.latency_ms, "ms")
            ),
            VALUE,
        )
        .monospace(),
    );
    if lane.pattern.is_empty() {
        ui.label(RichText::new("—").monospace().color(DIM));
    } else {
        ui.label(pattern_job(&lane.pattern));
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
    Plot::new("overlay_frame_times")
        .height(PLOT_HEIGHT)
        .width(PANEL_WIDTH)
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
                    HLine::new("tick period", ms).color(TICK_LINE).width(1.0).style(LineStyle::Dashed { length: 6.0 }),
                );
            }
            plot.line(Line::new("frame interval (ms)", PlotPoints::Borrowed(points)).color(FRAME_LINE).width(1.5));
        });
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
    ui.label(pattern_job(&hud.pattern));
}

/// The last [`PATTERN_FRAMES`] of the pattern as coloured monospace runs (`1` dim, `0` amber,
/// `2`–`9` and `+` (ten or more) red), [`PATTERN_LINE`] frames per line in space-separated groups of [`PATTERN_GROUP`].
fn pattern_job(pattern: &str) -> LayoutJob {
    let font = FontId::monospace(12.0);
    let mut job = LayoutJob::default();
    let tail_start = pattern.char_indices().rev().nth(PATTERN_FRAMES - 1).map_or(0, |(i, _)| i);
    let tail = &pattern[tail_start..];
    let mut run_start = 0;
    let mut run_color = None;
    for (frame, (i, c)) in tail.char_indices().enumerate() {
        let color = pattern_color(c);
        let separator = match frame {
            0 => None,
            _ if frame % PATTERN_LINE == 0 => Some("\n"),
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
        key(ui, "drift");
        value(ui, format!("{:+7.1} ms", hud.drift_ms), VALUE);
        ui.end_row();

        key(ui, "judder");
        value(ui, format!("{:7.2} ms", hud.judder_ms), if hud.judder_ms < JUDDER_SMOOTH_MS { GOOD } else { WARN });
        key(ui, "game speed");
        value(ui, format!("{:7.4}×", hud.speed_ratio), VALUE);
        ui.end_row();

        key(ui, "latency");
        value(ui, format!("{:7.2} ms", hud.latency_ms), VALUE);
        key(ui, "CPU");
        match hud.cpu_percent {
            Some(p) => value(ui, format!("{p:7.1} %"), VALUE),
            None => value(ui, format!("{:>7}", "—"), DIM),
        }
        ui.end_row();

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

/// A GPU pass time, `—` before the first reading, `n/a` without timestamp queries.
fn gpu_value(ui: &mut Ui, supported: bool, ms: Option<f64>) {
    match ms {
        Some(ms) => value(ui, format!("{ms:7.2} ms"), VALUE),
        None => value(ui, format!("{:>7}", if supported { "—" } else { "n/a" }), DIM),
    }
}

/// The F1 key table, top-right.
fn help_panel(ctx: &egui::Context, hud: &HudData) {
    egui::Area::new(egui::Id::unique("timestep_lab_help"))
        .anchor(Align2::RIGHT_TOP, egui::vec2(-MARGIN, MARGIN))
        .movable(false)
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            redo_pass_if_sizing(ui);
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
            panel_frame().show(ui, |ui| {
                ui.label(RichText::new("Keys").strong().color(ACCENT));
                egui::Grid::new("overlay_help").num_columns(2).spacing([12.0, 2.0]).show(ui, |ui| {
                    for (k, action) in &hud.help_lines {
                        ui.label(RichText::new(k).monospace().strong().color(VALUE));
                        ui.label(RichText::new(action).color(VALUE));
                        ui.end_row();
                    }
                });
            });
        });
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
        let job = pattern_job(&pattern);
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
        let text = job_text(&pattern_job("111112111110")).to_owned();
        assert_eq!(text, "1111121111 10");
    }

    #[test]
    fn pattern_colours_highlight_zero_and_double_updates() {
        let job = pattern_job("11021+");
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
        for font in [FontId::proportional(CAPTION_SIZE), FontId::monospace(12.0)] {
            let missing: String = ctx.fonts_mut(|fonts| text.chars().filter(|&c| !fonts.has_glyph(&font, c)).collect());
            assert!(
                missing.is_empty(),
                "{font:?} lacks {missing:?}: egui needs its `default_fonts` feature (Cargo.toml) to draw text"
            );
        }
    }

    #[test]
    fn period_of_a_rate_ignores_zero_and_nonsense() {
        assert_eq!(period_ms(50.0), Some(20.0));
        assert_eq!(period_ms(0.0), None);
        assert_eq!(period_ms(f64::NAN), None);
    }
}
