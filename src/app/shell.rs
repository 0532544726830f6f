//! The winit application: events in, frames out, and the one place that decides when to wake.
//!
//! ```text
//!  RedrawRequested ─► redraw_arrived ─┐
//!  TimerFrame (below) ────────────────┴► frame() ─► demo.frame(): session run_host_frame + record ─► wake time
//!                                                                                                  │
//!  about_to_wait ─► schedule: next() decides, carry_out() does it, one ControlFlow::WaitUntil ◄─────┘
//!     wake None / due                ─► Redraw: request_redraw
//!     wake within EVENT_LOOP_EARLY   ─► Redraw: wait_until(wake) (the core's sleep_until), request_redraw
//!     wake later                     ─► WaitUntil(wake − EVENT_LOOP_EARLY)   (events still flow)
//!     hidden / zero size             ─► WaitUntil(retry or exit deadline), no rendering
//!     frames on timers (a page's V)  ─► TimerFrame: the frame runs here, then WaitUntil(wake, or a timer gap)
//!  Esc, close, --exit-after, SIGINT/SIGTERM ─► finish: screenshot + stats, exit
//!  with a measure tour: each frame goes to the tour, which ends the run when done
//! ```
//!
//! Vsync (a blocking present) paces strategies that return `wake: None`;
//! strategies that pace themselves get a precise wait. The loop never polls.

use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, TouchPhase, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoopProxy};
use winit::keyboard::PhysicalKey;
use winit::window::WindowId;

use crate::app::config::RunConfig;
use crate::app::demo::{Demo, ShownFrame};
use crate::app::gfx::{Gfx, GpuStart};
use crate::app::tour::Tour;
use crate::app::wait::{self, WaitSplit};
use crate::app::window_state::{IDLE_RETRY, WindowState};
use crate::error::CliError;
use crate::time::{Clock, Nanos, RealClock};

/// What reaches the event loop from outside winit.
#[derive(Debug)]
pub(crate) enum UserEvent {
    /// SIGINT, SIGTERM (or Ctrl+C on Windows), or the page going away: end the run the way `Esc` does.
    Terminate,
    /// The GPU's asynchronous start-up ([`Gfx::request`]) is done.
    GpuReady(Box<GpuStart>),
    /// The page was hidden (`true`) or shown again (`visibilitychange`).
    PageHidden(bool),
    /// A page's touch control `i` (of [`crate::app::bindings::controls`]) went down (`true`) or up.
    Control(usize, bool),
}

/// The longest V's timer loop runs a frame before asking for the next, as
/// a share of the screen's refresh: at most this many frames a refresh. On
/// timers alone it ran 550–625 fps at 640×360 and swamped the page (a
/// screenshot took 7.9 s); frames beyond a few a refresh are never shown anyway.
const TIMER_FRAMES_PER_REFRESH: u64 = 4;

/// The refresh assumed for V's cap until the page has measured one: 60 Hz.
const ASSUMED_REFRESH: Nanos = crate::time::NANOS_PER_SEC / 60;

/// How often a page republishes the figures `window.timestepLab.stats()` returns.
const PUBLISH_INTERVAL: Nanos = 250 * crate::time::NANOS_PER_MS;

/// Hands the run's figures (the `--stats-json` object) to the platform (the page's `timestepLab.stats()`).
fn publish_stats(demo: &mut Demo, now: Nanos) {
    match serde_json::to_string(&demo.stats(now)) {
        Ok(json) => crate::platform::publish_stats(json),
        Err(err) => log::warn!("cannot encode the stats: {err}"),
    }
}

/// The application handler.
pub(crate) struct App {
    config: RunConfig,
    proxy: EventLoopProxy<UserEvent>,
    /// The window, while the GPU's start-up is under way.
    opening: Option<WindowState>,
    /// When the figures were last published (pages only).
    published_at: Nanos,
    clock: RealClock,
    demo: Option<Demo>,
    error: Option<CliError>,
    finished: bool,
    deadline: Option<Nanos>,
    /// `measure`'s scripted tour, when this run is one.
    tour: Option<Tour>,
    /// What each of a page's touch controls does, by index.
    controls: Vec<crate::app::bindings::Action>,
    /// How the run ended, shown where a page can say it (Esc, `exit-after`, a finished tour).
    ending: Option<String>,
    /// When V's timer loop last ran a frame.
    timer_frame_at: Nanos,
    /// The strategy frames the last frame settled as shown (reused).
    shown: Vec<ShownFrame>,
    /// Keys pressed while the GPU was starting, carried out once the demo is up.
    early_keys: Vec<(WindowId, WindowEvent)>,
}

/// Most keys kept while the GPU starts: a few presses; more is a key held down.
const EARLY_KEYS: usize = 16;

impl App {
    /// An app that opens its window when the event loop resumes; `proxy`
    /// carries the GPU's start-up back to it.
    pub(crate) fn new(config: RunConfig, proxy: EventLoopProxy<UserEvent>) -> App {
        App {
            config,
            proxy,
            opening: None,
            published_at: 0,
            clock: RealClock::new(),
            demo: None,
            error: None,
            finished: false,
            deadline: None,
            tour: None,
            controls: Vec::new(),
            ending: None,
            timer_frame_at: 0,
            shown: Vec::new(),
            early_keys: Vec::new(),
        }
    }

    /// An app that runs `tour` (`timestep-lab measure`) and ends when it is done.
    pub(crate) fn with_tour(config: RunConfig, proxy: EventLoopProxy<UserEvent>, tour: Tour) -> App {
        App { tour: Some(tour), ..App::new(config, proxy) }
    }

    /// The GPU is ready for the window opened in `resumed`: the demo starts.
    fn gpu_ready(&mut self, event_loop: &ActiveEventLoop, gpu: GpuStart) {
        let Some(win) = self.opening.take() else { return };
        match Demo::start(win, gpu, &self.config, &self.clock) {
            Ok(mut demo) => {
                if let Some(tour) = self.tour.as_mut() {
                    tour.start(&mut demo, &self.config, event_loop, self.clock.now());
                }
                self.deadline = self.config.exit_after.map(|d| self.clock.now().saturating_add(d));
                demo.request_first_frame();
                self.demo = Some(demo);
                self.install_controls();
                // A key pressed as the window appeared (the GPU still starting) is not lost.
                for (id, key) in std::mem::take(&mut self.early_keys) {
                    self.window_event(event_loop, id, key);
                }
            }
            Err(err) => self.fail(event_loop, err),
        }
    }

    /// A page's touch controls: one per key action that applies here, each
    /// sending [`UserEvent::Control`] back to the loop.
    fn install_controls(&mut self) {
        let (actions, controls): (Vec<_>, Vec<_>) = crate::app::bindings::controls().into_iter().unzip();
        self.controls = actions;
        let proxy = self.proxy.clone();
        crate::platform::install_controls(&controls, move |i, pressed| {
            if proxy.send_event(UserEvent::Control(i, pressed)).is_err() {
                log::warn!("the run has ended: the control does nothing");
            }
        });
    }

    /// Ends the run, saying `why` where a page can (how to start again with it).
    fn end(&mut self, event_loop: &ActiveEventLoop, why: impl Into<String>) {
        self.ending.get_or_insert_with(|| why.into());
        self.finish(event_loop);
    }

    /// The error that ended the run, if any.
    ///
    /// # Errors
    /// The first error of the run: start-up, device loss, or an output that could not be written.
    pub(crate) fn into_result(self) -> Result<(), CliError> {
        match self.error {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, err: CliError) {
        // `main` prints the error; the log only notes that the run ends here.
        log::debug!("ending the run: {err}");
        if self.finished || self.demo.is_none() {
            // `finish` shows the run's error once it has written what it could.
            crate::platform::report_error(&err.to_string());
        }
        self.error.get_or_insert(err);
        self.finish(event_loop);
    }

    /// Writes the screenshot and the stats (once, each independently of the
    /// other's failure), then leaves the event loop.
    fn finish(&mut self, event_loop: &ActiveEventLoop) {
        event_loop.exit();
        if self.finished {
            return;
        }
        self.finished = true;
        let Some(demo) = self.demo.as_mut() else { return };
        demo.end_run();
        if let Some(tour) = self.tour.take() {
            match tour.finish(demo, &self.config) {
                // The tour's own last line says where its files are.
                Ok(line) => self.ending = Some(line),
                Err(err) => {
                    log::error!("{err}");
                    self.error.get_or_insert(err);
                }
            }
        }
        if let Err(err) = demo.finish_frame_log(self.clock.now()) {
            log::error!("{err}");
            self.error.get_or_insert(err);
        }
        if let Some(path) = &self.config.screenshot {
            let written = match demo.device_lost() {
                Some(_) => Err(CliError::Runtime("no screenshot: the GPU device was lost".to_owned())),
                None => demo.screenshot(path),
            };
            match written {
                Ok(()) => log::info!("screenshot written to {}", path.display()),
                Err(err) => {
                    log::error!("{err}");
                    self.error.get_or_insert(err);
                }
            }
        }
        if let Some(path) = &self.config.stats_json {
            match demo.stats(self.clock.now()).write(path) {
                Ok(()) => log::info!("stats written to {}", path.display()),
                Err(err) => {
                    log::error!("{err}");
                    self.error.get_or_insert(err);
                }
            }
        }
        if crate::platform::PUBLISHES_FIGURES {
            // The run's last figures stay readable after it ends.
            publish_stats(demo, self.clock.now());
        }
        match (&self.error, self.ending.take()) {
            (Some(err), _) => crate::platform::report_error(&err.to_string()),
            (None, Some(why)) => crate::platform::show_ending(&why),
            (None, None) => {}
        }
    }

    /// One frame of the demo, and what follows it: the tour's step, the page's figures.
    /// `stamp`: the frame's start as the platform stamped it (a page's
    /// requestAnimationFrame timestamp); `None`: the clock's time as it starts.
    fn frame(&mut self, event_loop: &ActiveEventLoop, now: Nanos, stamp: Option<Nanos>) {
        let Some(demo) = self.demo.as_mut() else { return };
        self.shown.clear();
        self.shown.extend_from_slice(demo.frame(&self.clock, stamp));
        let shown = &self.shown;
        let tour_done = self
            .tour
            .as_mut()
            .is_some_and(|tour| tour.after_frame(demo, shown, &self.config, event_loop, self.clock.now()));
        if crate::platform::PUBLISHES_FIGURES && now >= self.published_at.saturating_add(PUBLISH_INTERVAL) {
            self.published_at = now;
            publish_stats(demo, now);
        }
        if tour_done {
            // The tour's `finish` replaces this with the line naming its files.
            self.end(event_loop, "The tour is done.");
        }
    }

    /// Decides what the loop does next and tells winit: the one place that
    /// sets the event loop's `ControlFlow` (always a `WaitUntil`: the loop never polls).
    fn schedule(&mut self, event_loop: &ActiveEventLoop, now: Nanos) {
        let Some(next) = self.next(now) else { return };
        let until = self.carry_out(event_loop, next, now);
        let deadline = self.deadline.unwrap_or(Nanos::MAX);
        event_loop.set_control_flow(ControlFlow::WaitUntil(self.clock.instant_at(until.min(deadline))));
    }

    /// What the loop does next at `now`, from the window's state and the strategy's wake.
    fn next(&mut self, now: Nanos) -> Option<Next> {
        let demo = self.demo.as_mut()?;
        if !demo.renderable(now) {
            // Nothing to show: wait for an event, or look again later; never spin.
            return Some(Next::WaitUntil(demo.idle_until().filter(|t| *t > now).unwrap_or(now + IDLE_RETRY)));
        }
        if let Some(at) = demo.redraw_pending() {
            // A redraw is on its way. Should the platform drop it (an unmapped
            // window), ask again after a while rather than stall for good.
            if now.saturating_sub(at) < IDLE_RETRY {
                return Some(Next::WaitUntil(at + IDLE_RETRY));
            }
            log::debug!("requested redraw did not arrive; asking again");
        }
        let split = wait::split_wait(now, demo.wake());
        if demo.timer_driven() {
            // Frames on timers (a page's V): drawn here, outside requestAnimationFrame; the
            // loop comes back on the next timer, at the strategy's wake, and no sooner than
            // a [`TIMER_FRAMES_PER_REFRESH`]th of a refresh after the last timer frame.
            let refresh = crate::platform::next_refresh(&self.clock).map_or(ASSUMED_REFRESH, |(_, period)| period);
            let gap = refresh / TIMER_FRAMES_PER_REFRESH;
            let earliest = self.timer_frame_at.saturating_add(gap);
            return Some(match split {
                WaitSplit::SleepUntil(at) => Next::WaitUntil(at.max(earliest)),
                WaitSplit::RedrawNow | WaitSplit::WaitThenRedraw(_) if now < earliest => Next::WaitUntil(earliest),
                WaitSplit::RedrawNow | WaitSplit::WaitThenRedraw(_) => Next::TimerFrame { gap },
            });
        }
        Some(match split {
            WaitSplit::RedrawNow => Next::Redraw { wait_until: None },
            WaitSplit::WaitThenRedraw(at) => Next::Redraw { wait_until: Some(at) },
            WaitSplit::SleepUntil(at) => Next::WaitUntil(at),
        })
    }

    /// Does `next`; returns until when the loop then waits for events.
    fn carry_out(&mut self, event_loop: &ActiveEventLoop, next: Next, now: Nanos) -> Nanos {
        match next {
            Next::WaitUntil(at) => at,
            Next::Redraw { wait_until } => {
                if let Some(demo) = self.demo.as_mut() {
                    match wait_until {
                        Some(at) => {
                            crate::platform::wait_until(&self.clock, at);
                            demo.request_redraw(self.clock.now());
                        }
                        None => demo.request_redraw(now),
                    }
                }
                now + IDLE_RETRY
            }
            Next::TimerFrame { gap } => {
                self.timer_frame_at = now;
                self.frame(event_loop, now, None);
                let wake = self.demo.as_ref().and_then(Demo::wake).unwrap_or(now);
                wake.max(now.saturating_add(gap))
            }
        }
    }

    /// A redraw arrived: the frame runs, unless the window is gone or hidden,
    /// or an emulated refresh has none here.
    fn redraw_arrived(&mut self, event_loop: &ActiveEventLoop, now: Nanos) {
        let Some(demo) = self.demo.as_mut() else { return };
        // On Wayland winit holds a requested redraw until the compositor's
        // frame callback: that wait is the compositor's pacing.
        demo.redraw_arrived(now);
        // A redraw queued before the window closed still arrives; its window may be gone.
        if self.finished || !demo.renderable(now) {
            return;
        }
        if demo.between_emulated_vblanks(&self.clock, now) {
            // A page under an emulated refresh: this refresh is not one of it.
            demo.request_redraw(now);
        } else {
            let stamp = crate::platform::frame_timestamp(&self.clock);
            self.frame(event_loop, now, stamp);
        }
    }
}

/// What the loop does next (see [`App::schedule`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Wait for events until this clock time: nothing to show, a redraw on its way, or a strategy's sleep.
    WaitUntil(Nanos),
    /// Ask the platform for a redraw, after its precise wait until `wait_until` when given.
    Redraw { wait_until: Option<Nanos> },
    /// Run a frame here, on a timer (a page's V), and come back no sooner than `gap` later.
    TimerFrame { gap: Nanos },
}

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.demo.is_some() || self.opening.is_some() || self.finished {
            return;
        }
        match WindowState::open(event_loop, &self.config) {
            Ok(win) => {
                let request = Gfx::request(event_loop, &win.window);
                self.opening = Some(win);
                let proxy = self.proxy.clone();
                crate::platform::spawn(request, move |gpu| {
                    if proxy.send_event(UserEvent::GpuReady(Box::new(gpu))).is_err() {
                        log::debug!("the event loop ended before the GPU was ready");
                    }
                });
            }
            Err(err) => self.fail(event_loop, err),
        }
    }

    fn user_event(&mut self, event_loop: &ActiveEventLoop, event: UserEvent) {
        match event {
            UserEvent::Terminate => {
                log::info!("terminated by a signal: ending the run as Esc does");
                self.finish(event_loop);
            }
            UserEvent::GpuReady(gpu) => self.gpu_ready(event_loop, *gpu),
            UserEvent::PageHidden(hidden) => {
                let now = self.clock.now();
                let Some(demo) = self.demo.as_mut() else { return };
                let gap = demo.page_hidden(hidden, now);
                if let (Some(gap), Some(tour)) = (gap, self.tour.as_mut()) {
                    tour.hidden(demo, gap, &self.config, event_loop, now);
                }
                if !hidden {
                    demo.request_redraw(now);
                }
            }
            UserEvent::Control(i, pressed) => {
                let now = self.clock.now();
                let (Some(demo), Some(&action)) = (self.demo.as_mut(), self.controls.get(i)) else { return };
                if demo.act(action, pressed, event_loop, now) {
                    self.end(event_loop, "The run ended (end run).");
                }
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, id: WindowId, event: WindowEvent) {
        let Some(demo) = self.demo.as_mut() else {
            let key = matches!(event, WindowEvent::KeyboardInput { .. } | WindowEvent::ModifiersChanged(_));
            if key && self.opening.is_some() && self.early_keys.len() < EARLY_KEYS {
                self.early_keys.push((id, event));
            }
            return;
        };
        let now = self.clock.now();
        let consumed = demo.overlay_event(&event);
        match event {
            WindowEvent::CloseRequested | WindowEvent::Destroyed => self.finish(event_loop),
            WindowEvent::RedrawRequested => self.redraw_arrived(event_loop, now),
            WindowEvent::Resized(size) => demo.resized(size.width, size.height, now),
            // Some platforms never say "visible again": the demo looks again now and then.
            WindowEvent::Occluded(occluded) => demo.occluded(occluded, now),
            WindowEvent::Focused(_) => demo.focused(now),
            WindowEvent::Moved(_) | WindowEvent::ScaleFactorChanged { .. } => demo.follow_monitor(now),
            WindowEvent::ModifiersChanged(mods) => demo.set_modifiers(mods.state()),
            WindowEvent::CursorMoved { position, .. } => demo.pointer_moved([position.x as f32, position.y as f32]),
            WindowEvent::MouseInput { state: ElementState::Pressed, button: MouseButton::Left, .. } if !consumed => {
                demo.click(now);
            }
            // A tap selects the lane under it, as a click does (a page on a phone).
            WindowEvent::Touch(touch) if touch.phase == TouchPhase::Started && !consumed => {
                demo.touched([touch.location.x as f32, touch.location.y as f32], now);
            }
            WindowEvent::KeyboardInput { event, is_synthetic, .. } if !consumed => {
                let PhysicalKey::Code(code) = event.physical_key else { return };
                let Some(action) = demo.action_for(code) else { return };
                // A window gaining focus gets a synthetic press for each key already
                // down: a toggle must not fire twice for a key pressed as focus came.
                if (event.repeat || is_synthetic) && !action.is_held() {
                    return;
                }
                if demo.act(action, event.state == ElementState::Pressed, event_loop, now) {
                    self.end(event_loop, "The run ended (Esc).");
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
        if let Some(deadline) = self.deadline.filter(|d| now >= *d) {
            log::info!("--exit-after reached");
            let after = self.config.exit_after.unwrap_or(deadline);
            self.end(
                event_loop,
                format!("The run ended after {} s (exit-after).", crate::report::trim_number(after as f64 / 1e9, 3)),
            );
            return;
        }
        let lost = self.demo.as_ref().and_then(Demo::device_lost);
        if let Some(message) = lost {
            self.fail(event_loop, CliError::Runtime(format!("the GPU device was lost ({message}); exiting")));
            return;
        }
        if let Some(demo) = self.demo.as_mut() {
            demo.poll_monitor(now);
        }
        self.schedule(event_loop, now);
    }

    fn exiting(&mut self, event_loop: &ActiveEventLoop) {
        self.finish(event_loop);
        if let Some(demo) = &self.demo {
            demo.log_summary();
        }
    }
}
