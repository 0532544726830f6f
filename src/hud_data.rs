//! What the overlay draws for one frame: the core's [`LoopFigures`] (filled by the session) and
//! the app's own overlay data (CPU, GPU times, sprites, load, help, lanes), in [`HudData`].
//!
//! ```text
//!   Session::fill_hud ──► HudData.figures      strategy, display, rates, pattern, FrameStats
//!   the app           ──► HudData (the rest)   CPU, GPU passes, sprites, load, ghosts, help, lanes
//!   Overlay::draw     ◄── &HudData             draws, never changes it
//! ```

pub use timestep_core::hud::{FRAME_TIME_CAPACITY, FRAME_TIME_WINDOW, FrameTimeRing, LoopFigures};

/// One lane's label in lane mode: its strategy and how that strategy's motion
/// fares, from the lane's own session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaneLabel {
    /// Strategy id, e.g. `"catch-up"`.
    pub(crate) strategy: &'static str,
    /// The whole lane, `[x, y, width, height]` in playfield pixels.
    pub(crate) rect: [f32; 4],
    /// Width of the label column at the lane's left, playfield pixels.
    pub(crate) label_width: f32,
    /// Updates per displayed refresh over the last frames, oldest first (as [`LoopFigures::pattern`]).
    pub(crate) pattern: String,
    /// Judder over the recent frames, ms (NaN before there are any).
    pub(crate) judder_ms: f64,
    /// Hitches per minute, where the metrics count them.
    pub(crate) hitches_per_min: Option<f64>,
    /// Mean latency over the recent frames, ms (NaN before there are any).
    pub(crate) latency_ms: f64,
    /// Speed error over the recent frames, ms of game time per minute (NaN before there are
    /// any): lockstep on a 144 Hz display runs the game 2.4× fast, smoothly.
    pub(crate) drift_ms_per_min: f64,
    /// The strategy decides when frames happen, so the lane does not run.
    pub(crate) needs_loop: bool,
    /// The selected lane (Enter adopts its strategy).
    pub(crate) selected: bool,
}

/// Where the runner's lane is, for the overlay's label: the playfield size and the lane's
/// centre line, in playfield pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunnerLane {
    /// The playfield the world is laid out in (letterboxed into the window).
    pub playfield: [f32; 2],
    /// The y of the runner's centre; it never changes.
    pub y: f32,
}

/// Everything the overlay draws for one frame. The app updates the fields it measures; the
/// overlay never changes them.
#[derive(Debug, Clone)]
pub struct HudData {
    /// The loop's figures, from the session.
    pub figures: LoopFigures,
    /// Process CPU use in percent of one core; `None` where it can't be measured.
    pub cpu_percent: Option<f64>,
    /// Sprites drawn.
    pub sprite_count: usize,
    /// Name of the artificial load preset (`"none"`, `"render +5 ms"`, ...).
    pub load_preset: &'static str,
    /// Ghost markers (where each mover should be vs where it is drawn) are on.
    pub ghosts: bool,
    /// CPU time the overlay took last frame, in ms, as returned by `Overlay::draw` (building,
    /// tessellating, uploading; the rasterising of the panel is not in it).
    pub overlay_cost_ms: f64,
    /// The adapter can time render passes (timestamp queries).
    pub gpu_timing: bool,
    /// GPU time of the scene pass over the last second, ms.
    pub gpu_scene_ms: Option<f64>,
    /// GPU time of the overlay pass over the last second, ms.
    pub gpu_overlay_ms: Option<f64>,
    /// Key bindings for the F1 help, as (key, action), generated from the binding table.
    pub help_lines: Vec<(String, String)>,
    /// The F1 help table is open.
    pub show_help: bool,
    /// Lane mode: one label per lane, top to bottom; empty when lane mode is off.
    pub lanes: Vec<LaneLabel>,
    /// The playfield the lanes' rectangles are in, playfield pixels.
    pub lane_playfield: [f32; 2],
    /// The runner's lane, labelled by the overlay; `None`: no label.
    pub runner_lane: Option<RunnerLane>,
    /// What the window's own life adds (time hidden, a capped buffer, missed refreshes), one line each.
    pub notes: Vec<String>,
    /// Points along the bottom the overlay leaves free (a page's own bar of buttons).
    pub reserved_bottom_points: f32,
    /// The display-time source and its counts (`x11-present: 58 flip, 2 copy, 0 skip`),
    /// or `present-return (why)`; empty where none was asked for.
    pub display_times: String,
    /// The frames are timed by their present's return because a source failed or stayed silent.
    pub display_times_fell_back: bool,
}

impl Default for HudData {
    fn default() -> Self {
        Self {
            figures: LoopFigures::default(),
            cpu_percent: None,
            sprite_count: 0,
            load_preset: "none",
            ghosts: false,
            overlay_cost_ms: 0.0,
            gpu_timing: false,
            gpu_scene_ms: None,
            gpu_overlay_ms: None,
            help_lines: Vec::new(),
            show_help: false,
            lanes: Vec::new(),
            lane_playfield: [0.0, 0.0],
            runner_lane: None,
            notes: Vec::new(),
            reserved_bottom_points: 0.0,
            display_times: String::new(),
            display_times_fell_back: false,
        }
    }
}
