//! The running demo: a [`Session`] on the demo world, the window and the GPU,
//! and what the keys change.
//!
//! ```text
//!   Demo::frame ─► single mode:  screen.draw(WindowHost) ─► session.run_host_frame ─► session.record   (frames.rs)
//!               │                 └► session.fill_hud(hud) ─► next frame's overlay
//!               └► lane mode:    lanes.run_lane_frames(start) ─► WindowHost::show_instances ─► lanes.record
//!                                 (the demo's session is paused meanwhile: see `loops` and `app::lanes`)
//!   a change (tick rate, present mode, monitor, gap) ─► Loops ─► the session, and the lanes in lane mode
//!   Demo::act   ─► Action (from the key table) ─► session / lanes / window / gfx    (keys.rs)
//!   shell, tour    ─► Demo's methods (redraws, resizes, reports), never its parts
//! ```
//!
//! The session holds every number; this type holds only what is platform
//! (the [`Screen`]: window, GPU, overlay numbers) or demo (ghosts, load,
//! player input, lane mode). Its parts are private: the shell and the
//! measure tour say what they want (`request_redraw`, `resized`, `report`)
//! and the demo keeps its parts consistent, the lanes included.

mod frames;
mod keys;
pub(crate) mod life;
mod loops;

use crate::report_card::DisplayTiming;
use std::collections::VecDeque;
use std::io::BufWriter;

use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;
use winit::keyboard::ModifiersState;
use winit::monitor::MonitorHandle;

use crate::app::bindings;
use crate::app::config::{Emulation, RunConfig};
use crate::app::cpu::CpuSampler;
use crate::app::cpu_load::LoadPreset;
use crate::app::gfx::{Gfx, GpuStart, ScreenshotScene};
use crate::app::run_outputs::{FrameLog, StatsJson};
use crate::app::window_host::Screen;
use crate::app::window_state::{IDLE_RETRY, OnMonitor, WindowState};
use crate::error::CliError;
use crate::hold::PresentHold;
use crate::host::FrameReport;
use crate::hud_data::{HudData, RunnerLane};
use crate::refresh::Verdict;
use crate::report::{RunOrigin, RunReport};
use crate::rng::SplitMix64;
use crate::session::{DisplayInfo, Session};
use crate::sim::{Input, MoverKind, World, WorldConfig};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{Clock, Nanos, Rate, RealClock};
use crate::vblank::{EmulatedVsync, VblankGrid};
use crate::vrr::VrrRange;

use life::Life;
use loops::Loops;

/// The playfield the world simulates, in world units (pixels at 100 %).
pub(crate) const PLAYFIELD: [f32; 2] = [1280.0, 720.0];

/// The demo world's settings for `config`, on the [`PLAYFIELD`].
fn world_config(config: &RunConfig) -> WorldConfig {
    WorldConfig {
        width: PLAYFIELD[0],
        height: PLAYFIELD[1],
        extra_sprites: config.sprites as usize,
        ..WorldConfig::default()
    }
}

/// A fresh session on a fresh world: `strategy` with `config` on `display`
/// from `now`, the keys held now held in it. Every session the demo runs is made here.
fn fresh_session(
    world: &WorldConfig,
    strategy: StrategyId,
    config: StrategyConfig,
    display: DisplayInfo,
    input: Input,
    frame_limit: Option<Rate>,
    now: Nanos,
) -> Session<World> {
    let mut session = Session::new(strategy, config, World::new(world), display, now);
    session.world_mut().set_input(input);
    session.keep_settled(true);
    session.set_frame_limit(frame_limit);
    session
}

/// What the keys toggle that is neither the session's nor the window's.
#[derive(Clone, Copy, Debug)]
struct Controls {
    ghosts: bool,
    load: LoadPreset,
    rng: SplitMix64,
    input: Input,
    modifiers: ModifiersState,
}

/// The demo once its window is up.
pub(crate) struct Demo {
    /// The window, the GPU, the overlay's numbers: what frames draw with.
    screen: Screen,
    /// The demo's session (the loop and its numbers), and the lanes in lane mode.
    loops: Loops,
    /// `--emulate-refresh`, to give each monitor its grid when the window moves.
    emulation: Option<(Emulation, u64)>,
    /// How long the frame about to run waited for its redraw (the compositor's go-ahead).
    redraw_wait: Nanos,
    /// Whether the emulated refresh was checked against the page's (once).
    emulation_checked: bool,
    controls: Controls,
    /// Render start to display, last frame: where ghosts are drawn.
    display_lead: Nanos,
    /// The lead of held presents (self-paced strategies, non-blocking present).
    hold: PresentHold,
    cpu: CpuSampler,
    log_at: Nanos,
    /// When the paused demo last drew its still picture.
    still_at: Nanos,
    /// Where the pointer is, window pixels (a click selects the lane under it).
    pointer: Option<[f32; 2]>,
    /// `--frame-log`.
    frame_log: Option<FrameLog<BufWriter<crate::platform::OutputFile>>>,
    /// `--seed`, for the reports.
    seed: u64,
    /// Whether [`Demo::warm_up`] has run.
    warmed: bool,
    /// Frames start on timers instead of the display's refresh (`V` where
    /// vsync cannot be turned off: a browser's requestAnimationFrame).
    timer_driven: bool,
    /// Time hidden, a capped buffer: the window's life, apart from the monitor's.
    life: Life,
    /// Each recorded strategy frame's wait for the display, by id, until it is settled.
    waits: VecDeque<(u64, Nanos, Nanos)>,
    /// The strategy frames settled in the last frame that were shown (reused).
    shown: Vec<ShownFrame>,
}

/// A strategy frame shown on screen, settled: its report (with the display
/// time its figures used, the compositor's where it said) and how long it
/// waited for the display (acquire, present, an emulated vblank).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ShownFrame {
    /// The frame's report.
    pub(crate) report: FrameReport,
    /// Its wait for the display.
    pub(crate) display_wait: Nanos,
    /// How long its redraw waited to arrive (on Wayland, for the compositor's frame callback).
    pub(crate) redraw_wait: Nanos,
}

impl Demo {
    /// Finishes the GPU's start-up for the window `win` and starts the session.
    ///
    /// # Errors
    /// See [`Gfx::new`].
    pub(crate) fn start(
        win: WindowState,
        gpu: GpuStart,
        config: &RunConfig,
        clock: &RealClock,
    ) -> Result<Demo, CliError> {
        let mut win = win;
        let gfx = Gfx::new(gpu, &win.window, config)?;
        let monitor = win.follow_monitor(true).unwrap_or_else(|| win.on_monitor());
        let emulation = config.emulation.clone().map(|e| (e, config.seed));
        let emulated = emulated_rate(emulation.as_ref(), monitor.index);
        let gate = emulated_vrr(emulation.as_ref(), monitor.index);
        let display = DisplayInfo::default()
            .with_monitor(monitor.label)
            .with_reported(monitor.reported)
            .with_emulated(emulated)
            .with_emulated_vrr(gate)
            .with_present_mode(gfx.present_mode())
            .with_present_mode_requested(config.present_mode.label())
            .with_display_time_source(crate::platform::DISPLAY_TIME_SOURCE);
        let feedback = display_timer(&win, &gfx, config, clock);
        let frame_log = config.frame_log.as_deref().map(FrameLog::create).transpose()?;
        let now = clock.now();
        let world = world_config(config);
        let session = fresh_session(
            &world,
            config.strategy,
            config.strategy_config,
            display,
            Input::NONE,
            config.frame_limit,
            now,
        );
        let hud = first_hud(&win, &gfx, session.world());
        let instances = Vec::with_capacity(session.world().max_instances());
        let vsync = emulated_vsync(emulation.as_ref(), emulated, gate);
        let mut demo = Demo {
            screen: Screen { feedback, win, gfx, hud, instances, vsync },
            loops: Loops::new(session, config.lanes.0.clone()),
            emulation,
            redraw_wait: 0,
            emulation_checked: false,
            controls: Controls {
                ghosts: false,
                load: LoadPreset::None,
                rng: SplitMix64::new(config.seed),
                input: Input::NONE,
                modifiers: ModifiersState::empty(),
            },
            display_lead: 0,
            hold: PresentHold::new(),
            cpu: CpuSampler::new(),
            log_at: now,
            still_at: now,
            pointer: None,
            frame_log,
            seed: config.seed,
            warmed: false,
            timer_driven: false,
            life: Life::default(),
            waits: VecDeque::with_capacity(crate::session::AWAIT_SLOTS),
            shown: Vec::with_capacity(crate::session::AWAIT_SLOTS),
        };
        if config.start_in_lanes {
            demo.enter_lanes(now);
        }
        // A size reported before the GPU was ready (a page's first) was not seen: take it now.
        let size = demo.screen.win.window.inner_size();
        demo.resized(size.width, size.height, now);
        demo.refresh_hud(now);
        Ok(demo)
    }

    /// Starts over with a fresh world and session running `strategy` on the
    /// same display, in the present mode in effect, on this monitor's
    /// emulated vblank grid when `emulate` (else on none). The measure tour
    /// runs each segment so. `stand_in`: the refresh to count at when the
    /// monitor reports none (the tour's emulated grid, in its pass with
    /// vsync off).
    pub(crate) fn restart(
        &mut self,
        strategy: StrategyId,
        emulate: bool,
        stand_in: Option<Rate>,
        config: &RunConfig,
        now: Nanos,
    ) {
        let emulated = self.emulated_here().filter(|_| emulate);
        let gate = emulated_vrr(self.emulation.as_ref(), self.screen.win.on_monitor().index).filter(|_| emulate);
        let present_mode = self.screen.gfx.present_mode();
        let reported = self.screen.win.on_monitor().reported.or(stand_in);
        let display = self
            .loops
            .session
            .display()
            .clone()
            .with_emulated(emulated)
            .with_emulated_vrr(gate)
            .with_reported(reported)
            .with_present_mode(present_mode);
        let (world, input) = (world_config(config), self.controls.input);
        self.end_run();
        self.loops.session =
            fresh_session(&world, strategy, config.strategy_config, display, input, config.frame_limit, now);
        self.screen.vsync = emulated_vsync(self.emulation.as_ref(), emulated, gate);
        self.refresh_hud(now);
    }

    /// The emulated refresh `--emulate-refresh` gives the monitor the window is on.
    pub(crate) fn emulated_here(&self) -> Option<Rate> {
        emulated_rate(self.emulation.as_ref(), self.screen.win.on_monitor().index)
    }

    /// Whether a frame should be drawn now (never while the page is hidden).
    pub(crate) fn renderable(&mut self, now: Nanos) -> bool {
        let zero = self.screen.gfx.surface.is_zero_size();
        self.screen.win.renderable(now, zero) && !self.life.is_hidden()
    }

    /// The page was hidden (`true`: a background tab, a locked phone) or
    /// shown again at `now`. No frames meanwhile, and the time is a gap in
    /// every session's run, not a frame ([`Session::hidden`]). Returns the
    /// gap `(from, to)` when one ended.
    pub(crate) fn page_hidden(&mut self, hidden: bool, now: Nanos) -> Option<(Nanos, Nanos)> {
        let gap = self.life.hidden(hidden, now);
        if let Some((from, to)) = gap {
            log::info!("the page was hidden {:.1} s: a gap in the run, not a frame", (to - from) as f64 / 1e9);
            self.loops.hidden(from, to);
            self.hold.reset();
        }
        self.refresh_hud(now);
        gap
    }

    /// Follows the window to the monitor it is on now (a move, a scale change).
    pub(crate) fn follow_monitor(&mut self, now: Nanos) {
        let moved = self.screen.win.follow_monitor(false);
        self.move_to(moved, now);
    }

    /// Asks now and then which monitor the window is on (Wayland says so only
    /// after the surface enters an output, and sends no event for it).
    pub(crate) fn poll_monitor(&mut self, now: Nanos) {
        let moved = self.screen.win.poll_monitor(now);
        self.move_to(moved, now);
    }

    /// Moves the window (or its fullscreen) to the next monitor (`M`).
    pub(crate) fn next_monitor(&mut self, event_loop: &ActiveEventLoop) {
        self.screen.win.next_monitor(event_loop);
    }

    /// The monitor the platform says the window is on.
    pub(crate) fn current_monitor(&self) -> Option<MonitorHandle> {
        self.screen.win.window.current_monitor()
    }

    /// The window is on another monitor: its emulated grid (per monitor),
    /// its name and reported refresh; the session measures again.
    fn move_to(&mut self, monitor: Option<OnMonitor>, now: Nanos) {
        let Some(monitor) = monitor else { return };
        let emulated = emulated_rate(self.emulation.as_ref(), monitor.index);
        let gate = emulated_vrr(self.emulation.as_ref(), monitor.index);
        let had_gate = self.loops.session.display().emulated_vrr();
        if emulated != self.loops.session.display().emulated || gate != had_gate {
            let what = match (emulated, gate) {
                (Some(rate), _) => rate.to_string(),
                (None, Some(range)) => range.to_string(),
                (None, None) => "none".to_owned(),
            };
            log::info!("emulated refresh on this monitor: {what}");
            self.screen.vsync = emulated_vsync(self.emulation.as_ref(), emulated, gate);
        }
        self.loops.move_to_display(monitor, emulated, now);
        self.loops.session.set_emulated_vrr(gate, now);
        self.refresh_hud(now);
    }

    /// Frames stopped for a while (hidden, minimised, resized).
    fn interrupt(&mut self) {
        self.loops.interrupt();
        // Another size renders in another time.
        self.hold.reset();
    }

    /// Asks for the first frame (the shell's schedule asks for the others with [`Demo::request_redraw`]).
    pub(crate) fn request_first_frame(&self) {
        self.screen.win.window.request_redraw();
    }

    /// Asks the platform for a redraw at `now`; [`Demo::redraw_pending`] says so until it arrives.
    pub(crate) fn request_redraw(&mut self, now: Nanos) {
        self.screen.win.request_redraw(now);
    }

    /// When the redraw on its way was requested (`None`: none is).
    pub(crate) fn redraw_pending(&self) -> Option<Nanos> {
        self.screen.win.redraw_pending()
    }

    /// Under an emulated refresh on a platform that cannot block until its
    /// vblank (a page): whether the display's coming refresh lies between
    /// two emulated ones, so that the frame waits for a later one. A frame
    /// runs at the display refresh nearest the next emulated vblank, so an
    /// emulated rate at or below the display's shows at that rate.
    pub(crate) fn between_emulated_vblanks(&mut self, clock: &RealClock, now: Nanos) -> bool {
        if !crate::platform::EMULATES_BY_SKIPPING {
            return false;
        }
        let Some(vsync) = &self.screen.vsync else { return false };
        let Some((next_real, period)) = crate::platform::next_refresh(clock) else { return false };
        let rate = vsync.rate();
        // Judged against the screen's settled refresh, not the first frames'
        // estimate: a page that started slowly read its 60 Hz screen as 20 Hz
        // and kept saying 30 Hz was too fast for it.
        if !self.emulation_checked
            && let Some(screen_hz) = crate::platform::screen_refresh().filter(|hz| hz.is_finite() && *hz > 0.0)
        {
            self.emulation_checked = true;
            let screen_period = 1e9 / screen_hz;
            if ((rate.period() + rate.period() / 100) as f64) < screen_period {
                let what = match vsync.vrr_range() {
                    Some(range) => format!("{range}'s maximum, {} Hz,", crate::report::trim_number(rate.hz(), 3)),
                    None => format!("{} Hz", crate::report::trim_number(rate.hz(), 3)),
                };
                crate::platform::notify(&format!(
                    "the emulated {what} is faster than this screen's {screen_hz:.2} Hz: frames come at most once a \
                     refresh"
                ));
            }
        }
        // The emulated refresh (or gate's scanout) the frame would take.
        vsync.peek_time(now) > next_real.saturating_add(period / 2)
    }

    /// The requested redraw arrived at `now`: the frame about to run waited
    /// that long for it (on Wayland, the compositor's pacing).
    pub(crate) fn redraw_arrived(&mut self, now: Nanos) {
        self.redraw_wait = self.screen.win.redraw_arrived(now);
    }

    /// Until when frames wait (occluded, or found hidden by a frame); events clear it.
    pub(crate) fn idle_until(&self) -> Option<Nanos> {
        self.screen.win.idle_until()
    }

    /// Gives a window event to the overlay; true when the overlay used it
    /// (a click on its panel is not the demo's).
    pub(crate) fn overlay_event(&mut self, event: &WindowEvent) -> bool {
        let screen = &mut self.screen;
        screen.gfx.overlay.on_window_event(&screen.win.window, event)
    }

    /// The window's inner size is `width` × `height` pixels now.
    pub(crate) fn resized(&mut self, width: u32, height: u32, now: Nanos) {
        let [width, height] = if width == 0 || height == 0 {
            [width, height]
        } else {
            let device = crate::platform::device_pixels(&self.screen.win.window, [width, height]);
            let max_side = self.screen.gfx.gpu.device.limits().max_texture_dimension_2d;
            self.life.drawing_size(device, max_side, crate::platform::MAX_DRAWING_PIXELS)
        };
        self.screen.gfx.overlay.set_buffer_scale(self.life.buffer_scale());
        self.screen.gfx.surface.resize(width, height);
        self.focused(now);
        self.interrupt();
    }

    /// The window was occluded (`true`) or shown again: frames stop for a
    /// while, or start again, as the platform may never say "visible again".
    pub(crate) fn occluded(&mut self, occluded: bool, now: Nanos) {
        self.screen.win.set_idle_until(occluded.then(|| now + IDLE_RETRY));
        self.interrupt();
    }

    /// The window gained or lost focus: whether it can be seen is asked again.
    pub(crate) fn focused(&mut self, now: Nanos) {
        self.screen.win.check_hidden(now);
        self.screen.win.set_idle_until(None);
    }

    /// Why the GPU device was lost, once it has been.
    pub(crate) fn device_lost(&self) -> Option<String> {
        self.screen.gfx.device_lost()
    }

    /// The GPU adapter the window renders on.
    pub(crate) fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.screen.gfx.gpu.adapter.get_info()
    }

    /// The present modes the window's surface supports.
    pub(crate) fn supported_present_modes(&self) -> &[wgpu::PresentMode] {
        self.screen.gfx.surface.supported_present_modes()
    }

    /// Switches the surface to `present` where it differs; returns the mode in
    /// effect (another, when the surface refuses). The session learns of it at
    /// the next [`Demo::restart`].
    pub(crate) fn set_present_mode(&mut self, present: wgpu::PresentMode) -> wgpu::PresentMode {
        let gfx = &mut self.screen.gfx;
        if gfx.surface.present_mode() == present {
            return present;
        }
        gfx.surface.set_present_mode(&gfx.gpu.device, present)
    }

    /// Whether frames start on timers instead of the display's refresh (see [`Demo::act`]'s `V`).
    pub(crate) fn timer_driven(&self) -> bool {
        self.timer_driven
    }

    /// The strategy the demo's session runs.
    pub(crate) fn strategy(&self) -> StrategyId {
        self.loops.session.pacer().strategy()
    }

    /// The session's vsync verdict, brought up to date.
    pub(crate) fn verdict(&self) -> Verdict {
        self.loops.session.verdict()
    }

    /// The range of frame rates the presents show, if they show a variable refresh.
    pub(crate) fn vrr_seen(&self) -> Option<crate::refresh::VrrSeen> {
        self.loops.session.pacer().vrr_seen()
    }

    /// The session's report at `now`, as a window run (`model` `window`, the run's seed).
    pub(crate) fn report(&mut self, now: Nanos) -> RunReport {
        let mut run = self.loops.session.report(now);
        run.model = RunOrigin::Window;
        run.seed = self.seed;
        run
    }

    /// Logs the run's totals at exit: wgpu errors, frames, updates, held presents.
    pub(crate) fn log_summary(&self) {
        let uncaptured = self.screen.gfx.uncaptured_errors();
        if uncaptured > 0 {
            log::warn!("{uncaptured} wgpu error(s) were logged during the run");
        }
        let (frames, presented) = self.loops.session.frame_counts();
        log::info!("{frames} frames, {presented} presented, {} updates", self.loops.session.pacer().total_updates());
        if let Some(held) = self.hold.run_summary() {
            log::info!("{held}");
        }
    }

    /// Writes the last row of `--frame-log` and flushes it.
    ///
    /// # Errors
    /// See [`FrameLog::finish`].
    pub(crate) fn finish_frame_log(&mut self, now: Nanos) -> Result<(), CliError> {
        match self.frame_log.as_mut() {
            Some(log) => log.finish(now),
            None => Ok(()),
        }
    }

    /// Saves the screenshot `--screenshot` asked for.
    ///
    /// # Errors
    /// See [`Gfx::screenshot`].
    pub(crate) fn screenshot(&mut self, path: &std::path::Path) -> Result<(), CliError> {
        let screen = &self.screen;
        let scene = ScreenshotScene {
            world: self.loops.session.world(),
            view: self.loops.session.last_view(),
            playfield: PLAYFIELD,
            hud: &screen.hud,
            pixels_per_point: screen.win.window.scale_factor() as f32 * self.life.buffer_scale(),
        };
        match self.loops.lanes {
            // The instance buffer holds the last lane frame's sprites, every lane's.
            Some(_) => screen.gfx.screenshot_instances(&screen.instances, scene, path),
            None => screen.gfx.screenshot(scene, path),
        }
    }

    /// The run's statistics for `--stats-json`.
    pub(crate) fn stats(&mut self, now: Nanos) -> StatsJson {
        let mut run = self.report(now);
        let fps = self.screen.hud.figures.fps;
        if let (Some(display), Some(verdict)) = (run.display.as_mut(), self.slow_page_verdict(fps)) {
            display.vsync_verdict = verdict;
        }
        let gfx = &self.screen.gfx;
        StatsJson {
            run,
            adapter: gfx.gpu.adapter_summary(),
            surface: gfx.surface.counts(),
            gpu_timed_frames: gfx.run_times.frames,
            gpu_scene_ms: gfx.run_times.scene_mean_ms(),
            gpu_overlay_ms: gfx.run_times.overlay_mean_ms(),
            lanes: self.loops.lane_reports(now, self.seed),
            screen_refresh_hz: crate::platform::screen_refresh(),
            notes: self.screen.hud.notes.clone(),
            display_timing: self.display_timing(),
        }
    }

    /// How the run's frames are timed: the source (or the fallback and why), its counts, the back-end.
    pub(crate) fn display_timing(&self) -> DisplayTiming {
        let timer = &self.screen.feedback;
        let kinds = timer.kinds();
        DisplayTiming {
            source: timer.name().to_owned(),
            fallback: timer.fallback().map(str::to_owned),
            presents_copied: kinds.map(|k| k.copy),
            presents_flipped: kinds.map(|k| k.flip),
            presents_skipped: kinds.map(|k| k.skip),
            backend: format!("{:?}", self.screen.gfx.gpu.adapter.get_info().backend),
        }
    }
}

/// The display's word on when frames are shown, where the platform gives one
/// and `--no-presentation-feedback` does not turn it down; the log says which
/// display times the run has.
fn display_timer(win: &WindowState, gfx: &Gfx, config: &RunConfig, clock: &RealClock) -> crate::platform::DisplayTimer {
    let source = if config.presentation_feedback {
        let gpu = crate::platform::display_time::Gpu { surface: gfx.surface.raw(), device: &gfx.gpu.device };
        crate::platform::display_time::open(&win.window, gpu, clock)
    } else {
        Err("--no-presentation-feedback".to_owned())
    };
    crate::platform::DisplayTimer::new(source)
}

/// The overlay's data before the first frame: the help (keys, monitors,
/// platform notes), whether GPU times come, and the runner's lane in `world`.
fn first_hud(win: &WindowState, gfx: &Gfx, world: &World) -> HudData {
    let mut help_lines = bindings::help_lines();
    help_lines.extend(win.monitor_lines());
    help_lines.extend(crate::platform::help_notes());
    let runner_lane = RunnerLane { playfield: PLAYFIELD, y: world.mover(MoverKind::Runner).current.pos[1] as f32 };
    HudData {
        reserved_bottom_points: crate::platform::PAGE_BAR_POINTS,
        help_lines,
        gpu_timing: gfx.timer.is_some(),
        runner_lane: Some(runner_lane),
        ..HudData::default()
    }
}

/// The emulated refresh on monitor `index` (`--emulate-refresh HZ` or `N=HZ,…`).
fn emulated_rate(emulation: Option<&(Emulation, u64)>, index: Option<usize>) -> Option<Rate> {
    let (emulation, _) = emulation?;
    emulation.rates.rate_on(index.unwrap_or(0))
}

/// The emulated VRR gate's range on monitor `index` (`--emulate-refresh vrr:48-144` or `N=vrr:…`).
fn emulated_vrr(emulation: Option<&(Emulation, u64)>, index: Option<usize>) -> Option<VrrRange> {
    let (emulation, _) = emulation?;
    emulation.rates.vrr_on(index.unwrap_or(0))
}

/// The emulated vsync for `rate` (a grid) or `gate` (a VRR gate). The grid
/// starts at clock zero so that the metrics' `round(t · Hz)` numbers refreshes exactly.
fn emulated_vsync(
    emulation: Option<&(Emulation, u64)>,
    rate: Option<Rate>,
    gate: Option<VrrRange>,
) -> Option<EmulatedVsync> {
    let (emulation, seed) = emulation?;
    match (rate, gate) {
        (Some(rate), _) => Some(EmulatedVsync::new(VblankGrid::new(rate, 0), emulation.jitter, *seed)),
        (None, Some(range)) => Some(EmulatedVsync::vrr(range, emulation.jitter, *seed)),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Simulation as _;
    use crate::time::NANOS_PER_SEC;

    #[test]
    fn a_fresh_session_starts_at_tick_zero_with_the_keys_held_now() {
        let world = WorldConfig::default();
        let mut session = fresh_session(
            &world,
            StrategyId::Lockstep,
            StrategyConfig::default(),
            DisplayInfo::default(),
            Input::UP,
            None,
            5,
        );
        assert_eq!(session.world().tick(), 0, "a fresh world");
        session.world_mut().step(NANOS_PER_SEC / 60);
        assert_eq!(session.world().input(), Input::UP, "the key held before the restart is still held");
        assert_eq!(session.pacer().strategy(), StrategyId::Lockstep);
    }
}
