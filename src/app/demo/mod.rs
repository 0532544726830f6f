//! The running demo: a [`Session`] on the demo world, the window and the GPU,
//! and what the keys change.
//!
//! ```text
//!   Demo::frame ─► Mode::Single:  screen.draw(WindowHost) ─► session.run_frame ─► session.record
//!               │                 └► session.fill_hud(hud) ─► next frame's overlay
//!               └► Mode::Lanes:   lanes.run_frame(start) ─► WindowHost::show_instances ─► lanes.record
//!                                 (the demo's session is paused meanwhile: see `mode` and `app::lanes`)
//!   Demo::act   ─► Action (from the key table) ─► session / lanes / window / gfx    (keys.rs)
//!   shell, measure ─► Demo's methods (redraws, resizes, reports), never its parts
//! ```
//!
//! The session holds every number; this type holds only what is platform
//! (the [`Screen`]: window, GPU, overlay numbers) or demo (ghosts, load,
//! player input, lane mode). Its parts are private: the shell and the
//! measure tour say what they want (`request_redraw`, `resized`, `report`)
//! and the demo keeps its parts consistent, the lanes included.

mod keys;
pub(crate) mod life;
mod mode;

use std::collections::VecDeque;
use std::io::BufWriter;

use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;
use winit::keyboard::ModifiersState;
use winit::monitor::MonitorHandle;

use crate::app::bindings;
use crate::app::config::{Emulation, RunConfig};
use crate::app::cpu::CpuSampler;
use crate::app::gfx::{Gfx, GpuStart, ScreenshotScene};
use crate::app::hold::PresentHold;
use crate::app::host::{HostOutcome, SceneParams, Screen};
use crate::app::lanes::LaneReport;
use crate::app::load::LoadPreset;
use crate::app::stats::{FrameLog, StatsJson};
use crate::app::window::{IDLE_RETRY, OnMonitor, WindowState};
use crate::error::CliError;
use crate::frame::FrameReport;
use crate::hud::{HudData, RunnerLane};
use crate::monitor::{RunModel, RunReport};
use crate::refresh::Verdict;
use crate::render::surface::{SkipReason, is_vsync_mode};
use crate::report::registry::{HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS};
use crate::rng::SplitMix64;
use crate::session::{DisplayInfo, Outcome, Session};
use crate::sim::{Input, MoverKind, World, WorldConfig};
use crate::strategy::{StrategyConfig, StrategyId};
use crate::time::{Clock, NANOS_PER_SEC, Nanos, Rate, RealClock};
use crate::vblank::{EmulatedVsync, VblankGrid};

use life::Life;
use mode::Mode;

/// The playfield the world simulates, in world units (pixels at 100 %).
pub const PLAYFIELD: [f32; 2] = [1280.0, 720.0];

/// Periodic stats go to the log at most this often.
const LOG_INTERVAL: Nanos = NANOS_PER_SEC;

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
    now: Nanos,
) -> Session<World> {
    let mut session = Session::new(strategy, config, World::new(world), display, now);
    session.world_mut().set_input(input);
    session.keep_settled(true);
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
pub struct Demo {
    /// The window, the GPU, the overlay's numbers: what frames draw with.
    screen: Screen,
    /// The loop and its numbers.
    session: Session<World>,
    /// One strategy, or lanes.
    mode: Mode,
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
    /// The strategies lane mode shows, in lane order.
    lane_ids: Vec<StrategyId>,
    /// The reports of the last lane mode, kept for `--stats-json` when it ends.
    lane_reports: Vec<LaneReport>,
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
    waits: VecDeque<(u64, Nanos)>,
    /// The strategy frames settled in the last frame that were shown (reused).
    shown: Vec<ShownFrame>,
}

/// A strategy frame shown on screen, settled: its report (with the display
/// time its figures used, the compositor's where it said) and how long it
/// waited for the display (acquire, present, an emulated vblank).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShownFrame {
    /// The frame's report.
    pub report: FrameReport,
    /// Its wait for the display.
    pub display_wait: Nanos,
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
        let monitor = win.follow_monitor(true).unwrap_or_else(|| win.on_monitor());
        let emulation = config.emulation.clone().map(|e| (e, config.seed));
        let emulated = emulated_rate(emulation.as_ref(), monitor.index);
        let display = DisplayInfo::default()
            .with_monitor(monitor.label)
            .with_reported(monitor.reported)
            .with_emulated(emulated)
            .with_present_mode(gfx.present_mode())
            .with_present_mode_requested(config.present_mode.label())
            .with_display_time_source(crate::platform::DISPLAY_TIME_SOURCE);
        let asked = if config.presentation_feedback {
            crate::platform::PresentationFeedback::new(&win.window, clock)
        } else {
            Err("--no-presentation-feedback".to_owned())
        };
        let feedback = match asked {
            Ok(feedback) => {
                log::info!("display times: the compositor's presentation feedback (wp_presentation)");
                Some(feedback)
            }
            Err(why) => {
                log::info!("display times: {} ({why})", crate::platform::DISPLAY_TIME_SOURCE.blind_spot());
                None
            }
        };
        let frame_log = config.frame_log.as_deref().map(FrameLog::create).transpose()?;
        let now = clock.now();
        let world = world_config(config);
        let session = fresh_session(&world, config.strategy, config.strategy_config, display, Input::NONE, now);
        let mut help_lines = bindings::help_lines();
        help_lines.extend(win.monitor_lines());
        help_lines.extend(crate::platform::help_notes());
        let runner_lane =
            RunnerLane { playfield: PLAYFIELD, y: session.world().mover(MoverKind::Runner).current.pos[1] as f32 };
        let hud = HudData {
            reserved_bottom_points: crate::platform::PAGE_BAR_POINTS,
            help_lines,
            gpu_timing: gfx.timer.is_some(),
            runner_lane: Some(runner_lane),
            ..HudData::default()
        };
        let instances = Vec::with_capacity(session.world().max_instances());
        let vsync = emulated_vsync(emulation.as_ref(), emulated);
        let mut demo = Demo {
            screen: Screen { feedback, win, gfx, hud, instances, vsync },
            session,
            mode: Mode::Single,
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
            lane_ids: config.lanes.0.clone(),
            lane_reports: Vec::new(),
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
    pub fn restart(
        &mut self,
        strategy: StrategyId,
        emulate: bool,
        stand_in: Option<Rate>,
        config: &RunConfig,
        now: Nanos,
    ) {
        let emulated = self.emulated_here().filter(|_| emulate);
        let present_mode = self.screen.gfx.present_mode();
        let reported = self.screen.win.on_monitor().reported.or(stand_in);
        let display = self
            .session
            .display()
            .clone()
            .with_emulated(emulated)
            .with_reported(reported)
            .with_present_mode(present_mode);
        let (world, input) = (world_config(config), self.controls.input);
        self.end_run();
        self.session = fresh_session(&world, strategy, config.strategy_config, display, input, now);
        self.screen.vsync = emulated_vsync(self.emulation.as_ref(), emulated);
        self.refresh_hud(now);
    }

    /// The emulated refresh `--emulate-refresh` gives the monitor the window is on.
    pub fn emulated_here(&self) -> Option<Rate> {
        emulated_rate(self.emulation.as_ref(), self.screen.win.on_monitor().index)
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
        // Untimed frames wait for no emulated vblank, and leave its grid as it is.
        let vsync = self.screen.vsync.take();
        let session = &self.session;
        self.screen.draw(clock, None, scene, None, |host| {
            for _ in 0..WARM_UP_FRAMES {
                host.draw_still(session.world(), session.last_view());
            }
        });
        self.screen.vsync = vsync;
        let gfx = &mut self.screen.gfx;
        if let Err(err) = gfx.gpu.device.poll(wgpu::PollType::wait_indefinitely()) {
            log::debug!("waiting for the warm-up frames failed: {err}");
        }
        gfx.collect_times();
        gfx.recent_times = Default::default();
        let now = clock.now();
        let (strategy, config) = (self.session.pacer().strategy(), *self.session.pacer().config());
        let display = self.session.display().clone();
        let world = *self.session.world().config();
        self.end_run();
        self.session = fresh_session(&world, strategy, config, display, self.controls.input, now);
        self.hold.reset();
        if let Mode::Lanes(_) = std::mem::replace(&mut self.mode, Mode::Single) {
            self.enter_lanes(now);
        }
        (self.log_at, self.still_at) = (now, now);
        self.refresh_hud(now);
    }

    /// Whether a frame should be drawn now (never while the page is hidden).
    pub fn renderable(&mut self, now: Nanos) -> bool {
        let zero = self.screen.gfx.surface.is_zero_size();
        self.screen.win.renderable(now, zero) && !self.life.is_hidden()
    }

    /// The page was hidden (`true`: a background tab, a locked phone) or
    /// shown again at `now`. No frames meanwhile, and the time is a gap in
    /// every session's run, not a frame ([`Session::hidden`]). Returns the
    /// gap `(from, to)` when one ended.
    pub fn page_hidden(&mut self, hidden: bool, now: Nanos) -> Option<(Nanos, Nanos)> {
        let gap = self.life.hidden(hidden, now);
        if let Some((from, to)) = gap {
            log::info!("the page was hidden {:.1} s: a gap in the run, not a frame", (to - from) as f64 / 1e9);
            self.session.hidden(from, to);
            self.mode.hidden(from, to);
            self.hold.reset();
        }
        self.refresh_hud(now);
        gap
    }

    /// When the next frame should start (`None`: as soon as possible). A
    /// paused demo redraws its still picture once per refresh (60 Hz when
    /// the refresh is unknown) instead of as fast as the present returns.
    pub fn wake(&self) -> Option<Nanos> {
        match self.mode {
            // Lane mode is display-paced: frames as fast as presents (or the emulated grid) allow.
            Mode::Lanes(_) => None,
            Mode::Single if self.session.paused() => {
                let period = self.session.display().refresh().unwrap_or(Rate::from_hz(60)).period();
                Some(self.still_at.saturating_add(period))
            }
            Mode::Single => self.session.wake(),
        }
    }

    /// One frame: the active strategy's, the still picture while paused, or every lane's.
    /// Returns the strategy frames settled meanwhile that were shown: this
    /// one's, or, where the compositor's feedback is awaited, earlier ones'.
    pub fn frame(&mut self, clock: &RealClock, stamp: Option<Nanos>) -> &[ShownFrame] {
        if !self.warmed {
            self.warm_up(clock);
        }
        self.shown.clear();
        let Mode::Lanes(lanes) = &mut self.mode else {
            self.session_frame(clock, stamp);
            return &self.shown;
        };
        let start = stamp.unwrap_or_else(|| clock.now());
        if let Some(log) = self.frame_log.as_mut() {
            log.frame_started(start, None);
        }
        let load = self.controls.load.cost(&mut self.controls.rng);
        let scene = SceneParams { playfield: PLAYFIELD, ghosts: false, display_lead: 0, load };
        let outcome = lanes.frame(start, clock, &mut self.screen, scene);
        self.after_frame(&outcome, clock.now());
        &self.shown
    }

    /// A frame of the demo's own session: its strategy's, or the still picture while paused.
    fn session_frame(&mut self, clock: &RealClock, stamp: Option<Nanos>) {
        let paused = self.session.paused();
        let scene = SceneParams {
            playfield: PLAYFIELD,
            ghosts: self.controls.ghosts,
            display_lead: self.display_lead,
            load: if paused { 0 } else { self.controls.load.cost(&mut self.controls.rng) },
        };
        let planned = self.held_start();
        if planned.is_none() && self.hold.measuring() {
            self.hold.reset();
        }
        if paused {
            self.still_at = clock.now();
        }
        let hold_until = planned.map(|at| self.hold.target(at));
        let frame_id = (!paused).then(|| self.session.next_frame_id());
        let session = &mut self.session;
        let (report, outcome) = self.screen.draw_frame(clock, stamp, scene, hold_until, frame_id, |host| {
            if paused {
                host.draw_still(session.world(), session.last_view());
                None
            } else {
                Some(session.run_frame(host))
            }
        });
        self.screen.gfx.collect_times();
        if let (Some(planned), Some(held), Some(report)) = (planned, outcome.held, &report) {
            self.hold.record(planned, report.start, held);
        }
        if let Some(report) = &report {
            if let Some(log) = self.frame_log.as_mut() {
                log.frame_started(report.start, Some(report.frame));
            }
            if self.waits.len() == crate::session::AWAIT_SLOTS {
                self.waits.pop_front();
            }
            self.waits.push_back((report.frame, outcome.display_wait));
            let presented = outcome.presented().with_throttled(self.redraw_wait);
            self.session.record(report, presented);
        }
        self.collect_settled();
        self.after_frame(&outcome, clock.now());
    }

    /// Hands the compositor's answers to the session, then takes the frames
    /// it settled: to the frame log, and, when shown, to [`Demo::frame`]'s answer.
    fn collect_settled(&mut self) {
        if let Some(feedback) = self.screen.feedback.as_mut() {
            let session = &mut self.session;
            feedback.poll(|word| session.feedback(word));
        }
        let estimate = self.session.estimate_source().id();
        for settled in self.session.take_settled() {
            let report = settled.report;
            let (shown, source) = match settled.outcome {
                Outcome::Displayed => (true, "compositor-feedback"),
                Outcome::Estimated => (true, estimate),
                Outcome::Discarded => (false, "discarded"),
                _ => (false, "not-shown"),
            };
            if let Some(log) = self.frame_log.as_mut() {
                log.displayed(report.frame, shown.then_some(report.display_time), source);
            }
            while self.waits.front().is_some_and(|(id, _)| *id < report.frame) {
                self.waits.pop_front();
            }
            let display_wait = match self.waits.front() {
                Some(&(id, wait)) if id == report.frame => wait,
                _ => 0,
            };
            if shown {
                self.display_lead = report.display_time.saturating_sub(report.start);
                self.shown.push(ShownFrame { report, display_wait });
            }
        }
    }

    /// The end of the run (or of a session the demo replaces): the
    /// compositor's answers that arrived are taken; the last frames it has
    /// not answered yet (one or two) are left out of the figures, not
    /// counted as estimates (waiting here cannot make it answer: nothing
    /// reads its socket until the next present), and the frame log says so.
    pub fn end_run(&mut self) {
        self.collect_settled();
        let unanswered = self.session.forget_awaiting();
        if unanswered > 0 {
            log::debug!("{unanswered} frame(s) at the end had no answer from the compositor yet: left out");
        }
        self.collect_settled();
        if let Some(log) = self.frame_log.as_mut() {
            log.forget_pending();
        }
        self.waits.clear();
    }

    /// The planned start of a frame whose present is held (`app::hold`): a
    /// strategy that paces itself, in a non-blocking present mode, with no
    /// emulated refresh (its vblanks pace the presents) and not paused.
    fn held_start(&self) -> Option<Nanos> {
        let own_pace = self.screen.vsync.is_none() && !is_vsync_mode(self.screen.gfx.surface.present_mode());
        if !own_pace || self.session.paused() {
            return None;
        }
        self.session.wake()
    }

    fn after_frame(&mut self, outcome: &HostOutcome, now: Nanos) {
        let hud = &mut self.screen.hud;
        hud.overlay_cost_ms = outcome.overlay_ms;
        if outcome.presented {
            hud.sprite_count = outcome.sprites;
        }
        match outcome.skipped {
            Some(SkipReason::Occluded | SkipReason::ZeroSize) => {
                log::debug!("window hidden or empty; rendering stops until it is back");
                self.screen.win.set_idle_until(Some(now + IDLE_RETRY));
                self.interrupt();
            }
            Some(reason) => log::debug!("frame skipped: {reason:?}"),
            None => {}
        }
        if now.saturating_sub(self.log_at) >= LOG_INTERVAL {
            self.log_at = now;
            let (hud, gfx) = (&mut self.screen.hud, &mut self.screen.gfx);
            hud.cpu_percent = self.cpu.sample(crate::platform::Instant::now());
            hud.gpu_scene_ms = gfx.recent_times.scene_mean_ms();
            hud.gpu_overlay_ms = gfx.recent_times.overlay_mean_ms();
            gfx.recent_times = Default::default();
            self.log_stats();
        }
        self.refresh_hud(now);
    }

    fn log_stats(&self) {
        let hud = &self.screen.hud;
        if !hud.lanes.is_empty() {
            let lanes: Vec<String> = hud
                .lanes
                .iter()
                .filter(|l| !l.needs_loop)
                .map(|l| {
                    let hitches = l.hitches_per_min.map_or_else(|| "-".to_owned(), |h| HITCHES_PER_MIN.number(h));
                    let (judder, latency) = (JUDDER_MS.number(l.judder_ms), LATENCY_MS.number(l.latency_ms));
                    format!("{} {judder}/{hitches}/{latency}", l.strategy)
                })
                .collect();
            let names = [&JUDDER_MS, &HITCHES_PER_MIN, &LATENCY_MS].map(|f| f.name).join("/");
            log::info!("lanes ({names}, recent): {}", lanes.join(", "));
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
            hud.figures.strategy_name,
            hud.figures.fps,
            hud.figures.ups,
            hud.figures.double_updates,
            hud.figures.skipped_renders,
            hud.figures.stats.judder_ms,
            hud.figures.stats.hitches,
            hud.figures.stats.latency_ms,
            hud.figures.stats.drift_ms_per_min,
            hud.overlay_cost_ms,
            gpu(hud.gpu_scene_ms),
            gpu(hud.gpu_overlay_ms),
            hud.figures.vsync_verdict
        );
    }

    /// Rebuilds the overlay's numbers.
    fn refresh_hud(&mut self, now: Nanos) {
        let hud = &mut self.screen.hud;
        self.session.fill_hud(&mut hud.figures, now);
        hud.ghosts = self.controls.ghosts;
        hud.load_preset = self.controls.load.label();
        self.mode.fill_labels(&mut hud.lanes, now);
        let screen = crate::platform::screen_refresh();
        if screen.is_some() {
            // A page's frame clock measures the screen, whatever the page managed to draw.
            hud.figures.measured_refresh_hz = screen;
        }
        let fps = hud.figures.fps;
        if let Some(verdict) = self.slow_page_verdict(fps) {
            self.screen.hud.figures.vsync_verdict = verdict;
        }
        let screen_hz = self.screen_to_judge_by();
        self.life.notes(fps, screen_hz, &mut self.screen.hud.notes);
    }

    /// The screen's refresh from the platform's frame clock (a page's), when
    /// the frames are meant to come at it: refreshes skipped on purpose (an
    /// emulated rate, timers, a pause) are not missed ones.
    fn screen_to_judge_by(&self) -> Option<f64> {
        let on_refresh = !self.timer_driven && self.screen.vsync.is_none() && !self.session.paused();
        crate::platform::screen_refresh().filter(|_| on_refresh)
    }

    /// The vsync sentence where the page drew `fps` and missed refreshes: the
    /// meter sees the page's own frames, and slow ones read as a slow,
    /// compositor-paced screen.
    fn slow_page_verdict(&self, fps: f64) -> Option<String> {
        life::slow_page_verdict(fps, self.screen_to_judge_by()?)
    }

    /// Follows the window to the monitor it is on now (a move, a scale change).
    pub fn follow_monitor(&mut self, now: Nanos) {
        let moved = self.screen.win.follow_monitor(false);
        self.move_to(moved, now);
    }

    /// Asks now and then which monitor the window is on (Wayland says so only
    /// after the surface enters an output, and sends no event for it).
    pub fn poll_monitor(&mut self, now: Nanos) {
        let moved = self.screen.win.poll_monitor(now);
        self.move_to(moved, now);
    }

    /// Moves the window (or its fullscreen) to the next monitor (`M`).
    pub fn next_monitor(&mut self, event_loop: &ActiveEventLoop) {
        self.screen.win.next_monitor(event_loop);
    }

    /// The monitor the platform says the window is on.
    pub fn current_monitor(&self) -> Option<MonitorHandle> {
        self.screen.win.window.current_monitor()
    }

    /// The window is on another monitor: its emulated grid (per monitor),
    /// its name and reported refresh; the session measures again.
    fn move_to(&mut self, monitor: Option<OnMonitor>, now: Nanos) {
        let Some(monitor) = monitor else { return };
        let emulated = emulated_rate(self.emulation.as_ref(), monitor.index);
        if emulated != self.session.display().emulated {
            log::info!("emulated refresh on this monitor: {}", emulated.map_or("none".to_owned(), |r| r.to_string()));
            self.screen.vsync = emulated_vsync(self.emulation.as_ref(), emulated);
        }
        self.mode.move_to_display(&monitor, emulated, now);
        self.session.move_to_display(Some(monitor.label), monitor.reported, emulated, now);
        self.refresh_hud(now);
    }

    /// Frames stopped for a while (hidden, minimised, resized).
    fn interrupt(&mut self) {
        self.session.interrupt();
        // Another size renders in another time.
        self.hold.reset();
        self.mode.interrupt();
    }

    /// Asks for the first frame (the shell's schedule asks for the others with [`Demo::request_redraw`]).
    pub fn request_first_frame(&self) {
        self.screen.win.window.request_redraw();
    }

    /// Asks the platform for a redraw at `now`; [`Demo::redraw_pending`] says so until it arrives.
    pub fn request_redraw(&mut self, now: Nanos) {
        self.screen.win.request_redraw(now);
    }

    /// When the redraw on its way was requested (`None`: none is).
    pub fn redraw_pending(&self) -> Option<Nanos> {
        self.screen.win.redraw_pending()
    }

    /// Under an emulated refresh on a platform that cannot block until its
    /// vblank (a page): whether the display's coming refresh lies between
    /// two emulated ones, so that the frame waits for a later one. A frame
    /// runs at the display refresh nearest the next emulated vblank, so an
    /// emulated rate at or below the display's shows at that rate.
    pub fn between_emulated_vblanks(&mut self, clock: &RealClock, now: Nanos) -> bool {
        if !crate::platform::EMULATES_BY_SKIPPING {
            return false;
        }
        let Some(vsync) = &self.screen.vsync else { return false };
        let Some((next_real, period)) = crate::platform::next_refresh(clock) else { return false };
        let rate = vsync.rate();
        if !self.emulation_checked && period > 0 {
            self.emulation_checked = true;
            if rate.period() + rate.period() / 100 < period {
                crate::platform::notify(&format!(
                    "the emulated {} Hz is faster than this screen's {:.2} Hz: frames come at most once a refresh",
                    crate::monitor::trim_number(rate.hz(), 3),
                    1e9 / period as f64
                ));
            }
        }
        // The emulated refresh the frame would take (after the one the last frame took).
        vsync.grid().time_of(vsync.peek(now)) > next_real.saturating_add(period / 2)
    }

    /// The requested redraw arrived at `now`: the frame about to run waited
    /// that long for it (on Wayland, the compositor's pacing).
    pub fn redraw_arrived(&mut self, now: Nanos) {
        self.redraw_wait = self.screen.win.redraw_arrived(now);
    }

    /// Until when frames wait (occluded, or found hidden by a frame); events clear it.
    pub fn idle_until(&self) -> Option<Nanos> {
        self.screen.win.idle_until()
    }

    /// Gives a window event to the overlay; true when the overlay used it
    /// (a click on its panel is not the demo's).
    pub fn overlay_event(&mut self, event: &WindowEvent) -> bool {
        let screen = &mut self.screen;
        screen.gfx.overlay.on_window_event(&screen.win.window, event)
    }

    /// The window's inner size is `width` × `height` pixels now.
    pub fn resized(&mut self, width: u32, height: u32, now: Nanos) {
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
    pub fn occluded(&mut self, occluded: bool, now: Nanos) {
        self.screen.win.set_idle_until(occluded.then(|| now + IDLE_RETRY));
        self.interrupt();
    }

    /// The window gained or lost focus: whether it can be seen is asked again.
    pub fn focused(&mut self, now: Nanos) {
        self.screen.win.check_hidden(now);
        self.screen.win.set_idle_until(None);
    }

    /// Why the GPU device was lost, once it has been.
    pub fn device_lost(&self) -> Option<String> {
        self.screen.gfx.device_lost()
    }

    /// The GPU adapter the window renders on.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.screen.gfx.gpu.adapter.get_info()
    }

    /// The present modes the window's surface supports.
    pub fn supported_present_modes(&self) -> &[wgpu::PresentMode] {
        self.screen.gfx.surface.supported_present_modes()
    }

    /// Switches the surface to `present` where it differs; returns the mode in
    /// effect (another, when the surface refuses). The session learns of it at
    /// the next [`Demo::restart`].
    pub fn set_present_mode(&mut self, present: wgpu::PresentMode) -> wgpu::PresentMode {
        let gfx = &mut self.screen.gfx;
        if gfx.surface.present_mode() == present {
            return present;
        }
        gfx.surface.set_present_mode(&gfx.gpu.device, present)
    }

    /// Whether frames start on timers instead of the display's refresh (see [`Demo::act`]'s `V`).
    pub fn timer_driven(&self) -> bool {
        self.timer_driven
    }

    /// The strategy the demo's session runs.
    pub fn strategy(&self) -> StrategyId {
        self.session.pacer().strategy()
    }

    /// The session's vsync verdict, brought up to date.
    pub fn verdict(&self) -> Verdict {
        self.session.verdict()
    }

    /// The session's report at `now`, as a window run (`model` `window`, the run's seed).
    pub fn report(&mut self, now: Nanos) -> RunReport {
        let mut run = self.session.report(now);
        run.model = RunModel::Window;
        run.seed = self.seed;
        run
    }

    /// Logs the run's totals at exit: wgpu errors, frames, updates, held presents.
    pub fn log_summary(&self) {
        let uncaptured = self.screen.gfx.uncaptured_errors();
        if uncaptured > 0 {
            log::warn!("{uncaptured} wgpu error(s) were logged during the run");
        }
        let (frames, presented) = self.session.frame_counts();
        log::info!("{frames} frames, {presented} presented, {} updates", self.session.pacer().updates());
        if let Some(held) = self.hold.run_summary() {
            log::info!("{held}");
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

    /// Saves the screenshot `--screenshot` asked for.
    ///
    /// # Errors
    /// See [`Gfx::screenshot`].
    pub fn screenshot(&mut self, path: &std::path::Path) -> Result<(), CliError> {
        let screen = &self.screen;
        let scene = ScreenshotScene {
            world: self.session.world(),
            view: self.session.last_view(),
            playfield: PLAYFIELD,
            hud: &screen.hud,
            pixels_per_point: screen.win.window.scale_factor() as f32 * self.life.buffer_scale(),
        };
        match self.mode {
            // The instance buffer holds the last lane frame's sprites, every lane's.
            Mode::Lanes(_) => screen.gfx.screenshot_instances(&screen.instances, scene, path),
            Mode::Single => screen.gfx.screenshot(scene, path),
        }
    }

    /// The run's statistics for `--stats-json`.
    pub fn stats(&mut self, now: Nanos) -> StatsJson {
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
            lanes: self.mode.lane_reports(now, self.seed).unwrap_or_else(|| self.lane_reports.clone()),
            screen_refresh_hz: crate::platform::screen_refresh(),
            notes: self.screen.hud.notes.clone(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::Simulation as _;

    #[test]
    fn a_fresh_session_starts_at_tick_zero_with_the_keys_held_now() {
        let world = WorldConfig::default();
        let mut session = fresh_session(
            &world,
            StrategyId::Lockstep,
            StrategyConfig::default(),
            DisplayInfo::default(),
            Input::UP,
            5,
        );
        assert_eq!(session.world().tick(), 0, "a fresh world");
        session.world_mut().step(NANOS_PER_SEC / 60);
        assert_eq!(session.world().input(), Input::UP, "the key held before the restart is still held");
        assert_eq!(session.pacer().strategy(), StrategyId::Lockstep);
    }
}
