//! The winit application: events in, frames out, and the one place that decides when to wake.
//!
//! ```text
//!  RedrawRequested ──► driver.run_frame(world, WindowHost) ──► FrameReport { wake, … }
//!                                                                   │
//!  about_to_wait ◄──────────────────────────────────────────────────┘
//!     wake None / due        ─► request_redraw
//!     wake within SPIN_MARGIN ─► spin_until(wake), request_redraw
//!     wake later             ─► ControlFlow::WaitUntil(wake − SPIN_MARGIN)   (events still flow)
//!     hidden / zero size     ─► ControlFlow::WaitUntil(retry or exit deadline), no rendering
//! ```
//!
//! Vsync (a blocking present) paces strategies that return `wake: None`;
//! strategies that pace themselves get a precise wait. The loop never polls.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use winit::application::ApplicationHandler;
use winit::dpi::{LogicalSize, PhysicalPosition};
use winit::event::{ElementState, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::keyboard::{ModifiersState, PhysicalKey};
use winit::monitor::MonitorHandle;
use winit::window::{Window, WindowId};

use crate::app::args::RunConfig;
use crate::app::bindings::{self, Action, Dir};
use crate::app::cpu::CpuSampler;
use crate::app::emulate::{ShellRng, VblankGrid};
use crate::app::host::{HostOutcome, WindowHost};
use crate::app::hud::HudData;
use crate::app::load::LoadPreset;
use crate::app::monitors::{self, MonitorInfo};
use crate::app::refresh::{self, RefreshMeter, Verdict, VerdictInput};
use crate::app::stats::{self, Folded, GpuTimeTotals, RunStats, SurfaceStats};
use crate::app::wait::{self, WakePlan};
use crate::error::CliError;
use crate::frame::{FrameDriver, FrameHost, FrameReport};
use crate::metrics::{FrameSample, Metrics};
use crate::render::gpu_timer::GpuTimer;
use crate::render::overlay::Overlay;
use crate::render::surface::{SkipReason, WindowSurface, is_vsync_mode, present_mode_name};
use crate::render::{GpuContext, Offscreen, SpriteRenderer};
use crate::sim::{Input, Instance, World, WorldConfig};
use crate::strategy::{StrategyId, View};
use crate::time::{Clock, NANOS_PER_MS, NANOS_PER_SEC, Nanos, Rate, RealClock};

/// The playfield the world simulates, in world units (pixels at 100 %).
pub const PLAYFIELD: [f32; 2] = [1280.0, 720.0];

/// How often a hidden, minimised or paused window looks again (no polling in between).
const IDLE_RETRY: Nanos = 250 * NANOS_PER_MS;

/// How often the overlay's text fields (verdict, pattern, monitor) are rebuilt.
const HUD_TEXT_INTERVAL: Nanos = 100 * NANOS_PER_MS;

/// Periodic stats go to the log at most this often.
const LOG_INTERVAL: Nanos = NANOS_PER_SEC;

/// Messages from wgpu's callbacks, which may run on other threads.
#[derive(Default)]
struct GpuAlarms {
    device_lost: Option<String>,
    uncaptured: u64,
    /// When an uncaptured error was last logged, and how many were not logged since.
    last_logged: Option<std::time::Instant>,
    suppressed: u64,
}

impl GpuAlarms {
    /// Logs a wgpu error, at most once a second: a broken pipeline fails
    /// every frame, and one line per frame would bury everything else.
    fn uncaptured_error(&mut self, error: &wgpu::Error) {
        self.uncaptured += 1;
        let now = std::time::Instant::now();
        if self.last_logged.is_some_and(|at| now.duration_since(at) < std::time::Duration::from_secs(1)) {
            self.suppressed += 1;
            return;
        }
        if self.suppressed > 0 {
            log::error!("wgpu error (and {} more in the last second): {error}", self.suppressed);
        } else {
            log::error!("wgpu error: {error}");
        }
        self.last_logged = Some(now);
        self.suppressed = 0;
    }
}

/// Everything that exists once the window is up.
struct Running {
    window: Arc<Window>,
    gpu: GpuContext,
    surface: WindowSurface,
    sprites: SpriteRenderer,
    overlay: Overlay,
    /// Times the render passes on the GPU, where the adapter has timestamp queries.
    timer: Option<GpuTimer>,
    /// GPU pass times over the whole run, and over the current log interval (the overlay's).
    gpu_run: GpuTimeTotals,
    gpu_recent: GpuTimeTotals,
    world: World,
    driver: FrameDriver,
    hud: HudData,
    instances: Vec<Instance>,
    meter: RefreshMeter,
    grid: Option<VblankGrid>,
    /// Metrics since the strategy (or tick rate, mode, monitor) last changed: the overlay's.
    live: Metrics,
    live_game_origin: Nanos,
    /// Metrics of the whole run (restarted only when the refresh rate changes).
    run: Metrics,
    folded: Folded,
    monitors: Vec<MonitorHandle>,
    monitor: Option<MonitorHandle>,
    monitor_info: Option<MonitorInfo>,
    verdict: Verdict,
    wake: Option<Nanos>,
    last_end: Nanos,
    last_display: Option<Nanos>,
    last_view: View,
    /// A redraw was requested at this time and has not arrived yet.
    redraw_pending: Option<Nanos>,
    /// Hidden or empty: no frames before this clock time (events clear it).
    idle_until: Option<Nanos>,
    /// Whether the window is minimised, and when to ask the platform again
    /// (on X11 asking is a server round trip, too slow for every frame).
    minimized: bool,
    minimized_checked_at: Nanos,
    paused: bool,
    ghosts: bool,
    load: LoadPreset,
    rng: ShellRng,
    input: Input,
    modifiers: ModifiersState,
    strategies_used: BTreeSet<StrategyId>,
    cpu: CpuSampler,
    alarms: Arc<Mutex<GpuAlarms>>,
    start: Nanos,
    frames: u64,
    presented: u64,
    hud_text_at: Nanos,
    log_at: Nanos,
    log_frames: u64,
    log_updates: u64,
    display_lead: Nanos,
    /// Emulated presents: count, summed and worst lateness after the wake time.
    late: (u64, Nanos, Nanos),
}

/// The application handler.
pub struct App {
    config: RunConfig,
    clock: RealClock,
    running: Option<Running>,
    error: Option<CliError>,
    finished: bool,
    deadline: Option<Nanos>,
}

impl App {
    /// An app that opens its window when the event loop resumes.
    pub fn new(config: RunConfig) -> App {
        App { config, clock: RealClock::new(), running: None, error: None, finished: false, deadline: None }
    }

    /// The error that ended the run, if any.
    pub fn into_result(self) -> Result<(), CliError> {
        match self.error {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, err: CliError) {
        // `main` prints the error; the log only notes that the run ends here.
        log::debug!("ending the run: {err}");
        if self.error.is_none() {
            self.error = Some(err);
        }
        self.finish(event_loop);
    }

    /// Writes the screenshot and the stats (once), then leaves the event loop.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        event_loop.exit();
        if self.finished {
            return;
        }
        self.finished = true;
        let Some(running) = self.running.as_mut() else { return };
        let device_lost = lock(&running.alarms).device_lost.is_some();
        if let Some(path) = self.config.screenshot.clone() {
            if device_lost {
                log::warn!("no screenshot: the GPU device was lost");
            } else if let Err(err) = running.screenshot(&path) {
                self.error.get_or_insert(err);
            } else {
                log::info!("screenshot written to {}", path.display());
            }
        }
        if let Some(path) = self.config.stats_json.clone() {
            let stats = running.stats(&self.config, self.clock.now());
            if let Err(err) = stats.write(&path) {
                self.error.get_or_insert(err);
            } else {
                log::info!("stats written to {}", path.display());
            }
        }
    }

    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<Running, CliError> {
        let monitors: Vec<MonitorHandle> = event_loop.available_monitors().collect();
        if monitors.is_empty() {
            log::info!("winit lists no monitors");
        }
        for (i, m) in monitors.iter().enumerate() {
            log::info!("monitor {}: {}", i + 1, MonitorInfo::of(i, m));
        }
        let chosen = match self.config.monitor {
            Some(i) => Some(monitors.get(i).cloned().ok_or_else(|| {
                CliError::Usage(format!("--monitor: there is no monitor {} ({} found)", i + 1, monitors.len()))
            })?),
            None => None,
        };
        let mut attributes = Window::default_attributes()
            .with_title("timestep-lab")
            .with_inner_size(LogicalSize::new(self.config.window_size[0], self.config.window_size[1]));
        if let Some(m) = &chosen {
            let p = m.position();
            attributes = attributes.with_position(PhysicalPosition::new(p.x + 32, p.y + 32));
        }
        if self.config.fullscreen {
            let target = chosen.clone().or_else(|| event_loop.primary_monitor()).or_else(|| monitors.first().cloned());
            attributes = attributes.with_fullscreen(Some(match target {
                Some(m) => monitors::fullscreen_on(&m, false),
                None => winit::window::Fullscreen::Borderless(None),
            }));
        }
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| CliError::Runtime(format!("could not open a window: {e}")))?,
        );

        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        )));
        let raw_surface =
            WindowSurface::create(&instance, Arc::clone(&window)).map_err(|e| CliError::Runtime(e.to_string()))?;
        let gpu = pollster::block_on(GpuContext::new(instance, Some(&raw_surface)))
            .map_err(|e| CliError::Runtime(e.to_string()))?;
        log::info!("rendering on {}", gpu.adapter_summary());
        let alarms = Arc::new(Mutex::new(GpuAlarms::default()));
        {
            let alarms = Arc::clone(&alarms);
            gpu.device.set_device_lost_callback(move |reason, message| {
                log::error!("GPU device lost ({reason:?}): {message}");
                lock(&alarms).device_lost = Some(format!("{reason:?}: {message}"));
            });
        }
        {
            let alarms = Arc::clone(&alarms);
            gpu.device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
                lock(&alarms).uncaptured_error(&error);
            }));
        }
        let emulating = self.config.emulation.is_some();
        let mode = self.config.present_mode.resolve(emulating);
        let surface =
            WindowSurface::new(&gpu.instance, Arc::clone(&window), raw_surface, &gpu.adapter, &gpu.device, mode)
                .map_err(|e| CliError::Runtime(e.to_string()))?;
        if surface.present_mode() != mode {
            log::warn!(
                "present mode {} is not supported here; using {}",
                present_mode_name(mode),
                present_mode_name(surface.present_mode())
            );
        }
        if emulating && is_vsync_mode(surface.present_mode()) {
            log::warn!("emulating a refresh over a blocking present mode: the real vsync will beat against the grid");
        }
        let mut sprites = SpriteRenderer::new(&gpu.device, &gpu.queue, surface.format());
        let mut overlay = Overlay::new(&gpu.device, surface.format(), &window);
        let timer = GpuTimer::new(&gpu.device, &gpu.queue);
        match &timer {
            Some(timer) => {
                sprites.set_timestamps(Some(timer.scene()));
                overlay.set_timestamps(Some(timer.overlay()));
            }
            None => log::info!("the adapter has no timestamp queries: GPU pass times are not measured"),
        }
        overlay.set_visible(!self.config.no_overlay);
        let world = World::new(&WorldConfig {
            width: PLAYFIELD[0],
            height: PLAYFIELD[1],
            extra_sprites: self.config.sprites as usize,
            ..WorldConfig::default()
        });
        let driver = FrameDriver::new(self.config.strategy, self.config.strategy_config);
        // The grid starts at clock zero so that `metrics`' `round(t · Hz)` numbers vblanks exactly.
        let grid = self.config.emulation.map(|e| VblankGrid::new(e.rate, 0, e.jitter, self.config.seed));
        let now = self.clock.now();
        self.deadline = self.config.exit_after.map(|d| now.saturating_add(d));
        let mut help_lines = bindings::help_lines();
        help_lines.extend(
            monitors.iter().enumerate().map(|(i, m)| (format!("monitor {}", i + 1), MonitorInfo::of(i, m).to_string())),
        );
        let mut hud = HudData { help_lines, gpu_timing: timer.is_some(), ..HudData::default() };
        hud.present_mode_requested = self.config.present_mode.label().to_owned();
        let mut running = Running {
            monitor: window.current_monitor(),
            window,
            gpu,
            surface,
            sprites,
            overlay,
            timer,
            gpu_run: GpuTimeTotals::default(),
            gpu_recent: GpuTimeTotals::default(),
            world,
            driver,
            hud,
            instances: Vec::with_capacity(self.config.sprites as usize + 64),
            meter: RefreshMeter::new(),
            grid,
            live: Metrics::new(now, None),
            live_game_origin: 0,
            run: Metrics::new(now, None),
            folded: Folded::default(),
            monitors,
            monitor_info: None,
            verdict: Verdict { vsync: None, text: String::new() },
            wake: None,
            last_end: now,
            last_display: None,
            last_view: View::Latest,
            redraw_pending: None,
            idle_until: None,
            minimized: false,
            minimized_checked_at: 0,
            paused: false,
            ghosts: false,
            load: LoadPreset::None,
            rng: ShellRng::new(self.config.seed),
            input: Input::NONE,
            modifiers: ModifiersState::empty(),
            strategies_used: BTreeSet::from([self.config.strategy]),
            cpu: CpuSampler::new(),
            alarms,
            start: now,
            frames: 0,
            presented: 0,
            hud_text_at: 0,
            log_at: now,
            log_frames: 0,
            log_updates: 0,
            display_lead: 0,
            late: (0, 0, 0),
        };
        running.follow_monitor(&self.clock, true);
        running.refresh_hud_text(&self.config, now);
        Ok(running)
    }
}

fn lock(alarms: &Mutex<GpuAlarms>) -> std::sync::MutexGuard<'_, GpuAlarms> {
    alarms.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Running {
    /// The refresh strategies and metrics count in: the emulated grid when
    /// emulating (it replaces the display), else what the monitor reports.
    fn refresh_rate(&self) -> Option<Rate> {
        match &self.grid {
            Some(grid) => Some(grid.rate()),
            None => self.monitor_info.as_ref().and_then(MonitorInfo::refresh_rate),
        }
    }

    /// Picks up the monitor the window is on; on a change of refresh rate
    /// tells the driver and restarts the refresh bookkeeping.
    fn follow_monitor(&mut self, clock: &RealClock, force: bool) {
        let current = self.window.current_monitor().or_else(|| self.monitor.clone());
        let index = current.as_ref().and_then(|c| self.monitors.iter().position(|m| m == c)).unwrap_or(0);
        let info = current.as_ref().map(|m| MonitorInfo::of(index, m));
        if !force && info == self.monitor_info {
            return;
        }
        let old_rate = self.refresh_rate();
        if let Some(info) = &info {
            log::info!("window is on {info}");
        }
        self.monitor = current;
        self.monitor_info = info;
        let rate = self.refresh_rate();
        if force || rate != old_rate {
            let now = clock.now();
            self.driver.set_refresh(rate);
            self.folded.add(&self.run.totals());
            self.run = Metrics::new(now, rate);
            self.reset_live(now);
            self.meter.clear();
        }
    }

    /// Starts the overlay's numbers over (new strategy, tick rate, mode…).
    fn reset_live(&mut self, now: Nanos) {
        self.live = Metrics::new(now, self.refresh_rate());
        self.live_game_origin = self.driver.game_time();
        self.hud.frame_times_ms.clear();
        self.last_display = None;
    }

    fn renderable(&mut self, now: Nanos) -> bool {
        if now >= self.minimized_checked_at.saturating_add(IDLE_RETRY) {
            self.check_minimized(now);
        }
        self.idle_until.is_none_or(|t| now >= t) && !self.surface.is_zero_size() && !self.minimized
    }

    fn check_minimized(&mut self, now: Nanos) {
        self.minimized = self.window.is_minimized() == Some(true);
        self.minimized_checked_at = now;
    }

    /// One frame of the active strategy.
    fn frame(&mut self, config: &RunConfig, clock: &RealClock) {
        let mut outcome = HostOutcome::default();
        let report = if self.paused {
            self.still_frame(clock, &mut outcome)
        } else {
            let mut host = WindowHost {
                clock,
                gpu: &self.gpu,
                surface: &mut self.surface,
                sprites: &mut self.sprites,
                overlay: &mut self.overlay,
                timer: self.timer.as_mut(),
                window: &self.window,
                hud: &self.hud,
                instances: &mut self.instances,
                playfield: PLAYFIELD,
                ghosts: self.ghosts,
                display_lead: self.display_lead,
                load: self.load.cost(&mut self.rng),
                grid: self.grid.as_mut(),
                frame: None,
                outcome: HostOutcome::default(),
            };
            let report = self.driver.run_frame(&mut self.world, &mut host);
            outcome = host.outcome;
            log::trace!(
                "frame {}: {:.2} ms, blocked {:.2} ms",
                self.frames,
                report.end.saturating_sub(report.start) as f64 / 1e6,
                outcome.blocked as f64 / 1e6
            );
            Some(report)
        };
        self.frames += 1;
        self.hud.overlay_cost_ms = outcome.overlay_ms;
        if let Some(times) = self.timer.as_mut().and_then(GpuTimer::collect) {
            self.gpu_run.add(&times);
            self.gpu_recent.add(&times);
        }
        if outcome.presented {
            self.presented += 1;
            self.hud.sprite_count = outcome.sprites;
        }
        match outcome.skipped {
            Some(SkipReason::Occluded | SkipReason::ZeroSize) => {
                log::debug!("window hidden or empty; rendering stops until it is back");
                self.idle_until = Some(clock.now() + IDLE_RETRY);
                self.meter.break_sequence();
            }
            Some(reason) => log::debug!("frame skipped: {reason:?}"),
            None => {}
        }
        let Some(report) = report else {
            // Paused: redraw the still picture a few times a second for the overlay.
            self.wake = Some(clock.now() + IDLE_RETRY);
            self.last_end = clock.now();
            self.refresh_hud_text(config, clock.now());
            return;
        };
        self.after_frame(&report, &outcome, clock);
        self.refresh_hud_text(config, clock.now());
    }

    /// While paused: draw the world as it is, without stepping, a few times a second.
    fn still_frame(&mut self, clock: &RealClock, outcome: &mut HostOutcome) -> Option<FrameReport> {
        let mut host = WindowHost {
            clock,
            gpu: &self.gpu,
            surface: &mut self.surface,
            sprites: &mut self.sprites,
            overlay: &mut self.overlay,
            timer: self.timer.as_mut(),
            window: &self.window,
            hud: &self.hud,
            instances: &mut self.instances,
            playfield: PLAYFIELD,
            ghosts: self.ghosts,
            display_lead: self.display_lead,
            load: 0,
            grid: None,
            frame: None,
            outcome: HostOutcome::default(),
        };
        host.render(&self.world, self.last_view);
        host.present();
        *outcome = host.outcome;
        None
    }

    fn after_frame(&mut self, report: &FrameReport, outcome: &HostOutcome, clock: &RealClock) {
        let unpaced = self.wake.is_none_or(|at| at <= self.last_end);
        self.wake = report.wake.at;
        self.last_end = report.end;
        self.last_view = report.view;
        self.log_updates += u64::from(report.updates);
        if !outcome.presented {
            return;
        }
        self.log_frames += 1;
        if outcome.vblank.is_some() {
            self.late = (self.late.0 + 1, self.late.1 + outcome.wake_late, self.late.2.max(outcome.wake_late));
        }
        self.display_lead = report.display_time.saturating_sub(report.start);
        self.meter.record(report.display_time, outcome.blocked, unpaced);
        if let Some(prev) = self.last_display {
            self.hud.frame_times_ms.push(std::time::Duration::from_nanos(report.display_time.saturating_sub(prev)));
        }
        self.last_display = Some(report.display_time);
        let game = self.driver.game_time();
        self.run.record(&FrameSample::from_report(report, game));
        self.live.record(&FrameSample::from_report(report, game.saturating_sub(self.live_game_origin)));
        let now = clock.now();
        if now.saturating_sub(self.log_at) >= LOG_INTERVAL {
            let wall = now - self.log_at;
            self.hud.fps = stats::per_second(self.log_frames, wall);
            self.hud.ups = stats::per_second(self.log_updates, wall);
            self.hud.cpu_percent = self.cpu.sample(clock.instant_at(now));
            self.hud.gpu_scene_ms = self.gpu_recent.scene_mean_ms();
            self.hud.gpu_overlay_ms = self.gpu_recent.overlay_mean_ms();
            self.gpu_recent = GpuTimeTotals::default();
            let totals = self.live.totals();
            log::info!(
                "{}: {:.1} fps, {:.1} ups, {} double, {} skipped, judder {:.2} ms, latency {:.2} ms, speed {:.3}, overlay CPU {:.1} ms, GPU scene {} overlay {}; {}",
                self.driver.strategy_id(),
                self.hud.fps,
                self.hud.ups,
                totals.double_updates,
                totals.skipped_renders,
                self.live.recent_judder_ms(),
                self.live.recent_latency_ms(),
                totals.stats.speed_ratio,
                self.hud.overlay_cost_ms,
                gpu_ms(self.hud.gpu_scene_ms),
                gpu_ms(self.hud.gpu_overlay_ms),
                self.verdict.text
            );
            self.log_at = now;
            self.log_frames = 0;
            self.log_updates = 0;
        }
    }

    /// Rebuilds the overlay's numbers; the text parts at most every [`HUD_TEXT_INTERVAL`].
    fn refresh_hud_text(&mut self, config: &RunConfig, now: Nanos) {
        let totals = self.live.totals();
        let hud = &mut self.hud;
        hud.double_updates = totals.double_updates;
        hud.skipped_renders = totals.skipped_renders;
        hud.repeated_frames = totals.repeated_frames;
        hud.speed_ratio = if totals.stats.speed_ratio.is_finite() { totals.stats.speed_ratio } else { 1.0 };
        hud.drift_ms = (totals.game_time as f64 - totals.system_time as f64) / NANOS_PER_MS as f64;
        hud.judder_ms = finite_or_zero(self.live.recent_judder_ms());
        hud.latency_ms = finite_or_zero(self.live.recent_latency_ms());
        hud.paused = self.paused;
        hud.ghosts = self.ghosts;
        hud.load_preset = self.load.label();
        if now < self.hud_text_at {
            return;
        }
        self.hud_text_at = now + HUD_TEXT_INTERVAL;
        let id = self.driver.strategy_id();
        let info = id.info();
        let mode = self.surface.present_mode();
        let measured = self.meter.measured();
        self.verdict = refresh::verdict(&VerdictInput {
            mode: mode_title(mode),
            mode_is_vsync: is_vsync_mode(mode),
            emulated: self.grid.as_ref().map(VblankGrid::rate),
            reported_hz: self.monitor_info.as_ref().and_then(MonitorInfo::refresh_hz),
            measured,
            samples: self.meter.samples(),
        });
        let hud = &mut self.hud;
        hud.strategy_name = info.name;
        hud.strategy_summary = info.summary;
        hud.strategy_source = info.source;
        hud.strategy_status = self.driver.strategy().status();
        hud.tick_rate_hz = self.driver.config().tick_rate.hz();
        hud.present_mode_requested = config.present_mode.label().to_owned();
        hud.present_mode_actual = mode_title(mode).to_owned();
        hud.monitor_name = match &self.monitor_info {
            Some(m) if self.monitors.len() > 1 => {
                format!("{} {}x{} (one of {})", m.name, m.size[0], m.size[1], self.monitors.len())
            }
            Some(m) => format!("{} {}x{}", m.name, m.size[0], m.size[1]),
            None => "unknown monitor".to_owned(),
        };
        hud.reported_refresh_hz = self.monitor_info.as_ref().and_then(MonitorInfo::refresh_hz);
        hud.measured_refresh_hz = measured.map(|m| m.hz());
        hud.vsync_verdict.clone_from(&self.verdict.text);
        hud.emulated_refresh_hz = self.grid.as_ref().map(|g| g.rate().hz());
        hud.pattern.clear();
        hud.pattern.extend(self.live.recent_pattern());
    }

    fn handle_action(
        &mut self,
        action: Action,
        pressed: bool,
        event_loop: &ActiveEventLoop,
        clock: &RealClock,
    ) -> bool {
        if action.is_held() {
            let button = match action {
                Action::Move(Dir::Up) => Input::UP,
                Action::Move(Dir::Down) => Input::DOWN,
                Action::Move(Dir::Left) => Input::LEFT,
                Action::Move(Dir::Right) => Input::RIGHT,
                _ => Input::FIRE,
            };
            self.input.set(button, pressed);
            self.world.set_input(self.input);
            return false;
        }
        if !pressed {
            return false;
        }
        let now = clock.now();
        match action {
            Action::Strategy(id) => {
                self.driver.set_strategy(id);
                self.strategies_used.insert(id);
                self.wake = None;
                self.reset_live(now);
                log::info!("strategy: {id}");
            }
            Action::CyclePresentMode => {
                let next = self.surface.next_present_mode();
                let actual = self.surface.set_present_mode(&self.gpu.device, next);
                self.meter.clear();
                self.reset_live(now);
                log::info!("present mode: {}", present_mode_name(actual));
            }
            Action::TickRateUp | Action::TickRateDown => {
                let current = self.driver.config().tick_rate.hz();
                if let Some(hz) = bindings::step_tick_rate(current, action == Action::TickRateUp) {
                    self.driver.set_tick_rate(Rate::from_hz(hz));
                    self.wake = None;
                    self.reset_live(now);
                    log::info!("tick rate: {hz} Hz");
                }
            }
            Action::CycleLoad => {
                self.load = self.load.next();
                log::info!("load: {}", self.load.label());
            }
            Action::TogglePause => {
                self.paused = !self.paused;
                if !self.paused {
                    // Timing state starts over, so the pause is not caught up.
                    self.driver.set_strategy(self.driver.strategy_id());
                    self.meter.break_sequence();
                    self.reset_live(now);
                }
                self.wake = None;
            }
            Action::ResetWorld => {
                self.world.reset();
                self.world.set_input(self.input);
            }
            Action::ToggleGhosts => self.ghosts = !self.ghosts,
            Action::ToggleFullscreen | Action::ToggleExclusiveFullscreen => {
                if self.window.fullscreen().is_some() {
                    self.window.set_fullscreen(None);
                } else if let Some(m) = self.window.current_monitor().or_else(|| self.monitor.clone()) {
                    let exclusive = action == Action::ToggleExclusiveFullscreen;
                    self.window.set_fullscreen(Some(monitors::fullscreen_on(&m, exclusive)));
                } else {
                    self.window.set_fullscreen(Some(winit::window::Fullscreen::Borderless(None)));
                }
            }
            Action::NextMonitor => self.next_monitor(event_loop),
            Action::ToggleOverlay => self.overlay.set_visible(!self.overlay.visible()),
            Action::ToggleHelp => self.hud.show_help = !self.hud.show_help,
            Action::Quit => return true,
            Action::Move(_) | Action::Kick => {}
        }
        self.hud_text_at = 0;
        false
    }

    fn next_monitor(&mut self, event_loop: &ActiveEventLoop) {
        self.monitors = event_loop.available_monitors().collect();
        if self.monitors.len() < 2 {
            log::info!("only {} monitor(s): nothing to move to", self.monitors.len());
            return;
        }
        let current = self.window.current_monitor();
        let index = current.and_then(|c| self.monitors.iter().position(|m| *m == c)).unwrap_or(0);
        let next = self.monitors[(index + 1) % self.monitors.len()].clone();
        log::info!("moving to {}", MonitorInfo::of((index + 1) % self.monitors.len(), &next));
        if self.window.fullscreen().is_some() {
            self.window.set_fullscreen(Some(monitors::fullscreen_on(&next, false)));
        } else {
            let p = next.position();
            self.window.set_outer_position(PhysicalPosition::new(p.x + 32, p.y + 32));
        }
    }

    /// Renders the world offscreen at the window's size and saves a PNG. The
    /// overlay is left out: its pipeline is built for the surface's format.
    fn screenshot(&mut self, path: &std::path::Path) -> Result<(), CliError> {
        let [w, h] = self.surface.size();
        let (w, h) = if w < 16 || h < 16 { (PLAYFIELD[0] as u32, PLAYFIELD[1] as u32) } else { (w, h) };
        let device = &self.gpu.device;
        let queue = &self.gpu.queue;
        let target = Offscreen::new(device, w, h);
        let mut sprites = SpriteRenderer::new(device, queue, target.format());
        self.instances.clear();
        self.world.write_instances(self.last_view, &mut self.instances);
        sprites.prepare(device, queue, &self.instances, PLAYFIELD, target.size());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("screenshot") });
        sprites.draw(&mut encoder, target.view());
        queue.submit([encoder.finish()]);
        target.save_png(device, queue, path).map_err(|e| CliError::Runtime(e.to_string()))
    }

    fn stats(&mut self, config: &RunConfig, now: Nanos) -> RunStats {
        let totals = self.run.totals();
        let mut folded = self.folded;
        folded.add(&totals);
        let wall = now.saturating_sub(self.start);
        let updates = self.driver.updates();
        let game = self.driver.game_time();
        let counts = self.surface.counts();
        let measured = self.meter.measured();
        RunStats {
            strategy: self.driver.strategy_id().name().to_owned(),
            tick_rate: self.driver.config().tick_rate.hz(),
            total_updates: updates,
            double_updates: folded.double_updates,
            skipped_renders: folded.skipped_renders,
            repeated_frames: folded.repeated_frames,
            vsyncs: folded.vsyncs,
            frames: folded.frames,
            game_time_s: stats::secs(game),
            system_time_s: stats::secs(folded.system_time),
            speed_ratio: if folded.system_time == 0 { f64::NAN } else { game as f64 / folded.system_time as f64 },
            judder_ms: totals.stats.judder_ms,
            latency_ms: totals.stats.latency_ms,
            pattern: self.run.pattern_prefix().to_owned(),
            fps: stats::per_second(self.presented, wall),
            ups: stats::per_second(updates, wall),
            wall_time_s: stats::secs(wall),
            measured_refresh_hz: measured.map(|m| m.hz()),
            reported_refresh_hz: self.monitor_info.as_ref().and_then(MonitorInfo::refresh_hz),
            emulated_refresh_hz: self.grid.as_ref().map(|g| g.rate().hz()),
            emulation_late_us_mean: (self.late.0 > 0).then(|| self.late.1 as f64 / self.late.0 as f64 / 1000.0),
            emulation_late_us_max: (self.late.0 > 0).then(|| self.late.2 as f64 / 1000.0),
            vsync_in_effect: self.verdict.vsync,
            vsync_verdict: self.verdict.text.clone(),
            present_mode_requested: config.present_mode.label().to_owned(),
            present_mode_actual: present_mode_name(self.surface.present_mode()).to_owned(),
            strategies_used: stats::strategy_names(&self.strategies_used),
            adapter: self.gpu.adapter_summary(),
            monitor: self.monitor_info.as_ref().map_or_else(|| "unknown".to_owned(), ToString::to_string),
            surface: SurfaceStats {
                frames: counts.frames,
                suboptimal: counts.suboptimal,
                zero_size: counts.zero_size,
                timeout: counts.timeout,
                occluded: counts.occluded,
                outdated: counts.outdated,
                lost: counts.lost,
                validation: counts.validation,
                configures: counts.configures,
            },
            gpu_timed_frames: self.gpu_run.frames,
            gpu_scene_ms: self.gpu_run.scene_mean_ms(),
            gpu_overlay_ms: self.gpu_run.overlay_mean_ms(),
        }
    }
}

/// A GPU time for the log: `2.31 ms`, or `n/a`.
fn gpu_ms(ms: Option<f64>) -> String {
    ms.map_or_else(|| "n/a".to_owned(), |ms| format!("{ms:.2} ms"))
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}

/// `Fifo`, `Mailbox`…: how the overlay and the verdict name a mode.
fn mode_title(mode: wgpu::PresentMode) -> &'static str {
    match mode {
        wgpu::PresentMode::Fifo => "Fifo",
        wgpu::PresentMode::FifoRelaxed => "FifoRelaxed",
        wgpu::PresentMode::Mailbox => "Mailbox",
        wgpu::PresentMode::Immediate => "Immediate",
        wgpu::PresentMode::AutoVsync => "AutoVsync",
        wgpu::PresentMode::AutoNoVsync => "AutoNoVsync",
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_some() || self.finished {
            return;
        }
        match self.start(event_loop) {
            Ok(running) => {
                running.window.request_redraw();
                self.running = Some(running);
            }
            Err(err) => self.fail(event_loop, err),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(running) = self.running.as_mut() else { return };
        let consumed = running.overlay.on_window_event(&running.window, &event);
        match event {
            WindowEvent::CloseRequested | WindowEvent::Destroyed => self.finish(event_loop),
            WindowEvent::RedrawRequested => {
                running.redraw_pending = None;
                if running.renderable(self.clock.now()) {
                    running.frame(&self.config, &self.clock);
                }
            }
            WindowEvent::Resized(size) => {
                running.surface.resize(size.width, size.height);
                running.check_minimized(self.clock.now());
                running.idle_until = None;
                running.meter.break_sequence();
            }
            WindowEvent::Occluded(occluded) => {
                // Some platforms never say "visible again": look again now and then.
                running.idle_until = occluded.then(|| self.clock.now() + IDLE_RETRY);
                running.meter.break_sequence();
            }
            WindowEvent::Focused(_) => {
                running.check_minimized(self.clock.now());
                running.idle_until = None;
            }
            WindowEvent::Moved(_) | WindowEvent::ScaleFactorChanged { .. } => {
                running.follow_monitor(&self.clock, false);
            }
            WindowEvent::ModifiersChanged(mods) => running.modifiers = mods.state(),
            WindowEvent::KeyboardInput { event, .. } if !consumed => {
                let PhysicalKey::Code(code) = event.physical_key else { return };
                let pressed = event.state == ElementState::Pressed;
                let Some(action) = bindings::action_for(code, running.modifiers) else { return };
                if event.repeat && !action.is_held() {
                    return;
                }
                if running.handle_action(action, pressed, event_loop, &self.clock) {
                    self.finish(event_loop);
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let now = self.clock.now();
        if self.finished {
            return;
        }
        if self.deadline.is_some_and(|d| now >= d) {
            log::info!("--exit-after reached");
            self.finish(event_loop);
            return;
        }
        let Some(running) = self.running.as_mut() else { return };
        let lost = lock(&running.alarms).device_lost.clone();
        if let Some(message) = lost {
            self.fail(event_loop, CliError::Runtime(format!("the GPU device was lost ({message}); exiting")));
            return;
        }
        let deadline = self.deadline.unwrap_or(Nanos::MAX);
        let wait_until = |t: Nanos| ControlFlow::WaitUntil(self.clock.instant_at(t.min(deadline)));
        if !running.renderable(now) {
            // Nothing to show: wait for an event, or look again later; never spin.
            let retry = running.idle_until.filter(|t| *t > now).unwrap_or(now + IDLE_RETRY);
            event_loop.set_control_flow(wait_until(retry));
            return;
        }
        if let Some(at) = running.redraw_pending {
            // A redraw is on its way. Should the platform drop it (an unmapped
            // window), ask again after a while rather than stall for good.
            if now.saturating_sub(at) < IDLE_RETRY {
                event_loop.set_control_flow(wait_until(at + IDLE_RETRY));
                return;
            }
            log::debug!("requested redraw did not arrive; asking again");
        }
        match wait::plan_wake(now, running.wake) {
            WakePlan::RedrawNow => {
                running.redraw_pending = Some(now);
                running.window.request_redraw();
                event_loop.set_control_flow(wait_until(now + IDLE_RETRY));
            }
            WakePlan::SpinThenRedraw(at) => {
                wait::spin_until(&self.clock, at);
                running.redraw_pending = Some(self.clock.now());
                running.window.request_redraw();
                event_loop.set_control_flow(wait_until(now + IDLE_RETRY));
            }
            WakePlan::SleepUntil(at) => event_loop.set_control_flow(wait_until(at)),
        }
    }

    fn exiting(&mut self, event_loop: &ActiveEventLoop) {
        self.finish(event_loop);
        if let Some(running) = &self.running {
            let uncaptured = lock(&running.alarms).uncaptured;
            if uncaptured > 0 {
                log::warn!("{uncaptured} wgpu error(s) were logged during the run");
            }
            log::info!(
                "{} frames, {} presented, {} updates",
                running.frames,
                running.presented,
                running.driver.updates()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_titles_match_the_verdict_wording() {
        assert_eq!(mode_title(wgpu::PresentMode::Fifo), "Fifo");
        assert_eq!(mode_title(wgpu::PresentMode::Immediate), "Immediate");
    }
}
