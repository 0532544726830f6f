//! The running demo: a [`Session`] on the demo world, the window and the GPU,
//! and what the keys change.
//!
//! ```text
//!   Demo::frame ─► WindowHost (clock, gfx, hud) ─► session.run_frame ─► session.record
//!               └► session.fill_hud(hud) ─► next frame's overlay
//!   lane mode:  ─► lanes.run_frame(start) ─► WindowHost::show_instances ─► lanes.record(display time)
//!               (the demo's session is paused meanwhile: see `app::lanes`)
//!   Demo::act   ─► Action (from the key table) ─► session / lanes / window / gfx
//! ```
//!
//! The session holds every number; this type holds only what is platform
//! (window, GPU) or demo (ghosts, load, player input, lane mode).

use std::io::BufWriter;

use winit::event_loop::ActiveEventLoop;
use winit::keyboard::ModifiersState;

use crate::app::bindings::{self, Action, Dir};
use crate::app::config::{Emulation, RunConfig};
use crate::app::cpu::CpuSampler;
use crate::app::gfx::{Gfx, GpuStart, ScreenshotScene};
use crate::app::hold::PresentHold;
use crate::app::host::{HostOutcome, SceneParams, WindowHost};
use crate::app::lanes::{LaneReport, Lanes, playfield_point};
use crate::app::load::LoadPreset;
use crate::app::stats::{FrameLog, StatsJson};
use crate::app::window::{IDLE_RETRY, OnMonitor, WindowState};
use crate::error::CliError;
use crate::frame::FrameReport;
use crate::hud::{HudData, RunnerLane};
use crate::render::Letterbox;
use crate::render::surface::{SkipReason, is_vsync_mode};
use crate::rng::SplitMix64;
use crate::session::{DisplayInfo, Presented, Session};
use crate::sim::{Input, Instance, MoverKind, World, WorldConfig};
use crate::strategy::StrategyId;
use crate::time::{Clock, NANOS_PER_SEC, Nanos, Rate, RealClock};
use crate::vblank::{EmulatedVsync, VblankGrid};

/// The playfield the world simulates, in world units (pixels at 100 %).
pub const PLAYFIELD: [f32; 2] = [1280.0, 720.0];

/// Periodic stats go to the log at most this often.
const LOG_INTERVAL: Nanos = NANOS_PER_SEC;

/// The demo world for `config`, on the [`PLAYFIELD`].
fn new_world(config: &RunConfig) -> World {
    World::new(&WorldConfig {
        width: PLAYFIELD[0],
        height: PLAYFIELD[1],
        extra_sprites: config.sprites as usize,
        ..WorldConfig::default()
    })
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

/// Lane mode while it is on.
struct LaneMode {
    lanes: Lanes,
    /// Whether the demo's own session was paused before (it is paused meanwhile).
    demo_was_paused: bool,
}

/// The demo once its window is up.
pub struct Demo {
    /// The window.
    pub win: WindowState,
    /// The GPU side.
    pub gfx: Gfx,
    /// The loop and its numbers.
    pub session: Session<World>,
    /// What the overlay draws.
    pub hud: HudData,
    vsync: Option<EmulatedVsync>,
    /// `--emulate-refresh`, to give each monitor its grid when the window moves.
    emulation: Option<(Emulation, u64)>,
    /// How long the frame about to run waited for its redraw (the compositor's go-ahead).
    redraw_wait: Nanos,
    controls: Controls,
    instances: Vec<Instance>,
    /// Render start to display, last frame: where ghosts are drawn.
    display_lead: Nanos,
    /// The lead of held presents (self-paced strategies, non-blocking present).
    hold: PresentHold,
    cpu: CpuSampler,
    log_at: Nanos,
    /// When the paused demo last drew its still picture.
    still_at: Nanos,
    /// Lane mode, when on.
    lanes: Option<LaneMode>,
    /// The strategies lane mode shows, in lane order.
    lane_ids: Vec<StrategyId>,
    /// The reports of the last lane mode, kept for `--stats-json` when it ends.
    lane_reports: Vec<LaneReport>,
    /// Where the pointer is, window pixels (a click selects the lane under it).
    pointer: Option<[f32; 2]>,
    /// `--frame-log`.
    frame_log: Option<FrameLog<BufWriter<crate::platform::OutputFile>>>,
    /// `--seed`, for the lanes' reports.
    seed: u64,
    /// Whether [`Demo::warm_up`] has run.
    warmed: bool,
}

/// Frames drawn before the session starts ([`Demo::warm_up`]). On lavapipe
/// the first frame took 30–45 ms where later ones took 5 (Xvfb, 640×360,
/// `fixed-fps`, Immediate); timed, it was the run's largest present-interval
/// outlier, and `paced` grew its interval to 80 ms from it and took 6 s to
/// come back to 60 fps. With the warm-up, the whole-run present interval σ
/// of `fixed-fps` went from 0.95 to 0.23 ms and that of `paced` from 13.0 to
/// 0.20 ms (10 s, 640×360, Immediate; `paced` no longer widened its interval).
const WARM_UP_FRAMES: usize = 3;

impl Demo {
    /// Finishes the GPU's start-up for the window `win` and starts the session.
    ///
    /// # Errors
    /// See [`Gfx::new`].
    pub fn start(win: WindowState, gpu: GpuStart, config: &RunConfig, clock: &RealClock) -> Result<Demo, CliError> {
        let mut win = win;
        let gfx = Gfx::new(gpu, &win.window, config)?;
        let world = new_world(config);
        let monitor = win.follow_monitor(true).unwrap_or_else(|| win.on_monitor());
        let emulation = config.emulation.clone().map(|e| (e, config.seed));
        let emulated = emulated_rate(emulation.as_ref(), monitor.index);
        let display = DisplayInfo {
            monitor: Some(monitor.label),
            reported: monitor.reported,
            emulated,
            present_mode: gfx.present_mode(),
            present_mode_requested: config.present_mode.label().to_owned(),
            vsync: None,
        };
        let frame_log = config.frame_log.as_deref().map(FrameLog::create).transpose()?;
        let now = clock.now();
        let session = Session::new(config.strategy, config.strategy_config, world, display, now);
        let mut help_lines = bindings::help_lines();
        help_lines.extend(win.monitor_lines());
        let runner_lane =
            RunnerLane { playfield: PLAYFIELD, y: session.world().mover(MoverKind::Runner).current.pos[1] as f32 };
        let hud = HudData {
            help_lines,
            gpu_timing: gfx.timer.is_some(),
            runner_lane: Some(runner_lane),
            ..HudData::default()
        };
        let vsync = emulated_vsync(emulation.as_ref(), emulated);
        let mut demo = Demo {
            emulation,
            redraw_wait: 0,
            instances: Vec::with_capacity(session.world().max_instances()),
            win,
            gfx,
            session,
            hud,
            vsync,
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
            lanes: None,
            lane_ids: config.lanes.0.clone(),
            lane_reports: Vec::new(),
            pointer: None,
            frame_log,
            seed: config.seed,
            warmed: false,
        };
        if config.start_in_lanes {
            demo.enter_lanes(now);
        }
        demo.refresh_hud(now);
        Ok(demo)
    }

    /// Starts over with a fresh world and session running `strategy` on the
    /// same display, in the present mode in effect, on this monitor's
    /// emulated vblank grid when `emulate` (else on none). The measure tour
    /// runs each segment so.
    pub fn restart(&mut self, strategy: StrategyId, emulate: bool, config: &RunConfig, now: Nanos) {
        let emulated = self.emulated_here().filter(|_| emulate);
        let display = DisplayInfo { emulated, present_mode: self.gfx.present_mode(), ..self.session.display().clone() };
        self.session = Session::new(strategy, config.strategy_config, new_world(config), display, now);
        self.session.world_mut().set_input(self.controls.input);
        self.vsync = emulated_vsync(self.emulation.as_ref(), emulated);
        self.refresh_hud(now);
    }

    /// The emulated refresh `--emulate-refresh` gives the monitor the window is on.
    pub fn emulated_here(&self) -> Option<Rate> {
        emulated_rate(self.emulation.as_ref(), self.win.on_monitor().index)
    }

    /// Draws [`WARM_UP_FRAMES`] still frames, untimed, then starts the
    /// session (and lanes, if on) afresh with the same strategy, settings and
    /// display. Called before the first frame the window can show: what the
    /// first frames cost once (shader variants compiled at first use,
    /// buffers and the overlay's font atlas uploaded) is not the loop's
    /// timing, and neither are the refreshes before the window was mapped
    /// (about 15 at 60 Hz under Xvfb, once counted as skipped renders).
    fn warm_up(&mut self, clock: &RealClock) {
        self.warmed = true;
        let scene = SceneParams { playfield: PLAYFIELD, ghosts: false, display_lead: 0, load: 0 };
        for _ in 0..WARM_UP_FRAMES {
            let mut host =
                WindowHost::new(clock, &mut self.gfx, &self.win.window, &self.hud, &mut self.instances, None, scene);
            host.draw_still(self.session.world(), self.session.last_view());
        }
        if let Err(err) = self.gfx.gpu.device.poll(wgpu::PollType::wait_indefinitely()) {
            log::debug!("waiting for the warm-up frames failed: {err}");
        }
        self.gfx.collect_times();
        self.gfx.recent_times = Default::default();
        let now = clock.now();
        let (strategy, config) = (self.session.driver().strategy_id(), *self.session.driver().config());
        let world = World::new(self.session.world().config());
        let display = self.session.display().clone();
        self.session = Session::new(strategy, config, world, display, now);
        self.session.world_mut().set_input(self.controls.input);
        self.hold.reset();
        if self.lanes.take().is_some() {
            self.enter_lanes(now);
        }
        (self.log_at, self.still_at) = (now, now);
        self.refresh_hud(now);
    }

    /// The present hold's whole-run figures (`app::hold`), when presents were held.
    pub fn hold_summary(&self) -> Option<String> {
        self.hold.run_summary()
    }

    /// Whether a frame should be drawn now.
    pub fn renderable(&mut self, now: Nanos) -> bool {
        let zero = self.gfx.surface.is_zero_size();
        self.win.renderable(now, zero)
    }

    /// When the next frame should start (`None`: as soon as possible). A
    /// paused demo redraws its still picture once per refresh (60 Hz when
    /// the refresh is unknown) instead of as fast as the present returns.
    pub fn wake(&self) -> Option<Nanos> {
        if self.lanes.is_some() {
            // Lane mode is display-paced: frames as fast as presents (or the emulated grid) allow.
            return None;
        }
        if self.session.paused() {
            let period = self.session.display().refresh().unwrap_or(Rate::from_hz(60)).period();
            return Some(self.still_at.saturating_add(period));
        }
        self.session.wake()
    }

    /// One frame: the active strategy's, the still picture while paused, or every lane's.
    /// Returns the strategy frame's report when its picture was presented.
    pub fn frame(&mut self, clock: &RealClock) -> Option<FrameReport> {
        if !self.warmed {
            self.warm_up(clock);
        }
        if self.lanes.is_some() {
            self.lane_frame(clock);
            return None;
        }
        let scene = SceneParams {
            playfield: PLAYFIELD,
            ghosts: self.controls.ghosts,
            display_lead: self.display_lead,
            load: if self.session.paused() { 0 } else { self.controls.load.cost(&mut self.controls.rng) },
        };
        let planned = self.held_start();
        if planned.is_none() && self.hold.measuring() {
            self.hold.reset();
        }
        let mut host = WindowHost::new(
            clock,
            &mut self.gfx,
            &self.win.window,
            &self.hud,
            &mut self.instances,
            self.vsync.as_mut(),
            scene,
        )
        .hold_present_until(planned.map(|at| self.hold.target(at)));
        let report = if self.session.paused() {
            self.still_at = clock.now();
            host.draw_still(self.session.world(), self.session.last_view());
            None
        } else {
            Some(self.session.run_frame(&mut host))
        };
        let outcome = host.outcome;
        self.gfx.collect_times();
        if let (Some(planned), Some(held), Some(report)) = (planned, outcome.held, &report) {
            self.hold.record(planned, report.start, held);
        }
        if let Some(report) = &report {
            if let Some(log) = self.frame_log.as_mut() {
                log.frame_started(report.start);
            }
            let presented = Presented { throttled: self.redraw_wait, ..outcome.presented() };
            self.session.record(report, presented);
            if outcome.presented {
                self.display_lead = report.display_time.saturating_sub(report.start);
            }
        }
        self.after_frame(&outcome, clock.now());
        report.filter(|_| outcome.presented)
    }

    /// The planned start of a frame whose present is held (`app::hold`): a
    /// strategy that paces itself, in a non-blocking present mode, with no
    /// emulated refresh (its vblanks pace the presents) and not paused.
    fn held_start(&self) -> Option<Nanos> {
        let own_pace = self.vsync.is_none() && !is_vsync_mode(self.gfx.surface.present_mode());
        if !own_pace || self.session.paused() {
            return None;
        }
        self.session.wake()
    }

    /// One lane-mode frame: every lane runs at the same start, one draw shows
    /// them all, every lane records the same display time. See `app::lanes`.
    fn lane_frame(&mut self, clock: &RealClock) {
        let Some(mode) = self.lanes.as_mut() else { return };
        let start = clock.now();
        if let Some(log) = self.frame_log.as_mut() {
            log.frame_started(start);
        }
        self.instances.clear();
        mode.lanes.run_frame(start, &mut self.instances);
        let scene = SceneParams {
            playfield: PLAYFIELD,
            ghosts: false,
            display_lead: 0,
            load: self.controls.load.cost(&mut self.controls.rng),
        };
        let mut host = WindowHost::new(
            clock,
            &mut self.gfx,
            &self.win.window,
            &self.hud,
            &mut self.instances,
            self.vsync.as_mut(),
            scene,
        );
        let display_time = host.show_instances();
        let outcome = host.outcome;
        self.gfx.collect_times();
        mode.lanes.record(display_time, outcome.presented);
        self.after_frame(&outcome, clock.now());
    }

    fn after_frame(&mut self, outcome: &HostOutcome, now: Nanos) {
        self.hud.overlay_cost_ms = outcome.overlay_ms;
        if outcome.presented {
            self.hud.sprite_count = outcome.sprites;
        }
        match outcome.skipped {
            Some(SkipReason::Occluded | SkipReason::ZeroSize) => {
                log::debug!("window hidden or empty; rendering stops until it is back");
                self.win.idle_until = Some(now + IDLE_RETRY);
                self.interrupt();
            }
            Some(reason) => log::debug!("frame skipped: {reason:?}"),
            None => {}
        }
        if now.saturating_sub(self.log_at) >= LOG_INTERVAL {
            self.log_at = now;
            self.hud.cpu_percent = self.cpu.sample(crate::platform::Instant::now());
            self.hud.gpu_scene_ms = self.gfx.recent_times.scene_mean_ms();
            self.hud.gpu_overlay_ms = self.gfx.recent_times.overlay_mean_ms();
            self.gfx.recent_times = Default::default();
            self.log_stats();
        }
        self.refresh_hud(now);
    }

    fn log_stats(&self) {
        let hud = &self.hud;
        if !hud.lanes.is_empty() {
            let lanes: Vec<String> = hud
                .lanes
                .iter()
                .filter(|l| !l.needs_loop)
                .map(|l| {
                    let hitches = l.hitches_per_min.map_or_else(|| "-".to_owned(), |h| format!("{h:.1}"));
                    format!("{} {:.2}/{hitches}/{:.1}", l.strategy, l.judder_ms, l.latency_ms)
                })
                .collect();
            log::info!("lanes (judder_ms/hitches_per_min/latency_ms, recent): {}", lanes.join(", "));
            return;
        }
        let gpu = |ms: Option<f64>| ms.map_or_else(|| "n/a".to_owned(), |ms| format!("{ms:.2} ms"));
        let held = match self.hold.measuring() {
            true => format!(
                "; presents held {:.2} ms after each planned start (lead set {} times, call intervals σ {:.3} ms)",
                self.hold.lead() as f64 / 1e6,
                self.hold.changes(),
                self.hold.call_spread_ms().unwrap_or(f64::NAN)
            ),
            false => String::new(),
        };
        log::info!(
            "{}: {:.1} fps, {:.1} ups, {} double, {} skipped, judder_ms {:.2}, hitches {}, latency_ms {:.2}, drift_ms_per_min {:.1}, overlay CPU {:.1} ms, GPU scene {} overlay {}; {}{held}",
            hud.strategy_name,
            hud.fps,
            hud.ups,
            hud.double_updates,
            hud.skipped_renders,
            hud.stats.judder_ms,
            hud.stats.hitches,
            hud.stats.latency_ms,
            hud.stats.drift_ms_per_min,
            hud.overlay_cost_ms,
            gpu(hud.gpu_scene_ms),
            gpu(hud.gpu_overlay_ms),
            hud.vsync_verdict
        );
    }

    /// Rebuilds the overlay's numbers.
    pub fn refresh_hud(&mut self, now: Nanos) {
        self.session.fill_hud(&mut self.hud, now);
        self.hud.ghosts = self.controls.ghosts;
        self.hud.load_preset = self.controls.load.label();
        match self.lanes.as_mut() {
            Some(mode) => mode.lanes.fill_labels(&mut self.hud.lanes, now),
            None => self.hud.lanes.clear(),
        }
    }

    /// Follows the window to the monitor it is on now (a move, a scale change).
    pub fn follow_monitor(&mut self, now: Nanos) {
        let moved = self.win.follow_monitor(false);
        self.move_to(moved, now);
    }

    /// Asks now and then which monitor the window is on (Wayland says so only
    /// after the surface enters an output, and sends no event for it).
    pub fn poll_monitor(&mut self, now: Nanos) {
        let moved = self.win.poll_monitor(now);
        self.move_to(moved, now);
    }

    /// The frame about to run waited this long for its redraw to be given.
    pub fn set_redraw_wait(&mut self, waited: Nanos) {
        self.redraw_wait = waited;
    }

    /// The window is on another monitor: its emulated grid (per monitor),
    /// its name and reported refresh; the session measures again.
    fn move_to(&mut self, monitor: Option<OnMonitor>, now: Nanos) {
        let Some(monitor) = monitor else { return };
        let emulated = emulated_rate(self.emulation.as_ref(), monitor.index);
        if emulated != self.session.display().emulated {
            log::info!("emulated refresh on this monitor: {}", emulated.map_or("none".to_owned(), |r| r.to_string()));
            self.vsync = emulated_vsync(self.emulation.as_ref(), emulated);
        }
        if let Some(mode) = self.lanes.as_mut() {
            mode.lanes.move_to_display(Some(&monitor.label), monitor.reported, emulated, now);
        }
        self.session.move_to_display(Some(monitor.label), monitor.reported, emulated, now);
        self.refresh_hud(now);
    }

    /// Frames stopped for a while (hidden, minimised, resized).
    pub fn interrupt(&mut self) {
        self.session.interrupt();
        // Another size renders in another time.
        self.hold.reset();
        if let Some(mode) = self.lanes.as_mut() {
            mode.lanes.interrupt();
        }
    }

    /// Turns lane mode on: a lane per strategy of the lane list, each a fresh
    /// session and world from now; the demo's session pauses.
    pub fn enter_lanes(&mut self, now: Nanos) {
        if self.lanes.is_some() {
            return;
        }
        let config = *self.session.driver().config();
        let mut lanes = Lanes::new(&self.lane_ids, config, self.session.display(), PLAYFIELD, now);
        lanes.select_strategy(self.session.driver().strategy_id());
        self.instances.reserve(lanes.max_instances());
        let demo_was_paused = self.session.paused();
        self.session.set_paused(true, now);
        log::info!("lane mode: {} lanes", lanes.len());
        self.hud.lane_playfield = PLAYFIELD;
        self.lanes = Some(LaneMode { lanes, demo_was_paused });
        self.refresh_hud(now);
    }

    /// Turns lane mode off; the demo's session resumes (timing reset), with
    /// `adopt`'s strategy when given.
    pub fn leave_lanes(&mut self, adopt: Option<StrategyId>, now: Nanos) {
        let Some(mut mode) = self.lanes.take() else { return };
        self.lane_reports = mode.lanes.reports(now, self.seed);
        if let Some(id) = adopt {
            self.session.set_strategy(id, now);
            log::info!("lane mode off: the loop runs {id}");
        } else {
            log::info!("lane mode off");
        }
        self.session.set_paused(mode.demo_was_paused && adopt.is_none(), now);
        self.refresh_hud(now);
    }

    /// Whether lane mode is on.
    pub fn in_lanes(&self) -> bool {
        self.lanes.is_some()
    }

    /// The pointer moved to window pixel `position`.
    pub fn pointer_moved(&mut self, position: [f32; 2]) {
        self.pointer = Some(position);
    }

    /// A left click: in lane mode, selects the lane under the pointer.
    pub fn click(&mut self, now: Nanos) {
        let (Some(mode), Some(pixel)) = (self.lanes.as_mut(), self.pointer) else { return };
        let letterbox = Letterbox::fit(PLAYFIELD, self.gfx.surface.size());
        if let Some(point) = playfield_point(&letterbox, pixel)
            && mode.lanes.select_at(point)
        {
            self.refresh_hud(now);
        }
    }

    /// Writes the last row of `--frame-log` and flushes it.
    ///
    /// # Errors
    /// See [`FrameLog::finish`].
    pub fn finish_frame_log(&mut self, now: Nanos) -> Result<(), CliError> {
        match self.frame_log.as_mut() {
            Some(log) => log.finish(now),
            None => Ok(()),
        }
    }

    /// Remembers the keyboard modifiers (the key table distinguishes `F` and `Shift+F`).
    pub fn set_modifiers(&mut self, modifiers: ModifiersState) {
        self.controls.modifiers = modifiers;
    }

    /// The action a key stands for, with the current modifiers.
    pub fn action_for(&self, key: winit::keyboard::KeyCode) -> Option<Action> {
        bindings::action_for(key, self.controls.modifiers)
    }

    /// Carries out a key's action; returns true when it asks to quit.
    pub fn act(&mut self, action: Action, pressed: bool, event_loop: &ActiveEventLoop, now: Nanos) -> bool {
        if action.is_held() {
            let button = match action {
                Action::Move(Dir::Up) => Input::UP,
                Action::Move(Dir::Down) => Input::DOWN,
                Action::Move(Dir::Left) => Input::LEFT,
                Action::Move(Dir::Right) => Input::RIGHT,
                _ => Input::FIRE,
            };
            self.controls.input.set(button, pressed);
            self.session.world_mut().set_input(self.controls.input);
            return false;
        }
        if !pressed {
            return false;
        }
        if self.lanes.is_some() && self.act_in_lanes(action, now) {
            self.refresh_hud(now);
            return false;
        }
        match action {
            Action::Strategy(id) => {
                self.session.set_strategy(id, now);
                log::info!("strategy: {id}");
            }
            Action::CyclePresentMode => {
                let mode = self.gfx.cycle_present_mode();
                if let Some(lanes) = self.lanes.as_mut() {
                    lanes.lanes.set_present_mode(&mode, now);
                }
                self.session.set_present_mode(mode, now);
            }
            Action::TickRateUp | Action::TickRateDown => {
                let current = self.session.driver().config().tick_rate.hz();
                if let Some(hz) = bindings::step_tick_rate(current, action == Action::TickRateUp) {
                    if let Some(lanes) = self.lanes.as_mut() {
                        lanes.lanes.set_tick_rate(Rate::from_hz(hz), now);
                    }
                    self.session.set_tick_rate(Rate::from_hz(hz), now);
                    log::info!("tick rate: {hz} Hz");
                }
            }
            Action::CycleLoad => {
                self.controls.load = self.controls.load.next();
                log::info!("load: {}", self.controls.load.label());
            }
            Action::TogglePause => self.session.set_paused(!self.session.paused(), now),
            Action::ResetWorld => {
                let world = self.session.world_mut();
                world.reset();
                world.set_input(self.controls.input);
            }
            Action::ToggleGhosts => self.controls.ghosts = !self.controls.ghosts,
            Action::ToggleFullscreen => self.win.toggle_fullscreen(false),
            Action::ToggleExclusiveFullscreen => self.win.toggle_fullscreen(true),
            Action::NextMonitor => self.win.next_monitor(event_loop),
            Action::ToggleOverlay => self.gfx.overlay.set_visible(!self.gfx.overlay.visible()),
            Action::ToggleHelp => self.hud.show_help = !self.hud.show_help,
            Action::Quit => return true,
            Action::ToggleLanes => self.enter_lanes(now),
            Action::NextLane | Action::PreviousLane | Action::AdoptLane => {
                log::info!("{}: only in lane mode (C)", action.help());
            }
            Action::Move(_) | Action::Kick => {}
        }
        self.refresh_hud(now);
        false
    }

    /// The keys that act differently in lane mode; returns false for the
    /// others, which act as usual (window, overlay, vsync, tick rate, load).
    fn act_in_lanes(&mut self, action: Action, now: Nanos) -> bool {
        let Some(mode) = self.lanes.as_mut() else { return false };
        match action {
            Action::ToggleLanes => self.leave_lanes(None, now),
            Action::AdoptLane => {
                let adopt = mode.lanes.selected();
                self.leave_lanes(adopt, now);
            }
            Action::NextLane => mode.lanes.select_next(),
            Action::PreviousLane => mode.lanes.select_previous(),
            Action::Strategy(id) => {
                if !mode.lanes.select_strategy(id) {
                    log::info!("no lane shows {id}");
                }
            }
            Action::ResetWorld => mode.lanes.reset_worlds(),
            Action::TogglePause | Action::ToggleGhosts => log::info!("{}: not in lane mode", action.help()),
            _ => return false,
        }
        true
    }

    /// Saves the screenshot `--screenshot` asked for.
    ///
    /// # Errors
    /// See [`Gfx::screenshot`].
    pub fn screenshot(&mut self, path: &std::path::Path) -> Result<(), CliError> {
        let scene = ScreenshotScene {
            world: self.session.world(),
            view: self.session.last_view(),
            playfield: PLAYFIELD,
            hud: &self.hud,
            pixels_per_point: self.win.window.scale_factor() as f32,
        };
        if self.lanes.is_some() {
            // The instance buffer holds the last lane frame's sprites, every lane's.
            return self.gfx.screenshot_instances(&self.instances, scene, path);
        }
        self.gfx.screenshot(scene, path)
    }

    /// The run's statistics for `--stats-json`.
    pub fn stats(&mut self, config: &RunConfig, now: Nanos) -> StatsJson {
        let mut run = self.session.report(now);
        run.model = "window".to_owned();
        run.seed = config.seed;
        StatsJson {
            run,
            adapter: self.gfx.gpu.adapter_summary(),
            surface: self.gfx.surface.counts(),
            gpu_timed_frames: self.gfx.run_times.frames,
            gpu_scene_ms: self.gfx.run_times.scene_mean_ms(),
            gpu_overlay_ms: self.gfx.run_times.overlay_mean_ms(),
            lanes: match self.lanes.as_mut() {
                Some(mode) => mode.lanes.reports(now, config.seed),
                None => self.lane_reports.clone(),
            },
        }
    }
}

/// The emulated refresh on monitor `index` (`--emulate-refresh HZ` or `N=HZ,…`).
fn emulated_rate(emulation: Option<&(Emulation, u64)>, index: Option<usize>) -> Option<Rate> {
    let (emulation, _) = emulation?;
    emulation.rates.rate_on(index.unwrap_or(0))
}

/// The emulated vsync for `rate`. The grid starts at clock zero so that the
/// metrics' `round(t · Hz)` numbers refreshes exactly.
fn emulated_vsync(emulation: Option<&(Emulation, u64)>, rate: Option<Rate>) -> Option<EmulatedVsync> {
    let (emulation, seed) = emulation?;
    rate.map(|rate| EmulatedVsync::new(VblankGrid::new(rate, 0), emulation.jitter, *seed))
}
