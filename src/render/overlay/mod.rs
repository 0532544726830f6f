//! The live overlay: what the current loop strategy does on this monitor, in numbers and a plot.
//!
//! egui builds the panel from a [`HudData`] each frame, our [`EguiPainter`] draws it over the
//! finished scene in its own render pass (`LoadOp::Load`), and egui-winit feeds it window events. The
//! headless constructor skips egui-winit entirely so tests draw the same panel into an
//! offscreen texture: one [`Overlay::draw`] serves both, and its [`Input`] says where egui's
//! input and scale come from.
//!
//! ```text
//!   app: HudData ──► Overlay::draw ──► egui pass ──► tessellate ──► upload ──► render pass
//!                        │                                                   (Load, over scene)
//!                        └── returns its own CPU cost in ms ──► HudData::overlay_cost_ms
//! ```
//!
//! Keyboard: egui never sees a key unless one of its text fields is being edited (the overlay
//! has none), so every key reaches the game. Forwarded keys would let Tab move egui's focus to a
//! widget, after which egui-winit reports every key (and the first Esc) as consumed.
//!
//! The pieces, one job each: `panels` (the stats panel, the compact line for small windows,
//! the F1 key table), `labels` (the runner's lane, lane mode), `frame_plots` (frame times and the
//! present-interval histogram), `pattern_strip` (the update pattern) and `style` (sizes, colours,
//! text helpers).

mod frame_plots;
mod labels;
mod panels;
mod pattern_strip;
mod style;

use crate::time::Instant;

use egui_plot::PlotPoint;

pub use self::frame_plots::present_interval_line;
use self::labels::{lane_labels, runner_label};
pub use self::panels::{FULL_MIN_POINTS, MetricRow, PanelLayout, metric_rows};
use self::panels::{compact_panel, help_panel, stats_panel};
use self::style::new_context;
use super::egui_painter::EguiPainter;
use super::gpu_timer::PassTimestamps;
use crate::hud_data::HudData;

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
    /// Drawing-buffer pixels per window pixel (below 1 where the buffer is capped).
    buffer_scale: f32,
}

/// Where a draw records its render pass: into `encoder`, over `view`, which is `size_px` large.
#[derive(Debug)]
pub struct Target<'a> {
    encoder: &'a mut wgpu::CommandEncoder,
    view: &'a wgpu::TextureView,
    size_px: [u32; 2],
}

impl<'a> Target<'a> {
    /// A pass into `encoder` over `view`; `size_px` must be the view's size.
    pub fn new(encoder: &'a mut wgpu::CommandEncoder, view: &'a wgpu::TextureView, size_px: [u32; 2]) -> Target<'a> {
        Target { encoder, view, size_px }
    }
}

/// Where a draw's egui input and scale come from; the only difference between the window and
/// the headless overlay.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Input<'a> {
    /// The window's events (from [`Overlay::on_window_event`]) and scale factor; egui's platform
    /// output (cursor, clipboard) goes back to it.
    Window(&'a winit::window::Window),
    /// Made up: the target's size at the scale given to [`Overlay::new_headless`].
    Headless,
}

/// Where the last draw put things, in target pixels (`min`/`max` corners).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverlayLayout {
    /// The layout chosen for the target's size.
    pub kind: PanelLayout,
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

/// Key presses and IME text: what the game gets rather than egui (see the module docs).
fn is_keyboard(event: &winit::event::WindowEvent) -> bool {
    matches!(event, winit::event::WindowEvent::KeyboardInput { .. } | winit::event::WindowEvent::Ime(_))
}

impl Overlay {
    /// An overlay for `window`, drawing into targets of `format`.
    pub(crate) fn new(device: &wgpu::Device, format: wgpu::TextureFormat, window: &winit::window::Window) -> Overlay {
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
            points: Vec::with_capacity(crate::hud_data::FRAME_TIME_CAPACITY),
            timestamps: None,
            drew_pass: false,
            layout: None,
            buffer_scale: 1.0,
        }
    }

    /// Passes a window event to egui. Returns true if egui consumed it (e.g. a click on the
    /// panel), in which case the game should ignore it. Hidden overlays consume nothing, and keys
    /// go to the game unless a text field is being edited (see the module docs).
    pub(crate) fn on_window_event(
        &mut self,
        window: &winit::window::Window,
        event: &winit::event::WindowEvent,
    ) -> bool {
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
    /// [`Input::Window`] needs an overlay made by [`Self::new`]; one made by
    /// [`Self::new_headless`] draws as for [`Input::Headless`].
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        target: Target<'_>,
        input: Input<'_>,
        hud: &HudData,
    ) -> f64 {
        self.drew_pass = false;
        if !self.visible {
            self.layout = None;
            return 0.0;
        }
        let started = Instant::now();
        let window = match input {
            Input::Window(window) => Some(window),
            Input::Headless => None,
        };
        let raw_input = match (self.winit.as_mut(), window) {
            (Some(state), Some(window)) => window_input(state, window, target.size_px, self.buffer_scale, self.start),
            _ => self.headless_input(target.size_px),
        };
        let mut full_output = self.run(raw_input, target.size_px, hud);
        if let (Some(state), Some(window)) = (self.winit.as_mut(), window) {
            state.handle_platform_output(window, std::mem::take(&mut full_output.platform_output));
        }
        self.paint(device, queue, target, full_output);
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

    /// The drawing buffer has `scale` pixels per window pixel (a capped
    /// buffer): the panels keep their size in points on the window.
    pub(crate) fn set_buffer_scale(&mut self, scale: f32) {
        self.buffer_scale = if scale.is_finite() && scale > 0.0 { scale } else { 1.0 };
    }

    /// Shows or hides the overlay (`H`).
    pub fn set_visible(&mut self, on: bool) {
        self.visible = on;
    }

    /// The input of a window that never has events: the target's size at the constructor's scale.
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

    /// The egui frame: the panels (or lane labels), the key table, the runner's label; records
    /// where they went, in target pixels, for [`Self::layout`].
    fn run(&mut self, raw_input: egui::RawInput, size_px: [u32; 2], hud: &HudData) -> egui::FullOutput {
        let Self { ctx, points, layout, .. } = self;
        let output = ctx.run_ui(raw_input, |ui| {
            let ctx = ui.ctx().clone();
            let screen = ctx.content_rect();
            let kind = PanelLayout::for_screen([screen.width(), screen.height()]);
            let panel = if !hud.lanes.is_empty() {
                lane_labels(&ctx, hud);
                egui::Rect::from_min_size(screen.min, egui::Vec2::ZERO)
            } else {
                match kind {
                    PanelLayout::Full => stats_panel(&ctx, hud, points),
                    PanelLayout::Compact => compact_panel(&ctx, hud, screen),
                }
            };
            let help = hud.show_help.then(|| help_panel(&ctx, hud, kind, screen, panel));
            let runner_label = hud
                .runner_lane
                .filter(|_| hud.lanes.is_empty())
                .and_then(|lane| runner_label(&ctx, lane, size_px, screen, panel));
            *layout = Some(OverlayLayout { kind, panel, help, runner_label });
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

    /// Applies egui's texture changes and records the render pass over `target`.
    fn paint(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, target: Target<'_>, full_output: egui::FullOutput) {
        let Target { encoder, view, size_px } = target;
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
                    view,
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
    buffer_scale: f32,
    start: Instant,
) -> egui::RawInput {
    // egui-winit maps the pointer with the window's own scale; only the drawing is scaled.
    let native = window.scale_factor() as f32 * buffer_scale;
    let ppp = native * state.egui_ctx().zoom_factor();
    let input = state.egui_input_mut();
    input.time = Some(start.elapsed().as_secs_f64());
    let points = egui::vec2(size_px[0] as f32 / ppp, size_px[1] as f32 / ppp);
    input.screen_rect = (points.x > 0.0 && points.y > 0.0).then(|| egui::Rect::from_min_size(egui::Pos2::ZERO, points));
    input.viewport_id = egui::ViewportId::ROOT;
    input.viewports.entry(egui::ViewportId::ROOT).or_default().native_pixels_per_point = Some(native);
    input.take()
}

/// Milliseconds since `since`.
fn elapsed_ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hud_data::LoopFigures;

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
        let hud = HudData {
            figures: LoopFigures { pattern: "1111".to_owned(), ..LoopFigures::default() },
            ..HudData::default()
        };
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
}
