//! A frame of the demo, and what follows it: the warm-up before the first,
//! the demo's session's frame (or the still picture while paused) or every
//! lane's, the compositor's answers settled into the figures, and the
//! overlay's numbers brought up to date.
//!
//! ```text
//!   Demo::frame ─► warm_up (once) ─► single mode: session_frame ─► record ─► collect_settled ─► after_frame
//!                                └► lane mode:   LaneMode::frame ──────────────────────────────► after_frame
//!   after_frame ─► skipped frames, the periodic log line (log_stats), refresh_hud
//! ```

use super::{Demo, PLAYFIELD, ShownFrame, fresh_session, life};
use crate::app::window_host::{HostOutcome, SceneParams};
use crate::app::window_state::IDLE_RETRY;
use crate::render::surface::{SkipReason, is_vsync_mode};
use crate::report::registry::{HITCHES_PER_MIN, JUDDER_MS, LATENCY_MS};
use crate::session::Outcome;
use crate::time::{Clock, NANOS_PER_SEC, Nanos, Rate, RealClock};

/// Periodic stats go to the log at most this often.
const LOG_INTERVAL: Nanos = NANOS_PER_SEC;

/// Frames drawn before the session starts ([`Demo::warm_up`]). On lavapipe
/// the first frame took 30–45 ms where later ones took 5 (Xvfb, 640×360,
/// `fixed-fps`, Immediate); timed, it was the run's largest present-interval
/// outlier, and `paced` grew its interval to 80 ms from it and took 6 s to
/// come back to 60 fps. With the warm-up, the whole-run present interval σ
/// of `fixed-fps` went from 0.95 to 0.23 ms and that of `paced` from 13.0 to
/// 0.20 ms (10 s, 640×360, Immediate; `paced` no longer widened its interval).
const WARM_UP_FRAMES: usize = 3;

impl Demo {
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
        let session = &self.loops.session;
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
        let (strategy, config) = (self.loops.session.pacer().strategy(), *self.loops.session.pacer().config());
        let display = self.loops.session.display().clone();
        let world = *self.loops.session.world().config();
        self.end_run();
        let limit = self.loops.session.pacer().frame_limit();
        self.loops.session = fresh_session(&world, strategy, config, display, self.controls.input, limit, now);
        self.hold.reset();
        // The lanes start afresh too, on the fresh session.
        if self.loops.lanes.take().is_some() {
            self.enter_lanes(now);
        }
        (self.log_at, self.still_at) = (now, now);
        self.refresh_hud(now);
    }

    /// When the next frame should start (`None`: as soon as possible). A
    /// paused demo redraws its still picture once per refresh (60 Hz when
    /// the refresh is unknown) instead of as fast as the present returns.
    pub(crate) fn wake(&self) -> Option<Nanos> {
        let session = &self.loops.session;
        match self.loops.lanes {
            // Lane mode is display-paced: frames as fast as presents (or the emulated grid) allow.
            Some(_) => None,
            None if session.paused() => {
                let period = session.display().refresh().unwrap_or(Rate::from_hz(60)).period();
                Some(self.still_at.saturating_add(period))
            }
            None => session.wake(),
        }
    }

    /// One frame: the active strategy's, the still picture while paused, or every lane's.
    /// Returns the strategy frames settled meanwhile that were shown: this
    /// one's, or, where the compositor's feedback is awaited, earlier ones'.
    pub(crate) fn frame(&mut self, clock: &RealClock, stamp: Option<Nanos>) -> &[ShownFrame] {
        if !self.warmed {
            self.warm_up(clock);
        }
        self.shown.clear();
        let Some(lanes) = &mut self.loops.lanes else {
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
        let paused = self.loops.session.paused();
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
        let frame_id = (!paused).then(|| self.loops.session.next_frame_id());
        let session = &mut self.loops.session;
        let (report, outcome) = self.screen.draw_frame(clock, stamp, scene, hold_until, frame_id, |host| {
            if paused {
                host.draw_still(session.world(), session.last_view());
                None
            } else {
                Some(session.run_host_frame(host))
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
            self.waits.push_back((report.frame, outcome.display_wait, self.redraw_wait));
            let presented = outcome.presented().with_throttled(self.redraw_wait);
            self.loops.session.record(report, presented);
        }
        self.collect_settled();
        self.after_frame(&outcome, clock.now());
    }

    /// Hands the compositor's answers to the session, then takes the frames
    /// it settled: to the frame log, and, when shown, to [`Demo::frame`]'s answer.
    fn collect_settled(&mut self) {
        let session = &mut self.loops.session;
        let screen = &mut self.screen;
        let gpu =
            crate::platform::display_time::Gpu { surface: screen.gfx.surface.raw(), device: &screen.gfx.gpu.device };
        screen.feedback.poll(gpu, |word| session.feedback(word));
        if let (Some(log), Some(why)) = (self.frame_log.as_mut(), screen.feedback.fallback()) {
            log.fell_back(why);
        }
        let estimate = self.loops.session.estimate_source().id();
        // A frame the display answered for is named by the source that timed
        // it (`wp-presentation`, `x11-present`, …): the log says which.
        let timed_by = screen.feedback.name();
        for settled in self.loops.session.take_settled() {
            let report = settled.report;
            let (shown, source) = match settled.outcome {
                Outcome::Displayed => (true, timed_by),
                Outcome::Estimated => (true, estimate),
                Outcome::Discarded => (false, "discarded"),
                _ => (false, "not-shown"),
            };
            if let Some(log) = self.frame_log.as_mut() {
                log.displayed(report.frame, shown.then_some(report.display_time), source);
            }
            while self.waits.front().is_some_and(|(id, _, _)| *id < report.frame) {
                self.waits.pop_front();
            }
            let (display_wait, redraw_wait) = match self.waits.front() {
                Some(&(id, display, redraw)) if id == report.frame => (display, redraw),
                _ => (0, 0),
            };
            if shown {
                self.display_lead = report.display_time.saturating_sub(report.start);
                self.shown.push(ShownFrame { report, display_wait, redraw_wait });
            }
        }
    }

    /// The end of the run (or of a session the demo replaces): the
    /// compositor's answers that arrived are taken; the last frames it has
    /// not answered yet (one or two) are left out of the figures, not
    /// counted as estimates (waiting here cannot make it answer: nothing
    /// reads its socket until the next present), and the frame log says so.
    pub(crate) fn end_run(&mut self) {
        self.collect_settled();
        let unanswered = self.loops.session.forget_awaiting();
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
        if !own_pace || self.loops.session.paused() {
            return None;
        }
        self.loops.session.wake()
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
            hud.cpu_percent = self.cpu.sample(crate::time::Instant::now());
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
        if hud.figures.fps <= 0.0 && hud.figures.ups <= 0.0 {
            // A strategy that has not drawn a frame yet (just switched to, or
            // waiting for its first tick) has nothing to say: no "0.0 fps" line.
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
    pub(super) fn refresh_hud(&mut self, now: Nanos) {
        let hud = &mut self.screen.hud;
        self.loops.session.fill_hud(&mut hud.figures, now);
        hud.ghosts = self.controls.ghosts;
        hud.load_preset = self.controls.load.label();
        self.loops.fill_labels(&mut hud.lanes, now);
        let screen = crate::platform::screen_refresh();
        if screen.is_some() {
            // A page's frame clock measures the screen, whatever the page managed to draw.
            hud.figures.present_cadence_hz = screen;
        }
        let fps = hud.figures.fps;
        let screen_hz = self.screen_to_judge_by();
        if let Some(verdict) = screen_hz.and_then(|hz| life::slow_page_verdict(fps, hz)) {
            self.screen.hud.figures.vsync_verdict = verdict;
        }
        self.life.notes(fps, screen_hz, &mut self.screen.hud.notes);
        self.screen.hud.display_times = self.screen.feedback.line();
        let note = self.screen.feedback.fallback_note();
        self.screen.hud.display_times_fell_back = note.is_some();
        self.screen.hud.notes.extend(note);
        let gate = self.loops.session.display().emulated_vrr();
        if let Some(note) = gate.zip(screen).and_then(|(range, hz)| life::vrr_ceiling_note(range, hz)) {
            self.screen.hud.notes.push(note);
        }
    }

    /// The screen's refresh from the platform's frame clock (a page's), when
    /// the frames are meant to come at it: refreshes skipped on purpose (an
    /// emulated rate, timers, a pause) are not missed ones.
    fn screen_to_judge_by(&self) -> Option<f64> {
        let on_refresh = !self.timer_driven && self.screen.vsync.is_none() && !self.loops.session.paused();
        crate::platform::screen_refresh().filter(|_| on_refresh)
    }

    /// The vsync sentence where the page drew `fps` and missed refreshes: the
    /// meter sees the page's own frames, and slow ones read as a slow,
    /// compositor-paced screen.
    pub(super) fn slow_page_verdict(&self, fps: f64) -> Option<String> {
        life::slow_page_verdict(fps, self.screen_to_judge_by()?)
    }
}
