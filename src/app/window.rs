//! The window itself: opening it on the chosen monitor, following the monitor
//! it is on, fullscreen, and whether it can be drawn at all.
//!
//! Which monitor the window is on comes from the platform: X11 knows where a
//! window is from the start; Wayland tells a surface its output only once the
//! compositor has shown it there (`wl_surface.enter`), and sends no event for
//! it. So the shell asks again every [`MONITOR_POLL`] and follows a change
//! (a move by the window manager, M, fullscreen on another output). A Wayland
//! client cannot place its window; M there goes fullscreen on the next output.
//! A window that is fullscreen already gets there in two steps, out of
//! fullscreen and then fullscreen on the new output: weston 10 keeps a
//! fullscreen surface where it is when asked for another output of the same
//! size (its commit handler sees no change of state or size).
//!
//! ```text
//!   M ─► set_fullscreen(None) ─► configure: windowed ─► frames drawn windowed (≥ one poll)
//!     ─► set_fullscreen(next) ─► configure: fullscreen ─► wl_surface.enter(next) ─► followed
//! ```
//!
//! A window that cannot be seen (minimised, occluded, unmapped, zero-sized)
//! is not drawn: the shell waits for an event or looks again every
//! [`IDLE_RETRY`] (asking X11 is a server round trip, too slow for every frame).

use std::sync::Arc;

use winit::dpi::{LogicalSize, PhysicalPosition};
use winit::event_loop::ActiveEventLoop;
use winit::monitor::MonitorHandle;
use winit::window::{Fullscreen, Window};

use crate::app::config::RunConfig;
use crate::app::monitors::{self, MonitorInfo};
use crate::error::CliError;
use crate::time::{NANOS_PER_MS, Nanos, Rate};

/// How often a hidden, minimised or paused window looks again (no polling in between).
pub const IDLE_RETRY: Nanos = 250 * NANOS_PER_MS;

/// How often the shell asks which monitor the window is on (an X11 round
/// trip; Wayland sends no event when a surface enters an output).
pub const MONITOR_POLL: Nanos = 250 * NANOS_PER_MS;

/// The display a window is on, as the session is told about it.
#[derive(Clone, Debug, PartialEq)]
pub struct OnMonitor {
    /// The overlay's and the report's name for it: `screen1 1280x800 (2 of 2)`.
    pub label: String,
    /// The refresh rate it reports, if any.
    pub reported: Option<Rate>,
    /// Its number in winit's list (0-based), for `--emulate-refresh N=HZ`.
    pub index: Option<usize>,
}

/// The window and what the shell knows about its visibility and monitor.
pub struct WindowState {
    /// The winit window.
    pub window: Arc<Window>,
    monitors: Vec<MonitorHandle>,
    monitor: Option<MonitorHandle>,
    info: Option<(usize, MonitorInfo)>,
    /// The platform itself said which monitor (not only the one asked for).
    told: bool,
    /// A redraw was requested at this time and has not arrived yet.
    redraw_pending: Option<Nanos>,
    /// Occluded: no frames before this clock time (events clear it).
    idle_until: Option<Nanos>,
    /// Minimised or unmapped, as of `checked_at`.
    hidden: bool,
    checked_at: Nanos,
    /// Asks the X server whether the window is mapped (X11 only).
    mapping: Option<crate::platform::WindowMapping>,
    /// When the monitor was last looked up.
    monitor_checked_at: Nanos,
    /// The platform cannot place windows (Wayland): M goes fullscreen instead of moving.
    cannot_place: bool,
    /// M on Wayland while fullscreen: the output to go fullscreen on once the
    /// compositor has taken the window out of fullscreen.
    refullscreen: Option<Refullscreen>,
}

/// The second step of M on Wayland while fullscreen.
struct Refullscreen {
    /// The output to go fullscreen on.
    target: MonitorHandle,
    /// The first poll that found the window out of fullscreen.
    windowed_since: Option<Nanos>,
}

impl WindowState {
    /// Opens the window on `--monitor N` (or where the platform puts it), at
    /// `--window-size`, fullscreen if asked.
    ///
    /// # Errors
    /// [`CliError::Usage`] for a monitor that does not exist; [`CliError::Runtime`]
    /// when the platform refuses the window.
    pub fn open(event_loop: &ActiveEventLoop, config: &RunConfig) -> Result<WindowState, CliError> {
        let monitors: Vec<MonitorHandle> = event_loop.available_monitors().collect();
        if monitors.is_empty() {
            log::info!("winit lists no monitors");
        }
        for (i, m) in monitors.iter().enumerate() {
            log::info!("monitor {}: {}", i + 1, MonitorInfo::of(i, m));
        }
        if let Some(n) = config.emulation.as_ref().and_then(|e| e.rates.highest_monitor())
            && n > monitors.len()
        {
            return Err(CliError::Usage(format!(
                "--emulate-refresh: there is no monitor {n} ({} found; they are numbered as in the log at startup)",
                monitors.len()
            )));
        }
        let chosen = match config.monitor {
            Some(i) => Some(monitors.get(i).cloned().ok_or_else(|| {
                CliError::Usage(format!("--monitor: there is no monitor {} ({} found)", i + 1, monitors.len()))
            })?),
            None => None,
        };
        let [w, h] = config.window_size;
        let mut attributes = Window::default_attributes().with_title("timestep-lab");
        if !config.fill_window {
            attributes = attributes.with_inner_size(LogicalSize::new(w, h));
        }
        if let Some(m) = &chosen {
            let p = m.position();
            attributes = attributes.with_position(PhysicalPosition::new(p.x + 32, p.y + 32));
        }
        if config.fullscreen {
            let target = chosen.clone().or_else(|| event_loop.primary_monitor()).or_else(|| monitors.first().cloned());
            attributes = attributes.with_fullscreen(Some(match target {
                Some(m) => monitors::fullscreen_on(&m, false),
                None => Fullscreen::Borderless(None),
            }));
        }
        let window = event_loop
            .create_window(crate::platform::window_attributes(attributes))
            .map_err(|e| CliError::Runtime(format!("could not open a window: {e}")))?;
        Ok(WindowState {
            mapping: crate::platform::WindowMapping::of(&window),
            monitor: window.current_monitor().or(chosen),
            window: Arc::new(window),
            monitors,
            info: None,
            told: false,
            redraw_pending: None,
            idle_until: None,
            hidden: false,
            checked_at: 0,
            monitor_checked_at: 0,
            cannot_place: crate::platform::cannot_place_windows(event_loop),
            refullscreen: None,
        })
    }

    /// The monitors winit listed, for the help table.
    pub fn monitor_lines(&self) -> Vec<(String, String)> {
        self.monitors
            .iter()
            .enumerate()
            .map(|(i, m)| (format!("monitor {}", i + 1), MonitorInfo::of(i, m).to_string()))
            .collect()
    }

    /// Looks up the monitor the window is on; returns it when it differs from
    /// the one known so far (or always, with `force`).
    pub fn follow_monitor(&mut self, force: bool) -> Option<OnMonitor> {
        let reported = self.window.current_monitor();
        let told = reported.is_some();
        let current = reported.or_else(|| self.monitor.clone());
        let index = current.as_ref().and_then(|c| self.monitors.iter().position(|m| m == c)).unwrap_or(0);
        let info = current.as_ref().map(|m| (index, MonitorInfo::of(index, m)));
        if !force && info == self.info && told == self.told {
            return None;
        }
        self.told = told;
        match &info {
            Some((_, info)) if told => log::info!("window is on {info}"),
            Some((_, info)) => log::info!("window asked for {info} (the platform has not said where it is yet)"),
            None => log::info!("the platform has not said which monitor the window is on yet"),
        }
        self.monitor = current;
        self.info = info;
        Some(self.on_monitor())
    }

    /// Looks up the monitor again if [`MONITOR_POLL`] has passed; returns it when it changed.
    pub fn poll_monitor(&mut self, now: Nanos) -> Option<OnMonitor> {
        if now < self.monitor_checked_at.saturating_add(MONITOR_POLL) {
            return None;
        }
        self.monitor_checked_at = now;
        self.refullscreen_step(now);
        self.follow_monitor(false)
    }

    /// The second step of M on Wayland while fullscreen: fullscreen on the new
    /// output once the window has been out of fullscreen for a whole poll. Its
    /// windowed frames must reach the compositor first; asked sooner, the
    /// compositor folds both requests into one commit that changes nothing.
    fn refullscreen_step(&mut self, now: Nanos) {
        let Some(pending) = self.refullscreen.as_mut() else { return };
        if self.window.fullscreen().is_some() {
            return;
        }
        let since = *pending.windowed_since.get_or_insert(now);
        if now < since.saturating_add(MONITOR_POLL) {
            return;
        }
        let target = pending.target.clone();
        self.refullscreen = None;
        self.window.set_fullscreen(Some(monitors::fullscreen_on(&target, false)));
    }

    /// The current monitor, as the session is told about it.
    pub fn on_monitor(&self) -> OnMonitor {
        match &self.info {
            Some((index, m)) => {
                let of = if self.monitors.len() > 1 {
                    format!(" ({} of {})", index + 1, self.monitors.len())
                } else {
                    String::new()
                };
                OnMonitor {
                    label: format!("{} {}x{}{of}", m.name, m.size[0], m.size[1]),
                    reported: m.refresh_rate(),
                    index: Some(*index),
                }
            }
            None => OnMonitor { label: "unknown monitor".to_owned(), reported: None, index: None },
        }
    }

    /// Moves the window (or its fullscreen) to the next monitor; where a
    /// client cannot place its window (Wayland), goes fullscreen there.
    pub fn next_monitor(&mut self, event_loop: &ActiveEventLoop) {
        self.monitors = event_loop.available_monitors().collect();
        if self.monitors.len() < 2 {
            log::info!("only {} monitor(s): nothing to move to", self.monitors.len());
            return;
        }
        let current = self.window.current_monitor().or_else(|| self.monitor.clone());
        let index = current.and_then(|c| self.monitors.iter().position(|m| *m == c)).unwrap_or(0);
        let next_index = (index + 1) % self.monitors.len();
        let next = self.monitors[next_index].clone();
        log::info!("moving to {}", MonitorInfo::of(next_index, &next));
        if self.cannot_place {
            log::info!("a Wayland client cannot place its window: fullscreen on that monitor instead");
            if self.window.fullscreen().is_some() {
                // Out of fullscreen first; `refullscreen_step` asks for the new output.
                self.window.set_fullscreen(None);
                self.refullscreen = Some(Refullscreen { target: next.clone(), windowed_since: None });
            } else {
                self.window.set_fullscreen(Some(monitors::fullscreen_on(&next, false)));
            }
            // Until the compositor says otherwise, the window is where it was sent.
            self.monitor = Some(next);
        } else if self.window.fullscreen().is_some() {
            self.window.set_fullscreen(Some(monitors::fullscreen_on(&next, false)));
        } else {
            let p = next.position();
            self.window.set_outer_position(PhysicalPosition::new(p.x + 32, p.y + 32));
        }
    }

    /// Fullscreen on the current monitor (borderless, or exclusive in its best mode), or back.
    pub fn toggle_fullscreen(&mut self, exclusive: bool) {
        // F overrides an M still under way.
        self.refullscreen = None;
        if self.window.fullscreen().is_some() {
            self.window.set_fullscreen(None);
        } else if let Some(m) = self.window.current_monitor().or_else(|| self.monitor.clone()) {
            self.window.set_fullscreen(Some(monitors::fullscreen_on(&m, exclusive)));
        } else {
            self.window.set_fullscreen(Some(Fullscreen::Borderless(None)));
        }
    }

    /// Asks the platform for a redraw, and remembers when (see [`WindowState::redraw_arrived`]).
    pub fn request_redraw(&mut self, now: Nanos) {
        self.redraw_pending = Some(now);
        self.window.request_redraw();
    }

    /// When the redraw on its way was requested (`None`: none is).
    pub fn redraw_pending(&self) -> Option<Nanos> {
        self.redraw_pending
    }

    /// The requested redraw arrived at `now`: returns how long it took (0 when none was pending).
    pub fn redraw_arrived(&mut self, now: Nanos) -> Nanos {
        self.redraw_pending.take().map_or(0, |at| now.saturating_sub(at))
    }

    /// Until when frames wait (occluded, or hidden by the last frame); events clear it.
    pub fn idle_until(&self) -> Option<Nanos> {
        self.idle_until
    }

    /// No frames before `until` (`None`: frames at once, if the window can be seen).
    pub fn set_idle_until(&mut self, until: Option<Nanos>) {
        self.idle_until = until;
    }

    /// Whether a frame should be drawn now: not occluded, minimised, unmapped or empty.
    pub fn renderable(&mut self, now: Nanos, zero_size: bool) -> bool {
        if now >= self.checked_at.saturating_add(IDLE_RETRY) {
            self.check_hidden(now);
        }
        self.idle_until.is_none_or(|t| now >= t) && !zero_size && !self.hidden
    }

    /// Asks the platform again whether the window is minimised or unmapped.
    pub fn check_hidden(&mut self, now: Nanos) {
        let unmapped = self.mapping.as_ref().is_some_and(|m| !m.viewable());
        self.hidden = unmapped || self.window.is_minimized() == Some(true) || self.window.is_visible() == Some(false);
        self.checked_at = now;
    }
}
